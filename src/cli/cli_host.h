/* cli_host.h - the command line's entry surface for a second front end.
 *
 * A program that runs kcube's commands inside itself (kcube-mpi,
 * src/mpicli/) includes this header and nothing else of src/cli: the exit
 * statuses, the start-up and finish of the standard streams (out.h says
 * what they promise), the dispatch, and cli_host, which tells every command
 * what program it runs in. Everything else in src/cli stays free to change
 * without a second front end noticing. */
#ifndef KC_CLI_HOST_H
#define KC_CLI_HOST_H

/* Exit statuses: 0 success, 1 a run that failed for other reasons, 2 bad input. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* The program a command runs in when it is not plain kcube: kcube-mpi
 * (src/mpicli/, docs/mpi.md) shares every sweep's load points among MPI
 * processes, and only one of them writes. NULL (cli_args.host) in kcube. */
struct kc_simsweep_share;
typedef struct cli_host {
    const struct kc_simsweep_share *sweep; /* given to every sweep (sim_series_sweep) */
    int helper;  /* 1: this process computes its share of the sweeps and writes no output */
    int threads; /* default --threads (0: the cores, at most 8) */
} cli_host;

/* At start-up, once: descriptors 0, 1 and 2 open (cli_std_open), and
 * SIGPIPE/SIGXFSZ ignored so write errors are seen (cli_signals_init). */
void cli_std_open(void);
void cli_signals_init(void);

/* After the command: flush and close standard output, checking every step;
 * returns rc, or CLI_EXIT_FAIL after one line when the output failed. */
int cli_finish(int rc);

/* kcube COMMAND ...: the whole tool; returns the exit status. */
int cli_dispatch(int argc, char **argv);
/* The same inside another program: every command sees host in cli_args. */
int cli_dispatch_host(int argc, char **argv, const cli_host *host);

#endif
