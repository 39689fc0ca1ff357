/* The engine's state and what both loops share: its arrays (set up, grown
 * and freed from one list each, which the memory estimate adds up, so the
 * estimate counts what the engine allocates), injection of queued messages
 * onto free injection channels (step 2 of a cycle), and one cycle with its
 * watchdog. The record of a delivered message is deliver.c's, below both
 * loops. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* The engine's arrays by size, each list read by the allocation, by
 * kci_engine_free and by the byte counts below, so that none of them can
 * leave an array out. X(field): an entry per node (KCI_NODE_ZEROED: zeroed
 * at the start). Y(field, entries per worm slot): the worm slots' arrays of
 * every run (KCI_WORM_ARRAYS), of the worm-level loop (KCI_TRAIN_ARRAYS), of
 * each of its node ranges (KCI_PART_ARRAYS: a worm releases at most two
 * channels a cycle, one as its tail moves and its ejection channel, and
 * frees its injection channel once) and of ranges that are not alone
 * (KCI_SPLIT_ARRAYS). */
#define KCI_NODE_ARRAYS(X)                                                                                    \
    X(queue_head) X(queue_tail) X(senders) X(gen.next_msg_time) X(gen.due_nodes) X(pending)                    \
    X(fresh_queues)
#define KCI_NODE_ZEROED(X) X(win_generated) X(win_delivered) X(queue_len) X(queue_len_start) X(queue_len_low)
#define KCI_WORM_ARRAYS(Y, pathlen)                                                                           \
    Y(worms, 1) Y(path, pathlen) Y(free_worms, 1) Y(active, 1) Y(active_next, 1) Y(waiting, 1)                \
    Y(new_headers, 1) Y(waiting_next, 1)
#define KCI_TRAIN_ARRAYS(Y) Y(movers, 1) Y(delivered, 1)
#define KCI_PART_ARRAYS(Y)                                                                                    \
    Y(first_tries, 1) Y(granted, 1) Y(sort_tmp, 1) Y(woken, 1) Y(released, 2) Y(drain_next, 1)                \
    Y(drain_cur, 1) Y(done, 1) Y(freed_sources, 1)
#define KCI_SPLIT_ARRAYS(Y) Y(arrivals_out, 1) Y(released_out, 2)

/* Bytes of one entry of an array field of the engine, of a node range. */
#define KCI_ESIZE(f) sizeof(((kci_engine *)0)->f[0])
#define KCI_PSIZE(f) sizeof(((kci_tpart *)0)->f[0])

void kci_engine_free(kci_engine *e)
{
    kci_simthreads_stop(e);
    kci_feed_stop(e);
#define KCI_FREE(f) free(e->f);
#define KCI_FREE_W(f, m) free(e->f);
#define KCI_FREE_P(f, m) free(t->f);
    KCI_NODE_ARRAYS(KCI_FREE)
    KCI_NODE_ZEROED(KCI_FREE)
    KCI_WORM_ARRAYS(KCI_FREE_W, 0)
    KCI_TRAIN_ARRAYS(KCI_FREE_W)
    for (uint32_t p = 0; e->parts && p < e->nparts; p++) {
        kci_tpart *t = &e->parts[p];
        KCI_PART_ARRAYS(KCI_FREE_P)
        KCI_SPLIT_ARRAYS(KCI_FREE_P)
        free(t->waits);
        free(t->arrived_bits);
        free(t->arrived_summary);
    }
    free(e->parts);
    free(e->chans);
    free(e->ready_ring);
    free(e->link_busy);
    free(e->own);
    free(e->book);
    free(e->hops);
    free(e->wake);
    free(e->rings);
    free(e->gens);
    free(e->ring_free);
    free(e->late);
    kci_wheel_free(&e->wake_wheel);
    kci_wheel_free(&e->release_wheel);
    free(e->due_bits);
    free(e->due_next_bits);
    free(e->header_key);
    free(e->untried_head);
    free(e->untried_next);
    free(e->blocked_head);
    free(e->blocked_next);
    free(e->order_list);
    free(e->touched);
    free(e->split_first);
    free(e->split_touched);
    free(e->touch_bits);
    free(e->order_bits);
    free(e->order_summary);
    free(e->msgs);
    kci_wheel_free(&e->gen.cal);
    free(e->sort_tmp);
    free(e->log);
    free(e->in_senders);
    free(e->tchans);
    free(e->wheel);
    free(e->freed_sources);
    kc_simsample_free(&e->latency);
    kci_pipe_free(e);
}

