#!/bin/bash
# Outputs that cannot go wrong, command by command: a chart on '-' or a device
# is drawn from the finished run, never from an empty one; an output on '-'
# alone owns standard output (the report goes to standard error) and what is
# captured there is accepted by the program that reads it; two outputs on
# '-', or one with --json, are refused; map --format without --out writes the
# file on standard output as export does; a FIFO no one reads is refused at
# once; a file the user could not write is not replaced; nothing reaches
# standard output when the output then fails; an output that is one of the
# command's inputs is refused; a reader that closes the pipe ends kcube
# quietly with status 0.
KC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/support/cli_lib.sh"
export HOME="$CLI_TMP/home" # gnuplot's history, if any, stays in the test's directory
mkdir -p "$HOME" && cd "$CLI_TMP" || exit 1
if command -v gnuplot > /dev/null; then GNUPLOT=1; else GNUPLOT=0; fi
MAP=(map --n 4 --pattern transpose)
GMAP=(map --n 3 --pattern bit-reverse --kind general --work 4)
SIM=(simulate --n 4 --pattern transpose --rate 0.1 --measure 1000 --warmup 300)
FFT=(fft-study --n 4 --points 2^6 --configs ecube)
A2A=(calmant alltoall --n 4 --c 2 --block 64 --degree 4 --methods calmant)
BFLY=(butterfly --n 2 --p 4 --method direct)
RANKS=(--format openmpi-rankfile --hosts h%d --slots-per-host 4)
is_png() { # the whole file is one PNG: its signature first, its IEND chunk last
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
        [ "$(tail -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 49454e44ae426082 ]
}
nothing_out() { if [ -s "$CLI_OUT" ]; then cli_fail "$1: wrote to stdout"; else cli_pass; fi; }
# The files later sections read, written as files: each section stands alone.
"$KC" "${MAP[@]}" --out nodes.txt > /dev/null &&
    "$KC" "${FFT[@]}" --emit-goal fft.goal > /dev/null || cli_skip "kcube cannot write its reference files"

# ---- a chart on '-' or a device is the finished run's -------------------------
if [ "$GNUPLOT" = 1 ]; then
    expect_exit 0 "simulate --plot -" -- "$KC" "${SIM[@]}" --plot -
    check "simulate --plot -: stdout is one PNG" -- is_png "$CLI_OUT"
    expect_stderr_contains "(16 nodes)" "simulate --plot -: the report of the 4-cube on stderr"
    expect_bad "simulate --plot - --json" -- "$KC" "${SIM[@]}" --plot - --json
    mkfifo chart.fifo
    cat chart.fifo > chart.got &
    expect_exit 0 "simulate --plot into a FIFO with a reader" -- timeout 60 "$KC" "${SIM[@]}" --plot chart.fifo
    wait
    check "the FIFO's reader got one PNG" -- is_png chart.got
    expect_stdout_contains "(16 nodes)" "simulate --plot FIFO: the report of the 4-cube"
else
    echo "note: gnuplot missing, charts on '-' and FIFOs not tried"
fi

# ---- an output on '-' alone owns standard output ---------------------------
expect_exit 0 "map --out -" -- "$KC" "${MAP[@]}" --out -
cp "$CLI_OUT" dash.txt
check "map --out -: the node list --out FILE writes, and nothing else" -- cmp dash.txt nodes.txt
expect_stderr_contains "linear mapping" "map --out -: the report on stderr"
expect_exit 0 "simulate --mapping reads what map --out - wrote" -- "$KC" "${SIM[@]}" --mapping dash.txt
expect_exit 0 "map --kind general --out -" -- "$KC" "${GMAP[@]}" --out -
cp "$CLI_OUT" gnodes.txt
expect_exit 0 "simulate --mapping reads what the general map wrote" -- "$KC" simulate --n 3 --pattern bit-reverse \
    --rate 0.1 --measure 1000 --warmup 300 --mapping gnodes.txt
expect_exit 0 "map --format openmpi-rankfile --out -" -- "$KC" "${MAP[@]}" "${RANKS[@]}" --out -
cp "$CLI_OUT" ranks.txt
check "the rankfile holds rank lines only" -- sh -c "test \$(grep -cEx 'rank [0-9]+=h[0-9]+ slot=[0-9]+' ranks.txt) -eq 16 && test \$(wc -l < ranks.txt) -eq 16"
expect_exit 0 "map --format without --out: the file on standard output" -- "$KC" "${MAP[@]}" "${RANKS[@]}"
check "map --format without --out = --out -" -- cmp "$CLI_OUT" ranks.txt
expect_exit 0 "export of the same node list" -- "$KC" export --n 4 --mapping nodes.txt "${RANKS[@]}"
check "export and map --format write the same file" -- cmp "$CLI_OUT" ranks.txt
expect_exit 0 "general map --format without --out" -- "$KC" "${GMAP[@]}" --format slurm-hostfile --hosts h%d \
    --slots-per-host 4
check "the hostfile holds host lines only" -- sh -c "test \$(grep -cEx 'h[0-9]+' '$CLI_OUT') -eq 8 && test \$(wc -l < '$CLI_OUT') -eq 8"
expect_exit 0 "fft-study --emit-goal -" -- "$KC" "${FFT[@]}" --emit-goal -
cp "$CLI_OUT" dash.goal
expect_exit 0 "replay reads what fft-study --emit-goal - wrote" -- "$KC" replay dash.goal --n 4
check "fft-study --emit-goal -: the schedule --emit-goal FILE writes" -- cmp dash.goal fft.goal
expect_exit 0 "calmant alltoall --emit-goal -" -- "$KC" "${A2A[@]}" --emit-goal -
cp "$CLI_OUT" a2a.goal
expect_exit 0 "replay reads what calmant alltoall --emit-goal - wrote" -- "$KC" replay a2a.goal --topology mesh \
    --k 4 --n 2
expect_exit 0 "replay --timeline -" -- "$KC" replay fft.goal --n 4 --timeline -
check "the timeline on stdout is all of it" -- sh -c "head -c 13 '$CLI_OUT' | grep -qx '{\"otherData\":' && tail -n 1 '$CLI_OUT' | grep -qx ']}'"
if command -v python3 > /dev/null; then
    check "the timeline on stdout is one JSON document" -- python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$CLI_OUT"
fi
if [ "$GNUPLOT" = 1 ]; then
    expect_exit 0 "butterfly --plot -" -- "$KC" "${BFLY[@]}" --plot -
    check "butterfly --plot -: stdout is one PNG" -- is_png "$CLI_OUT"
fi
expect_bad "butterfly --plot - --json" -- "$KC" "${BFLY[@]}" --plot - --json
expect_bad "map --json --out -" -- "$KC" "${MAP[@]}" --json --out -
expect_bad "map --format --json without --out" -- "$KC" "${MAP[@]}" "${RANKS[@]}" --json
expect_bad "fft-study --emit-goal - --json" -- "$KC" "${FFT[@]}" --emit-goal - --json
expect_bad "two outputs on '-'" -- "$KC" "${FFT[@]}" --emit-goal - --plot -
expect_stderr_contains "both write to '-'"
expect_bad "calmant --plot - --emit-goal -" -- "$KC" "${A2A[@]}" --plot - --emit-goal -

# ---- a FIFO no one reads is refused, not waited on -----------------------------
mkfifo lonely.fifo
expect_exit 1 "map --out into a FIFO no one reads" -- timeout 30 "$KC" "${MAP[@]}" --out lonely.fifo
expect_one_stderr_line
expect_stderr_contains "no process reads"
nothing_out "map --out into a FIFO no one reads"
expect_exit 1 "fft-study --emit-goal into a FIFO no one reads" -- timeout 30 "$KC" "${FFT[@]}" --emit-goal lonely.fifo
expect_one_stderr_line
expect_exit 1 "replay --timeline into a FIFO no one reads" -- timeout 30 "$KC" replay fft.goal --n 4 \
    --timeline lonely.fifo
expect_one_stderr_line
if [ "$GNUPLOT" = 1 ]; then
    expect_exit 1 "simulate --plot into a FIFO no one reads" -- timeout 60 "$KC" "${SIM[@]}" --plot lonely.fifo
    expect_one_stderr_line
fi
cat lonely.fifo > fifo.got &
expect_exit 0 "map --out into a FIFO with a reader" -- timeout 30 "$KC" "${MAP[@]}" --out lonely.fifo
wait
check "the reader got the node list" -- cmp fifo.got nodes.txt

# ---- a file the user could not write is not replaced --------------------------
# The shell's '>' would fail on it. root may write anything, so the check
# runs as an unprivileged user when kcube runs as root.
AS=()
if [ "$(id -u)" = 0 ]; then
    if command -v setpriv > /dev/null; then AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    elif command -v runuser > /dev/null; then AS=(runuser -u nobody --)
    fi
fi
if [ "$(id -u)" != 0 ] || [ ${#AS[@]} -gt 0 ]; then
    chmod 755 "$CLI_TMP"
    mkdir -m 777 shared
    "${AS[@]}" sh -c 'echo keep > shared/own.txt && chmod 0444 shared/own.txt'
    echo keep > shared/root.txt
    for f in own root; do
        [ "$f" = root ] && [ "$(id -u)" != 0 ] && continue
        before=$(ls -i "shared/$f.txt")
        expect_exit 1 "--out over a read-only file ($f)" -- "${AS[@]}" "$KC" "${MAP[@]}" --out "shared/$f.txt"
        expect_one_stderr_line
        expect_stderr_contains "Permission denied"
        nothing_out "--out over a read-only file ($f)"
        check "the read-only file ($f) is the same file" -- test "$(ls -i "shared/$f.txt")" = "$before"
        check "the read-only file ($f) is untouched" -- grep -qx keep "shared/$f.txt"
    done
    expect_exit 0 "a new file in the same directory is fine" -- "${AS[@]}" "$KC" "${MAP[@]}" --out shared/new.txt
    # A sticky directory lets the user write another's file but not rename
    # over it: the final rename is refused after the work, and the report
    # printed before it must not be on standard output.
    if [ "$(id -u)" = 0 ]; then
        mkdir -m 1777 sticky
        echo keep > sticky/theirs.txt
        chmod 666 sticky/theirs.txt
        expect_exit 1 "--out where the final rename is refused" -- "${AS[@]}" "$KC" "${MAP[@]}" --out sticky/theirs.txt
        expect_one_stderr_line
        nothing_out "--out where the final rename is refused"
        check "no temporary left in the sticky directory" -- test "$(ls -A sticky)" = theirs.txt
    fi
else
    echo "note: root without setpriv or runuser: a file root cannot write does not exist, not tried"
fi

# ---- nothing on standard output when the output then fails ------------------
if [ -c /dev/full ]; then
    expect_exit 1 "map --out onto a full device" -- "$KC" "${MAP[@]}" --out /dev/full
    expect_one_stderr_line
    nothing_out "map --out onto a full device"
    expect_exit 1 "general map --out onto a full device" -- "$KC" "${GMAP[@]}" --out /dev/full
    expect_one_stderr_line
    nothing_out "general map --out onto a full device"
    expect_exit 1 "map --format onto a full device" -- "$KC" "${MAP[@]}" "${RANKS[@]}" --out /dev/full
    nothing_out "map --format onto a full device"
    expect_exit 1 "export onto a full device" -- "$KC" export --n 4 --mapping nodes.txt "${RANKS[@]}" --out /dev/full
    nothing_out "export onto a full device"
    expect_exit 1 "fft-study --emit-goal onto a full device" -- "$KC" "${FFT[@]}" --emit-goal /dev/full
    nothing_out "fft-study --emit-goal onto a full device"
    expect_exit 1 "calmant --emit-goal onto a full device" -- "$KC" "${A2A[@]}" --emit-goal /dev/full
    nothing_out "calmant --emit-goal onto a full device"
    expect_exit 1 "replay --timeline onto a full device" -- "$KC" replay fft.goal --n 4 --timeline /dev/full
    nothing_out "replay --timeline onto a full device"
    if [ "$GNUPLOT" = 1 ]; then
        expect_exit 1 "simulate --plot onto a full device" -- "$KC" "${SIM[@]}" --plot /dev/full
        expect_one_stderr_line
        nothing_out "simulate --plot onto a full device"
        expect_exit 1 "butterfly --plot onto a full device" -- "$KC" "${BFLY[@]}" --plot /dev/full
        nothing_out "butterfly --plot onto a full device"
    fi
    # '-' on a full standard output: the report is dropped with the output.
    CLI_STDOUT=/dev/full expect_exit 1 "map --out - onto a full stdout" -- "$KC" "${MAP[@]}" --out -
    expect_one_stderr_line
fi
# The report still comes when the output is written, after it.
expect_exit 0 "map --out a file" -- "$KC" "${MAP[@]}" --out written.txt
expect_stdout_contains "linear mapping"
check "the file is written" -- cmp written.txt nodes.txt

# ---- an output that is one of the inputs is refused ----------------------------
cp fft.goal keep.goal
expect_bad "replay --timeline over its own schedule" -- "$KC" replay fft.goal --n 4 --timeline fft.goal
expect_stderr_contains "is also an input"
check "the schedule is untouched" -- cmp fft.goal keep.goal
ln fft.goal hard.goal
ln -s fft.goal soft.goal
expect_bad "replay --timeline over a hard link of its schedule" -- "$KC" replay fft.goal --n 4 --timeline hard.goal
expect_bad "replay --timeline over a symbolic link to its schedule" -- "$KC" replay soft.goal --n 4 --timeline fft.goal
check "the schedule is still untouched" -- cmp fft.goal keep.goal
printf '0 1 8\n1 2 8\n2 3 8\n3 0 8\n' > traffic.txt
cp traffic.txt keep.txt
expect_bad "map --out over its --traffic" -- "$KC" map --n 2 --traffic traffic.txt --work 1 --out traffic.txt
check "the traffic is untouched" -- cmp traffic.txt keep.txt
cp nodes.txt keep.nodes
expect_bad "export --out over its --mapping" -- "$KC" export --n 4 --mapping nodes.txt "${RANKS[@]}" --out nodes.txt
check "the node list is untouched" -- cmp nodes.txt keep.nodes
expect_bad "two outputs on one file" -- "$KC" "${A2A[@]}" --plot same.png --emit-goal same.png
check "nothing written" -- test ! -e same.png

# ---- a reader that closes the pipe: exit 0, no word ---------------------------
set -o pipefail
"$KC" map --n 16 --pattern transpose --out - 2> pipe.err | head -n 1 > /dev/null
check "map --out - | head: exit 0" -- test $? -eq 0
check "map --out - | head: no error" -- sh -c "! grep -q 'kcube: ' pipe.err"
"$KC" gray --n 20 --count 65536 2> pipe.err | head -n 1 > /dev/null
check "gray | head: exit 0" -- test $? -eq 0
check "gray | head: nothing said" -- test ! -s pipe.err
"$KC" help --man 2> pipe.err | head -c 1 > /dev/null
check "help --man | head: exit 0" -- test $? -eq 0
set +o pipefail
# Other write errors on standard output stay failures.
CLI_STDOUT=/dev/full expect_exit 1 "gray onto a full stdout" -- "$KC" gray --n 4
expect_stderr_contains "cannot write standard output: No space left on device"

summary
