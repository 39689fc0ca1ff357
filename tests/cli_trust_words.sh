#!/usr/bin/env bash
# Numbers and words the command line must get right: integers in JSON are
# exact up to 2^64 - 1; one rule for whole numbers in every option; one
# grammar for traffic phases; --loggops in both of its forms; host names are
# host names; help and options agree; "did you mean" for a misspelt command,
# pattern or option; inputs given as process substitution are read.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"

# ---- JSON integers: exact at 2^53 + 1 and 2^64 - 1 -----------------------------
for seed in 9007199254740993 18446744073709551615; do
    expect_exit 0 "simulate --json --seed $seed" -- "$K" simulate --n 4 --pattern transpose --rate 0.1 \
        --seed "$seed" --json
    expect_stdout_matches "\"seed\":[[:space:]]*$seed,?\$" "the seed $seed comes back exact"
done

# ---- one rule for whole numbers: no '+', no spaces, in every integer option ------
for opt in "--n +4" "--n=+4" "--n= 4" "--n=4 --seed +4" "--n=4 --seed= 4" "--n=4 --seed 0x10" \
           "--n=4 --threads +1" "--n=4 --max-memory +1G"; do
    expect_bad "simulate $opt" -- "$K" simulate --pattern transpose --rate 0.1 $opt
done
expect_exit 0 "simulate --n 4 --seed 4" -- "$K" simulate --pattern transpose --rate 0.1 --n 4 --seed 4
# numbers inside values follow the same rule: a pattern's dimension, fft-study's sizes
expect_bad "butterfly:+1" -- "$K" analyze --n 4 --pattern butterfly:+1
expect_bad "butterfly: 1" -- "$K" analyze --n 4 --pattern "butterfly: 1"
expect_bad "digit pattern butterfly:+1" -- "$K" map --k 4 --n 2 --pattern butterfly:+1
expect_bad "fft-study --points +256" -- "$K" fft-study --n 4 --points +256 --configs ecube
expect_bad "fft-study --points 2^+8" -- "$K" fft-study --n 4 --points "2^+8" --configs ecube
expect_exit 0 "analyze butterfly:1" -- "$K" analyze --n 4 --pattern butterfly:1

# ---- one grammar for traffic phases: simulate --pairs and map --traffic ----------
i=0
for body in '# phase\n0 1\n' '# phase a b\n0 1\n' '# phase \xc3\xa9\n0 1\n' '0 1\n# phase\n'; do
    i=$((i + 1))
    printf "$body" > "$CLI_TMP/phase$i.txt"
    expect_bad "map --traffic, bad phase line $i" -- "$K" map --n 3 --traffic "$CLI_TMP/phase$i.txt"
    expect_bad "simulate --pairs, the same bad phase line $i" -- "$K" simulate --n 3 --oneshot \
        --pairs "$CLI_TMP/phase$i.txt"
done
printf '# phase a\n0 1\n# phase b\n1 0 8\n# plain comment\n' > "$CLI_TMP/phase_ok.txt"
expect_exit 0 "map --traffic with phases" -- "$K" map --n 3 --traffic "$CLI_TMP/phase_ok.txt"
expect_exit 0 "simulate --pairs with the same phases" -- "$K" simulate --n 3 --oneshot --pairs "$CLI_TMP/phase_ok.txt"

# ---- --loggops: the positional L,o,g,G,O,S form replay's help shows ----------------
printf 'num_ranks 2\nrank 0 {\nl1: send 1000b to 1\n}\nrank 1 {\nl1: recv 1000b from 0\n}\n' > "$CLI_TMP/two.goal"
expect_exit 0 "replay --model loggops, keyword form" -- "$K" replay "$CLI_TMP/two.goal" --model loggops \
    --loggops L=2500,o=1500,g=1000,G=6,O=0,S=65535
cp "$CLI_OUT" "$CLI_TMP/keyword.out"
expect_exit 0 "replay --model loggops, positional form" -- "$K" replay "$CLI_TMP/two.goal" --model loggops \
    --loggops 2500,1500,1000,6,0,65535
check "the positional form gives the keyword form's report" -- cmp -s "$CLI_OUT" "$CLI_TMP/keyword.out"
expect_exit 0 "positional with S=inf" -- "$K" replay "$CLI_TMP/two.goal" --model loggops --loggops 1,2,3,4,5,inf
for bad in 1,2,3 1,2,3,4,5,6,7 1,2,3,4,5, 1,2,3,x,5,6 "1,2,3,4,5,6 "; do
    expect_bad "--loggops '$bad'" -- "$K" replay "$CLI_TMP/two.goal" --model loggops --loggops "$bad"
done

# ---- host names: RFC 1123 labels ---------------------------------------------------
for h in -0 .0 .. a..b a. -a a- a.-b; do
    printf '0 %s\n1 %s\n' "$h" "$h" > "$CLI_TMP/machine.txt"
    expect_bad "machine host '$h'" -- "$K" map --n 1 --pattern bit-reverse --format openmpi-rankfile \
        --machine "$CLI_TMP/machine.txt" --out "$CLI_TMP/rankfile"
