#!/usr/bin/env bash
# The comparison with the users' mappings (bench/net_compare.py, docs/compare.md)
# in its quick form: the reference operations on the examples their documents
# give (tests/support/refmaps.py: Rubik's tilt/shear, grid_order's cells,
# ABCDET, a hand count), then one 7-point stencil of 4096 ranks on a Blue
# Gene/Q midplane (4x4x4x4x2, 8 ranks a node): every reference mapping a
# permutation of the slots, kcube's count of each equal to the independent
# dimension-order recount, kcube's mapping never worse than the default order
# (the script exits 1 on any of these), and a row for every mapping. Skipped
# without python3 or scotch_gmap.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
T=$CLI_TMP
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

command -v python3 > /dev/null || cli_skip "python3 is missing"
command -v scotch_gmap > /dev/null || cli_skip "scotch_gmap not installed (Debian package scotch)"

check "reference operations match their documented examples" -- python3 "$ROOT/tests/support/refmaps.py"
expect_exit 0 "quick comparison runs and its checks pass" -- \
    python3 "$ROOT/bench/net_compare.py" --kcube "$K" --quick --csv "$T/c.csv"
for m in "default (ABCDET)" "Rubik tile " "Rubik tile+tilt" "Rubik tile+zigzag" "grid_order" "scotch_gmap" "| kcube |"; do
    expect_stdout_contains "$m" "a row for $m"
done
expect_stdout_matches '^\| BG/Q midplane c8 \| 4x4x4x4x2 x 8 \| 16x16x16 \| 7pt \| kcube \| [*0-9]+ \| [0-9]+ \|' "kcube's row is counted"
check "CSV has a header and 7 rows" -- test "$(wc -l < "$T/c.csv")" -eq 8
summary
