#!/usr/bin/env bash
# kcube replay --ranks-per-node and --timeline:
# ranks sharing a node's channels (hand-computed times), mapping files that
# place groups of ranks, clear errors with exit 2; Chrome trace-event JSON
# checked by tests/support/trace_check.py (valid, flows paired, slices adding
# up to each rank's busy time and ending at its finish, holds and waits in
# both LogGOPS models), a rendezvous ping-pong's holds and waits by hand,
# drawings well-formed, more than 64 ranks drawn in rows of several.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'
G="$(dirname "$0")/goal"
TC="$(dirname "$0")/support/trace_check.py"

# Ranks 0 and 1 each send 100 bytes, to ranks 2 and 3.
cat > "$CLI_TMP/two.goal" <<'GOAL'
num_ranks 4
rank 0 {
s: send 100b to 2 tag 0
}
rank 1 {
s: send 100b to 3 tag 0
}
rank 2 {
r: recv 100b from 0 tag 0
}
rank 3 {
r: recv 100b from 1 tag 0
}
GOAL
T="--startup 10 --byte-time 1"
# One rank a node on the 2-cube: two one-hop worms on their own links, each
# 10 + 100 + 2 = 112 us (docs/appsim.md).
expect_exit 0 "one rank a node" -- "$K" replay "$CLI_TMP/two.goal" --n 2 $T --json
expect_stdout_matches "\"total_us\":${J}112,?$"
expect_stdout_matches "\"ranks_per_node\":${J}1,?$"
# Two a node on the 1-cube: both worms leave node 0 through its one injection
# channel, the second after the first's 100 flits (and the cycle that frees
# the channel): 112 + 101 = 213 us. LogGP knows no channel: 110 us.
expect_exit 0 "two ranks a node share the injection channel" -- "$K" replay "$CLI_TMP/two.goal" --n 1 --ranks-per-node 2 $T --json
expect_stdout_matches "\"total_us\":${J}213,?$"
expect_stdout_matches "\"loggp_us\":${J}110,?$"
expect_stdout_matches "\"ranks_per_node\":${J}2,?$"
expect_stdout_matches "\"flits\":${J}200,?$"
expect_exit 0 "text names the ranks per node" -- "$K" replay "$CLI_TMP/two.goal" --n 1 --ranks-per-node 2 $T
expect_stdout_contains "2 ranks per node"
# All four on one node: no message enters the network; each arrives when its
# start-up ends (10 us), in both models.
expect_exit 0 "within a node" -- "$K" replay "$CLI_TMP/two.goal" --n 1 --ranks-per-node 4 $T --json
expect_stdout_matches "\"total_us\":${J}10,?$"
expect_stdout_matches "\"loggp_us\":${J}10,?$"
expect_stdout_matches "\"flits\":${J}0,?$"
expect_exit 0 "within a node, --model loggp" -- "$K" replay "$CLI_TMP/two.goal" --n 1 --ranks-per-node 4 $T --model loggp --json
expect_stdout_matches "\"loggp_us\":${J}10,?$"
expect_stdout_matches "\"model\":${J}\"loggp\""
expect_exit 0 "--model loggp text" -- "$K" replay "$CLI_TMP/two.goal" --n 2 $T --model loggp
expect_stdout_contains "contention-free LogGP time 110.00 us"
# A message from a rank to itself keeps its old cost, R or not: through its
# node's injection and ejection channels, 10 + 100 + 1 = 111 us.
printf 'num_ranks 2\nrank 0 {\ns: send 100b to 0 tag 0\nr: recv 100b from 0 tag 0\n}\nrank 1 {\n}\n' > "$CLI_TMP/self.goal"
for R in 1 2; do
    expect_exit 0 "to itself, $R a node" -- "$K" replay "$CLI_TMP/self.goal" --n 1 --ranks-per-node $R $T --json
    expect_stdout_matches "\"total_us\":${J}111,?$"
done
# A mapping file places groups: group 0 (ranks 0, 1) on node 1, group 1 on node 0.
printf '1\n0\n' > "$CLI_TMP/swap.map"
expect_exit 0 "mapping places groups" -- "$K" replay "$CLI_TMP/two.goal" --n 1 --ranks-per-node 2 --mapping "$CLI_TMP/swap.map" $T --timeline -
expect_stdout_contains '"pid":1,"tid":0,'
expect_stdout_contains '"pid":0,"tid":3,'
# bad placements: one line, exit 2
expect_bad "ranks not a multiple of R" -- "$K" replay "$CLI_TMP/two.goal" --n 2 --ranks-per-node 3
expect_stderr_contains "not a multiple of 3"
expect_bad "more ranks than nodes x R" -- "$K" replay "$G/bcast_tree8.goal" --n 1 --ranks-per-node 2
expect_stderr_contains "do not fit"
expect_bad "R of 0" -- "$K" replay "$CLI_TMP/two.goal" --n 2 --ranks-per-node 0
expect_bad "bad model" -- "$K" replay "$CLI_TMP/two.goal" --n 2 --model flits

