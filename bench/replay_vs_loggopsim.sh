#!/bin/sh
# kcube's LogGOPS model against LogGOPSim on the three bench schedules of
# tests/support/schedgen_like.py: a linear all-to-all of 512 ranks x 256 B
# (523,264 operations), a 3-D halo 8x8x8 x 60 iterations of 1024 B
# (399,360) and a random DAG of 512 ranks x 400,000 steps (699,580).
# Writes them (and LogGOPSim's binary form, with its txt2bin) to a
# temporary directory, then runs build/bench_replay --versus: medians of
# REPS interleaved runs, LogGOPSim's time and memory, the model's, kcube's
# end to end, and whether the makespans agree.
#
#   bench/replay_vs_loggopsim.sh [BUILD_DIR] [REPS]     (defaults: build, 3)
#
# LogGOPSim is found in $LOGGOPSIM_DIR (default BUILD_DIR/peers/loggopsim, made
# by bench/build_loggopsim.sh); when
# absent, its columns say "not found".
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
reps=${2:-3}
lgs=${LOGGOPSIM_DIR:-$build/peers/loggopsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen="$here/tests/support/schedgen_like.py"
python3 "$gen" alltoall 512 256 >"$tmp/alltoall.goal"
python3 "$gen" halo 512 1024 >"$tmp/halo.goal"
python3 "$gen" dag 512 1 >"$tmp/dag.goal"
if [ -x "$lgs/txt2bin" ]; then
    for f in alltoall halo dag; do
        "$lgs/txt2bin" -i "$tmp/$f.goal" -o "$tmp/$f.bin" >/dev/null
    done
fi
cd "$build"
LOGGOPSIM_DIR=$lgs KCUBE="$build/kcube" ./bench_replay --versus "$reps" "$tmp/halo.goal" "$tmp/dag.goal" \
    "$tmp/alltoall.goal"
