/* MPI's matching queues hashed by (rank, source, tag), FIFO per key, with
 * wildcard receives answered in posting order (src/replay/matchq.h says
 * how). Used by the LogGOPS model; checked against the linear queues on
 * seeded random streams by tests/test_matchq.c. */
#include <stdlib.h>
#include <string.h>

#include "matchq.h"

#define FREE_SLOT UINT32_MAX

/* A slot number for (rank, src, tag) in a table of cap slots (a power of
 * two): a multiplicative mix, the top bits taken. */
static size_t hash_key(uint32_t rank, uint32_t src, int64_t tag, size_t cap)
{
    uint64_t h = ((uint64_t)rank << 32 | src) * 0x9E3779B97F4A7C15u;
    h ^= (uint64_t)tag * 0xC2B2AE3D27D4EB4Fu;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    return (size_t)(h >> 32) & (cap - 1);
}

/* The slot holding (rank, src, tag), or the free slot where it would go.
 * The table always has a free slot (used <= cap / 2). */
static size_t find(const kci_matchq *q, uint32_t rank, uint32_t src, int64_t tag)
{
    size_t i = hash_key(rank, src, tag, q->cap);
    for (;;) {
        const kci_mq_key *k = &q->tab[i];
        if (k->rank == FREE_SLOT || (k->rank == rank && k->src == src && k->tag == tag))
            return i;
        i = (i + 1) & (q->cap - 1);
    }
}

/* A fresh table of cap slots, all free; -1 out of memory. */
static int table_new(kci_matchq *q, size_t cap)
{
    kci_mq_key *t = malloc(cap * sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < cap; i++)
        t[i].rank = FREE_SLOT;
    q->tab = t;
    q->cap = cap;
    return 0;
}

/* Double the table, moving every key (their FIFOs stay as they are). */
static int grow(kci_matchq *q)
{
    kci_mq_key *old = q->tab;
    size_t oldcap = q->cap;
    if (table_new(q, oldcap * 2)) {
        q->tab = old, q->cap = oldcap;
        return -1;
    }
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].rank != FREE_SLOT)
            q->tab[find(q, old[i].rank, old[i].src, old[i].tag)] = old[i];
    free(old);
    return 0;
}

/* Free slot i, shifting back the keys of its probe run that may move into
 * it (linear probing's deletion without tombstones). */
