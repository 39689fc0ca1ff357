#!/usr/bin/env bash
# kcube-mpi: `simulate` sweeps shared by 2, 3, 4 and 8 MPI
# ranks print what one kcube process prints (text, --json, --csv, --compare,
# --channel-util, a sweep that stops at saturation, more ranks than points);
# bad input under mpirun is one line and exit 2, also when only one helper
# sees it; other commands run once; without mpirun kcube-mpi is kcube.
# Only the wall-clock figures (wall_s, wall_seconds: each point's own
# measured time) may differ, as they do between two kcube runs.
set -u
K="$1"
KM="${2:-}"
. "$(dirname "$0")/../support/cli_lib.sh"
T="$CLI_TMP"
. "$(dirname "$0")/../support/mpi_cli_lib.sh"

# The measured wall-clock time out: text (the wall_s column ends point rows),
# JSON ("wall_seconds" lines), CSV (field 12, wall_seconds).
nowall() {
    case "$1" in
        csv) cut -d, -f12 --complement "$2" ;;
        *) sed -E -e 's/ +[0-9]+\.[0-9]{3}$//' -e '/"wall_seconds"/d' "$2" ;;
    esac
}

# same_as_kcube NAME NP FORMAT ARGS...: kcube-mpi on NP ranks prints what kcube prints.
same_as_kcube() {
    local name=$1 np=$2 fmt=$3
    shift 3
    if [ ! -e "$T/$name.one" ]; then
        "$K" "$@" > "$T/$name.one" 2> "$T/$name.err1"
        echo $? > "$T/$name.rc1"
    fi
    expect_exit "$(cat "$T/$name.rc1")" "$name on $np ranks" -- "${MPIRUN[@]}" "$np" "$KM" "$@"
    check "$name on $np ranks: same output as one process" -- cmp -s <(nowall "$fmt" "$T/$name.one") <(nowall "$fmt" "$CLI_OUT")
    check "$name on $np ranks: same stderr as one process" -- cmp -s "$T/$name.err1" "$CLI_ERR"
}

# A sweep that stops at saturation (load 0.2 of 20): every rank stops past its own first
# unsustainable point, and the job keeps the points up to the first one overall.
SAT=(simulate --n 6 --pattern transpose --sweep 0.05:1:0.05 --measure 1500 --warmup 300 --seed 3 --threads 1)
for np in 2 3 4 8; do
    same_as_kcube sat "$np" text "${SAT[@]}"
done
rows=$(grep -cE '^ +[0-9]+\.[0-9]{4} ' "$T/sat.one")
check "the one-process sweep stopped early ($rows of 20 points)" -- test "$rows" -ge 2 -a "$rows" -lt 20
check "it stopped at an unsustainable point" -- grep -q ' NO ' "$T/sat.one"
same_as_kcube satjson 4 json "${SAT[@]}" --json
same_as_kcube satcsv 2 csv "${SAT[@]}" --csv
# every point (--no-stop), JSON with per-link counts; comparisons of configurations
same_as_kcube nostop 3 json simulate --n 5 --uniform --sweep 0.05:0.6:0.05 --no-stop --measure 800 \
    --warmup 200 --seed 11 --threads 1 --json --channel-util
same_as_kcube compare 2 csv simulate --k 4 --n 2 --pattern transpose --compare --sweep 0.1:0.9:0.2 \
    --measure 800 --warmup 200 --seed 7 --csv
same_as_kcube comparetext 4 text simulate --n 5 --pattern bit-reverse --compare --sweep 0.1:0.5:0.1 \
    --measure 800 --warmup 200 --seed 7
# more ranks than points, and one point (--rate)
for np in 4 8; do
    same_as_kcube few "$np" text simulate --k 4 --n 2 --uniform --sweep 0.05:0.15:0.05 --measure 800 --warmup 200
done
same_as_kcube rate 3 json simulate --n 4 --pattern transpose --rate 0.1 --measure 800 --warmup 200 --json
# a one-shot run (no load points: the one run on rank 0's share)
same_as_kcube oneshot 2 text simulate --n 6 --pattern transpose --mapping optimal --oneshot

