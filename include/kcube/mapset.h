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

#define KC_MAPSET_MAX_N 32     /* kc_mapset_optimal_ex: 2^n table entries (n = 28: 1 to 8 bytes each) */
#define KC_MAPSET_AUTO_N 24    /* what runs without a budget check (kc_reorder_best, kc_map by default) */
#define KC_MAPSET_MAX_THREADS 8
#define KC_EXHAUSTIVE_MAX_N 10

typedef enum kc_objective {
    KC_OBJ_MAX,
    KC_OBJ_SIMULTANEOUS,
    KC_OBJ_SUM
} kc_objective;

extern const kc_names kc_objective_names; /* "max", "simultaneous", "sum" */
const char *kc_objective_name(kc_objective obj);
/* KC_EINVAL (parameter "objective") for an unknown name. */
kc_status kc_objective_parse(const char *text, kc_objective *obj, kc_err *err);

typedef struct kc_mapset_result {
    kc_order order;
    uint64_t value; /* the objective after mapping */
    uint64_t total; /* sum over communications and dimensions of T_i */
} kc_mapset_result;

/* Objective value (and total, if not NULL) of an order, by the closed forms. */
uint64_t kc_objective_value(const kc_lcc *comms, int m, kc_objective obj, const kc_order *o, uint64_t *total);

typedef struct kc_mapset_opts {
    int threads;    /* worker threads (default 2); the result does not depend on it */
    uint64_t upper; /* a value some order is known to reach (e.g. from kc_mapset_search): subsets
                       whose value passes it are not expanded; UINT64_MAX: none (default) */
    double max_seconds; /* stop (KC_ERANGE, param "max-time") once the work passes this many
                           estimated seconds; 0: no limit (default). Deterministic: it depends on
                           the total work, not on the schedule */
} kc_mapset_opts;

void kc_mapset_opts_default(kc_mapset_opts *o);

/* Exact optimum by dynamic programming over subsets of dimensions (seed 000
 * Section 5, Theorem 5). The cost of placing dimension j right after a set S
 * depends only on S and j; one incremental elimination per (S,
 * communication) prices every j at once. Subsets are expanded by size, the
 * threads sharing each size through atomic minima (deterministic). One table
 * of 2^n values in the narrowest width the bound allows: pass 1 of max stores
 * log2 codes (1 byte), the tie-break pass totals (2 to 8 bytes); the order
 * is rebuilt by recomputation, not stored. Time O(2^n m n) per pass; n <=
 * KC_MAPSET_MAX_N. KC_EINVAL when opts->upper is below the optimum. */
kc_status kc_mapset_optimal_ex(const kc_lcc *comms, int m, kc_objective obj, const kc_mapset_opts *opts,
                               kc_mapset_result *out, const kc_progress *progress, kc_err *err);

/* kc_mapset_optimal_ex with the default options. */
kc_status kc_mapset_optimal(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out,
                            const kc_progress *progress, kc_err *err);

/* Seconds per unit of DP work (one step price of one communication), on
 * one core of the development machine, rounded up. */
#define KC_MAPSET_SECONDS_PER_UNIT 7e-9

/* Before running it: peak bytes of kc_mapset_optimal_ex given a value some
 * order reaches (UINT64_MAX: none; the tables' widths follow from it), and
 * its worst-case wall time (every subset expanded, both passes) with that
 * many threads. Pruning by the bound usually makes the time far smaller.
 * n <= KC_MAPSET_MAX_N. O(1). */
void kc_mapset_estimate(int n, int m, kc_objective obj, uint64_t upper, int threads, uint64_t *bytes,
                        double *seconds);

/* The paper's dynamic programme as stated: every (S, j, r) recomputes its
 * rank from scratch. Same optimum value (no tie-break pass); for comparison. */
kc_status kc_mapset_naive(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out, kc_err *err);

/* ---- beyond the DP: a seeded local search ---------------------------------- */

#define KC_MAPSET_SEARCH_WORK 4000000ULL /* default work: frame additions (about 0.3 to 1 s) */
#define KC_MAPSET_SEARCH_STARTS 16

typedef struct kc_mapset_search_opts {
    uint64_t seed;    /* default 1 */
    uint64_t work;    /* elimination-frame additions to spend; 0: KC_MAPSET_SEARCH_WORK */
    const int *start; /* one more start (e.g. an order found for a smaller n, extended), or NULL */
} kc_mapset_search_opts;

void kc_mapset_search_opts_default(kc_mapset_search_opts *o);

typedef struct kc_mapset_search_result {
    kc_mapset_result best;
    uint64_t lower;    /* kc_mapset_lower_bound */
    int proved;        /* 1: best.value == lower, so it is optimal */
    uint64_t work;     /* frame additions spent */
    const char *start; /* the start the best order came from: "identity", "single-optimum",
                          "coarse-dp" or "given-start" */
} kc_mapset_search_result;

