/* Algorithm HL (seed 004 Section 2.3) in SIMD mode, LSB-first or MSB-first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/hl.h"
#include "kcube/perm.h"

static int low_bit(uint64_t v) { return kci_ctz64(v); }
static int high_bit(uint64_t v) { return 63 - kci_clz64(v); }

/* The dimension a two-tag processor wants in state B. Returns 0 and sets
 * *d, or a nonzero code: 1 conflict, 2 Lemma 3 violated. */
static int state_b_choice(const kc_hl_engine *e, int msb, int require_lemma3, int *d, uint64_t *who,
                          int *lemma3_ok)
{
    const uint64_t np = e->count_procs;
    const int cap = e->cap;
    uint64_t first_diff = 0;
    int want = -1;
    for (uint64_t x = 0; x < np; x++) {
        if (e->count[x] != 2)
            continue;
        uint64_t diff = e->slot[x * cap] ^ e->slot[x * cap + 1];
        int dx = msb ? high_bit(diff) : low_bit(diff);
        if (want < 0) {
            want = dx;
            first_diff = diff;
            *who = x;
        } else {
            if (diff != first_diff) {
                *lemma3_ok = 0;
                if (require_lemma3) {
                    *who = x;
                    return 2;
                }
            }
            if (dx != want) {
                *d = dx;
                *who = x;
                return 1;
            }
        }
    }
    *d = want;
    return 0;
}

/* Step t in state B: 0 with the dimension every two-tag processor wants in
 * *d, or -1 with res->failed_step and res->why set (they disagree, Lemma 3
 * fails when required, or the bit was used). */
static int state_b_dim(const kc_hl_engine *e, const kc_hl_opts *opts, int t, uint64_t used, int *d,
                       kc_hl_result *res)
{
    uint64_t who = 0;
    int other = -1, rc = 0;
    /* the engine's running summary decides; the scan only names the
     * processor that breaks the rule */
    const kc_hl_summary *m = &e->sum;
    int agree = opts->msb_first ? m->msb_min == m->msb_max : m->lsb_min == m->lsb_max;
    int same = m->diff_or == m->diff_and;
    if (!same)
        res->lemma3_ok = 0;
    if (agree && (same || !opts->require_lemma3))
        other = opts->msb_first ? m->msb_min : m->lsb_min;
    else
        rc = state_b_choice(e, opts->msb_first, opts->require_lemma3, &other, &who, &res->lemma3_ok);
    if (rc == 1) {
        res->failed_step = t;
        snprintf(res->why, sizeof res->why,
                 "step %d, state B: processors choose different dimensions (processor %llu wants %d): "
                 "not SIMD",
                 t + 1, (unsigned long long)who, other);
        return -1;
    }
    if (rc == 2) {
        res->failed_step = t;
        snprintf(res->why, sizeof res->why,
                 "step %d, state B: the tags of processor %llu differ in other bits than elsewhere "
                 "(Lemma 3 fails)",
                 t + 1, (unsigned long long)who);
        return -1;
    }
    if ((used >> other) & 1) { /* cannot happen: both tags agree with the host on used bits */
        res->failed_step = t;
        snprintf(res->why, sizeof res->why, "step %d: bit %d chosen twice", t + 1, other);
        return -1;
    }
    *d = other;
    return 0;
}

/* Step t's dimension in state st, 0 with it in *d: in A the lowest
 * (highest) bit not used, in B the one the two-tag processors agree on; -1
 * with res->failed_step and res->why set otherwise. */
static int choose_dim(const kc_hl_engine *e, const kc_hl_opts *opts, int t, char st, uint64_t used, int *d,
                      kc_hl_result *res)
{
    if (st == 'A') {
        uint64_t free = kc_mask(e->n) & ~used;
        *d = opts->msb_first ? high_bit(free) : low_bit(free);
        return 0;
    }
    if (st == 'B')
        return state_b_dim(e, opts, t, used, d, res);
    res->failed_step = t;
    snprintf(res->why, sizeof res->why,
             "before step %d the machine is in neither state A nor state B (tag counts other than "
             "1 / 2-and-0)",
             t + 1);
    return -1;
}

/* Take step t along d (state st before it), recorded in res and reported to
 * opts->on_step; -1 (failed_step set) when a processor would overflow. */
static int take_step(kc_hl_engine *e, const kc_hl_opts *opts, int t, int d, char st, uint64_t *used,
                     kc_hl_result *res)
{
    if (kc_hl_engine_step(e, d) != KC_OK) {
        res->failed_step = t;
        snprintf(res->why, sizeof res->why, "step %d: processor %llu would hold more than %d tags", t + 1,
                 (unsigned long long)e->overflow_at, e->cap);
        return -1;
    }
    *used |= 1ULL << d;
    res->dims[t] = d;
    res->moved[t] = e->moved_last;
    res->twos[t] = e->sum.twos;
    res->others[t] = e->count_procs - e->sum.ones - e->sum.twos;
    res->steps = t + 1;
    if (opts->check_affine && !kc_hl_affine(e))
        res->affine_ok = 0;
    if (opts->on_step)
        opts->on_step(opts->ctx, e, t, d, st);
    return 0;
}

