#!/usr/bin/env bash
# OTF2 traces on the command line: map --traffic, simulate --pairs and
# replay FILE read the archives tests/support/otf2_write.py writes (with
# python3-otf2), and what they print is what the writer computed from each
# scenario on its own: the point-to-point traffic byte for byte, ranks,
# nodes, ranks per node and events skipped; --n inferred from the ranks;
# windows and regions; the report in text, JSON and CSV; --emit-goal's
# schedule replays; broken archives and the trace options on other inputs
# are one line and exit 2; a trace over --max-memory is refused up front.
# Exits 77 when /usr/bin/python3 cannot import otf2.
# Usage: cli_trace.sh PATH/TO/kcube
. "$(dirname "$0")/support/cli_lib.sh"
K=$1
T=$CLI_TMP
/usr/bin/python3 -c "import otf2" 2> /dev/null || cli_skip "/usr/bin/python3 has no otf2 module (python3-otf2)"
/usr/bin/python3 "$(dirname "$0")/support/otf2_write.py" "$T/a" > /dev/null || { echo "otf2_write.py failed"; exit 1; }
A="$T/a"
# want NAME EXPR: the writer's expectation for scenario NAME (a Python expression on it, e).
want() { /usr/bin/python3 -c "import json,sys; e=json.load(open(sys.argv[1])); print($2)" "$A/$1.json"; }
# jtrue FILE EXPR: the Python expression on the JSON report j (its trace t) holds.
jtrue() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j.get('trace', {}); sys.exit(not ($2))" "$1"; }
# Bytes per (src, dst) of a traffic file, summed, sorted.
summed() { awk '!/^#/ && NF >= 2 { s[$1 " " $2] += $3 } END { for (k in s) print k, s[k] }' "$1" | sort -n; }

# ---- traffic: the point-to-point messages, exactly ----
for sc in small hostless; do
    want $sc "'\n'.join('%d %d %d' % (s, d, b) for s, row in enumerate(e['traffic']) for d, b in enumerate(row) if b)" |
        sort -n > "$T/$sc.expected"
    expect_exit 0 "map --emit-traffic ($sc)" -- "$K" map --traffic "$A/$sc" --emit-traffic "$T/$sc.txt"
    check "$sc: the traffic is the writer's" -- cmp <(summed "$T/$sc.txt") "$T/$sc.expected"
done
# The random scenario: 7 ranks on 3 hosts, every collective kind; its point-to-point bytes, sizes and skips.
expect_exit 0 "map --json (random)" -- "$K" map --traffic "$A/random" --json
cp "$CLI_OUT" "$T/random.json"
check "ranks, nodes, ranks per node, skipped as written" -- jtrue "$CLI_OUT" \
    "(t['ranks'], t['nodes'], t['ranks_per_node'], t['skipped']) == ($(want random "(e['ranks'], e['nodes'], e['ranks_per_node'], e['skipped'])"))"
check "point-to-point bytes as written" -- jtrue "$CLI_OUT" "t['p2p_bytes'] == $(want random "sum(map(sum, e['traffic']))")"
check "n = 3 inferred for 7 ranks" -- jtrue "$CLI_OUT" "j['inferred'].startswith('n = 3, the smallest hypercube')"
check "collectives counted, an algorithm each" -- jtrue "$CLI_OUT" \
    "t['coll_messages'] > 0 and all(c['calls'] >= 1 and c['algorithm'] for c in t['collective_calls'].values())"
expect_exit 0 "map (text)" -- "$K" map --traffic "$A/random"
expect_stdout_contains "7 ranks on 3 nodes (3 ranks on the fullest)"
expect_stdout_matches "^  allreduce: [0-9]+ calls?, [a-z-]+ \(auto: Open MPI tuned\)$"
expect_stdout_contains "network sized by the traffic (otf2): n = 3"
expect_exit 0 "map --collectives ring" -- "$K" map --traffic "$A/random" --collectives ring --json
check "every collective by ring" -- jtrue "$CLI_OUT" "all(c['algorithm'] == 'ring' for c in t['collective_calls'].values())"
check "the same point-to-point traffic whatever the collectives" -- jtrue "$CLI_OUT" \
    "t['p2p_bytes'] == json.load(open('$T/random.json'))['trace']['p2p_bytes']"
expect_bad "map: --n too small for the trace" -- "$K" map --traffic "$A/random" --n 2
expect_stderr_contains "has 7 ranks, more than the network's 4 slots"
expect_exit 0 "map --n 4: a rankfile line per traced rank" -- "$K" map --traffic "$A/random" --n 4 --work 1 \
    --format openmpi-rankfile --hosts h%d --slots-per-host 4
check "7 rankfile lines on the 16 nodes" -- test "$(grep -c '^rank ' "$CLI_OUT")" -eq 7
expect_exit 0 "map --csv" -- "$K" map --traffic "$A/random" --n 3 --csv
expect_stdout_contains "trace_ranks,7"
expect_stdout_contains "trace_calls:allreduce,"
expect_exit 0 "map --csv without --n" -- "$K" map --traffic "$A/random" --csv
expect_stdout_contains 'inferred,"n = 3, the smallest hypercube'
expect_exit 0 "replay --csv without --n" -- "$K" replay "$A/basic" --csv
expect_stdout_contains "inferred,n = 2 inferred"

