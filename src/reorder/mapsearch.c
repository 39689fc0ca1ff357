/* One reordering for a set of LCCs beyond the subset DP's reach: a seeded,
 * deterministic local search over dimension orders (docs/hypercube.md).
 *
 * Contention is exact and incremental. With the order R, communication r's
 * T at position t depends only on the set P_t of dimensions placed before t
 * and on R[t] (seed 000 Theorem 1; the scatter mirror on the set after it),
 * so each communication keeps one elimination frame per position (elim.h):
 * a move that permutes positions lo..hi re-adds only those dimensions, and
 * the frames outside stay valid. Work is counted in frame additions, which
 * makes the result a function of (input, seed, work) alone.
 *
 * Starts: every communication's own optimal order (seed 000 Fig. 3 /
 * Theorem 4), the exact subset DP on coarsened problems (consecutive groups
 * of dimensions, or of positions of each start, moved as blocks), and the
 * identity; the best start is improved by swaps and block moves under a
 * leximax-like guide (value, then the sum of squared contentions, then the
 * total), with kicks from the best order when it stalls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "elim.h"
#include "objective.h"
#include "kcube/mapset.h"
#include "kcube/rng.h"

/* ---- exact incremental evaluation ---------------------------------------- */

typedef struct score {
    uint64_t value, total;
    long double guide;
} score;

static int score_less(const score *a, const score *b)
{
    if (a->value != b->value)
        return a->value < b->value;
    if (a->guide != b->guide)
        return a->guide < b->guide;
    return a->total < b->total;
}

static int final_less(const score *a, const score *b)
{
    return a->value < b->value || (a->value == b->value && a->total < b->total);
}

typedef struct ev {
    int n, m;
    kc_objective obj;
    uint64_t (*cols)[KC_BITMAT_MAX];
    uint64_t *idle;
    int *scatter;
    kci_elim *store;   /* 2 m (n + 1) frames */
    kci_elim **cur;    /* [r * (n + 1) + t]: prefix P_t (or suffix U_t for scatters) of the current order */
    kci_elim **alt;    /* the candidate's frames, swapped in on acceptance */
    int8_t *code;      /* [r * n + t]: log2 T, -1 for no traffic */
    int8_t *code_alt;
    int ord[KC_BITMAT_MAX];
    score sc;
    uint64_t work;
} ev;

static kc_status ev_init(ev *e, const kc_lcc *comms, int m, kc_objective obj, kc_err *err)
{
    memset(e, 0, sizeof *e);
    int n = comms[0].a.n;
    e->n = n;
    e->m = m;
    e->obj = obj;
    size_t nf = (size_t)m * (size_t)(n + 1);
    e->cols = calloc((size_t)m, sizeof *e->cols);
    e->idle = calloc((size_t)m, sizeof *e->idle);
    e->scatter = calloc((size_t)m, sizeof *e->scatter);
    e->store = malloc(2 * nf * sizeof *e->store);
    e->cur = malloc(nf * sizeof *e->cur);
    e->alt = malloc(nf * sizeof *e->alt);
    e->code = malloc((size_t)m * (size_t)n);
    e->code_alt = malloc((size_t)m * (size_t)n);
    if (!e->cols || !e->idle || !e->scatter || !e->store || !e->cur || !e->alt || !e->code || !e->code_alt)
        return kc_fail(err, KC_ENOMEM, "out of memory for the search's frames");
    for (size_t i = 0; i < nf; i++) {
        e->cur[i] = &e->store[i];
        e->alt[i] = &e->store[nf + i];
        kci_elim_reset(e->cur[i]);
        kci_elim_reset(e->alt[i]);
    }
    for (int r = 0; r < m; r++) {
        for (int j = 0; j < n; j++)
            e->cols[r][j] = kc_bitmat_col(&comms[r].a, j);
        e->idle[r] = kc_lcc_idle_dims(&comms[r]);
        e->scatter[r] = comms[r].kind == KC_LCC_SCATTER;
    }
    return KC_OK;
}

static void ev_free(ev *e)
{
    free(e->cols);
    free(e->idle);
    free(e->scatter);
    free(e->store);
    free(e->cur);
    free(e->alt);
    free(e->code);
    free(e->code_alt);
}

