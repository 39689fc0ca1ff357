/* HL on meshes (seed 004 Section 3.1): the step-level simulation must take
 * exactly sum_a (2^{n_a} - 1) mesh steps when every HL step moves a tag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/hl_mesh.h"

static const char *shapes[] = {"2",    "4",    "2x2",   "4x4",     "2x8",   "8x2",     "16",
                               "8x8",  "4x4x4", "2x32", "4x8x2",  "2x2x2x2x2x2", "16x16", "32x32",
                               "64x4", "8x8x8", "64x64", "16x16x16", "2x2048", "4x2x8x16"};

static uint32_t *lcc_perm(const char *name, int n)
{
    kc_lcc c;
    assert_int_equal(kc_lcc_named(&c, name, n, NULL), KC_OK);
    uint32_t *dst = malloc(sizeof *dst << n);
    assert_int_equal(kc_hl_perm_from_lcc(&c, dst, NULL), KC_OK);
    return dst;
}

static void check_run(const kc_hl_mesh_shape *sh, const uint32_t *dst, int msb, int expect_full)
{
    kc_hl_mesh_result mr;
    kc_hl_result hr;
    kc_hl_opts o = {.msb_first = msb};
    assert_int_equal(kc_hl_mesh_route(sh, dst, &o, &hr, &mr, NULL), KC_OK);
    assert_true(mr.routed && hr.routed);
    assert_int_equal(mr.waits, 0);
    assert_true(mr.max_link_load <= 1);
    /* a phase over dimension off_a + j takes exactly 2^j steps when it moves
     * anything; the bound is reached when every phase does */
    int off = 0, full = 1;
    uint64_t want = 0;
    for (int t = 0; t < mr.phases; t++) {
        int d = mr.phase_dim[t], a = 0;
        off = 0;
        while (d >= off + sh->side_log[a])
            off += sh->side_log[a++];
        if (hr.moved[t])
            assert_int_equal(mr.phase_steps[t], 1ULL << (d - off));
        else
            full = 0;
        want += mr.phase_steps[t];
    }
    assert_int_equal(mr.mesh_steps, want);
    assert_true(mr.mesh_steps <= mr.bound);
    if (full)
        assert_int_equal(mr.mesh_steps, mr.bound);
    if (expect_full)
        assert_int_equal(mr.mesh_steps, mr.bound);
}

static void test_shapes_exact_bound(void **state)
{
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        kc_hl_mesh_shape sh;
        int n = 0;
        /* find n from the shape */
        for (int m = 1; m <= 16 && !n; m++)
            if (kc_hl_mesh_parse(&sh, shapes[i], m, NULL) == KC_OK)
                n = m;
        assert_true(n > 0);
        char buf[64];
        assert_string_equal(kc_hl_mesh_format(&sh, buf, sizeof buf), shapes[i]);
        /* complement: every tag moves in every step */
        uint32_t *dst = lcc_perm("complement", n);
        check_run(&sh, dst, 0, 1);
        check_run(&sh, dst, 1, 1);
        free(dst);
        if (n >= 2) {
            dst = lcc_perm("reverse-flip", n);
            check_run(&sh, dst, 0, 0);
            free(dst);
        }
        kc_rng r;
        kc_rng_seed(&r, 77 + i);
        dst = malloc(sizeof *dst << n);
        for (int k = 0; k < 10; k++) {
            kc_bitmat a;
            uint64_t b;
            kc_lcc c;
            kc_hl_random_lc(n, &r, &a, &b);
            assert_int_equal(kc_lcc_init(&c, &a, b, 0, NULL), KC_OK);
            assert_int_equal(kc_hl_perm_from_lcc(&c, dst, NULL), KC_OK);
            check_run(&sh, dst, k & 1, 0);
        }
        free(dst);
    }
}

static void test_square_formula(void **state)
{
    /* a square 2-mesh of 2^n nodes: 2 (2^{n/2} - 1) steps */
    for (int n = 2; n <= 12; n += 2) {
        char text[32];
        snprintf(text, sizeof text, "%dx%d", 1 << (n / 2), 1 << (n / 2));
        kc_hl_mesh_shape sh;
        assert_int_equal(kc_hl_mesh_parse(&sh, text, n, NULL), KC_OK);
        uint32_t *dst = lcc_perm("complement", n);
        kc_hl_mesh_result mr;
        assert_int_equal(kc_hl_mesh_route(&sh, dst, NULL, NULL, &mr, NULL), KC_OK);
        assert_int_equal(mr.mesh_steps, 2 * ((1ULL << (n / 2)) - 1));
        free(dst);
    }
}

static void test_bad_shapes(void **state)
{
    kc_hl_mesh_shape sh;
    kc_err err = {0};
    assert_int_equal(kc_hl_mesh_parse(&sh, "4x4", 5, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "multiply"));
    assert_int_equal(kc_hl_mesh_parse(&sh, "3x4", 4, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "power of two"));
    assert_int_equal(kc_hl_mesh_parse(&sh, "4x", 4, &err), KC_EINVAL);
    assert_int_equal(kc_hl_mesh_parse(&sh, "", 4, &err), KC_EINVAL);
    assert_int_equal(kc_hl_mesh_parse(&sh, "1x16", 4, &err), KC_EINVAL);
    assert_int_equal(kc_hl_mesh_parse(&sh, "2,8", 4, NULL), KC_OK);
    assert_int_equal(sh.side_log[0], 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes_exact_bound),
        cmocka_unit_test(test_square_formula),
        cmocka_unit_test(test_bad_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
