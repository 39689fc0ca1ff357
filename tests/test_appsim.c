/* Application-level simulation (kcube/appsim.h): hand-computed timings of a
 * ping-pong and a three-node chain on the binary cube (no contention: the
 * LogGP time plus the wormhole pipeline latency, exactly), a contended case,
 * every message delivered once on seeded random schedules, and seed 000's
 * FFT on the 6-cube with and without the optimal reordering of its
 * bit-reverse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/appsim.h"
#include "kcube/goal.h"
#include "kcube/loggops.h"
#include "kcube/reorder.h"
#include "kcube/rng.h"
#include "kc_testutil.h"
#include "loggops_bound.h"

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-9 * (1 + fabs((double)(b))))

typedef struct machine {
    kc_simnet net;
    kc_simroute route;
    kc_simconfig cfg;
} machine;

static void cube(machine *mc, int n, kc_simalgo algo, int vcs, int depth)
{
    kc_err err = {0};
    assert_int_equal(kc_simnet_init(&mc->net, KC_SIM_HYPERCUBE, 2, n, vcs, 1, 1, depth, &err), KC_OK);
    mc->route = (kc_simroute){algo, KC_VC_NONE, KC_TIE_PLUS};
    kc_simconfig_default(&mc->cfg);
}

/* Read, validate, replay; fails the test on any error. */
static void replay_goal(kc_goal *g, machine *mc, const kc_appsim_opts *o, kc_appsim_result *r)
{
    kc_goal_match m;
    kc_err err = {0};
    if (kc_goal_validate(g, mc->net.nodes, &m, &err) || kc_appsim_run(g, &m, &mc->net, &mc->route, &mc->cfg, o, r, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(r->messages, m.messages);
    assert_false(r->sim.deadlock);
    assert_int_equal(r->sim.flits_delivered, r->flits);
    assert_int_equal(r->sim.flits_generated, r->flits);
    kc_goal_match_free(&m);
}

static void replay_text(const char *text, machine *mc, const kc_appsim_opts *o, kc_appsim_result *r)
{
    kc_goal g;
    kc_err err = {0};
    if (kc_goal_read_mem(&g, text, strlen(text), "t", NULL, 0, &err))
        fail_msg("%s", err.msg);
    replay_goal(&g, mc, o, r);
    kc_goal_free(&g);
}

static const char *pingpong = "num_ranks 2\n"
                              "rank 0 {\n// kcube-phase ping\nl1: send 100b to 1 tag 0\n"
                              "// kcube-phase pong\nl2: recv 100b from 1 tag 0\nl2 requires l1\n}\n"
                              "rank 1 {\n// kcube-phase ping\nl1: recv 100b from 0 tag 0\n"
                              "// kcube-phase pong\nl2: send 100b to 0 tag 0\nl2 requires l1\n}\n";

/* With the defaults R = S = 0, W = 1 a message of L flits over H hops whose
 * start-up ends at cycle t has its tail at cycle t + L + H + 1. */
static void test_pingpong(void **state)
{
    (void)state;
    machine mc;
    cube(&mc, 1, KC_ROUTE_ECUBE, 1, 1);
    kc_appsim_result r;
    /* start-up 10 µs, 1 µs per byte, 1 byte per flit: each way 10 + 100 +
     * (1 + 1) = 112 µs; LogGP says 110. */
    kc_appsim_opts o = {10, 1, 1, NULL};
    replay_text(pingpong, &mc, &o, &r);
    NEAR(r.total_us, 224);
    NEAR(r.loggp_us, 220);
    NEAR(r.finish_us[0], 224);
    NEAR(r.finish_us[1], 122);
    /* phases (0 is the unnamed one): rank 0 spends 10 on ping (its send) and
     * 214 waiting for pong; rank 1 waits 112 for ping, sends pong 10 */
    assert_int_equal(r.nphases, 3);
    NEAR(r.phase_us[1], 112);
    NEAR(r.phase_us[2], 214);
    NEAR(r.compute_us, 0);
    assert_int_equal(r.messages, 2);
    /* the one link in each direction carried 100 flits in 224 cycles */
    NEAR(r.link_util_max, 100.0 / 224);
    NEAR(r.link_util_mean, 100.0 / 224);
    kc_appsim_result_free(&r);
    /* 4 bytes per flit at 0.5 µs per byte: 2 µs cycles, 25 flits, start-up
     * 5 cycles: 5 + 25 + 2 = 32 cycles each way; LogGP 2 (10 + 50) */
    o = (kc_appsim_opts){10, 0.5, 4, NULL};
    replay_text(pingpong, &mc, &o, &r);
    NEAR(r.total_us, 128);
    NEAR(r.loggp_us, 120);
    kc_appsim_result_free(&r);
    /* nCUBE 2 defaults, 0.57 µs cycles: the start-up (287.7 cycles) is
     * injected at cycle 288, the tail at 288 + 102 = 390 (222.3 µs); rank
     * 1's start-up ends at 386.3 µs, cycle 677.7: injected at 678, tail at
     * 780 = 444.6 µs. */
    replay_text(pingpong, &mc, NULL, &r);
    NEAR(r.total_us, 780 * 0.57);
    NEAR(r.loggp_us, 442);
    NEAR(r.finish_us[1], 390 * 0.57 + 164);
    kc_appsim_result_free(&r);
    kc_simnet_free(&mc.net);
}

/* rank 0 -> 1 -> 2 on the 2-cube (node 1 to node 2 is two hops), with
 * computation competing for the processors (as test_goal's LogGP case). */
static const char *chain = "num_ranks 3\n"
                           "rank 0 {\nl1: send 100b to 1 tag 0\nl2: calc 50000\n}\n"
                           "rank 1 {\nc: calc 100000\nr: recv 100b from 0 tag 0\ns: send 200b to 2 tag 0\n"
                           "s requires r\n}\n"
                           "rank 2 {\nr: recv 200b from 1 tag 0\n}\n";

static void test_chain(void **state)
{
    (void)state;
    machine mc;
    cube(&mc, 2, KC_ROUTE_ECUBE, 1, 4);
    kc_appsim_result r;
    kc_appsim_opts o = {10, 1, 1, NULL};
    /* rank 0: send 0..10, calc 10..60; message 1 (H = 1) tail at 10 + 100 +
     * 2 = 112; rank 1: calc 0..100, send 112..122; message 2 (H = 2) tail at
     * 122 + 200 + 3 = 325. LogGP: 110, 120, 320. */
    replay_text(chain, &mc, &o, &r);
    NEAR(r.total_us, 325);
    NEAR(r.loggp_us, 320);
    NEAR(r.finish_us[0], 60);
    NEAR(r.finish_us[1], 122);
    NEAR(r.finish_us[2], 325);
    NEAR(r.compute_us, 100);
    NEAR(r.phase_us[0], 325); /* rank 2 waits for its message all the time */
    kc_appsim_result_free(&r);
    /* R = 1, S = 1, W = 2 (buffers of 4 >= S + W): the tail comes
     * H (R + S + W) + R + S + L + 1 cycles after the start-up ends:
     * 10 + 4 + 2 + 100 + 1 = 117, send 117..127, 127 + 8 + 2 + 200 + 1 = 338 */
    mc.cfg.route_delay = 1;
    mc.cfg.switch_delay = 1;
    mc.cfg.link_latency = 2;
    replay_text(chain, &mc, &o, &r);
    NEAR(r.total_us, 338);
    NEAR(r.finish_us[1], 127);
    NEAR(r.loggp_us, 320);
    kc_appsim_result_free(&r);
    kc_simnet_free(&mc.net);
}

/* Nodes 0 and 1 both send 100 bytes to node 3: under e-cube both worms need
 * the channel 1 -> 3, so one waits for the other. */
static void test_contention(void **state)
{
    (void)state;
    machine mc;
    cube(&mc, 2, KC_ROUTE_ECUBE, 1, 1);
    const char *text = "num_ranks 4\n"
                       "rank 0 {\na: send 100b to 3 tag 0\n}\n"
                       "rank 1 {\na: send 100b to 3 tag 1\n}\n"
                       "rank 3 {\na: recv 100b from 0 tag 0\nb: recv 100b from 1 tag 1\n}\n";
    kc_appsim_result r;
    kc_appsim_opts o = {10, 1, 1, NULL};
    replay_text(text, &mc, &o, &r);
    NEAR(r.loggp_us, 110);
    /* alone each would take 10 + 100 + H + 1 <= 113 µs; the second worm
     * waits at least until the first tail has left the shared channel */
    assert_true(r.total_us >= 210);
    NEAR(r.link_util_max, 200 / (r.total_us / r.cycle_us));
    kc_appsim_result_free(&r);
    kc_simnet_free(&mc.net);
}

static void test_random_schedules(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 20261123);
    kc_simalgo algos[] = {KC_ROUTE_ECUBE, KC_ROUTE_PCUBE, KC_ROUTE_LIMIN};
    int with_path = 0;
    for (int trial = 0; trial < 150; trial++) {
        machine mc;
        cube(&mc, 4, algos[trial % 3], 1, 1 + trial % 3);
        kc_goal g;
        kc_test_random_goal(&g, 16, &rng);
        kc_appsim_opts o = {(double)kc_rng_below(&rng, 200), 0.1 + (double)kc_rng_below(&rng, 10) / 10,
                            1 + (int)kc_rng_below(&rng, 4), NULL};
        kc_appsim_result r;
        replay_goal(&g, &mc, &o, &r); /* every message delivered once, flits conserved */
        double last = 0;
        for (uint32_t x = 0; x < g.num_ranks; x++)
            last = r.finish_us[x] > last ? r.finish_us[x] : last;
        NEAR(r.total_us, last);
        for (uint32_t p = 0; p < r.nphases; p++)
            assert_true(r.phase_us[p] <= r.total_us + 1e-9);
        assert_true(r.link_util_max <= 1 + 1e-12);
        if (r.path.ok) { /* the critical-path split adds up to the difference with LogGOPS */
            double sum = r.path.start_up + r.path.cpu + r.path.nic + r.path.cycle_boundary + r.path.injection_wait +
                         r.path.channel_wait + r.path.pipeline + r.path.other + r.path.elsewhere;
            NEAR(sum, r.total_us - r.loggops_us);
            if (!(r.path.channel_wait >= 0 && r.path.injection_wait >= 0 && r.path.cycle_boundary >= -1e-9))
                fail_msg("trial %d: channels %g, port %g, boundaries %g", trial, r.path.channel_wait,
                         r.path.injection_wait, r.path.cycle_boundary);
            /* the network's own makespan along the path: durations adding up to it */
            const double span[] = {r.path.span.start_up,       r.path.span.cpu,          r.path.span.nic,
                                   r.path.span.transfer,       r.path.span.cycle_boundary,
                                   r.path.span.injection_wait, r.path.span.channel_wait, r.path.span.pipeline,
                                   r.path.span.waiting};
            double whole = 0;
            for (size_t i = 0; i < sizeof span / sizeof span[0]; i++) {
                if (!(span[i] >= 0))
                    fail_msg("trial %d: part %zu of the makespan is %g", trial, i, span[i]);
                whole += span[i];
            }
            NEAR(whole, r.total_us);
            with_path++;
        }
        kc_appsim_result_free(&r);
        kc_goal_free(&g);
        kc_simnet_free(&mc.net);
    }
    assert_true(with_path >= 100); /* LogGOPS matched as the replay and the walk reached time 0 */
}

/* The formula against the engine on random relays: one token passes between
 * random nodes of the 6-cube, so only one message is ever in flight; with
 * start-ups and sizes on cycle boundaries every hop is LogGP's plus
 * H (R + S + W) + R + S + 1 cycles. */
static void test_random_relays(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 7);
    for (int trial = 0; trial < 60; trial++) {
        machine mc;
        int r = (int)kc_rng_below(&rng, 3), sw = (int)kc_rng_below(&rng, 3), w = 1 + (int)kc_rng_below(&rng, 3);
        cube(&mc, 6, KC_ROUTE_ECUBE, 1, sw + w);
        mc.cfg.route_delay = r;
        mc.cfg.switch_delay = sw;
        mc.cfg.link_latency = w;
        kc_appsim_opts o = {0, 0.5, 1 + (int)kc_rng_below(&rng, 4), NULL};
        double cyc = o.byte_time_us * o.bytes_per_flit;
        o.startup_us = cyc * (double)kc_rng_below(&rng, 50);
        kc_goal g;
        kc_err err = {0};
        assert_int_equal(kc_goal_init(&g, 64, &err), KC_OK);
        uint32_t at = (uint32_t)kc_rng_below(&rng, 64);
        size_t last_recv = KC_GOAL_NONE, s, v;
        double extra = 0;
        for (int hop = 0; hop < 10; hop++) {
            uint32_t to = (uint32_t)kc_rng_below(&rng, 63);
            to += to >= at;
            uint64_t bytes = (uint64_t)o.bytes_per_flit * (1 + kc_rng_below(&rng, 50));
            assert_int_equal(kc_goal_add(&g, KC_GOAL_SEND, at, to, hop, bytes, NULL, 0, &s, &err), KC_OK);
            assert_int_equal(kc_goal_add(&g, KC_GOAL_RECV, to, at, hop, bytes, NULL, 0, &v, &err), KC_OK);
            if (last_recv != KC_GOAL_NONE)
                assert_int_equal(kc_goal_depend(&g, s, last_recv, 0, 0, &err), KC_OK);
            int h = kci_popcount32(at ^ to);
            extra += cyc * (h * (r + sw + w) + r + sw + 1);
            last_recv = v;
            at = to;
        }
        kc_appsim_result res;
        replay_goal(&g, &mc, &o, &res);
        NEAR(res.total_us, res.loggp_us + extra);
        kc_appsim_result_free(&res);
        kc_goal_free(&g);
        kc_simnet_free(&mc.net);
    }
}

