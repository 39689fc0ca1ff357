/* Algorithm HL: Figure 2 of seed 004 step by step, every LC permutation of
 * Q_n for n <= 4 (both variants), the engine's state and invariant checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/hl.h"

/* Figure 2: y2 = x1 + x0, y1 = x2 + x0 + 1, y0 = x1 + 1. */
static void figure2_perm(uint32_t *dst)
{
    kc_bitmat a;
    uint64_t b;
    assert_int_equal(kc_bitmat_parse(&a, "010;101;110", 3, NULL), KC_OK);
    assert_int_equal(kc_vec_parse(&b, "110", 3, NULL), KC_OK);
    kc_lcc c;
    assert_int_equal(kc_lcc_init(&c, &a, b, 0, NULL), KC_OK);
    assert_int_equal(kc_hl_perm_from_lcc(&c, dst, NULL), KC_OK);
}

/* tags of processor x, smaller first; -1 for an empty slot */
static void tags_of(const kc_hl_engine *e, uint64_t x, int out[2])
{
    const uint32_t *t;
    int c = kc_hl_tags(e, x, &t);
    out[0] = out[1] = -1;
    if (c >= 1)
        out[0] = (int)t[0];
    if (c == 2) {
        out[0] = (int)(t[0] < t[1] ? t[0] : t[1]);
        out[1] = (int)(t[0] < t[1] ? t[1] : t[0]);
    }
    assert_true(c <= 2);
}

static void expect_tags(const kc_hl_engine *e, const int want[8][2])
{
    for (uint64_t x = 0; x < 8; x++) {
        int got[2];
        tags_of(e, x, got);
        assert_int_equal(got[0], want[x][0]);
        assert_int_equal(got[1], want[x][1]);
    }
}

static void test_figure2_step_by_step(void **state)
{
    uint32_t dst[8];
    figure2_perm(dst);
    /* Figure 2(a): processor x holds tag dst[x] */
    const uint32_t initial[8] = {3, 5, 6, 0, 1, 7, 4, 2};
    assert_memory_equal(dst, initial, sizeof initial);
    kc_hl_engine e;
    assert_int_equal(kc_hl_engine_init(&e, 3, dst, 2, 1, NULL), KC_OK);
    assert_int_equal(kc_hl_state(&e), 'A');
    assert_true(kc_hl_affine(&e));
    /* step 1 corrects bit 0: 000, 011, 100 and 111 send (Figure 2(b)) */
    assert_int_equal(kc_hl_engine_step(&e, 0), KC_OK);
    const int after1[8][2] = {{-1, -1}, {3, 5}, {0, 6}, {-1, -1}, {-1, -1}, {1, 7}, {2, 4}, {-1, -1}};
    expect_tags(&e, after1);
    for (uint64_t x = 0; x < 8; x++)
        assert_int_equal(e.sent_tag[x] != KC_HL_NONE, x == 0 || x == 3 || x == 4 || x == 7);
    assert_int_equal(kc_hl_state(&e), 'B');
    assert_true(kc_hl_affine(&e));
    /* the two tags differ in both bits 1 and 2 everywhere (Lemma 3) */
    for (uint64_t x = 0; x < 8; x++) {
        int t[2];
        tags_of(&e, x, t);
        if (t[1] >= 0)
            assert_int_equal(t[0] ^ t[1], 6);
    }
    /* step 2 corrects bit 1 (Figure 2(c)): state A again */
    assert_int_equal(kc_hl_engine_step(&e, 1), KC_OK);
    const int after2[8][2] = {{0, -1}, {5, -1}, {6, -1}, {3, -1}, {4, -1}, {1, -1}, {2, -1}, {7, -1}};
    expect_tags(&e, after2);
    assert_int_equal(kc_hl_state(&e), 'A');
    /* step 3: 001 and 010 exchange with 101 and 110 */
    assert_int_equal(kc_hl_engine_step(&e, 2), KC_OK);
    for (uint64_t x = 0; x < 8; x++)
        assert_int_equal(e.sent_tag[2 * 8 + x] != KC_HL_NONE, x == 1 || x == 2 || x == 5 || x == 6);
    assert_true(kc_hl_routed(&e));
    assert_int_equal(e.max_moved, 1);
    kc_hl_engine_free(&e);

    /* the algorithm itself takes the same steps */
    kc_hl_result res;
    kc_hl_opts o = {.check_affine = 1, .require_lemma3 = 1};
    assert_int_equal(kc_hl_route(3, dst, &o, &res, NULL), KC_OK);
    assert_true(res.routed);
    assert_string_equal(res.states, "ABA");
    assert_int_equal(res.dims[0], 0);
    assert_int_equal(res.dims[1], 1);
    assert_int_equal(res.dims[2], 2);
    assert_int_equal(res.max_moved, 1);
    assert_true(res.affine_ok && res.lemma3_ok);
    o.msb_first = 1;
    assert_int_equal(kc_hl_route(3, dst, &o, &res, NULL), KC_OK);
    assert_true(res.routed);
    assert_int_equal(res.dims[0], 2);
}

