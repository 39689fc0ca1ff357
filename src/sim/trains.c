/* The worm-level loop ("trains").
 *
 * With one-flit buffers, flits ready one cycle after they enter a channel
 * (switch delay 0, link latency 1) and no VCs taking turns on a link, the
 * flit loop (flit.c) keeps every worm contiguous: moving head end first, a
 * flit moves exactly when the flit ahead of it does (or is delivered), and
 * the header moves when it is given a channel or has been delivered. So a
 * worm is a train: flit f sits at path index head - f (at the source while
 * that is negative, delivered once past the ejection channel), and a cycle
 * in which it moves does O(1) work: head + 1, one flit from the source, the
 * tail's channel released, link traversals counted by arithmetic, one flit
 * delivered. Only worms that move are visited (new worms, headers given a
 * channel, worms being delivered). A header that finds every channel it may
 * take owned waits on each of them (a wait entry per channel) and is tried
 * again only after one of them is released; trying it in between would
 * fail, so skipping it leaves the arbitration order, and every result, as
 * the flit loop has them. Per-link flit counts are settled when a channel
 * is released (or when the run ends), from the window of moves. */
#include "engine.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* Waiters by key (keys are distinct, so any sort gives one order). */
static inline int cmp_waiter(const void *ctx, const kci_waiter *a, const kci_waiter *b)
{
    (void)ctx;
    return a->key < b->key ? -1 : a->key > b->key;
}

KCI_MERGE_SORT_DEFINE(merge_waiters, kci_waiter, cmp_waiter)

void kci_sort_waiters(kci_waiter *t, uint32_t n, kci_waiter *scratch) { merge_waiters(t, n, scratch, NULL); }

/* Flits of worm w that entered path index j while the window was open
 * (moves that set head to j .. j + len - 1, up to head). */
static uint64_t train_window_flits(const kci_worm *w, int64_t j)
{
    int64_t lo = j > w->win_lo + 1 ? j : w->win_lo + 1;
    int64_t hi = j + (int64_t)w->len - 1;
    if (hi > w->win_hi)
        hi = w->win_hi;
    if (hi > w->head)
        hi = w->head;
    return hi >= lo ? (uint64_t)(hi - lo + 1) : 0;
}

/* The node range (thread part) of channel c (the node c leaves: a network
 * or ejection channel, the ones headers wait on). A range's network
 * channels and ejection channels are contiguous, as its nodes are
 * (kci_part_of_node): a few compares, no division. */
static inline uint32_t part_of_chan(const kci_engine *e, uint32_t c)
{
    const uint32_t *b = c < e->net->net_channels ? e->part_net_chan : e->part_ej_chan;
    uint32_t p = 0;
    for (uint32_t i = 1; i < e->nparts; i++)
        p += c >= b[i];
    return p;
}

/* The per-link counts (--channel-util) several threads' moves add to: a
 * relaxed atomic (a sum does not depend on the order). One thread: plain. */
static inline void add_u64(const kci_engine *e, uint64_t *p, uint64_t v)
{
    if (e->nparts > 1)
        atomic_fetch_add_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
    else
        *p += v;
}

/* Channel c (of range t) was released last cycle: its waiting headers are
 * tried this cycle. */
static void train_wake(kci_engine *e, kci_tpart *t, uint32_t c)
{
    int32_t i = e->tchans[c].wait;
    if (i < 0)
        return;
    while (i >= 0) {
        kci_went *en = &t->waits[i];
        kci_worm *w = &e->worms[en->w];
        /* wait_gen first: an entry of an earlier wait (the worm may be in
         * another range now) fails there, before woken is read */
        if (w->wait_gen == en->gen && w->blocked && !w->woken && w->alive) {
            w->woken = 1;
            t->woken[t->nwoken++] = en->w;
        }
        int32_t next = en->next;
        en->next = t->waits_free;
        t->waits_free = i;
        i = next;
    }
    e->tchans[c].wait = -1;
}

/* Channel c was released: its headers are woken at the next allocation
 * (nothing between now and then reads the wait entries or takes c). */
static inline void train_freed(kci_engine *e, kci_tpart *m, uint32_t c)
{
    e->tchans[c].own = -1;
    if (e->tchans[c].wait >= 0) {
        if (e->nparts == 1)
            e->parts->released[e->parts->nreleased++] = c;
        else
            m->released_out[m->nreleased_out++] = (kci_tev){part_of_chan(e, c), c};
    }
}

