/* GF(2) matrices: rank, inverse, kernel, conjugation, parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kcube/bitmat.h"
#include "kcube/perm.h"

/* Rank by brute force: the number of distinct vectors Ax is 2^rank. */
static int rank_brute(const kc_bitmat *a)
{
    int n = a->n;
    uint8_t seen[1 << 10] = {0};
    int distinct = 0;
    for (uint64_t x = 0; x < (1ULL << n); x++) {
        uint64_t y = kc_bitmat_mul_vec(a, x);
        if (!seen[y]) {
            seen[y] = 1;
            distinct++;
        }
    }
    int r = 0;
    while ((1 << r) < distinct)
        r++;
    return r;
}

static void test_rank_matches_brute_force(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 1);
    for (int trial = 0; trial < 300; trial++) {
        int n = 1 + (int)kc_rng_below(&rng, 10);
        kc_bitmat a;
        kc_bitmat_random_rank(&a, n, (int)kc_rng_below(&rng, (uint64_t)n + 1), &rng);
        assert_int_equal(kc_bitmat_rank(&a), rank_brute(&a));
    }
}

static void test_random_rank_exact(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 2);
    for (int n = 1; n <= 64; n += 7)
        for (int r = 0; r <= n; r += 3) {
            kc_bitmat a;
            kc_bitmat_random_rank(&a, n, r, &rng);
            assert_int_equal(kc_bitmat_rank(&a), r);
        }
}

static void test_inverse_and_product(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 3);
    for (int n = 1; n <= 64; n++) {
        kc_bitmat a, ai, p, id;
        kc_bitmat_random_nonsingular(&a, n, &rng);
        assert_int_equal(kc_bitmat_inverse(&ai, &a, NULL), KC_OK);
        kc_bitmat_mul(&p, &a, &ai);
        kc_bitmat_identity(&id, n);
        assert_true(kc_bitmat_equal(&p, &id));
        uint64_t x = kc_rng_next(&rng) & kc_mask(n);
        assert_true(kc_bitmat_mul_vec(&ai, kc_bitmat_mul_vec(&a, x)) == x);
    }
    kc_bitmat s;
    kc_bitmat_random_rank(&s, 8, 5, &rng);
    kc_err err = {0};
    assert_int_equal(kc_bitmat_inverse(&s, &s, &err), KC_ESINGULAR);
    assert_non_null(strstr(err.msg, "singular"));
}

static void test_kernel(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 4);
    for (int trial = 0; trial < 200; trial++) {
        int n = 1 + (int)kc_rng_below(&rng, 64);
        int r = (int)kc_rng_below(&rng, (uint64_t)n + 1);
        kc_bitmat a;
        kc_bitmat_random_rank(&a, n, r, &rng);
        uint64_t basis[64];
        int dim = kc_bitmat_kernel(&a, basis);
        assert_int_equal(dim, n - r);
        for (int i = 0; i < dim; i++)
            assert_true(kc_bitmat_mul_vec(&a, basis[i]) == 0);
        assert_int_equal(kc_rank_rows(basis, dim, kc_mask(n)), dim);
    }
}

static void test_rank_sub_and_dependent_cols(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 5);
    for (int trial = 0; trial < 300; trial++) {
        int n = 1 + (int)kc_rng_below(&rng, 12);
        kc_bitmat a;
        kc_bitmat_random_rank(&a, n, (int)kc_rng_below(&rng, (uint64_t)n + 1), &rng);
        uint64_t rows = kc_rng_next(&rng) & kc_mask(n), cols = kc_rng_next(&rng) & kc_mask(n);
        /* Reference: copy the submatrix into a compact matrix. */
        kc_bitmat sub;
        kc_bitmat_zero(&sub, n);
        int ri = 0;
        for (int i = 0; i < n; i++)
            if ((rows >> i) & 1) {
                int ci = 0;
                for (int j = 0; j < n; j++)
                    if ((cols >> j) & 1)
                        kc_bitmat_set(&sub, ri, ci++, kc_bitmat_get(&a, i, j));
                ri++;
            }
        int r = kc_bitmat_rank_sub(&a, rows, cols);
        assert_int_equal(r, kc_bitmat_rank(&sub));
        uint64_t dep = kc_bitmat_dependent_cols(&a, rows, cols);
        for (int j = 0; j < n; j++)
            if ((cols >> j) & 1) {
                int without = kc_bitmat_rank_sub(&a, rows, cols & ~(1ULL << j));
                assert_int_equal((int)((dep >> j) & 1), without == r);
            }
        assert_true((dep & ~cols) == 0);
    }
}

