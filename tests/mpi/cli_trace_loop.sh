#!/usr/bin/env bash
# From a trace of a run to a rankfile for the next, under mpirun: the
# examples' halo program (libkcube-mpi) and mpi_transpose (plain MPI) run
# with libkcube-trace.so preloaded; `kcube map --traffic DIR/traces.otf2`
# maps what they did (without --n: the smallest hypercube holding the
# ranks), and its traffic is the programs' known messages (the bit-reversal
# swap of mpi_transpose, alone through --region, and its all-to-alls
# counted); the exported rankfile runs the programs again (one host: it
# shows the file works, not a speed-up); `kcube replay` times the traced
# run on the network with and without the mapping; `simulate --pairs` takes
# the trace too. Exits 77 without the tracer or the examples (CMake passes
# them in KC_TRACE_LIB, KC_MPI_HALO, KC_MPI_TRANSPOSE).
# Usage: cli_trace_loop.sh PATH/TO/kcube [PATH/TO/kcube-mpi]
set -u
K="$1"
. "$(dirname "$0")/../support/cli_lib.sh"
T="$CLI_TMP"
LIB="${KC_TRACE_LIB:-}" HALO="${KC_MPI_HALO:-}" XPOSE="${KC_MPI_TRANSPOSE:-}"
[ -n "$LIB" ] && [ -e "$LIB" ] || cli_skip "libkcube-trace.so is not built (MPI and the OTF2 writer)"
[ -x "$HALO" ] && [ -x "$XPOSE" ] || cli_skip "the MPI examples are not built"
command -v mpirun > /dev/null || cli_skip "no mpirun"
MPIRUN=(env "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0" bash "$(dirname "$0")/../support/mpirun.sh")
export OMPI_MCA_orte_execute_quiet=1
# A sanitizer build's tracer needs the ASan runtime loaded first.
ASAN_RT=$(ldd "$LIB" | awk '/libasan/ {print $3}')
PRELOAD=${ASAN_RT:+$ASAN_RT:}$LIB
NP=8 ITERS=3 BLOCK=256
# traced NAME PROGRAM ARGS...: run under the tracer into $T/NAME; its output must be the untraced run's.
traced() {
    local name=$1
    shift
    expect_exit 0 "$name untraced" -- "${MPIRUN[@]}" $NP "$@"
    cp "$CLI_OUT" "$T/$name.plain"
    expect_exit 0 "$name traced" -- "${MPIRUN[@]}" $NP -x LD_PRELOAD="$PRELOAD" -x KCUBE_TRACE="$T/$name" "$@"
    check "$name: the tracer changes nothing in the program's output" -- cmp "$T/$name.plain" "$CLI_OUT"
    check "$name: an OTF2 anchor file" -- test -f "$T/$name/traces.otf2"
}

# ---- mpi_transpose: the traffic is the program's messages ----
traced xpose "$XPOSE" $ITERS $BLOCK
A="$T/xpose/traces.otf2"
# The swap: rank r sends C x BLOCK bytes to bitrev(r) each iteration (8 ranks: 2 rows of C = 4).
awk -v np=$NP -v it=$ITERS -v b=$BLOCK 'BEGIN { d = 0; while (2 ^ d < np) d++; c = np / 2 ^ int(d / 2)
    for (r = 0; r < np; r++) { v = 0; for (i = 0; i < d; i++) if (int(r / 2 ^ i) % 2) v += 2 ^ (d - 1 - i)
        if (v != r) print r, v, it * c * b } }' > "$T/bitrev.expected"
# Bytes per (src, dst), summed: a traffic file may list a pair's messages apart.
summed() { awk '!/^#/ && NF >= 2 { s[$1 " " $2] += ($3 == "" ? 1 : $3) } END { for (k in s) print k, s[k] }' "$1" | sort -n; }
expect_exit 0 "map --region bitrev --emit-traffic" -- "$K" map --traffic "$A" --region bitrev --emit-traffic "$T/bitrev.txt"
check "the region's traffic is the bit-reversal swap, bytes for bytes" -- cmp <(summed "$T/bitrev.txt") <(sort -n "$T/bitrev.expected")
# jtrue FILE EXPR: the Python expression on the JSON report j (its trace t) holds.
jtrue() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j.get('trace', {}); sys.exit(not ($2))" "$1"; }
expect_exit 0 "map the whole trace" -- "$K" map --traffic "$A" --collectives linear --json
check "$NP ranks read, n = 3 inferred" -- jtrue "$CLI_OUT" "t['ranks'] == $NP and j['inferred'].startswith('n = 3')"
check "the swap's messages are the point-to-point ones" -- \
    jtrue "$CLI_OUT" "t['p2p_messages'] == $(wc -l < "$T/bitrev.expected") * $ITERS"
