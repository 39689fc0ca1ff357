#!/usr/bin/env bash
# kcube's Scotch start against Scotch's own command line:
# the same graph and target given to `scotch_gmap` (Debian's scotch package,
# default strategy) must give the mapping kcube's "scotch" start gives. The
# .map scotch_gmap writes is translated into kcube's node numbering here, in
# awk (terminal -> coordinates with Scotch's extents, axis 0 fastest ->
# kcube node); the traffic is renamed through it, and kcube's count of the
# identity start on the renamed traffic is then the count of Scotch's mapping.
# The translation is checked against Scotch's own figure (CommExpan, the sum
# of weight x distance, which is bytes x hops), including on a target whose
# axes are given in the other order. Skipped when scotch_gmap or kcube's
# Scotch is missing (scripts/deps.sh installs both).
set -u
K="$1"
. "$(dirname "$0")/support/cli_lib.sh"
T=$CLI_TMP

if ! command -v scotch_gmap > /dev/null 2>&1; then
    cli_skip "scotch_gmap not installed (Debian package scotch)"
fi
printf '0 1\n' > "$CLI_TMP/one.txt"
if ! "$K" map --n 1 --traffic "$CLI_TMP/one.txt" --kind general --work 0.01 --json | grep -q '"scotch_available":[[:space:]]*true'; then
    cli_skip "kcube built without Scotch"
fi

# Traffics, 'src dst bytes'. halo2D SX SY PERIODIC SEED: a 5-point halo,
# rank x + SX y, random bytes 1..1000 per message (seed > 0) or 100 each.
halo2d() {
    awk -v sx="$1" -v sy="$2" -v per="$3" -v seed="$4" 'BEGIN {
        srand(seed > 0 ? seed : 1)
        for (y = 0; y < sy; y++) for (x = 0; x < sx; x++) {
            n = 0
            if (x + 1 < sx || per) nb[n++] = (x + 1) % sx + sx * y
            if (x > 0 || per) nb[n++] = (x + sx - 1) % sx + sx * y
            if (y + 1 < sy || per) nb[n++] = x + sx * ((y + 1) % sy)
            if (y > 0 || per) nb[n++] = x + sx * ((y + sy - 1) % sy)
            for (i = 0; i < n; i++) print x + sx * y, nb[i], (seed > 0 ? int(rand() * 1000) + 1 : 100)
        }
    }'
}
# random P DEG SEED: each rank sends to DEG random others, random bytes.
random_traffic() {
    awk -v P="$1" -v d="$2" -v seed="$3" 'BEGIN {
        srand(seed)
        for (v = 0; v < P; v++) for (i = 0; i < d; i++) {
            w = int(rand() * P); if (w != v) print v, w, int(rand() * 5000) + 1
        }
    }'
}

# The Scotch graph of a traffic (P vertices): one edge per unordered pair,
# its weight the bytes of both directions, each vertex's neighbours in
# increasing order (the graph kcube hands libscotch).
to_grf() {
    awk '$1 != $2 && $3 > 0 { a = $1; b = $2; print a, b, $3; print b, a, $3 }' "$2" | sort -k1,1n -k2,2n |
        awk -v P="$1" '{ k = $1 " " $2; if (k == last) w[n] += $3; else { n++; u[n] = $1; v[n] = $2; w[n] = $3; last = k } }
        END { print 0; print P, n; print "0 010"; i = 1
              for (x = 0; x < P; x++) { s = ""; d = 0; while (i <= n && u[i] == x) { s = s " " w[i] " " v[i]; d++; i++ }; print d s } }'
}

# rename MAP TRAFFIC "SCOTCH_DIMS" "KCUBE_PERM": the traffic with every rank
# replaced by its node. Terminal t has coordinates c_i (Scotch's extents,
# axis 0 fastest); kcube axis j takes Scotch's axis KCUBE_PERM[j]; the node
# is sum c_{perm[j]} * prod_{l<j} dims[perm[l]] (kcube: axis 0 fastest).
rename() {
    awk -v dims="$3" -v perm="$4" 'BEGIN { n = split(dims, D, " "); split(perm, Q, " ") }
        FNR == NR { if (FNR > 1) { t = $2; for (i = 1; i <= n; i++) { c[i] = t % D[i]; t = int(t / D[i]) }
                                  node = 0; s = 1; for (j = 1; j <= n; j++) { node += c[Q[j] + 1] * s; s *= D[Q[j] + 1] }
                                  m[$1] = node }
                    next }
        { print m[$1], m[$2], $3 }' "$1" "$2"
}

# counts NAME: "max hops sumsq" of start NAME in the JSON in $CLI_OUT.
counts() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=[s for s in d['starts'] if s['mapping']==sys.argv[2]][0]; print(s['max_load'], s['hops'], s['sumsq'])" "$CLI_OUT" "$1"
}

# permutation MAP: succeeds when no two ranks share a terminal.
permutation() { awk 'NR > 1 { if (seen[$2]++) exit 1 }' "$1"; }

