/* HL beyond linear-complement permutations: M-SIMD cuts (Lemmas 6, 7), MIMD
 * rules, and the census of every permutation of Q_2 and Q_3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/hl_class.h"
#include "kcube/names.h"
#include "kcube/perm.h"

/* ---- cuts along the top bits ------------------------------------------- */

typedef struct cut {
    int k;              /* 0: a leaf, routed as one piece */
    struct cut *sigma;  /* the top k bits */
    struct cut **tau;   /* 2^k of them, the low n - k bits of each partition */
} cut;

static void cut_free(cut *c)
{
    if (!c)
        return;
    if (c->k) {
        cut_free(c->sigma);
        for (uint64_t h = 0; h < (1ULL << c->k); h++)
            cut_free(c->tau[h]);
        free(c->tau);
    }
    free(c);
}

/* Do the top k bits of dst[x] depend only on the top k bits of x? Then
 * sigma (2^k entries) and tau (2^k rows of 2^{n-k}) get the pieces. */
static int split_top(int n, const uint32_t *dst, int k, uint32_t *sigma, uint32_t *tau)
{
    int low = n - k;
    uint64_t nh = 1ULL << k, nl = 1ULL << low;
    for (uint64_t h = 0; h < nh; h++) {
        uint32_t top = dst[h << low] >> low;
        sigma[h] = top;
        for (uint64_t l = 0; l < nl; l++) {
            uint32_t y = dst[(h << low) | l];
            if ((y >> low) != top)
                return 0;
            tau[h * nl + l] = y & (uint32_t)kc_mask(low);
        }
    }
    return 1;
}

/* 1: dst passes, 0: it does not, -1: out of memory. */
typedef int (*base_fn)(int n, const uint32_t *dst);

/* A cut tree whose leaves all pass `base`, or NULL: no such tree, or out of
 * memory, which sets *nomem (then the answer is unknown, not "no"). */
static cut *decide(int n, const uint32_t *dst, base_fn base, int *nomem)
{
    cut *c = calloc(1, sizeof *c);
    int b = c ? base(n, dst) : -1;
    if (b < 0) {
        *nomem = 1;
        free(c);
        return NULL;
    }
    if (b)
        return c;
    uint64_t np = 1ULL << n;
    uint32_t *sigma = malloc(np * sizeof *sigma), *tau = malloc(np * sizeof *tau);
    if (!sigma || !tau)
        *nomem = 1;
    for (int k = 1; k < n && !*nomem; k++) {
        if (!split_top(n, dst, k, sigma, tau))
            continue;
        uint64_t nh = 1ULL << k, nl = 1ULL << (n - k);
        c->k = k;
        c->tau = calloc(nh, sizeof *c->tau);
        if (!c->tau)
            *nomem = 1;
        int ok = c->tau && (c->sigma = decide(k, sigma, base, nomem)) != NULL;
        for (uint64_t h = 0; h < nh && ok; h++)
            ok = (c->tau[h] = decide(n - k, tau + h * nl, base, nomem)) != NULL;
        if (ok) {
            free(sigma);
            free(tau);
            return c;
        }
        cut_free(c->sigma);
        if (c->tau)
            for (uint64_t h = 0; h < nh; h++)
                cut_free(c->tau[h]);
        free(c->tau);
        memset(c, 0, sizeof *c);
    }
    free(sigma);
    free(tau);
    free(c);
    return NULL;
}

static int base_simd(int n, const uint32_t *dst)
{
    kc_hl_result r;
    kc_status s = kc_hl_route(n, dst, NULL, &r, NULL);
    return s == KC_ENOMEM ? -1 : s == KC_OK && r.routed;
}

static int base_lc(int n, const uint32_t *dst) { return kc_hl_is_lc(n, dst, NULL, NULL); }

int kc_hl_msimd_routable(int n, const uint32_t *dst)
{
    if (n < 1 || n > KC_HL_CLASS_MAX_N)
        return 0;
    int nomem = 0;
    cut *c = decide(n, dst, base_simd, &nomem);
    cut_free(c);
    return nomem ? -1 : c != NULL;
}

