/* Integers in the command line's JSON outputs are exact: cJSON keeps its
 * numbers as doubles (53-bit mantissa, printed with 15 digits), so the
 * helpers of cli.h write every integer as its own decimal text. Checked at
 * the edges where a double stops being exact: 2^53 and 2^64 - 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The compact JSON text of one node (freed here). */
static void expect_text(cJSON *node, const char *want)
{
    assert_non_null(node);
    char *text = cJSON_PrintUnformatted(node);
    assert_non_null(text);
    assert_string_equal(text, want);
    free(text);
    cJSON_Delete(node);
}

static void u64_near_2_53_and_2_64(void **state)
{
    (void)state;
    expect_text(cli_json_u64(0), "0");
    expect_text(cli_json_u64((1ULL << 53) - 1), "9007199254740991");
    expect_text(cli_json_u64(1ULL << 53), "9007199254740992");
    expect_text(cli_json_u64((1ULL << 53) + 1), "9007199254740993");
    expect_text(cli_json_u64(6606668585008489ULL), "6606668585008489");
    expect_text(cli_json_u64(UINT64_MAX - 1), "18446744073709551614");
    expect_text(cli_json_u64(UINT64_MAX), "18446744073709551615");
}

static void i64_both_signs(void **state)
{
    (void)state;
    expect_text(cli_json_i64(-1), "-1");
    expect_text(cli_json_i64(-(INT64_C(1) << 53) - 1), "-9007199254740993");
    expect_text(cli_json_i64(INT64_MAX), "9223372036854775807");
    expect_text(cli_json_i64(INT64_MIN), "-9223372036854775808");
}

/* In objects and arrays, the numbers stay numbers (no quotes) and parse back
 * as the same integers. */
static void object_and_array(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cli_json_add_u64(o, "big", UINT64_MAX);
    cli_json_add_int(o, "neg", -(INT64_C(1) << 60));
    uint64_t v[3] = {1ULL << 53, (1ULL << 53) + 1, UINT64_MAX};
    cJSON_AddItemToObject(o, "list", cli_json_u64_array(v, 3));
    expect_text(o, "{\"big\":18446744073709551615,\"neg\":-1152921504606846976,"
                   "\"list\":[9007199254740992,9007199254740993,18446744073709551615]}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(u64_near_2_53_and_2_64),
        cmocka_unit_test(i64_both_signs),
        cmocka_unit_test(object_and_array),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
