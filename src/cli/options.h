/* options.h - the options shared by several commands, each defined once.
 *
 * A command-specific option may live in its command's file; an option used
 * by two commands lives here, so a name means one thing everywhere. */
#ifndef KC_CLI_OPTIONS_H
#define KC_CLI_OPTIONS_H

#include "cli.h"
#include "opt.h"

/* Topology. */
extern const cli_opt OPT_N, OPT_K, OPT_TOPOLOGY, OPT_SHAPE, OPT_TIE;
/* Communications: --pattern P | --matrix M [--vector V] [--scatter], in order. */
extern const cli_opt OPT_PATTERN, OPT_MATRIX, OPT_VECTOR, OPT_SCATTER;
/* Output. */
extern const cli_opt OPT_JSON, OPT_CSV, OPT_PLOT, OPT_SIZE, OPT_OUT;
/* A generated schedule written as a GOAL file (fft-study, calmant alltoall). */
extern const cli_opt OPT_EMIT_GOAL;
/* Runs. */
extern const cli_opt OPT_SEED, OPT_THREADS, OPT_MAX_MEMORY, OPT_MAX_TIME, OPT_SWEEP, OPT_EXACT, OPT_NO_EXACT;
/* Mapping: which family `map` may use; which mapping a simulation applies;
 * configurations to compare. */
extern const cli_opt OPT_KIND, OPT_OBJECTIVE, OPT_SEARCH, OPT_MAPPING, OPT_CONFIGS;
/* The simulator's routing (simulate, replay, figures). */
extern const cli_opt OPT_ROUTING;
/* Simulation (simulate, figures): how the VCs of a link share it. */
extern const cli_opt OPT_VC_LINK;

/* Exporting a mapping (map --format, export --format): the format, and the machine
 * description (--machine FILE) or rule (--hosts, --slots-per-host, --fill,
 * --first-host) that names each node's host and slot (export_cli.h). */
extern const cli_opt OPT_FORMAT, OPT_MACHINE, OPT_HOSTS, OPT_SLOTS_PER_HOST, OPT_FILL, OPT_FIRST_HOST;

/* Message timing (calmant cost and alltoall, replay, fft-study): beta and
 * tau in microseconds, one default everywhere (the nCUBE 2's). */
extern const cli_opt OPT_STARTUP, OPT_BYTE_TIME;

/* Reading an OTF2 trace (trace_cli.h): how collectives become messages; the
 * window and region a traffic keeps; the traced compute's scale in a
 * schedule. Refused on inputs that are not traces. */
extern const cli_opt OPT_COLLECTIVES, OPT_FROM, OPT_TO, OPT_REGION, OPT_COMPUTE_SCALE;

/* Every shared option, NULL-terminated: the parser names an option that
 * exists but does not apply to a command differently from a typo. */
extern const cli_opt *const cli_shared_options[];

/* Output format from --json / --csv (both: an error, exit 2 returned). */
int cli_format(const cli_args *a, cli_fmt *fmt);

/* The communications given by --pattern / --matrix / --vector / --scatter, in
 * command-line order. Returns 0 or an exit status after printing. */
int cli_comm_list(const cli_args *a, cli_comms *l);

#endif