/* Resizes array `ptr` to n elements, or returns -1 from the enclosing
 * function (the old array stays valid and owned by the engine). */
#define KCI_GROW(ptr, n)                                                                                      \
    do {                                                                                                      \
        if (KCI_RESIZE((ptr), (n)))                                                                           \
            return -1;                                                                                        \
    } while (0)

int kci_engine_grow_worms(kci_engine *e)
{
    uint32_t cap = e->worm_cap ? 2 * e->worm_cap : 1024;
#define KCI_GROW_W(f, m) KCI_GROW(e->f, (size_t)cap * (m));
#define KCI_GROW_P(f, m) KCI_GROW(t->f, (size_t)cap * (m));
    KCI_WORM_ARRAYS(KCI_GROW_W, e->path_cap)
    kci_sim_huge(e->worms, cap * sizeof *e->worms);
    kci_sim_huge(e->path, (size_t)cap * e->path_cap * sizeof *e->path);
    if (!e->trains) {
        KCI_GROW(e->header_key, cap);
        KCI_GROW(e->untried_next, cap);
        KCI_GROW(e->blocked_next, cap);
        KCI_GROW(e->order_list, cap);
        if (e->nparts > 1)
            KCI_GROW(e->split_first, cap);
    }
    if (e->stream) {
        KCI_GROW(e->hops, (size_t)cap * e->path_cap);
        KCI_GROW(e->wake, cap);
        kci_sim_huge(e->hops, (size_t)cap * e->path_cap * sizeof *e->hops);
        KCI_GROW(e->due_bits, (cap + 63) / 64);
        KCI_GROW(e->due_next_bits, (cap + 63) / 64);
        for (uint32_t k = (e->worm_cap + 63) / 64; k < (cap + 63) / 64; k++)
            e->due_bits[k] = e->due_next_bits[k] = 0; /* caps are multiples of 64: no word is split */
        for (uint32_t i = e->worm_cap; i < cap; i++) /* a slot's wheel entries outlive its worm */
            e->wake[i] = (kci_wake){UINT32_MAX, 0};
    }
    if (e->trains) {
        KCI_TRAIN_ARRAYS(KCI_GROW_W)
        for (uint32_t r = 0; r < e->nparts; r++) {
            kci_tpart *t = &e->parts[r];
            KCI_PART_ARRAYS(KCI_GROW_P)
            if (e->nparts > 1) {
                KCI_SPLIT_ARRAYS(KCI_GROW_P)
            }
        }
        for (uint32_t i = e->worm_cap; i < cap; i++) {
            e->worms[i].alive = 0;
            e->worms[i].wait_gen = 0;
        }
    }
    for (uint32_t i = cap; i > e->worm_cap; i--)
        e->free_worms[e->nfree_worms++] = i - 1;
    e->worm_cap = cap;
    return 0;
}

