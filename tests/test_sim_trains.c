/* The worm-level loop (trains, src/sim/trains.c) against the flit-by-flit
 * loop it replaces in the default model: on random configurations (cube,
 * torus and mesh sizes, routings, VC rules, injection and ejection ports,
 * route delays, message lengths, loads, patterns, seeds) both loops must
 * give the same results cycle for cycle. Driven runs compare every
 * message's delivery cycle, in delivery order; runs with a load (Poisson,
 * Bernoulli, one-shot, with per-link counts) compare every field of the
 * result, per-link flit counts included; rings that deadlock must stop
 * alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/rng.h"
#include "kcube/sim.h"
#include "sim/sim_internal.h"
#include "sim_random.h"

static void expect_same_result(const kc_simresult *a, const kc_simresult *b, size_t links, int cfg)
{
    kc_test_sim_expect_same(a, b, links, NULL, 0, NULL, 0, "flit loop", "trains", cfg);
}

/* Driven runs: messages of random lengths sent at random cycles, some in
 * bursts; every delivery (id, cycle, order) must match. */
static void test_driven_same_deliveries(void **state)
{
    (void)state;
    for (int cfgi = 0; cfgi < 120; cfgi++) {
        kc_rng rng;
        kc_simnet net;
        kc_simroute route;
        kc_simconfig c;
        kc_test_sim_random_setup(&rng, 500 + (uint64_t)cfgi, 0, 4, &net, &route, &c);
        assert_true(kci_sim_trains(&net, &c));
        assert_true(kc_test_sim_drive_pair(&rng, &net, &route, &c, 0.1, "trains", cfgi));
        kc_simnet_free(&net);
    }
}

/* Runs with a load (and one-shot runs): every result field. */
static void test_runs_same_results(void **state)
{
    (void)state;
    int busy = 0; /* configurations that delivered measured messages (not all: some give up early) */
    for (int cfgi = 0; cfgi < 120; cfgi++) {
        kc_rng rng;
        kc_rng_seed(&rng, 900 + (uint64_t)cfgi);
        kc_err err;
        kc_simnet net;
        kc_simroute route;
        kc_simconfig c;
        kc_simconfig_default(&c);
        kc_test_sim_random_net(&rng, 4, &net, &route, &c);
        kc_simtraffic tr;
        kc_test_sim_random_load(&rng, &net, 3 + (uint64_t)cfgi, &(kc_test_sim_windows){200, 200, 500, 1000, 2000}, &c,
                                &tr);
        assert_true(kci_sim_trains(&net, &c));
        kc_simresult r[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(kci_sim_run_loop(&net, &route, &tr, &c, 1 - i, &r[i], &err), KC_OK);
        busy += r[0].messages > 0;
        expect_same_result(&r[0], &r[1], net.net_channels / (uint32_t)net.vcs + 1, cfgi);
        for (int i = 0; i < 2; i++)
            kc_simresult_free(&r[i]);
        kc_simtraffic_free(&tr);
        kc_simnet_free(&net);
    }
    assert_true(busy >= 80);
}

/* Rings with one VC and no VC rule deadlock: both loops must stop at the
 * same cycle with the same blocked cycle of channels and flit counts. */
static void test_deadlock_same(void **state)
{
    (void)state;
    int deadlocks = 0;
    for (int k = 4; k <= 9; k++)
        for (int len = 2; len <= 30; len += 7)
            deadlocks += kc_test_sim_ring_pair(k, len, 1, 0, 1, "trains", k * 100 + len);
    assert_true(deadlocks >= 10);
}

/* Where the trains do not apply (deeper buffers, slower links, VCs taking
 * turns), the public calls keep the flit loop. */
static void test_trains_scope(void **state)
{
    (void)state;
    kc_err err;
    kc_simnet net;
    kc_simconfig c;
    kc_simconfig_default(&c);
    assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 4, 1, 1, 1, 1, &err), KC_OK);
    assert_true(kci_sim_trains(&net, &c));
    c.route_delay = 2;
    assert_true(kci_sim_trains(&net, &c));
    c.switch_delay = 1;
    assert_false(kci_sim_trains(&net, &c));
    c.switch_delay = 0;
    c.link_latency = 2;
    assert_false(kci_sim_trains(&net, &c));
    kc_simnet_free(&net);
    kc_simconfig_default(&c);
    assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 4, 1, 1, 1, 2, &err), KC_OK);
    assert_false(kci_sim_trains(&net, &c));
    kc_simnet_free(&net);
    assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 4, 2, 1, 1, 1, &err), KC_OK);
    assert_false(kci_sim_trains(&net, &c)); /* the cube's VCs share a link by default */
    c.vc_independent = 1;
    assert_true(kci_sim_trains(&net, &c));
    kc_simnet_free(&net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driven_same_deliveries),
        cmocka_unit_test(test_runs_same_results),
        cmocka_unit_test(test_deadlock_same),
        cmocka_unit_test(test_trains_scope),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