/* The best order found by a deterministic local search (the same input,
 * seed and work give the same order): starts are the identity, every
 * communication's own optimal order (kc_reorder_optimal: seed 000 Fig. 3 /
 * Theorem 4), the exact DP over blocks of dimensions (consecutive in each of
 * those orders), and opts->start; the best is improved by swaps and block
 * moves priced by exact incremental contention (a move over positions lo..hi
 * re-adds hi - lo dimensions per communication), with kicks when it stalls,
 * until the work is spent or the lower bound is reached. Any n <= 64. Cost:
 * O(work x n) word operations plus the coarse DP (within a quarter of it);
 * memory O(m n) frames of 2 KiB. */
kc_status kc_mapset_search(const kc_lcc *comms, int m, kc_objective obj, const kc_mapset_search_opts *opts,
                           kc_mapset_search_result *out, const kc_progress *progress, kc_err *err);

/* A lower bound on the optimum that holds for every order: for max and
 * simultaneous the largest single-communication optimum (exact by
 * kc_reorder_optimal: removing communications cannot raise the optimum, and
 * the simultaneous step sum is at least each of its terms); for sum also the
 * number of (communication, dimension with traffic) pairs, each T >= 1.
 * O(m n^3). */
uint64_t kc_mapset_lower_bound(const kc_lcc *comms, int m, kc_objective obj);

/* ---- a proved lower bound beyond the DP ---------------------------------- */

#define KC_MAPSET_BOUND_STATES 20000000ULL /* prefix sets held at once by default (160 MB) */

typedef struct kc_mapset_bound_opts {
    uint64_t upper;      /* a value some order is known to reach (e.g. kc_mapset_search's): values
                            from it up are not tried; UINT64_MAX: none (default) */
    uint64_t max_states; /* prefix sets the threshold search may hold; 0: KC_MAPSET_BOUND_STATES */
    int reach_upper;     /* 1: when every value below upper is refuted (upper is then the optimum),
                            also search at upper itself for the optimal order of least total */
} kc_mapset_bound_opts;

void kc_mapset_bound_opts_default(kc_mapset_bound_opts *o);

typedef struct kc_mapset_bound_result {
    uint64_t lower;    /* every order has value >= lower */
    const char *from;  /* the argument that gave it: "single-optimum" (kc_mapset_lower_bound),
                          "traffic-dimensions" (sum: one unit per busy dimension), or
                          "threshold-search" (every value below it refuted, see below) */
    uint64_t refuted;  /* threshold-search: the largest value proved unreachable */
    int optimal;       /* 1: the search reached lower itself; best holds an order of that value,
                          of least total among all orders of that value (the DP's tie-break) */
    kc_mapset_result best;
    uint64_t states;   /* prefix sets reached, over every value tried */
} kc_mapset_bound_result;

/* The best lower bound kcube proves without the 2^n table (objectives max
 * and simultaneous; sum keeps kc_mapset_lower_bound). Start from the
 * single-communication bound L. Threshold search for a value v: the cost of
 * placing j right after the prefix set S depends only on (S, j) (seed 000
 * Theorem 1), so an order of value <= v exists iff the full set is reachable
 * from the empty set by additions each costing <= v; the sets reachable so
 * are enumerated by size, sorted and deduplicated. If none reaches the full
 * set, no order has value <= v and the bound rises to the next value the
 * objective can take (2v for max, whose values are powers of two; v + 1 for
 * simultaneous), or to the least step refused from a reached set if larger
 * (an order below it would have to leave the reached sets by a cheaper
 * step). Values are tried upwards from L and below opts->upper. The first
 * value reached is the optimum, with its order of least total (optimal = 1:
 * the DP's tie-break pass run over the reached sets only, which hold every
 * prefix of every optimal order). It stops without a conclusion when the
 * sets held pass opts->max_states. Cost: O(R m n^2) word operations for R
 * sets reached (R ~ 10^3 to refute 2 and ~10^5 to reach 4 for seed 000's
 * four patterns at n = 64; up to the budget when low steps leave most
 * prefix sets open, e.g. random sets), 16 bytes per set. */
kc_status kc_mapset_bound(const kc_lcc *comms, int m, kc_objective obj, const kc_mapset_bound_opts *opts,
                          kc_mapset_bound_result *out, kc_err *err);

/* Every one of the n! orders (n <= KC_EXHAUSTIVE_MAX_N); the reference for
 * tests. Lexicographically least (value, total). */
kc_status kc_mapset_exhaustive(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out, kc_err *err);

#endif
