#!/bin/bash
# kcube simulate: outputs, plots, bad input (one line on stderr, exit 2, no
# partial output files), the deadlock report.
KC="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# JSON fields of a single point
"$KC" simulate --n 6 --pattern transpose --rate 0.05 --measure 2000 --warmup 500 --json > "$T/a.json" || fail "json run"
for f in offered throughput latency_avg latency_p99 network_latency_avg sustainable cycles link_traversals wall_seconds; do
    grep -q "\"$f\"" "$T/a.json" || fail "json lacks $f"
done
# a sweep reports the saturation throughput and stops past saturation
"$KC" simulate --n 6 --pattern transpose --sweep 0.05:1:0.05 --measure 2000 --warmup 500 --json > "$T/s.json" || fail "sweep"
grep -q '"saturation_throughput"' "$T/s.json" || fail "no saturation_throughput"
n=$(grep -c '"offered"' "$T/s.json")
[ "$n" -lt 20 ] || fail "sweep did not stop at saturation ($n points)"
# same seed, same numbers; threads do not matter
"$KC" simulate --n 6 --uniform --sweep 0.1:0.3:0.1 --measure 1000 --warmup 200 --seed 9 --csv --threads 1 | cut -d, -f1-11 > "$T/c1"
"$KC" simulate --n 6 --uniform --sweep 0.1:0.3:0.1 --measure 1000 --warmup 200 --seed 9 --csv --threads 2 | cut -d, -f1-11 > "$T/c2"
cmp -s "$T/c1" "$T/c2" || fail "threads changed the results"
head -1 "$T/c1" | grep -q '^series,offered,generated,throughput' || fail "csv header"
# one-shot, torus with mapping, mesh, channel utilisation
"$KC" simulate --n 8 --pattern transpose --mapping optimal --oneshot | grep -q "last tail arrives at cycle 29" || fail "oneshot M-S"
"$KC" simulate --k 4 --n 4 --pattern digit-reverse --mapping set:transpose,digit-reverse --rate 0.1 --measure 1000 \
    | grep -q "channel contention 2" || fail "torus Map-G"
"$KC" simulate --k 4 --n 2 --topology mesh --uniform --rate 0.1 --measure 1000 --channel-util | grep -q "link utilisation" || fail "mesh util"
# a matrix pattern (transpose of the 4-cube as a matrix) agrees with the named one
a=$("$KC" simulate --n 4 --matrix '0010;0001;1000;0100' --oneshot --csv | tail -1 | cut -d, -f2-11)
b=$("$KC" simulate --n 4 --pattern transpose --oneshot --csv | tail -1 | cut -d, -f2-11)
[ "$a" = "$b" ] || fail "matrix vs named transpose: $a / $b"
"$KC" simulate --n 6 --uniform --rate 0.1 --measure 500 --channel-util --json | grep -q '"window_cycles"' || fail "util json"
# a pairs file
printf '# src dst\n0 5\n3 1\n' > "$T/pairs"
"$KC" simulate --n 3 --pairs "$T/pairs" --oneshot --json | grep -q '"completion"' || fail "pairs"
# compare + plot (svg and png)
"$KC" simulate --n 6 --pattern bit-reverse --compare --configs ecube,M-S,pcube --set transpose,bit-reverse \
    --sweep 0.05:0.4:0.05 --measure 1000 --warmup 300 --plot "$T/p.svg" > /dev/null || fail "compare"
grep -q "<svg" "$T/p.svg" || fail "svg plot"
"$KC" simulate --n 6 --pattern bit-reverse --rate 0.05 --measure 500 --plot "$T/p.png" > /dev/null || fail "png"
[ -s "$T/p.png" ] || fail "png plot empty"
ls "$T" | grep -q tmp && fail "temporary plot files left"

# deadlock: a ring without virtual channels
"$KC" simulate --k 4 --n 1 --vc-rule none --vcs 1 --pairs <(printf '0 2\n1 3\n2 0\n3 1\n') --oneshot --watchdog 50 \
    > /dev/null 2> "$T/err"
[ $? -eq 1 ] || fail "deadlock exit status"
grep -q "blocked cycle:.*1>d0+ vc0 -> 2>d0+ vc0 -> 3>d0+ vc0" "$T/err" || { cat "$T/err"; fail "blocked cycle"; }

# bad input: one line, exit 2, no output file
bad() {
    "$KC" simulate "$@" > "$T/out" 2> "$T/err"
    rc=$?
    [ $rc -eq 2 ] || fail "exit $rc for: $*"
    [ "$(wc -l < "$T/err")" -eq 1 ] || fail "stderr not one line for: $*"
    grep -q '^kcube: ' "$T/err" || fail "no kcube: prefix for: $*"
}
bad --n 8 --pattern transpose
bad --n 8 --rate 0.1
bad --pattern transpose --rate 0.1
bad --n 8 --pattern nosuch --rate 0.1
bad --n 8 --pattern transpose --sweep 0.5:0.1:0.1
bad --n 8 --pattern transpose --sweep abc
bad --n 8 --pattern transpose --rate -1
bad --n 8 --pattern transpose --rate 0.1 --routing mixab3
bad --n 8 --pattern transpose --rate 0.1 --topology hypercube --k 4
bad --k 4 --n 2 --pattern transpose --rate 0.1 --routing ecube
bad --k 4 --n 2 --pattern transpose --rate 0.1 --vcs 1
bad --n 8 --uniform --rate 0.1 --mapping optimal
bad --n 8 --pattern transpose --rate 0.1 --mapping /nonexistent/map
bad --n 8 --pattern transpose --rate 0.1 --plot "$T/x.gif"
[ -e "$T/x.gif" ] && fail "plot file written on error"
bad --n 8 --pairs /nonexistent --oneshot
bad --n 8 --pattern transpose --rate 0.1 --bogus
bad --n 8 --pattern transpose --oneshot --rate 0.1
bad --n 3 --pairs <(printf '0 9\n') --oneshot
# kcube figures: bad input
"$KC" figures --bogus > /dev/null 2> "$T/err"; [ $? -eq 2 ] || fail "figures bad arg"
[ "$(wc -l < "$T/err")" -eq 1 ] || fail "figures stderr"
touch "$T/file"
"$KC" figures --out "$T/file" > /dev/null 2> "$T/err"; [ $? -eq 2 ] || fail "figures out is a file"
"$KC" figures --help | grep -q "Figures 5, 6 and 7" || fail "figures help"
echo ok