static void drop_slot(kci_matchq *q, size_t i)
{
    size_t mask = q->cap - 1;
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        kci_mq_key *k = &q->tab[j];
        if (k->rank == FREE_SLOT)
            break;
        size_t home = hash_key(k->rank, k->src, k->tag, q->cap);
        /* k may fill i when its home is not cyclically in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            q->tab[i] = *k;
            i = j;
        }
    }
    q->tab[i].rank = FREE_SLOT;
    q->used--;
}

kc_status kci_mq_init(kci_matchq *q, size_t n, uint32_t R, int wild, kc_err *err)
{
    memset(q, 0, sizeof *q);
    size_t n1 = n ? n : 1, R1 = R ? R : 1;
    q->wild = wild;
    q->next = malloc(n1 * sizeof *q->next);
    q->seq = malloc(n1 * sizeof *q->seq);
    if (wild) {
        q->pwild = calloc(R1, sizeof *q->pwild);
        q->ahead = malloc(R1 * sizeof *q->ahead);
        q->atail = malloc(R1 * sizeof *q->atail);
        q->anext = malloc(n1 * sizeof *q->anext);
        q->usrc = malloc(n1 * sizeof *q->usrc);
        q->utag = malloc(n1 * sizeof *q->utag);
        q->gone = calloc(n1, 1);
    }
    if (!q->next || !q->seq || table_new(q, 64) ||
        (wild && (!q->pwild || !q->ahead || !q->atail || !q->anext || !q->usrc || !q->utag || !q->gone))) {
        kci_mq_free(q);
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    }
    for (size_t r = 0; wild && r < R; r++)
        q->ahead[r] = q->atail[r] = KCI_MQ_NONE;
    return KC_OK;
}

void kci_mq_free(kci_matchq *q)
{
    free(q->tab), free(q->next), free(q->seq), free(q->pwild), free(q->ahead), free(q->atail);
    free(q->anext), free(q->usrc), free(q->utag), free(q->gone);
    memset(q, 0, sizeof *q);
}

/* Append op to FIFO w (0 posted, 1 unexpected) of key (rank, src, tag),
 * making the key when it has none. -1 out of memory. */
static int append(kci_matchq *q, int w, uint32_t rank, uint32_t src, int64_t tag, uint32_t op)
{
    size_t i = find(q, rank, src, tag);
    kci_mq_key *k = &q->tab[i];
    if (k->rank == FREE_SLOT) {
        if (2 * (q->used + 1) > q->cap) {
            if (grow(q))
                return -1;
            i = find(q, rank, src, tag);
            k = &q->tab[i];
        }
        *k = (kci_mq_key){tag, rank, src, {KCI_MQ_NONE, KCI_MQ_NONE}, {KCI_MQ_NONE, KCI_MQ_NONE}};
        q->used++;
    }
    q->next[op] = KCI_MQ_NONE;
    q->seq[op] = q->nseq++;
    if (k->head[w] == KCI_MQ_NONE)
        k->head[w] = op;
    else
        q->next[k->tail[w]] = op;
    k->tail[w] = op;
    return 0;
}

/* Remove the head of FIFO w of the key in slot i (dropping the key once
 * it has no entries); returns it. */
static uint32_t pop_head(kci_matchq *q, size_t i, int w)
{
    kci_mq_key *k = &q->tab[i];
    uint32_t op = k->head[w];
    k->head[w] = q->next[op];
    if (k->head[0] == KCI_MQ_NONE && k->head[1] == KCI_MQ_NONE)
        drop_slot(q, i);
    return op;
}

int kci_mq_post(kci_matchq *q, uint32_t rank, int64_t src, int64_t tag, uint32_t op)
{
    int wildcard = src == KCI_MQ_ANY || tag == KCI_MQ_ANY;
    if (append(q, 0, rank, src == KCI_MQ_ANY ? UINT32_MAX : (uint32_t)src, tag, op))
        return -1;
    if (wildcard)
        q->pwild[rank]++;
    return 0;
}

int kci_mq_unexpected(kci_matchq *q, uint32_t rank, uint32_t src, int64_t tag, uint32_t op)
{
    if (append(q, 1, rank, src, tag, op))
        return -1;
    q->unexpected++;
    if (q->wild) {
        q->usrc[op] = src, q->utag[op] = tag, q->gone[op] = 0, q->anext[op] = KCI_MQ_NONE;
        if (q->ahead[rank] == KCI_MQ_NONE)
            q->ahead[rank] = op;
        else
            q->anext[q->atail[rank]] = op;
        q->atail[rank] = op;
    }
    return 0;
}

/* The posted receive at the head of key (rank, src, tag) in *slot when its
 * posting number is below *best's. */
static void consider(const kci_matchq *q, uint32_t rank, uint32_t src, int64_t tag, size_t *slot, uint32_t *best)
{
    size_t i = find(q, rank, src, tag);
    uint32_t h = q->tab[i].rank == FREE_SLOT ? KCI_MQ_NONE : q->tab[i].head[0];
    if (h != KCI_MQ_NONE && (*best == KCI_MQ_NONE || q->seq[h] < q->seq[*best]))
        *best = h, *slot = i;
}

uint32_t kci_mq_take_posted(kci_matchq *q, uint32_t rank, uint32_t src, int64_t tag)
{
    size_t slot = 0;
    uint32_t best = KCI_MQ_NONE;
    consider(q, rank, src, tag, &slot, &best);
    if (q->wild && q->pwild[rank]) {
        consider(q, rank, UINT32_MAX, tag, &slot, &best);
        consider(q, rank, src, KCI_MQ_ANY, &slot, &best);
        consider(q, rank, UINT32_MAX, KCI_MQ_ANY, &slot, &best);
    }
    if (best == KCI_MQ_NONE)
        return KCI_MQ_NONE;
    if (q->tab[slot].src == UINT32_MAX || q->tab[slot].tag == KCI_MQ_ANY)
        q->pwild[rank]--;
    return pop_head(q, slot, 0);
}

/* A wildcard receive's search: the rank's unexpected messages in arrival
 * order, unlinking those already taken by key; the first that fits is
 * unlinked and returned (it heads its key's FIFO, which it leaves). */
static uint32_t take_by_arrival(kci_matchq *q, uint32_t rank, int64_t src, int64_t tag)
{
    uint32_t prev = KCI_MQ_NONE;
    for (uint32_t e = q->ahead[rank]; e != KCI_MQ_NONE;) {
        uint32_t nx = q->anext[e];
        int fits = !q->gone[e] && (src == KCI_MQ_ANY || q->usrc[e] == (uint32_t)src) &&
                   (tag == KCI_MQ_ANY || q->utag[e] == tag);
        if (q->gone[e] || fits) {
            if (prev == KCI_MQ_NONE)
                q->ahead[rank] = nx;
            else
                q->anext[prev] = nx;
            if (q->atail[rank] == e)
                q->atail[rank] = prev;
        } else {
            prev = e;
        }
        if (fits) {
            q->unexpected--;
            return pop_head(q, find(q, rank, q->usrc[e], q->utag[e]), 1);
        }
        e = nx;
    }
    return KCI_MQ_NONE;
}

uint32_t kci_mq_take_unexpected(kci_matchq *q, uint32_t rank, int64_t src, int64_t tag)
{
    if (src == KCI_MQ_ANY || tag == KCI_MQ_ANY)
        return take_by_arrival(q, rank, src, tag);
    size_t i = find(q, rank, (uint32_t)src, tag);
    if (q->tab[i].rank == FREE_SLOT || q->tab[i].head[1] == KCI_MQ_NONE)
        return KCI_MQ_NONE;
    uint32_t op = pop_head(q, i, 1);
    q->unexpected--;
    if (q->wild)
        q->gone[op] = 1;
    return op;
}

uint32_t kci_mq_first_in(const kci_matchq *q, int unexpected, uint32_t *rank)
{
    uint32_t best = KCI_MQ_NONE, br = 0;
    for (size_t i = 0; i < q->cap; i++) {
        const kci_mq_key *k = &q->tab[i];
        uint32_t h = k->rank == FREE_SLOT ? KCI_MQ_NONE : k->head[unexpected ? 1 : 0];
        if (h != KCI_MQ_NONE &&
            (best == KCI_MQ_NONE || k->rank < br || (k->rank == br && q->seq[h] < q->seq[best])))
            best = h, br = k->rank;
    }
    *rank = br;
    return best;
}

uint32_t kci_mq_first_left(const kci_matchq *q, uint32_t *rank)
{
    *rank = 0;
    return q->unexpected ? kci_mq_first_in(q, 1, rank) : KCI_MQ_NONE;
}
