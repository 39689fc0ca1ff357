/* Private to src/sim: the wormhole router engine's state, shared by the
 * files that each hold one concern of it.
 *
 *   config.c    defaults, name tables, the checks of a configuration, and
 *               the decisions a run is shaped by (which loop, how many
 *               node ranges), which the memory and work estimates call too
 *   engine.c    the engine's arrays (set up, grown, freed, and their bytes
 *               for the memory estimate), injection and delivery shared by
 *               both loops, one cycle and its watchdog
 *   calendar.c  message generation: the sources' calendar, their queues
 *   flit.c      the flit-by-flit loop (any model)
 *   stream.c    the same model with streaming worms moved as trains: the
 *               loop for what the worm-level loop does not model
 *   trains.c    the worm-level loop (rigid worms: one-flit buffers, ...)
 *   pipeline*.c the router-pipeline loop (BookSim2's router model)
 *   threads.c   the threads that run the worm-level loop's node ranges
 *   driver.c    kc_sim_run and kc_simdrive: runs, results, deadlocks
 *
 * The engine is one synchronous cycle at a time: generation, injection,
 * allocation of channels to waiting headers, movement (see flit.c for the
 * model and trains.c for why the worm-level loop gives the same results). */
#ifndef KCI_SIM_ENGINE_H
#define KCI_SIM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/rng.h"
#include "kcube/sim.h"
#include "core/bits.h"
#include "core/sort.h"
#include "kcube/simstats.h"
#include "sim_internal.h"
#include "wheel.h"

#define KCI_FAR (INT32_MAX / 2) /* a path index no train reaches: a window edge not yet passed */
#define KCI_WHEEL 1024          /* timer buckets of the trains, a power of two */
#define KCI_SWHEEL 64           /* buckets of the stream loop's wheels, a power of two (most events are nearer) */
#define KCI_CAL 4096            /* calendar buckets, a power of two */

/* Software prefetching for the moves and the header tries. On large
 * networks every worm record, path entry and channel a move touches is a
 * cache miss, and each depends on the one before (worm -> path -> channel),
 * so a loop over a list of worms waits for memory at every step. The loops
 * walk their list in stages: the worm record KCI_PF items ahead, its path
 * entry KCI_PF_PATH ahead (the record is in cache by then), the channel
 * KCI_PF_CHAN ahead, so several misses are in flight at once. Prefetches
 * change no state and no result. */
#define KCI_PF 16                            /* worm records this many items ahead */
#define KCI_PF_MIN_BYTES (UINT64_C(2) << 20) /* hot state from which prefetching pays (kci_engine.prefetch) */
#define KCI_PF_PATH 10                       /* path entries */
#define KCI_PF_CHAN 5                        /* channels (and routers, arrival bits) */

/* A prefetching helper has no visible effect, so a compiler that does not
 * inline it early may find it pure and drop the call (GCC 12 does): force
 * it inline. */
#if defined(__GNUC__)
#define KCI_PF_FN static inline __attribute__((always_inline))
#else
#define KCI_PF_FN static inline
#endif

