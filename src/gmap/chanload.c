/* chanload.c - the exact channel-load counter of kcube/chanload.h.
 *
 * Loads live in one array indexed by channel id; a max tree over blocks of
 * BLOCK channels gives the exact maximum after every move. A swap walks the
 * old routes of the two ranks' pairs backwards (subtract) and the new ones
 * forwards (add), logging each channel's load the first time it is touched
 * (an epoch stamp per channel), which is what undo restores and what the
 * sum of squares is updated from. */
#include "kcube/chanload.h"
#include "kcube/perm.h"
#include "kcube/torus.h"

#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "core/grow.h"
#include "core/size.h"

#define BLOCK (KCI_CACHE_LINE / sizeof(uint64_t)) /* channels per max-tree leaf: one cache line of loads */

typedef unsigned __int128 u128;

struct kc_chanload {
    kc_topology topo;
    int n;
    uint32_t nslots;                 /* what a mapping permutes (kc_topology_slots) */
    uint32_t routers;                /* routers of the whole network: loads are kept per router */
    uint32_t *srouter;               /* srouter[slot]: its router; NULL when slot = router (C = 1, no allocation) */
    uint32_t stride[KC_TOPO_MAX_DIMS];
    int16_t *move[KC_TOPO_MAX_DIMS]; /* move[i][s * side + d]: signed ring move */
    uint8_t *coord;                  /* coord[x * n + i] */
    size_t slots;                    /* channel slots of one layer: 2 n N */
    uint32_t layers;                 /* communications counted apart (1: the union) */
    size_t total;                    /* slots x layers */
    uint64_t *load;
    uint32_t *epoch, cur_epoch;      /* first-touch stamps per channel */
    size_t tsize;                    /* leaves of the max tree (power of two) */
    uint64_t *tree;                  /* tree[1] = max, leaves at tsize + block */
    uint32_t *bepoch;                /* per-block stamps while repairing */
    size_t pairs;
    uint32_t *psrc, *pdst;
    uint64_t *pbytes;
    uint32_t *pgroup;                /* pair j's layer (NULL with one layer) */
    size_t *rstart;                  /* CSR of pair ids by rank */
    uint32_t *radj;
    uint32_t *tophys, *tovirt;
    uint64_t max, hops;
    u128 sumsq;
    /* the undo log of the last swap */
    uint32_t *touched;
    uint64_t *oldload;
    size_t ntouched, captouched;
    uint32_t *moved, *moved_from;    /* ranks the last move displaced, and their nodes before it */
    size_t nmoved, capmoved;
    uint32_t *rstamp, rcur;          /* marks the ranks of the move being made */
    uint64_t diam;
    int can_undo;
    uint64_t old_max, old_hops;
    u128 old_sumsq;
};

int kc_cost_cmp(const kc_cost *x, const kc_cost *y)
{
    if (x->max != y->max)
        return x->max < y->max ? -1 : 1;
    if (x->hops != y->hops)
        return x->hops < y->hops ? -1 : 1;
    if (x->sumsq_hi != y->sumsq_hi)
        return x->sumsq_hi < y->sumsq_hi ? -1 : 1;
    if (x->sumsq_lo != y->sumsq_lo)
        return x->sumsq_lo < y->sumsq_lo ? -1 : 1;
    return 0;
}

