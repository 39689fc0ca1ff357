/* The LogGOPS model's result does not depend on its event queue: seeded
 * random schedules (messages between random ranks, some above S, calcs,
 * per-rank chains with now and then an `irequires`, several CPUs and NICs)
 * run with the queue's buckets kept throughout, replaced by the heap from
 * the start, and switched after a few events give the same makespan, every
 * rank's finish, and the same counts of events, messages and rendezvous.
 * Synchronous rounds (every rank sends at once) make many events share a
 * time; random gaps make few. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "kcube/goal.h"
#include "kcube/loggops.h"
#include "kcube/rng.h"
#include "replay/replay_internal.h"

/* Append op on rank r after the rank's last (irequires with probability
 * 1/8); *last tracks each rank's last op. */
static void chain(kc_goal *g, kc_rng *rng, size_t *last, uint32_t r, size_t op)
{
    kc_err err = {0};
    if (last[r] != KC_GOAL_NONE)
        assert_int_equal(kc_goal_depend(g, op, last[r], kc_rng_below(rng, 8) == 0, 0, &err), KC_OK);
    last[r] = op;
}

/* A random schedule of R ranks: `steps` messages or calcs, or synchronous
 * rounds when sync (each rank sends to rank + 1 and receives from rank - 1).
 * No rank sends to itself: its rendezvous send would wait for a receive
 * that waits for it. */
static void build(kc_goal *g, kc_rng *rng, uint32_t R, size_t steps, int sync)
{
    kc_err err = {0};
    assert_int_equal(kc_goal_init(g, R, &err), KC_OK);
    size_t *last = malloc(R * sizeof *last), op;
    assert_non_null(last);
    for (uint32_t r = 0; r < R; r++)
        last[r] = KC_GOAL_NONE;
    for (size_t s = 0; s < steps; s++) {
        uint32_t a = (uint32_t)kc_rng_below(rng, R), b = (a + 1 + (uint32_t)kc_rng_below(rng, R - 1)) % R;
        uint64_t bytes = 1 + kc_rng_below(rng, 4096);
        if (sync) {
            a = (uint32_t)(s % R), b = (a + 1) % R, bytes = 512;
        } else if (kc_rng_below(rng, 4) == 0) {
            assert_int_equal(kc_goal_add(g, KC_GOAL_CALC, a, 0, 0, kc_rng_below(rng, 5000), NULL, 0, &op, &err), KC_OK);
            g->op[op].cpu = (uint8_t)kc_rng_below(rng, 2);
            chain(g, rng, last, a, op);
            continue;
        }
        assert_int_equal(kc_goal_add(g, KC_GOAL_SEND, a, b, 0, bytes, NULL, 0, &op, &err), KC_OK);
        g->op[op].nic = (uint8_t)kc_rng_below(rng, 2);
        chain(g, rng, last, a, op);
        assert_int_equal(kc_goal_add(g, KC_GOAL_RECV, b, a, 0, bytes, NULL, 0, &op, &err), KC_OK);
        chain(g, rng, last, b, op);
    }
    free(last);
}

static void same_result(const kc_goal *g, const kc_loggops_params *p)
{
    kc_err err = {0};
    kc_loggops_result r[3];
    size_t after[3] = {SIZE_MAX, 0, 7};
    for (int i = 0; i < 3; i++)
        assert_int_equal(kci_loggops_run_switch(g, p, after[i], &r[i], &err), KC_OK);
    for (int i = 1; i < 3; i++) {
        assert_true(r[i].makespan_ns == r[0].makespan_ns);
        assert_true(r[i].events == r[0].events && r[i].messages == r[0].messages);
        assert_true(r[i].rendezvous == r[0].rendezvous);
        for (uint32_t k = 0; k < g->num_ranks; k++)
            assert_true(r[i].finish_ns[k] == r[0].finish_ns[k]);
    }
    for (int i = 0; i < 3; i++)
        kc_loggops_result_free(&r[i]);
}

static void test_queue_does_not_matter(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 5150);
    const kc_loggops_params ps[] = {KC_LOGGOPS_PARAMS_DEFAULT,
                                    {1000, 200, 300, 2, 1, 256},
                                    {100, 0, 0, 0, 0, KC_LOGGOPS_S_INF}};
    for (int round = 0; round < 24; round++) {
        kc_goal g;
        build(&g, &rng, 2 + (uint32_t)kc_rng_below(&rng, 30), 200 + kc_rng_below(&rng, 3000), round % 3 == 0);
        for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
            same_result(&g, &ps[i]);
        kc_goal_free(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_does_not_matter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
