#!/bin/bash
# kcube analyze / map on k-ary n-cubes and meshes: results and bad input.
# $1 = path to the kcube binary.
KC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/support/cli_lib.sh"
cd "$CLI_TMP" || exit 1

# good 'P1|P2|..' args...: a successful run whose output contains every
# pattern (JSON spacing removed first).
good() {
    local pats=$1
    shift
    expect_exit 0 "$*" -- "$KC" "$@"
    tr -d ' \t\n' < "$CLI_OUT" > flat
    local IFS='|' p
    for p in $pats; do
        if grep -qF -- "$p" flat; then cli_pass; else cli_fail "$*: output lacks '$p'"; fi
    done
}
# bad TEXT args...: exit 2, one line on stderr containing TEXT, no stdout.
bad() {
    local want=$1
    shift
    expect_exit 2 "bad input: $*" -- "$KC" "$@"
    expect_one_stderr_line
    expect_stderr_contains "$want"
    check "no stdout: $*" -- test ! -s "$CLI_OUT"
}

# ---- analyze ----
good '"per_dim":[2,8,8,2]|"per_dim_exact":[2,8,8,2]|"contention":8|"polynomial":7' \
    analyze --k 4 --n 4 --pattern transpose --json
good '"contention":8' analyze --k 16 --n 2 --pattern transpose --json
good '"contention":4' analyze --k 8 --n 3 --pattern digit-reverse --json
good '"contention":8' analyze --k 4 --n 4 --pattern digit-reverse --json
good '"topology":"mesh"|"per_dim_exact":[3,12,12,3]' analyze --k 4 --n 4 --pattern transpose --topology mesh --json
good '"topology":"mesh"|"per_dim_exact":[3,12,12,3]' analyze --k 4 --n 4 --pattern transpose --mesh --json
good '"topology":"mesh"|"per_dim_exact":[3,12,12,3]' analyze --shape 4x4x4x4 --pattern transpose --json
good '"per_dim_case":["idle","idle","4b","4b"]|"per_dim_bound":[false,false,true,true]' \
    analyze --k 4 --n 4 --matrix "1 0 0 0;0 1 0 0;1 0 1 0;0 1 0 1" --json
good '"kind":"uniform"|"per_dim":null' analyze --k 4 --n 3 --pattern uniform --seed 3 --json
good 'dim,formula,exact,worst_from,worst_to,worst_dir,case' analyze --k 8 --n 2 --matrix "1 2;0 3" --vector "5,1" --csv
good '"tie":"minus"' analyze --k 4 --n 2 --pattern transpose --tie minus --json
good 'GF(4)mod7' analyze --k 4 --n 2 --pattern transpose

# ---- map: seed 002's constructions (--kind linear) ----
# Theorem 3 on transpose: 8 -> 2 ([0,0,2,2]).
good '"kind":"linear"|"method":"theorem3"|"matrix":[[1,0,1,0],[0,1,0,1],[0,0,1,0],[0,0,0,1]]|"contention_before":8|"contention_after":2|"per_dim_after":[0,0,2,2]|"to_physical":[' \
    map --k 4 --n 4 --pattern transpose --kind linear --json
# Theorem 4 (seed 002): 8, 8 -> 2, 2.
good '"method":"theorem4"|"per_dim_after":[2,2,1,1]|"per_dim_after":[2,0,1,1]' \
    map --k 4 --n 4 --pattern transpose --pattern digit-reverse --kind linear --json
good 'theorem4' map --k 4 --n 4 --pattern transpose --pattern digit-reverse --pattern digit-complement --kind linear
# --kind linear|reorder (the old spelling --mapping is gone: --mapping is the applied mapping elsewhere).
good '"method":"theorem3"' map --k 4 --n 4 --pattern transpose --kind linear --json
good '"kind":"reorder"|"order":[' map --k 4 --n 4 --pattern transpose --kind reorder --json
# auto: the best of both, never worse than the constructions.
good '"kind":"linear"|"value":1|"candidates":[{"kind":"reorder"' map --k 4 --n 4 --pattern transpose --json
good '"value":4|"exhaustive":true' map --k 16 --n 2 --pattern transpose --search --evals 100000 --json
good '"contention_after":8|"kind":"reorder"|"permutation_matrix":true' \
    map --k 16 --n 2 --pattern transpose --kind reorder --search --json
# Beyond k - 1 communications the construction is attempted (the old
# --fallback is --kind auto).
good '"method":"theorem4-beyond-limit"' map --k 2 --n 4 --pattern transpose --pattern bit-reverse --kind linear --json
good '"method":"theorem4-beyond-limit"' \
    map --k 4 --n 4 --pattern transpose --pattern digit-reverse --pattern digit-complement --pattern butterfly:1 --kind linear --json
