/* Message generation (step 1 of a cycle): the sources' queues, the choice
 * of destination, and the calendar that visits only the sources whose next
 * Poisson message is due (in node order, the order a scan of every source
 * would draw random numbers in); Bernoulli sources draw every cycle. */
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
    /* random ring ties: one bit per dimension, drawn as the message is made
     * (only tori have rings to tie on); such runs are never driven, so the
     * caller's id field is free to hold them */
    e->msgs[m].id = e->route->tie == KC_SIM_TIE_RANDOM && e->net->topo == KC_SIM_TORUS && !e->driven
                        ? (uint32_t)kc_rng_next(&e->rng) : id;
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
 * (virtual) nodes (over all of them with self_traffic), or one of the node's traffic entries; one draw. On a
 * general network the draw is over the ranks and gives the router of
 * the rank drawn (kcube/simtraffic.h). */
static uint32_t pick_dest(kci_engine *e, uint32_t node)
{
    const kc_simtraffic *t = e->traffic;
    if (t->uniform) {
        uint32_t v = t->to_virt ? t->to_virt[node] : node, self = e->cfg->self_traffic ? 1 : 0;
        uint32_t y = (uint32_t)kc_rng_below(&e->rng, (t->draw ? t->draw : t->nodes) - 1 + self);
        if (y >= v && !self)
            y++;
        return t->to_phys ? t->to_phys[y] : y;
    }
    uint32_t a = t->start[node], b = t->start[node + 1];
    return b - a == 1 ? t->dest[a] : t->dest[a + (uint32_t)kc_rng_below(&e->rng, b - a)];
}

/* The mean gap between x's messages: a router whose w endpoints send
 * generates w times as often (exactly `mean` on plain networks). */
static inline double source_mean(const kci_engine *e, uint32_t x, double mean)
{
    return e->traffic->weight ? mean / (double)e->traffic->weight[x] : mean;
}

uint64_t kci_calendar_chunks(uint64_t nodes) { return nodes / KCI_CAL_CHUNK + KCI_CAL + 1; }

/* x joins the calendar at the cycle of its next message (the first t with
 * next_msg_time < t + 1). The chunk pool (kci_calendar_chunks) never runs out. */
static inline void cal_insert(kci_engine *e, uint32_t x)
{
    double t = floor(e->next_msg_time[x]);
    uint32_t cyc = t < 2147483648.0 ? (uint32_t)t : UINT32_C(2147483648);
    int32_t *b = &e->cal_bucket[cyc & (KCI_CAL - 1)];
    kci_calchunk *ch = *b >= 0 ? &e->cal_chunks[*b] : NULL;
    if (!ch || ch->n == KCI_CAL_CHUNK) {
        int32_t f = e->cal_free; /* a freed chunk, else the next never used (so untouched memory stays unmapped) */
        if (f >= 0)
            e->cal_free = e->cal_chunks[f].next;
        else
            f = (int32_t)e->cal_used++;
        ch = &e->cal_chunks[f];
        ch->next = *b;
        ch->n = 0;
        *b = f;
    }
    ch->node[ch->n] = x;
    ch->cyc[ch->n++] = cyc;
}

/* The per-source state a generation at source x touches, prefetched a few
 * due sources ahead (they are far apart in memory). */
KCI_PF_FN void pf_source(const kci_engine *e, uint32_t x)
{
    kci_prefetch_w(&e->next_msg_time[x]);
    kci_prefetch_w(&e->queue_tail[x]);
    kci_prefetch_w(&e->queue_len[x]);
    kci_prefetch_w(&e->win_generated[x]);
    if (!e->traffic->uniform)
        kci_prefetch(&e->traffic->start[x]);
}

/* One Bernoulli trial per sender, in sender order, success with
 * probability p (times the source's weight): the draws of kc_rng_unit
 * compared with p, done as an integer comparison on a local copy of the
 * stream (the same values, the same outcomes: kci_rng_unit_threshold), so a
 * trial costs a few instructions rather than a call and a conversion. The
 * stream goes back to e->rng before a success draws its destination. */
