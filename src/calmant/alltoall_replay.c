/* Complete exchange: every method's schedule replayed one-port with DOR
 * routing on the step engine, phase by phase (kcube/calmant_alltoall.h). */
#include <stdlib.h>
#include <string.h>

#include "alltoall_priv.h"
#include "core/bits.h"
#include "kcube/calmant_embed.h"
#include "kcube/calmant_sched.h"
#include "kcube/calmant_task.h"
#include "kcube/stepnet.h"

typedef struct replayer {
    kc_calmant g;
    kc_stepnet_topo topo;
    kc_stepnet net;
    uint64_t *link_bytes; /* per directed link (node * 2c + port): differences along lines, then bytes */
    kc_calmant_sched phase; /* the current phase's messages (nodes), all of one size */
    kc_a2a_replay *out;
} replayer;

/* Add bytes to the directed links of one leg: a difference along the
 * leg's line (prefix sums in link_totals). */
static void add_leg(replayer *r, uint64_t at, const kc_calmant_leg *leg, uint64_t bytes)
{
    uint64_t stride = 1ULL << (leg->axis * r->g.b), x = kc_calmant_coord(&r->g, at, leg->axis);
    uint64_t base = at - x * stride, lo = leg->dir > 0 ? x : x - leg->hops + 1, hi = lo + leg->hops;
    uint64_t port = (uint64_t)(2 * leg->axis + (leg->dir < 0)), ports = (uint64_t)r->topo.ports;
    r->link_bytes[(base + lo * stride) * ports + port] += bytes;
    if (hi < r->g.side)
        r->link_bytes[(base + hi * stride) * ports + port] -= bytes;
}

/* One message on its DOR path: the engine's send and the link byte counts. */
static kc_status send_one(replayer *r, const kc_calmant_msg *m, uint64_t bytes, uint64_t times, kc_err *err)
{
    kc_calmant_leg legs[KC_CALMANT_MAX_C];
    kc_stepnet_leg path[KC_CALMANT_MAX_C];
    int nl = kc_calmant_route(&r->g, m->src, m->dst, legs);
    uint64_t at = m->src;
    for (int l = 0; l < nl; l++) {
        path[l] = (kc_stepnet_leg){.port = 2 * legs[l].axis + (legs[l].dir < 0), .hops = legs[l].hops};
        add_leg(r, at, &legs[l], bytes * times);
        uint64_t stride = 1ULL << (legs[l].axis * r->g.b);
        at = legs[l].dir > 0 ? at + legs[l].hops * stride : at - legs[l].hops * stride;
    }
    return nl ? kc_stepnet_send_path(&r->net, m->src, path, nl, bytes, err) : KC_OK;
}

/* The differences of add_leg summed along every line; the largest total.
 * (Unsigned wrap-around cancels: every total is a true, non-negative sum.) */
static uint64_t link_totals(replayer *r)
{
    uint64_t ports = (uint64_t)r->topo.ports, best = 0;
    for (int a = 0; a < r->g.c; a++) {
        uint64_t stride = 1ULL << (a * r->g.b);
        for (uint64_t n = 0; n < r->g.nodes; n++) {
            if (kc_calmant_coord(&r->g, n, a) == 0)
                continue;
            for (uint64_t port = (uint64_t)(2 * a); port <= (uint64_t)(2 * a + 1); port++)
                r->link_bytes[n * ports + port] += r->link_bytes[(n - stride) * ports + port];
        }
    }
    for (uint64_t l = 0; l < r->g.nodes * ports; l++)
        best = r->link_bytes[l] > best ? r->link_bytes[l] : best;
    return best;
}

static int by_step(const void *a, const void *b)
{
    const kc_calmant_msg *x = a, *y = b;
    return (x->step > y->step) - (x->step < y->step);
}

/* Replay the buffered phase (messages of `bytes` each), counted `times`
 * times (the identical kernel iterations of the pipelined CC-cube). */
static kc_status flush(replayer *r, uint64_t bytes, uint64_t times, kc_err *err)
{
    kc_calmant_sched *ph = &r->phase;
    qsort(ph->msg, ph->count, sizeof *ph->msg, by_step);
    kc_stepnet_stats before = r->net.st;
    kc_status s = KC_OK;
    size_t j = 0;
    for (uint64_t q = 0; !s && q < ph->steps; q++) {
        for (; !s && j < ph->count && ph->msg[j].step == q; j++)
            s = send_one(r, &ph->msg[j], bytes, times, err);
        kc_stepnet_end_step(&r->net);
    }
    /* Lockstep: every step of the phase is a slot of its message size, an
     * empty one included (the paper's P (beta + L tau)). */
    const kc_stepnet_stats *a = &r->net.st;
    r->out->steps += times * ph->steps;
    r->out->empty_steps += times * (ph->steps - (a->startups - before.startups));
    r->out->transfers += times * ph->steps * bytes;
    r->out->messages += times * (a->messages - before.messages);
    r->out->conflicts += times * (a->conflicts - before.conflicts);
    ph->count = 0;
    ph->steps = 0;
    return s;
}

/* ---- the pipelined CC-cube (calmant, cc-cube) ------------------------------- */

static kc_status cc_iteration(replayer *r, kc_calmant_task t, uint64_t bytes, uint64_t times, kc_err *err)
{
    kc_calmant_sched s = {0};
    kc_status st = kc_calmant_sched_task(&r->g, t, &s, err);
    /* processes to nodes; the schedule becomes the phase */
    for (size_t m = 0; !st && m < s.count; m++) {
        s.msg[m].src = (uint32_t)kc_calmant_to_physical(&r->g, s.msg[m].src);
        s.msg[m].dst = (uint32_t)kc_calmant_to_physical(&r->g, s.msg[m].dst);
    }
    kc_calmant_sched_free(&r->phase);
    r->phase = s;
    return st ? st : flush(r, bytes, times, err);
}

