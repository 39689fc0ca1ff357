/* kcube/lcc.h - linear-complement communications on the binary n-cube.
 *
 * An LCC is a matrix A and a vector b over GF(2):
 *   permutation  rank(A) = n   every node x sends one message to y = Ax + b;
 *   gather       rank(A) < n   every node x sends to y = Ax + b, so several
 *                               sources share a destination;
 *   scatter      rank(A) < n   every node y receives from x = Ay + b, so one
 *                               source feeds several destinations.
 * Every kind has exactly 2^n messages; message number m is (source x = m,
 * destination Ax+b) for permutations and gathers, and (source Am+b,
 * destination y = m) for scatters. */
#ifndef KCUBE_LCC_H
#define KCUBE_LCC_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/bitmat.h"
#include "kcube/error.h"
#include "kcube/names.h"

typedef enum kc_lcc_kind {
    KC_LCC_PERMUTATION,
    KC_LCC_GATHER,
    KC_LCC_SCATTER
} kc_lcc_kind;

typedef struct kc_lcc {
    kc_bitmat a; /* a.n is the cube dimension n */
    uint64_t b;
    kc_lcc_kind kind;
    int rank;
    char name[40]; /* the pattern's name, or "matrix" */
} kc_lcc;

/* Classify (A, b): rank n is a permutation; rank < n is a gather, or a
 * scatter when `scatter` is set. A scatter flag on a nonsingular matrix is an
 * error (KC_EINVAL). */
kc_status kc_lcc_init(kc_lcc *c, const kc_bitmat *a, uint64_t b, int scatter, kc_err *err);

/* A built-in pattern by name for dimension n, e.g. "transpose",
 * "butterfly:3". See kc_lcc_pattern() for the list. */
kc_status kc_lcc_named(kc_lcc *c, const char *name, int n, kc_err *err);

typedef struct kc_pattern_info {
    const char *name;    /* as typed; ":i" marks a dimension argument */
    const char *summary; /* one line for --help */
} kc_pattern_info;

/* The i-th built-in pattern (for help texts), or NULL past the last. */
const kc_pattern_info *kc_lcc_pattern(size_t i);

const char *kc_lcc_kind_name(kc_lcc_kind kind);
extern const kc_names kc_lcc_kind_names; /* "permutation", "gather", "scatter" */

/* Dimensions with no traffic: y_i = x_i for every message (row i of A is the
 * unit row e_i and b_i = 0). */
uint64_t kc_lcc_idle_dims(const kc_lcc *c);

/* Message m's endpoints (see above). */
static inline void kc_lcc_message(const kc_lcc *c, uint64_t m, uint64_t *src, uint64_t *dst)
{
    uint64_t other = kc_bitmat_mul_vec(&c->a, m) ^ c->b;
    if (c->kind == KC_LCC_SCATTER) {
        *src = other;
        *dst = m;
    } else {
        *src = m;
        *dst = other;
    }
}

/* The communication seen through a dimension order (Theorem 2 of seed 000):
 * out = (Q A Q^-1, Q b) where new dimension t is old dimension order[t]. */
void kc_lcc_reorder(kc_lcc *out, const kc_lcc *in, const int *order);

#endif
