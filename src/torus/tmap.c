/* Processor mappings on k-ary n-cubes: linear mappings (seed 002 Theorems 3
 * and 4), the best reordering, and a search that improves a mapping by exact
 * evaluation. */
#include <stdlib.h>
#include <string.h>

#include "kcube/bitmat.h"
#include "kcube/perm.h"
#include "kcube/torusmap.h"
#include "net/teval.h"
#include "tinternal.h"

static const kc_name tmap_kind_entries[] = {
    {KC_TMAP_LINEAR, "linear", "x' = Qx for a nonsingular Q over GF(k)"},
    {KC_TMAP_REORDER, "reorder", "a permutation of the dimensions (keeps neighbours)"},
    {0, NULL, NULL},
};
const kc_names kc_tmap_kind_names = {"mapping kind", tmap_kind_entries};

const char *kc_tmap_kind_name(kc_tmap_kind kind) { return kc_names_name(&kc_tmap_kind_names, (int)kind); }

void kc_tmap_identity(kc_tmap *map, const kc_gf *f, int n)
{
    memset(map, 0, sizeof *map);
    map->f = *f;
    map->n = n;
    map->kind = KC_TMAP_REORDER;
    kc_gfmat_identity(&map->q, n);
    kc_gfmat_identity(&map->qinv, n);
    for (int t = 0; t < n; t++)
        map->order[t] = t;
}

kc_status kc_tmap_from_matrix(kc_tmap *map, const kc_gf *f, const kc_gfmat *q, kc_err *err)
{
    kc_gfmat qi;
    for (int i = 0; i < q->n; i++)
        for (int j = 0; j < q->n; j++)
            if (q->e[i][j] >= f->k)
                return kc_fail(err, KC_EINVAL, "mapping entry (%d,%d) is %u, not an element of GF(%d)", i, j,
                               q->e[i][j], f->k);
    kc_status s = kc_gfmat_inverse(f, &qi, q, err);
    if (s)
        return kc_fail(err, KC_ESINGULAR, "the mapping matrix Q is singular (rank %d < n = %d)",
                       kc_gfmat_rank(f, q), q->n);
    memset(map, 0, sizeof *map);
    map->f = *f;
    map->n = q->n;
    map->q = *q;
    map->qinv = qi;
    map->kind = kc_gfmat_to_order(q, map->order) ? KC_TMAP_REORDER : KC_TMAP_LINEAR;
    return KC_OK;
}

kc_status kc_tmap_from_order(kc_tmap *map, const kc_gf *f, const int *order, int n, kc_err *err)
{
    uint64_t seen = 0;
    for (int t = 0; t < n; t++) {
        if (order[t] < 0 || order[t] >= n || ((seen >> order[t]) & 1))
            return kc_fail(err, KC_EINVAL, "dimension order is not a permutation of 0..%d", n - 1);
        seen |= 1ULL << order[t];
    }
    kc_gfmat q;
    kc_gfmat_from_order(&q, order, n);
    return kc_tmap_from_matrix(map, f, &q, err);
}

static uint64_t apply_matrix(const kc_gf *f, const kc_gfmat *q, uint64_t v)
{
    uint8_t x[KC_GFMAT_MAX] = {0}, y[KC_GFMAT_MAX] = {0};
    kc_gfvec_unpack(v, x, q->n, f->m);
    kc_gfmat_mul_vec(f, q, x, y);
    return kc_gfvec_pack(y, q->n, f->m);
}

uint64_t kc_tmap_to_physical(const kc_tmap *map, uint64_t v) { return apply_matrix(&map->f, &map->q, v); }
uint64_t kc_tmap_to_virtual(const kc_tmap *map, uint64_t p) { return apply_matrix(&map->f, &map->qinv, p); }

kc_status kc_tmap_nodemap(const kc_tmap *map, kc_nodemap *out, kc_err *err)
{
    int bits = map->n * map->f.m;
    if (bits > 32)
        return kc_fail(err, KC_ERANGE, "node arrays need N <= 2^32, the mapping has N = 2^%d", bits);
    /* Q as a communication with b = 0 gives Qv by two table lookups. */
    kc_tcomm c;
    uint8_t zero[KC_GFMAT_MAX] = {0};
    kc_status s = kc_tcomm_init(&c, &map->f, &map->q, zero, 0, err);
    if (s)
        return s;
    kci_teval ev;
    if ((s = kci_teval_init(&ev, &c, err)))
        return s;
    uint64_t count = 1ULL << bits;
    uint32_t *phys = malloc(count * sizeof *phys);
    if (!phys) {
        kci_teval_free(&ev);
        return kc_fail(err, KC_ENOMEM, "out of memory for a %llu-node mapping", (unsigned long long)count);
    }
    for (uint64_t v = 0; v < count; v++)
        phys[v] = (uint32_t)kci_teval_apply(&ev, v);
    kci_teval_free(&ev);
    s = kc_nodemap_from_array(out, phys, count, err);
    free(phys);
    return s;
}