uint64_t kci_sim_fixed_bytes(const kci_simshape *s, int vc_independent, int trains, int parts)
{
    uint64_t np = (uint64_t)(parts > 1 ? parts : 1);
    uint64_t net_channels = s->nodes * (uint64_t)s->ports * (uint64_t)s->vcs;
    uint64_t channels = net_channels + s->nodes * (uint64_t)(s->inj + s->ej);
    uint64_t links = net_channels / (uint64_t)s->vcs;
    /* the stream loop (where the worm-level one does not apply): the
     * owner, and the worms that do not stream keep the ready times of
     * their buffered flits in blocks of a pool, counted as what the flit
     * loop held (a ready time per buffer slot; the flits of a general worm
     * are a small part of those buffered); trains: owner and wait list,
     * and a bit of the arrivals map */
    uint64_t per_channel = trains ? KCI_ESIZE(tchans)
                                  : KCI_ESIZE(own) + (uint64_t)s->depth * KCI_ESIZE(rings) + KCI_ESIZE(gens);
    /* the maps that put new headers in channel order (flit and stream
     * loops: and the untried headers' lists, a slot a cycle of R + S + W) */
    uint64_t bitmaps = trains ? np * ((channels + 63) / 64 * KCI_PSIZE(arrived_bits) +
                                      (channels + 4095) / 4096 * KCI_PSIZE(arrived_summary))
                              : (channels + 63) / 64 * KCI_ESIZE(order_bits) +
                                    (channels + 4095) / 4096 * KCI_ESIZE(order_summary) +
                                    (KCI_SIM_DELAY_MAX * 3 + 2) * KCI_ESIZE(untried_head);
    /* the per-node lists (flit and stream loops: the refused headers'
     * lists and the touched routers), and per injection channel the sort's
     * scratch and the released sources */
#define KCI_ADD(f) +KCI_ESIZE(f)
    uint64_t per_node = 0 KCI_NODE_ARRAYS(KCI_ADD) KCI_NODE_ZEROED(KCI_ADD) +
                        (trains ? 0 : KCI_ESIZE(blocked_head) + KCI_ESIZE(touched) + 1) + /* the touch bit, rounded up to a byte */
                        (!trains && np > 1 ? KCI_ESIZE(split_touched) : 0);
    per_node += (uint64_t)s->inj * (KCI_ESIZE(sort_tmp) + KCI_ESIZE(freed_sources));
    uint64_t fixed = KCI_CAL * KCI_ESIZE(gen.cal.head) + kci_calendar_chunks(s->nodes) * KCI_ESIZE(gen.cal.chunks) +
                     (trains ? np * (KCI_WHEEL * KCI_ESIZE(wheel) + sizeof(kci_tpart))
                             : 2 * KCI_SWHEEL * (KCI_ESIZE(wake_wheel.head) + KCI_ESIZE(wake_wheel.chunks)));
    /* shared VC links: the mark; the stream loop's booking holds it (the
     * flit loop's is smaller) */
    uint64_t link_busy = s->vcs > 1 && !vc_independent ? (links + 1) * (trains ? KCI_ESIZE(link_busy) : KCI_ESIZE(book))
                                                       : 0;
    return channels * per_channel + bitmaps + link_busy + s->nodes * per_node + fixed;
}

uint64_t kci_sim_worm_bytes(const kci_simshape *s, int trains, int adaptive, int parts)
{
    /* the worm slots' arrays (a path holds max_hops + 2 channels); trains:
     * a wait entry for every channel a blocked header may ask for (a
     * port's VCs, or all ports' for adaptive routings) */
#define KCI_ADD_W(f, m) +(uint64_t)(m)*KCI_ESIZE(f)
#define KCI_ADD_P(f, m) +(uint64_t)(m)*KCI_PSIZE(f)
    uint64_t path = (uint64_t)s->max_hops + 2;
    uint64_t b = 0 KCI_WORM_ARRAYS(KCI_ADD_W, path);
    if (!trains) /* the stream loop: hop records, wake-up, entries in the
                  * wheels (an item and a cycle; about three a worm, with
                  * the stale ones), the due bitmaps (the ready-time blocks
                  * are counted per channel) */
        b += path * KCI_ESIZE(hops) + KCI_ESIZE(wake) + 3 * 2 * KCI_ESIZE(wake_wheel.chunks->item) + 1 +
             KCI_ESIZE(ring_free) + KCI_ESIZE(header_key) + KCI_ESIZE(untried_next) + KCI_ESIZE(blocked_next) +
             KCI_ESIZE(order_list) + (parts > 1 ? KCI_ESIZE(split_first) : 0);
    if (trains) {
        uint64_t np = (uint64_t)(parts > 1 ? parts : 1);
        uint64_t cand = (uint64_t)(adaptive ? s->ports : 1) * (uint64_t)s->vcs;
        if (cand < (uint64_t)s->ej)
            cand = (uint64_t)s->ej;
        if (cand > KC_SIMROUTE_MAX)
            cand = KC_SIMROUTE_MAX;
        b += 0 KCI_TRAIN_ARRAYS(KCI_ADD_W);
        b += np * (0 KCI_PART_ARRAYS(KCI_ADD_P));
        if (parts > 1)
            b += np * (0 KCI_SPLIT_ARRAYS(KCI_ADD_P));
        b += cand * KCI_PSIZE(waits);
    }
    return b;
}