/* Worm wi (wait generation gen) waits on channel c of range t: a wait
 * entry from the range's free list (grown by doubling); -1 when out of
 * memory. */
static int train_wait_on(kci_engine *e, kci_tpart *t, uint32_t c, uint32_t wi, uint32_t gen)
{
    if (t->waits_free < 0) {
        uint32_t cap = t->waits_cap ? 2 * t->waits_cap : 1024;
        if (KCI_RESIZE(t->waits, cap))
            return -1;
        for (uint32_t i = cap; i > t->waits_cap; i--) {
            t->waits[i - 1].next = t->waits_free;
            t->waits_free = (int32_t)(i - 1);
        }
        t->waits_cap = cap;
    }
    int32_t i = t->waits_free;
    t->waits_free = t->waits[i].next;
    t->waits[i] = (kci_went){wi, gen, e->tchans[c].wait};
    e->tchans[c].wait = i;
    return 0;
}

/* What kci_head_node reads of network channel c on a torus (the digits of
 * the node it leaves) or a mesh (its neighbour table entry); nothing on
 * the cube (arithmetic) or for other channels. */
KCI_PF_FN void pf_router(const kci_engine *e, uint32_t c)
{
    const kc_simnet *net = e->net;
    if (c >= net->net_channels || net->topo == KC_SIM_HYPERCUBE)
        return;
    kci_prefetch(net->topo == KC_SIM_MESH ? (const void *)&net->next_node[c / e->vcs]
                                          : (const void *)&net->digit[(size_t)(c / e->vcs / (uint32_t)net->ports) *
                                                                      (size_t)net->n]);
}

/* The header of wi (in channel (uint32_t)key, at node `node` of range t)
 * asks for its next channel among the routing's nc candidates cand. */
static void train_try(kci_engine *e, kci_tpart *t, uint32_t wi, uint64_t key, const uint32_t *cand, int nc)
{
    kci_worm *w = &e->worms[wi];
    for (int j = 0; j < nc; j++) {
        uint32_t c = cand[j];
        if (e->tchans[c].own < 0) {
            e->tchans[c].own = (int32_t)wi;
            e->path[(size_t)wi * e->path_cap + w->npath++] = c;
            w->blocked = 0;
            if (c >= kc_simnet_ejch(e->net, 0, 0))
                w->drain = 1;
            t->granted[t->ngranted++] = (kci_waiter){key, wi, 0};
            return;
        }
    }
    w->blocked = 1;
    w->wait_key = key;
    uint32_t gen = ++w->wait_gen;
    for (int j = 0; j < nc; j++)
        if (train_wait_on(e, t, cand[j], wi, gen))
            t->nomem = 1;
}

/* The tries of a list of headers (list[i].w in channel (uint32_t)
 * list[i].key at node list[i].node, or at the channel's head when
 * node_known is 0), in list order, prefetching as the moves do
 * (KCI_PF): the worm record, the digits of both ends (tori and meshes),
 * then its candidates (computed once, kept in a small ring when there are
 * few) with their channels and the worm's next path entry. */
