/* Linear-complement communications: classification and built-in patterns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kcube/lcc.h"

static void expect_matrix(const kc_lcc *c, const char *text)
{
    char buf[64 * 65 + 1];
    assert_string_equal(kc_bitmat_format(&c->a, buf, sizeof buf), text);
}

static void expect_vector(const kc_lcc *c, const char *text)
{
    char buf[65];
    assert_string_equal(kc_vec_format(c->b, c->a.n, buf, sizeof buf), text);
}

/* Seed 000 Examples 1 and 3 and Section 6's reverse-flip. */
static void test_paper_patterns(void **state)
{
    kc_lcc c;
    assert_int_equal(kc_lcc_named(&c, "bit-reverse", 8, NULL), KC_OK);
    expect_matrix(&c, "00000001;00000010;00000100;00001000;00010000;00100000;01000000;10000000");
    expect_vector(&c, "00000000");
    assert_int_equal(c.kind, KC_LCC_PERMUTATION);
    assert_int_equal(kc_lcc_named(&c, "transpose", 8, NULL), KC_OK);
    expect_matrix(&c, "00001000;00000100;00000010;00000001;10000000;01000000;00100000;00010000");
    assert_int_equal(kc_lcc_named(&c, "reverse-flip", 8, NULL), KC_OK);
    expect_vector(&c, "11111111");
    assert_int_equal(kc_lcc_named(&c, "transpose", 4, NULL), KC_OK);
    expect_matrix(&c, "0010;0001;1000;0100");
}

/* Seed 000 Example 5: the image operations on a 16 x 16 image (n = 8). */
static void test_image_operations(void **state)
{
    kc_lcc c;
    assert_int_equal(kc_lcc_named(&c, "rotate-cw", 8, NULL), KC_OK);
    expect_vector(&c, "11110000");
    assert_int_equal(kc_lcc_named(&c, "rotate-ccw", 8, NULL), KC_OK);
    expect_vector(&c, "00001111");
    assert_int_equal(kc_lcc_named(&c, "reflect-antidiagonal", 8, NULL), KC_OK);
    expect_vector(&c, "11111111");
    assert_int_equal(kc_lcc_named(&c, "reflect-vertical", 8, NULL), KC_OK);
    expect_matrix(&c, "10000000;01000000;00100000;00010000;00001000;00000100;00000010;00000001");
    expect_vector(&c, "11110000");
    assert_int_equal(kc_lcc_named(&c, "reflect-horizontal", 8, NULL), KC_OK);
    expect_vector(&c, "00001111");
    assert_int_equal(kc_lcc_named(&c, "rotate-180", 8, NULL), KC_OK);
    expect_vector(&c, "11111111");
    assert_int_equal(kc_lcc_named(&c, "scale-2x", 8, NULL), KC_OK);
    expect_matrix(&c, "01000000;00100000;00010000;00000000;00000100;00000010;00000001;00000000");
    assert_int_equal(c.kind, KC_LCC_SCATTER);
    assert_int_equal(c.rank, 6);
    assert_int_equal(kc_lcc_named(&c, "row-bit-reverse", 8, NULL), KC_OK);
    expect_matrix(&c, "00010000;00100000;01000000;10000000;00001000;00000100;00000010;00000001");
    assert_int_equal(kc_lcc_named(&c, "col-bit-reverse", 8, NULL), KC_OK);
    expect_matrix(&c, "10000000;01000000;00100000;00010000;00000001;00000010;00000100;00001000");

    /* Replay the data motion: rotate-cw moves pixel (px,py) to (15-py, px)
     * and the 2x scaling feeds (2px+e, 2py+f) from (px, py). */
    assert_int_equal(kc_lcc_named(&c, "rotate-cw", 8, NULL), KC_OK);
    for (uint64_t x = 0; x < 256; x++) {
        uint64_t px = x & 15, py = x >> 4, src, dst;
        kc_lcc_message(&c, x, &src, &dst);
        assert_true(dst == (px << 4 | (15 - py)));
    }
    assert_int_equal(kc_lcc_named(&c, "scale-2x", 8, NULL), KC_OK);
    for (uint64_t y = 0; y < 256; y++) {
        uint64_t src, dst;
        kc_lcc_message(&c, y, &src, &dst);
        assert_true(dst == y);
        uint64_t qx = (y & 15) / 2, qy = (y >> 4) / 2;
        assert_true(src == (qy << 4 | qx));
    }
}

