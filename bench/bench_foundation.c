/* Benchmarks for the foundation (contention, reordering): the LCP optimiser at n = 64, exact
 * contention counts up to n = 24, and the subset DP up to n = 24, each beside
 * a naive method. Usage: bench_foundation [--quick] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#include "kcube/contention.h"
#include "kcube/mapset.h"
#include "kcube/reorder.h"

/* Naive LCP optimiser: at each position try candidates, recomputing the rank
 * of the submatrix from scratch (O(n^4 / 64)). */
static void naive_lcp(const kc_lcc *c, int *ord)
{
    int n = c->a.n;
    uint64_t prefix = 0;
    for (int i = 0; i < n; i++)
        ord[i] = i;
    for (int t = 0; t < n; t++) {
        for (int u = t; u < n; u++) {
            uint64_t rows = prefix | (1ULL << ord[u]);
            if (kc_bitmat_rank_sub(&c->a, rows, prefix) == t) {
                int x = ord[t];
                ord[t] = ord[u];
                ord[u] = x;
                break;
            }
        }
        prefix |= 1ULL << ord[t];
    }
}

static volatile uint64_t sink;

static void bench_lcp(void)
{
    enum { MATS = 256, REPS = 9 };
    kc_rng rng;
    kc_rng_seed(&rng, 64);
    kc_lcc *c = malloc(sizeof *c * MATS);
    for (int i = 0; i < MATS; i++) {
        kc_bitmat a;
        kc_bitmat_random_nonsingular(&a, 64, &rng);
        kc_lcc_init(&c[i], &a, kc_rng_next(&rng), 0, NULL);
    }
    double fast[REPS], slow[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = bench_now();
        for (int i = 0; i < MATS; i++) {
            kc_order o;
            kc_reorder_optimal(&c[i], &o, NULL);
            sink += (uint64_t)o.dim[63];
        }
        fast[r] = (bench_now() - t0) / MATS;
        t0 = bench_now();
        for (int i = 0; i < MATS / 8; i++) {
            int ord[64];
            naive_lcp(&c[i], ord);
            sink += (uint64_t)ord[63];
        }
        slow[r] = (bench_now() - t0) / (MATS / 8);
    }
    /* Every optimised order is contention-free (checked outside the timing). */
    for (int i = 0; i < MATS; i++) {
        kc_order o;
        kc_reorder_optimal(&c[i], &o, NULL);
        if (kc_reorder_value(&c[i], &o) != 1)
            printf("  ERROR: matrix %d not contention-free after mapping\n", i);
    }
    double mf = bench_median(fast, REPS), ms = bench_median(slow, REPS);
    printf("LCP optimiser, n = 64, random nonsingular: %.2f us/call (median of %d x %d); "
           "naive rank-from-scratch: %.1f us/call; ratio %.0fx\n",
           mf * 1e6, REPS, MATS, ms * 1e6, ms / mf);
    free(c);
}

static void bench_exact(int quick)
{
    kc_rng rng;
    kc_rng_seed(&rng, 65);
    int sizes[] = {16, 20, 24};
    for (int k = 0; k < (quick ? 2 : 3); k++) {
        int n = sizes[k], reps = n <= 20 ? 5 : 3;
        kc_lcc c;
        kc_bitmat a;
        kc_bitmat_random_nonsingular(&a, n, &rng);
        kc_lcc_init(&c, &a, kc_rng_next(&rng), 0, NULL);
        double t[5];
        kc_contention x;
        for (int r = 0; r < reps; r++) {
            double t0 = bench_now();
            kc_contention_exact(&c, &x, NULL, NULL);
            t[r] = bench_now() - t0;
        }
        double mt = bench_median(t, reps);
        printf("exact count, n = %d (%llu messages, %d dimensions): %.3f s (median of %d), %.1f M message-hops/s, "
               "memory %.0f MiB",
               n, 1ULL << n, n, mt, reps, (double)(1ULL << n) * n / 2 / mt / 1e6,
               (double)(8ULL << n) / (1 << 20));
        if (n == 16) {
            kc_contention p;
            double t0 = bench_now();
            kc_contention_paths(&c, &p, NULL);
            double tp = bench_now() - t0;
            printf("; path-walking counter (O(n 2^n) memory) %.3f s", tp);
        }
        putchar('\n');
    }
}

static void bench_dp(int quick)
{
    const char *names[] = {"transpose", "bit-reverse", "reverse-flip", "shuffle"};
    int sizes[] = {16, 20, 24};
    for (int k = 0; k < (quick ? 1 : 3); k++) {
        int n = sizes[k];
        kc_lcc c[4];
        for (int r = 0; r < 4; r++)
            kc_lcc_named(&c[r], names[r], n, NULL);
        kc_mapset_result res;
        double t0 = bench_now();
        kc_mapset_optimal(c, 4, KC_OBJ_MAX, &res, NULL, NULL);
        double tf = bench_now() - t0;
        printf("set DP, n = %d, 4 communications (transpose, bit-reverse, reverse-flip, shuffle), objective max: "
               "%.3f s (both passes), value %llu",
               n, tf, (unsigned long long)res.value);
        if (n == 16) {
            kc_mapset_result nv;
            t0 = bench_now();
            kc_mapset_naive(c, 4, KC_OBJ_MAX, &nv, NULL);
            double tn = bench_now() - t0;
            printf("; paper's DP with ranks from scratch %.3f s (value %llu); ratio %.0fx", tn,
                   (unsigned long long)nv.value, tn / tf);
        }
        putchar('\n');
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    bench_lcp();
    bench_exact(quick);
    bench_dp(quick);
    return 0;
}