#define KCI_RING_CAND 4
static void train_try_list(kci_engine *e, kci_tpart *t, const kci_waiter *list, uint32_t n, int node_known)
{
    struct {
        uint32_t c[KCI_RING_CAND];
        int nc;
    } ring[KCI_PF / 2];
    uint32_t big[KC_SIMROUTE_MAX];
    const kc_simnet *net = e->net;
    if (!e->prefetch) { /* small network: no stages */
        for (uint32_t i = 0; i < n; i++) {
            const kci_waiter *h = &list[i];
            uint32_t node = node_known ? h->node : kci_head_node(e, (uint32_t)h->key);
            int nc = kc_simroute_candidates(e->route, net, node, e->worms[h->w].dst, (uint32_t)h->key, big);
            train_try(e, t, h->w, h->key, big, nc);
        }
        return;
    }
    int digits = net->topo != KC_SIM_HYPERCUBE; /* grid routing reads the digits of both ends */
    for (uint32_t i = 0; i < n + KCI_PF / 2; i++) {
        if (i + KCI_PF < n) {
            uint32_t c = (uint32_t)list[i + KCI_PF].key;
            kci_prefetch_worm(e, list[i + KCI_PF].w);
            if (!node_known)
                pf_router(e, c);
        }
        if (digits && i + KCI_PF / 2 < n) {
            const kci_waiter *h = &list[i + KCI_PF / 2];
            uint32_t node = node_known ? h->node : kci_head_node(e, (uint32_t)h->key);
            kci_prefetch(&net->digit[(size_t)e->worms[h->w].dst * (size_t)net->n]);
            kci_prefetch(&net->digit[(size_t)node * (size_t)net->n]);
        }
        if (i < n) { /* the candidates of header i, and their channels */
            const kci_waiter *h = &list[i];
            const kci_worm *w = &e->worms[h->w];
            uint32_t node = node_known ? h->node : kci_head_node(e, (uint32_t)h->key);
            uint32_t cand[KC_SIMROUTE_MAX];
            int nc = kc_simroute_candidates(e->route, net, node, w->dst, (uint32_t)h->key, cand);
            int keep = nc <= KCI_RING_CAND ? nc : 0;
            for (int j = 0; j < keep; j++) {
                ring[i % (KCI_PF / 2)].c[j] = cand[j];
                kci_prefetch_w(&e->tchans[cand[j]]);
            }
            ring[i % (KCI_PF / 2)].nc = keep ? nc : -1;
            kci_prefetch_w(&e->path[(size_t)h->w * e->path_cap + w->npath]);
        }
        if (i >= KCI_PF / 2 - 1 && i + 1 - KCI_PF / 2 < n) {
            uint32_t k = i + 1 - KCI_PF / 2; /* tried now: its candidates were computed KCI_PF / 2 - 1 steps ago */
            const kci_waiter *h = &list[k];
            if (ring[k % (KCI_PF / 2)].nc >= 0) {
                train_try(e, t, h->w, h->key, ring[k % (KCI_PF / 2)].c, ring[k % (KCI_PF / 2)].nc);
            } else {
                uint32_t node = node_known ? h->node : kci_head_node(e, (uint32_t)h->key);
                int nc = kc_simroute_candidates(e->route, net, node, e->worms[h->w].dst, (uint32_t)h->key, big);
                train_try(e, t, h->w, h->key, big, nc);
            }
        }
    }
}

/* Header arbitration of range t: wake-ups, then the woken headers by key
 * (each failed in an earlier cycle, so each arrived before any header now
 * trying for the first time), then the new ones by key. */
/* The headers that entered range t's channels in the last moves, by
 * channel (the key's order within one ready cycle), join the range's
 * headers waiting for their first try. Each such channel is owned by the
 * worm that just entered it, so nobody writes its owner meanwhile. */
static void part_scan(kci_engine *e, kci_tpart *t)
{
    if (t->first_tail && t->first_head) {
        memmove(t->first_tries, t->first_tries + t->first_head, (t->first_tail - t->first_head) * sizeof *t->first_tries);
        t->first_tail -= t->first_head;
        t->first_head = 0;
    }
    uint64_t ready = (uint64_t)e->last_moved + 1;
    uint32_t first = t->first_tail, me = (uint32_t)(t - e->parts);
    for (uint32_t p = 0; e->nparts > 1 && p < e->nparts; p++) { /* the arrivals the moves listed for range t */
        const kci_tpart *m = &e->parts[p];
        for (uint32_t i = 0; i < m->narrivals_out; i++) {
            if (m->arrivals_out[i].t != me)
                continue;
            uint32_t c = m->arrivals_out[i].c;
            t->arrived_bits[c >> 6] |= UINT64_C(1) << (c & 63);
            t->arrived_summary[c >> 12] |= UINT64_C(1) << (c >> 6 & 63);
        }
    }
    size_t nsum = ((size_t)e->net->channels + 4095) / 4096;
    for (size_t s = 0; s < nsum; s++) {
        uint64_t sb = t->arrived_summary[s];
        if (!sb)
            continue;
        t->arrived_summary[s] = 0;
        while (sb) {
            size_t wd = s * 64 + (size_t)kci_ctz64(sb);
            sb &= sb - 1;
            uint64_t b = t->arrived_bits[wd];
            t->arrived_bits[wd] = 0;
            while (b) {
                uint32_t c = (uint32_t)(wd * 64 + (size_t)kci_ctz64(b));
                b &= b - 1;
                /* small networks: the worm and router at once; large: below */
                t->first_tries[t->first_tail++] = e->prefetch ? (kci_waiter){ready << 32 | c, 0, 0}
                                            : (kci_waiter){ready << 32 | c, (uint32_t)e->tchans[c].own, kci_head_node(e, c)};
            }
        }
    }
    if (!e->prefetch)
        return;
    /* then the worm and router of each, prefetching ahead (KCI_PF) */
    for (uint32_t i = first; i < t->first_tail; i++) {
        if (e->prefetch && i + 2 * KCI_PF < t->first_tail) { /* a short loop: further ahead */
            uint32_t c = (uint32_t)t->first_tries[i + 2 * KCI_PF].key;
            kci_prefetch(&e->tchans[c]);
            pf_router(e, c);
        }
        uint32_t c = (uint32_t)t->first_tries[i].key;
        t->first_tries[i].w = (uint32_t)e->tchans[c].own;
        t->first_tries[i].node = kci_head_node(e, c);
    }
}

