#!/usr/bin/env bash
# Simulator policy from the command line: memory before work (--max-memory),
# sweep ranges that cannot be counted in an int, library messages that name
# no flags. Never runs anything large: every budget here is small.
set -u
K="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0; pass=0
ok()  { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

# usage error: exit 2, one line on stderr, nothing on stdout; $1 a pattern the line must contain
expect_usage() {
    local want="$1"; shift
    "$K" "$@" > "$T/out" 2> "$T/err"
    local rc=$?
    [ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q -- "$want" "$T/err" && ok \
        || bad "$* (exit $rc, stderr: $(head -c 300 "$T/err"))"
}

# A budget too small for one load point is refused before any work, with the estimate and the budget.
expect_usage "budget of 1.0 MiB" simulate --n 12 --pattern transpose --rate 0.05 --max-memory 1M
expect_usage "per load point" simulate --n 12 --pattern transpose --rate 0.05 --max-memory 1M
# n = 24 on 8 threads: refused at once (each engine needs GBs), without building the network.
start=$(date +%s)
expect_usage "more than the memory budget" simulate --n 24 --pattern transpose --rate 0.5 --threads 8 --max-memory 2G
[ $(( $(date +%s) - start )) -lt 10 ] && ok || bad "n = 24 refusal was not immediate"
expect_usage "budget" figures --quick --out "$T/fig" --max-memory 1K
ls "$T/fig"/*.png > /dev/null 2>&1 && bad "figures left a chart behind" || ok

# A budget for one point but not two: fewer threads, a note, the same numbers.
"$K" simulate --n 10 --pattern transpose --rate 0.05 --max-memory 1K 2> "$T/err" > /dev/null
about=$(sed -n 's/.*needs about \([0-9.]*\) \([KMG]\)iB.*/\1 \2/p' "$T/err")
[ -n "$about" ] && ok || bad "no estimate in: $(cat "$T/err")"
budget=$(echo "$about" | awk '{ m = $2 == "K" ? 1024 : $2 == "M" ? 1048576 : 1073741824; printf "%d", $1 * m * 1.5 }')
args=(simulate --n 10 --pattern transpose --sweep 0.02:0.08:0.02 --measure 1000 --warmup 200 --csv)
"$K" "${args[@]}" --threads 2 --max-memory "$budget" > "$T/a.csv" 2> "$T/err" && ok || bad "reduced run failed: $(cat "$T/err")"
grep -q "running 1 load point at once instead of 2" "$T/err" && ok || bad "no note on fewer threads: $(cat "$T/err")"
"$K" "${args[@]}" --threads 1 > "$T/b.csv" 2> /dev/null || bad "serial run failed"
cmp -s <(cut -d, -f1-11 "$T/a.csv") <(cut -d, -f1-11 "$T/b.csv") && ok || bad "results changed with the budget"
"$K" "${args[@]}" --threads 2 --max-memory 64G > /dev/null 2> "$T/err" && [ ! -s "$T/err" ] && ok || bad "a large budget printed: $(cat "$T/err")"

# Byte counts.
expect_usage "max-memory" simulate --n 6 --uniform --rate 0.1 --max-memory 12X
expect_usage "max-memory" simulate --n 6 --uniform --rate 0.1 --max-memory 0
expect_usage "max-memory" simulate --n 6 --uniform --rate 0.1 --max-memory -5M
expect_usage "max-memory" simulate --n 6 --uniform --rate 0.1 --max-memory 18446744073709551615G
"$K" simulate --n 6 --uniform --rate 0.1 --measure 500 --max-memory 512MiB > /dev/null && ok || bad "512MiB"

# Sweep ranges: counted in a wide type, refused with the number asked for.
expect_usage "asks for inf load points" simulate --n 4 --pattern transpose --sweep 0.1:1e300:1e-300
expect_usage "asks for 1e+15 load points" simulate --n 4 --pattern transpose --sweep 1e-9:1e6:1e-9
expect_usage "asks for 1001 load points" simulate --n 4 --pattern transpose --sweep 0.001:1.001:0.001
expect_usage "finite" simulate --n 4 --pattern transpose --sweep nan:1:0.1
expect_usage "finite" simulate --n 4 --pattern transpose --sweep 0.1:inf:0.1
expect_usage "finite" simulate --n 4 --pattern transpose --sweep 0.1:1:-0.1

# Library messages name parameters, not flags.
expect_usage "optimal mapping needs a linear pattern" simulate --n 6 --uniform --mapping optimal --rate 0.1
grep -q -- "--" "$T/err" && bad "library message names a flag: $(cat "$T/err")" || ok
expect_usage "hypercube has k = 2" simulate --topology hypercube --k 4 --n 3 --uniform --rate 0.1

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