/* log2 T of placing j where the frame describes P (or U for scatters). */
static inline int8_t code_at(const ev *e, int r, const kci_elim *f, int j)
{
    if ((e->idle[r] >> j) & 1)
        return -1;
    int kd = kci_popcount64(f->set) - f->npiv;
    uint64_t minus = e->scatter[r] ? f->dep : f->grow;
    return (int8_t)(kd - (int)((minus >> j) & 1));
}

/* The score of the codes: positions lo..hi from code_alt, the rest from code. */
static score ev_score(const ev *e, int lo, int hi)
{
    score s = {0, 0, 0};
    int n = e->n;
    for (int t = 0; t < n; t++) {
        const int8_t *c = (t >= lo && t <= hi) ? e->code_alt : e->code;
        uint64_t step = 0, sum = 0;
        for (int r = 0; r < e->m; r++) {
            int8_t k = c[r * n + t];
            if (k < 0)
                continue;
            uint64_t T = 1ULL << k;
            sum += T;
            step = T > step ? T : step;
            if (e->obj == KC_OBJ_MAX)
                s.guide += ldexpl(1.0L, 2 * k);
        }
        s.total += sum;
        if (e->obj == KC_OBJ_MAX)
            s.value = step > s.value ? step : s.value;
        else if (e->obj == KC_OBJ_SIMULTANEOUS) {
            s.value = sum > s.value ? sum : s.value;
            s.guide += (long double)sum * (long double)sum;
        }
    }
    if (e->obj == KC_OBJ_SUM) {
        s.value = s.total;
        s.guide = (long double)s.total;
    }
    return s;
}

/* Price the order o, equal to the current one outside lo..hi, into the
 * alternative frames and codes. */
static score ev_try(ev *e, const int *o, int lo, int hi)
{
    int n = e->n, W = n + 1;
    for (int r = 0; r < e->m; r++) {
        kci_elim **cur = e->cur + r * W, **alt = e->alt + r * W;
        int8_t *ca = e->code_alt + r * n;
        if (!e->scatter[r]) {
            const kci_elim *f = cur[lo];
            for (int t = lo; t <= hi; t++) {
                ca[t] = code_at(e, r, f, o[t]);
                if (t == hi)
                    break;
                kci_elim_copy(alt[t + 1], f);
                kci_elim_add(alt[t + 1], o[t], e->cols[r][o[t]]);
                f = alt[t + 1];
                e->work++;
            }
        } else {
            const kci_elim *f = cur[hi + 1];
            for (int t = hi; t >= lo; t--) {
                kci_elim_copy(alt[t], f);
                kci_elim_add(alt[t], o[t], e->cols[r][o[t]]);
                ca[t] = code_at(e, r, alt[t], o[t]);
                f = alt[t];
                e->work++;
            }
        }
    }
    return ev_score(e, lo, hi);
}

static void ev_commit(ev *e, const int *o, int lo, int hi, const score *s)
{
    int n = e->n, W = n + 1;
    for (int r = 0; r < e->m; r++) {
        int a = e->scatter[r] ? lo : lo + 1, b = hi; /* the frames ev_try rebuilt */
        for (int t = a; t <= b; t++) {
            kci_elim *x = e->cur[r * W + t];
            e->cur[r * W + t] = e->alt[r * W + t];
            e->alt[r * W + t] = x;
        }
        memcpy(e->code + r * n + lo, e->code_alt + r * n + lo, (size_t)(hi - lo + 1));
    }
    memcpy(e->ord, o, sizeof(int) * (size_t)n);
    e->sc = *s;
}

static void ev_set(ev *e, const int *o)
{
    score s = ev_try(e, o, 0, e->n - 1);
    ev_commit(e, o, 0, e->n - 1, &s);
}

/* ---- the coarsened dynamic programme ------------------------------------- */

/* The state of one coarse_dp: blocks of b consecutive entries of g, and per
 * subset S of blocks the best (value, total) of placing S first and the
 * block placed last. */