static void test_other_patterns(void **state)
{
    kc_lcc c;
    uint64_t s, d;
    assert_int_equal(kc_lcc_named(&c, "shuffle", 5, NULL), KC_OK);
    kc_lcc_message(&c, 0x13, &s, &d); /* 10011 -> rotate left -> 00111 */
    assert_true(d == 0x07);
    assert_int_equal(kc_lcc_named(&c, "unshuffle", 5, NULL), KC_OK);
    kc_lcc_message(&c, 0x07, &s, &d);
    assert_true(d == 0x13);
    assert_int_equal(kc_lcc_named(&c, "butterfly:3", 6, NULL), KC_OK);
    kc_lcc_message(&c, 1, &s, &d);
    assert_true(d == 9);
    assert_int_equal(kc_lcc_named(&c, "bit-swap:2", 4, NULL), KC_OK);
    kc_lcc_message(&c, 1, &s, &d);
    assert_true(d == 4);
    assert_int_equal(kc_lcc_named(&c, "complement", 4, NULL), KC_OK);
    kc_lcc_message(&c, 5, &s, &d);
    assert_true(d == 10);
    assert_true(kc_lcc_idle_dims(&c) == 0);
    assert_int_equal(kc_lcc_named(&c, "butterfly:0", 4, NULL), KC_OK);
    assert_true(kc_lcc_idle_dims(&c) == 0xe);
    /* Every named pattern builds for a suitable n. */
    const kc_pattern_info *p;
    for (size_t i = 0; (p = kc_lcc_pattern(i)); i++) {
        char name[64];
        strcpy(name, p->name);
        char *colon = strchr(name, ':');
        if (colon)
            strcpy(colon, ":1");
        assert_int_equal(kc_lcc_named(&c, name, 6, NULL), KC_OK);
    }
}

static void test_classification_and_errors(void **state)
{
    kc_bitmat a;
    kc_lcc c;
    kc_err err = {0};
    kc_bitmat_identity(&a, 4);
    assert_int_equal(kc_lcc_init(&c, &a, 0, 1, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "permutation"));
    a.row[3] = 0;
    assert_int_equal(kc_lcc_init(&c, &a, 0, 0, NULL), KC_OK);
    assert_int_equal(c.kind, KC_LCC_GATHER);
    assert_int_equal(c.rank, 3);
    assert_int_equal(kc_lcc_init(&c, &a, 0, 1, NULL), KC_OK);
    assert_int_equal(c.kind, KC_LCC_SCATTER);
    assert_int_equal(kc_lcc_named(&c, "transpose", 7, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "even"));
    assert_int_equal(kc_lcc_named(&c, "no-such", 4, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "unknown pattern"));
    assert_int_equal(kc_lcc_named(&c, "butterfly:9", 4, &err), KC_EINVAL);
    assert_int_equal(kc_lcc_named(&c, "butterfly", 4, &err), KC_EINVAL);
    assert_int_equal(kc_lcc_named(&c, "butterfly:x", 4, &err), KC_EINVAL);
    assert_int_equal(kc_lcc_named(&c, "transpose:1", 4, &err), KC_EINVAL);
    assert_int_equal(kc_lcc_named(&c, "transpose", 0, &err), KC_ERANGE);
    assert_int_equal(kc_lcc_named(&c, "transpose", 66, &err), KC_ERANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_patterns),
        cmocka_unit_test(test_image_operations),
        cmocka_unit_test(test_other_patterns),
        cmocka_unit_test(test_classification_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
