#!/usr/bin/env bash
# Install clang and libFuzzer, build the harnesses fuzz/fuzz_*.c with clang
# (ASan + UBSan) and run each for a fixed time on its seed corpus
# fuzz/corpus/<harness>/. New corpus entries go to a scratch directory,
# never into the repository; crash inputs are kept under
# $BUILD_FUZZ/fuzz-artifacts/ for reproduction. Exit 1 if any harness
# crashed, leaked, timed out or ran out of memory.
#
# Seconds per harness: FUZZ_SECONDS if set. Otherwise the fuzzing itself
# gets at most FUZZ_TIME_BUDGET = 300 s in all (the 5 minutes; install and
# build come on top), shared equally: at most 25 s per harness, and at least
# 20 s (a note says when that overruns the budget: then merge small
# harnesses rather than shorten them).
# Other settings: BUILD_FUZZ (build-fuzz), JOBS (build jobs).
# Usage: scripts/fuzz.sh [HARNESS...] (default: all of them).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_FUZZ:-build-fuzz}
time_budget=${FUZZ_TIME_BUDGET:-300}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

bash scripts/deps.sh scripts/deps-fuzz.extra
if [ ! -f "$build/build.ninja" ]; then
  CC=clang cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKC_FUZZ=ON
fi
cmake --build "$build" -j "$jobs"

if [ $# -gt 0 ]; then
  names=("$@")
else
  names=()
  for src in fuzz/fuzz_*.c; do names+=("$(basename "$src" .c)"); done
fi
count=${#names[@]}
if [ -n "${FUZZ_SECONDS:-}" ]; then
  secs=$FUZZ_SECONDS
else
  secs=$((time_budget / count))
  [ "$secs" -gt 25 ] && secs=25
  if [ "$secs" -lt 20 ]; then
    secs=20
    echo "fuzz: note: $count harnesses x 20 s overrun the ${time_budget} s budget" >&2
  fi
fi
case "$secs" in '' | *[!0-9]* | 0) echo "fuzz: FUZZ_SECONDS must be a positive integer, got '$secs'" >&2; exit 2 ;; esac

scratch=$(mktemp -d "${TMPDIR:-/tmp}/kcube-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
artifacts="$build/fuzz-artifacts"
logs="$build/fuzz-logs"
mkdir -p "$artifacts" "$logs"

echo "fuzz: $count harnesses x $secs s"
failed=()
start=$SECONDS
for h in "${names[@]}"; do
  bin="$build/fuzz/$h"
  seeds="fuzz/corpus/$h"
  if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
    echo "fuzz: $h: missing $bin or $seeds (every fuzz/fuzz_NAME.c needs fuzz/corpus/fuzz_NAME/)" >&2
    failed+=("$h")
    continue
  fi
  mkdir -p "$scratch/$h"
  # The first corpus directory receives new entries; the seeds are only read.
  # A single input may take at most 10 s (a parser that slow is a hang).
  rc=0
  "$bin" -max_total_time="$secs" -timeout=10 -max_len=6000 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$h-" "$scratch/$h" "$seeds" </dev/null >"$logs/$h.log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$h.log" | tail -n 1)
  corpus=$(find "$scratch/$h" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    printf 'fuzz: %-22s %12s executions, %5d new corpus entries, ok\n' "$h" "${execs:-?}" "$corpus"
  else
    printf 'fuzz: %-22s %12s executions: FAILED (exit %d), log %s\n' "$h" "${execs:-?}" "$rc" "$logs/$h.log" >&2
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$logs/$h.log" | head -n 20 >&2 || true
    failed+=("$h")
  fi
done
echo "fuzz: harnesses ran for $((SECONDS - start)) s; whole step $SECONDS s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]} (reproduce: $build/fuzz/HARNESS $artifacts/HARNESS-crash-...)" >&2
  exit 1
fi
