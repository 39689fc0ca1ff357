/* Channel contention: closed forms (Theorem 1 and its mirror for scatters)
 * and two exact counters. */
#include "kcube/contention.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "core/pool.h"

/* A message that crosses dimension i, or 0 with *found = 0 if none does.
 * Message m crosses dimension i iff (row_i + e_i) . m + b_i = 1, the same
 * condition for every kind (for scatters m is the destination). */
static uint64_t crossing_message(const kc_lcc *c, int i, int *found)
{
    uint64_t diff = c->a.row[i] ^ (1ULL << i);
    *found = 1;
    if ((c->b >> i) & 1)
        return 0;
    if (diff)
        return 1ULL << kci_ctz64(diff);
    *found = 0;
    return 0;
}

uint64_t kc_contention_formula_dim(const kc_lcc *c, int i)
{
    int n = c->a.n, found;
    crossing_message(c, i, &found);
    if (!found)
        return 0;
    int e;
    if (c->kind == KC_LCC_SCATTER) {
        /* Messages through a dimension-i channel are the destinations y with
         * y_0..y_i fixed by the channel and rows i..n-1 of Ay + b fixed too:
         * n-1-i free unknowns under the submatrix A[i..n-1, i+1..n-1]. */
        uint64_t rows = kc_mask(n) & ~kc_mask(i), cols = kc_mask(n) & ~kc_mask(i + 1);
        e = (n - 1 - i) - kc_bitmat_rank_sub(&c->a, rows, cols);
    } else {
        e = i - kc_bitmat_rank_sub(&c->a, kc_mask(i + 1), kc_mask(i));
    }
    return 1ULL << e;
}

static void finish(kc_contention *out)
{
    out->max = 0;
    out->max_dim = -1;
    for (int i = 0; i < out->n; i++)
        if (out->per_dim[i] > out->max) {
            out->max = out->per_dim[i];
            out->max_dim = i;
        }
}

void kc_contention_formula(const kc_lcc *c, kc_contention *out)
{
    memset(out, 0, sizeof *out);
    out->n = c->a.n;
    for (int i = 0; i < out->n; i++) {
        out->per_dim[i] = kc_contention_formula_dim(c, i);
        int found;
        uint64_t m = crossing_message(c, i, &found);
        if (found) {
            /* Every used channel of dimension i carries the same number of
             * messages, so any crossing message names a worst channel. */
            uint64_t src, dst;
            kc_lcc_message(c, m, &src, &dst);
            out->witness[i] = kc_ecube_channel(src, dst, i);
        }
    }
    finish(out);
}

/* ---- the exact count ------------------------------------------------------
 *
 * Every message is routed and counted, one dimension at a time, without a
 * table of destinations: d = A m + b is updated along a Gray code (one
 * column XOR per message). For a permutation or gather the dimension-i
 * channel of message m is z = (d & low) | (m & ~low): with the bits of m
 * above i and bit i fixed, the channels of the 2^i messages left differ only
 * in d & low, so they are counted in a window of 2^i counters that is read
 * and cleared before the next group. For a scatter (source s = A m + b,
 * destination m), z = (m & low) | (s & ~low): with m & low fixed, the 2^(n-i)
 * messages left are counted by s >> i. Dimensions are shared among the
 * threads; each thread owns its window. */

typedef struct exact_worker exact_worker;

typedef struct exact_job {
    const kc_lcc *c;
    uint64_t col[KC_BITMAT_MAX];
    atomic_int next_dim; /* taken atomically, highest first (largest windows first) */
    kc_contention *out;
    atomic_int failed;
    exact_worker *w; /* one per thread */
} exact_job;

struct exact_worker {
    exact_job *job;
    uint32_t *cnt;
    uint64_t cap; /* counters allocated */
};

static int ensure(exact_worker *w, uint64_t size)
{
    if (w->cap >= size)
        return 1;
    free(w->cnt);
    w->cnt = calloc(size, sizeof *w->cnt);
    w->cap = w->cnt ? size : 0;
    return w->cnt != NULL;
}