int kc_hl_is_plc(int n, const uint32_t *dst)
{
    if (n < 1 || n > KC_HL_CLASS_MAX_N)
        return 0;
    /* every permutation of 2 or 4 nodes is linear-complement, so the
     * definition's "PLC_n = LC_n for n <= 2" is what base_lc gives */
    int nomem = 0;
    cut *c = decide(n, dst, base_lc, &nomem);
    cut_free(c);
    return nomem ? -1 : c != NULL;
}

/* The leaf that runs processor x's subcube at step t, with its bit range. */
static const cut *leaf_at(const cut *c, int lo, int hi, int t, uint64_t x, int *llo, int *lhi, int *lt)
{
    while (c->k) {
        int k = c->k, nlow = hi - lo - k;
        if (t < nlow) {
            c = c->tau[(x >> (hi - k)) & kc_mask(k)];
            hi -= k;
        } else {
            t -= nlow;
            c = c->sigma;
            lo = hi - k;
        }
    }
    *llo = lo;
    *lhi = hi;
    *lt = t;
    return c;
}

static const kc_name msimd_entries[] = {
    {KC_HL_MSIMD_CUT, "cut", "Lemmas 6, 7: cuts along the top bits fixed by the permutation, SIMD HL in each piece"},
    {KC_HL_MSIMD_SPLIT, "split", "every step splits each subcube along the bit it corrected; halves go on alone"},
    {0, NULL, NULL},
};
const kc_names kc_hl_msimd_names = {"M-SIMD reading", msimd_entries};

kc_status kc_hl_msimd_run(int n, const uint32_t *dst, kc_hl_result *res, kc_err *err)
{
    return kc_hl_msimd_route(KC_HL_MSIMD_CUT, n, dst, res, err);
}

/* The bit the subcube of x (x its lowest processor, dmask its free bits,
 * `used` those already corrected) corrects in step t under HL's rules; *st
 * gets its state. On an error state or a subcube whose two-tag processors
 * disagree, res->failed_step and res->why are set (the return value is then
 * meaningless). */
static int subcube_bit(const kc_hl_engine *e, uint64_t x, uint64_t dmask, uint64_t used, int t, kc_hl_result *res,
                       char *st)
{
    *st = kc_hl_state_sub(e, x, dmask);
    if (*st == 'A')
        return kci_ctz64(dmask & ~used);
    if (*st != 'B') {
        res->failed_step = t;
        snprintf(res->why, sizeof res->why, "step %d: subcube of processor %llu in neither state A nor B", t + 1,
                 (unsigned long long)x);
        return -1;
    }
    int d = -1;
    uint64_t sub = 0;
    do {
        const uint32_t *tg;
        if (kc_hl_tags(e, x | sub, &tg) == 2) {
            uint64_t diff = (tg[0] ^ tg[1]) & dmask;
            int dm = diff ? kci_ctz64(diff) : -1;
            if (dm < 0 || (d >= 0 && dm != d)) {
                res->failed_step = t;
                snprintf(res->why, sizeof res->why, "step %d: subcube of processor %llu cannot agree on a bit",
                         t + 1, (unsigned long long)x);
                return -1;
            }
            d = dm;
        }
        sub = (sub - dmask) & dmask;
    } while (sub);
    return d;
}

/* Step t with every processor's chosen bit (dim[x], -1: none), recorded in
 * res; -1 (failed_step set) when a processor would hold three tags. */
static int take_step(kc_hl_engine *e, const int8_t *dim, uint64_t *used, int t, kc_hl_result *res)
{
    /* only now: the split reading reads its subcubes off used[] */
    for (uint64_t x = 0; x < e->count_procs; x++)
        if (dim[x] >= 0)
            used[x] |= 1ULL << dim[x];
    if (kc_hl_engine_step_each(e, dim) != KC_OK) {
        res->failed_step = t;
        snprintf(res->why, sizeof res->why, "step %d: processor %llu would hold more than 2 tags", t + 1,
                 (unsigned long long)e->overflow_at);
        return -1;
    }
    res->moved[t] = e->moved_last;
    res->twos[t] = e->sum.twos;
    res->others[t] = e->count_procs - e->sum.ones - e->sum.twos;
    res->steps = t + 1;
    return 0;
}