/* A message in flight (a worm slot). */
typedef struct kci_worm {
    /* what a header hop, a wake-up, a tail release or a visit reads: the
     * first 64 bytes (the worm-level loop's and the stream loop's fields
     * share them: a run uses one loop) */
    int32_t head;       /* path index of the header flit, -1 before it enters */
    uint16_t npath, first_held; /* path entries; first entry still held */
    uint32_t len, dst;  /* flits of this message; its destination */
    union {
        struct { /* the worm-level loop (trains.c) */
            uint8_t drain;         /* its header has been delivered: it moves every cycle */
            uint8_t blocked;       /* its header found every channel it may take owned */
            uint8_t woken;         /* blocked, and a channel it waits for was released */
            uint8_t alive;         /* the slot holds a worm */
            uint32_t wait_gen;     /* generation of its wait entries */
            uint64_t wait_key;     /* blocked: the key it waits with */
            uint32_t delivered_at; /* drain: the cycle its header was delivered */
            uint32_t event_at;     /* drain: the cycle of its next event */
            int32_t wheel_next;    /* drain: next worm in its timer bucket */
        };
        struct { /* the stream loop (stream.c) */
            uint32_t unsettled;    /* streaming: first cycle whose flit moves are not yet counted */
            uint32_t ring;         /* general: its block of ready times in kci_engine.rings */
            uint32_t packed_until; /* packed: the last cycle a flit of it moves while the header waits */
            uint32_t release_at;   /* streaming: the cycle its tail leaves its oldest hop, listed in the
                                      release wheel, when known (else UINT32_MAX) */
            uint32_t apos;         /* its entry's index in kci_engine.active */
            uint8_t packed;        /* streaming, its header blocked past its buffer's room: flits pile up */
            uint8_t general;       /* its flits do not stream: moved flit by flit */
            uint8_t demote;        /* an older worm took a link cycle it had booked */
        };
    };
    uint32_t src;
    uint32_t src_left;  /* flits not yet injected */
    uint64_t seq;       /* injection order: the flit loop's delivery order */
    /* the rest: injection, delivery and the flit loop */
    uint8_t measured;
    uint8_t stalled;    /* nothing can move until the header takes a channel */
    uint32_t gen, inj;  /* generation cycle, cycle it left the source queue */
    uint32_t id;        /* caller's id (driven runs) */
    int32_t win_lo, win_hi; /* trains: moves with head in (win_lo, win_hi] fall in the window */
} kci_worm;

/* Bytes of a worm record's hot part (the fields up to seq). */
#define KCI_WORM_HOT offsetof(kci_worm, measured)
_Static_assert(KCI_WORM_HOT <= KCI_CACHE_LINE, "a worm record's hot part fits in one cache line");

/* A queued message (source queues are lists through one array). */
typedef struct kci_qmsg {
    uint32_t gen, dst, len, id; /* id: driven runs, the caller's; runs with random ring ties
                                   (KC_SIM_TIE_RANDOM), the message's tie bits, bit d for dimension d */
    int32_t next;
} kci_qmsg;

/* A header waiting for a channel, or any worm with a sort key. */
typedef struct kci_waiter {
    uint64_t key; /* ready cycle << 32 | channel: first come, then channel id */
    uint32_t w;
    uint32_t node; /* trains' queues of new headers: the router the header is at */
} kci_waiter;

/* A channel's hot state in the flit loop. rt0 is the ready time of the
 * buffer's only slot when depth is 1 (the default); deeper buffers keep
 * their ring in ready_ring. */
typedef struct kci_chan {
    int32_t owner;   /* worm holding the channel, -1 when free */
    uint32_t passed; /* flits that have entered it (of the owner's) */
    uint32_t rt0;
    uint16_t cnt;   /* flits buffered */
    uint16_t rhead; /* ring index of the oldest buffered flit */
} kci_chan;

/* The stream loop's state of one path index of a worm: when its header
 * entered it, and (while the worm moves flit by flit) the buffer's counts;
 * the buffer's ready times are in the worm's ring (kci_engine.rings). */
typedef struct kci_hop {
    uint32_t h; /* cycle the header entered */
    uint16_t k; /* (below the message's length, 16-bit) */
    uint16_t s; /* streaming: flits from k on enter s cycles late (KCI_PACKED: not known yet) */
} kci_hop;

/* A general worm's buffer at one path index (in its block of the pool,
 * with the ring of ready times). */
typedef struct kci_gen {
    uint16_t passed;     /* flits that have entered */
    uint16_t cnt, rhead; /* flits buffered; ring index of the oldest */
} kci_gen;
/* A hop's shift not known yet (its worm is packed: the header is
 * blocked), and the largest shift a hop record holds: a worm whose shift
 * would be larger moves flit by flit instead. */
#define KCI_PACKED UINT16_MAX
#define KCI_SHIFT_MAX (UINT16_MAX - 1)
/* The shift entry times use for a packed hop's flits from k on: 2^30
 * cycles, longer than any header waits in a run (as before hop records
 * were 8 bytes). */
#define KCI_PACKED_SHIFT (INT64_C(1) << 30)

/* When the stream loop visits a worm next (its slot's entry in a dense
 * array, so that checking a wheel entry reads no worm record): at its next
 * event (marked due for the next cycle, or listed in that cycle's bucket
 * of the wake-up wheel; UINT32_MAX: when another worm wakes it), and until
 * when its flits move every cycle (0 while it is general). */
