/* Link contention on k-ary n-cubes: Theorem 1 of seed 002 by ranks of
 * submatrices, and exact counters. */
#include <stdlib.h>
#include <string.h>

#include "kcube/tcontention.h"
#include "net/teval.h"
#include "core/bits.h"
#include "kcube/torus.h"
#include "tinternal.h"

#define EXACT_MAX_BITS 30 /* exact counting keeps 8 N bytes of counters */

/* ---- Theorem 1 ----------------------------------------------------------- */

static const kc_name tcase_entries[] = {
    {KC_TCASE_IDLE, "idle", "no message moves in this dimension"},
    {KC_TCASE_1, "1", "one entry node, one exit node per ring"},
    {KC_TCASE_2, "2", "one entry, k exits"},
    {KC_TCASE_3, "3", "k entries, one exit"},
    {KC_TCASE_4A, "4a", "k-to-k scatter-gather"},
    {KC_TCASE_4B, "4b", "k-to-k permutation (the paper only bounds it)"},
    {0, NULL, NULL},
};
const kc_names kc_tcase_names = {"Theorem 1 case", tcase_entries};

const char *kc_tcase_name(kc_tcase c) { return kc_names_name(&kc_tcase_names, (int)c); }

static uint64_t ipow(uint64_t k, int e)
{
    uint64_t r = 1;
    while (e-- > 0)
        r *= k;
    return r;
}

static void finish(kc_tcontention *out)
{
    out->max = 0;
    out->max_dim = -1;
    out->exact = 1;
    for (int i = 0; i < out->n; i++) {
        if (out->per_dim[i] > out->max) {
            out->max = out->per_dim[i];
            out->max_dim = i;
        }
        if (!out->exact_dim[i])
            out->exact = 0;
    }
}

/* ---- case 4b exactly (derived here, not in the paper) ---------------------
 * In case 4b the column of dimension j restricted to the rows S (the
 * dimensions routed before j) is A[S,S] u for some u, so moving a message
 * within its ring changes x_j by t and x_S by t u; its exit then changes by
 * alpha t with alpha = A[j][j] + A[j,S] u (the same for every ring). The
 * offset beta of a ring is y_j of its message with x_j = 0: the constant b_j
 * when row j of A is zero outside column j, otherwise every value of GF(k)
 * occurs. A scatter is the mirrored gather read backwards: its rings map
 * s -> alpha^-1 (s + beta). */

/* Solve A[S,S] u = A[S,j] (consistent in case 4b); u is indexed by dimension. */
static void solve_case4b(const kc_gf *f, const kc_gfmat *a, uint64_t set, int j, uint8_t *u)
{
    int idx[KC_GFMAT_MAX], m = 0;
    for (int d = 0; d < a->n; d++)
        if ((set >> d) & 1)
            idx[m++] = d;
    uint8_t aug[KC_GFMAT_MAX][KC_GFMAT_MAX + 1];
    for (int r = 0; r < m; r++) {
        for (int c = 0; c < m; c++)
            aug[r][c] = a->e[idx[r]][idx[c]];
        aug[r][m] = a->e[idx[r]][j];
    }
    int pivot_col[KC_GFMAT_MAX], rank = 0;
    for (int c = 0; c < m && rank < m; c++) {
        int p = -1;
        for (int r = rank; r < m; r++)
            if (aug[r][c]) {
                p = r;
                break;
            }
        if (p < 0)
            continue;
        for (int x = 0; x <= m; x++) {
            uint8_t tmp = aug[p][x];
            aug[p][x] = aug[rank][x];
            aug[rank][x] = tmp;
        }
        unsigned inv = f->inv[aug[rank][c]];
        for (int x = 0; x <= m; x++)
            aug[rank][x] = (uint8_t)kc_gf_mul(f, aug[rank][x], inv);
        for (int r = 0; r < m; r++) {
            unsigned factor = aug[r][c];
            if (r == rank || !factor)
                continue;
            for (int x = 0; x <= m; x++)
                aug[r][x] ^= (uint8_t)kc_gf_mul(f, factor, aug[rank][x]);
        }
        pivot_col[rank++] = c;
    }
    memset(u, 0, KC_GFMAT_MAX);
    for (int r = 0; r < rank; r++)
        u[idx[pivot_col[r]]] = aug[r][m]; /* free variables stay 0 */
}

