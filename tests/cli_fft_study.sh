#!/usr/bin/env bash
# kcube fft-study: seed 000's parallel FFT on the flit-level network. A small
# run on the 4-cube, the JSON fields, the mapping's bit-reverse speed-up, the
# emitted schedule replayed to the same total, and one error line with exit 2
# for bad input.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'

expect_exit 0 "4-cube json" -- "$K" fft-study --n 4 --points 2^6,256 --json
for f in '"rows"' '"summary"' '"m"' '"config"' '"bitrev_us"' '"neighbour_us"' '"compute_us"' '"total_us"' \
    '"bitrev_speedup"' '"total_gain"' '"M-S"' '"pcube"' '"li-min"'; do
    expect_stdout_contains "$f"
done
if grep -E '"bitrev_speedup":' "$CLI_OUT" | awk '{ if ($2 + 0 <= 1) bad = 1 } END { exit bad }'; then cli_pass
else cli_fail "bitrev_speedup > 1"; fi
if [ "$(grep -c '"bitrev_speedup":' "$CLI_OUT")" -eq 2 ]; then cli_pass; else cli_fail "one summary per size"; fi

# the schedule of the first size and configuration replays to the same total
expect_exit 0 "emit-goal" -- "$K" fft-study --n 4 --points 2^6 --configs ecube,duato --emit-goal "$CLI_TMP/f.goal" --csv
expect_stdout_contains 'm,config,bitrev_us,neighbour_us,compute_us,total_us'
total=$(awk -F, '$2 == "ecube" { print $6 }' "$CLI_OUT")
if [ -n "$total" ]; then cli_pass; else cli_fail "ecube row in the CSV"; fi
expect_stdout_matches '^64,duato,'
expect_exit 0 "replay of the emitted schedule" -- "$K" replay "$CLI_TMP/f.goal" --n 4 --csv
expect_stdout_contains "total,$total"
expect_exit 0 "text" -- "$K" fft-study --n 4 --points 2^6
expect_stdout_contains "bit-reverse"

expect_bad "unknown config" -- "$K" fft-study --n 4 --points 2^6 --configs ecube,foo
expect_bad "M-G: a set of patterns, the FFT has one" -- "$K" fft-study --n 4 --points 2^6 --configs ecube,M-G
expect_exit 0 "simulate's M-S and its old spelling here" -- "$K" fft-study --n 4 --points 2^6 --configs ms,ecube+mapping --csv
expect_stdout_matches '^64,M-S,'
expect_bad "size not 2^(n+2d)" -- "$K" fft-study --n 4 --points 2^7
expect_bad "size below 2^(n+2)" -- "$K" fft-study --n 4 --points 16
expect_bad "not a power of two" -- "$K" fft-study --n 4 --points 100
expect_bad "empty list" -- "$K" fft-study --n 4 --points ,
expect_bad "no --n" -- "$K" fft-study
expect_bad "no default size" -- "$K" fft-study --n 13
if [ ! -e "$CLI_TMP/g.goal" ]; then cli_pass; else cli_fail "bad input wrote a schedule"; fi
expect_bad "bad input writes no schedule" -- "$K" fft-study --n 4 --points 2^7 --emit-goal "$CLI_TMP/g.goal"
if [ ! -e "$CLI_TMP/g.goal" ]; then cli_pass; else cli_fail "bad input wrote a schedule"; fi

# seed 000's Table 2 figures (8-cube, m = 2^14) under the reading with a
# barrier after the bit-reverse: 6.43 times and about 41 %
expect_exit 0 "seed 000 figures" -- "$K" fft-study --n 8 --points 2^14 --configs ecube,ecube+mapping --json
if python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"][0]
ok = round(s["bitrev_speedup_apart"], 2) == 6.43 and 0.40 <= s["total_gain_apart"] <= 0.42
sys.exit(0 if ok else 1)' "$CLI_OUT"; then cli_pass; else cli_fail "6.43 and 41 % with the barrier"; fi

if command -v gnuplot > /dev/null; then
    expect_exit 0 "plot" -- "$K" fft-study --n 4 --points 2^6,2^8 --configs ecube,ecube+mapping --plot "$CLI_TMP/p.svg"
    if grep -q '</svg>' "$CLI_TMP/p.svg" 2> /dev/null; then cli_pass; else cli_fail "plot written"; fi
fi
summary