typedef struct kci_wake {
    uint32_t at, until;
} kci_wake;

/* A shared link in the stream loop: its booking by a streaming worm (its
 * flits cross the link every cycle up to end - 1; a worm that stops
 * streaming sets end to 0 on the links it booked, and a worm's last
 * booking has ended by the time its slot holds another worm) and the flit
 * loop's mark (cycle + 1 the link last carried a flit), together since a
 * claim reads both. */
typedef struct kci_book {
    uint32_t w, end, busy;
} kci_book;

/* A channel in the worm-level loop: owner and first wait entry together,
 * since a release reads both. */
typedef struct kci_tchan {
    int32_t own, wait; /* -1: free; -1: no header waits */
} kci_tchan;

/* A wait entry: worm w waits (its wait generation gen) on a channel. */
typedef struct kci_went {
    uint32_t w, gen;
    int32_t next;
} kci_went;

/* Something a move produced for node range t: a channel c. */
typedef struct kci_tev {
    uint32_t t, c;
} kci_tev;

/* Message generation's state (calendar.c), apart from the rest of the
 * engine: during a run only generation reads or writes it, so it can run
 * ahead of the cycles on a thread of its own (feed.c). */
typedef struct kci_gensrc {
    kc_rng rng;
    double *next_msg_time; /* per source: when its next message is due (not with per-cycle trials) */
    /* Poisson and geometric-gap runs: a calendar of the sources by the
     * cycle of their next message (KCI_CAL buckets; a fixed pool, a source
     * is listed once) */
    kci_wheel cal;
    uint32_t *due_nodes, *sort_tmp; /* a cycle's due sources; scratch for their sort */
    /* fixed for the run */
    const kc_simtraffic *traffic;
    const kc_simconfig *cfg;
    const uint32_t *senders; /* the sources that generate, in node order */
    uint32_t nsenders, nodes, msg_len;
    int tie_bits; /* random ring ties: a message draws its bits as it is made */
    int prefetch; /* prefetch per-source state (large networks) */
} kci_gensrc;

/* Where generation puts its messages: put(ctx, source, destination, id:
 * random ring ties' bits, else 0), nonzero when out of memory; ahead
 * (NULL: none) is told a due source's node some sources before its
 * messages come, so that it can prefetch what put will touch. */
typedef struct kci_gen_sink {
    int (*put)(void *ctx, uint32_t src, uint32_t dst, uint32_t id);
    void (*ahead)(void *ctx, uint32_t src);
    void *ctx;
} kci_gen_sink;

typedef struct kci_feed kci_feed;

/* Trains: header arbitration for one contiguous range of nodes. A header
 * at node v competes only for channels leaving v, and its wait entries sit
 * on those channels, so the part of a cycle that tries headers (wake-ups,
 * retries, first tries) touches only its range's channels and the worms
 * whose header is there: ranges run on separate threads. What crosses
 * ranges (the worms whose header moves) is merged afterwards in the order
 * one range would have produced (by key). */
typedef struct kci_tpart {
    kci_waiter *first_tries;            /* headers here that arrived and were never tried, by key */
    uint32_t first_head, first_tail;    /* the FIFO's live entries */
    uint32_t *woken, nwoken;            /* blocked headers here to retry this cycle */
    kci_waiter *granted, *sort_tmp;     /* headers given a channel this cycle (woken ones first), by key; sort space */
    uint32_t ngranted, ngranted_woken;
    uint32_t *released, nreleased;      /* channels of the range released last cycle with wait entries */
    kci_went *waits;                    /* wait entries of the range's channels, a free list through next */
    uint32_t waits_cap;
    int32_t waits_free;
    int nomem;
    /* moves done by thread p (its share of the moving worms): sums added
     * up after the moves, in range order (integers: any order is exact) */
    uint64_t traversals, flits_delivered; /* link traversals, flits delivered */
    int64_t draining_change;              /* change in the count of worms being delivered */
    /* headers that arrived here last cycle: channel bitmap and its summary
     * (a bit per 64-channel word) */
    uint64_t *arrived_bits, *arrived_summary;
    /* worms of thread p being delivered whose next event is the next cycle
     * (most are: a delivered train releases a channel a cycle); the wheel
     * holds only first events. Arrays, so the moves can prefetch ahead. */
    uint32_t *drain_next, *drain_cur, ndrain_next;
    /* what thread p's moves produce for others, in plain lists (no atomic
     * operation in the moves: a locked one would also wait for the
     * stores and misses in flight): tails delivered, sources whose
     * injection channel was freed, and on several ranges the headers that
     * arrived and the released channels with waiters, by range (t) */
    uint32_t *done, ndone, *freed_sources, nfreed_sources;
    kci_tev *arrivals_out, *released_out;
    uint32_t narrivals_out, nreleased_out;
} kci_tpart;