# ---- windows and regions ----
expect_exit 0 "--region iteration" -- "$K" map --traffic "$A/random" --region iteration --json
check "the region's traffic, no more than the whole" -- jtrue "$CLI_OUT" \
    "t['region'] == 'iteration' and 0 < t['p2p_bytes'] <= json.load(open('$T/random.json'))['trace']['p2p_bytes']"
expect_exit 0 "--from --to" -- "$K" map --traffic "$A/random" --from 0 --to 0.00004 --json
check "a window drops events" -- jtrue "$CLI_OUT" "t['dropped'] > 0 and t['to_s'] == 0.00004"
expect_bad "a window after the trace" -- "$K" map --traffic "$A/random" --from 100
expect_stderr_contains "has no message in the window or region asked"
expect_bad "--to before --from" -- "$K" map --traffic "$A/random" --from 2 --to 1
expect_bad "a region the trace never enters" -- "$K" map --traffic "$A/random" --region solver
expect_stderr_contains "(its regions: iteration)"

# ---- simulate --pairs: a pair per message ----
expect_exit 0 "simulate --pairs TRACE" -- "$K" simulate --pairs "$A/small" --n 1 --oneshot
expect_stdout_contains "one-shot: 1 messages"
expect_stdout_contains "point-to-point: 1 message, 8 bytes"
expect_exit 0 "simulate --pairs TRACE without --n" -- "$K" simulate --pairs "$A/random" --oneshot --json
check "simulate: n = 3 inferred for 7 ranks" -- jtrue "$CLI_OUT" "t['inferred'].startswith('n = 3') and j['network']['n'] == 3"
expect_bad "simulate: --n too small for the trace" -- "$K" simulate --pairs "$A/random" --n 2 --oneshot
expect_stderr_contains "the trace's 7 ranks do not fit on the network's 4 nodes"

# ---- replay: the traced run as a schedule ----
expect_exit 0 "replay --model loggops" -- "$K" replay "$A/basic" --model loggops --json
check "the trace in the report" -- jtrue "$CLI_OUT" "t['ranks'] == 4 and j['loggops']['makespan_ns'] > 0"
expect_exit 0 "replay --emit-goal" -- "$K" replay "$A/basic" --emit-goal "$T/basic.goal" --json
check "the network replay infers n = 2" -- jtrue "$CLI_OUT" "j['inferred'].startswith('n = 2 inferred')"
expect_exit 0 "the emitted schedule replays alone" -- "$K" replay "$T/basic.goal" --model loggops
# The schedule carries the traffic's messages: byte for byte per (sender,
# receiver), collectives expanded alike (the traffic's point-to-point part
# is the writer's, checked above for the other scenarios).
"$K" map --traffic "$T/basic.goal" --n 2 --emit-traffic "$T/basic.goal.txt" > /dev/null
"$K" map --traffic "$A/basic" --emit-traffic "$T/basic.txt" > /dev/null
check "the emitted schedule's messages are the trace's traffic" -- cmp <(summed "$T/basic.goal.txt") <(summed "$T/basic.txt")
expect_exit 0 "compute as traced" -- "$K" replay "$A/basic" --model loggops --csv
one=$(awk -F, '$1 == "total" {print $2}' "$CLI_OUT")
expect_exit 0 "--compute-scale 0" -- "$K" replay "$A/basic" --model loggops --compute-scale 0 --csv
check "no compute: no longer than as traced" -- test "$(awk -F, '$1 == "total" {print $2}' "$CLI_OUT")" -le "$one"
expect_stdout_contains "trace_ranks,4"
expect_bad "a schedule that does not replay names the trace" -- "$K" replay "$A/random"
expect_stderr_contains "the schedule made from the trace"

# ---- bad archives: one line, exit 2 ----
for f in "$A"/bad_*.json; do
    sc=$(basename "$f" .json)
    piece=$(want "$sc" "e['error']")
    expect_bad "map --traffic $sc" -- "$K" map --traffic "$A/$sc" --n 2
    expect_stderr_contains "$piece"
done
expect_bad "replay of a broken archive" -- "$K" replay "$A/bad_undefloc/traces.otf2"

# ---- the trace options on other inputs ----
printf '0 1 5\n1 0 5\n' > "$T/t.txt"
expect_bad "--from on a traffic file" -- "$K" map --traffic "$T/t.txt" --from 1
expect_stderr_contains "--from does not apply to a traffic file (only to an OTF2 trace)"
expect_bad "--collectives without --traffic" -- "$K" map --n 2 --stencil 5pt --grid 2x2 --collectives ring
expect_bad "--region on an algebraic mapping" -- "$K" map --n 2 --pattern transpose --region x
expect_bad "--region on a pairs file" -- "$K" simulate --pairs "$T/t.txt" --n 1 --oneshot --region x
expect_bad "--traffic-format on a trace" -- "$K" map --traffic "$A/small" --traffic-format csv
"$K" map --traffic "$T/t.txt" --n 1 --emit-traffic "$T/t.goal.txt" > /dev/null
printf 'num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n' > "$T/pp.goal"
expect_bad "--compute-scale on a GOAL file" -- "$K" replay "$T/pp.goal" --compute-scale 2
expect_bad "--emit-goal on a GOAL file" -- "$K" replay "$T/pp.goal" --emit-goal "$T/x.goal"
expect_stderr_contains "only to an OTF2 trace"
expect_bad "--from is not replay's" -- "$K" replay "$A/basic" --from 1

# ---- the gate: a trace over --max-memory is refused before reading ----
expect_over "a trace over --max-memory" -- "$K" map --traffic "$A/random" --max-memory 1M
expect_stderr_contains "reading the trace"
summary