static void test_conjugate_is_qaq_inverse(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 6);
    for (int trial = 0; trial < 100; trial++) {
        int n = 1 + (int)kc_rng_below(&rng, 64);
        int order[64];
        for (int i = 0; i < n; i++)
            order[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)kc_rng_below(&rng, (uint64_t)i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        assert_true(kc_order_valid(order, n));
        kc_bitmat a, q, qi, ref, got;
        kc_bitmat_random(&a, n, &rng);
        kc_bitmat_from_order(&q, order, n);
        assert_int_equal(kc_bitmat_inverse(&qi, &q, NULL), KC_OK);
        kc_bitmat_mul(&ref, &q, &a);
        kc_bitmat_mul(&ref, &ref, &qi);
        kc_bitmat_conjugate(&got, &a, order);
        assert_true(kc_bitmat_equal(&ref, &got));
        uint64_t v = kc_rng_next(&rng) & kc_mask(n);
        assert_true(kc_vec_permute(v, order, n) == kc_bitmat_mul_vec(&q, v));
        assert_true(kc_vec_unpermute(kc_vec_permute(v, order, n), order, n) == v);
    }
}

static void test_transpose(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 7);
    for (int n = 1; n <= 64; n++) {
        kc_bitmat a, t;
        kc_bitmat_random(&a, n, &rng);
        kc_bitmat_transpose(&t, &a);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                assert_int_equal(kc_bitmat_get(&t, i, j), kc_bitmat_get(&a, j, i));
        assert_true(t.row[0] == kc_bitmat_col(&a, 0));
    }
}

static void test_parse_and_format(void **state)
{
    kc_bitmat a;
    char buf[128];
    kc_err err = {0};
    assert_int_equal(kc_bitmat_parse(&a, "0010;0001;1000;0100", 4, &err), KC_OK);
    assert_int_equal(kc_bitmat_get(&a, 0, 2), 1); /* y0 = x2 */
    assert_int_equal(kc_bitmat_get(&a, 2, 0), 1);
    assert_string_equal(kc_bitmat_format(&a, buf, sizeof buf), "0010;0001;1000;0100");
    assert_int_equal(kc_bitmat_parse(&a, "0 0 1 0; 0,0,0,1;1000;0100;", 4, &err), KC_OK);
    assert_int_equal(kc_bitmat_parse(&a, "0010;0001;1000", 4, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "3 rows"));
    assert_int_equal(kc_bitmat_parse(&a, "0010;0001;1000;01000", 4, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "row 3"));
    assert_int_equal(kc_bitmat_parse(&a, "0010;0001;1020;0100", 4, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "'2'"));
    assert_int_equal(kc_bitmat_parse(&a, "0010;0001;1000;0100;0000", 4, &err), KC_EINVAL);
    uint64_t v;
    assert_int_equal(kc_vec_parse(&v, "1100", 4, &err), KC_OK);
    assert_true(v == 3);
    assert_string_equal(kc_vec_format(v, 4, buf, sizeof buf), "1100");
    assert_int_equal(kc_vec_parse(&v, "110", 4, &err), KC_EINVAL);
}

/* Found by fuzz/fuzz_vec_parse: the vector size was not checked, so n = 65
 * accepted 65 components and dropped the last one (a uint64_t holds 64), and
 * n = 0 accepted an empty vector. */
static void test_vec_parse_size_range(void **state)
{
    (void)state;
    char text[66];
    memset(text, '1', 65);
    text[65] = '\0';
    uint64_t v = 0;
    kc_err err = {0};
    assert_int_equal(kc_vec_parse(&v, text, 65, &err), KC_ERANGE);
    assert_string_equal(err.param, "n");
    assert_int_equal(kc_vec_parse(&v, "", 0, &err), KC_ERANGE);
    assert_int_equal(kc_vec_parse(&v, ",,", 0, &err), KC_ERANGE);
    text[64] = '\0';
    assert_int_equal(kc_vec_parse(&v, text, 64, &err), KC_OK);
    assert_true(v == ~0ULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec_parse_size_range),
        cmocka_unit_test(test_rank_matches_brute_force), cmocka_unit_test(test_random_rank_exact),
        cmocka_unit_test(test_inverse_and_product),      cmocka_unit_test(test_kernel),
        cmocka_unit_test(test_rank_sub_and_dependent_cols), cmocka_unit_test(test_conjugate_is_qaq_inverse),
        cmocka_unit_test(test_transpose),                cmocka_unit_test(test_parse_and_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
