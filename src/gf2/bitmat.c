/* GF(2) matrices, one row per word. Elimination keeps an "xor basis" keyed by
 * leading bit, so rank and inverse cost O(n^2) word operations. */
#include "kcube/bitmat.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/bits.h"

void kc_bitmat_zero(kc_bitmat *a, int n)
{
    memset(a, 0, sizeof *a);
    a->n = n;
}

void kc_bitmat_identity(kc_bitmat *a, int n)
{
    kc_bitmat_zero(a, n);
    for (int i = 0; i < n; i++)
        a->row[i] = 1ULL << i;
}

int kc_bitmat_equal(const kc_bitmat *a, const kc_bitmat *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (a->row[i] != b->row[i])
            return 0;
    return 1;
}

uint64_t kc_bitmat_mul_vec(const kc_bitmat *a, uint64_t x)
{
    uint64_t y = 0;
    for (int i = 0; i < a->n; i++)
        y |= (uint64_t)(kci_popcount64(a->row[i] & x) & 1) << i;
    return y;
}

void kc_bitmat_mul(kc_bitmat *out, const kc_bitmat *a, const kc_bitmat *b)
{
    kc_bitmat r;
    kc_bitmat_zero(&r, a->n);
    /* Row i of AB is the xor of the rows of B picked by row i of A. */
    for (int i = 0; i < a->n; i++) {
        uint64_t sel = a->row[i], acc = 0;
        while (sel) {
            acc ^= b->row[kci_ctz64(sel)];
            sel &= sel - 1;
        }
        r.row[i] = acc;
    }
    *out = r;
}

uint64_t kc_bitmat_col(const kc_bitmat *a, int j)
{
    uint64_t c = 0;
    for (int i = 0; i < a->n; i++)
        c |= ((a->row[i] >> j) & 1) << i;
    return c;
}

void kc_bitmat_transpose(kc_bitmat *out, const kc_bitmat *a)
{
    /* Recursive block transpose of the 64 x 64 bit square (rows past n and
     * bits past n are zero): at block size j, swap the upper-right and
     * lower-left j x j blocks of every 2j x 2j block. 6 rounds of 32 swaps. */
    uint64_t r[64];
    uint64_t keep = kc_mask(a->n);
    for (int i = 0; i < 64; i++)
        r[i] = i < a->n ? a->row[i] & keep : 0;
    uint64_t m = 0x00000000FFFFFFFFULL;
    for (int j = 32; j; j >>= 1, m ^= m << j)
        for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
            uint64_t t = ((r[k] >> j) ^ r[k | j]) & m;
            r[k] ^= t << j;
            r[k | j] ^= t;
        }
    int n = a->n;
    kc_bitmat_zero(out, n);
    for (int i = 0; i < n; i++)
        out->row[i] = r[i];
}

int kc_rank_rows(const uint64_t *rows, int count, uint64_t cols)
{
    uint64_t basis[64] = {0};
    int rank = 0;
    for (int i = 0; i < count; i++) {
        uint64_t v = rows[i] & cols;
        while (v) {
            int top = 63 - kci_clz64(v);
            if (!basis[top]) {
                basis[top] = v;
                rank++;
                break;
            }
            v ^= basis[top];
        }
    }
    return rank;
}

int kc_bitmat_rank_sub(const kc_bitmat *a, uint64_t rows, uint64_t cols)
{
    uint64_t sel[64];
    int count = 0;
    rows &= kc_mask(a->n);
    while (rows) {
        sel[count++] = a->row[kci_ctz64(rows)];
        rows &= rows - 1;
    }
    return kc_rank_rows(sel, count, cols & kc_mask(a->n));
}

int kc_bitmat_rank(const kc_bitmat *a)
{
    return kc_rank_rows(a->row, a->n, kc_mask(a->n));
}

uint64_t kc_bitmat_dependent_cols(const kc_bitmat *a, uint64_t rows, uint64_t cols)
{
    /* Column elimination with history: columns reduced to zero on `rows`
     * record kernel vectors in their history. */
    uint64_t pval[64], phist[64], dep = 0;
    int prow[64], np = 0;
    rows &= kc_mask(a->n);
    cols &= kc_mask(a->n);
    for (uint64_t cs = cols; cs; cs &= cs - 1) {
        int c = kci_ctz64(cs);
        uint64_t v = kc_bitmat_col(a, c) & rows, h = 1ULL << c;
        for (int i = 0; i < np; i++)
            if ((v >> prow[i]) & 1) {
                v ^= pval[i];
                h ^= phist[i];
            }
        if (v) {
            int q = kci_ctz64(v);
            for (int i = 0; i < np; i++)
                if ((pval[i] >> q) & 1) {
                    pval[i] ^= v;
                    phist[i] ^= h;
                }
            pval[np] = v;
            phist[np] = h;
            prow[np] = q;
            np++;
        } else {
            dep |= h;
        }
    }
    return dep;
}

