#!/usr/bin/env bash
# The time-and-memory gate (src/cli/budget.h): requests
# that would run for minutes or run out of memory are refused before any
# work, at once (well under a second), with exit 1 (the input is good, the
# run is not made), one line giving the
# estimate and the option that lifts the limit, and nothing on stdout; the
# option printed does lift it; and the memory estimates are within 3x of
# the peak memory measured on small and medium runs (bench/estimates.tsv
# holds the full table; tests/cli_estimates.sh checks it).
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

now_ms() { date +%s%3N; }
# The rates and sizes are those of the plain build: a sanitizer build is
# several times slower and larger, so it checks the refusals but not their
# speed nor the memory bounds.
PLAIN=1
grep -qa "__asan_init" "$K" && PLAIN=0

# refused DESC OPTION -- cmd...: exit 1, one line naming OPTION, no stdout, < 5 s (at once: the
# refused work takes minutes; 5 s leaves room for a loaded machine).
refused() {
    local desc=$1 opt=$2 t0 t1
    shift 2
    t0=$(now_ms)
    expect_over "$desc" "$@"
    t1=$(now_ms)
    expect_stderr_contains "$opt" "$desc"
    expect_stderr_contains "needs about" "$desc"
    if [ "$PLAIN" = 0 ] || [ $((t1 - t0)) -lt 5000 ]; then cli_pass
    else cli_fail "$desc: took $((t1 - t0)) ms to refuse"; fi
}

# ---- requests the gate must refuse, and their neighbours it must let through ----

refused "simulate 2^22 transpose" --max-time -- "$K" simulate --n 22 --pattern transpose --rate 0.1
refused "simulate 256-ary 2-cube" --max-time -- "$K" simulate --n 2 --k 256 --uniform --rate 0.1
refused "simulate 1000-point sweep on a 16-cube" --max-time -- "$K" simulate --n 16 --uniform --sweep 0.001:1:0.001
refused "map --kind general on 2^20 nodes under 10 s" --max-time -- \
    "$K" map --n 20 --pattern transpose --kind general --max-time 10
awk 'BEGIN { n = 2^20; for (i = 0; i < n; i++) print i, (i + 1) % n, 1 }' > "$CLI_TMP/ring.txt"
refused "map --traffic of a 2^20-rank ring under 10 s" --max-time -- \
    "$K" map --n 20 --traffic "$CLI_TMP/ring.txt" --max-time 10
refused "butterfly p = 26 with the FFT" --max-time -- "$K" butterfly --n 10 --p 26 --method bisect-local --fft
refused "calmant schedule d = 20 on a torus, verified" --max-time -- \
    "$K" calmant schedule --d 20 --c 2 --task 0,20 --topology torus --verify --verbose
refused "calmant alltoall 16T blocks as a GOAL schedule" --max-memory -- \
    "$K" calmant alltoall --d 12 --c 2 --block 16T --emit-goal "$CLI_TMP/cx.goal"
refused "calmant alltoall d = 12 under a 5 s limit" --max-time -- \
    "$K" calmant alltoall --d 12 --c 2 --block 16T --max-time 5
refused "fft-study m = 2^30" --max-time -- "$K" fft-study --n 8 --points 2^30
cat > "$CLI_TMP/pp.goal" <<'GOAL'
num_ranks 2
rank 0 {
l1: send 100b to 1 tag 0
}
rank 1 {
l1: recv 100b from 0 tag 0
}
GOAL
refused "replay on 2^24 nodes under 5 s" --max-time -- "$K" replay "$CLI_TMP/pp.goal" --n 24 --max-time 5 --max-memory 64G
refused "hl --verify of 65536 permutations of n = 16" --max-time -- "$K" hl --n 16 --verify --samples 65536
refused "hl on a 1024x1024 mesh under 10 s" --max-time -- "$K" hl --n 20 --pattern transpose --shape 1024x1024 --max-time 10
refused "calmant load under a tiny limit" --max-time -- "$K" calmant load --d 24 --c 2 --task 0,24 --max-time 0.01
refused "analyze with the exact count on 2^30 nodes" --max-time -- "$K" analyze --n 6 --k 32 --pattern transpose --exact
refused "map's search with 10^5 evaluations at n = 40" --max-time -- \
    "$K" map --n 40 --pattern transpose --search --evals 100000
[ ! -e "$CLI_TMP/cx.goal" ] && cli_pass || cli_fail "a refused --emit-goal left a file"

# ---- the option printed lifts the limit ------------------------------------------

# lifted DESC -- cmd...: refused under --max-time 1e-9; the --max-time the
# message names runs it (exit 0, output on stdout).
lifted() {
    local desc=$1 t
    shift
    [ "$1" = "--" ] && shift
    expect_over "$desc: refused under 1 ns" "$@" --max-time 1e-9
    t=$(sed -n 's/.*--max-time \([0-9][0-9]*\) runs it.*/\1/p' "$CLI_ERR")
    if [ -n "$t" ]; then cli_pass; else cli_fail "$desc: no --max-time value in the message"; return; fi
    expect_exit 0 "$desc: runs with --max-time $t" "$@" --max-time "$t"
    [ -s "$CLI_OUT" ] && cli_pass || cli_fail "$desc: no output"
}
lifted "simulate" -- "$K" simulate --n 6 --uniform --rate 0.05 --measure 500 --drain 500
lifted "map general" -- "$K" map --n 6 --pattern transpose --kind general --work 0.4
lifted "butterfly" -- "$K" butterfly --n 2 --p 8 --method direct --fft
lifted "calmant schedule" -- "$K" calmant schedule --d 8 --c 2 --task 0,8 --verify
lifted "calmant alltoall" -- "$K" calmant alltoall --d 4 --c 2 --block 64
lifted "fft-study" -- "$K" fft-study --n 2 --points 2^4 --configs ecube
lifted "replay" -- "$K" replay "$CLI_TMP/pp.goal" --n 2
lifted "hl" -- "$K" hl --n 4 --pattern transpose
lifted "analyze" -- "$K" analyze --n 8 --pattern transpose
lifted "map" -- "$K" map --n 8 --pattern transpose --pattern bit-reverse

