#!/usr/bin/env bash
# The rules of the time-and-memory gate's options (src/cli/budget.h,
# docs/cli.md "Time and memory before work"): --max-time is a decimal number
# of seconds as every real option takes it, nothing else; 0 means no limit
# for --max-time and --max-memory alike; a run refused for its time or
# memory is not bad input (exit 1, not 2) in every command, and the refusal
# names the estimate and a value of the option that runs it, simulate's
# memory refusal included.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

SMALL=(butterfly --n 2 --p 8 --method direct)

# ---- --max-time parses like the other real numbers -------------------------------

for t in " 5" "5 " "0x10" "+5" "5s" "1e" "." "" "-0" "nan" "infinity"; do
    expect_bad "--max-time '$t' is refused" -- "$K" "${SMALL[@]}" --max-time "$t"
    expect_stderr_contains "--max-time" "--max-time '$t'"
done
for t in 5 0.5 1e1 2.5e+1 90. .5 inf none 0; do
    expect_exit 0 "--max-time $t is a time" -- "$K" "${SMALL[@]}" --max-time "$t"
done

# ---- 0 is no limit, for both ----------------------------------------------------------

expect_exit 0 "--max-memory 0 is no limit" -- "$K" "${SMALL[@]}" --max-memory 0
[ -s "$CLI_OUT" ] && cli_pass || cli_fail "--max-memory 0: no output"
expect_exit 0 "--max-time 0 --max-memory 0: no limit at all" -- "$K" "${SMALL[@]}" --max-time 0 --max-memory 0
expect_exit 0 "simulate --max-memory 0 is no limit" -- \
    "$K" simulate --n 6 --uniform --rate 0.1 --measure 500 --max-memory 0
expect_exit 1 "a 1-byte budget still refuses" -- "$K" "${SMALL[@]}" --max-memory 1
expect_stderr_contains "--max-memory"

# ---- refusals exit 1 in every command -------------------------------------------------

printf 'num_ranks 2\nrank 0 {\nl1: send 100b to 1 tag 0\n}\nrank 1 {\nl1: recv 100b from 0 tag 0\n}\n' > "$CLI_TMP/pp.goal"
printf '0 1 1\n1 2 1\n2 3 1\n' > "$CLI_TMP/t.txt"
# over DESC -- cmd...: refused under --max-time 1e-9 with exit 1, one line, no stdout,
# naming the estimate and a --max-time that runs it.
over() {
    local desc=$1
    shift
    [ "$1" = "--" ] && shift
    expect_over "$desc: over --max-time" -- "$@" --max-time 1e-9
    expect_stderr_contains "needs about" "$desc"
    grep -Eq -- "--max-time [0-9]+(\.[0-9]+)? runs it" "$CLI_ERR" && cli_pass || cli_fail "$desc: no --max-time that runs it"
}
over "simulate" -- "$K" simulate --n 6 --uniform --rate 0.05
over "figures" -- "$K" figures --quick --out "$CLI_TMP/fig"
over "map --traffic" -- "$K" map --n 4 --traffic "$CLI_TMP/t.txt"
over "map" -- "$K" map --n 8 --pattern transpose
over "analyze" -- "$K" analyze --n 8 --pattern transpose
over "butterfly" -- "$K" "${SMALL[@]}"
over "calmant load" -- "$K" calmant load --d 8 --c 2 --task 0,8
over "calmant schedule" -- "$K" calmant schedule --d 8 --c 2 --task 0,8
over "calmant alltoall" -- "$K" calmant alltoall --d 4 --c 2 --block 64
over "fft-study" -- "$K" fft-study --n 2 --points 2^4 --configs ecube
over "replay" -- "$K" replay "$CLI_TMP/pp.goal" --n 2
over "replay --model loggops" -- "$K" replay "$CLI_TMP/pp.goal" --model loggops
over "hl" -- "$K" hl --n 4 --pattern transpose
[ ! -e "$CLI_TMP/fig" ] && cli_pass || cli_fail "a refused figures left its folder"
# the exact subset programme stopped by a limit is over budget too
expect_exit 1 "map --method dp over --max-memory" -- "$K" map --n 26 --pattern transpose --pattern bit-reverse \
    --pattern reverse-flip --pattern shuffle --method dp --max-memory 20M --work 0.3
expect_stderr_contains "--max-memory"

# ---- simulate's memory refusal names a --max-memory that runs it ----------------------

args=(simulate --n 10 --pattern transpose --rate 0.05 --measure 500 --drain 500)
expect_over "simulate over --max-memory" -- "$K" "${args[@]}" --max-memory 1K
expect_stderr_contains "needs about"
mem=$(sed -n 's/.*--max-memory \([0-9][0-9]*[KMG]\) runs it.*/\1/p' "$CLI_ERR")
if [ -n "$mem" ]; then cli_pass; else cli_fail "simulate's memory refusal names no --max-memory that runs it"; fi
expect_exit 0 "simulate runs with the --max-memory ${mem:-?} it named" -- "$K" "${args[@]}" --max-memory "${mem:-1K}"

summary
