/* The LogGOPS model's event queue (src/replay/loggops.c): events keyed by
 * (time, k) with every key unique (k carries an insertion number), taken
 * least first, as a heap would give them, but cheaper when many events
 * share a time, as in synchronous schedules (a halo exchange: about 1,400
 * events a time step, ordered by insertion number alone).
 *
 * Events are kept in one bucket per time (a hash table from times to
 * buckets, a 4-ary heap of the bucket times). A bucket becomes current when
 * its time is the least; it is then sorted by k once (usually it is
 * already: events mostly arrive in insertion order) and emptied front to
 * back; an event pushed at the current time with a larger k than the
 * bucket's last is appended (new events have the largest insertion number
 * so far), one with a smaller k goes into its place. An event pushed at a
 * time before the current one (an operation made ready on a CPU that has
 * been free for a while) goes into a small heap that is taken from first:
 * it precedes everything in the buckets.
 * Costs: O(1) expected per event plus the sort of each bucket; O(log
 * buckets) per time step. Bucket arrays are kept for reuse. */
#ifndef KCI_REPLAY_EVQ_H
#define KCI_REPLAY_EVQ_H

#include <stddef.h>
#include <stdint.h>

typedef struct kci_evq_ent {
    uint64_t t, k;
} kci_evq_ent;

typedef struct kci_evq_bucket {
    uint64_t t;
    kci_evq_ent *e;
    uint32_t n, cap, at; /* entries; room; the next to take (current bucket) */
} kci_evq_bucket;

typedef struct kci_evq_time {
    uint64_t t;
    size_t b; /* its bucket */
} kci_evq_time;

typedef struct kci_evq {
    kci_evq_bucket *b;      /* buckets, in use or free */
    size_t nb, capb;
    size_t *freeb, nfree;   /* [capb] free bucket numbers */
    size_t *slot, cap, used; /* times to buckets: open addressing on t, SIZE_MAX free */
    kci_evq_time *th;       /* the bucket times, a heap */
    size_t nth, capth;
    kci_evq_ent *past;      /* events before the current time, a heap */
    size_t npast, cappast;
    kci_evq_ent *scratch;   /* for sorting a bucket */
    size_t capscratch;
    size_t cur;             /* the current bucket, or SIZE_MAX */
    size_t last;            /* the bucket a push went to last (a time after now), or SIZE_MAX */
    uint64_t now;           /* its time */
    size_t n;               /* events in the queue */
    size_t times;           /* buckets made current so far */
} kci_evq;

/* An empty queue (nothing allocated yet). */
void kci_evq_init(kci_evq *q);
void kci_evq_free(kci_evq *q);
/* Add x (k >> 32 unique among the queue's events). -1 out of memory (the queue is
 * unchanged), else 0. */
int kci_evq_push(kci_evq *q, kci_evq_ent x);
/* Remove the least event into *out: 1, or 0 when the queue is empty. -1
 * out of memory (sorting a bucket), the queue unchanged. The common case,
 * the current bucket's next event, is inline. */
int kci_evq_pop_slow(kci_evq *q, kci_evq_ent *out);
static inline int kci_evq_pop(kci_evq *q, kci_evq_ent *out)
{
    kci_evq_bucket *u = q->cur == SIZE_MAX ? NULL : &q->b[q->cur];
    if (q->npast || !u || u->at == u->n)
        return kci_evq_pop_slow(q, out);
    *out = u->e[u->at++];
    q->n--;
    return 1;
}

#endif