/* The ping-pong with LogGOPS's CPU and NIC. o = 2 µs at
 * both ends: each way the send's CPU 10 + 2, the tail at 12 + 100 + 2, the
 * receiver's CPU 2 more: 116 and 232. The LogGOPS figure with L = 10 + 3
 * cycles and G = 1 µs/byte gives the same (no contention, shortest routes). */
static void test_loggops_pingpong(void **state)
{
    (void)state;
    machine mc;
    cube(&mc, 1, KC_ROUTE_ECUBE, 1, 1);
    kc_appsim_result r;
    kc_loggops_params lp = {0, 2000, 0, 0, 0, KC_LOGGOPS_S_INF};
    kc_appsim_opts o = {10, 1, 1, &lp};
    replay_text(pingpong, &mc, &o, &r);
    NEAR(r.total_us, 232);
    NEAR(r.finish_us[1], 128);
    NEAR(r.loggops_us, 232);
    assert_int_equal(r.loggops_ref[0], 13000);
    assert_int_equal(r.loggops_ref[3], 1000);
    NEAR(r.loggp_us, 220); /* the LogGP figure keeps its start-up-only model */
    NEAR(r.wait_channel_us + r.wait_port_us + r.pipeline_us + r.boundary_us, 0);
    kc_appsim_result_free(&r);
    /* g = 1 µs, O = 10 ns/byte: the NIC model; the receiver's CPU copies the
     * 99 bytes after the first as they arrive (first byte at 15, done at
     * 15 + 2 + 99 = 116 again); the send's CPU is 10 + 2 + 0.99 */
    lp = (kc_loggops_params){0, 2000, 1000, 0, 10, KC_LOGGOPS_S_INF};
    replay_text(pingpong, &mc, &o, &r);
    NEAR(r.total_us, 232);
    NEAR(r.finish_us[1], 128.99);
    NEAR(r.loggops_us, 232);
    kc_appsim_result_free(&r);
    /* S = 50: rendezvous; each send ends when its receive is matched, when
     * the receiver's CPU takes the first byte (15, then 131) */
    lp.S = 50;
    replay_text(pingpong, &mc, &o, &r);
    NEAR(r.total_us, 232);
    NEAR(r.finish_us[1], 131);
    NEAR(r.finish_us[0], 232);
    kc_appsim_result_free(&r);
    /* the default nCUBE 2 run: the LogGOPS figure with o = g = O = 0 */
    o.loggops = NULL;
    replay_text(pingpong, &mc, &o, &r);
    NEAR(r.total_us, 224);
    NEAR(r.loggops_us, 2 * (10 + 3 + 99));
    kc_appsim_result_free(&r);
    kc_simnet_free(&mc.net);
}

