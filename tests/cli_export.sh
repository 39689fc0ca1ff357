#!/usr/bin/env bash
# Machine descriptions and exports on the command line: `kcube map --export FORMAT
# --out FILE` and `kcube export` write every format, each read back and
# checked against the node list and the machine description (a file or the
# --hosts rule); bad descriptions exit 2 with one line naming the line and
# column; Open MPI's mpirun accepts an exported rankfile on this host
# and binds each rank where the file says; and a description that gives this
# machine (localhost or its host name) more slots than it has processors
# online is exported with one warning line, exit 0 (mpirun --rankfile exits
# 1 on such a file, without a word). Exits 77 when mpirun is missing.
# Usage: cli_export.sh PATH/TO/kcube
. "$(dirname "$0")/support/cli_lib.sh"
KCUBE=$1
T=$CLI_TMP

# A mapping worth exporting: transpose on the 6-cube (64 nodes), 8 slots a host.
expect_exit 0 "map --out" -- "$KCUBE" map --n 6 --pattern transpose --out "$T/nodes.txt"
check "64 lines" -- test "$(wc -l < "$T/nodes.txt")" -eq 64
# Reading back: rank v on node p = line v of nodes.txt, host h(p / 8), slot p % 8.
readback() { # FORMAT FILE -> 0 when FILE says what nodes.txt and the rule say
    awk -v fmt="$1" -v R=8 '
        FNR == NR { phys[FNR - 1] = $1; virt[$1] = FNR - 1; n = FNR; next }
        fmt == "nodelist" { if ($1 != phys[FNR - 1]) bad = 1; got++ }
        fmt == "scotch-map" { if (FNR == 1) { if ($1 != n) bad = 1; next }
                              if ($1 != FNR - 2 || $2 != phys[$1]) bad = 1; got++ }
        fmt == "slurm-hostfile" { if ($1 != "h" int(phys[FNR - 1] / R)) bad = 1; got++ }
        fmt == "openmpi-rankfile" { split($0, f, /[ =]/)
            v = f[2]; if (f[1] != "rank" || v != got || f[3] != "h" int(phys[v] / R) || $3 != "slot=" phys[v] % R) bad = 1
            got++ }
        fmt == "mpich-rank-order" && !/^#/ { k = split($0, f, ","); if (k != R) bad = 1
            for (i = 1; i <= k; i++) { if (f[i] != virt[got]) bad = 1; got++ } }
        END { exit bad || got != n }' "$T/nodes.txt" "$2"
}
for fmt in nodelist openmpi-rankfile mpich-rank-order slurm-hostfile scotch-map; do
    hosts=(--hosts h%d --ranks-per-node 8)
    [ $fmt = nodelist ] || [ $fmt = scotch-map ] && hosts=()
    expect_exit 0 "map --export $fmt" -- "$KCUBE" map --n 6 --pattern transpose --export $fmt --out "$T/map.$fmt" \
        "${hosts[@]}"
    check "map --export $fmt reads back" -- readback $fmt "$T/map.$fmt"
    expect_exit 0 "export --format $fmt" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format $fmt \
        "${hosts[@]}" --out "$T/exp.$fmt"
    check "export and map --export agree ($fmt)" -- cmp "$T/map.$fmt" "$T/exp.$fmt"
done
check "nodelist is today's --out" -- cmp "$T/nodes.txt" "$T/map.nodelist"
# map --format and --slots-per-host are the names; --export and --ranks-per-node (above) their old spellings.
expect_exit 0 "map --format --slots-per-host" -- "$KCUBE" map --n 6 --pattern transpose --format slurm-hostfile \
    --out "$T/new.slurm-hostfile" --hosts h%d --slots-per-host 8
check "new and old spellings agree" -- cmp "$T/new.slurm-hostfile" "$T/map.slurm-hostfile"
# A machine file saying the same as the rule, in both line forms, gives the same files.
awk '{ x = NR - 1; if (x % 2) print x, "h" int(x / 8), x % 8; else print "h" int(x / 8), x % 2, int(x / 2) % 2, \
      int(x / 4) % 2, int(x / 8) % 2, int(x / 16) % 2, int(x / 32) % 2, x % 8 }' "$T/nodes.txt" > "$T/machine.txt"
expect_exit 0 "export --machine" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format openmpi-rankfile \
    --machine "$T/machine.txt"