typedef struct coarse {
    ev *e;
    const int *g;
    int b, nb;
    uint64_t count;     /* 2^nb subsets */
    uint64_t *fv, *ft;  /* value, total per subset (UINT64_MAX: not reached) */
    uint8_t *pred;      /* the block placed last */
    kci_elim_walk *walk; /* per communication, to the frame of a dimension set */
    kci_elim *tmp;
    uint64_t dims[64];  /* the dimensions of each block */
} coarse;

/* Frees coarse_setup's tables (those not allocated are NULL). */
static void coarse_free(coarse *c)
{
    free(c->fv), free(c->ft), free(c->pred), free(c->walk), free(c->tmp);
}

/* Allocates c's tables (2^nb entries each) and frames, the blocks'
 * dimension sets, and the empty subset as the only one reached. */
static kc_status coarse_setup(coarse *c, ev *e, const int *g, int b, kc_err *err)
{
    int n = e->n, m = e->m;
    memset(c, 0, sizeof *c);
    c->e = e;
    c->g = g;
    c->b = b;
    c->nb = (n + b - 1) / b;
    c->count = 1ULL << c->nb;
    c->fv = malloc(c->count * sizeof *c->fv);
    c->ft = malloc(c->count * sizeof *c->ft);
    c->pred = malloc(c->count);
    c->walk = malloc(sizeof *c->walk * (size_t)m);
    c->tmp = malloc(sizeof *c->tmp);
    if (!c->fv || !c->ft || !c->pred || !c->walk || !c->tmp) {
        coarse_free(c);
        return kc_fail(err, KC_ENOMEM, "out of memory for the coarsened programme");
    }
    for (int i = 0; i < c->nb; i++) {
        c->dims[i] = 0;
        for (int k = i * b; k < n && k < (i + 1) * b; k++)
            c->dims[i] |= 1ULL << g[k];
    }
    for (int r = 0; r < m; r++)
        kci_elim_walk_init(&c->walk[r], e->cols[r], n);
    for (uint64_t S = 0; S < c->count; S++)
        c->fv[S] = c->ft[S] = UINT64_MAX;
    c->fv[0] = c->ft[0] = 0;
    return KC_OK;
}

/* Adds the contention 2^code (none for code < 0) to a position's step (by
 * the objective) and to the total. */
static void add_code(const ev *e, int8_t code, uint64_t *step, uint64_t *tot)
{
    if (code < 0)
        return;
    uint64_t T = 1ULL << code;
    *tot += T;
    *step = kci_objective_step(e->obj, *step, T);
}

/* The steps of block B's len dimensions bd placed right after the
 * dimensions D, over every communication (gathers forward from D, scatters
 * backward from the dimensions after the block); returns their total.
 * Costs m len frame additions (counted in e->work). */
static uint64_t block_steps(coarse *c, uint64_t D, int B, const int *bd, int len, uint64_t *steps)
{
    ev *e = c->e;
    kci_elim *tmp = c->tmp;
    uint64_t tot = 0, full = kc_mask(e->n);
    for (int k = 0; k < len; k++)
        steps[k] = 0;
    for (int r = 0; r < e->m; r++) {
        if (!e->scatter[r]) {
            kci_elim_copy(tmp, kci_elim_walk_goto(&c->walk[r], D));
            for (int k = 0; k < len; k++) {
                add_code(e, code_at(e, r, tmp, bd[k]), &steps[k], &tot);
                if (k + 1 < len)
                    kci_elim_add(tmp, bd[k], e->cols[r][bd[k]]);
            }
        } else {
            kci_elim_copy(tmp, kci_elim_walk_goto(&c->walk[r], full & ~(D | c->dims[B])));
            for (int k = len - 1; k >= 0; k--) {
                kci_elim_add(tmp, bd[k], e->cols[r][bd[k]]);
                add_code(e, code_at(e, r, tmp, bd[k]), &steps[k], &tot);
            }
        }
        e->work += (uint64_t)len;
    }
    return tot;
}

