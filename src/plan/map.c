/* kc_map: the best processor mapping of the kinds that apply (kcube/plan.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/contention.h"
#include "kcube/plan.h"
#include "kcube/reorder.h"
#include "plan_internal.h"

#define VERIFY_AUTO_BITS 20 /* re-count mapped traffic by default up to N = 2^20 */

static const kc_name kind_entries[] = {
    {KC_MAP_AUTO, "auto", "every kind that applies; the best wins, ties go to reorder"},
    {KC_MAP_REORDER, "reorder", "a permutation of dimensions: neighbours stay neighbours"},
    {KC_MAP_LINEAR, "linear", "any nonsingular Q over GF(k) (seed 002 Theorems 3 and 4)"},
    {KC_MAP_GENERAL, "general", "any node permutation, by exact local search from the best start (kcube/gmap.h)"},
    {0, NULL, NULL},
};
const kc_names kc_map_kind_names = {"mapping kind", kind_entries};

kc_status kci_plan_check(const kc_topology *t, const kc_comm *comms, int count, const char *feature, kc_err *err)
{
    kc_status s = kc_topology_validate(t, err);
    if (!s)
        s = kc_topology_need_gf(t, feature, err);
    for (int r = 0; r < count && !s; r++)
        if (comms[r].k != t->k || comms[r].n != t->n)
            s = kc_fail_param(err, KC_EINVAL, "n",
                              "communication %s is for k = %d, n = %d, the topology has k = %d, n = %d",
                              comms[r].name, comms[r].k, comms[r].n, t->k, t->n);
    return s;
}

int kci_plan_bits(const kc_topology *t)
{
    int m = 0;
    while ((1 << m) < t->k)
        m++;
    return m * t->n;
}

void kc_map_opts_default(kc_map_opts *o)
{
    memset(o, 0, sizeof *o);
    o->objective = KC_OBJ_MAX;
    o->kind = KC_MAP_AUTO;
    o->search = KC_SEARCH_DEFAULT;
    o->seed = 1;
    o->exact = KC_EXACT_AUTO;
    o->dp = KC_DP_AUTO;
}

uint64_t kc_map_budget(const kc_map_opts *o, int n, int m)
{
    if (o->budget)
        return o->budget;
    uint64_t n2 = (uint64_t)n * (uint64_t)n, work = n2 * n2 * (uint64_t)(m > 0 ? m : 1);
    uint64_t b = KC_PLAN_BUDGET_WORK / work;
    if (b > KC_PLAN_BUDGET)
        b = KC_PLAN_BUDGET;
    return b < KC_PLAN_BUDGET_MIN ? KC_PLAN_BUDGET_MIN : b;
}

/* ---- the planner ---------------------------------------------------------- */

typedef struct planner {
    const kc_topology *topo;
    kc_map_opts o;
    int binary;          /* the GF(2) engine prices reorderings */
    int have_torus;      /* the GF(k) engine applies (n log2 k <= 63) */
    kc_torus tor;
    kc_gf f;
    int n, m;            /* m linear communications */
    kc_lcc *lccs;        /* binary only */
    kc_tcomm *tcs;
} planner;

typedef struct cand {
    kc_map_candidate info;
    kc_tmap map;
} cand;

static int better(uint64_t v1, uint64_t t1, uint64_t v2, uint64_t t2) { return v1 < v2 || (v1 == v2 && t1 < t2); }

/* Objective value of per-dimension loads: fold one communication in with add(). */
typedef struct objsum {
    uint64_t max, total, dims[KC_PLAN_MAX_N];
} objsum;

static void add(objsum *a, const uint64_t *per_dim, int n)
{
    for (int i = 0; i < n; i++) {
        a->max = per_dim[i] > a->max ? per_dim[i] : a->max;
        a->total += per_dim[i];
        a->dims[i] += per_dim[i];
    }
}

static uint64_t objective_value(const objsum *a, kc_objective obj, int n)
{
    if (obj == KC_OBJ_SUM)
        return a->total;
    if (obj == KC_OBJ_MAX)
        return a->max;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = a->dims[i] > v ? a->dims[i] : v;
    return v;
}

/* (value, total) of a mapping by the closed forms (exact in every case). */
static kc_status evaluate(const planner *p, const kc_tmap *map, uint64_t *value, uint64_t *total, kc_err *err)
{
    objsum acc;
    memset(&acc, 0, sizeof acc);
    for (int r = 0; r < p->m; r++) {
        if (p->binary && map->kind == KC_TMAP_REORDER) {
            kc_lcc after;
            kc_contention ct;
            kc_lcc_reorder(&after, &p->lccs[r], map->order);
            kc_contention_formula(&after, &ct);
            add(&acc, ct.per_dim, p->n);
            continue;
        }
        kc_tcomm mc;
        kc_tcontention ct;
        kc_status s = kc_tmap_apply(map, &p->tcs[r], &mc, err);
        if (s)
            return s;
        kc_tcontention_formula(&p->tor, &mc, &ct);
        add(&acc, ct.per_dim, p->n);
    }
    *value = objective_value(&acc, p->o.objective, p->n);
    *total = acc.total;
    return KC_OK;
}

