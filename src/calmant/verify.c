/* The schedule verifier (kcube/calmant_sched.h): every step is checked by
 * sorting the link intervals of its messages (a link used twice shows as two
 * overlapping intervals of one line and direction) and by per-node stamps
 * (one send, one receive); a step that fails either check, or every step in
 * walk mode, is replayed hop by hop on the step engine, which counts and
 * reports each conflict. A clean step costs O(k log k) for its k messages
 * instead of the sum of their path lengths. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"
#include "kcube/stepnet.h"

#include "calmant_internal.h"

/* Which task message (index src * M + (k - i)) a message is, or UINT64_MAX. */
static uint64_t task_slot(kc_calmant_task t, uint32_t src, uint32_t dst)
{
    uint32_t diff = src ^ dst;
    if (!diff || (diff & (diff - 1)))
        return UINT64_MAX;
    int k = kci_ctz32(diff);
    if (k < t.i || k >= t.i + t.m)
        return UINT64_MAX;
    return (uint64_t)src * (uint64_t)t.m + (uint64_t)(k - t.i);
}

/* A span as one sortable key: (line, port) above, the first coordinate below. */
typedef struct span_key {
    uint64_t key;
    uint64_t hi;
} span_key;

static int cmp_span(const void *a, const void *b)
{
    uint64_t x = ((const span_key *)a)->key, y = ((const span_key *)b)->key;
    return (x > y) - (x < y);
}

typedef struct route {
    uint64_t from, to;
    int nl;
    kc_calmant_leg legs[KC_CALMANT_MAX_C];
} route;

typedef struct verifier {
    const kc_calmant *g;
    const kc_calmant_sched *s;
    const kc_calmant_verify_opts *opts;
    const size_t *order;
    uint32_t *send_mark, *recv_mark; /* step + 1 of a node's last send / receive */
    span_key *spans;
    route *routes; /* the current step's */
    kc_stepnet net;
    const kc_calmant_msg *cur; /* the message being replayed, for the hook */
} verifier;

static void on_engine_conflict(void *ctx, kc_stepnet_conflict kind, uint64_t step, uint64_t node, int port)
{
    const verifier *w = ctx;
    kc_calmant_conflict c = {.step = step, .kind = kind, .node = node, .axis = port / 2,
                             .dir = port % 2 ? -1 : 1, .src = w->cur->src, .dst = w->cur->dst};
    w->opts->on_conflict(w->opts->ctx, &c);
}

/* Below this many hops per leg, walking a step on the engine is cheaper
 * than sorting its link intervals (measured on the d = 16..18 meshes). */
#define WALK_HOPS_PER_LEG 24

/* Routes of messages order[a .. b-1] into w->routes; their total hops and legs. */
static void step_routes(verifier *w, size_t a, size_t b, uint64_t *hops, uint64_t *legs)
{
    *hops = *legs = 0;
    for (size_t j = a; j < b; j++) {
        const kc_calmant_msg *m = &w->s->msg[w->order[j]];
        route *r = &w->routes[j - a];
        r->from = kc_calmant_to_physical(w->g, m->src);
        r->to = kc_calmant_to_physical(w->g, m->dst);
        r->nl = kc_calmant_route(w->g, r->from, r->to, r->legs);
        for (int l = 0; l < r->nl; l++)
            *hops += r->legs[l].hops;
        *legs += (uint64_t)r->nl;
    }
}

/* The interval check of the routes of step q (n of them): 1 when a node
 * sends or receives twice or two link intervals of one line and direction
 * overlap. */
static int step_faulty(verifier *w, uint64_t q, size_t nr)
{
    const kc_calmant *g = w->g;
    uint32_t mark = (uint32_t)(q + 1);
    size_t n = 0;
    for (size_t j = 0; j < nr; j++) {
        const route *r = &w->routes[j];
        if (!r->nl)
            continue; /* not a message of any task; the engine would not take it either */
        if (w->send_mark[r->from] == mark || w->recv_mark[r->to] == mark)
            return 1;
        w->send_mark[r->from] = w->recv_mark[r->to] = mark;
        uint64_t at = r->from;
        for (int l = 0; l < r->nl; l++) {
            kci_calmant_span sp[2];
            int ns = kci_calmant_leg_spans(g, at, &r->legs[l], sp, &at);
            for (int k = 0; k < ns; k++)
                w->spans[n++] = (span_key){((sp[k].base * 2 * (uint64_t)g->c + (uint64_t)sp[k].port) << 30) | sp[k].lo,
                                           sp[k].hi};
        }
    }
    qsort(w->spans, n, sizeof *w->spans, cmp_span);
    for (size_t j = 1; j < n; j++)
        if (w->spans[j].key >> 30 == w->spans[j - 1].key >> 30 &&
            (w->spans[j].key & ((1ULL << 30) - 1)) < w->spans[j - 1].hi)
            return 1;
    return 0;
}

/* Replay the routes of messages order[a .. a+nr-1] hop by hop on the engine. */
static kc_status step_walk(verifier *w, size_t a, size_t nr, kc_err *err)
{
    for (size_t j = 0; j < nr; j++) {
        const route *r = &w->routes[j];
        kc_stepnet_leg path[KC_CALMANT_MAX_C];
        for (int l = 0; l < r->nl; l++)
            path[l] = (kc_stepnet_leg){.port = 2 * r->legs[l].axis + (r->legs[l].dir < 0), .hops = r->legs[l].hops};
        w->cur = &w->s->msg[w->order[a + j]];
        kc_status st = r->nl ? kc_stepnet_send_path(&w->net, r->from, path, r->nl, 1, err) : KC_OK;
        if (st)
            return st;
    }
    return KC_OK;
}

