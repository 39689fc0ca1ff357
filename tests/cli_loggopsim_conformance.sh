#!/usr/bin/env bash
# kcube replay --model loggops against LogGOPSim's own figures: 48 seeded
# random schedules of tests/support/goal_random.py (requires and irequires,
# shuffled dependency lines, several CPUs and NICs, wildcard receives of
# every kind) under six parameter sets, the makespan and every rank's
# finish to the nanosecond, as LogGOPSim gave them (tests/data/
# loggopsim_conformance.txt, written by tests/support/loggopsim_compare.py
# record; LogGOPSim itself is not needed here). Then a gather whose
# any-source, any-tag receives the file order would match into a cycle:
# run, not refused, with LogGOPSim's makespan.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
SUP="$(dirname "$0")/support"
command -v python3 > /dev/null || cli_skip "python3 not found"

expect_exit 0 "every run agrees with LogGOPSim" -- \
    python3 "$SUP/loggopsim_compare.py" check --kcube "$K" --data "$(dirname "$0")/data/loggopsim_conformance.txt"
expect_stdout_contains "288 of 288 runs agree with LogGOPSim"
[ "$CLI_FAILED" -eq 0 ] || sed 's/^/    /' "$CLI_OUT" | head -20

# Rank 1 sends only after rank 0's first receive; LogGOPSim (defaults): 26688 ns.
{
    echo "num_ranks 8"
    echo "rank 0 {"
    for r in 1 2 3 4 5 6 7; do echo "l$r: recv 64b from -1 tag -1"; done
    echo "go: send 8b to 1 tag 9"
    echo "go requires l1"
    echo "}"
    printf 'rank 1 {\nw: recv 8b from 0 tag 9\nl1: send 64b to 0 tag 5\nl1 requires w\n}\n'
    for r in 2 3 4 5 6 7; do printf 'rank %d {\nl1: send 64b to 0 tag 5\n}\n' "$r"; done
} > "$CLI_TMP/gather.goal"
expect_exit 0 "a wildcard gather runs" -- "$K" replay "$CLI_TMP/gather.goal" --model loggops --csv
expect_stdout_contains "total,26688"
expect_stdout_contains "finish:1,22310"
# a receive that no run can match is still refused, with its line
sed 's/^l7: recv 64b from -1 tag -1$/l7: recv 64b from 3 tag 7/' "$CLI_TMP/gather.goal" > "$CLI_TMP/bad.goal"
expect_bad "a receive nothing can match" -- "$K" replay "$CLI_TMP/bad.goal" --model loggops
expect_stderr_contains "line 9: the recv of rank 0 from rank 3 with tag 7 has no matching send"
summary
