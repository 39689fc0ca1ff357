#!/usr/bin/env bash
# kcube replay --model network --loggops o,g,O,S: the
# LogGOPS CPU and NIC on the flit-level network. Hand-computed ping-pong
# (docs/appsim.md), o = g = O = 0 with S = inf giving the default run's
# output byte for byte, the gap report, and L / G refused (exit 2).
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'
G="$(dirname "$0")/goal"
PP="$G/pingpong.goal"

# o = 2 µs at both ends: each way 10 + 2 + (100 + 2) + 2 = 116 µs; LogGOPS
# with L = 10 + 3 cycles and G = 1 µs/byte says the same
expect_exit 0 "ping-pong, o" -- "$K" replay "$PP" --n 1 --startup 10 --byte-time 1 --loggops o=2000 --json
expect_stdout_matches "\"total_us\":${J}232,?$"
expect_stdout_matches "\"loggops_us\":${J}232,?$"
expect_stdout_matches "\"L\":${J}13000,?$"
expect_stdout_matches "\"channel_wait\":${J}0,?$"
# the NIC model (g > 0) and rendezvous (S = 50): still 232
expect_exit 0 "ping-pong, g O S" -- "$K" replay "$PP" --n 1 --startup 10 --byte-time 1 --loggops o=2000,g=1000,O=10,S=50 --json
expect_stdout_matches "\"total_us\":${J}232,?$"
expect_stdout_matches "\"S\":${J}50,?$"

# o = g = O = 0, S = inf is the nCUBE 2 model: same output as no --loggops
# (but for the CPU and NIC line), on the example schedules and defaults
for f in "$G"/*.goal; do
    n=4
    "$K" replay "$f" --n $n > "$CLI_TMP/a.txt" 2> /dev/null || continue
    "$K" replay "$f" --n $n --loggops o=0,g=0,O=0,S=inf | grep -v '^CPU and NIC' > "$CLI_TMP/b.txt"
    check "zero parameters = default: $(basename "$f")" cmp -s "$CLI_TMP/a.txt" "$CLI_TMP/b.txt"
done

# the text report splits the network's time
expect_exit 0 "text" -- "$K" replay "$PP" --n 1 --startup 10 --byte-time 1 --loggops o=1000,g=500
expect_stdout_contains "CPU and NIC (LogGOPS): o 1000 ns, g 500 ns, O 0 ns/byte, S inf"
expect_stdout_contains "LogGOPS time with the network's zero-load numbers"
expect_stdout_contains "waiting for channels (contention)"
expect_stdout_contains "for the injection port"
expect_exit 0 "csv" -- "$K" replay "$PP" --n 1 --startup 10 --byte-time 1 --csv
expect_stdout_contains 'loggops,224.000000'
expect_stdout_contains 'channel_wait,0.000000'

# L and G are the network's
expect_bad "L refused" -- "$K" replay "$PP" --n 1 --loggops L=5
expect_bad "G refused" -- "$K" replay "$PP" --n 1 --loggops o=1,G=5
expect_bad "bad item" -- "$K" replay "$PP" --n 1 --loggops o=x
expect_bad "loggp model" -- "$K" replay "$PP" --n 1 --model loggp --loggops o=1

# the order in which each CPU and NIC takes its work: LogGOPS's, and the
# difference along the critical path (docs/appsim.md; the incast of
# tests/test_appsim.c: channels 100 us)
cat > "$CLI_TMP/incast.goal" <<'GOAL'
num_ranks 4
rank 0 {
a: send 100b to 3 tag 0
}
rank 1 {
a: send 100b to 3 tag 1
}
rank 3 {
a: recv 100b from 0 tag 0
b: recv 100b from 1 tag 1
}
GOAL
expect_exit 0 "critical path json" -- "$K" replay "$CLI_TMP/incast.goal" --n 2 --startup 10 --byte-time 1 --loggops o=1000 --json
expect_stdout_matches "\"order\":${J}\"loggops\",?$"
expect_stdout_matches "\"total_us\":${J}314,?$"
expect_stdout_matches "\"loggops_us\":${J}214,?$"
expect_stdout_matches "\"channel_wait\":${J}100,?$"
expect_stdout_matches "\"elsewhere\":${J}-1,?$"
expect_exit 0 "critical path csv" -- "$K" replay "$CLI_TMP/incast.goal" --n 2 --startup 10 --byte-time 1 --loggops o=1000 --csv
expect_stdout_contains 'path_channel_wait,100.000000'
expect_stdout_contains 'path_pipeline,1.000000'
expect_exit 0 "critical path text" -- "$K" replay "$CLI_TMP/incast.goal" --n 2 --startup 10 --byte-time 1 --loggops o=1000
expect_stdout_contains "the network's 314.00 us along its critical path (4 steps, 1 messages)"
expect_stdout_contains "the network takes 100.00 us longer than LogGOPS"
expect_stdout_contains "messages at zero load 113.00 us"
expect_stdout_contains "channels (contention) 100.00 us"
expect_stdout_contains "never below it"
# without parameters (nCUBE 2, the greedy order): 213 against LogGOPS's 211
expect_exit 0 "no parameters: greedy, its path" -- "$K" replay "$CLI_TMP/incast.goal" --n 2 --startup 10 --byte-time 1 --json
expect_stdout_matches "\"order\":${J}\"greedy\",?$"
expect_stdout_matches "\"elsewhere\":${J}-99,?$"
expect_stdout_matches "\"channel_wait\":${J}100,?$"

# a wildcard receive matched otherwise than in file order (rank 2's message
# comes first): the replay takes LogGOPS's run-time matching and its order
printf 'num_ranks 3\nrank 0 {\na: recv 1000b from -1 tag 5\nb: recv 1000b from -1 tag 5\n}\nrank 1 {\nc: calc 900000\ns: send 1000b to 0 tag 5\ns requires c\n}\nrank 2 {\ns: send 1000b to 0 tag 5\n}\n' > "$CLI_TMP/wild.goal"
expect_exit 0 "wildcards: LogGOPS's order" -- "$K" replay "$CLI_TMP/wild.goal" --n 2 --loggops o=100 --json
expect_stdout_matches "\"order\":${J}\"loggops\",?$"
expect_exit 0 "wildcards: text" -- "$K" replay "$CLI_TMP/wild.goal" --n 2 --loggops o=100
expect_stdout_contains "each CPU and NIC in LogGOPS's order, so never below it"

# cpu numbers: honoured with --loggops (no warning), ignored without
printf 'num_ranks 2\nrank 0 {\na: calc 5000 cpu 1\nb: calc 3000\nc: send 10b to 1 tag 0 cpu 1\nc requires a\n}\nrank 1 {\na: recv 10b from 0 tag 0\nb: calc 4000 cpu 1\n}\n' > "$CLI_TMP/cpu.goal"
expect_exit 0 "cpu numbers, --loggops" -- "$K" replay "$CLI_TMP/cpu.goal" --n 1 --startup 0 --byte-time 1 --loggops o=1000,g=500
expect_stdout_contains "total 19.00 us"
check "no warning with --loggops" test ! -s "$CLI_ERR"
expect_exit 0 "cpu numbers, nCUBE 2" -- "$K" replay "$CLI_TMP/cpu.goal" --n 1 --startup 0 --byte-time 1
expect_stdout_contains "total 20.00 us"
expect_stderr_contains "cpu and nic numbers are ignored"

summary
