/* The flit loop: the wormhole router engine flit by flit, for any model.
 *
 * It keeps flat arrays indexed by channel id (owner worm, flits buffered,
 * flits that have entered, a ring of ready times: the fields a flit's move
 * reads packed in one 16-byte record, so a hop touches one cache line per
 * channel) and by worm (the path of channels it holds, oldest first). A
 * cycle does, in order:
 *   1. generation      new messages join their node's FIFO source queue
 *                      (calendar.c);
 *   2. injection       a queued message takes a free injection channel
 *                      (engine.c);
 *   3. allocation      waiting headers, oldest arrival first, take the first
 *                      free channel their routing function lists;
 *   4. movement        each active worm, head end first, moves at most one
 *                      flit into each channel it holds (space freed by the
 *                      flit ahead in the same cycle is reused, so a worm
 *                      streams one flit per cycle); a physical link carries
 *                      one flit per cycle.
 * The worm-level loop (trains.c) does the same four steps with O(1) work
 * per moving worm where the model keeps worms rigid. Only moving or active
 * worms, headers that may get a channel, sources whose next message is due
 * and sources that may inject are visited; nothing is allocated per flit.
 * Bernoulli injection still draws for every source every cycle. The
 * allocation here serves the stream loop too: a cycle tries the headers
 * whose first try it is and, at each router where a channel was
 * released, the headers refused there before, and no others (they would
 * be refused again). */
#include "engine.h"

/* The cycle the oldest flit buffered in channel c may leave it. */
static inline uint32_t front_ready(const kci_engine *e, uint32_t c)
{
    return e->depth == 1 ? e->chans[c].rt0 : e->ready_ring[(size_t)c * e->depth + e->chans[c].rhead];
}


/* The header of worm wi, key `key`, tries the channels its routing
 * function lists, first free first: 1 when it got one. */
static int try_header(kci_engine *e, uint32_t wi, uint64_t key, uint32_t *cand)
{
    uint32_t in = (uint32_t)key;
    uint32_t node = kci_head_node(e, in);
    kci_worm *w = &e->worms[wi];
    int nc = kc_simroute_candidates(e->route, e->net, node, w->dst, in, cand);
    for (int j = 0; j < nc; j++) {
        uint32_t c = cand[j];
        if (kci_owner(e, c) < 0) {
            kci_take_channel(e, c, wi, w->npath);
            e->path[(size_t)wi * e->path_cap + w->npath++] = c;
            w->stalled = 0;
            e->progress = 1;
            return 1;
        }
    }
    return 0;
}

/* Router v's refused headers, oldest first, try again (a channel leaving
 * it was released last cycle); those that get one leave its list. */
static void retry_router(kci_engine *e, uint32_t v, uint32_t *cand)
{
    int32_t *link = &e->blocked_head[v];
    while (*link >= 0) {
        uint32_t wi = (uint32_t)*link;
        if (try_header(e, wi, e->header_key[wi], cand))
            *link = e->blocked_next[wi];
        else
            link = &e->blocked_next[wi];
    }
}

/* What the retries at the i-th touched router read, ahead of them: its
 * list head and channels' owner entries KCI_PF_CHAN routers ahead, then
 * (the head in cache) the first refused header's key and worm. No effect
 * on the state. */
KCI_PF_FN void retry_prefetch(const kci_engine *e, uint32_t i)
{
    if (i + KCI_PF_CHAN < e->ntouched) {
        uint32_t v = e->touched[i + KCI_PF_CHAN], width = (uint32_t)e->net->ports * e->vcs;
        const int32_t *out = &e->own[(size_t)v * width];
        kci_prefetch(&e->blocked_head[v]);
        kci_prefetch(out);
        kci_prefetch(out + width - 1);
    }
    if (i + 2 < e->ntouched) {
        int32_t wi = e->blocked_head[e->touched[i + 2]];
        if (wi >= 0) {
            kci_prefetch(&e->header_key[wi]);
            kci_prefetch_worm(e, (uint32_t)wi);
        }
    }
}

/* Header wi, refused at its first try, joins the end of its router's
 * list: it is younger than every header there (they were ready at least a
 * cycle earlier). O(headers refused there). */
static void block(kci_engine *e, uint32_t wi)
{
    int32_t *link = &e->blocked_head[kci_head_node(e, (uint32_t)e->header_key[wi])];
    while (*link >= 0)
        link = &e->blocked_next[*link];
    *link = (int32_t)wi;
    e->blocked_next[wi] = -1;
}