void kci_trains_part_allocate(kci_engine *e, kci_tpart *t)
{
    part_scan(e, t);
    t->ngranted = 0;
    uint32_t me = (uint32_t)(t - e->parts);
    for (uint32_t p = 0; e->nparts > 1 && p < e->nparts; p++) /* the channels of range t the moves released */
        for (uint32_t i = 0; i < e->parts[p].nreleased_out; i++)
            if (e->parts[p].released_out[i].t == me)
                t->released[t->nreleased++] = e->parts[p].released_out[i].c;
    for (uint32_t i = 0; i < t->nreleased; i++) {
        /* prefetch: the channel, its first wait entry, that entry's worm */
        if (!e->prefetch) {
            train_wake(e, t, t->released[i]);
            continue;
        }
        if (i + KCI_PF < t->nreleased)
            kci_prefetch_w(&e->tchans[t->released[i + KCI_PF]]);
        if (i + KCI_PF_PATH < t->nreleased && e->tchans[t->released[i + KCI_PF_PATH]].wait >= 0)
            kci_prefetch_w(&t->waits[e->tchans[t->released[i + KCI_PF_PATH]].wait]);
        if (i + KCI_PF_CHAN < t->nreleased && e->tchans[t->released[i + KCI_PF_CHAN]].wait >= 0)
            kci_prefetch_worm(e, t->waits[e->tchans[t->released[i + KCI_PF_CHAN]].wait].w);
        train_wake(e, t, t->released[i]);
    }
    t->nreleased = 0;
    /* A stale wait entry names a worm whose header has moved to another
     * range: its wake-up reads that worm's wait_gen and blocked, which that
     * range's tries write, so every range wakes before any tries. */
    kci_simthreads_mid(e);
    uint32_t n = t->nwoken;
    if (n) {
        kci_waiter *m = t->sort_tmp;
        for (uint32_t i = 0; i < n; i++) {
            kci_worm *w = &e->worms[t->woken[i]];
            m[i] = (kci_waiter){w->wait_key, t->woken[i], 0};
            w->woken = 0; /* nothing reads it before the try */
        }
        kci_sort_waiters(m, n, t->granted); /* granted: empty until the tries */
        t->nwoken = 0;
        train_try_list(e, t, m, n, 0);
    }
    t->ngranted_woken = t->ngranted;
    uint32_t due = t->first_head;
    while (due < t->first_tail && (t->first_tries[due].key >> 32) + e->route_delay <= e->now)
        due++;
    train_try_list(e, t, t->first_tries + t->first_head, due - t->first_head, 1);
    t->first_head = due;
    if (t->first_head == t->first_tail)
        t->first_head = t->first_tail = 0;
}

/* Appends to e->movers, in key order (the order one range holding every
 * node would have given), the headers the ranges granted a channel: the
 * woken ones (woken 1) or the first tries (woken 0). */
