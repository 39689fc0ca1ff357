/* kcube/gfk.h - the finite field GF(k), k = 2^m <= 256, and matrices over it.
 *
 * Elements are the integers 0..k-1: element d is the polynomial whose
 * coefficients are the bits of d (bit j is the coefficient of x^j), reduced
 * modulo a fixed irreducible polynomial of degree m:
 *
 *   k    polynomial               as integer
 *   2    x + 1                      3  (plain GF(2))
 *   4    x^2 + x + 1                7
 *   8    x^3 + x + 1               11
 *   16   x^4 + x + 1               19
 *   32   x^5 + x^2 + 1             37
 *   64   x^6 + x + 1               67
 *   128  x^7 + x^3 + 1            137
 *   256  x^8 + x^4 + x^3 + x^2 + 1 285
 *
 * Addition is XOR of the integers. Each polynomial is primitive, so x (the
 * integer 2) generates the multiplicative group and multiplication goes
 * through log/exp tables.
 *
 * A node of the k-ary n-cube, x = sum x_i k^i, is its digit vector
 * (x_0, ..., x_{n-1}) over GF(k). Because k is a power of two the digits are
 * m-bit fields of the node id, so adding two digit vectors is XOR of the
 * node ids. Row i of a matrix computes component y_i of y = Ax. */
#ifndef KCUBE_GFK_H
#define KCUBE_GFK_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/rng.h"

#define KC_GF_MAX_K 256
#define KC_GFMAT_MAX 64 /* largest matrix size n */

typedef struct kc_gf {
    int k;         /* field size, 2..256, a power of two */
    int m;         /* k = 2^m */
    unsigned poly; /* irreducible polynomial (table above) */
    uint8_t log[KC_GF_MAX_K];      /* log[a] for a != 0, base x */
    uint8_t exp[2 * KC_GF_MAX_K];  /* exp[i] = x^i, doubled so log a + log b needs no reduction */
    uint8_t inv[KC_GF_MAX_K];      /* inv[a] for a != 0 */
} kc_gf;

/* The polynomial kcube uses for GF(k), or 0 if k is not a power of two in 2..256. */
unsigned kc_gf_polynomial(int k);

/* Set up GF(k); KC_EINVAL unless k is a power of two in 2..256. */
kc_status kc_gf_init(kc_gf *f, int k, kc_err *err);

static inline unsigned kc_gf_add(unsigned a, unsigned b) { return a ^ b; }

static inline unsigned kc_gf_mul(const kc_gf *f, unsigned a, unsigned b)
{
    if (a == 0 || b == 0)
        return 0;
    return f->exp[f->log[a] + f->log[b]];
}

/* a / b; b must not be 0. */
static inline unsigned kc_gf_div(const kc_gf *f, unsigned a, unsigned b)
{
    if (a == 0)
        return 0;
    return f->exp[f->log[a] + (f->k - 1) - f->log[b]];
}

/* Multiplication by shift-and-reduce (no tables): the reference for tests. */
unsigned kc_gf_mul_slow(unsigned a, unsigned b, int m, unsigned poly);

/* ---- matrices over GF(k) --------------------------------------------------
 * The matrix does not store its field: every function that multiplies takes
 * the field. Entries outside the n x n corner are kept 0. */

typedef struct kc_gfmat {
    int n;
    uint8_t e[KC_GFMAT_MAX][KC_GFMAT_MAX]; /* e[i][j]: row i, column j */
} kc_gfmat;

void kc_gfmat_zero(kc_gfmat *a, int n);
void kc_gfmat_identity(kc_gfmat *a, int n);
int kc_gfmat_equal(const kc_gfmat *a, const kc_gfmat *b);
int kc_gfmat_is_identity(const kc_gfmat *a);

/* out = A B (out may alias a or b). */
void kc_gfmat_mul(const kc_gf *f, kc_gfmat *out, const kc_gfmat *a, const kc_gfmat *b);
/* y = A x for digit vectors (y may not alias x). */
void kc_gfmat_mul_vec(const kc_gf *f, const kc_gfmat *a, const uint8_t *x, uint8_t *y);

