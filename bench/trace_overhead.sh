#!/usr/bin/env bash
# The cost of libkcube-trace.so per MPI call (docs/traces.md, "Overhead"):
# bench_trace_overhead on 2 local processes, plainly and with the tracer
# preloaded, alternated RUNS times (default 3); prints each loop's median
# ns per call both ways (wall clock, then rank 0's CPU time) and their
# difference, the tracer's cost per call
# (its timestamps, events and request table; the archive's writing at
# MPI_Finalize is not in the loops). The traces go to a temporary folder,
# removed at the end. Usage: bench/trace_overhead.sh [BUILD [RUNS [ITERATIONS]]]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-3}
ITER=${3:-20000}
HERE=$(cd "$(dirname "$0")" && pwd)
PROG=$BUILD/bench_trace_overhead
LIB=$(cd "$BUILD" && pwd)/libkcube-trace.so
[ -x "$PROG" ] && [ -e "$LIB" ] || { echo "trace_overhead.sh: build bench_trace_overhead and libkcube-trace.so in $BUILD first" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for i in $(seq "$RUNS"); do
    bash "$HERE/../tests/support/mpirun.sh" 2 "$PROG" "$ITER" > "$TMP/plain.$i"
    KCUBE_TRACE="$TMP/trace" bash "$HERE/../tests/support/mpirun.sh" 2 -x LD_PRELOAD="$LIB" -x KCUBE_TRACE \
        "$PROG" "$ITER" > "$TMP/traced.$i"
done
python3 - "$TMP" "$RUNS" << 'PY'
import statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def load(kind, col):
    out = {}
    for i in range(1, runs + 1):
        for line in open(f"{tmp}/{kind}.{i}"):
            f = line.split()
            out.setdefault(f[0], []).append(float(f[col]))
    return {k: statistics.median(v) for k, v in out.items()}
print(f"{'loop':10s} {'clock':5s} {'plain ns/call':>14s} {'traced ns/call':>15s} {'tracer ns/call':>15s}")
for clock, col in (("wall", 3), ("cpu", 4)):
    plain, traced = load("plain", col), load("traced", col)
    for name in plain:
        print(f"{name:10s} {clock:5s} {plain[name]:14.1f} {traced[name]:15.1f} {traced[name] - plain[name]:15.1f}")
PY
