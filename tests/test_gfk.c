/* GF(2^m) arithmetic and matrices over GF(k). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kcube/gfk.h"

static const int ks[] = {2, 4, 8, 16, 32, 64, 128, 256};

static void test_polynomials(void **state)
{
    const unsigned expect[] = {3, 7, 11, 19, 37, 67, 137, 285};
    for (int i = 0; i < 8; i++)
        assert_int_equal(kc_gf_polynomial(ks[i]), expect[i]);
    assert_int_equal(kc_gf_polynomial(3), 0);
    assert_int_equal(kc_gf_polynomial(1), 0);
    assert_int_equal(kc_gf_polynomial(512), 0);
    kc_gf f;
    kc_err err = {0};
    assert_int_equal(kc_gf_init(&f, 6, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "power of two"));
    assert_int_equal(kc_gf_init(&f, 512, &err), KC_EINVAL);
}

/* The tables agree with shift-and-reduce multiplication for every pair, and
 * every nonzero element has an inverse: the polynomials are irreducible. */
static void test_tables_match_slow(void **state)
{
    for (int i = 0; i < 8; i++) {
        kc_gf f;
        assert_int_equal(kc_gf_init(&f, ks[i], NULL), KC_OK);
        for (unsigned a = 0; a < (unsigned)f.k; a++) {
            for (unsigned b = 0; b < (unsigned)f.k; b++)
                assert_int_equal(kc_gf_mul(&f, a, b), kc_gf_mul_slow(a, b, f.m, f.poly));
            if (a) {
                assert_int_equal(kc_gf_mul(&f, a, f.inv[a]), 1);
                assert_int_equal(kc_gf_div(&f, a, a), 1);
                assert_int_equal(f.exp[f.log[a]], a);
            }
        }
    }
}

static void test_field_laws(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 11);
    for (int i = 0; i < 8; i++) {
        kc_gf f;
        kc_gf_init(&f, ks[i], NULL);
        for (int trial = 0; trial < 2000; trial++) {
            unsigned a = (unsigned)kc_rng_below(&r, (uint64_t)f.k), b = (unsigned)kc_rng_below(&r, (uint64_t)f.k),
                     c = (unsigned)kc_rng_below(&r, (uint64_t)f.k);
            assert_int_equal(kc_gf_mul(&f, a, kc_gf_mul(&f, b, c)), kc_gf_mul(&f, kc_gf_mul(&f, a, b), c));
            assert_int_equal(kc_gf_mul(&f, a, b ^ c), kc_gf_mul(&f, a, b) ^ kc_gf_mul(&f, a, c));
            assert_int_equal(kc_gf_mul(&f, a, b), kc_gf_mul(&f, b, a));
            if (b)
                assert_int_equal(kc_gf_mul(&f, kc_gf_div(&f, a, b), b), a);
        }
    }
    /* GF(4) by hand: x * x = x + 1 under x^2 + x + 1. */
    kc_gf f4;
    kc_gf_init(&f4, 4, NULL);
    assert_int_equal(kc_gf_mul(&f4, 2, 2), 3);
    assert_int_equal(kc_gf_mul(&f4, 2, 3), 1);
    assert_int_equal(kc_gf_mul(&f4, 3, 3), 2);
}

/* Rank by brute force: the image of x -> Ax has k^rank elements. */
static int rank_brute(const kc_gf *f, const kc_gfmat *a)
{
    int n = a->n;
    uint64_t count = 1;
    for (int i = 0; i < n; i++)
        count *= (uint64_t)f->k;
    static uint8_t seen[1 << 16];
    memset(seen, 0, sizeof seen);
    uint64_t distinct = 0;
    for (uint64_t x = 0; x < count; x++) {
        uint8_t xv[KC_GFMAT_MAX], yv[KC_GFMAT_MAX];
        kc_gfvec_unpack(x, xv, n, f->m);
        kc_gfmat_mul_vec(f, a, xv, yv);
        uint64_t y = kc_gfvec_pack(yv, n, f->m);
        if (!seen[y]) {
            seen[y] = 1;
            distinct++;
        }
    }
    int r = 0;
    for (uint64_t p = 1; p < distinct; p *= (uint64_t)f->k)
        r++;
    return r;
}

static void test_rank_brute_force(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 12);
    const int kk[] = {2, 4, 8, 16};
    const int maxn[] = {8, 8, 5, 4};
    for (int trial = 0; trial < 400; trial++) {
        int which = (int)kc_rng_below(&r, 4);
        kc_gf f;
        kc_gf_init(&f, kk[which], NULL);
        int n = 1 + (int)kc_rng_below(&r, (uint64_t)maxn[which]);
        kc_gfmat a;
        if (trial % 2)
            kc_gfmat_random(&f, &a, n, &r);
        else
            kc_gfmat_random_rank(&f, &a, n, (int)kc_rng_below(&r, (uint64_t)n + 1), &r);
        assert_int_equal(kc_gfmat_rank(&f, &a), rank_brute(&f, &a));
    }
}

