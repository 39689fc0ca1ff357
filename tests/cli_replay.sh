#!/usr/bin/env bash
# kcube replay: GOAL schedules on the flit-level network. Hand-computed
# times (docs/appsim.md: LogGP plus the pipeline latency), mappings, the
# example schedules, output formats, and one clear error line with exit 2
# for bad input.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'
G="$(dirname "$0")/goal"

cat > "$CLI_TMP/pp.goal" <<'GOAL'
num_ranks 2
rank 0 {
// kcube-phase ping
l1: send 100b to 1 tag 0
// kcube-phase pong
l2: recv 100b from 1 tag 0
l2 requires l1
}
rank 1 {
// kcube-phase ping
l1: recv 100b from 0 tag 0
// kcube-phase pong
l2: send 100b to 0 tag 0
l2 requires l1
}
GOAL
cat > "$CLI_TMP/chain.goal" <<'GOAL'
num_ranks 3
rank 0 {
l1: send 100b to 1 tag 0
l2: calc 50000
}
rank 1 {
c: calc 100000
r: recv 100b from 0 tag 0
s: send 200b to 2 tag 0
s requires r
}
rank 2 {
r: recv 200b from 1 tag 0
}
GOAL

# ping-pong: 2 (10 + 100 + 2) = 224 µs, LogGP 220
expect_exit 0 "ping-pong" -- "$K" replay "$CLI_TMP/pp.goal" --n 1 --startup 10 --byte-time 1 --json
expect_stdout_matches "\"total_us\":${J}224,?$"
expect_stdout_matches "\"loggp_us\":${J}220,?$"
expect_stdout_matches "\"messages\":${J}2,?$"
expect_stdout_matches "\"ping\":${J}112,?$"
expect_stdout_matches "\"pong\":${J}214,?$"
expect_stdout_contains '"link_utilisation"'
expect_stdout_contains '"finish_us"'
# nCUBE 2 defaults: injection at the next 0.57 µs cycle: 780 cycles = 444.6 µs
expect_exit 0 "ping-pong, defaults" -- "$K" replay "$CLI_TMP/pp.goal" --n 3 --json
expect_stdout_matches "\"total_us\":${J}444.6"
expect_stdout_matches "\"loggp_us\":${J}442"
# 4 bytes per flit at 0.5 µs a byte: 2 x 32 cycles of 2 µs
expect_exit 0 "bytes per flit" -- "$K" replay "$CLI_TMP/pp.goal" --n 1 --startup 10 --byte-time 0.5 --bytes-per-flit 4 --json
expect_stdout_matches "\"total_us\":${J}128,?$"

# chain on the 2-cube: 0 -> 1 one hop, 1 -> 2 two hops: 325 µs; mapping rank
# 2 to node 3 makes the second message one hop: 324 µs
expect_exit 0 "chain" -- "$K" replay "$CLI_TMP/chain.goal" --n 2 --startup 10 --byte-time 1 --json
expect_stdout_matches "\"total_us\":${J}325,?$"
expect_stdout_matches "\"compute_us\":${J}100,?$"
printf '0 1 3 2\n' > "$CLI_TMP/swap.map"
expect_exit 0 "chain mapped" -- "$K" replay "$CLI_TMP/chain.goal" --n 2 --startup 10 --byte-time 1 --mapping "$CLI_TMP/swap.map" --json
expect_stdout_matches "\"total_us\":${J}324,?$"
expect_stdout_contains '"mapping":'

# text and CSV
expect_exit 0 "text" -- "$K" replay "$CLI_TMP/chain.goal" --n 2
expect_stdout_contains "contention-free LogGP time"
expect_stdout_contains "2 messages delivered" "text: message count"
expect_exit 0 "csv" -- "$K" replay "$CLI_TMP/pp.goal" --n 1 --startup 10 --byte-time 1 --csv
expect_stdout_contains 'item,us'
expect_stdout_contains 'total,224.000000'

# the example schedules (LogGOPSim's shapes), other networks and routings
for f in bcast_tree8 dissemination8; do
    expect_exit 0 "$f" -- "$K" replay "$G/$f.goal" --n 3 --json
    expect_stdout_matches "\"deadlock\":${J}false"
done
expect_exit 0 "features (warning)" -- "$K" replay "$G/features.goal" --n 3
expect_stderr_contains "warning"
expect_exit 0 "torus" -- "$K" replay "$G/dissemination8.goal" --k 4 --n 2 --json
expect_exit 0 "mesh" -- "$K" replay "$G/dissemination8.goal" --k 4 --n 2 --topology mesh --json
expect_exit 0 "li-min" -- "$K" replay "$G/bcast_tree8.goal" --n 3 --routing li-min --json
expect_stdout_matches "\"routing\":${J}\"li-min\""

# bad input: exit 2, one line
printf 'num_ranks 2\nrank 0 {\nl1: sned 4b to 1\n}\n' > "$CLI_TMP/bad.goal"
expect_bad "syntax" -- "$K" replay "$CLI_TMP/bad.goal" --n 2
expect_stderr_contains "line 3"
expect_bad "too many ranks" -- "$K" replay "$G/bcast_tree8.goal" --n 2
expect_bad "no --n" -- "$K" replay "$CLI_TMP/pp.goal"
expect_bad "no file" -- "$K" replay --n 2
expect_bad "missing file (the user named it: exit 2)" -- "$K" replay "$CLI_TMP/none.goal" --n 2
expect_bad "bad routing" -- "$K" replay "$CLI_TMP/pp.goal" --n 2 --routing zigzag
expect_bad "optimal mapping" -- "$K" replay "$CLI_TMP/pp.goal" --n 2 --mapping optimal
printf '0 1 2\n' > "$CLI_TMP/short.map"
expect_bad "short mapping" -- "$K" replay "$CLI_TMP/pp.goal" --n 2 --mapping "$CLI_TMP/short.map"
expect_bad "zero byte time" -- "$K" replay "$CLI_TMP/pp.goal" --n 2 --byte-time 0
expect_bad "negative start-up" -- "$K" replay "$CLI_TMP/pp.goal" --n 2 --startup -1
expect_bad "mesh without k" -- "$K" replay "$CLI_TMP/pp.goal" --n 2 --topology mesh
expect_bad "json and csv" -- "$K" replay "$CLI_TMP/pp.goal" --n 2 --json --csv

summary
