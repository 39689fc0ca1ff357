/* The wormhole router engine: one synchronous cycle at a time, two loops
 * with the same results.
 *
 * The flit loop (any model) keeps flat arrays indexed by channel id (owner
 * worm, flits buffered, flits that have entered, a ring of ready times: the
 * fields a flit's move reads packed in one 16-byte record, so a hop touches
 * one cache line per channel) and by worm (the path of channels it holds,
 * oldest first). A cycle does, in order:
 *   1. generation      new messages join their node's FIFO source queue;
 *   2. injection       a queued message takes a free injection channel;
 *   3. allocation      waiting headers, oldest arrival first, take the first
 *                      free channel their routing function lists;
 *   4. movement        each active worm, head end first, moves at most one
 *                      flit into each channel it holds (space freed by the
 *                      flit ahead in the same cycle is reused, so a worm
 *                      streams one flit per cycle); a physical link carries
 *                      one flit per cycle.
 * The worm-level loop (trains, below) does the same four steps with O(1)
 * work per moving worm where the model keeps worms rigid (one-flit
 * buffers, S = 0, W = 1, no VCs taking turns on a link).
 * Only moving or active worms, headers that may get a channel, sources
 * whose next message is due (a calendar by cycle; the due ones in node
 * order, the order a scan of all nodes would draw random numbers in) and
 * sources that may inject are visited; nothing is allocated per flit.
 * Bernoulli injection still draws for every source every cycle. */
#include "kcube/sim.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kcube/rng.h"
#include "kcube/simstats.h"
#include "sim_internal.h"

void kc_simconfig_default(kc_simconfig *c)
{
    memset(c, 0, sizeof *c);
    c->msg_flits = 20;
    c->load = 0.1;
    c->process = KC_INJECT_POISSON;
    c->seed = 1;
    c->warmup = 3000;
    c->measure = 10000;
    c->drain = 20000;
    c->route_delay = 0;
    c->switch_delay = 0;
    c->link_latency = 1;
    c->watchdog = 1000;
    c->queue_cap = 64;
    c->vc_independent = -1; /* automatic: see kc_sim_vcs_independent */
    c->threads = 1;
}

static const kc_name inject_entries[] = {
    {KC_INJECT_POISSON, "poisson", "exponential gaps between messages"},
    {KC_INJECT_BERNOULLI, "bernoulli", "one trial per cycle"},
    {0, NULL, NULL},
};
const kc_names kc_siminject_names = {"injection process", inject_entries};

static const kc_name vclink_entries[] = {
    {0, "shared", "the VCs of a link take turns: one flit per cycle per link"},
    {1, "independent", "every VC moves a flit per cycle"},
    {0, NULL, NULL},
};
const kc_names kc_simvclink_names = {"VC link sharing", vclink_entries};

int kc_sim_vc_link_default(kc_simtopo topo, int k)
{
    /* Seed 002's tori give every virtual channel its own one-flit buffer whose
     * flit crosses the link in a cycle; its figures (mapped tori near 0.4,
     * uniform above 0.4) need the VCs not to take turns. On the binary cube
     * the seeds have no VCs: extra VCs there (Duato's escape channel) share
     * the link, so adaptive routing gets no extra bandwidth. */
    return topo != KC_SIM_HYPERCUBE && k > 2;
}

int kc_sim_vcs_independent(const kc_simnet *net, const kc_simconfig *c)
{
    return c->vc_independent >= 0 ? c->vc_independent : kc_sim_vc_link_default(net->topo, net->k);
}

int64_t kc_sim_zero_load(const kc_simconfig *c, int hops)
{
    int64_t r = c->route_delay, s = c->switch_delay, w = c->link_latency;
    return (int64_t)hops * (r + s + w) + r + s + c->msg_flits + 1;
}

typedef struct worm {
    /* what a header hop, a wake-up or a tail release reads: the first 48
     * bytes, so one cache line holds them in most records */
    int32_t head;     /* trains: path index of the header flit, -1 before it enters */
    uint16_t np, ptail; /* path entries; first entry still held */
    uint32_t len, dst; /* flits of this message; its destination */
    uint8_t drain;   /* trains: its header has been delivered: it moves every cycle */
    uint8_t blocked; /* trains: its header found every channel it may take owned */
    uint8_t woken;   /* trains: blocked, and a channel it waits for was released */
    uint8_t alive;   /* trains: the slot holds a worm */
    uint32_t wgen;   /* trains: generation of its wait entries */
    uint64_t wkey;   /* trains, blocked: the key it waits with */
    uint32_t t0;     /* trains, drain: the cycle its header was delivered */
    uint32_t tat;    /* trains, drain: the cycle of its next event */
    int32_t tnext;   /* trains, drain: next worm in its timer bucket */
    uint32_t src;
    /* the rest: injection, delivery and the flit loop */
    uint32_t gen, inj;    /* generation cycle, cycle it left the source queue */
    uint32_t src_left;    /* flits not yet injected */
    uint32_t id;          /* caller's id (driven runs) */
    int32_t wlo, whi;     /* trains: moves with head in (wlo, whi] fall in the window */
    uint8_t measured;
    uint8_t stalled; /* nothing can move until the header takes a channel */
    uint64_t seq;     /* injection order: the flit loop's delivery order */
} worm;

typedef struct qmsg {
    uint32_t gen, dst, len, id;
    int32_t next;
} qmsg;

typedef struct waiter {
    uint64_t key; /* ready cycle << 32 | channel: first come, then channel id */
    uint32_t w;
    uint32_t node; /* trains' queues of new headers: the router the header is at */
} waiter;

/* A channel's hot state. rt0 is the ready time of the buffer's only slot
 * when depth is 1 (the default); deeper buffers keep their ring in rtime. */
typedef struct chan {
    int32_t owner;   /* worm holding the channel, -1 when free */
    uint32_t passed; /* flits that have entered it (of the owner's) */
    uint32_t rt0;
    uint16_t cnt;    /* flits buffered */
    uint16_t rhead;  /* ring index of the oldest buffered flit */
} chan;

#define KCI_FAR (INT32_MAX / 2) /* a path index no train reaches: a window edge not yet passed */
#define KCI_WHEEL 1024 /* timer buckets of the trains, a power of two */
#define KCI_MAX_THREADS 64 /* node ranges of one run */

/* Trains: header arbitration for one contiguous range of nodes. A header
 * at node v competes only for channels leaving v, and its wait entries sit
 * on those channels, so the part of a cycle that tries headers (wake-ups,
 * retries, first tries) touches only its range's channels and the worms
 * whose header is there: ranges run on separate threads. What crosses
 * ranges (the worms whose header moves) is merged afterwards in the order
 * one range would have produced (by key). */
typedef struct tpart {
    waiter *fifo;           /* headers here that arrived and were never tried, by key */
    uint32_t fhead, ftail;
    uint32_t *woke, nwoke;  /* blocked headers here to retry this cycle */
    waiter *go, *tmp;       /* headers given a channel this cycle (woken ones first), by key; sort space */
    uint32_t ngo, ngo_woke;
    uint32_t *relc, nrelc;  /* channels leaving the range released last cycle with wait entries */
    struct went { uint32_t w, gen; int32_t next; } *went; /* wait entries of the range's channels */
    uint32_t wentcap;
    int32_t wentfree;
    int nomem;
    /* moves done by thread p (its share of the moving worms): sums added
     * up after the moves, in range order (integers: any order is exact) */
    uint64_t lt, fd; /* link traversals, flits delivered (those in the window: trains_move) */
    int64_t ndr;         /* change in the count of worms being delivered */
    uint64_t *abits, *asum; /* headers that arrived here last cycle: channel bitmap and its summary */
    /* worms of thread p being delivered whose next event is the next cycle
     * (most are: a delivered train releases a channel a cycle); the wheel
     * holds only first events. Arrays, so the moves can prefetch ahead. */
    uint32_t *dnext, *dcur, ndnext;
    /* what thread p's moves produce for others, in plain lists (no atomic
     * operation in the moves: a locked one would also wait for the
     * stores and misses in flight): tails delivered, sources whose
     * injection channel was freed, and on several ranges the headers that
     * arrived and the released channels with waiters, by range (t) */
    uint32_t *fin, nfin, *rel, nrel;
    struct tev { uint32_t t, c; } *arr, *relx;
    uint32_t narr, nrelx;
} tpart;

typedef struct engine {
    const kc_simnet *net;
    const kc_simroute *route;
    const kc_simtraffic *tr;
    const kc_simconfig *cfg;
    uint32_t L, depth, dnet, dej, rdelay, vcs;
    uint32_t stride[KC_SIMNET_MAX_N]; /* tori: k^d, the id step of dimension d (head_node) */
    int pf; /* the hot state is larger than the caches: prefetch, compute head nodes (KCI_PF) */
    int vc_independent;
    uint32_t now;
    /* channels */
    chan *ch;
    uint32_t *rtime;     /* depth > 1: ring of ready times, depth per channel */
    uint32_t *link_used; /* shared VC links only: cycle + 1 the link last carried a flit */
    /* worms */
    worm *w;
    uint32_t *path, pmax, wcap, *wfree, nfree;
    uint32_t *active, nactive, *active2;
    waiter *waiting, *arrivals, *merged;
    uint32_t nwaiting, narrivals, wait_cap;
    /* sources */
    qmsg *q;
    uint32_t qcap, qused; /* slots from qused on were never used */
    int32_t qfree, *qhead, *qtail;
    uint64_t queued, queued_flits;
    uint32_t *senders, nsenders;
    double *next_gen;
    /* Poisson runs: a calendar of the sources by the cycle of their next
     * message (bucket = cycle mod KCI_CAL, a list of chunks of calc) */
    int32_t *cal_head, calfree; /* calfree: freed chunks; chunks from calused on were never used */
    uint32_t calused;
    struct calchunk *calc;
    uint32_t *due;
    /* runs (not driven): sources with queued messages in node order, and
     * those whose queue was empty until this cycle, in node order */
    uint32_t *pend, *pend2, *fresh, npend, nfresh;
    uint32_t *sortbuf; /* scratch of sort_u32: nodes * inj entries */
    kc_rng rng;
    /* bookkeeping */
    uint64_t flits_generated, flits_delivered, link_traversals;
    uint64_t gen_window, del_window, outstanding;
    uint64_t *src_gen, *src_acc; /* per source: flits generated / delivered in the window */
    uint32_t *qlen, *q0, *qlow;  /* per source: queue length now, at the window's start, lowest in its last half */
    int late;                    /* in the last half of the window */
    uint64_t *link_flits;
    int in_window, progress, overflow;
    int64_t last_arrival;
    kc_simsample lat;
    double net_lat_sum;
    int nomem;
    /* trains: the worm-level loop (see trains_cycle) */
    int trains;
    struct tchan { int32_t own, wait; } *tc; /* per channel: owner (-1 free), first wait entry (-1 none), together:
                                                a release reads both */
    tpart *tp;                    /* header arbitration by node range (nt of them) */
    uint32_t nt;
    uint32_t pnode[KCI_MAX_THREADS], pnet[KCI_MAX_THREADS], pej[KCI_MAX_THREADS]; /* first node, network
                                                                                    and ejection channel of each range */
    struct tpool *pool;           /* threads running ranges 1 .. nt-1, NULL on one thread */
    uint32_t *go, ngo;            /* worms whose header moves this cycle (new, or given a channel) */
    int32_t *wheel;               /* timer buckets (cycle mod KCI_WHEEL) of worms being delivered */
    uint32_t ndraining;           /* worms being delivered: they move every cycle */
    uint32_t last_moved;          /* the last cycle whose moves are done */
    int settled;                  /* trains_settle done (the run is over) */
    uint32_t *fin, nfin;          /* tails delivered this cycle */
    uint32_t *rel, nrel;          /* sources whose injection channel was released */
    uint64_t seq;
    /* driven runs (kc_simdrive): tails delivered in the current cycle */
    int driven;
    int logging;     /* runs for tests: every delivery in arr, by injection order (seq) */
    uint8_t *listed; /* driven: node is in senders (its queue may be non-empty) */
    kc_simarrival *arr;
    size_t narr, arr_cap;
} engine;

static void pool_stop(engine *e);

static void engine_free(engine *e)
{
    pool_stop(e);
    free(e->ch);
    free(e->rtime);
    free(e->link_used);
    free(e->w);
    free(e->path);
    free(e->wfree);
    free(e->active);
    free(e->active2);
    free(e->waiting);
    free(e->arrivals);
    free(e->merged);
    free(e->q);
    free(e->qhead);
    free(e->qtail);
    free(e->senders);
    free(e->next_gen);
    free(e->cal_head);
    free(e->calc);
    free(e->due);
    free(e->pend);
    free(e->pend2);
    free(e->fresh);
    free(e->sortbuf);
    free(e->arr);
    free(e->listed);
    free(e->src_gen);
    free(e->src_acc);
    free(e->qlen);
    free(e->q0);
    free(e->qlow);
    free(e->tc);
    for (uint32_t p = 0; e->tp && p < e->nt; p++) {
        tpart *t = &e->tp[p];
        free(t->fifo);
        free(t->woke);
        free(t->go);
        free(t->tmp);
        free(t->relc);
        free(t->went);
        free(t->abits);
        free(t->asum);
        free(t->dnext);
        free(t->dcur);
        free(t->fin);
        free(t->rel);
        free(t->arr);
        free(t->relx);
    }
    free(e->tp);
    free(e->go);
    free(e->wheel);
    free(e->fin);
    free(e->rel);
    kc_simsample_free(&e->lat);
}

