/* Step 1 of a cycle (kci_generate): the cycle's messages into their
 * queues, made here or taken from generation ahead on a thread of its own
 * (a run on several threads that does not split its nodes:
 * kci_sim_feeds). Generation reads and writes only its own state
 * (kci_gensrc) and the run's fixed data, and what it makes does not depend
 * on the rest of the run, so a producer thread can make the messages of
 * later cycles while the caller's thread runs the cycles; the caller then
 * only puts each cycle's messages into their queues, in the order a serial
 * run makes them, so no result changes. With Bernoulli injection that
 * takes a draw per source and cycle off the cycle's thread.
 *
 * The two share a ring of entries: a message (source, destination, id),
 * or the end of a cycle. Each side publishes its count on a progress mark
 * (core/pool.h) at the end of each cycle (the producer) or after a quarter
 * of the ring (the caller), and always before it waits, so neither waits
 * for what the other has done but not said. The producer waits for the
 * ring to be half empty; the caller, for the next entry. */
#include "engine.h"

#include <stdlib.h>

#include "core/pool.h"

#define FEED_END UINT32_MAX /* the source of the entry that closes a cycle */
#define FEED_MIN 16384u     /* ring entries: 4 a source, between these (the larger ring
                               * wakes the producer less: a 4096-entry one ran the 8-cube
                               * at 0.1 in 0.012 s or 0.015-0.020 s, this in 0.011-0.013 s) */
#define FEED_MAX 65536u

typedef struct feed_msg {
    uint32_t src, dst, id;
} feed_msg;

/* The fields both sides read, the producer's, the two marks and the
 * caller's sit at least a cache line apart (the pads), so that neither
 * side's writes evict what the other reads. */
struct kci_feed {
    feed_msg *ring;
    uint32_t cap;       /* entries of the ring, a power of two */
    uint32_t ncyc;      /* cycles to make */
    uint32_t *sort_tmp; /* the producer's scratch for sorting due sources */
    kci_bg th;
    char pad0[64];
    kci_gensrc g;  /* the producer's copy of generation's state */
    uint64_t wr;   /* entries written */
    uint64_t room; /* write while wr < room (the read count last seen + cap) */
    char pad1[64];
    kci_mark written; /* entries written, as published */
    char pad2[64];
    kci_mark read; /* entries read, as published (all of them: stop) */
    atomic_int stop;
    char pad3[64];
    uint64_t rd, avail, published; /* the caller's: read; written as last seen; read as last published */
};

/* Entries of the ring for a run on `nodes` sources: a power of two. */
static uint32_t feed_cap(uint64_t nodes)
{
    uint32_t cap = FEED_MIN;
    while (cap < FEED_MAX && cap < 4 * nodes)
        cap *= 2;
    return cap;
}

uint64_t kci_feed_bytes(uint64_t nodes)
{
    return sizeof(struct kci_feed) + (uint64_t)feed_cap(nodes) * sizeof(feed_msg) + nodes * sizeof(uint32_t);
}

/* The producer: room for one more entry, after waiting for the caller to
 * read half the ring; -1 when the run stopped meanwhile. */
static int make_room(kci_feed *f)
{
    kci_mark_set(&f->written, f->wr); /* the caller may be waiting for these */
    unsigned long long r = kci_mark_wait(&f->read, f->wr - f->cap / 2);
    if (atomic_load_explicit(&f->stop, memory_order_relaxed))
        return -1;
    f->room = r + f->cap;
    return 0;
}

/* The producer: one entry into the ring (dropped once the run stopped). */
static void push(kci_feed *f, uint32_t src, uint32_t dst, uint32_t id)
{
    if (f->wr == f->room && make_room(f))
        return;
    f->ring[f->wr++ & (f->cap - 1)] = (feed_msg){src, dst, id};
}

/* The producer's sink: a message into the ring; never out of memory. */
static int feed_put(void *ctx, uint32_t src, uint32_t dst, uint32_t id)
{
    push(ctx, src, dst, id);
    return 0;
}