kc_status kc_tmap_endpoints(const kc_tmap *map, const kc_tcomm *c, uint32_t *src, uint32_t *dst, kc_rng *rng,
                            kc_err *err)
{
    if (c->f.k != map->f.k || c->a.n != map->n)
        return kc_fail(err, KC_EINVAL, "mapping is for GF(%d)^%d, communication for GF(%d)^%d", map->f.k, map->n,
                       c->f.k, c->a.n);
    if (!src || !dst)
        return kc_fail(err, KC_EINVAL, "kc_tmap_endpoints needs both tables");
    kc_status s = kc_tcomm_endpoints(c, src, dst, rng, err);
    if (s)
        return s;
    kc_nodemap nm;
    if ((s = kc_tmap_nodemap(map, &nm, err)))
        return s;
    for (uint64_t j = 0; j < nm.count; j++) {
        src[j] = nm.to_physical[src[j]];
        dst[j] = nm.to_physical[dst[j]];
    }
    kc_nodemap_free(&nm);
    return KC_OK;
}

kc_status kc_tmap_apply(const kc_tmap *map, const kc_tcomm *c, kc_tcomm *out, kc_err *err)
{
    if (c->f.k != map->f.k || c->a.n != map->n)
        return kc_fail(err, KC_EINVAL, "mapping is for GF(%d)^%d, communication for GF(%d)^%d", map->f.k, map->n,
                       c->f.k, c->a.n);
    return kc_tcomm_map(out, c, &map->q, err);
}

/* ---- Theorems 3 and 4 ---------------------------------------------------- */

static void mirror(kc_gfmat *a)
{
    kc_gfmat r = *a;
    int n = a->n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            r.e[i][j] = a->e[n - 1 - i][n - 1 - j];
    *a = r;
}

/* Is the leading (h+1) x (h+1) submatrix nonsingular? */
static int leading_ok(const kc_gf *f, const kc_gfmat *a, int h)
{
    return kc_gfmat_rank_sub(f, a, kc_gf_low(h + 1), kc_gf_low(h + 1)) == h + 1;
}

/* Schur complement of the leading h x h block (nonsingular): the trailing
 * (n-h) x (n-h) matrix S = D - C B^-1 E for a = [[B, E], [C, D]]. After a
 * change of the trailing coordinates whose new first row is w and whose
 * inverse has first column v (w.v = 1), the leading (h+1) block is
 * nonsingular iff w S v != 0. */
static void schur(const kc_gf *f, const kc_gfmat *a, int h, kc_gfmat *s)
{
    int n = a->n, t = n - h;
    kc_gfmat b, bi;
    kc_gfmat_zero(&b, h);
    for (int i = 0; i < h; i++)
        for (int j = 0; j < h; j++)
            b.e[i][j] = a->e[i][j];
    kc_gfmat_zero(s, t);
    if (h > 0 && kc_gfmat_inverse(f, &bi, &b, NULL))
        return; /* not reached: callers keep the block nonsingular */
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++) {
            unsigned v = a->e[h + i][h + j];
            /* minus (C B^-1 E)_{ij}; minus is plus in characteristic 2 */
            for (int p = 0; p < h; p++) {
                unsigned cb = 0;
                for (int q = 0; q < h; q++)
                    cb ^= kc_gf_mul(f, a->e[h + i][q], bi.e[q][p]);
                v ^= kc_gf_mul(f, cb, a->e[p][h + j]);
            }
            s->e[i][j] = (uint8_t)v;
        }
}

static unsigned form(const kc_gf *f, const kc_gfmat *s, const uint8_t *w, const uint8_t *v)
{
    unsigned r = 0;
    for (int i = 0; i < s->n; i++) {
        if (!w[i])
            continue;
        unsigned row = 0;
        for (int j = 0; j < s->n; j++)
            row ^= kc_gf_mul(f, s->e[i][j], v[j]);
        r ^= kc_gf_mul(f, w[i], row);
    }
    return r;
}

/* The full operator diag(I_h, P) where P has first row w and P^-1 has first
 * column v: P^-1 = [v | a basis of ker w]. */
static void build_operator(const kc_gf *f, int n, int h, const uint8_t *w, const uint8_t *v, kc_gfmat *op)
{
    int t = n - h;
    kc_gfmat pinv;
    kc_gfmat_zero(&pinv, t);
    for (int i = 0; i < t; i++)
        pinv.e[i][0] = v[i];
    /* ker w: pick a pivot p with w_p != 0; for every other index j the vector
     * e_j - (w_j / w_p) e_p is in the kernel, and they are independent. */
    int p = 0;
    while (p < t && !w[p])
        p++;
    int col = 1;
    for (int j = 0; j < t; j++) {
        if (j == p)
            continue;
        pinv.e[j][col] = 1;
        pinv.e[p][col] = (uint8_t)kc_gf_div(f, w[j], w[p]);
        col++;
    }
    kc_gfmat pm;
    kc_gfmat_inverse(f, &pm, &pinv, NULL);
    kc_gfmat_identity(op, n);
    for (int i = 0; i < t; i++)
        for (int j = 0; j < t; j++)
            op->e[h + i][h + j] = pm.e[i][j];
}