static void test_random_rank_and_submatrices(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 13);
    for (int i = 1; i < 8; i++) {
        kc_gf f;
        kc_gf_init(&f, ks[i], NULL);
        for (int n = 1; n <= 12; n += 3)
            for (int rk = 0; rk <= n; rk++) {
                kc_gfmat a;
                kc_gfmat_random_rank(&f, &a, n, rk, &r);
                assert_int_equal(kc_gfmat_rank(&f, &a), rk);
                /* rank_sub equals the rank of the extracted submatrix padded
                 * with zeros to a square. */
                uint64_t rows = kc_rng_next(&r) & kc_gf_low(n), cols = kc_rng_next(&r) & kc_gf_low(n);
                kc_gfmat s;
                kc_gfmat_zero(&s, n);
                int ri = 0;
                for (int x = 0; x < n; x++) {
                    if (!((rows >> x) & 1))
                        continue;
                    int ci = 0;
                    for (int y = 0; y < n; y++)
                        if ((cols >> y) & 1)
                            s.e[ri][ci++] = a.e[x][y];
                    ri++;
                }
                assert_int_equal(kc_gfmat_rank_sub(&f, &a, rows, cols), kc_gfmat_rank(&f, &s));
            }
    }
}

static void test_inverse_product_conjugate(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 14);
    for (int i = 0; i < 8; i++) {
        kc_gf f;
        kc_gf_init(&f, ks[i], NULL);
        for (int n = 1; n <= 20; n += 1 + i) {
            kc_gfmat q, qi, p, a, c1, c2;
            kc_gfmat_random_nonsingular(&f, &q, n, &r);
            assert_int_equal(kc_gfmat_inverse(&f, &qi, &q, NULL), KC_OK);
            kc_gfmat_mul(&f, &p, &q, &qi);
            assert_true(kc_gfmat_is_identity(&p));
            kc_gfmat_mul(&f, &p, &qi, &q);
            assert_true(kc_gfmat_is_identity(&p));
            kc_gfmat_random(&f, &a, n, &r);
            assert_int_equal(kc_gfmat_conjugate(&f, &c1, &q, &a, NULL), KC_OK);
            kc_gfmat_mul(&f, &c2, &q, &a);
            kc_gfmat_mul(&f, &c2, &c2, &qi);
            assert_true(kc_gfmat_equal(&c1, &c2));
            assert_int_equal(kc_gfmat_rank(&f, &c1), kc_gfmat_rank(&f, &a));
            if (n >= 2) {
                kc_gfmat s;
                kc_gfmat_random_rank(&f, &s, n, n - 1, &r);
                kc_err err = {0};
                assert_int_equal(kc_gfmat_inverse(&f, &qi, &s, &err), KC_ESINGULAR);
                assert_int_equal(kc_gfmat_conjugate(&f, &c1, &s, &a, NULL), KC_ESINGULAR);
            }
        }
    }
}

static void test_elementary_operators(void **state)
{
    kc_gf f;
    kc_gf_init(&f, 16, NULL);
    kc_rng r;
    kc_rng_seed(&r, 15);
    kc_gfmat a, e, out;
    int n = 6;
    kc_gfmat_random(&f, &a, n, &r);
    kc_gfmat_op_swap(&e, n, 1, 4);
    kc_gfmat_mul(&f, &out, &e, &a);
    assert_memory_equal(out.e[1], a.e[4], (size_t)n);
    assert_memory_equal(out.e[4], a.e[1], (size_t)n);
    assert_memory_equal(out.e[0], a.e[0], (size_t)n);
    kc_gfmat_op_addrow(&e, n, 2, 5, 7);
    kc_gfmat_mul(&f, &out, &e, &a);
    for (int j = 0; j < n; j++)
        assert_int_equal(out.e[2][j], a.e[2][j] ^ kc_gf_mul(&f, 7, a.e[5][j]));
    kc_gfmat_op_scale(&f, &e, n, 3, 9);
    kc_gfmat_mul(&f, &out, &e, &a);
    for (int j = 0; j < n; j++)
        assert_int_equal(out.e[3][j], kc_gf_mul(&f, 9, a.e[3][j]));
    /* Orders and permutation matrices. */
    int order[6] = {2, 0, 1, 5, 3, 4}, back[6];
    kc_gfmat_from_order(&e, order, n);
    assert_true(kc_gfmat_to_order(&e, back));
    assert_memory_equal(order, back, sizeof order);
    kc_gfmat_op_addrow(&e, n, 0, 1, 1);
    assert_false(kc_gfmat_to_order(&e, back));
}