static void merge_granted(kci_engine *e, int woken)
{
    uint32_t pos[KCI_MAX_THREADS];
    for (uint32_t p = 0; p < e->nparts; p++)
        pos[p] = woken ? 0 : e->parts[p].ngranted_woken;
    for (;;) {
        uint32_t best = UINT32_MAX;
        uint64_t bk = 0;
        for (uint32_t p = 0; p < e->nparts; p++) {
            kci_tpart *t = &e->parts[p];
            uint32_t end = woken ? t->ngranted_woken : t->ngranted;
            if (pos[p] < end && (best == UINT32_MAX || t->granted[pos[p]].key < bk)) {
                best = p;
                bk = t->granted[pos[p]].key;
            }
        }
        if (best == UINT32_MAX)
            return;
        e->movers[e->nmovers++] = e->parts[best].granted[pos[best]++].w;
    }
}

/* Range p's header arbitration, as a job of kci_simthreads_run. */
static void allocate_job(kci_engine *e, uint32_t p) { kci_trains_part_allocate(e, &e->parts[p]); }

void kci_trains_allocate(kci_engine *e)
{
    if (e->pool) {
        kci_simthreads_run(e, allocate_job);
    } else {
        kci_trains_part_allocate(e, &e->parts[0]);
    }
    for (uint32_t p = 0; p < e->nparts; p++)
        if (e->parts[p].nomem)
            e->nomem = 1;
    if (e->nparts == 1) {
        kci_tpart *t = &e->parts[0];
        for (uint32_t i = 0; i < t->ngranted; i++)
            e->movers[e->nmovers++] = t->granted[i].w;
        return;
    }
    merge_granted(e, 1);
    merge_granted(e, 0);
}

/* Flits of a train that have crossed router-to-router channels once its
 * header is at path index h: channel j (1 <= j <= m) has seen min(len,
 * h - j + 1) of them, where m is the last such channel the train has
 * reached. */
static uint64_t train_traversals(int64_t h, int64_t len, int64_t m)
{
    if (m > h)
        m = h;
    if (m < 1)
        return 0;
    int64_t a = h - m + 1, b = h, c = b < len ? b : len; /* sum of min(len, d) for d = a .. b */
    uint64_t sum = 0;
    if (a <= c)
        sum += (uint64_t)((a + c) * (c - a + 1) / 2);
    int64_t from = a > len + 1 ? a : len + 1;
    if (b >= from)
        sum += (uint64_t)(len * (b - from + 1));
    return sum;
}

/* The header's path index after the moves of cycle `last`: a train being
 * delivered moves every cycle without being visited. */
static int64_t train_head(const kci_worm *w, int64_t last)
{
    return w->drain && w->head >= (int64_t)w->npath - 1 ? (int64_t)w->npath - 1 + (last - (int64_t)w->delivered_at) : w->head;
}

/* Delivered flits of a train at header index h in the window of moves. */
static uint64_t train_window_delivered(const kci_worm *w, int64_t h)
{
    int64_t E = (int64_t)w->npath - 1;
    int64_t lo = E > w->win_lo + 1 ? E : w->win_lo + 1, hi = h < w->win_hi ? h : w->win_hi;
    return hi >= lo ? (uint64_t)(hi - lo + 1) : 0;
}

/* The tail of worm wi leaves path index j (its channel is released). */
static void train_release(kci_engine *e, kci_tpart *m, kci_worm *w, const uint32_t *path, int64_t j)
{
    uint32_t c = path[j];
    w->first_held = (uint16_t)(j + 1);
    if (j == 0) {
        e->tchans[c].own = -1;
        if (e->driven) /* driven runs keep their own list of senders */
            return;
        if (e->nparts == 1) /* one thread: straight into the engine's list */
            e->freed_sources[e->nfreed_sources++] = w->src;
        else
            m->freed_sources[m->nfreed_sources++] = w->src;
        return;
    }
    if (e->link_flits)
        add_u64(e, &e->link_flits[c / e->vcs], train_window_flits(w, j));
    train_freed(e, m, c);
}

/* Into the timer wheel of the thread moving it (m): it stays with it. */
static void train_schedule(kci_engine *e, kci_tpart *m, uint32_t wi, uint32_t at)
{
    kci_worm *w = &e->worms[wi];
    int32_t *wheel = &e->wheel[(size_t)(m - e->parts) * KCI_WHEEL];
    w->event_at = at;
    w->wheel_next = wheel[at & (KCI_WHEEL - 1)];
    wheel[at & (KCI_WHEEL - 1)] = (int32_t)wi;
}

/* Worm wi's tail has been delivered: settle its statistics (counted as a
 * whole, not per move) and free its ejection channel. */
