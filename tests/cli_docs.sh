#!/usr/bin/env bash
# kc-test: slow (it checks what the docs show, not memory safety: the sanitizer run skips it)
# The generated blocks of README.md and docs/*.md: every
# quick block equals what the built kcube prints now (scripts/gen_docs.py
# --check --quick; the slow blocks are checked by --check without --quick), a
# stale block fails naming itself; every code block that shows a kcube
# command is generated or marked not generated (an unmarked one is refused),
# synopses and generated commands use no option --help calls an old
# spelling, a block that shows part of an output says how much it left out;
# and the deadlock example of docs/sim.md prints what a deadlocked one-shot
# run is.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
GEN="$ROOT/scripts/gen_docs.py"

if ! command -v python3 > /dev/null; then
    cli_skip "python3 not installed"
fi

expect_exit 0 "every quick generated block is up to date" -- python3 "$GEN" --check --quick --kcube "$K"
[ "$(cat "$CLI_ERR")" ] && sed 's/^/    /' "$CLI_OUT" | head -40

# a copy with one block changed by hand: --check names it, --write repairs it
mkdir -p "$CLI_TMP/tree"
cp -r "$ROOT/README.md" "$ROOT/docs" "$CLI_TMP/tree/"
sed -i 's/contention 8 (dimension 3), formula and exact count agree/contention 7 (dimension 3)/' "$CLI_TMP/tree/README.md"
expect_exit 1 "a stale block fails" -- python3 "$GEN" --check --only readme-analyze --kcube "$K" --root "$CLI_TMP/tree"
expect_stderr_contains "stale: readme-analyze"
expect_stdout_contains "+    contention 8 (dimension 3), formula and exact count agree"
expect_exit 0 "--write repairs it" -- python3 "$GEN" --write --only readme-analyze --kcube "$K" --root "$CLI_TMP/tree"
check "the repaired page equals the original" -- cmp "$ROOT/README.md" "$CLI_TMP/tree/README.md"
# a marker without a generator is an error
printf '<!-- gen:nothing-makes-this -->\n<!-- /gen:nothing-makes-this -->\n' >> "$CLI_TMP/tree/docs/sim.md"
expect_exit 2 "an unknown block is refused" -- python3 "$GEN" --check --quick --kcube "$K" --root "$CLI_TMP/tree"
expect_stderr_contains "gen:nothing-makes-this has no generator"

# a block showing a kcube command outside the gen markers, unmarked: refused, named
mkdir -p "$CLI_TMP/tree2" && cp -r "$ROOT/README.md" "$ROOT/docs" "$CLI_TMP/tree2/"
printf '\nBy hand:\n\n    $ kcube analyze --n 4 --pattern transpose\n    made up\n' >> "$CLI_TMP/tree2/docs/hl.md"
line=$(($(wc -l < "$CLI_TMP/tree2/docs/hl.md") - 1))
expect_exit 2 "an unmarked block is refused" -- python3 "$GEN" --list --root "$CLI_TMP/tree2"
expect_stderr_contains "docs/hl.md:$line: a block showing a kcube command is neither generated (gen:NAME) nor marked"
cp "$ROOT/docs/hl.md" "$CLI_TMP/tree2/docs/hl.md"
printf '\n<!-- not-generated: an example of the marker -->\n\n    $ kcube analyze --n 4 --pattern transpose\n' \
    >> "$CLI_TMP/tree2/docs/hl.md"
expect_exit 0 "marked, it is accepted" -- python3 "$GEN" --list --root "$CLI_TMP/tree2"
# a synopsis naming an old spelling (hl --mesh) or an option the program lacks fails
cp -r "$ROOT/docs/." "$CLI_TMP/tree2/docs/"
sed -i 's/^\(             \[--topology mesh --shape SIDES\]\) \[--trace\]/\1 [--mesh SIDES] [--no-such-option]/' \
    "$CLI_TMP/tree2/docs/hl.md"
expect_exit 1 "a synopsis with an old spelling fails" -- python3 "$GEN" --check --only hl-census --kcube "$K" \
    --root "$CLI_TMP/tree2"
expect_stderr_contains "kcube hl --mesh is an old spelling"
expect_stderr_contains "kcube hl --no-such-option is not in its --help"
# a generated command with an old spelling (docs/hl.md once showed hl --mesh) fails
mkdir -p "$CLI_TMP/spell"
expect_exit 1 "a generated command with an old spelling fails" -- python3 -c "import sys; sys.path.insert(0, sys.argv[1])
import gen_docs
gen_docs.Runner(sys.argv[2], sys.argv[3]).sh('kcube hl --n 8 --pattern transpose --mesh 16x16')" "$ROOT/scripts" "$K" "$CLI_TMP/spell"
expect_stderr_contains "uses --mesh, an old spelling (kcube hl --help)"
# docs/mpi.md shows 2 lines of map's report: the cut is marked
check "a shortened output is marked" -- sh -c "sed -n '/<!-- gen:mpi-openmpi -->/,/<!-- \/gen:mpi-openmpi -->/p' \
    '$ROOT/docs/mpi.md' | grep -q '^    \.\.\.  ([0-9]* lines in all)\$'"

# docs/sim.md's deadlock example: a one-shot run is not "Poisson injection",
# and a deadlocked one did not deliver "0 messages ... at cycle 0"
printf '0 2\n1 3\n2 0\n3 1\n' > "$CLI_TMP/ring.txt"
expect_exit 1 "deadlocked one-shot run" -- "$K" simulate --k 4 --n 1 --vcs 1 --vc-rule none \
    --pairs "$CLI_TMP/ring.txt" --oneshot --watchdog 50
expect_stdout_contains "one-shot: one message per pair at cycle 0"
expect_stdout_contains "one-shot: deadlock at cycle 53, 0 messages delivered before it"
if grep -q "Poisson\|last tail arrives at cycle 0" "$CLI_OUT"; then cli_fail "one-shot deadlock: wrong labels"; else cli_pass; fi
expect_stderr_contains "kcube: deadlock in dor at the one-shot run"

summary