/* o = g = O = 0 and S infinite (L and G are ignored) is the run without
 * parameters, bit for bit, on seeded random schedules. */
static void test_loggops_zero_is_ncube(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 2111);
    for (int trial = 0; trial < 60; trial++) {
        machine mc;
        cube(&mc, 4, trial % 2 ? KC_ROUTE_ECUBE : KC_ROUTE_LIMIN, 1, 1 + trial % 3);
        kc_goal g;
        kc_test_random_goal(&g, 16, &rng);
        kc_loggops_params lp = {kc_rng_below(&rng, 5000), 0, 0, kc_rng_below(&rng, 50), 0, KC_LOGGOPS_S_INF};
        kc_appsim_opts o = {(double)kc_rng_below(&rng, 200), 0.1 + (double)kc_rng_below(&rng, 10) / 10,
                            1 + (int)kc_rng_below(&rng, 4), NULL};
        kc_appsim_result a, b;
        replay_goal(&g, &mc, &o, &a);
        o.loggops = &lp;
        replay_goal(&g, &mc, &o, &b);
        assert_memory_equal(&a.total_us, &b.total_us, sizeof a.total_us);
        assert_memory_equal(a.finish_us, b.finish_us, g.num_ranks * sizeof *a.finish_us);
        assert_memory_equal(a.phase_us, b.phase_us, a.nphases * sizeof *a.phase_us);
        assert_int_equal(a.sim.cycles, b.sim.cycles);
        kc_appsim_result_free(&a);
        kc_appsim_result_free(&b);
        kc_goal_free(&g);
        kc_simnet_free(&mc.net);
    }
}

