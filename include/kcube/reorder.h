/* kcube/reorder.h - processor reordering mappings on the binary n-cube.
 *
 * A reordering mapping permutes address bits: with the order R, new
 * (physical) dimension t is old (virtual) dimension R[t], i.e. x'_t = x_{R[t]}
 * and x' = Qx with Q[t][R[t]] = 1. Neighbours stay neighbours. The
 * communication seen by the physical machine is (Q A Q^-1, Q b). */
#ifndef KCUBE_REORDER_H
#define KCUBE_REORDER_H

#include <stdint.h>

#include "kcube/bitmat.h"
#include "kcube/error.h"
#include "kcube/lcc.h"
#include "kcube/perm.h"

typedef struct kc_order {
    int n;
    int dim[KC_BITMAT_MAX]; /* new dimension t is old dimension dim[t] */
} kc_order;

void kc_order_identity(kc_order *o, int n);

/* Virtual node v -> physical node Qv, and back. */
static inline uint64_t kc_order_to_physical(const kc_order *o, uint64_t v) { return kc_vec_permute(v, o->dim, o->n); }
static inline uint64_t kc_order_to_virtual(const kc_order *o, uint64_t p) { return kc_vec_unpermute(p, o->dim, o->n); }

/* An optimal reordering for one communication, in O(n^3) at most:
 *  - permutations: seed 000 Fig. 3 (LCP_Optimizer); contention 1 on every
 *    dimension with traffic (Theorem 3, Corollary 1);
 *  - gathers: Theorem 4, contention 2^((n-1) - rank A), the minimum;
 *  - scatters: the gather algorithm on the dimension-reversed matrix.
 * Idle dimensions (no traffic) are moved to the end (to the front for
 * scatters) and keep their relative order. */
kc_status kc_reorder_optimal(const kc_lcc *c, kc_order *out, kc_err *err);

/* The single-communication optimiser with the seed 000 Section 5 tie-break:
 * among the orders of least maximum contention, one of least total (sum of
 * T_i over dimensions). */
typedef struct kc_reorder_result {
    kc_order order;
    uint64_t value;      /* the maximum contention after the order (optimal) */
    uint64_t total;      /* sum over dimensions of T_i after the order */
    int total_minimised; /* 1: no optimal order has a smaller total; 0: not
                          * searched (a gather or scatter with n > KC_MAPSET_AUTO_N) */
} kc_reorder_result;

/* Permutations: kc_reorder_optimal already gives T = 1 on every dimension
 * with traffic, so its total is the least; O(n^2). Gathers and scatters with
 * n <= KC_MAPSET_AUTO_N (24): the exact least-total pass of the subset dynamic
 * programme (kcube/mapset.h), O(2^n n) time and 9 * 2^n bytes; above that the
 * O(n^3) order of kc_reorder_optimal with total_minimised = 0. progress may
 * be NULL. */
kc_status kc_reorder_best(const kc_lcc *c, kc_reorder_result *out, const kc_progress *progress, kc_err *err);

/* Contention of c after the order, by formula: a shortcut for
 * kc_lcc_reorder + kc_contention_formula's maximum. */
uint64_t kc_reorder_value(const kc_lcc *c, const kc_order *o);

#endif