/* Find (w, v) with w.v = 1 and w S_r v != 0 for every r in need. Sparse
 * candidates first (a dimension swap, then a swap plus adding a multiple of
 * one row, the moves of the paper's proofs), then random ones. */
static int find_step(const kc_gf *f, const kc_gfmat *s, const int *need, int nneed, int t, uint8_t *w, uint8_t *v,
                     kc_rng *rng)
{
    int k = f->k;
#define ALL_NONZERO(ok)                                                                                               \
    do {                                                                                                              \
        ok = 1;                                                                                                       \
        for (int q = 0; q < nneed && ok; q++)                                                                         \
            ok = form(f, &s[need[q]], w, v) != 0;                                                                     \
    } while (0)
    int ok;
    /* Index 0 is dimension h itself: w = e_0 keeps it (the paper's "no
     * swap needed"), w = e_a brings dimension h+a forward, and adding c
     * times another row b is the paper's second move. */
    for (int a = 0; a < t; a++) {
        memset(w, 0, (size_t)t);
        memset(v, 0, (size_t)t);
        w[a] = v[a] = 1;
        ALL_NONZERO(ok);
        if (ok)
            return 1;
        for (int b = 0; b < t; b++)
            for (int c = 1; c < k && b != a; c++) {
                memset(w, 0, (size_t)t);
                w[a] = 1;
                w[b] = (uint8_t)c;
                ALL_NONZERO(ok);
                if (ok)
                    return 1;
            }
    }
    /* Adding multiples of two rows at once (Example 5's first row is
     * e_0 + e_2 + e_3), while the family stays small. */
    if ((uint64_t)t * (uint64_t)t * (uint64_t)t * (uint64_t)k * (uint64_t)k <= 200000)
        for (int a = 0; a < t; a++)
            for (int b = 0; b < t; b++)
                for (int d = b + 1; d < t; d++)
                    for (int c = 1; c < k && b != a && d != a; c++)
                        for (int e = 1; e < k; e++) {
                            memset(w, 0, (size_t)t);
                            memset(v, 0, (size_t)t);
                            w[a] = v[a] = 1;
                            w[b] = (uint8_t)c;
                            w[d] = (uint8_t)e;
                            ALL_NONZERO(ok);
                            if (ok)
                                return 1;
                        }
    /* The dual moves: add a multiple of a column instead. */
    for (int a = 0; a < t; a++)
        for (int b = 0; b < t; b++)
            for (int c = 1; c < k && b != a; c++) {
                memset(w, 0, (size_t)t);
                memset(v, 0, (size_t)t);
                w[a] = v[a] = 1;
                v[b] = (uint8_t)c;
                ALL_NONZERO(ok);
                if (ok)
                    return 1;
            }
    for (int tries = 0; tries < 200000; tries++) {
        unsigned dot = 0;
        for (int i = 0; i < t; i++) {
            w[i] = (uint8_t)kc_rng_below(rng, (uint64_t)k);
            v[i] = (uint8_t)kc_rng_below(rng, (uint64_t)k);
            dot ^= kc_gf_mul(f, w[i], v[i]);
        }
        if (!dot)
            continue;
        unsigned scale = f->inv[dot];
        for (int i = 0; i < t; i++)
            v[i] = (uint8_t)kc_gf_mul(f, v[i], scale);
        ALL_NONZERO(ok);
        if (ok)
            return 1;
    }
#undef ALL_NONZERO
    return 0;
}

/* The working set of kc_tmap_linear: the communications' matrices (over
 * the active block once idle dimensions are set aside), the ranks each must
 * keep, and the accumulated Q. */
typedef struct lin_work {
    const kc_gf *f;
    int n, count, active, mirrored;
    kc_gfmat *mats, *sch;
    int *target, *need;
    kc_gfmat q;
} lin_work;

/* Inputs Theorem 4's construction covers: linear, one k and n, at most k-1
 * (unless beyond_limit), not scatters with gathers. *mirrored: scatters. */
