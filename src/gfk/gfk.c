/* GF(2^m) arithmetic by log/exp tables, and matrices over it. */
#include "kcube/gfk.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned polys[9] = {0, 3, 7, 11, 19, 37, 67, 137, 285};

static int log2_exact(int k)
{
    if (k < 2 || k > KC_GF_MAX_K || (k & (k - 1)))
        return -1;
    int m = 0;
    while ((1 << m) < k)
        m++;
    return m;
}

unsigned kc_gf_polynomial(int k)
{
    int m = log2_exact(k);
    return m < 0 ? 0 : polys[m];
}

unsigned kc_gf_mul_slow(unsigned a, unsigned b, int m, unsigned poly)
{
    unsigned r = 0;
    for (int i = m - 1; i >= 0; i--) {
        r <<= 1;
        if (r >> m)
            r ^= poly;
        if ((b >> i) & 1)
            r ^= a;
    }
    return r;
}

kc_status kc_gf_init(kc_gf *f, int k, kc_err *err)
{
    int m = log2_exact(k);
    if (m < 0)
        return kc_fail(err, KC_EINVAL, "k = %d is not a power of two in 2..256", k);
    memset(f, 0, sizeof *f);
    f->k = k;
    f->m = m;
    f->poly = polys[m];
    /* x (the integer 2) is a generator for every polynomial above; for k = 2
     * the group is {1} and its generator is 1. */
    unsigned g = k == 2 ? 1 : 2, v = 1;
    for (int i = 0; i < k - 1; i++) {
        f->exp[i] = (uint8_t)v;
        f->log[v] = (uint8_t)i;
        v = kc_gf_mul_slow(v, g, m, f->poly);
    }
    for (int i = k - 1; i < 2 * KC_GF_MAX_K; i++)
        f->exp[i] = f->exp[i % (k - 1)];
    for (int a = 1; a < k; a++)
        f->inv[a] = f->exp[(k - 1 - f->log[a]) % (k - 1)];
    return KC_OK;
}

/* ---- matrices ------------------------------------------------------------ */

void kc_gfmat_zero(kc_gfmat *a, int n)
{
    memset(a, 0, sizeof *a);
    a->n = n;
}

void kc_gfmat_identity(kc_gfmat *a, int n)
{
    kc_gfmat_zero(a, n);
    for (int i = 0; i < n; i++)
        a->e[i][i] = 1;
}

int kc_gfmat_equal(const kc_gfmat *a, const kc_gfmat *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (memcmp(a->e[i], b->e[i], (size_t)a->n))
            return 0;
    return 1;
}

int kc_gfmat_is_identity(const kc_gfmat *a)
{
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < a->n; j++)
            if (a->e[i][j] != (i == j))
                return 0;
    return 1;
}

void kc_gfmat_mul(const kc_gf *f, kc_gfmat *out, const kc_gfmat *a, const kc_gfmat *b)
{
    kc_gfmat r;
    int n = a->n;
    kc_gfmat_zero(&r, n);
    for (int i = 0; i < n; i++)
        for (int l = 0; l < n; l++) {
            unsigned x = a->e[i][l];
            if (!x)
                continue;
            for (int j = 0; j < n; j++)
                r.e[i][j] ^= (uint8_t)kc_gf_mul(f, x, b->e[l][j]);
        }
    *out = r;
}

void kc_gfmat_mul_vec(const kc_gf *f, const kc_gfmat *a, const uint8_t *x, uint8_t *y)
{
    for (int i = 0; i < a->n; i++) {
        unsigned s = 0;
        for (int j = 0; j < a->n; j++)
            s ^= kc_gf_mul(f, a->e[i][j], x[j]);
        y[i] = (uint8_t)s;
    }
}

/* Gaussian elimination on a dense rows x cols block; returns the rank. */
static int eliminate(const kc_gf *f, uint8_t m[KC_GFMAT_MAX][KC_GFMAT_MAX], int rows, int cols)
{
    int rank = 0;
    for (int c = 0; c < cols && rank < rows; c++) {
        int p = -1;
        for (int r = rank; r < rows; r++)
            if (m[r][c]) {
                p = r;
                break;
            }
        if (p < 0)
            continue;
        if (p != rank)
            for (int j = 0; j < cols; j++) {
                uint8_t t = m[p][j];
                m[p][j] = m[rank][j];
                m[rank][j] = t;
            }
        unsigned inv = f->inv[m[rank][c]];
        for (int r = rank + 1; r < rows; r++) {
            unsigned x = m[r][c];
            if (!x)
                continue;
            unsigned factor = kc_gf_mul(f, x, inv);
            for (int j = c; j < cols; j++)
                m[r][j] ^= (uint8_t)kc_gf_mul(f, factor, m[rank][j]);
        }
        rank++;
    }
    return rank;
}

