#!/usr/bin/env bash
# kcube simulate and kcube figures: outputs, plots, bad input (one line on
# stderr, exit 2, no partial output files), the deadlock report, options
# that do not apply, and user lists that must never be cut.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
T="$CLI_TMP"
J='[[:space:]]*'
SHORT=(--measure 1000 --warmup 300)

# JSON fields of a single point
expect_exit 0 "json run" -- "$K" simulate --n 6 --pattern transpose --rate 0.05 --measure 2000 --warmup 500 --json
for f in offered throughput latency_avg latency_p99 network_latency_avg sustainable cycles link_traversals wall_seconds; do
    expect_stdout_contains "\"$f\"" "json has $f"
done
# a sweep reports the saturation throughput and stops past saturation
expect_exit 0 "sweep" -- "$K" simulate --n 6 --pattern transpose --sweep 0.05:1:0.05 --measure 2000 --warmup 500 --json
expect_stdout_contains '"saturation_throughput"'
check "sweep stops at saturation" -- test "$(grep -c '"offered"' "$CLI_OUT")" -lt 20
# same seed, same numbers; threads do not matter
U=(simulate --n 6 --uniform --sweep 0.1:0.3:0.1 --measure 1000 --warmup 200 --seed 9 --csv)
expect_exit 0 "csv, 1 thread" -- "$K" "${U[@]}" --threads 1
cut -d, -f1-11 "$CLI_OUT" > "$T/c1"
expect_stdout_matches '^series,offered,generated,throughput' "csv header"
expect_exit 0 "csv, 2 threads" -- "$K" "${U[@]}" --threads 2
cut -d, -f1-11 "$CLI_OUT" > "$T/c2"
check "threads do not change the results" -- cmp -s "$T/c1" "$T/c2"
expect_exit 0 "--pattern uniform is --uniform" -- "$K" simulate --n 6 --pattern uniform --sweep 0.1:0.3:0.1 \
    --measure 1000 --warmup 200 --seed 9 --csv --threads 1
check "same numbers" -- cmp -s "$T/c1" <(cut -d, -f1-11 "$CLI_OUT")

# one-shot, torus with mapping, mesh, channel utilisation
expect_exit 0 "oneshot M-S" -- "$K" simulate --n 8 --pattern transpose --mapping optimal --oneshot
expect_stdout_contains "last tail arrives at cycle 29"
expect_exit 0 "torus Map-G" -- "$K" simulate --k 4 --n 4 --pattern digit-reverse --mapping set:transpose,digit-reverse \
    --rate 0.1 --measure 1000
expect_stdout_contains "channel contention 2"
expect_exit 0 "mesh util" -- "$K" simulate --k 4 --n 2 --topology mesh --uniform --rate 0.1 --measure 1000 --channel-util
expect_stdout_contains "link utilisation"
# a matrix pattern (transpose of the 4-cube as a matrix) agrees with the named one
expect_exit 0 "matrix transpose" -- "$K" simulate --n 4 --matrix '0010;0001;1000;0100' --oneshot --csv
a=$(tail -1 "$CLI_OUT" | cut -d, -f2-11)
expect_exit 0 "named transpose" -- "$K" simulate --n 4 --pattern transpose --oneshot --csv
b=$(tail -1 "$CLI_OUT" | cut -d, -f2-11)
check "matrix vs named transpose: $a / $b" -- test "$a" = "$b"
expect_exit 0 "util json" -- "$K" simulate --n 6 --uniform --rate 0.1 --measure 500 --channel-util --json
expect_stdout_contains '"window_cycles"'
# a pairs file
printf '# src dst\n0 5\n3 1\n' > "$T/pairs"
expect_exit 0 "pairs" -- "$K" simulate --n 3 --pairs "$T/pairs" --oneshot --json
expect_stdout_contains '"completion"'
# compare + plot (svg and png)
expect_exit 0 "compare" -- "$K" simulate --n 6 --pattern bit-reverse --compare --configs ecube,M-S,pcube \
    --set transpose,bit-reverse --sweep 0.05:0.4:0.05 "${SHORT[@]}" --plot "$T/p.svg"
