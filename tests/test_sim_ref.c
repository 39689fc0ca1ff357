/* The engine against the plain reference simulator (kcube/simref.h), which
 * keeps every flit as an object with its position on its worm's path and
 * scans all messages and flits every cycle; it implements the same rules
 * (docs/sim.md) from scratch: FIFO source queues, injection in node order,
 * first-come allocation, one flit per channel and per physical link per
 * cycle, release when the tail leaves a buffer, the timing knobs. On
 * random small one-shot workloads (several messages per source, random
 * lengths, depths, delays, networks and routings) the completion time,
 * average and p99 latency and link traversals must agree exactly; also on
 * random general networks (mixed sides, mixed wraps, several endpoints
 * per router, allocations). */
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
#include "kcube/simtraffic.h"
#include "kcube/topology.h"

/* A one-shot configuration with random message length (1..max_flits)
 * and timing. */
static void random_timing(kc_rng *rng, kc_simconfig *c, int max_flits)
{
    kc_simconfig_default(c);
    c->oneshot = 1;
    c->msg_flits = 1 + (int)kc_rng_below(rng, (uint64_t)max_flits);
    c->route_delay = (int)kc_rng_below(rng, 3);
    c->switch_delay = (int)kc_rng_below(rng, 2);
    c->link_latency = 1 + (int)kc_rng_below(rng, 2);
    c->vc_independent = (int)kc_rng_below(rng, 2);
}

/* The engine on tr and the reference on the (s, d) pairs agree exactly. */
static void expect_agree(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *tr, const uint32_t *s,
                         const uint32_t *d, size_t count, const kc_simconfig *c)
{
    kc_err err;
    kc_simresult res;
    assert_int_equal(kc_sim_run(net, route, tr, c, &res, &err), KC_OK);
    assert_false(res.deadlock);
    kc_simref_result ref;
    assert_int_equal(kc_simref_run(net, route, s, d, count, c, &ref, &err), KC_OK);
    assert_int_equal(res.completion, ref.completion);
    assert_int_equal(res.messages, ref.messages);
    assert_true(res.latency_avg == ref.latency_avg);
    assert_int_equal((uint32_t)res.latency_p99, ref.latency_p99);
    assert_int_equal(res.link_traversals, ref.link_traversals);
    kc_simresult_free(&res);
}

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
    random_timing(rng, &c, 24);
    kc_simtraffic tr;
    assert_int_equal(kc_simtraffic_pairs(&tr, net.nodes, s, d, (size_t)count, NULL, &err), KC_OK);
    expect_agree(&net, &route, &tr, s, d, (size_t)count, &c);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
    free(s);
    free(d);
}

/* A random general network: 1..3 axes of sides 2..5, a random wrap mask,
 * 1..3 endpoints per router, and half the time an allocation of a random
 * subset of the routers in random order. alloc must hold nodes entries. */
