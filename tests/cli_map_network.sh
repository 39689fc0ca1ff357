#!/usr/bin/env bash
# kcube map on general networks: tori with unequal sides (a Blue Gene/Q
# midplane's 4x4x4x4x2), mixed wraps (a small Tofu), endpoints per router
# and --nodes allocations: to_physical and --out give endpoint numbers of
# the whole network, to_virtual is indexed by slot, the result is never
# worse than a start, --mapping FILE is counted as the start "file" (only
# the starts with --work 0), --emit-traffic, and one line with exit 2 for
# more ranks than slots and bad mapping files.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

# DESCRIPTION PYTHON-EXPR over d, the JSON on stdout: one pass or fail.
json_check() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$CLI_OUT" && cli_pass ||
        cli_fail "$1"
}
BEST='min((s["max_load"], s["hops"], s["sumsq"]) for s in d["starts"]) >= (d["final"]["max_load"], d["final"]["hops"], d["final"]["sumsq"])'

expect_exit 0 "BG/Q midplane, 7pt" -- "$K" map --topology torus --shape 4x4x4x4x2 --stencil 7pt --grid 8x8x8 \
    --periodic --work 1 --json
json_check "never worse than a start" "$BEST"
json_check "a permutation of the 512 nodes" 'sorted(d["to_physical"]) == list(range(512))'
json_check "the fold is a start" 'any(s["mapping"] == "fold:8x8x8" for s in d["starts"])'

expect_exit 0 "small Tofu, mixed wraps" -- "$K" map --topology torus --shape 4x3x4x2x3x2 --wrap 0,1,2,4 \
    --stencil 27pt --grid 8x8x9 --work 1 --json
json_check "Tofu: never worse than a start" "$BEST"
json_check "Tofu: 576 endpoints" 'sorted(d["to_physical"]) == list(range(576))'

expect_exit 0 "2 endpoints per router, fewer ranks than slots" -- "$K" map --topology torus --shape 5x4x6 \
    --endpoints 2 --stencil 7pt --grid 10x4x5 --work 1 --json
json_check "endpoints: never worse than a start" "$BEST"
json_check "endpoints: 200 ranks on distinct endpoints of 240" \
    'len(d["to_physical"]) == 200 and len(set(d["to_physical"])) == 200 and max(d["to_physical"]) < 240'
json_check "to_virtual by slot, null on the slots no rank uses" \
    'd["to_virtual"].count(None) == 40 and all(d["to_virtual"][d["slot_endpoints"].index(e)] == v for v, e in enumerate(d["to_physical"]))'

expect_exit 0 "2 endpoints per router, text" -- "$K" map --topology torus --shape 4x4 --endpoints 2 \
    --stencil 5pt --grid 4x8 --work 0.2
expect_stdout_contains "(16 routers, 32 slots, 32 ranks)"

printf '# routers by number or by coordinates\n0\n5\n3 0\n3,1\n' > "$CLI_TMP/alloc.txt"
printf '0 1 5\n1 2 5\n2 3 5\n3 4 5\n4 0 5\n' > "$CLI_TMP/ring.txt"
expect_exit 0 "allocation, --out" -- "$K" map --topology torus --shape 4x4 --endpoints 2 --nodes "$CLI_TMP/alloc.txt" \
    --traffic "$CLI_TMP/ring.txt" --work 0.5 --out "$CLI_TMP/map.txt" --json
json_check "allocation: never worse than a start" "$BEST"
json_check "allocation: only the allocation's endpoints" \
    'set(d["to_physical"]) <= {0, 1, 10, 11, 6, 7, 14, 15} and len(d["to_physical"]) == 5'
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if [int(x) for x in open(sys.argv[2])] == d['to_physical'] else 1)" \
    "$CLI_OUT" "$CLI_TMP/map.txt"; then cli_pass; else cli_fail "--out lists to_physical's endpoints"; fi
cp "$CLI_OUT" "$CLI_TMP/first.json"

