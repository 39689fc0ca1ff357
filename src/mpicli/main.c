/* kcube-mpi: kcube whose sweeps are shared by MPI processes (docs/mpi.md,
 * "Sweeps over MPI ranks"). Every process runs the command line; for the
 * commands that sweep load points (simulate, figures) each runs its share
 * of every sweep and all end with the same results (mpi_share.h); rank 0
 * writes. Other commands run on rank 0 alone. One process (no mpirun) is
 * plain kcube. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "cli/cli_host.h"
#include "mpi_share.h"

/* The commands whose sweeps are shared; the rest run on rank 0 only. */
static const char *const SHARED[] = {"simulate", "figures", NULL};

static const char ABOUT[] =
    "kcube-mpi - kcube with its sweeps spread over MPI processes.\n\n"
    "usage: mpirun -np P kcube-mpi COMMAND [options]\n\n"
    "The P processes share the load points of every sweep of `simulate` and `figures` (each process\n"
    "runs its points on --threads threads; by default the cores of its host divided among the\n"
    "processes on that host). Rank 0 writes standard output and every file, byte for byte what one\n"
    "kcube process writes with the same options (a point's seed comes from its index, not from the\n"
    "process that runs it; wall_s columns are each point's measured time). A sweep that stops at\n"
    "saturation keeps the same points. Other commands run on rank 0 alone. Without mpirun it is\n"
    "kcube. Bad input: one line and exit status 2 (`mpirun -q` keeps mpirun's own notice away).\n\n";

static const char MAN[] =
    ".TH KCUBE-MPI 1 \"\" \"kcube 0.1.0\" \"User Commands\"\n"
    ".SH NAME\n"
    "kcube\\-mpi \\- kcube with its simulation sweeps spread over MPI processes\n"
    ".SH SYNOPSIS\n"
    "\\fBmpirun\\fR \\fB\\-np\\fR \\fIP\\fR \\fBkcube\\-mpi\\fR \\fICOMMAND\\fR [\\fIoptions\\fR]\n"
    ".SH DESCRIPTION\n"
    "\\fBkcube\\-mpi\\fR takes the commands and options of \\fBkcube\\fR(1). Under \\fBmpirun\\fR the\n"
    "processes share the load points of every sweep of \\fBsimulate\\fR and \\fBfigures\\fR: process\n"
    "\\fIr\\fR of \\fIP\\fR runs the points \\fIi\\fR with \\fIi\\fR mod \\fIP\\fR = \\fIr\\fR on\n"
    "\\fB\\-\\-threads\\fR threads (default: its host's cores divided among the processes there).\n"
    "Rank 0 writes standard output and every file: the same bytes as one \\fBkcube\\fR process with\n"
    "the same seed and options (the wall-clock columns excepted: each point's own time). A sweep that\n"
    "stops at saturation keeps exactly the points one process keeps. Other commands run on rank 0\n"
    "alone. Run without \\fBmpirun\\fR, \\fBkcube\\-mpi\\fR is \\fBkcube\\fR.\n"
    ".SH EXIT STATUS\n"
    "0 success; 1 a failed run or write; 2 bad input, on any process: one line on standard error\n"
    "(\\fBmpirun \\-q\\fR leaves out mpirun's own notice about a non-zero exit).\n"
    ".SH SEE ALSO\n"
    "\\fBkcube\\fR(1), \\fBmpirun\\fR(1), docs/mpi.md\n";

static int shared_command(int argc, char **argv)
{
    for (int i = 0; argc >= 2 && SHARED[i]; i++)
        if (!strcmp(argv[1], SHARED[i]))
            return 1;
    return 0;
}

static int wants_help(int argc, char **argv)
{
    return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"));
}

/* Default --threads: this host's cores shared by the processes on it. */
static int host_threads(void)
{
    MPI_Comm local;
    int on_host = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
        MPI_Comm_size(local, &on_host);
        MPI_Comm_free(&local);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long t = cores > 0 && on_host > 0 ? cores / on_host : 1;
    return t < 1 ? 1 : t > 8 ? 8 : (int)t;
}

int main(int argc, char **argv)
{
    cli_std_open();
    cli_signals_init();
    /* What the build generates from the binary needs no MPI run-time. */
    if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--man")) {
        fputs(MAN, stdout);
        return cli_finish(CLI_EXIT_OK);
    }
    int provided;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "kcube: MPI could not start\n");
        return CLI_EXIT_FAIL;
    }
    int rank, size, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0 && wants_help(argc, argv))
        fputs(ABOUT, stdout);
    if (size == 1) { /* no mpirun: kcube */
        rc = cli_finish(cli_dispatch(argc, argv));
        MPI_Finalize();
        return rc;
    }
    cli_mpi m;
    int threads = host_threads(), shared = shared_command(argc, argv);
    if (cli_mpi_init(&m, MPI_COMM_WORLD, threads)) {
        fprintf(stderr, "kcube: MPI process %d cannot redirect its output\n", m.rank);
        rc = CLI_EXIT_FAIL;
    } else if (shared)
        rc = cli_finish(cli_dispatch_host(argc, argv, &m.host));
    else
        rc = m.rank == 0 ? cli_finish(cli_dispatch(argc, argv)) : CLI_EXIT_OK;
    rc = cli_mpi_finish(&m, rc);
    MPI_Finalize();
    return rc;
}