static void train_done(kci_engine *e, kci_tpart *m, uint32_t wi)
{
    kci_worm *w = &e->worms[wi];
    int64_t E = (int64_t)w->npath - 1, len = (int64_t)w->len;
    const uint32_t *path = &e->path[(size_t)wi * e->path_cap];
    m->traversals += (uint64_t)len * (uint64_t)(E - 1);
    m->flits_delivered += (uint64_t)len;
    train_freed(e, m, path[E]);
    if (e->nparts == 1)
        e->delivered[e->ndelivered++] = wi;
    else
        m->done[m->ndone++] = wi;
}

/* One move of worm wi whose header was just given a channel (or entered
 * its injection channel). */
static void train_step(kci_engine *e, kci_tpart *m, uint32_t wi)
{
    kci_worm *w = &e->worms[wi];
    const uint32_t *path = &e->path[(size_t)wi * e->path_cap];
    int64_t h = ++w->head, len = (int64_t)w->len;
    int64_t E = w->drain ? (int64_t)w->npath - 1 : INT64_MAX / 2;
    if (h - len >= 0) /* a worm shorter than its path: the tail leaves a channel */
        train_release(e, m, w, path, h - len);
    if (h < E) {
        uint32_t c = path[h]; /* the header's new channel: it asks for the next one from next cycle */
        if (e->nparts == 1) {
            e->parts->arrived_bits[c >> 6] |= UINT64_C(1) << (c & 63);
            e->parts->arrived_summary[c >> 12] |= UINT64_C(1) << (c >> 6 & 63);
        } else {
            m->arrivals_out[m->narrivals_out++] = (kci_tev){kci_part_of_node(e, kci_head_node(e, c)), c};
        }
        return;
    }
    /* The header is delivered: from now on the train moves every cycle and
     * its channels are released one a cycle once the tail reaches them. */
    w->delivered_at = e->now;
    if (len == 1) {
        train_done(e, m, wi);
        return;
    }
    m->draining_change++;
    train_schedule(e, m, wi, e->now + (uint32_t)(w->first_held + len - E));
}

/* A train being delivered reaches its next event: its tail leaves a channel. */
static void train_event(kci_engine *e, kci_tpart *m, uint32_t wi)
{
    kci_worm *w = &e->worms[wi];
    const uint32_t *path = &e->path[(size_t)wi * e->path_cap];
    int64_t E = (int64_t)w->npath - 1, len = (int64_t)w->len;
    int64_t h = E + ((int64_t)e->now - (int64_t)w->delivered_at);
    w->head = (int32_t)h;
    train_release(e, m, w, path, h - len);
    if (h - E == len - 1) {
        m->draining_change--;
        train_done(e, m, wi);
    } else {
        m->drain_next[m->ndrain_next++] = wi;
    }
}

/* Worm wi's record (*w) and path (returned), and the path index whose
 * channel its next move releases (*j; below 0: none); ev: a delivered
 * train's event (train_event), else a header move (train_step). */
static inline const uint32_t *move_target(const kci_engine *e, uint32_t wi, int ev, const kci_worm **w, int64_t *j)
{
    const kci_worm *x = &e->worms[wi];
    int64_t h = ev ? (int64_t)x->npath - 1 + ((int64_t)e->now - (int64_t)x->delivered_at) : (int64_t)x->head + 1;
    *w = x;
    *j = h - (int64_t)x->len;
    return &e->path[(size_t)wi * e->path_cap];
}

/* The stages of prefetching (KCI_PF) for the k-th of n moves in list: a
 * delivered train's event (ev) or a header move. */