/* A mapping from a dimension order (n may be 64 on the hypercube, beyond the
 * GF(k) engine: then Q is still filled, over GF(2)). */
static void map_from_order(const planner *p, const int *order, kc_tmap *out)
{
    kc_tmap_identity(out, &p->f, p->n);
    kc_gfmat_from_order(&out->q, order, p->n);
    kc_gfmat_zero(&out->qinv, p->n); /* the inverse of a permutation matrix is its transpose */
    for (int t = 0; t < p->n; t++) {
        out->order[t] = order[t];
        out->qinv.e[order[t]][t] = 1;
    }
}

static kc_status set_cand(const planner *p, cand *c, kc_map_kind kind, const char *method, kc_err *err)
{
    c->info.kind = kind;
    c->info.method = method;
    return evaluate(p, &c->map, &c->info.value, &c->info.total, err);
}

/* Whether map is the identity (Q = I). */
static int is_identity(const kc_tmap *map, int n)
{
    int order[KC_PLAN_MAX_N];
    if (!kc_gfmat_to_order(&map->q, order))
        return 0;
    for (int i = 0; i < n; i++)
        if (order[i] != i)
            return 0;
    return 1;
}

/* Keep the identity when it is at least as good (a guard: the exact
 * methods never lose to it; on a tie a shuffle of the nodes that improves
 * nothing is no answer). */
static kc_status not_worse_than_identity(const planner *p, cand *c, kc_err *err)
{
    if (is_identity(&c->map, p->n))
        return KC_OK;
    cand id;
    memset(&id, 0, sizeof id);
    kc_tmap_identity(&id.map, &p->f, p->n);
    kc_status s = set_cand(p, &id, c->info.kind, "identity", err);
    if (!s && !better(c->info.value, c->info.total, id.info.value, id.info.total))
        *c = id;
    return s;
}

static kc_status run_search(const planner *p, const kc_tmap *start, int reorder_only, cand *c, kc_err *err)
{
    kc_tsearch_opts so = {p->o.seed, kc_map_budget(&p->o, p->n, p->m), reorder_only};
    kc_tsearch_stats st;
    kc_tmap found;
    kc_status s = kc_tmap_search_objective(&p->tor, p->tcs, p->m, p->o.objective, start, &so, &found, &st,
                                           p->o.progress, err);
    if (s)
        return s;
    c->info.evaluations = st.evals;
    c->info.exhaustive = st.exhaustive;
    if (better(st.value, st.total, st.start_value, st.start_total)) {
        c->map = found;
        c->map.kind = kc_gfmat_to_order(&found.q, c->map.order) ? KC_TMAP_REORDER : KC_TMAP_LINEAR;
        c->info.method = "search";
    }
    return KC_OK;
}

/* A search over dimension orders from the identity (beyond the exact methods). */
static kc_status reorder_search(const planner *p, cand *c, const char **method, kc_err *err)
{
    kc_tmap id;
    kc_tmap_identity(&id, &p->f, p->n);
    c->map = id;
    *method = "reorder-search";
    return run_search(p, &id, 1, c, err);
}

/* A start from a smaller cube: when every communication is a
 * built-in pattern (its name rebuilds it exactly at n), the exact DP at n' =
 * KC_PLAN_SEED_N (one more for odd n), stretched: dimension d of the small
 * order becomes round(d (n-1) / (n'-1)), and each dimension not hit follows
 * the hit one nearest to it. 1 when out[] was filled. */
#define KC_PLAN_SEED_N 16
static int extended_start(const planner *p, int *out)
{
    int n = p->n, ns = KC_PLAN_SEED_N + (n & 1);
    if (n <= ns + 1 || p->m > KC_MAPSET_SEARCH_STARTS)
        return 0;
    kc_lcc small[KC_MAPSET_SEARCH_STARTS];
    for (int r = 0; r < p->m; r++) {
        kc_lcc big;
        const kc_lcc *c = &p->lccs[r];
        if (kc_lcc_named(&big, c->name, n, NULL) != KC_OK || big.b != c->b || big.kind != c->kind ||
            memcmp(big.a.row, c->a.row, sizeof(uint64_t) * (size_t)n) != 0 ||
            kc_lcc_named(&small[r], c->name, ns, NULL) != KC_OK || small[r].kind != c->kind)
            return 0;
    }
    kc_mapset_result res;
    if (kc_mapset_optimal(small, p->m, p->o.objective, &res, NULL, NULL) != KC_OK)
        return 0;
    int hit[KC_PLAN_MAX_N], owner[KC_PLAN_MAX_N], k = 0;
    for (int d = 0; d < n; d++)
        hit[d] = -1;
    for (int d = 0; d < ns; d++)
        hit[(int)((double)d * (n - 1) / (ns - 1) + 0.5)] = d;
    for (int e = 0; e < n; e++) { /* the nearest hit dimension (lower on ties) */
        int best = -1;
        for (int h = 0; h < n; h++)
            if (hit[h] >= 0 && (best < 0 || abs(h - e) < abs(best - e)))
                best = h;
        owner[e] = best;
    }
    for (int t = 0; t < ns; t++) {
        int h = (int)((double)res.order.dim[t] * (n - 1) / (ns - 1) + 0.5);
        out[k++] = h;
        for (int e = 0; e < n; e++)
            if (hit[e] < 0 && owner[e] == h)
                out[k++] = e;
    }
    return k == n && kc_order_valid(out, n);
}

