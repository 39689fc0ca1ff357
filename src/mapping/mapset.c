/* One reordering for a set of LCCs: dynamic programming over subsets. */
#include "kcube/mapset.h"

#include <stdlib.h>
#include <string.h>

#include "elim.h"
#include "kcube/contention.h"

static const kc_name objective_entries[] = {
    {KC_OBJ_MAX, "max", "the largest contention of any one communication"},
    {KC_OBJ_SIMULTANEOUS, "simultaneous", "the largest, over dimensions, of the contention summed over communications"},
    {KC_OBJ_SUM, "sum", "the sum over communications and dimensions"},
    {0, NULL, NULL},
};
const kc_names kc_objective_names = {"objective", objective_entries};

const char *kc_objective_name(kc_objective obj) { return kc_names_name(&kc_objective_names, (int)obj); }

kc_status kc_objective_parse(const char *text, kc_objective *obj, kc_err *err)
{
    int v;
    if (kc_names_parse(&kc_objective_names, text, &v))
        return kc_fail_param(err, KC_EINVAL, "objective", "unknown objective '%s' (use max, simultaneous or sum)",
                             text);
    *obj = (kc_objective)v;
    return KC_OK;
}

/* Per-position costs are combined over communications (step) and over
 * positions (path) by max or +. */
static int step_is_max(kc_objective obj) { return obj == KC_OBJ_MAX; }
static int path_is_max(kc_objective obj) { return obj != KC_OBJ_SUM; }

uint64_t kc_objective_value(const kc_lcc *comms, int m, kc_objective obj, const kc_order *o, uint64_t *total)
{
    int n = o->n;
    uint64_t step[KC_BITMAT_MAX] = {0}, tot = 0;
    for (int r = 0; r < m; r++) {
        kc_lcc x;
        kc_contention t;
        kc_lcc_reorder(&x, &comms[r], o->dim);
        kc_contention_formula(&x, &t);
        for (int i = 0; i < n; i++) {
            step[i] = step_is_max(obj) ? (t.per_dim[i] > step[i] ? t.per_dim[i] : step[i]) : step[i] + t.per_dim[i];
            tot += t.per_dim[i];
        }
    }
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = path_is_max(obj) ? (step[i] > v ? step[i] : v) : v + step[i];
    if (total)
        *total = tot;
    return v;
}

static kc_status check_set(const kc_lcc *comms, int m, int max_n, kc_err *err)
{
    if (m < 1)
        return kc_fail(err, KC_EINVAL, "no communications given");
    int n = comms[0].a.n;
    for (int r = 1; r < m; r++)
        if (comms[r].a.n != n)
            return kc_fail(err, KC_EINVAL, "communication %d has n = %d, the first has n = %d", r, comms[r].a.n, n);
    if (n > max_n)
        return kc_fail(err, KC_ERANGE, "mapping a set of communications supports n <= %d, got n = %d", max_n, n);
    return KC_OK;
}

/* ---- the fast dynamic programme ----------------------------------------- */

typedef struct dp_comm {
    kc_elim_walk walk; /* over S for permutations/gathers, over the complement for scatters */
    int scatter;
    uint64_t idle;
} dp_comm;

/* Cost of every j outside S, for each communication: T = 0 for idle j, else
 * 2^(kernel dimension - [j lowers it]); see elim.h for the masks. */
typedef struct step_info {
    int kd;
    uint64_t minus;
    uint64_t idle;
} step_info;

typedef struct dp {
    int n, m;
    kc_objective obj;
    dp_comm *c;
    step_info *info; /* m entries, for the set being expanded */
    uint64_t weight; /* pass 2 prices T of communication r as T * (weight + r), or T when 0 */
    uint64_t *f;
    uint8_t *pred;
} dp;

static void describe(dp *d, uint64_t S, step_info *info)
{
    uint64_t full = kc_mask(d->n);
    for (int r = 0; r < d->m; r++) {
        dp_comm *c = &d->c[r];
        if (!c->scatter) {
            const kc_elim *e = kc_elim_walk_goto(&c->walk, S);
            info[r].kd = __builtin_popcountll(S) - e->npiv;
            info[r].minus = e->grow;
        } else {
            /* Placing j after S leaves U = complement(S) behind it:
             * T = 2^((n-1-|S|) - rank A[U, U-j]) = 2^(kd(U) - [j dependent]). */
            uint64_t U = full & ~S;
            const kc_elim *e = kc_elim_walk_goto(&c->walk, U);
            info[r].kd = __builtin_popcountll(U) - e->npiv;
            info[r].minus = e->dep;
        }
        info[r].idle = c->idle;
    }
}

