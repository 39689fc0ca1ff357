/* HL beyond LC (seed 004 Section 3.3): the Q_2 / Q_3 census with the paper's
 * claims, M-SIMD runs of random PLC permutations, |PLC_n| two ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/hl_class.h"

typedef struct class_counts {
    uint64_t seen, subset_ok;
} class_counts;

/* every class contains the ones before it: LC in PLC, LC in SIMD, SIMD in
 * M-SIMD, PLC in M-SIMD, M-SIMD in MIMD (any schedule) */
static void count_classes(void *ctx, const uint32_t *dst, unsigned k)
{
    class_counts *cc = ctx;
    cc->seen++;
    int ok = 1;
    if ((k & KC_HL_IS_LC) && !((k & KC_HL_IS_PLC) && (k & KC_HL_ROUTES_SIMD) && (k & KC_HL_ROUTES_SIMD_MSB)))
        ok = 0;
    if ((k & KC_HL_ROUTES_SIMD) && !(k & KC_HL_ROUTES_MSIMD))
        ok = 0;
    if ((k & KC_HL_IS_PLC) && !(k & KC_HL_ROUTES_MSIMD))
        ok = 0;
    if (!(k & KC_HL_ROUTES_MIMD_ANY) || !(k & KC_HL_ROUTES_MIMD_CIRCUIT))
        ok = 0;
    cc->subset_ok += (uint64_t)ok;
    (void)dst;
}

static void test_census_q2_q3(void **state)
{
    kc_hl_census c;
    class_counts cc = {0, 0};
    /* Q_2: every one of the 4! permutations is LC_2, and HL routes them all */
    assert_int_equal(kc_hl_census_run(2, &c, NULL, NULL, NULL), KC_OK);
    assert_int_equal(c.total, 24);
    assert_int_equal(c.lc, 24);
    assert_int_equal(c.simd, 24);
    assert_int_equal(c.simd_msb, 24);

    assert_int_equal(kc_hl_census_run(3, &c, count_classes, &cc, NULL), KC_OK);
    assert_int_equal(c.total, 40320);
    assert_int_equal(cc.seen, 40320);
    assert_int_equal(cc.subset_ok, 40320);
    assert_int_equal(c.lc, 8 * 168); /* 2^3 |GL(3,2)| */
    assert_true(c.lc_in_simd);       /* Theorem 1, both variants */
    assert_true(c.simd_in_msimd);
    assert_true(c.plc_in_msimd);     /* Lemma 7 */
    /* M-SIMD routes strictly more than SIMD, but not everything */
    assert_true(c.msimd > c.simd);
    assert_true(c.msimd < c.total);
    /* MIMD: every permutation has a 3-step schedule with one tag sent per
     * processor per step and at most two tags held (the paper's claim) */
    assert_int_equal(c.mimd_any, c.total);
    /* ... even with every directed link on at most one path: a circuit
     * switched Q_3 is rearrangeable (the conclusion) */
    assert_int_equal(c.mimd_circuit, c.total);
    /* measured by this census (the paper gives no numbers) */
    assert_int_equal(c.plc, 2432);
    assert_int_equal(c.simd, 7040);
    assert_int_equal(c.simd_msb, 7040);
    assert_int_equal(c.msimd, 7552);
    assert_int_equal(c.mimd_greedy, 34560);
}

static void test_mimd_schedule_replays(void **state)
{
    /* a schedule found by the search, replayed on the engine */
    kc_rng r;
    kc_rng_seed(&r, 9);
    uint32_t dst[8];
    int8_t dims[3 * 8];
    for (int trial = 0; trial < 200; trial++) {
        kc_hl_random_perm(3, &r, dst);
        assert_true(kc_hl_mimd_search(3, dst, 2, trial & 1, dims));
        kc_hl_engine e;
        assert_int_equal(kc_hl_engine_init(&e, 3, dst, 2, 1, NULL), KC_OK);
        for (int t = 0; t < 3; t++)
            assert_int_equal(kc_hl_engine_step_each(&e, dims + t * 8), KC_OK);
        assert_true(kc_hl_routed(&e));
        assert_true(e.max_moved <= 1);
        kc_hl_circuit c;
        assert_int_equal(kc_hl_circuit_check(&e, &c, NULL, NULL, NULL), KC_OK);
        assert_true(c.all_minimal);
        if (trial & 1)
            assert_true(c.max_paths_per_link <= 1);
        kc_hl_engine_free(&e);
    }
}

