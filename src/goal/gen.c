/* Schedule generators (kcube/goal.h): seed 000 Section 6.2's parallel FFT,
 * the complete exchange (pairwise and recursive) and one phase of an LCC.
 * Each generator appends; the first new operations of a rank wait (requires)
 * for the rank's current tails, its operations nothing waits for yet, so
 * phases chain per rank without a barrier across ranks. */
#include <stdlib.h>
#include <string.h>

#include "goal_internal.h"

/* check_cube's largest n: a pipelined iteration has at most 2n operations. */
#define KC_GOAL_CX_MAX_N 24

static const kc_name cx_entries[] = {
    {KC_GOAL_CX_PAIRWISE, "pairwise", "2^n - 1 steps: at step j every node exchanges one block with node x ^ j"},
    {KC_GOAL_CX_RECURSIVE, "recursive", "n steps: at step i every node exchanges half its data across dimension i"},
    {0, NULL, NULL},
};
const kc_names kc_goal_cx_names = {"complete exchange", cx_entries};

/* The tails of every rank: tail[first[r]..first[r+1]). */
typedef struct tails {
    size_t *first, *op;
} tails;

static kc_status tails_get(const kc_goal *g, tails *t, kc_err *err)
{
    unsigned char *waited = calloc(g->nops ? g->nops : 1, 1);
    t->first = calloc((size_t)g->num_ranks + 2, sizeof *t->first);
    t->op = malloc((g->nops ? g->nops : 1) * sizeof *t->op);
    if (!waited || !t->first || !t->op) {
        free(waited), free(t->first), free(t->op);
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    }
    for (size_t i = 0; i < g->ndeps; i++)
        waited[g->dep[i].on] = 1;
    for (size_t i = 0; i < g->nops; i++)
        if (!waited[i] && g->op[i].rank < g->num_ranks)
            t->first[g->op[i].rank + 2]++;
    for (uint32_t r = 0; r < g->num_ranks; r++)
        t->first[r + 2] += t->first[r + 1];
    for (size_t i = 0; i < g->nops; i++)
        if (!waited[i] && g->op[i].rank < g->num_ranks)
            t->op[t->first[g->op[i].rank + 1]++] = i;
    free(waited);
    return KC_OK;
}

static void tails_free(tails *t)
{
    free(t->first);
    free(t->op);
}

/* Operation `op` of rank r waits for the rank's tails. */
static kc_status after_tails(kc_goal *g, const tails *t, uint32_t r, size_t op, kc_err *err)
{
    for (size_t k = t->first[r]; k < t->first[r + 1]; k++) {
        kc_status s = kc_goal_depend(g, op, t->op[k], 0, 0, err);
        if (s)
            return s;
    }
    return KC_OK;
}

/* Add op, making it wait for each of after[0..nafter) (KC_GOAL_NONE skipped). */
static kc_status add_after(kc_goal *g, kc_goal_kind kind, uint32_t rank, int64_t peer, int64_t tag,
                           uint64_t amount, const size_t *after, int nafter, size_t *out, kc_err *err)
{
    size_t op; /* out may alias after */
    kc_status s = kc_goal_add(g, kind, rank, peer, tag, amount, NULL, 0, &op, err);
    for (int i = 0; i < nafter && !s; i++)
        if (after[i] != KC_GOAL_NONE)
            s = kc_goal_depend(g, op, after[i], 0, 0, err);
    *out = op;
    return s;
}

/* An exchange with `peer`: a send and a recv of `bytes`, both after `prev`
 * (a list of up to two operations); out[0] = send, out[1] = recv. */
static kc_status exchange(kc_goal *g, uint32_t rank, uint32_t peer, int64_t tag, uint64_t bytes,
                          const size_t *prev, int nprev, size_t out[2], kc_err *err)
{
    size_t in[2] = {nprev > 0 ? prev[0] : KC_GOAL_NONE, nprev > 1 ? prev[1] : KC_GOAL_NONE}; /* out may alias prev */
    kc_status s = add_after(g, KC_GOAL_SEND, rank, peer, tag, bytes, in, 2, &out[0], err);
    if (!s)
        s = add_after(g, KC_GOAL_RECV, rank, peer, tag, bytes, in, 2, &out[1], err);
    return s;
}

static uint32_t reverse_bits(uint32_t x, int n)
{
    uint32_t y = 0;
    for (int i = 0; i < n; i++)
        y |= ((x >> i) & 1u) << (n - 1 - i);
    return y;
}

static kc_status check_cube(const kc_goal *g, int n, kc_err *err)
{
    if (n < 1 || n > KC_GOAL_CX_MAX_N)
        return kc_fail_param(err, KC_ERANGE, "n", "the cube dimension must be 1..24, not %d", n);
    if (g->num_ranks != (uint32_t)1 << n)
        return kc_fail_param(err, KC_EINVAL, "schedule", "the schedule has %u ranks, the %d-cube %u nodes",
                             g->num_ranks, n, (uint32_t)1 << n);
    return KC_OK;
}

