#!/usr/bin/env bash
# Chart styling, read from SVG output: every series its own
# colour, identical series keyed "(= EARLIER)", titles that say what is drawn
# with the source in a subtitle, the barrier chart in percent.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

if ! command -v gnuplot > /dev/null; then
    cli_skip "gnuplot not installed"
fi
text() { # text FILE: the SVG's text runs, one a line
    grep -o '>[^<>]*<' "$1" | sed 's/^>//; s/<$//'
}
has_text() { # has_text DESCRIPTION FILE TEXT
    if text "$2" | grep -qF -- "$3"; then cli_pass; else cli_fail "$1: no text '$3' in $2"; fi
}

# butterfly: six methods, six colours; the paper's counts are open markers
# in their method's colour (so a count equal to the measured one circles
# its point), keyed once by what the marker means
B="$CLI_TMP/bfly.svg"
expect_exit 0 "butterfly --plot svg" -- "$K" butterfly --n 4 --p 10 --method bisect-interproc --plot "$B"
ncol=$(grep -o "stroke='rgb([^)]*)'" "$B" | sort -u | wc -l)
if [ "$ncol" -ge 6 ]; then cli_pass; else cli_fail "butterfly chart: $ncol series colours for 6 methods"; fi
has_text "butterfly: the paper's marker keyed" "$B" "paper (theorem, Section 6)"
has_text "butterfly: title says the network" "$B" "on the 4-cube: cyclic allocation"
has_text "butterfly: subtitle names the seed" "$B" "seed 001"

# simulate --compare: M-S and M-G coincide on bit-reverse; the title names
# pattern, network, message length and buffers
S="$CLI_TMP/sim.svg"
expect_exit 0 "simulate --compare --plot svg" -- "$K" simulate --n 4 --pattern bit-reverse --compare \
    --configs ecube,M-S,M-G --sweep 0.1:0.3:0.1 --plot "$S"
has_text "simulate: identical series keyed" "$S" "M-G (= M-S)"
has_text "simulate: title" "$S" "bit-reverse on the hypercube k=2 n=4: 20-flit messages, 1-flit buffers"
has_text "simulate: subtitle" "$S" "Poisson injection, seed 1"

# calmant all-to-all: the barrier share in percent
A="$CLI_TMP/a2a.svg"
P="$CLI_TMP/barrier.svg"
expect_exit 0 "calmant alltoall --plot --plot-barrier svg" -- "$K" calmant alltoall --d 4 --c 2 --block 64 \
    --barrier 100 --plot "$A" --plot-barrier "$P"
has_text "barrier chart in percent" "$P" "barrier time (% of calmant's total time)"
has_text "alltoall: title" "$A" "complete exchange on the 4x4 mesh (d = 4)"
has_text "alltoall: subtitle names the seed" "$A" "seed 003 Figs. 9-10"

summary
