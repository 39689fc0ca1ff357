/* --loads FILE and "channel_loads": every loaded directed router channel of
 * a counted mapping (loads_cli.h). The lines are what an independent
 * recount compares channel by channel (tests/support/recount.py). */
#include "loads_cli.h"

#include <stdio.h>

#include "out.h"
#include "kcube/chanload.h"
#include "kcube/traffic.h"

const cli_opt OPT_LOADS = {.name = "loads", .type = CLI_TEXT, .meta = "FILE",
                           .help = "write every loaded directed channel, one a line: from_router to_router axis dir "
                                   "load",
                           .param = "loads"};

/* Channel id c's total over the layers. O(layers). */
static uint64_t total(const cli_loads *l, size_t c, size_t per_layer)
{
    uint64_t sum = 0;
    for (size_t at = c; at < l->count; at += per_layer)
        sum += l->loads[at];
    return sum;
}

static size_t per_layer(const cli_loads *l) { return (size_t)l->topo->nodes * (size_t)l->topo->n * 2; }

/* Channel c as a link (router, axis, direction). */
static kc_link link_of(const cli_loads *l, size_t c)
{
    size_t n = (size_t)l->topo->n;
    return (kc_link){c / 2 / n, (int)(c / 2 % n), c % 2 ? -1 : 1};
}

int cli_loads_write(const char *path, const cli_loads *l, const char *what)
{
    cli_atomic at;
    int rc = cli_atomic_open(&at, path);
    if (rc)
        return rc;
    char topo[160];
    fprintf(at.f, "# kcube channel loads: %s on the %s\n", what, kc_topology_format(l->topo, topo, sizeof topo));
    fputs("# from_router to_router axis dir load (every loaded directed channel, routers numbered axis 0 first)\n",
          at.f);
    size_t layer = per_layer(l);
    for (size_t c = 0; c < layer && c < l->count; c++) {
        uint64_t v = total(l, c, layer);
        if (!v)
            continue;
        kc_link k = link_of(l, c);
        fprintf(at.f, "%llu %llu %d %+d %llu\n", (unsigned long long)k.from,
                (unsigned long long)kc_topology_link_to(l->topo, k), k.dim, k.dir, (unsigned long long)v);
    }
    return cli_atomic_commit(&at);
}

int cli_loads_write_mapping(const char *path, const kc_topology *t, const kc_traffic *tr, const uint32_t *to_slot,
                            const char *what)
{
    kc_err err = {0};
    kc_chanload *cl = NULL;
    int rc = 0;
    if (kc_chanload_new(&cl, t, tr, &err) || kc_chanload_set(cl, to_slot, &err))
        rc = cli_error("--loads: %s", err.msg);
    else {
        size_t count;
        const uint64_t *loads = kc_chanload_loads(cl, &count);
        cli_loads l = {t, loads, count};
        rc = cli_loads_write(path, &l, what);
    }
    kc_chanload_free(cl);
    return rc;
}

cJSON *cli_loads_json(const cli_loads *l)
{
    cJSON *arr = cJSON_CreateArray();
    size_t layer = per_layer(l);
    for (size_t c = 0; arr && c < layer && c < l->count; c++) {
        uint64_t v = total(l, c, layer);
        if (!v)
            continue;
        kc_link k = link_of(l, c);
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToObject(o, "from", cli_json_u64(k.from));
        cJSON_AddItemToObject(o, "to", cli_json_u64(kc_topology_link_to(l->topo, k)));
        cli_json_add_int(o, "axis", k.dim);
        cli_json_add_int(o, "dir", k.dir);
        cJSON_AddItemToObject(o, "load", cli_json_u64(v));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}
