#!/usr/bin/env bash
# The option layer: map --out for every kind and its round trip
# through simulate / replay --mapping FILE; help offers only what a command
# takes (replay --mapping, hl / calmant --topology); hl prints mesh sides
# axis 0 first; one default for --startup; --work names its unit; no --mapping
# alias in map; COMMAND --version; one format for --pairs and --traffic;
# hl --plc-count exact for every n it takes (checked against Python).
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
J='[[:space:]]*'

# ---- map --out: every kind writes the node list simulate reads back --------------
# The mapped contention ("after") must be what simulate measures under the file.
# The first number after "NAME": in the last command's JSON (after FROM when given).
json_num() {
    sed -n "${2:+/\"$2\":/,\$}s/.*\"$1\":[[:space:]]*\([-0-9.e+]*\).*/\1/p" "$CLI_OUT" | head -1
}
roundtrip() { # DESCRIPTION FIELD [FROM] -- map args (simulate gets the same, less --kind / --work)
    local desc=$1 field=$2 from="" f="$CLI_TMP/map_$RANDOM.txt"
    shift 2
    if [ "$1" != "--" ]; then from=$1; shift; fi
    shift
    expect_exit 0 "$desc: map --out" -- "$K" map "$@" --out "$f" --json
    local after
    after=$(json_num "$field" "$from")
    if sort -n "$f" | awk '$1 != NR - 1 { bad = 1 } END { exit bad || NR == 0 }'; then cli_pass
    else cli_fail "$desc: the file is not a node permutation"; fi
    local sim=() skip=0
    for a in "$@"; do
        if [ $skip = 1 ]; then skip=0; continue; fi
        case $a in --kind|--work) skip=1 ;; *) sim+=("$a") ;; esac
    done
    expect_exit 0 "$desc: simulate --mapping FILE" -- "$K" simulate "${sim[@]}" --oneshot --mapping "$f"
    expect_stdout_contains "channel contention $after" "$desc: contention $after under the file"
}
roundtrip "reorder" contention_after -- --n 8 --pattern bit-reverse --kind reorder
roundtrip "linear" contention_after -- --n 6 --pattern transpose --kind linear
roundtrip "auto" contention_after -- --n 6 --pattern transpose
roundtrip "general" max_load final -- --n 6 --pattern transpose --kind general --work 4
roundtrip "torus linear" contention_after -- --k 4 --n 4 --pattern transpose --kind linear
roundtrip "torus reorder" contention_after -- --k 4 --n 4 --pattern digit-reverse --kind reorder
# and the contention before, without the file, differs (so the file did the work)
expect_exit 0 "no mapping" -- "$K" simulate --n 8 --pattern bit-reverse --oneshot
expect_stdout_contains "channel contention 8"
# --out with text output too, atomically; a bad directory fails before any work
expect_exit 0 "reorder, text" -- "$K" map --n 4 --pattern transpose --kind reorder --out "$CLI_TMP/r.txt"
if [ "$(wc -l < "$CLI_TMP/r.txt")" -eq 16 ]; then cli_pass; else cli_fail "16 lines for the 4-cube"; fi
expect_exit 1 "--out into a missing directory" -- "$K" map --n 4 --pattern transpose --kind linear --out "$CLI_TMP/no/r.txt"
expect_one_stderr_line
expect_bad "--out beyond 2^24 nodes" -- "$K" map --n 25 --pattern transpose --kind reorder --out "$CLI_TMP/big.txt"

# replay --mapping FILE: a transpose on 64 ranks, moved by map's mapping
python3 - "$CLI_TMP/t.goal" << 'EOF'
import sys
n = 6
def t(x):
    h = n // 2
    return ((x & ((1 << h) - 1)) << h) | (x >> h)