/* The producer thread: cycle after cycle, its messages and its end. */
static void produce(void *ctx)
{
    kci_feed *f = ctx;
    kci_gen_sink sink = {feed_put, NULL, f};
    for (uint32_t t = 0; t < f->ncyc && !atomic_load_explicit(&f->stop, memory_order_relaxed); t++) {
        kci_gen_cycle(&f->g, t, &sink);
        push(f, FEED_END, t, 0);
        kci_mark_set(&f->written, f->wr);
    }
}

/* Frees f, its marks made (the thread not running). */
static void feed_free(kci_feed *f)
{
    kci_mark_destroy(&f->read);
    kci_mark_destroy(&f->written);
    free(f->ring);
    free(f->sort_tmp);
    free(f);
}

int kci_feed_start(kci_engine *e, int64_t limit)
{
    uint32_t nodes = e->net->nodes;
    kci_feed *f = calloc(1, sizeof *f);
    if (!f || kci_mark_init(&f->written)) {
        free(f);
        return -1;
    }
    if (kci_mark_init(&f->read)) {
        kci_mark_destroy(&f->written);
        free(f);
        return -1;
    }
    f->cap = feed_cap(nodes);
    f->ring = malloc((size_t)f->cap * sizeof *f->ring);
    f->sort_tmp = malloc((size_t)nodes * sizeof *f->sort_tmp);
    if (!f->ring || !f->sort_tmp) {
        feed_free(f);
        return -1;
    }
    atomic_init(&f->stop, 0);
    f->g = e->gen;
    f->g.sort_tmp = f->sort_tmp;
    f->room = f->cap;
    f->ncyc = limit < UINT32_MAX ? (uint32_t)limit : UINT32_MAX;
    if (kci_bg_start(&f->th, produce, f)) {
        feed_free(f);
        return -1;
    }
    e->feed = f;
    return 0;
}

int kci_feed_take(kci_feed *f, const kci_gen_sink *sink)
{
    int nomem = 0;
    for (;;) {
        if (f->rd == f->avail) {
            if (f->published != f->rd) /* the producer may be waiting for these */
                kci_mark_set(&f->read, f->published = f->rd);
            f->avail = kci_mark_wait(&f->written, f->rd + 1);
        }
        feed_msg m = f->ring[f->rd++ & (f->cap - 1)];
        if (m.src == FEED_END)
            break;
        nomem |= sink->put(sink->ctx, m.src, m.dst, m.id);
    }
    if (f->rd - f->published >= f->cap / 4)
        kci_mark_set(&f->read, f->published = f->rd);
    /* the next cycle's entries were written on the other core: fetch them
     * now (a cross-core miss each line), while this cycle runs */
    for (uint64_t i = f->rd; i < f->avail && i < f->rd + 16; i += 4)
        kci_prefetch(&f->ring[i & (f->cap - 1)]);
    return nomem;
}

void kci_feed_stop(kci_engine *e)
{
    kci_feed *f = e->feed;
    if (!f)
        return;
    atomic_store(&f->stop, 1);
    kci_mark_set(&f->read, ~0ULL); /* wakes a producer waiting for room */
    kci_bg_join(&f->th);
    feed_free(f);
    e->feed = NULL;
}

/* The engine's sink: the message joins its source's queue. */
static int engine_put(void *ctx, uint32_t src, uint32_t dst, uint32_t id)
{
    kci_engine *e = ctx;
    return kci_enqueue(e, src, dst, e->msg_len, id);
}

/* The engine's per-source state a message at src will touch. */
static void engine_ahead(void *ctx, uint32_t src)
{
    const kci_engine *e = ctx;
    kci_prefetch_w(&e->queue_tail[src]);
    kci_prefetch_w(&e->queue_len[src]);
    kci_prefetch_w(&e->win_generated[src]);
}

void kci_generate(kci_engine *e)
{
    kci_gen_sink sink = {engine_put, engine_ahead, e};
    if (e->feed ? kci_feed_take(e->feed, &sink) : kci_gen_cycle(&e->gen, e->now, &sink))
        e->nomem = 1;
}
