# Shared helper for the command-line test scripts (tests/cli_*.sh).
# Source it, then:
#   expect_exit CODE DESCRIPTION -- cmd args...
#       run the command (stdout and stderr captured in $CLI_OUT, $CLI_ERR) and
#       check its exit status; CLI_STDOUT=/dev/full (or =closed, for >&-) in
#       the environment of the call redirects its standard output instead;
#   expect_stdout_contains TEXT [DESCRIPTION]   about the last command
#   expect_stderr_contains TEXT [DESCRIPTION]   about the last command
#   expect_stdout_matches ERE [DESCRIPTION]     a line of stdout matches the extended regex
#   expect_one_stderr_line [DESCRIPTION]        exactly one line, "kcube: ..."
#   expect_bad DESCRIPTION -- cmd args...       exit 2, one stderr line, nothing on stdout
#   check DESCRIPTION -- cmd args...            passes when cmd succeeds
#   summary                                     "N passed, N failed"; exit 1 on failures
#   cli_skip REASON                             the whole script cannot run here: says so and
#                                               exits 77, which ctest reports as skipped
# $CLI_TMP is a fresh temporary directory, removed at exit.
CLI_PASSED=0
CLI_FAILED=0
CLI_LAST=""
CLI_TMP=$(mktemp -d)
CLI_OUT="$CLI_TMP/.stdout"
CLI_ERR="$CLI_TMP/.stderr"
trap 'rm -rf "$CLI_TMP"' EXIT

cli_pass() { CLI_PASSED=$((CLI_PASSED + 1)); }
cli_fail() {
    CLI_FAILED=$((CLI_FAILED + 1))
    echo "FAIL: $*"
    [ -s "$CLI_ERR" ] && sed 's/^/    stderr: /' "$CLI_ERR" | head -5
    return 0
}

expect_exit() {
    local code=$1 desc=$2
    shift 2
    [ "$1" = "--" ] && shift
    CLI_LAST=$desc
    local rc
    case "${CLI_STDOUT:-}" in
        "") "$@" > "$CLI_OUT" 2> "$CLI_ERR"; rc=$? ;;
        closed) : > "$CLI_OUT"; "$@" >&- 2> "$CLI_ERR"; rc=$? ;;
        *) : > "$CLI_OUT"; "$@" > "$CLI_STDOUT" 2> "$CLI_ERR"; rc=$? ;;
    esac
    if [ "$rc" -eq "$code" ]; then cli_pass; else cli_fail "$desc: exit $rc, expected $code"; fi
}

expect_stdout_contains() {
    if grep -qF -- "$1" "$CLI_OUT"; then cli_pass; else cli_fail "${2:-$CLI_LAST}: stdout lacks '$1'"; fi
}

expect_stderr_contains() {
    if grep -qF -- "$1" "$CLI_ERR"; then cli_pass; else cli_fail "${2:-$CLI_LAST}: stderr lacks '$1'"; fi
}

expect_stdout_matches() {
    if grep -Eq -- "$1" "$CLI_OUT"; then cli_pass; else cli_fail "${2:-$CLI_LAST}: stdout does not match '$1'"; fi
}

# A refusal with status CODE: one line on stderr, nothing on stdout.
expect_refusal() {
    local code=$1 desc=$2
    shift 2
    expect_exit "$code" "$desc" "$@"
    expect_one_stderr_line "$desc"
    if [ -s "$CLI_OUT" ]; then cli_fail "$desc: wrote to stdout"; else cli_pass; fi
}

# Bad input: exit 2.
expect_bad() { expect_refusal 2 "$@"; }

# A run refused over --max-time or --max-memory: good input, the run not
# made (exit 1).
expect_over() { expect_refusal 1 "$@"; }

expect_one_stderr_line() {
    local n
    n=$(wc -l < "$CLI_ERR")
    if [ "$n" -eq 1 ] && grep -q '^kcube: ' "$CLI_ERR"; then cli_pass
    else cli_fail "${1:-$CLI_LAST}: stderr has $n lines, expected one 'kcube: ...' line"; fi
}

check() {
    local desc=$1
    shift
    [ "$1" = "--" ] && shift
    if "$@" >/dev/null 2>&1; then cli_pass; else cli_fail "$desc"; fi
}

summary() {
    echo "$CLI_PASSED passed, $CLI_FAILED failed"
    [ "$CLI_FAILED" -eq 0 ]
}

# A script that cannot run here (a tool missing) must not count as passed:
# 77 is the SKIP_RETURN_CODE tests/CMakeLists.txt gives every cli_*.sh.
cli_skip() {
    echo "skipped: $*"
    exit 77
}