# run_case NAME TRAFFIC-FILE P TARGET-LINE "SCOTCH_DIMS" "PERM" SAME kcube-topology-args...
# SAME = 1: the target is the one kcube builds, so the counts must be equal.
# scotch_gmap runs with -Cd (deterministic, the mode kcube runs libscotch in);
# plain scotch_gmap (threads, non-deterministic mode) is shown when it differs.
run_case() {
    local name=$1 tr=$2 P=$3 tgt=$4 dims=$5 perm=$6 same=$7
    shift 7
    to_grf "$P" "$tr" > "$T/$name.grf"
    echo "$tgt" > "$T/$name.tgt"
    if ! scotch_gmap -Cd "$T/$name.grf" "$T/$name.tgt" "$T/$name.map" -vm > "$T/$name.log" 2>&1; then
        cli_fail "$name: scotch_gmap failed"
        return
    fi
    local expan theirs ours plain
    expan=$(sed -n 's/^M\tCommExpan=[^(]*(\([0-9]*\)).*/\1/p' "$T/$name.log")
    rename "$T/$name.map" "$tr" "$dims" "$perm" > "$T/$name.renamed"
    expect_exit 0 "$name: count Scotch's mapping" -- "$K" map --traffic "$T/$name.renamed" "$@" --kind general --work 0.01 --json
    theirs=$(counts identity)
    if [ "$(echo "$theirs" | cut -d' ' -f2)" = "$expan" ]; then cli_pass
    else cli_fail "$name: translated mapping has bytes x hops $(echo "$theirs" | cut -d' ' -f2), Scotch says $expan"; fi
    [ "$same" = 1 ] || return 0
    if ! permutation "$T/$name.map"; then
        echo "$name: scotch_gmap put two ranks on one terminal (kcube repairs that): counts not compared"
        return 0
    fi
    expect_exit 0 "$name: kcube's Scotch start" -- "$K" map --traffic "$tr" "$@" --kind general --work 0.01 --json
    ours=$(counts scotch)
    if [ "$ours" = "$theirs" ]; then cli_pass
    else cli_fail "$name: kcube's Scotch start $ours, scotch_gmap -Cd $theirs (max, bytes x hops, sum of squares)"; fi
    scotch_gmap "$T/$name.grf" "$T/$name.tgt" "$T/$name.plain" > /dev/null 2>&1
    if cmp -s "$T/$name.map" "$T/$name.plain"; then plain=same
    else
        rename "$T/$name.plain" "$tr" "$dims" "$perm" > "$T/$name.renamed"
        "$K" map --traffic "$T/$name.renamed" "$@" --kind general --work 0.01 --json > "$CLI_OUT" 2> /dev/null
        plain=$(counts identity)
    fi
    echo "$name: kcube's Scotch start $ours; scotch_gmap -Cd $theirs; plain scotch_gmap: $plain"
}

halo2d 8 8 1 7 > "$T/h88w.txt"
halo2d 8 8 1 0 > "$T/h88.txt"
halo2d 16 8 0 3 > "$T/h168.txt"
halo2d 16 16 1 5 > "$T/h1616w.txt"
random_traffic 64 4 11 > "$T/r64.txt"
random_traffic 128 6 12 > "$T/r128.txt"

# torus: a weighted periodic 8x8 halo on the 4-ary 3-cube, ties split, and more
run_case torus3_halo "$T/h88w.txt" 64 "torus3D 4 4 4" "4 4 4" "0 1 2" 1 --k 4 --n 3 --tie split
run_case torus3_halo_plain "$T/h88.txt" 64 "torus3D 4 4 4" "4 4 4" "0 1 2" 1 --k 4 --n 3
run_case torus2_random "$T/r64.txt" 64 "torus2D 8 8" "8 8" "0 1" 1 --k 8 --n 2
run_case torus4_halo "$T/h1616w.txt" 256 "torusXD 4 4 4 4 4" "4 4 4 4" "0 1 2 3" 1 --k 4 --n 4
# hypercube
run_case hcub_halo "$T/h88w.txt" 64 "hcub 6" "2 2 2 2 2 2" "0 1 2 3 4 5" 1 --n 6
run_case hcub_random "$T/r128.txt" 128 "hcub 7" "2 2 2 2 2 2 2" "0 1 2 3 4 5 6" 1 --n 7
# mesh
run_case mesh2_halo "$T/h88w.txt" 64 "mesh2D 8 8" "8 8" "0 1" 1 --k 8 --n 2 --topology mesh
run_case mesh2_open "$T/h168.txt" 128 "mesh2D 16 8" "16 8" "0 1" 1 --shape 16x8
run_case mesh3_random "$T/r64.txt" 64 "mesh3D 4 4 4" "4 4 4" "0 1 2" 1 --k 4 --n 3 --topology mesh
# translation alone: Scotch's axes in the other order (its axis 0 is kcube's
# axis 1, and so on), on meshes whose sides differ
run_case mesh3_shape "$T/r64.txt" 64 "mesh3D 8 4 2" "8 4 2" "0 1 2" 1 --shape 8x4x2
run_case mesh2_swapped "$T/h168.txt" 128 "mesh2D 8 16" "8 16" "1 0" 0 --shape 16x8
run_case mesh3_rotated "$T/r64.txt" 64 "mesh3D 2 8 4" "2 8 4" "1 2 0" 0 --shape 8x4x2

# More Scotch seeds as starts (up to 4096 nodes): "scotch:s3", "s5", "s7"
# next to "scotch", which the cap and the baseline still refer to; and
# "scotch:def", Scotch in the mode plain scotch_gmap runs in.
expect_exit 0 "Scotch seeds as starts" -- "$K" map --traffic "$T/h88w.txt" --k 4 --n 3 --tie split --kind general --work 0.01 --json
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); n=[s['mapping'] for s in d['starts']]
sys.exit(0 if [m for m in n if m.startswith('scotch')] == ['scotch', 'scotch:s3', 'scotch:s5', 'scotch:s7', 'scotch:def'] else 1)" "$CLI_OUT"
then cli_pass; else cli_fail "starts scotch, scotch:s3, scotch:s5, scotch:s7, scotch:def expected"; fi
summary