/* Largest number of groups over one link when ring position s goes to
 * alpha s + beta, over the betas that occur; difference arrays per beta. */
static uint64_t case4b_groups(const kc_torus *t, const kc_tcomm *c, uint64_t set, int j)
{
    const kc_gf *f = &c->f;
    const kc_gfmat *a = &c->a;
    int k = t->k;
    uint8_t u[KC_GFMAT_MAX];
    solve_case4b(f, a, set, j, u);
    unsigned alpha = a->e[j][j];
    for (int d = 0; d < a->n; d++)
        if ((set >> d) & 1)
            alpha ^= kc_gf_mul(f, a->e[j][d], u[d]);
    int row_zero = 1;
    for (int d = 0; d < a->n; d++)
        if (d != j && a->e[j][d])
            row_zero = 0;
    int scatter = c->kind == KC_TCOMM_SCATTER;
    unsigned mul = alpha, first = 0, last = (unsigned)k - 1;
    if (scatter)
        mul = f->inv[alpha]; /* s -> alpha^-1 s + alpha^-1 beta */
    if (row_zero) {
        first = last = scatter ? kc_gf_mul(f, f->inv[alpha], c->b[j]) : c->b[j];
    }
    int plus[KC_GF_MAX_K + 1], minus[KC_GF_MAX_K + 1];
    uint64_t best = 0;
    for (unsigned beta = first; beta <= last; beta++) {
        memset(plus, 0, sizeof plus);
        memset(minus, 0, sizeof minus);
        for (unsigned s0 = 0; s0 < (unsigned)k; s0++) {
            unsigned d = kc_gf_mul(f, mul, s0) ^ beta;
            int mv = kc_torus_ring_move(t, s0, d);
            if (mv > 0) { /* links s0 .. s0+mv-1 of the + direction, mod k */
                int e = (int)s0 + mv;
                plus[s0]++;
                if (e <= k) {
                    plus[e]--;
                } else {
                    plus[k]--;
                    plus[0]++;
                    plus[e - k]--;
                }
            } else if (mv < 0) { /* links s0+mv+1 .. s0 of the - direction */
                int lo = (int)s0 + mv + 1;
                if (lo >= 0) {
                    minus[lo]++;
                } else {
                    minus[lo + k]++;
                    minus[0]++;
                }
                minus[s0 + 1]--;
            }
        }
        int rp = 0, rm = 0;
        for (int w = 0; w < k; w++) {
            rp += plus[w];
            rm += minus[w];
            if ((uint64_t)rp > best)
                best = (uint64_t)rp;
            if ((uint64_t)rm > best)
                best = (uint64_t)rm;
        }
    }
    return best;
}

/* Theorem 1's case of dimension j routed after the dimensions s, from the
 * ranks of A's submatrices over s and s + j; *exponent gets e, the paths
 * of a group being k^e. O(n^3). */
static kc_tcase theorem1_case(const kc_gf *f, const kc_gfmat *a, uint64_t s, int j, int *exponent)
{
    uint64_t sj = s | (1ULL << j);
    int ra = kc_gfmat_rank_sub(f, a, s, s);
    int rb = kc_gfmat_rank_sub(f, a, s, sj);
    int rc = kc_gfmat_rank_sub(f, a, sj, sj);
    int rd = kc_gfmat_rank_sub(f, a, sj, s);
    *exponent = kci_popcount64(s) - rb;
    if (rb == ra + 1)
        return rc == rb ? KC_TCASE_1 : KC_TCASE_2;
    return rc == rb ? KC_TCASE_3 : (rd == rc ? KC_TCASE_4A : KC_TCASE_4B);
}

/* Cases 2 and 3 on a mesh: the groups over the worst link, the single
 * entry (exit) at position s giving max(s, k-1-s).
 * Every source has some ring, so in case 2 (and, mirrored, for scatters)
 * the single entry takes every position, 0 included: k-1 groups. In case 3
 * the single exit is y_j, every position unless row j of A is zero, when
 * it is b_j. (Scatters: the same with the roles read backwards.) */
