/* kcube/torusmap.h - processor mappings on k-ary n-cubes (seed 002 Section 3).
 *
 * A linear mapping puts virtual processor x on physical node x' = Qx for a
 * nonsingular Q over GF(k); a communication (A, b) then runs as
 * (Q A Q^-1, Q b) (Theorem 2). A reordering is the special case where Q is a
 * permutation matrix: new (physical) dimension t is old (virtual) dimension
 * order[t]. A reordering keeps neighbours neighbours; a general linear
 * mapping does not, but it can bring contention far lower.
 *
 * Provided:
 *   kc_tmap_linear   Theorem 3 (one communication) and Theorem 4 (up to
 *                    k-1 at once): every leading principal submatrix of
 *                    Q A_r Q^-1 of size i <= rank A_r is nonsingular, so the
 *                    exponent of k in each T_i is the least possible
 *                    (Corollaries 1 and 4).
 *   kc_tmap_reorder  the best permutation of dimensions (exact dynamic
 *                    programme over subsets of dimensions).
 *   kc_tmap_search   beyond the paper: improves any mapping by exact
 *                    evaluation and never returns a worse one.
 * Objective for one or several communications: the largest degree of
 * contention max_r T(r) ("value"), ties broken by the sum over r and i of
 * T_i(r) ("total"). */
#ifndef KCUBE_TORUSMAP_H
#define KCUBE_TORUSMAP_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/gfk.h"
#include "kcube/mapset.h"
#include "kcube/nodemap.h"
#include "kcube/tcontention.h"

typedef enum kc_tmap_kind { KC_TMAP_LINEAR, KC_TMAP_REORDER } kc_tmap_kind;

typedef struct kc_tmap {
    kc_gf f;
    int n;
    kc_tmap_kind kind;
    kc_gfmat q;    /* x' = Q x */
    kc_gfmat qinv; /* x = Q^-1 x' */
    int order[KC_GFMAT_MAX]; /* reorderings: new dimension t is old order[t] */
} kc_tmap;

extern const kc_names kc_tmap_kind_names; /* "linear", "reorder" */
const char *kc_tmap_kind_name(kc_tmap_kind kind);

void kc_tmap_identity(kc_tmap *map, const kc_gf *f, int n);
/* From a matrix (KC_ESINGULAR if singular); a permutation matrix becomes a reordering. */
kc_status kc_tmap_from_matrix(kc_tmap *map, const kc_gf *f, const kc_gfmat *q, kc_err *err);
/* From a dimension order (KC_EINVAL if not a permutation of 0..n-1). */
kc_status kc_tmap_from_order(kc_tmap *map, const kc_gf *f, const int *order, int n, kc_err *err);

/* Virtual node v -> physical node Qv, and back. */
uint64_t kc_tmap_to_physical(const kc_tmap *map, uint64_t v);
uint64_t kc_tmap_to_virtual(const kc_tmap *map, uint64_t p);

/* Both node arrays (N = k^n <= 2^32). Free with kc_nodemap_free. */
kc_status kc_tmap_nodemap(const kc_tmap *map, kc_nodemap *out, kc_err *err);

/* Physical endpoints of every message of c under the mapping: message m
 * (numbered as in kc_tcomm_endpoints) runs from Q src_m to Q dst_m. Works
 * for uniform traffic too (rng draws the virtual destinations), which is how
 * a simulator checks that a mapping does not hurt random traffic. N <= 2^32. */
kc_status kc_tmap_endpoints(const kc_tmap *map, const kc_tcomm *c, uint32_t *src, uint32_t *dst, kc_rng *rng,
                            kc_err *err);

/* The communication as the physical machine sees it: (Q A Q^-1, Q b). */
kc_status kc_tmap_apply(const kc_tmap *map, const kc_tcomm *c, kc_tcomm *out, kc_err *err);

/* Theorem 3 / Theorem 4. All communications must be linear and share k and
 * n. More than k-1 communications is KC_ERANGE (the theorem's limit) unless
 * `beyond_limit` is set, in which case the same construction is attempted
 * and KC_EINVAL is returned if some step finds no operator. Idle dimensions
 * (no traffic in every communication) are kept idle. */
kc_status kc_tmap_linear(const kc_tcomm *comms, int count, int beyond_limit, kc_tmap *out, kc_err *err);

/* Value and total (above) after a mapping, by exact counting; the exact
 * T_i of each mapped communication go to per_comm[r] if it is not NULL. */
kc_status kc_tmap_evaluate(const kc_torus *t, const kc_tcomm *comms, int count, const kc_tmap *map,
                           uint64_t *value, uint64_t *total, kc_tcontention *per_comm, kc_err *err);

/* Best reordering. The exact T_i of dimension t after an order depends only
 * on the set S of dimensions placed before t and on the dimension placed
 * at t, so a dynamic programme over subsets (n <= 14) is exact. Each
 * (S, j) is priced by Theorem 1 and, where Theorem 1 only bounds (case 4b,
 * or any case on a mesh or with split ties), by an exact count of that one
 * dimension when affordable (*exact = 1), else by the bound (*exact = 0).
 * value / total as above (from the pricing). */
#define KC_TMAP_REORDER_MAX_N 14
kc_status kc_tmap_reorder(const kc_torus *t, const kc_tcomm *comms, int count, kc_tmap *out, uint64_t *value,
                          uint64_t *total, int *exact, const kc_progress *progress, kc_err *err);

/* The same programme for any objective of kcube/mapset.h (max, simultaneous,
 * sum); total is the tie-break among equal values. */
kc_status kc_tmap_reorder_objective(const kc_torus *t, const kc_tcomm *comms, int count, kc_objective obj,
                                    kc_tmap *out, uint64_t *value, uint64_t *total, int *exact,
                                    const kc_progress *progress, kc_err *err);

typedef struct kc_tsearch_opts {
    uint64_t seed;       /* stream for the random moves */
    uint64_t max_evals;  /* budget of exact evaluations (0: a default) */
    int reorder_only;    /* search dimension orders only (permutation matrices) */
} kc_tsearch_opts;

typedef struct kc_tsearch_stats {
    uint64_t evals;       /* exact evaluations made */
    uint64_t start_value, start_total;
    uint64_t value, total; /* of the returned mapping */
    int exhaustive;       /* 1 if every candidate was tried (then optimal) */
} kc_tsearch_stats;

/* Improve `start` by exact evaluation (the closed form of
 * kc_tcontention_formula, exact in every case, so any N works): every Q in GL(n, k) when that is
 * small enough, else steepest descent over elementary operators (row swaps,
 * row scalings, row additions) with seeded random restarts from the best.
 * With reorder_only, only dimension orders: all n! when n <= 8, else
 * descent over swaps. Never worse than `start`. */
kc_status kc_tmap_search(const kc_torus *t, const kc_tcomm *comms, int count, const kc_tmap *start,
                         const kc_tsearch_opts *opts, kc_tmap *out, kc_tsearch_stats *stats,
                         const kc_progress *progress, kc_err *err);

/* The same search for any objective of kcube/mapset.h ("value" is then that
 * objective; kc_tmap_search is this with KC_OBJ_MAX). */
kc_status kc_tmap_search_objective(const kc_torus *t, const kc_tcomm *comms, int count, kc_objective obj,
                                   const kc_tmap *start, const kc_tsearch_opts *opts, kc_tmap *out,
                                   kc_tsearch_stats *stats, const kc_progress *progress, kc_err *err);

#endif