with open(sys.argv[1], "w") as f:
    f.write("num_ranks %d\n" % (1 << n))
    for x in range(1 << n):
        f.write("rank %d {\n" % x)
        if t(x) != x:
            f.write("l1: send 1024b to %d tag 0\nl2: recv 1024b from %d tag 0\n" % (t(x), t(x)))
        f.write("}\n")
EOF
expect_exit 0 "map for replay" -- "$K" map --n 6 --pattern transpose --kind reorder --out "$CLI_TMP/tr.txt"
expect_exit 0 "replay, no mapping" -- "$K" replay "$CLI_TMP/t.goal" --n 6 --json
plain=$(json_num total_us)
expect_exit 0 "replay --mapping FILE" -- "$K" replay "$CLI_TMP/t.goal" --n 6 --mapping "$CLI_TMP/tr.txt" --json
expect_stdout_matches "\"mapping\":${J}\"file "
mapped=$(json_num total_us)
if awk -v m="$mapped" -v p="$plain" 'BEGIN { exit !(m + 0 < p + 0) }'; then cli_pass
else cli_fail "replay under the mapping ($mapped us) is not faster than without ($plain us)"; fi

# ---- help offers only what the command takes -------------------------------------------
expect_exit 0 "replay help" -- "$K" replay --help
expect_stdout_contains "--mapping none|FILE"
# (the key to the seed papers at the end names one "optimal processor mapping")
if grep -v '^  seed 00[0-9]  ' "$CLI_OUT" | grep -q "optimal"; then cli_fail "replay --help offers optimal"; else cli_pass; fi
expect_bad "replay --mapping optimal" -- "$K" replay "$CLI_TMP/t.goal" --n 6 --mapping optimal
expect_exit 0 "hl help" -- "$K" hl --help
expect_stdout_contains "--topology hypercube|mesh"
expect_bad "hl --topology torus" -- "$K" hl --n 4 --pattern transpose --topology torus
expect_stderr_contains "hl takes hypercube|mesh, not torus"
expect_exit 0 "calmant load help" -- "$K" calmant load --help
expect_stdout_contains "--topology mesh|torus"
expect_bad "calmant load --topology hypercube" -- "$K" calmant load --d 4 --c 1 --task 1,2 --topology hypercube
expect_exit 0 "map help" -- "$K" map --help
# --mapping is now only a general mapping's start file, not the old choice of kind
if grep -q "^  --mapping none|FILE" "$CLI_OUT"; then cli_pass; else cli_fail "map lists --mapping none|FILE"; fi
if grep -q "^  --budget" "$CLI_OUT"; then cli_fail "map still lists --budget"; else cli_pass; fi
expect_stdout_contains "--objective max|simultaneous|sum"
expect_stdout_matches "what a set of communications minimises \(default max\)$"
expect_bad "map --mapping is no kind" -- "$K" map --n 4 --pattern transpose --mapping linear
expect_stderr_contains "is a start of the general mapping"
expect_bad "map --budget is gone" -- "$K" map --n 4 --pattern transpose --kind general --budget 1

# ---- --work: a count, said as one ---------------------------------------------------------
expect_exit 0 "--work in text" -- "$K" map --n 4 --pattern transpose --kind general --work 2
expect_stdout_contains "work 2 million updates"
if grep -q "budget" "$CLI_OUT"; then cli_fail "text still says budget"; else cli_pass; fi
expect_exit 0 "--work in JSON" -- "$K" map --n 4 --pattern transpose --kind general --work 2 --json
expect_stdout_matches "\"work_millions\":${J}2,"

# ---- hl: mesh sides axis 0 first ----------------------------------------------------------
expect_exit 0 "hl --shape 8x32" -- "$K" hl --n 8 --pattern transpose --shape 8x32
expect_stdout_contains "mesh 8x32:"
expect_exit 0 "hl --shape 8x32 --json" -- "$K" hl --n 8 --pattern transpose --shape 8x32 --json
expect_stdout_matches "\"sides\":${J}\"8x32\""
expect_exit 0 "hl --mesh (old spelling, axis 0 first as --shape)" -- "$K" hl --n 8 --pattern transpose --mesh 8x32
expect_stdout_contains "mesh 8x32:"