# Timelines as trace-event JSON, checked against the report of the same run,
# in both models, with and without shared nodes.
python3 "$(dirname "$0")/support/loggopsim_examples.py" dissem 16 > "$CLI_TMP/d16.goal"
run_trace() { # NAME GOAL STARTUP NODE_OF ARGS...
    local name="$1" goal="$2" su="$3" nodes="$4"
    shift 4
    expect_exit 0 "$name: report" -- "$K" replay "$goal" --startup "$su" "$@" --json
    cp "$CLI_OUT" "$CLI_TMP/report.json"
    expect_exit 0 "$name: timeline" -- "$K" replay "$goal" --startup "$su" "$@" --timeline "$CLI_TMP/t.json"
    if python3 "$TC" "$CLI_TMP/t.json" "$goal" "$su" "$CLI_TMP/report.json" $nodes > /dev/null; then cli_pass
    else cli_fail "$name: trace"; fi
}
run_trace "chain" "$G/bcast_tree8.goal" 164 "" --n 3
run_trace "features" "$G/features.goal" 5 "" --n 3 --byte-time 0.1
run_trace "dissemination, 2 a node" "$CLI_TMP/d16.goal" 20 "0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7" --n 3 --ranks-per-node 2
run_trace "dissemination, loggp" "$CLI_TMP/d16.goal" 20 "" --n 4 --model loggp
run_trace "mapped groups" "$CLI_TMP/two.goal" 10 "1,1,0,0" --n 1 --ranks-per-node 2 --mapping "$CLI_TMP/swap.map"
# with --loggops: LogGOPS's CPUs, each send o + (s-1) O longer, receives on the CPU
run_trace "dissemination, --loggops" "$CLI_TMP/d16.goal" 20 "" --n 4 --loggops o=1500,g=1000,O=2,S=200
run_trace "features, --loggops" "$G/features.goal" 5 "" --n 3 --byte-time 0.1 --loggops o=700,g=300
# the pure LogGOPS model: holds and waits drawn, each rank's last slice at its finish (ns / 1000)
run_pure() { # NAME GOAL ARGS...
    local name="$1" goal="$2"
    shift 2
    expect_exit 0 "$name: report" -- "$K" replay "$goal" --model loggops "$@" --json
    cp "$CLI_OUT" "$CLI_TMP/report.json"
    expect_exit 0 "$name: timeline" -- "$K" replay "$goal" --model loggops "$@" --timeline "$CLI_TMP/t.json"
    if python3 "$TC" "$CLI_TMP/t.json" "$goal" 0 "$CLI_TMP/report.json" > /dev/null; then cli_pass
    else cli_fail "$name: trace"; fi
}
run_pure "dissemination, --model loggops, rendezvous" "$CLI_TMP/d16.goal" --loggops S=0
run_pure "features, --model loggops" "$G/features.goal" --loggops L=3000,o=700,g=300,G=4,O=1,S=8
# with rendezvous in the network replay: the sender's hold drawn (rendezvous
# above 8 bytes here)
run_trace "dissemination, --loggops, rendezvous" "$CLI_TMP/d16.goal" 20 "" --n 4 --loggops o=1500,g=1000,O=2,S=0
# The 100-byte ping-pong of docs/appsim.md with S = 50 by hand: rank 0's
# send 0..12 holds its CPU until rank 1 takes the first byte at 15; its
# receive, posted then, waits until the reply's first byte at 131.
printf 'num_ranks 2\nrank 0 {\ns: send 100b to 1 tag 0\nr: recv 100b from 1 tag 0\nr requires s\n}\nrank 1 {\nr: recv 100b from 0 tag 0\ns: send 100b to 0 tag 0\ns requires r\n}\n' > "$CLI_TMP/pp.goal"
expect_exit 0 "ping-pong with rendezvous: timeline" -- "$K" replay "$CLI_TMP/pp.goal" --n 1 --startup 10 --byte-time 1 --loggops o=2000,S=50 --timeline -
expect_stdout_contains '"name":"hold","ph":"X","pid":0,"tid":0,"cat":"hold","ts":12,"dur":3,'
expect_stdout_contains '"name":"recv","ph":"X","pid":0,"tid":0,"cat":"recv","ts":131,"dur":101,"args":{"peer":1,"bytes":100,"tag":0,"posted_us":15,"wait_us":116,'
expect_stdout_contains '"name":"wait","ph":"X","pid":0,"tid":512,"cat":"wait","ts":15,"dur":116,'
expect_stdout_contains '"args":{"name":"rank 0 waits"}'
# the same in --model loggops, docs/loggops.md's parameters (s1 = 99): rank
# 0's CPU is free at 10 + 99 = 109 ns, when it posts; rank 1 takes the ping
# at 110 until 110 + 10 + 99 x 2 = 318, sends until 427; the pong is there
# at 318 + 10 + 100 = 428: rank 0's receive waited 319 ns
expect_exit 0 "ping-pong, --model loggops: timeline" -- "$K" replay "$CLI_TMP/pp.goal" --model loggops --loggops L=100,o=10,g=20,G=2,O=1,S=1000 --timeline -
expect_stdout_contains '"cat":"recv","ts":0.428,"dur":0.208,"args":{"peer":1,"bytes":100,"tag":0,"posted_us":0.109,"wait_us":0.319,'
# cpu numbers: each CPU its own track (tid = rank + ranks x cpu), nothing overlapping on one
printf 'num_ranks 2\nrank 0 {\na: calc 5000 cpu 1\nb: calc 3000\nc: send 10b to 1 tag 0 cpu 1\nc requires a\n}\nrank 1 {\na: recv 10b from 0 tag 0\nb: calc 4000 cpu 1\n}\n' > "$CLI_TMP/cpu.goal"
run_trace "cpu numbers, --loggops" "$CLI_TMP/cpu.goal" 0 "" --n 1 --byte-time 1 --loggops o=1000,g=500
check "a track of its own for CPU 1" -- grep -q '"tid":2,"args":{"name":"rank 0 cpu 1"}' "$CLI_TMP/t.json"
# the checker refuses what a viewer would: partly overlapping slices on a track, a flow without bp
python3 - "$CLI_TMP/t.json" "$CLI_TMP/bad1.json" "$CLI_TMP/bad2.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
calc = [e for e in ev if e.get("name") == "calc" and e["tid"] == 2][0]
ev.append(dict(calc, ts=calc["ts"] + calc["dur"] / 2))  # overlaps it partly
json.dump(t, open(sys.argv[2], "w"))
t = json.load(open(sys.argv[1]))
for e in t["traceEvents"]:
    e.pop("bp", None)
