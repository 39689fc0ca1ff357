/* Message generation (step 1 of a cycle): the sources' queues, the choice
 * of destination, and the calendar that visits only the sources whose next
 * Poisson message (or, with geometric gaps, Bernoulli message) is due, in
 * node order, the order a scan of every source would draw random numbers
 * in; Bernoulli sources of the per-cycle kind draw every cycle.
 * Generation proper (kci_gen_cycle) reads and writes only its own state
 * (kci_gensrc) and hands each message to a sink: the engine's queues, or
 * the feed that carries it from a thread of its own (feed.c). */
#include "engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/rng_step.h"

int kci_enqueue(kci_engine *e, uint32_t node, uint32_t dst, uint32_t len, uint32_t id)
{
    int32_t m = e->msg_free;
    if (m >= 0) {
        e->msg_free = e->msgs[m].next;
    } else {
        /* a slot never used: the doubled array is touched only as far as
         * the queues reach, so a run past saturation is not charged twice */
        if (e->msg_used == e->msg_cap) {
            uint32_t cap = e->msg_cap ? 2 * e->msg_cap : 4096;
            if (KCI_RESIZE(e->msgs, cap))
                return -1;
            kci_sim_huge(e->msgs, cap * sizeof *e->msgs);
            e->msg_cap = cap;
        }
        m = (int32_t)e->msg_used++;
    }
    e->msgs[m].gen = e->now;
    e->msgs[m].dst = dst;
    e->msgs[m].len = len;
    e->msgs[m].next = -1;
    e->msgs[m].id = id;
    if (e->driven && !e->in_senders[node]) { /* driven runs visit only nodes with queued messages */
        e->in_senders[node] = 1;
        e->senders[e->nsenders++] = node;
    }
    if (e->queue_tail[node] >= 0) {
        e->msgs[e->queue_tail[node]].next = m;
    } else {
        e->queue_head[node] = m;
        if (!e->driven)
            e->fresh_queues[e->nfresh_queues++] = node;
    }
    e->queue_tail[node] = m;
    e->queued++;
    e->queue_len[node]++;
    e->queued_flits += len;
    e->flits_generated += len;
    if (e->in_window && !e->cfg->oneshot) {
        e->gen_window += len;
        e->win_generated[node] += len;
        e->outstanding++;
    }
    return 0;
}

void kci_dequeue(kci_engine *e, uint32_t node, kci_worm *w)
{
    uint64_t window_end = (uint64_t)(e->cfg->warmup + e->cfg->measure);
    int32_t m = e->queue_head[node];
    w->src = node;
    w->dst = e->msgs[m].dst;
    w->gen = e->msgs[m].gen;
    w->inj = e->now;
    w->src_left = e->msgs[m].len;
    w->len = e->msgs[m].len;
    w->id = e->msgs[m].id;
    w->measured = e->cfg->oneshot || (w->gen >= (uint64_t)e->cfg->warmup && w->gen < window_end);
    e->queue_head[node] = e->msgs[m].next;
    if (e->queue_head[node] < 0)
        e->queue_tail[node] = -1;
    e->msgs[m].next = e->msg_free;
    e->msg_free = m;
    e->queued--;
    if (--e->queue_len[node] < e->queue_len_low[node] && e->late_window)
        e->queue_len_low[node] = e->queue_len[node];
    e->queued_flits -= e->msgs[m].len;
}

/* The destination of a message generated at node: uniform over the other
 * (virtual) nodes (over all of them with self_traffic), or one of the
 * node's traffic entries; one draw. On a general network the draw is over
 * the ranks and gives the router of the rank drawn (kcube/simtraffic.h). */
