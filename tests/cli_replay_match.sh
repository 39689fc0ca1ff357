#!/usr/bin/env bash
# kcube replay (the network): receives matched at run time, and the report
# saying which order the CPUs and NICs took and why (docs/appsim.md
# "Matching and the order"): one case per reason, the LogGOPS line exact,
# or its absence explained in one line.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'
line() { check "$CLI_LAST: the line '$1'" grep -qFx -- "$1" "$CLI_OUT"; }
LG='LogGOPS time with the network'"'"'s zero-load numbers (L 4000 ns, G 1000 ns/byte)'
NO='LogGOPS with the network'"'"'s zero-load numbers (L 4000 ns, G 1000 ns/byte): no time, it deadlocks'
NET=(--n 3 --startup 1 --byte-time 1)

# tags reused: rank 0 posts its second receive first, so at run time rank
# 1's first message goes to it (the file order pairs it with the first):
# LogGOPS's order with LogGOPS's matching, no fallback
printf 'num_ranks 2\nrank 0 {\nc: calc 50000\na: recv 10b from 1 tag 0\nb: recv 10b from 1 tag 0\na requires c\n}\nrank 1 {\ns: send 10b to 0 tag 0\nt: send 10b to 0 tag 0\n}\n' > "$CLI_TMP/reuse.goal"
expect_exit 0 "tags reused, --loggops" -- "$K" replay "$CLI_TMP/reuse.goal" "${NET[@]}" --loggops o=100 --json
expect_stdout_matches "\"order\":${J}\"loggops\",?$"
expect_stdout_matches "\"order_reason\":${J}\"loggops_order\",?$"
expect_exit 0 "tags reused, --loggops, text" -- "$K" replay "$CLI_TMP/reuse.goal" "${NET[@]}" --loggops o=100
line "$LG 68.20 us; the network takes as long as LogGOPS; each CPU and NIC in LogGOPS's order, so never below it"
# no --loggops: the nCUBE 2 model, whose order is the greedy one
expect_exit 0 "no parameters" -- "$K" replay "$CLI_TMP/reuse.goal" "${NET[@]}" --json
expect_stdout_matches "\"order\":${J}\"greedy\",?$"
expect_stdout_matches "\"order_reason\":${J}\"no_loggops_parameters\",?$"
expect_exit 0 "no parameters, text" -- "$K" replay "$CLI_TMP/reuse.goal" "${NET[@]}"
line "$LG 68.00 us; the network is 18.00 us faster than LogGOPS, because g = 0 here: no NIC model, a send does not wait for the injection port as in LogGOPS"

# a gather whose receives take any source and any tag, the senders ready
# in reverse rank order: it runs in both orders, 7 messages delivered
{
    echo "num_ranks 8"
    echo "rank 0 {"
    for i in 1 2 3 4 5 6 7; do echo "r$i: recv 100b from -1 tag -1"; done
    for i in 2 3 4 5 6 7; do echo "r$i requires r$((i - 1))"; done
    echo "}"
    for i in 1 2 3 4 5 6 7; do printf 'rank %d {\nc: calc %d\ns: send 100b to 0 tag %d\ns requires c\n}\n' $i $(((8 - i) * 100000)) $i; done
} > "$CLI_TMP/gather.goal"
expect_exit 0 "wildcard gather, LogGOPS's order" -- "$K" replay "$CLI_TMP/gather.goal" "${NET[@]}" --loggops o=100
line "$LG 803.20 us; the network takes 6.80 us longer than LogGOPS; each CPU and NIC in LogGOPS's order, so never below it"
line "total 810.00 us; contention-free LogGP time 801.00 us"
expect_stdout_contains "7 messages delivered"
expect_exit 0 "wildcard gather, nCUBE 2" -- "$K" replay "$CLI_TMP/gather.goal" "${NET[@]}"
line "total 809.00 us; contention-free LogGP time 801.00 us"
expect_stdout_contains "7 messages delivered"

# LogGOPS deadlocks where the network does not: with L the smallest
# latency rank 7's message reaches rank 0 first and the wildcard takes it,
# so the receive from rank 7 is never matched; on the 3-cube rank 7 is 3
# hops away and rank 1's message, 1 hop, comes first
printf 'num_ranks 8\nrank 0 {\na: recv 100b from -1 tag -1\nb: recv 100b from 7 tag 0\n}\nrank 1 {\nc: calc 5\ns: send 100b to 0 tag 0\ns requires c\n}\nrank 7 {\ns: send 100b to 0 tag 0\n}\n' > "$CLI_TMP/race.goal"
expect_exit 0 "LogGOPS deadlocks: a receive" -- "$K" replay "$CLI_TMP/race.goal" "${NET[@]}" --loggops o=100
line "$NO (rank 0's receive from rank 7, tag 0, line 4, is never matched); so the greedy order (receives matched at run time) and no bound"
line "total 204.10 us; contention-free LogGP time 101.00 us"
expect_exit 0 "LogGOPS deadlocks: JSON" -- "$K" replay "$CLI_TMP/race.goal" "${NET[@]}" --loggops o=100 --json
expect_stdout_matches "\"loggops_us\":${J}null,?$"
expect_stdout_matches "\"order_reason\":${J}\"loggops_deadlock\",?$"
expect_stdout_matches "\"loggops_why\":${J}\"it deadlocks \(rank 0's receive from rank 7, tag 0, line 4, is never matched\)\",?$"
expect_exit 0 "LogGOPS deadlocks, nCUBE 2" -- "$K" replay "$CLI_TMP/race.goal" "${NET[@]}"
line "$NO (rank 0's receive from rank 7, tag 0, line 4, is never matched)"
# rendezvous (S = 50): rank 1's send waits for a receive never matched
expect_exit 0 "LogGOPS deadlocks: a rendezvous" -- "$K" replay "$CLI_TMP/race.goal" "${NET[@]}" --loggops o=100,S=50
line "$NO (rank 1's rendezvous send of 100 bytes > S to rank 0, line 8, is never matched); so the greedy order (receives matched at run time) and no bound"

# both deadlock (each rank's rendezvous send waits for the other's receive,
# which waits for that send): one line, exit 2, naming a receive
printf 'num_ranks 2\nrank 0 {\ns: send 1000b to 1 tag 0\nr: recv 1000b from 1 tag 0\nr requires s\n}\nrank 1 {\ns: send 1000b to 0 tag 0\nr: recv 1000b from 0 tag 0\nr requires s\n}\n' > "$CLI_TMP/head.goal"
expect_bad "both deadlock" -- "$K" replay "$CLI_TMP/head.goal" --n 1 --loggops S=100
check "$CLI_LAST: the line" grep -qFx -- "kcube: 4 of 4 operations never complete: a deadlock (rank 0's receive from rank 1, tag 0, line 4, is never matched)" "$CLI_ERR"

summary