static kc_status linear_check(const kc_tcomm *comms, int count, int beyond_limit, int *mirrored, kc_err *err)
{
    if (count < 1)
        return kc_fail(err, KC_EINVAL, "no communication to map");
    int n = comms[0].a.n, k = comms[0].f.k;
    int scatters = 0, gathers = 0;
    for (int r = 0; r < count; r++) {
        if (comms[r].f.k != k || comms[r].a.n != n)
            return kc_fail(err, KC_EINVAL, "communications must share k and n");
        if (comms[r].kind == KC_TCOMM_UNIFORM)
            return kc_fail(err, KC_EINVAL, "'%s' is not linear: a linear mapping is chosen for linear communications "
                                           "only (it can still be applied to it)",
                           comms[r].name);
        scatters += comms[r].kind == KC_TCOMM_SCATTER;
        gathers += comms[r].kind == KC_TCOMM_GATHER;
    }
    if (count > k - 1 && !beyond_limit)
        return kc_fail(err, KC_ERANGE,
                       "a joint linear mapping is guaranteed for at most k-1 = %d communications (Theorem 4), got %d",
                       k - 1, count);
    if (scatters && gathers)
        return kc_fail(err, KC_EINVAL, "a joint linear mapping of scatters together with gathers is not covered by "
                                       "Theorem 4 (their conditions run in opposite dimension orders)");
    *mirrored = scatters > 0;
    return KC_OK;
}

/* Load the matrices and targets; returns the dimensions idle in every
 * communication. Scatters are handled in mirrored coordinates (dimension
 * n-1 first), where a scatter by A is a gather by JAJ and a permutation by
 * A reads as the permutation J A^-1 J. */
static uint64_t linear_load(lin_work *w, const kc_tcomm *comms)
{
    uint64_t idle = kc_gf_low(w->n);
    for (int r = 0; r < w->count; r++) {
        w->mats[r] = comms[r].a;
        if (w->mirrored && comms[r].kind == KC_TCOMM_PERMUTATION)
            kc_gfmat_inverse(w->f, &w->mats[r], &w->mats[r], NULL);
        if (w->mirrored)
            mirror(&w->mats[r]);
        w->target[r] = comms[r].rank;
        idle &= kc_tcomm_idle_dims(&comms[r]);
    }
    if (!w->mirrored)
        return idle;
    uint64_t m = 0;
    for (int i = 0; i < w->n; i++)
        if ((idle >> i) & 1)
            m |= 1ULL << (w->n - 1 - i);
    return m;
}

/* Dimensions idle in every communication go last, in their order (the
 * paper's first step); the construction then works on the leading block
 * of the others, so they stay idle. Sets q and active. */
static void linear_idle_last(lin_work *w, uint64_t idle)
{
    int order[KC_GFMAT_MAX], active = 0, n = w->n;
    for (int i = 0; i < n; i++)
        if (!((idle >> i) & 1))
            order[active++] = i;
    for (int i = 0, t = active; i < n; i++)
        if ((idle >> i) & 1)
            order[t++] = i;
    kc_gfmat_from_order(&w->q, order, n);
    w->active = active;
    for (int r = 0; r < w->count; r++) {
        kc_gfmat_conjugate(w->f, &w->mats[r], &w->q, &w->mats[r], NULL);
        /* The active block of a matrix with unit rows for the idle
         * dimensions: its rank is the rank of A minus the idle count. */
        kc_gfmat block;
        kc_gfmat_zero(&block, active);
        for (int i = 0; i < active; i++)
            memcpy(block.e[i], w->mats[r].e[i], (size_t)active);
        w->mats[r] = block;
        w->target[r] -= n - active;
        if (w->target[r] < 0)
            w->target[r] = 0;
    }
}

/* Theorem 4's construction, one leading dimension h at a time: where a
 * communication that must keep rank > h fails the leading condition, an
 * operator found by find_step repairs all of them at once. */
static kc_status linear_steps(lin_work *w, kc_err *err)
{
    const kc_gf *f = w->f;
    kc_rng rng;
    kc_rng_seed(&rng, 0x7a11e5ULL);
    for (int h = 0; h < w->active; h++) {
        int nneed = 0, bad = 0;
        for (int r = 0; r < w->count; r++)
            if (w->target[r] > h) {
                w->need[nneed++] = r;
                if (!leading_ok(f, &w->mats[r], h))
                    bad = 1;
            }
        if (!bad)
            continue;
        for (int j = 0; j < nneed; j++)
            schur(f, &w->mats[w->need[j]], h, &w->sch[w->need[j]]);
        uint8_t a[KC_GFMAT_MAX], v[KC_GFMAT_MAX];
        if (!find_step(f, w->sch, w->need, nneed, w->active - h, a, v, &rng))
            return kc_fail(err, KC_EINVAL,
                           "no linear mapping found that serves all %d communications at dimension %d%s", w->count, h,
                           w->count > f->k - 1 ? " (more than k-1 communications: Theorem 4 does not apply)" : "");
        kc_gfmat op, full;
        build_operator(f, w->active, h, a, v, &op);
        for (int r = 0; r < w->count; r++)
            kc_gfmat_conjugate(f, &w->mats[r], &op, &w->mats[r], NULL);
        /* Accumulate: the operator acts on the active block of q. */
        kc_gfmat_identity(&full, w->n);
        for (int i = 0; i < w->active; i++)
            for (int j = 0; j < w->active; j++)
                full.e[i][j] = op.e[i][j];
        kc_gfmat_mul(f, &w->q, &full, &w->q);
    }
    return KC_OK;
}

