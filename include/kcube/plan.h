/* kcube/plan.h - the library's front door: analyse one communication, or
 * map a set of them, on any topology, with one result type each.
 *
 * kc_analyze: contention per dimension under dimension-ordered routing, by
 *   the closed form (seed 000 Theorem 1 and its scatter mirror on the binary
 *   hypercube; seed 002 Theorem 1, extended to exact values in every case,
 *   on k-ary n-cubes and meshes) and by an exact count of every message.
 *   Cost: formula O(n^3) (binary) or O(n^4) (GF(k)); exact count O(n N).
 *
 * kc_map: a processor mapping x' = Qx for a set of communications. Kinds:
 *   reorder  Q a permutation of dimensions: neighbours stay neighbours
 *            (seed 000 Fig. 3 / Theorem 4 for one communication, the exact
 *            subset DP of Section 5 for sets; the GF(k) subset DP for k > 2);
 *   linear   any nonsingular Q over GF(k), k = 2 included (seed 002
 *            Theorems 3 and 4, attempted beyond k - 1 communications, then
 *            a seeded local search bounded by an evaluation budget).
 *   With kind auto every kind that applies is tried; the best by (objective
 *   value, total) wins and ties go to reorder. Every kind tried is listed in
 *   `candidates`. The result is never worse than the identity mapping.
 *   Cost: reorder O(n^3) (one permutation), O(2^n m n) (binary DP, n <= 32 as
 *   memory and the time limits allow; a search first beyond n = 20 prunes it),
 *   O(2^n n^5 m) (GF(k) DP, n <= 14); linear construction O(m n^4); search
 *   budget x O(m n^4) (see docs/plan.md for measured times).
 *
 * kc_analyze needs a plain GF(k) network (kc_topology_need_gf); the
 *   general networks (mixed sides or wraps, endpoints, allocations) are
 *   analysed by kc_analyze_network (kcube/netload.h), which counts on the
 *   routers and checks the cube with 2^j endpoints per router against
 *   kc_analyze_split below.
 *
 * The binary hypercube (and a k = 2 torus) runs on the fast GF(2) engine
 * (kcube/contention.h, reorder.h, mapset.h); everything else on the GF(k)
 * engine (kcube/torus.h, torusmap.h). Library only: never prints. */
#ifndef KCUBE_PLAN_H
#define KCUBE_PLAN_H

#include <stdint.h>

#include "kcube/comm.h"
#include "kcube/error.h"
#include "kcube/mapset.h"
#include "kcube/names.h"
#include "kcube/nodemap.h"
#include "kcube/topology.h"
#include "kcube/tcontention.h"
#include "kcube/torusmap.h"

#define KC_PLAN_MAX_N 64
#define KC_PLAN_EXACT_AUTO_BITS 24  /* exact counts by default up to N = 2^24 */
#define KC_PLAN_EXACT_MAX_BITS 30   /* on request up to 2^30 (binary: 2^KC_EXACT_MAX_N = 2^32) */
#define KC_PLAN_NODEMAP_MAX_BITS 24 /* node arrays in the map result up to N = 2^24 */
#define KC_PLAN_MAX_COMMS 256

/* Exact counting: automatic (N <= 2^KC_PLAN_EXACT_AUTO_BITS), off, on. */
#define KC_EXACT_AUTO (-1)

/* ---- analyze ------------------------------------------------------------- */

typedef struct kc_analyze_opts {
    int exact;                  /* KC_EXACT_AUTO, 0 or 1 */
    uint64_t seed;              /* stream for uniform traffic (default 1) */
    const kc_progress *progress;/* NULL: no reports */
} kc_analyze_opts;

void kc_analyze_opts_default(kc_analyze_opts *o);

typedef struct kc_analysis {
    kc_topology topo;
    int n;
    int binary;                          /* 1: computed by the GF(2) engine */
    int linear;                          /* 0: uniform traffic, no formula */
    uint64_t formula[KC_PLAN_MAX_N];     /* T_i by the closed form (linear only) */
    int has_cases;                       /* GF(k) engine: tcase/exponent are filled */
    kc_tcase tcase[KC_PLAN_MAX_N];       /* seed 002 Theorem 1 case of dimension i */
    int exponent[KC_PLAN_MAX_N];         /* its exponent e (T_i is a multiple of k^e) */
    int exact;                           /* 1: exact_per_dim holds an exact count */
    uint64_t exact_per_dim[KC_PLAN_MAX_N];
    kc_link worst[KC_PLAN_MAX_N];        /* a link carrying T_i (valid when T_i > 0; from the exact
                                            count, or the formula's witness on the binary hypercube) */
    int has_worst;                       /* 0 when no link is known (GF(k) formula only) */
    uint64_t value;                      /* max_i T_i: exact when counted, else the formula */
    uint64_t value_formula;              /* max_i of the formula */
    int value_dim;                       /* lowest i with T_i = value, -1 without traffic */
    int agree;                           /* formula and exact count equal in every dimension
                                            (1 when only one of them was computed) */
    int general;                         /* 1: counted on the routers of a general network
                                            (kc_analyze_network); worst links are router channels */
    int has_formula;                     /* 1: formula holds a closed form (linear on plain networks, the
                                            split LCCs on a cube with 2^j endpoints per router) */
} kc_analysis;

