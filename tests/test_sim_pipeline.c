/* The router-pipeline loop (BookSim2's router as options): zero-load
 * latency against the closed form under random options, credit delay, VC
 * release and VC allocation delay on scenarios computed by hand, random
 * ring ties (both directions, reproducible, none on odd rings), the
 * invariants (conservation and buffer depth are checked by every run, no
 * deadlock, every message delivered at low load) on random configurations,
 * and that the seeds' options still run the old loops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/rng.h"
#include "kcube/sim.h"

/* One-shot run of the pairs (src[i], dst[i]). */
static kc_simresult run_pairs(const kc_simnet *net, const kc_simroute *r, const kc_simconfig *c, const uint32_t *s,
                              const uint32_t *d, size_t n)
{
    kc_err err;
    kc_simtraffic tr;
    kc_simresult res;
    assert_int_equal(kc_simtraffic_pairs(&tr, net->nodes, s, d, n, NULL, &err), KC_OK);
    kc_status st = kc_sim_run(net, r, &tr, c, &res, &err);
    if (st)
        fail_msg("run failed: %s", err.msg);
    kc_simtraffic_free(&tr);
    return res;
}

/* Random router-pipeline options with buffers deep enough to stream:
 * depth >= S + W + C + 1 (a slot is busy from the upstream departure to
 * the downstream one, then C cycles; +1 for a downstream router visited
 * after its upstream one) and >= I + C at the injection port. */
static int random_options(kc_rng *g, kc_simconfig *c, kc_simroute *r, int vcs)
{
    c->route_delay = (int)kc_rng_below(g, 4);
    c->va_delay = (int)kc_rng_below(g, (uint64_t)c->route_delay + 1);
    c->switch_delay = (int)kc_rng_below(g, 3);
    c->link_latency = 1 + (int)kc_rng_below(g, 2);
    c->inject_latency = 1 + (int)kc_rng_below(g, 3);
    c->credit_delay = (int)kc_rng_below(g, 3);
    c->vc_release = (int)kc_rng_below(g, 2);
    c->inj_vcs = (int)kc_rng_below(g, 3);
    c->ej_vcs = (int)kc_rng_below(g, 3);
    c->input_port = (int)kc_rng_below(g, 2);
    c->arbitration = 1 + (int)kc_rng_below(g, 2); /* never all defaults: the pipeline runs */
    if (kc_rng_below(g, 2))
        r->tie = KC_SIM_TIE_RANDOM;
    (void)vcs;
    int a = c->switch_delay + c->link_latency + c->credit_delay + 1, b = c->inject_latency + c->credit_delay;
    return (a > b ? a : b) + (int)kc_rng_below(g, 3);
}

static void check_zero_load(kc_simtopo topo, int k, int n, int vcs, kc_simvcrule rule, uint64_t seed)
{
    kc_rng g;
    kc_rng_seed(&g, seed);
    for (int t = 0; t < 24; t++) {
        kc_simconfig c;
        kc_simconfig_default(&c);
        c.oneshot = 1;
        kc_simroute r = {topo == KC_SIM_HYPERCUBE ? KC_ROUTE_ECUBE : KC_ROUTE_DOR, rule, KC_TIE_PLUS};
        int depth = random_options(&g, &c, &r, vcs);
        kc_simnet net;
        kc_err err;
        assert_int_equal(kc_simnet_init(&net, topo, k, n, vcs, 1 + (int)kc_rng_below(&g, 2), 1, depth, &err), KC_OK);
        assert_true(kc_sim_pipeline(&c, &r));
        uint32_t s = (uint32_t)kc_rng_below(&g, net.nodes), d = (uint32_t)kc_rng_below(&g, net.nodes);
        if (s != d) {
            c.msg_flits = 1 + (int)kc_rng_below(&g, 25);
            kc_simresult res = run_pairs(&net, &r, &c, &s, &d, 1);
            int h = kc_simnet_distance(&net, s, d);
            /* the closed form, written out: I to the source router, R + S + W a hop,
             * R + S + 1 to eject the header, the rest one flit a cycle behind */
            int64_t want = c.inject_latency + (int64_t)h * (c.route_delay + c.switch_delay + c.link_latency) +
                           c.route_delay + c.switch_delay + 1 + c.msg_flits - 1;
            assert_int_equal(res.completion, want);
            assert_int_equal(kc_sim_zero_load(&c, h), want);
            assert_int_equal(res.messages, 1);
            assert_int_equal(res.link_traversals, (uint64_t)h * (uint64_t)c.msg_flits);
            kc_simresult_free(&res);
        }
        kc_simnet_free(&net);
    }
}

