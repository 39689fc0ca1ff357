#!/usr/bin/env bash
# kcube map --kind reorder for a set beyond the old n <= 24 (issue 24): the
# output says whether the value is proved optimal ("exact", "(optimal)" or
# "(search, not proved optimal; lower bound L)") and names the method that
# ran; --method dp is refused with the option that lifts the limit instead
# of being replaced; analyze --exact counts past 2^24 nodes.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

json_check() { # DESCRIPTION PYTHON-EXPR over d (the JSON on stdout)
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$CLI_OUT"; then
        cli_pass
    else
        cli_fail "$1"
    fi
}

SET="--pattern transpose --pattern bit-reverse --pattern reverse-flip --pattern shuffle"

# small n: the DP alone, optimal
expect_exit 0 "n = 8 set" -- "$K" map --n 8 $SET --kind reorder
expect_stdout_contains "reorder mapping (dp)"
expect_stdout_contains "value 2, total 43 (optimal)"
expect_exit 0 "n = 8 set, json" -- "$K" map --n 8 $SET --kind reorder --json
json_check "n = 8: exact, lower bound 1" "d['exact'] is True and d['lower_bound'] == 1 and d['method'] == 'dp'"

# n = 22: the search, then the DP pruned by its value: still exact, value 4
expect_exit 0 "n = 22 set" -- "$K" map --n 22 $SET --kind reorder --json --work 0.3
json_check "n = 22: dp, exact, value 4" "d['method'] == 'dp' and d['exact'] is True and d['value'] == 4"

# n = 26 with too little memory for the DP: the search's order, said so
expect_exit 0 "n = 26 set, 20 MiB" -- "$K" map --n 26 $SET --kind reorder --max-memory 20M --work 0.3
expect_stdout_contains "reorder mapping (reorder-search)"
expect_stdout_contains "value 4, total"
expect_stdout_contains "(search, not proved optimal; lower bound 1)"
expect_stdout_contains "--method dp --max-time"
expect_exit 0 "n = 26 set, 20 MiB, json" -- "$K" map --n 26 $SET --kind reorder --max-memory 20M --work 0.3 --json
json_check "n = 26: not exact, bound 1, estimate" \
    "d['exact'] is False and d['lower_bound'] == 1 and d['method'] == 'reorder-search' and d['dp_estimate']['bytes'] > 20*2**20"

# the search is deterministic for a seed and a work budget
expect_exit 0 "seed 5 (1)" -- "$K" map --n 26 $SET --kind reorder --max-memory 20M --work 0.5 --seed 5 --json
cp "$CLI_OUT" "$CLI_TMP/a.json"
expect_exit 0 "seed 5 (2)" -- "$K" map --n 26 $SET --kind reorder --max-memory 20M --work 0.5 --seed 5 --json
check "same seed, same order" -- cmp -s "$CLI_TMP/a.json" "$CLI_OUT"

# --method dp is refused, not replaced
expect_bad "--method dp beyond memory" -- "$K" map --n 26 $SET --method dp --max-memory 20M --work 0.3
expect_stderr_contains "--max-memory"
expect_bad "--method dp beyond n = 32" -- "$K" map --n 34 $SET --method dp
expect_stderr_contains "n <= 32"
expect_bad "--method dp past --max-time" -- "$K" map --n 26 --pattern transpose --pattern bit-reverse \
    --pattern reverse-flip --pattern shuffle --pattern bit-swap:3 --method dp --max-time 0.001 --work 0.2
expect_stderr_contains "--max-time"
expect_bad "--work with kind auto" -- "$K" map --n 8 $SET --work 0.3

# a single permutation: Fig. 3 is exact at any n
expect_exit 0 "one permutation at n = 40" -- "$K" map --n 40 --pattern transpose --kind reorder --json
json_check "optimizer, exact" "d['method'] == 'optimizer' and d['exact'] is True and d['value'] == 1"

# the exact count past 2^24 nodes agrees with the closed form
expect_exit 0 "analyze n = 25 exact" -- "$K" analyze --n 25 --pattern bit-reverse --exact --json
json_check "exact count agrees" "d.get('agree', True) is not False"

summary
