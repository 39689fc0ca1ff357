#!/usr/bin/env bash
# kcube analyze / map with --k and --mesh: results and bad input.
# $1 = path to the kcube binary.
set -u
K="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Bad input: exit status 2, exactly one line on stderr, nothing on stdout.
bad() {
    local want="$1"; shift
    "$K" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    local lines
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne 2 ]; then fail "exit $rc (want 2): $*"; fi
    if [ "$lines" -ne 1 ]; then fail "$lines stderr lines (want 1): $*"; cat "$tmp/err"; fi
    if [ -s "$tmp/out" ]; then fail "stdout not empty: $*"; fi
    if ! grep -q -- "$want" "$tmp/err"; then fail "stderr lacks '$want': $* -> $(cat "$tmp/err")"; fi
}

# A successful run whose output contains every given pattern (compact JSON
# spacing is normalised first).
good() {
    local args=("${@:2}")
    "$K" "${args[@]}" >"$tmp/out" 2>"$tmp/err" || { fail "exit $?: ${args[*]}"; cat "$tmp/err"; return; }
    tr -d ' \t\n' <"$tmp/out" >"$tmp/flat"
    local IFS='|'
    for p in $1; do
        grep -qF -- "$p" "$tmp/flat" || fail "output lacks '$p': ${args[*]}"
    done
}

# ---- results ----
good '"per_dim":[2,8,8,2]|"per_dim_exact":[2,8,8,2]|"contention":8|"polynomial":7' \
    analyze --k 4 --n 4 --pattern transpose --json
good '"contention":8' analyze --k 16 --n 2 --pattern transpose --json
good '"contention":4' analyze --k 8 --n 3 --pattern digit-reverse --json
good '"contention":8' analyze --k 4 --n 4 --pattern digit-reverse --json
good '"topology":"mesh"|"per_dim_exact":[3,12,12,3]' analyze --k 4 --n 4 --pattern transpose --mesh --json
good '"per_dim_case":["idle","idle","4b","4b"]|"per_dim_bound":[false,false,true,true]' \
    analyze --k 4 --n 4 --matrix "1 0 0 0;0 1 0 0;1 0 1 0;0 1 0 1" --json
good '"kind":"uniform"|"per_dim":null' analyze --k 4 --n 3 --pattern uniform --seed 3 --json
good 'dim,case' analyze --k 8 --n 2 --matrix "1 2;0 3" --vector "5,1" --csv
good '"mapping":"linear"|"matrix":[[1,0,1,0],[0,1,0,1],[0,0,1,0],[0,0,0,1]]|"contention_before":8|"contention_after":2|"per_dim_after":[0,0,2,2]|"to_physical":[' \
    map --k 4 --n 4 --pattern transpose --json
good '"method":"theorem4"|"contention_after":2' map --k 4 --n 4 --pattern transpose --pattern digit-reverse --json
good '"mapping":"reorder"|"order":[' map --k 4 --n 4 --pattern transpose --mapping reorder --json
good '"exhaustive":true|"start_value":8|"value":4' map --k 16 --n 2 --pattern transpose --search --json
good '"contention_after":8|"exhaustive":true|"mapping":"reorder"|"permutation_matrix":true' map --k 16 --n 2 --pattern transpose --mapping reorder --search --json
good 'theorem4' map --k 4 --n 4 --pattern transpose --pattern digit-reverse --pattern digit-complement
good '"method":"theorem4-beyond-limit"' map --k 2 --n 4 --pattern transpose --pattern bit-reverse --fallback --json
# No linear mapping serves the swap and the all-ones gather over GF(2).
good '"method":"fallback-reorder"|"mapping":"reorder"' map --k 2 --n 2 --pattern transpose --matrix "1 1;1 1" --fallback --json
# Example 5's Q (GF(4) mod x^2+x+1): both patterns 8 -> 2, and the paper's (1').
good '"method":"given"|"matrix_after":[[1,1,2,0],[2,1,0,2],[1,0,1,1],[0,1,2,1]]|"contention_after":2' \
    map --k 4 --n 4 --pattern transpose --pattern digit-reverse --q "1 0 1 1;0 1 2 1;0 0 1 0;0 0 0 1" --json
# Without --mesh, --k 2 is the hypercube command, unchanged.
"$K" analyze --n 4 --pattern transpose --json >"$tmp/a" || fail "hypercube analyze"
"$K" analyze --k 2 --n 4 --pattern transpose --json >"$tmp/b" || fail "hypercube analyze --k 2"
cmp -s "$tmp/a" "$tmp/b" || fail "--k 2 changed the hypercube output"
"$K" map --k=2 --n 6 --pattern bit-reverse --json >"$tmp/b" || fail "hypercube map --k=2"
"$K" map --n 6 --pattern bit-reverse --json >"$tmp/a"
cmp -s "$tmp/a" "$tmp/b" || fail "--k=2 changed the hypercube map output"
good '"k":2|"topology":"mesh"' analyze --k 2 --n 4 --pattern transpose --mesh --json

# ---- bad input ----
bad 'power of two' analyze --k 3 --n 4 --pattern transpose
bad 'power of two' analyze --k 512 --n 2 --pattern transpose
bad 'power of two' map --k 6 --n 2 --pattern transpose
bad 'whole number' analyze --k four --n 2 --pattern transpose
bad 'not an element of GF(4)' analyze --k 4 --n 2 --matrix "1 4;0 1"
bad 'not an element of GF(8)' analyze --k 8 --n 2 --matrix "1 0;0 1" --vector "8 0"
bad 'expected n = 3' analyze --k 4 --n 3 --matrix "1 0;0 1"
bad 'rows' analyze --k 4 --n 3 --matrix "1 0 0;0 1 0"
bad 'even n' analyze --k 4 --n 3 --pattern transpose
bad 'unknown pattern' analyze --k 4 --n 3 --pattern nonsense
bad 'needs --n' analyze --k 4 --pattern transpose
bad 'too large' analyze --k 256 --n 8 --pattern digit-reverse
bad 'exact counting supports' analyze --k 256 --n 4 --pattern digit-reverse --exact
bad 'at most k-1 = 3' map --k 4 --n 4 --pattern transpose --pattern digit-reverse --pattern digit-complement --pattern butterfly:1
bad 'at most k-1 = 1' map --k 2 --n 4 --pattern transpose --pattern bit-reverse --mapping linear
bad 'unknown tie rule' analyze --k 4 --n 2 --pattern transpose --tie left
bad 'unknown mapping' map --k 4 --n 2 --pattern transpose --mapping best
bad 'scatter' analyze --k 4 --n 2 --matrix "1 0;0 1" --scatter
bad 'scatters together with gathers' map --k 4 --n 2 --matrix "1 0;0 0" --matrix "1 0;0 0" --scatter
bad 'uniform alone' map --k 4 --n 2 --pattern uniform
bad 'singular' map --k 4 --n 2 --pattern transpose --q "1 2;1 2"
bad 'not an element of GF(4)' map --k 4 --n 2 --pattern transpose --q "1 7;0 1"
bad 'unknown option' analyze --k 4 --n 2 --pattern transpose --frobnicate
bad 'needs a value' analyze --k 4 --n 2 --pattern

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "cli_torus: all checks passed"
