/* Optimal reordering for one communication (seed 000 Section 4). */
#include "kcube/reorder.h"

#include <string.h>

#include "elim.h"
#include "kcube/contention.h"
#include "kcube/mapset.h"

void kc_order_identity(kc_order *o, int n)
{
    o->n = n;
    for (int t = 0; t < n; t++)
        o->dim[t] = t;
}

static void swap_int(int *a, int *b)
{
    int t = *a;
    *a = *b;
    *b = t;
}

/* Permutations (Theorem 3 / Fig. 3). Position t is fine when
 * rank A[P_{<=t}, P_{<t}] = t. Given the prefix S = P_{<t}, rank A[S,S] is
 * t or t-1; in the second case the next dimension must be a row that raises
 * the rank, which the elimination frame names (its `grow` mask). As in the
 * paper, the dimension already at position t is kept when it qualifies,
 * otherwise the first qualifying later one is swapped in. O(n^2) words. */
static kc_status order_permutation(const kc_lcc *c, int *ord, int s, kc_err *err)
{
    kci_elim f;
    kc_bitmat cols;
    kc_bitmat_transpose(&cols, &c->a);
    kci_elim_reset(&f);
    for (int t = 0; t < s; t++) {
        if (f.npiv < t) {
            int u = t;
            while (u < s && !((f.grow >> ord[u]) & 1))
                u++;
            if (u == s) /* impossible for a nonsingular matrix (Theorem 3) */
                return kc_fail(err, KC_EINTERNAL, "internal: no independent row at position %d", t);
            swap_int(&ord[t], &ord[u]);
        }
        kci_elim_add(&f, ord[t], cols.row[ord[t]]);
    }
    return KC_OK;
}

static uint64_t prefix_set(const int *ord, int k)
{
    uint64_t s = 0;
    for (int i = 0; i < k; i++)
        s |= 1ULL << ord[i];
    return s;
}

/* Gathers (Theorem 4; the paper omits the algorithm, this follows its proof).
 * Target: every position i has i - rank A[P_{<=i}, P_{<i}] <= delta with
 * delta = (s-1) - rank A[act,act]. The last position needs a column that
 * depends on the others; then, from the back, a violated position k-1 is
 * repaired by swapping in a column j < k-1 that depends on the others in
 * A[P_{<k}, P_{<k}] (one exists and the proof shows the swap leaves the
 * positions >= k unchanged). O(n^3) words. */
static void order_gather(const kc_lcc *c, int *ord, int s)
{
    if (s == 0)
        return;
    uint64_t act = prefix_set(ord, s);
    int delta = (s - 1) - kc_bitmat_rank_sub(&c->a, act, act);
    uint64_t dep = kc_bitmat_dependent_cols(&c->a, act, act);
    for (int u = s - 1; u >= 0; u--)
        if ((dep >> ord[u]) & 1) {
            swap_int(&ord[u], &ord[s - 1]);
            break;
        }
    for (int k = s - 1; k >= 1; k--) {
        uint64_t pk = prefix_set(ord, k);
        int val = (k - 1) - kc_bitmat_rank_sub(&c->a, pk, pk & ~(1ULL << ord[k - 1]));
        if (val <= delta)
            continue;
        uint64_t d = kc_bitmat_dependent_cols(&c->a, pk, pk);
        for (int j = k - 2; j >= 0; j--)
            if ((d >> ord[j]) & 1) {
                swap_int(&ord[j], &ord[k - 1]);
                break;
            }
    }
}

/* The dimension-reversed communication: B = J A J, b reversed. A scatter on
 * A has T_i equal to the gather T_{n-1-i} on B (same submatrices). */
static void reverse_dims(kc_lcc *out, const kc_lcc *in)
{
    int n = in->a.n, rev[KC_BITMAT_MAX];
    for (int t = 0; t < n; t++)
        rev[t] = n - 1 - t;
    kc_lcc_reorder(out, in, rev);
}

kc_status kc_reorder_optimal(const kc_lcc *c, kc_order *out, kc_err *err)
{
    int n = c->a.n;
    if (c->kind == KC_LCC_SCATTER) {
        kc_lcc g;
        reverse_dims(&g, c);
        g.kind = KC_LCC_GATHER;
        kc_order og;
        kc_status st = kc_reorder_optimal(&g, &og, err);
        if (st)
            return st;
        out->n = n;
        for (int i = 0; i < n; i++)
            out->dim[i] = n - 1 - og.dim[n - 1 - i];
        return KC_OK;
    }
    /* Active dimensions first in their natural order, idle ones last. */
    uint64_t idle = kc_lcc_idle_dims(c);
    int ord[KC_BITMAT_MAX], s = 0;
    for (int i = 0; i < n; i++)
        if (!((idle >> i) & 1))
            ord[s++] = i;
    int k = s;
    for (int i = 0; i < n; i++)
        if ((idle >> i) & 1)
            ord[k++] = i;
    if (c->kind == KC_LCC_PERMUTATION) {
        kc_status st = order_permutation(c, ord, s, err);
        if (st)
            return st;
    } else {
        order_gather(c, ord, s);
    }
    out->n = n;
    memcpy(out->dim, ord, sizeof(int) * (size_t)n);
    return KC_OK;
}

uint64_t kc_reorder_value(const kc_lcc *c, const kc_order *o)
{
    kc_lcc r;
    kc_contention t;
    kc_lcc_reorder(&r, c, o->dim);
    kc_contention_formula(&r, &t);
    return t.max;
}
