#!/usr/bin/env bash
# kc-test: slow (about 20 s; five minutes under the sanitizers)
# kcube-mpi figures --quick on 2 MPI ranks writes the same
# files byte for byte (charts, figures.csv, summary.txt) and the same
# standard output as one kcube process; bad input is one line, exit 2.
# About 20 s on 2 busy cores: every sweep of the three figures runs twice.
set -u
K="$1"
KM="${2:-}"
. "$(dirname "$0")/../support/cli_lib.sh"
T="$CLI_TMP"
. "$(dirname "$0")/../support/mpi_cli_lib.sh"

expect_bad "figures to standard output on 3 ranks" -- "${MPIRUN[@]}" 3 "$KM" figures --quick --out -

expect_exit 0 "figures --quick, one process" -- "$K" figures --quick --out "$T/figs" --seed 4 --threads 2
mv "$T/figs" "$T/one"
cp "$CLI_OUT" "$T/one.stdout"
expect_exit 0 "figures --quick, 2 ranks" -- "${MPIRUN[@]}" 2 "$KM" figures --quick --out "$T/figs" --seed 4 --threads 1
check "the same standard output" -- cmp -s "$T/one.stdout" "$CLI_OUT"
check "the same files" -- test "$(cd "$T/one" && ls)" = "$(cd "$T/figs" && ls)"
for f in "$T"/one/*; do
    check "$(basename "$f") is the same" -- cmp -s "$f" "$T/figs/$(basename "$f")"
done
check "nothing on stderr" -- test ! -s "$CLI_ERR"
summary
