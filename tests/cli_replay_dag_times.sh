#!/usr/bin/env bash
# kcube replay on random DAGs with irequires (tests/support/schedgen_like.py
# dag: chains on each rank, now and then an irequires, messages of 8 to
# 4096 bytes): the makespan, the contention-free LogGP time, the LogGOPS
# figure, the sum of every rank's finish and the critical path's steps and
# channel waits, as the network replay gave them before its processor
# events, head latencies and LogGOPS order records were made cheaper. Three
# seeds on the 4-cube: the nCUBE 2 model, LogGOPS's CPUs and NICs in
# LogGOPS's order with rendezvous above 2048 bytes, and two ranks a node.
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
GEN="$(dirname "$0")/support/schedgen_like.py"
command -v python3 >/dev/null 2>&1 || cli_skip "python3 not found"

figures() { # FILE ARGS...: total loggp loggops finish-sum path-steps path-channel-wait
    local f=$1
    shift
    "$K" replay "$f" "$@" --json 2> "$CLI_ERR" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d["critical_path_us"]
print("%.3f %.3f %.3f %.3f %d %.3f" % (d["total_us"], d["loggp_us"], d["loggops_us"], sum(d["finish_us"]),
                                       p["steps"], p["channel_wait"]))' 2>/dev/null || echo fail
}

# seed | mode | total loggp loggops finish-sum steps channel-wait
while read -r seed mode want; do
    python3 "$GEN" dag 16 "$seed" 100 3000 > "$CLI_TMP/d$seed.goal"
    case $mode in
    ncube) args=(--n 4) ;;
    loggops) args=(--n 4 --loggops o=1500,g=1000,O=0,S=2048) ;;
    packed) args=(--n 3 --ranks-per-node 2) ;;
    esac
    got=$(figures "$CLI_TMP/d$seed.goal" "${args[@]}")
    if [ "$got" = "$want" ]; then cli_pass; else cli_fail "dag seed $seed $mode: got '$got', want '$want'"; fi
done <<'TABLE'
1 ncube 408666.060 232071.334 378323.705 6472586.599 1058 137746.770
1 loggops 502758.600 232071.334 393080.656 8002019.349 1768 120512.250
1 packed 518207.520 227928.644 378086.015 8236761.427 1017 176424.120
2 ncube 429941.880 250260.465 413235.079 6818336.718 1056 114170.430
2 loggops 552031.680 250260.465 432972.070 8781669.663 1676 154464.870
2 packed 544438.350 240301.361 412983.709 8654797.168 1104 195995.070
3 ncube 437390.832 245676.468 428322.149 6912317.328 1098 121742.880
3 loggops 542555.052 245676.468 447615.569 8620313.328 1635 135682.800
3 packed 560402.340 245010.929 428048.549 8889238.549 1065 208665.600
TABLE
summary
