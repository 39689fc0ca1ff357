/* The engine against the plain reference simulator (kcube/simref.h), which
 * keeps every flit as an object with its position on its worm's path and
 * scans all messages and flits every cycle; it implements the same rules
 * (docs/sim.md) from scratch: FIFO source queues, injection in node order,
 * first-come allocation, one flit per channel and per physical link per
 * cycle, release when the tail leaves a buffer, the timing knobs. On
 * random small one-shot workloads (several messages per source, random
 * lengths, depths, delays, networks and routings) the completion time,
 * average and p99 latency and link traversals must agree exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/rng.h"
#include "kcube/sim.h"
#include "kcube/simref.h"

static void compare_random(kc_rng *rng, kc_simtopo topo, int k, int n, int vcs, kc_simroute route)
{
    kc_err err;
    int depth = 1 + (int)kc_rng_below(rng, 3);
    int inj = 1 + (int)kc_rng_below(rng, 2), ej = 1 + (int)kc_rng_below(rng, 2);
    kc_simnet net;
    assert_int_equal(kc_simnet_init(&net, topo, k, n, vcs, inj, ej, depth, &err), KC_OK);
    int count = (int)net.nodes * (1 + (int)kc_rng_below(rng, 3));
    uint32_t *s = malloc((size_t)count * sizeof *s), *d = malloc((size_t)count * sizeof *d);
    for (int i = 0; i < count; i++) {
        s[i] = (uint32_t)kc_rng_below(rng, net.nodes);
        d[i] = (uint32_t)kc_rng_below(rng, net.nodes);
    }
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    c.msg_flits = 1 + (int)kc_rng_below(rng, 24);
    c.route_delay = (int)kc_rng_below(rng, 3);
    c.switch_delay = (int)kc_rng_below(rng, 2);
    c.link_latency = 1 + (int)kc_rng_below(rng, 2);
    c.vc_independent = (int)kc_rng_below(rng, 2);
    kc_simtraffic tr;
    assert_int_equal(kc_simtraffic_pairs(&tr, net.nodes, s, d, (size_t)count, NULL, &err), KC_OK);
    kc_simresult res;
    assert_int_equal(kc_sim_run(&net, &route, &tr, &c, &res, &err), KC_OK);
    assert_false(res.deadlock);
    kc_simref_result ref;
    assert_int_equal(kc_simref_run(&net, &route, s, d, (size_t)count, &c, &ref, &err), KC_OK);
    assert_int_equal(res.completion, ref.completion);
    assert_int_equal(res.messages, ref.messages);
    assert_true(res.latency_avg == ref.latency_avg);
    assert_int_equal((uint32_t)res.latency_p99, ref.latency_p99);
    assert_int_equal(res.link_traversals, ref.link_traversals);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
    free(s);
    free(d);
}

/* The reference reports a deadlock too. */
static void test_reference_deadlock(void **state)
{
    (void)state;
    kc_err err;
    kc_simnet net;
    assert_int_equal(kc_simnet_init(&net, KC_SIM_TORUS, 4, 1, 1, 1, 1, 1, &err), KC_OK);
    kc_simroute r = {KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS};
    uint32_t s[4] = {0, 1, 2, 3}, d[4] = {2, 3, 0, 1};
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.watchdog = 20;
    kc_simref_result ref;
    assert_int_equal(kc_simref_run(&net, &r, s, d, 4, &c, &ref, &err), KC_EINVAL);
    kc_simnet_free(&net);
}

static void test_engine_matches_reference(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 4242);
    kc_simroute ec = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS}, pc = {KC_ROUTE_PCUBE, KC_VC_NONE, KC_TIE_PLUS},
                du = {KC_ROUTE_DUATO, KC_VC_NONE, KC_TIE_PLUS}, hl = {KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_TIE_PLUS},
                dl = {KC_ROUTE_DOR, KC_VC_DATELINE, KC_TIE_PLUS}, me = {KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS};
    for (int t = 0; t < 40; t++) {
        compare_random(&rng, KC_SIM_HYPERCUBE, 2, 3 + t % 4, 1, ec);
        compare_random(&rng, KC_SIM_HYPERCUBE, 2, 3 + t % 3, 1 + t % 2, pc);
        compare_random(&rng, KC_SIM_HYPERCUBE, 2, 3 + t % 3, 2 + t % 2, du);
        compare_random(&rng, KC_SIM_TORUS, 3 + t % 3, 2, 2, hl);
        compare_random(&rng, KC_SIM_TORUS, 4, 2, 2, dl);
        compare_random(&rng, KC_SIM_MESH, 3 + t % 2, 2, 1 + t % 2, me);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_matches_reference),
        cmocka_unit_test(test_reference_deadlock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
