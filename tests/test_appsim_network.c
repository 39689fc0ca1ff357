/* GOAL replays on general networks (kcube/appsim.h with a placement's
 * topology): ranks on the endpoints of an allocation's routers, C
 * endpoints per router. Checked against figures worked out here, apart
 * from the library: a schedule whose messages all stay inside routers
 * moves no flit over a link; on seeded random networks, allocations and
 * placements a chain of messages (one in flight at a time) takes exactly
 * sum(start-up + flits + hops + 1) cycles with the hops of a dimension-order
 * walk written here, every flit crosses exactly that many links, and every
 * message arrives once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/appsim.h"
#include "kcube/goal.h"
#include "kcube/rng.h"
#include "kcube/topology.h"

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-9 * (1 + fabs((double)(b))))

typedef struct machine {
    kc_topology t;
    uint32_t alloc[125]; /* up to 5^3 routers */
    kc_simnet net;
    kc_simroute route;
    kc_simconfig cfg;
} machine;

/* The simulated network of mc->t, dimension-order routing, links counted. */
static void build(machine *mc)
{
    kc_err err = {0};
    if (kc_simnet_from_topology(&mc->net, &mc->t, 2, 1, 1, 4, &err))
        fail_msg("%s", err.msg);
    int rings = 0;
    for (int i = 0; i < mc->t.n; i++)
        rings |= kc_topology_wraps(&mc->t, i) && mc->t.side[i] > 2;
    mc->route = (kc_simroute){KC_ROUTE_DOR, rings ? KC_VC_DATELINE : KC_VC_NONE, KC_TIE_PLUS};
    kc_simconfig_default(&mc->cfg);
    mc->cfg.channel_util = 1;
}

/* Hops between routers a and b, axis by axis as the network is wired: a
 * ring the shorter way (a side-2 axis one hop), a line straight. */
static int walk_hops(const kc_topology *t, uint64_t a, uint64_t b)
{
    int h = 0;
    for (int i = 0; i < t->n; i++) {
        int s = t->side[i], x = (int)(a % (uint64_t)s), y = (int)(b % (uint64_t)s);
        int d = x > y ? x - y : y - x;
        h += kc_topology_wraps(t, i) && s - d < d ? s - d : d;
        a /= (uint64_t)s, b /= (uint64_t)s;
    }
    return h;
}

static uint64_t links_crossed(const kc_simnet *net, const kc_simresult *r)
{
    uint64_t sum = 0;
    for (uint32_t l = 0; r->link_flits && l < net->net_channels / (uint32_t)net->vcs; l++)
        sum += r->link_flits[l];
    return sum;
}

/* Replay g with rank r on endpoint ep[r]; fails the test on any error. */
static void replay(machine *mc, kc_goal *g, const uint32_t *ep, uint32_t R, kc_appsim_result *out)
{
    kc_err err = {0};
    kc_goal_match m;
    kc_appsim_opts o = {10, 1, 1, NULL};
    kc_appsim_place pl = {R, ep, &mc->t};
    if (kc_goal_validate(g, 0, &m, &err) ||
        kc_appsim_run_placed(g, &m, &mc->net, &mc->route, &mc->cfg, &o, &pl, NULL, out, &err))
        fail_msg("%s", err.msg);
    assert_false(out->sim.deadlock);
    assert_int_equal(out->messages, m.messages);
    assert_int_equal(out->sim.flits_delivered, out->flits);
    kc_goal_match_free(&m);
}

/* One message from rank a to rank b of `bytes`, after `after` (an op of a,
 * or KC_GOAL_NONE); returns the receive's index. */
static size_t message(kc_goal *g, uint32_t a, uint32_t b, uint64_t bytes, int64_t tag, size_t after)
{
    kc_err err = {0};
    size_t s, r;
    if (kc_goal_add(g, KC_GOAL_SEND, a, b, tag, bytes, NULL, 0, &s, &err) ||
        kc_goal_add(g, KC_GOAL_RECV, b, a, tag, bytes, NULL, 0, &r, &err) ||
        (after != KC_GOAL_NONE && kc_goal_depend(g, s, after, 0, 0, &err)))
        fail_msg("%s", err.msg);
    return r;
}

