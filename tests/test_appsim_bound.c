/* kc-test: slow. The LogGOPS bound on many random schedules: the network
 * replay (each CPU and NIC in the LogGOPS run's order) is never below the
 * LogGOPS makespan with the network's zero-load numbers; the mix of
 * tests/support/loggops_bound.c (chains, rendezvous, two ranks a node,
 * g = 0), two seeds, 3,000 schedules (a few seconds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loggops_bound.h"

static void check(uint64_t seed, int trials)
{
    kc_test_bound b;
    kc_test_loggops_bound(seed, trials, KC_APPSIM_ORDER_LOGGOPS, &b);
    assert_true(b.ran >= trials * 9 / 10);
    assert_int_equal(b.fixed, b.ran);
    assert_true(b.chains >= trials / 6 && b.rendezvous >= trials / 5 && b.packed >= trials / 20 &&
                b.gap0 >= trials / 4);
    if (b.below)
        fail_msg("%d of %d schedules below LogGOPS (worst %.3g %% at trial %llu)", b.below, b.ran, 100 * b.worst,
                 (unsigned long long)b.worst_trial);
}

static void test_bound_2112(void **state)
{
    (void)state;
    check(2112, 1500);
}

static void test_bound_other_seed(void **state)
{
    (void)state;
    check(90210, 1500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bound_2112), cmocka_unit_test(test_bound_other_seed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
