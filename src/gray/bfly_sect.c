/* The all-port all-to-all personalized exchange inside an r-cube in
 * 2^(r-1) steps (N-sectioning, seed 001 Section 6; the step count of its
 * reference [7]), as a table shared by every processor.
 *
 * Every processor sends one element to each other processor; the element
 * with offset d (destination = source xor d) crosses each dimension of d
 * once. A schedule is a time for every pair (k, d), k a bit of d, such
 * that each dimension is used by exactly one offset per step (then every
 * processor sends exactly one element per link and step, since all do the
 * same) and the times of one offset differ (its hops go in time order, so
 * any order of dimensions is a path). That is a proper edge colouring of
 * the bipartite graph dimensions x offsets with 2^(r-1) colours; each
 * dimension has degree 2^(r-1) and each offset at most r <= 2^(r-1), so
 * Koenig's theorem says it exists. Built edge by edge; when the colours
 * free at the two ends differ, one alternating path is flipped. Cost
 * O(r 2^(r-1)) edges, each O(path) with path length O(2^r) at worst. */
#include <stdlib.h>
#include <string.h>

#include "bfly.h"
#include "core/bits.h"

#define NONE UINT32_MAX

static uint32_t *time_at(const kci_a2a_table *t, uint32_t d, int k)
{
    return &t->time[(size_t)d * (size_t)t->r + (size_t)k];
}

static uint32_t *delta_at(const kci_a2a_table *t, uint32_t c, int k)
{
    return &t->delta[(size_t)c * (size_t)t->r + (size_t)k];
}

/* The dimension of offset d's edge with colour c, or -1. */
static int edge_of(const kci_a2a_table *t, uint32_t d, uint32_t c)
{
    for (uint32_t m = d; m; m &= m - 1)
        if (*time_at(t, d, kci_ctz32(m)) == c)
            return kci_ctz32(m);
    return -1;
}

static uint32_t free_at_dim(const kci_a2a_table *t, int k)
{
    uint32_t c = 0;
    while (*delta_at(t, c, k) != NONE)
        c++;
    return c;
}

static uint32_t free_at_offset(const kci_a2a_table *t, uint32_t d)
{
    for (uint32_t c = 0;; c++)
        if (edge_of(t, d, c) < 0)
            return c;
}

/* Colour edge (k, d). a is free at k, b at d; unless a is free at d too,
 * the path from d along colours a, b, a, ... is recoloured b, a, b, ...
 * (it never reaches k, which has no a-edge), which frees a at d. */
static void colour_edge(kci_a2a_table *t, int k, uint32_t d, int *pk, uint32_t *pd)
{
    uint32_t a = free_at_dim(t, k), b = free_at_offset(t, d);
    if (edge_of(t, d, a) >= 0) {
        size_t len = 0;
        uint32_t v = d, c = a;
        for (;;) { /* the path: edges (pk[i], pd[i]) with colours a, b, a, ... */
            int q = edge_of(t, v, c);
            if (q < 0)
                break;
            pk[len] = q;
            pd[len++] = v;
            uint32_t c2 = c == a ? b : a, w = *delta_at(t, c2, q);
            if (w == NONE)
                break;
            pk[len] = q;
            pd[len++] = w;
            v = w;
        }
        for (size_t i = 0; i < len; i++)
            *delta_at(t, *time_at(t, pd[i], pk[i]), pk[i]) = NONE;
        for (size_t i = 0; i < len; i++) {
            uint32_t c2 = *time_at(t, pd[i], pk[i]) == a ? b : a;
            *time_at(t, pd[i], pk[i]) = c2;
            *delta_at(t, c2, pk[i]) = pd[i];
        }
    }
    *time_at(t, d, k) = a;
    *delta_at(t, a, k) = d;
}

/* Independent check of the table's two properties. */
static int table_ok(const kci_a2a_table *t)
{
    uint32_t N = 1u << t->r, half = N / 2;
    for (uint32_t c = 0; c < half; c++)
        for (int k = 0; k < t->r; k++) {
            uint32_t d = *delta_at(t, c, k);
            if (d == NONE || d >= N || !(d >> k & 1) || *time_at(t, d, k) != c)
                return 0;
        }
    for (uint32_t d = 1; d < N; d++)
        for (uint32_t m = d; m; m &= m - 1)
            for (uint32_t m2 = m & (m - 1); m2; m2 &= m2 - 1)
                if (*time_at(t, d, kci_ctz32(m)) == *time_at(t, d, kci_ctz32(m2)))
                    return 0;
    return 1;
}

kc_status kci_a2a_table_build(kci_a2a_table *t, int r, kc_err *err)
{
    memset(t, 0, sizeof *t);
    if (r < 1 || r > 20)
        return kc_fail(err, KC_EINTERNAL, "all-to-all table: r = %d out of range", r);
    size_t N = (size_t)1 << r, half = N / 2;
    t->r = r;
    t->time = malloc(N * (size_t)r * sizeof *t->time);
    t->delta = malloc(half * (size_t)r * sizeof *t->delta);
    int *pk = malloc(2 * (N + (size_t)r) * sizeof *pk);
    uint32_t *pd = malloc(2 * (N + (size_t)r) * sizeof *pd);
    if (!t->time || !t->delta || !pk || !pd) {
        free(pk);
        free(pd);
        kci_a2a_table_free(t);
        return kc_fail(err, KC_ENOMEM, "out of memory (all-to-all table)");
    }
    memset(t->time, 0xff, N * (size_t)r * sizeof *t->time);
    memset(t->delta, 0xff, half * (size_t)r * sizeof *t->delta);
    for (uint32_t d = 1; d < N; d++)
        for (uint32_t m = d; m; m &= m - 1)
            colour_edge(t, kci_ctz32(m), d, pk, pd);
    free(pk);
    free(pd);
    if (!table_ok(t)) {
        kci_a2a_table_free(t);
        return kc_fail(err, KC_EINTERNAL, "all-to-all table: the colouring is not proper");
    }
    return KC_OK;
}

void kci_a2a_table_free(kci_a2a_table *t)
{
    free(t->time);
    free(t->delta);
    t->time = NULL;
    t->delta = NULL;
}