done
for h in node-0 a.b-c.d n_1 10.0.0.1; do
    printf '0 %s\n1 %s\n' "$h" "$h" > "$CLI_TMP/machine.txt"
    expect_exit 0 "machine host '$h'" -- "$K" map --n 1 --pattern bit-reverse --format openmpi-rankfile \
        --machine "$CLI_TMP/machine.txt" --out "$CLI_TMP/rankfile"
done
for h in -%d .%d h%d.. h%d- ; do
    expect_bad "--hosts pattern '$h'" -- "$K" map --n 2 --pattern bit-reverse --format slurm-hostfile \
        --hosts="$h" --slots-per-host 1 --out "$CLI_TMP/hostfile"
done
expect_stderr_contains "makes 'h0-'" "the message names the host the pattern made"

# ---- help and options agree: a command that offers a shape takes --shape -----------
for cmd in $("$K" --help | sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p'); do
    help=$("$K" "$cmd" --help 2>/dev/null)
    if grep -q '16x8' <<<"$help" && ! grep -q -- '--shape' <<<"$help"; then
        cli_fail "kcube $cmd --help offers a shape such as 16x8 but takes no --shape"
    else cli_pass; fi
done

# ---- simulate --compare never fails on a mapping the user did not give ------------
SIM=(simulate --n 4 --rate 0.1 --measure 200 --warmup 100)
expect_exit 0 "simulate --uniform --compare" -- "$K" "${SIM[@]}" --uniform --compare
expect_stdout_contains "[M-G]" "the default comparison keeps M-G"
printf '0 1\n1 0\n2 3\n' > "$CLI_TMP/pairs.txt"
expect_exit 0 "simulate --pairs --compare" -- "$K" "${SIM[@]}" --pairs "$CLI_TMP/pairs.txt" --compare
expect_bad "--configs M-S with uniform traffic" -- "$K" "${SIM[@]}" --uniform --compare --configs ecube,M-S
expect_stderr_contains "--configs: M-S:" "the message names the configuration"
if grep -q -- '--mapping' "$CLI_ERR"; then cli_fail "the message names a --mapping never given"; else cli_pass; fi
expect_exit 0 "simulate --pattern transpose --compare still has M-S" -- "$K" "${SIM[@]}" --pattern transpose --compare
expect_stdout_contains "[M-S]"

# ---- did you mean: commands, options, patterns, names ------------------------------
expect_exit 0 "kcube analyse (the docs' spelling)" -- "$K" analyse --n 4 --pattern transpose
expect_stdout_contains "transpose on the 4-cube"
suggest() { # WANTED -- command...
    local want=$1
    shift 2
    expect_bad "$* suggests $want" -- "$@"
    expect_stderr_contains "did you mean $want"
}
suggest "'analyze'" -- "$K" anlyze --n 4
suggest "'simulate'" -- "$K" simulat --n 4
suggest "--pattern" -- "$K" analyze --n 4 --patern transpose
suggest "--rate" -- "$K" simulate --n 4 --pattern transpose --rat 0.1
suggest "'transpose'" -- "$K" analyze --n 4 --pattern transpos
suggest "'transpose'" -- "$K" simulate --k 4 --n 2 --pattern transpos --rate 0.1
suggest "'bit-reverse'" -- "$K" map --n 4 --pattern bitreverse
suggest "'ecube'" -- "$K" simulate --n 4 --pattern transpose --rate 0.1 --routing ecub
suggest "'torus'" -- "$K" simulate --n 4 --pattern transpose --rate 0.1 --topology toru
expect_bad "no suggestion for a word far from every command" -- "$K" xyzzy
if grep -q "did you mean" "$CLI_ERR"; then cli_fail "a far word got a suggestion"; else cli_pass; fi

# ---- inputs through process substitution and pipes; a FIFO with no writer ---------
expect_exit 0 "simulate --pairs <(...)" -- "$K" simulate --n 3 --oneshot --pairs <(printf '0 1\n1 0\n')
expect_exit 0 "map --traffic <(...)" -- "$K" map --n 3 --traffic <(printf '0 1 8\n1 2 8\n')
expect_exit 0 "replay <(...)" -- "$K" replay <(cat "$CLI_TMP/two.goal") --n 1
expect_exit 0 "a writer that starts late" -- "$K" simulate --n 3 --oneshot --pairs <(sleep 1; printf '0 1\n')
mkfifo "$CLI_TMP/nobody"
start=$SECONDS
expect_bad "a FIFO no one writes to" -- timeout 20 "$K" simulate --n 3 --oneshot --pairs "$CLI_TMP/nobody"
expect_stderr_contains "is a FIFO no one writes to"
check "refused within a few seconds" -- test $((SECONDS - start)) -le 5

# ---- the replay report: every part a duration, the parts adding up ----------------
# On seeded random schedules (with and without LogGOPS's CPU and NIC) and on
# the linear all-to-all of 64 ranks, where LogGOPS is slower than the network:
# no negative time and no -0.00 anywhere, the critical path's parts add up to
# the total in text and JSON, and the difference with LogGOPS said in words.
if command -v python3 >/dev/null; then
    SG="$(dirname "$0")/support/schedgen_like.py"
    cat > "$CLI_TMP/check_report.py" <<'PY'
import json, re, sys
text, js = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
bad = []
if re.search(r"-\d", re.sub(r"[A-Za-z_]-\d", "", text)):
    bad.append("a negative number in the text report")
m = re.search(r"^total (\d+\.\d+) us", text, re.M)
line = re.search(r"^the network's (\d+\.\d+) us along its critical path \([^)]*\):(.*)$", text, re.M)
if js["critical_path_us"] is not None:
    if not line:
        bad.append("no critical-path line")
    else:
        parts = [float(v) for v in re.findall(r" (\d+\.\d+) us", line.group(2))]
        if len(parts) != 9 or abs(sum(parts) - float(m.group(1))) > 0.005 * len(parts) + 1e-9:
            bad.append("text parts %s do not add up to %s" % (parts, m.group(1)))
    cp = {k: v for k, v in js["critical_path_us"].items() if k not in ("steps", "messages")}
    if any(v < 0 or str(v).startswith("-") for v in cp.values()):
        bad.append("a negative part in JSON: %s" % cp)
    if abs(sum(cp.values()) - js["total_us"]) > 1e-6 * (1 + js["total_us"]):
        bad.append("JSON parts add up to %r, not %r" % (sum(cp.values()), js["total_us"]))
if js["loggops_us"] is not None and not re.search(r"the network (takes \d+\.\d+ us longer than|takes as long as|is \d+\.\d+ us faster than) LogGOPS", text):
    bad.append("the difference with LogGOPS is not said in words")
if any(v < 0 for v in js["phases"].values()) or js["compute_us"] < 0:
    bad.append("a negative phase time")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
    report_ok() { # DESCRIPTION -- replay args...
        local desc=$1
        shift 2
        "$K" "$@" > "$CLI_TMP/report.txt" 2> "$CLI_ERR" && "$K" "$@" --json > "$CLI_TMP/report.json" 2>> "$CLI_ERR" ||
            { cli_fail "$desc: replay failed"; return; }
        if why=$(python3 "$CLI_TMP/check_report.py" "$CLI_TMP/report.txt" "$CLI_TMP/report.json"); then cli_pass
        else cli_fail "$desc: $why"; fi
    }
    for seed in $(seq 1 36); do
        n=$((3 + seed % 3))
        python3 "$SG" random $((1 << n)) "$seed" > "$CLI_TMP/r.goal"
        case $((seed % 3)) in
        0) report_ok "random schedule $seed" -- replay "$CLI_TMP/r.goal" --n $n ;;
        1) report_ok "random schedule $seed, LogGOPS CPUs" -- replay "$CLI_TMP/r.goal" --n $n --loggops o=100,g=200,O=1,S=4096 ;;
        2) report_ok "random schedule $seed, start-up 10" -- replay "$CLI_TMP/r.goal" --n $n --startup 10 --byte-time 0.1 ;;
        esac
    done
    python3 "$SG" alltoall 64 1024 > "$CLI_TMP/a64.goal"
    report_ok "linear all-to-all of 64 ranks" -- replay "$CLI_TMP/a64.goal" --n 6
    # CALMANT's all-to-all on 64 ranks: every message at the smallest latency,
    # where the pipeline's sum minus the zero-load part rounded to -0.00
    expect_exit 0 "calmant alltoall --emit-goal" -- "$K" calmant alltoall --d 6 --c 2 --block 2K --no-replay \
        --methods calmant --emit-goal "$CLI_TMP/c64.goal"
    report_ok "CALMANT's all-to-all of 64 ranks" -- replay "$CLI_TMP/c64.goal" --n 6
    expect_exit 0 "replay the all-to-all" -- "$K" replay "$CLI_TMP/a64.goal" --n 6
    expect_stdout_matches "the network is [0-9.]+ us faster than LogGOPS, because g = 0"
    # a phase of calcs shows its time where it is: under its own name
    expect_exit 0 "fft-study --emit-goal" -- "$K" fft-study --n 4 --points 2^8 --configs ecube --emit-goal "$CLI_TMP/fft.goal"
    expect_exit 0 "replay the FFT" -- "$K" replay "$CLI_TMP/fft.goal" --n 4 --json
    check "the compute phase has the calcs' time" -- python3 -c \
        'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d["phases_computing_us"]["compute"] > 0)' "$CLI_OUT"
    expect_exit 0 "replay the FFT, text" -- "$K" replay "$CLI_TMP/fft.goal" --n 4
    expect_stdout_matches "^  compute +0\.00 us +[1-9][0-9]*\.[0-9]+ us$"
fi
summary