static uint64_t mesh_single_end_groups(const kc_tcomm *c, kc_tcase tc, int j)
{
    uint64_t k = (uint64_t)c->f.k;
    uint64_t worst = k - 1;
    int row_zero = 1;
    for (int d = 0; d < c->a.n; d++)
        if (c->a.e[j][d])
            row_zero = 0;
    if (tc == KC_TCASE_3 && row_zero) {
        uint64_t at = c->b[j];
        worst = at > k - 1 - at ? at : k - 1 - at;
    }
    return worst;
}

/* The contention of dimension j in case tc (not idle), groups of ke = k^e
 * paths, s the dimensions routed before j. Exact in every case. */
static uint64_t case_value(const kc_torus *t, const kc_tcomm *c, kc_tcase tc, uint64_t s, int j, uint64_t ke)
{
    uint64_t k = (uint64_t)c->f.k;
    switch (tc) {
    case KC_TCASE_1:
        return k * ke;
    case KC_TCASE_2:
    case KC_TCASE_3:
        /* Torus: the k exits (entries) split the ring's paths into k groups
         * of k^e, k/2 of which share the link next to the single entry
         * (exit). Mesh: with the entry (exit) at position s, max(s, k-1-s)
         * groups. */
        if (t->mesh)
            return mesh_single_end_groups(c, tc, j) * ke;
        return k / 2 * ke;
    case KC_TCASE_4A:
        /* Every entry reaches every exit, k^(e-1) paths per pair. Pairs over
         * one link: torus sum_{d=1}^{k/2} d = k(k+2)/8 with plus/minus ties,
         * k^2/8 with split ties (k >= 4); mesh (k/2)^2 at the middle link. */
        if (t->mesh)
            return ke / k * (k * k / 4);
        if (t->tie == KC_TIE_SPLIT && k >= 4)
            return ke / k * (k * k / 8);
        return ke / k * (k * (k + 2) / 8);
    default:
        /* 4b: each ring maps its k entries one-to-one onto its k exits, in
         * groups of k^e paths; Theorem 1 only bounds it (a moving group loads
         * a link, no link carries more than k/2 groups). The map is affine,
         * exit = alpha * entry + beta, with alpha the same in every ring, so
         * routing one ring per beta gives the exact value. */
        return ke * case4b_groups(t, c, s, j);
    }
}

void kci_tformula_place(const kc_torus *t, const kc_tcomm *c, uint64_t before, int j, kc_tcase *tcase, int *exponent,
                       uint64_t *lower, uint64_t *upper)
{
    int n = c->a.n;
    /* A scatter routed dimension 0 first is, read backwards, a gather routed
     * dimension n-1 first: its "earlier" dimensions are the later ones. */
    uint64_t s = before;
    if (c->kind == KC_TCOMM_SCATTER)
        s = kc_gf_low(n) & ~(before | (1ULL << j));
    kc_tcase tc = theorem1_case(&c->f, &c->a, s, j, exponent);
    if ((kc_tcomm_idle_dims(c) >> j) & 1) {
        *tcase = KC_TCASE_IDLE;
        *lower = *upper = 0;
        return;
    }
    *tcase = tc;
    *lower = *upper = case_value(t, c, tc, s, j, ipow((uint64_t)c->f.k, *exponent));
}

void kc_tcontention_formula(const kc_torus *t, const kc_tcomm *c, kc_tcontention *out)
{
    int n = c->a.n;
    memset(out, 0, sizeof *out);
    out->n = n;
    for (int i = 0; i < n; i++)
        out->witness[i].dim = i;
    if (c->kind == KC_TCOMM_UNIFORM) {
        finish(out);
        out->exact = 0;
        return;
    }
    for (int i = 0; i < n; i++) {
        kci_tformula_place(t, c, kc_gf_low(i), i, &out->tcase[i], &out->exponent[i], &out->lower[i],
                          &out->per_dim[i]);
        out->exact_dim[i] = out->lower[i] == out->per_dim[i];
    }
    finish(out);
}

/* ---- exact counting ------------------------------------------------------ */

