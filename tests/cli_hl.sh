#!/usr/bin/env bash
# kcube hl: the seed's example, meshes, census, verification, and one clear
# error line with exit 2 for every kind of bad input.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'

# Figure 2 of the seed: states A, B, A
expect_exit 0 "figure 2" -- "$K" hl --n 3 --matrix "010;101;110" --vector 110 --json
expect_stdout_matches "\"routed\":${J}true"
expect_stdout_matches "\"steps\":${J}3"
expect_stdout_matches "\"states\":${J}\"ABA\""
expect_stdout_matches "\"max_tags_moved_per_processor\":${J}1"
expect_stdout_matches "\"lemma5\":${J}true"

# trace: after step 1 processor 001 holds 011 and 101
expect_exit 0 "trace" -- "$K" hl --n 3 --matrix "010;101;110" --vector 110 --trace
expect_stdout_matches '001\(011,101\)'
expect_stdout_contains 'states ABA'
expect_exit 0 "trace json" -- "$K" hl --n 3 --matrix "010;101;110" --vector 110 --trace --json
expect_stdout_matches "\"state_before\":${J}\"B\""

# meshes: a square 2-mesh of 2^6 nodes takes 2 (2^3 - 1) = 14 steps for the complement
expect_exit 0 "mesh 8x8 (old spelling)" -- "$K" hl --n 6 --pattern complement --mesh 8x8 --json
expect_stdout_matches "\"mesh_steps\":${J}14"
expect_exit 0 "mesh 8x8" -- "$K" hl --n 6 --pattern complement --topology mesh --shape 8x8 --json
expect_stdout_matches "\"mesh_steps\":${J}14"
expect_exit 0 "mesh 8x4x2 (old spelling, sides axis 0 first as --shape)" -- "$K" hl --n 6 --pattern complement --mesh 8x4x2 --json
expect_stdout_matches "\"mesh_steps\":${J}11"
expect_stdout_matches "\"sides\":${J}\"8x4x2\""
expect_exit 0 "shape 8x4x2 (axis 0 first) is the same mesh" -- "$K" hl --n 6 --pattern complement --shape 8x4x2 --json
expect_stdout_matches "\"sides\":${J}\"8x4x2\""
expect_exit 0 "mesh 2,32" -- "$K" hl --n 6 --pattern complement --mesh 2,32 --msb-first
expect_stdout_contains '32 mesh steps'

# other modes and explicit permutations
expect_exit 1 "an unroutable permutation exits 1" -- "$K" hl --n 3 --perm 0,2,3,4,5,6,7,1 --json
expect_stdout_matches "\"routed\":${J}false"
# the two readings of M-SIMD (docs/hl.md): a PLC permutation the cut reading routes and the split one does not
expect_exit 0 "msimd cut reading routes a PLC permutation" -- "$K" hl --n 3 --perm 0,1,2,3,4,6,5,7 --mode msimd
expect_exit 1 "msimd split reading does not" -- "$K" hl --n 3 --perm 0,1,2,3,4,6,5,7 --mode msimd-split
check "mimd mode runs" -- "$K" hl --n 3 --perm 0,1,2,3,4,5,6,7 --mode mimd
expect_exit 0 "census" -- "$K" hl --census 3
expect_stdout_contains 'M-SIMD larger: yes'
expect_stdout_matches 'M-SIMD split \(per subcube\) +[0-9]+$'
expect_exit 0 "census csv" -- "$K" hl --census 3 --csv
check "census csv rows" -- test "$(wc -l <"$CLI_OUT")" -eq 40321
expect_stdout_matches '^"0 1 2 3 4 5 6 7",1,1,1,1,1,1,1,1,1$'
expect_exit 0 "plc count" -- "$K" hl --plc-count 3 --json
expect_stdout_matches "\"enumerated\":${J}2432"
expect_exit 0 "n = 20" -- "$K" hl --n 20 --pattern bit-reverse --json
expect_stdout_matches "\"steps\":${J}20"

# verification at scale; the seed takes the full 64-bit range
expect_exit 0 "verify n = 3" -- "$K" hl --verify --n 3 --json
expect_stdout_matches "\"checked\":${J}1344"
expect_stdout_matches "\"failures\":${J}0"
expect_exit 0 "verify n = 14" -- "$K" hl --verify --n 14 --samples 3 --seed 18446744073709551615 --msb-first
expect_stdout_contains '0 failures'
expect_stdout_contains 'seed 18446744073709551615'

# bad input
expect_bad "singular matrix" -- "$K" hl --n 3 --matrix "100;100;001"
expect_bad "matrix of the wrong size" -- "$K" hl --n 3 --matrix "10;01"
expect_bad "vector of the wrong size" -- "$K" hl --n 3 --matrix "100;010;001" --vector 10
expect_bad "mesh sides not multiplying to 2^n" -- "$K" hl --n 4 --pattern complement --mesh 4x8
expect_bad "mesh side not a power of two" -- "$K" hl --n 4 --pattern complement --mesh 3x4
expect_bad "mesh garbage" -- "$K" hl --n 4 --pattern complement --shape 4by4
expect_bad "mesh without sides" -- "$K" hl --n 4 --pattern complement --topology mesh
expect_bad "torus" -- "$K" hl --n 4 --pattern complement --topology torus
expect_bad "no n" -- "$K" hl --pattern complement
expect_bad "n too large" -- "$K" hl --n 99 --pattern complement
expect_bad "no permutation" -- "$K" hl --n 3
expect_bad "two permutations" -- "$K" hl --n 3 --pattern complement --pattern shuffle
expect_bad "trace too large" -- "$K" hl --n 10 --pattern complement --trace
expect_bad "perm too short" -- "$K" hl --n 3 --perm 0,1,2
expect_bad "perm repeats" -- "$K" hl --n 2 --perm 0,1,1,2
expect_bad "perm out of range" -- "$K" hl --n 2 --perm 0,1,2,7
expect_bad "perm negative" -- "$K" hl --n 2 --perm 0,1,2,-7
expect_stderr_contains "'-7'"
expect_bad "unknown option" -- "$K" hl --n 3 --pattern complement --frobnicate
expect_bad "option of another command" -- "$K" hl --n 3 --pattern complement --plot x.png
expect_stderr_contains "does not apply to hl"
expect_bad "unknown mode" -- "$K" hl --n 3 --pattern complement --mode sisd
expect_bad "unknown pattern" -- "$K" hl --n 3 --pattern nope
expect_bad "census too large" -- "$K" hl --census 4
expect_bad "verify without n" -- "$K" hl --verify
expect_bad "bad sample count" -- "$K" hl --verify --n 5 --samples 0
expect_bad "--count is gray's" -- "$K" hl --verify --n 5 --count 3
expect_bad "missing value" -- "$K" hl --n
expect_bad "negative seed" -- "$K" hl --verify --n 3 --seed -1
expect_bad "given twice" -- "$K" hl --n 3 --n 4 --pattern complement
expect_bad "newline in an argument" -- "$K" hl --n 4 --pattern complement --mesh $'4\nx4'
summary
