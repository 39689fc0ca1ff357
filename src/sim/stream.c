/* The stream loop: the flit loop's model (flit.c: any buffer depth, VCs
 * sharing links or not, route and switch delays, link latency) with O(1)
 * work per streaming worm and cycle, and the same results cycle for cycle.
 *
 * A worm streams while its flits follow its header one cycle apart: if the
 * header entered path index j at h[j], flit f enters j at h[j] + f. That
 * holds while every hop's dwell h[j+1] - h[j] is at most the depth (the
 * buffer never fills: a flit leaves as the next one comes), the header's
 * own buffer has room (it waits less than depth cycles, or the worm is
 * shorter), and no flit loses a shared link. Then a channel is released as
 * the tail leaves it (h[j+1] + len - 1), the tail is delivered at
 * h[E] + len - 1, and link traversals and per-link counts are arithmetic,
 * counted lazily (kci_stream_settle). A streaming worm's visit only tries
 * its header's move and checks those two cycles.
 *
 * A worm that stops streaming (its header blocked past its buffer's room,
 * or an older worm took a link cycle it had booked) turns general: its
 * buffers' counts and ready times are derived from h[] as they stand at
 * the end of the previous cycle and it runs the flit loop's per-flit code
 * on its own hop records (kci_engine.hops, rings). A general worm whose
 * state equals the streaming state of its h[] at a header move streams
 * again.
 *
 * Shared links: the flit loop gives a link cycle to the first worm visited,
 * in injection order. A streaming worm's header that crosses a link books
 * it for the worm's len cycles (kci_book). A worm claiming a link cycle
 * that an older streaming worm booked is refused; one that a younger one
 * booked takes it, and the younger worm (visited later in the same cycle)
 * turns general before it moves. */
#include "engine.h"

#include "core/grow.h"

#include <stdatomic.h>
#include <string.h>

/* Cycles from entering channel c to being ready to leave it. */
static inline uint32_t entry_delay(const kci_engine *e, uint32_t c)
{
    return c < e->net->net_channels ? e->net_delay : 1;
}

/* Channel c is free from the next cycle on. */
static inline void release(kci_engine *e, uint32_t c)
{
    e->own[c] = -1;
    kci_channel_freed(e, c);
}

/* The worm other than wi whose booking of link b covers cycle t, or NULL.
 * Such a worm streams: a worm that turns general ends its bookings
 * (unbook), and a slot's last worm's have ended before it holds another.
 * O(1). */
static inline kci_worm *booker(const kci_engine *e, const kci_book *b, uint32_t wi, int64_t t)
{
    return b->end > t && b->w != wi ? &e->worms[b->w] : NULL;
}

/* Whether worm wi may send a flit over shared link `link` this cycle: not
 * when a worm visited before it did, or an older streaming worm booked the
 * cycle. O(1), no effect. */
static inline int may_claim(const kci_engine *e, uint32_t wi, const kci_worm *w, uint32_t link)
{
    const kci_book *b = &e->book[link];
    if (b->busy == e->now + 1)
        return 0;
    const kci_worm *o = booker(e, b, wi, e->now);
    return !o || o->seq > w->seq;
}

/* Worm wi, younger than the one being visited (a later entry of active,
 * which is in injection order) and not due this cycle, is visited in this
 * cycle's moves too: its entry's index joins the late list, ascending.
 * O(late). */
static void wake_late(kci_engine *e, uint32_t wi)
{
    uint32_t pos = e->worms[wi].apos;
    if (e->nlate == e->late_cap) {
        uint32_t cap = e->late_cap ? 2 * e->late_cap : 16;
        if (KCI_RESIZE(e->late, cap)) {
            e->nomem = 1;
            return;
        }
        e->late_cap = cap;
    }
    uint32_t k = e->nlate++;
    for (; k > 0 && e->late[k - 1] > pos; k--)
        e->late[k] = e->late[k - 1];
    e->late[k] = pos;
}

/* Worm wi sends a flit over shared link `link` this cycle (may_claim said
 * it may): a younger streaming worm that booked the cycle is told to turn
 * general, and visited later in this cycle. O(1), or O(log active) when
 * that worm was not due. */
static inline void take_link(kci_engine *e, uint32_t wi, uint32_t link)
{
    kci_book *b = &e->book[link];
    kci_worm *o = booker(e, b, wi, e->now);
    if (o) {
        o->demote = 1;
        if (e->wake[b->w].at > e->now)
            wake_late(e, b->w);
        e->wake[b->w].at = e->now;
    }
    b->busy = e->now + 1;
}

/* Worm wi books shared link `link` up to cycle end - 1 (the link's mark
 * stays). */
static inline void book_link(kci_engine *e, uint32_t wi, uint32_t link, uint32_t end)
{
    kci_book *b = &e->book[link];
    b->w = wi;
    b->end = end;
}

/* may_claim, then take_link when it may. */
static inline int claim_link(kci_engine *e, uint32_t wi, const kci_worm *w, uint32_t link)
{
    if (!may_claim(e, wi, w, link))
        return 0;
    take_link(e, wi, link);
    return 1;
}

/* Hop p's shift in cycles (KCI_PACKED_SHIFT while it is packed). */
static inline int64_t hop_shift(const kci_hop *p)
{
    return p->s == KCI_PACKED ? KCI_PACKED_SHIFT : (int64_t)p->s;
}