int kc_gfmat_rank_sub(const kc_gf *f, const kc_gfmat *a, uint64_t rows, uint64_t cols)
{
    uint8_t m[KC_GFMAT_MAX][KC_GFMAT_MAX];
    int nr = 0, nc = 0;
    for (int i = 0; i < a->n; i++) {
        if (!((rows >> i) & 1))
            continue;
        nc = 0;
        for (int j = 0; j < a->n; j++)
            if ((cols >> j) & 1)
                m[nr][nc++] = a->e[i][j];
        nr++;
    }
    if (nr == 0 || nc == 0)
        return 0;
    return eliminate(f, m, nr, nc);
}

int kc_gfmat_rank(const kc_gf *f, const kc_gfmat *a)
{
    return kc_gfmat_rank_sub(f, a, kc_gf_low(a->n), kc_gf_low(a->n));
}

kc_status kc_gfmat_inverse(const kc_gf *f, kc_gfmat *out, const kc_gfmat *a, kc_err *err)
{
    int n = a->n;
    kc_gfmat m = *a, r;
    kc_gfmat_identity(&r, n);
    for (int c = 0; c < n; c++) {
        int p = -1;
        for (int i = c; i < n; i++)
            if (m.e[i][c]) {
                p = i;
                break;
            }
        if (p < 0)
            return kc_fail(err, KC_ESINGULAR, "matrix is singular (rank %d < %d)", kc_gfmat_rank(f, a), n);
        if (p != c)
            for (int j = 0; j < n; j++) {
                uint8_t t = m.e[p][j];
                m.e[p][j] = m.e[c][j];
                m.e[c][j] = t;
                t = r.e[p][j];
                r.e[p][j] = r.e[c][j];
                r.e[c][j] = t;
            }
        unsigned inv = f->inv[m.e[c][c]];
        for (int j = 0; j < n; j++) {
            m.e[c][j] = (uint8_t)kc_gf_mul(f, m.e[c][j], inv);
            r.e[c][j] = (uint8_t)kc_gf_mul(f, r.e[c][j], inv);
        }
        for (int i = 0; i < n; i++) {
            unsigned x = m.e[i][c];
            if (i == c || !x)
                continue;
            for (int j = 0; j < n; j++) {
                m.e[i][j] ^= (uint8_t)kc_gf_mul(f, x, m.e[c][j]);
                r.e[i][j] ^= (uint8_t)kc_gf_mul(f, x, r.e[c][j]);
            }
        }
    }
    *out = r;
    return KC_OK;
}

void kc_gfmat_op_swap(kc_gfmat *q, int n, int i, int j)
{
    kc_gfmat_identity(q, n);
    q->e[i][i] = q->e[j][j] = 0;
    q->e[i][j] = q->e[j][i] = 1;
}

void kc_gfmat_op_addrow(kc_gfmat *q, int n, int i, int j, unsigned c)
{
    kc_gfmat_identity(q, n);
    q->e[i][j] ^= (uint8_t)c;
}

void kc_gfmat_op_scale(const kc_gf *f, kc_gfmat *q, int n, int i, unsigned c)
{
    (void)f;
    kc_gfmat_identity(q, n);
    q->e[i][i] = (uint8_t)c;
}

kc_status kc_gfmat_conjugate(const kc_gf *f, kc_gfmat *out, const kc_gfmat *q, const kc_gfmat *a, kc_err *err)
{
    kc_gfmat qi, t;
    kc_status s = kc_gfmat_inverse(f, &qi, q, err);
    if (s)
        return s;
    kc_gfmat_mul(f, &t, q, a);
    kc_gfmat_mul(f, out, &t, &qi);
    return KC_OK;
}

void kc_gfmat_from_order(kc_gfmat *q, const int *order, int n)
{
    kc_gfmat_zero(q, n);
    for (int t = 0; t < n; t++)
        q->e[t][order[t]] = 1;
}

int kc_gfmat_to_order(const kc_gfmat *q, int *order)
{
    int n = q->n;
    uint64_t used = 0;
    for (int t = 0; t < n; t++) {
        int at = -1;
        for (int j = 0; j < n; j++) {
            if (q->e[t][j] == 0)
                continue;
            if (q->e[t][j] != 1 || at >= 0)
                return 0;
            at = j;
        }
        if (at < 0 || ((used >> at) & 1))
            return 0;
        used |= 1ULL << at;
        order[t] = at;
    }
    return 1;
}

