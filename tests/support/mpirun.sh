#!/usr/bin/env bash
# Runs a test program on NP local MPI processes: tests/support/mpirun.sh NP PROGRAM [ARGS...]
# Oversubscribed (CI machines have 2 cores), and allowed to run as root, which
# Open MPI refuses unless told: CI containers run as root; users never need this.
# Other MPI implementations ignore the Open MPI variables.
set -euo pipefail
np=$1
shift
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# No warning about missing InfiniBand or shared-memory ptrace rights on a laptop or in a container.
export OMPI_MCA_btl_base_warn_component_unused=0
exec mpirun --oversubscribe -np "$np" "$@"