typedef struct kci_engine {
    const kc_simnet *net;
    const kc_simroute *route;
    const kc_simtraffic *traffic; /* NULL in driven runs */
    const kc_simconfig *cfg;
    uint32_t msg_len;     /* flits of a generated message */
    uint32_t depth;       /* flits a channel buffers */
    uint32_t net_delay;   /* cycles from entering a network channel to being ready to leave it (S + W) */
    uint32_t ejbase;      /* the first ejection channel (kc_simnet_ejch(net, 0, 0)) */
    uint32_t eject_delay; /* the same for an ejection channel (S + 1) */
    uint32_t route_delay; /* cycles a header waits before it may take a channel (R) */
    uint32_t vcs;
    uint32_t stride[KC_SIMNET_MAX_N]; /* tori: the product of the sides below d, the id step of dimension d (kci_head_node) */
    int prefetch; /* the hot state is larger than the caches: prefetch, compute head nodes (KCI_PF) */
    int vc_independent;
    uint32_t now;
    /* channels (flit loop) */
    kci_chan *chans;
    uint32_t *ready_ring; /* depth > 1: ring of ready times, depth per channel */
    uint32_t *link_busy;  /* flit loop, shared VC links only: cycle + 1 the link last carried a flit */
    /* stream loop: channel owners (-1 free), shared links' bookings, per
     * worm slot and path index the hop state; general worms' blocks of
     * ready times (path_cap rings of depth each, ring_cap blocks, the free
     * ones listed in ring_free) */
    int stream;
    int32_t *own;
    kci_book *book;
    kci_hop *hops;
    kci_wake *wake;
    kci_gen *gens; /* general worms' buffer counts, path_cap a block (the rings' blocks) */
    uint32_t *rings, *ring_free, ring_cap, nring_free;
    /* the entries in active of the worms woken during the moves (a
     * younger booker told to turn general), ascending */
    uint32_t *late, nlate, late_cap;
    /* the stream loop's wheels of wake-ups and tail releases (buckets by
     * cycle mod KCI_SWHEEL); the entries of active (kci_worm.apos says
     * which are live); the bitmaps over those entries of the worms due in
     * this cycle's and the next cycle's moves */
    kci_wheel wake_wheel, release_wheel; /* entries: a worm slot and the cycle it was listed for */
    uint32_t nlisted;
    uint64_t *due_bits, *due_next_bits;
    /* worm slots: records, paths (path_cap channels each), free slots */
    kci_worm *worms;
    uint32_t *path, path_cap, worm_cap, *free_worms, nfree_worms;
    /* flit loop: worms in the network (trains: only the count; stream
     * loop: nlisted entries, nactive of them live, and the due list) */
    uint32_t *active, nactive, *active_next;
    /* the deadlock search's list of waiting headers by key (trains:
     * also sort space, with new_headers and waiting_next) */
    kci_waiter *waiting, *new_headers, *waiting_next;
    uint32_t nwaiting, nnew_headers;
    /* flit and stream loops: a waiting header's key (ready << 32 |
     * channel) by worm slot (a worm has one header). Headers not tried
     * yet: a list per cycle of their first try (R after they are ready)
     * mod untried_slots, through untried_next; order_bits (a bit per
     * channel) and order_summary (a bit per word) put a cycle's list in
     * channel order without a sort. Headers tried and refused: a list per
     * router by key, through blocked_next. Routers where a channel a
     * header may ask for was released this cycle: touched (touch_bits: a
     * bit per router, set while it is listed) */
    uint64_t *header_key, *order_bits, *order_summary;
    uint32_t *order_list; /* a cycle's first tries' channels in order (a worm slot each) */
    int32_t *untried_head, *untried_next, *blocked_head, *blocked_next;
    uint64_t *touch_bits;
    uint32_t *touched, ntouched, untried_slots;
    /* the stream loop's split allocation (nparts > 1): the touched routers
     * and the first tries' channels grouped by node range, range p's at
     * [touched_at[p], touched_at[p + 1]) and [first_at[p], first_at[p + 1]),
     * and whether range p's tries moved a header (read after the run) */
    uint32_t *split_touched, *split_first;
    uint32_t touched_at[KCI_MAX_THREADS + 1], first_at[KCI_MAX_THREADS + 1];
    int part_progress[KCI_MAX_THREADS];
    /* sources: queued messages (one array; lists by node), free slots */
    kci_qmsg *msgs;
    uint32_t msg_cap, msg_used; /* slots from msg_used on were never used */
    int32_t msg_free, *queue_head, *queue_tail;
    uint64_t queued, queued_flits;
    uint32_t *senders, nsenders; /* sources that generate (driven runs: with queued messages) */
    kci_gensrc gen;              /* generation's state (a feed's producer works on its own copy) */
    kci_feed *feed;              /* generation ahead on another thread, or NULL */
    /* runs (not driven): the sources that may inject this cycle, and
     * those whose queue was empty until this cycle, in node order */
    uint32_t *pending, *fresh_queues, npending, nfresh_queues;
    uint32_t *sort_tmp; /* scratch of kci_sim_sort_nodes: nodes * inj entries */
    /* bookkeeping */
    uint64_t flits_generated, flits_delivered, link_traversals;
    uint64_t gen_window, del_window, outstanding;
    uint64_t *win_generated, *win_delivered; /* per source: flits generated / delivered in the window */
    uint32_t *queue_len, *queue_len_start, *queue_len_low; /* per source: queue length now, at the window's start,
                                                              lowest in its last half */
    int late_window; /* in the last half of the window */
    uint64_t *link_flits;
    int in_window, progress, overflow;
    int64_t last_arrival;
    kc_simsample latency; /* latencies of the measured messages */
    double net_lat_sum;
    int nomem;
    /* trains: the worm-level loop (trains.c) */
    int trains;
    kci_tchan *tchans;
    kci_tpart *parts; /* header arbitration by node range (nparts of them) */
    uint32_t nparts;
    /* first node, network channel and ejection channel of each range */
    uint32_t part_node[KCI_MAX_THREADS], part_net_chan[KCI_MAX_THREADS], part_ej_chan[KCI_MAX_THREADS];
    struct kci_pool *pool;     /* workers running ranges 1 .. nparts-1, NULL on one thread */
    void (*part_job)(struct kci_engine *e, uint32_t part); /* what the workers run (kci_simthreads_run) */
    uint32_t *movers, nmovers; /* worms whose header moves this cycle (new, or given a channel) */
    int32_t *wheel;            /* timer buckets (cycle mod KCI_WHEEL) of worms being delivered */
    uint32_t ndraining;        /* worms being delivered: they move every cycle */
    uint32_t last_moved;       /* the last cycle whose moves are done */
    int settled;               /* kci_trains_settle done (the run is over) */
    uint32_t *delivered, ndelivered;         /* tails delivered this cycle */
    uint32_t *freed_sources, nfreed_sources; /* sources whose injection channel was released */
    uint64_t next_seq;                       /* injection order of the next worm */
    int driven;           /* a kc_simdrive run */
    int logging;          /* runs for tests: every delivery in log, by injection order (seq) */
    uint8_t *in_senders;  /* driven: node is in senders (its queue may be non-empty) */
    kc_simarrival *log;   /* driven runs: tails delivered in the current cycle; logged runs: all */
    size_t nlog, log_cap;
    struct kci_pipe *pipe; /* the router-pipeline loop (pipeline.c), NULL for the seeds' model */
} kci_engine;

