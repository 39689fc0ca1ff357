#!/usr/bin/env bash
# The BookSim2 comparison script (bench/booksim_compare.py, docs/sim.md
# "Against BookSim2") without BookSim2, which CI does not have: its parsers
# on stored outputs (tests/data/booksim_cube3_*.out: a finished run and one
# that ended "unstable", both of the patched binary on a 2-ary 3-mesh;
# tests/data/kcube_cube3_deep.json and a fresh kcube run), a failed BookSim2
# output refused, missing binaries refused with one line and exit 2, and the
# speed and curves modes end to end against a stand-in BookSim2 that prints
# the stored outputs (the curves' fallback to sim_type=throughput when the
# latency run is unstable; kcube on two threads a point, named in the
# table), and build_booksim.sh's refusals. Skipped without
# python3.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
T=$CLI_TMP
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
S="$ROOT/bench/booksim_compare.py"
D="$ROOT/tests/data"

command -v python3 > /dev/null || cli_skip "python3 is missing"

# One line on stderr starting with the script's name, nothing on stdout.
expect_script_refusal() {
    local code=$1 desc=$2
    shift 2
    expect_exit "$code" "$desc" "$@"
    if [ "$(wc -l < "$CLI_ERR")" -eq 1 ] && grep -q '^booksim_compare: ' "$CLI_ERR"; then cli_pass
    else cli_fail "$desc: stderr is not one 'booksim_compare: ...' line"; fi
    if [ -s "$CLI_OUT" ]; then cli_fail "$desc: wrote to stdout"; else cli_pass; fi
}

expect_exit 0 "BookSim2's finished run parses" -- python3 "$S" parse booksim "$D/booksim_cube3_stable.out"
for f in '"latency": 36.5' '"net_latency": 35.2941' '"accepted": 0.089125' '"cycles": 1301' \
         '"flit_hops": 1440' '"run_s": 0.025238' '"hops": 2.52941' '"unstable": false'; do
    expect_stdout_contains "$f"
done
expect_exit 0 "BookSim2's unstable run parses" -- python3 "$S" parse booksim "$D/booksim_cube3_unstable.out"
for f in '"unstable": true' '"cycles": null' '"flit_hops": 1486' '"run_s": 0.0267632'; do
    expect_stdout_contains "$f"
done
head -n 40 "$D/booksim_cube3_stable.out" > "$T/cut.out"
expect_script_refusal 1 "a BookSim2 output without its run time is a failed run" -- \
    python3 "$S" parse booksim "$T/cut.out"

expect_exit 0 "stored kcube JSON parses" -- python3 "$S" parse kcube "$D/kcube_cube3_deep.json"
for f in '"latency": 37.906976744186046' '"cycles": 1300' '"flit_hops": 1720' '"accepted": 0.110125' \
         '"sustainable": true'; do
    expect_stdout_contains "$f"
done
"$K" simulate --k 2 --n 3 --pattern uniform --rate 0.1 --warmup 300 --measure 1000 --json > "$T/k.json"
expect_exit 0 "this kcube's JSON parses" -- python3 "$S" parse kcube "$T/k.json"
expect_stdout_matches '"flit_hops": [1-9][0-9]*' "this kcube reports link traversals"
expect_script_refusal 1 "kcube text output is refused" -- python3 "$S" parse kcube "$D/booksim_cube3_stable.out"

expect_script_refusal 2 "missing BookSim2 binary" -- \
    python3 "$S" speed --booksim "$T/no-booksim" --kcube "$K"
expect_script_refusal 2 "missing kcube binary" -- \
    python3 "$S" curves --booksim "$K" --kcube "$T/no-kcube"
expect_script_refusal 2 "unknown workload" -- \
    python3 "$S" speed --booksim "$K" --kcube "$K" --only cube8-uniform-x

# A stand-in BookSim2: the stored unstable run for a latency config, the
# finished one otherwise (exit 255, as BookSim2's main returns -1).
cat > "$T/booksim" << EOF
#!/bin/sh
if grep -q 'sim_type = latency' "\$1" && grep -q 'injection_rate = 0.9' "\$1"; then
    cat "$D/booksim_cube3_unstable.out"
else
    cat "$D/booksim_cube3_stable.out"
fi
exit 255
EOF
chmod +x "$T/booksim"
expect_exit 0 "speed mode end to end" -- python3 "$S" speed --booksim "$T/booksim" --kcube "$K" \
    --only cube8-transpose-0.05 --reps 1 --configs deep --json "$T/s.json"
expect_stdout_matches '^\| deep \| cube8 \| transpose \| 0.05 \| 1301 / [0-9]+ \| 1440 / [0-9]+ \|.*x \| [0-9]+x \| [0-9]+ / [0-9]+ \|$' \
    "a speed row with both tools' cycles, flit-hops and ratios"
check "speed JSON has the row" -- grep -q '"ratio_wall"' "$T/s.json"
expect_exit 0 "speed mode with kcube on two threads a point" -- python3 "$S" speed --booksim "$T/booksim" \
    --kcube "$K" --only cube8-transpose-0.05 --reps 1 --configs deep --point-threads 2
expect_stdout_contains "kcube ran each point on 2 threads (--point-threads; BookSim2 on one)."
expect_script_refusal 2 "no threads a point" -- python3 "$S" speed --booksim "$T/booksim" --kcube "$K" \
    --point-threads 0
expect_exit 0 "speed mode with kcube's sources drawn as geometric gaps" -- python3 "$S" speed \
    --booksim "$T/booksim" --kcube "$K" --only cube8-transpose-0.05 --reps 1 --configs deep \
    --kcube-injection bernoulli-gaps --json "$T/g.json"
expect_stdout_contains "kcube's sources: --injection bernoulli-gaps (BookSim2 draws a Bernoulli trial per source and cycle)."
check "the JSON names kcube's sampler" -- grep -q '"kcube_injection": "bernoulli-gaps"' "$T/g.json"
expect_script_refusal 2 "an injection kcube does not have" -- python3 "$S" speed --booksim "$T/booksim" \
    --kcube "$K" --kcube-injection uniform
expect_exit 0 "curves mode end to end" -- python3 "$S" curves --booksim "$T/booksim" --kcube "$K" \
    --net cube8 --loads 0.1,0.9 --kcube-flags "--depth 2"
expect_stdout_matches '^\| 0.1 \| 36.50 \| [0-9.]+ \| [-+][0-9.]+ % \|.*\| no \| yes \|$' "a stable curve point"
expect_stdout_matches '^\| 0.9 \| - \| [0-9.]+ \| - \|.*\| 0.0891 \| [0-9.]+ \| [-+][0-9.]+ % \| yes \|' \
    "past saturation: accepted from the throughput run, no BookSim2 latency"
expect_script_refusal 2 "loads outside (0, 1]" -- python3 "$S" curves --booksim "$T/booksim" \
    --kcube "$K" --loads 0.1,1.5
# The build script refuses before building: no clone given, or not a directory.
expect_exit 2 "build_booksim.sh without a clone" -- sh "$ROOT/bench/build_booksim.sh"
check "one usage line" -- test "$(wc -l < "$CLI_ERR")" -eq 1
expect_exit 2 "build_booksim.sh on a missing clone" -- sh "$ROOT/bench/build_booksim.sh" "$T/no-clone" "$T/out"
check "one line naming the problem" -- test "$(wc -l < "$CLI_ERR")" -eq 1
check "nothing built" -- test ! -e "$T/out"
summary