static void test_zero_load_every_option(void **state)
{
    (void)state;
    check_zero_load(KC_SIM_HYPERCUBE, 2, 6, 2, KC_VC_NONE, 1);
    check_zero_load(KC_SIM_HYPERCUBE, 2, 4, 1, KC_VC_NONE, 2);
    check_zero_load(KC_SIM_TORUS, 4, 3, 2, KC_VC_HIGHLOW, 3);
    check_zero_load(KC_SIM_TORUS, 5, 2, 2, KC_VC_DATELINE, 4);
    check_zero_load(KC_SIM_TORUS, 8, 2, 2, KC_VC_HIGHLOW, 5);
    check_zero_load(KC_SIM_MESH, 4, 2, 1, KC_VC_NONE, 6);
}

/* The configuration of the scenarios worked out by hand: the seeds'
 * defaults, one-shot, 4-flit messages. */
static kc_simconfig four_flits(void)
{
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    c.msg_flits = 4;
    return c;
}

/* The two-node cube (n = 1), one VC, one-shot messages from node 0 to 1. */
static kc_simresult two_nodes(kc_simconfig *c, int depth, int msgs)
{
    kc_simnet net;
    kc_err err;
    assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 1, 1, 1, 1, depth, &err), KC_OK);
    kc_simroute r = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    uint32_t s[2] = {0, 0}, d[2] = {1, 1};
    c->oneshot = 1;
    kc_simresult res = run_pairs(&net, &r, c, s, d, (size_t)msgs);
    kc_simnet_free(&net);
    return res;
}

/* One-flit buffers: each slot is reused 1 + C cycles after it was filled
 * (filled at t, the flit leaves at t + 1, its credit is back at t + 1 +
 * C), so a 4-flit message's flits leave the source every 1 + C cycles; the
 * tail, written at 3 (1 + C), needs injection, one hop and ejection: 3. */
static void test_credit_delay_by_hand(void **state)
{
    (void)state;
    for (int cd = 1; cd <= 3; cd++) {
        kc_simconfig c = four_flits();
        c.credit_delay = cd;
        kc_simresult res = two_nodes(&c, 1, 1);
        assert_int_equal(res.completion, 3 * (1 + cd) + 3);
        kc_simresult_free(&res);
    }
}

/* Two 4-flit messages, 0 -> 1, R = S = 0, W = 1, depth 8. The first is
 * written at 0..3 and delivered at 6. tail-out: its tail leaves the
 * injection buffer at 4 (the VC is free from 5) and the network buffer at
 * 5 (free from 6): the second is written at 5..8, each flit delivered 3
 * cycles after it is written: 11. tail-in: the injection VC is free once
 * the tail is written (3, free from 4) and the network VC once the tail is
 * sent (4, free from 5): written at 4..7, delivered at 10. */
static void test_vc_release_by_hand(void **state)
{
    (void)state;
    for (int rel = 0; rel < 2; rel++) {
        kc_simconfig c = four_flits();
        c.vc_release = rel;
        c.arbitration = KC_ARB_ROUND_ROBIN; /* no contention here: it only selects the loop */
        kc_simresult res = two_nodes(&c, 8, 2);
        assert_int_equal(res.messages, 2);
        assert_int_equal(res.completion, rel ? 10 : 11);
        assert_true(res.latency_avg == (rel ? 8.0 : 8.5));
        kc_simresult_free(&res);
    }
}

/* As above with R = 1 (tail-out): the first is delivered at 8 (the zero-
 * load form); its tail leaves the injection buffer at 5 and the network
 * buffer at 7, so the second is written at 6, reaches router 0 at 7 and
 * may take the network VC from 8. va_delay 0: VC and switch at 8, tail
 * delivered at 14. va_delay 1: VC allocation at 8 is a stage, the switch
 * at 9: 15. */
static void test_va_delay_by_hand(void **state)
{
    (void)state;
    for (int vd = 0; vd < 2; vd++) {
        kc_simconfig c = four_flits();
        c.route_delay = 1;
        c.va_delay = vd;
        c.arbitration = KC_ARB_ISLIP;
        kc_simresult res = two_nodes(&c, 8, 2);
        assert_int_equal(res.completion, vd ? 15 : 14);
        kc_simresult_free(&res);
    }
}