/* The cycle flit f of a streaming worm enters hop p (its header's cycle
 * there, f later, and the hop's shift from flit k on). */
static inline int64_t entry_time(const kci_hop *p, uint32_t f)
{
    return (int64_t)p->h + f + (p->s && f >= p->k ? hop_shift(p) : 0);
}

/* Flits of streaming worm w that entered hop j by the end of cycle t. */
static inline uint32_t entered_by(const kci_worm *w, const kci_hop *hops, int j, int64_t t)
{
    const kci_hop *p = &hops[j];
    if (j > w->head || t < (int64_t)p->h)
        return 0;
    int64_t n = t - p->h + 1, len = w->len;
    if (n > len)
        n = len;
    if (p->s && n > (int64_t)p->k) { /* the shifted flits */
        int64_t m = t - p->h - hop_shift(p) + 1;
        n = m > (int64_t)p->k ? (m < len ? m : len) : (int64_t)p->k;
    }
    return (uint32_t)n;
}

/* Counts streaming worm w's flit moves from w->unsettled through cycle
 * upto (link traversals, per-link counts and deliveries, the window's
 * when in_window). O(hops). */
static void settle_worm(kci_engine *e, kci_worm *w, const uint32_t *path, const kci_hop *hops, int64_t upto,
                        int in_window)
{
    uint32_t ejbase = e->ejbase;
    for (int j = w->head; j >= 0; j--) {
        uint64_t n = entered_by(w, hops, j, upto) - entered_by(w, hops, j, (int64_t)w->unsettled - 1);
        uint32_t c = path[j];
        if (c < e->net->net_channels) {
            kci_count_link(e, c / e->vcs, n, in_window);
        } else if (c >= ejbase) {
            kci_count_delivered(e, w->src, n, in_window);
        }
    }
    w->unsettled = (uint32_t)(upto + 1);
}

/* A block of ready times for worm w, which turns general: from the free
 * list, or the pool doubled; -1 when out of memory (nothing changed). */
static int ring_take(kci_engine *e, kci_worm *w)
{
    if (!e->nring_free) {
        uint32_t cap = e->ring_cap ? 2 * e->ring_cap : 64;
        if (KCI_RESIZE(e->ring_free, cap) || KCI_RESIZE(e->rings, (size_t)cap * e->path_cap * e->depth) ||
            KCI_RESIZE(e->gens, (size_t)cap * e->path_cap))
            return -1;
        for (uint32_t b = cap; b > e->ring_cap; b--)
            e->ring_free[e->nring_free++] = b - 1;
        e->ring_cap = cap;
    }
    w->ring = e->ring_free[--e->nring_free];
    return 0;
}

/* Worm w's block back to the free list (it streams again, or is done). */
static inline void ring_give(kci_engine *e, const kci_worm *w)
{
    e->ring_free[e->nring_free++] = w->ring;
}

/* Worm w's buffer counts (it is general). */
static inline kci_gen *gen_of(const kci_engine *e, const kci_worm *w)
{
    return &e->gens[(size_t)w->ring * e->path_cap];
}

/* Worm w's block of ready times (it is general). */
static inline uint32_t *ring_of(const kci_engine *e, const kci_worm *w)
{
    return &e->rings[(size_t)w->ring * e->path_cap * e->depth];
}

/* Streaming worm wi's bookings lapse (it turns general): those on the
 * links into the hops it holds still name it (another worm's booking may
 * have replaced one); the links behind its tail were booked to a cycle
 * that has passed. O(hops held). */
static void unbook(kci_engine *e, uint32_t wi, const kci_worm *w, const uint32_t *path)
{
    for (int j = w->first_held; e->book && j <= w->head; j++) {
        if (path[j] >= e->net->net_channels)
            continue;
        kci_book *b = &e->book[path[j] / e->vcs];
        if (b->w == wi)
            b->end = 0;
    }
}

/* Streaming worm wi turns general at the start of this cycle: its hops'
 * counts and ready times as of the end of the last cycle, its moves
 * counted, its bookings lapsed. O(hops x depth). */
static int demote(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, kci_hop *hops)
{
    if (ring_take(e, w)) {
        e->nomem = 1;
        return -1;
    }
    uint32_t *ring = ring_of(e, w);
    kci_gen *g = gen_of(e, w);
    int64_t t = (int64_t)e->now - 1;
    uint32_t ejbase = e->ejbase, depth = e->depth;
    settle_worm(e, w, path, hops, t, e->in_window);
    w->src_left = w->len - entered_by(w, hops, 0, t);
    for (int j = w->first_held; j < (int)w->npath; j++) {
        kci_hop *p = &hops[j];
        uint32_t in = entered_by(w, hops, j, t), out = path[j] >= ejbase ? in : entered_by(w, hops, j + 1, t);
        if (j > w->head)
            p->h = 0;
        g[j] = (kci_gen){(uint16_t)in, (uint16_t)(in - out), 0};
        for (uint32_t k = 0; k < g[j].cnt; k++)
            ring[(size_t)j * depth + k] = (uint32_t)entry_time(p, out + k) + entry_delay(e, path[j]);
    }
    for (int j = 0; j < (int)w->npath; j++)
        hops[j].k = hops[j].s = 0; /* general: nothing reads them till it streams again */
    w->packed = 0;
    w->general = 1;
    w->demote = 0;
    w->stalled = 0;
    e->wake[wi].until = 0; /* its moves mark progress themselves */
    w->release_at = UINT32_MAX; /* its wheel entries go stale */
    unbook(e, wi, w, path);
    return 0;
}