/* n flits crossed network link `link` (counted in the per-link figures
 * when the window is open, in_window): every loop counts its moves
 * through here, one at a time or settled in bulk. */
static inline void kci_count_link(kci_engine *e, uint32_t link, uint64_t n, int in_window)
{
    e->link_traversals += n;
    if (e->link_flits && in_window)
        e->link_flits[link] += n;
}

/* n flits of a message from src were delivered (in the window's
 * throughput when in_window). */
static inline void kci_count_delivered(kci_engine *e, uint32_t src, uint64_t n, int in_window)
{
    e->flits_delivered += n;
    if (in_window) {
        e->del_window += n;
        e->win_delivered[src] += n;
    }
}

/* The router a channel leads to. */
static inline uint32_t kci_channel_head_node(const kc_simnet *net, uint32_t c)
{
    if (c < net->net_channels)
        return net->next_node[c / (uint32_t)net->vcs];
    return (c - net->net_channels) / (uint32_t)net->inj; /* injection channel */
}

/* Node ids a[0..n) ascending (a radix sort, only as many digits as node
 * ids have) through e->sort_tmp (n <= nodes * inj). */
static inline void kci_sort_nodes(kci_engine *e, uint32_t *a, uint32_t n)
{
    kci_sort_u32(a, n, e->sort_tmp, e->net->nodes - 1);
}

