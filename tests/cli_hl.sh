#!/usr/bin/env bash
# kcube hl: results of the seed's example and clear errors (exit 2) on bad input.
set -u
K="$1"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { # ok DESCRIPTION: the last command succeeded
    if [ "$rc" -ne 0 ]; then echo "FAIL ($rc): $1"; fail=1; fi
}
has() { # has REGEX FILE
    if ! grep -Eq "$1" "$2"; then echo "FAIL: '$1' not in output"; cat "$2"; fail=1; fi
}
bad() { # bad DESCRIPTION ARGS...: exit 2, exactly one line on stderr, nothing on stdout
    local what="$1"; shift
    "$K" hl "$@" >"$tmp/out" 2>"$tmp/err"
    local r=$?
    if [ $r -ne 2 ]; then echo "FAIL: $what: exit $r, want 2"; fail=1; fi
    if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then echo "FAIL: $what: stderr is not one line:"; cat "$tmp/err"; fail=1; fi
    if [ -s "$tmp/out" ]; then echo "FAIL: $what: wrote to stdout"; fail=1; fi
    if ! grep -q '^kcube: ' "$tmp/err"; then echo "FAIL: $what: message lacks 'kcube: '"; fail=1; fi
}

# Figure 2 of the seed: states A, B, A
"$K" hl --n 3 --matrix "010;101;110" --vector 110 --json >"$tmp/f2" 2>&1; rc=$?; ok "figure 2"
has '"routed":[[:space:]]*true' "$tmp/f2"
has '"steps":[[:space:]]*3' "$tmp/f2"
has '"states":[[:space:]]*"ABA"' "$tmp/f2"
has '"max_tags_moved_per_processor":[[:space:]]*1' "$tmp/f2"
has '"lemma5":[[:space:]]*true' "$tmp/f2"

# trace: after step 1 processor 001 holds 011 and 101
"$K" hl --n 3 --matrix "010;101;110" --vector 110 --trace >"$tmp/tr" 2>&1; rc=$?; ok "trace"
has '001\(011,101\)' "$tmp/tr"
has 'states ABA' "$tmp/tr"
"$K" hl --n 3 --matrix "010;101;110" --vector 110 --trace --json >"$tmp/trj" 2>&1; rc=$?; ok "trace json"
has '"state_before":[[:space:]]*"B"' "$tmp/trj"

# meshes: a square 2-mesh of 2^6 nodes takes 2 (2^3 - 1) = 14 steps for the complement
"$K" hl --n 6 --pattern complement --mesh 8x8 --json >"$tmp/m" 2>&1; rc=$?; ok "mesh 8x8"
has '"mesh_steps":[[:space:]]*14' "$tmp/m"
"$K" hl --n 6 --pattern complement --mesh 2x4x8 --json >"$tmp/m" 2>&1; rc=$?; ok "mesh 2x4x8"
has '"mesh_steps":[[:space:]]*11' "$tmp/m"
"$K" hl --n 6 --pattern complement --mesh 2,32 --msb-first >"$tmp/m" 2>&1; rc=$?; ok "mesh 2,32"
has '32 mesh steps' "$tmp/m"

# other modes and explicit permutations
"$K" hl --n 3 --perm 0,2,3,4,5,6,7,1 --json >"$tmp/p" 2>&1; rc=$?
if [ $rc -ne 1 ]; then echo "FAIL: an unroutable permutation should exit 1, got $rc"; fail=1; fi
has '"routed":[[:space:]]*false' "$tmp/p"
"$K" hl --n 3 --perm 0,2,3,4,5,6,7,1 --mode mimd >"$tmp/p" 2>&1; rc=$?
"$K" hl --census 3 >"$tmp/c" 2>&1; rc=$?; ok "census"
has 'M-SIMD larger: yes' "$tmp/c"
has 'M-SIMD split \(per subcube\) +[0-9]+$' "$tmp/c"
"$K" hl --census 3 --csv >"$tmp/c" 2>&1; rc=$?; ok "census csv"
if [ "$(wc -l <"$tmp/c")" -ne 40321 ]; then echo "FAIL: census csv rows"; fail=1; fi
has '^"0 1 2 3 4 5 6 7",1,1,1,1,1,1,1,1,1$' "$tmp/c"
"$K" hl --plc-count 3 --json >"$tmp/c" 2>&1; rc=$?; ok "plc count"
has '"enumerated":[[:space:]]*2432' "$tmp/c"
"$K" hl --n 20 --pattern bit-reverse --json >"$tmp/big" 2>&1; rc=$?; ok "n = 20"
has '"steps":[[:space:]]*20' "$tmp/big"

# verification at scale
"$K" hl --verify --n 3 --json >"$tmp/v" 2>&1; rc=$?; ok "verify n = 3"
has '"checked":[[:space:]]*1344' "$tmp/v"
has '"failures":[[:space:]]*0' "$tmp/v"
"$K" hl --verify --n 14 --count 3 --seed 9 --msb-first >"$tmp/v" 2>&1; rc=$?; ok "verify n = 14"
has '0 failures' "$tmp/v"

# bad input
bad "singular matrix" --n 3 --matrix "100;100;001"
bad "matrix of the wrong size" --n 3 --matrix "10;01"
bad "vector of the wrong size" --n 3 --matrix "100;010;001" --vector 10
bad "mesh sides not multiplying to 2^n" --n 4 --pattern complement --mesh 4x8
bad "mesh side not a power of two" --n 4 --pattern complement --mesh 3x4
bad "mesh garbage" --n 4 --pattern complement --mesh 4by4
bad "no n" --pattern complement
bad "n too large" --n 99 --pattern complement
bad "no permutation" --n 3
bad "two permutations" --n 3 --pattern complement --pattern shuffle
bad "trace too large" --n 10 --pattern complement --trace
bad "perm too short" --n 3 --perm 0,1,2
bad "perm repeats" --n 2 --perm 0,1,1,2
bad "perm out of range" --n 2 --perm 0,1,2,7
bad "unknown option" --n 3 --pattern complement --frobnicate
bad "unknown mode" --n 3 --pattern complement --mode sisd
bad "unknown pattern" --n 3 --pattern nope
bad "census too large" --census 4
bad "verify without n" --verify
bad "bad count" --verify --n 5 --count 0
bad "missing value" --n
exit $fail
