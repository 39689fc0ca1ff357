/* --network or --n/--k/--topology/--shape/--wrap, then --tie/--endpoints/--nodes, into one
 * network (network_cli.h): the one place a command reads them, so every
 * command describes its network the same way. */
#include "network_cli.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "presets.h"
#include "kcube/simroute.h"

const cli_opt OPT_WRAP = {.name = "wrap", .type = CLI_TEXT, .meta = "LIST",
                          .help = "the axes that are rings, e.g. 0,1,2,4 (Tofu), all or none; the others are lines",
                          .param = "wrap"};
const cli_opt OPT_ENDPOINTS = {.name = "endpoints", .type = CLI_INT, .meta = "C", .lo = 1,
                               .hi = KC_TOPO_MAX_ENDPOINTS, .def = "1",
                               .help = "endpoints per router: ranks go onto endpoints, endpoint e on router e / C",
                               .param = "endpoints"};
const cli_opt OPT_NETWORK = {.name = "network", .type = CLI_TEXT, .meta = "NAME|FILE",
                             .help = "a machine preset (kcube --list-networks) or preset file: its sides, rings, "
                                     "endpoints and tie",
                             .param = "network"};
const cli_opt OPT_NODES = {.name = "nodes", .type = CLI_TEXT, .meta = "FILE",
                           .help = "the allocation: routers the job may use, one a line (number, or coordinates "
                                   "axis 0 first)",
                           .param = "nodes_file"};

/* The topology's tie rule from --tie: simulate's random ties are drawn
 * per message by its routing, so the topology itself keeps plus. */
static int topo_tie(const cli_args *a, int fallback)
{
    int tie = cli_choice(a, &OPT_TIE, fallback);
    return tie == (int)KC_SIM_TIE_RANDOM ? (int)KC_TIE_PLUS : tie;
}

