#!/usr/bin/env bash
# kc-test: slow
# kcube simulate --point-threads: one load point of a 2^18-node cube (the
# smallest network that splits) on 1, 2 and 3 threads gives the same
# figures (every CSV column but the wall time), and so does a sweep of
# stream-loop points with Bernoulli sources (generation on its own
# thread); bad counts exit 2.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
T="$CLI_TMP"
P=(simulate --n 18 --uniform --rate 0.25 --warmup 20 --measure 30 --drain 100 --seed 4 --csv)
for t in 1 2 3; do
    expect_exit 0 "one point, $t point threads" -- "$K" "${P[@]}" --point-threads "$t"
    cut -d, -f1-11,13- "$CLI_OUT" > "$T/p$t"
done
check "2 point threads: same figures" -- cmp -s "$T/p1" "$T/p2"
check "3 point threads: same figures" -- cmp -s "$T/p1" "$T/p3"
check "the run measured messages" -- test "$(tail -1 "$T/p1" | cut -d, -f9)" -gt 1000
# a sweep: every point on 2 threads, 2 points at once
S=(simulate --n 18 --uniform --sweep 0.1:0.2:0.1 --warmup 15 --measure 20 --drain 80 --seed 5 --csv --threads 2)
expect_exit 0 "sweep, 1 point thread" -- "$K" "${S[@]}"
cut -d, -f1-11,13- "$CLI_OUT" > "$T/s1"
expect_exit 0 "sweep, 2 point threads" -- "$K" "${S[@]}" --point-threads 2
cut -d, -f1-11,13- "$CLI_OUT" > "$T/s2"
check "sweep: same figures" -- cmp -s "$T/s1" "$T/s2"
# generation on its own thread (a stream-loop run that does not split, Bernoulli
# sources, a sweep of such points two at a time): the same figures
B=(simulate --n 8 --uniform --sweep 0.1:0.3:0.1 --injection bernoulli --depth 8 --vcs 2 --vc-link shared
   --route-delay 2 --switch-delay 2 --link-latency 1 --warmup 300 --measure 1500 --seed 6 --csv --threads 2)
expect_exit 0 "deep sweep, 1 point thread" -- "$K" "${B[@]}"
cut -d, -f1-11,13- "$CLI_OUT" > "$T/b1"
expect_exit 0 "deep sweep, 2 point threads" -- "$K" "${B[@]}" --point-threads 2
cut -d, -f1-11,13- "$CLI_OUT" > "$T/b2"
check "generation thread: same figures" -- cmp -s "$T/b1" "$T/b2"
check "the deep sweep has its three points" -- test "$(grep -c '^' "$T/b1")" -ge 4
expect_bad "--point-threads 0" -- "$K" simulate --n 6 --uniform --rate 0.1 --point-threads 0
expect_bad "--point-threads 65" -- "$K" simulate --n 6 --uniform --rate 0.1 --point-threads 65
summary