kc_status kc_goal_gen_fft(kc_goal *g, int n, int d, uint64_t butterfly_ns, uint64_t half_ns, kc_err *err)
{
    return kc_goal_gen_fft_parts(g, n, d, butterfly_ns, half_ns, KC_GOAL_FFT_ALL, err);
}

kc_status kc_goal_gen_fft_parts(kc_goal *g, int n, int d, uint64_t butterfly_ns, uint64_t half_ns, unsigned parts,
                                kc_err *err)
{
    kc_status s = check_cube(g, n, err);
    if (s)
        return s;
    if (d < 1 || n + 2 * d > 40)
        return kc_fail_param(err, KC_ERANGE, "d", "d must be at least 1 with n + 2d <= 40 (m = 2^(n+2d) points), "
                             "not %d", d);
    if (g->nops)
        return kc_fail_param(err, KC_EINVAL, "schedule", "the FFT is generated into an empty schedule");
    if (!parts || (parts & ~(unsigned)KC_GOAL_FFT_ALL))
        return kc_fail_param(err, KC_EINVAL, "parts", "no valid FFT part selected (0x%x)", parts);
    uint64_t per_proc = (uint64_t)1 << (2 * d);       /* points per processor */
    uint64_t block = 16 * per_proc;                    /* bytes of a whole block */
    uint64_t local = (per_proc / 2) * butterfly_ns;    /* one local stage */
    uint64_t half = per_proc * half_ns;                /* one exchange stage's half butterflies */
    for (uint32_t p = 0; p < g->num_ranks && !s; p++) {
        size_t prev[2] = {KC_GOAL_NONE, KC_GOAL_NONE}, ex[2];
        uint32_t rev = reverse_bits(p, n);
        if ((s = kc_goal_set_phase(g, "bit-reverse", err)))
            break;
        if ((parts & KC_GOAL_FFT_BITREV) && rev != p && (s = exchange(g, p, rev, 0, block, prev, 0, prev, err)))
            break;
        if (!(parts & KC_GOAL_FFT_REST))
            continue;
        if ((s = kc_goal_set_phase(g, "compute", err)))
            break;
        for (int i = 0; i < d && !s; i++) {
            s = add_after(g, KC_GOAL_CALC, p, 0, 0, local, prev, 2, &prev[0], err);
            prev[1] = KC_GOAL_NONE;
        }
        if (s || (s = kc_goal_set_phase(g, "neighbour", err)))
            break;
        for (int i = 0; i < n && !s; i++) {
            if ((s = exchange(g, p, p ^ (1u << i), i + 1, block, prev, 2, ex, err)))
                break;
            s = add_after(g, KC_GOAL_CALC, p, 0, 0, half, ex, 2, &prev[0], err);
            prev[1] = KC_GOAL_NONE;
        }
        if (s || (s = kc_goal_set_phase(g, "compute", err)))
            break;
        for (int i = 0; i < d && !s; i++)
            s = add_after(g, KC_GOAL_CALC, p, 0, 0, local, prev, 1, &prev[0], err);
    }
    g->cur_phase = 0;
    return s;
}

kc_status kc_goal_gen_complete_exchange(kc_goal *g, int n, uint64_t block, kc_goal_cx method, const char *phase,
                                        int64_t tag0, kc_err *err)
{
    kc_status s = check_cube(g, n, err);
    if (s)
        return s;
    if (method != KC_GOAL_CX_PAIRWISE && method != KC_GOAL_CX_RECURSIVE)
        return kc_fail_param(err, KC_EINVAL, "method", "unknown complete exchange method %d", (int)method);
    uint32_t p = g->num_ranks;
    uint32_t steps = method == KC_GOAL_CX_PAIRWISE ? p - 1 : (uint32_t)n;
    uint64_t bytes = method == KC_GOAL_CX_PAIRWISE ? block : block * (p / 2);
    if (tag0 < 0 || tag0 > INT32_MAX - (int64_t)steps)
        return kc_fail_param(err, KC_ERANGE, "tag", "tags %lld.. do not fit 0..%d", (long long)tag0, INT32_MAX);
    tails t;
    if ((s = tails_get(g, &t, err)))
        return s;
    s = kc_goal_set_phase(g, phase, err);
    for (uint32_t x = 0; x < p && !s; x++) {
        size_t prev[2] = {KC_GOAL_NONE, KC_GOAL_NONE};
        for (uint32_t j = 0; j < steps && !s; j++) {
            uint32_t peer = method == KC_GOAL_CX_PAIRWISE ? x ^ (j + 1) : x ^ (1u << j);
            if ((s = exchange(g, x, peer, tag0 + j, bytes, prev, 2, prev, err)))
                break;
            if (j == 0 && !(s = after_tails(g, &t, x, prev[0], err)))
                s = after_tails(g, &t, x, prev[1], err);
        }
    }
    tails_free(&t);
    g->cur_phase = 0;
    return s;
}

