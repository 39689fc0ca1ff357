#!/usr/bin/env bash
# scripts/bfly_sat.py (docs/butterfly.md, "Theorem 1 or Table 4?"): the
# exact search gives the known answers with both solvers, with and without
# its implied clauses and symmetry breaking, and every satisfying schedule
# passes the independent replay. The tool under test ($1) is not used.
set -u
. "$(dirname "$0")/support/cli_lib.sh"
SAT="$(dirname "$0")/../scripts/bfly_sat.py"

answer() { # answer "n p T" EXPECTED [options]: the answer line, and the replay for SAT
    local npt="$1" want="$2"
    shift 2
    # shellcheck disable=SC2086
    expect_exit 0 "bfly_sat $npt $*" -- python3 "$SAT" $npt --timeout 60 "$@"
    expect_stdout_matches "^$want\$"
    if [ "$want" = SATISFIABLE ]; then expect_stdout_contains "check: ok"; fi
}

for solver in cadical picosat; do
    for extra in "" --plain; do
        answer "2 4 1" UNSATISFIABLE --solver "$solver" $extra
        answer "2 4 2" SATISFIABLE --solver "$solver" $extra
        answer "3 5 2" UNSATISFIABLE --solver "$solver" $extra
        answer "3 5 3" SATISFIABLE --solver "$solver" $extra
    done
done
answer "4 6 3" UNSATISFIABLE --solver cadical
answer "2 6 8" SATISFIABLE --solver cadical
# the schedule is printed with --show: four times for T = 3 and 8 processors
answer "3 5 3" SATISFIABLE --show
expect_stdout_matches '^time 3$'
expect_stdout_matches '^  processor 111: '
summary