/* kci_channel_head_node from arithmetic where the topology gives it (the
 * cube: flip the port's bit; the torus: step the port's digit round its
 * ring, of that axis's side; a line axis of a torus never asks for the
 * step off its end, which has no channel), so the worm-level loop does not read the neighbour table (4 bytes
 * a port, a cache miss per header hop on large networks); meshes, which
 * may have unequal sides, read the table. */
static inline uint32_t kci_head_node(const kci_engine *e, uint32_t c)
{
    const kc_simnet *net = e->net;
    if (!e->prefetch || c >= net->net_channels || net->topo == KC_SIM_MESH) /* small: the table is in cache */
        return kci_channel_head_node(net, c);
    uint32_t link = c / e->vcs, ports = (uint32_t)net->ports, node = link / ports, port = link - node * ports;
    if (net->topo == KC_SIM_HYPERCUBE)
        return node ^ (UINT32_C(1) << port);
    uint32_t d = port >> 1, w = e->stride[d], k = (uint32_t)net->side[d];
    uint32_t dig = net->digit[(size_t)node * (size_t)net->n + d];
    if (!(port & 1))
        return dig + 1 == k ? node - dig * w : node + w;
    return dig == 0 ? node + (k - 1) * w : node - w;
}

/* The node range (thread part) of node v: range p holds nodes
 * [part_node[p], part_node[p + 1]). A few compares, no division. */
static inline uint32_t kci_part_of_node(const kci_engine *e, uint32_t v)
{
    uint32_t p = 0;
    for (uint32_t i = 1; i < e->nparts; i++)
        p += v >= e->part_node[i];
    return p;
}

/* engine.c */
/* Sets up e for a run (nparts node ranges; force_pf: the prefetching
 * stages even on a small network); on failure e may be half set up and
 * must still be freed with kci_engine_free. */
kc_status kci_engine_init(kci_engine *e, const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *tr,
                          const kc_simconfig *cfg, int flit_loop, uint32_t nparts, int force_pf, kc_err *err);
/* Frees everything e holds (stops its threads first); e may be zeroed. */
void kci_engine_free(kci_engine *e);
/* Doubles the worm slots; -1 when out of memory (the old ones stay valid). */
int kci_engine_grow_worms(kci_engine *e);
/* Steps 2-4 of a cycle and the watchdog; 1 when the run must stop (out of
 * memory, or no progress for too long while worms are in the network). */
int kci_engine_cycle(kci_engine *e, int64_t *idle);

/* deliver.c */
/* Worm w's tail was delivered at `arrival`: latency, logs. */
void kci_engine_finish(kci_engine *e, kci_worm *w, uint32_t arrival);

/* calendar.c */
/* Chunks the calendar of `nodes` sources can need at once: every bucket
 * has at most one chunk that is not full, and a source is in one bucket. */
uint64_t kci_calendar_chunks(uint64_t nodes);
/* Sets up generation's state: the senders, the calendar and every
 * sender's first message time (Poisson or geometric gaps). */
void kci_calendar_init(kci_engine *e);
/* The messages generated in cycle `now`, in the order a serial run makes
 * them, each put into sink; nonzero when the sink ran out of memory
 * (the rest of the cycle is still generated). Touches only g and the
 * run's fixed data. O(senders) with Bernoulli injection, else O(messages
 * + due sources). */