/* The search over a binary set beyond KC_MAPSET_DIRECT_N, from the extended
 * start when there is one: its order becomes c's map ("reorder-search").
 * Writes the search's result to sr and its budget to work. */
static kc_status set_search(const planner *p, cand *c, const char **method, kc_mapset_search_result *sr,
                            uint64_t *work, kc_err *err)
{
    kc_status s;
    kc_mapset_search_opts so;
    kc_mapset_search_opts_default(&so);
    so.seed = p->o.seed;
    if (p->o.work)
        so.work = p->o.work;
    int ext[KC_PLAN_MAX_N];
    if (extended_start(p, ext))
        so.start = ext;
    if ((s = kc_mapset_search(p->lccs, p->m, p->o.objective, &so, sr, NULL, err)))
        return s;
    map_from_order(p, sr->best.order.dim, &c->map);
    *method = "reorder-search";
    c->info.evaluations = sr->work;
    *work = so.work;
    return KC_OK;
}

/* The best bound below the search's value sr (within about a quarter of
 * the search's budget work): it may prove the value optimal, or reach a
 * better order itself ("threshold-search"). Sets c's lower bound and
 * proof; *reached says whether the bound reached an order. */
static kc_status set_bound(const planner *p, cand *c, const char **method, const kc_mapset_search_result *sr,
                           uint64_t work, int *reached, kc_err *err)
{
    kc_status s;
    kc_mapset_bound_opts bo;
    kc_mapset_bound_opts_default(&bo);
    bo.upper = sr->best.value;
    bo.max_states = work / (4 * (uint64_t)p->m) + 1; /* about a quarter of the search's time */
    bo.reach_upper = 1;      /* an optimal search value: the least-total order too */
    kc_mapset_bound_result br;
    if (sr->proved) { /* already at the single-communication bound (as before: no pass for the total) */
        memset(&br, 0, sizeof br);
        br.lower = sr->lower;
        br.from = "single-optimum";
    } else if ((s = kc_mapset_bound(p->lccs, p->m, p->o.objective, &bo, &br, err))) {
        return s;
    }
    c->info.lower = br.lower;
    c->info.lower_from = br.from;
    if (br.optimal) { /* reached: optimal, least total among optimal orders */
        map_from_order(p, br.best.order.dim, &c->map);
        *method = "threshold-search";
        c->info.optimal = 1;
        c->info.by_bound = 1; /* the proof: every value below refuted (or the single bound) */
    } else if (br.lower >= sr->best.value) {
        c->info.optimal = 1;
        c->info.by_bound = 1;
    }
    *reached = br.optimal;
    return KC_OK;
}

/* The exact subset DP pruned by the search's value upper, when its memory
 * estimate (written to out) fits: its order becomes c's map ("dp"). When
 * it does not fit, or passes the time limit, c stays as it is, unless the
 * DP was asked for (an error then). */
static kc_status set_dp(const planner *p, cand *c, const char **method, uint64_t upper, kc_map_result *out,
                        kc_err *err)
{
    int n = p->n;
    kc_mapset_opts mo;
    kc_mapset_opts_default(&mo);
    mo.upper = upper;
    mo.max_seconds = p->o.dp_max_seconds;
    if (n <= KC_MAPSET_MAX_N) /* beyond, 2^n bytes is not even a 64-bit number */
        kc_mapset_estimate(n, p->m, p->o.objective, mo.upper, mo.threads, &out->dp_bytes, &out->dp_seconds);
    if (n > KC_MAPSET_MAX_N || (p->o.dp_max_bytes && out->dp_bytes > p->o.dp_max_bytes)) {
        if (p->o.dp != 1)
            return KC_OK;
        if (n > KC_MAPSET_MAX_N)
            return kc_fail_param(err, KC_ERANGE, "n", "the exact subset programme supports n <= %d, got n = %d",
                                 KC_MAPSET_MAX_N, n);
        return kc_fail_param(err, KC_ERANGE, "max-memory",
                             "the exact subset programme for n = %d needs %.0f MiB, more than the %.0f MiB allowed", n,
                             ceil((double)out->dp_bytes / 1048576.0), floor((double)p->o.dp_max_bytes / 1048576.0));
    }
    kc_mapset_result res;
    kc_err quiet = {0};
    kc_status s = kc_mapset_optimal_ex(p->lccs, p->m, p->o.objective, &mo, &res, p->o.progress, &quiet);
    if (s == KC_ERANGE && p->o.dp != 1)
        return KC_OK; /* passed the time limit: the search's order stays, not proved */
    if (s) {
        if (err)
            *err = quiet;
        return s;
    }
    map_from_order(p, res.order.dim, &c->map);
    *method = "dp";
    c->info.optimal = 1;
    c->info.by_bound = 0;
    return KC_OK;
}

