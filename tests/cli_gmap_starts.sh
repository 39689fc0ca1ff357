#!/usr/bin/env bash
# kcube map --traffic, the starts and the hops cap: the result is never worse
# than the best start on the max channel load, whatever --hops-cap says
# (an 8x8 periodic halo on a 4x16 mesh, where the cap used to end above
# the identity; random traffics on a hypercube, tori with each tie rule and
# a mesh); the JSON lists every start and which one won; an FFT schedule
# from fft-study is found to be linear communications and its reordering
# is a start; patterns named next to --traffic give algebraic starts; the
# text states the gain against the identity and Scotch.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

json_check() { # DESCRIPTION PYTHON-EXPR over d (the JSON on stdout)
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$CLI_OUT"; then
        cli_pass
    else
        cli_fail "$1"
    fi
}
NOT_WORSE='d["final"]["max_load"] <= min(s["max_load"] for s in d["starts"])'
WON='sum(s["won"] for s in d["starts"]) == 1 and
    [s["mapping"] for s in d["starts"] if s["won"]] == [d["won_from"]] and
    all(k in s for s in d["starts"] for k in ("max_load", "hops", "sumsq"))'

# An 8x8 grid's periodic 5-point halo (one byte per message) on a 4x16 mesh:
# identity 5 / 672, Scotch 7 / 596 (8 / 656 since the Scotch start is
# scotch_gmap -Cd's mapping); capped at Scotch's hops the search used to end
# at 6 / 588, above the identity's max load.
python3 - "$CLI_TMP/halo.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for y in range(8):
        for x in range(8):
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                f.write(f"{x + 8 * y} {(x + dx) % 8 + 8 * ((y + dy) % 8)}\n")
PY
for cap in scotch none; do
    expect_exit 0 "halo on the 4x16 mesh, --hops-cap $cap" -- \
        "$K" map --traffic "$CLI_TMP/halo.txt" --shape 4x16 --hops-cap "$cap" --work 2 --json
    json_check "halo, --hops-cap $cap: no worse than the identity" \
        "$NOT_WORSE"' and d["final"]["max_load"] <= d["starts"][0]["max_load"]'
    json_check "halo, --hops-cap $cap: every start listed, one won" "$WON"
done
expect_exit 0 "halo, text" -- "$K" map --traffic "$CLI_TMP/halo.txt" --shape 4x16 --work 2
expect_stdout_matches '^against identity: max load .*, bytes x hops '
if "$K" map --n 2 --traffic "$CLI_TMP/halo.txt" --shape 4x16 --baseline scotch --work 1 > /dev/null 2>&1; then
    expect_stdout_matches '^against Scotch: +max load [0-9.]+x lower \([0-9]+ -> [0-9]+\)'
fi

# Random traffics: every --hops-cap value on each kind of network.
i=0
for net in "--n 6" "--k 4 --n 3 --tie plus" "--k 4 --n 3 --tie minus" "--k 4 --n 3 --tie split" "--shape 8x8"; do
    for seed in 1; do
        i=$((i + 1))
        python3 - "$CLI_TMP/r$i.txt" "$i$seed" <<'PY'
import random, sys
r = random.Random(int(sys.argv[2]))
with open(sys.argv[1], "w") as f:
    for _ in range(200):
        f.write(f"{r.randrange(64)} {r.randrange(64)} {r.choice([1, 7, 1000, 4096])}\n")
PY
        for cap in scotch none; do
            # shellcheck disable=SC2086
            expect_exit 0 "random $i ($net), --hops-cap $cap" -- \
                "$K" map --traffic "$CLI_TMP/r$i.txt" $net --hops-cap "$cap" --work 1 --seed "$seed" --json
            json_check "random $i ($net), --hops-cap $cap: final max <= every start's" "$NOT_WORSE"
            json_check "random $i: every start listed, one won" "$WON"
        done
    done
done

# seed 000's FFT as a GOAL schedule: bit-reverse and 8 exchanges, found
# linear, and the reordering (bit-reverse's) is a start.
expect_exit 0 "fft-study --emit-goal" -- "$K" fft-study --n 8 --emit-goal "$CLI_TMP/fft.goal"
expect_exit 0 "FFT schedule mapped" -- "$K" map --traffic "$CLI_TMP/fft.goal" --n 8 --work 2 --json
json_check "FFT: 9 linear communications found, reorder and linear are starts" \
    'd["linear_in_file"] == 9 and [s["mapping"] for s in d["starts"]][:3] == ["identity", "reorder", "linear"]'
json_check "FFT: no worse than any start, reordering's max reached" \
    "$NOT_WORSE"' and d["final"]["max_load"] <= d["starts"][1]["max_load"] < d["starts"][0]["max_load"]'
expect_exit 0 "FFT, text" -- "$K" map --traffic "$CLI_TMP/fft.goal" --n 8 --work 2
expect_stdout_contains "the traffic file is 9 linear communications on this network"

# not linear: no algebraic start
expect_exit 0 "random traffic: no algebraic start" -- "$K" map --traffic "$CLI_TMP/r1.txt" --n 6 --work 1 --json
json_check "nothing found" 'd["linear_in_file"] == 0 and "reorder" not in [s["mapping"] for s in d["starts"]]'

# a named pattern next to a file: its reordering and linear mapping are starts
expect_exit 0 "--pattern with --traffic" -- \
    "$K" map --traffic "$CLI_TMP/r1.txt" --n 6 --pattern transpose --work 1 --json
json_check "the named pattern's starts" '"reorder" in [s["mapping"] for s in d["starts"]] and
    "linear" in [s["mapping"] for s in d["starts"]] and '"$NOT_WORSE"

summary
