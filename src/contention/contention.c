/* Channel contention: closed forms (Theorem 1 and its mirror for scatters)
 * and two exact counters. */
#include "kcube/contention.h"

#include <stdlib.h>
#include <string.h>

/* A message that crosses dimension i, or 0 with *found = 0 if none does.
 * Message m crosses dimension i iff (row_i + e_i) . m + b_i = 1, the same
 * condition for every kind (for scatters m is the destination). */
static uint64_t crossing_message(const kc_lcc *c, int i, int *found)
{
    uint64_t diff = c->a.row[i] ^ (1ULL << i);
    *found = 1;
    if ((c->b >> i) & 1)
        return 0;
    if (diff)
        return 1ULL << __builtin_ctzll(diff);
    *found = 0;
    return 0;
}

uint64_t kc_contention_formula_dim(const kc_lcc *c, int i)
{
    int n = c->a.n, found;
    crossing_message(c, i, &found);
    if (!found)
        return 0;
    int e;
    if (c->kind == KC_LCC_SCATTER) {
        /* Messages through a dimension-i channel are the destinations y with
         * y_0..y_i fixed by the channel and rows i..n-1 of Ay + b fixed too:
         * n-1-i free unknowns under the submatrix A[i..n-1, i+1..n-1]. */
        uint64_t rows = kc_mask(n) & ~kc_mask(i), cols = kc_mask(n) & ~kc_mask(i + 1);
        e = (n - 1 - i) - kc_bitmat_rank_sub(&c->a, rows, cols);
    } else {
        e = i - kc_bitmat_rank_sub(&c->a, kc_mask(i + 1), kc_mask(i));
    }
    return 1ULL << e;
}

static void finish(kc_contention *out)
{
    out->max = 0;
    out->max_dim = -1;
    for (int i = 0; i < out->n; i++)
        if (out->per_dim[i] > out->max) {
            out->max = out->per_dim[i];
            out->max_dim = i;
        }
}

void kc_contention_formula(const kc_lcc *c, kc_contention *out)
{
    memset(out, 0, sizeof *out);
    out->n = c->a.n;
    for (int i = 0; i < out->n; i++) {
        out->per_dim[i] = kc_contention_formula_dim(c, i);
        int found;
        uint64_t m = crossing_message(c, i, &found);
        if (found) {
            /* Every used channel of dimension i carries the same number of
             * messages, so any crossing message names a worst channel. */
            uint64_t src, dst;
            kc_lcc_message(c, m, &src, &dst);
            out->witness[i] = kc_ecube_channel(src, dst, i);
        }
    }
    finish(out);
}

kc_status kc_contention_exact(const kc_lcc *c, kc_contention *out, const kc_progress *progress, kc_err *err)
{
    int n = c->a.n;
    if (n > KC_EXACT_MAX_N)
        return kc_fail(err, KC_ERANGE, "exact counting supports n <= %d, got n = %d", KC_EXACT_MAX_N, n);
    uint64_t count = 1ULL << n;
    /* src[m] and dst[m] of message m; one of them is m itself. */
    uint32_t *other = malloc(count * sizeof *other);
    uint32_t *cnt = calloc(count, sizeof *cnt);
    if (!other || !cnt) {
        free(other);
        free(cnt);
        return kc_fail(err, KC_ENOMEM, "out of memory for 2^%d counters", n);
    }
    /* other[m] = A m + b, built incrementally: A(m) = A(m - lowbit) + column. */
    uint64_t col[KC_BITMAT_MAX];
    for (int j = 0; j < n; j++)
        col[j] = kc_bitmat_col(&c->a, j);
    other[0] = (uint32_t)c->b;
    for (uint64_t m = 1; m < count; m++)
        other[m] = other[m & (m - 1)] ^ (uint32_t)col[__builtin_ctzll(m)];
    int scatter = c->kind == KC_LCC_SCATTER;

    memset(out, 0, sizeof *out);
    out->n = n;
    for (int i = 0; i < n; i++) {
        uint32_t low = (uint32_t)((1ULL << i) - 1), bit = 1u << i;
        for (uint32_t m = 0; m < count; m++) {
            uint32_t s = scatter ? other[m] : m, d = scatter ? m : other[m];
            if ((s ^ d) & bit)
                cnt[(d & low) | (s & ~low)]++;
        }
        /* Read the maximum and clear the counters in one pass. */
        uint32_t best = 0, where = 0;
        for (uint32_t z = 0; z < count; z++) {
            if (cnt[z] > best) {
                best = cnt[z];
                where = z;
            }
            cnt[z] = 0;
        }
        out->per_dim[i] = best;
        out->witness[i] = where;
        kc_progress_report(progress, i + 1, n);
    }
    free(other);
    free(cnt);
    finish(out);
    return KC_OK;
}

kc_status kc_contention_paths(const kc_lcc *c, kc_contention *out, kc_err *err)
{
    int n = c->a.n;
    if (n > 16)
        return kc_fail(err, KC_ERANGE, "path enumeration supports n <= 16, got n = %d", n);
    uint64_t count = 1ULL << n;
    uint32_t *cnt = calloc(count * (uint64_t)n, sizeof *cnt);
    if (!cnt)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint64_t m = 0; m < count; m++) {
        uint64_t src, dst;
        kc_lcc_message(c, m, &src, &dst);
        /* Walk the e-cube path: fix differing bits from dimension 0 upward. */
        uint64_t at = src;
        for (int i = 0; i < n; i++)
            if (((at ^ dst) >> i) & 1) {
                cnt[at * (uint64_t)n + (uint64_t)i]++;
                at ^= 1ULL << i;
            }
    }
    memset(out, 0, sizeof *out);
    out->n = n;
    for (uint64_t z = 0; z < count; z++)
        for (int i = 0; i < n; i++)
            if (cnt[z * (uint64_t)n + (uint64_t)i] > out->per_dim[i]) {
                out->per_dim[i] = cnt[z * (uint64_t)n + (uint64_t)i];
                out->witness[i] = z;
            }
    free(cnt);
    finish(out);
    return KC_OK;
}