/* A binary set beyond KC_MAPSET_DIRECT_N: the search, then the exact DP
 * pruned by the search's value when it fits. The result says
 * which ran and whether the value is proved optimal. */
static kc_status reorder_set(const planner *p, cand *c, const char **method, kc_map_result *out, kc_err *err)
{
    kc_mapset_search_result sr;
    uint64_t work;
    int reached;
    kc_status s = set_search(p, c, method, &sr, &work, err);
    if (!s)
        s = set_bound(p, c, method, &sr, work, &reached, err);
    if (s)
        return s;
    /* The DP still runs when nothing is proved, when asked for, or to
     * minimise the total of a value the bound proved but whose least-total
     * order passed the threshold search's budget (when it fits). */
    int total_open = c->info.by_bound && !reached && !sr.proved;
    if ((c->info.optimal && !total_open && p->o.dp != 1) || p->o.dp == 0)
        return KC_OK;
    return set_dp(p, c, method, sr.best.value, out, err);
}

/* The exact subset DP of a binary set up to KC_MAPSET_DIRECT_N, pruned
 * from n = 12 by the value of a short search (2^n / 4 frame additions);
 * the DP's result does not depend on it. Its order becomes c's map. */
static kc_status direct_dp(const planner *p, cand *c, const char **method, kc_err *err)
{
    kc_status s;
    int n = p->n;
    kc_mapset_opts mo;
    kc_mapset_opts_default(&mo);
    if (n >= 12) {
        kc_mapset_search_opts so;
        kc_mapset_search_opts_default(&so);
        so.seed = p->o.seed;
        so.work = 1ULL << (n - 2);
        kc_mapset_search_result sr;
        if ((s = kc_mapset_search(p->lccs, p->m, p->o.objective, &so, &sr, NULL, err)))
            return s;
        mo.upper = sr.best.value;
    }
    kc_mapset_result res;
    if ((s = kc_mapset_optimal_ex(p->lccs, p->m, p->o.objective, &mo, &res, p->o.progress, err)))
        return s;
    map_from_order(p, res.order.dim, &c->map);
    *method = "dp";
    c->info.optimal = 1;
    return KC_OK;
}

/* The best reordering of a binary set: the single-communication optimiser,
 * the direct DP, or the search and bound (reorder_set). Sets c's map,
 * method and what is proved. */
static kc_status binary_reorder(const planner *p, cand *c, const char **method, kc_map_result *out, kc_err *err)
{
    kc_status s;
    int single_perm = p->m == 1 && p->lccs[0].kind == KC_LCC_PERMUTATION;
    c->info.lower = kc_mapset_lower_bound(p->lccs, p->m, p->o.objective);
    c->info.lower_from = "single-optimum";
    if (single_perm || (p->m == 1 && p->o.objective != KC_OBJ_SUM && p->n > KC_MAPSET_AUTO_N)) {
        kc_order o;
        if ((s = kc_reorder_optimal(&p->lccs[0], &o, err)))
            return s;
        map_from_order(p, o.dim, &c->map);
        *method = "optimizer";
        c->info.optimal = 1;
        return KC_OK;
    }
    if (p->n <= KC_MAPSET_DIRECT_N && p->o.dp != 0)
        return direct_dp(p, c, method, err);
    return reorder_set(p, c, method, out, err);
}