static inline uint64_t step_cost(const dp *d, const step_info *info, int j, uint64_t *sum_out)
{
    uint64_t step = 0, sum = 0, wsum = 0;
    for (int r = 0; r < d->m; r++) {
        if ((info[r].idle >> j) & 1)
            continue;
        uint64_t t = 1ULL << (info[r].kd - (int)((info[r].minus >> j) & 1));
        sum += t;
        wsum += t * (d->weight + (uint64_t)r);
        if (t > step)
            step = t;
    }
    *sum_out = d->weight ? wsum : sum;
    return d->obj == KC_OBJ_MAX ? step : sum;
}

/* One pass in increasing numeric order of S (every S - j precedes S).
 * Pass 1 minimises the objective; pass 2 (cap != UINT64_MAX) minimises the
 * total over paths whose every step stays within the cap. */
static void dp_pass(dp *d, uint64_t cap, const kc_progress *progress, double base)
{
    uint64_t count = 1ULL << d->n, full = count - 1;
    int second = cap != UINT64_MAX;
    step_info *info = d->info;
    for (uint64_t S = 0; S < count; S++)
        d->f[S] = UINT64_MAX;
    d->f[0] = 0;
    for (int r = 0; r < d->m; r++) {
        d->c[r].walk.depth = 0;
        kc_elim_reset(&d->c[r].walk.frame[0]);
    }
    for (uint64_t S = 0; S < full; S++) {
        uint64_t fs = d->f[S];
        if ((S & 0xffff) == 0)
            kc_progress_report(progress, base + (double)S, 2.0 * (double)count);
        if (fs == UINT64_MAX)
            continue;
        describe(d, S, info);
        for (uint64_t free_ = full & ~S; free_; free_ &= free_ - 1) {
            int j = __builtin_ctzll(free_);
            uint64_t sum, cost = step_cost(d, info, j, &sum), v;
            if (second) {
                if (cost > cap)
                    continue;
                v = fs + sum;
            } else {
                v = path_is_max(d->obj) ? (cost > fs ? cost : fs) : fs + cost;
            }
            uint64_t T = S | (1ULL << j);
            if (v < d->f[T]) {
                d->f[T] = v;
                d->pred[T] = (uint8_t)j;
            }
        }
    }
}

static void dp_order(const dp *d, kc_order *o)
{
    uint64_t S = kc_mask(d->n);
    o->n = d->n;
    for (int t = d->n - 1; t >= 0; t--) {
        int j = d->pred[S];
        o->dim[t] = j;
        S ^= 1ULL << j;
    }
}

kc_status kc_mapset_optimal(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out,
                            const kc_progress *progress, kc_err *err)
{
    kc_status st = check_set(comms, m, KC_MAPSET_MAX_N, err);
    if (st)
        return st;
    int n = comms[0].a.n;
    uint64_t count = 1ULL << n;
    dp d = {.n = n, .m = m, .obj = obj};
    d.c = malloc(sizeof *d.c * (size_t)m);
    d.info = malloc(sizeof *d.info * (size_t)m);
    d.f = malloc(count * sizeof *d.f);
    d.pred = malloc(count);
    if (!d.c || !d.info || !d.f || !d.pred) {
        free(d.c);
        free(d.info);
        free(d.f);
        free(d.pred);
        return kc_fail(err, KC_ENOMEM, "out of memory for the subset table (2^%d entries)", n);
    }
    for (int r = 0; r < m; r++) {
        uint64_t cols[KC_BITMAT_MAX];
        for (int j = 0; j < n; j++)
            cols[j] = kc_bitmat_col(&comms[r].a, j);
        kc_elim_walk_init(&d.c[r].walk, cols, n);
        d.c[r].scatter = comms[r].kind == KC_LCC_SCATTER;
        d.c[r].idle = kc_lcc_idle_dims(&comms[r]);
    }
    dp_pass(&d, UINT64_MAX, progress, 0.0);
    uint64_t value = d.f[count - 1];
    if (obj != KC_OBJ_SUM) {
        /* Paths with every step <= value are exactly those of optimal value.
         * Among them, least total; remaining ties favour communications
         * listed later (weight + r per unit of T, with weight large enough
         * to keep the total first), which reproduces seed 000 Example 6. */
        uint64_t tmax = (uint64_t)m * (uint64_t)n << (n - 1);
        uint64_t w = (uint64_t)(m - 1) * tmax + 1;
        d.weight = (m > 1 && tmax < (1ULL << 40) && w < (1ULL << 62) / (tmax + 1)) ? w : 0;
        dp_pass(&d, value, progress, (double)count);
    }
    dp_order(&d, &out->order);
    kc_progress_report(progress, 2.0 * (double)count, 2.0 * (double)count);
    free(d.c);
    free(d.info);
    free(d.f);
    free(d.pred);
    out->value = kc_objective_value(comms, m, obj, &out->order, &out->total);
    return KC_OK;
}