int kci_gen_cycle(kci_gensrc *g, uint32_t now, const kci_gen_sink *sink);
/* A new message's id outside generation (one-shot runs): its random ring
 * ties' bits when the run draws them, else 0. */
uint32_t kci_gen_id(kci_gensrc *g);
/* Appends a message to node's queue (generated now, with that id); -1 when
 * out of memory. */
int kci_enqueue(kci_engine *e, uint32_t node, uint32_t dst, uint32_t len, uint32_t id);
/* The message at the head of node's (non-empty) queue leaves it as worm
 * w, injected now: w gets its source, destination, generation and
 * injection cycles, length (all at the source), id, and whether it is
 * measured. */
void kci_dequeue(kci_engine *e, uint32_t node, kci_worm *w);

/* feed.c */
/* Generation of cycles 0 .. limit - 1 starts on a thread of its own, from
 * e->gen as it stands (which nothing reads or writes after: the thread
 * has its own copy); -1 when memory or the thread cannot be had (nothing
 * started). */
int kci_feed_start(kci_engine *e, int64_t limit);
/* The messages of the next cycle (cycles are taken in order, one a call),
 * into sink; nonzero when the sink ran out of memory. Waits while the
 * producer is behind. */
int kci_feed_take(kci_feed *f, const kci_gen_sink *sink);
/* Stops and joins the producer and frees the feed (none: nothing). */
void kci_feed_stop(kci_engine *e);
/* Step 1 of a cycle: the messages generated this cycle join their queues
 * (from the feed when there is one). */
void kci_generate(kci_engine *e);

/* stream.c */
/* Worm wi is visited in this cycle's moves (allocation happens before
 * them). O(1); safe from the split allocation's threads. */
void kci_stream_wake(kci_engine *e, uint32_t wi);
/* New worm wi joins the active entries (compacted first when they fill
 * the array). O(1) amortized. */
void kci_stream_list(kci_engine *e, uint32_t wi);

/* flit.c */
/* Step 3 and 4 of the flit loop: allocation (also the stream loop's),
 * movement. */
void kci_flit_allocate(kci_engine *e);
void kci_flit_move(kci_engine *e);
/* After the flit loop's moves: the worms kept, active_next[0..keep),
 * become the active list. */
void kci_flit_moved(kci_engine *e, uint32_t keep);
/* Every waiting header, tried or not, in e->waiting by key (for the
 * deadlock search at the end of a run). */
void kci_flit_waiting(kci_engine *e);
/* c becomes worm wi's, empty, as its path entry idx (the flit and stream
 * loops). */
static inline void kci_take_channel(kci_engine *e, uint32_t c, uint32_t wi, uint32_t idx)
{
    if (e->stream) {
        e->own[c] = (int32_t)wi;
        e->hops[(size_t)wi * e->path_cap + idx] = (kci_hop){0, 0, 0};
        kci_stream_wake(e, wi); /* its header may move: visit it */
    } else {
        e->chans[c] = (kci_chan){(int32_t)wi, 0, 0, 0, 0};
    }
}
/* The worm holding channel c (-1: free) in any loop. */
static inline int32_t kci_owner(const kci_engine *e, uint32_t c)
{
    return e->trains ? e->tchans[c].own : e->stream ? e->own[c] : e->chans[c].owner;
}

/* The header of worm wi entered channel c and is ready at `ready`: it is
 * tried first at ready + R (kci_flit_allocate). O(1). */
static inline void kci_untried_add(kci_engine *e, uint32_t wi, uint32_t c, uint32_t ready)
{
    uint32_t slot = (ready + e->route_delay) % e->untried_slots;
    e->header_key[wi] = (uint64_t)ready << 32 | c;
    e->untried_next[wi] = e->untried_head[slot];
    e->untried_head[slot] = (int32_t)wi;
}

/* Channel c (flit and stream loops) is free from the next cycle on: the
 * headers refused at the router it leaves are retried then (a network or
 * ejection channel), or its source is listed for injection (an injection
 * channel). O(1). */