expect_exit 0 "--mapping FILE, --work 0" -- "$K" map --topology torus --shape 4x4 --endpoints 2 \
    --nodes "$CLI_TMP/alloc.txt" --traffic "$CLI_TMP/ring.txt" --work 0 --mapping "$CLI_TMP/map.txt" --json
json_check "the start file counts what the first run found" \
    'next(s for s in d["starts"] if s["mapping"] == "file")["hops"] == json.load(open("'"$CLI_TMP"'/first.json"))["final"]["hops"]'
json_check "--work 0: no search" 'd["iterations"] == 0'

expect_exit 0 "--emit-traffic" -- "$K" map --topology torus --shape 4x4 --endpoints 2 --nodes "$CLI_TMP/alloc.txt" \
    --collective alltoall --emit-traffic -
expect_stdout_contains "(8 ranks)"
expect_stdout_matches '^7 6 1$'

expect_bad "more ranks than slots" -- "$K" map --topology torus --shape 4x4 --endpoints 2 --stencil 5pt --grid 8x8
expect_stderr_contains "more than the network's 32 slots"
printf '0 8 1\n' > "$CLI_TMP/big.txt"
expect_bad "a traffic rank beyond the slots" -- "$K" map --topology torus --shape 4x4 --endpoints 2 \
    --nodes "$CLI_TMP/alloc.txt" --traffic "$CLI_TMP/big.txt"
printf '0\n1\n2\n3\n4\n' > "$CLI_TMP/outside.txt"
expect_bad "--mapping outside the allocation" -- "$K" map --topology torus --shape 4x4 --endpoints 2 \
    --nodes "$CLI_TMP/alloc.txt" --traffic "$CLI_TMP/ring.txt" --mapping "$CLI_TMP/outside.txt"
expect_stderr_contains "outside the allocation"
printf '0\n1\n0\n6\n7\n' > "$CLI_TMP/twice.txt"
expect_bad "--mapping with an endpoint twice" -- "$K" map --topology torus --shape 4x4 --endpoints 2 \
    --nodes "$CLI_TMP/alloc.txt" --traffic "$CLI_TMP/ring.txt" --mapping "$CLI_TMP/twice.txt"
printf '0\n1\n' > "$CLI_TMP/short.txt"
expect_bad "--mapping too short" -- "$K" map --topology torus --shape 4x4 --endpoints 2 \
    --nodes "$CLI_TMP/alloc.txt" --traffic "$CLI_TMP/ring.txt" --mapping "$CLI_TMP/short.txt"
expect_bad "--mapping on an algebraic mapping" -- "$K" map --n 4 --pattern transpose --mapping "$CLI_TMP/short.txt"

# Scotch on a network it has no target class for (Tofu's mixed rings and
# lines): a target built from the router graph on a small one, no Scotch
# start on Fugaku's 158,976 routers (that target alone would take far longer
# than the estimate allows), said in the text and the JSON; the fold still
# finds the 48x46x72 grid's one-hop embedding
if "$K" map --n 2 --pattern transpose --kind general --json 2>/dev/null | grep -q '"scotch_available":[[:space:]]*true'; then
    expect_exit 0 "small Tofu with Scotch" -- "$K" map --topology torus --shape 4x3x4x2x3x2 --wrap 0,1,2,4 \
        --stencil 7pt --grid 12x8x6 --work 0.1
    expect_stdout_matches "^  scotch "
    expect_exit 0 "Fugaku without Scotch" -- "$K" map --network fugaku --stencil 7pt --grid 48x46x72 --work 0.1 --json
    expect_stdout_contains '"scotch_skipped":'
    expect_stdout_matches '"won_from":[[:space:]]*"fold:48x46x72"'
    expect_exit 0 "Fugaku text" -- "$K" map --network fugaku --stencil 7pt --grid 48x46x72 --work 0.1
    expect_stdout_contains "not started from Scotch: Scotch has no target class for this network"
fi

summary