# ---- one default for --startup and --byte-time ----------------------------------------------
expect_exit 0 "replay default" -- "$K" replay "$CLI_TMP/t.goal" --n 6 --json
expect_stdout_matches "\"startup_us\":${J}164,"
expect_exit 0 "calmant alltoall default" -- "$K" calmant alltoall --d 4 --c 2 --block 64 --methods cc-cube --json
expect_stdout_matches "\"startup\":${J}164,"
expect_exit 0 "calmant cost without --startup" -- "$K" calmant cost --d 8 --c 2 --bytes 4096 --degree 1 --json
c_default=$(json_num time)
expect_exit 0 "calmant cost with the defaults given" -- "$K" calmant cost --d 8 --c 2 --bytes 4096 --degree 1 \
    --startup 164 --byte-time 0.57 --json
c_given=$(json_num time)
if [ "$c_default" = "$c_given" ]; then cli_pass; else cli_fail "calmant cost default $c_default != $c_given"; fi
for c in replay fft-study "calmant alltoall" "calmant cost"; do
    # shellcheck disable=SC2086
    expect_exit 0 "$c help" -- "$K" $c --help
    expect_stdout_matches "^  --startup US .*\(default 164\)$" "$c: --startup defaults to 164"
done

# ---- --version after any command ---------------------------------------------------------------
for c in analyze butterfly calmant "calmant load" demo fft-study figures gray hl map replay simulate; do
    # shellcheck disable=SC2086
    expect_exit 0 "$c --version" -- "$K" $c --version
    expect_stdout_contains "kcube 0.1.0" "$c --version"
done
expect_exit 0 "--version among options" -- "$K" map --n 4 --version
expect_stdout_contains "kcube 0.1.0"

# ---- one format for --pairs and --traffic ------------------------------------------------------
printf '# both columns, and a byte count\n0 1\n1 0 64\n2,3\n3 2 1\n' > "$CLI_TMP/mixed.txt"
expect_exit 0 "simulate --pairs with bytes" -- "$K" simulate --n 2 --pairs "$CLI_TMP/mixed.txt" --oneshot
expect_stdout_contains "one-shot: 4 messages"
expect_exit 0 "map --traffic without bytes" -- "$K" map --n 2 --traffic "$CLI_TMP/mixed.txt" --work 1 --json
expect_stdout_matches "\"messages\":${J}4,"
printf '0 1 2 3\n' > "$CLI_TMP/four.txt"
expect_bad "four columns (pairs)" -- "$K" simulate --n 2 --pairs "$CLI_TMP/four.txt" --oneshot
expect_bad "four columns (traffic)" -- "$K" map --n 2 --traffic "$CLI_TMP/four.txt"
printf '0 1 -5\n' > "$CLI_TMP/neg.txt"
expect_bad "negative bytes (pairs)" -- "$K" simulate --n 2 --pairs "$CLI_TMP/neg.txt" --oneshot

# ---- units under every table header that has them ------------------------------------------
expect_exit 0 "simulate table" -- "$K" simulate --n 4 --pattern transpose --rate 0.1 --warmup 100 --measure 300
expect_stdout_matches "^ +\(flits/node/cycle\) +\(f/n/c\) +\(ratio\) +\(cycles\) +\(cycles\) +\(cycles\) +\(cycles\) +\(flit hops\) +\(s\)$"
expect_exit 0 "calmant alltoall table" -- "$K" calmant alltoall --d 4 --c 2 --block 64
expect_stdout_contains "time (us)"
expect_stdout_contains "msg (bytes)"
expect_exit 0 "calmant cost" -- "$K" calmant cost --d 8 --c 2 --bytes 4096
expect_stdout_matches "^time [0-9.]+ us \(with the lower bounds [0-9.]+ us; not pipelined [0-9.]+ us\)$"
expect_exit 0 "general mapping table" -- "$K" map --n 4 --pattern transpose --kind general --work 1
expect_stdout_matches "^ +\(bytes\) +\(bytes x hops\) +\(bytes\^2\)$"