kc_status kc_hl_run(kc_hl_engine *e, const kc_hl_opts *opts, kc_hl_result *res, kc_err *err)
{
    static const kc_hl_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    const int n = e->n;
    memset(res, 0, sizeof *res);
    res->n = n;
    res->affine_ok = 1;
    res->lemma3_ok = 1;
    res->failed_step = -1;
    uint64_t used = 0;
    if (opts->check_affine && !kc_hl_affine(e))
        res->affine_ok = 0;
    for (int t = 0; t < n; t++) {
        char st = kc_hl_state(e);
        res->states[t] = st;
        int d = -1;
        if (choose_dim(e, opts, t, st, used, &d, res) || take_step(e, opts, t, d, st, &used, res))
            break;
    }
    res->states[res->steps < n && res->failed_step >= 0 ? res->failed_step + 1 : res->steps] = '\0';
    res->final_state = kc_hl_state(e);
    res->max_moved = e->max_moved;
    res->routed = res->failed_step < 0 && kc_hl_routed(e);
    if (!res->routed && res->failed_step < 0)
        snprintf(res->why, sizeof res->why, "after %d steps some tag is not at its destination", res->steps);
    (void)err;
    return KC_OK;
}

kc_status kc_hl_route(int n, const uint32_t *dst, const kc_hl_opts *opts, kc_hl_result *res, kc_err *err)
{
    kc_hl_engine e;
    kc_status s = kc_hl_engine_init(&e, n, dst, 2, 0, err);
    if (s)
        return s;
    s = kc_hl_run(&e, opts, res, err);
    kc_hl_engine_free(&e);
    return s;
}

kc_status kc_hl_perm_from_lcc(const kc_lcc *c, uint32_t *dst, kc_err *err)
{
    int n = c->a.n;
    if (n > KC_HL_MAX_N)
        return kc_fail(err, KC_ERANGE, "n = %d is out of range 1..%d for tag routing", n, KC_HL_MAX_N);
    if (c->kind != KC_LCC_PERMUTATION)
        return kc_fail(err, KC_ESINGULAR,
                       "the matrix has rank %d < n = %d: y = Ax + b is not a permutation, so it cannot be "
                       "routed by tags",
                       c->rank, n);
    /* y(x) = y(x without its low bit) ^ column of that bit */
    uint64_t col[64];
    for (int j = 0; j < n; j++)
        col[j] = kc_bitmat_col(&c->a, j);
    dst[0] = (uint32_t)c->b;
    for (uint64_t x = 1; x < (1ULL << n); x++)
        dst[x] = dst[x & (x - 1)] ^ (uint32_t)col[low_bit(x)];
    return KC_OK;
}

void kc_hl_random_lc(int n, kc_rng *r, kc_bitmat *a, uint64_t *b)
{
    kc_bitmat_random_nonsingular(a, n, r);
    *b = kc_rng_next(r) & kc_mask(n);
}

kc_status kc_hl_random_dimension_order(int n, int msb_first, kc_rng *r, uint32_t *dst)
{
    /* at[s] is where the message of source s is; stage by stage, each pair
     * (p, p + 2^d) exchanges its two messages or not */
    uint64_t np = 1ULL << n;
    uint32_t *who = malloc(np * sizeof *who); /* message at position p */
    if (!who)
        return KC_ENOMEM;
    for (uint64_t p = 0; p < np; p++)
        who[p] = (uint32_t)p;
    for (int i = 0; i < n; i++) {
        int d = msb_first ? n - 1 - i : i;
        uint64_t bit = 1ULL << d;
        for (uint64_t p = 0; p < np; p++)
            if (!(p & bit) && (kc_rng_next(r) >> 63)) {
                uint32_t t = who[p];
                who[p] = who[p | bit];
                who[p | bit] = t;
            }
    }
    kc_perm_invert(who, dst, np, NULL, NULL); /* who is a permutation by construction */
    free(who);
    return KC_OK;
}

void kc_hl_random_perm(int n, kc_rng *r, uint32_t *dst)
{
    kc_rng_perm(r, dst, 1ULL << n);
}

int kc_hl_is_lc(int n, const uint32_t *dst, kc_bitmat *a, uint64_t *b)
{
    kc_bitmat m;
    kc_bitmat_zero(&m, n);
    uint64_t k = dst[0];
    for (int j = 0; j < n; j++) {
        uint64_t c = dst[1ULL << j] ^ k;
        for (int i = 0; i < n; i++)
            kc_bitmat_set(&m, i, j, (int)((c >> i) & 1));
    }
    for (uint64_t x = 1; x < (1ULL << n); x++)
        if ((dst[x] ^ k) != (kc_bitmat_mul_vec(&m, x)))
            return 0;
    if (kc_bitmat_rank(&m) != n)
        return 0;
    if (a)
        *a = m;
    if (b)
        *b = k;
    return 1;
}