/* Relaxes every subset S + B from the reached subset S. */
static void coarse_extend(coarse *c, uint64_t S)
{
    int n = c->e->n, b = c->b;
    uint64_t steps[KC_BITMAT_MAX];
    uint64_t D = 0;
    for (uint64_t s = S; s; s &= s - 1)
        D |= c->dims[kci_ctz64(s)];
    for (int B = 0; B < c->nb; B++) {
        if ((S >> B) & 1)
            continue;
        int len = 0, bd[KC_BITMAT_MAX];
        for (int k = B * b; k < n && k < (B + 1) * b; k++)
            bd[len++] = c->g[k];
        uint64_t tot = block_steps(c, D, B, bd, len, steps);
        uint64_t v = c->fv[S];
        for (int k = 0; k < len; k++)
            v = kci_objective_path(c->e->obj, v, steps[k]);
        uint64_t T = S | (1ULL << B), t2 = c->ft[S] + tot;
        if (v < c->fv[T] || (v == c->fv[T] && t2 < c->ft[T])) {
            c->fv[T] = v;
            c->ft[T] = t2;
            c->pred[T] = (uint8_t)B;
        }
    }
}

/* The best order of the blocks, read back from the full set through pred. */
static void coarse_trace(const coarse *c, int *out)
{
    int n = c->e->n, b = c->b;
    uint64_t S = c->count - 1;
    int pos = n;
    while (S) {
        int B = c->pred[S];
        int lo = B * b, hi = (B + 1) * b < n ? (B + 1) * b : n;
        pos -= hi - lo;
        for (int k = lo; k < hi; k++)
            out[pos + k - lo] = c->g[k];
        S ^= 1ULL << B;
    }
}

/* Blocks of b consecutive entries of g (a dimension order) placed as units:
 * the exact DP over the 2^nb subsets of blocks, by (value, total). */
static kc_status coarse_dp(ev *e, const int *g, int b, int *out, kc_err *err)
{
    coarse c;
    kc_status st = coarse_setup(&c, e, g, b, err);
    if (st)
        return st;
    for (uint64_t S = 0; S + 1 < c.count; S++)
        if (c.fv[S] != UINT64_MAX)
            coarse_extend(&c, S);
    coarse_trace(&c, out);
    coarse_free(&c);
    return KC_OK;
}

/* ---- the local search ------------------------------------------------------ */

void kc_mapset_search_opts_default(kc_mapset_search_opts *o)
{
    o->seed = 1;
    o->work = KC_MAPSET_SEARCH_WORK;
    o->start = NULL;
}

uint64_t kc_mapset_lower_bound(const kc_lcc *comms, int m, kc_objective obj)
{
    uint64_t lb = 0, sum = 0;
    for (int r = 0; r < m; r++) {
        kc_order o;
        if (kc_reorder_optimal(&comms[r], &o, NULL) != KC_OK)
            continue;
        uint64_t v = kc_reorder_value(&comms[r], &o);
        lb = v > lb ? v : lb;
        /* every dimension with traffic carries T >= 1 wherever it is placed */
        sum += (uint64_t)(comms[r].a.n - kci_popcount64(kc_lcc_idle_dims(&comms[r])));
    }
    return obj == KC_OBJ_SUM ? (sum > lb ? sum : lb) : lb;
}

/* One move: a swap, or a block of 1..4 positions moved elsewhere. Returns
 * the changed range in *lo..*hi. Positions are drawn near the worst
 * position half the time. */