void kc_gfmat_random(const kc_gf *f, kc_gfmat *a, int n, kc_rng *r)
{
    kc_gfmat_zero(a, n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a->e[i][j] = (uint8_t)kc_rng_below(r, (uint64_t)f->k);
}

void kc_gfmat_random_nonsingular(const kc_gf *f, kc_gfmat *a, int n, kc_rng *r)
{
    do
        kc_gfmat_random(f, a, n, r);
    while (kc_gfmat_rank(f, a) < n);
}

void kc_gfmat_random_rank(const kc_gf *f, kc_gfmat *a, int n, int rank, kc_rng *r)
{
    /* P D Q with P, Q nonsingular and D the first `rank` unit vectors. */
    kc_gfmat p, q, d;
    kc_gfmat_random_nonsingular(f, &p, n, r);
    kc_gfmat_random_nonsingular(f, &q, n, r);
    kc_gfmat_zero(&d, n);
    for (int i = 0; i < rank; i++)
        d.e[i][i] = 1;
    kc_gfmat_mul(f, a, &p, &d);
    kc_gfmat_mul(f, a, a, &q);
}

/* ---- text form ----------------------------------------------------------- */

/* Parse one row of n entries from [s, end). */
static kc_status parse_row(const kc_gf *f, uint8_t *v, const char *s, const char *end, int n, int row,
                           kc_err *err)
{
    char where[32] = "vector ";
    if (row >= 0)
        snprintf(where, sizeof where, "row %d: ", row);
    int has_sep = 0;
    for (const char *p = s; p < end; p++)
        if (*p == ',' || isspace((unsigned char)*p))
            has_sep = 1;
    /* Trim. */
    while (s < end && (isspace((unsigned char)*s) || *s == ','))
        s++;
    while (end > s && (isspace((unsigned char)end[-1]) || end[-1] == ','))
        end--;
    int count = 0;
    int compact = f->k <= 10;
    for (const char *p = s; p < end; p++)
        if (isspace((unsigned char)*p) || *p == ',')
            compact = 0;
    (void)has_sep;
    const char *p = s;
    while (p < end) {
        if (!isdigit((unsigned char)*p))
            return kc_fail(err, KC_EINVAL, "%sunexpected character '%c' (entries are decimal 0..%d)", where, *p,
                           f->k - 1);
        long val = 0;
        if (compact) {
            val = *p - '0';
            p++;
        } else {
            while (p < end && isdigit((unsigned char)*p)) {
                val = val * 10 + (*p - '0');
                if (val > 100000)
                    val = 100000;
                p++;
            }
            if (p < end && !isspace((unsigned char)*p) && *p != ',')
                return kc_fail(err, KC_EINVAL, "%sunexpected character '%c' (entries are decimal 0..%d)", where, *p,
                               f->k - 1);
            while (p < end && (isspace((unsigned char)*p) || *p == ','))
                p++;
        }
        if (val >= f->k)
            return kc_fail(err, KC_EINVAL, "%sentry %ld is not an element of GF(%d) (entries are 0..%d)", where, val,
                           f->k, f->k - 1);
        if (count < n)
            v[count] = (uint8_t)val;
        count++;
    }
    if (count != n)
        return kc_fail(err, KC_EINVAL, "%shas %d entries, expected n = %d", where, count, n);
    return KC_OK;
}

kc_status kc_gfmat_parse(const kc_gf *f, kc_gfmat *a, const char *text, int n, kc_err *err)
{
    if (n < 1 || n > KC_GFMAT_MAX)
        return kc_fail(err, KC_ERANGE, "n = %d is out of range 1..%d", n, KC_GFMAT_MAX);
    kc_gfmat_zero(a, n);
    int row = 0;
    const char *s = text;
    for (;;) {
        const char *end = strchr(s, ';');
        if (!end)
            end = s + strlen(s);
        /* A trailing ';' (empty last row) is allowed. */
        const char *q = s;
        while (q < end && isspace((unsigned char)*q))
            q++;
        if (!(q == end && *end == '\0' && row > 0)) {
            if (row >= n)
                return kc_fail(err, KC_EINVAL, "matrix has more than n = %d rows", n);
            kc_status st = parse_row(f, a->e[row], s, end, n, row, err);
            if (st)
                return st;
            row++;
        }
        if (*end == '\0')
            break;
        s = end + 1;
    }
    if (row != n)
        return kc_fail(err, KC_EINVAL, "matrix has %d rows, expected n = %d", row, n);
    return KC_OK;
}

char *kc_gfmat_format(const kc_gfmat *a, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < a->n; j++) {
            int w = snprintf(buf + at, at < size ? size - at : 0, "%s%u", j ? "," : (i ? ";" : ""), a->e[i][j]);
            if (w < 0 || at + (size_t)w >= size)
                return buf;
            at += (size_t)w;
        }
    return buf;
}

kc_status kc_gfvec_parse(const kc_gf *f, uint8_t *v, const char *text, int n, kc_err *err)
{
    /* v holds KC_GFMAT_MAX digits: a larger n would write past its end. */
    if (n < 1 || n > KC_GFMAT_MAX)
        return kc_fail_param(err, KC_ERANGE, "n", "n = %d is out of range 1..%d", n, KC_GFMAT_MAX);
    if (strchr(text, ';'))
        return kc_fail(err, KC_EINVAL, "a vector is one row: no ';' allowed");
    memset(v, 0, KC_GFMAT_MAX);
    return parse_row(f, v, text, text + strlen(text), n, -1, err);
}

char *kc_gfvec_format(const uint8_t *v, int n, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = snprintf(buf + at, at < size ? size - at : 0, "%s%u", i ? "," : "", v[i]);
        if (w < 0 || at + (size_t)w >= size)
            return buf;
        at += (size_t)w;
    }
    return buf;
}