/* The best reordering: exact where the engines have an exact method. */
static kc_status reorder_candidate(const planner *p, int search, cand *c, int *ok, kc_map_result *out, kc_err *err)
{
    kc_status s = KC_OK;
    *ok = 0;
    memset(c, 0, sizeof *c);
    const char *method;
    if (p->binary) {
        if ((s = binary_reorder(p, c, &method, out, err)))
            return s;
    } else if (p->n <= KC_TMAP_REORDER_MAX_N) {
        if ((s = kc_tmap_reorder_objective(&p->tor, p->tcs, p->m, p->o.objective, &c->map, NULL, NULL, NULL,
                                           p->o.progress, err)))
            return s;
        method = "dp-gfk";
        c->info.optimal = 1;
    } else if ((s = reorder_search(p, c, &method, err))) {
        return s;
    }
    c->map.kind = KC_TMAP_REORDER;
    uint64_t ev = c->info.evaluations, lower = c->info.lower;
    int ex = c->info.exhaustive, opt = c->info.optimal, by_bound = c->info.by_bound;
    const char *lower_from = c->info.lower_from;
    if ((s = set_cand(p, c, KC_MAP_REORDER, method, err)))
        return s;
    c->info.evaluations = ev;
    c->info.exhaustive = ex;
    c->info.optimal = opt || (lower && c->info.value <= lower);
    c->info.by_bound = by_bound || (!opt && c->info.optimal);
    c->info.lower = lower;
    c->info.lower_from = lower_from;
    if (search && strcmp(method, "optimizer") == 0 && p->lccs[0].kind != KC_LCC_PERMUTATION && p->have_torus) {
        /* A gather or scatter beyond the DP: the optimiser's maximum is
         * optimal but its total is not minimised; a search may lower it. */
        kc_tmap start = c->map;
        if ((s = run_search(p, &start, 1, c, err)))
            return s;
        c->map.kind = KC_TMAP_REORDER;
        if ((s = set_cand(p, c, KC_MAP_REORDER, c->info.method, err)))
            return s;
        c->info.optimal = opt;
        c->info.by_bound = by_bound;
        c->info.lower = lower;
        c->info.lower_from = lower_from;
    }
    if ((s = not_worse_than_identity(p, c, err)))
        return s;
    if (strcmp(c->info.method, "identity") == 0) {
        c->info.optimal = opt || (lower && c->info.value <= lower);
        c->info.by_bound = by_bound || (!opt && c->info.optimal);
        c->info.lower = lower;
        c->info.lower_from = lower_from;
    }
    *ok = 1;
    return KC_OK;
}

/* The linear kind: seed 002 Theorems 3/4 (attempted beyond k-1
 * communications), then the search from the best starting point. */
static kc_status linear_candidate(const planner *p, int search, const cand *reorder, int have_reorder, cand *c,
                                  int *ok, kc_err *err)
{
    *ok = 0;
    memset(c, 0, sizeof *c);
    if (!p->have_torus)
        return KC_OK;
    kc_err quiet = {0};
    kc_status s = kc_tmap_linear(p->tcs, p->m, 1, &c->map, &quiet);
    if (s == KC_ENOMEM || s == KC_EINTERNAL) {
        if (err)
            *err = quiet;
        return s;
    }
    if (s == KC_OK) {
        const char *method = p->m == 1 ? "theorem3" : p->m <= p->tor.k - 1 ? "theorem4" : "theorem4-beyond-limit";
        if ((s = set_cand(p, c, KC_MAP_LINEAR, method, err)))
            return s;
    } else {
        /* No construction (e.g. scatters with gathers): start from the identity. */
        kc_tmap_identity(&c->map, &p->f, p->n);
        if ((s = set_cand(p, c, KC_MAP_LINEAR, "identity", err)))
            return s;
    }
    if ((s = not_worse_than_identity(p, c, err)))
        return s;
    c->info.kind = KC_MAP_LINEAR;
    if (search) {
        /* Start from the better of the construction and the best
         * reordering, so the linear kind is never worse than reorder. */
        kc_tmap start = c->map;
        const char *start_method = c->info.method;
        if (have_reorder && better(reorder->info.value, reorder->info.total, c->info.value, c->info.total)) {
            start = reorder->map;
            start_method = reorder->info.method;
            c->info.value = reorder->info.value;
            c->info.total = reorder->info.total;
        }
        c->map = start;
        c->info.method = start_method;
        if ((s = run_search(p, &start, 0, c, err)))
            return s;
        c->info.method = "search";
        uint64_t ev = c->info.evaluations;
        int ex = c->info.exhaustive;
        if ((s = set_cand(p, c, KC_MAP_LINEAR, c->info.method, err)))
            return s;
        c->info.evaluations = ev;
        c->info.exhaustive = ex;
    }
    /* Any mapping leaves a communication with traffic some channel with a
     * message: T >= 1 somewhere (for sum: on at least one dimension each). */
    uint64_t busy = 0;
    for (int r = 0; r < p->m; r++)
        busy += p->binary && kc_lcc_idle_dims(&p->lccs[r]) != kc_mask(p->n);
    c->info.lower = p->o.objective == KC_OBJ_SUM ? busy : busy > 0;
    c->info.lower_from = c->info.lower ? "traffic" : NULL;
    c->info.optimal = c->info.exhaustive || (c->info.lower && c->info.value <= c->info.lower);
    c->info.by_bound = !c->info.exhaustive && c->info.optimal;
    *ok = 1;
    return KC_OK;
}