/* The network replay is never faster than LogGOPS with the network's
 * zero-load numbers (L: start-up + the smallest first-byte latency; G: the
 * byte time): each CPU and NIC takes its work in the LogGOPS run's order,
 * every duration and latency no shorter (docs/appsim.md). 150 seeded random
 * schedules with random o, g (0 on a third), O, S (rendezvous on a quarter),
 * one chain per rank on a fifth, two ranks a node on some, routings, byte
 * times and flit sizes: none below. The greedy order of the network's own
 * events (the reading before the bound) is below on some of the same. The
 * slow test_appsim_bound runs thousands. */
static void test_loggops_lower_bound(void **state)
{
    (void)state;
    kc_test_bound b;
    kc_test_loggops_bound(2112, 150, KC_APPSIM_ORDER_LOGGOPS, &b);
    assert_true(b.ran >= 140);
    assert_int_equal(b.fixed, b.ran);
    assert_true(b.chains >= 20 && b.rendezvous >= 20 && b.packed >= 5 && b.gap0 >= 40);
    assert_int_equal(b.below, 0);
    kc_test_loggops_bound(2112, 150, KC_APPSIM_ORDER_GREEDY, &b);
    assert_int_equal(b.fixed, 0);
    assert_true(b.below >= 5); /* 15 of 150 with this seed, by up to 37 % */
}