kc_status kc_bitmat_inverse(kc_bitmat *out, const kc_bitmat *a, kc_err *err)
{
    int n = a->n;
    uint64_t m[64], inv[64];
    for (int i = 0; i < n; i++) {
        m[i] = a->row[i];
        inv[i] = 1ULL << i;
    }
    /* Gauss-Jordan on [A | I]: pivot column c gets row c. */
    for (int c = 0; c < n; c++) {
        int p = -1;
        for (int r = c; r < n; r++)
            if ((m[r] >> c) & 1) {
                p = r;
                break;
            }
        if (p < 0)
            return kc_fail(err, KC_ESINGULAR, "matrix is singular (rank %d < %d)", kc_bitmat_rank(a), n);
        uint64_t t = m[p]; m[p] = m[c]; m[c] = t;
        t = inv[p]; inv[p] = inv[c]; inv[c] = t;
        for (int r = 0; r < n; r++)
            if (r != c && ((m[r] >> c) & 1)) {
                m[r] ^= m[c];
                inv[r] ^= inv[c];
            }
    }
    kc_bitmat_zero(out, n);
    for (int i = 0; i < n; i++)
        out->row[i] = inv[i];
    return KC_OK;
}

int kc_bitmat_kernel(const kc_bitmat *a, uint64_t *basis)
{
    int n = a->n;
    uint64_t m[64];
    int pivot_col_of_row[64], is_pivot[64] = {0};
    memcpy(m, a->row, sizeof(uint64_t) * (size_t)n);
    int r = 0;
    /* Reduced row echelon form. */
    for (int c = 0; c < n && r < n; c++) {
        int p = -1;
        for (int i = r; i < n; i++)
            if ((m[i] >> c) & 1) {
                p = i;
                break;
            }
        if (p < 0)
            continue;
        uint64_t t = m[p]; m[p] = m[r]; m[r] = t;
        for (int i = 0; i < n; i++)
            if (i != r && ((m[i] >> c) & 1))
                m[i] ^= m[r];
        pivot_col_of_row[r] = c;
        is_pivot[c] = 1;
        r++;
    }
    /* One basis vector per free column f: x_f = 1, pivots solved from RREF. */
    int dim = 0;
    for (int f = 0; f < n; f++) {
        if (is_pivot[f])
            continue;
        uint64_t x = 1ULL << f;
        for (int i = 0; i < r; i++)
            if ((m[i] >> f) & 1)
                x |= 1ULL << pivot_col_of_row[i];
        basis[dim++] = x;
    }
    return dim;
}

void kc_bitmat_from_order(kc_bitmat *q, const int *order, int n)
{
    kc_bitmat_zero(q, n);
    for (int t = 0; t < n; t++)
        q->row[t] = 1ULL << order[t];
}

uint64_t kc_vec_permute(uint64_t v, const int *order, int n)
{
    uint64_t r = 0;
    for (int t = 0; t < n; t++)
        r |= ((v >> order[t]) & 1) << t;
    return r;
}

uint64_t kc_vec_unpermute(uint64_t v, const int *order, int n)
{
    uint64_t r = 0;
    for (int t = 0; t < n; t++)
        r |= ((v >> t) & 1) << order[t];
    return r;
}

void kc_bitmat_conjugate(kc_bitmat *out, const kc_bitmat *a, const int *order)
{
    kc_bitmat r;
    kc_bitmat_zero(&r, a->n);
    for (int t = 0; t < a->n; t++)
        r.row[t] = kc_vec_permute(a->row[order[t]], order, a->n);
    *out = r;
}

void kc_bitmat_random(kc_bitmat *a, int n, kc_rng *r)
{
    kc_bitmat_zero(a, n);
    for (int i = 0; i < n; i++)
        a->row[i] = kc_rng_next(r) & kc_mask(n);
}