/* ---- the result ----------------------------------------------------------- */

/* Re-counts the mapped communication out->after exactly and checks it
 * against the closed form already in out->per_dim_after: KC_EINTERNAL when
 * they differ, else out->exact set. */
static kc_status check_exact(const planner *p, const kc_comm *in, kc_map_comm *out, kc_err *err)
{
    kc_status s;
    uint64_t ex[KC_PLAN_MAX_N];
    if (p->binary) {
        kc_contention x;
        if ((s = kc_contention_exact(&out->after.lcc, &x, NULL, err)))
            return s;
        memcpy(ex, x.per_dim, sizeof ex);
    } else {
        kc_tcontention x;
        if ((s = kc_tcontention_exact(&p->tor, &out->after.t, NULL, &x, NULL, err)))
            return s;
        memcpy(ex, x.per_dim, sizeof ex);
    }
    if (memcmp(ex, out->per_dim_after, (size_t)p->n * sizeof ex[0]) != 0)
        return kc_fail(err, KC_EINTERNAL, "the exact count of the mapped %s differs from the closed form", in->name);
    out->exact = 1;
    return KC_OK;
}

/* Before / after of a communication with no closed form: its messages
 * (drawn from the plan's seed, the same draw before and after) counted on
 * the torus. Needs 2 nodes words; O(nodes n). */
static kc_status fill_counted(const planner *p, const kc_comm *in, const kc_tmap *map, kc_map_comm *out,
                              kc_err *err)
{
    kc_status s;
    uint64_t nodes = p->topo->nodes;
    uint32_t *src = malloc(nodes * sizeof *src), *dst = malloc(nodes * sizeof *dst);
    kc_tcontention cb, ca;
    kc_rng rng;
    kc_rng_seed(&rng, p->o.seed);
    s = !src || !dst ? kc_fail(err, KC_ENOMEM, "out of memory for %llu messages", (unsigned long long)nodes)
                     : kc_tcomm_endpoints(&in->t, src, dst, &rng, err);
    if (!s)
        s = kc_tcontention_pairs(&p->tor, src, dst, nodes, &cb, err);
    kc_rng_seed(&rng, p->o.seed);
    if (!s)
        s = kc_tmap_endpoints(map, &in->t, src, dst, &rng, err);
    if (!s)
        s = kc_tcontention_pairs(&p->tor, src, dst, nodes, &ca, err);
    free(src);
    free(dst);
    if (s)
        return s;
    memcpy(out->per_dim_before, cb.per_dim, sizeof out->per_dim_before);
    memcpy(out->per_dim_after, ca.per_dim, sizeof out->per_dim_after);
    out->value_before = cb.max;
    out->value_after = ca.max;
    out->exact = 1;
    return KC_OK;
}

/* Before / after of one communication; the after values are re-counted
 * exactly when asked and must equal the closed form. */
static kc_status fill_comm(const planner *p, const kc_comm *in, const kc_tmap *map, int exact, kc_map_comm *out,
                           kc_err *err)
{
    const kc_topology *t = p->topo;
    kc_status s;
    out->before = *in;
    out->known = 1;
    if (!in->linear) {
        out->after = *in;
        out->known = exact;
        return exact ? fill_counted(p, in, map, out, err) : KC_OK;
    }
    if (p->binary && map->kind == KC_TMAP_REORDER) {
        kc_lcc after;
        kc_contention cb, ca;
        kc_lcc_reorder(&after, &in->lcc, map->order);
        if ((s = kc_comm_from_lcc(&out->after, t, &after, err)))
            return s;
        kc_contention_formula(&in->lcc, &cb);
        kc_contention_formula(&after, &ca);
        memcpy(out->per_dim_before, cb.per_dim, sizeof out->per_dim_before);
        memcpy(out->per_dim_after, ca.per_dim, sizeof out->per_dim_after);
    } else {
        kc_tcomm after;
        kc_tcontention cb, ca;
        if ((s = kc_tmap_apply(map, &in->t, &after, err)) || (s = kc_comm_from_tcomm(&out->after, t, &after, err)))
            return s;
        kc_tcontention_formula(&p->tor, &in->t, &cb);
        kc_tcontention_formula(&p->tor, &after, &ca);
        memcpy(out->per_dim_before, cb.per_dim, sizeof out->per_dim_before);
        memcpy(out->per_dim_after, ca.per_dim, sizeof out->per_dim_after);
    }
    snprintf(out->after.name, sizeof out->after.name, "%s", in->name);
    for (int i = 0; i < p->n; i++) {
        out->value_before = out->per_dim_before[i] > out->value_before ? out->per_dim_before[i] : out->value_before;
        out->value_after = out->per_dim_after[i] > out->value_after ? out->per_dim_after[i] : out->value_after;
    }
    return exact ? check_exact(p, in, out, err) : KC_OK;
}

