/* The network options every command that places ranks shares: --n, --k,
 * --topology, --shape, --wrap, --tie, --endpoints and --nodes resolved into
 * one kc_topology (kcube/topology.h) and the allocation it borrows. */
#ifndef KCUBE_CLI_NETWORK_CLI_H
#define KCUBE_CLI_NETWORK_CLI_H

#include <cjson/cJSON.h>

#include "opt.h"
#include "kcube/topology.h"

extern const cli_opt OPT_WRAP, OPT_ENDPOINTS, OPT_NODES, OPT_NETWORK;

typedef struct cli_network {
    kc_topology topo;    /* its alloc borrows alloc.router (heap): copies share it, free once */
    kc_allocation alloc; /* --nodes, owned (count 0 without it) */
} cli_network;

/* The topology from --shape (a mesh unless --topology torus or --wrap
 * says otherwise), or --topology (default: hypercube for k = 2, torus
 * otherwise) with --k and --n, or --network (a machine preset, which
 * refuses those); then --wrap, --endpoints and --nodes.
 * Returns 0 or an exit status after one line. */
int cli_network_resolve(const cli_args *a, cli_network *net);
/* The same with the dimension count an input implies (inferred_n > 0)
 * standing in for --n when it is not given (cli_traffic_infer_n). */
int cli_network_resolve_n(const cli_args *a, int inferred_n, cli_network *net);
void cli_network_free(cli_network *net);
/* 1 when an option only the general network has was given (--network,
 * --shape, --wrap, --endpoints, --nodes): the commands that also take
 * their older --k/--n spelling resolve through cli_network_resolve then. */
int cli_network_given(const cli_args *a);

/* The general network as JSON members of obj, one spelling for every
 * command: "shape" (sides, axis 0 first), "wrap" (the axes that wrap),
 * "endpoints" (C), "allocation" (its routers; only with one) and "slots". */
void cli_network_json(cJSON *obj, const kc_topology *t);

#endif
