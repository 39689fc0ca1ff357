/* mapsearch_check.c - see mapsearch_check.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kc_testutil.h"
#include "mapsearch_check.h"

/* A random set: 2..4 random LCCs of random kinds, or 2..4 built-in patterns. */
int kc_test_random_lcc_set(kc_lcc *c, int n, kc_rng *rng)
{
    static const char *const pats[] = {"transpose", "bit-reverse", "reverse-flip", "shuffle", "unshuffle",
                                       "bit-swap:3", "rotate-cw", "reflect-antidiagonal", "row-bit-reverse",
                                       "col-bit-reverse", "scale-2x"};
    int m = 2 + (int)kc_rng_below(rng, 3);
    int named = (int)kc_rng_below(rng, 2);
    for (int r = 0; r < m; r++) {
        if (named)
            assert_int_equal(kc_lcc_named(&c[r], pats[kc_rng_below(rng, sizeof pats / sizeof pats[0])], n, NULL),
                             KC_OK);
        else
            kc_test_random_lcc(&c[r], n, (kc_lcc_kind)kc_rng_below(rng, 3), rng);
    }
    return m;
}

/* The search reaches the DP's optimum; the lower bound never passes it. */
void kc_test_search_vs_dp(uint64_t seed, int trials, int n0, int n1, kc_objective obj, uint64_t work)
{
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    for (int t = 0; t < trials; t++) {
        int n = n0 + 2 * (t % ((n1 - n0) / 2 + 1));
        kc_lcc c[4];
        int m = kc_test_random_lcc_set(c, n, &rng);
        kc_mapset_search_opts so;
        kc_mapset_search_opts_default(&so);
        so.work = work;
        kc_mapset_search_result sr;
        assert_int_equal(kc_mapset_search(c, m, obj, &so, &sr, NULL, NULL), KC_OK);
        assert_true(kc_order_valid(sr.best.order.dim, n));
        kc_mapset_opts mo;
        kc_mapset_opts_default(&mo);
        mo.upper = sr.best.value; /* an order reaches it, so the DP stays exact */
        kc_mapset_result dp;
        assert_int_equal(kc_mapset_optimal_ex(c, m, obj, &mo, &dp, NULL, NULL), KC_OK);
        if (sr.best.value != dp.value)
            print_error("n = %d, m = %d, objective %d: search %llu, DP %llu\n", n, m, (int)obj,
                        (unsigned long long)sr.best.value, (unsigned long long)dp.value);
        assert_int_equal(sr.best.value, dp.value);
        assert_true(sr.lower <= dp.value);
        assert_int_equal(sr.proved, sr.best.value == sr.lower);
        uint64_t total;
        assert_int_equal(kc_objective_value(c, m, obj, &sr.best.order, &total), sr.best.value);
        assert_int_equal(total, sr.best.total);
    }
}

