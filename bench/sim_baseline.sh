#!/bin/sh
# Build bench/bench_sim.c (this checkout's) against the simulator engine of an
# older commit (default bd5f219, the engine of the first speed study in
# docs/sim.md; 45a043e is the engine before its split by concern), in a
# temporary directory outside the repository; prints the binary's path. Use:
#   build/bench_sim --old "$(bench/sim_baseline.sh)"
set -e
rev=${1:-bd5f219}
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dir=${TMPDIR:-/tmp}/kcube-sim-baseline-$rev
if [ ! -f "$dir/build/libkcube.a" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    git -C "$top" archive "$rev" | tar -x -C "$dir"
    cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$dir/build" -j2 --target kcube_lib >/dev/null
fi
${CC:-cc} -std=c11 -O3 -march=x86-64-v2 -I"$dir/include" -I"$dir/src" "$top/bench/bench_sim.c" \
    "$dir/build/libkcube.a" -lm -lpthread -o "$dir/bench_sim_old"
echo "$dir/bench_sim_old"
