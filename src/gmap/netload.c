/* One communication counted on a general network (mixed sides or wraps,
 * several endpoints per router, an allocation): rank r on slot r, the
 * messages folded onto their routers and counted exactly by the general
 * counter, and on the cube of routers with 2^j endpoints each checked
 * against the split closed form. It sits with the counter, above the
 * planners (kcube/netload.h has the contracts). */
#include <stdlib.h>
#include <string.h>

#include "kcube/chanload.h"
#include "kcube/contention.h"
#include "kcube/plan.h"
#include "kcube/netload.h"
#include "kcube/traffic.h"

/* c was built for t's rank space (kc_comm_space). */
static kc_status check_space(const kc_topology *t, const kc_comm *c, kc_err *err)
{
    kc_topology space;
    kc_status s = kc_comm_space(t, &space, err);
    if (!s && (c->k != space.k || c->n != space.n))
        s = kc_fail_param(err, KC_EINVAL, "n",
                          "communication %s is for k = %d, n = %d; the ranks of this network need k = %d, n = %d",
                          c->name, c->k, c->n, space.k, space.n);
    return s;
}

/* The router-to-router messages of c with rank r on slot r (messages
 * inside one router dropped: they never enter the network). */
static kc_status router_traffic(const kc_topology *t, const kc_comm *c, uint64_t seed, kc_traffic *tr, kc_err *err)
{
    uint64_t count = kc_topology_slots(t);
    uint32_t *src = malloc((size_t)count * sizeof *src), *dst = malloc((size_t)count * sizeof *dst);
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    kc_status s = !src || !dst ? kc_fail(err, KC_ENOMEM, "out of memory for %llu messages", (unsigned long long)count)
                               : kc_tcomm_endpoints(&c->t, src, dst, &rng, err);
    if (!s)
        s = kc_traffic_init(tr, t->nodes, err);
    for (uint64_t m = 0; m < count && !s; m++) {
        uint64_t a = kc_topology_slot_router(t, src[m]), b = kc_topology_slot_router(t, dst[m]);
        if (a != b)
            s = kc_traffic_add(tr, a, b, 1, err);
    }
    free(src);
    free(dst);
    return s;
}

kc_status kc_analyze_loads(const kc_topology *t, const kc_comm *c, uint64_t seed, uint64_t **loads, size_t *count,
                           kc_err *err)
{
    *loads = NULL;
    *count = 0;
    kc_status s = check_space(t, c, err);
    if (s)
        return s;
    if (t->nodes > KC_CHANLOAD_MAX_NODES || kc_topology_slots(t) > UINT32_MAX)
        return kc_fail_param(err, KC_ERANGE, "exact", "per-channel loads are counted for up to %llu routers and 2^32 "
                             "endpoints", (unsigned long long)KC_CHANLOAD_MAX_NODES);
    /* the routers alone: endpoints and allocation are folded into the traffic */
    kc_topology rt = *t;
    rt.endpoints = 1;
    rt.alloc = NULL;
    rt.alloc_count = 0;
    kc_traffic tr = {0};
    kc_chanload *cl = NULL;
    s = router_traffic(t, c, seed, &tr, err);
    if (!s)
        s = kc_chanload_new(&cl, &rt, &tr, err);
    if (!s) {
        size_t n;
        const uint64_t *l = kc_chanload_loads(cl, &n);
        if (!(*loads = malloc(n * sizeof **loads)))
            s = kc_fail(err, KC_ENOMEM, "out of memory for %zu channel loads", n);
        else {
            memcpy(*loads, l, n * sizeof **loads);
            *count = n;
        }
    }
    kc_chanload_free(cl);
    kc_traffic_free(&tr);
    return s;
}

/* ---- the analysis --------------------------------------------------------- */

/* Per axis: the largest load and the lowest channel carrying it. */
static void per_axis(const kc_topology *t, const uint64_t *loads, size_t count, kc_analysis *a)
{
    int n = t->n;
    for (size_t id = 0; id < count; id++) {
        int axis = (int)(id / 2 % (size_t)n);
        if (loads[id] > a->exact_per_dim[axis]) {
            a->exact_per_dim[axis] = loads[id];
            a->worst[axis] = (kc_link){id / 2 / (size_t)n, axis, id % 2 ? -1 : 1};
        }
    }
    a->has_worst = 1;
}

/* The general path: loads per axis, then the closed form where it exists. */
static kc_status analyze_general(const kc_topology *t, const kc_comm *c, const kc_analyze_opts *o, kc_analysis *a,
                                 kc_err *err)
{
    uint64_t *loads;
    size_t count;
    if (!o->exact)
        return kc_fail_param(err, KC_EINVAL, "exact", "a communication on a general network is counted exactly: "
                             "drop --no-exact");
    kc_status s = kc_analyze_loads(t, c, o->seed, &loads, &count, err);
    if (s)
        return s;
    a->general = 1;
    a->exact = 1;
    per_axis(t, loads, count, a);
    free(loads);
    if (kc_analyze_split_bits(t) >= 0 && c->has_lcc) {
        if ((s = kc_analyze_split(t, c, a->formula, err)))
            return s;
        a->has_formula = 1;
    }
    return KC_OK;
}

kc_status kc_analyze_network(const kc_topology *t, const kc_comm *c, const kc_analyze_opts *opts, kc_analysis *out,
                             kc_err *err)
{
    if (kc_topology_validate(t, NULL) || !kc_topology_need_gf(t, "the contention analysis", NULL))
        return kc_analyze(t, c, opts, out, err); /* today's networks, today's engines (and messages) */
    kc_analyze_opts o;
    kc_analyze_opts_default(&o);
    kc_analysis_start(out, t, c);
    kc_status s = analyze_general(t, c, opts ? opts : &o, out, err);
    if (s)
        return s;
    kc_analysis_finish(out);
    return out->agree ? KC_OK : kc_fail(err, KC_EINTERNAL, "the closed form and the exact count of %s differ", c->name);
}