static void test_parse_format(void **state)
{
    kc_gf f;
    kc_gf_init(&f, 4, NULL);
    kc_gfmat a;
    kc_err err = {0};
    char buf[512];
    assert_int_equal(kc_gfmat_parse(&f, &a, "1 0 1 1;0 1 2 1;0 0 1 0;0 0 0 1", 4, &err), KC_OK);
    assert_int_equal(a.e[1][2], 2);
    assert_string_equal(kc_gfmat_format(&a, buf, sizeof buf), "1,0,1,1;0,1,2,1;0,0,1,0;0,0,0,1");
    assert_int_equal(kc_gfmat_parse(&f, &a, "1011;0121;0010;0001;", 4, &err), KC_OK);
    assert_int_equal(a.e[1][2], 2);
    assert_int_equal(kc_gfmat_parse(&f, &a, "1 0 1 1;0 1 4 1;0 0 1 0;0 0 0 1", 4, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "entry 4"));
    assert_int_equal(kc_gfmat_parse(&f, &a, "1 0 1;0 1 2 1;0 0 1 0;0 0 0 1", 4, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "row 0"));
    assert_int_equal(kc_gfmat_parse(&f, &a, "1 0 1 1;0 1 2 1;0 0 1 0", 4, &err), KC_EINVAL);
    assert_int_equal(kc_gfmat_parse(&f, &a, "1 0 x 1;0 1 2 1;0 0 1 0;0 0 0 1", 4, &err), KC_EINVAL);
    kc_gf f16;
    kc_gf_init(&f16, 16, NULL);
    assert_int_equal(kc_gfmat_parse(&f16, &a, "15,0;3 12", 2, &err), KC_OK);
    assert_int_equal(a.e[0][0], 15);
    assert_int_equal(kc_gfmat_parse(&f16, &a, "16,0;3 12", 2, &err), KC_EINVAL);
    uint8_t v[KC_GFMAT_MAX];
    assert_int_equal(kc_gfvec_parse(&f16, v, "3,15,0", 3, &err), KC_OK);
    assert_string_equal(kc_gfvec_format(v, 3, buf, sizeof buf), "3,15,0");
    assert_int_equal(kc_gfvec_parse(&f16, v, "3,15", 3, &err), KC_EINVAL);
    assert_int_equal(kc_gfvec_parse(&f16, v, "3;15;1", 3, &err), KC_EINVAL);
    /* Packing digits into node ids. */
    uint8_t d[3] = {3, 15, 1};
    assert_true(kc_gfvec_pack(d, 3, 4) == (uint64_t)(3 + 15 * 16 + 1 * 256));
    uint8_t back[3];
    kc_gfvec_unpack(3 + 15 * 16 + 256, back, 3, 4);
    assert_memory_equal(d, back, 3);
}

/* Found by fuzz/fuzz_gfvec_parse: the vector size was not checked, so
 * n = 65 wrote a 65th digit past the KC_GFMAT_MAX-digit buffer. */
static void test_gfvec_parse_size_range(void **state)
{
    (void)state;
    kc_gf f;
    kc_gf_init(&f, 4, NULL);
    struct {
        uint8_t v[KC_GFMAT_MAX];
        uint8_t guard[8];
    } buf;
    memset(buf.guard, 0xAA, sizeof buf.guard);
    char text[2 * 65 + 1];
    for (int i = 0; i < 65; i++) {
        text[2 * i] = '3';
        text[2 * i + 1] = ',';
    }
    text[2 * 65 - 1] = '\0';
    kc_err err = {0};
    assert_int_equal(kc_gfvec_parse(&f, buf.v, text, 65, &err), KC_ERANGE);
    assert_string_equal(err.param, "n");
    for (size_t i = 0; i < sizeof buf.guard; i++)
        assert_int_equal(buf.guard[i], 0xAA);
    assert_int_equal(kc_gfvec_parse(&f, buf.v, "", 0, &err), KC_ERANGE);
    text[2 * 64 - 1] = '\0';
    assert_int_equal(kc_gfvec_parse(&f, buf.v, text, 64, &err), KC_OK);
    assert_int_equal(buf.v[63], 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polynomials),
        cmocka_unit_test(test_tables_match_slow),
        cmocka_unit_test(test_field_laws),
        cmocka_unit_test(test_rank_brute_force),
        cmocka_unit_test(test_random_rank_and_submatrices),
        cmocka_unit_test(test_inverse_product_conjugate),
        cmocka_unit_test(test_elementary_operators),
        cmocka_unit_test(test_parse_format),
        cmocka_unit_test(test_gfvec_parse_size_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