kc_status kc_tmap_linear(const kc_tcomm *comms, int count, int beyond_limit, kc_tmap *out, kc_err *err)
{
    lin_work w = {0};
    kc_status st = linear_check(comms, count, beyond_limit, &w.mirrored, err);
    if (st)
        return st;
    w.f = &comms[0].f;
    w.n = comms[0].a.n;
    w.count = count;
    w.mats = malloc((size_t)count * sizeof *w.mats);
    w.sch = malloc((size_t)count * sizeof *w.sch);
    w.target = malloc((size_t)count * sizeof *w.target);
    w.need = malloc((size_t)count * sizeof *w.need);
    if (!w.mats || !w.sch || !w.target || !w.need) {
        st = kc_fail(err, KC_ENOMEM, "out of memory");
    } else {
        linear_idle_last(&w, linear_load(&w, comms));
        st = linear_steps(&w, err);
    }
    free(w.mats);
    free(w.sch);
    free(w.target);
    free(w.need);
    if (st)
        return st;
    if (w.mirrored)
        mirror(&w.q); /* Q = J Q_g J */
    return kc_tmap_from_matrix(out, w.f, &w.q, err);
}

/* ---- evaluation ---------------------------------------------------------- */

kc_status kc_tmap_evaluate(const kc_torus *t, const kc_tcomm *comms, int count, const kc_tmap *map,
                           uint64_t *value, uint64_t *total, kc_tcontention *per_comm, kc_err *err)
{
    uint64_t v = 0, tot = 0;
    for (int r = 0; r < count; r++) {
        if (comms[r].kind == KC_TCOMM_UNIFORM)
            return kc_fail(err, KC_EINVAL, "evaluation needs linear communications");
        kc_tcomm mc;
        kc_tcontention ct;
        kc_status s = kc_tmap_apply(map, &comms[r], &mc, err);
        if (!s)
            s = kc_tcontention_exact(t, &mc, NULL, &ct, NULL, err);
        if (s)
            return s;
        if (ct.max > v)
            v = ct.max;
        for (int i = 0; i < ct.n; i++)
            tot += ct.per_dim[i];
        if (per_comm)
            per_comm[r] = ct;
    }
    if (value)
        *value = v;
    if (total)
        *total = tot;
    return KC_OK;
}

/* ---- best reordering ----------------------------------------------------- */

#define REORDER_EXACT_BUDGET 300000000ULL /* node visits spent on exact pricing */

typedef struct price {
    uint64_t value, total;
} price;

static int better(uint64_t v1, uint64_t t1, uint64_t v2, uint64_t t2) { return v1 < v2 || (v1 == v2 && t1 < t2); }

kc_status kc_tmap_reorder(const kc_torus *t, const kc_tcomm *comms, int count, kc_tmap *out, uint64_t *value,
                          uint64_t *total, int *exact, const kc_progress *progress, kc_err *err)
{
    return kc_tmap_reorder_objective(t, comms, count, KC_OBJ_MAX, out, value, total, exact, progress, err);
}

/* The objective's value of a path that ends with a step: the step's own
 * value is max_r T (max) or sum_r T (the other two); paths take the max
 * over steps, except sum which adds them. */
static uint64_t path_value(kc_objective obj, uint64_t path, price step)
{
    uint64_t v = obj == KC_OBJ_MAX ? step.value : step.total;
    if (obj == KC_OBJ_SUM)
        return path + v;
    return path > v ? path : v;
}

/* The exact T of dimension j placed right after the set S for one
 * communication (the rest in increasing order after it). */
static kc_status reorder_exact_place(const kc_torus *t, const kc_tcomm *c, uint64_t s, int j, uint64_t *load,
                                     kc_err *err)
{
    int n = t->n, ord[KC_GFMAT_MAX], at = 0;
    for (int d = 0; d < n; d++)
        if ((s >> d) & 1)
            ord[at++] = d;
    int pos = at;
    ord[at++] = j;
    for (int d = 0; d < n; d++)
        if (!((s >> d) & 1) && d != j)
            ord[at++] = d;
    kc_gfmat q;
    kc_tcomm mc;
    kc_gfmat_from_order(&q, ord, n);
    *load = 0;
    kc_status st = kc_tcomm_map(&mc, c, &q, err);
    return st ? st : kc_tcontention_exact_dim(t, &mc, pos, load, NULL, err);
}

/* Passes 1 and 2 of the reordering programme: cost[S * n + j] = the max
 * over communications, and the sum, of T for dimension j placed after the
 * set S. By the closed form (upper ends where it only bounds) when
 * `inexact` is NULL; then *counted gets how many places it only bounds.
 * With `inexact` (that count, for progress) those places are counted
 * exactly instead. */