/* The ready time of the i-th oldest flit in general worm w's buffer at
 * path index j. */
static inline uint32_t ring_at(const kci_engine *e, const uint32_t *ring, const kci_gen *q, int j, uint32_t i)
{
    uint32_t slot = (uint32_t)q->rhead + i;
    return ring[(size_t)j * e->depth + (slot >= e->depth ? slot - e->depth : slot)];
}

/* The shift of general worm w's hop j (its flits from k on entered s
 * cycles late) as its counts and ready times at the end of cycle t show
 * it: hops[j].k and .s set; -1 when its buffered flits do not follow one
 * such shift. O(depth). */
static int infer_shift(const kci_engine *e, const kci_worm *w, const uint32_t *path, kci_hop *hops, const kci_gen *g,
                       const uint32_t *ring, int j, int64_t t)
{
    kci_hop *p = &hops[j];
    const kci_gen *q = &g[j];
    uint32_t in = q->passed, len = w->len, d = entry_delay(e, path[j]);
    int buffered = path[j] < e->ejbase && q->cnt;
    int64_t s = 0; /* a streaming hop's newest flit entered this cycle, unless all have */
    if (in < len)
        s = t - ((int64_t)p->h + in - 1);
    else if (buffered)
        s = (int64_t)ring_at(e, ring, q, j, q->cnt - 1u) - d - ((int64_t)p->h + len - 1);
    if (s < 0 || s > KCI_SHIFT_MAX)
        return -1;
    uint32_t out = buffered ? in - q->cnt : in, k = s ? in : 0;
    for (uint32_t f = out; s && f < in; f++) /* the first buffered flit on the shifted schedule */
        if ((int64_t)ring_at(e, ring, q, j, f - out) == (int64_t)p->h + f + s + d) {
            k = f;
            break;
        }
    if (k > UINT16_MAX || (s && k == in && in < len))
        return -1; /* no flit entered this cycle: the gap is still open (nor did one cross its link) */
    p->k = (uint16_t)k;
    p->s = (uint16_t)s;
    for (uint32_t f = out; buffered && f < in; f++)
        if (ring_at(e, ring, q, j, f - out) != entry_time(p, f) + d)
            return -1;
    return 0;
}

/* Whether general worm w's hops, their shifts inferred, go on streaming
 * from cycle t on: counts as the closed forms give them, every buffer
 * with room for its flits' dwell, every flit ready when the next hop's
 * schedule takes it, the header's hop unshifted. O(hops x depth). */
static int streams_on(const kci_engine *e, const kci_worm *w, const uint32_t *path, kci_hop *hops, const kci_gen *g,
                      const uint32_t *ring, int64_t t)
{
    uint32_t ejbase = e->ejbase, depth = e->depth, len = w->len;
    for (int j = w->head; j >= (int)w->first_held; j--) {
        if (infer_shift(e, w, path, hops, g, ring, j, t) || (j == w->head && hops[j].s))
            return 0;
        const kci_hop *p = &hops[j];
        const kci_gen *q = &g[j];
        uint32_t in = entered_by(w, hops, j, t), out = entered_by(w, hops, j + 1, t);
        if (q->passed != in)
            return 0;
        if (path[j] >= ejbase || j == w->head)
            continue;
        const kci_hop *n = &hops[j + 1];
        if (q->cnt != in - out || (in < len && (int64_t)n->h + hop_shift(n) - p->h > depth))
            return 0;
        if (in < len && ((int64_t)p->h + hop_shift(p) + entry_delay(e, path[j]) > (int64_t)n->h + hop_shift(n) ||
                         in - entered_by(w, hops, j + 1, entry_time(p, in)) >= depth))
            return 0; /* the next flit would not be ready, or find no room */
        for (uint32_t f = out; f < in; f++) /* buffered: ready when the next hop takes it */
            if (ring_at(e, ring, q, j, f - out) > entry_time(n, f))
                return 0;
    }
    return w->src_left == len - entered_by(w, hops, 0, t);
}

/* General worm wi, whose header or tail moved to another hop this cycle,
 * streams again if its state is the streaming state of its h[] and one
 * shift per hop (and it can book the shared links its flits still
 * cross). O(hops x depth). */
static void try_promote(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, kci_hop *hops,
                        const kci_gen *g, const uint32_t *ring)
{
    int64_t t = e->now;
    uint32_t len = w->len;
    int ok = streams_on(e, w, path, hops, g, ring, t);
    for (int j = w->first_held; ok && e->book && j <= w->head; j++) {
        if (path[j] >= e->net->net_channels || entry_time(&hops[j], len - 1) <= t)
            continue;
        if (booker(e, &e->book[path[j] / e->vcs], wi, t))
            ok = 0;
    }
    if (!ok) {
        for (int j = 0; j < (int)w->npath; j++)
            hops[j].k = hops[j].s = 0; /* general: nothing reads them */
        return;
    }
    for (int j = w->first_held; e->book && j <= w->head; j++)
        if (path[j] < e->net->net_channels && entry_time(&hops[j], len - 1) > t)
            book_link(e, wi, path[j] / e->vcs, (uint32_t)entry_time(&hops[j], len - 1) + 1);
    w->general = 0;
    w->unsettled = (uint32_t)t + 1;
    ring_give(e, w);
}

