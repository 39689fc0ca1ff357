#!/usr/bin/env bash
# kcube help COMMAND [SUBCOMMAND] prints exactly what kcube COMMAND
# [SUBCOMMAND] --help prints, for every command; kcube --help lists every
# command of the table; an unknown command after help is bad input.
# Usage: cli_help.sh PATH/TO/kcube
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

expect_exit 0 "kcube --help" -- "$K" --help
cp "$CLI_OUT" "$CLI_TMP/usage"
commands=$(sed -n '/^commands:/,/^$/p' "$CLI_TMP/usage" | awk 'NF > 1 { print $1 }')
if [ "$(echo "$commands" | wc -l)" -ge 12 ]; then cli_pass; else cli_fail "kcube --help lists the commands"; fi
for c in $commands; do
    "$K" "$c" --help > "$CLI_TMP/a" 2>&1
    "$K" help "$c" > "$CLI_TMP/b" 2>&1
    check "help $c = $c --help" -- cmp "$CLI_TMP/a" "$CLI_TMP/b"
done
for s in load schedule cost alltoall; do
    "$K" calmant "$s" --help > "$CLI_TMP/a" 2>&1
    "$K" help calmant "$s" > "$CLI_TMP/b" 2>&1
    check "help calmant $s = calmant $s --help" -- cmp "$CLI_TMP/a" "$CLI_TMP/b"
done
expect_exit 0 "kcube help alone is the general help" -- "$K" help
check "the same as --help" -- cmp "$CLI_OUT" "$CLI_TMP/usage"
expect_bad "help of an unknown command" -- "$K" help nosuch
expect_stderr_contains "unknown command 'nosuch'"
summary
