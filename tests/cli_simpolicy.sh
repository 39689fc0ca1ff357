#!/usr/bin/env bash
# Simulator policy from the command line: memory before work (--max-memory),
# sweep ranges that cannot be counted in an int, library messages that name
# no flags. Never runs anything large: every budget here is small.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
T="$CLI_TMP"

# usage error with a reason: exit 2, one line on stderr, nothing on stdout, the line contains $1
usage() {
    local want="$1"
    shift
    expect_bad "$*" -- "$K" "$@"
    expect_stderr_contains "$want" "$*"
}

# over budget: exit 1 (the input is good, the run is not made), one line on stderr naming $1, nothing on stdout
over() {
    local want="$1"
    shift
    expect_over "$*" -- "$K" "$@"
    expect_stderr_contains "$want" "$*"
}

# A budget too small for one load point is refused before any work, with the estimate, the budget and a
# --max-memory that runs it.
over "budget of 1.0 MiB" simulate --n 12 --pattern transpose --rate 0.05 --max-memory 1M
over "per load point" simulate --n 12 --pattern transpose --rate 0.05 --max-memory 1M
expect_stderr_contains "needs about" "the estimate is given"
# n = 24 on 8 threads: refused at once (each engine needs GBs), without building the network.
start=$(date +%s)
over "more than the memory budget" simulate --n 24 --pattern transpose --rate 0.5 --threads 8 --max-memory 2G
check "n = 24 refusal was immediate" -- test $(( $(date +%s) - start )) -lt 10
over "budget" figures --quick --out "$T/fig" --max-memory 1K
check "figures left no chart (nor directory) behind" -- test ! -e "$T/fig"

# A budget for one point but not two: fewer threads, a note, the same numbers.
expect_exit 1 "one point needs more than 1K" -- "$K" simulate --n 10 --pattern transpose --rate 0.05 --max-memory 1K
about=$(sed -n 's/.*needs about \([0-9.]*\) \([KMG]\)iB.*/\1 \2/p' "$CLI_ERR")
check "an estimate in: $(cat "$CLI_ERR")" -- test -n "$about"
budget=$(echo "$about" | awk '{ m = $2 == "K" ? 1024 : $2 == "M" ? 1048576 : 1073741824; printf "%d", $1 * m * 1.5 }')
args=(simulate --n 10 --pattern transpose --sweep 0.02:0.08:0.02 --measure 1000 --warmup 200 --csv)
expect_exit 0 "reduced run" -- "$K" "${args[@]}" --threads 2 --max-memory "$budget"
cut -d, -f1-11 "$CLI_OUT" > "$T/a.csv"
expect_stderr_contains "running 1 load point at once instead of 2" "a note on fewer threads"
expect_exit 0 "serial run" -- "$K" "${args[@]}" --threads 1
check "results do not change with the budget" -- cmp -s "$T/a.csv" <(cut -d, -f1-11 "$CLI_OUT")
expect_exit 0 "a large budget" -- "$K" "${args[@]}" --threads 2 --max-memory 64G
check "a large budget prints nothing on stderr" -- test ! -s "$CLI_ERR"

# Byte counts.
usage "max-memory" simulate --n 6 --uniform --rate 0.1 --max-memory 12X
usage "max-memory" simulate --n 6 --uniform --rate 0.1 --max-memory -5M
usage "max-memory" simulate --n 6 --uniform --rate 0.1 --max-memory 18446744073709551615G
check "512MiB" -- "$K" simulate --n 6 --uniform --rate 0.1 --measure 500 --max-memory 512MiB

# Sweep ranges: counted in a wide type (the option layer, then the library's
# limit), refused with the number of points asked for; never converted out
# of range.
usage "leaves the range" simulate --n 4 --pattern transpose --sweep 0.1:1e300:1e-300
usage "asks for 1e+15 points" simulate --n 4 --pattern transpose --sweep 1e-9:1e6:1e-9
usage "asks for 1001 load points" simulate --n 4 --pattern transpose --sweep 0.001:1.001:0.001
usage "asks for 5001 load points" simulate --n 4 --pattern transpose --sweep 0.001:5.001:0.001
usage "finite" simulate --n 4 --pattern transpose --sweep nan:1:0.1
usage "finite" simulate --n 4 --pattern transpose --sweep 0.1:inf:0.1
usage "STEP > 0" simulate --n 4 --pattern transpose --sweep 0.1:1:-0.1

# Library messages name parameters, not flags: the command line adds the
# option's name in front ("--mapping: ..."), the library's text has none.
usage "optimal mapping needs a linear pattern" simulate --n 6 --uniform --mapping optimal --rate 0.1
check "library message names no flag: $(cat "$CLI_ERR")" -- sh -c "! sed 's/^kcube: --mapping: //' '$CLI_ERR' | grep -q -- --"
usage "hypercube has k = 2" simulate --topology hypercube --k 4 --n 3 --uniform --rate 0.1
expect_stderr_contains "kcube: --k: " "the option at fault is named"

summary