/* M-SIMD routing's shared state: the engine, the cut decided first (NULL
 * with the split reading), each processor's bit for the step and the bits
 * its subcube has corrected. */
typedef struct msimd_run {
    kc_hl_engine e;
    cut *c;
    int n;
    uint64_t np;
    int8_t *dim;    /* [np] */
    uint64_t *used; /* [np] */
} msimd_run;

/* The cut reading found no cut: the result says why, with SIMD HL's own
 * failure (kc_hl_route's result, not routed). */
static kc_status no_cut(int n, const uint32_t *dst, kc_hl_result *res, kc_err *err)
{
    kc_hl_result r;
    kc_status s = kc_hl_route(n, dst, NULL, &r, err);
    if (s)
        return s;
    *res = r;
    res->routed = 0;
    snprintf(res->why, sizeof res->why, "no cut along the top bits splits it into pieces SIMD HL routes");
    return KC_OK;
}

/* Each subcube's bit for step t, given to all its processors in r->dim;
 * res->states[t] and res->dims[t] say how they chose. -1 (states[t] = 'E')
 * when some subcube has none. O(2^n). */
static int choose_bits(msimd_run *r, int t, kc_hl_result *res)
{
    int as = 0, bs = 0, d0 = -2, n = r->n;
    memset(r->dim, 0xff, r->np);
    for (uint64_t x = 0; x < r->np && res->failed_step < 0; x++) {
        /* dmask: the bits x's subcube may still correct; used: those of
         * them it has corrected (split: none, they left dmask) */
        uint64_t dmask = kc_mask(n) & ~r->used[x];
        int fresh = 0;
        if (r->c) {
            int lo, hi, lt;
            leaf_at(r->c, 0, n, t, x, &lo, &hi, &lt);
            dmask = kc_mask(hi) & ~kc_mask(lo);
            fresh = lt == 0;
        }
        if (x & dmask)
            continue; /* not the lowest processor of its subcube */
        uint64_t sub = 0;
        if (fresh)
            do {
                r->used[x | sub] = 0;
                sub = (sub - dmask) & dmask;
            } while (sub);
        char st;
        int d = subcube_bit(&r->e, x, dmask, r->used[x], t, res, &st);
        as += st == 'A';
        bs += st == 'B';
        if (res->failed_step >= 0)
            break;
        sub = 0;
        do {
            r->dim[x | sub] = (int8_t)d;
            sub = (sub - dmask) & dmask;
        } while (sub);
        d0 = d0 == -2 ? d : d0 == d ? d : -1;
    }
    if (res->failed_step >= 0) {
        res->states[t] = 'E';
        return -1;
    }
    res->states[t] = bs == 0 ? 'A' : as == 0 ? 'B' : 'M';
    res->dims[t] = d0;
    return 0;
}

/* The routing's outcome after the steps: states closed, final state, moves,
 * and why it did not route. */
static void msimd_outcome(msimd_run *r, kc_hl_result *res)
{
    res->states[res->failed_step >= 0 ? res->failed_step + 1 : res->steps] = '\0';
    res->final_state = kc_hl_state(&r->e);
    res->max_moved = r->e.max_moved;
    res->routed = res->failed_step < 0 && kc_hl_routed(&r->e);
    if (!res->routed && res->failed_step < 0)
        snprintf(res->why, sizeof res->why, "after %d steps some tag is not at its destination", res->steps);
}

