#!/usr/bin/env bash
# kcube map's inputs besides --traffic: stencils
# and collectives from the command line, checked against an independent
# count (python3 below); --emit-traffic round trips; the 32x32 periodic
# 5-point stencil maps and its node list replays; phases of traffic files
# and GOAL schedules counted apart by default and pooled with --phases
# together; one clear error line with exit 2 for bad input.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

json_get() { # PYTHON-EXPR over d (the JSON of the last command)
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$CLI_OUT"
}

# The expected messages, computed here from the definitions (not kcube's code):
# expected KIND ARGS... prints sorted "src dst bytes" lines.
expected() {
    python3 - "$@" <<'EOF'
import itertools, sys
kind = sys.argv[1]
out = []
if kind == "stencil":
    pts, grid, periodic, order, b = sys.argv[2], [int(x) for x in sys.argv[3].split("x")], sys.argv[4] == "1", sys.argv[5], int(sys.argv[6])
    d = len(grid)
    axes = list(range(d)) if order == "axis0-fastest" else list(range(d))[::-1]
    def rank(c):
        r, m = 0, 1
        for i in axes:
            r += c[i] * m
            m *= grid[i]
        return r
    offs = [o for o in itertools.product((-1, 0, 1), repeat=d) if any(o)]
    if pts in ("5pt", "7pt"):
        offs = [o for o in offs if sum(map(abs, o)) == 1]
    for c in itertools.product(*[range(s) for s in grid]):
        for o in offs:
            n = [c[i] + o[i] for i in range(d)]
            if any(grid[i] == 1 and o[i] for i in range(d)):
                continue
            if periodic:
                n = [n[i] % grid[i] for i in range(d)]
            elif any(n[i] < 0 or n[i] >= grid[i] for i in range(d)):
                continue
            out.append((rank(c), rank(n), b))
else:
    P, b = int(sys.argv[2]), int(sys.argv[3])
    if kind == "alltoall":
        out = [(s, t, b) for s in range(P) for t in range(P) if s != t]
    elif kind == "allreduce-ring":
        # simulate the 2(P-1) steps chunk by chunk and sum per pair
        size = [b // P + (1 if i < b % P else 0) for i in range(P)]
        tot = {}
        for step in range(P - 1):      # reduce-scatter: r sends chunk r - step
            for r in range(P):
                tot[r] = tot.get(r, 0) + size[(r - step) % P]
        for step in range(P - 1):      # allgather: r sends chunk r + 1 - step
            for r in range(P):
                tot[r] += size[(r + 1 - step) % P]
        out = [(r, (r + 1) % P, tot[r]) for r in range(P)]
    elif kind == "allreduce-recdoub":
        i = 1
        while i < P:
            out += [(r, r ^ i, b) for r in range(P)]
            i *= 2
    elif kind == "bcast-binomial":
        have = {0}
        i = 1
        while i < P:
            new = [(r, r + i, b) for r in sorted(have) if r + i < P]
            out += new
            have |= {t for _, t, _ in new}
            i *= 2
        assert have == set(range(P))
for m in sorted(out):
    print(*m)
EOF
}

# emitted FILE: its messages, sorted
emitted() { grep -v '^#' "$1" | sort -n -k1,1 -k2,2 -k3,3; }

same_messages() { # DESCRIPTION EMITTED-FILE EXPECTED-ARGS...
    local what="$1" file="$2"
    shift 2
    expected "$@" | sort -n -k1,1 -k2,2 -k3,3 > "$CLI_TMP/want.txt"
    emitted "$file" > "$CLI_TMP/got.txt"
    if [ -s "$CLI_TMP/want.txt" ] && cmp -s "$CLI_TMP/want.txt" "$CLI_TMP/got.txt"; then
        cli_pass
    else
        cli_fail "$what: messages differ from the independent count ($(wc -l < "$CLI_TMP/got.txt") vs $(wc -l < "$CLI_TMP/want.txt"))"
    fi
}

# ---- stencils against the independent count ----
T="$CLI_TMP/t.txt"
expect_exit 0 "5pt 32x32 periodic emitted" -- "$K" map --n 10 --stencil 5pt --grid 32x32 --periodic --emit-traffic "$T"
same_messages "5pt 32x32 periodic" "$T" stencil 5pt 32x32 1 axis0-fastest 1
expect_exit 0 "9pt 5x6 open on a 5x6 mesh" -- "$K" map --shape 5x6 --stencil 9pt --grid 5x6 --bytes 4K --emit-traffic "$T"
same_messages "9pt 5x6 open" "$T" stencil 9pt 5x6 0 axis0-fastest 4096
expect_exit 0 "9pt 6x4 periodic, axis0-slowest" -- "$K" map --shape 6x4 --stencil 9pt --grid 6x4 --periodic --grid-order axis0-slowest --emit-traffic "$T"
same_messages "9pt 6x4 periodic axis0-slowest" "$T" stencil 9pt 6x4 1 axis0-slowest 1
expect_exit 0 "27pt 4x2x8 periodic" -- "$K" map --n 6 --stencil 27pt --grid 4x2x8 --periodic --bytes 3 --emit-traffic "$T"
same_messages "27pt 4x2x8 periodic (side 2 twice)" "$T" stencil 27pt 4x2x8 1 axis0-fastest 3
expect_exit 0 "7pt 4x4x4 open, axis0-slowest" -- "$K" map --k 4 --n 3 --stencil 7pt --grid 4x4x4 --grid-order axis0-slowest --emit-traffic "$T"
same_messages "7pt 4x4x4 open axis0-slowest" "$T" stencil 7pt 4x4x4 0 axis0-slowest 1
# the order matters: a 4x2 grid's axis-0 neighbours are 1 apart in one order, 2 in the other
expect_exit 0 "5pt 4x2 open axis0-slowest" -- "$K" map --n 3 --stencil 5pt --grid 4x2 --grid-order axis0-slowest --emit-traffic "$T"
check "axis0-slowest: 0 -> 2 is an axis-0 neighbour" -- grep -qx '0 2 1' "$T"
check "axis0-slowest: 0 -> 1 is an axis-1 neighbour" -- grep -qx '0 1 1' "$T"

# ---- collectives ----
for c in alltoall allreduce-ring allreduce-recdoub bcast-binomial; do
    expect_exit 0 "$c on 8 ranks emitted" -- "$K" map --n 3 --collective "$c" --bytes 1003 --emit-traffic "$T"
    same_messages "$c on 8 ranks" "$T" "$c" 8 1003
done
expect_exit 0 "bcast-binomial on a 3x4 mesh" -- "$K" map --shape 3x4 --collective bcast-binomial --bytes 5 --emit-traffic "$T"
same_messages "bcast-binomial on 12 ranks" "$T" bcast-binomial 12 5
expect_exit 0 "allreduce-ring on a 3x5 mesh" -- "$K" map --shape 3x5 --collective allreduce-ring --bytes 1M --emit-traffic "$T"
same_messages "allreduce-ring on 15 ranks" "$T" allreduce-ring 15 1048576
expect_exit 0 "--emit-traffic - writes to standard output" -- "$K" map --n 2 --collective alltoall --emit-traffic -
expect_stdout_matches '^3 2 1$'

# ---- the issue's command, and its node list replays ----
M="$CLI_TMP/m.txt"
expect_exit 0 "map --stencil 5pt --grid 32x32 --periodic --n 10 --out m.txt" -- \
    "$K" map --stencil 5pt --grid 32x32 --periodic --n 10 --out "$M"
expect_stdout_matches '^  general +1 +4096 ' "every halo message one hop (the lower bound)"
check "the node list has 1024 lines" -- test "$(wc -l < "$M")" -eq 1024
expect_exit 0 "5pt traffic for simulate" -- "$K" map --n 10 --stencil 5pt --grid 32x32 --periodic --emit-traffic "$T"
expect_exit 0 "simulate replays the mapping" -- "$K" simulate --n 10 --pairs "$T" --mapping "$M" --oneshot
expect_stdout_contains "channel contention 1"
expect_stdout_contains "one-shot: 4096 messages"

# ---- --emit-traffic round trip: the same mapping and figures ----
expect_exit 0 "9pt on the 4-ary 3-cube" -- "$K" map --k 4 --n 3 --stencil 9pt --grid 8x8 --periodic --bytes 7 --work 2 --json
json_get 'd["final"], d["to_physical"], [s["max_load"] for s in d["starts"]]' > "$CLI_TMP/a.txt"
expect_exit 0 "emit it" -- "$K" map --k 4 --n 3 --stencil 9pt --grid 8x8 --periodic --bytes 7 --emit-traffic "$T"
expect_exit 0 "map the file" -- "$K" map --k 4 --n 3 --traffic "$T" --work 2 --json
json_get 'd["final"], d["to_physical"], [s["max_load"] for s in d["starts"]]' > "$CLI_TMP/b.txt"
check "emitted file maps to the same result" -- cmp -s "$CLI_TMP/a.txt" "$CLI_TMP/b.txt"

# ---- phases: apart by default, pooled with --phases together ----
printf '# two phases on the same link\n# phase first\n0 1 8\n# phase second\n0 1 8\n' > "$CLI_TMP/ph.txt"
expect_exit 0 "traffic file phases apart" -- "$K" map --n 2 --traffic "$CLI_TMP/ph.txt" --work 0.1 --json
check "apart: max load 8, two communications" -- test "$(json_get 'd["final"]["max_load"], d["communications_counted"], d["communications"]')" = "8 apart ['first', 'second']"
expect_exit 0 "traffic file phases together" -- "$K" map --n 2 --traffic "$CLI_TMP/ph.txt" --phases together --work 0.1 --json
check "together: max load 16, pooled" -- test "$(json_get 'd["final"]["max_load"], d["communications_counted"]')" = "16 together"
expect_exit 0 "objective simultaneous pools them too" -- "$K" map --n 2 --traffic "$CLI_TMP/ph.txt" --objective simultaneous --work 0.1 --json
check "simultaneous: max load 16" -- test "$(json_get 'd["final"]["max_load"]')" = "16"
expect_bad "objective sum is refused as for pattern sets" -- "$K" map --n 2 --traffic "$CLI_TMP/ph.txt" --objective sum
expect_exit 0 "a file's phases survive --emit-traffic" -- "$K" map --n 2 --traffic "$CLI_TMP/ph.txt" --emit-traffic "$T"
check "phase lines written" -- test "$(grep -c '^# phase ' "$T")" -eq 2

cat > "$CLI_TMP/ph.goal" <<'EOF'
// two phases, each one message 0 -> 1
num_ranks 4
rank 0 {
// kcube-phase first
s1: send 8b to 1 tag 0
// kcube-phase second
s2: send 8b to 1 tag 1
s2 requires s1
}
rank 1 {
r1: recv 8b from 0 tag 0
r2: recv 8b from 0 tag 1
r2 requires r1
}
EOF
expect_exit 0 "GOAL phases apart" -- "$K" map --n 2 --traffic "$CLI_TMP/ph.goal" --work 0.1 --json
check "GOAL apart: max 8 per phase" -- test "$(json_get 'd["final"]["max_load"], d["communications_counted"], d["communications"]')" = "8 apart ['first', 'second']"
expect_exit 0 "GOAL phases together" -- "$K" map --n 2 --traffic "$CLI_TMP/ph.goal" --phases together --work 0.1 --json
check "GOAL together: max 16" -- test "$(json_get 'd["final"]["max_load"], d["communications_counted"]')" = "16 together"

# ---- bad input: one line, exit 2 ----
expect_bad "grid smaller than the network" -- "$K" map --n 10 --stencil 5pt --grid 32x31
expect_stderr_contains "has 992 processes, the network 1024 nodes"
expect_bad "grid larger than the network" -- "$K" map --n 4 --stencil 5pt --grid 8x8
expect_bad "unknown stencil" -- "$K" map --n 10 --stencil 11pt --grid 32x32
expect_bad "7pt on a 2-axis grid" -- "$K" map --n 10 --stencil 7pt --grid 32x32
expect_bad "stencil without --grid" -- "$K" map --n 4 --stencil 5pt
expect_bad "bad --grid" -- "$K" map --n 4 --stencil 5pt --grid 4by4
expect_bad "--grid without --stencil" -- "$K" map --n 4 --collective alltoall --grid 4x4
expect_bad "--bytes without a generated input" -- "$K" map --n 4 --traffic "$CLI_TMP/ph.txt" --bytes 4
expect_bad "--phases without --traffic" -- "$K" map --n 4 --stencil 5pt --grid 4x4 --phases together
expect_bad "two inputs" -- "$K" map --n 4 --stencil 5pt --grid 4x4 --traffic "$CLI_TMP/ph.txt"
expect_bad "unknown collective" -- "$K" map --n 3 --collective gather
expect_bad "recursive doubling on 15 ranks" -- "$K" map --shape 3x5 --collective allreduce-recdoub
expect_bad "--emit-traffic with --out" -- "$K" map --n 3 --collective alltoall --emit-traffic "$T" --out "$M"
expect_bad "--grid-order on an algebraic mapping" -- "$K" map --n 4 --pattern transpose --grid-order axis0-slowest
printf '# phase\n0 1\n' > "$CLI_TMP/bad.txt"
expect_bad "a phase line without a name" -- "$K" map --n 2 --traffic "$CLI_TMP/bad.txt"
expect_stderr_contains "line 1"
printf '# phase a b\n0 1\n' > "$CLI_TMP/bad.txt"
expect_bad "a phase line with two names" -- "$K" map --n 2 --traffic "$CLI_TMP/bad.txt"

summary
