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
 * be refused again). A stream-loop run on several threads (from
 * KC_SIM_PAR_STREAM_NODES nodes) tries each node range's routers on its
 * own thread; only the order within a router matters, so the results do
 * not change. */
#include "engine.h"

#include <string.h>

/* The cycle the oldest flit buffered in channel c may leave it. */
static inline uint32_t front_ready(const kci_engine *e, uint32_t c)
{
    return e->depth == 1 ? e->chans[c].rt0 : e->ready_ring[(size_t)c * e->depth + e->chans[c].rhead];
}


/* The header of worm wi, key `key`, tries the channels its routing
 * function lists, first free first: 1 when it got one (and *progress set).
 * Writes only the state of the worm and of the router its header is at
 * (and the stream loop's due bit, atomically on several threads). */
static int try_header(kci_engine *e, uint32_t wi, uint64_t key, uint32_t *cand, int *progress)
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
            *progress = 1;
            return 1;
        }
    }
    return 0;
}

/* Router v's refused headers, oldest first, try again (a channel leaving
 * it was released last cycle); those that get one leave its list. */
static void retry_router(kci_engine *e, uint32_t v, uint32_t *cand, int *progress)
{
    int32_t *link = &e->blocked_head[v];
    while (*link >= 0) {
        uint32_t wi = (uint32_t)*link;
        if (try_header(e, wi, e->header_key[wi], cand, progress))
            *link = e->blocked_next[wi];
        else
            link = &e->blocked_next[wi];
    }
}

/* What the retries at the i-th of the n touched routers in list read,
 * ahead of them: its list head and channels' owner entries KCI_PF_CHAN
 * routers ahead, then (the head in cache) the first refused header's key
 * and worm. No effect on the state. */
KCI_PF_FN void retry_prefetch(const kci_engine *e, const uint32_t *touched, uint32_t n, uint32_t i)
{
    if (i + KCI_PF_CHAN < n) {
        uint32_t v = touched[i + KCI_PF_CHAN], width = (uint32_t)e->net->ports * e->vcs;
        const int32_t *out = &e->own[(size_t)v * width];
        kci_prefetch(&e->blocked_head[v]);
        kci_prefetch(out);
        kci_prefetch(out + width - 1);
    }
    if (i + 2 < n) {
        int32_t wi = e->blocked_head[touched[i + 2]];
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

/* The first tries of the n headers whose channels list gives (channel
 * order; the worm is the channel's owner); a refused one joins its
 * router's list. */
static void first_tries(kci_engine *e, const uint32_t *list, uint32_t n, uint32_t *cand, int *progress)
{
    int pf = kci_stream_prefetch(e);
    for (uint32_t i = 0; i < n; i++) {
        if (pf && i + KCI_PF_CHAN < n)
            first_try_prefetch(e, list[i + KCI_PF_CHAN]);
        if (pf && i + 2 < n) /* its owner entry is in cache by now: the worm's destination */
            kci_prefetch_worm(e, (uint32_t)e->own[list[i + 2]]);
        uint32_t owner = (uint32_t)kci_owner(e, list[i]);
        if (!try_header(e, owner, e->header_key[owner], cand, progress))
            block(e, owner);
    }
}

/* Router v is no longer listed as touched. */
static inline void untouch(kci_engine *e, uint32_t v)
{
    e->touch_bits[v >> 6] &= ~(UINT64_C(1) << (v & 63));
}

/* The retries at the n routers of touched; clear: their touch bits are
 * cleared on the way (one thread). */
static void retries(kci_engine *e, const uint32_t *touched, uint32_t n, int clear, uint32_t *cand, int *progress)
{
    int pf = kci_stream_prefetch(e);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = touched[i];
        if (pf)
            retry_prefetch(e, touched, n, i);
        if (clear)
            untouch(e, v);
        retry_router(e, v, cand, progress);
    }
}

/* The node range of the i-th entry of in: a router (channels 0), or the
 * router a channel leads to. */
static inline uint32_t entry_part(const kci_engine *e, const uint32_t *in, uint32_t i, int channels)
{
    return kci_part_of_node(e, channels ? kci_head_node(e, in[i]) : in[i]);
}

/* The n entries of in into out grouped by node range, in their order
 * within a range (a counting sort); range p's are out[at[p] .. at[p + 1]).
 * O(n x ranges). */
static void group_by_part(const kci_engine *e, const uint32_t *in, uint32_t n, int channels, uint32_t *out,
                          uint32_t *at)
{
    uint32_t next[KCI_MAX_THREADS + 1] = {0};
    for (uint32_t i = 0; i < n; i++)
        next[entry_part(e, in, i, channels) + 1]++;
    for (uint32_t p = 0; p < e->nparts; p++)
        next[p + 1] += next[p];
    memcpy(at, next, (e->nparts + 1) * sizeof *at);
    for (uint32_t i = 0; i < n; i++)
        out[next[entry_part(e, in, i, channels)]++] = in[i];
}

/* Range p's share of a split allocation (a job of kci_simthreads_run):
 * the retries at its routers, then the first tries there. */
static void allocate_part(kci_engine *e, uint32_t p)
{
    uint32_t cand[KC_SIMROUTE_MAX];
    int progress = 0;
    retries(e, e->split_touched + e->touched_at[p], e->touched_at[p + 1] - e->touched_at[p], 0, cand, &progress);
    first_tries(e, e->split_first + e->first_at[p], e->first_at[p + 1] - e->first_at[p], cand, &progress);
    e->part_progress[p] = progress;
}

/* The stream loop on several threads: the touched routers and the first
 * tries grouped by node range, each range's on its thread. A try writes
 * only its worm's and its router's state (and a due bit, atomically), so
 * the ranges do not meet. */
static void allocate_split(kci_engine *e)
{
    for (uint32_t i = 0; i < e->ntouched; i++)
        untouch(e, e->touched[i]);
    group_by_part(e, e->touched, e->ntouched, 0, e->split_touched, e->touched_at);
    e->ntouched = 0;
    uint32_t n = first_try_order(e, e->order_list);
    group_by_part(e, e->order_list, n, 1, e->split_first, e->first_at);
    kci_simthreads_run(e, allocate_part);
    for (uint32_t p = 0; p < e->nparts; p++)
        e->progress |= e->part_progress[p];
}

/* Headers at different routers ask for different channels, so only the
 * order within a router matters: there, the refused headers (older) go
 * before the first tries, each in key order. A refused header is retried
 * only after a channel at its router was released: until then every
 * channel it asked for is still owned. */
void kci_flit_allocate(kci_engine *e)
{
    if (e->pool) {
        allocate_split(e);
        return;
    }
    uint32_t cand[KC_SIMROUTE_MAX];
    retries(e, e->touched, e->ntouched, 1, cand, &e->progress);
    e->ntouched = 0;
    first_tries(e, e->order_list, first_try_order(e, e->order_list), cand, &e->progress);
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