static void bernoulli_trials(kci_engine *e, double p)
{
    const uint16_t *wt = e->traffic ? e->traffic->weight : NULL;
    uint64_t thr = kci_rng_unit_threshold(p);
    kc_rng r = e->rng;
    for (uint32_t i = 0; i < e->nsenders; i++) {
        uint32_t x = e->senders[i];
        uint64_t t = wt ? kci_rng_unit_threshold(p * wt[x]) : thr;
        if ((kci_rng_step(&r) >> 11) >= t)
            continue;
        e->rng = r;
        if (kci_enqueue(e, x, pick_dest(e, x), e->msg_len, 0))
            e->nomem = 1;
        r = e->rng;
    }
    e->rng = r;
}

void kci_generate(kci_engine *e)
{
    const kc_simconfig *c = e->cfg;
    double mean = (double)e->msg_len / c->load;
    double p = c->load / (double)e->msg_len;
    if (c->process == KC_INJECT_POISSON) {
        /* This cycle's bucket holds the due sources (generation runs every
         * cycle, so none is late) and some a turn of the calendar later;
         * the due ones draw in node order, exactly as a scan of every
         * source would, and go back at the cycle of their next message. */
        int32_t *b = &e->cal_bucket[e->now & (KCI_CAL - 1)], h = *b;
        uint32_t n = 0;
        *b = -1;
        while (h >= 0) {
            kci_calchunk *ch = &e->cal_chunks[h];
            int32_t next = ch->next;
            if (next >= 0 && e->prefetch)
                kci_prefetch(&e->cal_chunks[next]);
            for (uint32_t j = 0; j < ch->n; j++) {
                if (ch->cyc[j] == e->now)
                    e->due_nodes[n++] = ch->node[j];
                else
                    cal_insert(e, ch->node[j]); /* a later turn: into a fresh chunk of this bucket */
            }
            ch->next = e->cal_free; /* read whole: free it */
            e->cal_free = h;
            h = next;
        }
        kci_sort_nodes(e, e->due_nodes, n);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t x = e->due_nodes[i];
            if (i + 8 < n && e->prefetch)
                pf_source(e, e->due_nodes[i + 8]);
            double mx = source_mean(e, x, mean);
            while (e->next_msg_time[x] < (double)e->now + 1.0) {
                if (kci_enqueue(e, x, pick_dest(e, x), e->msg_len, 0))
                    e->nomem = 1;
                e->next_msg_time[x] += kc_rng_exponential(&e->rng, mx);
            }
            cal_insert(e, x);
        }
        return;
    }
    if (c->process == KC_INJECT_BERNOULLI) {
        bernoulli_trials(e, p);
        return;
    }
    for (uint32_t i = 0; i < e->nsenders; i++) {
        uint32_t x = e->senders[i];
        double mx = source_mean(e, x, mean);
        while (e->next_msg_time[x] < (double)e->now + 1.0) {
            if (kci_enqueue(e, x, pick_dest(e, x), e->msg_len, 0))
                e->nomem = 1;
            e->next_msg_time[x] += kc_rng_exponential(&e->rng, mx);
        }
    }
}

void kci_calendar_init(kci_engine *e)
{
    double mean = (double)e->msg_len / (e->cfg->load > 0 ? e->cfg->load : 1);
    for (uint32_t i = 0; i < e->nsenders; i++)
        e->next_msg_time[e->senders[i]] = kc_rng_exponential(&e->rng, e->traffic ? source_mean(e, e->senders[i], mean) : mean);
    for (uint32_t i = 0; i < KCI_CAL; i++)
        e->cal_bucket[i] = -1;
    e->cal_free = -1;
    e->cal_used = 0;
    for (uint32_t i = 0; i < e->nsenders; i++)
        cal_insert(e, e->senders[i]);
}
