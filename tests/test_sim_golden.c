/* The engine's results on runs with a load must not move when the engine
 * is made faster. The reference simulator (test_sim_ref) only knows one-shot
 * workloads, so generation (Poisson and Bernoulli), the measurement window
 * and the drain are pinned here instead: seeded random configurations
 * (networks, routings, VC modes, depths, delays, message lengths, loads,
 * patterns) whose figures were printed by the engine before it was
 * made faster (commit e5ce237, this file built with -DGOLDEN_PRINT against that
 * library) and must be reproduced exactly: messages measured, the exact sum
 * of their latencies and network latencies, p99, link traversals, flits
 * delivered, cycles run and the source queue at the window's end. Equal
 * latency sums and counts over thousands of messages leave no room for a
 * message to arrive at a different cycle unnoticed. */
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

typedef struct golden {
    uint64_t messages;
    double lat_sum, net_sum; /* latency_avg and network_latency_avg times messages */
    uint32_t p99;
    uint64_t traversals, delivered;
    int64_t cycles;
    double queue_avg;
} golden;

#define NGOLDEN 36

/* Configuration i, drawn from a generator seeded with i. */
static golden run_config(int i)
{
    kc_rng rng;
    kc_rng_seed(&rng, 1000 + (uint64_t)i);
    kc_err err;
    kc_simnet net;
    kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    int kind = i % 6, depth = 1 + (int)kc_rng_below(&rng, 3) / 2; /* mostly depth 1 */
    int k = 2, n = 4 + (int)kc_rng_below(&rng, 3), vcs = 1;
    kc_simtopo topo = KC_SIM_HYPERCUBE;
    switch (kind) {
    case 0:
        break;
    case 1:
        route.algo = KC_ROUTE_PCUBE;
        break;
    case 2:
        route.algo = KC_ROUTE_DUATO;
        vcs = 2;
        break;
    case 3:
        topo = KC_SIM_TORUS, k = 3 + (int)kc_rng_below(&rng, 3), n = 2, vcs = 2;
        route = (kc_simroute){KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_TIE_PLUS};
        break;
    case 4:
        topo = KC_SIM_TORUS, k = 4, n = 2 + (int)kc_rng_below(&rng, 2), vcs = 2;
        route = (kc_simroute){KC_ROUTE_DOR, KC_VC_DATELINE, KC_TIE_PLUS};
        break;
    default:
        topo = KC_SIM_MESH, k = 3 + (int)kc_rng_below(&rng, 3), n = 2, vcs = 1 + (int)kc_rng_below(&rng, 2);
        route = (kc_simroute){KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS};
        break;
    }
    int inj = 1 + (int)kc_rng_below(&rng, 4) / 3;
    assert_int_equal(kc_simnet_init(&net, topo, k, n, vcs, inj, 1, depth, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.msg_flits = 1 + (int)kc_rng_below(&rng, 24);
    c.load = 0.02 + 0.5 * kc_rng_unit(&rng);
    c.process = kc_rng_below(&rng, 4) ? KC_INJECT_POISSON : KC_INJECT_BERNOULLI;
    c.route_delay = (int)kc_rng_below(&rng, 4) / 3;
    c.switch_delay = (int)kc_rng_below(&rng, 4) / 3;
    c.link_latency = 1 + (int)kc_rng_below(&rng, 4) / 3;
    c.vc_independent = (int)kc_rng_below(&rng, 3) - 1;
    c.seed = 7 + (uint64_t)i;
    c.warmup = 300;
    c.measure = 1500;
    c.drain = 3000;
    kc_simtraffic tr;
    if (topo == KC_SIM_HYPERCUBE && kc_rng_below(&rng, 2))
        assert_int_equal(kc_simtraffic_digits(&tr, 2, n, n % 2 ? "bit-reverse" : "transpose", NULL, &err), KC_OK);
    else
        assert_int_equal(kc_simtraffic_uniform(&tr, net.nodes, NULL, &err), KC_OK);
    kc_simresult res;
    assert_int_equal(kc_sim_run(&net, &route, &tr, &c, &res, &err), KC_OK);
    golden g = {res.messages,
                res.latency_avg * (double)res.messages,
                res.network_latency_avg * (double)res.messages,
                (uint32_t)res.latency_p99,
                res.link_traversals,
                res.flits_delivered,
                res.cycles,
                res.queue_avg};
    kc_simresult_free(&res);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
    return g;
}

#ifdef GOLDEN_PRINT
int main(void)
{
    for (int i = 0; i < NGOLDEN; i++) {
        golden g = run_config(i);
        printf("    {%llu, %a, %a, %u, %llu, %llu, %lld, %a},\n", (unsigned long long)g.messages, g.lat_sum,
               g.net_sum, g.p99, (unsigned long long)g.traversals, (unsigned long long)g.delivered,
               (long long)g.cycles, g.queue_avg);
    }
    return 0;
}
#else
static const golden expected[NGOLDEN] = {
#include "sim_golden.inc"
};

static void test_engine_unchanged(void **state)
{
    (void)state;
    for (int i = 0; i < NGOLDEN; i++) {
        golden g = run_config(i), x = expected[i];
        if (g.messages != x.messages || g.lat_sum != x.lat_sum || g.net_sum != x.net_sum || g.p99 != x.p99 ||
            g.traversals != x.traversals || g.delivered != x.delivered || g.cycles != x.cycles ||
            g.queue_avg != x.queue_avg)
            fail_msg("configuration %d: %llu messages, latency sum %.1f, net %.1f, p99 %u, %llu traversals, "
                     "%llu delivered, %lld cycles; expected %llu, %.1f, %.1f, %u, %llu, %llu, %lld",
                     i, (unsigned long long)g.messages, g.lat_sum, g.net_sum, g.p99,
                     (unsigned long long)g.traversals, (unsigned long long)g.delivered, (long long)g.cycles,
                     (unsigned long long)x.messages, x.lat_sum, x.net_sum, x.p99,
                     (unsigned long long)x.traversals, (unsigned long long)x.delivered, (long long)x.cycles);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