kc_status kc_hl_msimd_route(kc_hl_msimd_reading reading, int n, const uint32_t *dst, kc_hl_result *res,
                            kc_err *err)
{
    if (n < 1 || n > KC_HL_CLASS_MAX_N)
        return kc_fail_param(err, KC_ERANGE, "n", "M-SIMD routing supports n = 1..%d, got %d", KC_HL_CLASS_MAX_N,
                             n);
    if (reading != KC_HL_MSIMD_CUT && reading != KC_HL_MSIMD_SPLIT)
        return kc_fail_param(err, KC_EINVAL, "reading", "unknown M-SIMD reading %d", (int)reading);
    memset(res, 0, sizeof *res);
    res->n = n;
    res->failed_step = -1;
    res->affine_ok = 1;
    res->lemma3_ok = 1;
    /* cut: the recursive cut decided first; split: no plan, the subcubes
     * are whatever the steps taken so far leave */
    msimd_run r = {.n = n, .np = 1ULL << n};
    int nomem = 0;
    if (reading == KC_HL_MSIMD_CUT && !(r.c = decide(n, dst, base_simd, &nomem))) {
        if (nomem)
            return kc_fail(err, KC_ENOMEM, "out of memory for the M-SIMD decision");
        return no_cut(n, dst, res, err);
    }
    kc_status s = kc_hl_engine_init(&r.e, n, dst, 2, 0, err);
    r.dim = malloc(r.np);
    r.used = calloc(r.np, sizeof *r.used);
    if (s || !r.dim || !r.used) {
        if (!s)
            kc_hl_engine_free(&r.e);
        free(r.dim);
        free(r.used);
        cut_free(r.c);
        return s ? s : kc_fail(err, KC_ENOMEM, "out of memory");
    }
    for (int t = 0; t < n && res->failed_step < 0; t++)
        if (choose_bits(&r, t, res) || take_step(&r.e, r.dim, r.used, t, res))
            break;
    msimd_outcome(&r, res);
    kc_hl_engine_free(&r.e);
    free(r.dim);
    free(r.used);
    cut_free(r.c);
    return KC_OK;
}

/* ---- MIMD ---------------------------------------------------------------- */

