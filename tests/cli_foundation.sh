#!/usr/bin/env bash
# Command-line checks for analyze, map and demo: JSON fields, paper values,
# and bad input (one line on stderr, exit status 2, nothing on stdout).
set -u
K="$1"
fail=0; pass=0
ok()  { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# analyze: seed 000 Example 3.
out=$("$K" analyze --n 8 --pattern transpose --json) || bad "analyze transpose exit"
[ "$(echo "$out" | json 'd["per_dim"]')" = "[1, 2, 4, 8, 8, 4, 2, 1]" ] && ok || bad "transpose per_dim"
[ "$(echo "$out" | json 'd["per_dim_exact"]')" = "[1, 2, 4, 8, 8, 4, 2, 1]" ] && ok || bad "transpose per_dim_exact"
[ "$(echo "$out" | json 'd["kind"], d["rank"], d["contention"], d["n"]')" = "permutation 8 8 8" ] && ok || bad "analyze fields"

# analyze a matrix given on the command line (the 4-cube transpose) and a scatter.
out=$("$K" analyze --n 4 --matrix "0010;0001;1000;0100" --json) || bad "analyze matrix exit"
[ "$(echo "$out" | json 'd["per_dim"], d["contention"]')" = "[1, 2, 2, 1] 2" ] && ok || bad "matrix analyze"
out=$("$K" analyze --n 4 --matrix "0100;0010;0001;0000" --vector 1000 --scatter --json) || bad "scatter exit"
[ "$(echo "$out" | json 'd["kind"], d["per_dim"] == d["per_dim_exact"]')" = "scatter True" ] && ok || bad "scatter"
out=$("$K" analyze --n 4 --matrix "0100;0010;0001;0000" --json) || bad "gather exit"
[ "$(echo "$out" | json 'd["kind"], d["rank"]')" = "gather 3" ] && ok || bad "gather"
"$K" analyze --n 8 --pattern bit-reverse --csv | head -1 | grep -q '^dim,formula,exact' && ok || bad "csv header"
"$K" analyze --n 40 --pattern bit-reverse --json | json 'd["exact"], d["per_dim_exact"], d["contention"]' | grep -q "^False None 524288$" && ok || bad "n=40 formula only"

# map: Example 4 (8 -> 1), Example 6 (2 and 1), Section 6 (2, 1, 1).
out=$("$K" map --n 8 --pattern transpose --json) || bad "map exit"
[ "$(echo "$out" | json 'd["order"], d["value"], d["patterns"][0]["contention_before"], d["patterns"][0]["contention_after"]')" = "[0, 4, 2, 6, 1, 5, 3, 7] 1 8 1" ] && ok || bad "example 4"
[ "$(echo "$out" | json 'len(d["to_physical"]), sorted(d["to_physical"]) == list(range(256)), all(d["to_virtual"][p] == v for v, p in enumerate(d["to_physical"]))')" = "256 True True" ] && ok || bad "node arrays"
out=$("$K" map --n 8 --pattern transpose --pattern bit-reverse --json) || bad "map 2 exit"
[ "$(echo "$out" | json 'd["objective"], d["value"], [p["contention_after"] for p in d["patterns"]]')" = "max 2 [2, 1]" ] && ok || bad "example 6"
out=$("$K" map --n 8 --pattern transpose --pattern bit-reverse --pattern reverse-flip --json) || bad "map 3 exit"
[ "$(echo "$out" | json '[p["contention_after"] for p in d["patterns"]], [len(p["per_dim_after"]) for p in d["patterns"]]')" = "[2, 1, 1] [8, 8, 8]" ] && ok || bad "section 6"
for obj in max simultaneous sum; do
  "$K" map --n 6 --matrix "001000;000100;000010;000001;100000;010000" --vector 100000 --pattern bit-reverse --objective $obj --json | json 'd["objective"]' | grep -qx $obj && ok || bad "objective $obj"
done
# issue 9: one gather, the least total among optimal orders (19 before)
"$K" map --n 6 --matrix '000011;000000;000000;001000;000011;000001' --vector 000101 --json | json 'd["value"], d["total"], d["total_minimised"]' | grep -qx "4 10 True" && ok || bad "map single gather least total"
"$K" map --n 30 --matrix "$(python3 -c "print(';'.join(['1'*30]*30))")" --json | json 'd["total_minimised"]' | grep -qx False && ok || bad "map n=30 gather total not minimised"
"$K" map --n 30 --pattern bit-reverse --json | json 'd["value"], "to_physical" in d' | grep -qx "1 False" && ok || bad "map n=30 single"
"$K" map --n 6 --pattern transpose --pattern shuffle --method exhaustive --json | json 'd["method"]' | grep -qx exhaustive && ok || bad "exhaustive method"
# --emit-c: the arrays compile and are inverse permutations.
tmpd=$(mktemp -d)
if "$K" map --n 6 --pattern bit-reverse --emit-c > "$tmpd/map.h"; then
  cat > "$tmpd/main.c" <<'C'
#include "map.h"
int main(void) {
    for (unsigned v = 0; v < 64; v++)
        if (kc_to_virtual[kc_to_physical[v]] != v) return 1;
    return 0;
}
C
  cc -o "$tmpd/check" "$tmpd/main.c" -I"$tmpd" && "$tmpd/check" && ok || bad "emit-c arrays"
else bad "emit-c exit"; fi
rm -rf "$tmpd"
"$K" analyze --n 8 --pattern transpose --json | json 'len(d["worst_channels"]), d["worst_channels"][3]' | grep -qx "8 {'dim': 3, 'from': 8, 'to': 0}" && ok || bad "worst_channels"

"$K" demo | grep -q "One reordering for all three" && ok || bad "demo"
"$K" --help | grep -q analyze && ok || bad "help"
"$K" map --help | grep -q objective && ok || bad "map help"

# Bad input: exit 2, exactly one line on stderr, nothing on stdout.
expect_usage() {
  local errf outf
  errf=$(mktemp); outf=$(mktemp)
  "$K" "$@" >"$outf" 2>"$errf"
  local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$errf")" -eq 1 ] && [ ! -s "$outf" ] && grep -q '^kcube: ' "$errf"; then ok
  else bad "expected usage error for: $* (rc=$rc, stderr: $(cat "$errf"))"; fi
  rm -f "$errf" "$outf"
}
expect_usage analyze --n 4 --matrix "0010;0001;1000"
expect_usage analyze --n 4 --matrix "0010;0001;1000;01000"
expect_usage analyze --n 4 --matrix "0010;0001;1020;0100"
expect_usage analyze --n 4 --matrix "0010;0001;1000;0100" --vector 10
expect_usage analyze --n 0 --pattern transpose
expect_usage analyze --n 65 --pattern transpose
expect_usage analyze --n 25 --pattern transpose --exact
expect_usage analyze --n 7 --pattern transpose
expect_usage analyze --n 8 --pattern no-such-pattern
expect_usage analyze --n 8 --pattern transpose --scatter
expect_usage analyze --n 4 --matrix "0010;0001;1000;0100" --scatter
expect_usage analyze --n 8 --pattern transpose --frobnicate
expect_usage analyze --n 8
expect_usage analyze --pattern transpose
expect_usage analyze --n eight --pattern transpose
expect_usage analyze --n 8 --pattern
expect_usage map --n 8 --pattern transpose --objective best
expect_usage map --n 25 --pattern transpose --pattern bit-reverse
expect_usage map --n 8 --vector 00000000
expect_usage map --n 8 --pattern transpose --pattern bit-reverse --method optimizer
expect_usage map --n 12 --pattern transpose --method exhaustive
expect_usage map --n 8
expect_usage map --n 20 --pattern transpose --emit-c
expect_usage frobnicate

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