good '"value":1' map --k 2 --n 2 --pattern transpose --matrix "1 1;1 1" --fallback --json
# Scatters with gathers: no construction, the best reordering still maps them.
good '"value":2' map --k 4 --n 2 --matrix "1 0;0 0" --matrix "1 0;0 0" --scatter --json
# Example 5's Q (GF(4) mod x^2+x+1): both patterns 8 -> 2, and the paper's (1').
good '"method":"given"|"matrix_after":[[1,1,2,0],[2,1,0,2],[1,0,1,1],[0,1,2,1]]|"contention_after":2' \
    map --k 4 --n 4 --pattern transpose --pattern digit-reverse --q "1 0 1 1;0 1 2 1;0 0 1 0;0 0 0 1" --json
good '"kind":"reorder"|"method":"given"|"order":[1,0]' map --n 2 --pattern transpose --q "01;10" --json
# Mesh and torus mappings, --emit-c on a torus.
good '"topology":"mesh"|"kind":' map --k 4 --n 2 --pattern transpose --topology mesh --json
expect_exit 0 "emit-c on a torus" -- "$KC" map --k 4 --n 4 --pattern transpose --pattern digit-reverse --emit-c
cp "$CLI_OUT" map.h
printf '#include "map.h"\nint main(void) {\n  for (unsigned v = 0; v < 256; v++)\n    if (kc_to_virtual[kc_to_physical[v]] != v) return 1;\n  return 0;\n}\n' > main.c
check "torus emit-c compiles and inverts" -- sh -c 'cc -o check main.c -I. && ./check'
good '"patterns":[|"name":"uniform"|"contention_before":' map --k 4 --n 2 --pattern transpose --pattern uniform --json

# --k 2 is the hypercube: the same output.
expect_exit 0 "hypercube analyze" -- "$KC" analyze --n 4 --pattern transpose --json
cp "$CLI_OUT" a.json
expect_exit 0 "hypercube analyze --k 2" -- "$KC" analyze --k 2 --n 4 --pattern transpose --json
check "--k 2 keeps the hypercube output" -- cmp -s a.json "$CLI_OUT"
expect_exit 0 "hypercube map" -- "$KC" map --n 6 --pattern bit-reverse --json
cp "$CLI_OUT" a.json
expect_exit 0 "hypercube map --k=2" -- "$KC" map --k=2 --n 6 --pattern bit-reverse --json
check "--k=2 keeps the hypercube map output" -- cmp -s a.json "$CLI_OUT"
good '"k":2|"topology":"mesh"' analyze --k 2 --n 4 --pattern transpose --mesh --json

# ---- bad input ----
bad 'power of two' analyze --k 3 --n 4 --pattern transpose
bad 'out of range 2..256' analyze --k 512 --n 2 --pattern transpose
bad 'power of two' map --k 6 --n 2 --pattern transpose
bad 'unequal sides' map --shape 4x8 --pattern bit-reverse --kind linear
# --kind auto on unequal sides: the general mapping, the one that applies
good 'generalmappingonthemesh4x8' map --shape 4x8 --pattern bit-reverse
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
bad 'unknown tie rule' analyze --k 4 --n 2 --pattern transpose --tie left
bad '--tie does not apply to a mesh' analyze --k 4 --n 2 --pattern transpose --mesh --tie minus
bad '--k does not apply with --shape' analyze --k 4 --shape 4x4 --pattern transpose
bad 'mapping kind' map --k 4 --n 2 --pattern transpose --kind best
bad 'scatter' analyze --k 4 --n 2 --matrix "1 0;0 1" --scatter
bad 'uniform traffic alone' map --k 4 --n 2 --pattern uniform
bad 'singular' map --k 4 --n 2 --pattern transpose --q "1 2;1 2"
bad '--q' map --k 4 --n 2 --pattern transpose --q "1 2;1 2"
bad 'not an element of GF(4)' map --k 4 --n 2 --pattern transpose --q "1 7;0 1"
bad '--kind does not apply' map --k 4 --n 2 --pattern transpose --q "1 0;0 1" --kind linear
bad 'exhaustive search supports the hypercube' map --k 4 --n 2 --pattern transpose --method exhaustive
bad 'unknown option' analyze --k 4 --n 2 --pattern transpose --frobnicate
bad 'needs a value' analyze --k 4 --n 2 --pattern

CLI_STDOUT=/dev/full expect_exit 1 "torus map > /dev/full" -- "$KC" map --k 4 --n 4 --pattern transpose --json
expect_one_stderr_line

summary