/* General worm wi moved nothing: when its header waits for a channel and
 * no position can take a flit by the counts alone (its buffer full, or
 * nothing upstream: no flit that is merely not ready yet, and none kept
 * back only by a link another worm took), nothing moves before the header
 * is allocated (kci_take_channel wakes it), so it sleeps till then: the
 * moves skip it by its wake-up entry and read no worm record. O(hops). */
static void mark_stalled(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, const kci_gen *g)
{
    int last = (int)w->npath - 1, first = w->first_held;
    uint32_t depth = e->depth;
    if (path[last] >= e->ejbase || !g[last].passed)
        return;
    if (first == 0 && w->src_left && g[0].cnt < depth)
        return;
    for (int i = last; i > first; i--)
        if (g[i].cnt < depth && g[i - 1].cnt)
            return;
    w->stalled = 1;
    e->wake[wi].at = UINT32_MAX;
    e->wake[wi].until = 0;
}

/* Flit seq of worm w entered ejection channel c this cycle: counts, and
 * the tail's delivery (1). */
static int eject_flit(kci_engine *e, kci_worm *w, uint32_t c, uint32_t seq)
{
    kci_count_delivered(e, w->src, 1, e->in_window);
    if (seq + 1 < w->len)
        return 0;
    release(e, c);
    ring_give(e, w); /* a general worm's */
    kci_engine_finish(e, w, e->now + e->eject_delay);
    return 1;
}

/* Whether flit position i of general worm w can take a flit this cycle
 * (the flit loop's checks: a flit upstream, ready; room; the link). */
static inline int can_take(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, const kci_gen *g,
                           const uint32_t *ring, int i)
{
    uint32_t c = path[i];
    if (i == 0) {
        if (!w->src_left)
            return 0;
    } else {
        const kci_gen *u = &g[i - 1];
        if (i - 1 < (int)w->first_held || !u->cnt || ring[(size_t)(i - 1) * e->depth + u->rhead] > e->now)
            return 0;
    }
    if (c < e->ejbase && g[i].cnt >= e->depth)
        return 0;
    if (c < e->net->net_channels) {
        uint32_t link = c / e->vcs;
        if (e->book && !claim_link(e, wi, w, link))
            return 0;
        kci_count_link(e, link, 1, e->in_window);
    }
    return 1;
}

/* One cycle of general worm wi, the flit loop's move_worm on its own hop
 * records; returns 1 when its tail was delivered. O(hops held). */
static int general_step(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, kci_hop *hops)
{
    uint32_t *ring = ring_of(e, w);
    kci_gen *g = gen_of(e, w);
    uint32_t now = e->now, depth = e->depth;
    int moved = 0, hop_moved = 0; /* the header or the tail moved to another hop */
    for (int i = w->head + 1; i < (int)w->npath; i++)
        g[i] = (kci_gen){0, 0, 0}; /* a channel allocated since: empty */
    for (int i = (int)w->npath - 1; i >= (int)w->first_held; i--) {
        if (!can_take(e, wi, w, path, g, ring, i))
            continue;
        uint32_t c = path[i];
        if (i == 0) {
            w->src_left--;
        } else {
            kci_gen *u = &g[i - 1];
            u->rhead = (uint16_t)(u->rhead + 1u == depth ? 0 : u->rhead + 1u);
            if (--u->cnt == 0 && u->passed == w->len) {
                release(e, path[i - 1]);
                w->first_held = (uint16_t)i;
                hop_moved = 1;
            }
        }
        e->progress = 1;
        moved = 1;
        kci_gen *p = &g[i];
        uint32_t seq = p->passed++;
        if (seq == 0) {
            hops[i].h = now;
            w->head = i;
            hop_moved = 1;
        }
        if (c >= e->ejbase) {
            if (eject_flit(e, w, c, seq))
                return 1;
            continue;
        }
        uint32_t slot = (uint32_t)p->rhead + p->cnt, ready = now + entry_delay(e, c);
        if (p->cnt >= depth)
            e->overflow = 1;
        ring[(size_t)i * depth + (slot >= depth ? slot - depth : slot)] = ready;
        p->cnt++;
        if (seq == 0)
            kci_untried_add(e, wi, c, ready);
    }
    if (!moved)
        mark_stalled(e, wi, w, path, g);
    else if (hop_moved)
        try_promote(e, wi, w, path, hops, g, ring);
    return 0;
}

/* The header of streaming worm wi moves into its newest channel if it has
 * one and its link is free (it is ready: it was allocated). O(1). */
static void stream_header(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, kci_hop *hops)
{
    int next = w->head + 1;
    if (next >= (int)w->npath)
        return;
    uint32_t c = path[next], now = e->now;
    int shared = e->book && c < e->net->net_channels;
    if (shared && !claim_link(e, wi, w, c / e->vcs))
        return;
    if (shared)
        book_link(e, wi, c / e->vcs, now + w->len);
    hops[next].h = now;
    w->head = next;
    if (c < e->ejbase)
        kci_untried_add(e, wi, c, now + entry_delay(e, c));
}

/* Streaming worm wi's header has waited in hop head until its buffer
 * filled (this cycle a flit would find no room): the worm packs. Hop j
 * behind the header then takes its flits below (head - j + 1) x depth on
 * time and the rest only after the header moves on; its link is booked to
 * then. The closed forms need every hop that fills to stream unshifted
 * and a packed buffer's flits to be ready when the train leaves (S + W <=
 * depth); -1 when they do not hold (nothing changed), else 0. O(hops). */
