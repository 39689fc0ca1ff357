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

/* Contention of c after the order, by formula: a shortcut for
 * kc_lcc_reorder + kc_contention_formula's maximum. */
uint64_t kc_reorder_value(const kc_lcc *c, const kc_order *o);

#endif