check "svg plot" -- grep -q "<svg" "$T/p.svg"
expect_exit 0 "png" -- "$K" simulate --n 6 --pattern bit-reverse --rate 0.05 --measure 500 --plot "$T/p.png"
check "png plot not empty" -- test -s "$T/p.png"
check "no temporary plot files left" -- sh -c "! ls -A '$T' | grep -q tmp"
expect_exit 0 "compare json" -- "$K" simulate --n 4 --pattern transpose --compare --configs ecube,M-G --rate 0.1 \
    "${SHORT[@]}" --json
expect_stdout_matches "\"label\":${J}\"M-G\""
expect_stdout_matches "\"mapping\":${J}\"M-G order"

# deadlock: a ring without virtual channels
printf '0 2\n1 3\n2 0\n3 1\n' > "$T/ring.pairs"
expect_exit 1 "deadlock exit status" -- "$K" simulate --k 4 --n 1 --vc-rule none --vcs 1 \
    --pairs "$T/ring.pairs" --oneshot --watchdog 50
expect_stderr_contains "blocked cycle: 1>d0+ vc0 -> 2>d0+ vc0 -> 3>d0+ vc0"

# bad input: one line, exit 2, nothing on stdout
bad() { expect_bad "simulate $*" -- "$K" simulate "$@"; }
bad --n 8 --pattern transpose
bad --n 8 --rate 0.1
bad --pattern transpose --rate 0.1
bad --n 8 --pattern nosuch --rate 0.1
bad --n 8 --pattern transpose --sweep 0.5:0.1:0.1
bad --n 8 --pattern transpose --sweep abc
bad --n 8 --pattern transpose --rate -1
bad --n 8 --pattern transpose --rate 0.1 --routing mixab3
expect_stderr_contains "not implemented"
bad --n 8 --pattern transpose --rate 0.1 --topology hypercube --k 4
bad --k 4 --n 2 --pattern transpose --rate 0.1 --routing ecube
bad --k 4 --n 2 --pattern transpose --rate 0.1 --vcs 1
bad --n 8 --uniform --rate 0.1 --mapping optimal
bad --n 8 --pattern transpose --rate 0.1 --mapping /nonexistent/map
bad --n 8 --pattern transpose --rate 0.1 --plot "$T/x.gif"
check "no plot file written on error" -- test ! -e "$T/x.gif"
bad --n 8 --pairs /nonexistent --oneshot
bad --n 8 --pattern transpose --rate 0.1 --bogus
bad --n 8 --pattern transpose --oneshot --rate 0.1
printf '0 9\n' > "$T/far.pairs"
bad --n 3 --pairs "$T/far.pairs" --oneshot
expect_stderr_contains "'9' is not a node"
bad --n 8 --uniform --pattern transpose --rate 0.1
bad --n 8 --pattern transpose --scatter --rate 0.1
bad --n 8 --pattern transpose --rate 0.1 --shape 4x4

# options that do not apply are refused with the reason
bad --n 4 --pattern transpose --rate 0.1 --vc-rule dateline
expect_stderr_contains "--vc-rule does not apply off tori"
bad --k 4 --n 2 --topology mesh --uniform --rate 0.1 --vc-rule highlow
expect_stderr_contains "--vc-rule does not apply"
bad --n 4 --pattern transpose --rate 0.1 --tie minus
expect_stderr_contains "--tie does not apply"
bad --n 4 --pattern transpose --rate 0.1 --configs ecube,M-S
expect_stderr_contains "--configs does not apply without --compare"
bad --n 4 --pattern transpose --rate 0.1 --set transpose
expect_stderr_contains "--set does not apply without --compare"
bad --n 4 --pattern transpose --rate 0.1 --no-stop
expect_stderr_contains "--no-stop does not apply without --sweep"
check "--vc-rule on a torus is fine" -- "$K" simulate --k 4 --n 2 --uniform --rate 0.1 --vc-rule dateline "${SHORT[@]}"
check "--tie on a torus is fine" -- "$K" simulate --k 4 --n 2 --uniform --rate 0.1 --tie split "${SHORT[@]}"

# user lists are never cut, however long a path
long="$T/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})/$(printf 'f%.0s' {1..200})"
mkdir -p "$long"
seq 0 15 > "$long/map.txt"
cfg="ecube@$long/map.txt"
check "the path is longer than 600 characters" -- test "${#cfg}" -gt 600
expect_exit 0 "--configs ecube@LONG_PATH is used as given" -- "$K" simulate --n 4 --pattern transpose --compare \
    --configs "$cfg,M-S" --rate 0.1 "${SHORT[@]}" --json
