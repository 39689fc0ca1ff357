/* kcube/bitmat.h - square matrices and vectors over GF(2), n <= 64.
 *
 * Row i of a matrix is one machine word: bit j of row[i] is entry (i, j).
 * A vector is a uint64_t whose bit i is component i, so for a hypercube node
 * x the vector is simply x (bit i = address bit x_i, x_0 least significant).
 * Row i of A computes component y_i of y = Ax. */
#ifndef KCUBE_BITMAT_H
#define KCUBE_BITMAT_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/rng.h"

#define KC_BITMAT_MAX 64

typedef struct kc_bitmat {
    int n;
    uint64_t row[KC_BITMAT_MAX];
} kc_bitmat;

/* All-ones mask of the low n bits (n in 0..64). */
static inline uint64_t kc_mask(int n) { return n >= 64 ? ~0ULL : ((1ULL << n) - 1); }

static inline int kc_bitmat_get(const kc_bitmat *a, int i, int j) { return (int)((a->row[i] >> j) & 1); }

static inline void kc_bitmat_set(kc_bitmat *a, int i, int j, int v)
{
    a->row[i] = (a->row[i] & ~(1ULL << j)) | ((uint64_t)(v & 1) << j);
}

void kc_bitmat_zero(kc_bitmat *a, int n);
void kc_bitmat_identity(kc_bitmat *a, int n);
int kc_bitmat_equal(const kc_bitmat *a, const kc_bitmat *b);

/* y = A x. */
uint64_t kc_bitmat_mul_vec(const kc_bitmat *a, uint64_t x);
/* out = A B (out may alias a or b). */
void kc_bitmat_mul(kc_bitmat *out, const kc_bitmat *a, const kc_bitmat *b);
/* out = A^T (out may alias a). */
void kc_bitmat_transpose(kc_bitmat *out, const kc_bitmat *a);
/* Column j of A as a vector. */
uint64_t kc_bitmat_col(const kc_bitmat *a, int j);

/* Rank of A. */
int kc_bitmat_rank(const kc_bitmat *a);
/* Rank of the submatrix A_{R,C}: rows in the set `rows`, columns in `cols`. */
int kc_bitmat_rank_sub(const kc_bitmat *a, uint64_t rows, uint64_t cols);
/* Rank of `count` row vectors restricted to the columns in `cols`. */
int kc_rank_rows(const uint64_t *rows, int count, uint64_t cols);

/* Columns c in `cols` such that column c of A_{rows,cols} is a combination
 * of the other columns there (the union of supports of its kernel vectors). */
uint64_t kc_bitmat_dependent_cols(const kc_bitmat *a, uint64_t rows, uint64_t cols);

/* out = A^-1, or KC_ESINGULAR. */
kc_status kc_bitmat_inverse(kc_bitmat *out, const kc_bitmat *a, kc_err *err);

/* Null space {x : Ax = 0}: writes a basis to `basis` (room for n vectors) and
 * returns its dimension n - rank(A). */
int kc_bitmat_kernel(const kc_bitmat *a, uint64_t *basis);

/* Dimension orders. An order R of n dimensions says "new dimension t is old
 * dimension R[t]". Its permutation matrix Q has Q[t][R[t]] = 1, so x' = Qx
 * has x'_t = x_{R[t]}. */

/* Q from an order. */
void kc_bitmat_from_order(kc_bitmat *q, const int *order, int n);
/* Q A Q^-1 for the permutation matrix Q of `order`: out[t][u] = A[R[t]][R[u]]. */
void kc_bitmat_conjugate(kc_bitmat *out, const kc_bitmat *a, const int *order);
/* Q v: bit t of the result is bit R[t] of v. */
uint64_t kc_vec_permute(uint64_t v, const int *order, int n);
/* Q^-1 v: bit R[t] of the result is bit t of v. */
uint64_t kc_vec_unpermute(uint64_t v, const int *order, int n);

/* Random matrices for tests and benchmarks, from an explicit stream. */
void kc_bitmat_random(kc_bitmat *a, int n, kc_rng *r);
void kc_bitmat_random_nonsingular(kc_bitmat *a, int n, kc_rng *r);
/* A random n x n matrix of exactly the given rank (0 <= rank <= n). */
void kc_bitmat_random_rank(kc_bitmat *a, int n, int rank, kc_rng *r);

/* Text form used on the command line and in output: rows separated by ';',
 * row 0 first, each row n characters 0/1 with column 0 first, e.g. the
 * 4-dimensional transpose "0010;0001;1000;0100". Entries may also be
 * separated by spaces or commas. n is the expected size. */
kc_status kc_bitmat_parse(kc_bitmat *a, const char *text, int n, kc_err *err);
/* Writes the text form (needs n*(n+1) bytes + 1); returns buf. */
char *kc_bitmat_format(const kc_bitmat *a, char *buf, size_t size);
/* A vector as n characters 0/1, component 0 first. */
kc_status kc_vec_parse(uint64_t *v, const char *text, int n, kc_err *err);
char *kc_vec_format(uint64_t v, int n, char *buf, size_t size);

#endif