static void test_random_plc_msimd(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 31);
    int mixed = 0;
    for (int n = 1; n <= 12; n++) {
        uint32_t *dst = malloc(sizeof *dst << n);
        for (int trial = 0; trial < (n <= 8 ? 30 : 5); trial++) {
            kc_hl_random_plc(n, &r, dst);
            /* a permutation */
            uint8_t *seen = calloc((size_t)1 << n, 1);
            for (uint64_t x = 0; x < (1ULL << n); x++) {
                assert_false(seen[dst[x]]);
                seen[dst[x]] = 1;
            }
            free(seen);
            assert_true(kc_hl_is_plc(n, dst));
            kc_hl_result res;
            assert_int_equal(kc_hl_msimd_run(n, dst, &res, NULL), KC_OK);
            if (!res.routed)
                fail_msg("n=%d: %s", n, res.why);
            assert_int_equal(res.steps, n);
            assert_true(res.max_moved <= 1);
            mixed += strchr(res.states, 'M') != NULL;
        }
        free(dst);
    }
    assert_true(mixed > 0); /* subcubes really were in different states */
}

static void test_lc_prime(void **state)
{
    for (int k = 1; k <= 4; k++)
        for (int v = 0; v <= 1; v++)
            assert_int_equal(kc_hl_lc_prime(k, v), kc_hl_lc_prime_enumerate(k, v));
    assert_int_equal(kc_hl_lc_prime(3, 0), 1256);
    assert_int_equal(kc_hl_lc_prime(3, 1), 1024);
}

static void test_plc_counts(void **state)
{
    char buf[4096];
    /* the block-triangular reading of LC'_k matches enumeration; the paper's
     * block-diagonal one over-counts from n = 3 on */
    for (int n = 0; n <= 3; n++) {
        uint64_t e;
        assert_int_equal(kc_hl_plc_enumerate(n, &e, NULL), KC_OK);
        assert_int_equal(kc_hl_plc_count(n, 1, buf, sizeof buf, NULL), KC_OK);
        assert_int_equal(strtoull(buf, NULL, 10), e);
    }
    assert_int_equal(kc_hl_plc_count(3, 0, buf, sizeof buf, NULL), KC_OK);
    assert_string_equal(buf, "2728");
    assert_int_equal(kc_hl_plc_count(4, 1, buf, sizeof buf, NULL), KC_OK);
    assert_string_equal(buf, "17678336");
    /* a big one: recurrence by hand for n = 5 from the smaller values,
     * sum_k LC'_k PLC_{5-k}^{2^k} with LC' = 2, 16, 1024, 278528, LC'_5 */
    assert_int_equal(kc_hl_plc_count(5, 1, buf, sizeof buf, NULL), KC_OK);
    __int128 p4 = 17678336, p3 = 2432, p2 = 24, p1 = 2;
    __int128 want = 2 * p4 * p4 + 16 * p3 * p3 * p3 * p3 + 1024 * p2 * p2 * p2 * p2 * p2 * p2 * p2 * p2;
    __int128 p1_16 = 1;
    for (int i = 0; i < 16; i++)
        p1_16 *= p1;
    want += 278528 * p1_16 + (__int128)kc_hl_lc_prime(5, 1);
    char wbuf[64];
    int len = 0;
    char tmp[64];
    while (want) {
        tmp[len++] = (char)('0' + (int)(want % 10));
        want /= 10;
    }
    for (int i = 0; i < len; i++)
        wbuf[i] = tmp[len - 1 - i];
    wbuf[len] = '\0';
    assert_string_equal(buf, wbuf);
    assert_int_equal(kc_hl_plc_count(8, 1, buf, 64, NULL), KC_ERANGE); /* too long for 64 bytes */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_census_q2_q3),
        cmocka_unit_test(test_mimd_schedule_replays),
        cmocka_unit_test(test_random_plc_msimd),
        cmocka_unit_test(test_lc_prime),
        cmocka_unit_test(test_plc_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
