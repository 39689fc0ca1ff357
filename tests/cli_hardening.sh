#!/bin/bash
# Hardening regressions on the command line: no shell from file names, every
# write error reported (one line, exit 1), nothing partial left behind, strict
# and bounded data files, escaped echoes, valid UTF-8 JSON.
KC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/support/cli_lib.sh"
cd "$CLI_TMP" || exit 1
SIM=(simulate --n 4 --pattern transpose --measure 1000 --warmup 300)

# 1. Backquotes in a plot name or a series label are never run.
expect_exit 0 "plot name with backquotes" -- "$KC" "${SIM[@]}" --sweep 0.1:0.3:0.1 --plot 'x`touch PWNED`.png'
check "no PWNED from the plot name" -- test ! -e PWNED
check "the plot exists under its literal name" -- test -s 'x`touch PWNED`.png'
seq 0 15 > 'm`touch PWNED3`_x.txt'
cp 'm`touch PWNED3`_x.txt' my_map_x.txt
expect_exit 0 "mapping file with backquotes as a series label" -- "$KC" "${SIM[@]}" --sweep 0.1:0.2:0.1 \
    --compare --configs 'ecube@m`touch PWNED3`_x.txt,ecube@my_map_x.txt' --plot labels.svg
check "no PWNED3 from the series label" -- test ! -e PWNED3
check "label drawn literally (no enhanced text)" -- grep -qF 'ecube@my_map_x.txt' labels.svg
check "backquote label drawn literally" -- grep -qF 'ecube@m`touch PWNED3`_x.txt' labels.svg
check "no temporary files left" -- sh -c '! ls -A | grep -v "^\.std" | grep -q "^\."'

# 2. Write errors: > /dev/full and a closed stdout exit 1 with one line.
full() {
    local desc=$1
    shift
    CLI_STDOUT=/dev/full expect_exit 1 "$desc > /dev/full" -- "$KC" "$@"
    expect_stderr_contains "cannot write standard output"
    expect_one_stderr_line
}
full "analyze text" analyze --n 8 --pattern transpose
full "analyze json" analyze --n 8 --pattern transpose --json
full "analyze csv" analyze --n 8 --pattern transpose --csv
full "analyze help" analyze --help
full "map text" map --n 8 --pattern transpose
full "map json" map --n 8 --pattern transpose --json
full "map csv" map --n 8 --pattern transpose --csv
full "map emit-c" map --n 8 --pattern transpose --emit-c
full "hl text" hl --n 4 --pattern transpose
full "hl json" hl --n 4 --pattern transpose --json
full "hl census csv" hl --census 2 --csv
full "simulate text" "${SIM[@]}" --rate 0.1
full "simulate json" "${SIM[@]}" --rate 0.1 --json
full "simulate csv" "${SIM[@]}" --rate 0.1 --csv
full "simulate help" simulate --help
full "kcube help" --help
CLI_STDOUT=closed expect_exit 1 "analyze >&-" -- "$KC" analyze --n 8 --pattern transpose
expect_stderr_contains "cannot write standard output: Bad file descriptor"
expect_one_stderr_line
CLI_STDOUT=closed expect_exit 1 "simulate --json >&-" -- "$KC" "${SIM[@]}" --rate 0.1 --json
expect_one_stderr_line
# a closed stdout is not reused by the plot's files: the chart stays whole
CLI_STDOUT=closed expect_exit 1 "simulate --plot >&-" -- "$KC" "${SIM[@]}" --rate 0.1 --plot closed.svg
expect_one_stderr_line
check "chart intact with stdout closed" -- sh -c 'head -c 200 closed.svg | grep -q "<?xml\|<svg" && ! grep -q "network   hypercube" closed.svg'
expect_exit 0 "closed stdin is harmless" -- sh -c '"$0" analyze --n 4 --pattern transpose <&-' "$KC"

# 3. Plots: an unwritable place fails before the simulation, leaves nothing.
touch afile
slow=(simulate --n 10 --pattern transpose --sweep 0.05:0.5:0.05 --measure 200000)
expect_exit 1 "plot into a missing directory" -- timeout 10 "$KC" "${slow[@]}" --plot missing/x.png
expect_stderr_contains "cannot write missing/x.png: No such file or directory"
expect_one_stderr_line
check "nothing simulated before the plot check" -- test ! -s "$CLI_OUT"
expect_exit 1 "plot below a regular file" -- timeout 10 "$KC" "${slow[@]}" --plot afile/x.svg
expect_one_stderr_line
expect_exit 2 "plot name with a newline" -- "$KC" "${SIM[@]}" --rate 0.1 --plot $'a\nb.png'
expect_one_stderr_line
check "no file from the bad name" -- test ! -e $'a\nb.png'
# gnuplot killed by the file size limit (as on a full disk): no partial image
expect_exit 1 "plot cut short" -- bash -c "ulimit -f 1; exec \"\$0\" \"\$@\"" "$KC" "${SIM[@]}" --sweep 0.1:0.3:0.1 --plot cut.png
expect_stderr_contains "cut.png"
check "no partial plot" -- test ! -e cut.png
expect_exit 1 "figures cut short" -- bash -c "ulimit -f 1; exec \"\$0\" \"\$@\"" "$KC" figures --quick --out figs
expect_stderr_contains "figs/fig5_transpose.png"
expect_one_stderr_line
check "figures left no image" -- sh -c '! ls -A figs | grep -q .'