static kc_status reorder_prices(const kc_torus *t, const kc_tcomm *comms, int count, price *cost,
                                const uint64_t *inexact, uint64_t *counted, const kc_progress *progress, kc_err *err)
{
    int n = t->n;
    uint64_t places = 0;
    for (uint64_t s = 0; s < 1ULL << n; s++)
        for (int j = 0; j < n; j++) {
            if ((s >> j) & 1)
                continue;
            price p = {0, 0};
            for (int r = 0; r < count; r++) {
                kc_tcase tc;
                int e;
                uint64_t lo, hi;
                kci_tformula_place(t, &comms[r], s, j, &tc, &e, &lo, &hi);
                if (lo != hi) {
                    places++;
                    kc_status st = inexact ? reorder_exact_place(t, &comms[r], s, j, &hi, err) : KC_OK;
                    if (st)
                        return st;
                    if (inexact)
                        kc_progress_report(progress, (double)places, (double)*inexact);
                }
                if (hi > p.value)
                    p.value = hi;
                p.total += hi;
            }
            cost[s * (uint64_t)n + (uint64_t)j] = p;
        }
    if (counted)
        *counted = places;
    return KC_OK;
}

/* Pass 3: the dynamic programme over subsets; ord gets the best order and
 * *out its price. */
static void reorder_dp(int n, kc_objective obj, const price *cost, price *best, int8_t *last, int *ord, price *out)
{
    uint64_t subsets = 1ULL << n;
    best[0] = (price){0, 0};
    last[0] = -1;
    for (uint64_t s = 1; s < subsets; s++) {
        best[s] = (price){UINT64_MAX, UINT64_MAX};
        last[s] = -1;
        for (int j = 0; j < n; j++) {
            if (!((s >> j) & 1))
                continue;
            uint64_t prev = s & ~(1ULL << j);
            price c = cost[prev * (uint64_t)n + (uint64_t)j];
            price b = best[prev];
            uint64_t v = path_value(obj, b.value, c), tot = b.total + c.total;
            /* Strict improvement keeps the lowest j on ties: the identity
             * order wins when nothing is better. */
            if (better(v, tot, best[s].value, best[s].total) || last[s] < 0) {
                best[s] = (price){v, tot};
                last[s] = (int8_t)j;
            }
        }
    }
    uint64_t s = subsets - 1;
    for (int pos = n - 1; pos >= 0; pos--) {
        ord[pos] = last[s];
        s &= ~(1ULL << last[s]);
    }
    *out = best[subsets - 1];
}

kc_status kc_tmap_reorder_objective(const kc_torus *t, const kc_tcomm *comms, int count, kc_objective obj,
                                    kc_tmap *out, uint64_t *value, uint64_t *total, int *exact,
                                    const kc_progress *progress, kc_err *err)
{
    int n = t->n;
    if (n > KC_TMAP_REORDER_MAX_N)
        return kc_fail(err, KC_ERANGE, "the best reordering is searched for n <= %d, got n = %d",
                       KC_TMAP_REORDER_MAX_N, n);
    for (int r = 0; r < count; r++)
        if (comms[r].kind == KC_TCOMM_UNIFORM)
            return kc_fail(err, KC_EINVAL, "'%s' is not linear: nothing to reorder for", comms[r].name);
    uint64_t subsets = 1ULL << n;
    price *cost = malloc(subsets * (uint64_t)n * sizeof *cost);
    price *best = malloc(subsets * sizeof *best);
    int8_t *last = malloc(subsets);
    if (!cost || !best || !last) {
        free(cost);
        free(best);
        free(last);
        return kc_fail(err, KC_ENOMEM, "out of memory for the reordering programme");
    }
    uint64_t inexact = 0;
    kc_status st = reorder_prices(t, comms, count, cost, NULL, &inexact, NULL, err);
    int use_exact = inexact == 0 || (t->n * t->m <= 30 && inexact * t->nodes <= REORDER_EXACT_BUDGET);
    if (!st && inexact && use_exact)
        st = reorder_prices(t, comms, count, cost, &inexact, NULL, progress, err);
    if (st == KC_OK) {
        int ord[KC_GFMAT_MAX];
        price found;
        reorder_dp(n, obj, cost, best, last, ord, &found);
        st = kc_tmap_from_order(out, &comms[0].f, ord, n, err);
        out->kind = KC_TMAP_REORDER;
        if (value)
            *value = found.value;
        if (total)
            *total = found.total;
        if (exact)
            *exact = use_exact;
    }
    free(cost);
    free(best);
    free(last);
    return st;
}

/* ---- search -------------------------------------------------------------- */

