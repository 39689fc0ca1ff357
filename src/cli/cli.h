/* Shared pieces of the kcube command line. Names here are internal to the
 * tool (cli_ prefix); the kc_ prefix belongs to the library's public API. */
#ifndef KC_CLI_H
#define KC_CLI_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "kcube/error.h"
#include "kcube/lcc.h"

#include "opt.h" /* cli_command: one subcommand, defined in src/cli/cmd_<name>.c */

/* The exit statuses (CLI_EXIT_*) and cli_host: the front end's surface. */
#include "cli_host.h"

/* Print "kcube: <message>" on stderr; returns CLI_EXIT_USAGE. */
int cli_error(const char *fmt, ...) KC_PRINTF(1, 2);
/* "kcube: <msg>" on stderr as one line: control bytes are escaped. */
void cli_emit(const char *msg);


/* Does this process write the command's output (files, plots, standard
 * output)? 0 only in a kcube-mpi helper process. */
int cli_writes_output(const struct cli_args *a);

/* Output format chosen by --json / --csv (text otherwise). */
typedef enum cli_fmt { CLI_FMT_TEXT, CLI_FMT_JSON, CLI_FMT_CSV } cli_fmt;

/* Print a cJSON tree to stdout (pretty) and free it. Returns CLI_EXIT_OK or
 * CLI_EXIT_FAIL when memory ran out. */
int cli_print_json(cJSON *root);
/* Every integer in a JSON output goes through these: the number is written
 * as its exact decimal text (cJSON's own numbers are doubles, which lose
 * digits above 2^53). NULL when memory ran out (cJSON then adds nothing). */
cJSON *cli_json_u64(uint64_t v);
cJSON *cli_json_i64(int64_t v);
cJSON *cli_json_u64_array(const uint64_t *v, int count);
/* obj[name] = v, exact. */
void cli_json_add_u64(cJSON *obj, const char *name, uint64_t v);
void cli_json_add_int(cJSON *obj, const char *name, int64_t v);

/* Progress on stderr, only when stderr is a terminal. */
typedef struct cli_progress_bar {
    const char *label;
    int active;
    int last_percent;
} cli_progress_bar;
void cli_progress_init(cli_progress_bar *p, const char *label);
void cli_progress_cb(void *ctx, double done, double total);
void cli_progress_done(cli_progress_bar *p);

/* Communication specs on the binary n-cube: --pattern NAME, or --matrix M
 * followed by an optional --vector V, optionally --scatter. */
typedef struct cli_comm_spec {
    const char *pattern; /* or NULL */
    const char *matrix;  /* or NULL */
    const char *vector;  /* or NULL */
} cli_comm_spec;

/* The communications named on a command line: --pattern P, or --matrix M
 * with an optional --vector V after it; with allow_scatter, --scatter marks
 * the preceding --matrix (or, for a single communication, the one given). */
#define CLI_MAX_COMMS 256
typedef struct cli_comms {
    const char *command; /* for messages, e.g. "analyze" */
    int single;          /* exactly one communication may be given */
    int single_scatter;  /* single: --scatter was given somewhere on the line */
    int allow_scatter;
    int count;
    cli_comm_spec spec[CLI_MAX_COMMS];
    int scatter[CLI_MAX_COMMS];
} cli_comms;

void cli_comms_init(cli_comms *l, const char *command, int single, int allow_scatter);

/* Build an LCC from a spec on the n-cube. */
kc_status cli_build_lcc(const cli_comm_spec *spec, int n, int scatter, kc_lcc *out, kc_err *err);

/* The list of built-in pattern names for help texts. */
void cli_print_patterns(FILE *out);

#endif