/* A 3x4 torus whose 4-rings wrap and 3-line does not, two endpoints a
 * router, an allocation of three routers: pairs of ranks on one router
 * exchange messages, and no flit crosses a link. */
static void test_inside_routers(void **state)
{
    (void)state;
    machine mc;
    kc_err err = {0};
    int sides[2] = {3, 4};
    uint32_t routers[3] = {5, 2, 11};
    assert_int_equal(kc_topology_shape(&mc.t, KC_TOPO_TORUS, sides, 2, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_set_wrap(&mc.t, 2, &err), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&mc.t, 2, &err), KC_OK);
    memcpy(mc.alloc, routers, sizeof routers);
    assert_int_equal(kc_topology_set_alloc(&mc.t, mc.alloc, 3, &err), KC_OK);
    build(&mc);
    /* three pairs, each on one router, exchange 50 bytes each way */
    kc_goal g;
    assert_int_equal(kc_goal_init(&g, 6, &err), KC_OK);
    for (uint32_t p = 0; p < 3; p++) {
        size_t r1 = message(&g, 2 * p, 2 * p + 1, 50, p, KC_GOAL_NONE);
        message(&g, 2 * p + 1, 2 * p, 50, 10 + p, r1);
    }
    uint32_t ep[6];
    for (uint32_t s = 0; s < 6; s++)
        ep[s] = (uint32_t)kc_topology_slot_endpoint(&mc.t, s);
    kc_appsim_result r;
    replay(&mc, &g, ep, 1, &r);
    assert_int_equal(links_crossed(&mc.net, &r.sim), 0);
    /* each way: start-up 10 + 50 flits + 0 hops + 1 */
    NEAR(r.total_us, 2 * (10 + 50 + 1));
    assert_int_equal(r.messages, 6);
    kc_appsim_result_free(&r);
    kc_goal_free(&g);
    kc_simnet_free(&mc.net);
}

/* A random network: 1..3 axes of sides 2..5, random wraps, C 1..3, an
 * allocation of random routers in random order half the time. */
static void random_machine(machine *mc, kc_rng *rng)
{
    kc_err err = {0};
    int sides[3], n = 1 + (int)kc_rng_below(rng, 3);
    for (int i = 0; i < n; i++)
        sides[i] = 2 + (int)kc_rng_below(rng, 4);
    assert_int_equal(kc_topology_shape(&mc->t, KC_TOPO_TORUS, sides, n, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_set_wrap(&mc->t, kc_rng_below(rng, 1u << n), &err), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&mc->t, 1 + (int)kc_rng_below(rng, 3), &err), KC_OK);
    if (kc_rng_below(rng, 2)) {
        uint32_t count = 1 + (uint32_t)kc_rng_below(rng, mc->t.nodes); /* the first `count` of a random order */
        for (uint32_t v = 0; v < mc->t.nodes; v++)
            mc->alloc[v] = v;
        kc_rng_perm(rng, mc->alloc, mc->t.nodes);
        assert_int_equal(kc_topology_set_alloc(&mc->t, mc->alloc, count, &err), KC_OK);
    }
    build(mc);
}

/* A random slot for each rank, R ranks an endpoint at most: ep[r]. */
static void random_placement(const machine *mc, kc_rng *rng, uint32_t ranks, uint32_t R, uint32_t *ep)
{
    uint32_t slots = (uint32_t)kc_topology_slots(&mc->t), perm[375];
    for (uint32_t s = 0; s < slots; s++)
        perm[s] = s;
    kc_rng_perm(rng, perm, slots);
    for (uint32_t r = 0; r < ranks; r++)
        ep[r] = (uint32_t)kc_topology_slot_endpoint(&mc->t, perm[r / R]);
}

/* Seeded random networks, placements and chains: the makespan, the links
 * crossed and the messages against the walk's hops. */
