#!/usr/bin/env bash
# The traffic inputs people have, on the command line: CSV with a header
# and quoted fields, CRLF lines, P x P matrices (blanks and commas), '-'
# for standard input (once per command), the square list (a 3 x 3 matrix
# too) read as a list and said so, bad fields with line and column, the
# network sized by the traffic when --n is left out (and said so), and the
# demo's "Try" line run verbatim on the file the demo writes.
set -u
K="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" # absolute: the demo runs elsewhere
. "$(dirname "$0")/support/cli_lib.sh"
G="$(dirname "$0")/goal"
T="$CLI_TMP"

json_check() { # DESCRIPTION PYTHON-EXPR over d (the JSON on stdout)
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$CLI_OUT"; then
        cli_pass
    else
        cli_fail "$1"
    fi
}
with_stdin() { # FILE cmd...: cmd reading FILE on standard input
    local f=$1
    shift
    "$@" < "$f"
}
# The identity start's cost (max_load hops): the traffic's own figures.
identity_cost() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=d['starts'][0]; \
assert s['mapping']=='identity'; print(s['max_load'], s['hops'])" "$CLI_OUT"; }

# ---- one traffic, five spellings: the same identity cost ----
# 13 ranks: rank 12 sends; two messages 3 -> 4 (a matrix sums them).
printf '# a list\n0 1 300\n1,2,40\n3 4 10\n3\t4 5\n12 0 7\n5 6\n' > "$T/list.txt"
printf 'Source,"DESTINATION",bytes\r\n"0","1","300"\r\n1, 2 ,40\r\n3,4,10\r\n3,4,5\r\n"12",0,7\r\n5,6,1\r\n' > "$T/a.csv"
printf 'bytes dst src\n300 1 0\n40 2 1\n10 4 3\n5 4 3\n7 0 12\n1 6 5\n' > "$T/blank.csv"
python3 - "$T" <<'EOF'
import sys
m = [[0] * 13 for _ in range(13)]
for s, d, b in [(0, 1, 300), (1, 2, 40), (3, 4, 15), (12, 0, 7), (5, 6, 1)]:
    m[s][d] += b
open(sys.argv[1] + "/m.txt", "w").write("".join(" ".join(map(str, r)) + "\n" for r in m))
open(sys.argv[1] + "/m.csv", "w").write("".join(",".join('"%d"' % v for v in r) + "\r\n" for r in m))
EOF
ref=""
for f in list.txt a.csv blank.csv m.txt m.csv; do
    expect_exit 0 "$f without --n" -- "$K" map --traffic "$T/$f" --work 0.2 --json
    json_check "$f: the 4-cube, inferred from 13 ranks" 'd["n"] == 4 and "13 ranks" in d["inferred"]'
    c=$(identity_cost)
    if [ -z "$ref" ]; then ref=$c; elif [ "$c" = "$ref" ]; then cli_pass; else cli_fail "$f: identity cost $c, the list's $ref"; fi
done
expect_exit 0 "list format" -- "$K" map --traffic "$T/list.txt" --work 0.2 --json
json_check "list: its six messages, format list" 'd["messages"] == 6 and d["traffic_format"] == "list"'
expect_exit 0 "csv format" -- "$K" map --traffic "$T/a.csv" --work 0.2 --json
json_check "csv: six messages" 'd["messages"] == 6 and d["traffic_format"] == "csv"'
expect_exit 0 "matrix format" -- "$K" map --traffic "$T/m.csv" --work 0.2 --json
json_check "matrix: five pairs" 'd["messages"] == 5 and d["traffic_format"] == "matrix" and "13 x 13 matrix" in d["inferred"]'

# ---- the inferred size, said in the text ----
expect_exit 0 "text" -- "$K" map --traffic "$T/a.csv" --work 0.2
expect_stdout_contains "network sized by the traffic (csv): n = 4, the smallest hypercube holding the input's 13 ranks (the highest rank in it is 12)"
expect_exit 0 "torus k = 4" -- "$K" map --k 4 --traffic "$T/a.csv" --work 0.2 --json
json_check "k = 4: n = 2 (16 >= 13)" 'd["n"] == 2 and d["k"] == 4 and "torus of side 4" in d["inferred"]'
expect_exit 0 "mesh k = 3" -- "$K" map --k 3 --topology mesh --traffic "$T/a.csv" --work 0.2 --json
json_check "3-ary mesh: n = 3 (27 >= 13)" 'd["n"] == 3 and "mesh" in d["inferred"]'
expect_exit 0 "endpoints 2" -- "$K" map --endpoints 2 --traffic "$T/a.csv" --work 0.2 --json
json_check "2 endpoints: 7 routers, n = 3" 'd["n"] == 3 and "at 2 endpoints a router" in d["inferred"]'
printf '0 1 0 0 0\n1 0 0 0 0\n0 0 0 9 0\n0 0 9 0 0\n0 0 0 0 0\n' > "$T/m5.txt"
expect_exit 0 "a matrix's silent last rank" -- "$K" map --shape 2x2 --endpoints 2 --traffic "$T/m5.txt" --work 0.2 --json
json_check "5 ranks on 8 slots: the matrix's P, not its highest sender + 1" 'd["ranks"] == 5 and len(d["to_physical"]) == 5'
expect_exit 0 "--n given" -- "$K" map --n 5 --traffic "$T/a.csv" --work 0.2 --json
json_check "--n given: nothing inferred" 'd["n"] == 5 and d["inferred"] is None'
expect_bad "--n too small: the rank's line and column" -- "$K" map --n 3 --traffic "$T/a.csv"
expect_stderr_contains "line 6, column 1: '12' is not a rank (0..7)" # a quoted field: its opening quote
expect_bad "--nodes without a size" -- "$K" map --nodes "$T/list.txt" --traffic "$T/a.csv"
expect_bad "--traffic-format without --traffic" -- "$K" map --n 3 --pattern transpose --traffic-format csv --kind general

