#!/usr/bin/env bash
# Charts and their files: a watchdog on gnuplot (a fake gnuplot first on
# PATH that never reads, never exits or writes without end is stopped, one
# line, exit 1, no file, nothing of it left running); the format of every
# chart and timeline from its extension (PNG, SVG, PDF, EPS through gnuplot,
# JSON for timelines; other names refused with one line); --size WxH; the
# charts' legibility read from the gnuplot script kcube writes (captured by
# a gnuplot that copies its input); and a key to the seed papers wherever
# help, the man page or a chart cites one by number.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

GNUPLOT=$(command -v gnuplot) || cli_skip "gnuplot not installed"
command -v timeout > /dev/null || cli_skip "timeout (coreutils) not installed"
command -v python3 > /dev/null || cli_skip "python3 not installed"
K=$(cd "$(dirname "$K")" && pwd)/$(basename "$K")
FAKE="$CLI_TMP/fake"
mkdir -p "$FAKE"
fake() { # fake SCRIPT-BODY: gnuplot, as kcube finds it on PATH, does this
    printf '#!/bin/sh\n%s\n' "$1" > "$FAKE/gnuplot"
    chmod +x "$FAKE/gnuplot"
}
no_file() { # no_file DESCRIPTION FILE
    if [ -e "$2" ]; then cli_fail "$1: $2 was written"; else cli_pass; fi
}
starts() { # starts DESCRIPTION FILE BYTES: the file begins with BYTES
    if [ -f "$2" ] && [ "$(head -c ${#3} "$2")" = "$3" ]; then cli_pass; else cli_fail "$1: $2 does not begin with $3"; fi
}
FFT=(fft-study --n 4 --points 1024,4096 --configs ecube,M-S)
FFT4=(fft-study --n 4 --points 1024,4096 --configs ecube,M-S,pcube,li-min)

