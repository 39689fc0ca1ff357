#!/bin/sh
# Build BookSim2 (github.com/booksim/booksim2, commit 28f43299) the way
# kcube compares against it (docs/sim.md "Against BookSim2"): -O3 -g as its
# own Makefile, with one change, bench/booksim2_linkcount.patch, a counter
# of router-to-router link traversals printed after "Total run time" (the
# flit-hops kcube reports as link_traversals). The sources are the user's
# own clone or mirror; nothing is downloaded and nothing of BookSim2 enters
# this repository: the tree is exported (git) or copied into OUT_DIR.
#
#   bench/build_booksim.sh BOOKSIM2_CLONE [OUT_DIR]
#
# BOOKSIM2_CLONE: a checkout, a bare mirror or a plain copy of the sources
# (a git one is exported at $BOOKSIM_COMMIT, default 28f43299). OUT_DIR
# defaults to ${TMPDIR:-/tmp}/kcube-booksim2. Needs g++, make, bison and
# flex. Prints the binary's path on its last line.
set -eu
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 BOOKSIM2_CLONE [OUT_DIR]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
src=$1
out=${2:-${TMPDIR:-/tmp}/kcube-booksim2}
commit=${BOOKSIM_COMMIT:-28f43299}
for tool in g++ make bison flex; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is missing (Debian: apt-get install g++ make bison flex)" >&2; exit 2; }
done
[ -d "$src" ] || { echo "$0: $src is not a directory" >&2; exit 2; }
if [ -e "$out/src/booksim" ]; then
    echo "$0: $out already holds a build; remove it or give another OUT_DIR" >&2
    exit 2
fi
mkdir -p "$out"
# A git clone (checkout or bare): export the pinned commit; else copy.
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$src" archive --format=tar "$commit" | tar -x -C "$out"
elif [ -f "$src/src/main.cpp" ]; then
    cp -r "$src"/. "$out"/
else
    echo "$0: $src is neither a git clone nor a BookSim2 tree (no src/main.cpp)" >&2
    exit 2
fi
cd "$out"
patch -p1 -s < "$here/booksim2_linkcount.patch"
make -C src -j"${JOBS:-2}" >"$out/build.log" 2>&1 || { echo "$0: make failed, see $out/build.log" >&2; exit 1; }
[ -x src/booksim ] || { echo "$0: no src/booksim after make (see $out/build.log)" >&2; exit 1; }
echo "$out/src/booksim"
