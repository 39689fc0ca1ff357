#!/usr/bin/env bash
# bench/gmap_scotch.sh [BUILD_DIR [bench_gmap_scotch options]]
# kcube's general mapper against the scotch_gmap command on the seeded suite
# of bench/bench_gmap_scotch.c (112 cases by default): builds the program in
# BUILD_DIR (default build), runs it against the scotch_gmap on the PATH and
# prints its table (case, network, traffic, max load / bytes x hops of
# scotch_gmap and of kcube, win / tie / LOSS, seconds of each) and the totals.
# Exits 1 when a case is lost; 77 without scotch_gmap or kcube's Scotch.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
tool=$(command -v scotch_gmap) || { echo "scotch_gmap not installed (Debian package scotch)"; exit 77; }
cmake --build "$build" --target bench_gmap_scotch > /dev/null
exec "$build/bench_gmap_scotch" --scotch-gmap "$tool" --fail-on-loss "$@"
