#!/usr/bin/env bash
# libkcube-trace.so under mpirun: tests/mpi/trace_prog (plain MPI, never
# linked with the tracer) preloaded with it writes an OTF2 archive
# ($KCUBE_TRACE, default ./kcube-trace) whose events, read back by
# python3-otf2's reader (tests/mpi/trace_check.py), are exactly the
# program's messages, collectives and MPI_Pcontrol regions, on 2 to 5
# ranks, and with every other traced call (trace_prog more); otf2-print
# accepts it; the program's output is unchanged and the
# tracer says nothing when all goes well; a second run replaces the archive;
# a directory that cannot be written leaves the program's run and output
# alone (one "kcube-trace:" line per rank on stderr, exit 0); and kcube-mpi,
# a larger MPI program (communicator splits, collectives), traced prints
# what it prints untraced.
# Usage: cli_trace_tracer.sh KCUBE KCUBE-MPI, with KC_TRACE_LIB and
# KC_TRACE_PROG in the environment (tests/mpi/CMakeLists.txt).
set -u
K="$1"
KM="${2:-}"
. "$(dirname "$0")/../support/cli_lib.sh"
T="$CLI_TMP"
HERE=$(cd "$(dirname "$0")" && pwd)
LIB=${KC_TRACE_LIB:-}
PROG=${KC_TRACE_PROG:-}
[ -n "$LIB" ] && [ -e "$LIB" ] && [ -x "$PROG" ] || cli_skip "libkcube-trace.so or trace_prog is not built"
/usr/bin/python3 -c 'import otf2' 2> /dev/null || cli_skip "/usr/bin/python3 with python3-otf2 is needed"
. "$HERE/../support/mpi_cli_lib.sh"
# A sanitizer build's tracer needs the ASan runtime loaded first.
ASAN_RT=$(ldd "$LIB" | awk '/libasan/ {print $3}')
PRELOAD=${ASAN_RT:+$ASAN_RT:}$LIB
traced() { "${MPIRUN[@]}" "$1" -x LD_PRELOAD="$PRELOAD" -x KCUBE_TRACE "${@:2}"; }

# The program's own output, untraced.
for np in 2 3 4 5; do
    expect_exit 0 "trace_prog on $np ranks, untraced" -- "${MPIRUN[@]}" "$np" "$PROG"
    cp "$CLI_OUT" "$T/plain$np.out"
done

# Traced on 4 ranks into the default directory (./kcube-trace).
mkdir -p "$T/run" && cd "$T/run" || exit 1
export KCUBE_TRACE=""
expect_exit 0 "trace_prog on 4 ranks, traced" -- traced 4 "$PROG"
check "the traced run prints what the untraced one prints" -- cmp -s "$CLI_OUT" "$T/plain4.out"
check "the tracer is silent when all goes well" -- test ! -s "$CLI_ERR"
check "the anchor is ./kcube-trace/traces.otf2" -- test -f kcube-trace/traces.otf2
expect_exit 0 "trace_check on 4 ranks" -- /usr/bin/python3 "$HERE/trace_check.py" kcube-trace/traces.otf2 4
expect_stdout_contains "every message and collective as expected"
expect_exit 1 "trace_check tells a 4-rank archive from a 5-rank program" -- \
    /usr/bin/python3 "$HERE/trace_check.py" kcube-trace/traces.otf2 5
if command -v otf2-print > /dev/null; then
    expect_exit 0 "otf2-print reads the archive" -- otf2-print kcube-trace/traces.otf2
    expect_stdout_contains "MPI_COLLECTIVE_END"
    expect_stdout_matches "MPI_IRECV +[0-9]+ +[0-9]+ +Sender: "
    expect_exit 0 "otf2-print -G reads the definitions" -- otf2-print -G kcube-trace/traces.otf2
    expect_stdout_matches 'COMM +1 +Name: "comm 1"'
    expect_stdout_matches 'REGION +[0-9]+ +Name: "solver"'
fi