/* Nodes 1 and 2 of the 2-cube each send a 4-flit message to node 0 (one
 * hop, separate input ports), R = S = 0, W = 1, depth 8: both heads reach
 * router 0 at cycle 2. One whole ejection channel: node 1's message ejects
 * at 2..5 (delivered at 6), the channel is free from 6 and the other ejects
 * at 6..9 (10). Two ejection VCs on one port: iSLIP gives a VC to node 1's
 * at 2 (both VCs grant the same input) and node 2's at 3, then the port
 * alternates: 2, 4, 6, 8 (delivered 9) and 3, 5, 7, 9 (10). First come
 * first served gives the port to the older message while it has flits: 6
 * and 10 again. */
static void test_ejection_vcs_by_hand(void **state)
{
    (void)state;
    const struct {
        int ej_vcs, arb;
        double avg;
    } cases[] = {{0, KC_ARB_ISLIP, 8.0}, {2, KC_ARB_ISLIP, 9.5}, {2, KC_ARB_FCFS, 8.0}};
    for (int i = 0; i < 3; i++) {
        kc_simnet net;
        kc_err err;
        assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 2, 1, 1, 1, 8, &err), KC_OK);
        kc_simroute r = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
        kc_simconfig c = four_flits();
        c.ej_vcs = cases[i].ej_vcs;
        c.arbitration = cases[i].arb;
        c.inject_latency = cases[i].arb == KC_ARB_FCFS ? 1 : 0; /* fcfs needs another option to select the loop */
        c.credit_delay = cases[i].arb == KC_ARB_FCFS ? 1 : 0;   /* (depth 8: no effect here) */
        uint32_t s[2] = {1, 2}, d[2] = {0, 0};
        kc_simresult res = run_pairs(&net, &r, &c, s, d, 2);
        assert_int_equal(res.completion, 10);
        assert_true(res.latency_avg == cases[i].avg);
        kc_simresult_free(&res);
        kc_simnet_free(&net);
    }
}

/* Node 0 of the 2-cube (2 independent VCs a link, two injection
 * channels) sends a 4-flit message to node 1 (A) and one to node 3 (B),
 * R = S = 0, W = 1, first come first served: both cross link 0 -> 1 side
 * by side (VCs 0 and 1) and reach router 1 at 2..5. Free input ports: A
 * ejects at 2..5 (delivered 6) while B goes on (7, the zero-load value).
 * A shared input port sends one flit a cycle, the older message's first:
 * A at 2..5, B at 6..9, delivered at 11. */
static void test_input_port_by_hand(void **state)
{
    (void)state;
    for (int shared = 0; shared < 2; shared++) {
        kc_simnet net;
        kc_err err;
        assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 2, 2, 2, 1, 8, &err), KC_OK);
        kc_simroute r = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
        kc_simconfig c = four_flits();
        c.vc_independent = 1;
        c.input_port = shared;
        c.credit_delay = 1; /* selects the loop; depth 8: no effect */
        uint32_t s[2] = {0, 0}, d[2] = {1, 3};
        kc_simresult res = run_pairs(&net, &r, &c, s, d, 2);
        assert_int_equal(res.completion, shared ? 11 : 7);
        assert_true(res.latency_avg == (shared ? 8.5 : 6.5));
        kc_simresult_free(&res);
        kc_simnet_free(&net);
    }
}

/* One message at distance k/2 (or the largest, on odd rings) along axis 0
 * of a k x k torus, tie random, per-link counts over the run: 1 when it
 * left node 0 in the + direction, 0 in the - direction. */
static int plus_direction(int k, uint64_t seed)
{
    kc_simnet net;
    kc_err err;
    assert_int_equal(kc_simnet_init(&net, KC_SIM_TORUS, k, 2, 2, 1, 1, 4, &err), KC_OK);
    kc_simroute r = {KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_SIM_TIE_RANDOM};
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    c.channel_util = 1;
    c.seed = seed;
    c.msg_flits = 3;
    uint32_t s = 0, d = (uint32_t)(k / 2);
    kc_simresult res = run_pairs(&net, &r, &c, &s, &d, 1);
    uint32_t plus = 0 * (uint32_t)net.ports + 0, minus = 0 * (uint32_t)net.ports + 1; /* node 0's ports 0, 1 */
    int dir = res.link_flits[plus] ? 1 : 0;
    assert_true(res.link_flits[plus] + res.link_flits[minus] == 3);
    assert_int_equal(res.link_traversals, 3u * (uint64_t)kc_simnet_distance(&net, s, d));
    kc_simresult_free(&res);
    kc_simnet_free(&net);
    return dir;
}

