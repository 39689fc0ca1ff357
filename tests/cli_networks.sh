#!/usr/bin/env bash
# Machine presets and their launch files on the command line: kcube
# --list-networks lists every preset of data/networks (golden text);
# --network NAME and --network FILE resolve to the preset's network
# (Sequoia: 98,304 routers, its last router's coordinates in a Blue Gene/Q
# mapfile); combining a preset with --shape/--k/--n/--topology/--wrap, an
# unknown name or a bad file is one line, exit 2; bgq-mapfile,
# fujitsu-rankmap and the host formats on a small general network with
# endpoints and an allocation match golden text; a rank off the allocation
# is refused.
# Usage: cli_networks.sh PATH/TO/kcube
. "$(dirname "$0")/support/cli_lib.sh"
KCUBE=$1
T=$CLI_TMP

expect_exit 0 "--list-networks" -- "$KCUBE" --list-networks
check "listing golden" -- diff - "$CLI_OUT" <<'GOLD'
name            shape              axes         rings         C  routers  title
accel-torus-16  16x16x16           X,Y,Z        X,Y,Z         1     4096  Accelerator pod, 3-D torus 16x16x16 (4096 chips)
bgq-midplane    4x4x4x4x2          A,B,C,D,E    A,B,C,D,E     1      512  IBM Blue Gene/Q midplane (512 nodes)
bgq-rack        4x4x4x8x2          A,B,C,D,E    A,B,C,D,E     1     1024  IBM Blue Gene/Q rack, two midplanes (1024 nodes)
fugaku          24x23x24x2x3x2     X,Y,Z,a,b,c  X,Y,Z,b       1   158976  Fugaku, RIKEN (Fujitsu Tofu-D, 158,976 nodes)
k-computer      24x18x17x2x3x2     X,Y,Z,a,b,c  X,Y,Z,b       1    88128  K computer, RIKEN (Fujitsu Tofu, 88,128 nodes)
mira            8x12x16x16x2       A,B,C,D,E    A,B,C,D,E     1    49152  Mira, ANL (IBM Blue Gene/Q, 48 racks, 49,152 nodes)
sequoia         16x12x16x16x2      A,B,C,D,E    A,B,C,D,E     1    98304  Sequoia, LLNL (IBM Blue Gene/Q, 96 racks, 98,304 nodes)
titan           25x16x24           X,Y,Z        X,Y,Z         2     9600  Titan, ORNL (Cray XK7, Gemini 3-D torus, 2 nodes per router)
GOLD
expect_bad "--list-networks with an argument" -- "$KCUBE" --list-networks x

# --network sequoia: the identity on its 98,304 routers, as a mapfile.
seq 0 98303 > "$T/seq.txt"
expect_exit 0 "sequoia bgq-mapfile" -- "$KCUBE" export --network sequoia --mapping "$T/seq.txt" --format bgq-mapfile
check "98,304 lines" -- test "$(wc -l < "$CLI_OUT")" -eq 98304
check "first router" -- test "$(head -1 "$CLI_OUT")" = "0 0 0 0 0 0"
check "router 1 is A = 1" -- test "$(sed -n 2p "$CLI_OUT")" = "1 0 0 0 0 0"
check "last router" -- test "$(tail -1 "$CLI_OUT")" = "15 11 15 15 1 0"
printf '98304\n' > "$T/over.txt"
expect_bad "endpoint beyond sequoia" -- "$KCUBE" export --network sequoia --mapping "$T/over.txt" --format nodelist
expect_stderr_contains "line 1"

# A preset by path, and the refusals.
cp "$(dirname "$0")/../data/networks/titan.net" "$T/titan.net"
printf '19199\n' > "$T/last.txt"
expect_exit 0 "titan by path" -- "$KCUBE" export --network "$T/titan.net" --mapping "$T/last.txt" --format bgq-mapfile
check "titan's last endpoint: router 9599, T = 1" -- test "$(cat "$CLI_OUT")" = "24 15 23 1"
for opt in "--shape 4x4" "--k 4" "--n 3" "--topology mesh" "--wrap 0"; do
    # shellcheck disable=SC2086
    expect_bad "--network with $opt" -- "$KCUBE" analyze --network titan $opt --pattern transpose
    expect_stderr_contains "does not apply with --network"