/* Resizes array `ptr` to n elements, or returns -1 from the enclosing
 * function (the old array stays valid and owned by the engine). */
#define KCI_GROW(ptr, n)                                                                                      \
    do {                                                                                                      \
        void *grown_ = realloc((ptr), (size_t)(n) * sizeof *(ptr));                                           \
        if (!grown_)                                                                                          \
            return -1;                                                                                        \
        (ptr) = grown_;                                                                                       \
    } while (0)

static int grow_worms(engine *e)
{
    uint32_t cap = e->wcap ? 2 * e->wcap : 1024;
    KCI_GROW(e->w, cap);
    worm *w = e->w;
    kci_sim_huge(w, cap * sizeof *w);
    KCI_GROW(e->path, (size_t)cap * e->pmax);
    kci_sim_huge(e->path, (size_t)cap * e->pmax * sizeof *e->path);
    KCI_GROW(e->wfree, cap);
    KCI_GROW(e->active, cap);
    KCI_GROW(e->active2, cap);
    KCI_GROW(e->waiting, cap);
    KCI_GROW(e->arrivals, cap);
    KCI_GROW(e->merged, cap);
    if (e->trains) {
        KCI_GROW(e->go, cap);
        KCI_GROW(e->fin, cap);
        for (uint32_t r = 0; r < e->nt; r++) {
            tpart *t = &e->tp[r];
            KCI_GROW(t->fifo, cap);
            KCI_GROW(t->go, cap);
            KCI_GROW(t->tmp, cap);
            KCI_GROW(t->woke, cap);
            /* a worm releases at most two channels a cycle (one as its tail moves, its ejection channel) */
            KCI_GROW(t->relc, 2 * (size_t)cap);
            KCI_GROW(t->dnext, cap);
            KCI_GROW(t->dcur, cap);
            KCI_GROW(t->fin, cap);
            KCI_GROW(t->rel, cap); /* a worm frees its injection channel once */
            if (e->nt > 1) {
                KCI_GROW(t->arr, cap);
                KCI_GROW(t->relx, 2 * (size_t)cap);
            }
        }
        for (uint32_t i = e->wcap; i < cap; i++) {
            w[i].alive = 0;
            w[i].wgen = 0;
        }
    }
    for (uint32_t i = cap; i > e->wcap; i--)
        e->wfree[e->nfree++] = i - 1;
    e->wcap = cap;
    return 0;
}

static int enqueue(engine *e, uint32_t node, uint32_t dst, uint32_t len, uint32_t id)
{
    int32_t m = e->qfree;
    if (m >= 0) {
        e->qfree = e->q[m].next;
    } else {
        /* a slot never used: the doubled array is touched only as far as
         * the queues reach, so a run past saturation is not charged twice */
        if (e->qused == e->qcap) {
            uint32_t cap = e->qcap ? 2 * e->qcap : 4096;
            qmsg *q = realloc(e->q, cap * sizeof *q);
            if (!q)
                return -1;
            e->q = q;
            kci_sim_huge(q, cap * sizeof *q);
            e->qcap = cap;
        }
        m = (int32_t)e->qused++;
    }
    e->q[m].gen = e->now;
    e->q[m].dst = dst;
    e->q[m].len = len;
    e->q[m].id = id;
    e->q[m].next = -1;
    if (e->driven && !e->listed[node]) { /* driven runs visit only nodes with queued messages */
        e->listed[node] = 1;
        e->senders[e->nsenders++] = node;
    }
    if (e->qtail[node] >= 0) {
        e->q[e->qtail[node]].next = m;
    } else {
        e->qhead[node] = m;
        if (!e->driven)
            e->fresh[e->nfresh++] = node;
    }
    e->qtail[node] = m;
    e->queued++;
    e->qlen[node]++;
    e->queued_flits += len;
    e->flits_generated += len;
    if (e->in_window && !e->cfg->oneshot) {
        e->gen_window += len;
        e->src_gen[node] += len;
        e->outstanding++;
    }
    return 0;
}

static uint32_t pick_dest(engine *e, uint32_t node)
{
    const kc_simtraffic *t = e->tr;
    if (t->uniform) {
        uint32_t v = t->to_virt ? t->to_virt[node] : node;
        uint32_t y = (uint32_t)kc_rng_below(&e->rng, t->nodes - 1);
        if (y >= v)
            y++;
        return t->to_phys ? t->to_phys[y] : y;
    }
    uint32_t a = t->start[node], b = t->start[node + 1];
    return b - a == 1 ? t->dest[a] : t->dest[a + (uint32_t)kc_rng_below(&e->rng, b - a)];
}

static void sort_u32(engine *e, uint32_t *a, uint32_t n);

/* A prefetching helper has no visible effect, so a compiler that does not
 * inline it early may find it pure and drop the call (GCC 12 does): force
 * it inline. */
#if defined(__GNUC__)
#define KCI_PF_FN static inline __attribute__((always_inline))
#else
#define KCI_PF_FN static inline
#endif

#define KCI_CAL 4096 /* calendar buckets, a power of two */
#define KCI_CAL_CHUNK 30 /* sources a calendar chunk holds */

/* A calendar bucket is a list of chunks, all full but the first: walking
 * it reads arrays (a chunk a step, the next one prefetched) where a list
 * through the sources would miss the cache at every source. */
typedef struct calchunk {
    int32_t next;
    uint32_t n;
    uint32_t node[KCI_CAL_CHUNK], cyc[KCI_CAL_CHUNK];
} calchunk;

/* Chunks the calendar of `nodes` sources can need at once: every bucket
 * has at most one chunk that is not full, and a source is in one bucket. */
static uint64_t cal_chunks(uint64_t nodes) { return nodes / KCI_CAL_CHUNK + KCI_CAL + 1; }

/* x joins the calendar at the cycle of its next message (the first t with
 * next_gen < t + 1). The chunk pool (cal_chunks) never runs out. */
static inline void cal_insert(engine *e, uint32_t x)
{
    double t = floor(e->next_gen[x]);
    uint32_t cyc = t < 2147483648.0 ? (uint32_t)t : UINT32_C(2147483648);
    int32_t *b = &e->cal_head[cyc & (KCI_CAL - 1)];
    calchunk *ch = *b >= 0 ? &e->calc[*b] : NULL;
    if (!ch || ch->n == KCI_CAL_CHUNK) {
        int32_t f = e->calfree; /* a freed chunk, else the next never used (so untouched memory stays unmapped) */
        if (f >= 0)
            e->calfree = e->calc[f].next;
        else
            f = (int32_t)e->calused++;
        ch = &e->calc[f];
        ch->next = *b;
        ch->n = 0;
        *b = f;
    }
    ch->node[ch->n] = x;
    ch->cyc[ch->n++] = cyc;
}

/* The per-source state a generation at source x touches, prefetched a few
 * due sources ahead (they are far apart in memory). */
KCI_PF_FN void pf_source(const engine *e, uint32_t x)
{
    __builtin_prefetch(&e->next_gen[x], 1, 3);
    __builtin_prefetch(&e->qtail[x], 1, 3);
    __builtin_prefetch(&e->qlen[x], 1, 3);
    __builtin_prefetch(&e->src_gen[x], 1, 3);
    if (!e->tr->uniform)
        __builtin_prefetch(&e->tr->start[x], 0, 3);
}

static void generate(engine *e)
{
    const kc_simconfig *c = e->cfg;
    double mean = (double)e->L / c->load;
    double p = c->load / (double)e->L;
    if (c->process == KC_INJECT_POISSON) {
        /* This cycle's bucket holds the due sources (generation runs every
         * cycle, so none is late) and some a turn of the calendar later;
         * the due ones draw in node order, exactly as a scan of every
         * source would, and go back at the cycle of their next message. */
        int32_t *b = &e->cal_head[e->now & (KCI_CAL - 1)], h = *b;
        uint32_t n = 0;
        *b = -1;
        while (h >= 0) {
            calchunk *ch = &e->calc[h];
            int32_t next = ch->next;
            if (next >= 0 && e->pf)
                __builtin_prefetch(&e->calc[next], 0, 3);
            for (uint32_t j = 0; j < ch->n; j++) {
                if (ch->cyc[j] == e->now)
                    e->due[n++] = ch->node[j];
                else
                    cal_insert(e, ch->node[j]); /* a later turn: into a fresh chunk of this bucket */
            }
            ch->next = e->calfree; /* read whole: free it */
            e->calfree = h;
            h = next;
        }
        sort_u32(e, e->due, n);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t x = e->due[i];
            if (i + 8 < n && e->pf)
                pf_source(e, e->due[i + 8]);
            while (e->next_gen[x] < (double)e->now + 1.0) {
                if (enqueue(e, x, pick_dest(e, x), e->L, 0))
                    e->nomem = 1;
                e->next_gen[x] += kc_rng_exponential(&e->rng, mean);
            }
            cal_insert(e, x);
        }
        return;
    }
    for (uint32_t i = 0; i < e->nsenders; i++) {
        uint32_t x = e->senders[i];
        if (c->process == KC_INJECT_POISSON) {
            while (e->next_gen[x] < (double)e->now + 1.0) {
                if (enqueue(e, x, pick_dest(e, x), e->L, 0))
                    e->nomem = 1;
                e->next_gen[x] += kc_rng_exponential(&e->rng, mean);
            }
        } else if (kc_rng_unit(&e->rng) < p) {
            if (enqueue(e, x, pick_dest(e, x), e->L, 0))
                e->nomem = 1;
        }
    }
}

static inline uint32_t front_ready(const engine *e, uint32_t c)
{
    return e->depth == 1 ? e->ch[c].rt0 : e->rtime[(size_t)c * e->depth + e->ch[c].rhead];
}

/* c becomes worm wi's, empty. */
static inline void take_channel(engine *e, uint32_t c, uint32_t wi)
{
    e->ch[c] = (chan){(int32_t)wi, 0, 0, 0, 0};
}

/* Node ids ascending. Short lists by insertion; longer ones by a radix
 * sort in 11-bit digits through the engine's scratch array (e->sortbuf,
 * one entry per injection channel), only as many digits as node ids have:
 * two passes up to 2^22 nodes, against qsort's comparisons and calls. */
