#!/usr/bin/env bash
# Per-channel loads on general networks against an independent recount
# (tests/support/recount.py, written apart from the library: every message
# routed by dimension order on the described network): seeded random
# mixed-radix tori and meshes, mixed wraps, endpoints per router and
# allocations; analyze (rank r on slot r) and map (the identity as a given
# mapping, and every mapping map returns, never above any start). Then seed
# 000's Origin 2000 case (an n-dimensional LCC on n-1 cube routers with two
# nodes each: the split closed form against the count) and the refusals.
set -u
K="$1"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/support/cli_lib.sh"
command -v python3 >/dev/null 2>&1 || cli_skip "python3 is needed for the recount"
cd "$CLI_TMP" || exit 1

for seed in 1 2; do
    check "recount suite, seed $seed" -- python3 "$HERE/support/recount_suite.py" "$K" "$seed" 25
done

# The Origin 2000: two nodes per router, LCCs of the paper on the 2^n nodes
# (router cube dimensions, endpoints, the communication).
origin() {
    local dims=$1 conc=$2 shape
    shift 2
    shape=$(printf '2x%.0s' $(seq "$dims"))
    expect_exit 0 "origin: $*" -- "$K" analyze --n "$dims" --endpoints "$conc" "$@"
    expect_stdout_contains "formula and exact count agree"
    "$K" analyze --n "$dims" --endpoints "$conc" "$@" --json --loads loads.txt > a.json
    check "origin recount: $*" -- python3 "$HERE/support/recount.py" --shape "${shape%x}" --wrap all \
        --endpoints "$conc" --lcc-json a.json --loads loads.txt
}
origin 5 2 --pattern transpose
origin 6 2 --pattern bit-reverse
origin 5 2 --pattern shuffle
origin 4 4 --pattern transpose
origin 5 2 --matrix "000000;000000;110000;011000;001100;000110" --scatter
origin 5 2 --matrix "000000;000000;110000;011000;001100;000110"
expect_exit 0 "origin json" -- "$K" analyze --n 3 --endpoints 2 --pattern transpose --json
expect_stdout_contains '"per_dim":	[2, 2, 2]'

# --loads on a plain network: the hypercube's channels, dir +1 only.
"$K" analyze --n 4 --pattern transpose --json --loads plain.txt > plain.json
check "plain loads recounted" -- python3 "$HERE/support/recount.py" --shape 2x2x2x2 --wrap all \
    --lcc-json plain.json --loads plain.txt
check "plain loads: + channels" -- test "$(awk '!/^#/ && $4 != "+1"' plain.txt | wc -l)" = 0

# Refusals: one line, exit 2.
refused() {
    local want=$1
    shift
    expect_bad "refused: $*" -- "$K" analyze "$@"
    expect_stderr_contains "$want"
}
refused "needs 2^m slots" --shape 3x2 --endpoints 2 --pattern transpose
refused "needs 2^m slots" --shape 4x4 --endpoints 3 --pattern transpose
refused "drop --no-exact" --n 3 --endpoints 2 --pattern transpose --no-exact
refused "even n" --n 2 --endpoints 2 --pattern transpose
summary
