/* The stream loop (src/sim/stream.c) against the flit loop it stands in
 * for: on random configurations of buffer depth (1-16), VCs (1-3) sharing
 * links or not, route and switch delays (0-3), link latency (1-3), message
 * lengths (1-40, shorter and longer than the buffers), loads from light to
 * past saturation (compressed worms, lost link cycles), cubes, rings, tori
 * and meshes, both loops must give the same results cycle for cycle.
 * Driven runs compare every delivery cycle in delivery order; runs with a
 * load (Poisson, Bernoulli, one-shot, windows opening and closing with
 * worms in flight, per-link counts) compare every field of the result and
 * every delivery; rings that deadlock must stop alike. */
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

/* Driven runs: messages of random lengths sent at random cycles, some in
 * bursts; every delivery (id, cycle, order) must match. */
static void test_driven_same_deliveries(void **state)
{
    (void)state;
    for (int cfgi = 0; cfgi < 150; cfgi++) {
        kc_rng rng;
        kc_rng_seed(&rng, 7000 + (uint64_t)cfgi);
        kc_err err;
        kc_simnet net;
        kc_simroute route;
        kc_simconfig c;
        kc_simconfig_default(&c);
        kc_test_sim_random_deep_net(&rng, 4, &net, &route, &c);
        kc_simdrive *d[2];
        assert_int_equal(kci_simdrive_new_loop(&net, &route, &c, 1, &d[0], &err), KC_OK);
        assert_int_equal(kci_simdrive_new_loop(&net, &route, &c, 0, &d[1], &err), KC_OK);
        double rate = 0.002 + 0.12 * kc_rng_unit(&rng); /* messages per node per cycle */
        uint32_t maxlen = 1 + (uint32_t)kc_rng_below(&rng, 40), id = 0;
        int64_t send_until = 200 + (int64_t)kc_rng_below(&rng, 400);
        for (int64_t t = 0; t < 20000; t++) {
            if (t < send_until)
                for (uint32_t x = 0; x < net.nodes; x++)
                    if (kc_rng_unit(&rng) < rate) {
                        uint32_t dst = (uint32_t)kc_rng_below(&rng, net.nodes);
                        uint32_t len = 1 + (uint32_t)kc_rng_below(&rng, maxlen);
                        for (int i = 0; i < 2; i++)
                            assert_int_equal(kc_simdrive_send(d[i], x, dst, len, id, &err), KC_OK);
                        id++;
                    }
            const kc_simarrival *a[2];
            size_t na[2];
            for (int i = 0; i < 2; i++)
                assert_int_equal(kc_simdrive_step(d[i], &a[i], &na[i], &err), KC_OK);
            if (na[0] != na[1])
                fail_msg("configuration %d, cycle %lld: %zu deliveries (flit loop), %zu (stream)", cfgi,
                         (long long)t, na[0], na[1]);
            for (size_t j = 0; j < na[0]; j++)
                if (a[0][j].id != a[1][j].id || a[0][j].cycle != a[1][j].cycle)
                    fail_msg("configuration %d: delivery %zu of cycle %lld: message %u at %lld (flit loop), "
                             "%u at %lld (stream)", cfgi, j, (long long)t, a[0][j].id, (long long)a[0][j].cycle,
                             a[1][j].id, (long long)a[1][j].cycle);
            assert_int_equal(kc_simdrive_deadlock(d[0]), kc_simdrive_deadlock(d[1]));
            if (kc_simdrive_deadlock(d[0]) || (t >= send_until && !kc_simdrive_busy(d[0])))
                break;
            assert_int_equal(kc_simdrive_busy(d[0]), kc_simdrive_busy(d[1]));
        }
        kc_simresult r[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(kc_simdrive_finish(d[i], &r[i], &err), KC_OK);
        kc_test_sim_expect_same(&r[0], &r[1], net.net_channels / (uint32_t)net.vcs + 1, NULL, 0, NULL, 0,
                                "flit loop", "stream", cfgi);
        for (int i = 0; i < 2; i++) {
            kc_simresult_free(&r[i]);
            kc_simdrive_free(d[i]);
        }
        kc_simnet_free(&net);
    }
}

/* Runs with a load (and one-shot runs): every result field and every
 * delivery; message lengths up to 40, loads up to 0.7 flits per node and
 * cycle (past saturation on most). */
static void test_runs_same_results(void **state)
{
    (void)state;
    int busy = 0;
    for (int cfgi = 0; cfgi < 220; cfgi++) {
        kc_rng rng;
        kc_rng_seed(&rng, 9100 + (uint64_t)cfgi);
        kc_err err;
        kc_simnet net;
        kc_simroute route;
        kc_simconfig c;
        kc_simconfig_default(&c);
        kc_test_sim_random_deep_net(&rng, 4, &net, &route, &c);
        kc_simtraffic tr;
        kc_test_sim_random_load(&rng, &net, 3 + (uint64_t)cfgi, &(kc_test_sim_windows){200, 200, 400, 800, 1500}, &c,
                                &tr);
        c.msg_flits = 1 + (int)kc_rng_below(&rng, 40);
        c.load = 0.02 + 0.7 * kc_rng_unit(&rng);
        kc_simresult r[2];
        kc_simarrival *log[2];
        size_t nlog[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(kci_sim_run_par(&net, &route, &tr, &c, 1 - i, KC_SIM_PAR_NODES, &r[i], &log[i], &nlog[i],
                                             &err),
                             KC_OK);
        busy += r[0].messages > 0;
        kc_test_sim_expect_same(&r[0], &r[1], net.net_channels / (uint32_t)net.vcs + 1, log[0], nlog[0], log[1],
                                nlog[1], "flit loop", "stream", cfgi);
        for (int i = 0; i < 2; i++) {
            kc_simresult_free(&r[i]);
            free(log[i]);
        }
        kc_simtraffic_free(&tr);
        kc_simnet_free(&net);
    }
    assert_true(busy >= 150);
}

/* Rings with one VC and no VC rule deadlock: both loops must stop at the
 * same cycle with the same blocked cycle of channels and flit counts, on
 * deep buffers and slow routers too. */
static void test_deadlock_same(void **state)
{
    (void)state;
    int deadlocks = 0;
    for (int k = 4; k <= 9; k++)
        for (int len = 2; len <= 30; len += 7)
            for (int depth = 1; depth <= 9; depth += 4) {
                kc_err err;
                kc_simnet net;
                kc_simroute route;
                kc_simtraffic tr;
                kc_simconfig c;
                kc_test_sim_deadlock_ring(k, len, &net, &route, &tr, &c);
                kc_simnet_free(&net);
                assert_int_equal(kc_simnet_init(&net, KC_SIM_TORUS, k, 1, 1, 1, 1, depth, &err), KC_OK);
                c.switch_delay = depth % 3;
                c.link_latency = 1 + len % 2;
                kc_simresult r[2];
                for (int i = 0; i < 2; i++)
                    assert_int_equal(kci_sim_run_loop(&net, &route, &tr, &c, 1 - i, &r[i], &err), KC_OK);
                kc_test_sim_expect_same(&r[0], &r[1], net.net_channels + 1, NULL, 0, NULL, 0, "flit loop", "stream",
                                        k * 1000 + len * 10 + depth);
                deadlocks += r[0].deadlock;
                for (int i = 0; i < 2; i++)
                    kc_simresult_free(&r[i]);
                kc_simtraffic_free(&tr);
                kc_simnet_free(&net);
            }
    assert_true(deadlocks >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driven_same_deliveries),
        cmocka_unit_test(test_runs_same_results),
        cmocka_unit_test(test_deadlock_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