uint64_t kci_sim_queue_entry_bytes(void) { return KCI_ESIZE(msgs); }

/* Runs: the sources that may inject this cycle, in node order, into
 * e->pending: those whose queue was empty until this cycle's generation,
 * and those whose injection channel was released last cycle. Any other
 * source with queued messages had every injection channel busy after the
 * last injection and still has (channels are released only by movement),
 * so a scan of every source with a queue would do nothing for it. */
static void listed_sources(kci_engine *e)
{
    kci_sort_nodes(e, e->freed_sources, e->nfreed_sources);
    uint32_t a = 0, b = 0, m = 0;
    while (a < e->nfresh_queues || b < e->nfreed_sources) {
        uint32_t x;
        if (b == e->nfreed_sources || (a < e->nfresh_queues && e->fresh_queues[a] <= e->freed_sources[b])) {
            x = e->fresh_queues[a++];
        } else {
            x = e->freed_sources[b++];
        }
        if (!m || e->pending[m - 1] != x)
            e->pending[m++] = x;
    }
    e->npending = m;
    e->nfresh_queues = e->nfreed_sources = 0;
}

/* The sources that may inject this cycle, in node order: driven runs,
 * their list of senders; runs, listed_sources. */
static uint32_t inject_list(kci_engine *e, uint32_t **list)
{
    if (e->driven) {
        *list = e->senders;
        return e->nsenders;
    }
    listed_sources(e);
    *list = e->pending;
    return e->npending;
}

/* The state the injection of list[i] touches, a few sources ahead (sources
 * are far apart): their queue and first injection channel, then the
 * message at the head of the queue, and the worm slot a few injections
 * ahead. */
KCI_PF_FN void inject_prefetch(const kci_engine *e, const uint32_t *list, uint32_t i, uint32_t nlist)
{
    const kc_simnet *net = e->net;
    if (i + 12 < nlist) {
        uint32_t y = list[i + 12];
        kci_prefetch(&e->queue_head[y]);
        kci_prefetch_w(&e->queue_len[y]);
        uint32_t c = kc_simnet_injch(net, y, 0);
        kci_prefetch(e->trains ? (const void *)&e->tchans[c] : e->stream ? (const void *)&e->own[c] : (const void *)&e->chans[c]);
    }
    if (i + 6 < nlist && e->queue_head[list[i + 6]] >= 0)
        kci_prefetch(&e->msgs[e->queue_head[list[i + 6]]]);
    if (e->nfree_worms > 6) {
        uint32_t wi = e->free_worms[e->nfree_worms - 7];
        kci_prefetch_w(&e->worms[wi]); /* the record, and its next line when it straddles two */
        kci_prefetch_w((const char *)&e->worms[wi] + KCI_CACHE_LINE - 1);
        kci_prefetch_w(&e->path[(size_t)wi * e->path_cap]);
    }
}

/* The message at the head of x's queue leaves it as worm wi on its free
 * injection channel c. */
static inline void inject_one(kci_engine *e, uint32_t x, uint32_t c, uint32_t wi)
{
    kci_worm *w = &e->worms[wi];
    kci_dequeue(e, x, w);
    w->npath = 1;
    w->first_held = 0;
    w->stalled = 0;
    e->path[(size_t)wi * e->path_cap] = c;
    if (e->trains) {
        /* its first flit enters the injection channel this cycle */
        e->tchans[c].own = (int32_t)wi;
        w->drain = w->blocked = w->woken = 0;
        w->alive = 1;
        w->head = -1;
        w->win_lo = e->in_window ? -1 : KCI_FAR;
        w->win_hi = KCI_FAR;
        w->seq = e->next_seq++;
        e->movers[e->nmovers++] = wi;
        e->nactive++;
    } else {
        w->seq = e->next_seq++;
        if (e->stream) /* its entry first: taking the channel marks it due */
            kci_stream_list(e, wi);
        else
            e->active[e->nactive++] = wi;
        kci_take_channel(e, c, wi, 0);
        w->head = -1; /* stream loop: the header is still at the source */
        w->general = w->demote = w->packed = 0;
        w->unsettled = e->now;
        w->release_at = UINT32_MAX;
    }
}