static void test_random_chains(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 31);
    for (int trial = 0; trial < 60; trial++) {
        machine mc;
        random_machine(&mc, &rng);
        uint32_t slots = (uint32_t)kc_topology_slots(&mc.t);
        if (slots < 2) {
            kc_simnet_free(&mc.net);
            continue;
        }
        uint32_t ranks = 2 + (uint32_t)kc_rng_below(&rng, slots - 1), ep[375];
        random_placement(&mc, &rng, ranks, 1, ep);
        kc_goal g;
        kc_err err = {0};
        assert_int_equal(kc_goal_init(&g, ranks, &err), KC_OK);
        uint32_t a = 0, C = (uint32_t)kc_topology_conc(&mc.t);
        double expect = 0;
        uint64_t crossed = 0;
        size_t prev = KC_GOAL_NONE;
        int count = 1 + (int)kc_rng_below(&rng, 12);
        for (int i = 0; i < count; i++) {
            uint32_t b = (a + 1 + (uint32_t)kc_rng_below(&rng, ranks - 1)) % ranks;
            uint64_t bytes = 1 + kc_rng_below(&rng, 40);
            int h = walk_hops(&mc.t, ep[a] / C, ep[b] / C);
            assert_int_equal(kc_topology_route(&mc.t, ep[a] / C, ep[b] / C, NULL, NULL), h);
            prev = message(&g, a, b, bytes, i, prev);
            expect += 10 + (double)bytes + h + 1;
            crossed += bytes * (uint64_t)h;
            a = b;
        }
        kc_appsim_result r;
        replay(&mc, &g, ep, 1, &r);
        NEAR(r.total_us, expect);
        assert_int_equal(links_crossed(&mc.net, &r.sim), crossed);
        assert_int_equal(r.messages, (uint64_t)count);
        kc_appsim_result_free(&r);
        kc_goal_free(&g);
        kc_simnet_free(&mc.net);
    }
}

/* Every message at once, R = 1 or 2 ranks an endpoint (any rank count):
 * contention changes the times, not the links a flit crosses, so the
 * flits on links are sum(flits x hops) over the messages between
 * endpoints, and every message arrives once. */
static void test_random_concurrent(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 32);
    for (int trial = 0; trial < 60; trial++) {
        machine mc;
        random_machine(&mc, &rng);
        uint32_t R = 1 + (uint32_t)kc_rng_below(&rng, 2), slots = (uint32_t)kc_topology_slots(&mc.t);
        uint32_t ranks = 1 + (uint32_t)kc_rng_below(&rng, slots * R), ep[750], C = (uint32_t)kc_topology_conc(&mc.t);
        random_placement(&mc, &rng, ranks, R, ep);
        kc_goal g;
        kc_err err = {0};
        assert_int_equal(kc_goal_init(&g, ranks, &err), KC_OK);
        uint64_t crossed = 0, flits = 0;
        int count = 1 + (int)kc_rng_below(&rng, 40);
        for (int i = 0; i < count; i++) {
            uint32_t a = (uint32_t)kc_rng_below(&rng, ranks), b = (uint32_t)kc_rng_below(&rng, ranks);
            uint64_t bytes = 1 + kc_rng_below(&rng, 30);
            message(&g, a, b, bytes, i, KC_GOAL_NONE);
            if (a != b && ep[a] == ep[b])
                continue; /* two ranks of one endpoint: no flit moves */
            crossed += bytes * (uint64_t)walk_hops(&mc.t, ep[a] / C, ep[b] / C);
            flits += bytes;
        }
        kc_appsim_result r;
        replay(&mc, &g, ep, R, &r);
        assert_int_equal(r.flits, flits);
        assert_int_equal(links_crossed(&mc.net, &r.sim), crossed);
        assert_int_equal(r.messages, (uint64_t)count);
        kc_appsim_result_free(&r);
        kc_goal_free(&g);
        kc_simnet_free(&mc.net);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inside_routers),
        cmocka_unit_test(test_random_chains),
        cmocka_unit_test(test_random_concurrent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