/* opts may be NULL (defaults). Errors: KC_EINVAL/KC_ERANGE naming "k",
 * "shape", "n" or "exact"; KC_EINTERNAL if formula and count disagree. */
kc_status kc_analyze(const kc_topology *t, const kc_comm *c, const kc_analyze_opts *opts, kc_analysis *out,
                     kc_err *err);

/* The closed form of an LCC on 2^j endpoints per router of the m-cube of
 * routers (j = t's log2 C, no allocation; c has m + j digits): rank bits
 * 0..j-1 name the endpoint, so the LCC is 2^j LCCs on the m-cube with the
 * matrix A' of the router bits and the complements b' + A'' e (e the
 * endpoint). Each loads every used channel of dimension i with the same
 * seed 000 Theorem 1 value T'_i, and two of them load the same channels of
 * dimension i or disjoint ones (same or different cosets), so
 * T_i = T'_i x the largest number of complements sharing one coset.
 * per_dim gets m entries. KC_EINVAL when t or c is not this case. O(4^j m^3). */
kc_status kc_analyze_split(const kc_topology *t, const kc_comm *c, uint64_t *per_dim, kc_err *err);
/* j when t is a cube of routers with 2^j endpoints each and no allocation
 * (the case kc_analyze_split covers), else -1. O(n). */
int kc_analyze_split_bits(const kc_topology *t);

/* An empty result for c on t (topo, n, linear set; the rest 0), and
 * value, value_formula, value_dim and agree from the per-dimension arrays
 * (what kc_analyze does last; for analyses filled elsewhere). O(n). */
void kc_analysis_start(kc_analysis *a, const kc_topology *t, const kc_comm *c);
void kc_analysis_finish(kc_analysis *a);

/* ---- map ----------------------------------------------------------------- */

/* KC_MAP_GENERAL, any node permutation, is computed by kc_gmap_run
 * (kcube/gmap.h) from any traffic; kc_map refuses it. */
typedef enum kc_map_kind { KC_MAP_AUTO, KC_MAP_REORDER, KC_MAP_LINEAR, KC_MAP_GENERAL } kc_map_kind;

/* auto | reorder | linear | general (parse, print, help). */
extern const kc_names kc_map_kind_names;

/* Search: default (on, bounded, inside auto; off for reorder / linear), off, on. */
#define KC_SEARCH_DEFAULT (-1)

/* Default evaluation budget of the search: KC_PLAN_BUDGET evaluations,
 * lowered so that budget x n^4 x m stays under KC_PLAN_BUDGET_WORK (about
 * half a second on one core), never below KC_PLAN_BUDGET_MIN. */
#define KC_PLAN_BUDGET 2000
#define KC_PLAN_BUDGET_WORK 200000000ULL
#define KC_PLAN_BUDGET_MIN 50

typedef struct kc_map_opts {
    kc_objective objective;     /* default KC_OBJ_MAX */
    kc_map_kind kind;           /* default KC_MAP_AUTO */
    int search;                 /* KC_SEARCH_DEFAULT, 0 or 1 */
    uint64_t seed;              /* search and uniform traffic (default 1) */
    uint64_t budget;            /* search evaluations; 0: the default above */
    int exact;                  /* re-count every mapped communication exactly: KC_EXACT_AUTO, 0 or 1 */
    const kc_gfmat *given;      /* evaluate this Q (over GF(k)) instead of computing one: the result's
                                   kind is reorder when Q is a permutation matrix, its method "given";
                                   errors name "mapping_matrix". NULL: compute. */
    const kc_progress *progress;/* NULL: no reports */
    /* Binary reorderings of a set: beyond n = KC_MAPSET_DIRECT_N a seeded search runs
     * first (kc_mapset_search, `work` frame additions, 0: its default), then the threshold search
     * for a lower bound below its value (kc_mapset_bound, at most KC_MAPSET_BOUND_STATES sets),
     * then the exact subset DP, pruned by the search's value, when the bound did not already prove
     * the value optimal, the DP's memory fits dp_max_bytes and its work stays within dp_max_seconds
     * (0: no limit). dp: KC_DP_AUTO (default: the DP when needed and it fits, else the search's
     * order, said in the result), 1 (required, even when the bound proved the value: it also
     * minimises the total; KC_ERANGE naming "max-memory" or "max-time" when it does not fit) or 0
     * (never). */
    uint64_t work;
    int dp;
    double dp_max_seconds;
    uint64_t dp_max_bytes;
} kc_map_opts;