/* Every bit corrected once, n steps, states A/B only, Lemma 4 holds. */
static void check_lc_run(int n, const uint32_t *dst, int msb, int circuits)
{
    kc_hl_engine e;
    assert_int_equal(kc_hl_engine_init(&e, n, dst, 2, circuits, NULL), KC_OK);
    kc_hl_opts o = {.msb_first = msb, .check_affine = 1, .require_lemma3 = 1};
    kc_hl_result res;
    assert_int_equal(kc_hl_run(&e, &o, &res, NULL), KC_OK);
    if (!res.routed)
        fail_msg("n=%d msb=%d: %s", n, msb, res.why);
    assert_int_equal(res.steps, n);
    assert_int_equal((int)strlen(res.states), n);
    assert_int_equal(res.states[0], 'A');
    assert_true(strspn(res.states, "AB") == (size_t)n);
    assert_true(res.max_moved <= 1);
    assert_true(res.affine_ok && res.lemma3_ok);
    uint64_t seen = 0;
    for (int t = 0; t < n; t++)
        seen |= 1ULL << res.dims[t];
    assert_true(seen == kc_mask(n));
    if (circuits) {
        kc_hl_circuit c;
        assert_int_equal(kc_hl_circuit_check(&e, &c, NULL, NULL, NULL), KC_OK);
        assert_true(c.all_minimal);
        assert_true(c.max_paths_per_link <= 1);
        assert_true(c.max_steps_per_pair <= 1);
    }
    kc_hl_engine_free(&e);
}

static uint64_t gl_order(int n)
{
    uint64_t g = 1;
    for (int i = 0; i < n; i++)
        g *= (1ULL << n) - (1ULL << i);
    return g;
}

static void test_exhaustive_small(void **state)
{
    uint32_t dst[16];
    for (int n = 1; n <= 4; n++) {
        uint64_t count = 0;
        for (uint64_t bits = 0; bits < (1ULL << (n * n)); bits++) {
            kc_bitmat a;
            kc_bitmat_zero(&a, n);
            for (int i = 0; i < n; i++)
                a.row[i] = (bits >> (i * n)) & kc_mask(n);
            if (kc_bitmat_rank(&a) != n)
                continue;
            for (uint64_t b = 0; b < (1ULL << n); b++) {
                kc_lcc c;
                assert_int_equal(kc_lcc_init(&c, &a, b, 0, NULL), KC_OK);
                assert_int_equal(kc_hl_perm_from_lcc(&c, dst, NULL), KC_OK);
                check_lc_run(n, dst, 0, n <= 3);
                check_lc_run(n, dst, 1, n <= 3);
                count++;
            }
        }
        assert_int_equal(count, (1ULL << n) * gl_order(n));
    }
}

static void test_verify_api(void **state)
{
    kc_hl_verify_report rep;
    for (int n = 1; n <= 4; n++)
        for (int msb = 0; msb <= 1; msb++) {
            assert_int_equal(kc_hl_verify(n, msb, 0, 0, &rep, NULL, NULL), KC_OK);
            assert_true(rep.exhaustive);
            assert_int_equal(rep.checked, (1ULL << n) * gl_order(n));
            assert_int_equal(rep.failures, 0);
        }
    assert_int_equal(kc_hl_verify(9, 0, 25, 7, &rep, NULL, NULL), KC_OK);
    assert_false(rep.exhaustive);
    assert_int_equal(rep.checked, 25);
    assert_int_equal(rep.failures, 0);
}

static void test_engine_rejects_and_reports(void **state)
{
    uint32_t bad[4] = {0, 1, 1, 3};
    kc_hl_engine e;
    kc_err err = {0};
    assert_int_equal(kc_hl_engine_init(&e, 2, bad, 2, 0, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "twice"));
    /* a singular matrix is no permutation */
    kc_bitmat a;
    assert_int_equal(kc_bitmat_parse(&a, "10;10", 2, NULL), KC_OK);
    kc_lcc c;
    assert_int_equal(kc_lcc_init(&c, &a, 0, 0, NULL), KC_OK);
    uint32_t dst[4];
    assert_int_equal(kc_hl_perm_from_lcc(&c, dst, &err), KC_ESINGULAR);
    /* a permutation HL cannot route in SIMD: 0->0, and the rest rotated */
    uint32_t rot[8] = {0, 2, 3, 4, 5, 6, 7, 1};
    kc_hl_result res;
    assert_int_equal(kc_hl_route(3, rot, NULL, &res, NULL), KC_OK);
    assert_false(res.routed);
    assert_true(res.why[0] != '\0');
    assert_true(strchr(res.states, 'E') != NULL || strstr(res.why, "SIMD") || strstr(res.why, "destination"));
}