typedef struct searcher {
    const kc_torus *t;
    const kc_tcomm *comms;
    int count;
    kc_objective obj;
    uint64_t evals, budget;
    const kc_progress *progress;
} searcher;

/* Exact value and total of a mapping: by the closed form (exact in every
 * case, O(n^4) whatever N), or by counting where it would only bound. */
static kc_status score(searcher *se, const kc_tmap *map, uint64_t *v, uint64_t *tot, kc_err *err)
{
    se->evals++;
    kc_progress_report(se->progress, (double)se->evals, (double)se->budget);
    uint64_t value = 0, total = 0, sums[KC_GFMAT_MAX] = {0};
    for (int r = 0; r < se->count; r++) {
        kc_tcomm mc;
        kc_tcontention ct;
        kc_status s = kc_tmap_apply(map, &se->comms[r], &mc, err);
        if (s)
            return s;
        kc_tcontention_formula(se->t, &mc, &ct);
        if (!ct.exact && (s = kc_tcontention_exact(se->t, &mc, NULL, &ct, NULL, err)))
            return s;
        if (ct.max > value)
            value = ct.max;
        for (int i = 0; i < ct.n; i++) {
            total += ct.per_dim[i];
            sums[i] += ct.per_dim[i];
        }
    }
    if (se->obj == KC_OBJ_SUM)
        value = total;
    else if (se->obj == KC_OBJ_SIMULTANEOUS)
        for (int i = value = 0; i < se->t->n; i++)
            value = sums[i] > value ? sums[i] : value;
    *v = value;
    *tot = total;
    return KC_OK;
}

/* Score a candidate; if it beats (*bv, *bt), take it into *keep. */
static kc_status try_keep(searcher *se, const kc_tmap *cand, uint64_t *bv, uint64_t *bt, kc_tmap *keep, int *taken,
                          kc_err *err)
{
    uint64_t v, tot;
    kc_status s = score(se, cand, &v, &tot, err);
    if (!s && better(v, tot, *bv, *bt)) {
        *bv = v;
        *bt = tot;
        *keep = *cand;
        if (taken)
            *taken = 1;
    }
    return s;
}

/* Left-multiply Q by the elementary operator number `op` (0 <= op < nops). */
static int count_ops(int n, int k) { return n * (n - 1) / 2 + n * (k - 2) + n * (n - 1) * (k - 1); }

static void make_op(const kc_gf *f, int n, int op, kc_gfmat *e)
{
    int k = f->k;
    int swaps = n * (n - 1) / 2, scales = n * (k - 2);
    if (op < swaps) {
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                if (op-- == 0) {
                    kc_gfmat_op_swap(e, n, i, j);
                    return;
                }
    }
    op -= swaps;
    if (op < scales) {
        kc_gfmat_op_scale(f, e, n, op / (k - 2), (unsigned)(op % (k - 2)) + 2);
        return;
    }
    op -= scales;
    int pair = op / (k - 1), c = op % (k - 1) + 1;
    int i = pair / (n - 1), j = pair % (n - 1);
    if (j >= i)
        j++;
    kc_gfmat_op_addrow(e, n, i, j, (unsigned)c);
}

kc_status kc_tmap_search(const kc_torus *t, const kc_tcomm *comms, int count, const kc_tmap *start,
                         const kc_tsearch_opts *opts, kc_tmap *out, kc_tsearch_stats *stats,
                         const kc_progress *progress, kc_err *err)
{
    return kc_tmap_search_objective(t, comms, count, KC_OBJ_MAX, start, opts, out, stats, progress, err);
}

/* The search's three ways, each keeping the best in *bv, *bt, *best. */

/* Every dimension order (n <= 8). */
static kc_status search_orders(searcher *se, const kc_gf *f, int n, uint64_t *bv, uint64_t *bt, kc_tmap *best,
                               kc_err *err)
{
    kc_status s;
    int p[KC_GFMAT_MAX];
    for (int i = 0; i < n; i++)
        p[i] = i;
    uint64_t all = 1;
    for (int i = 2; i <= n; i++)
        all *= (uint64_t)i;
    se->budget = all;
    do {
        kc_tmap cand;
        kc_tmap_from_order(&cand, f, p, n, NULL);
        if ((s = try_keep(se, &cand, bv, bt, best, NULL, err)))
            return s;
    } while (kc_order_next(p, n));
    return KC_OK;
}

/* Every nonsingular matrix (k^(n^2) <= 2^24 of them). */
static kc_status search_matrices(searcher *se, const kc_gf *f, int n, int k, int m, uint64_t *bv, uint64_t *bt,
                                 kc_tmap *best, kc_err *err)
{
    kc_status s;
    int bits = n * n * m;
    uint64_t all = 1ULL << bits;
    se->budget = all;
    for (uint64_t code = 0; code < all; code++) {
        kc_gfmat q;
        kc_gfmat_zero(&q, n);
        uint64_t c = code;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++, c >>= m)
                q.e[i][j] = (uint8_t)(c & (uint64_t)(k - 1));
        if (kc_gfmat_rank(f, &q) < n)
            continue;
        kc_tmap cand;
        kc_tmap_from_matrix(&cand, f, &q, NULL);
        if ((s = try_keep(se, &cand, bv, bt, best, NULL, err)))
            return s;
    }
    return KC_OK;
}

