# Sourced by tests/mpi/cli_*.sh after cli_lib.sh, with KM set to the kcube-mpi
# binary (empty when MPI is absent: the script has nothing to test and ends).
# Sets MPIRUN=(... mpirun.sh): "${MPIRUN[@]}" NP PROGRAM ARGS.
if [ -z "$KM" ]; then
    echo "kcube-mpi is not built (no MPI): nothing to test"
    exit 0
fi
# Under ASan, Open MPI's own memory at exit (its plugins, unloaded by then,
# leave stacks LeakSanitizer cannot name or suppress) is not checked; the
# sweep code's is, by test_simsweep_share and the one-process tests.
NOLEAK=(env "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0")
MPIRUN=("${NOLEAK[@]}" bash "$(dirname "${BASH_SOURCE[0]}")/mpirun.sh")
# Open MPI adds its own notice when a process exits non-zero; `mpirun -q` (this
# variable) leaves kcube's line alone on stderr, which is what is tested.
export OMPI_MCA_orte_execute_quiet=1
