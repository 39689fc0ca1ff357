/* general.c - kcube/mapgeneral.h: the starts of a general mapping and the
 * search from the best of them. */
#include "kcube/mapgeneral.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/plan.h"
#include "kcube/scotchmap.h"

void kc_mapgen_opts_default(kc_mapgen_opts *o)
{
    memset(o, 0, sizeof *o);
    kc_gmap_opts_default(&o->search);
    o->use_scotch = 1;
    o->cap_at_scotch = 1;
}

static uint32_t *start_slot(kc_mapgen_result *r, const char *name, uint64_t nodes)
{
    uint32_t *p = malloc(nodes * sizeof *p);
    if (!p)
        return NULL;
    r->start_name[r->nstarts] = name;
    r->start_map[r->nstarts++] = p;
    return p;
}

/* kc_map's mapping of one kind. A kind that does not apply to these
 * communications (an input error of kc_map) is simply not a start. */
static kc_status algebraic_start(const kc_topology *t, const kc_comm *comms, int ncomms, kc_map_kind kind,
                                 uint64_t seed, kc_mapgen_result *r, kc_err *err)
{
    kc_map_opts o;
    kc_map_opts_default(&o);
    o.kind = kind;
    o.seed = seed;
    o.exact = 0;
    kc_map_result m;
    kc_err local = {0};
    kc_status st = kc_map(t, comms, ncomms, &o, &m, &local);
    if (st == KC_OK) {
        uint32_t *p = start_slot(r, kind == KC_MAP_REORDER ? "reorder" : "linear", t->nodes);
        if (!p)
            st = kc_fail(err, KC_ENOMEM, "out of memory");
        for (uint64_t v = 0; p && v < t->nodes; v++)
            p[v] = (uint32_t)kc_map_to_physical(&m, v);
    } else if (kc_status_is_input(st)) {
        st = KC_OK;
    } else {
        *err = local;
    }
    kc_map_result_free(&m);
    return st;
}

static kc_status build_starts(const kc_topology *t, const kc_traffic *tr, const kc_comm *comms, int ncomms,
                              const kc_mapgen_opts *o, kc_mapgen_result *r, kc_err *err)
{
    uint32_t *id = start_slot(r, "identity", t->nodes);
    if (!id)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint64_t v = 0; v < t->nodes; v++)
        id[v] = (uint32_t)v;
    kc_status st = KC_OK;
    kc_err ignored = {0};
    if (ncomms > 0 && kc_topology_need_gf(t, "an algebraic start", &ignored) == KC_OK &&
        !(st = algebraic_start(t, comms, ncomms, KC_MAP_REORDER, o->search.seed, r, err)))
        st = algebraic_start(t, comms, ncomms, KC_MAP_LINEAR, o->search.seed, r, err);
    if (!st && o->use_scotch && kc_scotch_available()) {
        uint32_t *p = start_slot(r, "scotch", t->nodes);
        r->scotch = r->nstarts - 1;
        st = p ? kc_scotch_map(t, tr, o->search.seed, p, err) : kc_fail(err, KC_ENOMEM, "out of memory");
        /* More Scotch seeds (issue 20): Scotch's result varies much with its
         * seed, and on small networks a run costs little. */
        int runs = o->scotch_seeds > 0 ? o->scotch_seeds : t->nodes <= 4096 ? KC_MAPGEN_SCOTCH_SEEDS : 1;
        for (int i = 1; !st && i < runs && i < KC_MAPGEN_SCOTCH_SEEDS; i++) {
            uint64_t seed = o->search.seed + 2 * (uint64_t)i;
            snprintf(r->scotch_name[i], sizeof r->scotch_name[i], "scotch:s%llu", (unsigned long long)seed);
            p = start_slot(r, r->scotch_name[i], t->nodes);
            st = p ? kc_scotch_map(t, tr, seed, p, err) : kc_fail(err, KC_ENOMEM, "out of memory");
        }
    }
    return st;
}

/* The reflected k-ary Gray code of the f-digit value u (digit 0 least
 * significant): digit i runs backwards while the value of the digits above
 * it is odd, so consecutive values differ in one digit by one. */
static uint64_t gray_field(uint64_t u, int k, int f)
{
    uint64_t g = 0, place = 1, above = u;
    for (int i = 0; i < f; i++) {
        uint64_t d = above % (uint64_t)k;
        above /= (uint64_t)k;
        g += ((above & 1) ? (uint64_t)k - 1 - d : d) * place;
        place *= (uint64_t)k;
    }
    return g;
}

/* "gray:f" for every f > 1 dividing n (equal sides only: hypercubes and
 * tori). */
static kc_status gray_starts(const kc_topology *t, kc_mapgen_result *r, kc_err *err)
{
    if (t->kind == KC_TOPO_MESH || t->k < 2)
        return KC_OK;
    for (int f = 2; f <= t->n; f++) {
        if (t->n % f)
            continue;
        snprintf(r->gray_name[f - 1], sizeof r->gray_name[f - 1], "gray:%d", f);
        uint32_t *p = start_slot(r, r->gray_name[f - 1], t->nodes);
        if (!p)
            return kc_fail(err, KC_ENOMEM, "out of memory");
        uint64_t field = 1;
        for (int i = 0; i < f; i++)
            field *= (uint64_t)t->k;
        for (uint64_t v = 0; v < t->nodes; v++) {
            uint64_t rest = v, node = 0, place = 1;
            for (int j = 0; j < t->n / f; j++, rest /= field, place *= field)
                node += gray_field(rest % field, t->k, f) * place;
            p[v] = (uint32_t)node;
        }
    }
    return KC_OK;
}

kc_status kc_mapgen_run(const kc_topology *t, const kc_traffic *tr, const kc_comm *comms, int ncomms,
                        const kc_mapgen_opts *opts, kc_mapgen_result *res, kc_err *err)
{
    memset(res, 0, sizeof *res);
    res->scotch = -1;
    kc_mapgen_opts def;
    if (!opts) {
        kc_mapgen_opts_default(&def);
        opts = &def;
    }
    if (tr->ranks != t->nodes)
        return kc_fail_param(err, KC_EINVAL, "traffic", "the traffic has %llu ranks, the network %llu nodes",
                             (unsigned long long)tr->ranks, (unsigned long long)t->nodes);
    kc_status st = build_starts(t, tr, comms, ncomms, opts, res, err);
    if (!st)
        st = gray_starts(t, res, err);
    if (st)
        return st;
    kc_gmap_opts search = opts->search;
    search.hops_cap_start = opts->cap_at_scotch ? res->scotch : -1;
    kc_gmap_start starts[KC_MAPGEN_MAX_STARTS];
    for (int i = 0; i < res->nstarts; i++)
        starts[i] = (kc_gmap_start){res->start_name[i], res->start_map[i]};
    st = kc_gmap_run(t, tr, starts, res->nstarts, &search, &res->search, err);
    res->hops_cap = st ? 0 : res->search.hops_cap;
    return st;
}

void kc_mapgen_result_free(kc_mapgen_result *res)
{
    for (int i = 0; i < res->nstarts; i++)
        free(res->start_map[i]);
    kc_gmap_result_free(&res->search);
    memset(res, 0, sizeof *res);
    res->scotch = -1;
}
