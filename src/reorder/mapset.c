/* One reordering for a set of LCCs: dynamic programming over subsets. */
#include "kcube/mapset.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "core/grow.h"
#include "core/pool.h"
#include "elim.h"
#include "objective.h"
#include "kcube/contention.h"

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

/* The table holds one value per subset S of dimensions, in the narrowest
 * width its bound allows (1, 2, 4 or 8 bytes); all ones means "not reached".
 * Pass 1 of the max objective stores log2 codes (0: value 0, e + 1: 2^e), so
 * one byte per subset. Subsets are expanded layer by layer (|S| = k), the
 * layer split into chunks that the threads take in turn; a push to S + j is
 * an atomic minimum, so the table, and hence the result, does not depend on
 * the schedule. No choices are stored: the order is recovered afterwards by
 * recomputing the last step of each optimal prefix. */

typedef struct dp_comm {
    uint64_t cols[KC_BITMAT_MAX];
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

typedef struct vtab {
    unsigned char *p;
    int w; /* bytes per entry */
    uint64_t inf;
} vtab;

enum { PASS_MAXLOG, PASS_MAX, PASS_SUM };

typedef struct dp {
    int n, m, threads;
    kc_objective obj;
    dp_comm *c;
    int pass;        /* how values combine (PASS_*) */
    int second;      /* the tie-break pass: steps above cap are not allowed */
    uint64_t cap;    /* pass 1: prune values above it (a known upper bound); pass 2: the step cap */
    uint64_t weight; /* pass 2 prices T of communication r as T * (weight + r), or T when 0 */
    vtab t;
    /* the layer being expanded */
    int k;
    uint64_t layer_count, nchunks;
    _Atomic uint64_t next_chunk;
    double max_units;       /* work limit (0: none) */
    _Atomic uint64_t units; /* work done: m (n - |S| + 1) per expanded subset */
    atomic_int stop;
    double worst_seconds, max_seconds;
} dp;

#define DP_CHUNK 4096

static uint64_t binom(int n, int k)
{
    if (k < 0 || k > n)
        return 0;
    uint64_t r = 1;
    for (int i = 1; i <= k; i++)
        r = r * (uint64_t)(n - k + i) / (uint64_t)i;
    return r;
}

/* The r-th k-subset in increasing numeric order (combinatorial number system). */
static uint64_t unrank(uint64_t r, int k, int n)
{
    uint64_t S = 0;
    for (int i = k; i >= 1; i--) {
        int c = n - 1;
        while (binom(c, i) > r)
            c--;
        S |= 1ULL << c;
        r -= binom(c, i);
    }
    return S;
}

static inline uint64_t next_subset(uint64_t x)
{
    uint64_t c = x & -x, r = x + c;
    return (((r ^ x) >> 2) / c) | r;
}

/* The table is plain memory read and updated through atomic views of its
 * entries: they must have the plain types' sizes. */
_Static_assert(sizeof(_Atomic uint8_t) == 1 && sizeof(_Atomic uint16_t) == 2 && sizeof(_Atomic uint32_t) == 4 &&
                   sizeof(_Atomic uint64_t) == 8,
               "atomic table entries of the plain sizes");

static inline uint64_t vt_get(const vtab *t, uint64_t i)
{
    uint64_t v;
    switch (t->w) {
    case 1: v = atomic_load_explicit((_Atomic uint8_t *)t->p + i, memory_order_relaxed); break;
    case 2: v = atomic_load_explicit((_Atomic uint16_t *)t->p + i, memory_order_relaxed); break;
    case 4: v = atomic_load_explicit((_Atomic uint32_t *)t->p + i, memory_order_relaxed); break;
    default: v = atomic_load_explicit((_Atomic uint64_t *)t->p + i, memory_order_relaxed); break;
    }
    return v == t->inf ? UINT64_MAX : v;
}

#define VT_MIN(type)                                                                                                  \
    do {                                                                                                              \
        _Atomic type *q = (_Atomic type *)t->p + i;                                                                   \
        type cur = atomic_load_explicit(q, memory_order_relaxed);                                                     \
        while ((uint64_t)cur > v && !atomic_compare_exchange_weak_explicit(q, &cur, (type)v, memory_order_relaxed,    \
                                                                           memory_order_relaxed))                     \
            ;                                                                                                         \
    } while (0)

/* table[i] = min(table[i], v), atomically (v < inf). */
static inline void vt_min(vtab *t, uint64_t i, uint64_t v)
{
    switch (t->w) {
    case 1: VT_MIN(uint8_t); break;
    case 2: VT_MIN(uint16_t); break;
    case 4: VT_MIN(uint32_t); break;
    default: VT_MIN(uint64_t); break;
    }
}

static int width_for(uint64_t bound)
{
    return bound < 0xffu ? 1 : bound < 0xffffu ? 2 : bound < 0xffffffffu ? 4 : 8;
}

static void describe(const dp *d, kci_elim_walk *walk, uint64_t S, step_info *info)
{
    uint64_t full = kc_mask(d->n);
    for (int r = 0; r < d->m; r++) {
        const dp_comm *c = &d->c[r];
        if (!c->scatter) {
            const kci_elim *e = kci_elim_walk_goto(&walk[r], S);
            info[r].kd = kci_popcount64(S) - e->npiv;
            info[r].minus = e->grow;
        } else {
            /* Placing j after S leaves U = complement(S) behind it:
             * T = 2^((n-1-|S|) - rank A[U, U-j]) = 2^(kd(U) - [j dependent]). */
            uint64_t U = full & ~S;
            const kci_elim *e = kci_elim_walk_goto(&walk[r], U);
            info[r].kd = kci_popcount64(U) - e->npiv;
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

static inline uint64_t log_code(uint64_t v) { return v ? (uint64_t)kci_ctz64(v) + 1 : 0; }
static inline uint64_t log_decode(uint64_t c) { return c ? 1ULL << (c - 1) : 0; }

/* The value reached by placing j after S (value fs), or UINT64_MAX when the
 * step is not allowed (above the cap). */
static inline uint64_t extend(const dp *d, const step_info *info, uint64_t fs, int j)
{
    uint64_t sum, cost = step_cost(d, info, j, &sum), v;
    if (d->second) {
        if (cost > d->cap)
            return UINT64_MAX;
        return fs + sum;
    }
    switch (d->pass) {
    case PASS_MAXLOG: v = log_code(cost); v = v > fs ? v : fs; break;
    case PASS_MAX: v = cost > fs ? cost : fs; break;
    default: v = fs + cost; break;
    }
    return v > d->cap ? UINT64_MAX : v;
}

typedef struct dp_worker {
    dp *d;
    kci_elim_walk *walk; /* one per communication */
    step_info *info;
} dp_worker;

static uint64_t expand(dp_worker *wk, uint64_t S)
{
    dp *d = wk->d;
    uint64_t fs = vt_get(&d->t, S), full = kc_mask(d->n);
    if (fs == UINT64_MAX)
        return 1; /* a scan costs about one unit */
    describe(d, wk->walk, S, wk->info);
    for (uint64_t free_ = full & ~S; free_; free_ &= free_ - 1) {
        int j = kci_ctz64(free_);
        uint64_t v = extend(d, wk->info, fs, j);
        if (v != UINT64_MAX)
            vt_min(&d->t, S | (1ULL << j), v);
    }
    return 1 + (uint64_t)d->m * (uint64_t)(d->n - kci_popcount64(S) + 1);
}

/* Worker w of the array of workers ctx: chunks of the layer from the
 * shared counter until none are left or the work limit is passed. */
static void dp_thread(void *ctx, unsigned w)
{
    dp_worker *wk = (dp_worker *)ctx + w;
    dp *d = wk->d;
    for (;;) {
        uint64_t ch = atomic_fetch_add_explicit(&d->next_chunk, 1, memory_order_relaxed);
        if (ch >= d->nchunks)
            break;
        uint64_t r0 = ch * DP_CHUNK, r1 = r0 + DP_CHUNK < d->layer_count ? r0 + DP_CHUNK : d->layer_count;
        uint64_t S = unrank(r0, d->k, d->n), units = 0;
        for (uint64_t r = r0; r < r1; r++) {
            units += expand(wk, S);
            if (d->k > 0 && r + 1 < r1)
                S = next_subset(S);
        }
        /* The limit is on the total, which does not depend on the schedule:
         * whether a run stops is deterministic. */
        uint64_t total = atomic_fetch_add_explicit(&d->units, units, memory_order_relaxed) + units;
        if (d->max_units > 0 && (double)total > d->max_units) {
            atomic_store_explicit(&d->stop, 1, memory_order_relaxed);
            break;
        }
        if (atomic_load_explicit(&d->stop, memory_order_relaxed))
            break;
    }
}

static kc_status dp_pass(dp *d, dp_worker *wk, const kc_progress *progress, double base, double all, kc_err *err)
{
    uint64_t count = 1ULL << d->n;
    memset(d->t.p, 0xff, (size_t)count * (size_t)d->t.w);
    d->units += count * (uint64_t)d->t.w / 4; /* the fill, counted as work too */
    vt_min(&d->t, 0, 0);
    double done = 0;
    for (int k = 0; k < d->n; k++) {
        d->k = k;
        d->layer_count = binom(d->n, k);
        d->nchunks = (d->layer_count + DP_CHUNK - 1) / DP_CHUNK;
        d->next_chunk = 0;
        int nt = d->threads;
        if ((uint64_t)nt > d->nchunks)
            nt = (int)d->nchunks;
        kci_run_threads((unsigned)nt, dp_thread, wk);
        done += (double)d->layer_count;
        kc_progress_report(progress, base + done, all);
        if (d->stop)
            return kc_fail_param(err, KC_ERANGE, "max-time",
                                 "the exact subset programme for n = %d passed its work limit (%.3g s of work); "
                                 "its worst case is about %.0f s",
                                 d->n, d->max_seconds, d->worst_seconds);
    }
    return KC_OK;
}

/* The order behind the table: from the full set back, the last element of
 * an optimal prefix is the highest j whose removal explains its value (the
 * choice the numeric-order programme made, so results did not change). */
static kc_status dp_order(dp *d, dp_worker *wk, kc_order *o, kc_err *err)
{
    uint64_t S = kc_mask(d->n);
    o->n = d->n;
    for (int t = d->n - 1; t >= 0; t--) {
        uint64_t want = vt_get(&d->t, S);
        int found = -1;
        for (uint64_t js = S; js && found < 0; js &= ~(1ULL << (63 - kci_clz64(js)))) {
            int j = 63 - kci_clz64(js);
            uint64_t P = S ^ (1ULL << j), fp = vt_get(&d->t, P);
            if (fp == UINT64_MAX)
                continue;
            describe(d, wk->walk, P, wk->info);
            if (extend(d, wk->info, fp, j) == want)
                found = j;
        }
        if (found < 0)
            return kc_fail(err, KC_EINTERNAL, "internal: the subset table has no predecessor at size %d", t + 1);
        o->dim[t] = found;
        S ^= 1ULL << found;
    }
    return KC_OK;
}

void kc_mapset_opts_default(kc_mapset_opts *o)
{
    o->threads = 2;
    o->upper = UINT64_MAX;
    o->max_seconds = 0;
}

/* Largest value the objective can take (every T at most 2^(n-1)). */
static uint64_t worst_value(kc_objective obj, int n, int m)
{
    uint64_t t = 1ULL << (n - 1);
    return obj == KC_OBJ_MAX ? t : obj == KC_OBJ_SIMULTANEOUS ? t * (uint64_t)m : t * (uint64_t)m * (uint64_t)n;
}

/* Table widths of both passes given a bound on the value (the tie-break
 * pass's weight is the one kc_mapset_optimal_ex uses for that bound). */
static void widths(int n, int m, kc_objective obj, uint64_t upper, int *w1, int *w2, uint64_t *weight)
{
    uint64_t bound = worst_value(obj, n, m);
    if (upper < bound)
        bound = upper;
    *w1 = obj == KC_OBJ_MAX ? 1 : width_for(bound);
    *w2 = 0;
    *weight = 0;
    if (obj == KC_OBJ_SUM)
        return;
    uint64_t tmax = (uint64_t)m * (uint64_t)n * (bound ? bound : 1);
    uint64_t w = (uint64_t)(m - 1) * tmax + 1;
    *weight = (m > 1 && tmax < (1ULL << 40) && w < (1ULL << 62) / (tmax + 1)) ? w : 0;
    *w2 = width_for(*weight ? (*weight + (uint64_t)m) * tmax : tmax);
    /* Beyond the sizes the programme always ran at, the secondary tie-break
     * (later communications first) is dropped when it would widen the
     * table: the order stays optimal with the least total. */
    if (n > KC_MAPSET_AUTO_N && *weight && width_for(tmax) < *w2) {
        *weight = 0;
        *w2 = width_for(tmax);
    }
}

void kc_mapset_estimate(int n, int m, kc_objective obj, uint64_t upper, int threads, uint64_t *bytes,
                        double *seconds)
{
    double N = ldexp(1.0, n);
    int w1, w2, nt = threads < 1 ? 1 : threads;
    uint64_t weight;
    widths(n, m, obj, upper, &w1, &w2, &weight);
    if (bytes)
        *bytes = (uint64_t)(N * (w1 > w2 ? w1 : w2)) + (uint64_t)nt * (uint64_t)m * sizeof(kci_elim_walk) +
                 (1u << 20);
    if (seconds)
        *seconds = KC_MAPSET_SECONDS_PER_UNIT * (obj == KC_OBJ_SUM ? 1.0 : 2.0) * N * ((double)m *
                   ((double)n / 2 + 1) + 1 + (w1 > w2 ? w1 : w2) / 4.0) / (nt > 1 ? 0.8 * nt : 1.0);
}

/* The communications' columns, scatter flags and idle dimensions into
 * d->c, and one elimination walk per communication in walk[m]. */
static void load_comms(dp *d, kci_elim_walk *walk, const kc_lcc *comms)
{
    for (int r = 0; r < d->m; r++) {
        for (int j = 0; j < d->n; j++)
            d->c[r].cols[j] = kc_bitmat_col(&comms[r].a, j);
        kci_elim_walk_init(&walk[r], d->c[r].cols, d->n);
        d->c[r].scatter = comms[r].kind == KC_LCC_SCATTER;
        d->c[r].idle = kc_lcc_idle_dims(&comms[r]);
    }
}

/* The programme's workers (d->threads of them), its limits and its first
 * pass's table (log codes for max, else raw values under the bound o->upper).
 * KC_ENOMEM leaves what was made for dp_free. */
static kc_status dp_setup(dp *d, dp_worker *wk, const kc_lcc *comms, const kc_mapset_opts *o, kc_err *err)
{
    int n = d->n, m = d->m, nt = d->threads;
    kc_objective obj = d->obj;
    d->c = calloc((size_t)m, sizeof *d->c);
    int bad = !d->c;
    for (int i = 0; i < nt && !bad; i++) {
        wk[i].d = d;
        wk[i].walk = malloc(sizeof *wk[i].walk * (size_t)m);
        wk[i].info = malloc(sizeof *wk[i].info * (size_t)m);
        bad = !wk[i].walk || !wk[i].info;
    }
    uint64_t bound = worst_value(obj, n, m), weight;
    if (o->upper < bound)
        bound = o->upper;
    int w1, w2;
    widths(n, m, obj, o->upper, &w1, &w2, &weight);
    d->pass = obj == KC_OBJ_MAX ? PASS_MAXLOG : obj == KC_OBJ_SIMULTANEOUS ? PASS_MAX : PASS_SUM;
    d->t.w = w1;
    d->max_units = o->max_seconds > 0 ? o->max_seconds / KC_MAPSET_SECONDS_PER_UNIT * (nt > 1 ? 0.8 * nt : 1.0) : 0;
    kc_mapset_estimate(n, m, obj, UINT64_MAX, nt, NULL, &d->worst_seconds);
    d->max_seconds = o->max_seconds;
    d->t.inf = d->t.w == 8 ? UINT64_MAX : (1ULL << (8 * d->t.w)) - 1;
    d->cap = d->pass == PASS_MAXLOG ? log_code(bound) : bound;
    if (d->pass == PASS_MAXLOG && bound && (bound & (bound - 1)))
        d->cap = log_code(1ULL << (63 - kci_clz64(bound))); /* the largest power of two within it */
    if (!bad)
        d->t.p = malloc((size_t)(1ULL << n) * (size_t)d->t.w);
    if (bad || !d->t.p)
        return kc_fail(err, KC_ENOMEM, "out of memory for the subset table (2^%d entries)", n);
    for (int i = 0; i < nt; i++)
        load_comms(d, wk[i].walk, comms);
    return KC_OK;
}

/* The tie-break pass over the paths whose every step is at most value (the
 * optimal ones): least total, then communications listed later first. */
static kc_status tie_break_pass(dp *d, dp_worker *wk, uint64_t value, const kc_progress *progress, double all,
                                kc_err *err)
{
    uint64_t count = 1ULL << d->n;
    int w1, w2;
    /* Weight + r per unit of T, with weight large enough to keep the total
     * first, reproduces seed 000 Example 6. */
    widths(d->n, d->m, d->obj, value, &w1, &w2, &d->weight);
    if (w2 != d->t.w) {
        free(d->t.p);
        d->t.w = w2;
        d->t.p = malloc((size_t)count * (size_t)w2);
        if (!d->t.p)
            return kc_fail(err, KC_ENOMEM, "out of memory for the subset table (2^%d entries)", d->n);
    }
    d->t.inf = d->t.w == 8 ? UINT64_MAX : (1ULL << (8 * d->t.w)) - 1;
    d->second = 1;
    d->cap = value;
    return dp_pass(d, wk, progress, (double)count, all, err);
}

/* Release the workers' walks, the communications and the table. */
static void dp_free(dp *d, dp_worker *wk)
{
    for (int i = 0; i < d->threads; i++) {
        free(wk[i].walk);
        free(wk[i].info);
    }
    free(d->c);
    free(d->t.p);
}

kc_status kc_mapset_optimal_ex(const kc_lcc *comms, int m, kc_objective obj, const kc_mapset_opts *opts,
                               kc_mapset_result *out, const kc_progress *progress, kc_err *err)
{
    kc_status st = check_set(comms, m, KC_MAPSET_MAX_N, err);
    if (st)
        return st;
    kc_mapset_opts o;
    if (opts)
        o = *opts;
    else
        kc_mapset_opts_default(&o);
    int n = comms[0].a.n, nt = o.threads < 1 ? 1 : o.threads > KC_MAPSET_MAX_THREADS ? KC_MAPSET_MAX_THREADS : o.threads;
    if (n < 14)
        nt = 1; /* a few thousand subsets: threads cost more than they save */
    uint64_t count = 1ULL << n, value = 0;
    dp d = {.n = n, .m = m, .obj = obj, .threads = nt};
    dp_worker wk[KC_MAPSET_MAX_THREADS];
    memset(wk, 0, sizeof wk);
    double all = (obj == KC_OBJ_SUM ? 1.0 : 2.0) * (double)count;
    if (!(st = dp_setup(&d, wk, comms, &o, err)) && !(st = dp_pass(&d, wk, progress, 0.0, all, err))) {
        value = vt_get(&d.t, count - 1);
        if (value == UINT64_MAX)
            st = kc_fail(err, KC_EINVAL, "the upper bound %llu given to the subset programme is below the optimum",
                         (unsigned long long)o.upper);
        else if (d.pass == PASS_MAXLOG)
            value = log_decode(value);
    }
    /* the optimal value known: among its paths, the tie-break pass */
    if (!st && obj != KC_OBJ_SUM)
        st = tie_break_pass(&d, wk, value, progress, all, err);
    if (!st && !(st = dp_order(&d, &wk[0], &out->order, err))) {
        out->value = kc_objective_value(comms, m, obj, &out->order, &out->total);
        if (out->value != value)
            st = kc_fail(err, KC_EINTERNAL, "internal: the subset programme's order has value %llu, not %llu",
                         (unsigned long long)out->value, (unsigned long long)value);
    }
    dp_free(&d, wk);
    return st;
}

kc_status kc_mapset_optimal(const kc_lcc *comms, int m, kc_objective obj, kc_mapset_result *out,
                            const kc_progress *progress, kc_err *err)
{
    return kc_mapset_optimal_ex(comms, m, obj, NULL, out, progress, err);
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
        int s = kci_popcount64(S) - 1; /* position of the last element */
        for (uint64_t js = S; js; js &= js - 1) {
            int j = kci_ctz64(js);
            uint64_t P = S & ~(1ULL << j), step = 0;
            for (int r = 0; r < m; r++) {
                const kc_lcc *c = &comms[r];
                if ((idle[r] >> j) & 1)
                    continue;
                int e = c->kind == KC_LCC_SCATTER
                            ? (n - 1 - s) - kc_bitmat_rank_sub(&c->a, full & ~P, full & ~S)
                            : s - kc_bitmat_rank_sub(&c->a, S, P);
                uint64_t t = 1ULL << e;
                step = kci_objective_step(obj, step, t);
            }
            uint64_t v = kci_objective_path(obj, f[P], step);
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

/* ---- a proved lower bound: the threshold search over prefix sets ------- */

/* Whether some order has every step at most v (max and simultaneous: the
 * value is the largest step). The cost of placing j after the prefix set S
 * depends only on S and j (seed 000 Theorem 1; Theorem 5 rests on it), so an
 * order of value <= v exists iff the full set is reachable from the empty
 * set by single additions each costing <= v. The reachable sets are found
 * layer by layer (|S| = k), each layer sorted and deduplicated; nothing is
 * stored but the layers. Returns 1 (reachable: *order, when order is not
 * NULL, gets the order of least total among those of value <= v), 0 (not
 * reachable: no order has value <= v, a proof), -1 (more than the budget
 * of sets: nothing is known) or -2 (out of memory, which the caller
 * reports rather than return a weaker bound).
 * *next_v gets the least cost of a step refused from a reached set: when v
 * is refuted, no order has value below it either (such an order's first
 * step above v leaves a reached set, so it costs at least *next_v). */
typedef struct tsearch {
    dp d;
    dp_worker wk;
    uint64_t budget; /* sets held at once, over all layers */
    uint64_t states; /* sets reached, over every threshold tried */
    uint64_t **layer;
    uint64_t *count;
} tsearch;

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void ts_free_layers(tsearch *ts)
{
    for (int k = 0; k <= ts->d.n; k++) {
        free(ts->layer[k]);
        ts->layer[k] = NULL;
        ts->count[k] = 0;
    }
}

static kc_status ts_least_total(tsearch *ts, uint64_t v, kc_order *order);

/* Sort a[0..cnt) and drop repeats; returns the new count (cnt >= 1). */
static uint64_t sort_unique(uint64_t *a, uint64_t cnt)
{
    qsort(a, cnt, sizeof *a, u64_cmp);
    uint64_t u = 1;
    for (uint64_t i = 1; i < cnt; i++)
        if (a[i] != a[u - 1])
            a[u++] = a[i];
    return u;
}

static int ts_reachable(tsearch *ts, uint64_t v, kc_order *order, uint64_t *next_v)
{
    dp *d = &ts->d;
    int n = d->n;
    uint64_t full = kc_mask(n), held = 1;
    *next_v = UINT64_MAX;
    d->pass = PASS_MAX;
    d->second = 0;
    d->cap = v;
    ts_free_layers(ts);
    if (!(ts->layer[0] = malloc(sizeof(uint64_t))))
        return -2;
    ts->layer[0][0] = 0;
    ts->count[0] = 1;
    for (int k = 0; k < n; k++) {
        /* every set of the next layer, with repeats, then sorted */
        size_t cap = 0;
        uint64_t cnt = 0, *next = NULL;
        for (uint64_t i = 0; i < ts->count[k]; i++) {
            uint64_t S = ts->layer[k][i];
            describe(d, ts->wk.walk, S, ts->wk.info);
            for (uint64_t free_ = full & ~S; free_; free_ &= free_ - 1) {
                int j = kci_ctz64(free_);
                uint64_t sum, cost = step_cost(d, ts->wk.info, j, &sum);
                if (cost > v) {
                    *next_v = cost < *next_v ? cost : *next_v;
                    continue;
                }
                if (cnt == cap) {
                    /* full: drop the repeats first, grow only when that
                     * leaves it more than half full */
                    cnt = cnt ? sort_unique(next, cnt) : 0;
                    if (held + cnt > ts->budget) {
                        free(next);
                        return -1;
                    }
                    if ((2 * cnt > cap || !cap) && KCI_RESERVE(next, cap, cap + 1, 1024)) {
                        free(next);
                        return -2;
                    }
                }
                next[cnt++] = S | (1ULL << j);
            }
        }
        if (!cnt) {
            free(next);
            return 0;
        }
        uint64_t u = sort_unique(next, cnt);
        ts->layer[k + 1] = next;
        ts->count[k + 1] = u;
        ts->states += u;
        held += u;
        if (held > ts->budget)
            return -1;
    }
    kc_status st = order ? ts_least_total(ts, v, order) : KC_OK;
    return st == KC_ENOMEM ? -2 : st ? -1 : 1;
}

static uint64_t ts_index(const tsearch *ts, int k, uint64_t S)
{
    const uint64_t *p = bsearch(&S, ts->layer[k], ts->count[k], sizeof S, u64_cmp);
    return p ? (uint64_t)(p - ts->layer[k]) : UINT64_MAX;
}

/* After the full set was reached at v: the DP's tie-break pass over the
 * reached sets only. Every order of value <= v has all its prefixes among
 * them, so the least total found is the least over all such orders. The
 * order is rebuilt backwards from the totals. */
static kc_status ts_least_total(tsearch *ts, uint64_t v, kc_order *order)
{
    dp *d = &ts->d;
    int n = d->n;
    uint64_t full = kc_mask(n), **tot = calloc((size_t)n + 1, sizeof *tot);
    kc_status st = KC_OK;
    for (int k = 0; tot && k <= n && !st; k++) {
        tot[k] = malloc(ts->count[k] * sizeof **tot);
        if (!tot[k])
            st = KC_ENOMEM;
        else
            for (uint64_t i = 0; i < ts->count[k]; i++)
                tot[k][i] = UINT64_MAX;
    }
    if (!tot || st) {
        st = KC_ENOMEM;
        goto done;
    }
    tot[0][0] = 0;
    for (int k = 0; k < n; k++)
        for (uint64_t i = 0; i < ts->count[k]; i++) {
            uint64_t S = ts->layer[k][i];
            describe(d, ts->wk.walk, S, ts->wk.info);
            for (uint64_t free_ = full & ~S; free_; free_ &= free_ - 1) {
                int j = kci_ctz64(free_);
                uint64_t sum;
                if (step_cost(d, ts->wk.info, j, &sum) > v)
                    continue;
                uint64_t x = ts_index(ts, k + 1, S | (1ULL << j));
                if (x != UINT64_MAX && tot[k][i] + sum < tot[k + 1][x])
                    tot[k + 1][x] = tot[k][i] + sum;
            }
        }
    uint64_t S = full, want = tot[n][0];
    order->n = n;
    for (int k = n; k > 0 && !st; k--) {
        int found = -1;
        for (uint64_t js = S; js && found < 0; js &= js - 1) {
            int j = kci_ctz64(js);
            uint64_t P = S ^ (1ULL << j), x = ts_index(ts, k - 1, P), sum;
            if (x == UINT64_MAX || tot[k - 1][x] == UINT64_MAX)
                continue;
            describe(d, ts->wk.walk, P, ts->wk.info);
            if (step_cost(d, ts->wk.info, j, &sum) <= v && tot[k - 1][x] + sum == want) {
                found = j;
                want = tot[k - 1][x];
            }
        }
        if (found < 0)
            st = KC_EINTERNAL; /* cannot happen: the totals came from these steps */
        else {
            order->dim[k - 1] = found;
            S ^= 1ULL << found;
        }
    }
done:
    for (int k = 0; tot && k <= n; k++)
        free(tot[k]);
    free(tot);
    return st;
}

void kc_mapset_bound_opts_default(kc_mapset_bound_opts *o)
{
    o->upper = UINT64_MAX;
    o->max_states = KC_MAPSET_BOUND_STATES;
    o->reach_upper = 0;
}

/* The next value the objective can take above v: max values are 0 or powers
 * of two (each T is), simultaneous values are integers. */
static uint64_t next_value(kc_objective obj, uint64_t v)
{
    if (obj == KC_OBJ_MAX)
        return v == 0 ? 1 : v >= (1ULL << 63) ? UINT64_MAX : 2 * v;
    return v == UINT64_MAX ? v : v + 1;
}

/* For sum the threshold argument does not apply (it needs a value that is a
 * largest step): the bound is kc_mapset_lower_bound's; say which part gave
 * it. */
static void sum_source(const kc_lcc *comms, int m, kc_mapset_bound_result *out)
{
    uint64_t single = 0;
    for (int r = 0; r < m; r++) {
        kc_order so;
        if (kc_reorder_optimal(&comms[r], &so, NULL) == KC_OK) {
            uint64_t v = kc_reorder_value(&comms[r], &so);
            single = v > single ? v : single;
        }
    }
    if (single < out->lower)
        out->from = "traffic-dimensions";
}

/* The threshold search's one worker, its layers and its communications;
 * KC_ENOMEM leaves what was made for ts_teardown. */
static kc_status ts_setup(tsearch *ts, const kc_lcc *comms, int m, kc_objective obj, uint64_t budget, kc_err *err)
{
    int n = comms[0].a.n;
    memset(ts, 0, sizeof *ts);
    ts->budget = budget;
    ts->d = (dp){.n = n, .m = m, .obj = obj, .threads = 1};
    ts->d.c = calloc((size_t)m, sizeof *ts->d.c);
    ts->wk.d = &ts->d;
    ts->wk.walk = malloc(sizeof *ts->wk.walk * (size_t)m);
    ts->wk.info = malloc(sizeof *ts->wk.info * (size_t)m);
    ts->layer = calloc((size_t)n + 1, sizeof *ts->layer);
    ts->count = calloc((size_t)n + 1, sizeof *ts->count);
    if (!ts->d.c || !ts->wk.walk || !ts->wk.info || !ts->layer || !ts->count)
        return kc_fail(err, KC_ENOMEM, "out of memory for the threshold search");
    load_comms(&ts->d, ts->wk.walk, comms);
    return KC_OK;
}

/* Upwards from the single-communication bound: each value refuted raises
 * the bound to the next value; the first value reached is the optimum (with
 * its order). Stops below upper, or when the sets pass the budget. */
static kc_status climb(tsearch *ts, const kc_lcc *comms, int m, kc_objective obj, uint64_t upper,
                       kc_mapset_bound_result *out, kc_err *err)
{
    for (uint64_t v = out->lower; v < upper;) {
        uint64_t next_v;
        int r = ts_reachable(ts, v, &out->best.order, &next_v);
        if (r == -2)
            return kc_fail(err, KC_ENOMEM, "out of memory for the threshold search");
        if (r < 0)
            break;
        if (r == 1) {
            out->optimal = 1;
            out->best.value = kc_objective_value(comms, m, obj, &out->best.order, &out->best.total);
            if (out->best.value > v)
                return kc_fail(err, KC_EINTERNAL, "internal: the threshold search's order has value %llu, above %llu",
                               (unsigned long long)out->best.value, (unsigned long long)v);
            out->lower = out->best.value; /* == v: v is not above the bound */
            break;
        }
        out->lower = next_v > next_value(obj, v) ? next_v : next_value(obj, v);
        out->from = "threshold-search";
        out->refuted = v;
        v = out->lower;
    }
    return KC_OK;
}

/* The bound met the known upper value o->upper, reached by some order: it is
 * optimal; with o->reach_upper, the optimal order of least total too. */
static kc_status meet_upper(tsearch *ts, const kc_lcc *comms, int m, kc_objective obj,
                            const kc_mapset_bound_opts *o, kc_mapset_bound_result *out, kc_err *err)
{
    out->lower = o->upper;
    uint64_t next_v;
    int r = o->reach_upper ? ts_reachable(ts, o->upper, &out->best.order, &next_v) : 0;
    if (r == -2)
        return kc_fail(err, KC_ENOMEM, "out of memory for the threshold search");
    if (r == 1) {
        out->optimal = 1;
        out->best.value = kc_objective_value(comms, m, obj, &out->best.order, &out->best.total);
        if (out->best.value != o->upper)
            return kc_fail(err, KC_EINTERNAL, "internal: the threshold search's order has value %llu, not %llu",
                           (unsigned long long)out->best.value, (unsigned long long)o->upper);
    }
    return KC_OK;
}

/* Release what ts_setup and the search made. */
static void ts_teardown(tsearch *ts)
{
    if (ts->layer && ts->count) /* either may be missing when their allocation failed */
        ts_free_layers(ts);
    free(ts->layer);
    free(ts->count);
    free(ts->wk.walk);
    free(ts->wk.info);
    free(ts->d.c);
}

kc_status kc_mapset_bound(const kc_lcc *comms, int m, kc_objective obj, const kc_mapset_bound_opts *opts,
                          kc_mapset_bound_result *out, kc_err *err)
{
    kc_status st = check_set(comms, m, KC_BITMAT_MAX, err);
    if (st)
        return st;
    kc_mapset_bound_opts o;
    if (opts)
        o = *opts;
    else
        kc_mapset_bound_opts_default(&o);
    if (!o.max_states)
        o.max_states = KC_MAPSET_BOUND_STATES;
    memset(out, 0, sizeof *out);
    out->lower = kc_mapset_lower_bound(comms, m, obj);
    out->from = "single-optimum";
    if (obj == KC_OBJ_SUM) {
        sum_source(comms, m, out);
        return KC_OK;
    }
    tsearch ts;
    if (!(st = ts_setup(&ts, comms, m, obj, o.max_states, err)) &&
        !(st = climb(&ts, comms, m, obj, o.upper, out, err)) && !out->optimal && o.upper != UINT64_MAX &&
        out->lower >= o.upper)
        st = meet_upper(&ts, comms, m, obj, &o, out, err);
    out->states = ts.states;
    ts_teardown(&ts);
    return st;
}