# KCUBE_TRACE names the directory; a second run there replaces the first's archive.
export KCUBE_TRACE="$T/named dir"
for np in 5 2 3; do
    expect_exit 0 "trace_prog on $np ranks into \$KCUBE_TRACE" -- traced "$np" "$PROG"
    check "$np ranks: output unchanged" -- cmp -s "$CLI_OUT" "$T/plain$np.out"
    expect_exit 0 "trace_check on $np ranks" -- /usr/bin/python3 "$HERE/trace_check.py" "$KCUBE_TRACE/traces.otf2" "$np"
done
check "no per-rank file of the 5-rank run is left" -- test ! -e "$KCUBE_TRACE/traces/4.evt"

# The other wrappers (more(): every completion call, the other sends,
# MPI_PROC_NULL, MPI_Request_free, every collective with uneven counts and
# MPI_IN_PLACE, MPI_Comm_dup, MPI_Cart_create / MPI_Cart_sub), under
# MPI_Init_thread with MPI_THREAD_MULTIPLE; the mismatched MPI_Pcontrol and
# the region left open are one line each per rank.
for np in 4 3; do
    expect_exit 0 "trace_prog more on $np ranks, untraced" -- "${MPIRUN[@]}" "$np" "$PROG" more
    cp "$CLI_OUT" "$T/more$np.out"
    expect_exit 0 "trace_prog more on $np ranks, traced" -- traced "$np" "$PROG" more
    check "more, $np ranks: output unchanged" -- cmp -s "$CLI_OUT" "$T/more$np.out"
    check "more, $np ranks: the two warnings of each rank and nothing else" -- test \
        "$(grep -c -e 'MPI_Pcontrol(-1, "nothing") does not leave the innermost region entered: ignored' \
                   -e '1 MPI_Pcontrol region(s) still open at MPI_Finalize: left there' "$CLI_ERR")" -eq $((2 * np)) \
        -a "$(wc -l < "$CLI_ERR")" -eq $((2 * np))
    expect_exit 0 "trace_check more on $np ranks" -- \
        /usr/bin/python3 "$HERE/trace_check.py" "$KCUBE_TRACE/traces.otf2" "$np" more
done

# A directory that cannot be made: the run goes on untraced and says so.
export KCUBE_TRACE=/proc/kcube-trace-cannot-be-here
expect_exit 0 "an unwritable trace directory does not stop the program" -- traced 2 "$PROG"
check "output unchanged without a trace" -- cmp -s "$CLI_OUT" "$T/plain2.out"
expect_stderr_contains "kcube-trace: rank 0: "
check "every stderr line is the tracer's" -- sh -c "! grep -qv '^kcube-trace: ' '$CLI_ERR'"

# kcube-mpi: its sweep shared by 3 ranks prints the same traced and untraced
# (but for the measured wall-clock column), and the archive reads.
if [ -n "$KM" ]; then
    SW=(simulate --n 4 --pattern transpose --sweep 0.1:0.5:0.1 --measure 600 --warmup 100 --seed 5 --threads 1)
    expect_exit 0 "kcube-mpi sweep on 3 ranks, untraced" -- "${MPIRUN[@]}" 3 "$KM" "${SW[@]}"
    sed -E 's/ +[0-9]+\.[0-9]{3}$//' "$CLI_OUT" > "$T/km.plain"
    export KCUBE_TRACE="$T/km"
    expect_exit 0 "kcube-mpi sweep on 3 ranks, traced" -- traced 3 "$KM" "${SW[@]}"
    check "kcube-mpi prints the same traced" -- cmp -s <(sed -E 's/ +[0-9]+\.[0-9]{3}$//' "$CLI_OUT") "$T/km.plain"
    check "kcube-mpi's trace has no tracer message" -- test ! -s "$CLI_ERR"
    if command -v otf2-print > /dev/null; then
        expect_exit 0 "otf2-print reads kcube-mpi's archive" -- otf2-print "$KCUBE_TRACE/traces.otf2"
        expect_stdout_contains "MPI_COLLECTIVE_END"
    fi
fi
summary
