#!/usr/bin/env bash
# kcube butterfly and kcube gray (seed 001): the paper's tables and counts,
# FFT results, and one-line errors (exit 2) on bad input.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

run() { # run DESCRIPTION ARGS...: the command must succeed
    local desc="$1"; shift
    expect_exit 0 "$desc" -- "$K" "$@"
}
has() { # has DESCRIPTION REGEX: a line of the last command's output matches
    expect_stdout_matches "$2" "$1"
}
bad() { # bad DESCRIPTION ARGS...: exit 2, one line on stderr, nothing on stdout
    local what="$1"; shift
    expect_bad "$what" -- "$K" "$@"
}

# Figure 1: the 4-bit code
run "gray --n 4" gray --n 4
has "figure 1 row 10" '^10 +1010 +1111$'
has "figure 1 row 15" '^15 +1111 +1000$'
run "gray --n 64 --from 18446744073709551615 --count 1 --csv" gray --n 64 --from 18446744073709551615 --count 1 --csv
has "n = 64" '^18446744073709551615,1{64},10{63}$'
# Figure 2: Gray -> binary, msb first
run "gray --n 4 --convert gray-to-binary-msb" gray --n 4 --convert gray-to-binary-msb
has "figure 2 step 1" '^step 1 +0 +1 +2 +3 +4 +5 +6 +7 +15 +14 +13 +12 +11 +10 +9 +8$'
has "figure 2 step 3" '^step 3 +0 +1 +3 +2 +6 +7 +5 +4 +12 +13 +15 +14 +10 +11 +9 +8$'

# Theorem 5: one point per processor, n transfers
run "butterfly --n 8 --p 8 --method one-per-proc --json" butterfly --n 8 --p 8 --method one-per-proc --json
has "theorem 5 transfers" '"transfers":[[:space:]]*8,'
has "theorem 5 formula" '"formula":[[:space:]]*8,'
has "theorem 5 gray output" '"final_encoding":[[:space:]]*"gray"'

# Theorem 2 met with equality; Theorem 1 and Table 4 both reported
run "butterfly --n 4 --p 10 --method bisect-interproc --fft --jso" butterfly --n 4 --p 10 --method bisect-interproc --fft --json
has "theorem 2" '"transfers":[[:space:]]*66,'
has "theorem 2 bound" '"formula":[[:space:]]*66,'
has "fft error reported" '"fft_max_error":[[:space:]]*[0-9.]+e-1[5-7]'
run "butterfly --n 4 --p 10 --method bisect-local --json" butterfly --n 4 --p 10 --method bisect-local --json
has "theorem 1 value" '"formula":[[:space:]]*34,'
has "table 4 value" '"table4":[[:space:]]*35,'
has "theorem 1 source" '"formula_source":[[:space:]]*"Theorem 1"'
run "butterfly --n 4 --p 8 --method direct --json" butterfly --n 4 --p 8 --method direct --json
has "no formula for direct" '"formula":[[:space:]]*null'
has "no table 4 for direct" '"table4":[[:space:]]*null'

# every method computes the FFT, text and CSV; the error the command reports
# against FFTW (max |x - X| / max |X|, the last CSV field) is below 1e-13
# (test_butterfly's test_cli_configurations_fftw checks the same 24 runs
# value by value against FFTW through the library)
fft_close() { # fft_close DESCRIPTION: the last CSV run's FFTW error is a number below 1e-13
    if awk -F, 'NR == 2 { ok = ($NF != "" && $NF + 0 < 1e-13) } END { exit !ok }' "$CLI_OUT"; then cli_pass
    else cli_fail "$1: FFTW error '$(awk -F, 'NR == 2 { print $NF }' "$CLI_OUT")' not below 1e-13"; fi
}
for m in direct convert bisect-local bisect-interproc one-per-proc multisect; do
    for e in gray gray-gray binary-gray binary; do
        run "fft $m $e" butterfly --n 3 --p 7 --encoding "$e" --method "$m" --fft --csv
        fft_close "fft $m $e"
    done
done
has "csv header" '^n,p,alloc,encoding,method'
run "butterfly --n 3 --p 7 --alloc consecutive --encoding gray --" butterfly --n 3 --p 7 --alloc consecutive --encoding gray --method bisect-local --output-encoding gray --fft
has "consecutive gray output" 'processor field on completion: gray'
# Table 2's case step by step
run "butterfly --n 3 --p 5 --encoding gray --method bisect-local " butterfly --n 3 --p 5 --encoding gray --method bisect-local --output-encoding binary --trace
has "table 2 initial row" '^  m1 +01111 01110 01100 01101 01000 01001 01011 01010$'
has "table 2 binary output" 'on completion: binary'
# ... and motion by motion in the paper's form: Table 2's blocks (columns here are processors 0..7,
# the paper's are in Gray order 000 001 011 010 110 111 101 100)
run "butterfly --motions (Table 2)" butterfly --n 3 --p 5 --encoding gray --method bisect-local --output-encoding binary --motions
has "paper's form" "^motions in the paper's form"
has "first swap" '^after exchange, dim 2 with address bit 4 '
has "table 2 block 2 row m0" '^  m0 +00000 00001 00011 00010 11111 11110 11100 11101$'
has "table 2 block 3 row m0" '^  m0 +00000 00001 00011 00010 10000 10001 10011 10010$'
has "table 2 block 6 row m3" '^  m3 +00010 00101 01010 01101 10010 10101 11010 11101$'

# --plot: every method over p = n .. P, through the shared plotting path
if command -v gnuplot > /dev/null; then
    run "butterfly --plot" butterfly --n 3 --p 9 --method bisect-local --plot "$CLI_TMP/bf.svg"
    if grep -q '</svg>' "$CLI_TMP/bf.svg" 2> /dev/null; then cli_pass; else cli_fail "plot written"; fi
fi
bad "plot to a bad name" butterfly --n 3 --p 9 --method bisect-local --plot "$CLI_TMP/bf.txt"

# bad input
bad "p below n + 2 for bisect-local" butterfly --n 4 --p 5 --method bisect-local
bad "p below n" butterfly --n 4 --p 3 --method direct
bad "unknown method" butterfly --n 4 --p 6 --method fast
bad "unknown encoding" butterfly --n 4 --p 6 --method direct --encoding grey
bad "r without multisect" butterfly --n 4 --p 8 --method direct --r 2
bad "r too large for p" butterfly --n 4 --p 6 --method multisect --r 3
bad "trace too large" butterfly --n 4 --p 8 --method direct --trace
bad "motions too large" butterfly --n 4 --p 8 --method direct --motions
bad "motions with json" butterfly --n 3 --p 5 --method direct --motions --json
bad "missing method" butterfly --n 4 --p 8
bad "gray table too big" gray --n 20
bad "gray window outside" gray --n 4 --from 16

summary