# Bad input: one line, exit 2, nothing on stdout, from 4 ranks.
expect_bad "an unknown option on 4 ranks" -- "${MPIRUN[@]}" 4 "$KM" simulate --n 6 --bogus
expect_bad "an unknown pattern on 4 ranks" -- "${MPIRUN[@]}" 4 "$KM" simulate --n 6 --pattern nope --rate 0.1
expect_bad "a range past the limit on 4 ranks" -- "${MPIRUN[@]}" 4 "$KM" simulate --n 6 --uniform --sweep 0.001:5:0.001
# Bad input that one helper alone sees (a file missing on its host): its line, once, exit 2.
printf '0 1\n1 2\n2 3\n3 0\n' > "$T/pairs.txt"
if mpirun --version 2>/dev/null | grep -q 'Open MPI'; then
    expect_bad "a file only rank 2 cannot read" -- "${MPIRUN[@]}" 3 bash -c \
        'p=$1; [ "$OMPI_COMM_WORLD_RANK" = 2 ] && p=$1.missing; exec "$0" simulate --n 2 --pairs "$p" --sweep 0.05:0.2:0.05 --measure 500 --warmup 100' \
        "$KM" "$T/pairs.txt"
    expect_stderr_contains "pairs.txt.missing" "the helper's own message"
    expect_stderr_contains "(MPI process 2)" "says which process"
    expect_bad "a file only rank 0 cannot read" -- "${MPIRUN[@]}" 3 bash -c \
        'p=$1; [ "$OMPI_COMM_WORLD_RANK" = 0 ] && p=$1.missing; exec "$0" simulate --n 2 --pairs "$p" --sweep 0.05:0.2:0.05 --measure 500 --warmup 100' \
        "$KM" "$T/pairs.txt"
    expect_stderr_contains "pairs.txt.missing" "rank 0's own message"
fi
# A plot that cannot be written: a failed write, exit 1, one line, no simulation on any rank.
expect_exit 1 "an unwritable plot on 3 ranks" -- "${MPIRUN[@]}" 3 "$KM" simulate --n 6 --pattern transpose \
    --sweep 0.05:0.2:0.05 --plot "$T/no/such/dir/p.png"
expect_one_stderr_line "one line for the unwritable plot"

# Other commands run once, on rank 0.
"$K" analyze --n 4 --pattern transpose > "$T/an.one"
expect_exit 0 "analyze on 3 ranks" -- "${MPIRUN[@]}" 3 "$KM" analyze --n 4 --pattern transpose
check "analyze printed once" -- cmp -s "$T/an.one" "$CLI_OUT"

# Without mpirun kcube-mpi is kcube; its help says what it is.
"$K" simulate --n 5 --uniform --sweep 0.1:0.3:0.1 --measure 500 --warmup 100 --csv > "$T/single.one"
expect_exit 0 "kcube-mpi alone" -- "${NOLEAK[@]}" "$KM" simulate --n 5 --uniform --sweep 0.1:0.3:0.1 --measure 500 --warmup 100 --csv
check "kcube-mpi alone prints what kcube prints" -- cmp -s <(nowall csv "$T/single.one") <(nowall csv "$CLI_OUT")
expect_bad "kcube-mpi alone: bad option" -- "${NOLEAK[@]}" "$KM" simulate --bogus
expect_exit 0 "kcube-mpi --help" -- "${NOLEAK[@]}" "$KM" --help
expect_stdout_contains "kcube-mpi - kcube with its sweeps spread over MPI processes"
expect_stdout_contains "usage: kcube COMMAND"
expect_exit 0 "kcube-mpi help --man" -- "$KM" help --man
expect_stdout_contains "kcube\\-mpi \\- kcube with its simulation sweeps spread over MPI processes"

# Installed beside kcube, with its man page.
check "cmake --install" -- cmake --install "$(dirname "$KM")" --prefix "$T/inst"
check "bin/kcube-mpi installed" -- test -x "$T/inst/bin/kcube-mpi"
check "its man page installed" -- test -s "$T/inst/share/man/man1/kcube-mpi.1"
summary