static void test_random_ties(void **state)
{
    (void)state;
    int seen[2] = {0, 0};
    for (uint64_t seed = 1; seed <= 24; seed++) {
        int dir = plus_direction(4, seed);
        seen[dir]++;
        assert_int_equal(plus_direction(4, seed), dir); /* reproducible */
        assert_int_equal(plus_direction(5, seed), 1);   /* odd ring: 2 hops +, never a tie */
    }
    assert_true(seen[0] > 0 && seen[1] > 0);
    /* the routing function itself: bit d is the direction at a tie on axis d */
    kc_simnet net;
    kc_err err;
    assert_int_equal(kc_simnet_init(&net, KC_SIM_TORUS, 6, 2, 2, 1, 1, 1, &err), KC_OK);
    kc_simroute r = {KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_SIM_TIE_RANDOM};
    uint32_t out[KC_SIMROUTE_MAX], in = kc_simnet_injch(&net, 0, 0);
    for (uint32_t ties = 0; ties < 4; ties++) {
        assert_int_equal(kc_simroute_candidates_ties(&r, &net, 0, 3, in, ties, out), 1);
        assert_int_equal(out[0] / 2 % 4, ties & 1 ? 0 : 1); /* axis 0: port 0 (+) or 1 (-) */
        assert_int_equal(kc_simroute_candidates_ties(&r, &net, 0, 18, in, ties, out), 1);
        assert_int_equal(out[0] / 2 % 4, ties & 2 ? 2 : 3); /* axis 1 (node 18 = digits 0, 3) */
    }
    kc_simnet_free(&net);
}

/* Random options on small cubes and tori, loads from light to overloaded:
 * every run passes the engine's checks (flits conserved, no buffer over
 * its depth), none deadlocks; at light load every message arrives. */
static void test_random_configurations(void **state)
{
    (void)state;
    kc_rng g;
    kc_rng_seed(&g, 35);
    for (int t = 0; t < 40; t++) {
        kc_simconfig c;
        kc_simconfig_default(&c);
        int torus = t % 3 == 2;
        kc_simroute r = {torus ? KC_ROUTE_DOR : KC_ROUTE_ECUBE, torus ? KC_VC_HIGHLOW : KC_VC_NONE, KC_TIE_PLUS};
        int depth = random_options(&g, &c, &r, 2);
        if (kc_rng_below(&g, 2))
            depth = 1 + (int)kc_rng_below(&g, 3); /* shallow too: blocking, credits short */
        c.self_traffic = (int)kc_rng_below(&g, 2);
        c.vc_independent = (int)kc_rng_below(&g, 2);
        c.process = kc_rng_below(&g, 2) ? KC_INJECT_BERNOULLI : KC_INJECT_POISSON;
        int light = t % 4 == 0;
        c.load = light ? 0.05 : 0.1 + 0.9 * kc_rng_unit(&g);
        c.msg_flits = 1 + (int)kc_rng_below(&g, 16);
        c.warmup = 200;
        c.measure = light ? 4000 : 800; /* long enough for the 3 % rule at light load */
        c.drain = 4000;
        c.watchdog = 300;
        c.seed = (uint64_t)t + 1;
        kc_simnet net;
        kc_err err;
        assert_int_equal(torus ? kc_simnet_init(&net, KC_SIM_TORUS, 4, 2, 2, 1, 1, depth, &err)
                               : kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 3 + t % 3, 2, 1, 1 + t % 2, depth, &err),
                         KC_OK);
        kc_simtraffic tr;
        assert_int_equal(kc_simtraffic_uniform(&tr, net.nodes, NULL, &err), KC_OK);
        kc_simresult res;
        kc_status st = kc_sim_run(&net, &r, &tr, &c, &res, &err);
        if (st)
            fail_msg("configuration %d: %s", t, err.msg);
        assert_false(res.deadlock);
        assert_true(res.flits_generated == res.flits_delivered + res.flits_queued + res.flits_in_network);
        if (light) {
            if (!res.sustainable)
                fail_msg("configuration %d (depth %d C %d rel %d inj %d ej %d in %d arb %d self %d ind %d L %d): "
                         "gen %g thr %g behind %u queue %g lat %g",
                         t, depth, c.credit_delay, c.vc_release, c.inj_vcs, c.ej_vcs, c.input_port, c.arbitration,
                         c.self_traffic, c.vc_independent, c.msg_flits, res.generated, res.throughput,
                         res.sources_behind, res.queue_avg, res.latency_avg);
            assert_true(res.messages > 0);
        }
        kc_simresult_free(&res);
        kc_simtraffic_free(&tr);
        kc_simnet_free(&net);
    }
}