json.dump(t, open(sys.argv[3], "w"))
PY
expect_exit 0 "cpu numbers: the report" -- "$K" replay "$CLI_TMP/cpu.goal" --startup 0 --n 1 --byte-time 1 --loggops o=1000,g=500 --json
cp "$CLI_OUT" "$CLI_TMP/report.json"
for b in bad1 bad2; do
    if python3 "$TC" "$CLI_TMP/$b.json" "$CLI_TMP/cpu.goal" 0 "$CLI_TMP/report.json" 2> /dev/null > /dev/null; then
        cli_fail "trace_check accepted $b"
    else cli_pass; fi
done
# - is standard output, the trace alone
expect_exit 0 "timeline on standard output" -- "$K" replay "$G/bcast_tree8.goal" --n 3 --timeline -
check "standard output is the trace alone" -- python3 -c 'import json,sys; json.load(open(sys.argv[1]))["traceEvents"]' "$CLI_OUT"
expect_exit 1 "timeline to a full disk" -- "$K" replay "$G/bcast_tree8.goal" --n 3 --timeline /dev/full
expect_exit 1 "timeline into a missing directory: refused before the run" -- "$K" replay "$G/bcast_tree8.goal" --n 3 --timeline "$CLI_TMP/no/t.json"
if [ -s "$CLI_OUT" ]; then cli_fail "missing directory: a report was printed"; else cli_pass; fi

# Drawings: a row a rank up to 64 ranks, above that rows of several ranks
# (the title says how many), well-formed SVG.
python3 "$(dirname "$0")/support/loggopsim_examples.py" tree 32 > "$CLI_TMP/t32.goal"
python3 "$(dirname "$0")/support/loggopsim_examples.py" dissem 65 > "$CLI_TMP/r65.goal"
expect_exit 0 "65 ranks as JSON" -- "$K" replay "$CLI_TMP/r65.goal" --n 7 --timeline "$CLI_TMP/big.json"
expect_bad "bad drawing name" -- "$K" replay "$G/bcast_tree8.goal" --n 3 --timeline "$(printf 'a\tb.svg')"
if command -v gnuplot > /dev/null; then
    expect_exit 0 "drawn as SVG" -- "$K" replay "$CLI_TMP/t32.goal" --n 5 --ranks-per-node 1 --timeline "$CLI_TMP/t.svg"
    check "the SVG is well-formed XML" -- python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(0 if r.tag.endswith("svg") else 1)' "$CLI_TMP/t.svg"
    expect_exit 0 "drawn as PNG" -- "$K" replay "$CLI_TMP/two.goal" --n 1 --ranks-per-node 2 --model loggp --timeline "$CLI_TMP/t.png"
    expect_exit 0 "65 ranks drawn in rows of 2" -- "$K" replay "$CLI_TMP/r65.goal" --model loggops --timeline "$CLI_TMP/big.svg"
    check "65 ranks: well-formed SVG" -- python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$CLI_TMP/big.svg"
    check "65 ranks: the title names the rows" -- grep -q "65 ranks in 33 rows of 2" "$CLI_TMP/big.svg"
    check "the PNG starts with its signature" -- python3 -c 'import sys; sys.exit(0 if open(sys.argv[1], "rb").read(8) == b"\x89PNG\r\n\x1a\n" else 1)' "$CLI_TMP/t.png"
fi

summary
