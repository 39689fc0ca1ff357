/* The toolbox's bit operations (core/bits.h) and checked sizes
 * (core/size.h): the builtins and the portable fallbacks against a naive
 * loop over the bits, on seeded random words of every density and on the
 * edge words (single bits, all ones). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/bits.h"
#include "core/size.h"
#include "kcube/rng.h"

static int naive_pop(uint64_t x)
{
    int c = 0;
    for (int i = 0; i < 64; i++)
        c += (int)(x >> i & 1);
    return c;
}

static int naive_ctz(uint64_t x)
{
    int i = 0;
    while (!(x >> i & 1))
        i++;
    return i;
}

static int naive_clz(uint64_t x)
{
    int i = 63;
    while (!(x >> i & 1))
        i--;
    return 63 - i;
}

/* Every operation, both forms, on one word. */
static void check_word(uint64_t x)
{
    assert_int_equal(kci_popcount64(x), naive_pop(x));
    assert_int_equal(kci_fb_popcount64(x), naive_pop(x));
    assert_int_equal(kci_popcount32((uint32_t)x), naive_pop((uint32_t)x));
    assert_int_equal(kci_parity64(x), naive_pop(x) & 1);
    assert_int_equal(kci_fb_parity64(x), naive_pop(x) & 1);
    assert_int_equal(kci_is_pow2(x), naive_pop(x) == 1);
    if (x) {
        assert_int_equal(kci_ctz64(x), naive_ctz(x));
        assert_int_equal(kci_fb_ctz64(x), naive_ctz(x));
        assert_int_equal(kci_clz64(x), naive_clz(x));
        assert_int_equal(kci_fb_clz64(x), naive_clz(x));
        assert_int_equal(kci_log2_64(x), 63 - naive_clz(x));
    }
    if ((uint32_t)x) {
        assert_int_equal(kci_ctz32((uint32_t)x), naive_ctz((uint32_t)x));
        assert_int_equal(kci_clz32((uint32_t)x), naive_clz((uint32_t)x) - 32);
    }
}

static void test_bits_edges(void **state)
{
    (void)state;
    check_word(0);
    check_word(UINT64_MAX);
    for (int i = 0; i < 64; i++) {
        check_word(UINT64_C(1) << i);
        check_word(~(UINT64_C(1) << i));
        check_word((UINT64_C(1) << i) - 1);
    }
}

static void test_bits_random(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 31);
    for (int t = 0; t < 200000; t++) {
        uint64_t x = kc_rng_next(&rng);
        switch (t % 4) { /* sparse and dense words too */
        case 1: x &= kc_rng_next(&rng) & kc_rng_next(&rng); break;
        case 2: x |= kc_rng_next(&rng) | kc_rng_next(&rng); break;
        case 3: x >>= kc_rng_below(&rng, 64); break;
        default: break;
        }
        check_word(x);
    }
}

static void test_prefetch(void **state)
{
    (void)state;
    int a[KCI_CACHE_LINE] = {0};
    kci_prefetch(&a[0]);
    kci_prefetch_w(&a[KCI_CACHE_LINE - 1]);
    assert_int_equal(a[0], 0); /* a hint only: no visible effect */
    assert_true(KCI_CACHE_LINE >= 16 && (KCI_CACHE_LINE & (KCI_CACHE_LINE - 1)) == 0);
}

/* kc_rng_perm: a permutation for every count (0 and 1 too), the same one
 * for the same seed, and every element of a small count at every place
 * over many draws (no place is stuck). */
static void test_rng_perm(void **state)
{
    (void)state;
    uint32_t p[64], q[64];
    for (uint64_t count = 0; count <= 64; count++) {
        kc_rng a, b;
        kc_rng_seed(&a, count + 7);
        kc_rng_seed(&b, count + 7);
        kc_rng_perm(&a, p, count);
        kc_rng_perm(&b, q, count);
        uint64_t seen = 0;
        for (uint64_t i = 0; i < count; i++) {
            assert_true(p[i] < count);
            seen |= 1ULL << p[i];
            assert_int_equal(p[i], q[i]);
        }
        assert_true(count == 64 ? seen == UINT64_MAX : seen == (1ULL << count) - 1);
    }
    unsigned hits[4][4] = {{0}};
    kc_rng r;
    kc_rng_seed(&r, 1);
    for (int t = 0; t < 4000; t++) {
        kc_rng_perm(&r, p, 4);
        for (int i = 0; i < 4; i++)
            hits[i][p[i]]++;
    }
    for (int i = 0; i < 4; i++)
        for (int v = 0; v < 4; v++)
            assert_true(hits[i][v] > 800 && hits[i][v] < 1200);
}

static void test_size_checks(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 5);
    for (int t = 0; t < 100000; t++) {
        uint64_t a = kc_rng_next(&rng) >> kc_rng_below(&rng, 64), b = kc_rng_next(&rng) >> kc_rng_below(&rng, 64);
        uint64_t s, p;
        int so = kci_add_overflow_u64(a, b, &s), po = kci_mul_overflow_u64(a, b, &p);
        assert_int_equal(so, a > UINT64_MAX - b);
        assert_true(s == a + b);
        assert_int_equal(po, a != 0 && b > UINT64_MAX / a);
        assert_true(p == a * b);
        size_t z;
        assert_int_equal(kci_mul_overflow_size((size_t)a, (size_t)b, &z),
                         a != 0 && (size_t)b > SIZE_MAX / (size_t)a && (size_t)a == a && (size_t)b == b);
    }
    assert_true(kci_clamp_u64(0.0) == 0);
    assert_true(kci_clamp_u64(12345.9) == 12345);
    assert_true(kci_clamp_u64(1.79e19) == (uint64_t)1.79e19);
    assert_true(kci_clamp_u64(1.81e19) == UINT64_MAX);
    assert_true(kci_clamp_u64(1e300) == UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bits_edges),
        cmocka_unit_test(test_bits_random),
        cmocka_unit_test(test_prefetch),
        cmocka_unit_test(test_rng_perm),
        cmocka_unit_test(test_size_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