static int pack(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, kci_hop *hops)
{
    uint32_t depth = e->depth, len = w->len, nc = e->net->net_channels;
    if (e->net_delay > depth)
        return -1;
    for (int j = w->head; j >= (int)w->first_held && (uint64_t)(w->head - j + 1) * depth < len; j--)
        if (hops[j].s)
            return -1;
    int64_t until = 0;
    for (int j = w->head; j >= (int)w->first_held; j--) {
        kci_hop *p = &hops[j];
        uint64_t cap = (uint64_t)(w->head - j + 1) * depth;
        int64_t last = cap < len ? (int64_t)p->h + (int64_t)cap - 1 : entry_time(p, len - 1);
        if (last > until)
            until = last;
        if (cap >= len)
            continue;
        p->k = (uint16_t)cap;
        p->s = KCI_PACKED;
        if (e->book && path[j] < nc) {
            kci_book *b = &e->book[path[j] / e->vcs];
            if (b->w == wi && b->end > p->h + cap)
                b->end = p->h + (uint32_t)cap;
        }
    }
    w->packed = 1;
    w->packed_until = (uint32_t)until;
    return 0;
}

/* Packed worm wi's header takes its newest channel if it has one and the
 * link is free: 0 when it cannot yet; -1 when a packed hop cannot move on
 * with it (an older worm has its link this cycle: the worm must turn
 * general; nothing changed); else 1 after the move. Every packed hop that
 * filled moves on this cycle, late by what it waited (its shift), the
 * others on time; their links are booked again. O(packed hops). */
static int unpack(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, kci_hop *hops)
{
    int next = w->head + 1, low = w->head;
    uint32_t now = e->now, nc = e->net->net_channels;
    if (next >= (int)w->npath || (e->book && path[next] < nc && !may_claim(e, wi, w, path[next] / e->vcs)))
        return 0;
    while (low > (int)w->first_held && hops[low - 1].s == KCI_PACKED)
        low--;
    for (int j = low; j <= w->head; j++) {
        int64_t wait = (int64_t)now - hops[j].h - hops[j].k; /* >= 0: the hop resumes, this late */
        if (wait > KCI_SHIFT_MAX)
            return -1;
        if (!e->book || path[j] >= nc)
            continue;
        const kci_book *b = &e->book[path[j] / e->vcs];
        if (wait >= 0 ? !may_claim(e, wi, w, path[j] / e->vcs) : b->w != wi || b->end <= now)
            return -1;
    }
    for (int j = low; j <= w->head; j++) {
        kci_hop *p = &hops[j];
        int resumes = (int64_t)p->h + p->k <= now;
        p->s = resumes ? (uint16_t)(now - p->h - p->k) : 0;
        if (e->book && path[j] < nc) {
            if (resumes)
                take_link(e, wi, path[j] / e->vcs);
            book_link(e, wi, path[j] / e->vcs, p->h + w->len + p->s);
        }
    }
    w->packed = 0;
    stream_header(e, wi, w, path, hops);
    return 1;
}

/* The tail of streaming worm w leaves hop first_held this cycle: the
 * channel is free for the next cycle's allocation. */
static inline void stream_release(kci_engine *e, kci_worm *w, const uint32_t *path, const kci_hop *hops)
{
    uint32_t fh = w->first_held;
    if ((int)fh < w->head && (int64_t)e->now == entry_time(&hops[fh + 1], w->len - 1)) {
        release(e, path[fh]);
        w->first_held = (uint16_t)(fh + 1);
    }
}

/* A streaming worm that cannot go on streaming turns general and moves
 * flit by flit this cycle (0: its tail is not delivered yet). */
static int turn_general(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, kci_hop *hops)
{
    return demote(e, wi, w, path, hops) ? 0 : general_step(e, wi, w, path, hops);
}

/* Slot wi into a wheel for cycle t (out of memory: the run stops).
 * O(1) amortized. */
static inline void wheel_add(kci_engine *e, kci_wheel *wh, uint32_t wi, uint32_t t)
{
    if (kci_wheel_add(wh, wi, t))
        e->nomem = 1;
}

/* Streaming worm wi's next tail release (its tail leaving its oldest held
 * hop) in the release wheel, so that no visit is spent on it: its cycle
 * when the schedule gives one (not while that hop is packed), listed
 * unless it already is. O(1). */
static void plan_release(kci_engine *e, uint32_t wi, kci_worm *w, const kci_hop *hops)
{
    int64_t t = UINT32_MAX;
    if ((int)w->first_held < w->head && hops[w->first_held + 1].s != KCI_PACKED)
        t = entry_time(&hops[w->first_held + 1], w->len - 1);
    if (t <= e->now || t >= UINT32_MAX) {
        w->release_at = UINT32_MAX;
        return;
    }
    if (w->release_at == t)
        return;
    w->release_at = (uint32_t)t;
    wheel_add(e, &e->release_wheel, wi, (uint32_t)t);
}

/* After a visit of streaming worm w: the cycle of its next event (its
 * header's buffer filling, its tail's delivery; its tail leaving a hop is
 * the release wheel's) and the last cycle its flits move till then.
 * Between events a visit would change nothing (bar a new channel for its
 * header, or an older worm taking a cycle it booked: both make it due in
 * the cycle they happen). */