/* Outside HL's discipline the engine reports what goes wrong: error
 * states, a processor sending two tags (Lemma 4(a)), capacity overflow. */
static void test_engine_invariant_reports(void **state)
{
    kc_hl_engine e;
    /* Q_2: processor 0 sends tag 1 to processor 1, which keeps tag 0 */
    uint32_t p1[4] = {1, 0, 2, 3};
    assert_int_equal(kc_hl_engine_init(&e, 2, p1, 2, 0, NULL), KC_OK);
    int8_t s1[4] = {0, -1, -1, -1};
    assert_int_equal(kc_hl_engine_step_each(&e, s1), KC_OK);
    assert_int_equal(e.moved_last, 1);
    assert_int_equal(kc_hl_state(&e), 'E');           /* counts 0, 2, 1, 1 */
    assert_int_equal(kc_hl_state_sub(&e, 0, 1), 'B'); /* subcube {0, 1} */
    assert_int_equal(kc_hl_state_sub(&e, 2, 1), 'A'); /* subcube {2, 3} */
    kc_hl_engine_free(&e);

    /* processor 0 collects tags 3 and 2, then both disagree in bit 1 */
    uint32_t p2[4] = {3, 2, 0, 1};
    assert_int_equal(kc_hl_engine_init(&e, 2, p2, 4, 0, NULL), KC_OK);
    int8_t s2[4] = {-1, 0, -1, -1};
    assert_int_equal(kc_hl_engine_step_each(&e, s2), KC_OK);
    assert_int_equal(e.count[0], 2);
    int8_t s3[4] = {1, -1, -1, -1};
    assert_int_equal(kc_hl_engine_step_each(&e, s3), KC_OK);
    assert_int_equal(e.max_moved, 2); /* Lemma 4(a) would be violated */
    assert_int_equal(e.count[2], 3);
    assert_int_equal(kc_hl_state(&e), 'E');
    kc_hl_engine_free(&e);

    /* with capacity 1 a processor cannot take a second tag */
    uint32_t p3[8] = {2, 3, 0, 1, 4, 5, 6, 7};
    assert_int_equal(kc_hl_engine_init(&e, 3, p3, 1, 0, NULL), KC_OK);
    int8_t s4[8] = {1, -1, -1, -1, -1, -1, -1, -1}; /* 0 sends tag 2 to 2, which keeps 0 */
    assert_int_equal(kc_hl_engine_step_each(&e, s4), KC_ERANGE);
    assert_int_equal(e.overflow_at, 2);
    assert_int_equal(kc_hl_engine_step(&e, 1), KC_OK); /* the exchange itself fits */
    assert_int_equal(kc_hl_engine_step(&e, 0), KC_OK);
    assert_int_equal(kc_hl_engine_step(&e, 2), KC_OK);
    assert_true(kc_hl_routed(&e));
    kc_hl_engine_free(&e);
}

static void test_is_lc(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 11);
    uint32_t dst[64];
    for (int trial = 0; trial < 50; trial++) {
        kc_bitmat a, a2;
        uint64_t b, b2;
        kc_hl_random_lc(6, &r, &a, &b);
        kc_lcc c;
        assert_int_equal(kc_lcc_init(&c, &a, b, 0, NULL), KC_OK);
        assert_int_equal(kc_hl_perm_from_lcc(&c, dst, NULL), KC_OK);
        assert_true(kc_hl_is_lc(6, dst, &a2, &b2));
        assert_true(kc_bitmat_equal(&a, &a2) && b == b2);
        uint32_t t = dst[5];
        dst[5] = dst[9];
        dst[9] = t;
        assert_false(kc_hl_is_lc(6, dst, NULL, NULL));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure2_step_by_step),
        cmocka_unit_test(test_exhaustive_small),
        cmocka_unit_test(test_verify_api),
        cmocka_unit_test(test_engine_rejects_and_reports),
        cmocka_unit_test(test_engine_invariant_reports),
        cmocka_unit_test(test_is_lc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
