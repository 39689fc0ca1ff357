#!/bin/bash
# The network options every placing command shares (--shape, --topology,
# --wrap, --endpoints, --nodes): bad input is one line and exit 2, naming
# what is wrong; what the papers' networks gave stays as it was.
# $1 = path to the kcube binary.
KC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/support/cli_lib.sh"
cd "$CLI_TMP" || exit 1

# bad TEXT args...: exit 2, one line on stderr containing TEXT, no stdout.
bad() {
    local want=$1
    shift
    expect_bad "bad input: $*" -- "$KC" "$@"
    expect_stderr_contains "$want"
}

for cmd in analyze map export; do
    extra=(--pattern transpose)
    [ "$cmd" = export ] && extra=(--mapping m.txt --format openmpi-rankfile)
    bad "side 1 of axis 0" $cmd --shape 1x4 "${extra[@]}"
    bad "side 300 of axis 1" $cmd --topology torus --shape 4x300 "${extra[@]}"
    bad "names axis 3, but the network has axes 0..2" $cmd --shape 4x4x2 --wrap 0,3 "${extra[@]}"
    bad "names axis 1 twice" $cmd --shape 4x4x2 --wrap 1,1 "${extra[@]}"
    bad "is not 'all', 'none' or axis numbers" $cmd --shape 4x4x2 --wrap x "${extra[@]}"
    bad "out of range" $cmd --n 3 --endpoints 0 "${extra[@]}"
    printf '1\n2\n1\n' > dup.txt
    bad "line 3, column 1: '1' names router 1 a second time" $cmd --n 3 --nodes dup.txt "${extra[@]}"
    printf '0\n8\n' > out.txt
    bad "line 2, column 1: '8' is not a router of this network (0..7)" $cmd --n 3 --nodes out.txt "${extra[@]}"
    printf '1 0 0\n0 2 0\n' > coord.txt
    bad "line 2, column 3: '2' is not a coordinate on axis 1 (0..1)" $cmd --n 3 --nodes coord.txt "${extra[@]}"
    printf '1 0\n' > short.txt
    bad "give a router number or its 3 coordinates" $cmd --n 3 --nodes short.txt "${extra[@]}"
    bad "allocation file 'absent.txt'" $cmd --n 3 --nodes absent.txt "${extra[@]}"
    bad "--tie does not apply to a mesh" $cmd --shape 4x4 --tie minus "${extra[@]}"
    bad "--wrap does not apply to --topology mesh" $cmd --topology mesh --shape 4x4 --wrap 0 "${extra[@]}"
    bad "--wrap does not apply to --topology hypercube" $cmd --topology hypercube --n 3 --wrap 0 "${extra[@]}"
    bad "--wrap none leaves no ring: that is --topology mesh" $cmd --topology torus --shape 4x4 --wrap none "${extra[@]}"
done

# a preset's name, near or not
bad "--network sequioa: no such network; did you mean sequoia? (kcube --list-networks lists them)" \
    analyze --network sequioa --pattern transpose
bad "--network nowhere: no such network (kcube --list-networks lists them)" analyze --network nowhere --pattern transpose

# a linear communication lives on the ranks: it needs a power-of-two rank
# space, and the option blamed is the one the user described the network with
bad "--shape: a linear communication needs GF(k) arithmetic, so k must be a power of two; got k = 6" \
    analyze --topology torus --shape 6x6 --pattern transpose
bad "--network: a linear communication needs equal sides" analyze --network sequoia --pattern transpose
bad "pattern transpose needs an even n, got n = 5 (rank r on slot r: 32 slots are 5 digits over GF(2))" \
    analyze --topology torus --shape 4x4x2 --pattern transpose
expect_exit 0 "bit-reverse on 4x4x2" -- "$KC" analyze --topology torus --shape 4x4x2 --pattern bit-reverse

# --topology torus --shape and --shape --wrap all are the k-ary n-cube
# itself: the same bytes as --k --n
"$KC" analyze --k 4 --n 4 --pattern transpose --json > kn.json
for spelling in "--topology torus --shape 4x4x4x4" "--shape 4x4x4x4 --wrap all" "--topology torus --shape 4x4x4x4 --wrap all"; do
    # shellcheck disable=SC2086
    expect_exit 0 "analyze $spelling" -- "$KC" analyze $spelling --pattern transpose --json
    check "analyze $spelling = --k 4 --n 4" -- cmp -s kn.json "$CLI_OUT"
done
summary