/* --shape: its sides, a mesh unless --topology or --wrap says otherwise. */
static int from_shape(const cli_args *a, const char *shape, kc_topology *t)
{
    kc_err err = {0};
    int sides[KC_TOPO_MAX_DIMS], count = 0;
    int r = cli_reject(a, &OPT_K, "with --shape (the shape gives the sides)");
    if (r)
        return r;
    int kind = cli_choice(a, &OPT_TOPOLOGY, cli_given(a, &OPT_WRAP) ? KC_TOPO_TORUS : KC_TOPO_MESH);
    if (kc_topology_parse_shape(shape, sides, &count, &err) ||
        kc_topology_shape(t, (kc_topo_kind)kind, sides, count, topo_tie(a, 0), &err))
        return cli_report(a, &err);
    if (cli_given(a, &OPT_N) && cli_int(a, &OPT_N, 0) != count) {
        fprintf(stderr, "kcube: --n %lld does not match --shape (%d axes)\n", cli_int(a, &OPT_N, 0), count);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

static int from_k_n(const cli_args *a, int inferred_n, kc_topology *t)
{
    kc_err err = {0};
    int k = (int)cli_int(a, &OPT_K, 2);
    int kind = cli_choice(a, &OPT_TOPOLOGY, k == 2 ? KC_TOPO_HYPERCUBE : KC_TOPO_TORUS);
    if (!cli_given(a, &OPT_N) && inferred_n > 0) {
        if (kc_topology_init(t, (kc_topo_kind)kind, k, inferred_n, topo_tie(a, 0), &err))
            return cli_report(a, &err);
        return 0;
    }
    if (!cli_given(a, &OPT_N)) {
        fprintf(stderr, "kcube: %s needs --n N (the number of dimensions) or --shape AxBx..\n", a->path);
        return CLI_EXIT_USAGE;
    }
    if (kc_topology_init(t, (kc_topo_kind)kind, k, (int)cli_int(a, &OPT_N, 1), topo_tie(a, 0), &err))
        return cli_report(a, &err);
    return 0;
}

/* --network: the preset's network; the options that would describe
 * another one are refused, --tie, --endpoints and --nodes still apply. */
static int from_preset(const cli_args *a, const char *network, kc_topology *t)
{
    const char *why = "with --network (the preset gives the network)";
    int r;
    if ((r = cli_reject(a, &OPT_SHAPE, why)) || (r = cli_reject(a, &OPT_K, why)) || (r = cli_reject(a, &OPT_N, why)) ||
        (r = cli_reject(a, &OPT_TOPOLOGY, why)) || (r = cli_reject(a, &OPT_WRAP, why)))
        return r;
    kc_netpreset p;
    kc_err err = {0};
    if ((r = cli_preset_load(a, network, &p)))
        return r;
    if (cli_given(a, &OPT_TIE))
        p.tie = (kc_tie)topo_tie(a, (int)p.tie);
    if (kc_netpreset_topology(&p, t, &err))
        return cli_report(a, &err);
    return 0;
}

/* --wrap, then the tie rule's check (ties happen on rings of k > 2). */
static int apply_wrap(const cli_args *a, kc_topology *t)
{
    kc_err err = {0};
    const char *wrap = cli_text(a, &OPT_WRAP, NULL);
    if (wrap) {
        uint64_t mask = 0;
        kc_tie tie = t->tie;
        if (cli_given(a, &OPT_TOPOLOGY) && t->kind != KC_TOPO_TORUS)
            return cli_reject(a, &OPT_WRAP, t->kind == KC_TOPO_MESH ? "to --topology mesh (no axis wraps)"
                                                                     : "to --topology hypercube (every axis wraps)");
        if (kc_topology_parse_wrap(wrap, t->n, &mask, &err) || kc_topology_set_wrap(t, mask, &err))
            return cli_report(a, &err);
        if (!mask && cli_given(a, &OPT_TOPOLOGY))
            return cli_error("--wrap none leaves no ring: that is --topology mesh, not torus");
        if (t->kind == KC_TOPO_TORUS)
            t->tie = (kc_tie)topo_tie(a, (int)tie);
    }
    if (t->kind != KC_TOPO_TORUS)
        return cli_reject(a, &OPT_TIE, t->kind == KC_TOPO_MESH ? "to a mesh (ties happen on rings only)"
                                                               : "to a hypercube (ties happen on rings of k > 2)");
    return 0;
}

static int apply_endpoints_and_nodes(const cli_args *a, cli_network *net)
{
    kc_err err = {0};
    /* Without --endpoints the network keeps its own (a preset's, else 1). */
    int c = cli_given(a, &OPT_ENDPOINTS) ? (int)cli_int(a, &OPT_ENDPOINTS, 1) : kc_topology_conc(&net->topo);
    if (kc_topology_set_endpoints(&net->topo, c, &err))
        return cli_report(a, &err);
    const char *path = cli_text(a, &OPT_NODES, NULL);
    if (!path)
        return 0;
    if (kc_alloc_read_path(&net->alloc, path, &net->topo, &err) ||
        kc_topology_set_alloc(&net->topo, net->alloc.router, net->alloc.count, &err))
        return cli_report(a, &err);
    return 0;
}

int cli_network_resolve(const cli_args *a, cli_network *net) { return cli_network_resolve_n(a, 0, net); }

int cli_network_resolve_n(const cli_args *a, int inferred_n, cli_network *net)
{
    memset(net, 0, sizeof *net);
    const char *shape = cli_text(a, &OPT_SHAPE, NULL), *network = cli_text(a, &OPT_NETWORK, NULL);
    int r = network ? from_preset(a, network, &net->topo)
            : shape ? from_shape(a, shape, &net->topo) : from_k_n(a, inferred_n, &net->topo);
    if (!r && !network)
        r = apply_wrap(a, &net->topo);
    if (!r)
        r = apply_endpoints_and_nodes(a, net);
    return r;
}

void cli_network_free(cli_network *net)
{
    kc_alloc_free(&net->alloc);
    net->topo.alloc = NULL;
    net->topo.alloc_count = 0;
}

int cli_network_given(const cli_args *a)
{
    return cli_given(a, &OPT_NETWORK) || cli_given(a, &OPT_SHAPE) || cli_given(a, &OPT_WRAP) ||
           cli_given(a, &OPT_ENDPOINTS) || cli_given(a, &OPT_NODES);
}

void cli_network_json(cJSON *obj, const kc_topology *t)
{
    cJSON *sides = cJSON_AddArrayToObject(obj, "shape"), *wraps = cJSON_AddArrayToObject(obj, "wrap");
    for (int i = 0; i < t->n; i++) {
        cJSON_AddItemToArray(sides, cli_json_i64(t->side[i]));
        if (kc_topology_wraps(t, i))
            cJSON_AddItemToArray(wraps, cli_json_i64(i));
    }
    cli_json_add_int(obj, "endpoints", kc_topology_conc(t));
    if (t->alloc)
        cli_json_add_u64(obj, "allocation", t->alloc_count);
    cli_json_add_u64(obj, "slots", kc_topology_slots(t));
}