check "the all-to-alls: 2 rows x $ITERS calls" -- \
    jtrue "$CLI_OUT" "t['collective_calls']['alltoall'] == {'calls': 2 * $ITERS, 'algorithm': 'linear'}"
expect_exit 0 "map --collectives auto: says which algorithm" -- "$K" map --traffic "$A"
expect_stdout_matches "alltoall: $((2 * ITERS)) calls, [a-z-]+ \(auto: Open MPI tuned\)"
expect_stdout_contains "$NP ranks"

# ---- the rankfile, and the programs run again by it ----
online=$(getconf _NPROCESSORS_ONLN)
expect_exit 0 "map --format openmpi-rankfile" -- "$K" map --traffic "$A" --format openmpi-rankfile --hosts localhost \
    --slots-per-host $NP --out "$T/xpose.rf"
check "a rank line per rank" -- test "$(grep -c '^rank ' "$T/xpose.rf")" -eq $NP
# Open MPI binds a rank to its slot's core: on a machine of fewer cores the
# slots are folded onto the cores it has (the ranks then share them).
awk -v c="$online" '{ split($3, s, "="); $3 = "slot=" (s[2] % c); print }' "$T/xpose.rf" > "$T/xpose.here.rf"
expect_exit 0 "mpi_transpose again, by the rankfile" -- "${MPIRUN[@]}" $NP --rankfile "$T/xpose.here.rf" "$XPOSE" $ITERS $BLOCK
check "the same output by the rankfile" -- cmp "$T/xpose.plain" "$CLI_OUT"

# ---- replay of the trace on the network, with and without the mapping ----
expect_exit 0 "map --out nodes" -- "$K" map --traffic "$A" --out "$T/xpose.nodes"
expect_exit 0 "replay the trace" -- "$K" replay "$A" --json
check "replay: n inferred" -- jtrue "$CLI_OUT" "j['inferred'].startswith('n = 3')"
cp "$CLI_OUT" "$T/replay.none.json"
expect_exit 0 "replay the trace with the mapping" -- "$K" replay "$A" --mapping "$T/xpose.nodes" --json
cp "$CLI_OUT" "$T/replay.mapped.json"
check "both replays deliver the same messages" -- jtrue "$T/replay.mapped.json" \
    "j['messages'] == json.load(open('$T/replay.none.json'))['messages'] > 0 and j['total_us'] > 0"
expect_exit 0 "replay --emit-goal" -- "$K" replay "$A" --model loggops --emit-goal "$T/xpose.goal"
expect_exit 0 "the emitted schedule replays as a GOAL file" -- "$K" replay "$T/xpose.goal" --model loggops
expect_exit 0 "simulate --pairs TRACE" -- "$K" simulate --pairs "$A" --n 3 --oneshot --region bitrev
expect_stdout_contains "one-shot: $(grep -vc '^#' "$T/bitrev.txt") messages" "simulate: a pair per message of the swap's traffic"

# ---- mpi_halo (libkcube-mpi): traced, mapped, run by its node list and by the rankfile ----
traced halo "$HALO" 3
H="$T/halo/traces.otf2"
expect_exit 0 "map the halo's trace" -- "$K" map --traffic "$H" --out "$T/halo.nodes" --json
check "the halo: one 4-byte message per rank (its Sendrecv)" -- jtrue "$CLI_OUT" "t['p2p_messages'] == $NP and t['p2p_bytes'] == 4 * $NP"
expect_exit 0 "mpi_halo by the node list" -- "${MPIRUN[@]}" $NP "$HALO" 3 "$T/halo.nodes"
expect_exit 0 "map the halo to a rankfile" -- "$K" map --traffic "$H" --format openmpi-rankfile --hosts localhost \
    --slots-per-host $NP --out "$T/halo.rf"
awk -v c="$online" '{ split($3, s, "="); $3 = "slot=" (s[2] % c); print }' "$T/halo.rf" > "$T/halo.here.rf"
expect_exit 0 "mpi_halo by the rankfile" -- "${MPIRUN[@]}" $NP --rankfile "$T/halo.here.rf" "$HALO" 3
expect_exit 0 "replay the halo's trace" -- "$K" replay "$H" --mapping "$T/halo.nodes"
expect_stdout_contains "$NP ranks"
summary