static void plan_wake(kci_engine *e, uint32_t wi, kci_worm *w, const uint32_t *path, const kci_hop *hops)
{
    kci_wake *k = &e->wake[wi];
    uint32_t len = w->len, hh = hops[w->head].h;
    int64_t wake = INT64_MAX;
    plan_release(e, wi, w, hops);
    if (w->packed) {
        k->until = w->packed_until;
    } else {
        k->until = hh + len - 1;
        if (path[w->head] >= e->ejbase)
            wake = wake < (int64_t)hh + len - 1 ? wake : (int64_t)hh + len - 1;
        else if (len > e->depth)
            wake = wake < (int64_t)hh + e->depth ? wake : (int64_t)hh + e->depth;
    }
    if (w->head + 1 < (int)w->npath)
        wake = e->now + 1; /* its header has a channel but could not move: it tries every cycle */
    k->at = wake < UINT32_MAX ? (uint32_t)wake : UINT32_MAX;
}

/* One cycle of worm wi: 1 when its tail was delivered. */
static int visit(kci_engine *e, uint32_t wi)
{
    kci_worm *w = &e->worms[wi];
    size_t base = (size_t)wi * e->path_cap;
    const uint32_t *path = &e->path[base];
    kci_hop *hops = &e->hops[base];
    if (w->general)
        return general_step(e, wi, w, path, hops);
    if (w->demote)
        return turn_general(e, wi, w, path, hops);
    uint32_t now = e->now, len = w->len;
    int packed = w->packed;
    if (packed) {
        int r = unpack(e, wi, w, path, hops);
        if (r < 0)
            return turn_general(e, wi, w, path, hops);
        packed = !r;
    } else {
        stream_header(e, wi, w, path, hops);
    }
    uint32_t hh = hops[w->head].h, c = path[w->head];
    int eject = c >= e->ejbase;
    if (!packed && !eject && now - hh >= e->depth && now - hh < len) { /* the header's buffer is full */
        if (pack(e, wi, w, path, hops))
            return turn_general(e, wi, w, path, hops);
        packed = 1;
    }
    stream_release(e, w, path, hops);
    if (now <= (packed ? w->packed_until : hh + len - 1))
        e->progress = 1;
    if (eject && now == hh + len - 1) {
        settle_worm(e, w, path, hops, now, e->in_window);
        release(e, c);
        w->release_at = UINT32_MAX; /* the slot may still be listed */
        kci_engine_finish(e, w, now + e->eject_delay);
        return 1;
    }
    plan_wake(e, wi, w, path, hops);
    return 0;
}

/* What a general worm's step reads, once its record is in cache: its
 * buffer counts and the ready times of its held positions (its block of
 * the pool). */
KCI_PF_FN void general_prefetch(const kci_engine *e, const kci_worm *w)
{
    const char *g = (const char *)&e->gens[(size_t)w->ring * e->path_cap + w->first_held];
    const char *r = (const char *)&e->rings[((size_t)w->ring * e->path_cap + w->first_held) * e->depth];
    size_t held = (size_t)(w->npath - w->first_held);
    kci_prefetch(g);
    kci_prefetch(g + held * sizeof *e->gens - 1);
    for (size_t off = 0; off < held * e->depth * sizeof *e->rings; off += KCI_CACHE_LINE)
        kci_prefetch(r + off);
}

/* The bookings of the links a general worm's held positions cross (its
 * path entries are in cache by then). */
KCI_PF_FN void general_book_prefetch(const kci_engine *e, uint32_t wi, const kci_worm *w)
{
    const uint32_t *path = &e->path[(size_t)wi * e->path_cap];
    for (int i = w->first_held; i < (int)w->npath; i++)
        if (path[i] < e->net->net_channels)
            kci_prefetch(&e->book[path[i] / e->vcs]);
}

/* The state the visit of the d-th due worm reads, ahead of it, on large
 * networks: its record KCI_PF_PATH due worms ahead; KCI_PF_CHAN ahead
 * (the record is in cache by then) its header's hop and path entry, and
 * where the hot state outgrows the caches (kci_engine.prefetch) the hop
 * whose tail leaves next and a general worm's counts and ready times; two
 * ahead the booking of the link its header's next channel crosses, or
 * there a general worm's bookings. No effect on the state. */
KCI_PF_FN void visit_prefetch(const kci_engine *e, const uint32_t *due, uint32_t d, uint32_t ndue)
{
    const uint32_t *a = e->active;
    if (d + KCI_PF_PATH < ndue)
        kci_prefetch_worm(e, a[due[d + KCI_PF_PATH]]);
    if (d + KCI_PF_CHAN < ndue) {
        uint32_t wi = a[due[d + KCI_PF_CHAN]];
        const kci_worm *w = &e->worms[wi];
        size_t base = (size_t)wi * e->path_cap, at = base + (uint32_t)(w->head + 1);
        kci_prefetch(&e->hops[at]);
        kci_prefetch(&e->path[at]);
        if (e->prefetch) { /* larger than the caches (at 4096 nodes these cost more than they save) */
            kci_prefetch(&e->hops[base + w->first_held + 1u]);
            if (w->general)
                general_prefetch(e, w);
        }
    }
    if (e->book && d + 2 < ndue) {
        uint32_t wi = a[due[d + 2]];
        const kci_worm *w = &e->worms[wi];
        if (w->general && e->prefetch) {
            general_book_prefetch(e, wi, w);
        } else if (w->head + 1 < (int)w->npath) {
            uint32_t c = e->path[(size_t)wi * e->path_cap + (uint32_t)(w->head + 1)];
            if (c < e->net->net_channels)
                kci_prefetch(&e->book[c / e->vcs]);
        }
    }
}

