/* MPI's matching queues for the LogGOPS model (src/replay/loggops.c): per
 * rank, the posted receives and the unexpected messages, each searched for
 * the FIRST entry that fits in posting order, as MPI orders matching.
 *
 * A linear list per rank makes a search cost the queue's length (an
 * all-to-all of P ranks: O(P^2) per rank). Here every entry sits in a FIFO
 * keyed by (rank, source, tag), a wildcard receive under the key with
 * KCI_MQ_ANY in place of the source and/or tag, and the keys are an
 * open-addressing hash table holding only the keys with entries (a key
 * leaves when its last entry does, so the table stays as small as the
 * queues). All entries of one key fit the same searches, so the first that
 * fits within a key is its FIFO's head:
 *   - a message (source s, tag t) takes the posted receive of least posting
 *     number among the heads of (s, t), (ANY, t), (s, ANY), (ANY, ANY) (the
 *     last three only while the rank has wildcard receives posted);
 *   - a receive with a concrete source and tag takes the head of its key;
 *     one with a wildcard walks the rank's unexpected messages in arrival
 *     order (a list kept only when the schedule has wildcard receives;
 *     entries taken by key are unlinked lazily, each at most once) and
 *     takes the first that fits, which is then its key's head.
 * Costs: O(1) expected per entry and per concrete search; a wildcard
 * receive's search costs the unexpected messages it passes.
 *
 * Entries are operation numbers below the count given at init (each in at
 * most one queue at a time); ranks below 2^31, tags >= 0 (KCI_MQ_ANY only
 * on receives). */
#ifndef KCI_REPLAY_MATCHQ_H
#define KCI_REPLAY_MATCHQ_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"

#define KCI_MQ_ANY (-1)          /* a receive's any source / any tag */
#define KCI_MQ_NONE UINT32_MAX   /* no entry */

typedef struct kci_mq_key {
    int64_t tag;
    uint32_t rank, src; /* src UINT32_MAX: any */
    uint32_t head[2], tail[2]; /* [0] posted receives, [1] unexpected messages */
} kci_mq_key;

typedef struct kci_matchq {
    kci_mq_key *tab;   /* open addressing, linear probing; rank UINT32_MAX: free */
    size_t cap, used;  /* cap a power of two, used <= cap / 2 */
    uint32_t *next;    /* [n] the FIFO link of an entry */
    uint32_t *seq;     /* [n] posting (arrival) number */
    uint32_t nseq;
    int wild;          /* the schedule has wildcard receives: the lists below exist */
    uint32_t *pwild;   /* [R] wildcard receives posted per rank */
    uint32_t *ahead, *atail, *anext; /* [R], [R], [n] unexpected messages per rank in arrival order */
    uint32_t *usrc;    /* [n] an unexpected message's source ... */
    int64_t *utag;     /* ... and tag */
    unsigned char *gone; /* [n] taken by key while still on its rank's arrival list */
    size_t unexpected; /* messages waiting */
} kci_matchq;

/* Empty queues for entries 0 .. n - 1 on R ranks (n < 2^32 - 1, R < 2^31);
 * wild: receives with wildcards will be posted. KC_ENOMEM (q then holds
 * nothing to free). O(n) memory: 8 bytes an entry, 29 with wild. */
kc_status kci_mq_init(kci_matchq *q, size_t n, uint32_t R, int wild, kc_err *err);
void kci_mq_free(kci_matchq *q);

/* Post receive op on rank (src, tag may be KCI_MQ_ANY). -1 when the table
 * cannot grow (out of memory), else 0. */
int kci_mq_post(kci_matchq *q, uint32_t rank, int64_t src, int64_t tag, uint32_t op);
/* Queue message op (its source src and tag) as unexpected at rank. -1 out
 * of memory, else 0. */
int kci_mq_unexpected(kci_matchq *q, uint32_t rank, uint32_t src, int64_t tag, uint32_t op);
/* A message (src, tag) at rank: remove and return the first posted receive
 * that fits, or KCI_MQ_NONE. */
uint32_t kci_mq_take_posted(kci_matchq *q, uint32_t rank, uint32_t src, int64_t tag);
/* A receive (src, tag, either may be KCI_MQ_ANY) at rank: remove and
 * return the first unexpected message that fits, or KCI_MQ_NONE. */
uint32_t kci_mq_take_unexpected(kci_matchq *q, uint32_t rank, int64_t src, int64_t tag);
/* The earliest unexpected message left on the lowest rank that has one, or
 * KCI_MQ_NONE (*rank set when found). O(table). */
uint32_t kci_mq_first_left(const kci_matchq *q, uint32_t *rank);
/* The same for either queue (unexpected 0: the posted receives left). */
uint32_t kci_mq_first_in(const kci_matchq *q, int unexpected, uint32_t *rank);

#endif