KCI_PF_FN void pf_move(const kci_engine *e, const uint32_t *list, uint32_t k, uint32_t n, int ev)
{
    if (k + KCI_PF < n)
        kci_prefetch_worm(e, list[k + KCI_PF]);
    if (k + KCI_PF_PATH < n) {
        const kci_worm *w;
        int64_t j;
        const uint32_t *path = move_target(e, list[k + KCI_PF_PATH], ev, &w, &j);
        if (j >= 0 && j < (int64_t)e->path_cap)
            kci_prefetch(&path[j]);
        if (!ev && w->head + 1 < (int32_t)w->npath)
            kci_prefetch(&path[w->head + 1]);
    }
    if (k + KCI_PF_CHAN < n) {
        const kci_worm *w;
        int64_t j;
        const uint32_t *path = move_target(e, list[k + KCI_PF_CHAN], ev, &w, &j);
        if (j >= 0 && j < (int64_t)w->npath)
            kci_prefetch_w(&e->tchans[path[j]]);
        if (!ev && w->head + 1 < (int32_t)w->npath) { /* the arrival bit, or range, of the header's new channel */
            uint32_t c = path[w->head + 1];
            if (e->nparts == 1)
                kci_prefetch_w(&e->parts[0].arrived_bits[c >> 6]);
            else if (c < e->net->net_channels && e->net->topo == KC_SIM_MESH)
                kci_prefetch(&e->net->next_node[c / e->vcs]);
        }
    }
}

/* Thread p's moves: the worms being delivered whose event is now (first
 * events from its timer wheel, then the rest from its next-cycle list),
 * and its share of the headers that move (a contiguous part of
 * e->movers). Each worm touches its own record and path and the channels it
 * owns; what others need goes into thread p's own lists (kci_tpart). */
void kci_trains_part_move(kci_engine *e, uint32_t p)
{
    kci_tpart *m = &e->parts[p];
    m->traversals = m->flits_delivered = 0;
    m->draining_change = 0;
    m->ndone = m->nfreed_sources = m->narrivals_out = m->nreleased_out = 0; /* the last cycle's were taken in by now */
    int32_t *bucket = &e->wheel[(size_t)p * KCI_WHEEL + (e->now & (KCI_WHEEL - 1))];
    int32_t at = *bucket;
    *bucket = -1;
    uint32_t *cur = m->drain_next, ncur = m->ndrain_next;
    m->drain_next = m->drain_cur;
    m->drain_cur = cur;
    m->ndrain_next = 0;
    while (at >= 0) {
        uint32_t wi = (uint32_t)at;
        at = e->worms[wi].wheel_next;
        if (e->worms[wi].event_at == e->now)
            train_event(e, m, wi);
        else
            train_schedule(e, m, wi, e->worms[wi].event_at); /* a later turn of the wheel */
    }
    for (uint32_t k = 0; k < ncur; k++) {
        if (e->prefetch)
            pf_move(e, cur, k, ncur, 1);
        train_event(e, m, cur[k]);
    }
    uint32_t lo = (uint32_t)((uint64_t)e->nmovers * p / e->nparts), hi = (uint32_t)((uint64_t)e->nmovers * (p + 1) / e->nparts);
    const uint32_t *movers = e->movers + lo;
    for (uint32_t k = 0; k < hi - lo; k++) {
        if (e->prefetch)
            pf_move(e, movers, k, hi - lo, 0);
        train_step(e, m, movers[k]);
    }
}

void kci_trains_move(kci_engine *e)
{
    if (e->ndraining || e->nmovers)
        e->progress = 1;
    e->last_moved = e->now;
    e->ndelivered = 0;
    if (e->pool)
        kci_simthreads_run(e, kci_trains_part_move);
    else
        kci_trains_part_move(e, 0);
    for (uint32_t p = 0; p < e->nparts; p++) {
        kci_tpart *m = &e->parts[p];
        e->link_traversals += m->traversals;
        e->flits_delivered += m->flits_delivered;
        e->ndraining = (uint32_t)((int64_t)e->ndraining + m->draining_change);
    }
    e->nmovers = 0;
    for (uint32_t p = 0; e->nparts > 1 && p < e->nparts; p++) { /* several threads: their lists, in range order */
        kci_tpart *m = &e->parts[p];
        memcpy(e->delivered + e->ndelivered, m->done, m->ndone * sizeof *m->done);
        e->ndelivered += m->ndone;
        if (!e->driven) {
            memcpy(e->freed_sources + e->nfreed_sources, m->freed_sources, m->nfreed_sources * sizeof *m->freed_sources);
            e->nfreed_sources += m->nfreed_sources;
        }
    }
    /* Deliveries in the flit loop's order (its list of worms is by
     * injection): driven runs list them, logged runs (tests) compare them;
     * on several threads it makes the order of the statistics and of freed
     * worm slots the same for every thread count. One thread unlogged
     * skips the sort: its order changes no figure (integer sums, a sorted
     * sample, slots that name no result). */
    uint32_t *f = e->delivered;
    if (e->ndelivered > 1 && (e->driven || e->logging || e->nparts > 1)) {
        kci_waiter *t = e->waiting_next;
        for (uint32_t i = 0; i < e->ndelivered; i++)
            t[i] = (kci_waiter){e->worms[f[i]].seq, f[i], 0};
        kci_sort_waiters(t, e->ndelivered, e->new_headers); /* new_headers: the flit loop's */
        for (uint32_t i = 0; i < e->ndelivered; i++)
            f[i] = t[i].w;
    }
    for (uint32_t i = 0; i < e->ndelivered; i++) {
        kci_worm *w = &e->worms[f[i]];
        uint64_t inw = train_window_delivered(w, (int64_t)w->npath - 1 + (int64_t)w->len - 1);
        e->del_window += inw;
        if (inw)
            e->win_delivered[w->src] += inw;
        kci_engine_finish(e, w, e->now + e->eject_delay);
        w->alive = 0;
        e->free_worms[e->nfree_worms++] = f[i];
        e->nactive--;
    }
    /* this cycle's new headers are put in their ranges' FIFOs at the
     * next allocation (part_scan) */
}