/* Steepest descent over elementary operators, restarting from the best
 * with a few random operators when stuck. */
static kc_status search_descent(searcher *se, const kc_gf *f, int n, int k, const kc_tsearch_opts *opts,
                                 int reorder_only, uint64_t *bv, uint64_t *bt, kc_tmap *best, kc_err *err)
{
    kc_status s;
    uint64_t budget = se->budget;
    kc_rng rng;
    kc_rng_seed(&rng, opts ? opts->seed : 1);
    int nops = reorder_only ? n * (n - 1) / 2 : count_ops(n, k); /* swaps come first */
    kc_tmap cur = *best;
    uint64_t cv = *bv, ct = *bt;
    /* Stop early after a long run without a new best. */
    uint64_t stall_limit = (uint64_t)nops * 50 > 20000 ? (uint64_t)nops * 50 : 20000, last_gain = se->evals;
    while (se->evals < budget && se->evals - last_gain < stall_limit) {
        kc_tmap step = cur;
        uint64_t sv = cv, stt = ct;
        int improved = 0;
        for (int op = 0; op < nops && se->evals < budget; op++) {
            kc_gfmat e, q;
            make_op(f, n, op, &e);
            kc_gfmat_mul(f, &q, &e, &cur.q);
            kc_tmap cand;
            kc_tmap_from_matrix(&cand, f, &q, NULL);
            if ((s = try_keep(se, &cand, &sv, &stt, &step, &improved, err)))
                return s;
        }
        if (improved) {
            cur = step;
            cv = sv;
            ct = stt;
            if (better(cv, ct, *bv, *bt)) {
                *bv = cv;
                *bt = ct;
                *best = cur;
                last_gain = se->evals;
            }
            continue;
        }
        /* Stuck: perturb the best. */
        cur = *best;
        int kicks = 1 + (int)kc_rng_below(&rng, 3);
        for (int j = 0; j < kicks; j++) {
            kc_gfmat e, q;
            make_op(f, n, (int)kc_rng_below(&rng, (uint64_t)nops), &e);
            kc_gfmat_mul(f, &q, &e, &cur.q);
            kc_tmap_from_matrix(&cur, f, &q, NULL);
        }
        if ((s = score(se, &cur, &cv, &ct, err)))
            return s;
    }
    return KC_OK;
}

kc_status kc_tmap_search_objective(const kc_torus *t, const kc_tcomm *comms, int count, kc_objective obj,
                                   const kc_tmap *start, const kc_tsearch_opts *opts, kc_tmap *out,
                                   kc_tsearch_stats *stats, const kc_progress *progress, kc_err *err)
{
    int n = t->n, k = t->k;
    for (int r = 0; r < count; r++)
        if (comms[r].kind == KC_TCOMM_UNIFORM)
            return kc_fail(err, KC_EINVAL, "the search needs linear communications");
    const kc_gf *f = &start->f;
    uint64_t n2 = (uint64_t)n * (uint64_t)n, per_eval = n2 * n2 * (uint64_t)count + 1;
    uint64_t budget = opts && opts->max_evals ? opts->max_evals : 2000000000ULL / per_eval;
    if (budget < 50)
        budget = 50;
    if (budget > 200000)
        budget = 200000;
    searcher se = {t, comms, count, obj, 0, budget, progress};
    kc_tsearch_stats st0;
    memset(&st0, 0, sizeof st0);
    uint64_t bv, bt;
    kc_status s = score(&se, start, &bv, &bt, err);
    if (s)
        return s;
    st0.start_value = bv;
    st0.start_total = bt;
    kc_tmap best = *start;

    int reorder_only = opts && opts->reorder_only;
    /* Exhaustive when every candidate fits the budget: k^(n^2) matrices, or
     * n! orders. */
    int bits = n * n * t->m;
    if (reorder_only && n <= 8) {
        s = search_orders(&se, f, n, &bv, &bt, &best, err);
        st0.exhaustive = 1;
    } else if (!reorder_only && bits <= 24 && (1ULL << bits) <= budget * 2) {
        s = search_matrices(&se, f, n, k, t->m, &bv, &bt, &best, err);
        st0.exhaustive = 1;
    } else {
        s = search_descent(&se, f, n, k, opts, reorder_only, &bv, &bt, &best, err);
    }
    if (s)
        return s;
    *out = best;
    st0.evals = se.evals;
    st0.value = bv;
    st0.total = bt;
    if (stats)
        *stats = st0;
    return KC_OK;
}
