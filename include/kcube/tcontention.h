/* Link contention of dimension-ordered routing on k-ary n-cubes (seed 002,
 * Theorem 1): the closed form by ranks of submatrices and exact counters
 * (src/torus/tcount.c). The networks and communications are kcube/torus.h's. */
#ifndef KCUBE_TCONTENTION_H
#define KCUBE_TCONTENTION_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/rng.h"
#include "kcube/torus.h"

/* ---- contention ----------------------------------------------------------
 * T_i is the largest number of messages whose routes use one directed link
 * of dimension i; the degree of contention T is the largest T_i. */

/* Theorem 1 cases; for scatters the case of the mirrored gather. */
typedef enum kc_tcase {
    KC_TCASE_IDLE = 0, /* no message moves in this dimension */
    KC_TCASE_1,        /* one entry node, one exit node per ring */
    KC_TCASE_2,        /* one entry, k exits */
    KC_TCASE_3,        /* k entries, one exit */
    KC_TCASE_4A,       /* k-to-k scatter-gather */
    KC_TCASE_4B        /* k-to-k permutation: the paper only bounds it */
} kc_tcase;

extern const kc_names kc_tcase_names;
const char *kc_tcase_name(kc_tcase c); /* "idle", "1", "2", "3", "4a", "4b" */

typedef struct kc_tcontention {
    int n;
    uint64_t per_dim[KC_GFMAT_MAX]; /* T_i (an upper bound if !exact_dim[i]) */
    uint64_t lower[KC_GFMAT_MAX];   /* a lower bound (== per_dim when exact_dim[i]) */
    uint8_t exact_dim[KC_GFMAT_MAX];/* 1 if per_dim[i] is the value, 0 if a bound */
    kc_tcase tcase[KC_GFMAT_MAX];   /* Theorem 1 case (filled by the formula only) */
    int exponent[KC_GFMAT_MAX];     /* i - rank(A_{L_i,L_{i+1}}) (mirrored for scatters) */
    kc_link witness[KC_GFMAT_MAX];  /* a link carrying per_dim[i] (exact counts only) */
    uint64_t max;                   /* max_i per_dim[i] */
    int max_dim;                    /* lowest i reaching max, -1 without traffic */
    int exact;                      /* 1 if every per_dim[i] is exact */
} kc_tcontention;

/* Theorem 1 per dimension, from ranks of submatrices (O(n^4), plus O(k^2)
 * per case-4b dimension). The paper's cases 1, 2, 3, 4a for tori with plus
 * or minus ties, extended here to exact values in every case: case 4b
 * (where the paper gives only 1..(k/2) k^e), split ties, meshes, scatters.
 * per_dim[i] == lower[i] and exact_dim[i] = 1 throughout; the fields stay
 * so that a future bound-only extension fits. Linear kinds only. */
void kc_tcontention_formula(const kc_torus *t, const kc_tcomm *c, kc_tcontention *out);

/* Exact count: routes every message, one dimension at a time, with a
 * difference array per ring: time O(n N), memory 8 N bytes (N <= 2^30).
 * Any kind; uniform draws its destinations from rng. */
kc_status kc_tcontention_exact(const kc_torus *t, const kc_tcomm *c, kc_rng *rng, kc_tcontention *out,
                               const kc_progress *progress, kc_err *err);

/* Exact count of one dimension only (same method). */
kc_status kc_tcontention_exact_dim(const kc_torus *t, const kc_tcomm *c, int i, uint64_t *load, kc_link *witness,
                                   kc_err *err);

/* Exact count of an arbitrary message list (src[j] -> dst[j]), same method. */
kc_status kc_tcontention_pairs(const kc_torus *t, const uint32_t *src, const uint32_t *dst, uint64_t count,
                               kc_tcontention *out, kc_err *err);

/* Reference: walk every route hop by hop into one counter per directed link
 * (memory 8 n N bytes); N <= 2^20. For tests and benchmarks. */
kc_status kc_tcontention_paths(const kc_torus *t, const kc_tcomm *c, kc_rng *rng, kc_tcontention *out, kc_err *err);

#endif
