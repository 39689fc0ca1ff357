/* One reordering for a set of LCCs: the subset DP against exhaustive search
 * and against the paper's DP, on the paper's examples and random sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kc_testutil.h"
#include "kcube/contention.h"
#include "kcube/mapset.h"

static uint64_t after(const kc_lcc *c, const kc_order *o)
{
    return kc_reorder_value(c, o);
}

/* Seed 000 Example 6: transpose and bit-reverse -> 2 and 1. */
static void test_example_6(void **state)
{
    kc_lcc c[2];
    kc_lcc_named(&c[0], "transpose", 8, NULL);
    kc_lcc_named(&c[1], "bit-reverse", 8, NULL);
    kc_mapset_result r;
    assert_int_equal(kc_mapset_optimal(c, 2, KC_OBJ_MAX, &r, NULL, NULL), KC_OK);
    assert_int_equal(r.value, 2);
    assert_int_equal(after(&c[0], &r.order), 2);
    assert_int_equal(after(&c[1], &r.order), 1);
    /* The paper's own order is one of the optima. */
    kc_order paper = {8, {3, 4, 0, 7, 2, 5, 1, 6}};
    uint64_t total;
    assert_int_equal(kc_objective_value(c, 2, KC_OBJ_MAX, &paper, &total), 2);
    assert_int_equal(total, r.total);
}

/* Seed 000 Section 6: the mapping for all three leaves transpose at 2 and
 * bit-reverse and reverse-flip contention-free. */
static void test_section_6(void **state)
{
    kc_lcc c[3];
    kc_lcc_named(&c[0], "transpose", 8, NULL);
    kc_lcc_named(&c[1], "bit-reverse", 8, NULL);
    kc_lcc_named(&c[2], "reverse-flip", 8, NULL);
    kc_mapset_result r;
    assert_int_equal(kc_mapset_optimal(c, 3, KC_OBJ_MAX, &r, NULL, NULL), KC_OK);
    assert_int_equal(r.value, 2);
    assert_int_equal(after(&c[0], &r.order), 2);
    assert_int_equal(after(&c[1], &r.order), 1);
    assert_int_equal(after(&c[2], &r.order), 1);
    for (int k = 0; k < 3; k++) {
        kc_lcc a;
        kc_contention x;
        kc_lcc_reorder(&a, &c[k], r.order.dim);
        assert_int_equal(kc_contention_exact(&a, &x, NULL, NULL), KC_OK);
        assert_int_equal(x.max, after(&c[k], &r.order));
    }
}

static void check_random_sets(uint64_t seed, int trials, int min_n, int max_n)
{
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    for (int t = 0; t < trials; t++) {
        int n = min_n + t % (max_n - min_n + 1);
        int m = 2 + (int)kc_rng_below(&rng, 3);
        kc_lcc c[4];
        for (int r = 0; r < m; r++)
            kc_test_random_lcc(&c[r], n, (kc_lcc_kind)kc_rng_below(&rng, 3), &rng);
        for (int obj = KC_OBJ_MAX; obj <= KC_OBJ_SUM; obj++) {
            kc_mapset_result fast, naive, exh;
            assert_int_equal(kc_mapset_optimal(c, m, (kc_objective)obj, &fast, NULL, NULL), KC_OK);
            assert_int_equal(kc_mapset_naive(c, m, (kc_objective)obj, &naive, NULL), KC_OK);
            assert_int_equal(kc_mapset_exhaustive(c, m, (kc_objective)obj, &exh, NULL), KC_OK);
            assert_true(kc_order_valid(fast.order.dim, n));
            assert_int_equal(fast.value, exh.value);
            assert_int_equal(naive.value, exh.value);
            if (obj != KC_OBJ_SUM)
                assert_int_equal(fast.total, exh.total); /* the tie-break pass is exact too */
            /* The claimed value is what the mapped traffic really gives. */
            uint64_t step[KC_BITMAT_MAX] = {0}, value = 0;
            for (int r = 0; r < m; r++) {
                kc_lcc a;
                kc_contention x;
                kc_lcc_reorder(&a, &c[r], fast.order.dim);
                assert_int_equal(kc_contention_exact(&a, &x, NULL, NULL), KC_OK);
                for (int i = 0; i < n; i++)
                    step[i] = obj == KC_OBJ_MAX ? (x.per_dim[i] > step[i] ? x.per_dim[i] : step[i])
                                                : step[i] + x.per_dim[i];
            }
            for (int i = 0; i < n; i++)
                value = obj == KC_OBJ_SUM ? value + step[i] : (step[i] > value ? step[i] : value);
            assert_int_equal(value, fast.value);
        }
    }
}

static void test_random_small(void **state) { check_random_sets(31, 60, 2, 6); }
static void test_random_n7_n8(void **state) { check_random_sets(32, 16, 7, 8); }

static void test_errors(void **state)
{
    kc_lcc c[2];
    kc_mapset_result r;
    kc_err err = {0};
    kc_lcc_named(&c[0], "transpose", 8, NULL);
    kc_lcc_named(&c[1], "transpose", 6, NULL);
    assert_int_equal(kc_mapset_optimal(c, 2, KC_OBJ_MAX, &r, NULL, &err), KC_EINVAL);
    assert_int_equal(kc_mapset_optimal(c, 0, KC_OBJ_MAX, &r, NULL, &err), KC_EINVAL);
    kc_lcc_named(&c[0], "transpose", 34, NULL);
    assert_int_equal(kc_mapset_optimal(c, 1, KC_OBJ_MAX, &r, NULL, &err), KC_ERANGE);
    assert_non_null(strstr(err.msg, "32"));
    kc_objective o;
    assert_int_equal(kc_objective_parse("simultaneous", &o, NULL), KC_OK);
    assert_int_equal(o, KC_OBJ_SIMULTANEOUS);
    assert_int_equal(kc_objective_parse("best", &o, &err), KC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_6),    cmocka_unit_test(test_section_6),
        cmocka_unit_test(test_random_small), cmocka_unit_test(test_random_n7_n8),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
