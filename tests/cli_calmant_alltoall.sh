#!/usr/bin/env bash
# kcube calmant alltoall: the JSON fields per method, the baseline's closed
# form, formula == replay, CSV, the charts written atomically, and one error
# line with exit 2 for bad input.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'

# 16x16, B = 64, beta/tau = 500: the baseline is 2 (2^4 - 1)(500 + 128 * 64) = 260760
expect_exit 0 "json" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --startup 500 --byte-time 1 --json
for f in method time steps bisection_bound speedup conflicts max_link_bytes replay_time degree; do
    expect_stdout_matches "\"$f\":" "json field $f"
done
expect_stdout_matches "\"method\":${J}\"cc-cube\","
expect_stdout_matches "\"time\":${J}260760,"
expect_stdout_matches "\"bisection_bound\":${J}65536,"
expect_stdout_matches "\"steps\":${J}1755," "pairwise: 3 (2^12 - 1) / 7 steps"
if grep -Eq '"conflicts":[[:space:]]*[1-9]' "$CLI_OUT"; then cli_fail "a method conflicts"; else cli_pass; fi
# every replayed time equals its formula
times=$(sed -n 's/^[[:space:]]*"time":[[:space:]]*\([0-9.e+]*\),$/\1/p' "$CLI_OUT" | tr '\n' ' ')
replays=$(sed -n 's/^[[:space:]]*"replay_time":[[:space:]]*\([0-9.e+]*\)$/\1/p' "$CLI_OUT" | tr '\n' ' ')
if [ -n "$times" ] && [ "$times" = "$replays" ]; then cli_pass; else cli_fail "formula $times != replay $replays"; fi

# 16x16x16 (d = 12, c = 3), two methods only
expect_exit 0 "3-D" -- "$K" calmant alltoall --d 12 --c 3 --block 16 --methods calmant,cc-cube --json
expect_stdout_matches "\"side\":${J}16,"
expect_stdout_matches "\"method\":${J}\"calmant\","
if grep -q '"pairwise"' "$CLI_OUT"; then cli_fail "--methods ignored"; else cli_pass; fi

# CSV: a header and one row per method
expect_exit 0 "csv" -- "$K" calmant alltoall --d 6 --c 2 --block 16 --csv
expect_stdout_contains "method,time,steps,bisection_bound"
if [ "$(wc -l < "$CLI_OUT")" -eq 5 ]; then cli_pass; else cli_fail "csv: expected 5 lines"; fi
expect_stdout_matches "^pairwise,"
# a given degree
expect_exit 0 "degree" -- "$K" calmant alltoall --d 6 --c 2 --block 16 --methods calmant --degree 3 --json
expect_stdout_matches "\"degree\":${J}3,"
# text
expect_exit 0 "text" -- "$K" calmant alltoall --d 8 --c 2 --block 64
expect_stdout_contains "complete exchange on the 16x16 mesh"

if command -v gnuplot > /dev/null; then
    expect_exit 0 "plot" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --plot "$CLI_TMP/f.svg" \
        --plot-barrier "$CLI_TMP/b.png" --barrier 100
    if grep -q '</svg>' "$CLI_TMP/f.svg" 2> /dev/null; then cli_pass; else cli_fail "plot written"; fi
    if [ -s "$CLI_TMP/b.png" ]; then cli_pass; else cli_fail "barrier plot written"; fi
    if ls -a "$CLI_TMP" | grep -q '\.tmp'; then cli_fail "temporary file left"; else cli_pass; fi
fi
expect_bad "plot to a bad name" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --plot "$CLI_TMP/f.txt"
# a directory that does not exist: an I/O failure (exit 1), found before any work
expect_exit 1 "plot into a missing directory" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --plot "$CLI_TMP/no/f.svg"
expect_one_stderr_line
if [ -s "$CLI_OUT" ]; then cli_fail "missing directory: wrote to stdout"; else cli_pass; fi
if [ ! -e "$CLI_TMP/no" ]; then cli_pass; else cli_fail "bad plot created something"; fi
expect_bad "barrier plot without barrier" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --plot-barrier "$CLI_TMP/b.svg"

# the pipelined exchange as a GOAL schedule, replayed on the flit-level 4x4 mesh: every message
# delivered; simulated 3573 against the model's 4332 (docs/calmant.md)
expect_exit 0 "emit goal" -- "$K" calmant alltoall --d 4 --c 2 --block 64 --degree 4 --startup 100 --byte-time 1 \
    --methods calmant --emit-goal "$CLI_TMP/cx.goal"
expect_stdout_matches "^calmant +4332 +19 "
if grep -q '^num_ranks 16$' "$CLI_TMP/cx.goal"; then cli_pass; else cli_fail "goal file written"; fi
expect_exit 0 "replay goal" -- "$K" replay "$CLI_TMP/cx.goal" --topology mesh --k 4 --n 2 --startup 100 \
    --byte-time 1 --json
expect_stdout_matches "\"messages\":${J}256,"
expect_stdout_matches "\"total_us\":${J}3573,"
expect_bad "emit goal too large" -- "$K" calmant alltoall --d 14 --c 2 --block 64 --emit-goal "$CLI_TMP/big.goal"
if [ ! -e "$CLI_TMP/big.goal" ]; then cli_pass; else cli_fail "bad input wrote a schedule"; fi
expect_bad "emit goal, degree above N" -- "$K" calmant alltoall --d 4 --c 2 --block 1 --degree 9 \
    --emit-goal "$CLI_TMP/big.goal"

# bad input: exit 2, one line
expect_bad "d not a multiple of c" -- "$K" calmant alltoall --d 7 --c 2 --block 64
expect_stderr_contains "--d: d = 7 is not a multiple"
expect_bad "d/c < 2" -- "$K" calmant alltoall --d 2 --c 2 --block 64
expect_bad "block 0" -- "$K" calmant alltoall --d 8 --c 2 --block 0
expect_stderr_contains "--block:"
expect_bad "unknown method" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --methods calmant,quadrant
expect_stderr_contains "--methods: unknown all-to-all method 'quadrant'"
expect_bad "repeated method" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --methods pairwise,pairwise
expect_bad "empty method" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --methods calmant,
expect_bad "degree 0" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --degree 0
expect_stderr_contains "--degree: the pipelining degree must be at least 1"
expect_bad "no block" -- "$K" calmant alltoall --d 8 --c 2
expect_bad "json and csv" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --json --csv
expect_bad "negative startup" -- "$K" calmant alltoall --d 8 --c 2 --block 64 --startup -1
summary
