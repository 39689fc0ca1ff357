#!/usr/bin/env bash
# Figures of sets beyond the DP's old limit (docs/hypercube.md): DP for the set
# {transpose, bit-reverse, reverse-flip, shuffle} at n = 20..28 (search first,
# as kc_map does, then the pruned DP), the exact count of transpose at n =
# 24..30, the search at n = 32, 40, 64, and the threshold-search lower bound
# after it at n = 28..64. Each line: mode n seconds peak_RSS_MiB value [lower].
# REPS runs per point (median by hand); load is printed before each block.
# usage: bench/reorder_scale.sh BUILD_DIR [REPS]
set -u
B="$1"; R="${2:-3}"
uptime
for n in 20 22 24 26 28; do for r in $(seq "$R"); do "$B/bench_reorder_scale" dp-search "$n"; done; done
uptime
for n in 20 22 24; do "$B/bench_reorder_scale" dp "$n"; done
uptime
for n in 32 40 64; do "$B/bench_reorder_scale" search "$n"; done
uptime
# the search, then the threshold-search bound below its value
for n in 28 32 40 48 64; do "$B/bench_reorder_scale" bound "$n"; done
uptime
for n in 24 26 28 30; do for r in $(seq "$R"); do [ "$n" -ge 28 ] && [ "$r" -gt 1 ] && continue; "$B/bench_reorder_scale" exact "$n"; done; done
uptime