typedef struct counter {
    const kc_torus *t;
    uint32_t *plus, *minus; /* difference arrays, then loads, per node */
    int16_t *move;          /* move[s * k + d]: kc_torus_ring_move(s, d) */
} counter;

/* Per-dimension constants of the hot loop. */
typedef struct dimctx {
    int sh;             /* i * m */
    unsigned kmask;     /* k - 1 */
    int k, m;
    uint64_t low, high; /* digits below i, digits above i */
} dimctx;

static dimctx dim_context(const kc_torus *t, int i)
{
    dimctx dc;
    dc.sh = i * t->m;
    dc.kmask = (unsigned)t->k - 1;
    dc.k = t->k;
    dc.m = t->m;
    dc.low = (1ULL << dc.sh) - 1;
    dc.high = ~((1ULL << (dc.sh + t->m)) - 1);
    return dc;
}

/* Record the dimension-i part of the route src -> dst. */
static inline void add_message(const counter *ct, const dimctx *dc, uint64_t src, uint64_t dst)
{
    unsigned s = (unsigned)(src >> dc->sh) & dc->kmask, d = (unsigned)(dst >> dc->sh) & dc->kmask;
    if (s == d)
        return;
    int k = dc->k, sh = dc->sh;
    uint64_t ring = (dst & dc->low) | (src & dc->high);
    int mv = ct->move[(s << dc->m) | d];
    if (k == 2) {
        /* One hop over the link at position s: count it directly. */
        (mv > 0 ? ct->plus : ct->minus)[ring | ((uint64_t)s << sh)]++;
        return;
    }
    if (mv > 0) {
        /* Links s, s+1, ..., s+mv-1 (mod k) of the + direction. */
        int e = (int)s + mv;
        ct->plus[ring | ((uint64_t)s << sh)]++;
        if (e < k) {
            ct->plus[ring | ((uint64_t)e << sh)]--;
        } else if (e > k) {
            ct->plus[ring]++;
            ct->plus[ring | ((uint64_t)(e - k) << sh)]--;
        }
    } else {
        /* Links s, s-1, ..., s+mv+1 of the - direction: positions [lo, s]. */
        int lo = (int)s + mv + 1;
        if (lo >= 0) {
            ct->minus[ring | ((uint64_t)lo << sh)]++;
        } else {
            ct->minus[ring | ((uint64_t)(lo + k) << sh)]++;
            ct->minus[ring]++;
        }
        if ((int)s + 1 < k)
            ct->minus[ring | ((uint64_t)(s + 1) << sh)]--;
    }
}

/* Prefix sums along dimension i turn differences into loads; returns the
 * largest load and its link, and clears both arrays. */
static uint64_t collect(const counter *ct, int i, kc_link *witness)
{
    const kc_torus *t = ct->t;
    uint64_t stride = 1ULL << (i * t->m), block = stride * (uint64_t)t->k, count = t->nodes;
    uint64_t best = 0;
    kc_link w = {0, i, 1};
    /* k = 2 counts loads directly (no prefix sums); a k = 2 torus never
     * uses the - array. */
    int direct = t->k == 2, passes = direct && !t->mesh ? 1 : 2;
    for (int pass = 0; pass < passes; pass++) {
        uint32_t *a = pass ? ct->minus : ct->plus;
        for (uint64_t base = 0; base < count; base += block) {
            for (uint64_t l = 0; l < stride; l++)
                if (a[base + l] > best) {
                    best = a[base + l];
                    w = (kc_link){base + l, i, pass ? -1 : 1};
                }
            for (uint64_t z = base + stride; z < base + block; z++) {
                if (!direct)
                    a[z] += a[z - stride];
                if (a[z] > best) {
                    best = a[z];
                    w = (kc_link){z, i, pass ? -1 : 1};
                }
            }
        }
        memset(a, 0, count * sizeof *a);
    }
    if (witness)
        *witness = w;
    return best;
}

typedef struct source {
    const kc_tcomm *c;
    kci_teval ev;
    kc_rng start; /* uniform: replayed for every dimension */
    kc_rng *rng;
    const uint32_t *src, *dst; /* explicit pairs */
    uint64_t count;
} source;

