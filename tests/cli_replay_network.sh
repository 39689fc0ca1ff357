#!/usr/bin/env bash
# kcube replay and kcube fft-study on general networks: a 3x4 network whose
# 4-rings wrap and 3-line does not, two endpoints a router, an allocation.
# Times worked out by hand (start-up + flits + hops + 1 cycles a message
# alone, hops of a dimension-order walk), messages inside a router with no
# hop, fft-study's emitted schedule replayed to the same totals, and one
# error line with exit 2 for what cannot run.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'
PP="$(dirname "$0")/goal/pingpong.goal"
NET=(--topology torus --shape 3x4 --wrap 1 --endpoints 2)
T=(--startup 10 --byte-time 1)

# ranks 0 and 1 on the two endpoints of router 0: no hop, 2 (10 + 100 + 1)
expect_exit 0 "one router" -- "$K" replay "$PP" "${NET[@]}" "${T[@]}" --json
expect_stdout_matches "\"total_us\":${J}222,?$"
expect_stdout_matches "\"loggp_us\":${J}220,?$"
expect_stdout_matches "\"slots\":${J}24,?$"
expect_stdout_matches "\"endpoints\":${J}2,?$"
expect_stdout_matches "\"wrap\":${J}\\[1\\],?$"
expect_stdout_matches "\"messages\":${J}2,?$"
expect_stdout_matches "\"max\":${J}0,?$"

# endpoint 17 is on router 8 = (2, 2): 2 hops on the 3-line, 2 on the 4-ring
printf '0\n17\n' > "$CLI_TMP/far.map"
expect_exit 0 "mapping file" -- "$K" replay "$PP" "${NET[@]}" "${T[@]}" --mapping "$CLI_TMP/far.map"
expect_stdout_matches "^total 230.00 us"
expect_stdout_contains "mapping file $CLI_TMP/far.map"
# the line does not wrap: router 2 = (2, 0) is 2 hops from router 0, not 1
printf '0\n5\n' > "$CLI_TMP/line.map"
expect_exit 0 "line axis" -- "$K" replay "$PP" "${NET[@]}" "${T[@]}" --mapping "$CLI_TMP/line.map"
expect_stdout_matches "^total 226.00 us"
# with the wrap on axis 0 too, 1 hop
expect_exit 0 "ring axis" -- "$K" replay "$PP" --topology torus --shape 3x4 --endpoints 2 "${T[@]}" \
    --mapping "$CLI_TMP/line.map"
expect_stdout_matches "^total 224.00 us"

# an allocation: router 5, then (2, 0) = router 2, by coordinates
printf '5\n2 0\n' > "$CLI_TMP/alloc.txt"
expect_exit 0 "allocation" -- "$K" replay "$PP" "${NET[@]}" --nodes "$CLI_TMP/alloc.txt" "${T[@]}" \
    --json
expect_stdout_matches "\"total_us\":${J}222,?$"
expect_stdout_matches "\"slots\":${J}4,?$"
expect_stdout_matches "\"allocation\":${J}2,?$"
# rank 1 on slot 2 (router 2): router 5 = (2, 1) is 1 hop away on the ring
printf '10\n4\n' > "$CLI_TMP/alloc.map"
expect_exit 0 "allocation mapping" -- "$K" replay "$PP" "${NET[@]}" --nodes "$CLI_TMP/alloc.txt" \
    "${T[@]}" --mapping "$CLI_TMP/alloc.map"
expect_stdout_matches "^total 224.00 us"
# --model loggp places the same way (no network: the LogGP figure alone)
expect_exit 0 "loggp" -- "$K" replay "$PP" "${NET[@]}" "${T[@]}" --model loggp
expect_stdout_contains "contention-free LogGP time 220.00 us"
# two ranks on one endpoint: the message never enters the network
expect_exit 0 "ranks per node" -- "$K" replay "$PP" "${NET[@]}" "${T[@]}" --ranks-per-node 2 --json
expect_stdout_matches "\"total_us\":${J}20,?$"