expect_stdout_contains "\"$cfg\"" "the label is the whole token"
expect_stdout_matches '"mapping":[[:space:]]*"file .*\.\.\."'
expect_bad "--configs ecube@LONG_PATH that does not exist is reported" -- "$K" simulate --n 4 --pattern transpose \
    --compare --configs "$cfg.nope,M-S" --rate 0.1 "${SHORT[@]}"
expect_stderr_contains "No such file"
commas=$(printf ',%.0s' {1..600})
expect_bad "a 600-character --configs list is read to its end" -- "$K" simulate --n 4 --pattern transpose --compare \
    --configs "${commas}ecube,nosuch" --rate 0.1 "${SHORT[@]}"
expect_stderr_contains "unknown routing 'nosuch'"
expect_bad "a 600-character --set list is read to its end" -- "$K" simulate --n 4 --pattern transpose --compare \
    --configs M-G --set "${commas}transpose,nosuch" --rate 0.1 "${SHORT[@]}"
expect_stderr_contains "nosuch"
expect_bad "a 600-character set: mapping is read to its end" -- "$K" simulate --n 4 --pattern transpose \
    --mapping "set:${commas}transpose,nosuch" --rate 0.1 "${SHORT[@]}"
expect_stderr_contains "nosuch"
check "the same set without the bad entry works" -- "$K" simulate --n 4 --pattern transpose \
    --mapping "set:${commas}transpose,bit-reverse" --rate 0.1 "${SHORT[@]}"
many=$(printf 'transpose,%.0s' {1..17})
expect_bad "more than 16 patterns in a set" -- "$K" simulate --n 4 --pattern transpose --mapping "set:$many" --rate 0.1
expect_stderr_contains "at most 16 patterns"

# --plot into a place that cannot be written: fails before simulating, leaves nothing
slow=(simulate --n 10 --pattern transpose --sweep 0.05:0.5:0.05 --measure 200000)
expect_exit 1 "plot into an unwritable directory" -- timeout 10 "$K" "${slow[@]}" --plot "$T/none/x.png"
expect_one_stderr_line
check "nothing simulated" -- test ! -s "$CLI_OUT"
check "nothing left behind" -- test ! -e "$T/none"
expect_exit 1 "plot below a regular file" -- timeout 10 "$K" "${slow[@]}" --plot "$T/pairs/x.svg"
expect_one_stderr_line
check "nothing simulated before the failure" -- test ! -s "$CLI_OUT"
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$T/ro" && chmod 555 "$T/ro"
    expect_exit 1 "plot into a read-only directory" -- timeout 10 "$K" "${slow[@]}" --plot "$T/ro/x.png"
    check "read-only directory left empty" -- test -z "$(ls -A "$T/ro")"
fi

# kcube figures: bad input, help, an output that is a file
expect_bad "figures bad arg" -- "$K" figures --bogus
touch "$T/file"
expect_exit 1 "figures out is a file (cannot be written: exit 1)" -- "$K" figures --out "$T/file"
expect_one_stderr_line
expect_exit 0 "figures help" -- "$K" figures --help
expect_stdout_contains "Figures 5, 6 and 7"
expect_bad "figures --pattern does not apply" -- "$K" figures --pattern transpose
expect_stderr_contains "does not apply to figures"

# kcube figures --quick --torus (a few seconds): every chart, the new series, and the
# contention values of seed 002 Figs 4 and 5 (checked here against kcube map and simulate)
F="$T/figs"
expect_exit 0 "figures --quick --torus" -- "$K" figures --quick --torus --out "$F"
for f in fig5_transpose fig6_bit-reverse fig7_reverse-flip seed002_fig2_transpose seed002_fig3_digit-reverse \
    seed002_fig4_transpose seed002_fig5_digit-reverse seed002_fig6_uniform; do
    check "$f.png written" -- test -s "$F/$f.png"
done
series() { check "figures.csv has $1" -- grep -qF "$1," "$F/figures.csv"; }
row() { check "summary.txt: $1 / $2 has contention $3" -- grep -Eq "^$1 +$2 +$3 " "$F/summary.txt"; }
for f in fig5_transpose fig6_bit-reverse fig7_reverse-flip; do
    series "$f,li-min,li-min,none"
    series "$f,e-cube,ecube,none"