static void count_dim(const counter *ct, source *so, int i)
{
    dimctx dc = dim_context(ct->t, i);
    if (so->src) {
        for (uint64_t j = 0; j < so->count; j++)
            add_message(ct, &dc, so->src[j], so->dst[j]);
        return;
    }
    uint64_t count = ct->t->nodes;
    if (so->c->kind == KC_TCOMM_UNIFORM) {
        kc_rng r = so->start;
        for (uint64_t x = 0; x < count; x++)
            add_message(ct, &dc, x, kc_rng_below(&r, count));
        *so->rng = r;
        return;
    }
    /* x = high part | low part: one table lookup per high part, one per message. */
    const kci_teval *ev = &so->ev;
    uint64_t lows = ev->low_mask + 1;
    int scatter = so->c->kind == KC_TCOMM_SCATTER;
    for (uint64_t h = 0; h < count; h += lows) {
        uint64_t hv = ev->hi[h >> ev->low_bits];
        for (uint64_t l = 0; l < lows; l++) {
            uint64_t x = h | l, y = hv ^ ev->lo[l];
            if (scatter)
                add_message(ct, &dc, y, x);
            else
                add_message(ct, &dc, x, y);
        }
    }
}

static kc_status setup(const kc_torus *t, const kc_tcomm *c, kc_rng *rng, counter *ct, source *so, kc_err *err)
{
    memset(ct, 0, sizeof *ct);
    memset(so, 0, sizeof *so);
    if (t->n * t->m > EXACT_MAX_BITS)
        return kc_fail(err, KC_ERANGE, "exact counting supports N <= 2^%d nodes, the %d-ary %d-cube has 2^%d",
                       EXACT_MAX_BITS, t->k, t->n, t->n * t->m);
    if (c) {
        if (c->f.k != t->k || c->a.n != t->n)
            return kc_fail(err, KC_EINVAL, "communication is for the %d-ary %d-cube, network is the %d-ary %d-cube",
                           c->f.k, c->a.n, t->k, t->n);
        so->c = c;
        if (c->kind == KC_TCOMM_UNIFORM) {
            if (!rng)
                return kc_fail(err, KC_EINVAL, "the uniform pattern needs a random stream");
            so->rng = rng;
            so->start = *rng;
        } else {
            kc_status s = kci_teval_init(&so->ev, c, err);
            if (s)
                return s;
        }
    }
    ct->t = t;
    ct->plus = calloc(t->nodes, sizeof *ct->plus);
    ct->minus = calloc(t->nodes, sizeof *ct->minus);
    ct->move = malloc((size_t)t->k * (size_t)t->k * sizeof *ct->move);
    if (ct->move)
        for (unsigned a = 0; a < (unsigned)t->k; a++)
            for (unsigned b = 0; b < (unsigned)t->k; b++)
                ct->move[(a << t->m) | b] = (int16_t)kc_torus_ring_move(t, a, b);
    if (!ct->plus || !ct->minus || !ct->move) {
        free(ct->plus);
        free(ct->minus);
        free(ct->move);
        kci_teval_free(&so->ev);
        return kc_fail(err, KC_ENOMEM, "out of memory for 2 x %llu link counters", (unsigned long long)t->nodes);
    }
    return KC_OK;
}

static void teardown(counter *ct, source *so)
{
    free(ct->plus);
    free(ct->minus);
    free(ct->move);
    kci_teval_free(&so->ev);
}

static kc_status run_all(const kc_torus *t, counter *ct, source *so, kc_tcontention *out, const kc_progress *progress)
{
    memset(out, 0, sizeof *out);
    out->n = t->n;
    for (int i = 0; i < t->n; i++) {
        count_dim(ct, so, i);
        out->per_dim[i] = out->lower[i] = collect(ct, i, &out->witness[i]);
        out->exact_dim[i] = 1;
        out->tcase[i] = KC_TCASE_IDLE;
        kc_progress_report(progress, i + 1, t->n);
    }
    finish(out);
    return KC_OK;
}