kc_status kc_hl_mimd_greedy(int n, const uint32_t *dst, kc_hl_result *res, int *max_held, kc_err *err)
{
    if (n < 1 || n > KC_HL_CLASS_MAX_N)
        return kc_fail(err, KC_ERANGE, "MIMD routing supports n = 1..%d, got %d", KC_HL_CLASS_MAX_N, n);
    kc_hl_engine e;
    kc_status s = kc_hl_engine_init(&e, n, dst, n + 1, 0, err);
    if (s)
        return s;
    const uint64_t np = 1ULL << n;
    int8_t *dim = malloc(np);
    uint64_t *corrected = calloc(np, sizeof *corrected); /* per tag */
    if (!dim || !corrected) {
        free(dim);
        free(corrected);
        kc_hl_engine_free(&e);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    memset(res, 0, sizeof *res);
    res->n = n;
    res->failed_step = -1;
    int held = 1;
    for (int t = 0; t < n && res->failed_step < 0; t++) {
        res->states[t] = kc_hl_state(&e);
        int d0 = -2;
        for (uint64_t x = 0; x < np; x++) {
            const uint32_t *tg;
            int c = kc_hl_tags(&e, x, &tg), d = -1;
            if (c == 1) {
                uint64_t free_bits = kc_mask(n) & ~corrected[tg[0]];
                d = free_bits ? kci_ctz64(free_bits) : -1;
            } else if (c == 2) {
                d = kci_ctz64(tg[0] ^ tg[1]);
            } else if (c > 2) {
                res->failed_step = t;
                snprintf(res->why, sizeof res->why, "step %d: processor %llu holds %d tags", t + 1,
                         (unsigned long long)x, c);
                break;
            }
            dim[x] = (int8_t)d;
            for (int i = 0; i < c && d >= 0; i++)
                corrected[tg[i]] |= 1ULL << d;
            if (c)
                d0 = d0 == -2 ? d : d0 == d ? d : -1;
        }
        if (res->failed_step >= 0)
            break;
        res->dims[t] = d0;
        s = kc_hl_engine_step_each(&e, dim);
        if (s)
            break; /* cannot happen with cap n + 1 */
        res->moved[t] = e.moved_last;
        res->twos[t] = e.sum.twos;
        res->others[t] = e.count_procs - e.sum.ones - e.sum.twos;
        res->steps = t + 1;
        for (uint64_t x = 0; x < np; x++)
            if (e.count[x] > held)
                held = e.count[x];
    }
    res->states[res->failed_step >= 0 ? res->failed_step + 1 : res->steps] = '\0';
    res->final_state = kc_hl_state(&e);
    res->max_moved = e.max_moved;
    res->routed = res->failed_step < 0 && kc_hl_routed(&e);
    if (!res->routed && res->failed_step < 0)
        snprintf(res->why, sizeof res->why, "after %d steps some tag is not at its destination", res->steps);
    if (max_held)
        *max_held = held;
    free(dim);
    free(corrected);
    kc_hl_engine_free(&e);
    return s;
}

/* Exhaustive MIMD schedules. pos[tag] is the tag's processor (tags are
 * destinations). Processors decide one after another within a step. */
typedef struct msearch {
    int n, cap, circuit;
    uint8_t link_used[16 * 4]; /* circuit: directed link x -> x ^ 2^d already on a path */
    uint64_t np;
    uint32_t pos[16], npos[16];
    int8_t *dims;
} msearch;

static int msearch_step(msearch *m, int t);

static int msearch_proc(msearch *m, int t, uint64_t x)
{
    const int left = m->n - t - 1; /* steps after this one */
    if (x == m->np) {
        int held[16] = {0};
        for (uint64_t y = 0; y < m->np; y++)
            if (++held[m->npos[y]] > m->cap)
                return 0;
        /* the next step overwrites pos and npos: keep both for backtracking */
        uint32_t save[16], nsave[16];
        memcpy(save, m->pos, sizeof save);
        memcpy(nsave, m->npos, sizeof nsave);
        memcpy(m->pos, m->npos, sizeof save);
        if (msearch_step(m, t + 1))
            return 1;
        memcpy(m->pos, save, sizeof save);
        memcpy(m->npos, nsave, sizeof nsave);
        return 0;
    }
    uint32_t tags[16];
    int c = 0;
    for (uint64_t y = 0; y < m->np; y++)
        if (m->pos[y] == x)
            tags[c++] = (uint32_t)y;
    /* idle, or a bit on which exactly one of x's tags is wrong */
    for (int d = -1; d < m->n; d++) {
        int movers = 0, ok = 1;
        for (int i = 0; i < c; i++) {
            int wrong = d >= 0 && (((tags[i] ^ x) >> d) & 1);
            movers += wrong;
            uint32_t np_ = wrong ? (uint32_t)(x ^ (1ULL << d)) : (uint32_t)x;
            m->npos[tags[i]] = np_;
            if (kci_popcount32(np_ ^ tags[i]) > left)
                ok = 0;
        }
        if (d >= 0 && movers != 1)
            continue;
        if (!ok)
            continue;
        size_t link = (size_t)x * (size_t)m->n + (size_t)(d < 0 ? 0 : d);
        if (d >= 0 && m->circuit && m->link_used[link])
            continue;
        if (m->dims)
            m->dims[(size_t)t * m->np + x] = (int8_t)d;
        if (d >= 0 && m->circuit)
            m->link_used[link] = 1;
        if (msearch_proc(m, t, x + 1))
            return 1;
        if (d >= 0 && m->circuit)
            m->link_used[link] = 0;
    }
    return 0;
}

static int msearch_step(msearch *m, int t)
{
    if (t == m->n) {
        for (uint64_t y = 0; y < m->np; y++)
            if (m->pos[y] != y)
                return 0;
        return 1;
    }
    return msearch_proc(m, t, 0);
}

int kc_hl_mimd_search(int n, const uint32_t *dst, int cap, int circuit, int8_t *dims)
{
    if (n < 1 || n > 4)
        return 0;
    msearch m = {.n = n, .cap = cap, .circuit = circuit, .np = 1ULL << n, .dims = dims};
    if (kc_perm_invert(dst, m.pos, m.np, NULL, NULL)) /* not a permutation: no schedule */
        return 0;
    return msearch_step(&m, 0);
}

/* ---- census ---------------------------------------------------------------- */

kc_status kc_hl_census_run(int n, kc_hl_census *c, kc_hl_census_fn each, void *ctx, kc_err *err)
{
    if (n < 1 || n > 3)
        return kc_fail(err, KC_ERANGE, "the census covers n = 1..3 ((2^n)! permutations), got %d", n);
    memset(c, 0, sizeof *c);
    c->n = n;
    c->lc_in_simd = c->simd_in_msimd = c->plc_in_msimd = c->simd_in_split = c->plc_in_split = 1;
    int len = 1 << n;
    uint32_t p[8];
    kc_perm_identity(p, (size_t)len);
    do {
        c->total++;
        int lc = kc_hl_is_lc(n, p, NULL, NULL), plc = kc_hl_is_plc(n, p);
        if (plc < 0)
            return kc_fail(err, KC_ENOMEM, "out of memory for the census");
        kc_hl_result r;
        kc_hl_opts msb = {.msb_first = 1};
        kc_status s;
        if ((s = kc_hl_route(n, p, NULL, &r, err)))
            return s;
        int simd = r.routed;
        if ((s = kc_hl_route(n, p, &msb, &r, err)))
            return s;
        int simd_msb = r.routed;
        /* M-SIMD: the decision, confirmed by running the schedule */
        int ms = kc_hl_msimd_routable(n, p);
        if (ms < 0)
            return kc_fail(err, KC_ENOMEM, "out of memory for the census");
        if ((s = kc_hl_msimd_run(n, p, &r, err)))
            return s;
        if (r.routed != ms || (ms && r.max_moved > 1))
            return kc_fail(err, KC_EINTERNAL, "internal: M-SIMD decision and run disagree");
        if ((s = kc_hl_msimd_route(KC_HL_MSIMD_SPLIT, n, p, &r, err)))
            return s;
        if (r.routed && r.max_moved > 1)
            return kc_fail(err, KC_EINTERNAL, "internal: a split M-SIMD step sent two tags from one processor");
        int split = r.routed;
        int held = 0;
        if ((s = kc_hl_mimd_greedy(n, p, &r, &held, err)))
            return s;
        int greedy = r.routed;
        int any2 = kc_hl_mimd_search(n, p, 2, 0, NULL);
        int any3 = any2 || kc_hl_mimd_search(n, p, 3, 0, NULL);
        int circ = kc_hl_mimd_search(n, p, 2, 1, NULL);
        c->lc += (uint64_t)lc;
        c->plc += (uint64_t)plc;
        c->simd += (uint64_t)simd;
        c->simd_msb += (uint64_t)simd_msb;
        c->msimd += (uint64_t)ms;
        c->msimd_split += (uint64_t)split;
        c->msimd_either += (uint64_t)(ms || split);
        c->mimd_greedy += (uint64_t)greedy;
        c->mimd_any += (uint64_t)any2;
        c->mimd_any3 += (uint64_t)any3;
        c->mimd_circuit += (uint64_t)circ;
        if (each)
            each(ctx, p,
                 (unsigned)(lc * KC_HL_IS_LC | plc * KC_HL_IS_PLC | simd * KC_HL_ROUTES_SIMD |
                            simd_msb * KC_HL_ROUTES_SIMD_MSB | ms * KC_HL_ROUTES_MSIMD |
                            greedy * KC_HL_ROUTES_MIMD_GREEDY | any2 * KC_HL_ROUTES_MIMD_ANY |
                            circ * KC_HL_ROUTES_MIMD_CIRCUIT | split * KC_HL_ROUTES_MSIMD_SPLIT));
        if (greedy && held > c->mimd_greedy_max_held)
            c->mimd_greedy_max_held = held;
        if (lc && !(simd && simd_msb))
            c->lc_in_simd = 0;
        if (simd && !ms)
            c->simd_in_msimd = 0;
        if (plc && !ms)
            c->plc_in_msimd = 0;
        if (simd && !split)
            c->simd_in_split = 0;
        if (plc && !split)
            c->plc_in_split = 0;
    } while (kc_perm_next(p, (size_t)len));
    return KC_OK;
}