check "machine file = rule" -- sh -c "\"$KCUBE\" export --n 6 --mapping '$T/nodes.txt' --format openmpi-rankfile --machine '$T/machine.txt' | cmp - '$T/exp.openmpi-rankfile'"
# --fill last-axis: on the 6-cube, node 1 (x0 = 1) is position 32, on host h4.
expect_exit 0 "--fill last-axis" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format slurm-hostfile \
    --hosts nid%03d --ranks-per-node 8 --fill last-axis --first-host 1
v=$(awk '$1 == 1 {print NR; exit}' "$T/nodes.txt")
check "node 1 on host nid005 under --fill last-axis" -- test "$(sed -n "${v}p" "$CLI_OUT")" = nid005
# A general mapping (--kind general) exports too.
expect_exit 0 "map --stencil --export" -- "$KCUBE" map --n 6 --stencil 5pt --grid 8x8 --periodic --work 0.5 \
    --export slurm-hostfile --hosts node%02d --ranks-per-node 16 --out "$T/halo.hosts"
check "64 hosts lines, 16 each" -- sh -c "sort '$T/halo.hosts' | uniq -c | awk '\$1 != 16 {exit 1}' && test \$(wc -l < '$T/halo.hosts') -eq 64"

# Bad input: exit 2, one line, nothing written.
expect_bad "rankfile without hosts" -- "$KCUBE" map --n 6 --pattern transpose --export openmpi-rankfile --out "$T/x"
expect_stderr_contains "give --machine FILE, or --hosts PATTERN --slots-per-host R"
expect_bad "--machine with nodelist" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format nodelist --machine "$T/machine.txt"
expect_bad "--hosts without --ranks-per-node" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format slurm-hostfile --hosts h%d
expect_bad "--ranks-per-node without --hosts" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format slurm-hostfile --machine "$T/machine.txt" --ranks-per-node 2
expect_bad "printf conversions in --hosts" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format slurm-hostfile --hosts 'n%s%n' --ranks-per-node 8
expect_stderr_contains "only %d, %Nd and %0Nd are understood"
expect_bad "--hosts naming one host for 8" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format slurm-hostfile --hosts node --ranks-per-node 8
expect_bad "export without --mapping" -- "$KCUBE" export --n 6 --format scotch-map
expect_bad "export without --format" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt"
sed '5s/.*/3 h0 4/' "$T/machine.txt" > "$T/dup.txt"
expect_bad "node twice" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format slurm-hostfile --machine "$T/dup.txt"
expect_stderr_contains "machine file"
expect_stderr_contains "line 5, column 1: '3' node 3 is listed twice (first on line 4)"
head -n 63 "$T/machine.txt" > "$T/short.txt"
expect_bad "node missing" -- "$KCUBE" export --n 6 --mapping "$T/nodes.txt" --format slurm-hostfile --machine "$T/short.txt"
expect_stderr_contains "node 63 is missing"
printf '0 h0 0\n1 h0 0\n' > "$T/slot.txt"
expect_bad "slot twice" -- "$KCUBE" export --n 1 --mapping /dev/null --format slurm-hostfile --machine "$T/slot.txt"
expect_stderr_contains "line 2, column 6: '0' gives node 1 slot 0 of host 'h0', already another node's"
printf '0\n0\n' > "$T/notperm.txt"
expect_bad "mapping not a permutation" -- "$KCUBE" export --n 1 --mapping "$T/notperm.txt" --format scotch-map
expect_bad "machine of another size" -- "$KCUBE" export --n 5 --mapping "$T/nodes.txt" --format slurm-hostfile --machine "$T/machine.txt"
check "nothing left behind" -- test ! -e "$T/x"

# Slots beyond this machine's processors: the export warns (one line on
# stderr, exit 0, the file written all the same); within them, or on hosts
# that are not this machine, it says nothing. Under mpirun (Open MPI counts
# slots as cores) the file within runs and the one beyond is refused.
online=$(getconf _NPROCESSORS_ONLN)
printf '1\n0\n' > "$T/rev2.nodes"
printf '0 localhost 0\n1 localhost 1\n' > "$T/within2.machine"
big=1 bn=0
while [ $big -le "$online" ]; do big=$((big * 2)) bn=$((bn + 1)); done
seq $((big - 1)) -1 0 > "$T/big.nodes"
expect_exit 0 "export beyond this machine's processors" -- "$KCUBE" export --n $bn --mapping "$T/big.nodes" \
    --format openmpi-rankfile --hosts localhost --slots-per-host $big --out "$T/beyond.rankfile"
