#!/bin/bash
# Command-line checks for analyze, map and demo on the hypercube: JSON fields,
# the papers' values, and bad input (one line on stderr, exit 2, nothing on
# stdout).
KC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/support/cli_lib.sh"
cd "$CLI_TMP" || exit 1

# json EXPR EXPECTED [DESCRIPTION]: evaluate EXPR (python, d = the last
# command's JSON output) and compare its printed value.
json() {
    local got
    got=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$CLI_OUT" 2>&1)
    if [ "$got" = "$2" ]; then cli_pass; else cli_fail "${3:-$CLI_LAST}: $1 is '$got', expected '$2'"; fi
}
# run DESCRIPTION args...: a successful kcube run.
run() {
    local desc=$1
    shift
    expect_exit 0 "$desc" -- "$KC" "$@"
}
# usage args...: exit 2, one line "kcube: ..." on stderr, nothing on stdout.
usage() {
    expect_exit 2 "usage error: $*" -- "$KC" "$@"
    expect_one_stderr_line
    check "no stdout: $*" -- test ! -s "$CLI_OUT"
}

# analyze: seed 000 Example 3.
run "analyze transpose" analyze --n 8 --pattern transpose --json
json 'd["per_dim"]' "[1, 2, 4, 8, 8, 4, 2, 1]"
json 'd["per_dim_exact"]' "[1, 2, 4, 8, 8, 4, 2, 1]"
json 'd["kind"], d["rank"], d["contention"], d["n"]' "permutation 8 8 8"
json 'len(d["worst_channels"]), d["worst_channels"][3]' "8 {'dim': 3, 'from': 8, 'to': 0}"

# analyze a matrix given on the command line (the 4-cube transpose), a scatter, a gather.
run "analyze matrix" analyze --n 4 --matrix "0010;0001;1000;0100" --json
json 'd["per_dim"], d["contention"]' "[1, 2, 2, 1] 2"
run "analyze scatter" analyze --n 4 --matrix "0100;0010;0001;0000" --vector 1000 --scatter --json
json 'd["kind"], d["per_dim"] == d["per_dim_exact"]' "scatter True"
run "analyze gather" analyze --n 4 --matrix "0100;0010;0001;0000" --json
json 'd["kind"], d["rank"]' "gather 3"
run "analyze csv" analyze --n 8 --pattern bit-reverse --csv
check "csv header" -- grep -q '^dim,formula,exact' "$CLI_OUT"
run "analyze n=40" analyze --n 40 --pattern bit-reverse --json
json 'd["exact"], d["per_dim_exact"], d["contention"]' "False None 524288"
run "analyze text" analyze --n 8 --pattern transpose
expect_stdout_contains "contention 8 (dimension 3), formula and exact count agree"

# map, the papers' reorderings (--kind reorder): Example 4 (8 -> 1),
# Example 6 (2 and 1), Section 6 (2, 1, 1).
run "example 4" map --n 8 --pattern transpose --kind reorder --json
json 'd["order"], d["value"], d["patterns"][0]["contention_before"], d["patterns"][0]["contention_after"]' \
    "[0, 4, 2, 6, 1, 5, 3, 7] 1 8 1"
json 'len(d["to_physical"]), sorted(d["to_physical"]) == list(range(256)), all(d["to_virtual"][p] == v for v, p in enumerate(d["to_physical"]))' \
    "256 True True" "node arrays"
run "example 6" map --n 8 --pattern transpose --pattern bit-reverse --kind reorder --json
json 'd["kind"], d["objective"], d["value"], [p["contention_after"] for p in d["patterns"]]' "reorder max 2 [2, 1]"
run "section 6" map --n 8 --pattern transpose --pattern bit-reverse --pattern reverse-flip --kind reorder --json
json '[p["contention_after"] for p in d["patterns"]], [len(p["per_dim_after"]) for p in d["patterns"]]' "[2, 1, 1] [8, 8, 8]"

# plain map returns the best mapping kcube finds (linear, 1 and 1)
# and lists both candidates.
run "plain map, two patterns" map --n 8 --pattern transpose --pattern bit-reverse --json
json 'd["kind"], d["value"], [p["contention_after"] for p in d["patterns"]]' "linear 1 [1, 1]"
json '[(c["kind"], c["value"]) for c in d["candidates"]]' "[('reorder', 2), ('linear', 1)]"
json 'sorted(d["to_physical"]) == list(range(256)), all(d["to_virtual"][p] == v for v, p in enumerate(d["to_physical"]))' "True True"
run "plain map text" map --n 8 --pattern transpose --pattern bit-reverse
expect_stdout_contains "linear mapping"
expect_stdout_contains "reorder  dp"
expect_stdout_contains "a reordering keeps neighbours"
for obj in max simultaneous sum; do
    run "objective $obj" map --n 6 --matrix "001000;000100;000010;000001;100000;010000" --vector 100000 \
        --pattern bit-reverse --objective $obj --json
    json 'd["objective"]' "$obj"
