#!/usr/bin/env bash
# kc-test: slow (configures and builds a small CMake project against the installed tree)
# `make install PREFIX=... DESTDIR=...` stages a complete
# tree (shared library with a soname, archive, headers, kcube.pc, the CMake
# package, the binary, man page, bash completion, licence), the shared
# library exports only kc_* names, the man page and completion list every
# command and option, and the examples/ build against the installed tree
# through pkg-config and through find_package(kcube), and run, with no
# LD_LIBRARY_PATH (kcube.pc's rpath): the commands docs/install.md gives are
# run as written. <kcube/kcube.h> names every public header and compiles as
# C11 and C++; PREFIX=/usr installs into the multiarch library folder; and
# `make uninstall` of one prefix (staged under DESTDIR) removes exactly what
# that prefix's last install wrote, leaving another prefix and foreign files.
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

# make install configures the build with its prefix: put the build's own back at the end.
orig_prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$BUILD/CMakeCache.txt")
trap 'cmake -S "$SRC" -B "$BUILD" -DCMAKE_INSTALL_PREFIX="$orig_prefix" > /dev/null 2>&1; rm -rf "$CLI_TMP"' EXIT
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
# The machine presets are installed and found from the installed binary.
check "installed share/kcube/networks/sequoia.net" -- test -f "$P/share/kcube/networks/sequoia.net"
expect_exit 0 "installed kcube lists its networks" -- "$P/bin/kcube" --list-networks
expect_stdout_contains "sequoia         16x12x16x16x2"
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
    expect_exit 0 "run $ex (shared, found by kcube.pc's rpath)" -- env -u LD_LIBRARY_PATH "$CLI_TMP/pc/$ex"
    check "$ex needs libkcube.so.0" -- sh -c "readelf -d '$CLI_TMP/pc/$ex' | grep -q 'libkcube.so.0'"
    expect_exit 0 "cc $ex.c (pkg-config --static)" -- cc -std=c11 $SAN "$SRC/examples/$ex.c" -o "$CLI_TMP/pc/${ex}_s" \
        $(pkg-config --cflags kcube) $(pkg-config --static --libs kcube | sed 's/-lkcube/-Wl,-Bstatic -lkcube -Wl,-Bdynamic/')
    expect_exit 0 "run $ex (static)" -- "$CLI_TMP/pc/${ex}_s"
done
expect_exit 0 "contention output" -- env -u LD_LIBRARY_PATH "$CLI_TMP/pc/contention"
expect_stdout_contains "transpose on the 8-cube (permutation): contention 8"

# <kcube/kcube.h>: every installed public header but kcube/mpi.h (which needs
# MPI), compiled and run from C11 and from C++ through pkg-config.
hdrs=$(cd "$P/include/kcube" && ls ./*.h | sed 's|^\./||' | grep -v -e '^kcube\.h$' -e '^mpi\.h$')
missing=""
for h in $hdrs; do grep -qF "#include \"kcube/$h\"" "$P/include/kcube/kcube.h" || missing="$missing $h"; done
if [ -n "$hdrs" ] && [ -z "$missing" ]; then cli_pass; else cli_fail "kcube/kcube.h lacks:$missing"; fi
cat > "$CLI_TMP/umbrella.c" << 'EOF'
#include <kcube/kcube.h>
#include <stdio.h>
int main(void)
{
    double complex x[4] = {0, 1, 0, 0}; /* X[k] = e^{-2 pi i k / 4}: X[2] = -1, stored at bit-reverse(2) = 1 */
    kc_bfly_dif_serial(x, 2);
    printf("%s %.1f\n", kc_scotch_available() >= 0 ? "ok" : "no", creal(x[1]));
    return 0;
}
EOF
cat > "$CLI_TMP/umbrella.cpp" << 'EOF'
#include <kcube/kcube.h>
#include <cstdio>
int main()
{
    std::complex<double> x[4] = {0.0, 1.0, 0.0, 0.0};
    kc_bfly_dif_serial(x, 2);
    std::printf("%s %.1f\n", kc_scotch_available() >= 0 ? "ok" : "no", x[1].real());
    return 0;
}
EOF
# shellcheck disable=SC2046
expect_exit 0 "cc -std=c11 -pedantic kcube/kcube.h" -- cc -std=c11 -pedantic -Wall -Wextra -Werror $SAN \
    "$CLI_TMP/umbrella.c" -o "$CLI_TMP/umbrella_c" $(pkg-config --cflags --libs kcube)