/* The state the first try of the header in channel c reads, ahead of
 * it: the channel's owner entry (how the try finds the worm) and the
 * owner entries of the network channels leaving the router it leads to
 * (its candidates). No effect on the state. */
KCI_PF_FN void first_try_prefetch(const kci_engine *e, uint32_t c)
{
    const kc_simnet *net = e->net;
    const int32_t *out = &e->own[(size_t)kci_head_node(e, c) * (uint32_t)net->ports * e->vcs];
    kci_prefetch(&e->own[c]);
    kci_prefetch(out);
    kci_prefetch(out + (size_t)net->ports * e->vcs - 1);
}

/* The channels of the headers whose first try is this cycle, ascending,
 * into list (their cycle's list is emptied); returns their count. They
 * share a ready cycle, so that is the order of their keys. O(headers +
 * summary words between the first and last). */
static uint32_t first_try_order(kci_engine *e, uint32_t *list)
{
    uint32_t slot = e->now % e->untried_slots, lo = UINT32_MAX, hi = 0, n = 0;
    int32_t wi = e->untried_head[slot];
    if (wi < 0)
        return 0;
    e->untried_head[slot] = -1;
    for (; wi >= 0; wi = e->untried_next[wi]) {
        uint32_t c = (uint32_t)e->header_key[wi], s = c >> 12;
        e->order_bits[c >> 6] |= UINT64_C(1) << (c & 63);
        e->order_summary[s] |= UINT64_C(1) << (c >> 6 & 63);
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
    }
    for (uint32_t s = lo; s <= hi; s++) {
        for (uint64_t sm = e->order_summary[s]; sm; sm &= sm - 1) {
            uint32_t word = s << 6 | (uint32_t)__builtin_ctzll(sm);
            for (uint64_t b = e->order_bits[word]; b; b &= b - 1)
                list[n++] = word << 6 | (uint32_t)__builtin_ctzll(b);
            e->order_bits[word] = 0;
        }
        e->order_summary[s] = 0;
    }
    return n;
}

/* The headers whose first try is this cycle, in channel order (the worm
 * is the channel's owner); a refused one joins its router's list. */
static void first_tries(kci_engine *e, uint32_t *cand)
{
    uint32_t *list = e->order_list, n = first_try_order(e, list);
    int pf = kci_stream_prefetch(e);
    for (uint32_t i = 0; i < n; i++) {
        if (pf && i + KCI_PF_CHAN < n)
            first_try_prefetch(e, list[i + KCI_PF_CHAN]);
        if (pf && i + 2 < n) /* its owner entry is in cache by now: the worm's destination */
            kci_prefetch_worm(e, (uint32_t)e->own[list[i + 2]]);
        uint32_t owner = (uint32_t)kci_owner(e, list[i]);
        if (!try_header(e, owner, e->header_key[owner], cand))
            block(e, owner);
    }
}

/* Headers at different routers ask for different channels, so only the
 * order within a router matters: there, the refused headers (older) go
 * before the first tries, each in key order. A refused header is retried
 * only after a channel at its router was released: until then every
 * channel it asked for is still owned. */
void kci_flit_allocate(kci_engine *e)
{
    uint32_t cand[KC_SIMROUTE_MAX];
    int pf = kci_stream_prefetch(e);
    for (uint32_t i = 0; i < e->ntouched; i++) {
        uint32_t v = e->touched[i];
        if (pf)
            retry_prefetch(e, i);
        e->touch_bits[v >> 6] &= ~(UINT64_C(1) << (v & 63));
        retry_router(e, v, cand);
    }
    e->ntouched = 0;
    first_tries(e, cand);
}

/* Flit number seq of worm wi enters the buffer of network or injection
 * channel c this cycle: its ready time joins the ring, and a header is
 * listed for its first try. */
static inline void buffer_flit(kci_engine *e, uint32_t wi, uint32_t c, uint32_t seq)
{
    kci_chan *cc = &e->chans[c];
    uint32_t depth = e->depth;
    if (cc->cnt >= depth)
        e->overflow = 1;
    uint32_t ready = e->now + (c < e->net->net_channels ? e->net_delay : 1);
    if (depth == 1) {
        cc->rt0 = ready;
    } else {
        uint32_t slot = (uint32_t)cc->rhead + cc->cnt;
        if (slot >= depth)
            slot -= depth;
        e->ready_ring[(size_t)c * depth + slot] = ready;
    }
    cc->cnt++;
    if (seq == 0)
        kci_untried_add(e, wi, c, ready);
}

