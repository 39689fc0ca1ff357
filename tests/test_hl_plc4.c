/* kc-test: slow (builds the 17.7 M permutations of PLC_4 in a 512 MiB set) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "kcube/hl_class.h"

/* |PLC_4| by enumeration equals recurrence (3) with the block-triangular
 * reading of LC'_k, and not the block-diagonal one. */
static void test_plc4_enumeration(void **state)
{
    uint64_t count;
    char buf[64];
    assert_int_equal(kc_hl_plc_enumerate(4, &count, NULL), KC_OK);
    assert_int_equal(kc_hl_plc_count(4, 1, buf, sizeof buf, NULL), KC_OK);
    assert_int_equal(strtoull(buf, NULL, 10), count);
    assert_int_equal(kc_hl_plc_count(4, 0, buf, sizeof buf, NULL), KC_OK);
    assert_true(strtoull(buf, NULL, 10) > count);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_plc4_enumeration)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
