#!/usr/bin/env bash
# kcube map --traffic / --kind general: the report's fields, the
# lower bound on the 8-cube transpose, determinism, the node list that
# simulate and replay read, Scotch as a baseline, and one clear error line
# with exit 2 for bad input.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
G="$(dirname "$0")/goal"

json_check() { # DESCRIPTION PYTHON-EXPR over d (the JSON on stdout)
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$CLI_OUT"; then
        cli_pass
    else
        cli_fail "$1"
    fi
}

printf '# a ring of four ranks on the 2-cube\n0 1 10\n1,2,10\n2 3 5\n3\t0 7\n' > "$CLI_TMP/ring.txt"
expect_exit 0 "traffic file, text" -- "$K" map --n 2 --traffic "$CLI_TMP/ring.txt" --work 2
expect_stdout_contains "general mapping on the 2-cube"
expect_stdout_contains "objective: max channel load (bytes), then total bytes x hops"
expect_stdout_matches '^  identity +10 +49 '
expect_stdout_matches '^to_physical:( [0-3]){4}$'

expect_exit 0 "traffic file, JSON" -- "$K" map --n 2 --traffic "$CLI_TMP/ring.txt" --work 2 --json
json_check "JSON fields" 'd["kind"] == "general" and d["starts"][0]["mapping"] == "identity" and
    all(k in d["final"] for k in ("max_load", "hops", "sumsq")) and d["won_from"] in [s["mapping"] for s in d["starts"]]'
json_check "to_physical and to_virtual are inverse permutations" \
    'sorted(d["to_physical"]) == list(range(4)) and all(d["to_virtual"][p] == v for v, p in enumerate(d["to_physical"]))'
json_check "never worse than the best start" \
    'min((s["max_load"], s["hops"], s["sumsq"]) for s in d["starts"]) >= (d["final"]["max_load"], d["final"]["hops"], d["final"]["sumsq"])'

expect_exit 0 "CSV" -- "$K" map --n 2 --traffic "$CLI_TMP/ring.txt" --work 2 --csv
expect_stdout_contains "mapping,max_load,hops,sumsq"
expect_stdout_matches '^identity,10,49,423$'

# the mapper's first target, at its lower bound: the transpose of the 8-cube at
# contention 1 with 240 hops
expect_exit 0 "8-cube transpose" -- "$K" map --n 8 --pattern transpose --kind general --work 20 --json
json_check "transpose reaches 1 / 240" 'd["final"]["max_load"] == 1 and d["final"]["hops"] == 240'
json_check "algebraic starts" '[s["mapping"] for s in d["starts"]][:3] == ["identity", "reorder", "linear"]'

# a set of communications: each counted apart by default, together on request
expect_exit 0 "set, apart" -- "$K" map --n 6 --pattern transpose --pattern bit-reverse --kind general --work 8 --json
json_check "communications counted apart" 'd["communications_counted"] == "apart" and
    d["communications"] == ["transpose", "bit-reverse"] and len(d["final"]["per_comm_max"]) == 2'
expect_exit 0 "set, together" -- "$K" map --n 6 --pattern transpose --pattern bit-reverse --kind general --work 8 --objective simultaneous --json
json_check "communications counted together" 'd["communications_counted"] == "together"'

# the same seed and budget give the same mapping
expect_exit 0 "run 1" -- "$K" map --k 4 --n 3 --traffic "$CLI_TMP/ring.txt" --work 8 --seed 7 --json
cp "$CLI_OUT" "$CLI_TMP/run1.json"
expect_exit 0 "run 2" -- "$K" map --k 4 --n 3 --traffic "$CLI_TMP/ring.txt" --work 8 --seed 7 --json
if python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); sys.exit(a["to_physical"] != b["to_physical"])' \
    "$CLI_TMP/run1.json" "$CLI_OUT"; then cli_pass; else cli_fail "same seed, same mapping"; fi