/* Window edges, at the start of a cycle: moves from this cycle on are in
 * (start) or out (end) of the window. */
void kci_trains_window_edge(kci_engine *e, int end)
{
    for (uint32_t i = 0; i < e->worm_cap; i++) {
        kci_worm *w = &e->worms[i];
        if (!w->alive)
            continue;
        int64_t h = train_head(w, (int64_t)e->now - 1);
        if (end)
            w->win_hi = (int32_t)h;
        else
            w->win_lo = (int32_t)h;
    }
}

/* Statistics of the trains still in flight when the run stops: traversals,
 * deliveries and per-link counts so far. */
void kci_trains_settle(kci_engine *e)
{
    for (uint32_t i = 0; i < e->worm_cap; i++) {
        kci_worm *w = &e->worms[i];
        if (!w->alive || w->head < 0)
            continue;
        int64_t h = train_head(w, e->last_moved), len = (int64_t)w->len;
        int64_t E = w->drain ? (int64_t)w->npath - 1 : INT64_MAX / 2;
        w->head = (int32_t)h;
        e->link_traversals += train_traversals(h, len, E - 1);
        if (h >= E) {
            e->flits_delivered += (uint64_t)(h - E + 1);
            uint64_t inw = train_window_delivered(w, h);
            e->del_window += inw;
            e->win_delivered[w->src] += inw;
        }
        if (!e->link_flits)
            continue;
        const uint32_t *path = &e->path[(size_t)i * e->path_cap];
        int64_t last = E - 1 < h ? E - 1 : h;
        for (int64_t j = w->first_held > 1 ? w->first_held : 1; j <= last; j++)
            e->link_flits[path[j] / e->vcs] += train_window_flits(w, j);
    }
}

/* Flits of the live trains in channel buffers, and still at their sources
 * (after trains_settle). */
void kci_trains_flits(const kci_engine *e, uint64_t *buffered, uint64_t *at_source)
{
    for (uint32_t i = 0; i < e->worm_cap; i++) {
        const kci_worm *w = &e->worms[i];
        if (!w->alive)
            continue;
        int64_t h = w->head, len = (int64_t)w->len;
        *at_source += (uint64_t)(len - (h + 1 < len ? h + 1 : len));
        int64_t hi = w->drain ? (int64_t)w->npath - 2 : h;
        if (hi > h)
            hi = h;
        int64_t lo = h - len + 1 > 0 ? h - len + 1 : 0;
        if (hi >= lo)
            *buffered += (uint64_t)(hi - lo + 1);
    }
}

/* The flit loop's list of waiting headers, by key (for find_cycle). */
void kci_trains_waiting(kci_engine *e)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < e->worm_cap; i++)
        if (e->worms[i].alive && e->worms[i].blocked)
            e->waiting[m++] = (kci_waiter){e->worms[i].wait_key, i, 0};
    for (uint32_t p = 0; p < e->nparts; p++)
        for (uint32_t i = e->parts[p].first_head; i < e->parts[p].first_tail; i++)
            e->waiting[m++] = e->parts[p].first_tries[i];
    kci_sort_waiters(e->waiting, m, e->new_headers);
    e->nwaiting = m;
}