/* The difference split along the critical path, by hand: ranks 0 and 1
 * send 100 bytes each to rank 3 on the 2-cube (start-up 10 µs, 1 µs a
 * byte, o = 1 µs, g = 0). LogGOPS (L = 10 + 3 cycles): both first bytes at
 * 14, rank 3 takes rank 0's (sent first) until 114, rank 1's until 214.
 * The network, in that order: rank 1's worm (one hop) holds the channel
 * 1 -> 3 for 100 cycles, so rank 0's tail (two hops) comes at 214 = its
 * zero-load 114 + 100; rank 1's message is taken 214..314. Along the path
 * (rank 1's intake, rank 0's tail, rank 0's send): channels 100, pipeline
 * 1 (two hops against the one L holds), and -1 where LogGOPS's CPU took
 * rank 0's message 1 µs after its (s-1) G tail. */
static const char *incast = "num_ranks 4\n"
                            "rank 0 {\na: send 100b to 3 tag 0\n}\n"
                            "rank 1 {\na: send 100b to 3 tag 1\n}\n"
                            "rank 3 {\na: recv 100b from 0 tag 0\nb: recv 100b from 1 tag 1\n}\n";
static void test_critical_path(void **state)
{
    (void)state;
    machine mc;
    cube(&mc, 2, KC_ROUTE_ECUBE, 1, 1);
    kc_loggops_params lp = {0, 1000, 0, 0, 0, KC_LOGGOPS_S_INF};
    kc_appsim_opts o = {10, 1, 1, &lp};
    kc_appsim_result r;
    replay_text(incast, &mc, &o, &r);
    assert_true(r.fixed_order && r.path.ok);
    NEAR(r.loggops_us, 214);
    NEAR(r.total_us, 314);
    NEAR(r.path.channel_wait, 100);
    NEAR(r.path.pipeline, 1);
    NEAR(r.path.elsewhere, -1);
    NEAR(r.path.start_up + r.path.cpu + r.path.nic + r.path.cycle_boundary + r.path.injection_wait + r.path.other, 0);
    assert_int_equal(r.path.steps, 4);
    assert_int_equal(r.path.messages, 1);
    kc_appsim_result_free(&r);
    /* the nCUBE 2 run (no parameters, the greedy order): rank 3 ends with
     * rank 0's tail at 213 (zero-load 113 + 100 behind rank 1's worm);
     * LogGOPS (o = 0) ends at 211, its second intake held by the NIC's 99
     * byte times, which the nCUBE 2 receiver does not charge: channels 100,
     * pipeline 1, LogGOPS elsewhere -99 */
    o.loggops = NULL;
    replay_text(incast, &mc, &o, &r);
    assert_false(r.fixed_order);
    assert_true(r.path.ok);
    NEAR(r.total_us, 213);
    NEAR(r.loggops_us, 211);
    NEAR(r.path.channel_wait, 100);
    NEAR(r.path.pipeline, 1);
    NEAR(r.path.elsewhere, -99);
    NEAR(r.path.start_up + r.path.cpu + r.path.nic + r.path.cycle_boundary + r.path.injection_wait + r.path.other, 0);
    assert_int_equal(r.path.steps, 2);
    kc_appsim_result_free(&r);
    kc_simnet_free(&mc.net);
}