/* After the injections: driven runs' senders keep only those with
 * messages still queued (runs list their sources afresh each cycle). */
static void inject_tidy(kci_engine *e)
{
    uint32_t keep = 0;
    if (!e->driven)
        return;
    for (uint32_t i = 0; i < e->nsenders; i++) {
        uint32_t x = e->senders[i];
        if (e->queue_head[x] >= 0)
            e->senders[keep++] = x;
        else
            e->in_senders[x] = 0;
    }
    e->nsenders = keep;
}

/* Step 2 of a cycle: each listed source, in node order, puts the messages
 * at the head of its queue on its free injection channels. Cost: the
 * listed sources times inj. */
static void inject(kci_engine *e)
{
    const kc_simnet *net = e->net;
    uint32_t *list, nlist = inject_list(e, &list);
    for (uint32_t i = 0; i < nlist; i++) {
        uint32_t x = list[i];
        if (e->prefetch)
            inject_prefetch(e, list, i, nlist);
        for (int j = 0; j < net->inj && e->queue_head[x] >= 0; j++) {
            uint32_t c = kc_simnet_injch(net, x, j);
            if (kci_owner(e, c) >= 0)
                continue;
            if (!e->nfree_worms && kci_engine_grow_worms(e)) {
                e->nomem = 1;
                return;
            }
            inject_one(e, x, c, e->free_worms[--e->nfree_worms]);
        }
    }
    inject_tidy(e);
}

/* The scalars of a run: its timing, sizes, prefetching, seed. */
static void init_scalars(kci_engine *e, const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *tr,
                         const kc_simconfig *cfg, int trains, int force_pf)
{
    memset(e, 0, sizeof *e);
    e->trains = trains;
    e->net = net;
    e->ejbase = kc_simnet_ejch(net, 0, 0);
    e->route = route;
    e->traffic = tr;
    e->cfg = cfg;
    e->msg_len = (uint32_t)cfg->msg_flits;
    e->depth = (uint32_t)net->depth;
    e->vcs = (uint32_t)net->vcs;
    e->vc_independent = kc_sim_vcs_independent(net, cfg);
    e->net_delay = (uint32_t)(cfg->switch_delay + cfg->link_latency);
    e->eject_delay = (uint32_t)(cfg->switch_delay + 1);
    e->route_delay = (uint32_t)cfg->route_delay;
    e->path_cap = (uint32_t)net->max_hops + 2;
    /* channel records, neighbour table and per-source state against the
     * 2-core machine's 1 MiB of L2: on smaller networks everything is a
     * cache hit and the prefetching stages only cost instructions (about
     * 25 % on the 8-cube) */
    e->prefetch = force_pf || (uint64_t)net->channels * 8 + (uint64_t)net->nodes * 80 > KCI_PF_MIN_BYTES;
    for (int d = 0, w = 1; d < net->n && d < KC_SIMNET_MAX_N; d++, w *= net->side[d - 1])
        e->stride[d] = (uint32_t)w;
    e->msg_free = -1;
    e->last_arrival = 0;
    kc_simsample_init(&e->latency);
    kc_rng_seed(&e->gen.rng, cfg->seed);
}

/* The worm-level loop's channels, node ranges and timer wheels; 0 when out
 * of memory. */