done
# one gather: the least total among optimal orders (the optimiser alone gave 19).
run "single gather" map --n 6 --matrix '000011;000000;000000;001000;000011;000001' --vector 000101 --kind reorder --json
json 'd["value"], d["total"], d["total_minimised"]' "4 10 True"
run "n=30 gather" map --n 30 --matrix "$(python3 -c "print(';'.join(['1'*30]*30))")" --kind reorder --json
json 'd["total_minimised"]' "False"
run "n=30 single" map --n 30 --pattern bit-reverse --json
json 'd["value"], "to_physical" in d' "1 False"
run "exhaustive method" map --n 6 --pattern transpose --pattern shuffle --method exhaustive --json
json 'd["method"], d["kind"]' "exhaustive reorder"

# --search leaves the output format alone (the format comes from --json / --csv only).
run "--search keeps the format" map --n 4 --pattern transpose --search
expect_stdout_contains "communication          kind"
run "--search json" map --n 4 --pattern transpose --search --json
json 'd["value"] <= [c["value"] for c in d["candidates"] if c["kind"] == "reorder"][0]' "True"
run "objective sum with --kind reorder" map --n 4 --pattern transpose --objective sum --kind reorder --json
json 'd["kind"], d["objective"]' "reorder sum"
run "reverse-flip with --search" map --n 8 --search --pattern reverse-flip --json
json 'd["patterns"][0]["name"], d["value"]' "reverse-flip 1"

# --emit-c: the arrays compile and are inverse permutations (reorder and linear).
emit_check() {
    local desc=$1 count=$2
    shift 2
    expect_exit 0 "emit-c $desc" -- "$KC" "$@" --emit-c
    cp "$CLI_OUT" map.h
    printf '#include "map.h"\nint main(void) {\n  for (unsigned v = 0; v < %s; v++)\n    if (kc_to_virtual[kc_to_physical[v]] != v) return 1;\n  return 0;\n}\n' \
        "$count" > main.c
    check "emit-c $desc compiles and inverts" -- sh -c 'cc -o check main.c -I. && ./check'
}
emit_check "reorder" 64 map --n 6 --pattern bit-reverse --kind reorder
emit_check "linear" 256 map --n 8 --pattern transpose --pattern bit-reverse

# Old spellings kept as documented aliases.
run "--no-verify" map --n 6 --pattern bit-reverse --no-verify --json
json 'd["patterns"][0]["verified_exact"]' "False"
run "--method dp" map --n 6 --pattern transpose --pattern shuffle --method dp --json
json 'd["kind"]' "reorder"

run "demo" demo
expect_stdout_contains "One reordering for all three"
expect_stdout_matches "^   general   largest load 1, "
expect_stdout_matches "^   multisect +128 transfers in sequence .*: 128\), relative error [0-9.]+e-1[5-7]$"
run "help" --help
expect_stdout_contains analyze
run "map help" map --help
expect_stdout_contains objective
expect_stdout_contains "--mapping"

# Bad input.
usage analyze --n 4 --matrix "0010;0001;1000"
usage analyze --n 4 --matrix "0010;0001;1000;01000"
usage analyze --n 4 --matrix "0010;0001;1020;0100"
usage analyze --n 4 --matrix "0010;0001;1000;0100" --vector 10
usage analyze --n 0 --pattern transpose
usage analyze --n 65 --pattern transpose
usage analyze --n 25 --pattern transpose --exact
usage analyze --n 7 --pattern transpose
usage analyze --n 8 --pattern no-such-pattern
usage analyze --n 8 --pattern transpose --scatter
usage analyze --n 4 --matrix "0010;0001;1000;0100" --scatter
usage analyze --n 8 --pattern transpose --frobnicate
usage analyze --n 8
usage analyze --pattern transpose
usage analyze --n eight --pattern transpose
usage analyze --n 8 --pattern
usage analyze --n 8 --pattern transpose --exact --no-exact
usage analyze --n 8 --pattern transpose --json --csv
usage map --n 8 --pattern transpose --objective best
usage map --n 25 --pattern transpose --pattern bit-reverse --method dp
usage map --n 8 --vector 00000000
usage map --n 8 --pattern transpose --pattern bit-reverse --method optimizer
usage map --n 12 --pattern transpose --method exhaustive
usage map --n 8
usage map --n 20 --pattern transpose --emit-c
usage map --n 8 --pattern transpose --emit-c --json
usage map --n 8 --pattern transpose --kind best
usage map --n 8 --pattern transpose --kind linear --method dp
usage frobnicate

# Options that do not apply are named with the reason.
usage analyze --n 8 --pattern transpose --tie minus
expect_stderr_contains "--tie does not apply to a hypercube"
usage analyze --n 8 --pattern transpose --seed 3
expect_stderr_contains "--seed does not apply"
usage map --n 8 --pattern transpose --kind reorder --evals 10
expect_stderr_contains "--evals does not apply"
usage map --n 4 --pattern transpose --q "0010;0001;1000;0100" --search
expect_stderr_contains "--search does not apply"
usage analyze --n 8 --pattern transpose --sweep 0.1:0.2:0.1
expect_stderr_contains "--sweep does not apply to analyze"

# A failed write: exit 1.
CLI_STDOUT=/dev/full expect_exit 1 "map > /dev/full" -- "$KC" map --n 8 --pattern transpose --pattern bit-reverse
expect_one_stderr_line
CLI_STDOUT=/dev/full expect_exit 1 "analyze --json > /dev/full" -- "$KC" analyze --n 8 --pattern transpose --json
expect_one_stderr_line

summary
