/* mpi_share.h - kcube-mpi's side of a shared sweep (kcube/simsweep.h
 * kc_simsweep_share) and the end of a run, over MPI.
 *
 * Every process runs the same command line. All collective traffic is
 * "rounds": each process brings one fixed-size record (at a sweep, or done
 * with its exit status and first error line) and MPI_Allgather gives every
 * process all of them, so every process takes the same decision:
 *  - a round where all are at a sweep: they agree on the first point that
 *    ends it and each owner broadcasts its points up to there, so every
 *    process ends the sweep with the same results;
 *  - a round where some process is done (it failed before this sweep, say
 *    a file only it cannot read): the others abort the sweep with that
 *    process's error, finish their command and come to the end rounds;
 *  - the end (cli_mpi_finish): rounds until every process is done, then one
 *    exit status for the job, and rank 0 prints the one error line when a
 *    helper failed alone.
 * No process can wait for a collective another one never reaches. Points
 * travel as raw kc_simresult bytes: every process runs the same kcube-mpi
 * binary on the same architecture. */
#ifndef KC_MPICLI_MPI_SHARE_H
#define KC_MPICLI_MPI_SHARE_H

#include <mpi.h>

#include "cli/cli_host.h"
#include "kcube/simsweep.h"

typedef struct cli_mpi {
    MPI_Comm comm;
    int rank, size;
    int seq;                 /* sweeps exchanged so far */
    int err_fd;              /* a helper's captured stderr (read back at the end), else -1 */
    char param[64];          /* a received kc_err.param, kept while the error is reported */
    kc_simsweep_share share; /* ctx: this struct */
    cli_host host;
} cli_mpi;

/* Set up m for this process of comm (rank 0 writes; the others are
 * helpers: standard output goes to /dev/null, stderr to a temporary file
 * that only speaks when that helper fails alone). threads is the default
 * --threads. Returns 0, or -1 when a helper's streams cannot be redirected. */
int cli_mpi_init(cli_mpi *m, MPI_Comm comm, int threads);

/* The exchange of kc_simsweep_share (ctx: cli_mpi). Costs one round and
 * one broadcast per process, bytes: the points up to the end. */
kc_status cli_mpi_exchange(void *ctx, kc_simsweep_exchange *x, kc_err *err);

/* This process is done with exit status rc: rounds until all are, then
 * the job's status (rank 0's when it failed, else the lowest failed
 * helper's, whose line rank 0 prints), the same on every process. */
int cli_mpi_finish(cli_mpi *m, int rc);

#endif
