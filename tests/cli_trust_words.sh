#!/usr/bin/env bash
# Numbers and words the command line must get right: integers in JSON are
# exact up to 2^64 - 1; one rule for whole numbers in every option; one
# grammar for traffic phases; --loggops in both of its forms; host names are
# host names; help and options agree; "did you mean" for a misspelt command,
# pattern or option; inputs given as process substitution are read.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

# ---- JSON integers: exact at 2^53 + 1 and 2^64 - 1 -----------------------------
for seed in 9007199254740993 18446744073709551615; do
    expect_exit 0 "simulate --json --seed $seed" -- "$K" simulate --n 4 --pattern transpose --rate 0.1 \
        --seed "$seed" --json
    expect_stdout_matches "\"seed\":[[:space:]]*$seed,?\$" "the seed $seed comes back exact"
done
summary