# --out: the node list simulate and replay read
expect_exit 0 "--out" -- "$K" map --n 3 --pattern bit-reverse --kind general --work 4 --out "$CLI_TMP/m.txt" --json
if [ "$(wc -l < "$CLI_TMP/m.txt")" -eq 8 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit([int(x) for x in open(sys.argv[2])] != d["to_physical"])' "$CLI_OUT" "$CLI_TMP/m.txt"; then cli_pass
else cli_fail "--out writes to_physical, one node per line"; fi
expect_exit 0 "simulate reads it" -- "$K" simulate --n 3 --pattern bit-reverse --mapping "$CLI_TMP/m.txt" --rate 0.1 --warmup 100 --measure 500 --json
if [ -f "$G/bcast_tree8.goal" ]; then
    expect_exit 0 "replay reads it" -- "$K" replay "$G/bcast_tree8.goal" --n 3 --mapping "$CLI_TMP/m.txt"
fi

# a Scotch graph and a GOAL schedule as traffic; meshes and tori of any k
printf '0\n4 8\n0 000\n2 1 3\n2 0 2\n2 1 3\n2 0 2\n' > "$CLI_TMP/ring.grf"
expect_exit 0 ".grf" -- "$K" map --n 2 --traffic "$CLI_TMP/ring.grf" --work 4 --csv
expect_stdout_matches '^general,1,'
if [ -f "$G/bcast_tree8.goal" ]; then
    expect_exit 0 ".goal" -- "$K" map --n 3 --traffic "$G/bcast_tree8.goal" --work 4
fi
expect_exit 0 "mesh" -- "$K" map --shape 4x3 --traffic "$CLI_TMP/ring.txt" --work 4
expect_stdout_contains "mesh 4x3"
expect_exit 0 "torus k = 6" -- "$K" map --k 6 --n 2 --traffic "$CLI_TMP/ring.txt" --work 4

if "$K" map --n 2 --traffic "$CLI_TMP/ring.txt" --baseline scotch > /dev/null 2>&1; then
    expect_exit 0 "Scotch baseline" -- "$K" map --n 4 --pattern transpose --kind general --baseline scotch --work 4 --json
    json_check "baseline reported, and dominated" 'd["baseline"]["mapping"] == "scotch" and d["scotch_available"] and
        d["final"]["max_load"] <= d["baseline"]["max_load"] and d["final"]["hops"] <= d["baseline"]["hops"] and
        d["hops_cap"] == d["baseline"]["hops"]'
    expect_exit 0 "--hops-cap none" -- "$K" map --n 4 --pattern transpose --kind general --hops-cap none --work 4 --json
    json_check "no cap" 'd["hops_cap"] is None'
else
    expect_bad "Scotch not built in" -- "$K" map --n 2 --traffic "$CLI_TMP/ring.txt" --baseline scotch
fi

# bad input: one line, exit 2
printf '0 1 10\n1 9 4\n' > "$CLI_TMP/range.txt"
expect_bad "rank out of range" -- "$K" map --n 2 --traffic "$CLI_TMP/range.txt"
expect_stderr_contains "line 2"
printf '0 1 -3\n' > "$CLI_TMP/neg.txt"
expect_bad "negative bytes" -- "$K" map --n 2 --traffic "$CLI_TMP/neg.txt"
printf '0 1 99999999999999999999999\n' > "$CLI_TMP/big.txt"
expect_bad "overflowing bytes" -- "$K" map --n 2 --traffic "$CLI_TMP/big.txt"
expect_bad "missing file" -- "$K" map --n 2 --traffic "$CLI_TMP/none.txt"
expect_bad "no traffic" -- "$K" map --n 2 --kind general
expect_bad "--objective sum" -- "$K" map --n 4 --pattern transpose --kind general --objective sum
expect_bad "--emit-c" -- "$K" map --n 2 --traffic "$CLI_TMP/ring.txt" --emit-c
expect_bad "--kind linear with --traffic" -- "$K" map --n 2 --traffic "$CLI_TMP/ring.txt" --kind linear
expect_bad "--work without a general mapping" -- "$K" map --n 4 --pattern transpose --work 40
expect_bad "--hops-cap without a general mapping" -- "$K" map --n 4 --pattern transpose --hops-cap none
expect_bad "negative work" -- "$K" map --n 2 --traffic "$CLI_TMP/ring.txt" --work -40 --out "$CLI_TMP/x"
if [ ! -e "$CLI_TMP/x" ]; then cli_pass; else cli_fail "bad input wrote a file"; fi
timeout 10 "$K" map --n 2 --traffic /dev/zero > /dev/null 2> "$CLI_ERR"
if [ $? -eq 2 ]; then cli_pass; else cli_fail "/dev/zero is refused at once"; fi

summary