/* Read the window's largest counter (lowest channel on ties) and clear it. */
static void drain(uint32_t *cnt, uint64_t size, uint64_t base, int shift, uint64_t lowpart, uint64_t *best,
                  uint64_t *where)
{
    for (uint64_t k = 0; k < size; k++) {
        uint64_t v = cnt[k];
        if (!v)
            continue;
        cnt[k] = 0;
        uint64_t z = base | (k << shift) | lowpart;
        if (v > *best || (v == *best && z < *where)) {
            *best = v;
            *where = z;
        }
    }
}

static void count_dim(exact_worker *w, int i)
{
    const kc_lcc *c = w->job->c;
    const uint64_t *col = w->job->col;
    int n = c->a.n;
    uint64_t low = kc_mask(i), best = 0, where = 0;
    if (c->kind != KC_LCC_SCATTER) {
        /* The window takes W >= i bits: d & low, and for small i also the
         * bits i..W-1 of m (several groups at once, so a group is never a
         * handful of messages). Inside a group the low L bits of m run
         * through a Gray code; L = W, or i when the window is just d & low
         * (then bit i of m is fixed by the group). */
        int W = i >= 12 ? i : (n < 12 ? n : 12), L = W > i ? W : i;
        uint64_t groups = 1ULL << (n - L), size = 1ULL << L, wmask = kc_mask(W), dbase = c->b;
        /* The Gray code flips its low bits most often: give them to the bits
         * of m that move the counter index least, so that consecutive
         * messages touch nearby counters (a large window stays in cache). */
        int perm[KC_BITMAT_MAX], key[KC_BITMAT_MAX];
        for (int t = 0; t < L; t++) {
            uint64_t delta = (col[t] & low) | ((t >= i && t < W) ? 1ULL << t : 0);
            key[t] = delta ? 63 - kci_clz64(delta) : -1;
            int k = t;
            while (k > 0 && key[perm[k - 1]] > key[t]) {
                perm[k] = perm[k - 1];
                k--;
            }
            perm[k] = t;
        }
        for (uint64_t gk = 0; gk < groups; gk++) {
            /* groups in Gray code order too: one column per group */
            if (gk)
                dbase ^= col[L + kci_ctz64(gk)];
            uint64_t mbase = (gk ^ (gk >> 1)) << L, d = dbase, m = mbase;
            for (uint64_t k = 0;;) {
                /* the message crosses dimension i iff d_i != m_i (branch-free) */
                w->cnt[(m & ~low & wmask) | (d & low)] += (uint32_t)(((d ^ m) >> i) & 1);
                if (++k == size)
                    break;
                int t = perm[kci_ctz64(k)];
                d ^= col[t];
                m ^= 1ULL << t;
            }
            drain(w->cnt, 1ULL << W, mbase & ~wmask, 0, 0, &best, &where);
        }
    } else {
        /* groups: m & low; inside, m_hi over n - i bits, counted by s >> i */
        uint64_t groups = 1ULL << i, size = 1ULL << (n - i), sbase = c->b;
        for (uint64_t gk = 0; gk < groups; gk++) {
            if (gk)
                sbase ^= col[kci_ctz64(gk)];
            uint64_t g = gk ^ (gk >> 1), s = sbase;
            for (uint64_t k = 0;;) {
                /* message m = g | (gray(k) << i): source s, destination m */
                uint64_t mi = (k ^ (k >> 1)) & 1;
                w->cnt[s >> i] += (uint32_t)(((s >> i) & 1) ^ mi);
                if (++k == size)
                    break;
                s ^= col[i + kci_ctz64(k)];
            }
            drain(w->cnt, size, 0, i, g, &best, &where);
        }
    }
    w->job->out->per_dim[i] = best;
    w->job->out->witness[i] = where;
}

/* Worker t: dimensions from the shared counter until none are left. */
static void exact_thread(void *ctx, unsigned t)
{
    exact_job *job = ctx;
    exact_worker *w = &job->w[t];
    int n = job->c->a.n, scatter = job->c->kind == KC_LCC_SCATTER;
    for (;;) {
        int i = atomic_fetch_sub_explicit(&job->next_dim, 1, memory_order_relaxed) - 1;
        if (i < 0)
            break;
        if (scatter)
            i = n - 1 - i; /* scatter windows are largest for low i */
        int wbits = scatter ? n - i : i >= 12 ? i : (n < 12 ? n : 12);
        if (!ensure(w, 1ULL << wbits)) {
            atomic_store_explicit(&job->failed, 1, memory_order_relaxed);
            break;
        }
        count_dim(w, i);
    }
}

