#!/usr/bin/env bash
# kc-test: slow (configures and builds a small CMake project against the installed tree)
# `make install PREFIX=... DESTDIR=...` stages a complete
# tree (shared library with a soname, archive, headers, kcube.pc, the CMake
# package, the binary, man page, bash completion, licence), the shared
# library exports only kc_* names, the man page and completion list every
# command and option, and the examples/ build against the installed tree
# through pkg-config and through find_package(kcube), and run.
# Usage: cli_install.sh PATH/TO/BUILD/kcube
. "$(dirname "$0")/support/cli_lib.sh"
KCUBE=$1
BUILD=$(cd "$(dirname "$KCUBE")" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$CLI_TMP/root
PREFIX=/opt/kcube
P=$ROOT$PREFIX
# A sanitizer build's library needs its runtime in every program linked to it.
SAN=""
grep -q '^KC_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" && SAN="-fsanitize=address,undefined"

expect_exit 0 "make install" -- make -s -C "$SRC" install BUILD="$BUILD" PREFIX=$PREFIX DESTDIR="$ROOT"
LIBDIR=$(dirname "$(find "$P" -name libkcube.a | head -1)")
for f in bin/kcube include/kcube/topology.h include/kcube/machine.h share/man/man1/kcube.1 \
         share/bash-completion/completions/kcube share/doc/kcube/LICENSE; do
    check "installed $f" -- test -f "$P/$f"
done
for f in libkcube.a libkcube.so libkcube.so.0 pkgconfig/kcube.pc cmake/kcube/kcubeConfig.cmake \
         cmake/kcube/kcubeConfigVersion.cmake; do
    check "installed lib/$f" -- test -e "$LIBDIR/$f"
done
expect_exit 0 "readelf" -- readelf -d "$LIBDIR/libkcube.so"
expect_stdout_contains "Library soname: [libkcube.so.0]"
# Only the public names (and the Scotch error hooks libscotch calls) are exported.
other=$(nm -D --defined-only "$LIBDIR/libkcube.so" | awk 'NF == 3 {print $3}' | grep -v -e '^kc_' -e '^SCOTCH_errorPrintW\?$' | head -3)
if [ -z "$other" ]; then cli_pass; else cli_fail "libkcube.so exports non-kc_ symbols: $other"; fi
check "kcube.pc licence" -- grep -q '^License: MIT' "$LIBDIR/pkgconfig/kcube.pc"
check "LICENSE is MIT" -- grep -q '^MIT License' "$SRC/LICENSE"

# The man page and the completion name every command and every option the help lists.
expect_exit 0 "installed kcube runs" -- "$P/bin/kcube" --version
MAN="$P/share/man/man1/kcube.1" COMP="$P/share/bash-completion/completions/kcube"
check "man page has exit statuses" -- grep -q '^\.SH "EXIT STATUS"' "$MAN"
missing=""
for cmd in $("$KCUBE" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}'); do
    grep -qF ".SS \"kcube ${cmd//-/\\-}" "$MAN" || missing="$missing $cmd"
    subs=$("$KCUBE" "$cmd" --help | awk '/^subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')
    for path in "$cmd" ${subs:+$(for s in $subs; do echo "$cmd:$s"; done)}; do
        for opt in $("$KCUBE" ${path/:/ } --help | awk '/^  --[a-z]/ {print $1}'); do
            grep -qF -- "\\fB${opt//-/\\-}\\fR" "$MAN" || missing="$missing man:${path}:$opt"
            [ "$opt" = --help ] || [ "$opt" = --version ] || grep -qF -- "$opt " "$COMP" || missing="$missing bash:${path}:$opt"
        done
    done
done
if [ -z "$missing" ]; then cli_pass; else cli_fail "not in the man page or completion:$missing"; fi
out=$(bash -c ". '$COMP'; COMP_WORDS=(kcube export --for); COMP_CWORD=2; _kcube; echo \"\${COMPREPLY[*]}\"")
if [ "$out" = "--format" ]; then cli_pass; else cli_fail "completion of 'kcube export --for': '$out'"; fi
if command -v groff > /dev/null; then
    expect_exit 0 "man page formats without warnings" -- groff -ww -man -z "$MAN"
    if [ -s "$CLI_ERR" ]; then cli_fail "groff warnings"; else cli_pass; fi
fi

# The examples through pkg-config: shared, then the archive alone.
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig
expect_exit 0 "pkg-config" -- pkg-config --cflags --libs kcube
expect_stdout_contains "-lkcube"
expect_exit 0 "pkg-config --static" -- pkg-config --static --libs kcube
expect_stdout_contains "-lm"
mkdir -p "$CLI_TMP/pc"
for ex in contention map_traffic replay; do
    # shellcheck disable=SC2046
    expect_exit 0 "cc $ex.c (pkg-config)" -- cc -std=c11 -Wall -Wextra -Werror $SAN "$SRC/examples/$ex.c" \
        -o "$CLI_TMP/pc/$ex" $(pkg-config --cflags --libs kcube)
    expect_exit 0 "run $ex (shared)" -- env LD_LIBRARY_PATH="$LIBDIR" "$CLI_TMP/pc/$ex"
    check "$ex needs libkcube.so.0" -- sh -c "readelf -d '$CLI_TMP/pc/$ex' | grep -q 'libkcube.so.0'"
    expect_exit 0 "cc $ex.c (pkg-config --static)" -- cc -std=c11 $SAN "$SRC/examples/$ex.c" -o "$CLI_TMP/pc/${ex}_s" \
        $(pkg-config --cflags kcube) $(pkg-config --static --libs kcube | sed 's/-lkcube/-Wl,-Bstatic -lkcube -Wl,-Bdynamic/')
    expect_exit 0 "run $ex (static)" -- "$CLI_TMP/pc/${ex}_s"
done
expect_exit 0 "contention output" -- env LD_LIBRARY_PATH="$LIBDIR" "$CLI_TMP/pc/contention"
expect_stdout_contains "transpose on the 8-cube (permutation): contention 8"

# libkcube-mpi, installed when kcube was built with MPI:
# soname, only kc_mpi_* exported, kcube-mpi.pc, and examples/mpi_halo.c
# built through it and run on 4 local processes.
if [ -e "$LIBDIR/libkcube-mpi.so" ]; then
    check "installed kcube/mpi.h" -- test -f "$P/include/kcube/mpi.h"
    expect_exit 0 "readelf libkcube-mpi" -- readelf -d "$LIBDIR/libkcube-mpi.so"
    expect_stdout_contains "Library soname: [libkcube-mpi.so.0]"
    other=$(nm -D --defined-only "$LIBDIR/libkcube-mpi.so" | awk 'NF == 3 {print $3}' | grep -v '^kc_mpi_' | head -3)
    if [ -z "$other" ]; then cli_pass; else cli_fail "libkcube-mpi.so exports non-kc_mpi_ symbols: $other"; fi
    # shellcheck disable=SC2046
    expect_exit 0 "mpicc mpi_halo.c (pkg-config kcube-mpi)" -- mpicc -std=c11 -Wall -Wextra -Werror $SAN \
        "$SRC/examples/mpi_halo.c" -o "$CLI_TMP/pc/mpi_halo" $(pkg-config --cflags --libs kcube-mpi)
    # Sanitized: Open MPI's exit-time allocations are not kcube's (tests/mpi/CMakeLists.txt).
    lsan=()
    [ -n "$SAN" ] && lsan=(ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0
                          LSAN_OPTIONS=suppressions="$SRC/tests/support/lsan-mpi.supp")
    expect_exit 0 "run mpi_halo on 4 processes" -- env LD_LIBRARY_PATH="$LIBDIR" "${lsan[@]}" \
        bash "$SRC/tests/support/mpirun.sh" 4 "$CLI_TMP/pc/mpi_halo" 2
    expect_stdout_contains "rank  3: node"
else
    check "no kcube/mpi.h without libkcube-mpi" -- test ! -e "$P/include/kcube/mpi.h"
fi

# The examples through find_package(kcube): kcube::kcube and kcube::kcube_static.
expect_exit 0 "cmake configure examples" -- cmake -S "$SRC/examples" -B "$CLI_TMP/cm" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="$SAN"
expect_exit 0 "cmake build examples" -- cmake --build "$CLI_TMP/cm"
if [ -e "$LIBDIR/libkcube-mpi.so" ]; then
    check "mpi_halo built by find_package(kcube COMPONENTS kcube_mpi)" -- test -x "$CLI_TMP/cm/mpi_halo"
fi
for ex in contention map_traffic replay; do
    expect_exit 0 "run $ex (find_package, shared)" -- env LD_LIBRARY_PATH="$LIBDIR" "$CLI_TMP/cm/$ex"
    expect_exit 0 "run $ex (find_package, static)" -- "$CLI_TMP/cm/${ex}_static"
done
# The installed tree moves: kcube.pc and the CMake package name no absolute path.
mv "$ROOT" "$CLI_TMP/moved"
expect_exit 0 "pkg-config after a move" -- env PKG_CONFIG_PATH="${LIBDIR/$ROOT/$CLI_TMP/moved}/pkgconfig" pkg-config --cflags kcube
inc=$(sed -n 's/^-I\([^ ]*\).*/\1/p' "$CLI_OUT")
check "kcube.pc finds the moved headers" -- test "$(readlink -f "$inc")" = "$(readlink -f "$CLI_TMP/moved$PREFIX/include")"
summary
