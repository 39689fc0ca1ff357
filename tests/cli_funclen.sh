#!/bin/bash
# No function in src/ over 80 lines and no .c file over 1,200 (docs/architecture.md):
# scripts/funclen.py --check, and its measure seen to catch a long function.
KC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/support/cli_lib.sh"
FUNCLEN="$ROOT/scripts/funclen.py"

expect_exit 0 "funclen on src/" -- python3 "$FUNCLEN" --check 80 1200
expect_stdout_contains "none over 80 lines"

# A function of 81 lines in a copy: caught, with its file, line and name.
mkdir -p "$CLI_TMP/src/demo"
{
    printf '/* demo */\nint kci_long_demo(int x)\n{\n'
    for i in $(seq 1 77); do printf '    x += %d;\n' "$i"; done
    printf '    return x;\n}\n'
} > "$CLI_TMP/src/demo/long.c"
expect_exit 1 "a function of 81 lines fails" -- python3 "$FUNCLEN" --check 80 1200 "$CLI_TMP/src"
expect_stderr_contains "kci_long_demo has 81 lines"
expect_exit 0 "80 lines are allowed" -- python3 "$FUNCLEN" --check 81 1200 "$CLI_TMP/src"

summary
