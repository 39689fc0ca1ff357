#!/usr/bin/env bash
# Seed 003's Figures 9 and 10 redrawn: speed-up over the unpipelined CC-cube
# against the block size (16 B .. 64 KiB) for every all-to-all method kcube
# has, on the 16x16, 32x32, 64x64, 8x8x8 and 16x16x16 meshes, for
# beta/tau = 100, 500, 1000, 5000 (tau = 1, b = 0 as the paper's comparison
# assumes); then calmant's barrier share at b/tau = 100 (beta/tau = 500, the
# ratio of the paper's 1.6 % remark) on every mesh. Everything goes through
# `kcube calmant alltoall --plot` (gnuplot, written atomically); each chart's
# CSV holds every point it draws (a row per block size and method, the block
# size first), made by the same command per block size with --csv.
#   scripts/calmant_figures.sh [KCUBE] [OUTDIR]     (defaults: build/kcube, calmant-figures)
set -eu
K=${1:-build/kcube}
OUT=${2:-calmant-figures}
mkdir -p "$OUT"
blocks="16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536" # the charts' x values

csv() { # csv FILE ARGS...: every plotted block size's rows, "block" first
    local file=$1 b first=1
    shift
    for b in $blocks; do
        "$K" calmant alltoall "$@" --block "$b" --no-replay --csv |
            if [ $first = 1 ]; then sed '1s/^/block,/; 2,$s/^/'"$b"',/'; else sed '1d; s/^/'"$b"',/'; fi
        first=0
    done > "$file.tmp" && mv "$file.tmp" "$file"
}
meshes="8:2:16x16 10:2:32x32 12:2:64x64 9:3:8x8x8 12:3:16x16x16"
for m in $meshes; do
    IFS=: read -r d c name <<< "$m"
    for ratio in 100 500 1000 5000; do
        "$K" calmant alltoall --n "$d" --c "$c" --block 16 --startup "$ratio" --byte-time 1 \
            --no-replay --plot "$OUT/speedup-$name-beta$ratio.svg" > /dev/null
        csv "$OUT/speedup-$name-beta$ratio.csv" --d "$d" --c "$c" --startup "$ratio" --byte-time 1
    done
    "$K" calmant alltoall --n "$d" --c "$c" --block 16 --startup 500 --byte-time 1 --barrier 100 \
        --methods calmant --no-replay --plot-barrier "$OUT/barrier-$name.svg" > /dev/null
    csv "$OUT/barrier-$name.csv" --d "$d" --c "$c" --startup 500 --byte-time 1 --barrier 100 --methods calmant
done
echo "figures in $OUT"