/* Worm wi is due at cycle t (> now): its wake-up says so and t's bucket
 * lists it (an older entry elsewhere goes stale). O(1) amortized. */
static inline void wake_at(kci_engine *e, uint32_t wi, uint32_t t)
{
    e->wake[wi].at = t;
    wheel_add(e, &e->wake_wheel, wi, t);
}

/* Entry i of active is due in the moves of the cycle whose bitmap is
 * bits. */
static inline void mark_due(uint64_t *bits, uint32_t i)
{
    bits[i >> 6] |= UINT64_C(1) << (i & 63);
}

void kci_stream_wake(kci_engine *e, uint32_t wi)
{
    uint32_t i = e->worms[wi].apos;
    e->wake[wi].at = e->now;
    if (e->pool) /* the split allocation's ranges may share a word */
        atomic_fetch_or_explicit((_Atomic uint64_t *)&e->due_bits[i >> 6], UINT64_C(1) << (i & 63),
                                 memory_order_relaxed);
    else
        mark_due(e->due_bits, i);
}

/* Worm wi after its visit: due in the next cycle's moves when it asked
 * for a wake-up now or then, else listed in the wheel for its wake-up's
 * cycle (none while it sleeps). O(1). */
static inline void relist(kci_engine *e, uint32_t wi)
{
    uint32_t at = e->wake[wi].at, next = e->now + 1;
    if (at <= next) {
        e->wake[wi].at = next;
        mark_due(e->due_next_bits, e->worms[wi].apos);
    } else if (at != UINT32_MAX) {
        wake_at(e, wi, at);
    }
}

/* The indices in active of the worms due this cycle, ascending, into
 * due[]; returns their count. This cycle's bucket of the wheel is emptied
 * first: an entry whose worm's wake-up still names this cycle marks it
 * due, one for a later turn of the wheel goes back, the rest are stale.
 * Then the due bitmap (the last cycle's visits, the wheel's entries, the
 * headers allocated a channel) is read and cleared. O(entries + active /
 * 64 + due). */
static uint32_t due_worms(kci_engine *e, uint32_t *due)
{
    uint32_t n = 0, now = e->now;
    kci_wheel *wh = &e->wake_wheel;
    for (int32_t h = kci_wheel_take(wh, now); h >= 0; h = kci_wheel_give(wh, h, e->prefetch)) {
        for (uint32_t j = 0; j < wh->chunks[h].n; j++) { /* a re-listing may move the pool */
            const kci_wchunk *ch = &wh->chunks[h];
            uint32_t wi = ch->item[j], t = ch->cyc[j], at = e->wake[wi].at;
            if (e->prefetch && j + KCI_PF / 2 < ch->n) {
                kci_prefetch(&e->wake[ch->item[j + KCI_PF / 2]]);
                kci_prefetch(&e->worms[ch->item[j + KCI_PF / 2]].apos);
            }
            if (at != t)
                continue; /* stale */
            if (t == now)
                mark_due(e->due_bits, e->worms[wi].apos);
            else if (t > now)
                wheel_add(e, wh, wi, t); /* a later turn: into a fresh chunk */
        }
    }
    uint64_t *bits = e->due_bits;
    for (uint32_t k = 0, words = (e->nlisted + 63) / 64; k < words; k++) {
        for (uint64_t b = bits[k]; b; b &= b - 1)
            due[n++] = k << 6 | (uint32_t)__builtin_ctzll(b);
        bits[k] = 0;
    }
    return n;
}

/* The worm of entry i of active, or UINT32_MAX when that entry is a
 * delivered worm's (its slot's apos names another entry, or none). */
static inline uint32_t live_entry(const kci_engine *e, uint32_t i)
{
    uint32_t wi = e->active[i];
    return e->worms[wi].apos == i ? wi : UINT32_MAX;
}

/* Whether a worm whose flits move this cycle was not visited (its
 * schedule says so: wake-up's until). Only when no visit marked progress,
 * so rare. O(active). */
static int others_move(const kci_engine *e)
{
    for (uint32_t i = 0; i < e->nlisted; i++) {
        uint32_t wi = live_entry(e, i);
        if (wi != UINT32_MAX && e->now <= e->wake[wi].until)
            return 1;
    }
    return 0;
}

/* The active entries without the delivered worms', in order, between
 * the moves of two cycles (the next one's due bits move with their
 * entries; an entry's index only decreases). O(entries). */
static void compact_active(kci_engine *e)
{
    uint32_t keep = 0;
    uint64_t *bits = e->due_bits;
    for (uint32_t i = 0; i < e->nlisted; i++) {
        uint32_t wi = live_entry(e, i);
        if (wi == UINT32_MAX)
            continue;
        uint64_t bit = bits[i >> 6] >> (i & 63) & 1;
        bits[i >> 6] &= ~(UINT64_C(1) << (i & 63));
        bits[keep >> 6] |= bit << (keep & 63);
        e->worms[wi].apos = keep;
        e->active[keep++] = wi;
    }
    e->nlisted = keep;
}