/* Random permutations lose their fixed points in the table and get them
 * back; tables that are not a permutation (two messages from a source,
 * a repeated destination, an idle node that receives) stay as they are. */
static void test_keep_fixed_points(void **state)
{
    (void)state;
    kc_rng g;
    kc_rng_seed(&g, 7);
    kc_err err;
    for (int t = 0; t < 50; t++) {
        uint32_t n = 2 + (uint32_t)kc_rng_below(&g, 40), perm[64], src[64];
        for (uint32_t x = 0; x < n; x++)
            perm[x] = src[x] = x;
        kc_rng_perm(&g, perm, n);
        for (uint32_t x = 0; x < n; x++) /* some more fixed points */
            if (kc_rng_below(&g, 4) == 0)
                for (uint32_t y = 0; y < n; y++)
                    if (perm[y] == x) {
                        perm[y] = perm[x];
                        perm[x] = x;
                        break;
                    }
        kc_simtraffic tr;
        assert_int_equal(kc_simtraffic_pairs(&tr, n, src, perm, n, NULL, &err), KC_OK);
        assert_int_equal(kc_simtraffic_keep_fixed(&tr, &err), KC_OK);
        for (uint32_t x = 0; x < n; x++) {
            assert_int_equal(tr.start[x + 1] - tr.start[x], 1);
            assert_int_equal(tr.dest[tr.start[x]], perm[x]);
        }
        kc_simtraffic_free(&tr);
    }
    uint32_t s1[3] = {0, 0, 1}, d1[3] = {1, 2, 0}, s2[2] = {0, 1}, d2[2] = {2, 2}, s3[1] = {0}, d3[1] = {1};
    const uint32_t *ss[3] = {s1, s2, s3}, *dd[3] = {d1, d2, d3};
    size_t cnt[3] = {3, 2, 1};
    for (int c = 0; c < 3; c++) {
        kc_simtraffic tr;
        assert_int_equal(kc_simtraffic_pairs(&tr, 4, ss[c], dd[c], cnt[c], NULL, &err), KC_OK);
        assert_int_equal(kc_simtraffic_keep_fixed(&tr, &err), KC_OK);
        assert_int_equal(tr.start[4], cnt[c]);
        kc_simtraffic_free(&tr);
    }
}

/* The seeds' values of the new fields do not select the pipeline, and
 * giving them explicitly changes nothing (inject latency 1 = 0). */
static void test_defaults_keep_old_loops(void **state)
{
    (void)state;
    kc_simconfig c;
    kc_simconfig_default(&c);
    kc_simroute r = {KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_TIE_SPLIT};
    assert_false(kc_sim_pipeline(&c, &r));
    c.inject_latency = 1;
    assert_false(kc_sim_pipeline(&c, &r));
    kc_simconfig b = c;
    kc_simconfig_booksim(&b, 2);
    assert_true(kc_sim_pipeline(&b, &r));
    assert_int_equal(kc_sim_zero_load(&b, 0), 2 + c.msg_flits);
    r.tie = KC_SIM_TIE_RANDOM;
    assert_true(kc_sim_pipeline(&c, &r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_load_every_option), cmocka_unit_test(test_credit_delay_by_hand),
        cmocka_unit_test(test_vc_release_by_hand),     cmocka_unit_test(test_va_delay_by_hand),
        cmocka_unit_test(test_ejection_vcs_by_hand),   cmocka_unit_test(test_input_port_by_hand),
        cmocka_unit_test(test_random_ties),            cmocka_unit_test(test_random_configurations),
        cmocka_unit_test(test_keep_fixed_points),      cmocka_unit_test(test_defaults_keep_old_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
