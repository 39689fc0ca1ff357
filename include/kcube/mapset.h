/* kcube/mapset.h - one reordering mapping for a set of communications
 * (seed 000 Section 5).
 *
 * Objectives over m communications with contention T_i(r):
 *   max           minimise max_r max_i T_i(r)   (calls at different times)
 *   simultaneous  minimise max_i sum_r T_i(r)   (all run together)
 *   sum           minimise sum_i sum_r T_i(r)
 * For max and simultaneous, among the optimal orders the one with the least
 * total (sum over r and i) is returned; that is exact too (a second pass).
 * Ties left after that favour the communications listed later (as seed 000
 * Example 6 does: transpose 2, bit-reverse 1). */
#ifndef KCUBE_MAPSET_H
#define KCUBE_MAPSET_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/lcc.h"
#include "kcube/names.h"
#include "kcube/reorder.h"

#define KC_MAPSET_MAX_N 24
#define KC_EXHAUSTIVE_MAX_N 10

typedef enum kc_objective {
    KC_OBJ_MAX,
    KC_OBJ_SIMULTANEOUS,
    KC_OBJ_SUM
} kc_objective;

/* max | simultaneous | sum (parse, print, help). */
extern const kc_names kc_objective_names;
const char *kc_objective_name(kc_objective obj);
kc_status kc_objective_parse(const char *text, kc_objective *obj, kc_err *err);

typedef struct kc_mapset_result {
    kc_order order;
    uint64_t value; /* the objective after mapping */
    uint64_t total; /* sum over communications and dimensions of T_i */
} kc_mapset_result;

/* Objective value (and total, if not NULL) of an order, by the closed forms. */
uint64_t kc_objective_value(const kc_lcc *comms, int m, kc_objective obj, const kc_order *o, uint64_t *total);

/* Exact optimum by dynamic programming over subsets of dimensions. The cost of
 * placing dimension j right after a set S depends only on S and j; one
 * incremental elimination per (S, communication) prices every j at once.
 * Time O(2^n (m n + n)) amortised, memory 9 * 2^n bytes; n <= 24. */
kc_status kc_mapset_optimal(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out,
                            const kc_progress *progress, kc_err *err);

/* The paper's dynamic programme as stated: every (S, j, r) recomputes its
 * rank from scratch. Same optimum value (no tie-break pass); for comparison. */
kc_status kc_mapset_naive(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out, kc_err *err);

/* Every one of the n! orders (n <= KC_EXHAUSTIVE_MAX_N); the reference for
 * tests. Lexicographically least (value, total). */
kc_status kc_mapset_exhaustive(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out, kc_err *err);

#endif