static int init_trains(kci_engine *e, uint32_t nt)
{
    const kc_simnet *net = e->net;
    size_t ch = net->channels;
    e->tchans = malloc(ch * sizeof *e->tchans);
    e->freed_sources = malloc((size_t)net->nodes * (size_t)net->inj * sizeof *e->freed_sources);
    e->wheel = malloc((size_t)nt * KCI_WHEEL * sizeof *e->wheel);
    e->nparts = nt;
    for (uint32_t p = 0; p < nt; p++) {
        e->part_node[p] = (uint32_t)((uint64_t)net->nodes * p / nt);
        e->part_net_chan[p] = (uint32_t)((uint64_t)e->part_node[p] * (net->net_channels / net->nodes));
        e->part_ej_chan[p] = net->net_channels + net->nodes * (uint32_t)net->inj + e->part_node[p] * (uint32_t)net->ej;
    }
    e->parts = calloc(nt, sizeof *e->parts);
    int bits_ok = e->parts != NULL;
    for (uint32_t p = 0; bits_ok && p < nt; p++) {
        e->parts[p].waits_free = -1;
        e->parts[p].arrived_bits = calloc((ch + 63) / 64, sizeof *e->parts[p].arrived_bits);
        e->parts[p].arrived_summary = calloc((ch + 4095) / 4096, sizeof *e->parts[p].arrived_summary);
        bits_ok = e->parts[p].arrived_bits && e->parts[p].arrived_summary;
    }
    if (!e->tchans || !e->freed_sources || !e->wheel || !bits_ok)
        return 0;
    kci_sim_huge(e->tchans, ch * sizeof *e->tchans);
    for (uint32_t p = 0; p < nt; p++)
        kci_sim_huge(e->parts[p].arrived_bits, (ch + 63) / 64 * sizeof *e->parts[p].arrived_bits);
    for (size_t c = 0; c < ch; c++)
        e->tchans[c].own = e->tchans[c].wait = -1;
    for (size_t i = 0; i < (size_t)nt * KCI_WHEEL; i++)
        e->wheel[i] = -1;
    return 1;
}

/* The flit and stream loops' lists of waiting headers: untried (a slot
 * for every cycle from a header's arrival to its first try; the bitmap
 * that orders them) and refused (by router; the routers touched by a
 * release); and the sources whose injection channel was released; 0
 * when out of memory. */
static int init_headers(kci_engine *e)
{
    size_t ch = e->net->channels, nodes = e->net->nodes;
    e->untried_slots = e->net_delay + e->route_delay + 2;
    if (!(e->untried_head = malloc(e->untried_slots * sizeof *e->untried_head)) ||
        !(e->order_bits = calloc((ch + 63) / 64, sizeof *e->order_bits)) ||
        !(e->order_summary = calloc((ch + 4095) / 4096, sizeof *e->order_summary)) ||
        !(e->blocked_head = malloc(nodes * sizeof *e->blocked_head)) ||
        !(e->touched = malloc(nodes * sizeof *e->touched)) || !(e->touch_bits = calloc((nodes + 63) / 64, sizeof *e->touch_bits)) ||
        !(e->freed_sources = malloc(nodes * (size_t)e->net->inj * sizeof *e->freed_sources)))
        return 0;
    for (uint32_t s = 0; s < e->untried_slots; s++)
        e->untried_head[s] = -1;
    for (size_t v = 0; v < nodes; v++)
        e->blocked_head[v] = -1;
    return 1;
}

/* The stream loop's node ranges (nt > 1): the allocation's per-range
 * lists; 0 when out of memory. */
static int init_split(kci_engine *e, uint32_t nt)
{
    e->nparts = nt;
    for (uint32_t p = 0; p < nt; p++)
        e->part_node[p] = (uint32_t)((uint64_t)e->net->nodes * p / nt);
    return (e->split_touched = malloc((size_t)e->net->nodes * sizeof *e->split_touched)) != NULL;
}

/* The channels of either loop, the deeper buffers' rings and the shared
 * links' marks; 0 when out of memory. */
static int init_channels(kci_engine *e, uint32_t nt)
{
    const kc_simnet *net = e->net;
    size_t ch = net->channels, links = net->net_channels / (uint32_t)net->vcs;
    if (e->trains) {
        if (!init_trains(e, nt))
            return 0;
    } else if (e->stream) {
        if (!(e->own = malloc(ch * sizeof *e->own)) || kci_wheel_init(&e->wake_wheel, KCI_SWHEEL, KCI_SWHEEL, 1) ||
            kci_wheel_init(&e->release_wheel, KCI_SWHEEL, KCI_SWHEEL, 1))
            return 0;
        kci_sim_huge(e->own, ch * sizeof *e->own);
        for (size_t c = 0; c < ch; c++)
            e->own[c] = -1;
        if (nt > 1 && !init_split(e, nt))
            return 0;
    } else {
        e->chans = calloc(ch, sizeof *e->chans);
        if (!e->chans)
            return 0;
        kci_sim_huge(e->chans, ch * sizeof *e->chans);
        for (size_t c = 0; c < ch; c++)
            e->chans[c].owner = -1;
    }
    if (!e->trains && !init_headers(e))
        return 0;
    if (e->depth > 1 && !e->stream && !(e->ready_ring = calloc(ch * e->depth, sizeof *e->ready_ring)))
        return 0;
    int shared = e->vcs > 1 && !e->vc_independent;
    if (shared && !e->stream && !(e->link_busy = calloc(links + 1, sizeof *e->link_busy)))
        return 0;
    if (shared && e->stream) {
        if (!(e->book = calloc(links + 1, sizeof *e->book)))
            return 0;
        kci_sim_huge(e->book, (links + 1) * sizeof *e->book);
    }
    return 1;
}