kc_status kci_calmant_by_step(const kc_calmant_sched *s, uint64_t steps, size_t **start, size_t **order, kc_err *err)
{
    *start = calloc(steps + 1, sizeof **start);
    *order = malloc((s->count + 1) * sizeof **order);
    size_t *fill = calloc(steps + 1, sizeof *fill);
    if (!*start || !*order || !fill) {
        free(fill);
        return kc_fail(err, KC_ENOMEM, "out of memory (verifier)");
    }
    for (size_t j = 0; j < s->count; j++)
        (*start)[s->msg[j].step + 1]++;
    for (uint64_t q = 0; q < steps; q++)
        (*start)[q + 1] += (*start)[q];
    memcpy(fill, *start, (steps + 1) * sizeof *fill);
    for (size_t j = 0; j < s->count; j++)
        (*order)[fill[s->msg[j].step]++] = j;
    free(fill);
    return KC_OK;
}

static kc_status check_verify_input(const kc_calmant *g, kc_calmant_task t, const kc_calmant_sched *s, kc_err *err)
{
    kc_status st = kc_calmant_task_check(t, g->d, err);
    if (st)
        return st;
    if (g->d > KC_CALMANT_LOAD_MAX_D)
        return kc_fail_param(err, KC_ERANGE, "d", "the verifier handles d <= %d, got %d", KC_CALMANT_LOAD_MAX_D, g->d);
    for (size_t j = 0; j < s->count; j++)
        if (s->msg[j].src >= g->nodes || s->msg[j].dst >= g->nodes)
            return kc_fail(err, KC_EINVAL, "schedule message %zu has an endpoint outside the machine", j);
    return KC_OK;
}

static kc_status replay(verifier *w, kc_calmant_task t, const size_t *start, uint64_t steps, uint8_t *seen,
                        kc_calmant_verdict *v, kc_err *err)
{
    kc_status st = KC_OK;
    for (uint64_t q = 0; !st && q < steps; q++) {
        for (size_t j = start[q]; j < start[q + 1]; j++) {
            const kc_calmant_msg *m = &w->s->msg[w->order[j]];
            uint64_t slot = task_slot(t, m->src, m->dst);
            if (slot == UINT64_MAX || seen[slot])
                v->unexpected++;
            else
                seen[slot] = 1;
        }
        size_t nr = start[q + 1] - start[q];
        uint64_t hops, legs;
        step_routes(w, start[q], start[q + 1], &hops, &legs);
        if (w->opts->walk || hops <= WALK_HOPS_PER_LEG * legs || step_faulty(w, q, nr))
            st = step_walk(w, start[q], nr, err);
        kc_stepnet_end_step(&w->net);
    }
    return st;
}

kc_status kc_calmant_verify_with(const kc_calmant *g, kc_calmant_task t, const kc_calmant_sched *s,
                                 const kc_calmant_verify_opts *opts, kc_calmant_verdict *v, kc_err *err)
{
    static const kc_calmant_verify_opts none = {0};
    memset(v, 0, sizeof *v);
    kc_status st = check_verify_input(g, t, s, err);
    if (st)
        return st;
    uint64_t steps = s->steps;
    for (size_t j = 0; j < s->count; j++)
        if (s->msg[j].step >= steps)
            steps = (uint64_t)s->msg[j].step + 1;
    verifier w = {.g = g, .s = s, .opts = opts ? opts : &none};
    size_t *start = NULL, *order = NULL, widest = 0;
    uint8_t *seen = calloc(g->nodes * (uint64_t)t.m, 1);
    kc_stepnet_topo topo;
    kc_calmant_stepnet_topo(g, &topo);
    if ((st = kci_calmant_by_step(s, steps, &start, &order, err)) != KC_OK)
        goto out;
    w.order = order;
    for (uint64_t q = 0; q < steps; q++)
        if (start[q + 1] - start[q] > widest)
            widest = start[q + 1] - start[q];
    w.send_mark = calloc(g->nodes, sizeof *w.send_mark);
    w.recv_mark = calloc(g->nodes, sizeof *w.recv_mark);
    w.spans = malloc((2 * (size_t)g->c * widest + 1) * sizeof *w.spans);
    w.routes = malloc((widest + 1) * sizeof *w.routes);
    if (!seen || !w.send_mark || !w.recv_mark || !w.spans || !w.routes) {
        st = kc_fail(err, KC_ENOMEM, "out of memory (verifier)");
        goto out;
    }
    if ((st = kc_stepnet_init(&w.net, &topo, KC_STEPNET_ONE_PORT, err)) != KC_OK)
        goto out;
    if (w.opts->on_conflict)
        kc_stepnet_on_conflict(&w.net, on_engine_conflict, &w);
    if ((st = replay(&w, t, start, steps, seen, v, err)) != KC_OK)
        goto out;
    for (uint64_t q = 0; q < g->nodes * (uint64_t)t.m; q++)
        v->missing += !seen[q];
    v->steps = steps;
    v->messages = s->count;
    v->conflicts = w.net.st.conflicts;
    kc_stepnet_conflict_text(&w.net, v->first_conflict, (int)sizeof v->first_conflict);
out:
    kc_stepnet_free(&w.net);
    free(start);
    free(order);
    free(seen);
    free(w.send_mark);
    free(w.recv_mark);
    free(w.spans);
    free(w.routes);
    return st;
}

kc_status kc_calmant_verify(const kc_calmant *g, kc_calmant_task t, const kc_calmant_sched *s, kc_calmant_verdict *v,
                            kc_err *err)
{
    return kc_calmant_verify_with(g, t, s, NULL, v, err);
}
