#!/usr/bin/env bash
# The simulator on general networks from the command line: mixed sides and
# wraps, endpoints per router, allocations; today's networks however spelled
# give today's output; bad input is one line and exit 2. Small runs only.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
T="$CLI_TMP"
C="--warmup 200 --measure 400 --drain 400"

usage() {
    local want="$1"
    shift
    expect_bad "$*" -- "$K" "$@"
    expect_stderr_contains "$want" "$*"
}

# Equal sides spelled with --shape are the k-ary n-cube: the same output.
"$K" simulate --k 4 --n 2 --uniform --rate 0.1 $C --csv | cut -d, -f1-11 > "$T/kn.csv"
"$K" simulate --topology torus --shape 4x4 --uniform --rate 0.1 $C --csv | cut -d, -f1-11 > "$T/shape.csv"
check "--topology torus --shape 4x4 is --k 4 --n 2" -- cmp "$T/kn.csv" "$T/shape.csv"
"$K" simulate --n 3 --pattern bit-reverse --oneshot > "$T/cube.txt"
"$K" simulate --shape 2x2x2 --wrap all --pattern bit-reverse --oneshot > "$T/cube_shape.txt"
check "--shape 2x2x2 --wrap all is the 3-cube" -- cmp "$T/cube.txt" "$T/cube_shape.txt"

# A mixed-radix torus with a side-2 ring (Sequoia's shape, scaled down), mixed wraps (Tofu's pattern).
expect_exit 0 "mixed radix torus" -- "$K" simulate --topology torus --shape 4x3x4x2 --uniform --rate 0.1 $C
expect_stdout_contains "torus 4x3x4x2 (96 routers, 96 endpoints in the job)"
expect_stdout_matches " yes +[0-9]+ "
expect_exit 0 "mixed wraps" -- "$K" simulate --shape 4x3x2x3 --wrap 0,1,3 --uniform --rate 0.05 $C --json
expect_stdout_contains '"wrap":	[0, 1, 3]'
expect_exit 0 "duato on a mixed torus" -- "$K" simulate --topology torus --shape 4x3x2 --routing duato --uniform --rate 0.1 $C
expect_stdout_contains "3 VCs/link"

# Endpoints: the rate is per endpoint, so generated flits per endpoint follow it.
expect_exit 0 "two endpoints per router" -- "$K" simulate --topology torus --shape 4x4 --endpoints 2 --uniform --rate 0.05 --warmup 500 --measure 4000 --csv
check "generated per endpoint near the rate" -- awk -F, 'NR == 2 { exit !($3 > 0.04 && $3 < 0.06) }' "$CLI_OUT"
# Seed 000's Origin 2000 case: bit-reverse of 16 ranks on the 3-cube with two endpoints per router.
expect_exit 0 "Origin 2000" -- "$K" simulate --n 3 --endpoints 2 --pattern bit-reverse --oneshot
expect_stdout_contains "one-shot: 12 messages"

# An allocation: only its routers' endpoints send and receive.
printf '0\n5\n10\n15\n' > "$T/nodes"
expect_exit 0 "allocation" -- "$K" simulate --topology torus --shape 4x4 --endpoints 2 --nodes "$T/nodes" --uniform --rate 0.1 $C --json
expect_stdout_contains '"slots":	8'
expect_stdout_contains '"sources_judged":	4'
printf '0 7\n1 2\n3 3\n' > "$T/pairs"
expect_exit 0 "pairs on ranks" -- "$K" simulate --topology torus --shape 4x4 --endpoints 2 --nodes "$T/nodes" --pairs "$T/pairs" --oneshot
expect_stdout_contains "one-shot: 2 messages"
printf '31\n30\n1\n0\n11\n10\n21\n20\n' > "$T/map"
expect_exit 0 "mapping of endpoint numbers" -- "$K" simulate --topology torus --shape 4x4 --endpoints 2 --nodes "$T/nodes" --pairs "$T/pairs" --oneshot --mapping "$T/map"
expect_stdout_contains "mapping file"

# Bad input: one line, exit 2.
usage "out of range 2..256" simulate --shape 4x1 --uniform --rate 0.1
usage "names axis 2" simulate --shape 4x4 --wrap 0,2 --uniform --rate 0.1
printf '0\n0\n' > "$T/twice"
usage "a second time" simulate --topology torus --shape 4x4 --nodes "$T/twice" --uniform --rate 0.1
usage "a linear communication places rank r on slot r, so it needs 2^m slots" simulate --topology torus --shape 4x3 --endpoints 2 --pattern bit-reverse --rate 0.1
usage "ecube routing is for the binary n-cube" simulate --topology torus --shape 4x3 --routing ecube --uniform --rate 0.1
usage "linear mappings need" simulate --shape 4x4 --endpoints 2 --uniform --rate 0.1 --mapping optimal
printf '0\n0\n0\n0\n0\n0\n0\n0\n' > "$T/map2"
usage "line 2, column 1: '0' appears twice" simulate --topology torus --shape 4x4 --endpoints 2 --nodes "$T/nodes" --uniform --rate 0.1 --mapping "$T/map2"
printf '2\n30\n1\n0\n11\n10\n21\n20\n' > "$T/map3"
usage "line 1, column 1: '2' is on a router outside the allocation" simulate --topology torus --shape 4x4 --endpoints 2 --nodes "$T/nodes" --uniform --rate 0.1 --mapping "$T/map3"

# a pattern means the same messages in simulate as in analyze: GF(4) on
# 4^4 ranks (four endpoints a router of the 4-ary 3-cube), GF(2) on 2^5
for net in "--topology torus --shape 4x4x4 --endpoints 4 --pattern transpose" "--n 4 --endpoints 2 --pattern bit-reverse"; do
    # shellcheck disable=SC2086
    want=$("$K" analyze $net | sed -n 's/^contention \([0-9]*\).*/\1/p')
    # shellcheck disable=SC2086
    expect_exit 0 "simulate $net" -- "$K" simulate $net --rate 0.05
    expect_stdout_contains "channel contention $want"
done

summary
