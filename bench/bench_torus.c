/* Benchmarks for k-ary n-cubes: exact link counting (against hop-by-hop
 * path walking where that fits), Theorem 1, and mapping time over GF(16).
 * Prints medians of several runs. Usage: bench_torus [--quick] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#include "kcube/contention.h"
#include "kcube/tcontention.h"
#include "kcube/torusmap.h"

static void exact_case(int k, int n, const char *pattern, int runs, int with_paths)
{
    kc_torus t;
    kc_tcomm c;
    kc_err err = {0};
    if (kc_torus_init(&t, k, n, 0, KC_TIE_PLUS, &err) || kc_tcomm_named(&c, k, n, pattern, &err)) {
        printf("  %s\n", err.msg);
        return;
    }
    double v[9], w[9];
    kc_tcontention x, p;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        if (kc_tcontention_exact(&t, &c, NULL, &x, NULL, &err)) {
            printf("  %s\n", err.msg);
            return;
        }
        v[r] = bench_now() - t0;
    }
    double mx = bench_median(v, runs);
    printf("  %3d-ary %2d-cube  N = 2^%-2d %-14s T = %-6llu exact %8.3f s  (%5.1f ns/message/dim)", k, n, n * t.m,
           pattern, (unsigned long long)x.max, mx, 1e9 * mx / ((double)t.nodes * n));
    if (with_paths) {
        for (int r = 0; r < runs; r++) {
            double t0 = bench_now();
            kc_tcontention_paths(&t, &c, NULL, &p, &err);
            w[r] = bench_now() - t0;
        }
        double mp = bench_median(w, runs);
        printf("   paths %7.3f s (x%.1f)%s", mp, mp / mx, p.max == x.max ? "" : "  MISMATCH");
    }
    putchar('\n');
}

/* Exact counting on the 2^16, 2^20 and 2^24-node tori, with path walking
 * where it fits in memory; the small cases always take 5 runs. */
static void exact_section(int runs)
{
    printf("exact link counting, dimension by dimension with ring difference arrays\n"
           "(memory 8 N bytes), against walking every route hop by hop (8 n N bytes):\n");
    exact_case(16, 4, "transpose", 5, 1);
    exact_case(16, 4, "digit-reverse", 5, 1);
    exact_case(4, 10, "transpose", runs, 1);
    exact_case(4, 10, "digit-reverse", runs, 1);
    printf("2^24-node cases:\n");
    exact_case(4, 12, "transpose", runs, 0);
    exact_case(16, 6, "digit-reverse", runs, 0);
    exact_case(256, 3, "digit-reverse", runs, 0);
    exact_case(8, 8, "transpose", runs, 0);
    exact_case(2, 24, "transpose", runs, 0);
}

/* The same 2^24 case through the hypercube module (runs <= 3). */
static void hypercube_case(int runs)
{
    kc_lcc l;
    kc_contention hx;
    kc_lcc_named(&l, "transpose", 24, NULL);
    double v[3];
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        kc_contention_exact(&l, &hx, NULL, NULL);
        v[r] = bench_now() - t0;
    }
    printf("  (hypercube module, 24-cube transpose: T = %llu in %.3f s)\n", (unsigned long long)hx.max,
           bench_median(v, runs));
}

/* Theorem 1's closed form on a seeded random rank-11 gather of the 16-ary
 * 15-cube: the median of 5 averages over 100 calls. */
static void theorem1_case(void)
{
    printf("Theorem 1 (ranks of submatrices):\n");
    kc_torus t;
    kc_tcomm c;
    kc_torus_init(&t, 16, 15, 0, KC_TIE_PLUS, NULL);
    kc_gf f;
    kc_gf_init(&f, 16, NULL);
    kc_rng rng;
    kc_rng_seed(&rng, 1);
    kc_gfmat a;
    kc_gfmat_random_rank(&f, &a, 15, 11, &rng);
    kc_tcomm_init(&c, &f, &a, NULL, 0, NULL);
    double v[5];
    kc_tcontention fo;
    for (int r = 0; r < 5; r++) {
        double t0 = bench_now();
        for (int rep = 0; rep < 100; rep++)
            kc_tcontention_formula(&t, &c, &fo);
        v[r] = (bench_now() - t0) / 100;
    }
    printf("  16-ary 15-cube, random rank-11 gather: T = %llu (bound) in %.1f us\n", (unsigned long long)fo.max,
           1e6 * bench_median(v, 5));
}

/* Theorem 3 on two named communications of the 16-ary 16-cube: median of 5 each. */
static void theorem3_named(void)
{
    kc_tcomm c;
    const char *names[] = {"digit-reverse", "transpose"};
    for (int i = 0; i < 2; i++) {
        kc_tcomm_named(&c, 16, 16, names[i], NULL);
        double v[5];
        kc_tmap m;
        for (int r = 0; r < 5; r++) {
            double t0 = bench_now();
            kc_tmap_linear(&c, 1, 0, &m, NULL);
            v[r] = bench_now() - t0;
        }
        printf("  Theorem 3, %-36s %8.3f ms\n", names[i], 1e3 * bench_median(v, 5));
    }
}

/* Theorem 3 on the first of 15 seeded random communications over GF(16)
 * (median of 5), then Theorem 4 on all 15 (median of 3). */
static void theorem34_random(void)
{
    kc_gf f;
    kc_gf_init(&f, 16, NULL);
    kc_rng rng;
    kc_rng_seed(&rng, 2);
    kc_tcomm comms[15];
    for (int i = 0; i < 15; i++) {
        kc_gfmat a;
        if (i % 2)
            kc_gfmat_random_nonsingular(&f, &a, 16, &rng);
        else
            kc_gfmat_random_rank(&f, &a, 16, 8 + i / 2, &rng);
        kc_tcomm_init(&comms[i], &f, &a, NULL, 0, NULL);
    }
    double v[5];
    kc_tmap m;
    kc_status s = KC_OK;
    for (int r = 0; r < 5; r++) {
        double t0 = bench_now();
        s = kc_tmap_linear(comms, 1, 0, &m, NULL);
        v[r] = bench_now() - t0;
    }
    printf("  Theorem 3, %-36s %8.3f ms\n", "random rank-8 gather", 1e3 * bench_median(v, 5));
    for (int r = 0; r < 3; r++) {
        double t0 = bench_now();
        s = kc_tmap_linear(comms, 15, 0, &m, NULL);
        v[r] = bench_now() - t0;
    }
    printf("  Theorem 4, %-36s %8.3f ms%s\n", "15 = k-1 random communications", 1e3 * bench_median(v, 3),
           s ? "  (FAILED)" : "");
}

/* --quick: one run instead of 3 of the larger exact cases. */
int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int runs = quick ? 1 : 3;
    exact_section(runs);
    hypercube_case(runs);
    theorem1_case();
    printf("mapping time, n = 16 over GF(16):\n");
    theorem3_named();
    theorem34_random();
    return 0;
}