# 4./7. Strict, bounded mapping and pairs files.
mapping() {
    local desc=$1 text=$2 want=$3
    printf '%b' "$text" > map.txt
    expect_exit 2 "mapping file: $desc" -- timeout 10 "$KC" "${SIM[@]}" --rate 0.1 --mapping map.txt
    expect_stderr_contains "$want"
    expect_one_stderr_line
}
head16='0 1 2 3 4 5 6 7 8 9 10 11 12 13'
mapping "14.15" "$head16 14.15\n" "line 1, column 33: '14.15' is not a whole number"
mapping "14x15" "$head16 14x15\n" "'14x15' is not a whole number"
mapping "14;15" "$head16 14;15\n" "'14;15' is not a whole number"
mapping "0-1" "0-1 2 3\n" "line 1, column 1: '0-1' is not a whole number"
mapping "15a" "# comment\n$head16 14 15a\n" "line 2, column 36: '15a' is not a whole number"
mapping "overflow" "$head16 14 99999999999999999999999\n" "'99999999999999999999999' is too large"
mapping "negative" "$head16 14 -7\n" "'-7' is not a node (0..15)"
mapping "non-ASCII" "$head16 14 1\xc3\xa9\n" "column 37: byte '\\xc3' is not printable ASCII"
mapping "too many" "$head16 14 15 0\n" "'0' is one entry too many"
mapping "too few" "0 1 2\n" "has 3 entries, expected 16"
expect_exit 2 "mapping file is a directory" -- "$KC" "${SIM[@]}" --rate 0.1 --mapping .
expect_stderr_contains "is a directory"
expect_one_stderr_line
expect_exit 2 "mapping file /dev/zero" -- timeout 10 "$KC" "${SIM[@]}" --rate 0.1 --mapping /dev/zero
expect_stderr_contains "line 1 longer than"
expect_one_stderr_line
expect_exit 2 "pairs /dev/zero fails fast" -- timeout 10 "$KC" simulate --n 4 --rate 0.1 --pairs /dev/zero
expect_stderr_contains "line 1 longer than"
expect_one_stderr_line
{ printf '#%510s 1 2\n' '' | tr ' ' c; printf '0 99\n'; } > pairs.txt
expect_exit 2 "pairs after a 511-character comment" -- "$KC" simulate --n 3 --pairs pairs.txt --oneshot
expect_stderr_contains "line 2, column 3: '99' is not a node (0..7)"
expect_one_stderr_line
# an empty chart (no sustainable point) is still drawn
expect_exit 0 "empty chart" -- "$KC" simulate --n 4 --pattern transpose --measure 100 --warmup 10 --rate 0.3 --plot empty.svg
check "empty chart written" -- grep -q '</svg>' empty.svg

# 8. Echoed text: one line, negative numbers as given, valid UTF-8 JSON.
expect_exit 2 "--mesh with a newline (hl)" -- "$KC" hl --n 4 --pattern transpose --mode simd --mesh $'4\nx4'
expect_one_stderr_line
expect_stderr_contains '4\nx4'
expect_exit 2 "--mesh with a newline (analyze)" -- "$KC" analyze --n 4 --pattern transpose --mesh $'4\nx4'
expect_one_stderr_line
expect_exit 2 "--n with a newline" -- "$KC" analyze --n $'4\nx' --pattern transpose
expect_one_stderr_line
expect_exit 2 "--perm with -7" -- "$KC" hl --n 3 --perm 0,1,2,3,4,5,6,-7
expect_stderr_contains "'-7' is not a node"
expect_one_stderr_line
expect_exit 2 "overflowing --n" -- "$KC" analyze --n 99999999999999999999999 --pattern transpose
expect_stderr_contains "99999999999999999999999"
expect_one_stderr_line
printf '0 5\n3 1\n' > $'p\xff.txt'
expect_exit 0 "pairs file with a non-UTF-8 name" -- "$KC" simulate --n 3 --pairs $'p\xff.txt' --oneshot --json
check "its JSON is valid UTF-8" -- python3 -m json.tool "$CLI_OUT" /dev/null
expect_exit 2 "unknown command with escapes" -- "$KC" $'no\x1bsuch'
expect_stderr_contains 'no\x1bsuch'
expect_one_stderr_line

summary