/* GOAL's cpu numbers: with --loggops parameters the network
 * replay runs a rank's CPUs in parallel as LogGOPS does; without, one CPU. */
static void test_cpu_qualifier(void **state)
{
    (void)state;
    machine mc;
    cube(&mc, 1, KC_ROUTE_ECUBE, 1, 1);
    const char *two = "num_ranks 2\nrank 0 {\na: calc 5000 cpu 1\nb: calc 3000\nc: send 10b to 1 tag 0 cpu 1\n"
                      "c requires a\n}\nrank 1 {\na: recv 10b from 0 tag 0\nb: calc 4000 cpu 1\n}\n";
    kc_loggops_params lp = {0, 1000, 500, 0, 0, KC_LOGGOPS_S_INF};
    kc_appsim_opts o = {0, 1, 1, &lp};
    kc_appsim_result r;
    replay_text(two, &mc, &o, &r);
    assert_true(r.fixed_order);
    /* rank 0: a on CPU 1 (0..5) while b runs on CPU 0 (0..3); c on CPU 1
     * 5..6 (o), leaves at 6; L = 3 cycles (one hop), so its first byte is
     * at 9 in both models and its tail (10 flits) at 18; rank 1 takes it on
     * its CPU 1 (numbered like the send's, after its calc 0..4) from 9 for
     * o + 9 byte times: 19, as LogGOPS says */
    NEAR(r.finish_us[0], 6);
    NEAR(r.total_us, 19);
    NEAR(r.loggops_us, 19);
    kc_appsim_result_free(&r);
    o.loggops = NULL; /* one CPU a rank: 5 + 3 + 0, the message at 8 + 10 + 2 */
    replay_text(two, &mc, &o, &r);
    NEAR(r.finish_us[0], 8);
    NEAR(r.total_us, 20);
    kc_appsim_result_free(&r);
    kc_simnet_free(&mc.net);
}

