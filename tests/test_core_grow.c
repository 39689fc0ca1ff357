/* The toolbox's array growth (core/grow.h): seeded random appends through
 * KCI_RESERVE keep every element and a capacity that is the first size
 * doubled; exact resizes keep the prefix; overflowing sizes fail and leave
 * the array as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "core/grow.h"
#include "kcube/rng.h"

static void test_reserve_appends(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 99);
    for (int t = 0; t < 200; t++) {
        size_t first = 1 + (size_t)kc_rng_below(&rng, 100), cap = 0, n = 0;
        size_t count = (size_t)kc_rng_below(&rng, 5000);
        uint64_t *a = NULL;
        for (size_t i = 0; i < count; i++) {
            assert_int_equal(KCI_RESERVE(a, cap, n + 1, first), 0);
            assert_true(cap >= n + 1);
            a[n++] = i * 2654435761u;
        }
        /* the capacity: first, doubled until it holds count */
        size_t expect = 0;
        if (count)
            for (expect = first; expect < count; expect *= 2)
                ;
        assert_true(cap == expect);
        for (size_t i = 0; i < count; i++)
            assert_true(a[i] == i * 2654435761u);
        /* a reserve that fits changes nothing */
        uint64_t *same = a;
        assert_int_equal(KCI_RESERVE(a, cap, n, first), 0);
        assert_true(a == same);
        free(a);
    }
}

static void test_reserve_jumps(void **state)
{
    (void)state;
    char *s = NULL;
    size_t cap = 0;
    assert_int_equal(KCI_RESERVE(s, cap, 1000, 16), 0);
    assert_true(cap == 1024);
    assert_int_equal(KCI_RESERVE(s, cap, 1025, 16), 0);
    assert_true(cap == 2048);
    assert_int_equal(KCI_RESERVE(s, cap, 5000, 0), 0);
    assert_true(cap == 8192);
    free(s);
    size_t c0 = 0;
    int *z = NULL;
    assert_int_equal(KCI_RESERVE(z, c0, 3, 0), 0); /* first 0 counts as 1 */
    assert_true(c0 == 4);
    free(z);
}

static void test_overflow(void **state)
{
    (void)state;
    uint64_t *a = NULL;
    size_t cap = 0;
    assert_int_equal(KCI_RESERVE(a, cap, 8, 8), 0);
    a[7] = 77;
    uint64_t *before = a;
    assert_int_equal(KCI_RESERVE(a, cap, SIZE_MAX / 4, 8), -1);
    assert_true(a == before && cap == 8 && a[7] == 77);
    assert_int_equal(KCI_RESERVE(a, cap, SIZE_MAX, 8), -1);
    assert_true(a == before && cap == 8);
    assert_int_equal(KCI_RESIZE(a, SIZE_MAX / 2), -1);
    assert_true(a == before);
    free(a);
}

static void test_resize(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 3);
    uint32_t *a = NULL;
    size_t n = 0;
    for (int t = 0; t < 500; t++) {
        size_t m = (size_t)kc_rng_below(&rng, 3000);
        assert_int_equal(KCI_RESIZE(a, m), 0);
        assert_non_null(a);
        for (size_t i = 0; i < (m < n ? m : n); i++)
            assert_int_equal(a[i], (uint32_t)(i * 7 + 1));
        for (size_t i = n; i < m; i++)
            a[i] = (uint32_t)(i * 7 + 1);
        n = m;
    }
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reserve_appends),
        cmocka_unit_test(test_reserve_jumps),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_resize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
