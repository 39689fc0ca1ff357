/* plan_cli.h - what `kcube analyze`, `kcube map` and `kcube export` share
 * (a helper of several commands: no command's name): the topology and
 * communications resolved from the shared options, and the JSON/text
 * pieces both renderers print (one code path for every topology). */
#ifndef KC_CLI_PLAN_CLI_H
#define KC_CLI_PLAN_CLI_H

#include <stddef.h>

#include "cli.h"
#include "kcube/comm.h"
#include "kcube/topology.h"

typedef struct plan_input {
    kc_topology topo;    /* borrows alloc.router */
    kc_allocation alloc; /* --nodes (owned; count 0 without it) */
    cli_fmt fmt;
    int count;
    kc_comm *comms; /* count communications, in command-line order */
} plan_input;

/* How many communications a command takes. */
typedef enum plan_comms { PLAN_COMMS_SET, PLAN_COMMS_ONE, PLAN_COMMS_OPTIONAL } plan_comms;

/* The network (network_cli.h), the format and the communications
 * (a set of at least one, exactly one, or any number including none).
 * Returns 0 or an exit status after one line. */
int plan_resolve(const cli_args *a, plan_comms want, plan_input *in);
/* The same on a network sized by an input when --n is not given
 * (cli_network_resolve_n). */
int plan_resolve_n(const cli_args *a, plan_comms want, int inferred_n, plan_input *in);
void plan_input_free(plan_input *in);

/* Time and memory before work (budget.h) for analyze and map: the exact
 * count of every communication when `exact` (25 ns per node and axis, 20
 * bytes a node: measured on the development machine up to 2^24 nodes and
 * rounded up) plus the command's own `seconds` and `bytes`, against
 * --max-time and --max-memory. Returns 0 or 2 after one line. */
int plan_gate(const cli_args *a, const plan_input *in, int exact, double seconds, double bytes);

/* k, n, nodes, topology, tie (tori), polynomial. */
void plan_json_topology(cJSON *o, const kc_topology *t);
/* Rows of entries (row 0 first) and the vector b of a linear communication. */
cJSON *plan_json_matrix(const kc_gfmat *a);
cJSON *plan_json_vector(const uint8_t *v, int n);
/* {"dim", "from", "to"} and, with dir, also "dir". */
cJSON *plan_json_link(const kc_topology *t, kc_link l, int dir);

/* A as text: bit rows on the binary engine ("0010;0001"), GF(k) rows else. */
const char *plan_matrix_text(const kc_comm *c, char *buf, size_t size);
/* Q and the like: bit rows for k = 2, kc_gfmat_format otherwise. */
const char *plan_gfmat_text(const kc_gfmat *a, int k, char *buf, size_t size);
const char *plan_vector_text(const kc_comm *c, char *buf, size_t size);
#define PLAN_TEXT_SIZE (KC_GFMAT_MAX * KC_GFMAT_MAX * 4 + 1)

void plan_print_dims(const uint64_t *v, int n);

#endif