/* One pipelined iteration t of rank x: an exchange through every active
 * dimension, each op after the previous iteration's ops prev[0..*nprev);
 * the new ops replace them. */
static kc_status pipelined_iteration(kc_goal *g, int n, uint32_t x, int t, int q, uint64_t total, int64_t tag,
                                     size_t *prev, int *nprev, kc_err *err)
{
    size_t cur[2 * KC_GOAL_CX_MAX_N];
    int ncur = 0, lo = t - q + 1 > 0 ? t - q + 1 : 0, hi = t < n - 1 ? t : n - 1;
    kc_status s = KC_OK;
    for (int k = lo; k <= hi && !s; k++) {
        uint64_t p = (uint64_t)(t - k), bytes = total / (uint64_t)q + (p < total % (uint64_t)q);
        uint32_t peer = x ^ (1u << k);
        s = add_after(g, KC_GOAL_SEND, x, peer, tag, bytes, prev, *nprev, &cur[ncur++], err);
        if (!s)
            s = add_after(g, KC_GOAL_RECV, x, peer, tag, bytes, prev, *nprev, &cur[ncur++], err);
    }
    memcpy(prev, cur, (size_t)ncur * sizeof *cur);
    *nprev = ncur;
    return s;
}

kc_status kc_goal_gen_complete_exchange_pipelined(kc_goal *g, int n, uint64_t block, int q, const char *phase,
                                                  int64_t tag0, kc_err *err)
{
    kc_status s = check_cube(g, n, err);
    if (s)
        return s;
    uint64_t half = (uint64_t)1 << (n - 1);
    if (block == 0 || block > UINT64_MAX / half)
        return kc_fail_param(err, KC_ERANGE, "block", "2^%d blocks of %llu bytes do not fit", n - 1,
                             (unsigned long long)block);
    uint64_t total = block * half;
    if (q < 1 || (uint64_t)q > total)
        return kc_fail_param(err, KC_EINVAL, "degree", "the pipelining degree must be in 1..%llu, got %d",
                             (unsigned long long)total, q);
    int iters = n + q - 1;
    if (tag0 < 0 || tag0 > INT32_MAX - (int64_t)iters)
        return kc_fail_param(err, KC_ERANGE, "tag", "tags %lld.. do not fit 0..%d", (long long)tag0, INT32_MAX);
    tails t;
    if ((s = tails_get(g, &t, err)))
        return s;
    s = kc_goal_set_phase(g, phase, err);
    for (uint32_t x = 0; x < g->num_ranks && !s; x++) {
        size_t prev[2 * KC_GOAL_CX_MAX_N];
        int nprev = 0;
        for (int it = 0; it < iters && !s; it++) {
            s = pipelined_iteration(g, n, x, it, q, total, tag0 + it, prev, &nprev, err);
            for (int k = 0; it == 0 && k < nprev && !s; k++)
                s = after_tails(g, &t, x, prev[k], err);
        }
    }
    tails_free(&t);
    g->cur_phase = 0;
    return s;
}

kc_status kc_goal_gen_lcc(kc_goal *g, const kc_lcc *c, uint64_t bytes, const char *phase, int64_t tag,
                          kc_err *err)
{
    kc_status s = check_cube(g, c->a.n, err);
    if (s)
        return s;
    if (tag < 0 || tag > INT32_MAX)
        return kc_fail_param(err, KC_ERANGE, "tag", "tag %lld is not in 0..%d", (long long)tag, INT32_MAX);
    tails t;
    if ((s = tails_get(g, &t, err)))
        return s;
    s = kc_goal_set_phase(g, phase, err);
    for (uint64_t msg = 0; msg < g->num_ranks && !s; msg++) {
        uint64_t src, dst;
        size_t a, b;
        kc_lcc_message(c, msg, &src, &dst);
        if (src == dst)
            continue; /* a node keeps its own data: no message */
        if (!(s = kc_goal_add(g, KC_GOAL_SEND, (uint32_t)src, (int64_t)dst, tag, bytes, NULL, 0, &a, err)) &&
            !(s = after_tails(g, &t, (uint32_t)src, a, err)) &&
            !(s = kc_goal_add(g, KC_GOAL_RECV, (uint32_t)dst, (int64_t)src, tag, bytes, NULL, 0, &b, err)))
            s = after_tails(g, &t, (uint32_t)dst, b, err);
    }
    tails_free(&t);
    g->cur_phase = 0;
    return s;
}