char *kc_cost_sumsq_format(const kc_cost *c, char *buf, size_t size)
{
    char tmp[48];
    int len = 0;
    u128 v = ((u128)c->sumsq_hi << 64) | c->sumsq_lo;
    do {
        tmp[len++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    if (size == 0)
        return buf;
    size_t out = (size_t)len < size - 1 ? (size_t)len : size - 1;
    for (size_t i = 0; i < out; i++)
        buf[i] = tmp[len - 1 - (int)i];
    buf[out] = '\0';
    return buf;
}

double kc_cost_sumsq_double(const kc_cost *c) { return (double)c->sumsq_hi * 18446744073709551616.0 + (double)c->sumsq_lo; }

/* ---- routes ---------------------------------------------------------------- */

/* Slot x's router (concentration: the slots of one router share it). */
static inline uint32_t router_of(const kc_chanload *cl, uint32_t x) { return cl->srouter ? cl->srouter[x] : x; }

/* Ring moves come from kc_topology_ring_move, the one rule kcube routes by
 * (each axis its own side and wrap, the tie rule on even rings). */
static kc_status build_moves(kc_chanload *cl, kc_err *err)
{
    const kc_topology *t = &cl->topo;
    for (int i = 0; i < cl->n; i++) {
        int s = t->side[i];
        if (s < 2 || s > KC_TOPO_MAX_SIDE)
            return kc_fail(err, KC_EINTERNAL, "axis %d has side %d after validation", i, s);
        cl->move[i] = malloc((size_t)(s * s) * sizeof(int16_t));
        if (!cl->move[i])
            return kc_fail(err, KC_ENOMEM, "out of memory for the ring-move tables");
        for (int a = 0; a < s; a++)
            for (int b = 0; b < s; b++)
                cl->move[i][a * s + b] = (int16_t)kc_topology_ring_move(t, i, (unsigned)a, (unsigned)b);
    }
    cl->coord = malloc(cl->slots / 2 + 1);
    if (!cl->coord)
        return kc_fail(err, KC_ENOMEM, "out of memory for the coordinate table");
    uint32_t st = 1;
    for (int i = 0; i < cl->n; i++) {
        cl->stride[i] = st;
        st *= (uint32_t)t->side[i];
    }
    for (uint32_t x = 0; x < cl->routers; x++)
        for (int i = 0; i < cl->n; i++)
            cl->coord[(size_t)x * cl->n + i] = (uint8_t)((x / cl->stride[i]) % (uint32_t)t->side[i]);
    return KC_OK;
}

/* The first slot of pair j's layer. */
static inline size_t layer_of(const kc_chanload *cl, size_t j) { return cl->pgroup ? cl->pgroup[j] * cl->slots : 0; }

static inline void log_touch(kc_chanload *cl, size_t c)
{
    if (cl->epoch[c] != cl->cur_epoch) {
        cl->epoch[c] = cl->cur_epoch;
        cl->touched[cl->ntouched] = (uint32_t)c;
        cl->oldload[cl->ntouched] = cl->load[c];
        cl->ntouched++;
    }
}

/* Add (add = 1) or remove w bytes along the route from router p to router q,
 * in the layer starting at slot off; log = 1 records first touches for
 * undo. Returns the hop count. */
static inline uint64_t walk(kc_chanload *cl, size_t off, uint32_t p, uint32_t q, uint64_t w, int add, int log)
{
    const int n = cl->n;
    const uint8_t *cq = &cl->coord[(size_t)q * n];
    uint32_t cur = p;
    uint64_t hops = 0;
    for (int i = 0; i < n; i++) {
        int side = cl->topo.side[i];
        int s = cl->coord[(size_t)cur * n + i], d = cq[i];
        if (s == d)
            continue;
        int mv = cl->move[i][s * side + d];
        int len = mv > 0 ? mv : -mv, neg = mv < 0;
        uint32_t base = cur - (uint32_t)s * cl->stride[i];
        for (int h = 0; h < len; h++) {
            size_t c = off + ((size_t)cur * n + i) * 2 + (size_t)neg;
            if (log)
                log_touch(cl, c);
            if (add)
                cl->load[c] += w;
            else
                cl->load[c] -= w;
            s = neg ? (s == 0 ? side - 1 : s - 1) : (s + 1 == side ? 0 : s + 1);
            cur = base + (uint32_t)s * cl->stride[i];
        }
        hops += (uint64_t)len;
    }
    return hops;
}

/* ---- max tree ---------------------------------------------------------------- */

static uint64_t block_max(const kc_chanload *cl, size_t b)
{
    uint64_t m = 0;
    size_t end = (b + 1) * BLOCK < cl->total ? (b + 1) * BLOCK : cl->total;
    for (size_t c = b * BLOCK; c < end; c++)
        if (cl->load[c] > m)
            m = cl->load[c];
    return m;
}

static void tree_fix(kc_chanload *cl, size_t b)
{
    size_t i = cl->tsize + b;
    cl->tree[i] = block_max(cl, b);
    for (i /= 2; i >= 1; i /= 2) {
        uint64_t v = cl->tree[2 * i] > cl->tree[2 * i + 1] ? cl->tree[2 * i] : cl->tree[2 * i + 1];
        if (cl->tree[i] == v)
            break; /* ancestors were consistent and see no change */
        cl->tree[i] = v;
    }
}

static void tree_build(kc_chanload *cl)
{
    size_t nb = (cl->total + BLOCK - 1) / BLOCK;
    for (size_t b = 0; b < cl->tsize; b++)
        cl->tree[cl->tsize + b] = b < nb ? block_max(cl, b) : 0;
    for (size_t i = cl->tsize - 1; i >= 1; i--)
        cl->tree[i] = cl->tree[2 * i] > cl->tree[2 * i + 1] ? cl->tree[2 * i] : cl->tree[2 * i + 1];
    cl->max = cl->tree[1];
}

/* Repair the tree over the logged channels (each block once). */
static void tree_repair(kc_chanload *cl)
{
    for (size_t j = 0; j < cl->ntouched; j++) {
        size_t b = cl->touched[j] / BLOCK;
        if (cl->bepoch[b] != cl->cur_epoch) {
            cl->bepoch[b] = cl->cur_epoch;
            tree_fix(cl, b);
        }
    }
    cl->max = cl->tree[1];
}

size_t kc_chanload_argmax(const kc_chanload *cl)
{
    if (cl->tree[1] == 0)
        return SIZE_MAX;
    size_t i = 1;
    while (i < cl->tsize)
        i = cl->tree[2 * i] == cl->tree[i] ? 2 * i : 2 * i + 1;
    size_t b = i - cl->tsize;
    for (size_t c = b * BLOCK;; c++)
        if (cl->load[c] == cl->tree[1])
            return c;
}

/* ---- construction ---------------------------------------------------------------- */

/* Message m's bucket: its layer, then its source. */
static inline size_t bucket_of(const kc_chanload *cl, const kc_traffic *tr, const uint32_t *group, size_t m)
{
    return (group ? (size_t)group[m] * cl->nslots : 0) + tr->src[m];
}

/* Counting sort of the messages by bucket: order[start[b] .. start[b+1]). */
static void bucket_sort(const kc_chanload *cl, const kc_traffic *tr, const uint32_t *group, size_t nb, size_t *start,
                        uint32_t *order)
{
    for (size_t m = 0; m < tr->count; m++)
        start[bucket_of(cl, tr, group, m) + 1]++;
    for (size_t b = 0; b < nb; b++)
        start[b + 1] += start[b];
    for (size_t m = 0; m < tr->count; m++)
        order[start[bucket_of(cl, tr, group, m)]++] = (uint32_t)m;
    for (size_t b = nb; b > 0; b--)
        start[b] = start[b - 1];
    start[0] = 0;
}

static kc_status alloc_pairs(kc_chanload *cl, size_t e, int grouped, kc_err *err)
{
    cl->pairs = e;
    cl->psrc = malloc((e ? e : 1) * sizeof *cl->psrc);
    cl->pdst = malloc((e ? e : 1) * sizeof *cl->pdst);
    cl->pbytes = malloc((e ? e : 1) * sizeof *cl->pbytes);
    if (grouped)
        cl->pgroup = malloc((e ? e : 1) * sizeof *cl->pgroup);
    if (!cl->psrc || !cl->pdst || !cl->pbytes || (grouped && !cl->pgroup))
        return kc_fail(err, KC_ENOMEM, "out of memory for %zu communicating pairs", e);
    return KC_OK;
}

/* Sum the bytes of each ordered pair within a layer (self messages
 * dropped): pairs in order of layer, source, then first appearance. Two
 * passes over the bucketed messages: count the distinct pairs, then fill. */
static kc_status aggregate(kc_chanload *cl, const kc_traffic *tr, const uint32_t *group, kc_err *err)
{
    uint32_t N = cl->nslots;
    size_t nb = (size_t)cl->layers * N;
    size_t *start = calloc(nb + 1, sizeof *start);
    uint32_t *order = malloc((tr->count ? tr->count : 1) * sizeof *order);
    uint32_t *stamp = calloc(N, sizeof *stamp), *slot = malloc((size_t)N * sizeof *slot);
    kc_status st = KC_OK;
    if (!start || !order || !stamp || !slot) {
        st = kc_fail(err, KC_ENOMEM, "out of memory aggregating %zu messages", tr->count);
        goto out;
    }
    bucket_sort(cl, tr, group, nb, start, order);
    for (int pass = 0; pass < 2 && !st; pass++) {
        size_t e = 0;
        memset(stamp, 0, (size_t)N * sizeof *stamp);
        for (size_t b = 0; b < nb; b++)
            for (size_t j = start[b]; j < start[b + 1]; j++) {
                uint32_t m = order[j], v = tr->src[m], d = tr->dst[m];
                if (d == v)
                    continue;
                if (stamp[d] != b + 1) { /* b < layers N <= 2^32 - 1: see kc_chanload_new_layered */
                    stamp[d] = (uint32_t)(b + 1);
                    slot[d] = (uint32_t)e;
                    if (pass) {
                        cl->psrc[e] = v;
                        cl->pdst[e] = d;
                        cl->pbytes[e] = 0;
                        if (cl->pgroup)
                            cl->pgroup[e] = (uint32_t)(b / N);
                    }
                    e++;
                }
                if (pass)
                    cl->pbytes[slot[d]] += tr->bytes[m];
            }
        if (pass == 0)
            st = alloc_pairs(cl, e, group != NULL, err);
    }
out:
    free(start);
    free(order);
    free(stamp);
    free(slot);
    return st;
}

/* Pair ids by rank, each pair at both ends; and the undo log's capacity:
 * the two busiest ranks' pairs, each route walked twice, and the two ranks
 * one transposition moves (so that kc_chanload_swap never allocates). */
static kc_status build_adjacency(kc_chanload *cl, uint64_t diam, kc_err *err)
{
    uint32_t N = cl->nslots;
    cl->rstart = calloc((size_t)N + 1, sizeof *cl->rstart);
    cl->radj = malloc((cl->pairs ? 2 * cl->pairs : 1) * sizeof *cl->radj);
    if (!cl->rstart || !cl->radj)
        return kc_fail(err, KC_ENOMEM, "out of memory for the pair lists");
    for (size_t j = 0; j < cl->pairs; j++) {
        cl->rstart[cl->psrc[j] + 1]++;
        cl->rstart[cl->pdst[j] + 1]++;
    }
    size_t d1 = 0, d2 = 0;
    for (uint32_t v = 0; v < N; v++) {
        size_t d = cl->rstart[v + 1];
        if (d > d1) {
            d2 = d1;
            d1 = d;
        } else if (d > d2)
            d2 = d;
        cl->rstart[v + 1] += cl->rstart[v];
    }
    size_t *fill = malloc(((size_t)N + 1) * sizeof *fill);
    if (!fill)
        return kc_fail(err, KC_ENOMEM, "out of memory for the pair lists");
    memcpy(fill, cl->rstart, ((size_t)N + 1) * sizeof *fill);
    for (size_t j = 0; j < cl->pairs; j++) {
        cl->radj[fill[cl->psrc[j]]++] = (uint32_t)j;
        cl->radj[fill[cl->pdst[j]]++] = (uint32_t)j;
    }
    free(fill);
    uint64_t cap = (uint64_t)(d1 + d2) * 2 * diam;
    cl->captouched = cap < cl->total ? (size_t)cap : cl->total;
    cl->touched = malloc((cl->captouched ? cl->captouched : 1) * sizeof *cl->touched);
    cl->oldload = malloc((cl->captouched ? cl->captouched : 1) * sizeof *cl->oldload);
    cl->moved = malloc(2 * sizeof *cl->moved);
    cl->moved_from = malloc(2 * sizeof *cl->moved_from);
    if (!cl->touched || !cl->oldload || !cl->moved || !cl->moved_from)
        return kc_fail(err, KC_ENOMEM, "out of memory for the undo log");
    cl->capmoved = 2;
    return KC_OK;
}

static kc_status check_input(const kc_topology *t, const kc_traffic *tr, uint64_t *diam, kc_err *err)
{
    kc_status s = kc_topology_validate(t, err);
    if (s)
        return s;
    uint64_t slots = kc_topology_slots(t);
    if (t->nodes > KC_CHANLOAD_MAX_NODES || slots > KC_CHANLOAD_MAX_NODES)
        return kc_fail_param(err, KC_ERANGE, "n", "the channel-load counter takes up to %llu nodes, not %llu",
                             (unsigned long long)KC_CHANLOAD_MAX_NODES,
                             (unsigned long long)(t->nodes > slots ? t->nodes : slots));
    /* Fewer ranks than slots: the slots beyond tr->ranks hold silent ranks. */
    if (tr->ranks > slots)
        return kc_fail_param(err, KC_EINVAL, "traffic", "the traffic has %llu ranks but the topology %llu %s",
                             (unsigned long long)tr->ranks, (unsigned long long)slots,
                             kc_topology_is_plain(t) ? "nodes" : "slots");
    uint64_t total = 0;
    for (size_t m = 0; m < tr->count; m++)
        if (tr->src[m] != tr->dst[m] && kci_add_overflow_u64(total, tr->bytes[m], &total))
            return kc_fail_param(err, KC_ERANGE, "traffic", "the traffic's total bytes exceed 2^64 - 1");
    *diam = (uint64_t)kc_topology_diameter(t);
    uint64_t prod;
    if (kci_mul_overflow_u64(total, *diam, &prod))
        return kc_fail_param(err, KC_ERANGE, "traffic",
                             "total bytes %llu times the diameter %llu exceed 2^64 - 1 (exact counting limit)",
                             (unsigned long long)total, (unsigned long long)*diam);
    return KC_OK;
}

static kc_status check_groups(const kc_traffic *tr, const uint32_t *group, uint32_t groups, kc_err *err)
{
    if (groups < 1 || (groups > 1 && !group))
        return kc_fail_param(err, KC_EINVAL, "group", "%u groups need group ids (and at least one group)", groups);
    for (size_t m = 0; group && m < tr->count; m++)
        if (group[m] >= groups)
            return kc_fail_param(err, KC_ERANGE, "group", "message %zu has group %u, not below %u", m, group[m],
                                 groups);
    return KC_OK;
}

/* Loads, stamps, the max tree, the mapping and, when slots are not routers,
 * each slot's router (from t, whose allocation is borrowed only here). */
static kc_status alloc_tables(kc_chanload *cl, const kc_topology *t, kc_err *err)
{
    size_t nb = (cl->total + BLOCK - 1) / BLOCK;
    for (cl->tsize = 1; cl->tsize < nb; cl->tsize *= 2)
        ;
    cl->load = calloc(cl->total, sizeof *cl->load);
    cl->epoch = calloc(cl->total, sizeof *cl->epoch);
    cl->tree = calloc(2 * cl->tsize, sizeof *cl->tree);
    cl->bepoch = calloc(cl->tsize, sizeof *cl->bepoch);
    cl->tophys = malloc((size_t)cl->nslots * sizeof *cl->tophys);
    cl->tovirt = malloc((size_t)cl->nslots * sizeof *cl->tovirt);
    cl->rstamp = calloc(cl->nslots, sizeof *cl->rstamp);
    if (!cl->load || !cl->epoch || !cl->tree || !cl->bepoch || !cl->tophys || !cl->tovirt || !cl->rstamp)
        return kc_fail(err, KC_ENOMEM, "out of memory for %zu channel slots", cl->total);
    if (cl->nslots == cl->routers && !t->alloc)
        return KC_OK;
    cl->srouter = malloc((size_t)cl->nslots * sizeof *cl->srouter);
    if (!cl->srouter)
        return kc_fail(err, KC_ENOMEM, "out of memory for %u slots", cl->nslots);
    for (uint32_t x = 0; x < cl->nslots; x++)
        cl->srouter[x] = (uint32_t)kc_topology_slot_router(t, x);
    return KC_OK;
}

kc_status kc_chanload_new_layered(kc_chanload **out, const kc_topology *t, const kc_traffic *tr, const uint32_t *group,
                                  uint32_t groups, kc_err *err)
{
    *out = NULL;
    uint64_t diam = 0;
    kc_status s = check_input(t, tr, &diam, err);
    if (s)
        return s;
    kc_chanload *cl = calloc(1, sizeof *cl);
    if (!cl)
        return kc_fail(err, KC_ENOMEM, "out of memory for the channel-load counter");
    cl->topo = *t;
    cl->n = t->n;
    cl->topo.alloc = NULL; /* borrowed: srouter, built from t, keeps what it says */
    cl->routers = (uint32_t)t->nodes;
    cl->nslots = (uint32_t)kc_topology_slots(t);
    cl->slots = (size_t)cl->routers * (size_t)cl->n * 2;
    cl->layers = group ? groups : 1;
    cl->diam = diam;
    cl->total = cl->slots * cl->layers;
    s = check_groups(tr, group, group ? groups : 1, err);
    /* Slot ids are uint32 in the undo log; the limit also bounds memory. */
    if (!s && (uint64_t)cl->slots * cl->layers > UINT32_MAX)
        s = kc_fail_param(err, KC_ERANGE, "group", "%u layers of %zu channel slots exceed 2^32 slots", cl->layers,
                          cl->slots);
    if (!s)
        s = alloc_tables(cl, t, err);
    if (!s)
        s = build_moves(cl, err);
    if (!s)
        s = aggregate(cl, tr, group, err);
    if (!s)
        s = build_adjacency(cl, diam, err);
    if (!s) {
        kc_perm_identity(cl->tophys, cl->nslots);
        s = kc_chanload_set(cl, cl->tophys, err);
    }
    if (s) {
        kc_chanload_free(cl);
        return s;
    }
    *out = cl;
    return KC_OK;
}

kc_status kc_chanload_new(kc_chanload **out, const kc_topology *t, const kc_traffic *tr, kc_err *err)
{
    return kc_chanload_new_layered(out, t, tr, NULL, 1, err);
}

void kc_chanload_free(kc_chanload *cl)
{
    if (!cl)
        return;
    for (int i = 0; i < cl->n; i++)
        free(cl->move[i]);
    free(cl->coord);
    free(cl->srouter);
    free(cl->load);
    free(cl->epoch);
    free(cl->tree);
    free(cl->bepoch);
    free(cl->psrc);
    free(cl->pdst);
    free(cl->pbytes);
    free(cl->pgroup);
    free(cl->rstart);
    free(cl->radj);
    free(cl->tophys);
    free(cl->tovirt);
    free(cl->touched);
    free(cl->oldload);
    free(cl->moved);
    free(cl->moved_from);
    free(cl->rstamp);
    free(cl);
}

kc_status kc_chanload_set(kc_chanload *cl, const uint32_t *to_physical, kc_err *err)
{
    uint32_t *inv = malloc((size_t)cl->nslots * sizeof *inv);
    if (!inv)
        return kc_fail(err, KC_ENOMEM, "out of memory for a mapping");
    kc_status s = kc_perm_invert(to_physical, inv, cl->nslots, "mapping", err);
    if (s) {
        free(inv);
        return s;
    }
    if (cl->tophys != to_physical)
        memcpy(cl->tophys, to_physical, (size_t)cl->nslots * sizeof *inv);
    memcpy(cl->tovirt, inv, (size_t)cl->nslots * sizeof *inv);
    free(inv);
    memset(cl->load, 0, cl->total * sizeof *cl->load);
    cl->hops = 0;
    for (size_t j = 0; j < cl->pairs; j++)
        cl->hops += cl->pbytes[j] * walk(cl, layer_of(cl, j), router_of(cl, cl->tophys[cl->psrc[j]]),
                                         router_of(cl, cl->tophys[cl->pdst[j]]), cl->pbytes[j], 1, 0);
    cl->sumsq = 0;
    for (size_t c = 0; c < cl->total; c++)
        cl->sumsq += (u128)cl->load[c] * cl->load[c];
    tree_build(cl);
    cl->can_undo = 0;
    return KC_OK;
}

/* ---- swaps ---------------------------------------------------------------- */

static void bump_epoch(kc_chanload *cl)
{
    if (++cl->cur_epoch == 0) { /* wrapped: clear the stamps once every 2^32 uses */
        memset(cl->epoch, 0, cl->total * sizeof *cl->epoch);
        memset(cl->bepoch, 0, cl->tsize * sizeof *cl->bepoch);
        cl->cur_epoch = 1;
    }
}

/* Walk (add or remove) the pairs of every displaced rank, each pair once:
 * from its source when the source is displaced, else from its destination.
 * Returns bytes x hops walked; *work gets hops. */
static uint64_t walk_moved(kc_chanload *cl, int add, uint64_t *work)
{
    uint64_t bh = 0;
    for (size_t k = 0; k < cl->nmoved; k++) {
        uint32_t v = cl->moved[k];
        for (size_t j = cl->rstart[v]; j < cl->rstart[v + 1]; j++) {
            uint32_t e = cl->radj[j], s = cl->psrc[e], d = cl->pdst[e];
            if (s != v && cl->rstamp[s] == cl->rcur)
                continue;
            uint64_t h = walk(cl, layer_of(cl, e), router_of(cl, cl->tophys[s]), router_of(cl, cl->tophys[d]),
                              cl->pbytes[e], add, 1);
            bh += h * cl->pbytes[e];
            *work += h;
        }
    }
    return bh;
}

/* Two arrays that share the capacity *cap (pointers at p and p2, elements
 * of elem and elem2 bytes) made exactly `need` long when they are shorter. */
static kc_status grow(void *p, void *p2, size_t *cap, size_t need, size_t elem, size_t elem2, kc_err *err)
{
    if (need <= *cap)
        return KC_OK;
    if (kci_resize(p, need, elem) || kci_resize(p2, need, elem2))
        return kc_fail(err, KC_ENOMEM, "out of memory for a move of %zu entries", need);
    *cap = need;
    return KC_OK;
}

/* Mark the ranks on the listed nodes (the only ones that move) and make
 * room in the undo log for both walks of their pairs. */
static kc_status mark_moved(kc_chanload *cl, const uint32_t *x, const uint32_t *y, size_t count, kc_err *err)
{
    kc_status s = grow(&cl->moved, &cl->moved_from, &cl->capmoved, 2 * count, sizeof *cl->moved,
                       sizeof *cl->moved_from, err);
    if (s)
        return s;
    if (++cl->rcur == 0) {
        memset(cl->rstamp, 0, (size_t)cl->nslots * sizeof *cl->rstamp);
        cl->rcur = 1;
    }
    cl->nmoved = 0;
    uint64_t need = 0;
    for (size_t k = 0; k < 2 * count; k++) {
        uint32_t node = k % 2 ? y[k / 2] : x[k / 2];
        if (node >= cl->nslots)
            return kc_fail_param(err, KC_EINVAL, "mapping", "node %u out of range 0..%u", node, cl->nslots - 1);
        uint32_t v = cl->tovirt[node];
        if (cl->rstamp[v] == cl->rcur)
            continue;
        cl->rstamp[v] = cl->rcur;
        cl->moved[cl->nmoved] = v;
        cl->moved_from[cl->nmoved++] = node;
        need += (uint64_t)(cl->rstart[v + 1] - cl->rstart[v]) * 2 * cl->diam;
    }
    size_t want = need < cl->total ? (size_t)need : cl->total;
    return grow(&cl->touched, &cl->oldload, &cl->captouched, want, sizeof *cl->touched, sizeof *cl->oldload, err);
}

static void exchange(kc_chanload *cl, uint32_t x, uint32_t y)
{
    uint32_t a = cl->tovirt[x], b = cl->tovirt[y];
    cl->tophys[a] = y;
    cl->tophys[b] = x;
    cl->tovirt[x] = b;
    cl->tovirt[y] = a;
}

kc_status kc_chanload_swaps(kc_chanload *cl, const uint32_t *x, const uint32_t *y, size_t count, uint64_t *work,
                            kc_err *err)
{
    cl->can_undo = 0;
    kc_status s = mark_moved(cl, x, y, count, err);
    if (s)
        return s;
    bump_epoch(cl);
    cl->ntouched = 0;
    cl->old_max = cl->max;
    cl->old_hops = cl->hops;
    cl->old_sumsq = cl->sumsq;
    uint64_t w = 0;
    uint64_t removed = walk_moved(cl, 0, &w);
    for (size_t k = 0; k < count; k++)
        exchange(cl, x[k], y[k]);
    uint64_t added = walk_moved(cl, 1, &w);
    cl->hops = cl->hops - removed + added;
    for (size_t j = 0; j < cl->ntouched; j++) {
        uint64_t o = cl->oldload[j], l = cl->load[cl->touched[j]];
        cl->sumsq = cl->sumsq - (u128)o * o + (u128)l * l;
    }
    tree_repair(cl);
    cl->can_undo = 1;
    /* hop updates, plus the per-channel bookkeeping and a fixed overhead,
     * so that work tracks time across traffic shapes */
    if (work)
        *work = w + 2 * cl->ntouched + 16 + 2 * cl->nmoved;
    return KC_OK;
}

uint64_t kc_chanload_swap(kc_chanload *cl, uint32_t a, uint32_t b)
{
    uint32_t x = cl->tophys[a], y = cl->tophys[b];
    uint64_t work = 0;
    /* Cannot fail: ranks are in range and the log was sized at
     * construction for the two busiest ranks. */
    kc_chanload_swaps(cl, &x, &y, 1, &work, NULL);
    return work;
}

void kc_chanload_undo(kc_chanload *cl)
{
    if (!cl->can_undo)
        return;
    for (size_t j = 0; j < cl->ntouched; j++)
        cl->load[cl->touched[j]] = cl->oldload[j];
    for (size_t k = 0; k < cl->nmoved; k++) {
        cl->tophys[cl->moved[k]] = cl->moved_from[k];
        cl->tovirt[cl->moved_from[k]] = cl->moved[k];
    }
    /* A fresh stamp so the repair visits every touched block again. */
    bump_epoch(cl);
    tree_repair(cl);
    cl->max = cl->old_max;
    cl->hops = cl->old_hops;
    cl->sumsq = cl->old_sumsq;
    cl->ntouched = 0;
    cl->can_undo = 0;
}

/* ---- queries ---------------------------------------------------------------- */

kc_cost kc_chanload_cost(const kc_chanload *cl)
{
    kc_cost c = {cl->max, cl->hops, (uint64_t)(cl->sumsq >> 64), (uint64_t)cl->sumsq};
    return c;
}

const uint32_t *kc_chanload_to_physical(const kc_chanload *cl) { return cl->tophys; }
const uint32_t *kc_chanload_to_virtual(const kc_chanload *cl) { return cl->tovirt; }

const uint64_t *kc_chanload_loads(const kc_chanload *cl, size_t *slots)
{
    if (slots)
        *slots = cl->total;
    return cl->load;
}

size_t kc_chanload_pairs(const kc_chanload *cl) { return cl->pairs; }

void kc_chanload_pair(const kc_chanload *cl, size_t j, uint32_t *src, uint32_t *dst, uint64_t *bytes)
{
    *src = cl->psrc[j];
    *dst = cl->pdst[j];
    *bytes = cl->pbytes[j];
}

const uint32_t *kc_chanload_rank_pairs(const kc_chanload *cl, uint32_t v, size_t *count)
{
    *count = cl->rstart[v + 1] - cl->rstart[v];
    return &cl->radj[cl->rstart[v]];
}

/* Under dimension order the route is at node u on axis i exactly when the
 * axes below i already hold q's coordinates, those above still hold p's,
 * and axis i's ring move passes u_i in the channel's direction. */
int kc_chanload_pair_uses(const kc_chanload *cl, size_t j, size_t c)
{
    const int n = cl->n;
    if (c / cl->slots != layer_of(cl, j) / cl->slots)
        return 0;
    c %= cl->slots;
    size_t u = c / 2 / (size_t)n;
    int i = (int)(c / 2 % (size_t)n), neg = (int)(c & 1);
    const uint8_t *cu = &cl->coord[u * (size_t)n];
    const uint8_t *cp = &cl->coord[(size_t)router_of(cl, cl->tophys[cl->psrc[j]]) * n];
    const uint8_t *cq = &cl->coord[(size_t)router_of(cl, cl->tophys[cl->pdst[j]]) * n];
    for (int a = 0; a < n; a++)
        if (a != i && cu[a] != (a < i ? cq[a] : cp[a]))
            return 0;
    int side = cl->topo.side[i];
    int mv = cl->move[i][cp[i] * side + cq[i]];
    if (mv == 0 || (mv < 0) != neg)
        return 0;
    int off = neg ? (cp[i] - cu[i] + side) % side : (cu[i] - cp[i] + side) % side;
    return off < (neg ? -mv : mv);
}

kc_status kc_chanload_eval(const kc_topology *t, const kc_traffic *tr, const uint32_t *to_physical, kc_cost *cost,
                           kc_err *err)
{
    kc_chanload *cl;
    kc_status s = kc_chanload_new(&cl, t, tr, err);
    if (!s)
        s = kc_chanload_set(cl, to_physical, err);
    if (!s)
        *cost = kc_chanload_cost(cl);
    kc_chanload_free(cl);
    return s;
}

/* Each group's messages are walked alone into a scratch table; only the
 * channels they touched are read back and cleared. */
kc_status kc_chanload_group_max(const kc_chanload *cl, const kc_traffic *tr, const uint32_t *group, uint32_t groups,
                                uint64_t *max_out, kc_err *err)
{
    if (tr->ranks > cl->nslots)
        return kc_fail_param(err, KC_EINVAL, "traffic", "the traffic does not match the counter");
    kc_status s = check_groups(tr, group, groups, err);
    if (s)
        return s;
    kc_chanload tmp = *cl;
    tmp.layers = 1; /* one layer of scratch, reused group after group */
    tmp.total = cl->slots;
    tmp.pgroup = NULL; /* shares the read-only tables; loads and log are scratch */
    size_t *start = calloc((size_t)groups + 1, sizeof *start);
    uint32_t *order = malloc((tr->count ? tr->count : 1) * sizeof *order);
    tmp.load = calloc(cl->slots, sizeof *tmp.load);
    tmp.epoch = calloc(cl->slots, sizeof *tmp.epoch);
    tmp.touched = malloc(cl->slots * sizeof *tmp.touched);
    tmp.oldload = malloc(cl->slots * sizeof *tmp.oldload);
    if (!start || !order || !tmp.load || !tmp.epoch || !tmp.touched || !tmp.oldload) {
        s = kc_fail(err, KC_ENOMEM, "out of memory for per-group loads");
        goto out;
    }
    for (size_t m = 0; m < tr->count; m++)
        start[group[m] + 1]++;
    for (uint32_t g = 0; g < groups; g++)
        start[g + 1] += start[g];
    for (size_t m = 0; m < tr->count; m++)
        order[start[group[m]]++] = (uint32_t)m;
    tmp.cur_epoch = 0;
    size_t from = 0;
    for (uint32_t g = 0; g < groups; g++) {
        size_t to = start[g];
        bump_epoch(&tmp);
        tmp.ntouched = 0;
        for (size_t j = from; j < to; j++) {
            uint32_t m = order[j];
            walk(&tmp, 0, router_of(cl, cl->tophys[tr->src[m]]), router_of(cl, cl->tophys[tr->dst[m]]), tr->bytes[m],
                 1, 1);
        }
        uint64_t mx = 0;
        for (size_t j = 0; j < tmp.ntouched; j++) {
            uint32_t c = tmp.touched[j];
            if (tmp.load[c] > mx)
                mx = tmp.load[c];
            tmp.load[c] = 0;
        }
        max_out[g] = mx;
        from = to;
    }
out:
    free(start);
    free(order);
    free(tmp.load);
    free(tmp.epoch);
    free(tmp.touched);
    free(tmp.oldload);
    return s;
}