/* Worm w moved nothing this cycle. When its header waits for a channel and
 * every channel it holds is full, no flit of it can move before the header
 * is allocated (kci_flit_allocate clears the mark), so movement may skip
 * it till then. */
static void mark_stalled(kci_engine *e, kci_worm *w, const uint32_t *path, uint32_t ejbase)
{
    uint32_t head = path[w->npath - 1];
    if (head >= ejbase || !e->chans[head].passed)
        return;
    for (int i = (int)w->npath - 1; i >= (int)w->first_held; i--)
        if (e->chans[path[i]].cnt < e->depth)
            return;
    w->stalled = 1;
}

/* Move flits of worm wi; returns 1 when its tail has been delivered. */
static int move_worm(kci_engine *e, uint32_t wi)
{
    const kc_simnet *net = e->net;
    kci_worm *w = &e->worms[wi];
    uint32_t *path = &e->path[(size_t)wi * e->path_cap];
    uint32_t now = e->now, depth = e->depth, ejbase = kc_simnet_ejch(net, 0, 0);
    int moved = 0;
    for (int i = (int)w->npath - 1; i >= (int)w->first_held; i--) {
        uint32_t c = path[i];
        uint32_t u = 0;
        if (i == 0) {
            if (!w->src_left)
                continue;
        } else {
            if (i - 1 < (int)w->first_held)
                continue;
            u = path[i - 1];
            if (!e->chans[u].cnt || front_ready(e, u) > now)
                continue;
        }
        kci_chan *cc = &e->chans[c];
        int eject = c >= ejbase;
        if (!eject && cc->cnt >= depth)
            continue;
        if (c < net->net_channels) {
            uint32_t link = c / e->vcs;
            /* A channel takes at most one flit per cycle (one owner, visited
             * once), so only VCs sharing a link need the link's mark. */
            if (e->link_busy) {
                if (e->link_busy[link] == now + 1)
                    continue;
                e->link_busy[link] = now + 1;
            }
            kci_count_link(e, link, 1, e->in_window);
        }
        /* take the flit from upstream */
        if (i == 0) {
            w->src_left--;
        } else {
            kci_chan *cu = &e->chans[u];
            cu->rhead = (uint16_t)((uint32_t)cu->rhead + 1 == depth ? 0 : cu->rhead + 1);
            if (--cu->cnt == 0 && cu->passed == w->len) {
                cu->owner = -1;
                kci_channel_freed(e, u);
                w->first_held = (uint16_t)i;
            }
        }
        e->progress = 1;
        moved = 1;
        uint32_t seq = cc->passed++;
        if (eject) {
            kci_count_delivered(e, w->src, 1, e->in_window);
            if (seq + 1 == w->len) {
                cc->owner = -1;
                kci_channel_freed(e, c);
                kci_engine_finish(e, w, now + e->eject_delay);
                return 1;
            }
            continue;
        }
        buffer_flit(e, wi, c, seq);
    }
    if (!moved)
        mark_stalled(e, w, path, ejbase);
    return 0;
}

/* The order of the cycle's new headers (keys are distinct: one per
 * channel): (ready - now) * channels + channel, which is below
 * (net_delay + 1) * channels, so a radix sort needs few digits. */
void kci_flit_move(kci_engine *e)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < e->nactive; i++) {
        uint32_t wi = e->active[i];
        if (e->worms[wi].stalled)
            e->active_next[keep++] = wi;
        else if (move_worm(e, wi))
            e->free_worms[e->nfree_worms++] = wi;
        else
            e->active_next[keep++] = wi;
    }
    kci_flit_moved(e, keep);
}

void kci_flit_moved(kci_engine *e, uint32_t keep)
{
    uint32_t *t = e->active;
    e->active = e->active_next;
    e->active_next = t;
    e->nactive = keep;
}

void kci_flit_waiting(kci_engine *e)
{
    e->nwaiting = 0;
    for (uint32_t v = 0; v < e->net->nodes; v++)
        for (int32_t wi = e->blocked_head[v]; wi >= 0; wi = e->blocked_next[wi])
            e->waiting[e->nwaiting++] = (kci_waiter){e->header_key[wi], (uint32_t)wi, 0};
    for (uint32_t s = 0; s < e->untried_slots; s++)
        for (int32_t wi = e->untried_head[s]; wi >= 0; wi = e->untried_next[wi])
            e->waiting[e->nwaiting++] = (kci_waiter){e->header_key[wi], (uint32_t)wi, 0};
    kci_sort_waiters(e->waiting, e->nwaiting, e->new_headers);
}
