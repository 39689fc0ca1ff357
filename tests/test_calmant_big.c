/* kc-test: slow -- CALMANT at the sizes: <0,16>_1 on a 65536-node
 * line, <0,16>_2 on a 256x256 mesh and <0,18>_3 on 64x64x64, generated and
 * replayed (a few seconds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kcube/calmant_cost.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"

static void big(int d, int c)
{
    kc_calmant g;
    kc_calmant_sched s = {0};
    kc_calmant_verdict v;
    kc_calmant_task t = {0, d};
    assert_int_equal(kc_calmant_init(&g, d, c, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, NULL), KC_OK);
    assert_int_equal(kc_calmant_sched_task(&g, t, &s, NULL), KC_OK);
    assert_int_equal(kc_calmant_verify(&g, t, &s, &v, NULL), KC_OK);
    assert_int_equal(v.conflicts, 0);
    assert_int_equal(v.missing, 0);
    assert_int_equal(v.unexpected, 0);
    assert_int_equal(v.steps, kc_calmant_steps(0, d, c));
    kc_calmant_load L;
    assert_int_equal(kc_calmant_load_exact(&g, t, &L, NULL), KC_OK);
    assert_int_equal(L.max_load, kc_calmant_load_mesh(0, d, c));
    kc_calmant_sched_free(&s);
}

static void test_line_16(void **state)
{
    big(16, 1); /* 43690 steps = LB */
}

static void test_2d_16(void **state)
{
    big(16, 2); /* 172 steps, LB 170 */
}

static void test_3d_18(void **state)
{
    big(18, 3); /* 46 steps, LB 42 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_16),
        cmocka_unit_test(test_2d_16),
        cmocka_unit_test(test_3d_18),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
