/* The stream loop (src/sim/stream.c) against the flit loop it stands in
 * for: on random configurations of buffer depth (1-16), VCs (1-3) sharing
 * links or not, route and switch delays (0-3), link latency (1-3), message
 * lengths (1-40, shorter and longer than the buffers), loads from light to
 * past saturation (compressed worms, lost link cycles), cubes, rings, tori
 * and meshes, both loops must give the same results cycle for cycle.
 * Driven runs compare every delivery cycle in delivery order; runs with a
 * load (Poisson, Bernoulli, one-shot, windows opening and closing with
 * worms in flight, per-link counts) compare every field of the result and
 * every delivery, on one thread and with the allocation split among
 * threads; rings that deadlock must stop alike; bursts of long
 * messages with idle stretches skipped between them must deliver alike. */
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
 * bursts, on random configuration cfgi; every delivery (id, cycle, order)
 * must match. */
static void drive_pair(int cfgi)
{
    kc_rng rng;
    kc_simnet net;
    kc_simroute route;
    kc_simconfig c;
    kc_test_sim_random_setup(&rng, 7000 + (uint64_t)cfgi, 1, 4, &net, &route, &c);
    assert_true(kc_test_sim_drive_pair(&rng, &net, &route, &c, 0.12, "stream", cfgi));
    kc_simnet_free(&net);
}

static void test_driven_same_deliveries(void **state)
{
    (void)state;
    for (int cfgi = 0; cfgi < 400; cfgi++)
        drive_pair(cfgi);
}

/* A run with a load (or a one-shot run) on random configuration cfgi,
 * both loops: every result field and every delivery; message lengths up to
 * 40, loads up to 0.7 flits per node and cycle (past saturation on most).
 * threads > 1: the stream loop's allocation split into that many node
 * ranges however small the network. Returns 1 when measured messages were
 * delivered. */
static int run_pair(int cfgi, int threads)
{
    kc_rng rng;
    kc_err err;
    kc_simnet net;
    kc_simroute route;
    kc_simconfig c;
    kc_test_sim_random_setup(&rng, 9100 + (uint64_t)cfgi, 1, 4, &net, &route, &c);
    kc_simtraffic tr;
    kc_test_sim_random_load(&rng, &net, 3 + (uint64_t)cfgi, &(kc_test_sim_windows){200, 200, 400, 800, 1500}, &c, &tr);
    c.msg_flits = 1 + (int)kc_rng_below(&rng, 40);
    c.load = 0.02 + 0.7 * kc_rng_unit(&rng);
    kc_simresult r[2];
    kc_simarrival *log[2];
    size_t nlog[2];
    for (int i = 0; i < 2; i++) {
        c.threads = i ? threads : 1;
        assert_int_equal(kci_sim_run_par(&net, &route, &tr, &c, 1 - i, threads > 1 && i ? 1 : KC_SIM_PAR_NODES, &r[i],
                                         &log[i], &nlog[i], &err),
                         KC_OK);
    }
    int busy = r[0].messages > 0;
    kc_test_sim_expect_same(&r[0], &r[1], net.net_channels / (uint32_t)net.vcs + 1, log[0], nlog[0], log[1], nlog[1],
                            "flit loop", "stream", cfgi);
    for (int i = 0; i < 2; i++) {
        kc_simresult_free(&r[i]);
        free(log[i]);
    }
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
    return busy;
}

static void test_runs_same_results(void **state)
{
    (void)state;
    int busy = 0;
    for (int cfgi = 0; cfgi < 800; cfgi++)
        busy += run_pair(cfgi, 1);
    assert_true(busy >= 550);
}

/* The same with the stream loop's header allocation split among 2-4
 * threads by node range: results identical to the flit loop's (so to one
 * thread's). */
static void test_split_same_results(void **state)
{
    (void)state;
    int busy = 0;
    for (int cfgi = 0; cfgi < 300; cfgi++)
        busy += run_pair(cfgi, 2 + cfgi % 3);
    assert_true(busy >= 200);
}

/* Rings with one VC and no VC rule (they deadlock) of 4-9 nodes, messages
 * of 2-30 flits, buffers of 1, 5 and 9 flits, switch delay depth mod 3,
 * link latency 1 + len mod 2: both loops must stop alike. */
static void test_deadlock_same(void **state)
{
    (void)state;
    int deadlocks = 0;
    for (int i = 0; i < 6 * 5 * 3; i++) {
        int k = 4 + i % 6, len = 2 + 7 * (i / 6 % 5), depth = 1 + 4 * (i / 30);
        deadlocks += kc_test_sim_ring_pair(k, len, depth, depth % 3, 1 + len % 2, "stream", k * 1000 + len * 10 + depth);
    }
    assert_true(deadlocks >= 10);
}