void kci_stream_list(kci_engine *e, uint32_t wi)
{
    if (e->nlisted == e->worm_cap)
        compact_active(e);
    e->worms[wi].apos = e->nlisted;
    e->active[e->nlisted++] = wi;
    e->nactive++;
}

/* What the release of the j-th entry of chunk ch reads, ahead of it: the
 * worm record KCI_PF_PATH entries ahead; KCI_PF_CHAN ahead (the record in
 * cache) the hop whose tail entry it checks and the path entry of the
 * channel it frees. No effect on the state. */
KCI_PF_FN void release_prefetch(const kci_engine *e, const kci_wchunk *ch, uint32_t j)
{
    if (j + KCI_PF_PATH < ch->n)
        kci_prefetch_worm(e, ch->item[j + KCI_PF_PATH]);
    if (j + KCI_PF_CHAN < ch->n) {
        uint32_t wi = ch->item[j + KCI_PF_CHAN];
        size_t at = (size_t)wi * e->path_cap + e->worms[wi].first_held;
        kci_prefetch(&e->hops[at + 1]);
        kci_prefetch(&e->path[at]);
    }
}

/* The tail releases of this cycle's bucket of the release wheel, after
 * the visits (a release frees a channel for the next cycle's allocation,
 * which does not depend on the order of releases): an entry whose worm
 * turned general, was delivered or released at a visit (its release_at
 * names another cycle) is dropped, one for a later turn goes back. Each
 * release lists the worm's next. O(entries). */
static void release_due(kci_engine *e)
{
    kci_wheel *wh = &e->release_wheel;
    for (int32_t h = kci_wheel_take(wh, e->now); h >= 0; h = kci_wheel_give(wh, h, e->prefetch)) {
        for (uint32_t j = 0; j < wh->chunks[h].n; j++) { /* a listing may move the pool */
            const kci_wchunk *ch = &wh->chunks[h];
            uint32_t wi = ch->item[j], t = ch->cyc[j];
            if (e->prefetch)
                release_prefetch(e, ch, j);
            kci_worm *w = &e->worms[wi];
            if (w->general || w->release_at != t || t < e->now)
                continue; /* stale */
            if (t > e->now) {
                wheel_add(e, wh, wi, t); /* a later turn */
                continue;
            }
            size_t base = (size_t)wi * e->path_cap;
            stream_release(e, w, &e->path[base], &e->hops[base]);
            plan_release(e, wi, w, &e->hops[base]);
        }
    }
}

/* Worm wi's tail was delivered this cycle: its slot is free, its entry in
 * active and its wheel entries stale. */
static void drop_worm(kci_engine *e, uint32_t wi)
{
    e->free_worms[e->nfree_worms++] = wi;
    e->worms[wi].apos = UINT32_MAX;
    e->wake[wi].at = UINT32_MAX;
    e->wake[wi].until = 0;
    e->nactive--;
}

void kci_stream_move(kci_engine *e)
{
    uint32_t *due = e->active_next, ndue = due_worms(e, due), d = 0, l = 0;
    int pf = kci_stream_prefetch(e);
    e->nlate = 0;
    while (d < ndue || l < e->nlate) { /* the due and the late worms, in active's order */
        uint32_t i = l < e->nlate && (d == ndue || e->late[l] < due[d]) ? e->late[l++] : due[d++];
        if (pf)
            visit_prefetch(e, due, d, ndue);
        uint32_t wi = e->active[i];
        if (visit(e, wi))
            drop_worm(e, wi);
        else
            relist(e, wi);
    }
    uint64_t *t = e->due_bits; /* the next cycle's */
    e->due_bits = e->due_next_bits;
    e->due_next_bits = t;
    release_due(e);
    e->last_moved = e->now;
    if (!e->progress && e->nactive && others_move(e))
        e->progress = 1;
    if (e->nlisted > 2 * e->nactive + 64)
        compact_active(e);
}

void kci_stream_settle(kci_engine *e, int in_window)
{
    for (uint32_t i = 0; i < e->nlisted; i++) {
        uint32_t wi = live_entry(e, i);
        if (wi == UINT32_MAX)
            continue;
        kci_worm *w = &e->worms[wi];
        size_t base = (size_t)wi * e->path_cap;
        if (!w->general && w->unsettled <= e->last_moved)
            settle_worm(e, w, &e->path[base], &e->hops[base], e->last_moved, in_window);
    }
}

void kci_stream_flits(kci_engine *e, uint64_t *buffered, uint64_t *at_source)
{
    uint32_t ejbase = e->ejbase;
    int64_t t = e->last_moved;
    for (uint32_t i = 0; i < e->nlisted; i++) {
        uint32_t wi = live_entry(e, i);
        if (wi == UINT32_MAX)
            continue;
        kci_worm *w = &e->worms[wi];
        size_t base = (size_t)wi * e->path_cap;
        const uint32_t *path = &e->path[base];
        const kci_hop *hops = &e->hops[base];
        *at_source += w->general ? w->src_left : w->len - entered_by(w, hops, 0, t);
        for (int j = w->first_held; j <= w->head && path[j] < ejbase; j++) {
            uint32_t cnt = w->general ? gen_of(e, w)[j].cnt : entered_by(w, hops, j, t) - entered_by(w, hops, j + 1, t);
            if (cnt > e->depth)
                e->overflow = 1;
            *buffered += cnt;
        }
    }
}
