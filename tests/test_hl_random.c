/* HL on seeded random LC permutations up to n = 20, Lemma 5 (circuit
 * switching) on random ones, and store-and-forward e-cube for comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/hl.h"

static uint32_t *random_lc(int n, kc_rng *r)
{
    kc_bitmat a;
    uint64_t b;
    kc_lcc c;
    kc_hl_random_lc(n, r, &a, &b);
    assert_int_equal(kc_lcc_init(&c, &a, b, 0, NULL), KC_OK);
    uint32_t *dst = malloc(sizeof *dst << n);
    assert_non_null(dst);
    assert_int_equal(kc_hl_perm_from_lcc(&c, dst, NULL), KC_OK);
    return dst;
}

static void test_random_lc_up_to_20(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 2024);
    for (int n = 5; n <= 20; n++) {
        int trials = n <= 12 ? 20 : n <= 16 ? 3 : 1;
        for (int k = 0; k < trials; k++)
            for (int msb = 0; msb <= 1; msb++) {
                uint32_t *dst = random_lc(n, &r);
                kc_hl_opts o = {.msb_first = msb, .check_affine = 1, .require_lemma3 = 1};
                kc_hl_result res;
                assert_int_equal(kc_hl_route(n, dst, &o, &res, NULL), KC_OK);
                if (!res.routed || !res.affine_ok || !res.lemma3_ok || res.max_moved > 1) {
                    kc_bitmat a;
                    uint64_t b;
                    char mb[64 * 65 + 1], vb[65];
                    assert_true(kc_hl_is_lc(n, dst, &a, &b));
                    fail_msg("n=%d msb=%d: HL fails on A=%s b=%s: %s", n, msb, kc_bitmat_format(&a, mb, sizeof mb),
                             kc_vec_format(b, n, vb, sizeof vb), res.why);
                }
                assert_int_equal(res.steps, n);
                assert_true(res.max_moved <= 1 && res.affine_ok && res.lemma3_ok);
                free(dst);
            }
    }
}

static void test_lemma5_random(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 55);
    for (int n = 2; n <= 12; n++)
        for (int k = 0; k < 10; k++) {
            uint32_t *dst = random_lc(n, &r);
            kc_hl_engine e;
            assert_int_equal(kc_hl_engine_init(&e, n, dst, 2, 1, NULL), KC_OK);
            kc_hl_result res;
            kc_hl_opts o = {.msb_first = k & 1};
            assert_int_equal(kc_hl_run(&e, &o, &res, NULL), KC_OK);
            assert_true(res.routed);
            kc_hl_circuit c;
            uint32_t *path = malloc(sizeof *path * (size_t)(n + 1) << n);
            uint8_t *len = malloc((size_t)1 << n);
            assert_int_equal(kc_hl_circuit_check(&e, &c, path, len, NULL), KC_OK);
            assert_true(c.all_minimal);
            assert_int_equal(c.max_paths_per_link, c.hops ? 1 : 0);
            assert_true(c.max_steps_per_pair <= 1);
            /* independent replay of every path: consecutive nodes are
             * neighbours, the path ends at the destination, and no directed
             * link appears on two paths */
            uint8_t *used = calloc((size_t)n << n, 1);
            uint64_t hops = 0;
            for (uint64_t s = 0; s < (1ULL << n); s++) {
                const uint32_t *p = path + s * (uint64_t)(n + 1);
                assert_int_equal(p[0], s);
                for (int h = 1; h <= len[s]; h++) {
                    uint32_t diff = p[h] ^ p[h - 1];
                    assert_true(diff && !(diff & (diff - 1)));
                    size_t link = (size_t)p[h - 1] * (size_t)n + (size_t)kci_ctz32(diff);
                    assert_int_equal(used[link], 0);
                    used[link] = 1;
                }
                assert_int_equal(p[n], dst[s]);
                assert_int_equal(len[s], kci_popcount32(s ^ dst[s]));
                hops += len[s];
            }
            assert_int_equal(hops, c.hops);
            free(used);
            free(path);
            free(len);
            kc_hl_engine_free(&e);
            free(dst);
        }
}

/* E-cube needs more than n steps on transpose-like permutations: the queues
 * build up. HL always takes n steps with one tag per link per step. */
static void test_ecube_comparison(void **state)
{
    for (int n = 2; n <= 12; n += 2) {
        kc_lcc c;
        assert_int_equal(kc_lcc_named(&c, "transpose", n, NULL), KC_OK);
        uint32_t *dst = malloc(sizeof *dst << n);
        assert_int_equal(kc_hl_perm_from_lcc(&c, dst, NULL), KC_OK);
        kc_hl_ecube ec;
        assert_int_equal(kc_hl_ecube_simulate(n, dst, &ec, NULL), KC_OK);
        /* e-cube takes minimal paths too: total hops = sum of distances */
        uint64_t dist = 0;
        for (uint64_t x = 0; x < (1ULL << n); x++)
            dist += (uint64_t)kci_popcount32(x ^ dst[x]);
        assert_int_equal(ec.hops, dist);
        assert_true(ec.steps >= n);
        if (n >= 6) {
            /* all 2^{n/2} messages of a row pass through its diagonal node
             * after the low half is corrected; measured: queues of
             * 2^{n/2-2} and 2^{n/2-1} + n/2 steps */
            assert_int_equal(ec.max_queue, 1 << (n / 2 - 2));
            assert_int_equal(ec.steps, (1 << (n / 2 - 1)) + n / 2);
        }
        kc_hl_result res;
        assert_int_equal(kc_hl_route(n, dst, NULL, &res, NULL), KC_OK);
        assert_true(res.routed && res.steps == n && res.max_moved == 1);
        free(dst);
    }
    /* bit-complement: every message uses its own dimension-0 link first, no
     * queueing; e-cube and HL both take exactly n steps */
    uint32_t dst[256];
    for (uint32_t x = 0; x < 256; x++)
        dst[x] = x ^ 255;
    kc_hl_ecube ec;
    assert_int_equal(kc_hl_ecube_simulate(8, dst, &ec, NULL), KC_OK);
    assert_int_equal(ec.steps, 8);
    assert_int_equal(ec.max_queue, 1);
}

/* The conclusion: LSB-first HL routes inverse omega permutations and
 * MSB-first HL omega permutations, in state A all along. */
static void test_dimension_order_classes(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 404);
    int other_fails = 0;
    for (int n = 2; n <= 12; n++) {
        uint32_t *dst = malloc(sizeof *dst << n);
        for (int k = 0; k < 20; k++)
            for (int msb = 0; msb <= 1; msb++) {
                kc_hl_random_dimension_order(n, msb, &r, dst);
                kc_hl_opts o = {.msb_first = msb};
                kc_hl_result res;
                assert_int_equal(kc_hl_route(n, dst, &o, &res, NULL), KC_OK);
                assert_true(res.routed);
                assert_int_equal(strspn(res.states, "A"), (size_t)n);
                for (int t = 0; t < n; t++)
                    assert_int_equal(res.dims[t], msb ? n - 1 - t : t);
                o.msb_first = !msb; /* the other variant usually fails */
                assert_int_equal(kc_hl_route(n, dst, &o, &res, NULL), KC_OK);
                other_fails += !res.routed;
            }
        free(dst);
    }
    assert_true(other_fails > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_lc_up_to_20),
        cmocka_unit_test(test_lemma5_random),
        cmocka_unit_test(test_ecube_comparison),
        cmocka_unit_test(test_dimension_order_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