# today's networks spelled with --shape print what they always did
for pair in "--topology torus --shape 4x4|--topology torus --k 4 --n 2" "--shape 4x4|--topology mesh --k 4 --n 2" \
    "--shape 2x2x2 --topology hypercube|--n 3"; do
    a=${pair%|*} b=${pair#*|}
    # shellcheck disable=SC2086
    if cmp -s <("$K" replay "$PP" $a --json 2>&1) <("$K" replay "$PP" $b --json 2>&1); then cli_pass
    else cli_fail "replay $a differs from $b"; fi
done

# refusals: one line, exit 2
printf '0\n' > "$CLI_TMP/short.map"
printf '0\n0\n' > "$CLI_TMP/twice.map"
printf '0\n3\n' > "$CLI_TMP/outside.map"
printf '0\n24\n' > "$CLI_TMP/beyond.map"
expect_bad "too few endpoints" -- "$K" replay "$PP" "${NET[@]}" --mapping "$CLI_TMP/short.map"
expect_bad "endpoint twice" -- "$K" replay "$PP" "${NET[@]}" --mapping "$CLI_TMP/twice.map"
expect_stderr_contains "line 2"
expect_bad "outside the allocation" -- "$K" replay "$PP" "${NET[@]}" --nodes "$CLI_TMP/alloc.txt" \
    --mapping "$CLI_TMP/outside.map"
expect_stderr_contains "outside the allocation"
expect_bad "no such endpoint" -- "$K" replay "$PP" "${NET[@]}" --mapping "$CLI_TMP/beyond.map"
printf '7\n' > "$CLI_TMP/one.txt"
expect_bad "more ranks than slots" -- "$K" replay "$PP" --shape 3x4 --nodes "$CLI_TMP/one.txt"
expect_stderr_contains "do not fit"
expect_bad "side 1" -- "$K" replay "$PP" --shape 3x1
expect_bad "absent axis" -- "$K" replay "$PP" --shape 3x4 --wrap 2
printf '5\n5\n' > "$CLI_TMP/twice.txt"
expect_bad "the pure model has no network" -- "$K" replay "$PP" --model loggops --shape 3x4 --endpoints 2
expect_bad "router twice" -- "$K" replay "$PP" --shape 3x4 --nodes "$CLI_TMP/twice.txt"

# fft-study: 24 slots hold 2^4 ranks; dor and M-S by default. M-S is the
# general mapper's mapping: on a plain 4x4 torus, and on endpoints once the
# mapper places ranks on them (else one line, exit 2)
expect_exit 0 "fft-study M-S" -- "$K" fft-study --topology torus --k 4 --n 2 --points 2^6 --json
for f in '"dor"' '"M-S"' '"summary"' '"bitrev_speedup"'; do
    expect_stdout_contains "$f"
done
"$K" fft-study "${NET[@]}" --points 2^6 --json > "$CLI_OUT" 2> "$CLI_ERR"
rc=$?
case $rc in
    0) expect_stdout_contains '"M-S"' "fft-study M-S on endpoints" ;;
    2) expect_one_stderr_line "fft-study M-S on endpoints"
       echo "note: the general mapper does not place ranks on endpoints here: $(cat "$CLI_ERR")" ;;
    *) cli_fail "fft-study M-S on endpoints: exit $rc" ;;
esac
expect_exit 0 "fft-study" -- "$K" fft-study "${NET[@]}" --points 2^6 --configs dor --emit-goal "$CLI_TMP/fft.goal" \
    --json
expect_stdout_matches "\"slots\":${J}24,?$"
expect_stdout_matches "\"ranks\":${J}16,?$"
dor=$(grep -A6 '"config":[[:space:]]*"dor"' "$CLI_OUT" | sed -n 's/.*"total_us":[[:space:]]*\([0-9.e+-]*\).*/\1/p')
# the emitted schedule (dor's, rank r on slot r) replays to dor's total
expect_exit 0 "replay fft" -- "$K" replay "$CLI_TMP/fft.goal" "${NET[@]}" --json
got=$(sed -n 's/^[[:space:]]*"total_us":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$CLI_OUT")
if [ -n "$dor" ] && [ "$dor" = "$got" ]; then cli_pass; else cli_fail "fft-study dor $dor, replay $got"; fi
expect_exit 0 "fft-study text" -- "$K" fft-study "${NET[@]}" --points 2^6 --configs dor
expect_stdout_contains "2^4 ranks on the torus 3x4 (wrap 1), 2 endpoints per router"
# two endpoints a router on the 3-cube (seed 000's Origin 2000 layout): every side 2, so the cube's routings run
expect_exit 0 "cube routings with endpoints" -- "$K" fft-study --topology hypercube --n 3 --endpoints 2 --points 2^6 \
    --configs dor,ecube,pcube,li-min
expect_stdout_contains "2^4 ranks on the 3-cube, 2 endpoints per router"
expect_bad "ecube off the cube" -- "$K" fft-study "${NET[@]}" --points 2^6 --configs ecube
expect_bad "dor on the cube" -- "$K" fft-study --n 4 --points 2^6 --configs dor
expect_bad "fft points" -- "$K" fft-study "${NET[@]}" --points 2^7

summary