# ---- standard input ----
expect_exit 0 "stdin list" -- with_stdin "$T/list.txt" "$K" map --traffic - --work 0.2 --json
json_check "stdin: the file's traffic" 'd["n"] == 4 and d["messages"] == 6'
expect_exit 0 "stdin csv" -- with_stdin "$T/a.csv" "$K" map --traffic - --work 0.2 --json
json_check "stdin csv" 'd["traffic_format"] == "csv"'
expect_exit 0 "stdin goal, named" -- with_stdin "$G/bcast_tree8.goal" "$K" map --traffic - --traffic-format goal --work 0.2 --json
json_check "goal: 8 ranks, n = 3" 'd["n"] == 3 and "num_ranks 8" in d["inferred"]'
expect_bad "two inputs on standard input" -- with_stdin "$T/list.txt" "$K" map --traffic - --mapping - --n 4
expect_stderr_contains "--traffic and --mapping both read standard input"
printf 'src,dst\n1,x\n' > "$T/bad.csv"
expect_bad "bad field on stdin" -- with_stdin "$T/bad.csv" "$K" map --traffic -
expect_stderr_contains "standard input '/dev/stdin', line 2, column 3: 'x' is not a whole number"
printf '0 1\n1 2\n2 3\n3 0\n' > "$T/pairs.txt"
expect_exit 0 "simulate --pairs -" -- with_stdin "$T/pairs.txt" "$K" simulate --n 2 --pairs - --rate 0.1 --json

# ---- the square list a small matrix would be too ----
printf '0 1 5\n1 2 5\n2 0 5\n' > "$T/sq.txt"
expect_exit 0 "3 lines of 3 numbers: a list, said so" -- "$K" map --traffic "$T/sq.txt" --work 0.2
expect_stdout_contains "traffic: 3 lines of 3 numbers, read as a list of messages (as a 3 x 3 matrix: --traffic-format matrix)"
expect_exit 0 "in JSON" -- "$K" map --traffic "$T/sq.txt" --work 0.2 --json
json_check "traffic_note" 'd["messages"] == 3 and "3 x 3 matrix" in d["traffic_note"]'
expect_exit 0 "a 3-rank matrix, named" -- "$K" map --traffic "$T/sq.txt" --traffic-format matrix --work 0.2 --json
json_check "3 x 3 matrix: 7 messages, n = 2" 'd["messages"] == 7 and d["n"] == 2 and d["traffic_format"] == "matrix"'
expect_exit 0 "the same as a list, named" -- "$K" map --traffic "$T/sq.txt" --traffic-format list --work 0.2 --json
json_check "list: 3 messages, nothing to note" 'd["messages"] == 3 and d["traffic_format"] == "list" and d["traffic_note"] is None'
cp "$T/sq.txt" "$T/sq.mat"
expect_exit 0 "a .mat name is a matrix" -- "$K" map --traffic "$T/sq.mat" --work 0.2 --json
json_check ".mat: matrix" 'd["traffic_format"] == "matrix"'

# ---- bad fields: line and column ----
bad_file() { # DESCRIPTION CONTENT MESSAGE: the file refused, the message on stderr
    printf '%b' "$2" > "$T/x.txt"
    expect_bad "$1" -- "$K" map --traffic "$T/x.txt"
    expect_stderr_contains "$3"
}
bad_file "a bad byte count" 'src,dst,bytes\n1,2,300\n1,2,x\n' "line 3, column 5: 'x' is not a whole number"
bad_file "an empty field" 'src,dst,bytes\n1,,300\n' "line 2, column 3: a field is missing before this comma"
bad_file "an open quote" 'src,dst,bytes\n"1,2,300\n' "line 2, column 1: a quoted field does not end on its line"
bad_file "an unknown column" 'from,to,color\n1,2,3\n' "line 1, column 9: 'color' is not a column kcube reads"
bad_file "a short matrix row" '0 1 2 3\n1 0 2 3\n1 0 2\n0 0 0 0\n' "line 3: row 3 has 3 entries, the first row 4"

# ---- the demo's Try line, verbatim, in the directory the demo ran in ----
mkdir -p "$T/demo"
expect_exit 0 "demo" -- sh -c 'cd "$1" && "$2" demo' sh "$T/demo" "$K"
expect_stdout_contains "Step 5's traffic is in ./kcube-demo-traffic.txt"
try=$(grep -o 'kcube map --traffic kcube-demo-traffic.txt.*' "$CLI_OUT")
if [ -n "$try" ] && [ -s "$T/demo/kcube-demo-traffic.txt" ]; then cli_pass; else cli_fail "no Try line or no file"; fi
# shellcheck disable=SC2086 # the line's words, as a user would type them
expect_exit 0 "the Try line runs: $try" -- sh -c 'cd "$1" && shift && "$@"' sh "$T/demo" "$K" ${try#kcube }
expect_stdout_contains "network sized by the traffic (csv): n = 8"
expect_stdout_contains "general "

summary