/* ---- the paper's dynamic programme, ranks from scratch ------------------ */

kc_status kc_mapset_naive(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out, kc_err *err)
{
    kc_status st = check_set(comms, m, 20, err);
    if (st)
        return st;
    int n = comms[0].a.n;
    uint64_t count = 1ULL << n, full = count - 1;
    uint64_t *f = malloc(count * sizeof *f);
    uint8_t *pred = malloc(count);
    uint64_t *idle = malloc(sizeof *idle * (size_t)m);
    if (!f || !pred || !idle) {
        free(f);
        free(pred);
        free(idle);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    for (int r = 0; r < m; r++)
        idle[r] = kc_lcc_idle_dims(&comms[r]);
    f[0] = 0;
    for (uint64_t S = 1; S < count; S++) {
        f[S] = UINT64_MAX;
        int s = __builtin_popcountll(S) - 1; /* position of the last element */
        for (uint64_t js = S; js; js &= js - 1) {
            int j = __builtin_ctzll(js);
            uint64_t P = S & ~(1ULL << j), step = 0;
            for (int r = 0; r < m; r++) {
                const kc_lcc *c = &comms[r];
                if ((idle[r] >> j) & 1)
                    continue;
                int e = c->kind == KC_LCC_SCATTER
                            ? (n - 1 - s) - kc_bitmat_rank_sub(&c->a, full & ~P, full & ~S)
                            : s - kc_bitmat_rank_sub(&c->a, S, P);
                uint64_t t = 1ULL << e;
                step = step_is_max(obj) ? (t > step ? t : step) : step + t;
            }
            uint64_t v = path_is_max(obj) ? (step > f[P] ? step : f[P]) : f[P] + step;
            if (v < f[S]) {
                f[S] = v;
                pred[S] = (uint8_t)j;
            }
        }
    }
    uint64_t S = full;
    out->order.n = n;
    for (int t = n - 1; t >= 0; t--) {
        out->order.dim[t] = pred[S];
        S ^= 1ULL << pred[S];
    }
    free(f);
    free(pred);
    free(idle);
    out->value = kc_objective_value(comms, m, obj, &out->order, &out->total);
    return KC_OK;
}

/* ---- exhaustive search -------------------------------------------------- */

kc_status kc_mapset_exhaustive(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out, kc_err *err)
{
    kc_status st = check_set(comms, m, KC_EXHAUSTIVE_MAX_N, err);
    if (st)
        return st;
    int n = comms[0].a.n;
    kc_order o;
    kc_order_identity(&o, n);
    int c[KC_EXHAUSTIVE_MAX_N] = {0};
    uint64_t tot;
    out->order = o;
    out->value = kc_objective_value(comms, m, obj, &o, &out->total);
    /* Heap's algorithm visits every permutation by single swaps. */
    for (int i = 1; i < n;) {
        if (c[i] < i) {
            int k = (i % 2 == 0) ? 0 : c[i];
            int t = o.dim[k];
            o.dim[k] = o.dim[i];
            o.dim[i] = t;
            uint64_t v = kc_objective_value(comms, m, obj, &o, &tot);
            if (v < out->value || (v == out->value && tot < out->total)) {
                out->value = v;
                out->total = tot;
                out->order = o;
            }
            c[i]++;
            i = 1;
        } else {
            c[i] = 0;
            i++;
        }
    }
    return KC_OK;
}
