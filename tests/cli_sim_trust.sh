#!/usr/bin/env bash
# kcube simulate: a configuration name runs what its entry in the
# one table of names says (every name and alias, on the 8-cube and on a
# torus, against the canonical configuration), and saturation is judged per
# source (the bit-reverse li-min case where 8 sources share channel 8 -> 0).
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

# The routing/mapping line of a run ("routing ... mapping ..., channel contention C"),
# without the "[label]" in front.
what() { grep '^\[' "$CLI_OUT" | sed 's/^\[[^]]*\] //'; }

# --- every configuration name and alias against the canonical configuration ---
# canonical single runs: --mapping optimal (M-S), --mapping set:SET (M-G), --routing R
conf_check() { # net-args... -- set
    local set=$1
    shift
    local want_ms want_mg
    expect_exit 0 "M-S as --mapping optimal ($*)" -- "$K" simulate "$@" --pattern transpose --mapping optimal --oneshot
    want_ms=$(what)
    expect_exit 0 "M-G as --mapping set:$set ($*)" -- "$K" simulate "$@" --pattern transpose --mapping "set:$set" \
        --oneshot
    want_mg=$(what)
    check "M-S and M-G differ here ($*)" -- test "$want_ms" != "$want_mg"
    for c in M-S ms Map-S; do
        expect_exit 0 "--configs $c ($*)" -- "$K" simulate "$@" --pattern transpose --compare --configs "$c" --oneshot
        check "$c runs M-S ($*): $(what)" -- test "$(what)" = "$want_ms"
    done
    for c in M-G mg Map-G; do
        expect_exit 0 "--configs $c ($*)" -- "$K" simulate "$@" --pattern transpose --compare --configs "$c" --oneshot
        check "$c runs M-G ($*): $(what)" -- test "$(what)" = "$want_mg"
    done
    # the default comparison: each label runs its own configuration
    expect_exit 0 "default --compare ($*)" -- "$K" simulate "$@" --pattern transpose --compare --oneshot
    check "default [M-S] is M-S ($*)" -- test "$(grep '^\[M-S\] ' "$CLI_OUT" | sed 's/^\[M-S\] //')" = "$want_ms"
    check "default [M-G] is M-G ($*)" -- test "$(grep '^\[M-G\] ' "$CLI_OUT" | sed 's/^\[M-G\] //')" = "$want_mg"
}
conf_check transpose,bit-reverse,reverse-flip --n 8
conf_check transpose,digit-reverse --k 4 --n 4
expect_exit 0 "8-cube M-S contention" -- "$K" simulate --n 8 --pattern transpose --compare --configs M-S,M-G --oneshot
expect_stdout_matches '^\[M-S\] routing ecube, 1 VC/link, mapping M-S order .*channel contention 1$'
expect_stdout_matches '^\[M-G\] routing ecube, 1 VC/link, mapping M-G order .*channel contention 2$'
expect_exit 0 "torus M-S prints Map-S" -- "$K" simulate --k 4 --n 4 --pattern transpose --compare --configs M-S,M-G \
    --oneshot
expect_stdout_matches '^\[M-S\] .*mapping Map-S Q = '
expect_stdout_matches '^\[M-G\] .*mapping Map-G Q = '
# routing names and their aliases as configurations: the same as --routing
for r in ecube e-cube pcube p-cube duato li-min dor; do
    expect_exit 0 "--routing $r" -- "$K" simulate --n 6 --pattern bit-reverse --routing "$r" --oneshot
    want=$(what)
    expect_exit 0 "--configs $r" -- "$K" simulate --n 6 --pattern bit-reverse --compare --configs "$r" --oneshot
    check "$r as a configuration runs --routing $r" -- test "$(what)" = "$want"
done
expect_exit 0 "--configs dor on a torus" -- "$K" simulate --k 4 --n 2 --pattern transpose --compare --configs dor --oneshot
expect_stdout_matches '^\[dor\] routing dor .*mapping none, channel contention'
# a configuration that names its own mapping takes no @MAPPING
expect_bad "M-S@FILE is refused" -- "$K" simulate --n 4 --pattern transpose --compare --configs M-S@x --oneshot
expect_stderr_contains "runs its own mapping"
# help lists the configurations from the table, aliases included
expect_exit 0 "help" -- "$K" simulate --help
expect_stdout_matches '^  M-S, ms, Map-S +'
expect_stdout_matches '^  M-G, mg, Map-G +'

# --- saturation per source: bit-reverse under li-min on the 8-cube ---
# at offered 0.14 the sources forced onto channel 8 -> 0 fall behind although the
# aggregate throughput is above 97 % of what is generated
expect_exit 0 "li-min bit-reverse at 0.14" -- "$K" simulate --n 8 --pattern bit-reverse --routing li-min --rate 0.14 --json
expect_stdout_matches '"sustainable":[[:space:]]*false'
expect_stdout_matches '"sources_judged":[[:space:]]*240'
for f in source_throughput_min source_ratio_min source_growth_max sources_behind source_worst; do
    expect_stdout_contains "\"$f\"" "json has $f"
done
check "aggregate keeps up, a source does not" -- python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
assert p["throughput"] >= 0.97 * p["generated"], p
assert p["sources_behind"] >= 1 and p["source_ratio_min"] < 0.8 and p["source_throughput_min"] < 0.125, p
' "$CLI_OUT"
expect_exit 0 "the same in text" -- "$K" simulate --n 8 --pattern bit-reverse --routing li-min --rate 0.14
expect_stdout_matches '^ +offered +generated +throughput +src_min +src_ratio '
expect_stdout_matches 'sources fell behind \(source [0-9]+ accepted [0-9.]+% of its flits\)'
# the sweep's saturation throughput stays within 1/8
expect_exit 0 "li-min bit-reverse sweep" -- "$K" simulate --n 8 --pattern bit-reverse --routing li-min \
    --sweep 0.02:0.2:0.02 --json
check "saturation <= 1/8" -- python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["saturated"] and d["saturation_throughput"] <= 0.127, d["saturation_throughput"]
assert 0 < d["saturation_source_min"] <= d["saturation_throughput"] * 1.2
' "$CLI_OUT"
expect_exit 0 "sweep text" -- "$K" simulate --n 8 --pattern bit-reverse --routing li-min --sweep 0.1:0.14:0.02
expect_stdout_matches '^  saturation throughput 0\.1[0-2][0-9]+ \(lowest source 0\.[0-9]+\)$'
# CSV: the per-source columns beside the others
expect_exit 0 "csv" -- "$K" simulate --n 6 --uniform --rate 0.1 --measure 1000 --warmup 200 --csv
expect_stdout_matches '^series,offered,.*,wall_seconds,source_throughput_min,source_ratio_min,sources_behind$'
expect_stdout_matches '^ecube,0\.1000,.*,0$'

summary
