#!/usr/bin/env bash
# kcube butterfly and kcube gray (seed 001): the paper's tables and counts,
# FFT results, and one-line errors (exit 2) on bad input.
set -u
K="$1"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # check DESCRIPTION CONDITION-STATUS
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
has() { # has DESCRIPTION REGEX FILE
    grep -Eq "$2" "$3"
    local r=$?
    [ $r -ne 0 ] && cat "$3"
    check "$1" $r
}
bad() { # bad DESCRIPTION ARGS...: exit 2, one line on stderr starting "kcube: ", nothing on stdout
    local what="$1"; shift
    "$K" "$@" >"$tmp/out" 2>"$tmp/err"
    local r=$?
    [ $r -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q '^kcube: ' "$tmp/err"
    local s=$?
    [ $s -ne 0 ] && { echo "exit $r"; cat "$tmp/err"; }
    check "$what" $s
}
run() { # run OUT ARGS...: the command must succeed
    local out="$1"; shift
    "$K" "$@" >"$out" 2>&1
    check "kcube $* exits 0" $?
}

# Figure 1: the 4-bit code
run "$tmp/g4" gray --n 4
has "figure 1 row 10" '^10 +1010 +1111$' "$tmp/g4"
has "figure 1 row 15" '^15 +1111 +1000$' "$tmp/g4"
run "$tmp/g64" gray --n 64 --from 18446744073709551615 --count 1 --csv
has "n = 64" '^18446744073709551615,1{64},10{63}$' "$tmp/g64"
# Figure 2: Gray -> binary, msb first
run "$tmp/f2" gray --n 4 --convert gray-to-binary-msb
has "figure 2 step 1" '^step 1 +0 +1 +2 +3 +4 +5 +6 +7 +15 +14 +13 +12 +11 +10 +9 +8$' "$tmp/f2"
has "figure 2 step 3" '^step 3 +0 +1 +3 +2 +6 +7 +5 +4 +12 +13 +15 +14 +10 +11 +9 +8$' "$tmp/f2"

# Theorem 5: one point per processor, n transfers
run "$tmp/t5" butterfly --n 8 --p 8 --method one-per-proc --json
has "theorem 5 transfers" '"transfers":[[:space:]]*8,' "$tmp/t5"
has "theorem 5 formula" '"formula":[[:space:]]*8,' "$tmp/t5"
has "theorem 5 gray output" '"final_encoding":[[:space:]]*"gray"' "$tmp/t5"

# Theorem 2 met with equality; Theorem 1 and Table 4 both reported
run "$tmp/t2" butterfly --n 4 --p 10 --method bisect-interproc --fft --json
has "theorem 2" '"transfers":[[:space:]]*66,' "$tmp/t2"
has "theorem 2 bound" '"formula":[[:space:]]*66,' "$tmp/t2"
has "fft error reported" '"fft_max_error":[[:space:]]*[0-9.]+e-1[5-7]' "$tmp/t2"
run "$tmp/t1" butterfly --n 4 --p 10 --method bisect-local --json
has "theorem 1 value" '"formula":[[:space:]]*34,' "$tmp/t1"
has "table 4 value" '"table4":[[:space:]]*35,' "$tmp/t1"
has "theorem 1 source" '"formula_source":[[:space:]]*"Theorem 1"' "$tmp/t1"
run "$tmp/d" butterfly --n 4 --p 8 --method direct --json
has "no formula for direct" '"formula":[[:space:]]*null' "$tmp/d"
has "no table 4 for direct" '"table4":[[:space:]]*null' "$tmp/d"

# every method computes the FFT, text and CSV
for m in direct convert bisect-local bisect-interproc one-per-proc multisect; do
    for e in gray gray-gray binary-gray binary; do
        "$K" butterfly --n 3 --p 7 --encoding "$e" --method "$m" --fft --csv >"$tmp/c" 2>&1
        check "fft $m $e" $?
    done
done
has "csv header" '^n,p,alloc,encoding,method' "$tmp/c"
run "$tmp/cons" butterfly --n 3 --p 7 --alloc consecutive --encoding gray --method bisect-local --output-encoding gray --fft
has "consecutive gray output" 'processor field on completion: gray' "$tmp/cons"
# Table 2's case step by step
run "$tmp/tr" butterfly --n 3 --p 5 --encoding gray --method bisect-local --output-encoding binary --trace
has "table 2 initial row" '^  m1 +01111 01110 01100 01101 01000 01001 01011 01010$' "$tmp/tr"
has "table 2 binary output" 'on completion: binary' "$tmp/tr"

# bad input
bad "p below n + 2 for bisect-local" butterfly --n 4 --p 5 --method bisect-local
bad "p below n" butterfly --n 4 --p 3 --method direct
bad "unknown method" butterfly --n 4 --p 6 --method fast
bad "unknown encoding" butterfly --n 4 --p 6 --method direct --encoding grey
bad "r without multisect" butterfly --n 4 --p 8 --method direct --r 2
bad "r too large for p" butterfly --n 4 --p 6 --method multisect --r 3
bad "trace too large" butterfly --n 4 --p 8 --method direct --trace
bad "missing method" butterfly --n 4 --p 8
bad "gray table too big" gray --n 20
bad "gray window outside" gray --n 4 --from 16

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