expect_exit 0 "run the C11 program" -- env -u LD_LIBRARY_PATH "$CLI_TMP/umbrella_c"
expect_stdout_contains "ok -1.0"
if command -v c++ > /dev/null; then
    # shellcheck disable=SC2046
    expect_exit 0 "c++ kcube/kcube.h" -- c++ -std=c++11 -Wall -Wextra -Werror $SAN "$CLI_TMP/umbrella.cpp" \
        -o "$CLI_TMP/umbrella_cpp" $(pkg-config --cflags --libs kcube)
    expect_exit 0 "run the C++ program" -- env -u LD_LIBRARY_PATH "$CLI_TMP/umbrella_cpp"
    expect_stdout_contains "ok -1.0"
else
    echo "note: no C++ compiler: kcube/kcube.h compiled as C only"
fi

# docs/install.md's example commands, run as written from a copy of the
# checkout's examples/, /usr/local standing for the temporary prefix and
# nothing in LD_LIBRARY_PATH. (A sanitizer build's library needs the
# sanitizer flags the docs' lines do not give: skipped there.)
if [ -z "$SAN" ]; then
    mkdir -p "$CLI_TMP/docs" && cp -r "$SRC/examples" "$CLI_TMP/docs/"
    n=0
    while IFS= read -r line; do
        cmd=${line#    }
        cmd=${cmd//\/usr\/local/$P}
        case "$cmd" in mpicc*) command -v mpicc > /dev/null && [ -e "$LIBDIR/libkcube-mpi.so" ] || continue ;; esac
        n=$((n + 1))
        expect_exit 0 "docs/install.md: ${line#    }" -- env -u LD_LIBRARY_PATH OMPI_ALLOW_RUN_AS_ROOT=1 \
            OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_base_warn_component_unused=0 \
            bash -c "cd '$CLI_TMP/docs' && $cmd"
    done < <(sed -n '/^## Examples/,/^## /p' "$SRC/docs/install.md" | grep -E '^    (export PKG_CONFIG_PATH|cc |mpicc |cmake )')
    check "docs/install.md gives the example commands ($n run)" -- test "$n" -ge 4
fi

# libkcube-mpi, installed when kcube was built with MPI:
# soname, only kc_mpi_* exported, the tracer libkcube-trace.so beside it
# (only MPI_* exported), kcube-mpi.pc, and examples/mpi_halo.c
# built through it and run on 4 local processes.
if [ -e "$LIBDIR/libkcube-mpi.so" ]; then
    check "installed kcube/mpi.h" -- test -f "$P/include/kcube/mpi.h"
    expect_exit 0 "readelf libkcube-mpi" -- readelf -d "$LIBDIR/libkcube-mpi.so"
    expect_stdout_contains "Library soname: [libkcube-mpi.so.0]"
    other=$(nm -D --defined-only "$LIBDIR/libkcube-mpi.so" | awk 'NF == 3 {print $3}' | grep -v '^kc_mpi_' | head -3)
    if [ -z "$other" ]; then cli_pass; else cli_fail "libkcube-mpi.so exports non-kc_mpi_ symbols: $other"; fi
    # The PMPI tracer beside it, exporting only the MPI_* functions it wraps.
    check "installed libkcube-trace.so" -- test -f "$LIBDIR/libkcube-trace.so"
    other=$(nm -D --defined-only "$LIBDIR/libkcube-trace.so" | awk 'NF == 3 {print $3}' | grep -v '^MPI_' | head -3)
    if [ -z "$other" ]; then cli_pass; else cli_fail "libkcube-trace.so exports non-MPI_ symbols: $other"; fi
    # shellcheck disable=SC2046
    expect_exit 0 "mpicc mpi_halo.c (pkg-config kcube-mpi)" -- mpicc -std=c11 -Wall -Wextra -Werror $SAN \
        "$SRC/examples/mpi_halo.c" -o "$CLI_TMP/pc/mpi_halo" $(pkg-config --cflags --libs kcube-mpi)
    # Sanitized: Open MPI's exit-time allocations are not kcube's (tests/mpi/CMakeLists.txt).
    lsan=()
    [ -n "$SAN" ] && lsan=(ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0
                          LSAN_OPTIONS=suppressions="$SRC/tests/support/lsan-mpi.supp")
    expect_exit 0 "run mpi_halo on 4 processes" -- env -u LD_LIBRARY_PATH "${lsan[@]}" \
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
    expect_exit 0 "run $ex (find_package, shared)" -- env -u LD_LIBRARY_PATH "$CLI_TMP/cm/$ex"
    expect_exit 0 "run $ex (find_package, static)" -- "$CLI_TMP/cm/${ex}_static"
done
# The installed tree moves: kcube.pc and the CMake package name no absolute path.
mv "$ROOT" "$CLI_TMP/moved"
expect_exit 0 "pkg-config after a move" -- env PKG_CONFIG_PATH="${LIBDIR/$ROOT/$CLI_TMP/moved}/pkgconfig" pkg-config --cflags kcube
inc=$(sed -n 's/^-I\([^ ]*\).*/\1/p' "$CLI_OUT")
check "kcube.pc finds the moved headers" -- test "$(readlink -f "$inc")" = "$(readlink -f "$CLI_TMP/moved$PREFIX/include")"

# Uninstall. A second prefix in the same DESTDIR, foreign files beside both,
# and a file outside: `make uninstall` of the first prefix (after the move
# above, so the manifest's relative paths are what count) removes exactly
# what its manifest lists and the kcube folders left empty.
M=$CLI_TMP/moved
expect_exit 0 "make install, a second prefix" -- make -s -C "$SRC" install BUILD="$BUILD" PREFIX=/opt/kcube-b DESTDIR="$M"
check "the second prefix has its own manifest" -- test -f "$M/opt/kcube-b/share/kcube/install_manifest.txt"
touch "$M$PREFIX/bin/other-tool" "$M$PREFIX/include/kcube/mine.h" "$CLI_TMP/outside"
mkdir -p "$M$PREFIX/lib/pkgconfig" && touch "$M$PREFIX/lib/pkgconfig/other.pc"
listing() { (cd "$1" && find . \( -type f -o -type l \) -exec ls -ld --time-style=+%s {} + | awk '{print $1, $5, $6, $7}' | sort); }
before_b=$(listing "$M/opt/kcube-b")
man_a=$M$PREFIX/share/kcube/install_manifest.txt
listed=$(grep -vc '^#' "$man_a")
check "the manifest lists every file of the first install" -- test "$listed" -eq \
    "$(cd "$M$PREFIX" && find . \( -type f -o -type l \) ! -name other-tool ! -name mine.h ! -name other.pc | wc -l)"
expect_exit 0 "make uninstall PREFIX DESTDIR" -- make -s -C "$SRC" uninstall PREFIX=$PREFIX DESTDIR="$M"
left=$(cd "$M$PREFIX" && find . \( -type f -o -type l \) | sort | tr '\n' ' ')
if [ "$left" = "./bin/other-tool ./include/kcube/mine.h ./lib/pkgconfig/other.pc " ]; then cli_pass
else cli_fail "after uninstall the first prefix holds: $left"; fi
check "the other prefix is untouched" -- test "$(listing "$M/opt/kcube-b")" = "$before_b"
check "a file outside stays" -- test -f "$CLI_TMP/outside"
check "kcube's empty folders went" -- test ! -e "$M$PREFIX/share/kcube" -a ! -e "$M$PREFIX/lib/cmake/kcube"
expect_exit 2 "uninstall again: nothing there (make: a recipe failed)" -- make -s -C "$SRC" uninstall PREFIX=$PREFIX DESTDIR="$M"
expect_stderr_contains "no kcube installed under $M$PREFIX"
expect_exit 0 "the second prefix uninstalls by its own script" -- cmake -P "$M/opt/kcube-b/share/kcube/uninstall.cmake"
check "nothing of the second prefix is left" -- test -z "$(find "$M/opt/kcube-b" \( -type f -o -type l \))"
printf '# root ../..\n../../../outside\n' > "$CLI_TMP/evil_manifest.txt"
expect_exit 1 "a manifest line climbing out is refused" -- cmake -DKC_MANIFEST="$CLI_TMP/evil_manifest.txt" \
    -P "$SRC/cmake/uninstall.cmake"
check "and nothing was removed" -- test -f "$CLI_TMP/outside"

# PREFIX=/usr: the multiarch library folder on Debian (lib elsewhere), no
# rpath to a folder the linker searches anyway; uninstalled, nothing is left.
U=$CLI_TMP/usr-stage
expect_exit 0 "make install PREFIX=/usr" -- make -s -C "$SRC" install BUILD="$BUILD" PREFIX=/usr DESTDIR="$U"
arch=$(cc -print-multiarch 2> /dev/null || true)
want=lib
[ -f /etc/debian_version ] && [ -n "$arch" ] && want=lib/$arch
check "PREFIX=/usr puts libkcube.so into /usr/$want" -- test -e "$U/usr/$want/libkcube.so.0"
check "kcube.pc's libdir is /usr/$want" -- grep -qx "libdir=\${prefix}/$want" "$U/usr/$want/pkgconfig/kcube.pc"
check "no rpath to /usr/$want" -- sh -c "! grep -q rpath '$U/usr/$want/pkgconfig/kcube.pc'"
expect_exit 0 "make uninstall PREFIX=/usr" -- make -s -C "$SRC" uninstall PREFIX=/usr DESTDIR="$U"
check "nothing left of the /usr install" -- test -z "$(find "$U" \( -type f -o -type l \))"
summary
