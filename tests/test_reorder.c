/* Optimal reordering for one communication: paper examples, optimality
 * against exhaustive search, and the exact count of the mapped traffic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kc_testutil.h"
#include "kcube/contention.h"
#include "kcube/mapset.h"
#include "kcube/nodemap.h"
#include "kcube/reorder.h"

/* Seed 000 Example 4: R = (0,4,2,6,1,5,3,7), Q as printed, contention 8 -> 1. */
static void test_example_4(void **state)
{
    kc_lcc c, after;
    kc_order o;
    assert_int_equal(kc_lcc_named(&c, "transpose", 8, NULL), KC_OK);
    assert_int_equal(kc_reorder_optimal(&c, &o, NULL), KC_OK);
    const int want[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    assert_memory_equal(o.dim, want, sizeof want);
    kc_bitmat q;
    char buf[128];
    kc_bitmat_from_order(&q, o.dim, 8);
    assert_string_equal(kc_bitmat_format(&q, buf, sizeof buf),
                        "10000000;00001000;00100000;00000010;01000000;00000100;00010000;00000001");
    kc_lcc_reorder(&after, &c, o.dim);
    assert_string_equal(kc_bitmat_format(&after.a, buf, sizeof buf),
                        "01000000;10000000;00010000;00100000;00000100;00001000;00000001;00000010");
    kc_contention x;
    assert_int_equal(kc_contention_exact(&after, &x, NULL, NULL), KC_OK);
    for (int i = 0; i < 8; i++)
        assert_int_equal(x.per_dim[i], 1);
}

/* Replaying the mapping: physical f(x) sends to physical f(y) is exactly the
 * reordered communication, and the node arrays are inverse to each other. */
static uint64_t phys(const void *ctx, uint64_t v) { return kc_order_to_physical(ctx, v); }

static void check_mapping_replay(const kc_lcc *c, const kc_order *o)
{
    kc_lcc after;
    kc_lcc_reorder(&after, c, o->dim);
    kc_nodemap nm;
    assert_int_equal(kc_nodemap_build(&nm, 1ULL << c->a.n, phys, o, NULL), KC_OK);
    for (uint64_t m = 0; m < nm.count; m++) {
        uint64_t s, d, s2, d2;
        kc_lcc_message(c, m, &s, &d);
        /* The mapped message has index f(m) in the physical communication. */
        kc_lcc_message(&after, nm.to_physical[m], &s2, &d2);
        assert_true(s2 == nm.to_physical[s]);
        assert_true(d2 == nm.to_physical[d]);
        assert_true(nm.to_virtual[nm.to_physical[m]] == m);
    }
    kc_nodemap_free(&nm);
}

static void check_optimal(kc_lcc_kind kind, uint64_t seed, int trials, int max_n)
{
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    for (int t = 0; t < trials; t++) {
        int n = 2 + t % (max_n - 1);
        kc_lcc c;
        kc_test_random_lcc(&c, n, kind, &rng);
        kc_order o;
        assert_int_equal(kc_reorder_optimal(&c, &o, NULL), KC_OK);
        assert_true(kc_order_valid(o.dim, n));
        uint64_t got = kc_reorder_value(&c, &o);
        kc_mapset_result best;
        assert_int_equal(kc_mapset_exhaustive(&c, 1, KC_OBJ_MAX, &best, NULL), KC_OK);
        assert_int_equal(got, best.value);
        /* The closed-form optimum: 1 for permutations, 2^((n-1)-rank) else. */
        if (kind == KC_LCC_PERMUTATION)
            assert_true(got <= 1);
        else
            assert_true(got == (1ULL << ((n - 1) - c.rank)));
        kc_lcc after;
        kc_contention f, x;
        kc_lcc_reorder(&after, &c, o.dim);
        kc_contention_formula(&after, &f);
        assert_int_equal(kc_contention_exact(&after, &x, NULL, NULL), KC_OK);
        assert_memory_equal(f.per_dim, x.per_dim, sizeof f.per_dim);
        check_mapping_replay(&c, &o);
    }
}

static void test_permutations_optimal(void **state) { check_optimal(KC_LCC_PERMUTATION, 21, 120, 8); }
static void test_gathers_optimal(void **state) { check_optimal(KC_LCC_GATHER, 22, 120, 8); }
static void test_scatters_optimal(void **state) { check_optimal(KC_LCC_SCATTER, 23, 120, 8); }

/* Idle dimensions go last (first for scatters) and keep their order. */
static void test_idle_dimensions(void **state)
{
    kc_lcc c;
    kc_order o;
    assert_int_equal(kc_lcc_named(&c, "row-bit-reverse", 8, NULL), KC_OK);
    assert_int_equal(kc_reorder_optimal(&c, &o, NULL), KC_OK);
    const int tail[4] = {4, 5, 6, 7};
    assert_memory_equal(o.dim + 4, tail, sizeof tail);
    assert_int_equal(kc_reorder_value(&c, &o), 1);
    assert_int_equal(kc_lcc_named(&c, "scale-2x", 8, NULL), KC_OK);
    assert_int_equal(kc_reorder_optimal(&c, &o, NULL), KC_OK);
    assert_int_equal(kc_reorder_value(&c, &o), 2); /* 2^((8-1) - rank 6) */
}

/* Large n: the optimiser and the formula handle n = 64. */
static void test_large_n(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 24);
    for (int t = 0; t < 20; t++) {
        kc_lcc c;
        kc_test_random_lcc(&c, 64, t % 2 ? KC_LCC_PERMUTATION : KC_LCC_GATHER, &rng);
        kc_order o;
        assert_int_equal(kc_reorder_optimal(&c, &o, NULL), KC_OK);
        assert_true(kc_order_valid(o.dim, 64));
        uint64_t v = kc_reorder_value(&c, &o);
        if (c.kind == KC_LCC_PERMUTATION)
            assert_true(v <= 1);
        else
            assert_true(v == (1ULL << (63 - c.rank)));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_4),        cmocka_unit_test(test_permutations_optimal),
        cmocka_unit_test(test_gathers_optimal),  cmocka_unit_test(test_scatters_optimal),
        cmocka_unit_test(test_idle_dimensions),  cmocka_unit_test(test_large_n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
