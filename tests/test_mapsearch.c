/* Sets beyond the DP: the reorder search for a set of LCCs against the exact subset
 * DP, the DP's threads / bound / limits, and the lower bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kc_testutil.h"
#include "mapsearch_check.h"
#include "kcube/contention.h"
#include "kcube/mapset.h"

static const char *const issue_set[] = {"transpose", "bit-reverse", "reverse-flip", "shuffle"};

static void named_set(kc_lcc *c, int n)
{
    for (int r = 0; r < 4; r++)
        assert_int_equal(kc_lcc_named(&c[r], issue_set[r], n, NULL), KC_OK);
}

static void test_search_vs_dp_max(void **state) { kc_test_search_vs_dp(241, 24, 10, 16, KC_OBJ_MAX, 1000000); }
static void test_search_vs_dp_simultaneous(void **state)
{
    kc_test_search_vs_dp(242, 12, 10, 14, KC_OBJ_SIMULTANEOUS, 1000000);
}

/* The issue's set: value 4 at n = 20 and 22, by the search alone. */
static void test_issue_set(void **state)
{
    for (int n = 20; n <= 22; n += 2) {
        kc_lcc c[4];
        named_set(c, n);
        kc_mapset_search_result sr;
        kc_mapset_search_opts so;
        kc_mapset_search_opts_default(&so);
        so.work = 1000000;
        assert_int_equal(kc_mapset_search(c, 4, KC_OBJ_MAX, &so, &sr, NULL, NULL), KC_OK);
        assert_int_equal(sr.best.value, 4);
        assert_int_equal(sr.lower, 1);
        assert_false(sr.proved);
    }
}

/* Same seed and work, same order; the work is respected (to one move). */
static void test_deterministic(void **state)
{
    kc_lcc c[4];
    named_set(c, 24);
    kc_mapset_search_opts so;
    kc_mapset_search_opts_default(&so);
    so.work = 300000;
    so.seed = 9;
    kc_mapset_search_result a, b;
    assert_int_equal(kc_mapset_search(c, 4, KC_OBJ_MAX, &so, &a, NULL, NULL), KC_OK);
    assert_int_equal(kc_mapset_search(c, 4, KC_OBJ_MAX, &so, &b, NULL, NULL), KC_OK);
    assert_memory_equal(a.best.order.dim, b.best.order.dim, sizeof(int) * 24);
    assert_int_equal(a.work, b.work);
    assert_true(a.work < so.work + 4 * 2 * 24);
}

/* The DP: one thread or two, with or without a bound: the same order. */
static void test_dp_threads_and_bound(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 243);
    for (int t = 0; t < 6; t++) {
        int n = 14 + (t % 3);
        kc_lcc c[4];
        int m = kc_test_random_lcc_set(c, n, &rng);
        for (int obj = KC_OBJ_MAX; obj <= KC_OBJ_SUM; obj++) {
            kc_mapset_opts o1, o2;
            kc_mapset_opts_default(&o1);
            o1.threads = 1;
            kc_mapset_opts_default(&o2);
            o2.threads = 2;
            kc_mapset_result r1, r2, r3;
            assert_int_equal(kc_mapset_optimal_ex(c, m, (kc_objective)obj, &o1, &r1, NULL, NULL), KC_OK);
            assert_int_equal(kc_mapset_optimal_ex(c, m, (kc_objective)obj, &o2, &r2, NULL, NULL), KC_OK);
            assert_memory_equal(r1.order.dim, r2.order.dim, sizeof(int) * (size_t)n);
            o2.upper = r1.value;
            assert_int_equal(kc_mapset_optimal_ex(c, m, (kc_objective)obj, &o2, &r3, NULL, NULL), KC_OK);
            assert_memory_equal(r1.order.dim, r3.order.dim, sizeof(int) * (size_t)n);
            assert_int_equal(r3.total, r1.total);
            if (r1.value > 0) {
                kc_err err = {0};
                o2.upper = r1.value - 1; /* below the optimum: refused, not a wrong answer */
                assert_int_equal(kc_mapset_optimal_ex(c, m, (kc_objective)obj, &o2, &r3, NULL, &err), KC_EINVAL);
            }
        }
    }
}

/* The work limit stops the DP (deterministically) and names --max-time. */
static void test_dp_limit(void **state)
{
    kc_lcc c[4];
    named_set(c, 18);
    kc_mapset_opts o;
    kc_mapset_opts_default(&o);
    o.max_seconds = 1e-4;
    kc_mapset_result r;
    kc_err err = {0};
    assert_int_equal(kc_mapset_optimal_ex(c, 4, KC_OBJ_MAX, &o, &r, NULL, &err), KC_ERANGE);
    assert_string_equal(err.param, "max-time");
    uint64_t bytes;
    double sec;
    kc_mapset_estimate(28, 4, KC_OBJ_MAX, 4, 2, &bytes, &sec);
    assert_true(bytes >= (1ULL << 28) && bytes < (3ULL << 29)); /* 1 byte, then 2 for the totals */
    assert_true(sec > 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_vs_dp_max),  cmocka_unit_test(test_search_vs_dp_simultaneous),
        cmocka_unit_test(test_issue_set),         cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_dp_threads_and_bound), cmocka_unit_test(test_dp_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