static void test_rejects(void **state)
{
    (void)state;
    machine mc;
    cube(&mc, 1, KC_ROUTE_ECUBE, 1, 1);
    kc_goal g;
    kc_goal_match m;
    kc_err err = {0};
    kc_appsim_result r;
    assert_int_equal(kc_goal_read_mem(&g, pingpong, strlen(pingpong), "t", NULL, 0, &err), KC_OK);
    assert_int_equal(kc_goal_validate(&g, 2, &m, &err), KC_OK);
    kc_appsim_opts o = {10, 0, 1, NULL};
    assert_int_equal(kc_appsim_run(&g, &m, &mc.net, &mc.route, &mc.cfg, &o, &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "byte_time");
    o = (kc_appsim_opts){-1, 1, 1, NULL};
    assert_int_equal(kc_appsim_run(&g, &m, &mc.net, &mc.route, &mc.cfg, &o, &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "startup");
    o = (kc_appsim_opts){1, 1, 0, NULL};
    assert_int_equal(kc_appsim_run(&g, &m, &mc.net, &mc.route, &mc.cfg, &o, &r, &err), KC_ERANGE);
    assert_string_equal(err.param, "bytes_per_flit");
    kc_goal_match_free(&m);
    kc_goal_free(&g);
    kc_simnet_free(&mc.net);
}

/* Seed 000 Section 6.2: the FFT on the 6-cube (d = 1 and 2), e-cube, with
 * and without the optimal reordering of the bit-reverse. */
static void fft(int n, int d, int mapped, kc_appsim_result *r)
{
    machine mc;
    cube(&mc, n, KC_ROUTE_ECUBE, 1, 1);
    kc_goal g;
    kc_err err = {0};
    uint32_t p = 1u << n;
    assert_int_equal(kc_goal_init(&g, p, &err), KC_OK);
    assert_int_equal(kc_goal_gen_fft(&g, n, d, 5120, 4470, &err), KC_OK);
    if (mapped) {
        kc_lcc br;
        kc_order best;
        assert_int_equal(kc_lcc_named(&br, "bit-reverse", n, &err), KC_OK);
        assert_int_equal(kc_reorder_optimal(&br, &best, &err), KC_OK);
        uint32_t *to_phys = malloc(p * sizeof *to_phys);
        assert_non_null(to_phys);
        for (uint32_t v = 0; v < p; v++)
            to_phys[v] = kc_test_reorder_node(v, best.dim, n);
        assert_int_equal(kc_goal_remap(&g, to_phys, &err), KC_OK);
        free(to_phys);
    }
    replay_goal(&g, &mc, NULL, r);
    kc_goal_free(&g);
    kc_simnet_free(&mc.net);
}

static uint32_t phase_index(kc_goal *g, const char *name)
{
    for (uint32_t i = 0; i < g->nphases; i++)
        if (!strcmp(kc_goal_phase_name(g, i), name))
            return i;
    fail_msg("no phase %s", name);
    return 0;
}

static void test_fft(void **state)
{
    (void)state;
    kc_goal g;
    kc_err err = {0};
    assert_int_equal(kc_goal_init(&g, 64, &err), KC_OK);
    assert_int_equal(kc_goal_gen_fft(&g, 6, 1, 5120, 4470, &err), KC_OK);
    uint32_t br = phase_index(&g, "bit-reverse"), nb = phase_index(&g, "neighbour");
    kc_goal_free(&g);
    for (int d = 1; d <= 2; d++) {
        kc_appsim_result plain, mapped;
        fft(6, d, 0, &plain);
        fft(6, d, 1, &mapped);
        assert_int_equal(plain.messages, mapped.messages);
        NEAR(plain.loggp_us, mapped.loggp_us);
        assert_true(mapped.phase_us[br] < plain.phase_us[br]);
        assert_true(mapped.total_us < plain.total_us);
        assert_true(plain.total_us > plain.loggp_us);
        print_message("d = %d: bit-reverse %.2f / %.2f us, neighbour %.2f / %.2f us, total %.2f / %.2f us (LogGP %.2f)\n",
                      d, plain.phase_us[br], mapped.phase_us[br], plain.phase_us[nb], mapped.phase_us[nb],
                      plain.total_us, mapped.total_us, plain.loggp_us);
        /* block of 16 x 4^d bytes; the mapped bit-reverse has no contention:
         * start-up, L flits and at most 6 + 1 cycles of pipeline */
        double block = 16.0 * (1 << (2 * d)), c = 0.57;
        assert_true(mapped.phase_us[br] <= ceil(164 / c) * c + (block + 7) * c + 1e-9);
        assert_true(plain.phase_us[br] > 164 + block * c * 2);
        kc_appsim_result_free(&plain);
        kc_appsim_result_free(&mapped);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pingpong),         cmocka_unit_test(test_chain),
        cmocka_unit_test(test_contention),       cmocka_unit_test(test_random_schedules),
        cmocka_unit_test(test_rejects),          cmocka_unit_test(test_random_relays),          cmocka_unit_test(test_fft),
        cmocka_unit_test(test_loggops_pingpong), cmocka_unit_test(test_loggops_zero_is_ncube),
        cmocka_unit_test(test_loggops_lower_bound), cmocka_unit_test(test_critical_path),
        cmocka_unit_test(test_cpu_qualifier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
