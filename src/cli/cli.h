/* Shared pieces of the kcube command line. */
#ifndef KC_CLI_H
#define KC_CLI_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "kcube/error.h"
#include "kcube/lcc.h"

#include "opt.h" /* cli_command: one subcommand, defined in src/cli/cmd_<name>.c */

/* Exit statuses: 0 success, 1 a run that failed for other reasons, 2 bad input. */
#define KC_EXIT_OK 0
#define KC_EXIT_FAIL 1
#define KC_EXIT_USAGE 2

/* Print "kcube: <message>" on stderr; returns KC_EXIT_USAGE. */
int kc_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "kcube: <msg>" on stderr as one line: control bytes are escaped. */
void kc_cli_emit(const char *msg);
/* Print a library error; returns KC_EXIT_USAGE for input errors, else KC_EXIT_FAIL. */
int kc_cli_report(const kc_err *err);

/* Option matching: "--name value" or "--name=value". Returns 1 and sets *val
 * when argv[*i] is the option (advancing *i past a separate value), 0 when it
 * is another argument, -1 (after printing an error) when the value is missing. */
int kc_cli_opt(int argc, char **argv, int *i, const char *name, const char **val);
/* 1 if argv[i] is exactly the flag. */
int kc_cli_flag(const char *arg, const char *name);
/* Whole number in [lo, hi]; prints an error naming `what` on failure. */
int kc_cli_int(const char *text, long lo, long hi, const char *what, long *out);
int kc_cli_double(const char *text, double lo, double hi, const char *what, double *out);
/* Is this a request for help (-h or --help)? */
int kc_cli_is_help(const char *arg);

/* Output format chosen by --json / --csv (text otherwise). */
typedef enum kc_format { KC_FMT_TEXT, KC_FMT_JSON, KC_FMT_CSV } kc_format;
/* Handles --json and --csv; returns 1 if argv[i] was one of them. */
int kc_cli_format_flag(const char *arg, kc_format *fmt);

/* Print a cJSON tree to stdout (pretty) and free it. Returns KC_EXIT_OK or
 * KC_EXIT_FAIL when memory ran out. */
int kc_cli_print_json(cJSON *root);
/* A node id or count as a JSON number (exact below 2^53) or a decimal string. */
cJSON *kc_cli_json_u64(uint64_t v);
cJSON *kc_cli_json_u64_array(const uint64_t *v, int count);

/* Progress on stderr, only when stderr is a terminal. */
typedef struct kc_cli_progress {
    const char *label;
    int active;
    int last_percent;
} kc_cli_progress;
void kc_cli_progress_init(kc_cli_progress *p, const char *label);
void kc_cli_progress_cb(void *ctx, double done, double total);
void kc_cli_progress_done(kc_cli_progress *p);

/* Communication specs on the binary n-cube: --pattern NAME, or --matrix M
 * followed by an optional --vector V, optionally --scatter. */
typedef struct kc_comm_spec {
    const char *pattern; /* or NULL */
    const char *matrix;  /* or NULL */
    const char *vector;  /* or NULL */
} kc_comm_spec;

/* The communications named on a command line: --pattern P, or --matrix M
 * with an optional --vector V after it; with allow_scatter, --scatter marks
 * the preceding --matrix (or, for a single communication, the one given). */
#define KC_CLI_MAX_COMMS 256
typedef struct kc_comm_list {
    const char *command; /* for messages, e.g. "analyze" */
    int single;          /* exactly one communication may be given */
    int single_scatter;  /* single: --scatter was given somewhere on the line */
    int allow_scatter;
    int count;
    kc_comm_spec spec[KC_CLI_MAX_COMMS];
    int scatter[KC_CLI_MAX_COMMS];
} kc_comm_list;

void kc_comm_list_init(kc_comm_list *l, const char *command, int single, int allow_scatter);
/* 1 if argv[*i] was one of these options (consumed, *i advanced past its
 * value), 0 if it is another argument, -1 after printing an error. */
int kc_cli_comm_opt(int argc, char **argv, int *i, kc_comm_list *l);

/* Build an LCC from a spec on the n-cube. */
kc_status kc_cli_build_lcc(const kc_comm_spec *spec, int n, int scatter, kc_lcc *out, kc_err *err);

/* The list of built-in pattern names for help texts. */
void kc_cli_print_patterns(FILE *out);

#endif