/* Headers that wait longer than a hop record's shift holds
 * (KCI_SHIFT_MAX cycles): on a 3-cube with 4-flit buffers and 2 shared
 * VCs, every other node sends one message of len flits to node 0 at cycle
 * 0, so the last of them waits about 6 x len cycles packed; a worm whose
 * wait is too long for its record moves on flit by flit. Every delivery
 * cycle must match the flit loop's. */
static void long_wait_pair(uint32_t len, int route_delay)
{
    kc_err err;
    kc_simnet net;
    kc_simconfig c;
    kc_simconfig_default(&c);
    assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 3, 2, 1, 1, 4, &err), KC_OK);
    kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    c.vc_independent = 0;
    c.route_delay = route_delay;
    kc_simdrive *d[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(kci_simdrive_new_loop(&net, &route, &c, 1 - i, &d[i], &err), KC_OK);
        for (uint32_t x = 1; x < net.nodes; x++)
            assert_int_equal(kc_simdrive_send(d[i], x, 0, len, x, &err), KC_OK);
    }
    uint32_t delivered = 0;
    for (int64_t t = 0; kc_simdrive_busy(d[0]); t++) {
        delivered += (uint32_t)kc_test_sim_step_pair(d, t, "stream", (int)len);
        assert_int_equal(kc_simdrive_busy(d[0]), kc_simdrive_busy(d[1]));
    }
    assert_int_equal(delivered, net.nodes - 1);
    for (int i = 0; i < 2; i++)
        kc_simdrive_free(d[i]);
    kc_simnet_free(&net);
}

static void test_long_waits_same(void **state)
{
    (void)state;
    long_wait_pair(14000, 0); /* waits up to about 84,000 cycles */
    long_wait_pair(9000, 2);  /* about 54,000: under the limit */
}

/* Bursts of long messages (41-300 flits, so that tails leave hops and
 * headers fill buffers more than KCI_SWHEEL cycles ahead: the stream
 * loop's wheel entries come back for later turns) with idle stretches
 * skipped between them (kc_simdrive_skip: entries left from before a skip
 * must not wake anything after it), on random configuration cfgi: every
 * delivery must match the flit loop's. */
static void long_burst_pair(int cfgi)
{
    kc_rng rng;
    kc_err err;
    kc_simnet net;
    kc_simroute route;
    kc_simconfig c;
    kc_test_sim_random_setup(&rng, 12000 + (uint64_t)cfgi, 1, 3, &net, &route, &c);
    kc_simdrive *d[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(kci_simdrive_new_loop(&net, &route, &c, 1 - i, &d[i], &err), KC_OK);
    uint32_t id = 0, delivered = 0;
    int64_t t = 0;
    for (int burst = 0; burst < 3 && !kc_simdrive_deadlock(d[0]); burst++) {
        for (uint32_t x = 0; x < net.nodes; x++)
            if (kc_rng_below(&rng, 3) == 0) {
                uint32_t dst = (uint32_t)kc_rng_below(&rng, net.nodes), len = 41 + (uint32_t)kc_rng_below(&rng, 260);
                for (int i = 0; i < 2; i++)
                    assert_int_equal(kc_simdrive_send(d[i], x, dst, len, id, &err), KC_OK);
                id++;
            }
        for (; kc_simdrive_busy(d[0]) && !kc_simdrive_deadlock(d[0]); t++) {
            delivered += (uint32_t)kc_test_sim_step_pair(d, t, "stream", cfgi);
            assert_int_equal(kc_simdrive_busy(d[0]), kc_simdrive_busy(d[1]));
        }
        t += 1 + (int64_t)kc_rng_below(&rng, 3000);
        for (int i = 0; i < 2 && !kc_simdrive_deadlock(d[0]); i++)
            assert_int_equal(kc_simdrive_skip(d[i], t, &err), KC_OK);
    }
    assert_int_equal(kc_simdrive_deadlock(d[0]), kc_simdrive_deadlock(d[1]));
    assert_true(delivered > 0 || kc_simdrive_deadlock(d[0]));
    for (int i = 0; i < 2; i++)
        kc_simdrive_free(d[i]);
    kc_simnet_free(&net);
}

static void test_long_bursts_same(void **state)
{
    (void)state;
    for (int cfgi = 0; cfgi < 60; cfgi++)
        long_burst_pair(cfgi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driven_same_deliveries),
        cmocka_unit_test(test_runs_same_results),
        cmocka_unit_test(test_split_same_results),
        cmocka_unit_test(test_deadlock_same),
        cmocka_unit_test(test_long_waits_same),
        cmocka_unit_test(test_long_bursts_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
