/* kc-test: slow. Sets at the DP's limit: the reorder search reaches
 * the exact subset DP's optimum at n = 20..24 on random sets of
 * communications (random LCCs and built-in patterns), max objective. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kc_testutil.h"
#include "mapsearch_check.h"
#include "kcube/contention.h"
#include "kcube/mapset.h"


static void test_n20_to_24(void **state) { kc_test_search_vs_dp(2424, 9, 20, 24, KC_OBJ_MAX, 4000000); }

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_n20_to_24)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