kc_status kc_tcontention_exact(const kc_torus *t, const kc_tcomm *c, kc_rng *rng, kc_tcontention *out,
                               const kc_progress *progress, kc_err *err)
{
    counter ct;
    source so;
    kc_status s = setup(t, c, rng, &ct, &so, err);
    if (s)
        return s;
    run_all(t, &ct, &so, out, progress);
    teardown(&ct, &so);
    return KC_OK;
}

kc_status kc_tcontention_exact_dim(const kc_torus *t, const kc_tcomm *c, int i, uint64_t *load, kc_link *witness,
                                   kc_err *err)
{
    if (i < 0 || i >= t->n)
        return kc_fail(err, KC_EINVAL, "dimension %d out of range", i);
    if (c->kind == KC_TCOMM_UNIFORM)
        return kc_fail(err, KC_EINVAL, "one-dimension counting needs a linear communication");
    counter ct;
    source so;
    kc_status s = setup(t, c, NULL, &ct, &so, err);
    if (s)
        return s;
    count_dim(&ct, &so, i);
    *load = collect(&ct, i, witness);
    teardown(&ct, &so);
    return KC_OK;
}

kc_status kc_tcontention_pairs(const kc_torus *t, const uint32_t *src, const uint32_t *dst, uint64_t count,
                               kc_tcontention *out, kc_err *err)
{
    counter ct;
    source so;
    kc_status s = setup(t, NULL, NULL, &ct, &so, err);
    if (s)
        return s;
    for (uint64_t j = 0; j < count; j++)
        if (src[j] >= t->nodes || dst[j] >= t->nodes) {
            teardown(&ct, &so);
            return kc_fail(err, KC_EINVAL, "message %llu has an endpoint outside the network",
                           (unsigned long long)j);
        }
    so.src = src;
    so.dst = dst;
    so.count = count;
    run_all(t, &ct, &so, out, NULL);
    teardown(&ct, &so);
    return KC_OK;
}

/* ---- reference: hop by hop ----------------------------------------------- */

typedef struct walk {
    const kc_torus *t;
    uint32_t *cnt;
} walk;

static void walk_link(void *ctx, kc_link l)
{
    walk *w = ctx;
    uint64_t idx = (l.from * (uint64_t)w->t->n + (uint64_t)l.dim) * 2 + (l.dir < 0);
    w->cnt[idx]++;
}

kc_status kc_tcontention_paths(const kc_torus *t, const kc_tcomm *c, kc_rng *rng, kc_tcontention *out, kc_err *err)
{
    if (t->n * t->m > 20)
        return kc_fail(err, KC_ERANGE, "path walking supports N <= 2^20");
    if (c->f.k != t->k || c->a.n != t->n)
        return kc_fail(err, KC_EINVAL, "communication and network sizes differ");
    if (c->kind == KC_TCOMM_UNIFORM && !rng)
        return kc_fail(err, KC_EINVAL, "the uniform pattern needs a random stream");
    walk w = {t, calloc(t->nodes * (uint64_t)t->n * 2, sizeof(uint32_t))};
    if (!w.cnt)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint64_t msg = 0; msg < t->nodes; msg++) {
        uint64_t s, d;
        if (c->kind == KC_TCOMM_UNIFORM) {
            s = msg;
            d = kc_rng_below(rng, t->nodes);
        } else {
            kc_tcomm_message(c, msg, &s, &d);
        }
        kc_torus_route(t, s, d, walk_link, &w);
    }
    memset(out, 0, sizeof *out);
    out->n = t->n;
    for (int i = 0; i < t->n; i++) {
        out->exact_dim[i] = 1;
        out->witness[i] = (kc_link){0, i, 1};
    }
    for (uint64_t z = 0; z < t->nodes; z++)
        for (int i = 0; i < t->n; i++)
            for (int dir = 0; dir < 2; dir++) {
                uint32_t v = w.cnt[(z * (uint64_t)t->n + (uint64_t)i) * 2 + (uint64_t)dir];
                if (v > out->per_dim[i]) {
                    out->per_dim[i] = out->lower[i] = v;
                    out->witness[i] = (kc_link){z, i, dir ? -1 : 1};
                }
            }
    free(w.cnt);
    finish(out);
    return KC_OK;
}
