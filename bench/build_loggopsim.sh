#!/bin/sh
# Build LogGOPSim (spcl/LogGOPSim) the way kcube compares against it: its
# simulator and its txt2bin, -O2 as its CMake's RelWithDebInfo, with the
# one change docs/loggops.md names: std::stable_sort for the operations an
# event makes ready (its std::sort is not stable). The sources are the
# user's own checkout; nothing of LogGOPSim enters this repository.
#
#   bench/build_loggopsim.sh LOGGOPSIM_CHECKOUT [OUT_DIR]
#
# OUT_DIR defaults to build/peers/loggopsim, where bench/bench_replay,
# bench/replay_vs_loggopsim.sh and tests/support/loggopsim_compare.py look
# when $LOGGOPSIM_DIR is not set. Needs g++, gengetopt, re2c and Graphviz's
# cgraph (Debian: gengetopt re2c libgraphviz-dev; installed when missing).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 LOGGOPSIM_CHECKOUT [OUT_DIR]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
src=$1/src/LogGOPSim
[ -f "$src/LogGOPSim.cpp" ] || { echo "$0: no src/LogGOPSim/LogGOPSim.cpp under $1" >&2; exit 2; }
out=${2:-$here/build/peers/loggopsim}
if ! command -v gengetopt >/dev/null || ! command -v re2c >/dev/null || [ ! -e /usr/include/graphviz/cgraph.h ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get install -y gengetopt re2c libgraphviz-dev >/dev/null
fi
mkdir -p "$out"
cp -r "$src"/. "$out"/
cd "$out"
sed -i 's/std::sort(free_ops/std::stable_sort(free_ops/' LogGOPSim.cpp
gengetopt -F loggopsim_cmdline -i loggopsim_cmdline.ggo
gengetopt -F txt2bin_cmdline -i txt2bin_cmdline.ggo
re2c -o txt2bin.cpp txt2bin.re
g++ -O2 -std=c++11 -w LogGOPSim.cpp loggopsim_cmdline.c -o LogGOPSim -lcgraph
g++ -O2 -w txt2bin.cpp txt2bin_cmdline.c -o txt2bin
echo "LogGOPSim and txt2bin in $out"