# ---- the watchdog ---------------------------------------------------------------
# Each run is bounded by timeout(1): a kcube without a watchdog would hang.
watched() { # watched DESCRIPTION FAKE-BODY
    fake "$2"
    local out="$CLI_TMP/w.png" t0 t1
    t0=$(date +%s)
    expect_exit 1 "$1" -- env PATH="$FAKE:$PATH" KCUBE_GNUPLOT_TIMEOUT=1 FAKE_PID="$CLI_TMP/pid" \
        timeout -k 5 30 "$K" "${FFT[@]}" --plot "$out"
    t1=$(date +%s)
    expect_one_stderr_line "$1"
    expect_stderr_contains "kcube: gnuplot did not finish" "$1"
    no_file "$1" "$out"
    if [ $((t1 - t0)) -le 15 ]; then cli_pass; else cli_fail "$1: took $((t1 - t0)) s with a 1 s limit"; fi
    if ls -a "$CLI_TMP" | grep -q '^\.kc'; then cli_fail "$1: a temporary file was left"; else cli_pass; fi
}
watched "gnuplot that never reads" 'exec sleep 1000'
watched "gnuplot that reads, closes its output and never exits" 'cat > /dev/null; exec 1>&-; exec sleep 1000'
# A gnuplot whose child holds the pipe: the whole process group goes.
watched "gnuplot whose child never exits" 'sleep 1000 & echo $! > "$FAKE_PID"; wait'
running() { # running PID: alive and not a zombie (an orphan waits for its reaper)
    [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" | grep -q '^Z'
}
if [ -s "$CLI_TMP/pid" ] && ! running "$(cat "$CLI_TMP/pid")"; then cli_pass
else cli_fail "the fake gnuplot's child still runs"; kill "$(cat "$CLI_TMP/pid")" 2> /dev/null; fi
# Output without end: stopped at 256 MiB, whatever the time limit.
fake 'exec yes kcube'
expect_exit 1 "gnuplot that writes without end" -- env PATH="$FAKE:$PATH" timeout -k 5 60 "$K" "${FFT[@]}" \
    --plot "$CLI_TMP/y.png"
expect_one_stderr_line
expect_stderr_contains "gnuplot did not finish"
no_file "endless output" "$CLI_TMP/y.png"
# The limit's setting is checked before any work.
fake 'exec sleep 1000'
expect_bad "KCUBE_GNUPLOT_TIMEOUT not a number" -- env KCUBE_GNUPLOT_TIMEOUT=soon timeout 30 "$K" "${FFT[@]}" \
    --plot "$CLI_TMP/t.png"
expect_bad "KCUBE_GNUPLOT_TIMEOUT zero" -- env KCUBE_GNUPLOT_TIMEOUT=0 timeout 30 "$K" "${FFT[@]}" \
    --plot "$CLI_TMP/t.png"
expect_bad "KCUBE_GNUPLOT_TIMEOUT in hex" -- env KCUBE_GNUPLOT_TIMEOUT=0x10 timeout 30 "$K" "${FFT[@]}" \
    --plot "$CLI_TMP/t.png"
expect_exit 0 "KCUBE_GNUPLOT_TIMEOUT=2.5 with a real gnuplot" -- env KCUBE_GNUPLOT_TIMEOUT=2.5 "$K" "${FFT[@]}" \
    --plot "$CLI_TMP/t25.png"
expect_exit 0 "a real gnuplot within the default limit" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/real.png"

# ---- formats from the extension ------------------------------------------------------
expect_exit 0 "--plot x.pdf" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/x.pdf"
starts "--plot x.pdf is a PDF" "$CLI_TMP/x.pdf" "%PDF-"
expect_exit 0 "--plot x.eps" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/x.eps"
starts "--plot x.eps is EPS" "$CLI_TMP/x.eps" "%!PS-Adobe"
expect_exit 0 "--plot x.svg" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/x.svg"
if grep -q '</svg>' "$CLI_TMP/x.svg"; then cli_pass; else cli_fail "--plot x.svg is no SVG"; fi
expect_exit 0 "--plot x.png" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/x.png"
starts "--plot x.png is a PNG" "$CLI_TMP/x.png" $'\x89PNG'
expect_exit 0 "--plot - is PNG" -- "$K" "${FFT[@]}" --plot -
starts "--plot - is a PNG" "$CLI_OUT" $'\x89PNG'
for bad in x.jpg x.PDF x x.png.txt; do
    expect_bad "--plot $bad refused" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/$bad"
    expect_stderr_contains ".png, .svg, .pdf or .eps"
    no_file "--plot $bad" "$CLI_TMP/$bad"
done
expect_exit 0 "calmant --plot-barrier x.pdf" -- "$K" calmant alltoall --d 4 --c 2 --block 64 --barrier 100 \
    --plot-barrier "$CLI_TMP/b.pdf"
starts "--plot-barrier x.pdf is a PDF" "$CLI_TMP/b.pdf" "%PDF-"

# Timelines: .json is the trace, a chart's extension a chart, anything else refused.
G="$(dirname "$0")/goal/bcast_tree8.goal"
expect_exit 0 "--timeline t.pdf" -- "$K" replay "$G" --n 3 --timeline "$CLI_TMP/t.pdf"
starts "--timeline t.pdf is a PDF, not JSON" "$CLI_TMP/t.pdf" "%PDF-"
expect_exit 0 "--timeline t.eps" -- "$K" replay "$G" --n 3 --model loggops --timeline "$CLI_TMP/t.eps"
starts "--timeline t.eps is EPS" "$CLI_TMP/t.eps" "%!PS-Adobe"
expect_exit 0 "--timeline t.json" -- "$K" replay "$G" --n 3 --timeline "$CLI_TMP/t.json"
check "--timeline t.json is JSON" -- python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$CLI_TMP/t.json"
expect_exit 0 "--timeline - is JSON" -- "$K" replay "$G" --n 3 --timeline -
check "--timeline - is JSON" -- python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$CLI_OUT"
for bad in t.txt t.trace t; do
    expect_bad "--timeline $bad refused" -- "$K" replay "$G" --n 3 --timeline "$CLI_TMP/$bad"
    expect_stderr_contains ".json"
    no_file "--timeline $bad" "$CLI_TMP/$bad"
    expect_bad "--timeline $bad refused (loggops)" -- "$K" replay "$G" --model loggops --timeline "$CLI_TMP/$bad"
done

# ---- --size ------------------------------------------------------------------------------
png_size() { python3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(24); print("%dx%d" % struct.unpack(">II", d[16:24]))' "$1"; }
pdf_box() { grep -ao 'MediaBox *\[ *0 0 [0-9.]* [0-9.]*' "$1" | head -1 | awk '{printf "%.0fx%.0f\n", $(NF-1), $NF}'; }
expect_exit 0 "--size 1200x700 (png)" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/s.png" --size 1200x700
if [ "$(png_size "$CLI_TMP/s.png")" = 1200x700 ]; then cli_pass; else cli_fail "--size 1200x700: PNG is $(png_size "$CLI_TMP/s.png")"; fi
expect_exit 0 "--size 6x4 (pdf, inches)" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/s.pdf" --size 6x4
if [ "$(pdf_box "$CLI_TMP/s.pdf")" = 432x288 ]; then cli_pass; else cli_fail "--size 6x4: PDF box $(pdf_box "$CLI_TMP/s.pdf")"; fi
expect_exit 0 "--size 15cmx10cm (eps)" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/s.eps" --size 15cmx10cm
if grep -aq '^%%BoundingBox: 0 0 42[45] 28[34]' "$CLI_TMP/s.eps"; then cli_pass; else cli_fail "--size 15cmx10cm: $(grep -a BoundingBox "$CLI_TMP/s.eps" | head -1)"; fi
expect_exit 0 "--size of a drawn timeline" -- "$K" replay "$G" --n 3 --timeline "$CLI_TMP/t.png" --size 800x300
if [ "$(png_size "$CLI_TMP/t.png")" = 800x300 ]; then cli_pass; else cli_fail "timeline --size: $(png_size "$CLI_TMP/t.png")"; fi
expect_bad "--size in inches for a PNG" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/b.png" --size 6x4
expect_bad "--size in pixels for a PDF" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/b.pdf" --size 1200x700
expect_bad "--size malformed" -- "$K" "${FFT[@]}" --plot "$CLI_TMP/b.png" --size 1200
expect_bad "--size without a chart" -- "$K" "${FFT[@]}" --size 1200x700
expect_bad "--size of a JSON timeline" -- "$K" replay "$G" --n 3 --timeline "$CLI_TMP/b.json" --size 800x300
no_file "bad --size" "$CLI_TMP/b.png"
for cmd in butterfly fft-study simulate figures replay "calmant alltoall"; do
    # shellcheck disable=SC2086
    if "$K" $cmd --help | grep -q -- '--size WxH'; then cli_pass; else cli_fail "$cmd has no --size"; fi
done

# ---- legibility, read from the script kcube gives gnuplot ---------------------------
fake "tee \"\$CAPTURE\" | exec '$GNUPLOT'"
captured() { # captured NAME -- kcube args: the script in $CLI_TMP/NAME.gp
    local name=$1
    shift 2
    expect_exit 0 "$name chart" -- env PATH="$FAKE:$PATH" CAPTURE="$CLI_TMP/$name.gp" "$K" "$@"
}
range_hi() { sed -n "s/^set $2range \[[^:]*:\([^]]*\)\]/\1/p" "$CLI_TMP/$1.gp" | tail -1; }
at_most() { # at_most DESCRIPTION VALUE LIMIT
    if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$2" "$3" 2> /dev/null
    then cli_pass; else cli_fail "$1: $2 > $3"; fi
}
in_script() { # in_script DESCRIPTION NAME ERE
    if grep -Eq -- "$3" "$CLI_TMP/$2.gp"; then cli_pass; else cli_fail "$1: no /$3/ in the $2 script"; fi
}
captured bfly -- butterfly --n 4 --p 14 --method bisect-interproc --plot "$CLI_TMP/bfly.png"
keys=$(grep '^plot ' "$CLI_TMP/bfly.gp" | grep -o " title '" | wc -l)
if [ "$keys" -le 8 ]; then cli_pass; else cli_fail "butterfly: $keys key entries"; fi
at_most "butterfly: x range fitted to P/N <= 1024" "$(range_hi bfly x)" 1400
in_script "butterfly: the paper's counts as open markers without a line" bfly "with points lc rgb '[^']*' lw [0-9.]+ pt (6|4) "
in_script "butterfly: the subtitle names the paper" bfly "Johnsson and Ho"
in_script "butterfly: the key below, spaced" bfly "^set key below.* width [1-9]"
captured fft -- "${FFT4[@]}" --plot "$CLI_TMP/fft.png"
at_most "fft-study: x range fitted to m <= 4096" "$(range_hi fft x)" 6000
in_script "fft-study: log time axis" fft "^set logscale y"
in_script "fft-study: time in µs" fft "set ylabel 'total time \(µs\)'"
in_script "fft-study: tics at the sizes" fft "^set xtics 1024, 2"
in_script "fft-study: the subtitle names the paper" fft "processor reordering"
"$K" fft-study --n 6 --points 256 --configs ecube --emit-goal "$CLI_TMP/fft64.goal" > /dev/null
captured tl64 -- replay "$CLI_TMP/fft64.goal" --n 6 --timeline "$CLI_TMP/tl64.png"
arrows=$(sed -n '/^\$msg << EOD/,/^EOD/p' "$CLI_TMP/tl64.gp" | grep -vc 'EOD\|NaN')
if [ "$arrows" -eq 0 ]; then cli_pass; else cli_fail "timeline of 64 ranks: $arrows message arrows"; fi
in_script "timeline: time in µs" tl64 "set xlabel 'time \(µs\)'"
in_script "timeline: says the messages are not drawn" tl64 "messages, not drawn above"
captured tl8 -- replay "$G" --n 3 --timeline "$CLI_TMP/tl8.png"
arrows=$(sed -n '/^\$msg << EOD/,/^EOD/p' "$CLI_TMP/tl8.gp" | grep -vc 'EOD\|NaN')
if [ "$arrows" -gt 0 ]; then cli_pass; else cli_fail "timeline of 8 ranks: no message arrows"; fi

# ---- seed numbers come with their paper ---------------------------------------------
expect_exit 0 "man page" -- "$K" help --man
for s in 0 1 2 3 4; do expect_stdout_contains "seed 00$s"; done
expect_stdout_contains 'SEED PAPERS'
expect_stdout_contains 'Johnsson and Ho'
expect_stdout_contains 'Wang, Hou and Ku'
expect_exit 0 "kcube --help" -- "$K" --help
expect_stdout_contains 'Boppana and Raghavendra'
# Every help text that cites a seed number names its paper.
cmds=$("$K" --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
missing=""
for c in $cmds; do
    text=$("$K" "$c" --help 2>&1)
    for s in $(printf '%s\n' "$text" | grep -o 'seed 00[0-4]' | sed 's/seed //' | sort -u); do
        printf '%s\n' "$text" | grep -q "^  seed $s  [A-Za-z]" || missing="$missing $c:$s"
    done
done
if [ -z "$missing" ]; then cli_pass; else cli_fail "help without the paper of:$missing"; fi
# Reports too: the demo ends with a key to the papers it cites, and
# fft-study's first line names its paper.
expect_exit 0 "demo" -- "$K" demo
expect_stdout_contains 'seed 000  processor reordering'
expect_stdout_contains 'seed 002  Wang, Hou and Ku'
expect_exit 0 "fft-study report" -- "$K" fft-study --n 4 --points 2^10
expect_stdout_contains 'seed 000 Section 6.2 (processor reordering'

summary