void kc_bitmat_random_nonsingular(kc_bitmat *a, int n, kc_rng *r)
{
    /* About 29% of random matrices are nonsingular: rejection is cheap. */
    do
        kc_bitmat_random(a, n, r);
    while (kc_bitmat_rank(a) != n);
}

void kc_bitmat_random_rank(kc_bitmat *a, int n, int rank, kc_rng *r)
{
    kc_bitmat p, q, d;
    kc_bitmat_random_nonsingular(&p, n, r);
    kc_bitmat_random_nonsingular(&q, n, r);
    kc_bitmat_zero(&d, n);
    for (int i = 0; i < rank; i++)
        d.row[i] = 1ULL << i;
    kc_bitmat_mul(&d, &p, &d);
    kc_bitmat_mul(a, &d, &q);
}

/* Parse one row of a 0/1 matrix or a vector: either n characters in a run,
 * or n entries separated by spaces/commas. */
static kc_status parse_bits(uint64_t *out, const char *s, size_t len, int n, const char *what, int index, kc_err *err)
{
    uint64_t v = 0;
    int count = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == ' ' || c == ',' || c == '\t')
            continue;
        if (c != '0' && c != '1') {
            if (index >= 0)
                return kc_fail(err, KC_EINVAL, "%s row %d: bad character '%c' (entries must be 0 or 1)", what, index,
                               isprint((unsigned char)c) ? c : '?');
            return kc_fail(err, KC_EINVAL, "%s: bad character '%c' (entries must be 0 or 1)", what,
                           isprint((unsigned char)c) ? c : '?');
        }
        if (count < 64)
            v |= (uint64_t)(c - '0') << count;
        count++;
    }
    if (count != n) {
        if (index >= 0)
            return kc_fail(err, KC_EINVAL, "%s row %d has %d entries, expected %d", what, index, count, n);
        return kc_fail(err, KC_EINVAL, "%s has %d entries, expected %d", what, count, n);
    }
    *out = v;
    return KC_OK;
}

kc_status kc_bitmat_parse(kc_bitmat *a, const char *text, int n, kc_err *err)
{
    if (n < 1 || n > KC_BITMAT_MAX)
        return kc_fail(err, KC_ERANGE, "matrix size %d out of range 1..%d", n, KC_BITMAT_MAX);
    kc_bitmat m;
    kc_bitmat_zero(&m, n);
    int rows = 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        /* A trailing ';' is tolerated. */
        int blank = 1;
        for (size_t i = 0; i < len; i++)
            if (!isspace((unsigned char)p[i]))
                blank = 0;
        if (!(blank && !end && rows > 0)) {
            if (rows >= n)
                return kc_fail(err, KC_EINVAL, "matrix has more than %d rows", n);
            kc_status s = parse_bits(&m.row[rows], p, len, n, "matrix", rows, err);
            if (s)
                return s;
            rows++;
        }
        if (!end)
            break;
        p = end + 1;
    }
    if (rows != n)
        return kc_fail(err, KC_EINVAL, "matrix has %d rows, expected %d", rows, n);
    *a = m;
    return KC_OK;
}

char *kc_bitmat_format(const kc_bitmat *a, char *buf, size_t size)
{
    size_t k = 0;
    for (int i = 0; i < a->n; i++) {
        for (int j = 0; j < a->n; j++)
            if (k + 1 < size)
                buf[k++] = (char)('0' + kc_bitmat_get(a, i, j));
        if (i + 1 < a->n && k + 1 < size)
            buf[k++] = ';';
    }
    if (size)
        buf[k < size ? k : size - 1] = '\0';
    return buf;
}

kc_status kc_vec_parse(uint64_t *v, const char *text, int n, kc_err *err)
{
    /* The vector is one word: a 65th component would be dropped silently. */
    if (n < 1 || n > KC_BITMAT_MAX)
        return kc_fail_param(err, KC_ERANGE, "n", "vector size %d out of range 1..%d", n, KC_BITMAT_MAX);
    return parse_bits(v, text, strlen(text), n, "vector", -1, err);
}

char *kc_vec_format(uint64_t v, int n, char *buf, size_t size)
{
    size_t k = 0;
    for (int i = 0; i < n && k + 1 < size; i++)
        buf[k++] = (char)('0' + ((v >> i) & 1));
    if (size)
        buf[k] = '\0';
    return buf;
}