# ---- hl --plc-count: exact for every n it takes ---------------------------------------------------
# Independent count in Python: |GL(c,2)| by brute force (c <= 3) against the
# closed product; |LC'_k| by brute force over matrices (k <= 3) against the
# inclusion-exclusion; then recurrence (3) with Python's exact integers.
python3 - > "$CLI_TMP/plc.txt" << 'EOF'
from itertools import product
def rank2(rows, n):
    rows = list(rows); r = 0
    for c in range(n):
        p = next((i for i in range(r, n) if rows[i] >> c & 1), None)
        if p is None: continue
        rows[r], rows[p] = rows[p], rows[r]
        for i in range(n):
            if i != r and rows[i] >> c & 1: rows[i] ^= rows[r]
        r += 1
    return r
def gl(c):
    g = 1
    for i in range(c): g *= 2**c - 2**i
    return g
for c in range(1, 4):
    brute = sum(1 for rows in product(range(2**c), repeat=c) if rank2(rows, c) == c)
    assert brute == gl(c), (c, brute)
def lcp(k, tri):  # matrices with no split, inclusion-exclusion over split sets, times 2^k vectors
    tot = 0
    for cuts in range(2**(k - 1)):
        sizes, start = [], 0
        for i in range(k):
            if i == k - 1 or cuts >> i & 1:
                sizes.append(i + 1 - start); start = i + 1
        term = 1
        for s in sizes: term *= gl(s)
        if tri:
            term <<= sum(sizes[a] * sizes[b] for a in range(len(sizes)) for b in range(a + 1, len(sizes)))
        tot += term if len(sizes) % 2 else -term
    return tot << k
def splits(rows, k, j, tri):
    low = (1 << (k - j)) - 1; high = ((1 << k) - 1) & ~low
    if any(rows[i] & low for i in range(k - j, k)): return False
    if not tri and any(rows[i] & high for i in range(k - j)): return False
    return True
for k in range(1, 4):
    for tri in (0, 1):
        brute = sum(1 for rows in product(range(2**k), repeat=k)
                    if rank2(rows, k) == k and not any(splits(rows, k, j, tri) for j in range(1, k))) << k
        assert brute == lcp(k, tri), (k, tri)
for n in range(13):
    out = []
    for tri in (1, 0):
        plc = [1, 2, 24]
        for m in range(3, n + 1):
            plc.append(sum(lcp(k, tri) * plc[m - k] ** (2**k) for k in range(1, m + 1)))
        out.append(plc[n])
    print(n, out[0], out[1])
EOF
if [ "$(wc -l < "$CLI_TMP/plc.txt")" -eq 13 ]; then cli_pass; else cli_fail "the Python count did not finish"; fi
while read -r n tri diag; do
    expect_exit 0 "plc-count $n" -- "$K" hl --plc-count "$n" --json
    expect_stdout_matches "\"recurrence_block_triangular\":${J}\"$tri\"" "plc-count $n: block-triangular exact"
    expect_stdout_matches "\"recurrence_block_diagonal\":${J}\"$diag\"" "plc-count $n: block-diagonal exact"
done < "$CLI_TMP/plc.txt"
# and enumeration agrees with the exact reading where it runs (n <= 4)
expect_exit 0 "plc-count 4 enumerated" -- "$K" hl --plc-count 4 --json
expect_stdout_matches "\"enumerated\":${J}17678336"
expect_stdout_matches "\"recurrence_block_triangular\":${J}\"17678336\""
expect_bad "plc-count 13" -- "$K" hl --plc-count 13

summary