static uint32_t pick_dest(kci_gensrc *g, uint32_t node)
{
    const kc_simtraffic *t = g->traffic;
    if (t->uniform) {
        uint32_t v = t->to_virt ? t->to_virt[node] : node, self = g->cfg->self_traffic ? 1 : 0;
        uint32_t y = (uint32_t)kc_rng_below(&g->rng, (t->draw ? t->draw : t->nodes) - 1 + self);
        if (y >= v && !self)
            y++;
        return t->to_phys ? t->to_phys[y] : y;
    }
    uint32_t a = t->start[node], b = t->start[node + 1];
    return b - a == 1 ? t->dest[a] : t->dest[a + (uint32_t)kc_rng_below(&g->rng, b - a)];
}

/* Random ring ties: one bit per dimension, drawn as the message is made,
 * after its destination (only tori have rings to tie on; such runs are
 * never driven, so the message's id field is free to hold them). */
uint32_t kci_gen_id(kci_gensrc *g)
{
    return g->tie_bits ? (uint32_t)kc_rng_next(&g->rng) : 0;
}

/* A message at source x: its destination and id drawn, into the sink. */
static inline int emit(kci_gensrc *g, uint32_t x, const kci_gen_sink *sink)
{
    uint32_t dst = pick_dest(g, x);
    return sink->put(sink->ctx, x, dst, kci_gen_id(g));
}

/* The mean gap between x's messages: a router whose w endpoints send
 * generates w times as often (exactly `mean` on plain networks). */
static inline double source_mean(const kci_gensrc *g, uint32_t x, double mean)
{
    return g->traffic->weight ? mean / (double)g->traffic->weight[x] : mean;
}

/* A source is listed once, so every bucket's partial chunk and the full
 * ones for all sources. */
uint64_t kci_calendar_chunks(uint64_t nodes) { return nodes / KCI_WCHUNK + KCI_CAL + 1; }

/* x joins the calendar at the cycle of its next message (the first t with
 * next_msg_time < t + 1). The pool (kci_calendar_chunks) never runs out. */
static inline void cal_insert(kci_gensrc *g, uint32_t x)
{
    double t = floor(g->next_msg_time[x]);
    uint32_t cyc = t < 2147483648.0 ? (uint32_t)t : UINT32_C(2147483648);
    (void)kci_wheel_add(&g->cal, x, cyc);
}

/* One Bernoulli trial per sender, in sender order, success with
 * probability p (times the source's weight): the draws of kc_rng_unit
 * compared with p, done as an integer comparison on a local copy of the
 * stream (the same values, the same outcomes: kci_rng_unit_threshold), so a
 * trial costs a few instructions rather than a call and a conversion. The
 * stream goes back to g->rng before a success draws its destination. */
static int bernoulli_trials(kci_gensrc *g, double p, const kci_gen_sink *sink)
{
    const uint16_t *wt = g->traffic ? g->traffic->weight : NULL;
    const uint32_t *senders = g->senders;
    uint64_t thr = kci_rng_unit_threshold(p);
    uint32_t n = g->nsenders;
    int nomem = 0;
    kc_rng r = g->rng;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = senders[i];
        uint64_t t = wt ? kci_rng_unit_threshold(p * wt[x]) : thr;
        if ((kci_rng_step(&r) >> 11) >= t)
            continue;
        g->rng = r;
        nomem |= emit(g, x, sink);
        r = g->rng;
    }
    g->rng = r;
    return nomem;
}

/* The Poisson sources due in cycle now, from this cycle's calendar bucket
 * (generation runs every cycle, so none is late; the bucket also holds
 * sources a turn of the calendar later, which go back in), into
 * g->due_nodes in node order; returns their count. */
static uint32_t due_sources(kci_gensrc *g, uint32_t now)
{
    uint32_t n = 0;
    for (int32_t h = kci_wheel_take(&g->cal, now); h >= 0; h = kci_wheel_give(&g->cal, h, g->prefetch)) {
        const kci_wchunk *ch = &g->cal.chunks[h];
        for (uint32_t j = 0; j < ch->n; j++) {
            if (ch->cyc[j] == now)
                g->due_nodes[n++] = ch->item[j];
            else
                cal_insert(g, ch->item[j]); /* a later turn: into a fresh chunk of this bucket */
        }
    }
    kci_sort_u32(g->due_nodes, n, g->sort_tmp, g->nodes - 1);
    return n;
}

