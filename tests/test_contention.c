/* Theorem 1 (and its scatter mirror) against exact counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kc_testutil.h"
#include "kcube/contention.h"

static void expect_dims(const kc_contention *t, const uint64_t *want, int n)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(t->per_dim[i], want[i]);
}

/* Seed 000 Example 3 (transpose) and the Section 2 remark on bit-reverse:
 * 8 paths share the channel (00010000)^t -> 0, i.e. node 8 -> node 0. */
static void test_paper_examples(void **state)
{
    const uint64_t want[8] = {1, 2, 4, 8, 8, 4, 2, 1};
    const char *names[] = {"transpose", "bit-reverse", "reverse-flip"};
    for (int k = 0; k < 3; k++) {
        kc_lcc c;
        kc_contention f, x, p;
        assert_int_equal(kc_lcc_named(&c, names[k], 8, NULL), KC_OK);
        kc_contention_formula(&c, &f);
        assert_int_equal(kc_contention_exact(&c, &x, NULL, NULL), KC_OK);
        assert_int_equal(kc_contention_paths(&c, &p, NULL), KC_OK);
        expect_dims(&f, want, 8);
        expect_dims(&x, want, 8);
        expect_dims(&p, want, 8);
        assert_int_equal(f.max, 8);
        assert_int_equal(f.max_dim, 3);
    }
    kc_lcc c;
    kc_contention x;
    kc_lcc_named(&c, "bit-reverse", 8, NULL);
    kc_contention_exact(&c, &x, NULL, NULL);
    assert_int_equal(x.witness[3], 8);
}

/* The number of messages through the channel z -> z + e_i, by walking. */
static uint64_t count_channel(const kc_lcc *c, uint64_t z, int i)
{
    uint64_t hits = 0;
    for (uint64_t m = 0; m < (1ULL << c->a.n); m++) {
        uint64_t s, d;
        kc_lcc_message(c, m, &s, &d);
        if (((s ^ d) >> i) & 1 && kc_ecube_channel(s, d, i) == z)
            hits++;
    }
    return hits;
}

static void check_random(kc_lcc_kind kind, uint64_t seed, int trials)
{
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    for (int t = 0; t < trials; t++) {
        int n = 1 + t % 12;
        if (kind != KC_LCC_PERMUTATION && n == 1)
            n = 2;
        kc_lcc c;
        kc_test_random_lcc(&c, n, kind, &rng);
        kc_contention f, x, p;
        kc_contention_formula(&c, &f);
        assert_int_equal(kc_contention_exact(&c, &x, NULL, NULL), KC_OK);
        assert_int_equal(kc_contention_paths(&c, &p, NULL), KC_OK);
        for (int i = 0; i < n; i++) {
            assert_int_equal(f.per_dim[i], x.per_dim[i]);
            assert_int_equal(f.per_dim[i], p.per_dim[i]);
            /* Both witnesses name channels that really carry T_i. */
            if (f.per_dim[i] && n <= 9) {
                assert_int_equal(count_channel(&c, f.witness[i], i), f.per_dim[i]);
                assert_int_equal(count_channel(&c, x.witness[i], i), f.per_dim[i]);
            }
            if (!f.per_dim[i])
                assert_true((kc_lcc_idle_dims(&c) >> i) & 1);
        }
        assert_int_equal(f.max, x.max);
        assert_int_equal(f.max_dim, x.max_dim);
    }
}

static void test_random_permutations(void **state) { check_random(KC_LCC_PERMUTATION, 11, 300); }
static void test_random_gathers(void **state) { check_random(KC_LCC_GATHER, 12, 300); }
static void test_random_scatters(void **state) { check_random(KC_LCC_SCATTER, 13, 300); }

static void test_limits(void **state)
{
    kc_lcc c;
    kc_contention t;
    kc_err err = {0};
    assert_int_equal(kc_lcc_named(&c, "bit-reverse", 33, NULL), KC_OK);
    assert_int_equal(kc_contention_exact(&c, &t, NULL, &err), KC_ERANGE);
    assert_non_null(strstr(err.msg, "32"));
    assert_int_equal(kc_contention_paths(&c, &t, &err), KC_ERANGE);
    /* n = 64: the closed form still answers. */
    assert_int_equal(kc_lcc_named(&c, "transpose", 64, NULL), KC_OK);
    kc_contention_formula(&c, &t);
    assert_true(t.max == (1ULL << 31));
    assert_int_equal(t.max_dim, 31);
}

/* Large-n exact counts: the windowed counter with two threads at moderate n (where the
 * windows are large and several dimensions run at once) against the closed
 * form and against one thread, every kind. */
static void test_windowed_two_threads(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 2430);
    for (int t = 0; t < 6; t++) {
        int n = 16 + t % 3;
        kc_lcc c;
        kc_test_random_lcc(&c, n, (kc_lcc_kind)(t % 3), &rng);
        kc_contention f, x1, x2;
        kc_exact_opts o1 = {1}, o2 = {2};
        kc_contention_formula(&c, &f);
        assert_int_equal(kc_contention_exact_ex(&c, &o1, &x1, NULL, NULL), KC_OK);
        assert_int_equal(kc_contention_exact_ex(&c, &o2, &x2, NULL, NULL), KC_OK);
        assert_memory_equal(f.per_dim, x2.per_dim, sizeof(uint64_t) * (size_t)n);
        assert_memory_equal(x1.per_dim, x2.per_dim, sizeof(uint64_t) * (size_t)n);
        assert_memory_equal(x1.witness, x2.witness, sizeof(uint64_t) * (size_t)n);
    }
    kc_lcc tr;
    kc_contention x;
    assert_int_equal(kc_lcc_named(&tr, "transpose", 20, NULL), KC_OK);
    assert_int_equal(kc_contention_exact(&tr, &x, NULL, NULL), KC_OK);
    assert_int_equal(x.max, 1u << 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_examples),     cmocka_unit_test(test_random_permutations),
        cmocka_unit_test(test_random_gathers),     cmocka_unit_test(test_random_scatters),
        cmocka_unit_test(test_limits),             cmocka_unit_test(test_windowed_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