static kc_status fill_result(const planner *p, const kc_comm *comms, int count, const cand *best, int exact,
                             kc_map_result *out, kc_err *err)
{
    out->kind = best->info.kind;
    out->method = best->info.method;
    out->value = best->info.value;
    out->total = best->info.total;
    out->exact = best->info.optimal || best->info.exhaustive;
    out->lower_bound = best->info.lower;
    out->lower_bound_from = best->info.lower ? best->info.lower_from : NULL;
    out->exact_by_bound = out->exact && best->info.by_bound && !best->info.exhaustive;
    out->map = best->map;
    out->is_order = kc_gfmat_to_order(&out->map.q, out->order);
    out->map.kind = out->is_order ? KC_TMAP_REORDER : KC_TMAP_LINEAR;
    if (out->is_order)
        memcpy(out->map.order, out->order, sizeof out->map.order);
    kc_status s;
    if (kci_plan_bits(p->topo) <= KC_PLAN_NODEMAP_MAX_BITS && (s = kc_tmap_nodemap(&out->map, &out->nodes, err)))
        return s;
    out->comms = calloc((size_t)count, sizeof *out->comms);
    if (!out->comms)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    out->count = count;
    objsum acc;
    memset(&acc, 0, sizeof acc);
    for (int r = 0; r < count; r++) {
        if ((s = fill_comm(p, &comms[r], &out->map, exact, &out->comms[r], err)))
            return s;
        if (comms[r].linear)
            add(&acc, out->comms[r].per_dim_after, p->n);
    }
    if (objective_value(&acc, p->o.objective, p->n) != out->value || acc.total != out->total)
        return kc_fail(err, KC_EINTERNAL, "the chosen mapping's value %llu/%llu does not match its communications",
                       (unsigned long long)out->value, (unsigned long long)out->total);
    return KC_OK;
}

/* A mapping the caller chose (e.g. a paper's Q), only evaluated. */
static kc_status given_candidate(const planner *p, cand *c, kc_err *err)
{
    memset(c, 0, sizeof *c);
    if (!p->have_torus)
        return kc_fail_param(err, KC_ERANGE, "mapping_matrix", "a given mapping needs n log2 k <= %d",
                             KC_TORUS_MAX_BITS);
    if (p->o.given->n != p->n)
        return kc_fail_param(err, KC_EINVAL, "mapping_matrix", "the mapping matrix is %d x %d, expected n = %d",
                             p->o.given->n, p->o.given->n, p->n);
    kc_status s = kc_tmap_from_matrix(&c->map, &p->f, p->o.given, err);
    if (s) {
        if (err)
            err->param = "mapping_matrix";
        return s;
    }
    int order[KC_PLAN_MAX_N];
    c->map.kind = kc_gfmat_to_order(&c->map.q, order) ? KC_TMAP_REORDER : KC_TMAP_LINEAR;
    if (c->map.kind == KC_TMAP_REORDER)
        memcpy(c->map.order, order, sizeof c->map.order);
    return set_cand(p, c, c->map.kind == KC_TMAP_REORDER ? KC_MAP_REORDER : KC_MAP_LINEAR, "given", err);
}

static kc_status setup(planner *p, const kc_topology *t, const kc_comm *comms, int count, kc_err *err)
{
    kc_status s = kci_plan_check(t, comms, count, "a processor mapping", err);
    if (s)
        return s;
    if (count < 1 || count > KC_PLAN_MAX_COMMS)
        return kc_fail_param(err, KC_ERANGE, "pattern", "a mapping is made for 1..%d communications, got %d",
                             KC_PLAN_MAX_COMMS, count);
    p->topo = t;
    p->n = t->n;
    p->binary = kc_topology_is_binary(t);
    p->have_torus = kc_topology_to_torus(t, &p->tor, "a processor mapping", NULL) == KC_OK;
    if ((s = kc_gf_init(&p->f, t->k, err)))
        return s;
    p->lccs = calloc((size_t)count, sizeof *p->lccs);
    p->tcs = calloc((size_t)count, sizeof *p->tcs);
    if (!p->lccs || !p->tcs)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (int r = 0; r < count; r++) {
        if (!comms[r].linear)
            continue;
        if (p->binary)
            p->lccs[p->m] = comms[r].lcc;
        p->tcs[p->m++] = comms[r].t;
    }
    if (!p->m)
        return kc_fail_param(err, KC_EINVAL, "pattern",
                             "a mapping needs at least one linear communication (uniform traffic alone has nothing to "
                             "map for)");
    if (!p->have_torus && !p->binary)
        return kc_fail_param(err, KC_ERANGE, "n", "the %d-ary %d-cube is too large for a mapping (n log2 k <= %d)",
                             t->k, t->n, KC_TORUS_MAX_BITS);
    for (int r = 0; r < count; r++)
        if (!comms[r].linear && (!p->have_torus || kci_plan_bits(t) > 32))
            return kc_fail_param(err, KC_ERANGE, "pattern", "uniform traffic is counted for N <= 2^32 nodes only");
    return KC_OK;
}