static void random_topology(kc_rng *rng, kc_topology *t, uint32_t *alloc)
{
    kc_err err;
    int n = 1 + (int)kc_rng_below(rng, 3), sides[3];
    for (int d = 0; d < n; d++)
        sides[d] = 2 + (int)kc_rng_below(rng, 4);
    assert_int_equal(kc_topology_shape(t, KC_TOPO_MESH, sides, n, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_set_wrap(t, kc_rng_below(rng, UINT64_C(1) << n), &err), KC_OK);
    t->tie = (kc_tie)kc_rng_below(rng, 3);
    assert_int_equal(kc_topology_set_endpoints(t, 1 + (int)kc_rng_below(rng, 3), &err), KC_OK);
    if (kc_rng_below(rng, 2)) {
        uint32_t m = 1 + (uint32_t)kc_rng_below(rng, t->nodes);
        for (uint32_t i = 0; i < t->nodes; i++)
            alloc[i] = i;
        for (uint32_t i = 0; i < m; i++) { /* a random m-subset in random order */
            uint32_t j = i + (uint32_t)kc_rng_below(rng, t->nodes - i), x = alloc[i];
            alloc[i] = alloc[j];
            alloc[j] = x;
        }
        assert_int_equal(kc_topology_set_alloc(t, alloc, m, &err), KC_OK);
    }
}

/* A deadlock-free routing the network accepts: dor with a VC rule on
 * rings, or Duato's with dor as its escape. */
static kc_simroute random_route(kc_rng *rng, const kc_simnet *probe, int *vcs)
{
    kc_simroute r = {KC_ROUTE_DOR, KC_VC_NONE, probe->topo == KC_SIM_TORUS ? KC_TIE_SPLIT : KC_TIE_PLUS};
    *vcs = 1 + (int)kc_rng_below(rng, 2);
    if (probe->topo == KC_SIM_TORUS) {
        r.vcrule = kc_rng_below(rng, 2) ? KC_VC_HIGHLOW : KC_VC_DATELINE;
        *vcs = 2;
    }
    if (probe->topo != KC_SIM_HYPERCUBE && kc_rng_below(rng, 3) == 0) {
        r.algo = KC_ROUTE_DUATO;
        *vcs = probe->topo == KC_SIM_TORUS ? 3 : 2 + (int)kc_rng_below(rng, 2);
    } else if (probe->topo == KC_SIM_HYPERCUBE) {
        r = (kc_simroute){KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    }
    return r;
}

/* Engine against reference on one random general network: ranks sent to
 * random ranks (same-router pairs included), one-shot. */
static void compare_general(kc_rng *rng)
{
    kc_err err;
    kc_topology t;
    uint32_t alloc[125];
    random_topology(rng, &t, alloc);
    kc_simnet probe, net;
    assert_int_equal(kc_simnet_from_topology(&probe, &t, 1, 1, 1, 1, &err), KC_OK);
    int vcs;
    kc_simroute route = random_route(rng, &probe, &vcs);
    kc_simnet_free(&probe);
    assert_int_equal(kc_simnet_from_topology(&net, &t, vcs, 1 + (int)kc_rng_below(rng, 2),
                                             1 + (int)kc_rng_below(rng, 2), 1 + (int)kc_rng_below(rng, 3), &err),
                     KC_OK);
    assert_int_equal(kc_simroute_check(&route, &net, &err), KC_OK);
    uint32_t S = (uint32_t)kc_simnet_slots(&net), *ep;
    assert_int_equal(kc_simnet_rank_endpoints(&net, NULL, &ep, &err), KC_OK);
    size_t count = (size_t)S * (1 + kc_rng_below(rng, 3));
    uint32_t *s = malloc(count * sizeof *s), *d = malloc(count * sizeof *d);
    uint32_t *es = malloc(count * sizeof *es), *ed = malloc(count * sizeof *ed);
    for (size_t i = 0; i < count; i++) {
        s[i] = (uint32_t)kc_rng_below(rng, S), d[i] = (uint32_t)kc_rng_below(rng, S);
        es[i] = ep[s[i]], ed[i] = ep[d[i]];
    }
    kc_simconfig c;
    random_timing(rng, &c, 16);
    kc_simtraffic tr;
    assert_int_equal(kc_simtraffic_pairs_net(&tr, &net, s, d, count, NULL, &err), KC_OK);
    expect_agree(&net, &route, &tr, es, ed, count, &c);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
    free(ep), free(s), free(d), free(es), free(ed);
}

static void test_general_matches_reference(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 3131);
    for (int i = 0; i < 300; i++)
        compare_general(&rng);
}

/* Loaded past saturation, the deadlock-free routings stay deadlock-free on
 * random general networks (uniform traffic among the job's endpoints). */
static void test_general_loaded_no_deadlock(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 3132);
    for (int i = 0; i < 60; i++) {
        kc_err err;
        kc_topology t;
        uint32_t alloc[125];
        random_topology(&rng, &t, alloc);
        kc_simnet probe, net;
        assert_int_equal(kc_simnet_from_topology(&probe, &t, 1, 1, 1, 1, &err), KC_OK);
        int vcs;
        kc_simroute route = random_route(&rng, &probe, &vcs);
        kc_simnet_free(&probe);
        assert_int_equal(kc_simnet_from_topology(&net, &t, vcs, 1, 1, 1, &err), KC_OK);
        kc_simtraffic tr;
        if (kc_simnet_slots(&net) < 2) {
            kc_simnet_free(&net);
            continue;
        }
        assert_int_equal(kc_simtraffic_uniform_net(&tr, &net, NULL, &err), KC_OK);
        kc_simconfig c;
        kc_simconfig_default(&c);
        c.msg_flits = 4 + (int)kc_rng_below(&rng, 12);
        c.load = 0.9;
        c.warmup = 200, c.measure = 1500, c.drain = 300, c.watchdog = 300, c.seed = (uint64_t)i;
        c.queue_cap = 1e6; /* no giving up: the whole run under load */
        kc_simresult res;
        assert_int_equal(kc_sim_run(&net, &route, &tr, &c, &res, &err), KC_OK);
        assert_false(res.deadlock);
        kc_simresult_free(&res);
        kc_simtraffic_free(&tr);
        kc_simnet_free(&net);
    }
}

/* On equal sides, C = 1 and no allocation the general builder gives
 * kc_simnet_init's network: the same channels and neighbours. */
static void test_general_equals_plain(void **state)
{
    (void)state;
    kc_err err;
    static const struct { kc_simtopo topo; kc_topo_kind kind; int k, n; } cases[] = {
        {KC_SIM_HYPERCUBE, KC_TOPO_HYPERCUBE, 2, 4}, {KC_SIM_TORUS, KC_TOPO_TORUS, 4, 3},
        {KC_SIM_TORUS, KC_TOPO_TORUS, 5, 2},         {KC_SIM_MESH, KC_TOPO_MESH, 2, 3},
        {KC_SIM_MESH, KC_TOPO_MESH, 6, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kc_simnet a, b;
        kc_topology t;
        assert_int_equal(kc_simnet_init(&a, cases[i].topo, cases[i].k, cases[i].n, 2, 1, 1, 1, &err), KC_OK);
        assert_int_equal(kc_topology_init(&t, cases[i].kind, cases[i].k, cases[i].n, KC_TIE_PLUS, &err), KC_OK);
        assert_int_equal(kc_simnet_from_topology(&b, &t, 2, 1, 1, 1, &err), KC_OK);
        assert_int_equal(a.topo, b.topo);
        assert_int_equal(a.channels, b.channels);
        assert_int_equal(a.max_hops, b.max_hops);
        assert_memory_equal(a.next_node, b.next_node, (size_t)a.nodes * (size_t)a.ports * sizeof *a.next_node);
        assert_int_equal(kc_simnet_slots(&b), a.nodes);
        kc_simnet_free(&a);
        kc_simnet_free(&b);
    }
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
        cmocka_unit_test(test_general_matches_reference),
        cmocka_unit_test(test_general_equals_plain),
        cmocka_unit_test(test_general_loaded_no_deadlock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