# 0 and inf: no time limit (the memory limit still holds and is what is named).
expect_over "--max-time inf leaves the memory limit" -- \
    "$K" butterfly --n 10 --p 26 --method bisect-local --fft --max-time inf --max-memory 1M
expect_stderr_contains "--max-memory"
grep -q -- "--max-time [0-9]" "$CLI_ERR" && cli_fail "--max-time inf: still names --max-time" || cli_pass
expect_over "--max-time 0 is no limit either" -- \
    "$K" butterfly --n 10 --p 26 --method bisect-local --fft --max-time 0 --max-memory 1M
grep -q -- "--max-time [0-9]" "$CLI_ERR" && cli_fail "--max-time 0: still names --max-time" || cli_pass
expect_bad "--max-time must be a number" -- "$K" butterfly --n 2 --p 4 --method direct --max-time soon
expect_stderr_contains "--max-time"
expect_bad "--max-time must not be negative" -- "$K" butterfly --n 2 --p 4 --method direct --max-time -3
expect_exit 0 "the default limit leaves small runs alone" -- "$K" butterfly --n 4 --p 12 --method direct
"$K" simulate --help | grep -q -- "--max-time" && cli_pass || cli_fail "simulate --help lacks --max-time"

# ---- memory estimates are within 3x of the peak ------------------------------------

# In KiB: "12 MiB", "1.5 GiB", "340 KiB", "100 B" from the refusal line.
est_kib() {
    sed -n 's/.*needs about [^ ]* s and \([0-9.]*\) \([KMGT]*i*B\).*/\1 \2/p' "$CLI_ERR" |
        awk '{ m = $2 == "B" ? 1/1024 : $2 == "KiB" ? 1 : $2 == "MiB" ? 1024 : $2 == "GiB" ? 1048576 : 1073741824;
               printf "%d\n", $1 * m }'
}

if [ "$PLAIN" = 1 ] && [ -x /usr/bin/time ]; then
    # upper DESC -- cmd...: the estimate under --max-time 1e-9 against the
    # peak resident size of the run itself (/usr/bin/time's %M, KiB): within
    # 3x either way.
    upper() {
        local desc=$1 est peak
        shift
        [ "$1" = "--" ] && shift
        "$@" --max-time 1e-9 > /dev/null 2> "$CLI_ERR"
        est=$(est_kib)
        peak=$(/usr/bin/time -f '%M' "$@" --max-time 0 2>&1 > /dev/null | tail -1)
        if [ -n "$est" ] && [ -n "$peak" ] && [ $((3 * est)) -ge "$peak" ] && [ "$est" -le $((3 * peak)) ]; then
            cli_pass
        else cli_fail "$desc: estimate ${est:-?} KiB not within 3x of the peak ${peak:-?} KiB"; fi
    }
    upper "simulate 2^10" -- "$K" simulate --n 10 --pattern transpose --rate 0.1 --measure 2000 --drain 2000
    upper "simulate 8-ary 3-cube" -- "$K" simulate --n 3 --k 8 --uniform --rate 0.2 --measure 2000 --drain 2000
    upper "simulate oneshot" -- "$K" simulate --n 12 --pattern transpose --oneshot
    upper "map general 2^12" -- "$K" map --n 12 --pattern transpose --kind general --work 8
    upper "butterfly p = 18 --fft, n = 1" -- "$K" butterfly --n 1 --p 18 --method direct --fft
    upper "butterfly p = 18 multisect" -- "$K" butterfly --n 8 --p 18 --method multisect
    upper "calmant schedule d = 16" -- "$K" calmant schedule --d 16 --c 2 --task 0,16 --verify
    upper "calmant schedule torus d = 12" -- "$K" calmant schedule --d 12 --c 2 --task 0,12 --topology torus
    upper "calmant alltoall d = 8" -- "$K" calmant alltoall --d 8 --c 2 --block 4K
    upper "calmant alltoall goal" -- "$K" calmant alltoall --d 6 --c 2 --block 4K --no-replay \
        --methods calmant --emit-goal "$CLI_TMP/a.goal"
    upper "fft-study 2^12" -- "$K" fft-study --n 4 --points 2^12 --configs ecube
    upper "replay 2^16 nodes" -- "$K" replay "$CLI_TMP/pp.goal" --n 16
    upper "analyze 32-ary 4-cube" -- "$K" analyze --n 4 --k 32 --pattern transpose --exact
    upper "map 2^20 with the exact count" -- "$K" map --n 20 --pattern transpose --exact
    upper "map set of 3 on 2^18 (subset DP)" -- "$K" map --n 18 --pattern transpose --pattern bit-reverse \
        --pattern shuffle --kind reorder
    upper "hl 2^18" -- "$K" hl --n 18 --pattern transpose
    upper "hl mesh 2^14" -- "$K" hl --n 14 --pattern transpose --shape 128x128
fi

summary