expect_one_stderr_line
expect_stderr_contains "kcube: warning: host 'localhost' (this machine) has $online processors online, the openmpi-rankfile gives it $big slots: mpirun --rankfile exits 1 on it"
check "the file beyond is written" -- test "$(wc -l < "$T/beyond.rankfile")" -eq $big
expect_exit 0 "this host by name, a Slurm host file" -- "$KCUBE" export --n $bn --mapping "$T/big.nodes" \
    --format slurm-hostfile --hosts "$(hostname)" --slots-per-host $big
expect_stderr_contains "kcube: warning: host '$(hostname)' (this machine) has $online processors online, the slurm-hostfile gives it $big slots: its ranks would share cores"
expect_exit 0 "map --format beyond warns too" -- "$KCUBE" map --n $bn --pattern transpose --format openmpi-rankfile \
    --hosts localhost --slots-per-host $big --out "$T/map-beyond.rankfile"
expect_stderr_contains "kcube: warning: host 'localhost' (this machine)"
expect_exit 0 "remote hosts of as many slots: no warning" -- "$KCUBE" export --n $bn --mapping "$T/big.nodes" \
    --format openmpi-rankfile --hosts nid%05d --slots-per-host $big --out "$T/remote.rankfile"
if [ -s "$CLI_ERR" ]; then cli_fail "remote hosts: stderr not empty"; else cli_pass; fi
if [ "$online" -ge 2 ]; then
    expect_exit 0 "export within this machine's processors" -- "$KCUBE" export --n 1 --mapping "$T/rev2.nodes" \
        --format openmpi-rankfile --machine "$T/within2.machine" --out "$T/within.rankfile"
    if [ -s "$CLI_ERR" ]; then cli_fail "within: stderr not empty"; else cli_pass; fi
fi
have_mpirun=$(command -v mpirun || true)
if [ -n "$have_mpirun" ] && [ "$online" -ge 2 ]; then
    root=()
    [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
    expect_exit 0 "mpirun --rankfile within runs" -- timeout 120 mpirun "${root[@]}" --rankfile "$T/within.rankfile" \
        -np 2 true
    if [ $big -le 16 ]; then
        expect_exit 1 "mpirun --rankfile beyond is refused (why the export warns)" -- timeout 120 mpirun "${root[@]}" \
            --rankfile "$T/beyond.rankfile" -np $big true
    fi
fi

# Open MPI accepts the rankfile and binds rank v to the slot it names. Its
# slots are cores (not hardware threads), so count cores.
cores=$(lscpu -p=CORE 2> /dev/null | grep -v '^#' | sort -u | wc -l)
[ "${cores:-0}" -ge 1 ] || cores=$(nproc)
if ! command -v mpirun > /dev/null; then
    echo "SKIP: mpirun not found (install openmpi-bin; CI does): the rankfile is not run"
elif [ "$cores" -lt 2 ]; then
    echo "SKIP: one core here: a rankfile of 2 slots cannot be bound"
else
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    N=2 n=1
    [ "$cores" -ge 4 ] && N=4 n=2
    # Rank v on node N-1-v; node x is slot x of this host.
    seq $((N - 1)) -1 0 > "$T/rev.txt"
    for x in $(seq 0 $((N - 1))); do echo "$x localhost $x"; done > "$T/local.txt"
    expect_exit 0 "export a local rankfile" -- "$KCUBE" export --n $n --mapping "$T/rev.txt" --machine "$T/local.txt" \
        --format openmpi-rankfile --out "$T/rankfile"
    expect_exit 0 "mpirun -rf accepts the rankfile" -- timeout 120 mpirun --oversubscribe -rf "$T/rankfile" -np $N \
        sh -c 'echo "$OMPI_COMM_WORLD_RANK $(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status)"'
    check "every rank ran" -- test "$(wc -l < "$CLI_OUT")" -eq $N
    # With one thread a core and every CPU 0..N-1 ours, core c is CPU c: rank v runs on CPU N-1-v.
    if [ "$cores" -eq "$(nproc)" ] && grep -q "^Cpus_allowed_list:[[:space:]]*0-$(($(nproc) - 1))\$" /proc/self/status; then
        check "rank v bound to slot N-1-v" -- awk -v N=$N '$2 != N - 1 - $1 {bad = 1} END {exit bad}' "$CLI_OUT"
    else
        echo "note: CPUs are not cores 0..N-1 here: the binding itself is not compared"
    fi
fi
if [ -z "$have_mpirun" ]; then
    summary || exit 1
    cli_skip "mpirun not found (install openmpi-bin): the exported rankfiles were not run"
fi
summary