/* The sources' arrays (KCI_NODE_ARRAYS and friends); 0 when out of memory. */
static int init_sources(kci_engine *e)
{
    const kc_simnet *net = e->net;
    int ok = 1;
#define KCI_ALLOC(f) ok &= (e->f = malloc(net->nodes * sizeof *e->f)) != NULL;
#define KCI_ZALLOC(f) ok &= (e->f = calloc(net->nodes, sizeof *e->f)) != NULL;
    KCI_NODE_ARRAYS(KCI_ALLOC)
    KCI_NODE_ZEROED(KCI_ZALLOC)
    ok &= kci_wheel_init(&e->gen.cal, KCI_CAL, kci_calendar_chunks(net->nodes), 0) == 0;
    ok &= (e->sort_tmp = malloc((size_t)net->nodes * (size_t)net->inj * sizeof *e->sort_tmp)) != NULL;
    if (!ok)
        return 0;
    /* per-source state read at random (generation and delivery) */
    kci_sim_huge(e->queue_head, net->nodes * sizeof *e->queue_head);
    kci_sim_huge(e->queue_tail, net->nodes * sizeof *e->queue_tail);
    kci_sim_huge(e->gen.next_msg_time, net->nodes * sizeof *e->gen.next_msg_time);
    kci_sim_huge(e->win_generated, net->nodes * sizeof *e->win_generated);
    kci_sim_huge(e->win_delivered, net->nodes * sizeof *e->win_delivered);
    kci_sim_huge(e->queue_len, net->nodes * sizeof *e->queue_len);
    for (uint32_t x = 0; x < net->nodes; x++) {
        e->queue_head[x] = e->queue_tail[x] = -1;
        const kc_simtraffic *t = e->traffic; /* driven runs: senders as messages come */
        if (t && (t->uniform ? !t->weight || t->weight[x] : t->start[x + 1] > t->start[x]))
            e->senders[e->nsenders++] = x;
    }
    return 1;
}

kc_status kci_engine_init(kci_engine *e, const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *tr,
                          const kc_simconfig *cfg, int flit_loop, uint32_t nparts, int force_pf, kc_err *err)
{
    int pipe = kc_sim_pipeline(cfg, route);
    init_scalars(e, net, route, tr, cfg, !flit_loop && !pipe && kci_sim_trains(net, cfg), force_pf);
    e->stream = !flit_loop && !pipe && !e->trains;
    if (!init_channels(e, nparts) || !init_sources(e) || kci_engine_grow_worms(e))
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    kci_calendar_init(e);
    return pipe ? kci_pipe_init(e, err) : KC_OK;
}

int kci_engine_cycle(kci_engine *e, int64_t *idle)
{
    if (!e->pipe)
        inject(e);
    e->progress = 0;
    if (e->pipe) {
        kci_pipe_cycle(e);
    } else if (e->trains) {
        kci_trains_allocate(e);
        kci_trains_move(e);
    } else {
        kci_flit_allocate(e);
        if (e->stream)
            kci_stream_move(e);
        else
            kci_flit_move(e);
    }
    if (e->nomem)
        return 1;
    if (!e->progress && e->nactive > 0) {
        /* a header may legitimately sit R cycles, a flit S + W */
        if (++*idle >= e->cfg->watchdog + (int64_t)e->route_delay + (int64_t)e->net_delay)
            return 1;
    } else {
        *idle = 0;
    }
    return 0;
}
