#!/usr/bin/env bash
# kc-test: slow (it checks what the docs show, not memory safety: the sanitizer run skips it)
# The generated blocks of README.md and docs/*.md: every
# quick block equals what the built kcube prints now (scripts/gen_docs.py
# --check --quick; the slow blocks are checked by --check without --quick), a
# stale block fails naming itself, and the deadlock example of docs/sim.md
# prints what a deadlocked one-shot run is.
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
