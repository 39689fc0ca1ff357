#!/usr/bin/env bash
# kcube simulate: the router-pipeline options (BookSim2's router) and the
# --booksim preset: the preset is the options it lists, options given
# override it, the seeds' values given explicitly change nothing (the old
# loops run), bad values are refused in one line, the zero-load latency
# with the preset is BookSim2's 5H + 26, random ties are reproducible.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

# JSON of a run without its wall time (the one figure that varies).
json() { "$K" simulate "$@" --json | grep -v wall_seconds; }
same() { # description -- args A -- args B
    local desc=$1
    shift 2
    local a=() b=()
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    if [ "$(json "${a[@]}")" = "$(json "${b[@]}")" ] && [ -n "$(json "${a[@]}")" ]; then cli_pass; else cli_fail "$desc"; fi
}

NET=(--n 5 --uniform --rate 0.3 --warmup 300 --measure 1000)
TOR=(--k 4 --n 2 --uniform --rate 0.3 --warmup 300 --measure 1000)
FLAGS=(--depth 8 --vcs 2 --vc-link shared --route-delay 2 --switch-delay 2 --link-latency 1 --injection bernoulli
       --inject-latency 2 --credit-delay 2 --vc-release tail-in --va-delay 1 --inj-vcs 2 --ej-vcs 2
       --input-port shared --arbitration islip --self-traffic send --queue-cap 1e6)

# FLAGS without the options named (--opt), for a run that gives them itself.
flags_but() {
    local skip=" $* " i=0
    OUT=()
    while [ $i -lt ${#FLAGS[@]} ]; do
        case "$skip" in *" ${FLAGS[$i]} "*) ;; *) OUT+=("${FLAGS[$i]}" "${FLAGS[$((i + 1))]}") ;; esac
        i=$((i + 2))
    done
}

# --- the preset is its options; options given override it (before or after it) ---
same "--booksim = its options (cube: no ties)" -- "${NET[@]}" --booksim -- "${NET[@]}" "${FLAGS[@]}"
same "--booksim = its options (torus)" -- "${TOR[@]}" --booksim -- "${TOR[@]}" "${FLAGS[@]}" --tie random
flags_but --credit-delay
same "--booksim then --credit-delay 0" -- "${NET[@]}" --booksim --credit-delay 0 -- "${NET[@]}" "${OUT[@]}" \
    --credit-delay 0
same "--credit-delay 0 then --booksim" -- "${NET[@]}" --credit-delay 0 --booksim -- "${NET[@]}" "${OUT[@]}" \
    --credit-delay 0
flags_but --vcs --inj-vcs --ej-vcs
same "--booksim --vcs 3 takes 3 injection and ejection VCs" -- "${NET[@]}" --booksim --vcs 3 -- "${NET[@]}" \
    "${OUT[@]}" --vcs 3 --inj-vcs 3 --ej-vcs 3
same "--booksim --tie split on a torus" -- "${TOR[@]}" --booksim --tie split -- "${TOR[@]}" "${FLAGS[@]}" --tie split
expect_exit 0 "--booksim text" -- "$K" simulate "${NET[@]}" --booksim
expect_stdout_contains "router    pipeline: R 2 (VA 1), S 2, W 1, inject 2, credit delay 2, VC release tail-in"
expect_stdout_contains "input ports shared, islip, self traffic send"
expect_exit 0 "--booksim JSON" -- "$K" simulate "${NET[@]}" --booksim --json
expect_stdout_contains '"arbitration":	"islip"'

# --- the seeds' values given explicitly: the old loops, the same figures ---
SEEDS=(--inject-latency 1 --credit-delay 0 --vc-release tail-out --va-delay 0 --inj-vcs 0 --ej-vcs 0
       --input-port free --arbitration fcfs --self-traffic drop)