kc_status kc_map(const kc_topology *t, const kc_comm *comms, int count, const kc_map_opts *opts, kc_map_result *out,
                 kc_err *err)
{
    planner p;
    memset(&p, 0, sizeof p);
    memset(out, 0, sizeof *out);
    if (opts)
        p.o = *opts;
    else
        kc_map_opts_default(&p.o);
    out->objective = p.o.objective;
    out->n = t->n;
    out->k = t->k;
    kc_status s = setup(&p, t, comms, count, err);
    int bits = s ? 0 : kci_plan_bits(t);
    int exact = p.o.exact == KC_EXACT_AUTO ? bits <= VERIFY_AUTO_BITS : p.o.exact != 0;
    if (!s && exact && bits > (p.binary ? KC_EXACT_MAX_N : KC_PLAN_EXACT_MAX_BITS))
        s = kc_fail_param(err, KC_ERANGE, "exact", "exact counting supports N <= 2^%d nodes, this network has 2^%d",
                          p.binary ? KC_EXACT_MAX_N : KC_PLAN_EXACT_MAX_BITS, bits);
    if (!s && p.o.kind == KC_MAP_GENERAL)
        s = kc_fail_param(err, KC_EINVAL, "kind", "general mappings are searched by kc_gmap_run, not kc_map");
    if (!s && p.o.kind != KC_MAP_AUTO && p.o.kind != KC_MAP_REORDER && p.o.kind != KC_MAP_LINEAR)
        s = kc_fail_param(err, KC_EINVAL, "kind", "unknown mapping kind %d", (int)p.o.kind);
    if (!s && p.o.kind == KC_MAP_LINEAR && !p.have_torus)
        s = kc_fail_param(err, KC_ERANGE, "kind", "a linear mapping needs n log2 k <= %d", KC_TORUS_MAX_BITS);
    int search = p.o.search == KC_SEARCH_DEFAULT ? p.o.kind == KC_MAP_AUTO : p.o.search != 0;
    cand rc, lc;
    int have_r = 0, have_l = 0;
    if (!s && p.o.given) {
        s = given_candidate(&p, &rc, err);
        if (!s)
            out->candidates[out->ncandidates++] = rc.info;
        if (!s)
            s = fill_result(&p, comms, count, &rc, exact, out, err);
        free(p.lccs);
        free(p.tcs);
        return s;
    }
    if (!s && p.o.kind != KC_MAP_LINEAR) {
        s = reorder_candidate(&p, search, &rc, &have_r, out, err);
        if (!s && !have_r && p.o.kind == KC_MAP_REORDER)
            s = kc_fail_param(err, KC_ERANGE, "kind",
                              "no reordering method for several communications on the %d-cube (n <= %d)", p.n,
                              KC_MAPSET_AUTO_N);
    }
    if (!s && p.o.kind != KC_MAP_REORDER)
        s = linear_candidate(&p, search, &rc, have_r, &lc, &have_l, err);
    if (!s && have_r)
        out->candidates[out->ncandidates++] = rc.info;
    if (!s && have_l)
        out->candidates[out->ncandidates++] = lc.info;
    if (!s && !have_r && !have_l)
        s = kc_fail_param(err, KC_ERANGE, "kind", "no mapping method applies to this network");
    if (!s) {
        /* Ties go to the reordering: it keeps neighbours. */
        const cand *best = have_r && (!have_l || !better(lc.info.value, lc.info.total, rc.info.value, rc.info.total))
                               ? &rc
                               : &lc;
        s = fill_result(&p, comms, count, best, exact, out, err);
    }
    free(p.lccs);
    free(p.tcs);
    return s;
}

void kc_map_result_free(kc_map_result *r)
{
    kc_nodemap_free(&r->nodes);
    free(r->comms);
    r->comms = NULL;
    r->count = 0;
}

uint64_t kc_map_to_physical(const kc_map_result *r, uint64_t v)
{
    if (r->nodes.count)
        return r->nodes.to_physical[v];
    return r->is_order && r->k == 2 ? kc_vec_permute(v, r->order, r->n) : kc_tmap_to_physical(&r->map, v);
}

uint64_t kc_map_to_virtual(const kc_map_result *r, uint64_t p)
{
    if (r->nodes.count)
        return r->nodes.to_virtual[p];
    return r->is_order && r->k == 2 ? kc_vec_unpermute(p, r->order, r->n) : kc_tmap_to_virtual(&r->map, p);
}
