/* The closed form of a linear-complement communication on the m-cube of
 * routers with 2^j endpoints each (kc_analyze_split, kcube/plan.h). Seed
 * 000, Section 1: the SGI Origin 2000 puts two nodes on a router, so an
 * n-dimensional LCC there is two LCCs performed at once on the (n-1)-cube.
 * Rank bits 0..j-1 name the endpoint; for each endpoint value e the router
 * bits follow y' = A'x' + (b' + A''e), one LCC per e with the same matrix,
 * and their channel loads add. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/contention.h"
#include "kcube/plan.h"

/* log2 of t's endpoints when t is a cube of routers with 2^j endpoints on
 * each and no allocation; -1 otherwise. */
int kc_analyze_split_bits(const kc_topology *t)
{
    int conc = kc_topology_conc(t);
    if (t->alloc || (conc & (conc - 1)))
        return -1;
    for (int i = 0; i < t->n; i++)
        if (t->side[i] != 2)
            return -1;
    return kci_ctz64((uint64_t)conc);
}

/* The router LCC of endpoint e: matrix A' (rows and columns j..), b' + A'' e. */
static void sub_lcc(const kc_lcc *l, int j, uint64_t e, kc_lcc *out)
{
    int m = l->a.n - j;
    memset(out, 0, sizeof *out);
    out->a.n = m;
    uint64_t b = l->b >> j;
    for (int r = 0; r < m; r++) {
        uint64_t row = l->a.row[r + j];
        out->a.row[r] = row >> j;
        b ^= (uint64_t)kci_popcount64(row & e & kc_mask(j)) % 2 << r;
    }
    out->b = b;
    out->rank = kc_bitmat_rank(&out->a);
    out->kind = l->kind == KC_LCC_SCATTER ? KC_LCC_SCATTER : out->rank < m ? KC_LCC_GATHER : KC_LCC_PERMUTATION;
}

/* Do the router LCCs x and y (same matrix, both using dimension i) load the
 * same channels of dimension i? Their channel sets are cosets of one
 * subspace; they coincide when the complements' difference lies in the
 * column space of the block Theorem 1 reads: rows 0..i, columns 0..i-1 for
 * permutations and gathers (the sources' free low digits), rows i..m-1,
 * columns i+1..m-1 for scatters (the destinations' free high digits). */
static int same_channels(const kc_lcc *x, const kc_lcc *y, int i)
{
    int m = x->a.n;
    int scatter = x->kind == KC_LCC_SCATTER;
    uint64_t rows = scatter ? kc_mask(m) & ~kc_mask(i) : kc_mask(i + 1);
    uint64_t cols = scatter ? kc_mask(m) & ~kc_mask(i + 1) : kc_mask(i);
    kc_bitmat aug = x->a; /* one more column, m, holding the difference */
    aug.n = m + 1;
    aug.row[m] = 0;
    for (int r = 0; r < m; r++)
        aug.row[r] |= ((x->b ^ y->b) >> r & 1) << m;
    return kc_bitmat_rank_sub(&aug, rows, cols) == kc_bitmat_rank_sub(&aug, rows, cols | 1ULL << m);
}

/* T_i: T'_i times the most router LCCs sharing one coset of dimension i. */
static uint64_t split_dim(const kc_lcc *sub, int parts, int i)
{
    uint64_t t = 0;
    int most = 0;
    for (int a = 0; a < parts; a++) {
        uint64_t ta = kc_contention_formula_dim(&sub[a], i);
        if (!ta)
            continue;
        t = ta;
        int same = 0;
        for (int b = 0; b < parts; b++)
            same += kc_contention_formula_dim(&sub[b], i) && same_channels(&sub[a], &sub[b], i);
        most = same > most ? same : most;
    }
    return t * (uint64_t)most;
}

kc_status kc_analyze_split(const kc_topology *t, const kc_comm *c, uint64_t *per_dim, kc_err *err)
{
    int j = kc_analyze_split_bits(t);
    if (j < 0 || !c->has_lcc || c->n != t->n + j)
        return kc_fail_param(err, KC_EINVAL, "endpoints",
                             "the split closed form needs an LCC on a cube of routers with 2^j endpoints each and no "
                             "allocation");
    int parts = 1 << j, m = t->n;
    kc_lcc *sub = malloc((size_t)parts * sizeof *sub);
    if (!sub)
        return kc_fail(err, KC_ENOMEM, "out of memory for %d router LCCs", parts);
    for (int e = 0; e < parts; e++)
        sub_lcc(&c->lcc, j, (uint64_t)e, &sub[e]);
    for (int i = 0; i < m; i++)
        per_dim[i] = split_dim(sub, parts, i);
    free(sub);
    return KC_OK;
}