void kc_exact_opts_default(kc_exact_opts *o) { o->threads = 2; }

void kc_contention_exact_estimate(int n, int kind, int threads, uint64_t *bytes, double *seconds)
{
    double N = ldexp(1.0, n);
    int nt = threads < 1 ? 1 : threads;
    /* the largest windows at once: 2^(n-1) + 2^(n-2) + ... counters (scatters: 2^n + 2^(n-1) + ...) */
    double w = kind == KC_LCC_SCATTER ? 2.0 * N : N;
    double win = 0;
    for (int t = 0; t < nt && t < n; t++)
        win += w / ldexp(1.0, t + 1);
    if (bytes)
        *bytes = (uint64_t)(4.0 * win) + (1u << 20);
    if (seconds)
        *seconds = KC_EXACT_SECONDS_PER_MESSAGE_DIM * N * n / (nt > 1 ? 0.8 * nt : 1.0);
}

kc_status kc_contention_exact_ex(const kc_lcc *c, const kc_exact_opts *opts, kc_contention *out,
                                 const kc_progress *progress, kc_err *err)
{
    int n = c->a.n;
    if (n > KC_EXACT_MAX_N)
        return kc_fail(err, KC_ERANGE, "exact counting supports n <= %d, got n = %d", KC_EXACT_MAX_N, n);
    kc_exact_opts o;
    if (opts)
        o = *opts;
    else
        kc_exact_opts_default(&o);
    int nt = o.threads < 1 ? 1 : o.threads > KC_EXACT_MAX_THREADS ? KC_EXACT_MAX_THREADS : o.threads;
    if (n < 16)
        nt = 1;
    memset(out, 0, sizeof *out);
    out->n = n;
    exact_worker w[KC_EXACT_MAX_THREADS];
    memset(w, 0, sizeof w);
    exact_job job = {.c = c, .out = out, .w = w};
    atomic_init(&job.next_dim, n);
    atomic_init(&job.failed, 0);
    for (int j = 0; j < n; j++)
        job.col[j] = kc_bitmat_col(&c->a, j);
    for (int t = 0; t < nt; t++)
        w[t].job = &job;
    kci_run_threads((unsigned)nt, exact_thread, &job);
    for (int t = 0; t < nt; t++)
        free(w[t].cnt);
    kc_progress_report(progress, n, n);
    if (atomic_load(&job.failed))
        return kc_fail(err, KC_ENOMEM, "out of memory for the exact count's counters (n = %d)", n);
    finish(out);
    return KC_OK;
}

kc_status kc_contention_exact(const kc_lcc *c, kc_contention *out, const kc_progress *progress, kc_err *err)
{
    return kc_contention_exact_ex(c, NULL, out, progress, err);
}

kc_status kc_contention_paths(const kc_lcc *c, kc_contention *out, kc_err *err)
{
    int n = c->a.n;
    if (n > 16)
        return kc_fail(err, KC_ERANGE, "path enumeration supports n <= 16, got n = %d", n);
    uint64_t count = 1ULL << n;
    uint32_t *cnt = calloc(count * (uint64_t)n, sizeof *cnt);
    if (!cnt)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint64_t m = 0; m < count; m++) {
        uint64_t src, dst;
        kc_lcc_message(c, m, &src, &dst);
        /* Walk the e-cube path: fix differing bits from dimension 0 upward. */
        uint64_t at = src;
        for (int i = 0; i < n; i++)
            if (((at ^ dst) >> i) & 1) {
                cnt[at * (uint64_t)n + (uint64_t)i]++;
                at ^= 1ULL << i;
            }
    }
    memset(out, 0, sizeof *out);
    out->n = n;
    for (uint64_t z = 0; z < count; z++)
        for (int i = 0; i < n; i++)
            if (cnt[z * (uint64_t)n + (uint64_t)i] > out->per_dim[i]) {
                out->per_dim[i] = cnt[z * (uint64_t)n + (uint64_t)i];
                out->witness[i] = z;
            }
    free(cnt);
    finish(out);
    return KC_OK;
}
