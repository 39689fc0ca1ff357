/* Gray codes, the four conversions as data motion, and Table 1 (seed 001). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/gray.h"
#include "kcube/gray_alloc.h"
#include "kcube/rng.h"

/* Figure 1: the 4-bit code, row by row. */
static void test_figure1(void **state)
{
    static const char *gray[16] = {"0000", "0001", "0011", "0010", "0110", "0111", "0101", "0100",
                                   "1100", "1101", "1111", "1110", "1010", "1011", "1001", "1000"};
    for (uint64_t i = 0; i < 16; i++) {
        uint64_t g = strtoull(gray[i], NULL, 2);
        assert_int_equal(kc_gray(i), g);
        assert_int_equal(kc_gray_inv(g), i);
    }
}

/* Inverse up to n = 64, Corollary 2 and Lemma 1, on random and edge values. */
static void test_inverse_lemma1(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 12);
    for (int t = 0; t < 20000; t++) {
        uint64_t i = kc_rng_next(&r);
        if (t < 3)
            i = t == 0 ? 0 : t == 1 ? ~0ULL : 1ULL << 63;
        assert_int_equal(kc_gray_inv(kc_gray(i)), i);
        assert_int_equal(kc_gray(kc_gray_inv(i)), i);
        int j = (int)(kc_rng_next(&r) % 64);
        uint64_t d = kc_gray(i) ^ kc_gray(i ^ (1ULL << j));
        assert_int_equal(d, j ? (1ULL << j) | (1ULL << (j - 1)) : 1);
        /* Corollary 2: the neighbour in dimension j encodes i xor (1^{j+1}) */
        uint64_t ones = j == 63 ? ~0ULL : (1ULL << (j + 1)) - 1;
        assert_int_equal(kc_gray(i) ^ (1ULL << j), kc_gray(i ^ ones));
    }
    /* the brute-force definition (Definition 1, reflection) for n <= 12 */
    uint64_t *seq = malloc(sizeof *seq << 12);
    seq[0] = 0;
    seq[1] = 1;
    for (int n = 1; n < 12; n++)
        for (uint64_t i = 0; i < 1ULL << n; i++)
            seq[(2ULL << n) - 1 - i] = (1ULL << n) | seq[i];
    for (uint64_t i = 0; i < 1ULL << 12; i++)
        assert_int_equal(seq[i], kc_gray(i));
    free(seq);
}

typedef struct fig2 {
    uint64_t rows[4][16];
} fig2;

static void keep_row(void *ctx, int step, int dim, const uint64_t *data)
{
    fig2 *f = ctx;
    (void)dim;
    for (int j = 0; j < 16; j++)
        f->rows[step][j] = data[kc_gray((uint64_t)j)]; /* columns ordered by paddr as in Figure 2 */
}

/* Figure 2: Gray -> binary, msb first, on a 4-cube. */
static void test_figure2(void **state)
{
    static const uint64_t want[3][16] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 15, 14, 13, 12, 11, 10, 9, 8},
        {0, 1, 2, 3, 7, 6, 5, 4, 12, 13, 14, 15, 11, 10, 9, 8},
        {0, 1, 3, 2, 6, 7, 5, 4, 12, 13, 15, 14, 10, 11, 9, 8},
    };
    kc_stepnet_topo t;
    kc_stepnet net;
    assert_int_equal(kc_stepnet_topo_cube(&t, 4, NULL), KC_OK);
    assert_int_equal(kc_stepnet_init(&net, &t, KC_STEPNET_ALL_PORT, NULL), KC_OK);
    uint64_t data[16];
    for (uint64_t i = 0; i < 16; i++)
        data[kc_gray(i)] = i;
    fig2 f;
    memset(&f, 0, sizeof f);
    assert_int_equal(kc_gray_convert(4, KC_GRAY_TO_BIN_MSB, data, &net, keep_row, &f, NULL), KC_OK);
    for (int s = 0; s < 3; s++)
        for (int j = 0; j < 16; j++)
            assert_int_equal(f.rows[s + 1][j], want[s][j]);
    assert_int_equal(net.st.transfers, 3);
    assert_int_equal(net.st.conflicts, 0);
    kc_stepnet_free(&net);
}

/* All four conversions reach their targets in n - 1 steps, n = 1..12. */
static void test_four_conversions(void **state)
{
    for (int n = 1; n <= 12; n++) {
        uint64_t N = 1ULL << n;
        uint64_t *data = malloc(sizeof *data * N);
        for (int a = 0; a < 4; a++) {
            kc_gray_conv c = (kc_gray_conv)a;
            kc_stepnet_topo t;
            kc_stepnet net;
            assert_int_equal(kc_stepnet_topo_cube(&t, n, NULL), KC_OK);
            assert_int_equal(kc_stepnet_init(&net, &t, KC_STEPNET_ALL_PORT, NULL), KC_OK);
            for (uint64_t i = 0; i < N; i++)
                data[kc_gray_conv_to_binary(c) ? kc_gray(i) : i] = i;
            assert_int_equal(kc_gray_convert(n, c, data, &net, NULL, NULL, NULL), KC_OK);
            for (uint64_t i = 0; i < N; i++)
                assert_int_equal(data[kc_gray_conv_to_binary(c) ? i : kc_gray(i)], i);
            assert_int_equal(net.st.steps, (uint64_t)(n - 1));
            assert_int_equal(net.st.conflicts, 0);
            kc_stepnet_free(&net);
        }
        free(data);
    }
}

/* Table 1 (bars restored) equals the definitions, every scheme is a linear
 * bijection, and the reading of the entire-address cyclic scheme. */
static void test_table1(void **state)
{
    for (int n = 0; n <= 5; n++)
        for (int p = n; p <= n + 5; p++)
            for (int a = 0; a < 2; a++)
                for (int e = 0; e < 4; e++) {
                    kc_scheme s;
                    assert_int_equal(kc_scheme_init(&s, (kc_alloc)a, (kc_encoding)e, n, p, NULL), KC_OK);
                    uint64_t P = 1ULL << p, col[64];
                    kc_scheme_columns(&s, col);
                    char *seen = calloc(P, 1);
                    for (uint64_t i = 0; i < P; i++) {
                        uint64_t m = kc_scheme_machine(&s, i), pr, me;
                        assert_true(m < P);
                        assert_false(seen[m]);
                        seen[m] = 1;
                        assert_int_equal(kc_scheme_index(&s, m), i);
                        kc_scheme_table1(&s, i, &pr, &me);
                        assert_int_equal(pr, kc_scheme_proc(&s, m));
                        assert_int_equal(me, kc_scheme_mem(&s, m));
                        uint64_t lin = 0;
                        for (int b = 0; b < p; b++)
                            if (i >> b & 1)
                                lin ^= col[b];
                        assert_int_equal(lin, m);
                        if (e == KC_ENC_GRAY && a == KC_ALLOC_CYCLIC && n > 0) {
                            uint64_t want = kc_gray(i % (1ULL << n)) ^ ((i >> n & 1) << (n - 1));
                            assert_int_equal(pr, want);
                        }
                    }
                    free(seen);
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure1),       cmocka_unit_test(test_inverse_lemma1),
        cmocka_unit_test(test_figure2),       cmocka_unit_test(test_four_conversions),
        cmocka_unit_test(test_table1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