same "seeds' values on the cube" -- "${NET[@]}" -- "${NET[@]}" "${SEEDS[@]}"
same "seeds' values on a torus, tie plus" -- "${TOR[@]}" --depth 2 -- "${TOR[@]}" --depth 2 "${SEEDS[@]}" --tie plus
expect_exit 0 "seeds' model: no router line" -- "$K" simulate "${NET[@]}"
check "no router line without the options" -- test -z "$(grep '^router' "$CLI_OUT")"

# --- each option changes the run it should ---
for opt in "--inject-latency 3" "--credit-delay 1" "--vc-release tail-in" "--inj-vcs 2" "--ej-vcs 2" \
    "--input-port shared" "--arbitration round-robin" "--arbitration islip" "--self-traffic send"; do
    # shellcheck disable=SC2086
    expect_exit 0 "$opt runs" -- "$K" simulate "${NET[@]}" --depth 4 --vcs 2 $opt
    expect_stdout_contains "router    pipeline"
done

# --- bad values: one line, exit 2 ---
expect_bad "--va-delay above R" -- "$K" simulate "${NET[@]}" --route-delay 1 --va-delay 2
expect_bad "--arbitration unknown" -- "$K" simulate "${NET[@]}" --arbitration lottery
expect_bad "--vc-release unknown" -- "$K" simulate "${NET[@]}" --vc-release never
expect_bad "--input-port unknown" -- "$K" simulate "${NET[@]}" --input-port half
expect_bad "--self-traffic unknown" -- "$K" simulate "${NET[@]}" --self-traffic maybe
expect_bad "--inj-vcs above the VC limit" -- "$K" simulate "${NET[@]}" --inj-vcs 9
expect_bad "--ej-vcs negative" -- "$K" simulate "${NET[@]}" --ej-vcs -1
expect_bad "--inject-latency 0" -- "$K" simulate "${NET[@]}" --inject-latency 0
expect_bad "--credit-delay above 1000" -- "$K" simulate "${NET[@]}" --credit-delay 1001
expect_bad "--tie random off tori" -- "$K" simulate "${NET[@]}" --tie random
expect_bad "--tie unknown" -- "$K" simulate "${TOR[@]}" --tie sideways
expect_bad "--tie random is the simulator's (map)" -- "$K" map --k 4 --n 2 --pattern transpose --tie random
expect_stderr_contains "map takes plus|minus|split, not random"
expect_bad "--tie random is the simulator's (analyze)" -- "$K" analyze --k 4 --n 2 --pattern transpose --tie random
expect_bad "--booksim takes no value" -- "$K" simulate "${NET[@]}" --booksim=1

# --- zero load with the preset: BookSim2's 5H + 26 (one message of H hops) ---
for h in 1 2 3 5 8; do
    printf '0 %d\n' $(((1 << h) - 1)) > "$CLI_TMP/pair"
    expect_exit 0 "one message of $h hops" -- "$K" simulate --n 8 --pairs "$CLI_TMP/pair" --oneshot --booksim
    expect_stdout_contains "last tail arrives at cycle $((5 * h + 26)),"
done

# --- messages to oneself: a permutation keeps its 16 fixed points (transpose on the 8-cube) ---
expect_exit 0 "transpose drops fixed points" -- "$K" simulate --n 8 --pattern transpose --oneshot --booksim \
    --self-traffic drop
expect_stdout_contains "one-shot: 240 messages"
expect_exit 0 "transpose keeps fixed points" -- "$K" simulate --n 8 --pattern transpose --oneshot --booksim
expect_stdout_contains "one-shot: 256 messages"

# --- random ties: reproducible by seed, seeds differ ---
same "--tie random reproducible" -- "${TOR[@]}" --tie random --seed 7 -- "${TOR[@]}" --tie random --seed 7
a=$(json "${TOR[@]}" --tie random --seed 7)
b=$(json "${TOR[@]}" --tie random --seed 8)
check "--tie random: seeds differ" -- test "$a" != "$b"

summary