/* The distinct iterations of kc_calmant_iterations, the kernel of deep
 * pipelining once with its multiplicity (as kc_calmant_time_of counts). */
static kc_status replay_pipelined(replayer *r, int q, uint64_t bytes, kc_err *err)
{
    int d = r->g.d, edge = (q < d ? q : d) - 1;
    kc_status s = KC_OK;
    for (int k = 1; !s && k <= edge; k++) {
        s = cc_iteration(r, (kc_calmant_task){0, k}, bytes, 1, err);
        if (!s)
            s = cc_iteration(r, q < d ? (kc_calmant_task){d - q + k, q - k} : (kc_calmant_task){k, d - k}, bytes, 1,
                             err);
    }
    if (q < d)
        for (int k = 1; !s && k <= d - q + 1; k++)
            s = cc_iteration(r, (kc_calmant_task){k - 1, q}, bytes, 1, err);
    else if (!s)
        s = cc_iteration(r, (kc_calmant_task){0, d}, bytes, (uint64_t)(q - d + 1), err);
    r->out->iterations = (uint64_t)d + (uint64_t)q - 1;
    return s;
}

/* ---- exchanges x <-> x xor k (recursive, pairwise) ---------------------------- */

static uint64_t high_power(uint64_t v)
{
    return v ? 1ULL << (63 - kci_clz64(v)) : 0;
}

/* Node x's sub-step in the phase x <-> x xor k: on each axis j the pair's
 * lower end modulo w(k_j) (distinct for the messages sharing a line of
 * axis j in one block), summed over the axes modulo max_j w(k_j). */
static uint32_t xor_substep(const kc_calmant *g, uint64_t x, uint64_t k, uint64_t period)
{
    uint64_t sum = 0;
    for (int a = 0; a < g->c; a++) {
        uint64_t kj = kc_calmant_coord(g, k, a), w = high_power(kj), xj = kc_calmant_coord(g, x, a);
        if (w)
            sum += ((xj & w) ? xj ^ kj : xj) & (w - 1);
    }
    return (uint32_t)(sum % period);
}

static kc_status xor_phase(replayer *r, uint64_t k, uint64_t bytes, kc_err *err)
{
    uint64_t period = 0;
    for (int a = 0; a < r->g.c; a++) {
        uint64_t w = high_power(kc_calmant_coord(&r->g, k, a));
        period = w > period ? w : period;
    }
    kc_status s = KC_OK;
    for (uint64_t x = 0; !s && x < r->g.nodes; x++)
        s = kc_calmant_sched_add(&r->phase, xor_substep(&r->g, x, k, period), (uint32_t)x, (uint32_t)(x ^ k), err);
    r->phase.steps = (uint32_t)period;
    return s ? s : flush(r, bytes, 1, err);
}

/* ---- entry ------------------------------------------------------------------ */

static kc_status replay_body(replayer *r, kc_a2a_method method, const kc_a2a_params *p, kc_err *err)
{
    int d = r->g.d;
    uint64_t n_bytes = p->block << (d - 1);
    kc_status s = KC_OK;
    if (method == KC_A2A_CALMANT || method == KC_A2A_CCCUBE) {
        kc_calmant_time t;
        s = kci_a2a_calmant_time(d, r->g.c, method == KC_A2A_CCCUBE ? 1 : p->degree, p, &t, err);
        if (!s)
            s = replay_pipelined(r, t.degree, t.packet, err);
    } else if (method == KC_A2A_RECURSIVE) {
        for (int k = d - 1; !s && k >= 0; k--)
            s = xor_phase(r, 1ULL << k, n_bytes, err);
    } else
        for (uint64_t k = 1; !s && k < r->g.nodes; k++)
            s = xor_phase(r, k, p->block, err);
    return s;
}

kc_status kc_a2a_replay_method(int d, int c, kc_a2a_method method, const kc_a2a_params *p, kc_a2a_replay *out,
                               kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_status s = kci_a2a_check(d, c, method, p, err);
    if (s)
        return s;
    if (d > KC_A2A_REPLAY_MAX_D)
        return kc_fail_param(err, KC_ERANGE, "d", "replays walk every message: d <= %d, got %d", KC_A2A_REPLAY_MAX_D,
                             d);
    replayer r = {.out = out};
    kc_calmant_init(&r.g, d, c, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, err);
    kc_calmant_stepnet_topo(&r.g, &r.topo);
    r.link_bytes = calloc(r.g.nodes * (uint64_t)r.topo.ports, sizeof *r.link_bytes);
    if (!r.link_bytes)
        s = kc_fail(err, KC_ENOMEM, "out of memory (replay)");
    if (!s)
        s = kc_stepnet_init(&r.net, &r.topo, KC_STEPNET_ONE_PORT, err);
    if (!s)
        s = replay_body(&r, method, p, err);
    if (!s) {
        out->max_link_bytes = link_totals(&r);
        out->time = (double)out->steps * p->beta + (double)out->transfers * p->tau +
                    (double)out->iterations * p->barrier;
        kc_stepnet_conflict_text(&r.net, out->first_conflict, (int)sizeof out->first_conflict);
    }
    kc_stepnet_free(&r.net);
    free(r.link_bytes);
    kc_calmant_sched_free(&r.phase);
    return s;
}
