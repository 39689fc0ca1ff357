/* CALMANT cost model (seed 003, Sections 3.3, 4.3, Appendix A.3): step
 * counts against generated schedules, the appendix's closed forms, the
 * time of a pipelined CC-cube and the best degree against brute force. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "kcube/calmant_cost.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"
#include "kcube/rng.h"

/* kc_calmant_steps is the generator's step count for every task. */
static void test_steps_match_generator(void **state)
{
    for (int c = 1; c <= 3; c++)
        for (int d = 2 * c; d <= 12; d += c) {
            kc_calmant g;
            assert_int_equal(kc_calmant_init(&g, d, c, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, NULL), KC_OK);
            for (int i = 0; i < d; i++)
                for (int m = 1; i + m <= d; m++) {
                    kc_calmant_sched s = {0};
                    assert_int_equal(kc_calmant_sched_task(&g, (kc_calmant_task){i, m}, &s, NULL), KC_OK);
                    assert_int_equal(s.steps, kc_calmant_steps(i, m, c));
                    if (c == 1)
                        assert_int_equal(s.steps, kc_calmant_lower_bound(i, m, 1));
                    kc_calmant_sched_free(&s);
                }
        }
}

/* Independent sum: every iteration from kc_calmant_iterations, its step
 * count from a generated schedule (d small) or kc_calmant_steps. */
static uint64_t brute_steps(int d, int c, int q, uint64_t *rho)
{
    kc_calmant_iter it[128];
    size_t n;
    assert_int_equal(kc_calmant_iterations(d, q, it, 128, &n, NULL), KC_OK);
    uint64_t s = 0;
    *rho = 0;
    for (size_t t = 0; t < n; t++) {
        s += kc_calmant_steps(it[t].task.i, it[t].task.m, c);
        *rho += kc_calmant_load_mesh(it[t].task.i, it[t].task.m, c);
    }
    return s;
}

/* Appendix A.3: the closed forms are the sum of rho_max over the
 * iterations, for lines (where that is the time) and meshes (a lower bound). */
static void test_closed_forms(void **state)
{
    kc_calmant_cost_params p = {.beta = 1, .tau = 0, .barrier = 0, .bytes = 1000};
    for (int c = 1; c <= 3; c++)
        for (int b = 2; b <= 8; b++) {
            int d = b * c;
            if (d > 24)
                continue;
            for (int q = 1; q <= 3 * d; q++) {
                uint64_t rho, s = brute_steps(d, c, q, &rho);
                kc_calmant_time t;
                assert_int_equal(kc_calmant_time_of(d, c, q, &p, &t, NULL), KC_OK);
                assert_int_equal(t.steps, s);
                assert_int_equal(t.rho_steps, rho);
                assert_int_equal(kc_calmant_closed_load(d, c, q), rho);
                assert_true(t.lb_steps >= rho && t.steps >= t.lb_steps);
                if (c == 1)
                    assert_int_equal(t.steps, rho);
            }
        }
}

static void test_time_and_best(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 5003);
    for (int trial = 0; trial < 40; trial++) {
        int c = 1 + (int)kc_rng_below(&rng, 3), d = c * (2 + (int)kc_rng_below(&rng, 3));
        kc_calmant_cost_params p = {.beta = (double)(1 + kc_rng_below(&rng, 5000)), .tau = 1,
                                    .barrier = (double)kc_rng_below(&rng, 200),
                                    .bytes = 1 + kc_rng_below(&rng, 4096)};
        int qmax = 3 * d;
        double best = INFINITY;
        int bestq = 0;
        for (int q = 1; q <= qmax; q++) {
            uint64_t rho, s = brute_steps(d, c, q, &rho);
            uint64_t L = (p.bytes + (uint64_t)q - 1) / (uint64_t)q;
            double t = (double)s * (p.beta + (double)L * p.tau) + (double)(d + q - 1) * p.barrier;
            kc_calmant_time got;
            assert_int_equal(kc_calmant_time_of(d, c, q, &p, &got, NULL), KC_OK);
            assert_int_equal(got.packet, L);
            assert_true(fabs(got.time - t) <= 1e-9 * t);
            if (t < best) {
                best = t;
                bestq = q;
            }
        }
        kc_calmant_time b;
        assert_int_equal(kc_calmant_best_degree(d, c, &p, qmax, &b, NULL), KC_OK);
        assert_int_equal(b.degree, bestq);
    }
    /* free start-ups favour deep pipelining; costly ones Q = 1 */
    kc_calmant_cost_params cheap = {.beta = 0, .tau = 1, .barrier = 0, .bytes = 64};
    kc_calmant_cost_params dear = {.beta = 1e9, .tau = 1, .barrier = 0, .bytes = 64};
    kc_calmant_time b;
    assert_int_equal(kc_calmant_best_degree(8, 2, &cheap, 0, &b, NULL), KC_OK);
    assert_true(b.degree > 8);
    assert_int_equal(kc_calmant_best_degree(8, 2, &dear, 0, &b, NULL), KC_OK);
    assert_int_equal(b.degree, 1);
    /* Q = 1 on a mesh: the unpipelined CC-cube, c (2^(d/c) - 1) steps (Section 2.3) */
    assert_int_equal(kc_calmant_time_of(12, 3, 1, &cheap, &b, NULL), KC_OK);
    assert_int_equal(b.steps, 3 * 15);
}

static void test_errors(void **state)
{
    kc_calmant_cost_params p = {.beta = 1, .tau = 1, .barrier = 0, .bytes = 16};
    kc_calmant_time t;
    kc_err err = {0};
    assert_int_equal(kc_calmant_time_of(7, 2, 1, &p, &t, &err), KC_EINVAL);
    assert_string_equal(err.param, "d");
    assert_int_equal(kc_calmant_time_of(8, 2, 0, &p, &t, &err), KC_EINVAL);
    assert_string_equal(err.param, "degree");
    p.bytes = 0;
    assert_int_equal(kc_calmant_time_of(8, 2, 1, &p, &t, &err), KC_EINVAL);
    assert_string_equal(err.param, "bytes");
    p.bytes = 16;
    p.beta = -1;
    assert_int_equal(kc_calmant_time_of(8, 2, 1, &p, &t, &err), KC_EINVAL);
    assert_string_equal(err.param, "startup");
    assert_int_equal(kc_calmant_closed_load(30, 1, 1 << 21), UINT64_MAX);
    assert_int_equal(kc_calmant_closed_load(8, 2, 0), UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_match_generator),
        cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_time_and_best),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