static void propose(const ev *e, kc_rng *rng, int *o, int *lo, int *hi)
{
    int n = e->n;
    memcpy(o, e->ord, sizeof(int) * (size_t)n);
    int a = (int)kc_rng_below(rng, (uint64_t)n);
    if (kc_rng_below(rng, 2)) {
        /* a position where the objective's step is largest */
        uint64_t best = 0;
        int cnt = 0;
        for (int t = 0; t < n; t++) {
            uint64_t step = 0;
            for (int r = 0; r < e->m; r++) {
                int8_t k = e->code[r * n + t];
                uint64_t T = k < 0 ? 0 : 1ULL << k;
                step = kci_objective_step(e->obj, step, T);
            }
            if (step > best) {
                best = step;
                cnt = 0;
            }
            if (step == best && kc_rng_below(rng, (uint64_t)++cnt) == 0)
                a = t;
        }
    }
    int kind = (int)kc_rng_below(rng, 3);
    if (kind == 0 || n < 3) {
        int b = (int)kc_rng_below(rng, (uint64_t)(n - 1));
        b += b >= a;
        int t = o[a];
        o[a] = o[b];
        o[b] = t;
        *lo = a < b ? a : b;
        *hi = a < b ? b : a;
        return;
    }
    int len = 1 + (int)kc_rng_below(rng, (uint64_t)(n / 2 < 4 ? n / 2 : 4));
    if (a + len > n)
        a = n - len;
    int dest = (int)kc_rng_below(rng, (uint64_t)(n - len + 1)); /* where the block starts afterwards */
    if (dest == a)
        dest = (a + 1) % (n - len + 1);
    int rest[KC_BITMAT_MAX], blk[KC_BITMAT_MAX], k = 0;
    for (int t = 0; t < n; t++)
        if (t < a || t >= a + len)
            rest[k++] = e->ord[t];
    memcpy(blk, e->ord + a, sizeof(int) * (size_t)len);
    if (kind == 2) /* moved reversed */
        for (int i = 0; i < len / 2; i++) {
            int t = blk[i];
            blk[i] = blk[len - 1 - i];
            blk[len - 1 - i] = t;
        }
    k = 0;
    for (int t = 0; t < n; t++)
        o[t] = (t >= dest && t < dest + len) ? blk[t - dest] : rest[k++];
    *lo = a < dest ? a : dest;
    *hi = (a > dest ? a : dest) + len - 1;
}

static void local_search(ev *e, kc_rng *rng, uint64_t until, int *best, score *bs)
{
    int n = e->n, o[KC_BITMAT_MAX];
    uint64_t stall = 0, patience = 40ULL * (uint64_t)n;
    while (e->work < until) {
        int lo, hi;
        propose(e, rng, o, &lo, &hi);
        score s = ev_try(e, o, lo, hi);
        if (!score_less(&e->sc, &s)) {
            int improved = score_less(&s, &e->sc);
            ev_commit(e, o, lo, hi, &s);
            if (final_less(&s, bs)) {
                *bs = s;
                memcpy(best, o, sizeof(int) * (size_t)n);
            }
            stall = improved ? 0 : stall + 1;
        } else {
            stall++;
        }
        if (stall > patience && n >= 4) {
            /* kick: the best order with a few random swaps */
            memcpy(o, best, sizeof(int) * (size_t)n);
            int kicks = 2 + (int)kc_rng_below(rng, 3);
            for (int i = 0; i < kicks; i++) {
                int a = (int)kc_rng_below(rng, (uint64_t)n), b = (int)kc_rng_below(rng, (uint64_t)n);
                int t = o[a];
                o[a] = o[b];
                o[b] = t;
            }
            ev_set(e, o);
            stall = 0;
        }
    }
}

/* The best order found so far, by final_less, and where it came from. */
typedef struct search_best {
    int order[KC_BITMAT_MAX];
    score sc;
    const char *from;
} search_best;

/* Evaluates the order o (e is left at o) and keeps it in best when better,
 * as coming from `from`. */
static void keep_if_better(ev *e, const int *o, const char *from, search_best *best)
{
    ev_set(e, o);
    if (final_less(&e->sc, &best->sc)) {
        best->sc = e->sc;
        memcpy(best->order, o, sizeof(int) * (size_t)e->n);
        best->from = from;
    }
}

/* The starts: the identity, then each communication's own optimum (up to
 * KC_MAPSET_SEARCH_STARTS of them). Returns how many were written. */
static int search_starts(const kc_lcc *comms, int m, int n, int (*starts)[KC_BITMAT_MAX])
{
    for (int t = 0; t < n; t++)
        starts[0][t] = t;
    int nstarts = 1;
    for (int r = 0; r < m && nstarts <= KC_MAPSET_SEARCH_STARTS; r++) {
        kc_order so;
        if (kc_reorder_optimal(&comms[r], &so, NULL) == KC_OK)
            memcpy(starts[nstarts++], so.dim, sizeof(int) * (size_t)n);
    }
    return nstarts;
}