done
expect_bad "unknown network" -- "$KCUBE" analyze --network nosuch --pattern transpose
expect_stderr_contains "no such network"
expect_bad "not a name" -- "$KCUBE" analyze --network 'Bad Name' --pattern transpose
printf 'name x\naxes A B\nsides 4 1\n' > "$T/bad.net"
expect_bad "bad preset file" -- "$KCUBE" analyze --network "$T/bad.net" --pattern transpose
expect_stderr_contains "line 3, column 9"

# A small general network: 3x2 torus/mesh mix, 2 endpoints per router,
# an allocation of routers 1, 4, 5; ranks on endpoints 3, 8, 9, 11.
printf '1\n4\n5\n' > "$T/alloc.txt"
printf '3\n8\n11\n9\n' > "$T/map.txt"
NET=(--shape 3x2 --wrap 0 --endpoints 2 --nodes "$T/alloc.txt" --mapping "$T/map.txt")
expect_exit 0 "bgq-mapfile" -- "$KCUBE" export "${NET[@]}" --format bgq-mapfile
check "bgq-mapfile golden" -- diff - "$CLI_OUT" <<'GOLD'
1 0 1
1 1 0
2 1 1
1 1 1
GOLD
expect_exit 0 "fujitsu-rankmap" -- "$KCUBE" export "${NET[@]}" --format fujitsu-rankmap
check "fujitsu-rankmap golden" -- diff - "$CLI_OUT" <<'GOLD'
(1,0)
(1,1)
(2,1)
(1,1)
GOLD
expect_exit 0 "openmpi-rankfile" -- "$KCUBE" export "${NET[@]}" --format openmpi-rankfile --hosts nid%02d \
    --slots-per-host 2
check "rankfile golden" -- diff - "$CLI_OUT" <<'GOLD'
rank 0=nid01 slot=1
rank 1=nid04 slot=0
rank 2=nid05 slot=1
rank 3=nid04 slot=1
GOLD
expect_exit 0 "mpich-rank-order" -- "$KCUBE" export "${NET[@]}" --format mpich-rank-order --hosts nid%02d \
    --slots-per-host 2
check "rank order golden" -- diff - <(grep -v '^#' "$CLI_OUT") <<'GOLD'
0
1,3
2
GOLD
expect_exit 0 "slurm-hostfile" -- "$KCUBE" export "${NET[@]}" --format slurm-hostfile --hosts nid%02d \
    --slots-per-host 2
check "hostfile golden" -- diff - "$CLI_OUT" <<'GOLD'
nid01
nid04
nid05
nid04
GOLD
expect_exit 0 "scotch-map" -- "$KCUBE" export "${NET[@]}" --format scotch-map
check "scotch golden" -- diff - "$CLI_OUT" <<'GOLD'
4
0	3
1	8
2	11
3	9
GOLD
# A machine file in the coordinate form names the endpoint T after the coordinates.
{ for r in 0 1 2 3 4 5; do for e in 0 1; do echo "h$r $((r % 3)) $((r / 3)) $e"; done; done; } > "$T/machine.txt"
expect_exit 0 "machine file with T" -- "$KCUBE" export "${NET[@]}" --format slurm-hostfile --machine "$T/machine.txt"
check "machine hosts" -- test "$(tr '\n' ' ' < "$CLI_OUT")" = "h1 h4 h5 h4 "
printf '0\n' > "$T/off.txt"
expect_bad "rank off the allocation" -- "$KCUBE" export --shape 3x2 --endpoints 2 --nodes "$T/alloc.txt" \
    --mapping "$T/off.txt" --format bgq-mapfile
expect_stderr_contains "not in the allocation"
printf '3\n3\n' > "$T/twice.txt"
expect_bad "an endpoint twice" -- "$KCUBE" export --shape 3x2 --endpoints 2 --mapping "$T/twice.txt" \
    --format fujitsu-rankmap
seq 0 12 > "$T/many.txt"
expect_bad "more ranks than slots" -- "$KCUBE" export --shape 3x2 --endpoints 2 --mapping "$T/many.txt" \
    --format nodelist
summary
