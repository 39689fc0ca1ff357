#!/usr/bin/env bash
# The gate's estimates against the measured table (bench/estimates.tsv,
# docs/cli.md "Time and memory before work"): every row's time and memory
# estimate, recomputed by the command itself (a refusal under --max-time
# 1e-9 names both at once, no run), must still be the one stored beside the
# measurement (an estimator changed without re-measuring fails) and within
# 3x of the measured run and peak, both ways. On a plain build the three
# cheapest rows are also run again (3x tolerance, robust to a busy machine:
# the runs are timed in CPU seconds).
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

command -v python3 > /dev/null || cli_skip "python3 is missing"
REMEASURE=3
grep -qa "__asan_init" "$K" && REMEASURE=0 # a sanitizer build runs slower: its estimates only
[ -x /usr/bin/time ] || REMEASURE=0

if python3 "$ROOT/bench/estimates.py" check --kcube "$K" --table "$ROOT/bench/estimates.tsv" \
    --remeasure "$REMEASURE" > "$CLI_OUT" 2> "$CLI_ERR"; then
    cli_pass
else
    grep '^FAIL' "$CLI_OUT" | head -20
    cat "$CLI_ERR" | head -5
    cli_fail "the estimates drifted from bench/estimates.tsv"
fi
tail -1 "$CLI_OUT"
summary