static void sort_u32(engine *e, uint32_t *a, uint32_t n)
{
    if (n <= 64) {
        for (uint32_t i = 1; i < n; i++) {
            uint32_t v = a[i], j = i;
            while (j > 0 && a[j - 1] > v) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    uint32_t bits = 32 - (uint32_t)__builtin_clz((e->net->nodes - 1) | 1);
    uint32_t *src = a, *dst = e->sortbuf;
    for (uint32_t shift = 0; shift < bits; shift += 11) {
        uint32_t pos[2048] = {0};
        for (uint32_t i = 0; i < n; i++)
            pos[src[i] >> shift & 2047]++;
        uint32_t sum = 0;
        for (uint32_t d = 0; d < 2048; d++) {
            uint32_t c = pos[d];
            pos[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            dst[pos[src[i] >> shift & 2047]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* Trains: the sources that may inject this cycle, in node order: those
 * whose queue was empty until this cycle's generation, and those whose
 * injection channel was released last cycle. Any other source with queued
 * messages had every injection channel busy after the last injection and
 * still has (channels are released only by movement), so the flit loop's
 * scan of every source with a queue would do nothing for it. */
static void trains_sources(engine *e)
{
    sort_u32(e, e->rel, e->nrel);
    uint32_t a = 0, b = 0, m = 0;
    while (a < e->nfresh || b < e->nrel) {
        uint32_t x;
        if (b == e->nrel || (a < e->nfresh && e->fresh[a] <= e->rel[b])) {
            x = e->fresh[a++];
        } else {
            x = e->rel[b++];
        }
        if (!m || e->pend[m - 1] != x)
            e->pend[m++] = x;
    }
    e->npend = m;
    e->nfresh = e->nrel = 0;
}

static void inject(engine *e)
{
    const kc_simnet *net = e->net;
    uint64_t window_end = (uint64_t)(e->cfg->warmup + e->cfg->measure);
    uint32_t *list = e->senders, nlist = e->nsenders;
    if (!e->driven && e->trains) {
        trains_sources(e);
        list = e->pend;
        nlist = e->npend;
    } else if (!e->driven) {
        /* the sources with queued messages, in node order: merge the new ones in */
        if (e->nfresh) {
            uint32_t a = 0, b = 0, m = 0;
            while (a < e->npend || b < e->nfresh)
                e->pend2[m++] = b == e->nfresh || (a < e->npend && e->pend[a] < e->fresh[b]) ? e->pend[a++]
                                                                                          : e->fresh[b++];
            uint32_t *t = e->pend;
            e->pend = e->pend2;
            e->pend2 = t;
            e->npend = m;
            e->nfresh = 0;
        }
        list = e->pend;
        nlist = e->npend;
    }
    for (uint32_t i = 0; i < nlist; i++) {
        uint32_t x = list[i];
        if (e->pf && i + 12 < nlist) { /* prefetch (sources are far apart): their queue and first injection channel */
            uint32_t y = list[i + 12];
            __builtin_prefetch(&e->qhead[y], 0, 3);
            __builtin_prefetch(&e->qlen[y], 1, 3);
            __builtin_prefetch(e->trains ? (const void *)&e->tc[kc_simnet_injch(net, y, 0)]
                                         : (const void *)&e->ch[kc_simnet_injch(net, y, 0)], 0, 3);
        }
        if (e->pf && i + 6 < nlist && e->qhead[list[i + 6]] >= 0) /* then the message at the head of the queue */
            __builtin_prefetch(&e->q[e->qhead[list[i + 6]]], 0, 3);
        if (e->pf && e->nfree > 6) { /* and the worm slot a few injections ahead */
            uint32_t wi = e->wfree[e->nfree - 7];
            __builtin_prefetch(&e->w[wi], 1, 3);
            __builtin_prefetch((const char *)&e->w[wi] + 63, 1, 3);
            __builtin_prefetch(&e->path[(size_t)wi * e->pmax], 1, 3);
        }
        for (int j = 0; j < net->inj && e->qhead[x] >= 0; j++) {
            uint32_t c = kc_simnet_injch(net, x, j);
            if (e->trains ? e->tc[c].own >= 0 : e->ch[c].owner >= 0)
                continue;
            if (!e->nfree && grow_worms(e)) {
                e->nomem = 1;
                return;
            }
            uint32_t wi = e->wfree[--e->nfree];
            int32_t m = e->qhead[x];
            worm *w = &e->w[wi];
            w->src = x;
            w->dst = e->q[m].dst;
            w->gen = e->q[m].gen;
            w->inj = e->now;
            w->src_left = e->q[m].len;
            w->len = e->q[m].len;
            w->id = e->q[m].id;
            w->np = 1;
            w->ptail = 0;
            w->stalled = 0;
            w->measured = e->cfg->oneshot || (w->gen >= (uint64_t)e->cfg->warmup && w->gen < window_end);
            e->path[(size_t)wi * e->pmax] = c;
            e->qhead[x] = e->q[m].next;
            if (e->qhead[x] < 0)
                e->qtail[x] = -1;
            e->q[m].next = e->qfree;
            e->qfree = m;
            e->queued--;
            if (--e->qlen[x] < e->qlow[x] && e->late)
                e->qlow[x] = e->qlen[x];
            e->queued_flits -= w->len;
            if (e->trains) {
                /* its first flit enters the injection channel this cycle */
                e->tc[c].own = (int32_t)wi;
                w->drain = w->blocked = w->woken = 0;
                w->alive = 1;
                w->head = -1;
                w->wlo = e->in_window ? -1 : KCI_FAR;
                w->whi = KCI_FAR;
                w->seq = e->seq++;
                e->go[e->ngo++] = wi;
                e->nactive++;
            } else {
                take_channel(e, c, wi);
                e->active[e->nactive++] = wi;
            }
        }
    }
    if (!e->driven && e->trains) {
        e->npend = 0;
    } else if (!e->driven) {
        uint32_t keep = 0;
        for (uint32_t i = 0; i < e->npend; i++)
            if (e->qhead[e->pend[i]] >= 0)
                e->pend[keep++] = e->pend[i];
        e->npend = keep;
    } else {
        uint32_t keep = 0;
        for (uint32_t i = 0; i < e->nsenders; i++) {
            uint32_t x = e->senders[i];
            if (e->qhead[x] >= 0)
                e->senders[keep++] = x;
            else
                e->listed[x] = 0;
        }
        e->nsenders = keep;
    }
}

/* The router a channel leads to. */
static inline uint32_t channel_head_node(const kc_simnet *net, uint32_t c)
{
    if (c < net->net_channels)
        return net->next_node[c / (uint32_t)net->vcs];
    return (c - net->net_channels) / (uint32_t)net->inj; /* injection channel */
}

/* channel_head_node from arithmetic where the topology gives it (the cube:
 * flip the port's bit; the torus: step the port's digit round its ring),
 * so the worm-level loop does not read the neighbour table (4 bytes a
 * port, a cache miss per header hop on large networks); meshes, which
 * may have unequal sides, read the table. */
static inline uint32_t head_node(const engine *e, uint32_t c)
{
    const kc_simnet *net = e->net;
    if (!e->pf || c >= net->net_channels || net->topo == KC_SIM_MESH) /* small: the table is in cache */
        return channel_head_node(net, c);
    uint32_t link = c / e->vcs, ports = (uint32_t)net->ports, node = link / ports, port = link - node * ports;
    if (net->topo == KC_SIM_HYPERCUBE)
        return node ^ (UINT32_C(1) << port);
    uint32_t d = port >> 1, w = e->stride[d], k = (uint32_t)net->k;
    uint32_t dig = net->digit[(size_t)node * (size_t)net->n + d];
    if (!(port & 1))
        return dig + 1 == k ? node - dig * w : node + w;
    return dig == 0 ? node + (k - 1) * w : node - w;
}

static void allocate(engine *e)
{
    uint32_t cand[KC_SIMROUTE_MAX];
    uint32_t keep = 0;
    for (uint32_t i = 0; i < e->nwaiting; i++) {
        waiter wt = e->waiting[i];
        if ((wt.key >> 32) + e->rdelay > e->now) {
            /* Sorted by arrival: nobody after this one is ready either. */
            memmove(&e->waiting[keep], &e->waiting[i], (e->nwaiting - i) * sizeof *e->waiting);
            keep += e->nwaiting - i;
            break;
        }
        worm *w = &e->w[wt.w];
        uint32_t in = (uint32_t)wt.key;
        uint32_t node = channel_head_node(e->net, in);
        int nc = kc_simroute_candidates(e->route, e->net, node, w->dst, in, cand);
        int got = 0;
        for (int j = 0; j < nc; j++) {
            uint32_t c = cand[j];
            if (e->ch[c].owner < 0) {
                take_channel(e, c, wt.w);
                e->path[(size_t)wt.w * e->pmax + w->np++] = c;
                got = 1;
                w->stalled = 0;
                e->progress = 1;
                break;
            }
        }
        if (!got)
            e->waiting[keep++] = wt;
    }
    e->nwaiting = keep;
}

static void finish(engine *e, worm *w, uint32_t arrival)
{
    if (w->measured) {
        if (kc_simsample_add(&e->lat, arrival - w->gen))
            e->nomem = 1;
        e->net_lat_sum += (double)(arrival - w->inj);
        e->outstanding--;
    }
    if ((int64_t)arrival > e->last_arrival)
        e->last_arrival = arrival;
    if (e->driven || e->logging) {
        if (e->narr == e->arr_cap) {
            size_t cap = e->arr_cap ? 2 * e->arr_cap : 64;
            kc_simarrival *a = realloc(e->arr, cap * sizeof *a);
            if (!a) {
                e->nomem = 1;
                return;
            }
            e->arr = a;
            e->arr_cap = cap;
        }
        e->arr[e->narr++] = (kc_simarrival){e->driven ? w->id : (uint32_t)w->seq, arrival};
    }
}

/* Move flits of worm wi; returns 1 when its tail has been delivered. */
static int move_worm(engine *e, uint32_t wi)
{
    const kc_simnet *net = e->net;
    worm *w = &e->w[wi];
    uint32_t *path = &e->path[(size_t)wi * e->pmax];
    uint32_t now = e->now, depth = e->depth, ejbase = net->net_channels + net->nodes * (uint32_t)net->inj;
    int moved = 0;
    for (int i = (int)w->np - 1; i >= (int)w->ptail; i--) {
        uint32_t c = path[i];
        uint32_t u = 0;
        if (i == 0) {
            if (!w->src_left)
                continue;
        } else {
            if (i - 1 < (int)w->ptail)
                continue;
            u = path[i - 1];
            if (!e->ch[u].cnt || front_ready(e, u) > now)
                continue;
        }
        chan *cc = &e->ch[c];
        int eject = c >= ejbase;
        if (!eject && cc->cnt >= depth)
            continue;
        if (c < net->net_channels) {
            uint32_t link = c / e->vcs;
            /* A channel takes at most one flit per cycle (one owner, visited
             * once), so only VCs sharing a link need the link's mark. */
            if (e->link_used) {
                if (e->link_used[link] == now + 1)
                    continue;
                e->link_used[link] = now + 1;
            }
            e->link_traversals++;
            if (e->link_flits && e->in_window)
                e->link_flits[link]++;
        }
        /* take the flit from upstream */
        if (i == 0) {
            w->src_left--;
        } else {
            chan *cu = &e->ch[u];
            cu->rhead = (uint16_t)((uint32_t)cu->rhead + 1 == depth ? 0 : cu->rhead + 1);
            if (--cu->cnt == 0 && cu->passed == w->len) {
                cu->owner = -1;
                w->ptail = (uint16_t)i;
            }
        }
        e->progress = 1;
        moved = 1;
        uint32_t seq = cc->passed++;
        if (eject) {
            e->flits_delivered++;
            if (e->in_window) {
                e->del_window++;
                e->src_acc[w->src]++;
            }
            if (seq + 1 == w->len) {
                cc->owner = -1;
                finish(e, w, now + e->dej);
                return 1;
            }
            continue;
        }
        if (cc->cnt >= depth)
            e->overflow = 1;
        uint32_t ready = now + (c < net->net_channels ? e->dnet : 1);
        if (depth == 1) {
            cc->rt0 = ready;
        } else {
            uint32_t slot = (uint32_t)cc->rhead + cc->cnt;
            if (slot >= depth)
                slot -= depth;
            e->rtime[(size_t)c * depth + slot] = ready;
        }
        cc->cnt++;
        if (seq == 0) {
            waiter *a = &e->arrivals[e->narrivals++];
            a->key = (uint64_t)ready << 32 | c;
            a->w = wi;
        }
    }
    if (!moved) {
        /* Its header waits for a channel and every channel it holds is
         * full: no flit of it can move before the header is allocated
         * (allocate clears the mark), so movement may skip it till then. */
        uint32_t head = path[w->np - 1];
        if (head >= ejbase || !e->ch[head].passed)
            return 0;
        for (int i = (int)w->np - 1; i >= (int)w->ptail; i--)
            if (e->ch[path[i]].cnt < depth)
                return 0;
        w->stalled = 1;
    }
    return 0;
}

/* Sort the cycle's new headers by key (keys are distinct: one per channel).
 * Few: insertion. Many: least-significant-digit radix on 11-bit digits of
 * (ready - now) * channels + channel, which is below (dnet + 1) * channels,
 * using merged as scratch. */
static void sort_arrivals(engine *e)
{
    waiter *a = e->arrivals;
    uint32_t n = e->narrivals;
    if (n <= 48) {
        for (uint32_t i = 1; i < n; i++) {
            waiter v = a[i];
            uint32_t j = i;
            while (j > 0 && a[j - 1].key > v.key) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    uint64_t chans = e->net->channels, base = (uint64_t)e->now;
    uint64_t top = ((uint64_t)e->dnet + 1) * chans;
    waiter *src = a, *dst = e->merged;
    uint32_t count[2048];
    for (int shift = 0; shift < 64 && (top >> shift); shift += 11) {
        memset(count, 0, sizeof count);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t k = ((src[i].key >> 32) - base) * chans + (uint32_t)src[i].key;
            count[(k >> shift) & 2047]++;
        }
        uint32_t sum = 0;
        for (int d = 0; d < 2048; d++) {
            uint32_t t = count[d];
            count[d] = sum;
            sum += t;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint64_t k = ((src[i].key >> 32) - base) * chans + (uint32_t)src[i].key;
            dst[count[(k >> shift) & 2047]++] = src[i];
        }
        waiter *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

static void move_all(engine *e)
{
    uint32_t keep = 0;
    e->narrivals = 0;
    for (uint32_t i = 0; i < e->nactive; i++) {
        uint32_t wi = e->active[i];
        if (e->w[wi].stalled)
            e->active2[keep++] = wi;
        else if (move_worm(e, wi))
            e->wfree[e->nfree++] = wi;
        else
            e->active2[keep++] = wi;
    }
    uint32_t *t = e->active;
    e->active = e->active2;
    e->active2 = t;
    e->nactive = keep;
    if (!e->narrivals)
        return;
    /* Merge the new headers into the waiting list, keeping arrival order. */
    sort_arrivals(e);
    uint32_t a = 0, b = 0, m = 0;
    while (a < e->nwaiting || b < e->narrivals) {
        if (b == e->narrivals || (a < e->nwaiting && e->waiting[a].key <= e->arrivals[b].key))
            e->merged[m++] = e->waiting[a++];
        else
            e->merged[m++] = e->arrivals[b++];
    }
    waiter *tw = e->waiting;
    e->waiting = e->merged;
    e->merged = tw;
    e->nwaiting = m;
}

/* ---- Trains: the worm-level loop ----
 *
 * With one-flit buffers, flits ready one cycle after they enter a channel
 * (switch delay 0, link latency 1) and no VCs taking turns on a link, the
 * flit loop above keeps every worm contiguous: moving head end first, a
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

static int cmp_waiter(const void *a, const void *b)
{
    uint64_t x = ((const waiter *)a)->key, y = ((const waiter *)b)->key;
    return x < y ? -1 : x > y;
}

/* Sort by key (keys distinct). */
static void sort_waiters(waiter *t, uint32_t n)
{
    if (n > 32) {
        qsort(t, n, sizeof *t, cmp_waiter);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        waiter v = t[i];
        uint32_t j = i;
        while (j > 0 && t[j - 1].key > v.key) {
            t[j] = t[j - 1];
            j--;
        }
        t[j] = v;
    }
}

/* Whether the worm-level loop reproduces the flit loop for this run. */
static int trains_apply(const kc_simnet *net, const kc_simconfig *c)
{
    return net->depth == 1 && c->switch_delay == 0 && c->link_latency == 1 &&
           (net->vcs == 1 || kc_sim_vcs_independent(net, c));
}

/* Flits of worm w that entered path index j while the window was open
 * (moves that set head to j .. j + len - 1, up to head). */
static uint64_t train_window_flits(const worm *w, int64_t j)
{
    int64_t lo = j > w->wlo + 1 ? j : w->wlo + 1;
    int64_t hi = j + (int64_t)w->len - 1;
    if (hi > w->whi)
        hi = w->whi;
    if (hi > w->head)
        hi = w->head;
    return hi >= lo ? (uint64_t)(hi - lo + 1) : 0;
}

/* The node range (thread part) of node v, and of channel c (the node c
 * leaves: a network or ejection channel, the ones headers wait on). Range
 * p holds nodes [pnode[p], pnode[p + 1]), whose network channels and
 * ejection channels are contiguous too: a few compares, no division. */
static inline uint32_t part_of_node(const engine *e, uint32_t v)
{
    uint32_t p = 0;
    for (uint32_t i = 1; i < e->nt; i++)
        p += v >= e->pnode[i];
    return p;
}

static inline uint32_t part_of_chan(const engine *e, uint32_t c)
{
    const uint32_t *b = c < e->net->net_channels ? e->pnet : e->pej;
    uint32_t p = 0;
    for (uint32_t i = 1; i < e->nt; i++)
        p += c >= b[i];
    return p;
}

/* The per-link counts (--channel-util) several threads' moves add to: a
 * relaxed atomic (a sum does not depend on the order). One thread: plain. */
static inline void add_u64(const engine *e, uint64_t *p, uint64_t v)
{
    if (e->nt > 1)
        __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    else
        *p += v;
}

/* Channel c (of range t) was released last cycle: its waiting headers are
 * tried this cycle. */
static void train_wake(engine *e, tpart *t, uint32_t c)
{
    int32_t i = e->tc[c].wait;
    if (i < 0)
        return;
    while (i >= 0) {
        struct went *en = &t->went[i];
        worm *w = &e->w[en->w];
        /* wgen first: an entry of an earlier wait (the worm may be in
         * another range now) fails there, before woken is read */
        if (w->wgen == en->gen && w->blocked && !w->woken && w->alive) {
            w->woken = 1;
            t->woke[t->nwoke++] = en->w;
        }
        int32_t next = en->next;
        en->next = t->wentfree;
        t->wentfree = i;
        i = next;
    }
    e->tc[c].wait = -1;
}

/* Channel c was released: its headers are woken at the next allocation
 * (nothing between now and then reads the wait entries or takes c). */
static inline void train_freed(engine *e, tpart *m, uint32_t c)
{
    e->tc[c].own = -1;
    if (e->tc[c].wait >= 0) {
        if (e->nt == 1)
            e->tp->relc[e->tp->nrelc++] = c;
        else
            m->relx[m->nrelx++] = (struct tev){part_of_chan(e, c), c};
    }
}

static int train_wait_on(engine *e, tpart *t, uint32_t c, uint32_t wi, uint32_t gen)
{
    if (t->wentfree < 0) {
        uint32_t cap = t->wentcap ? 2 * t->wentcap : 1024;
        struct went *n = realloc(t->went, cap * sizeof *n);
        if (!n)
            return -1;
        t->went = n;
        for (uint32_t i = cap; i > t->wentcap; i--) {
            n[i - 1].next = t->wentfree;
            t->wentfree = (int32_t)(i - 1);
        }
        t->wentcap = cap;
    }
    int32_t i = t->wentfree;
    t->wentfree = t->went[i].next;
    t->went[i] = (struct went){wi, gen, e->tc[c].wait};
    e->tc[c].wait = i;
    return 0;
}

/* Software prefetching for the moves and the header tries. On large
 * networks every worm record, path entry and channel a move touches is a
 * cache miss, and each depends on the one before (worm -> path -> channel),
 * so a loop over a list of worms waits for memory at every step. The loops
 * below walk their list in stages: the worm record KCI_PF items ahead, its
 * path entry KCI_PF_PATH ahead (the record is in cache by then), the
 * channel KCI_PF_CHAN ahead, so several misses are in flight at once. Prefetches
 * change no state and no result. */
#define KCI_PF 16     /* worm records this many items ahead */
#define KCI_PF_MIN_BYTES (UINT64_C(2) << 20) /* hot state from which prefetching pays (engine.pf) */
#define KCI_PF_PATH 10 /* path entries */
#define KCI_PF_CHAN 5  /* channels (and routers, arrival bits) */

KCI_PF_FN void pf_worm(const engine *e, uint32_t wi)
{
    const char *a = (const char *)&e->w[wi];
    __builtin_prefetch(a, 1, 3);
    __builtin_prefetch(a + 47, 1, 3);
}

/* The header of wi (in channel (uint32_t)key, at node `node` of range t)
 * asks for its next channel among the routing's nc candidates cand. */
static void train_try(engine *e, tpart *t, uint32_t wi, uint64_t key, const uint32_t *cand, int nc)
{
    worm *w = &e->w[wi];
    for (int j = 0; j < nc; j++) {
        uint32_t c = cand[j];
        if (e->tc[c].own < 0) {
            e->tc[c].own = (int32_t)wi;
            e->path[(size_t)wi * e->pmax + w->np++] = c;
            w->blocked = 0;
            if (c >= e->net->net_channels + e->net->nodes * (uint32_t)e->net->inj)
                w->drain = 1;
            t->go[t->ngo++] = (waiter){key, wi, 0};
            return;
        }
    }
    w->blocked = 1;
    w->wkey = key;
    uint32_t gen = ++w->wgen;
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
static void train_try_list(engine *e, tpart *t, const waiter *list, uint32_t n, int node_known)
{
    struct {
        uint32_t c[KCI_RING_CAND];
        int nc;
    } ring[KCI_PF / 2];
    uint32_t big[KC_SIMROUTE_MAX];
    const kc_simnet *net = e->net;
    if (!e->pf) { /* small network: no stages */
        for (uint32_t i = 0; i < n; i++) {
            const waiter *h = &list[i];
            uint32_t node = node_known ? h->node : head_node(e, (uint32_t)h->key);
            int nc = kc_simroute_candidates(e->route, net, node, e->w[h->w].dst, (uint32_t)h->key, big);
            train_try(e, t, h->w, h->key, big, nc);
        }
        return;
    }
    int digits = net->topo != KC_SIM_HYPERCUBE; /* grid routing reads the digits of both ends */
    for (uint32_t i = 0; i < n + KCI_PF / 2; i++) {
        if (i + KCI_PF < n) {
            uint32_t c = (uint32_t)list[i + KCI_PF].key;
            pf_worm(e, list[i + KCI_PF].w);
            if (!node_known && c < net->net_channels && net->topo != KC_SIM_HYPERCUBE)
                __builtin_prefetch(net->topo == KC_SIM_MESH ? (const void *)&net->next_node[c / e->vcs]
                                                            : (const void *)&net->digit[(size_t)(c / e->vcs / (uint32_t)net->ports) * (size_t)net->n],
                                   0, 3);
        }
        if (digits && i + KCI_PF / 2 < n) {
            const waiter *h = &list[i + KCI_PF / 2];
            uint32_t node = node_known ? h->node : head_node(e, (uint32_t)h->key);
            __builtin_prefetch(&net->digit[(size_t)e->w[h->w].dst * (size_t)net->n], 0, 3);
            __builtin_prefetch(&net->digit[(size_t)node * (size_t)net->n], 0, 3);
        }
        if (i < n) { /* the candidates of header i, and their channels */
            const waiter *h = &list[i];
            const worm *w = &e->w[h->w];
            uint32_t node = node_known ? h->node : head_node(e, (uint32_t)h->key);
            uint32_t cand[KC_SIMROUTE_MAX];
            int nc = kc_simroute_candidates(e->route, net, node, w->dst, (uint32_t)h->key, cand);
            int keep = nc <= KCI_RING_CAND ? nc : 0;
            for (int j = 0; j < keep; j++) {
                ring[i % (KCI_PF / 2)].c[j] = cand[j];
                __builtin_prefetch(&e->tc[cand[j]], 1, 3);
            }
            ring[i % (KCI_PF / 2)].nc = keep ? nc : -1;
            __builtin_prefetch(&e->path[(size_t)h->w * e->pmax + w->np], 1, 3);
        }
        if (i >= KCI_PF / 2 - 1 && i + 1 - KCI_PF / 2 < n) {
            uint32_t k = i + 1 - KCI_PF / 2; /* tried now: its candidates were computed KCI_PF / 2 - 1 steps ago */
            const waiter *h = &list[k];
            if (ring[k % (KCI_PF / 2)].nc >= 0) {
                train_try(e, t, h->w, h->key, ring[k % (KCI_PF / 2)].c, ring[k % (KCI_PF / 2)].nc);
            } else {
                uint32_t node = node_known ? h->node : head_node(e, (uint32_t)h->key);
                int nc = kc_simroute_candidates(e->route, net, node, e->w[h->w].dst, (uint32_t)h->key, big);
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
static void part_scan(engine *e, tpart *t)
{
    if (t->ftail && t->fhead) {
        memmove(t->fifo, t->fifo + t->fhead, (t->ftail - t->fhead) * sizeof *t->fifo);
        t->ftail -= t->fhead;
        t->fhead = 0;
    }
    uint64_t ready = (uint64_t)e->last_moved + 1;
    uint32_t first = t->ftail, me = (uint32_t)(t - e->tp);
    for (uint32_t p = 0; e->nt > 1 && p < e->nt; p++) { /* the arrivals the moves listed for range t */
        const tpart *m = &e->tp[p];
        for (uint32_t i = 0; i < m->narr; i++) {
            if (m->arr[i].t != me)
                continue;
            uint32_t c = m->arr[i].c;
            t->abits[c >> 6] |= UINT64_C(1) << (c & 63);
            t->asum[c >> 12] |= UINT64_C(1) << (c >> 6 & 63);
        }
    }
    size_t nsum = ((size_t)e->net->channels + 4095) / 4096;
    for (size_t s = 0; s < nsum; s++) {
        uint64_t sb = t->asum[s];
        if (!sb)
            continue;
        t->asum[s] = 0;
        while (sb) {
            size_t wd = s * 64 + (size_t)__builtin_ctzll(sb);
            sb &= sb - 1;
            uint64_t b = t->abits[wd];
            t->abits[wd] = 0;
            while (b) {
                uint32_t c = (uint32_t)(wd * 64 + (size_t)__builtin_ctzll(b));
                b &= b - 1;
                /* small networks: the worm and router at once; large: below */
                t->fifo[t->ftail++] = e->pf ? (waiter){ready << 32 | c, 0, 0}
                                            : (waiter){ready << 32 | c, (uint32_t)e->tc[c].own, head_node(e, c)};
            }
        }
    }
    if (!e->pf)
        return;
    /* then the worm and router of each, prefetching ahead (KCI_PF) */
    const kc_simnet *net = e->net;
    for (uint32_t i = first; i < t->ftail; i++) {
        if (e->pf && i + 2 * KCI_PF < t->ftail) { /* a short loop: further ahead */
            uint32_t c = (uint32_t)t->fifo[i + 2 * KCI_PF].key;
            __builtin_prefetch(&e->tc[c], 0, 3);
            if (c < net->net_channels && net->topo != KC_SIM_HYPERCUBE)
                __builtin_prefetch(net->topo == KC_SIM_MESH ? (const void *)&net->next_node[c / e->vcs]
                                                            : (const void *)&net->digit[(size_t)(c / e->vcs / (uint32_t)net->ports) * (size_t)net->n],
                                   0, 3);
        }
        uint32_t c = (uint32_t)t->fifo[i].key;
        t->fifo[i].w = (uint32_t)e->tc[c].own;
        t->fifo[i].node = head_node(e, c);
    }
}

static void pool_mid(engine *e);

static void part_allocate(engine *e, tpart *t)
{
    part_scan(e, t);
    t->ngo = 0;
    uint32_t me = (uint32_t)(t - e->tp);
    for (uint32_t p = 0; e->nt > 1 && p < e->nt; p++) /* the channels of range t the moves released */
        for (uint32_t i = 0; i < e->tp[p].nrelx; i++)
            if (e->tp[p].relx[i].t == me)
                t->relc[t->nrelc++] = e->tp[p].relx[i].c;
    for (uint32_t i = 0; i < t->nrelc; i++) {
        /* prefetch: the channel, its first wait entry, that entry's worm */
        if (!e->pf) {
            train_wake(e, t, t->relc[i]);
            continue;
        }
        if (i + KCI_PF < t->nrelc)
            __builtin_prefetch(&e->tc[t->relc[i + KCI_PF]], 1, 3);
        if (i + KCI_PF_PATH < t->nrelc && e->tc[t->relc[i + KCI_PF_PATH]].wait >= 0)
            __builtin_prefetch(&t->went[e->tc[t->relc[i + KCI_PF_PATH]].wait], 1, 3);
        if (i + KCI_PF_CHAN < t->nrelc && e->tc[t->relc[i + KCI_PF_CHAN]].wait >= 0)
            pf_worm(e, t->went[e->tc[t->relc[i + KCI_PF_CHAN]].wait].w);
        train_wake(e, t, t->relc[i]);
    }
    t->nrelc = 0;
    /* A stale wait entry names a worm whose header has moved to another
     * range: its wake-up reads that worm's wgen and blocked, which that
     * range's tries write, so every range wakes before any tries. */
    pool_mid(e);
    uint32_t n = t->nwoke;
    if (n) {
        waiter *m = t->tmp;
        for (uint32_t i = 0; i < n; i++) {
            worm *w = &e->w[t->woke[i]];
            m[i] = (waiter){w->wkey, t->woke[i], 0};
            w->woken = 0; /* nothing reads it before the try */
        }
        sort_waiters(m, n);
        t->nwoke = 0;
        train_try_list(e, t, m, n, 0);
    }
    t->ngo_woke = t->ngo;
    uint32_t due = t->fhead;
    while (due < t->ftail && (t->fifo[due].key >> 32) + e->rdelay <= e->now)
        due++;
    train_try_list(e, t, t->fifo + t->fhead, due - t->fhead, 1);
    t->fhead = due;
    if (t->fhead == t->ftail)
        t->fhead = t->ftail = 0;
}

/* Appends to e->go the headers of the ranges' go lists [from, to) in key
 * order: the order one range holding every node would have given. */
static void merge_go(engine *e, int woken)
{
    uint32_t pos[KCI_MAX_THREADS];
    for (uint32_t p = 0; p < e->nt; p++)
        pos[p] = woken ? 0 : e->tp[p].ngo_woke;
    for (;;) {
        uint32_t best = UINT32_MAX;
        uint64_t bk = 0;
        for (uint32_t p = 0; p < e->nt; p++) {
            tpart *t = &e->tp[p];
            uint32_t end = woken ? t->ngo_woke : t->ngo;
            if (pos[p] < end && (best == UINT32_MAX || t->go[pos[p]].key < bk)) {
                best = p;
                bk = t->go[pos[p]].key;
            }
        }
        if (best == UINT32_MAX)
            return;
        e->go[e->ngo++] = e->tp[best].go[pos[best]++].w;
    }
}

static void part_move(engine *e, uint32_t p);

/* The threads of one run: range p > 0 runs on thread p, range 0 on the
 * caller. Two barriers a cycle (start, done); pthread barriers sleep in
 * the kernel, so a thread that waits does not take the other core. */
struct tpool {
    pthread_barrier_t start, mid, done;
    pthread_t th[KCI_MAX_THREADS];
    pthread_mutex_t mu; /* startup: threads wait for `ready` before the first barrier */
    pthread_cond_t cv;
    uint32_t started; /* threads created */
    int ready, stop;
    int phase; /* 0: header arbitration (part_allocate), 1: moves (part_move) */
    engine *e;
};

typedef struct tworker {
    struct tpool *pool;
    uint32_t p;
} tworker;

static void *part_thread(void *arg)
{
    struct tpool *pl = ((tworker *)arg)->pool;
    uint32_t p = ((tworker *)arg)->p;
    free(arg);
    pthread_mutex_lock(&pl->mu);
    while (!pl->ready && !pl->stop)
        pthread_cond_wait(&pl->cv, &pl->mu);
    int stop = pl->stop;
    pthread_mutex_unlock(&pl->mu);
    if (stop)
        return NULL;
    for (;;) {
        pthread_barrier_wait(&pl->start);
        if (pl->stop)
            return NULL;
        if (pl->phase)
            part_move(pl->e, p);
        else
            part_allocate(pl->e, &pl->e->tp[p]);
        pthread_barrier_wait(&pl->done);
    }
}

/* Between the wake-ups and the tries of an allocation (several threads). */
static void pool_mid(engine *e)
{
    if (e->pool)
        pthread_barrier_wait(&e->pool->mid);
}

/* One phase: range 0 here, the others on their threads; returns when all
 * are done. */
static void part_run(engine *e, int phase)
{
    e->pool->phase = phase;
    pthread_barrier_wait(&e->pool->start);
    if (phase)
        part_move(e, 0);
    else
        part_allocate(e, &e->tp[0]);
    pthread_barrier_wait(&e->pool->done);
}

static void pool_free(struct tpool *pl);

static void pool_stop(engine *e)
{
    struct tpool *pl = e->pool;
    if (!pl)
        return;
    pl->stop = 1;
    pthread_barrier_wait(&pl->start);
    for (uint32_t i = 0; i < pl->started; i++)
        pthread_join(pl->th[i], NULL);
    pool_free(pl);
    e->pool = NULL;
}

static void pool_free(struct tpool *pl)
{
    pthread_barrier_destroy(&pl->start);
    pthread_barrier_destroy(&pl->mid);
    pthread_barrier_destroy(&pl->done);
    pthread_cond_destroy(&pl->cv);
    pthread_mutex_destroy(&pl->mu);
    free(pl);
}

/* Threads for ranges 1 .. nt-1; -1 when they cannot all be started (the
 * started ones are told to stop before they reach a barrier). */
static int pool_start(engine *e)
{
    struct tpool *pl = calloc(1, sizeof *pl);
    if (!pl)
        return -1;
    pl->e = e;
    if (pthread_mutex_init(&pl->mu, NULL)) {
        free(pl);
        return -1;
    }
    if (pthread_cond_init(&pl->cv, NULL)) {
        pthread_mutex_destroy(&pl->mu);
        free(pl);
        return -1;
    }
    int ok = pthread_barrier_init(&pl->start, NULL, e->nt) == 0;
    if (ok && pthread_barrier_init(&pl->mid, NULL, e->nt)) {
        pthread_barrier_destroy(&pl->start);
        ok = 0;
    }
    if (ok && pthread_barrier_init(&pl->done, NULL, e->nt)) {
        pthread_barrier_destroy(&pl->start);
        pthread_barrier_destroy(&pl->mid);
        ok = 0;
    }
    if (!ok) {
        pthread_cond_destroy(&pl->cv);
        pthread_mutex_destroy(&pl->mu);
        free(pl);
        return -1;
    }
    for (uint32_t p = 1; ok && p < e->nt; p++) {
        tworker *a = malloc(sizeof *a);
        ok = a != NULL;
        if (ok) {
            *a = (tworker){pl, p};
            ok = pthread_create(&pl->th[pl->started], NULL, part_thread, a) == 0;
            if (ok)
                pl->started++;
            else
                free(a);
        }
    }
    pthread_mutex_lock(&pl->mu);
    if (ok)
        pl->ready = 1;
    else
        pl->stop = 1;
    pthread_cond_broadcast(&pl->cv);
    pthread_mutex_unlock(&pl->mu);
    if (!ok) {
        for (uint32_t i = 0; i < pl->started; i++)
            pthread_join(pl->th[i], NULL);
        pool_free(pl);
        return -1;
    }
    e->pool = pl;
    return 0;
}

static void trains_allocate(engine *e)
{
    if (e->pool) {
        part_run(e, 0);
    } else {
        part_allocate(e, &e->tp[0]);
    }
    for (uint32_t p = 0; p < e->nt; p++)
        if (e->tp[p].nomem)
            e->nomem = 1;
    if (e->nt == 1) {
        tpart *t = &e->tp[0];
        for (uint32_t i = 0; i < t->ngo; i++)
            e->go[e->ngo++] = t->go[i].w;
        return;
    }
    merge_go(e, 1);
    merge_go(e, 0);
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
static int64_t train_head(const worm *w, int64_t last)
{
    return w->drain && w->head >= (int64_t)w->np - 1 ? (int64_t)w->np - 1 + (last - (int64_t)w->t0) : w->head;
}

/* Delivered flits of a train at header index h in the window of moves. */
static uint64_t train_window_delivered(const worm *w, int64_t h)
{
    int64_t E = (int64_t)w->np - 1;
    int64_t lo = E > w->wlo + 1 ? E : w->wlo + 1, hi = h < w->whi ? h : w->whi;
    return hi >= lo ? (uint64_t)(hi - lo + 1) : 0;
}

/* The tail of worm wi leaves path index j (its channel is released). */
static void train_release(engine *e, tpart *m, worm *w, const uint32_t *path, int64_t j)
{
    uint32_t c = path[j];
    w->ptail = (uint16_t)(j + 1);
    if (j == 0) {
        e->tc[c].own = -1;
        if (e->driven) /* driven runs keep their own list of senders */
            return;
        if (e->nt == 1) /* one thread: straight into the engine's list */
            e->rel[e->nrel++] = w->src;
        else
            m->rel[m->nrel++] = w->src;
        return;
    }
    if (e->link_flits)
        add_u64(e, &e->link_flits[c / e->vcs], train_window_flits(w, j));
    train_freed(e, m, c);
}

/* Into the timer wheel of the thread moving it (m): it stays with it. */
static void train_schedule(engine *e, tpart *m, uint32_t wi, uint32_t at)
{
    worm *w = &e->w[wi];
    int32_t *wheel = &e->wheel[(size_t)(m - e->tp) * KCI_WHEEL];
    w->tat = at;
    w->tnext = wheel[at & (KCI_WHEEL - 1)];
    wheel[at & (KCI_WHEEL - 1)] = (int32_t)wi;
}

/* Worm wi's tail has been delivered: settle its statistics (counted as a
 * whole, not per move) and free its ejection channel. */
static void train_done(engine *e, tpart *m, uint32_t wi)
{
    worm *w = &e->w[wi];
    int64_t E = (int64_t)w->np - 1, len = (int64_t)w->len;
    const uint32_t *path = &e->path[(size_t)wi * e->pmax];
    m->lt += (uint64_t)len * (uint64_t)(E - 1);
    m->fd += (uint64_t)len;
    train_freed(e, m, path[E]);
    if (e->nt == 1)
        e->fin[e->nfin++] = wi;
    else
        m->fin[m->nfin++] = wi;
}

/* One move of worm wi whose header was just given a channel (or entered
 * its injection channel). */
static void train_step(engine *e, tpart *m, uint32_t wi)
{
    worm *w = &e->w[wi];
    const uint32_t *path = &e->path[(size_t)wi * e->pmax];
    int64_t h = ++w->head, len = (int64_t)w->len;
    int64_t E = w->drain ? (int64_t)w->np - 1 : INT64_MAX / 2;
    if (h - len >= 0) /* a worm shorter than its path: the tail leaves a channel */
        train_release(e, m, w, path, h - len);
    if (h < E) {
        uint32_t c = path[h]; /* the header's new channel: it asks for the next one from next cycle */
        if (e->nt == 1) {
            e->tp->abits[c >> 6] |= UINT64_C(1) << (c & 63);
            e->tp->asum[c >> 12] |= UINT64_C(1) << (c >> 6 & 63);
        } else {
            m->arr[m->narr++] = (struct tev){part_of_node(e, head_node(e, c)), c};
        }
        return;
    }
    /* The header is delivered: from now on the train moves every cycle and
     * its channels are released one a cycle once the tail reaches them. */
    w->t0 = e->now;
    if (len == 1) {
        train_done(e, m, wi);
        return;
    }
    m->ndr++;
    train_schedule(e, m, wi, e->now + (uint32_t)(w->ptail + len - E));
}

/* A train being delivered reaches its next event: its tail leaves a channel. */
static void train_event(engine *e, tpart *m, uint32_t wi)
{
    worm *w = &e->w[wi];
    const uint32_t *path = &e->path[(size_t)wi * e->pmax];
    int64_t E = (int64_t)w->np - 1, len = (int64_t)w->len;
    int64_t h = E + ((int64_t)e->now - (int64_t)w->t0);
    w->head = (int32_t)h;
    train_release(e, m, w, path, h - len);
    if (h - E == len - 1) {
        m->ndr--;
        train_done(e, m, wi);
    } else {
        m->dnext[m->ndnext++] = wi;
    }
}

/* The path index whose channel the next move of worm w releases (-1:
 * none), and the one its header enters (-1: none); ev: a delivered
 * train's event (train_event), else a header move (train_step). */
static inline int64_t move_release_index(const engine *e, const worm *w, int ev)
{
    int64_t h = ev ? (int64_t)w->np - 1 + ((int64_t)e->now - (int64_t)w->t0) : (int64_t)w->head + 1;
    return h - (int64_t)w->len;
}

KCI_PF_FN void pf_move(const engine *e, const uint32_t *list, uint32_t k, uint32_t n, int ev)
{
    if (k + KCI_PF < n)
        pf_worm(e, list[k + KCI_PF]);
    if (k + KCI_PF_PATH < n) {
        uint32_t wi = list[k + KCI_PF_PATH];
        const worm *w = &e->w[wi];
        int64_t j = move_release_index(e, w, ev);
        const uint32_t *path = &e->path[(size_t)wi * e->pmax];
        if (j >= 0 && j < (int64_t)e->pmax)
            __builtin_prefetch(&path[j], 0, 3);
        if (!ev && w->head + 1 < (int32_t)w->np)
            __builtin_prefetch(&path[w->head + 1], 0, 3);
    }
    if (k + KCI_PF_CHAN < n) {
        uint32_t wi = list[k + KCI_PF_CHAN];
        const worm *w = &e->w[wi];
        int64_t j = move_release_index(e, w, ev);
        const uint32_t *path = &e->path[(size_t)wi * e->pmax];
        if (j >= 0 && j < (int64_t)w->np)
            __builtin_prefetch(&e->tc[path[j]], 1, 3);
        if (!ev && w->head + 1 < (int32_t)w->np) { /* the arrival bit, or range, of the header's new channel */
            uint32_t c = path[w->head + 1];
            if (e->nt == 1)
                __builtin_prefetch(&e->tp[0].abits[c >> 6], 1, 3);
            else if (c < e->net->net_channels && e->net->topo == KC_SIM_MESH)
                __builtin_prefetch(&e->net->next_node[c / e->vcs], 0, 3);
        }
    }
}

/* Thread p's moves: the worms being delivered whose event is now (first
 * events from its timer wheel, then the rest from its next-cycle list),
 * and its share of the headers that move (a contiguous part of the go
 * list). Each worm touches its own record and path and the channels it
 * owns; what others need goes into thread p's own lists (tpart). */
static void part_move(engine *e, uint32_t p)
{
    tpart *m = &e->tp[p];
    m->lt = m->fd = 0;
    m->ndr = 0;
    m->nfin = m->nrel = m->narr = m->nrelx = 0; /* the last cycle's were taken in by now */
    int32_t *bucket = &e->wheel[(size_t)p * KCI_WHEEL + (e->now & (KCI_WHEEL - 1))];
    int32_t at = *bucket;
    *bucket = -1;
    uint32_t *cur = m->dnext, ncur = m->ndnext;
    m->dnext = m->dcur;
    m->dcur = cur;
    m->ndnext = 0;
    while (at >= 0) {
        uint32_t wi = (uint32_t)at;
        at = e->w[wi].tnext;
        if (e->w[wi].tat == e->now)
            train_event(e, m, wi);
        else
            train_schedule(e, m, wi, e->w[wi].tat); /* a later turn of the wheel */
    }
    for (uint32_t k = 0; k < ncur; k++) {
        if (e->pf)
            pf_move(e, cur, k, ncur, 1);
        train_event(e, m, cur[k]);
    }
    uint32_t lo = (uint32_t)((uint64_t)e->ngo * p / e->nt), hi = (uint32_t)((uint64_t)e->ngo * (p + 1) / e->nt);
    const uint32_t *go = e->go + lo;
    for (uint32_t k = 0; k < hi - lo; k++) {
        if (e->pf)
            pf_move(e, go, k, hi - lo, 0);
        train_step(e, m, go[k]);
    }
}

static void trains_move(engine *e)
{
    if (e->ndraining || e->ngo)
        e->progress = 1;
    e->last_moved = e->now;
    e->nfin = 0;
    if (e->pool)
        part_run(e, 1);
    else
        part_move(e, 0);
    for (uint32_t p = 0; p < e->nt; p++) {
        tpart *m = &e->tp[p];
        e->link_traversals += m->lt;
        e->flits_delivered += m->fd;
        e->ndraining = (uint32_t)((int64_t)e->ndraining + m->ndr);
    }
    e->ngo = 0;
    for (uint32_t p = 0; e->nt > 1 && p < e->nt; p++) { /* several threads: their lists, in range order */
        tpart *m = &e->tp[p];
        memcpy(e->fin + e->nfin, m->fin, m->nfin * sizeof *m->fin);
        e->nfin += m->nfin;
        if (!e->driven) {
            memcpy(e->rel + e->nrel, m->rel, m->nrel * sizeof *m->rel);
            e->nrel += m->nrel;
        }
    }
    /* Deliveries in the flit loop's order (its list of worms is by
     * injection): driven runs list them, logged runs (tests) compare them;
     * on several threads it makes the order of the statistics and of freed
     * worm slots the same for every thread count. One thread unlogged
     * skips the sort: its order changes no figure (integer sums, a sorted
     * sample, slots that name no result). */
    uint32_t *f = e->fin;
    if (e->nfin > 1 && (e->driven || e->logging || e->nt > 1)) {
        waiter *t = e->merged;
        for (uint32_t i = 0; i < e->nfin; i++)
            t[i] = (waiter){e->w[f[i]].seq, f[i], 0};
        sort_waiters(t, e->nfin);
        for (uint32_t i = 0; i < e->nfin; i++)
            f[i] = t[i].w;
    }
    for (uint32_t i = 0; i < e->nfin; i++) {
        worm *w = &e->w[f[i]];
        uint64_t inw = train_window_delivered(w, (int64_t)w->np - 1 + (int64_t)w->len - 1);
        e->del_window += inw;
        if (inw)
            e->src_acc[w->src] += inw;
        finish(e, w, e->now + e->dej);
        w->alive = 0;
        e->wfree[e->nfree++] = f[i];
        e->nactive--;
    }
    /* this cycle's new headers are put in their ranges' FIFOs at the
     * next allocation (part_scan) */
}

/* Window edges, at the start of a cycle: moves from this cycle on are in
 * (start) or out (end) of the window. */
static void trains_window_edge(engine *e, int end)
{
    for (uint32_t i = 0; i < e->wcap; i++) {
        worm *w = &e->w[i];
        if (!w->alive)
            continue;
        int64_t h = train_head(w, (int64_t)e->now - 1);
        if (end)
            w->whi = (int32_t)h;
        else
            w->wlo = (int32_t)h;
    }
}

/* Statistics of the trains still in flight when the run stops: traversals,
 * deliveries and per-link counts so far. */
static void trains_settle(engine *e)
{
    for (uint32_t i = 0; i < e->wcap; i++) {
        worm *w = &e->w[i];
        if (!w->alive || w->head < 0)
            continue;
        int64_t h = train_head(w, e->last_moved), len = (int64_t)w->len;
        int64_t E = w->drain ? (int64_t)w->np - 1 : INT64_MAX / 2;
        w->head = (int32_t)h;
        e->link_traversals += train_traversals(h, len, E - 1);
        if (h >= E) {
            e->flits_delivered += (uint64_t)(h - E + 1);
            uint64_t inw = train_window_delivered(w, h);
            e->del_window += inw;
            e->src_acc[w->src] += inw;
        }
        if (!e->link_flits)
            continue;
        const uint32_t *path = &e->path[(size_t)i * e->pmax];
        int64_t last = E - 1 < h ? E - 1 : h;
        for (int64_t j = w->ptail > 1 ? w->ptail : 1; j <= last; j++)
            e->link_flits[path[j] / e->vcs] += train_window_flits(w, j);
    }
}

/* Flits of the live trains in channel buffers, and still at their sources
 * (after trains_settle). */
static void trains_flits(const engine *e, uint64_t *buffered, uint64_t *at_source)
{
    for (uint32_t i = 0; i < e->wcap; i++) {
        const worm *w = &e->w[i];
        if (!w->alive)
            continue;
        int64_t h = w->head, len = (int64_t)w->len;
        *at_source += (uint64_t)(len - (h + 1 < len ? h + 1 : len));
        int64_t hi = w->drain ? (int64_t)w->np - 2 : h;
        if (hi > h)
            hi = h;
        int64_t lo = h - len + 1 > 0 ? h - len + 1 : 0;
        if (hi >= lo)
            *buffered += (uint64_t)(hi - lo + 1);
    }
}

/* The flit loop's list of waiting headers, by key (for find_cycle). */
static void trains_waiting(engine *e)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < e->wcap; i++)
        if (e->w[i].alive && e->w[i].blocked)
            e->waiting[m++] = (waiter){e->w[i].wkey, i, 0};
    for (uint32_t p = 0; p < e->nt; p++)
        for (uint32_t i = e->tp[p].fhead; i < e->tp[p].ftail; i++)
            e->waiting[m++] = e->tp[p].fifo[i];
    sort_waiters(e->waiting, m);
    e->nwaiting = m;
}

uint64_t kci_sim_fixed_bytes(const kci_simshape *s, int vc_independent, int trains, int parts)
{
    uint64_t np = (uint64_t)(parts > 1 ? parts : 1);
    uint64_t net_channels = s->nodes * (uint64_t)s->ports * (uint64_t)s->vcs;
    uint64_t channels = net_channels + s->nodes * (uint64_t)(s->inj + s->ej);
    uint64_t links = net_channels / (uint64_t)s->vcs;
    /* flit loop: the packed record, and a ring of ready times for deeper
     * buffers; trains: owner and wait list, and a bit of the arrivals map */
    uint64_t per_channel = trains ? sizeof(struct tchan)
                                  : sizeof(chan) + (s->depth > 1 ? (uint64_t)s->depth * sizeof(uint32_t) : 0);
    uint64_t bitmaps = trains ? np * ((channels + 63) / 64 + (channels + 4095) / 4096) * sizeof(uint64_t) : 0;
    /* qhead, qtail, senders, next_gen, src_gen, src_acc, qlen, q0, qlow,
     * the calendar's due list, the lists of sources with queued messages
     * (pend, pend2, fresh), the sort's scratch (one per injection
     * channel), trains' released sources; and the calendar's chunks */
    uint64_t per_node = 2 * sizeof(int32_t) + sizeof(uint32_t) + sizeof(double) + 2 * sizeof(uint64_t) +
                        3 * sizeof(uint32_t) + 1 * sizeof(uint32_t) + 3 * sizeof(uint32_t) +
                        (uint64_t)s->inj * sizeof(uint32_t) + (trains ? (uint64_t)s->inj * sizeof(uint32_t) : 0);
    uint64_t fixed = KCI_CAL * sizeof(int32_t) + cal_chunks(s->nodes) * sizeof(calchunk) + (trains ? np * (KCI_WHEEL * sizeof(int32_t) + sizeof(tpart)) : 0);
    uint64_t link_used = s->vcs > 1 && !vc_independent ? (links + 1) * sizeof(uint32_t) : 0;
    return channels * per_channel + bitmaps + link_used + s->nodes * per_node + fixed;
}

uint64_t kci_sim_worm_bytes(const kci_simshape *s, int trains, int adaptive, int parts)
{
    /* record, path of max_hops + 2 channels, free list, two active lists,
     * three waiting lists; trains: two more lists, per node range the
     * headers' FIFO, its go list and sort space, the woken list, two
     * released channels, the two next-cycle lists of delivered trains, the
     * moves' lists (delivered worms, freed injection channels; on several
     * ranges arrivals and released channels tagged with their range), and
     * a wait entry for every channel a blocked header may ask for (a
     * port's VCs, or all ports' for adaptive routings) */
    uint64_t b = sizeof(worm) + ((uint64_t)s->max_hops + 2) * sizeof(uint32_t) + 3 * sizeof(uint32_t) + 3 * sizeof(waiter);
    if (trains) {
        uint64_t cand = (uint64_t)(adaptive ? s->ports : 1) * (uint64_t)s->vcs;
        if (cand < (uint64_t)s->ej)
            cand = (uint64_t)s->ej;
        if (cand > KC_SIMROUTE_MAX)
            cand = KC_SIMROUTE_MAX;
        b += 2 * sizeof(uint32_t) + (uint64_t)(parts > 1 ? parts : 1) * (3 * sizeof(waiter) + 7 * sizeof(uint32_t) +
                                                   (parts > 1 ? 3 * sizeof(struct tev) : 0)) +
             cand * sizeof(struct went);
    }
    return b;
}

uint64_t kci_sim_queue_entry_bytes(void) { return sizeof(qmsg); }

static kci_simshape shape_of(const kc_simnet *net)
{
    kci_simshape s = {net->nodes, net->n, net->ports, net->vcs, net->inj, net->ej, net->depth, net->max_hops};
    return s;
}

size_t kc_sim_memory(const kc_simnet *net, const kc_simconfig *cfg)
{
    kci_simshape s = shape_of(net);
    uint64_t network = (uint64_t)net->nodes * ((uint64_t)net->ports * sizeof(uint32_t) + (uint64_t)net->n);
    int trains = trains_apply(net, cfg);
    int parts = trains && cfg->threads > 1 && net->nodes >= KC_SIM_PAR_NODES ? cfg->threads : 1;
    return (size_t)(kci_sim_fixed_bytes(&s, kc_sim_vcs_independent(net, cfg), trains, parts > KCI_MAX_THREADS ? KCI_MAX_THREADS : parts) + network);
}

/* Follow "waits for a channel held by" from the oldest waiting header. */
static void find_cycle(engine *e, kc_simresult *out)
{
    uint32_t cand[KC_SIMROUTE_MAX];
    out->cycle_len = 0;
    if (e->trains)
        trains_waiting(e);
    if (!e->nwaiting)
        return;
    int32_t *step = malloc(e->wcap * sizeof *step);
    uint32_t *req = malloc(e->wcap * sizeof *req);
    if (!step || !req) {
        free(step);
        free(req);
        return;
    }
    for (uint32_t i = 0; i < e->wcap; i++)
        step[i] = -1;
    /* index waiting headers by worm */
    uint32_t *inch = malloc(e->wcap * sizeof *inch);
    if (!inch) {
        free(step);
        free(req);
        return;
    }
    for (uint32_t i = 0; i < e->wcap; i++)
        inch[i] = KC_SIM_NONE;
    for (uint32_t i = 0; i < e->nwaiting; i++)
        inch[e->waiting[i].w] = (uint32_t)e->waiting[i].key;
    uint32_t wi = e->waiting[0].w;
    for (int s = 0;; s++) {
        if (inch[wi] == KC_SIM_NONE)
            break;
        step[wi] = s;
        uint32_t node = channel_head_node(e->net, inch[wi]);
        int nc = kc_simroute_candidates(e->route, e->net, node, e->w[wi].dst, inch[wi], cand);
        int32_t next = -1;
        for (int j = 0; j < nc && next < 0; j++)
            if ((e->trains ? e->tc[cand[j]].own : e->ch[cand[j]].owner) >= 0) {
                next = e->trains ? e->tc[cand[j]].own : e->ch[cand[j]].owner;
                req[s] = cand[j];
            }
        if (next < 0)
            break;
        if (step[next] >= 0) {
            for (int t = step[next]; t <= s && out->cycle_len < KC_SIM_CYCLE_MAX; t++)
                out->cycle[out->cycle_len++] = req[t];
            break;
        }
        wi = (uint32_t)next;
    }
    free(step);
    free(req);
    free(inch);
}

static kc_status engine_init(engine *e, const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *tr,
                             const kc_simconfig *cfg, int flit_loop, uint32_t nt, int force_pf, kc_err *err)
{
    memset(e, 0, sizeof *e);
    e->trains = !flit_loop && trains_apply(net, cfg);
    e->net = net;
    e->route = route;
    e->tr = tr;
    e->cfg = cfg;
    e->L = (uint32_t)cfg->msg_flits;
    e->depth = (uint32_t)net->depth;
    e->vcs = (uint32_t)net->vcs;
    e->vc_independent = kc_sim_vcs_independent(net, cfg);
    e->dnet = (uint32_t)(cfg->switch_delay + cfg->link_latency);
    e->dej = (uint32_t)(cfg->switch_delay + 1);
    e->rdelay = (uint32_t)cfg->route_delay;
    e->pmax = (uint32_t)net->max_hops + 2;
    /* channel records, neighbour table and per-source state against the
     * 2-core machine's 1 MiB of L2: on smaller networks everything is a
     * cache hit and the prefetching stages only cost instructions (about
     * 25 % on the 8-cube) */
    e->pf = force_pf || (uint64_t)net->channels * 8 + (uint64_t)net->nodes * 80 > KCI_PF_MIN_BYTES;
    for (int d = 0, w = 1; d < net->n && d < KC_SIMNET_MAX_N; d++, w *= net->k)
        e->stride[d] = (uint32_t)w;
    e->qfree = -1;
    e->last_arrival = 0;
    kc_simsample_init(&e->lat);
    kc_rng_seed(&e->rng, cfg->seed);
    size_t ch = net->channels, links = net->net_channels / (uint32_t)net->vcs;
    int ring_ok = 1, links_ok = 1;
    if (e->trains) {
        e->tc = malloc(ch * sizeof *e->tc);
        e->rel = malloc((size_t)net->nodes * (size_t)net->inj * sizeof *e->rel);
        e->wheel = malloc((size_t)nt * KCI_WHEEL * sizeof *e->wheel);
        e->nt = nt;
        for (uint32_t p = 0; p < nt; p++) {
            e->pnode[p] = (uint32_t)((uint64_t)net->nodes * p / nt);
            e->pnet[p] = (uint32_t)((uint64_t)e->pnode[p] * (net->net_channels / net->nodes));
            e->pej[p] = net->net_channels + net->nodes * (uint32_t)net->inj + e->pnode[p] * (uint32_t)net->ej;
        }
        e->tp = calloc(nt, sizeof *e->tp);
        int bits_ok = e->tp != NULL;
        for (uint32_t p = 0; bits_ok && p < nt; p++) {
            e->tp[p].wentfree = -1;
            e->tp[p].abits = calloc((ch + 63) / 64, sizeof *e->tp[p].abits);
            e->tp[p].asum = calloc((ch + 4095) / 4096, sizeof *e->tp[p].asum);
            bits_ok = e->tp[p].abits && e->tp[p].asum;
        }
        ring_ok = e->tc && e->rel && e->wheel && bits_ok;
        if (ring_ok) {
            kci_sim_huge(e->tc, ch * sizeof *e->tc);
            for (uint32_t p = 0; p < nt; p++)
                kci_sim_huge(e->tp[p].abits, (ch + 63) / 64 * sizeof *e->tp[p].abits);
            for (size_t c = 0; c < ch; c++)
                e->tc[c].own = e->tc[c].wait = -1;
            for (size_t i = 0; i < (size_t)nt * KCI_WHEEL; i++)
                e->wheel[i] = -1;
        }
    } else {
        e->ch = calloc(ch, sizeof *e->ch);
        ring_ok = e->ch != NULL;
        kci_sim_huge(e->ch, ch * sizeof *e->ch);
        if (ring_ok)
            for (size_t c = 0; c < ch; c++)
                e->ch[c].owner = -1;
    }
    if (ring_ok && e->depth > 1)
        ring_ok = (e->rtime = calloc(ch * e->depth, sizeof *e->rtime)) != NULL;
    if (e->vcs > 1 && !e->vc_independent)
        links_ok = (e->link_used = calloc(links + 1, sizeof *e->link_used)) != NULL;
    e->qhead = malloc(net->nodes * sizeof *e->qhead);
    e->qtail = malloc(net->nodes * sizeof *e->qtail);
    e->senders = malloc(net->nodes * sizeof *e->senders);
    e->next_gen = malloc(net->nodes * sizeof *e->next_gen);
    e->cal_head = malloc(KCI_CAL * sizeof *e->cal_head);
    e->calc = malloc(cal_chunks(net->nodes) * sizeof *e->calc);
    e->due = malloc(net->nodes * sizeof *e->due);
    e->pend = malloc(net->nodes * sizeof *e->pend);
    e->pend2 = malloc(net->nodes * sizeof *e->pend2);
    e->fresh = malloc(net->nodes * sizeof *e->fresh);
    e->sortbuf = malloc((size_t)net->nodes * (size_t)net->inj * sizeof *e->sortbuf);
    e->src_gen = calloc(net->nodes, sizeof *e->src_gen);
    e->src_acc = calloc(net->nodes, sizeof *e->src_acc);
    e->qlen = calloc(net->nodes, sizeof *e->qlen);
    e->q0 = calloc(net->nodes, sizeof *e->q0);
    e->qlow = calloc(net->nodes, sizeof *e->qlow);
    if (!ring_ok || !links_ok || !e->qhead || !e->qtail ||
        !e->senders || !e->next_gen || !e->cal_head || !e->calc || !e->due || !e->pend || !e->pend2 || !e->fresh || !e->sortbuf || !e->src_gen || !e->src_acc || !e->qlen || !e->q0 ||
        !e->qlow || grow_worms(e))
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    /* per-source state read at random (generation and delivery) */
    kci_sim_huge(e->qhead, net->nodes * sizeof *e->qhead);
    kci_sim_huge(e->qtail, net->nodes * sizeof *e->qtail);
    kci_sim_huge(e->next_gen, net->nodes * sizeof *e->next_gen);
    kci_sim_huge(e->src_gen, net->nodes * sizeof *e->src_gen);
    kci_sim_huge(e->src_acc, net->nodes * sizeof *e->src_acc);
    kci_sim_huge(e->qlen, net->nodes * sizeof *e->qlen);
    for (uint32_t x = 0; x < net->nodes; x++) {
        e->qhead[x] = e->qtail[x] = -1;
        if (tr && (tr->uniform || tr->start[x + 1] > tr->start[x])) /* driven runs: as messages come */
            e->senders[e->nsenders++] = x;
    }
    double mean = (double)e->L / (cfg->load > 0 ? cfg->load : 1);
    for (uint32_t i = 0; i < e->nsenders; i++)
        e->next_gen[e->senders[i]] = kc_rng_exponential(&e->rng, mean);
    for (uint32_t i = 0; i < KCI_CAL; i++)
        e->cal_head[i] = -1;
    e->calfree = -1;
    e->calused = 0;
    for (uint32_t i = 0; i < e->nsenders; i++)
        cal_insert(e, e->senders[i]);
    return KC_OK;
}

/* Steps 2-4 of a cycle and the watchdog; 1 when the run must stop (out of
 * memory, or no progress for too long while worms are in the network). */
static int engine_cycle(engine *e, int64_t *idle)
{
    inject(e);
    e->progress = 0;
    if (e->trains) {
        trains_allocate(e);
        trains_move(e);
    } else {
        allocate(e);
        move_all(e);
    }
    if (e->nomem)
        return 1;
    if (!e->progress && e->nactive > 0) {
        /* a header may legitimately sit R cycles, a flit S + W */
        if (++*idle >= e->cfg->watchdog + (int64_t)e->rdelay + (int64_t)e->dnet)
            return 1;
    } else {
        *idle = 0;
    }
    return 0;
}

/* Conservation and buffer bounds at the end of a run; fills the flit counts
 * of out. KC_EINTERNAL when broken. */
static kc_status check_invariants(engine *e, kc_simresult *out, kc_err *err)
{
    const kc_simnet *net = e->net;
    uint64_t buffered = 0, at_source = e->queued_flits;
    if (e->trains) {
        trains_flits(e, &buffered, &at_source);
    } else {
        for (uint32_t c = 0; c < net->channels; c++) {
            if (e->ch[c].cnt > e->depth || (e->ch[c].owner < 0 && e->ch[c].cnt))
                e->overflow = 1;
            buffered += e->ch[c].cnt;
        }
        for (uint32_t i = 0; i < e->nactive; i++)
            at_source += e->w[e->active[i]].src_left;
    }
    out->flits_generated = e->flits_generated;
    out->flits_delivered = e->flits_delivered;
    out->flits_queued = at_source;
    out->flits_in_network = buffered;
    if (e->overflow)
        return kc_fail(err, KC_EINTERNAL, "invariant violated: a buffer held more flits than its depth");
    if (e->flits_generated != e->flits_delivered + at_source + buffered)
        return kc_fail(err, KC_EINTERNAL, "invariant violated: %llu flits generated, %llu delivered, %llu queued, %llu in the network",
                       (unsigned long long)e->flits_generated, (unsigned long long)e->flits_delivered,
                       (unsigned long long)at_source, (unsigned long long)buffered);
    return KC_OK;
}

static kc_status check_config(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *tr,
                              const kc_simconfig *c, kc_err *err)
{
    if (tr->nodes != net->nodes)
        return kc_fail_param(err, KC_EINVAL, "traffic", "the traffic is for %u nodes, the network has %u", tr->nodes, net->nodes);
    if (c->msg_flits < 1 || c->msg_flits > 65535)
        return kc_fail_param(err, KC_ERANGE, "msg_flits", "message length must be 1..65535 flits, got %d", c->msg_flits);
    if (!c->oneshot && !(c->load > 0 && c->load <= (double)c->msg_flits))
        return kc_fail_param(err, KC_ERANGE, "load", "offered load must be > 0 and at most one message per cycle (%d flits/node/cycle), got %g", c->msg_flits, c->load);
    if (c->process == KC_INJECT_BERNOULLI && !c->oneshot && c->load > (double)c->msg_flits)
        return kc_fail_param(err, KC_ERANGE, "load", "Bernoulli injection needs load <= message length");
    if (c->route_delay < 0 || c->switch_delay < 0 || c->link_latency < 1 || c->route_delay > 1000 ||
        c->switch_delay > 1000 || c->link_latency > 1000)
        return kc_fail_param(err, KC_ERANGE, "timing", "router delays must be 0..1000 cycles and link latency 1..1000");
    if (c->warmup < 0 || c->measure < 1 || c->drain < 0 || c->watchdog < 1 ||
        c->warmup + c->measure + c->drain > 2000000000LL)
        return kc_fail_param(err, KC_ERANGE, "cycles", "bad warm-up / measurement / drain / watchdog cycles");
    if (net->max_hops + 2 > 65535)
        return kc_fail_param(err, KC_ERANGE, "k", "routes too long for the simulator");
    return kc_simroute_check(route, net, err);
}

/* Per-source judgement ("Sustained load" in kcube/sim.h): fills the source
 * fields of out; returns how many judged sources fell behind. */
static uint32_t judge_sources(const engine *e, int64_t window, kc_simresult *out)
{
    double slack = KC_SIM_SOURCE_SLACK * (double)e->L;
    uint32_t behind = 0;
    out->source_ratio_min = 1;
    out->source_throughput_min = 0;
    out->source_growth_max = 0;
    out->source_worst = KC_SIM_NONE;
    int first = 1;
    for (uint32_t x = 0; x < e->net->nodes; x++) {
        uint64_t g = e->src_gen[x], a = e->src_acc[x];
        if (!g)
            continue; /* generated nothing in the window: not judged */
        out->sources_judged++;
        double ratio = (double)a / (double)g, thr = (double)a / (double)window;
        double growth = (double)g - (double)a; /* = growth of x's backlog over the window, in flits */
        /* behind: short of 97 % (beyond the slack) and its queue never once
         * came back to its starting length in the last half of the window */
        if (growth > KC_SIM_SOURCE_SHARE * (double)g + slack && e->qlow[x] > e->q0[x])
            behind++;
        if (first || ratio < out->source_ratio_min) {
            out->source_ratio_min = ratio;
            out->source_worst = x;
        }
        if (first || thr < out->source_throughput_min)
            out->source_throughput_min = thr;
        if (first || growth > out->source_growth_max)
            out->source_growth_max = growth;
        first = 0;
    }
    out->sources_behind = behind;
    return behind;
}

kc_status kci_sim_run_loop(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                           const kc_simconfig *cfg, int flit_loop, kc_simresult *out, kc_err *err)
{
    return kci_sim_run_par(net, route, traffic, cfg, flit_loop, KC_SIM_PAR_NODES, out, NULL, NULL, err);
}

kc_status kci_sim_run_par(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                          const kc_simconfig *cfg, int flit_loop, uint32_t min_nodes, kc_simresult *out,
                          kc_simarrival **log, size_t *nlog, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_status st = check_config(net, route, traffic, cfg, err);
    if (st)
        return st;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* node ranges: only the worm-level loop splits, only on networks large
     * enough that two barriers a cycle cost little against the cycle */
    uint32_t nt = 1;
    if (!flit_loop && trains_apply(net, cfg) && cfg->threads > 1 && net->nodes >= min_nodes) {
        nt = (uint32_t)(cfg->threads < KCI_MAX_THREADS ? cfg->threads : KCI_MAX_THREADS);
        if (nt > net->nodes)
            nt = net->nodes;
    }
    engine e;
    if ((st = engine_init(&e, net, route, traffic, cfg, flit_loop, nt, min_nodes < KC_SIM_PAR_NODES, err))) {
        engine_free(&e);
        return st;
    }
    e.logging = log != NULL;
    if (nt > 1 && pool_start(&e)) {
        engine_free(&e);
        return kc_fail(err, KC_ENOMEM, "cannot start %u threads for the simulation", nt);
    }
    if (cfg->channel_util) {
        out->link_flits = calloc(net->net_channels / (uint32_t)net->vcs + 1, sizeof *out->link_flits);
        if (!out->link_flits) {
            engine_free(&e);
            return kc_fail(err, KC_ENOMEM, "out of memory");
        }
        e.link_flits = out->link_flits;
    }
    int64_t wstart = cfg->oneshot ? 0 : cfg->warmup, wend = cfg->oneshot ? INT64_MAX : cfg->warmup + cfg->measure;
    int64_t limit = cfg->oneshot ? 2000000000LL : wend + cfg->drain;
    if (cfg->oneshot) {
        for (uint32_t x = 0; x < net->nodes; x++)
            if (!traffic->uniform)
                for (uint32_t j = traffic->start[x]; j < traffic->start[x + 1]; j++)
                    if (enqueue(&e, x, traffic->dest[j], e.L, 0))
                        e.nomem = 1;
        e.outstanding = e.queued;
    }
    double cap = cfg->queue_cap * (double)net->nodes;
    int64_t idle = 0, t;
    int gave_up = 0;
    double queue_at_end = -1;
    for (t = 0; t < limit; t++) {
        e.now = (uint32_t)t;
        e.in_window = t >= wstart && t < wend;
        if (!cfg->oneshot) {
            /* queue lengths for the per-source judgement: at the window's
             * start, then the lowest in its last half */
            if (t == wstart) {
                memcpy(e.q0, e.qlen, net->nodes * sizeof *e.qlen);
                if (e.trains)
                    trains_window_edge(&e, 0);
            }
            if (t == wstart + cfg->measure / 2) {
                memcpy(e.qlow, e.qlen, net->nodes * sizeof *e.qlen);
                e.late = 1;
            }
            if (t == wend) {
                if (e.trains)
                    trains_window_edge(&e, 1);
                queue_at_end = (double)e.queued;
                e.late = 0;
            }
            if (t >= wend && e.outstanding == 0)
                break;
            generate(&e);
        } else if (e.outstanding == 0) {
            break;
        }
        if (engine_cycle(&e, &idle)) {
            if (!e.nomem) {
                out->deadlock = 1;
                find_cycle(&e, out);
                t++;
            }
            break;
        }
        if (!cfg->oneshot && (double)e.queued > cap) {
            gave_up = 1;
            t++;
            break;
        }
    }
    out->cycles = t;
    if (e.nomem) {
        engine_free(&e);
        kc_simresult_free(out);
        return kc_fail(err, KC_ENOMEM, "out of memory during the simulation");
    }
    if (e.trains)
        trains_settle(&e);
    if ((st = check_invariants(&e, out, err))) {
        engine_free(&e);
        kc_simresult_free(out);
        return st;
    }
    /* the part of the window actually simulated (a run that gives up stops early) */
    int64_t window = (t < wend ? t : wend) - wstart;
    if (window < 1)
        window = 1;
    out->offered = cfg->oneshot ? 0 : cfg->load;
    out->generated = (double)e.gen_window / ((double)net->nodes * (double)window);
    out->throughput = (double)e.del_window / ((double)net->nodes * (double)window);
    out->messages = e.lat.count;
    out->latency_avg = kc_simsample_mean(&e.lat);
    out->network_latency_avg = e.lat.count ? e.net_lat_sum / (double)e.lat.count : 0;
    out->latency_p99 = kc_simsample_quantile(&e.lat, 0.99);
    out->link_traversals = e.link_traversals;
    out->completion = e.last_arrival;
    out->queue_avg = (queue_at_end >= 0 ? queue_at_end : (double)e.queued) / (double)net->nodes;
    if (cfg->oneshot)
        out->sustainable = !out->deadlock && e.outstanding == 0;
    else {
        uint32_t behind = judge_sources(&e, window, out);
        out->sustainable = !gave_up && !out->deadlock && e.outstanding == 0 &&
                           out->throughput >= (1 - KC_SIM_SOURCE_SHARE) * out->generated && behind == 0;
    }
    if (log) { /* handed over: engine_free must not free it */
        *log = e.arr;
        *nlog = e.narr;
        e.arr = NULL;
    }
    engine_free(&e);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->wall_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return KC_OK;
}

kc_status kc_sim_run(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                     const kc_simconfig *cfg, kc_simresult *out, kc_err *err)
{
    return kci_sim_run_loop(net, route, traffic, cfg, 0, out, err);
}

int kci_sim_trains(const kc_simnet *net, const kc_simconfig *cfg) { return trains_apply(net, cfg); }

void kc_simresult_free(kc_simresult *r)
{
    free(r->link_flits);
    r->link_flits = NULL;
}

/* ---- Driven runs: a caller injects messages cycle by cycle ---- */

struct kc_simdrive {
    engine e;
    kc_simconfig cfg;
    int64_t idle;
    int stopped; /* deadlock or out of memory */
    kc_simresult res;
};

kc_status kci_simdrive_new_loop(const kc_simnet *net, const kc_simroute *route, const kc_simconfig *cfg,
                                int flit_loop, kc_simdrive **out, kc_err *err)
{
    *out = NULL;
    if (cfg->route_delay < 0 || cfg->switch_delay < 0 || cfg->link_latency < 1 || cfg->route_delay > 1000 ||
        cfg->switch_delay > 1000 || cfg->link_latency > 1000)
        return kc_fail_param(err, KC_ERANGE, "timing", "router delays must be 0..1000 cycles and link latency 1..1000");
    if (cfg->watchdog < 1)
        return kc_fail_param(err, KC_ERANGE, "cycles", "the watchdog must be at least one cycle");
    if (net->max_hops + 2 > 65535)
        return kc_fail_param(err, KC_ERANGE, "k", "routes too long for the simulator");
    kc_status st = kc_simroute_check(route, net, err);
    if (st)
        return st;
    kc_simdrive *d = calloc(1, sizeof *d);
    if (!d)
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    d->cfg = *cfg;
    d->cfg.oneshot = 1; /* no generation, no measurement window: every message counts */
    d->cfg.msg_flits = 1;
    if ((st = engine_init(&d->e, net, route, NULL, &d->cfg, flit_loop, 1, 0, err))) {
        engine_free(&d->e);
        free(d);
        return st;
    }
    d->e.driven = 1;
    d->e.in_window = 1;
    d->e.listed = calloc(net->nodes, sizeof *d->e.listed);
    d->res.link_flits = calloc(net->net_channels / (uint32_t)net->vcs + 1, sizeof *d->res.link_flits);
    if (!d->res.link_flits || !d->e.listed) {
        kc_simdrive_free(d); /* also the link counts, when only the list failed */
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    }
    d->e.link_flits = d->res.link_flits;
    *out = d;
    return KC_OK;
}

kc_status kc_simdrive_new(const kc_simnet *net, const kc_simroute *route, const kc_simconfig *cfg,
                          kc_simdrive **out, kc_err *err)
{
    return kci_simdrive_new_loop(net, route, cfg, 0, out, err);
}

void kc_simdrive_free(kc_simdrive *d)
{
    if (!d)
        return;
    engine_free(&d->e);
    kc_simresult_free(&d->res);
    free(d);
}

int64_t kc_simdrive_now(const kc_simdrive *d) { return d->e.now; }

int kc_simdrive_busy(const kc_simdrive *d) { return d->e.nactive > 0 || d->e.queued > 0; }

int kc_simdrive_deadlock(const kc_simdrive *d) { return d->res.deadlock; }

kc_status kc_simdrive_skip(kc_simdrive *d, int64_t cycle, kc_err *err)
{
    if (cycle < d->e.now || cycle > KC_SIMDRIVE_MAX_CYCLE)
        return kc_fail_param(err, KC_ERANGE, "cycle", "cannot move to cycle %lld from cycle %lld (limit %lld)",
                             (long long)cycle, (long long)d->e.now, (long long)KC_SIMDRIVE_MAX_CYCLE);
    if (cycle > d->e.now && kc_simdrive_busy(d))
        return kc_fail(err, KC_EINTERNAL, "cannot skip cycles while messages are in flight");
    d->e.now = (uint32_t)cycle;
    return KC_OK;
}

kc_status kc_simdrive_send(kc_simdrive *d, uint32_t src, uint32_t dst, uint32_t flits, uint32_t id, kc_err *err)
{
    engine *e = &d->e;
    if (src >= e->net->nodes || dst >= e->net->nodes)
        return kc_fail_param(err, KC_ERANGE, "node", "node %u or %u out of range (%u nodes)", src, dst, e->net->nodes);
    if (flits < 1 || flits > KC_SIMDRIVE_MAX_FLITS)
        return kc_fail_param(err, KC_ERANGE, "flits", "a message must be 1..%u flits, got %u",
                             (unsigned)KC_SIMDRIVE_MAX_FLITS, flits);
    if (enqueue(e, src, dst, flits, id))
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    e->outstanding++;
    return KC_OK;
}

kc_status kc_simdrive_step(kc_simdrive *d, const kc_simarrival **arrivals, size_t *count, kc_err *err)
{
    engine *e = &d->e;
    e->narr = 0;
    *arrivals = e->arr;
    *count = 0;
    if (d->stopped)
        return kc_fail(err, KC_EINTERNAL, "the simulation stopped (deadlock)");
    if (e->now >= KC_SIMDRIVE_MAX_CYCLE)
        return kc_fail_param(err, KC_ERANGE, "cycle", "the run passed %lld cycles", (long long)KC_SIMDRIVE_MAX_CYCLE);
    if (engine_cycle(e, &d->idle)) {
        d->stopped = 1;
        if (e->nomem)
            return kc_fail(err, KC_ENOMEM, "out of memory during the simulation");
        d->res.deadlock = 1;
        find_cycle(e, &d->res);
    }
    e->now++;
    *arrivals = e->arr;
    *count = e->narr;
    return KC_OK;
}

kc_status kc_simdrive_finish(kc_simdrive *d, kc_simresult *out, kc_err *err)
{
    engine *e = &d->e;
    if (e->trains && !e->settled) {
        trains_settle(e);
        e->settled = 1;
    }
    kc_status st = check_invariants(e, &d->res, err);
    if (st)
        return st;
    d->res.cycles = e->now;
    d->res.completion = e->last_arrival;
    d->res.messages = e->lat.count;
    d->res.latency_avg = kc_simsample_mean(&e->lat);
    d->res.latency_p99 = kc_simsample_quantile(&e->lat, 0.99);
    d->res.network_latency_avg = e->lat.count ? e->net_lat_sum / (double)e->lat.count : 0;
    d->res.link_traversals = e->link_traversals;
    d->res.sustainable = !d->res.deadlock && !kc_simdrive_busy(d);
    *out = d->res;
    d->res.link_flits = NULL; /* now the caller's */
    e->link_flits = NULL;
    return KC_OK;
}
