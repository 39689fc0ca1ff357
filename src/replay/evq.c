/* The LogGOPS model's event queue: a bucket per time, the bucket times in a
 * heap, the current bucket sorted once and taken front to back, earlier
 * events in a small heap (src/replay/evq.h says why). Checked against a
 * plain heap on seeded random streams by tests/test_evq.c. */
#include <stdlib.h>
#include <string.h>

#include "evq.h"
#include "core/grow.h"
#include "core/heap.h"
#include "core/sort.h"

#define NONE SIZE_MAX

static int ent_less(const kci_evq_ent *a, const kci_evq_ent *b)
{
    return a->t < b->t || (a->t == b->t && a->k < b->k);
}
static int time_less(const kci_evq_time *a, const kci_evq_time *b) { return a->t < b->t; }

KCI_HEAP4_DEFINE(pastq, kci_evq_ent, ent_less)
KCI_HEAP4_DEFINE(timeq, kci_evq_time, time_less)

static uint64_t ts_key(const kci_evq_ent *e, const void *ctx)
{
    (void)ctx;
    return e->k >> 32;
}
KCI_RADIX_SORT_DEFINE(sort_ts, kci_evq_ent, ts_key, 32)

void kci_evq_init(kci_evq *q)
{
    memset(q, 0, sizeof *q);
    q->cur = q->last = NONE;
}

void kci_evq_free(kci_evq *q)
{
    for (size_t i = 0; i < q->nb; i++)
        free(q->b[i].e);
    free(q->b), free(q->freeb), free(q->slot), free(q->th), free(q->past), free(q->scratch);
    kci_evq_init(q);
}

static size_t hash_t(uint64_t t, size_t cap)
{
    uint64_t h = t * 0x9E3779B97F4A7C15u;
    return (size_t)(h ^ h >> 32) & (cap - 1);
}

/* The slot of time t in the table, or the free slot where it would go. */
static size_t find(const kci_evq *q, uint64_t t)
{
    for (size_t i = hash_t(t, q->cap);; i = (i + 1) & (q->cap - 1))
        if (q->slot[i] == NONE || q->b[q->slot[i]].t == t)
            return i;
}

/* Room for one more time in the table (load at most one half). */
static int table_room(kci_evq *q)
{
    if (2 * (q->used + 1) <= q->cap)
        return 0;
    size_t cap = q->cap ? 2 * q->cap : 64, *old = q->slot, oldcap = q->cap;
    size_t *s = malloc(cap * sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < cap; i++)
        s[i] = NONE;
    q->slot = s, q->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i] != NONE)
            q->slot[find(q, q->b[old[i]].t)] = old[i];
    free(old);
    return 0;
}

/* Free slot i, moving back the times of its probe run that may fill it. */
static void drop_slot(kci_evq *q, size_t i)
{
    size_t mask = q->cap - 1;
    for (size_t j = (i + 1) & mask; q->slot[j] != NONE; j = (j + 1) & mask) {
        size_t home = hash_t(q->b[q->slot[j]].t, q->cap);
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            q->slot[i] = q->slot[j];
            i = j;
        }
    }
    q->slot[i] = NONE;
    q->used--;
}

/* The bucket of time t (made, with its table slot and heap entry, when
 * there is none); NONE out of memory. */
static size_t bucket_of(kci_evq *q, uint64_t t)
{
    if (q->last != NONE && q->b[q->last].t == t) /* events come in runs of one time */
        return q->last;
    if (q->cap) {
        size_t i = find(q, t);
        if (q->slot[i] != NONE)
            return q->last = q->slot[i];
    }
    if (table_room(q) || (q->nth == q->capth && KCI_RESERVE(q->th, q->capth, q->nth + 1, 64)))
        return NONE;
    if (!q->nfree) {
        if (KCI_RESERVE(q->b, q->capb, q->nb + 1, 64) || KCI_RESIZE(q->freeb, q->capb))
            return NONE;
        q->b[q->nb] = (kci_evq_bucket){0};
        q->freeb[q->nfree++] = q->nb++;
    }
    size_t b = q->freeb[--q->nfree];
    q->b[b].t = t, q->b[b].n = q->b[b].at = 0;
    q->slot[find(q, t)] = b;
    q->used++;
    timeq_push(q->th, &q->nth, (kci_evq_time){t, b});
    return q->last = b;
}

/* Append x to bucket b; in the current bucket, insert it in its place
 * among the entries not yet taken when its k is smaller than the last
 * one's (other buckets are sorted when they become current). */
static int bucket_add(kci_evq *q, size_t b, kci_evq_ent x)
{
    kci_evq_bucket *u = &q->b[b];
    if (u->n == u->cap) {
        size_t cap = u->cap;
        if (cap >= UINT32_MAX / 2 || KCI_RESERVE(u->e, cap, (size_t)u->n + 1, 16))
            return -1;
        u->cap = (uint32_t)cap;
    }
    uint32_t j = u->n++;
    for (; b == q->cur && j > u->at && u->e[j - 1].k > x.k; j--)
        u->e[j] = u->e[j - 1];
    u->e[j] = x;
    return 0;
}

int kci_evq_push(kci_evq *q, kci_evq_ent x)
{
    int bad;
    if (q->cur != NONE && x.t < q->now)
        bad = q->npast == q->cappast && KCI_RESERVE(q->past, q->cappast, q->npast + 1, 64);
    else if (q->cur != NONE && x.t == q->now)
        bad = bucket_add(q, q->cur, x);
    else {
        size_t b = bucket_of(q, x.t);
        bad = b == NONE || bucket_add(q, b, x);
    }
    if (bad)
        return -1;
    if (q->cur != NONE && x.t < q->now)
        pastq_push(q->past, &q->npast, x);
    q->n++;
    return 0;
}

/* The bucket of the least time becomes current, sorted by k (-1 out of
 * memory for the sort); the one it replaces is freed for reuse. */
static int advance(kci_evq *q)
{
    size_t b = q->th[0].b;
    kci_evq_bucket *u = &q->b[b];
    int sorted = 1;
    uint64_t top = 0;
    for (uint32_t i = 0; i < u->n; i++) {
        sorted &= i == 0 || u->e[i - 1].k < u->e[i].k;
        top = top > (u->e[i].k >> 32) ? top : (u->e[i].k >> 32);
    }
    if (!sorted) {
        if (q->capscratch < u->n && KCI_RESERVE(q->scratch, q->capscratch, u->n, 64))
            return -1;
        sort_ts(u->e, u->n, q->scratch, top + 1, NULL);
    }
    if (q->cur != NONE) {
        drop_slot(q, find(q, q->b[q->cur].t));
        q->freeb[q->nfree++] = q->cur;
    }
    timeq_pop(q->th, &q->nth);
    q->cur = b, q->now = u->t, u->at = 0;
    q->times++;
    return 0;
}

int kci_evq_pop_slow(kci_evq *q, kci_evq_ent *out)
{
    if (q->npast) {
        *out = pastq_pop(q->past, &q->npast);
        q->n--;
        return 1;
    }
    while (q->cur == NONE || q->b[q->cur].at == q->b[q->cur].n) {
        if (!q->nth)
            return 0;
        if (advance(q))
            return -1;
    }
    kci_evq_bucket *u = &q->b[q->cur];
    *out = u->e[u->at++];
    q->n--;
    return 1;
}