/* The cycles a Bernoulli source with success probability p per cycle
 * waits before its next success: P(G = g) = (1 - p)^g p, g = 0, 1, ...,
 * by inversion, floor(ln U / ln(1 - p)) with U uniform in (0, 1] (exact up
 * to rounding; p >= 1 gives 0). One draw. Capped at 2^31 cycles, past any
 * run (kc_simconfig's cycles are at most 2e9). */
static double geometric_wait(kc_rng *r, double p)
{
    if (p >= 1)
        return 0;
    double g = floor(log(1.0 - kc_rng_unit(r)) / log1p(-p));
    return g < 2147483648.0 ? g : 2147483648.0;
}

/* The gap before a source's next message: exponential with mean `mean`
 * (Poisson), or for geometric gaps one cycle plus the wait for the next
 * success of probability 1 / mean (a source's messages are whole cycles
 * apart). */
static inline double next_gap(kci_gensrc *g, double mean)
{
    if (g->cfg->process == KC_INJECT_POISSON)
        return kc_rng_exponential(&g->rng, mean);
    return 1.0 + geometric_wait(&g->rng, 1.0 / mean);
}

/* Source x's messages due by the end of cycle now, into the sink; nonzero
 * when the sink ran out of memory. */
static int calendar_source(kci_gensrc *g, uint32_t x, uint32_t now, double mean, const kci_gen_sink *sink)
{
    double mx = source_mean(g, x, mean);
    int nomem = 0;
    while (g->next_msg_time[x] < (double)now + 1.0) {
        nomem |= emit(g, x, sink);
        g->next_msg_time[x] += next_gap(g, mx);
    }
    return nomem;
}

int kci_gen_cycle(kci_gensrc *g, uint32_t now, const kci_gen_sink *sink)
{
    const kc_simconfig *c = g->cfg;
    if (c->process == KC_INJECT_BERNOULLI)
        return bernoulli_trials(g, c->load / (double)g->msg_len, sink);
    double mean = (double)g->msg_len / c->load;
    int nomem = 0;
    uint32_t n = due_sources(g, now);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = g->due_nodes[i];
        if (i + 8 < n && g->prefetch) { /* per-source state, far apart in memory */
            kci_prefetch_w(&g->next_msg_time[g->due_nodes[i + 8]]);
            if (!g->traffic->uniform)
                kci_prefetch(&g->traffic->start[g->due_nodes[i + 8]]);
            if (sink->ahead)
                sink->ahead(sink->ctx, g->due_nodes[i + 8]);
        }
        nomem |= calendar_source(g, x, now, mean, sink);
        cal_insert(g, x);
    }
    return nomem;
}

void kci_calendar_init(kci_engine *e)
{
    kci_gensrc *g = &e->gen;
    g->traffic = e->traffic;
    g->cfg = e->cfg;
    g->senders = e->senders;
    g->nsenders = e->nsenders;
    g->nodes = e->net->nodes;
    g->msg_len = e->msg_len;
    g->tie_bits = e->route->tie == KC_SIM_TIE_RANDOM && e->net->topo == KC_SIM_TORUS && !e->driven;
    g->prefetch = e->prefetch;
    g->sort_tmp = e->sort_tmp; /* free while generation runs; the feed brings its own */
    double mean = (double)e->msg_len / (e->cfg->load > 0 ? e->cfg->load : 1);
    /* the first message one gap after 0, or with geometric gaps (a trial
     * every cycle from 0) after -1 */
    double before = g->cfg->process == KC_INJECT_POISSON ? 0.0 : -1.0;
    for (uint32_t i = 0; i < g->nsenders; i++)
        g->next_msg_time[g->senders[i]] = before + next_gap(g, g->traffic ? source_mean(g, g->senders[i], mean) : mean);
    kci_wheel_clear(&g->cal);
    for (uint32_t i = 0; i < g->nsenders; i++)
        cal_insert(g, g->senders[i]);
}
