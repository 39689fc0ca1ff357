#!/usr/bin/env bash
# kcube calmant: the seed's figures (Fig. 4 on a 16-node line, Fig. 7 on 16x16),
# loads, a cost checked step by step against the verified schedules, the JSON
# fields, and one error line with exit 2 for every bad input (each option out of range,
# malformed or contradicting another).
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'

json_num() { sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\([-0-9.e+]*\),\{0,1\}$/\1/p" "$CLI_OUT" | head -1; }

# Fig. 4: <1,2>_1 on a 16-node line takes 4 steps = LB, conflict-free
expect_exit 0 "fig 4 schedule" -- "$K" calmant schedule --d 4 --c 1 --task 1,2 --verify --json
expect_stdout_matches "\"steps\":${J}4,"
expect_stdout_matches "\"lower_bound\":${J}4,"
expect_stdout_matches "\"conflicts\":${J}0,"
expect_stdout_matches "\"missing\":${J}0,"
expect_exit 0 "fig 4 text" -- "$K" calmant schedule --d 4 --c 1 --task 1,2 --verify
expect_stdout_contains "32 messages in 4 steps, lower bound 4"
expect_stdout_contains "0 conflicts, 0 missing, 0 unexpected"
expect_exit 0 "fig 4 load" -- "$K" calmant load --d 4 --c 1 --task 1,2 --json
expect_stdout_matches "\"max_load\":${J}4,"
# --n is the CC-cube dimension's name, as everywhere; --d its old spelling
expect_exit 0 "fig 4 load, --n" -- "$K" calmant load --n 4 --c 1 --task 1,2 --json
expect_stdout_matches "\"max_load\":${J}4,"
expect_stdout_matches "\"lower_bound\":${J}4,"
expect_stdout_matches "\"closed_form_load\":${J}4,"
# Fig. 5: <2,1>_1, 4 steps
expect_exit 0 "fig 5 schedule" -- "$K" calmant schedule --d 4 --c 1 --task 2,1 --verify --json
expect_stdout_matches "\"steps\":${J}4,"

# Figs. 6-7: <3,4>_2 on 16x16, 8 steps = LB
expect_exit 0 "fig 7 schedule" -- "$K" calmant schedule --d 8 --c 2 --task 3,4 --verify --json
expect_stdout_matches "\"steps\":${J}8,"
expect_stdout_matches "\"lower_bound\":${J}8,"
expect_stdout_matches "\"conflicts\":${J}0,"
expect_stdout_matches "\"side\":${J}16,"
expect_exit 0 "fig 7 load" -- "$K" calmant load --d 8 --c 2 --task 3,4 --json
expect_stdout_matches "\"max_load\":${J}8,"
# <0,10>_2: 22 steps against LB 21 (docs/calmant.md), still conflict-free
expect_exit 0 "<0,10>_2" -- "$K" calmant schedule --d 10 --c 2 --task 0,10 --verify --json
expect_stdout_matches "\"steps\":${J}22,"
expect_stdout_matches "\"lower_bound\":${J}21,"
expect_stdout_matches "\"conflicts\":${J}0,"
# without --verify: the generator's count, conflicts not checked
expect_exit 0 "no verify" -- "$K" calmant schedule --d 6 --c 1 --task 0,6 --json
expect_stdout_matches "\"steps\":${J}42,"
expect_stdout_matches "\"conflicts\":${J}null"

# Matic's embedding and tori (loads from the counter)
expect_exit 0 "matic load" -- "$K" calmant load --d 4 --c 1 --task 1,2 --embedding matic --json
expect_stdout_matches "\"embedding\":${J}\"matic\""
expect_exit 0 "torus plus" -- "$K" calmant load --d 4 --c 1 --task 3,1 --topology torus --json
expect_stdout_matches "\"max_load\":${J}8,"
expect_exit 0 "torus split" -- "$K" calmant load --d 4 --c 1 --task 3,1 --topology torus --tie split --json
expect_stdout_matches "\"max_load\":${J}4,"
# the mesh schedule through a top dimension conflicts on a torus: exit 1, every conflict listed with --verbose
expect_exit 1 "torus replay conflicts" -- "$K" calmant schedule --d 4 --c 1 --task 2,2 --topology torus --mesh-schedule --verify --verbose --json
expect_stdout_matches "\"conflicts\":${J}32,"
expect_stdout_matches "\"first_conflict\":${J}\".*two messages on one directed link"
check "JSON lists all 32 conflicts" -- test "$(grep -c '"kind":' "$CLI_OUT")" = 32
expect_stdout_matches "\"conflicts_not_listed\":${J}0"
expect_stdout_matches "\"kind\":${J}\"link\","
expect_exit 1 "torus replay conflicts, text" -- "$K" calmant schedule --d 4 --c 1 --task 2,2 --topology torus --mesh-schedule --verify --verbose
check "text lists all 32 conflicts" -- test "$(grep -c '^conflict [0-9]*: step ' "$CLI_OUT")" = 32
expect_stdout_contains "conflict 1: step 0, link twice at node 0, axis 0 + (message 12 -> 4)"
expect_stdout_contains "conflict 32: "
# a 3-D torus (side 4, plus ties): 96 conflicts, the list as long as the count
expect_exit 1 "3-D torus replay, all listed" -- "$K" calmant schedule --d 6 --c 3 --task 0,6 --topology torus --tie plus --mesh-schedule --verify --verbose --json
n=$(json_num conflicts)
check "3-D list length = count ($n)" -- test "$(grep -c '"kind":' "$CLI_OUT")" = "$n"
# beyond 100000 conflicts the list stops and says how many it left out (2097152 in all here)
expect_exit 1 "conflict list cap" -- "$K" calmant schedule --d 12 --c 1 --task 0,12 --topology torus --mesh-schedule --verify --verbose
check "100000 conflicts listed" -- test "$(grep -c '^conflict [0-9]*: step ' "$CLI_OUT")" = 100000
expect_stdout_contains "1997152 more conflicts not listed (at most 100000 are)"
# kcube's torus schedules: conflict-free at the counter's lower bound (<2,2>_1: 12 with plus ties, 8 with split)
expect_exit 0 "torus schedule plus" -- "$K" calmant schedule --d 4 --c 1 --task 2,2 --topology torus --verify --verbose --json
expect_stdout_matches "\"steps\":${J}12,"
expect_stdout_matches "\"lower_bound\":${J}12,"
expect_stdout_matches "\"conflicts\":${J}0,"
expect_stdout_matches "\"conflict_list\":${J}\[\]"
expect_exit 0 "torus schedule split" -- "$K" calmant schedule --d 4 --c 1 --task 2,2 --topology torus --tie split --verify --json
expect_stdout_matches "\"steps\":${J}8,"
expect_stdout_matches "\"lower_bound\":${J}8,"
for tie in plus minus split; do
    expect_exit 0 "torus <0,8>_2 $tie" -- "$K" calmant schedule --d 8 --c 2 --task 0,8 --topology torus --tie $tie --verify --json
    expect_stdout_matches "\"conflicts\":${J}0,"
done
expect_exit 0 "torus without a top dimension" -- "$K" calmant schedule --d 8 --c 2 --task 0,4 --topology torus --verify --json
expect_stdout_matches "\"conflicts\":${J}0,"

# cost: the time is the sum over the pipelined iterations of the verified
# schedules' steps times (beta + L tau), plus (d+Q-1) b. d = 8, c = 2, Q = 4:
# prologue <0,1> <0,2> <0,3>, kernel <k,4> k = 0..4, epilogue <5,3> <6,2> <7,1>.
steps=0
for t in 0,1 0,2 0,3 0,4 1,4 2,4 3,4 4,4 5,3 6,2 7,1; do
    expect_exit 0 "iteration $t" -- "$K" calmant schedule --d 8 --c 2 --task "$t" --verify --json
    expect_stdout_matches "\"conflicts\":${J}0,"
    steps=$((steps + $(json_num steps)))
done
want=$((steps * (100 + 4096 / 4) + 11 * 10))
expect_exit 0 "cost degree 4" -- "$K" calmant cost --d 8 --c 2 --bytes 4096 --startup 100 --byte-time 1 --barrier 10 --degree 4 --json
expect_stdout_matches "\"degree\":${J}4,"
check "cost = sum of verified steps ($steps steps, $want)" -- test "$(json_num time)" = "$want"
expect_stdout_matches "\"steps\":${J}${steps},"
# Q = 1 is the unpipelined CC-cube: c (2^(d/c) - 1) = 30 steps of beta + N tau, d barriers
expect_stdout_matches "\"time_unpipelined\":${J}$((30 * (100 + 4096) + 8 * 10)),"
expect_exit 0 "cost degree 1" -- "$K" calmant cost --d 8 --c 2 --bytes 4K --startup 100 --byte-time 1 --degree 1 --json
expect_stdout_matches "\"time\":${J}$((30 * (100 + 4096))),"
# the best degree is no worse than the degrees around it
expect_exit 0 "best degree" -- "$K" calmant cost --d 8 --c 2 --bytes 4096 --startup 100 --byte-time 1 --json
expect_stdout_matches "\"best_degree\":${J}true"
best=$(json_num time); q=$(json_num degree)
for dq in -1 1; do
    expect_exit 0 "degree $((q + dq))" -- "$K" calmant cost --d 8 --c 2 --bytes 4096 --startup 100 --byte-time 1 --degree $((q + dq)) --json
    check "best $best <= degree $((q + dq))'s" -- awk -v a="$best" -v b="$(json_num time)" 'BEGIN { exit !(a <= b) }'
done
expect_exit 0 "cost text" -- "$K" calmant cost --d 8 --c 2 --bytes 4096 --startup 100 --byte-time 1 --degree 4
expect_stdout_contains "degree 4: 11 iterations, packets of 1024 bytes"

# help lists the subcommands and says alltoall is not built
expect_exit 0 "group help" -- "$K" calmant --help
expect_stdout_contains "alltoall"
expect_stdout_contains "schedule"
expect_exit 0 "cost help" -- "$K" calmant cost --help
expect_stdout_contains "microseconds"

# bad input: one line, exit 2
expect_bad "d not a multiple of c" -- "$K" calmant load --d 5 --c 2 --task 0,1
expect_stderr_contains "--d: d = 5 is not a multiple"
expect_bad "d/c < 2" -- "$K" calmant schedule --d 3 --c 3 --task 0,1
expect_stderr_contains "d/c >= 2"
expect_bad "c = 4" -- "$K" calmant load --d 8 --c 4 --task 0,1
expect_bad "task I = d" -- "$K" calmant load --d 4 --c 1 --task 4,1
expect_stderr_contains "--task: the first dimension I = 4 is outside 0..3"
expect_bad "task I < 0" -- "$K" calmant schedule --d 4 --c 1 --task -1,2
expect_bad "task past d" -- "$K" calmant schedule --d 4 --c 1 --task 2,3
expect_stderr_contains "exceed d - 1 = 3"
expect_bad "M < 1" -- "$K" calmant load --d 4 --c 1 --task 1,0
expect_stderr_contains "M >= 1"
for t in "1x2" "1," ",2" "1,2," " 1,2" "1,2 " "a,b" "99999999999,1" "1,,2"; do
    expect_bad "malformed task '$t'" -- "$K" calmant load --d 4 --c 1 --task "$t"
    expect_stderr_contains "--task: a task is written I,M"
done
expect_bad "empty task" -- "$K" calmant load --d 4 --c 1 --task ""
expect_bad "degree 0" -- "$K" calmant cost --d 8 --c 2 --bytes 4096 --startup 100 --byte-time 1 --degree 0
expect_stderr_contains "--degree: the pipelining degree must be at least 1"
expect_bad "degree -3" -- "$K" calmant cost --d 8 --c 2 --bytes 4096 --startup 100 --byte-time 1 --degree -3
expect_bad "bytes 0" -- "$K" calmant cost --d 8 --c 2 --bytes 0 --startup 100 --byte-time 1
expect_bad "negative startup" -- "$K" calmant cost --d 8 --c 2 --bytes 1 --startup -1 --byte-time 1
expect_bad "degree and best" -- "$K" calmant cost --d 8 --c 2 --bytes 1 --startup 1 --byte-time 1 --degree 2 --best-degree
expect_bad "cost without --bytes" -- "$K" calmant cost --d 8 --c 2 --startup 1 --byte-time 1
expect_bad "no task" -- "$K" calmant load --d 4 --c 1
expect_bad "no d" -- "$K" calmant load --c 1 --task 1,2
expect_bad "hypercube" -- "$K" calmant load --d 4 --c 1 --task 1,2 --topology hypercube
expect_bad "tie on a mesh" -- "$K" calmant load --d 4 --c 1 --task 1,2 --tie split
expect_bad "mesh schedule on a mesh" -- "$K" calmant schedule --d 4 --c 1 --task 1,2 --mesh-schedule --verify
expect_bad "verbose without verify" -- "$K" calmant schedule --d 4 --c 1 --task 1,2 --verbose
expect_bad "embedding on schedule" -- "$K" calmant schedule --d 4 --c 1 --task 1,2 --embedding matic
expect_bad "csv" -- "$K" calmant load --d 4 --c 1 --task 1,2 --csv
expect_bad "alltoall not built" -- "$K" calmant alltoall --d 4 --c 1
expect_bad "no subcommand" -- "$K" calmant
expect_bad "load d > 24" -- "$K" calmant load --d 26 --c 2 --task 0,1
expect_bad "schedule d > 20" -- "$K" calmant schedule --d 22 --c 2 --task 0,1

summary