static inline void kci_channel_freed(kci_engine *e, uint32_t c)
{
    const kc_simnet *net = e->net;
    uint32_t ejbase = e->ejbase, v;
    if (c < net->net_channels) {
        v = c / e->vcs / (uint32_t)net->ports;
    } else if (c >= ejbase) {
        v = (c - ejbase) / (uint32_t)net->ej;
    } else { /* an injection channel: its source may inject next cycle */
        if (!e->driven) /* driven runs keep their own list of senders */
            e->freed_sources[e->nfreed_sources++] = (c - net->net_channels) / (uint32_t)net->inj;
        return;
    }
    uint64_t bit = UINT64_C(1) << (v & 63);
    if (!(e->touch_bits[v >> 6] & bit)) {
        e->touch_bits[v >> 6] |= bit;
        e->touched[e->ntouched++] = v;
    }
}

/* The hot part of worm wi's record (KCI_WORM_HOT bytes, on one or two
 * cache lines), for writing. No effect on the state. */
KCI_PF_FN void kci_prefetch_worm(const kci_engine *e, uint32_t wi)
{
    const char *a = (const char *)&e->worms[wi];
    kci_prefetch_w(a);
    kci_prefetch_w(a + KCI_WORM_HOT - 1);
}

/* Nodes from which the stream loop prefetches what its due worms' visits
 * and its headers' first tries read (its hop records and link bookings
 * outgrow the caches before the other loops' state does: on the 10- and
 * 12-cube at load 0.2 it saves 10 and 15 %, on the 8-cube it costs 7 %). */
#define KCI_STREAM_PF_NODES 1024
static inline int kci_stream_prefetch(const kci_engine *e)
{
    return e->stream && (e->prefetch || e->net->nodes >= KCI_STREAM_PF_NODES);
}

/* stream.c */
/* Step 4 of the stream loop. */
void kci_stream_move(kci_engine *e);
/* Counts the flit moves of streaming worms up to the last cycle moved
 * (before a window edge, end 0 opening, 1 closing, and at the end). */
void kci_stream_settle(kci_engine *e, int end);
/* Flits of live worms in buffers and at sources. */
void kci_stream_flits(kci_engine *e, uint64_t *buffered, uint64_t *at_source);

/* pipeline.c: the router-pipeline loop (kc_sim_pipeline) */
kc_status kci_pipe_init(kci_engine *e, kc_err *err);
void kci_pipe_free(kci_engine *e);
/* Steps 2-4 of a cycle: arrivals, sources, every router with flits. */
void kci_pipe_cycle(kci_engine *e);
/* Flits in buffers and on links; at sources (queued and not yet written). */
void kci_pipe_flits(const kci_engine *e, uint64_t *buffered, uint64_t *at_source);

/* trains.c */
/* Steps 3 and 4 of the worm-level loop. */
void kci_trains_allocate(kci_engine *e);
void kci_trains_move(kci_engine *e);
/* Header arbitration of range t; the moves of range p (one thread each). */
void kci_trains_part_allocate(kci_engine *e, kci_tpart *t);
void kci_trains_part_move(kci_engine *e, uint32_t p);
/* The window opens (end 0) or closes (end 1) at the start of this cycle. */
void kci_trains_window_edge(kci_engine *e, int end);
/* Statistics of the trains still in flight when the run stops. */
void kci_trains_settle(kci_engine *e);
/* Flits of live trains in buffers and at sources (after kci_trains_settle). */
void kci_trains_flits(const kci_engine *e, uint64_t *buffered, uint64_t *at_source);
/* The flit loop's list of waiting headers in e->waiting, by key. */
void kci_trains_waiting(kci_engine *e);
/* Sort t[0..n) by key (keys distinct) through scratch (n entries). */
void kci_sort_waiters(kci_waiter *t, uint32_t n, kci_waiter *scratch);

/* threads.c */
/* Workers for ranges 1 .. nparts-1 (e->pool); -1 when they cannot all be
 * started. */
int kci_simthreads_start(kci_engine *e);
/* Stops and joins them; nothing when there are none. */
void kci_simthreads_stop(kci_engine *e);
/* job(e, p) on every range p (one phase of the worm-level loop: header
 * arbitration or the moves), range 0 on the caller; returns when all are
 * done. The loop passes its own functions, so threads.c knows none of it. */
void kci_simthreads_run(kci_engine *e, void (*job)(kci_engine *e, uint32_t part));
/* Between the wake-ups and the tries of an allocation: every range waits
 * for the others (nothing on one thread). */
void kci_simthreads_mid(kci_engine *e);

#endif