#define KC_DP_AUTO (-1)
#define KC_MAPSET_DIRECT_N 20 /* up to here the DP runs alone (a fraction of a second) */

void kc_map_opts_default(kc_map_opts *o);

/* Effective budget for (n, m) under opts (what kc_map will use). */
uint64_t kc_map_budget(const kc_map_opts *o, int n, int m);

#define KC_MAP_MAX_CANDIDATES 4

typedef struct kc_map_candidate {
    kc_map_kind kind;     /* reorder or linear */
    const char *method;   /* "optimizer", "dp", "dp-gfk", "reorder-search" (not proved optimal unless
                             value == lower), "threshold-search" (kc_mapset_bound reached the
                             optimum), "theorem3", "theorem4",
                             "theorem4-beyond-limit", "search", "identity", "given" */
    uint64_t value;       /* objective value */
    uint64_t total;       /* sum over communications and dimensions of T_i */
    uint64_t evaluations; /* search evaluations spent (0: no search) */
    int exhaustive;       /* 1: every mapping of the kind was tried (optimal within the kind) */
    int optimal;          /* 1: proved optimal within its kind (an exact method, or value == lower) */
    uint64_t lower;       /* a lower bound on the kind's optimum (0: none known) */
    const char *lower_from; /* the argument behind lower (kc_mapset_bound's names, or "traffic" for the
                               linear kind: T >= 1 somewhere); NULL when lower is 0 */
    int by_bound;         /* 1: optimal because value == lower, not by an exact method */
} kc_map_candidate;

typedef struct kc_map_comm {
    kc_comm before;                         /* as given (virtual) */
    kc_comm after;                          /* (Q A Q^-1, Q b): as the physical machine sees it */
    int known;                              /* 0: uniform traffic not counted (exact off) */
    uint64_t value_before, value_after;     /* max_i T_i */
    uint64_t per_dim_before[KC_PLAN_MAX_N];
    uint64_t per_dim_after[KC_PLAN_MAX_N];
    int exact;                              /* 1: the after values were re-counted exactly (and agree) */
} kc_map_comm;

typedef struct kc_map_result {
    kc_map_kind kind;          /* the chosen kind: KC_MAP_REORDER or KC_MAP_LINEAR */
    const char *method;        /* how it was found (candidate methods above) */
    kc_objective objective;
    uint64_t value, total;     /* of the chosen mapping (linear communications only) */
    int exact;                 /* 1: value is proved optimal for the chosen kind */
    uint64_t lower_bound;      /* the best lower bound kcube proves for the chosen kind (0: none) */
    const char *lower_bound_from; /* the argument behind it (kc_map_candidate lower_from) */
    int exact_by_bound;        /* 1: exact because value == lower_bound (no exact method ran) */
    uint64_t dp_bytes;         /* the subset DP's memory and worst-case time for the set (binary
                                  reorder beyond KC_MAPSET_DIRECT_N; 0 when not estimated) */
    double dp_seconds;
    int n, k;
    kc_tmap map;               /* Q, Q^-1 over GF(k) (GF(2) on the hypercube); map.kind ==
                                  KC_TMAP_REORDER when Q is a permutation matrix */
    int is_order;              /* 1: order[] is valid (Q is a permutation matrix) */
    int order[KC_PLAN_MAX_N];  /* R: new (physical) dimension t is old (virtual) dimension R[t] */
    kc_nodemap nodes;          /* to_physical[v] / to_virtual[p]; count 0 when N > 2^KC_PLAN_NODEMAP_MAX_BITS
                                  (use kc_map_to_physical / kc_map_to_virtual) */
    int count;                 /* communications, in the order given */
    kc_map_comm *comms;
    int ncandidates;
    kc_map_candidate candidates[KC_MAP_MAX_CANDIDATES];
} kc_map_result;

/* comms[0..count-1] share the topology. opts may be NULL (defaults).
 * out must be freed with kc_map_result_free (also after an error). */
kc_status kc_map(const kc_topology *t, const kc_comm *comms, int count, const kc_map_opts *opts, kc_map_result *out,
                 kc_err *err);
void kc_map_result_free(kc_map_result *r);

/* Virtual node -> physical node under the chosen mapping, and back (any N). */
uint64_t kc_map_to_physical(const kc_map_result *r, uint64_t v);
uint64_t kc_map_to_virtual(const kc_map_result *r, uint64_t p);

#endif