done
# every curve runs what its label says (the one configuration table)
for f in fig5_transpose fig6_bit-reverse fig7_reverse-flip; do
    series "$f,M-S,ecube,optimal"
    series "$f,M-G,ecube,set:transpose,bit-reverse,reverse-flip"
    series "$f,P-cube,pcube,none"
    series "$f,Duato (2 VCs),duato,none"
done
for f in seed002_fig2_transpose seed002_fig3_digit-reverse; do
    series "$f,DOR,dor,none"
    series "$f,Map-S,dor,optimal"
    series "$f,Map-G,dor,set:transpose,digit-reverse"
done
series "seed002_fig6_uniform,Map-G,dor,set:transpose,digit-reverse"
row fig5_transpose M-S 1
row fig5_transpose M-G 2
row fig6_bit-reverse M-S 1
row fig6_bit-reverse M-G 1
row seed002_fig2_transpose Map-S 2
row seed002_fig2_transpose Map-G 2
for f in seed002_fig4_transpose seed002_fig5_digit-reverse; do
    series "$f,DOR,dor,none"
    series "$f,Map-S = Map-G,dor,optimal"
    series "$f,kcube map,dor,${f}_kcube-map.txt"
done
row seed002_fig4_transpose DOR 8
row seed002_fig4_transpose "Map-S = Map-G" 8
row seed002_fig4_transpose "kcube map" 4
row seed002_fig5_digit-reverse DOR 4
row seed002_fig5_digit-reverse "Map-S = Map-G" 4
row seed002_fig5_digit-reverse "kcube map" 2
check "summary.txt: Fig. 4 kcube map 8 -> 4" -- grep -q "Q = 1,2;0,1, contention 8 -> 4" "$F/summary.txt"
check "summary.txt: Fig. 5 kcube map 4 -> 2" -- grep -q "Q = 1,0,2;0,0,1;0,1,0, contention 4 -> 2" "$F/summary.txt"
check "summary.txt: why Fig. 5 has no separate Map-G" -- grep -q "undefined for n = 3" "$F/summary.txt"
sat() { awk -v f="$1" -v c="$2" 'index($0, f " ") == 1 && index($0, " " c " ") { print $(NF - 1) }' "$F/summary.txt"; }
for f in seed002_fig4_transpose seed002_fig5_digit-reverse; do
    check "$f: kcube map saturates above DOR" -- awk -v a="$(sat $f 'kcube map')" -v b="$(sat $f DOR)" \
        'BEGIN { exit !(a + 0 > b + 0 && b + 0 > 0) }'
done
# the mapping files are what --mapping FILE reads, and kcube map finds the same Q
expect_exit 0 "Fig. 4 mapping file" -- "$K" simulate --k 16 --n 2 --pattern transpose --oneshot \
    --mapping "$F/seed002_fig4_transpose_kcube-map.txt"
expect_stdout_contains "channel contention 4"
expect_exit 0 "Fig. 5 mapping file" -- "$K" simulate --k 8 --n 3 --pattern digit-reverse --oneshot \
    --mapping "$F/seed002_fig5_digit-reverse_kcube-map.txt"
expect_stdout_contains "channel contention 2"
expect_exit 0 "kcube map, 16-ary 2-cube transpose" -- "$K" map --k 16 --n 2 --pattern transpose --kind linear --search
expect_stdout_matches "^transpose +permutation +8 +4 "
expect_stdout_contains "Q    = 1,2;0,1"
expect_exit 0 "kcube map, 8-ary 3-cube digit-reverse" -- "$K" map --k 8 --n 3 --pattern digit-reverse --kind linear --search
expect_stdout_matches "^digit-reverse +permutation +4 +2 "
expect_stdout_contains "Q    = 1,0,2;0,0,1;0,1,0"
# Map-G is Map-S on both networks: the same Q on the 16-ary 2-cube; no transpose for n = 3
for m in optimal set:transpose,digit-reverse; do
    expect_exit 0 "16-ary 2-cube $m" -- "$K" simulate --k 16 --n 2 --pattern transpose --mapping "$m" --oneshot
    expect_stdout_contains "Q = 1,1;0,1, channel contention 8"
done
expect_bad "8-ary 3-cube has no transpose" -- "$K" simulate --k 8 --n 3 --pattern digit-reverse --oneshot \
    --mapping set:transpose,digit-reverse
expect_stderr_contains "needs an even n"

summary
