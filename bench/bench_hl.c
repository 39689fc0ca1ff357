/* Algorithm HL on a random LC permutation of Q_20 (1 M tags): time per
 * routing step of the engine (pairs of processors, two tag slots each),
 * with and without the per-step Lemma 4(b) check, against a naive simulator
 * that keeps tag -> processor positions and rebuilds per-processor tag lists
 * by counting every step. Medians of several runs; the naive run's final
 * placement is compared with the engine's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#include "core/bits.h"
#include "kcube/hl.h"

#define RUNS 7

/* The naive way: pos[tag]; per step count tags per processor, find the two
 * tags of each two-tag processor, choose the bit, move the tags. */
static int naive_hl(int n, const uint32_t *dst, uint32_t *pos, uint32_t *first, uint32_t *second, uint8_t *cnt)
{
    uint64_t np = 1ULL << n, used = 0;
    for (uint64_t x = 0; x < np; x++)
        pos[dst[x]] = (uint32_t)x;
    for (int t = 0; t < n; t++) {
        memset(cnt, 0, np);
        memset(first, 0xff, np * sizeof *first);
        for (uint64_t y = 0; y < np; y++) {
            uint32_t p = pos[y];
            if (cnt[p]++ == 0)
                first[p] = (uint32_t)y;
            else
                second[p] = (uint32_t)y;
        }
        uint64_t ones = 0, twos = 0;
        for (uint64_t x = 0; x < np; x++) {
            ones += cnt[x] == 1;
            twos += cnt[x] == 2;
        }
        int d = -1;
        if (ones == np) {
            d = kci_ctz64(~used);
        } else if (twos * 2 == np) {
            for (uint64_t x = 0; x < np; x++) {
                if (cnt[x] != 2)
                    continue;
                int dx = kci_ctz32(first[x] ^ second[x]);
                if (d >= 0 && dx != d)
                    return 0;
                d = dx;
            }
        } else {
            return 0;
        }
        uint32_t bit = 1u << d;
        for (uint64_t y = 0; y < np; y++)
            if ((y ^ pos[y]) & bit)
                pos[y] ^= bit;
        used |= bit;
    }
    for (uint64_t y = 0; y < np; y++)
        if (pos[y] != y)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    if (n < 2 || n > KC_HL_MAX_N) {
        fprintf(stderr, "usage: bench_hl [n]  (2..%d, default 20)\n", KC_HL_MAX_N);
        return 2;
    }
    uint64_t np = 1ULL << n;
    kc_rng r;
    kc_rng_seed(&r, 20);
    kc_bitmat a;
    uint64_t b;
    kc_hl_random_lc(n, &r, &a, &b);
    kc_lcc c;
    uint32_t *dst = malloc(np * sizeof *dst), *pos = malloc(np * sizeof *pos);
    uint32_t *first = malloc(np * sizeof *first), *second = malloc(np * sizeof *second);
    uint8_t *cnt = malloc(np);
    if (!dst || !pos || !first || !second || !cnt || kc_lcc_init(&c, &a, b, 0, NULL) ||
        kc_hl_perm_from_lcc(&c, dst, NULL)) {
        fprintf(stderr, "bench_hl: setup failed\n");
        return 1;
    }
    double t_plain[RUNS], t_checked[RUNS], t_naive[RUNS], t_load[RUNS];
    char states[65] = "";
    for (int run = 0; run < RUNS; run++) {
        for (int checked = 0; checked <= 1; checked++) {
            kc_hl_engine e;
            double t0 = bench_now();
            if (kc_hl_engine_init(&e, n, dst, 2, 0, NULL)) {
                fprintf(stderr, "bench_hl: out of memory\n");
                return 1;
            }
            double t1 = bench_now();
            kc_hl_opts o = {.check_affine = checked};
            kc_hl_result res;
            kc_hl_run(&e, &o, &res, NULL);
            double t2 = bench_now();
            if (!res.routed || res.max_moved != 1 || (checked && !res.affine_ok)) {
                fprintf(stderr, "bench_hl: HL failed: %s\n", res.why);
                return 1;
            }
            memcpy(states, res.states, sizeof states);
            kc_hl_engine_free(&e);
            if (checked)
                t_checked[run] = (t2 - t1) / n;
            else {
                t_plain[run] = (t2 - t1) / n;
                t_load[run] = t1 - t0;
            }
        }
        double t0 = bench_now();
        int ok = naive_hl(n, dst, pos, first, second, cnt);
        t_naive[run] = (bench_now() - t0) / n;
        if (!ok) {
            fprintf(stderr, "bench_hl: the naive simulator failed\n");
            return 1;
        }
    }
    double p = bench_median(t_plain, RUNS), ch = bench_median(t_checked, RUNS), nv = bench_median(t_naive, RUNS);
    printf("HL on a random LC permutation of Q_%d (%llu tags), states %s, medians of %d runs\n", n,
           (unsigned long long)np, states, RUNS);
    printf("  %-46s %9.3f ms\n", "engine: load the permutation", 1e3 * bench_median(t_load, RUNS));
    printf("  %-46s %9.3f ms/step  %6.2f ns/tag\n", "engine: one routing step (state, choice, move)", 1e3 * p,
           1e9 * p / (double)np);
    printf("  %-46s %9.3f ms/step  %6.2f ns/tag\n", "engine + Lemma 4(b) affine check every step", 1e3 * ch,
           1e9 * ch / (double)np);
    printf("  %-46s %9.3f ms/step  %6.2f ns/tag\n", "naive: positions + per-step counting", 1e3 * nv,
           1e9 * nv / (double)np);
    printf("  engine is %.1fx faster than the naive simulator\n", nv / p);
    free(dst), free(pos), free(first), free(second), free(cnt);
    return 0;
}
