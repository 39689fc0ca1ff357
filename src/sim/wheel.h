/* Chunked timing wheels: entries (an item and its cycle) in buckets by
 * cycle mod a power of two, each bucket a list of chunks of the wheel's
 * pool, all full but the first. Walking a bucket reads arrays (a chunk a
 * step, the next one prefetched) where a list through the items would
 * miss the cache at every item, and a bucket holds only what is listed in
 * it, so the wheel's memory follows its entries. An entry whose cycle is
 * a later turn of the wheel is put back by the walker when its bucket
 * comes. Generation's calendar (calendar.c; a fixed pool) and the stream
 * loop's wake-ups and tail releases (stream.c; a pool that grows) use it.
 * No state beyond the wheel's own. */
#ifndef KCI_SIM_WHEEL_H
#define KCI_SIM_WHEEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/bits.h"

#define KCI_WCHUNK 30 /* entries a chunk holds (248-byte chunks) */

typedef struct kci_wchunk {
    int32_t next; /* the bucket's next chunk, or the free list's */
    uint32_t n;
    uint32_t item[KCI_WCHUNK], cyc[KCI_WCHUNK];
} kci_wchunk;

typedef struct kci_wheel {
    int32_t *head;      /* per bucket: its first chunk (-1: empty) */
    kci_wchunk *chunks; /* the pool: chunks from `used` on were never used (their memory stays untouched) */
    size_t cap;         /* chunks the pool holds */
    uint32_t mask, used;
    int32_t free;       /* freed chunks, a list through next */
    int grows;          /* the pool may grow (else it was sized for every entry the user lists) */
} kci_wheel;

/* A wheel of `buckets` buckets (a power of two) and a pool of `chunks`
 * chunks that grows when `grows`, all buckets empty; -1 when out of
 * memory (the wheel is then safe to free). */
int kci_wheel_init(kci_wheel *w, uint32_t buckets, size_t chunks, int grows);
void kci_wheel_free(kci_wheel *w);
/* Every bucket empty, every chunk unused. O(buckets). */
void kci_wheel_clear(kci_wheel *w);
/* A chunk for the front of a bucket: a freed one, a never used one, or one
 * of a doubled pool (-1 when out of memory or, for a fixed pool, full). */
int32_t kci_wheel_chunk(kci_wheel *w);

/* Item x listed for cycle cyc; 0, or -1 when out of memory (nothing
 * listed). O(1) amortized. */
static inline int kci_wheel_add(kci_wheel *w, uint32_t x, uint32_t cyc)
{
    int32_t *b = &w->head[cyc & w->mask];
    kci_wchunk *ch = *b >= 0 ? &w->chunks[*b] : NULL;
    if (!ch || ch->n == KCI_WCHUNK) {
        int32_t f = kci_wheel_chunk(w);
        if (f < 0)
            return -1;
        ch = &w->chunks[f];
        ch->next = *b;
        ch->n = 0;
        *b = f;
    }
    ch->item[ch->n] = x;
    ch->cyc[ch->n++] = cyc;
    return 0;
}

/* The bucket of cycle cyc, emptied: its first chunk (-1: none). The caller
 * reads each chunk whole, then gives it back (kci_wheel_give); entries it
 * lists meanwhile go into fresh chunks. */
static inline int32_t kci_wheel_take(kci_wheel *w, uint32_t cyc)
{
    int32_t *b = &w->head[cyc & w->mask], h = *b;
    *b = -1;
    return h;
}

/* Chunk h, read whole, to the free list; returns the next chunk of its
 * bucket (prefetched when pf). */
static inline int32_t kci_wheel_give(kci_wheel *w, int32_t h, int pf)
{
    kci_wchunk *ch = &w->chunks[h];
    int32_t next = ch->next;
    if (next >= 0 && pf)
        kci_prefetch(&w->chunks[next]);
    ch->next = w->free;
    w->free = h;
    return next;
}

#endif