/* Rank of A. */
int kc_gfmat_rank(const kc_gf *f, const kc_gfmat *a);
/* Rank of the submatrix A_{R,C}: rows in the bit set `rows`, columns in `cols`.
 * With L_i = {0..i-1} the seed's A_{L_i,L_j} is rows = kc_gf_low(i), cols = kc_gf_low(j). */
int kc_gfmat_rank_sub(const kc_gf *f, const kc_gfmat *a, uint64_t rows, uint64_t cols);
static inline uint64_t kc_gf_low(int i) { return i >= 64 ? ~0ULL : ((1ULL << i) - 1); }

/* out = A^-1, or KC_ESINGULAR. out may alias a. */
kc_status kc_gfmat_inverse(const kc_gf *f, kc_gfmat *out, const kc_gfmat *a, kc_err *err);

/* Elementary operator matrices (left-multiplying applies the row operation):
 * swap rows i and j; add c times row j to row i (i != j); multiply row i by c != 0. */
void kc_gfmat_op_swap(kc_gfmat *q, int n, int i, int j);
void kc_gfmat_op_addrow(kc_gfmat *q, int n, int i, int j, unsigned c);
void kc_gfmat_op_scale(const kc_gf *f, kc_gfmat *q, int n, int i, unsigned c);

/* out = Q A Q^-1 (KC_ESINGULAR if Q is singular). out may alias a. */
kc_status kc_gfmat_conjugate(const kc_gf *f, kc_gfmat *out, const kc_gfmat *q, const kc_gfmat *a, kc_err *err);

/* The permutation matrix of a dimension order: new dimension t is old
 * dimension order[t], Q[t][order[t]] = 1, so (Qx)_t = x_{order[t]}. */
void kc_gfmat_from_order(kc_gfmat *q, const int *order, int n);
/* If Q is a permutation matrix, write its order and return 1; else 0. */
int kc_gfmat_to_order(const kc_gfmat *q, int *order);

/* Random matrices (entries uniform in 0..k-1) from an explicit stream. */
void kc_gfmat_random(const kc_gf *f, kc_gfmat *a, int n, kc_rng *r);
void kc_gfmat_random_nonsingular(const kc_gf *f, kc_gfmat *a, int n, kc_rng *r);
/* A random n x n matrix of exactly the given rank. */
void kc_gfmat_random_rank(const kc_gf *f, kc_gfmat *a, int n, int rank, kc_rng *r);

/* Text form: rows separated by ';', row 0 first; entries decimal 0..k-1
 * separated by spaces or commas, column 0 first, e.g. "1 0 1 0;0 1 2 1;...".
 * For k <= 10 a row may also be n digits without separators ("1010").
 * An entry >= k or a wrong number of rows/entries is KC_EINVAL. */
kc_status kc_gfmat_parse(const kc_gf *f, kc_gfmat *a, const char *text, int n, kc_err *err);
/* Writes "e,e,e;e,e,e;..." (commas within a row); needs at most n*n*4 + 1 bytes. */
char *kc_gfmat_format(const kc_gfmat *a, char *buf, size_t size);
/* Vectors (n digits) in the same syntax as one row. */
kc_status kc_gfvec_parse(const kc_gf *f, uint8_t *v, const char *text, int n, kc_err *err);
char *kc_gfvec_format(const uint8_t *v, int n, char *buf, size_t size);

/* Digit vector <-> node id (digit i is bits i*m .. i*m+m-1). */
static inline uint64_t kc_gfvec_pack(const uint8_t *v, int n, int m)
{
    uint64_t x = 0;
    for (int i = n - 1; i >= 0; i--)
        x = (x << m) | v[i];
    return x;
}
static inline void kc_gfvec_unpack(uint64_t x, uint8_t *v, int n, int m)
{
    unsigned mask = (1u << m) - 1;
    for (int i = 0; i < n; i++, x >>= m)
        v[i] = (uint8_t)(x & mask);
}

#endif
