/* The inline xoshiro step and the integer Bernoulli threshold
 * (core/rng_step.h) against the library: kci_rng_step gives the values
 * kc_rng_next gives from the same state, and "(x >> 11) < threshold(q)"
 * decides exactly as "kc_rng_unit < q" on seeded random q (of every
 * magnitude, multiples of 2^-53 included, where the two forms could part
 * by one) and random draws, plus the edges 0 and 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "core/rng_step.h"
#include "kcube/rng.h"

static void step_is_next(void **state)
{
    (void)state;
    kc_rng a, b;
    kc_rng_seed(&a, 42);
    b = a;
    for (int i = 0; i < 100000; i++)
        assert_true(kci_rng_step(&a) == kc_rng_next(&b));
}

/* The value kc_rng_unit turns x into, and its comparison with q. */
static int unit_below(uint64_t x, double q) { return (double)(x >> 11) * 0x1.0p-53 < q; }

static double random_q(kc_rng *r)
{
    switch (kc_rng_below(r, 4)) {
    case 0: /* an exact multiple of 2^-53 */
        return (double)(kc_rng_next(r) >> 11) * 0x1.0p-53;
    case 1: /* tiny */
        return kc_rng_unit(r) * ldexp(1.0, -(int)kc_rng_below(r, 60));
    default:
        return kc_rng_unit(r);
    }
}

static void threshold_decides_as_unit(void **state)
{
    (void)state;
    kc_rng r;
    kc_rng_seed(&r, 7);
    for (int i = 0; i < 20000; i++) {
        double q = random_q(&r);
        uint64_t t = kci_rng_unit_threshold(q);
        /* random draws, and the draws right at the boundary */
        for (int j = 0; j < 20; j++) {
            uint64_t x = kc_rng_next(&r);
            assert_int_equal((x >> 11) < t, unit_below(x, q));
        }
        for (int d = -2; d <= 2; d++) {
            int64_t m = (int64_t)t + d;
            if (m < 0 || m >= (INT64_C(1) << 53))
                continue;
            uint64_t x = (uint64_t)m << 11;
            assert_int_equal((x >> 11) < t, unit_below(x, q));
        }
    }
    assert_true(kci_rng_unit_threshold(0.0) == 0);
    assert_true(kci_rng_unit_threshold(1.0) == UINT64_C(1) << 53);
    assert_true(kci_rng_unit_threshold(2.5) == UINT64_C(1) << 53);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(step_is_next),
        cmocka_unit_test(threshold_decides_as_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