/* The coarse DP's block size: at most 16 blocks, and the coarse DPs of the
 * nstarts starts within a quarter of the work. */
static int block_size(int n, int m, int nstarts, uint64_t work)
{
    int b = 2;
    while ((n + b - 1) / b > 16)
        b++;
    for (;;) {
        int nb = (n + b - 1) / b;
        double cost = ldexp(1.0, nb) * nb * m * b * (double)nstarts;
        if (cost <= (double)work / 4 || nb <= 2)
            break;
        b++;
    }
    return b;
}

/* Each start and, from n = 4, the coarsened DP over its blocks, kept in
 * best when better; progress reported after each start. */
static kc_status try_starts(ev *e, int (*starts)[KC_BITMAT_MAX], int nstarts, int b, uint64_t work,
                            const kc_progress *progress, search_best *best, kc_err *err)
{
    int n = e->n, cand[KC_BITMAT_MAX];
    for (int i = 0; i < nstarts; i++) {
        keep_if_better(e, starts[i], i == 0 ? "identity" : "single-optimum", best);
        if (n >= 4 && (n + b - 1) / b >= 2) {
            kc_status st = coarse_dp(e, starts[i], b, cand, err);
            if (st)
                return st;
            keep_if_better(e, cand, "coarse-dp", best);
        }
        kc_progress_report(progress, (double)e->work, (double)work);
    }
    return KC_OK;
}

/* Improve: from the best start, with kicks, in chunks of a sixteenth of
 * the work until it is spent or the value reaches the lower bound. */
static void improve(ev *e, kc_rng *rng, uint64_t work, uint64_t lower, const kc_progress *progress,
                    search_best *best)
{
    if (best->sc.value <= lower)
        return;
    ev_set(e, best->order);
    uint64_t chunk = work / 16 + 1;
    while (e->work < work && best->sc.value > lower) {
        uint64_t until = e->work + chunk < work ? e->work + chunk : work;
        local_search(e, rng, until, best->order, &best->sc);
        kc_progress_report(progress, (double)e->work, (double)work);
    }
}

kc_status kc_mapset_search(const kc_lcc *comms, int m, kc_objective obj, const kc_mapset_search_opts *opts,
                           kc_mapset_search_result *out, const kc_progress *progress, kc_err *err)
{
    if (m < 1)
        return kc_fail(err, KC_EINVAL, "no communications given");
    int n = comms[0].a.n;
    for (int r = 1; r < m; r++)
        if (comms[r].a.n != n)
            return kc_fail(err, KC_EINVAL, "communication %d has n = %d, the first has n = %d", r, comms[r].a.n, n);
    kc_mapset_search_opts o;
    if (opts)
        o = *opts;
    else
        kc_mapset_search_opts_default(&o);
    if (!o.work)
        o.work = KC_MAPSET_SEARCH_WORK;
    memset(out, 0, sizeof *out);
    out->lower = kc_mapset_lower_bound(comms, m, obj);
    ev e;
    kc_status st = ev_init(&e, comms, m, obj, err);
    if (st) {
        ev_free(&e);
        return st;
    }
    kc_rng rng;
    kc_rng_seed(&rng, o.seed);
    search_best best = {.sc = {UINT64_MAX, UINT64_MAX, 0}, .from = "identity"};
    int starts[1 + KC_MAPSET_SEARCH_STARTS][KC_BITMAT_MAX];
    int nstarts = search_starts(comms, m, n, starts);
    st = try_starts(&e, starts, nstarts, block_size(n, m, nstarts, o.work), o.work, progress, &best, err);
    if (!st && o.start && kc_order_valid(o.start, n))
        keep_if_better(&e, o.start, "given-start", &best);
    if (!st) {
        improve(&e, &rng, o.work, out->lower, progress, &best);
        out->best.order.n = n;
        memcpy(out->best.order.dim, best.order, sizeof(int) * (size_t)n);
        out->best.value = kc_objective_value(comms, m, obj, &out->best.order, &out->best.total);
        out->work = e.work;
        out->start = best.from;
        out->proved = out->best.value <= out->lower;
    }
    ev_free(&e);
    return st;
}
