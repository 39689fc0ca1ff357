#!/usr/bin/env bash
# kcube simulate (issue 19): a configuration name runs what its entry in the
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

summary
