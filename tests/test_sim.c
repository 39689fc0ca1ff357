/* Wormhole simulator: zero-load formula, hand-computed one-shot permutations,
 * conservation, the deadlock watchdog, reproducibility, and small fast
 * versions of the seeds' qualitative results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/lcc.h"
#include "kcube/mapset.h"
#include "kcube/reorder.h"
#include "kcube/rng.h"
#include "kcube/sim.h"
#include "kcube/simscenario.h"
#include "kcube/simstats.h"
#include "kcube/simsweep.h"
#include "kcube/tcontention.h"
#include "sim_random.h"

static void net_init(kc_simnet *net, kc_simtopo topo, int k, int n, int vcs, int depth)
{
    kc_err err;
    assert_int_equal(kc_simnet_init(net, topo, k, n, vcs, 1, 1, depth, &err), KC_OK);
}

/* One message alone in the network. */
static kc_simresult single(const kc_simnet *net, const kc_simroute *r, const kc_simconfig *c, uint32_t s, uint32_t d)
{
    kc_err err;
    kc_simtraffic tr;
    kc_simresult res;
    assert_int_equal(kc_simtraffic_pairs(&tr, net->nodes, &s, &d, 1, NULL, &err), KC_OK);
    assert_int_equal(kc_sim_run(net, r, &tr, c, &res, &err), KC_OK);
    kc_simtraffic_free(&tr);
    return res;
}

static void check_zero_load(kc_simtopo topo, int k, int n, int vcs, kc_simalgo algo, kc_simvcrule rule)
{
    kc_simnet net;
    kc_simroute r = {algo, rule, KC_TIE_PLUS};
    kc_rng rng;
    kc_rng_seed(&rng, (uint64_t)(k * 100 + n));
    /* default timing, then the knobs with buffers deep enough to stream */
    int knobs[4][4] = {{0, 0, 1, 1}, {2, 0, 1, 1}, {1, 1, 2, 3}, {0, 3, 1, 4}};
    for (int kn = 0; kn < 4; kn++) {
        net_init(&net, topo, k, n, vcs, knobs[kn][3]);
        kc_simconfig c;
        kc_simconfig_default(&c);
        c.oneshot = 1;
        c.route_delay = knobs[kn][0];
        c.switch_delay = knobs[kn][1];
        c.link_latency = knobs[kn][2];
        for (int t = 0; t < 12; t++) {
            uint32_t s = (uint32_t)kc_rng_below(&rng, net.nodes), d = (uint32_t)kc_rng_below(&rng, net.nodes);
            if (t == 0) {
                s = 0;
                d = net.nodes - 1;
            }
            if (s == d)
                continue;
            c.msg_flits = 1 + (int)kc_rng_below(&rng, 30);
            kc_simresult res = single(&net, &r, &c, s, d);
            int h = kc_simnet_distance(&net, s, d);
            assert_int_equal(res.messages, 1);
            assert_int_equal((int64_t)res.latency_avg, kc_sim_zero_load(&c, h));
            assert_int_equal(res.completion, kc_sim_zero_load(&c, h));
            assert_int_equal(res.link_traversals, (uint64_t)h * (uint64_t)c.msg_flits);
            assert_true(res.network_latency_avg == res.latency_avg);
        }
        kc_simnet_free(&net);
    }
}

static void test_zero_load_formula(void **state)
{
    (void)state;
    check_zero_load(KC_SIM_HYPERCUBE, 2, 8, 1, KC_ROUTE_ECUBE, KC_VC_NONE);
    check_zero_load(KC_SIM_HYPERCUBE, 2, 6, 1, KC_ROUTE_PCUBE, KC_VC_NONE);
    check_zero_load(KC_SIM_HYPERCUBE, 2, 6, 2, KC_ROUTE_DUATO, KC_VC_NONE);
    check_zero_load(KC_SIM_TORUS, 4, 4, 2, KC_ROUTE_DOR, KC_VC_HIGHLOW);
    check_zero_load(KC_SIM_TORUS, 5, 3, 2, KC_ROUTE_DOR, KC_VC_DATELINE);
    check_zero_load(KC_SIM_TORUS, 8, 2, 2, KC_ROUTE_DOR, KC_VC_HIGHLOW);
    check_zero_load(KC_SIM_MESH, 4, 3, 1, KC_ROUTE_DOR, KC_VC_NONE);
    check_zero_load(KC_SIM_MESH, 3, 2, 2, KC_ROUTE_DOR, KC_VC_NONE);
}

static kc_simresult oneshot(const kc_simnet *net, const kc_simroute *r, const kc_simtraffic *tr, int flits)
{
    kc_err err;
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    c.msg_flits = flits;
    kc_simresult res;
    assert_int_equal(kc_sim_run(net, r, tr, &c, &res, &err), KC_OK);
    return res;
}

/* 2-cube, messages 0 -> 3 and 1 -> 3 (e-cube, 20 flits). B = 1 -> 3 takes
 * channel 1 -> 3 at cycle 1 and ejects its tail at cycle 21 (arrival 22).
 * A = 0 -> 3 reaches node 1 at cycle 2 and waits; it gets 1 -> 3 at cycle 22,
 * the ejection channel at 23, and its tail arrives at 24 + 19 = 43. */
static void test_oneshot_hand_computed(void **state)
{
    (void)state;
    kc_err err;
    kc_simnet net;
    net_init(&net, KC_SIM_HYPERCUBE, 2, 2, 1, 1);
    kc_simroute r = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    uint32_t s[2] = {0, 1}, d[2] = {3, 3};
    kc_simtraffic tr;
    assert_int_equal(kc_simtraffic_pairs(&tr, 4, s, d, 2, NULL, &err), KC_OK);
    kc_simresult res = oneshot(&net, &r, &tr, 20);
    assert_int_equal(res.completion, 43);
    assert_int_equal(res.messages, 2);
    assert_true(res.latency_avg == (22.0 + 43.0) / 2);
    kc_simtraffic_free(&tr);
    /* The same on a 4-node ring (torus k = 4, n = 1): 0 -> 2 and 1 -> 2 share 1 -> 2. */
    kc_simnet_free(&net);
    net_init(&net, KC_SIM_TORUS, 4, 1, 2, 1);
    kc_simroute rr = {KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_TIE_PLUS};
    uint32_t s2[2] = {0, 1}, d2[2] = {2, 2};
    assert_int_equal(kc_simtraffic_pairs(&tr, 4, s2, d2, 2, NULL, &err), KC_OK);
    res = oneshot(&net, &rr, &tr, 20);
    assert_int_equal(res.completion, 43);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);

    /* 2-cube gather 0 -> 3, 1 -> 3, 2 -> 3. B = 1 -> 3 and C = 2 -> 3 reach
     * node 3 together at cycle 2; B's input channel (1>d1, id 3) is below C's
     * (2>d0, id 4), so B ejects first: tail at 22, ejection free after cycle
     * 21. C ejects from cycle 22: tail at 42. A = 0 -> 3 gets 1>d1 at 22
     * (B's tail left it at 21), is at node 3 at 23, waits for C's ejection to
     * end (cycle 41), ejects from 42: tail at 43 + 19 = 62. */
    net_init(&net, KC_SIM_HYPERCUBE, 2, 2, 1, 1);
    uint32_t s3[3] = {0, 1, 2}, d3[3] = {3, 3, 3};
    assert_int_equal(kc_simtraffic_pairs(&tr, 4, s3, d3, 3, NULL, &err), KC_OK);
    res = oneshot(&net, &r, &tr, 20);
    assert_int_equal(res.completion, 62);
    assert_true(res.latency_avg == (22.0 + 42.0 + 62.0) / 3);
    kc_simtraffic_free(&tr);
    /* complement on the 2-cube and a shift on a 4-ring: no shared channel,
     * so every message takes H + L + 1 */
    uint32_t s4[4] = {0, 1, 2, 3}, d4[4] = {3, 2, 1, 0};
    assert_int_equal(kc_simtraffic_pairs(&tr, 4, s4, d4, 4, NULL, &err), KC_OK);
    res = oneshot(&net, &r, &tr, 20);
    assert_int_equal(res.completion, 2 + 21);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
    net_init(&net, KC_SIM_TORUS, 4, 1, 2, 1);
    uint32_t d5[4] = {1, 2, 3, 0};
    assert_int_equal(kc_simtraffic_pairs(&tr, 4, s4, d5, 4, NULL, &err), KC_OK);
    res = oneshot(&net, &rr, &tr, 20);
    assert_int_equal(res.completion, 1 + 21);
    assert_true(res.latency_avg == 22.0);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
}

static uint64_t order_phys(const void *ctx, uint64_t v) { return kc_order_to_physical(ctx, v); }

/* Contention-free mapped transpose (M-S): every message finishes at its own
 * zero-load time, so the completion is the longest distance + L + 1 = 29. */
static void test_oneshot_mapped_contention_free(void **state)
{
    (void)state;
    kc_err err;
    kc_simnet net;
    net_init(&net, KC_SIM_HYPERCUBE, 2, 8, 1, 1);
    kc_simroute r = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    const char *names[3] = {"transpose", "bit-reverse", "reverse-flip"};
    for (int p = 0; p < 3; p++) {
        kc_lcc c;
        kc_order o;
        kc_nodemap m;
        kc_simtraffic tr;
        assert_int_equal(kc_lcc_named(&c, names[p], 8, &err), KC_OK);
        assert_int_equal(kc_reorder_optimal(&c, &o, &err), KC_OK);
        assert_int_equal(kc_nodemap_build(&m, 256, order_phys, &o, &err), KC_OK);
        assert_int_equal(kc_simtraffic_lcc(&tr, &c, &m, &err), KC_OK);
        long long cont;
        assert_int_equal(kc_simtraffic_contention(&net, &r, &tr, &cont, &err), KC_OK);
        assert_int_equal(cont, 1);
        int maxh = 0;
        double sum = 0;
        uint64_t msgs = 0;
        for (uint32_t x = 0; x < 256; x++)
            for (uint32_t j = tr.start[x]; j < tr.start[x + 1]; j++) {
                int h = kc_simnet_distance(&net, x, tr.dest[j]);
                maxh = h > maxh ? h : maxh;
                sum += h + 21;
                msgs++;
            }
        kc_simresult res = oneshot(&net, &r, &tr, 20);
        assert_int_equal(res.completion, maxh + 21);
        assert_int_equal(res.messages, msgs);
        assert_true(res.latency_avg > sum / (double)msgs - 1e-9 && res.latency_avg < sum / (double)msgs + 1e-9);
        kc_simtraffic_free(&tr);
        /* unmapped: contention 8 shows in the completion time */
        assert_int_equal(kc_simtraffic_lcc(&tr, &c, NULL, &err), KC_OK);
        assert_int_equal(kc_simtraffic_contention(&net, &r, &tr, &cont, &err), KC_OK);
        assert_int_equal(cont, 8);
        res = oneshot(&net, &r, &tr, 20);
        assert_true(res.completion >= 8 * 20);
        kc_simtraffic_free(&tr);
        kc_nodemap_free(&m);
    }
    kc_simnet_free(&net);
}

static void check_conservation(kc_simtopo topo, int k, int n, int vcs, kc_simroute r, const char *pattern,
                               double load)
{
    kc_err err;
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.topo = topo;
    sp.k = k;
    sp.n = n;
    sp.vcs = vcs;
    sp.route = r;
    sp.pattern = pattern;
    kc_simscenario sc;
    assert_int_equal(kc_simscenario_build(&sc, &sp, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.warmup = 300;
    c.measure = 1500;
    c.drain = 500;
    c.load = load;
    kc_simresult res;
    assert_int_equal(kc_sim_run(&sc.net, &sc.route, &sc.traffic, &c, &res, &err), KC_OK);
    assert_false(res.deadlock);
    assert_true(res.flits_generated > 0);
    assert_true(res.flits_generated == res.flits_delivered + res.flits_queued + res.flits_in_network);
    /* a flit crosses each channel once: traversals = delivered flits x hops, bounded */
    assert_true(res.link_traversals >= res.flits_delivered);
    kc_simresult_free(&res);
    kc_simscenario_free(&sc);
}

static void test_conservation(void **state)
{
    (void)state;
    kc_simroute ec = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS}, pc = {KC_ROUTE_PCUBE, KC_VC_NONE, KC_TIE_PLUS},
                du = {KC_ROUTE_DUATO, KC_VC_NONE, KC_TIE_PLUS}, hl = {KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_TIE_PLUS},
                dl = {KC_ROUTE_DOR, KC_VC_DATELINE, KC_TIE_PLUS}, me = {KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS};
    check_conservation(KC_SIM_HYPERCUBE, 2, 6, 1, ec, "transpose", 0.5);
    check_conservation(KC_SIM_HYPERCUBE, 2, 6, 1, ec, "uniform", 0.3);
    check_conservation(KC_SIM_HYPERCUBE, 2, 6, 1, pc, "bit-reverse", 0.3);
    check_conservation(KC_SIM_HYPERCUBE, 2, 6, 2, du, "uniform", 0.6);
    check_conservation(KC_SIM_TORUS, 4, 3, 2, hl, "digit-reverse", 0.5);
    check_conservation(KC_SIM_TORUS, 5, 2, 2, dl, "uniform", 0.5);
    check_conservation(KC_SIM_MESH, 4, 2, 1, me, "transpose", 0.5);
}

/* A ring without virtual channels: every node sends two hops ahead; the four
 * worms each hold one channel and wait for the next one. */
static void test_watchdog_finds_deadlock(void **state)
{
    (void)state;
    kc_err err;
    kc_simnet net;
    net_init(&net, KC_SIM_TORUS, 4, 1, 1, 1);
    kc_simroute r = {KC_ROUTE_DOR, KC_VC_NONE, KC_TIE_PLUS};
    uint32_t s[4] = {0, 1, 2, 3}, d[4] = {2, 3, 0, 1};
    kc_simtraffic tr;
    assert_int_equal(kc_simtraffic_pairs(&tr, 4, s, d, 4, NULL, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    c.watchdog = 50;
    kc_simresult res;
    assert_int_equal(kc_sim_run(&net, &r, &tr, &c, &res, &err), KC_OK);
    assert_true(res.deadlock);
    assert_int_equal(res.cycle_len, 4);
    /* the cycle is the four + channels of the ring, in ring order */
    for (int i = 0; i < 4; i++) {
        kc_simchan ch, nx;
        kc_simnet_channel(&net, res.cycle[i], &ch);
        kc_simnet_channel(&net, res.cycle[(i + 1) % 4], &nx);
        assert_int_equal(ch.kind, KC_CH_NETWORK);
        assert_int_equal(ch.port, 0);
        assert_int_equal(nx.node, (ch.node + 1) % 4);
    }
    assert_true(res.flits_generated == res.flits_delivered + res.flits_queued + res.flits_in_network);
    char buf[64];
    assert_string_equal(kc_simnet_channel_name(&net, kc_simnet_netch(&net, 2, 0, 0), buf, sizeof buf), "2>d0+ vc0");
    /* with the seed's high/low rule, or a dateline, it completes */
    kc_simnet_free(&net);
    net_init(&net, KC_SIM_TORUS, 4, 1, 2, 1);
    kc_simvcrule rules[2] = {KC_VC_HIGHLOW, KC_VC_DATELINE};
    for (int i = 0; i < 2; i++) {
        kc_simroute rv = {KC_ROUTE_DOR, rules[i], KC_TIE_PLUS};
        assert_int_equal(kc_sim_run(&net, &rv, &tr, &c, &res, &err), KC_OK);
        assert_false(res.deadlock);
        assert_int_equal(res.messages, 4);
    }
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
}

static void test_reproducible_and_parallel(void **state)
{
    (void)state;
    kc_err err;
    kc_simscenario sc;
    kc_test_sim_uniform_cube(&sc, 6);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.warmup = 200;
    c.measure = 1000;
    c.seed = 77;
    double loads[5] = {0.1, 0.2, 0.3, 0.5, 0.8};
    kc_simsweep a, b;
    kc_simsweep_opts o1 = {loads, 5, 1, 1, NULL, NULL}, o2 = {loads, 5, 2, 1, NULL, NULL};
    assert_int_equal(kc_sim_sweep(&sc.net, &sc.route, &sc.traffic, &c, &o1, &a, &err), KC_OK);
    assert_int_equal(kc_sim_sweep(&sc.net, &sc.route, &sc.traffic, &c, &o2, &b, &err), KC_OK);
    assert_int_equal(a.count, b.count);
    assert_true(a.saturated && a.count < 5); /* 0.8 on the 6-cube is past saturation */
    for (int i = 0; i < a.count; i++) {
        assert_true(a.points[i].latency_avg == b.points[i].latency_avg);
        assert_true(a.points[i].throughput == b.points[i].throughput);
        assert_true(a.points[i].link_traversals == b.points[i].link_traversals);
    }
    assert_true(a.saturation_throughput == b.saturation_throughput);
    kc_simsweep_free(&a);
    kc_simsweep_free(&b);
    kc_simscenario_free(&sc);
}

/* Far past saturation the run gives up once the source queues pass the cap;
 * the throughput is measured over the part of the window simulated. */
static void test_gives_up_past_saturation(void **state)
{
    (void)state;
    kc_err err;
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.n = 8;
    sp.pattern = "transpose";
    kc_simscenario sc;
    assert_int_equal(kc_simscenario_build(&sc, &sp, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.load = 1.0;
    c.warmup = 50;
    c.measure = 20000;
    c.queue_cap = 16;
    kc_simresult res;
    assert_int_equal(kc_sim_run(&sc.net, &sc.route, &sc.traffic, &c, &res, &err), KC_OK);
    assert_false(res.sustainable);
    assert_true(res.cycles < c.warmup + c.measure);
    assert_true(res.throughput > 0.06 && res.throughput < 0.125);
    assert_true(res.generated > 0.8);
    assert_true(res.flits_generated == res.flits_delivered + res.flits_queued + res.flits_in_network);
    kc_simscenario_free(&sc);
}

/* Both injection processes generate the offered load (within 3%) and, below
 * saturation, deliver it; fixed points of a permutation send nothing. */
static void test_injection_rate(void **state)
{
    (void)state;
    kc_err err;
    for (int proc = 0; proc < 2; proc++)
        for (int p = 0; p < 2; p++) {
            kc_simspec sp;
            kc_simspec_default(&sp);
            sp.n = 6;
            sp.pattern = p ? "transpose" : "uniform";
            sp.mapping = p ? "optimal" : NULL;
            kc_simscenario sc;
            assert_int_equal(kc_simscenario_build(&sc, &sp, &err), KC_OK);
            kc_simconfig c;
            kc_simconfig_default(&c);
            c.process = proc ? KC_INJECT_BERNOULLI : KC_INJECT_POISSON;
            c.load = 0.2;
            c.warmup = 500;
            c.measure = 20000;
            kc_simresult res;
            assert_int_equal(kc_sim_run(&sc.net, &sc.route, &sc.traffic, &c, &res, &err), KC_OK);
            /* transpose on the 6-cube: 8 of 64 nodes are fixed points */
            double expect = p ? 0.2 * 56.0 / 64.0 : 0.2;
            assert_true(res.generated > 0.97 * expect && res.generated < 1.03 * expect);
            assert_true(res.sustainable);
            assert_true(res.throughput > 0.97 * res.generated && res.throughput < 1.03 * res.generated);
            assert_true(res.network_latency_avg <= res.latency_avg);
            kc_simscenario_free(&sc);
        }
}

static void test_sample_quantile(void **state)
{
    (void)state;
    kc_simsample s;
    kc_simsample_init(&s);
    for (uint32_t i = 100; i >= 1; i--)
        assert_int_equal(kc_simsample_add(&s, i), KC_OK);
    assert_true(kc_simsample_mean(&s) == 50.5);
    assert_int_equal(kc_simsample_quantile(&s, 0.99), 99);
    assert_int_equal(kc_simsample_quantile(&s, 0.5), 50);
    assert_int_equal(kc_simsample_quantile(&s, 1.0), 100);
    kc_simsample_free(&s);
}

static int cmp_u32_test(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The histogram sample against a sorted copy of every value, on seeded
 * random samples with values on both sides of KC_SIMSAMPLE_HIST. */
static void test_sample_histogram(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 23);
    for (int trial = 0; trial < 40; trial++) {
        uint32_t n = 1 + (uint32_t)kc_rng_below(&rng, 3000);
        uint32_t *v = malloc(n * sizeof *v);
        assert_non_null(v);
        kc_simsample s;
        kc_simsample_init(&s);
        double sum = 0;
        for (uint32_t i = 0; i < n; i++) {
            int kind = (int)kc_rng_below(&rng, 10);
            v[i] = kind < 7   ? (uint32_t)kc_rng_below(&rng, 500)
                   : kind < 9 ? (uint32_t)kc_rng_below(&rng, KC_SIMSAMPLE_HIST)
                              : KC_SIMSAMPLE_HIST + (uint32_t)kc_rng_below(&rng, 1u << 30);
            if (trial % 4 == 0)
                v[i] %= 300; /* histogram only */
            sum += v[i];
            assert_int_equal(kc_simsample_add(&s, v[i]), KC_OK);
        }
        qsort(v, n, sizeof *v, cmp_u32_test);
        const double qs[] = {0.01, 0.5, 0.9, 0.99, 0.999, 1.0};
        for (size_t j = 0; j < sizeof qs / sizeof *qs; j++) {
            size_t rank = (size_t)ceil(qs[j] * n - 1e-9);
            rank = rank < 1 ? 1 : rank;
            assert_int_equal(kc_simsample_quantile(&s, qs[j]), v[rank - 1]);
        }
        assert_true(s.count == n && kc_simsample_mean(&s) == sum / n);
        assert_true(kc_simsample_bytes(n, (uint64_t)v[n - 1] + 1) >= s.hcap * sizeof(uint64_t) + s.bigcap * sizeof(uint32_t));
        kc_simsample_free(&s);
        free(v);
    }
}

/* Fast versions of the seeds' results: one load each, short windows. */
static kc_simresult point(const char *pattern, const char *mapping, kc_simalgo algo, int vcs, double load)
{
    kc_err err;
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.n = 8;
    sp.pattern = pattern;
    sp.mapping = mapping;
    sp.route.algo = algo;
    sp.vcs = vcs;
    kc_simscenario sc;
    assert_int_equal(kc_simscenario_build(&sc, &sp, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.warmup = 1000;
    c.measure = 3000;
    c.load = load;
    kc_simresult res;
    assert_int_equal(kc_sim_run(&sc.net, &sc.route, &sc.traffic, &c, &res, &err), KC_OK);
    kc_simscenario_free(&sc);
    return res;
}

static void test_seed_results_fast(void **state)
{
    (void)state;
    const char *names[3] = {"transpose", "bit-reverse", "reverse-flip"};
    for (int p = 0; p < 3; p++) {
        assert_false(point(names[p], NULL, KC_ROUTE_ECUBE, 1, 0.15).sustainable);
        assert_true(point(names[p], "optimal", KC_ROUTE_ECUBE, 1, 0.5).sustainable);
    }
    kc_simresult r = point("transpose", "set:transpose,bit-reverse,reverse-flip", KC_ROUTE_ECUBE, 1, 0.3);
    assert_true(r.sustainable);
    /* P-cube: good on reverse-flip, poor on bit-reverse (seed 000 Section 6.1);
     * at 0.3 some reverse-flip sources already fall behind */
    assert_true(point("reverse-flip", NULL, KC_ROUTE_PCUBE, 1, 0.2).sustainable);
    assert_false(point("bit-reverse", NULL, KC_ROUTE_PCUBE, 1, 0.15).sustainable);
}

static kc_simresult tpoint(const char *pattern, const char *mapping, double load)
{
    kc_err err;
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.topo = KC_SIM_TORUS;
    sp.k = 4;
    sp.n = 4;
    sp.vcs = 2;
    sp.route.algo = KC_ROUTE_DOR;
    sp.pattern = pattern;
    sp.mapping = mapping;
    kc_simscenario sc;
    assert_int_equal(kc_simscenario_build(&sc, &sp, &err), KC_OK);
    if (strcmp(pattern, "uniform"))
        assert_int_equal(sc.contention, mapping ? 2 : 8);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.warmup = 1000;
    c.measure = 3000;
    c.load = load;
    kc_simresult res;
    assert_int_equal(kc_sim_run(&sc.net, &sc.route, &sc.traffic, &c, &res, &err), KC_OK);
    kc_simscenario_free(&sc);
    return res;
}

/* Seed 002 on the 4-ary 4-cube, one load each. */
static void test_seed002_fast(void **state)
{
    (void)state;
    assert_false(tpoint("transpose", NULL, 0.15).sustainable);
    assert_false(tpoint("digit-reverse", NULL, 0.15).sustainable);
    assert_true(tpoint("transpose", "optimal", 0.25).sustainable);
    assert_true(tpoint("digit-reverse", "set:transpose,digit-reverse", 0.25).sustainable);
    kc_simresult a = tpoint("uniform", NULL, 0.2), b = tpoint("uniform", "set:transpose,digit-reverse", 0.2);
    assert_true(a.sustainable && b.sustainable);
    assert_true(b.latency_avg < 1.1 * a.latency_avg && b.latency_avg > 0.9 * a.latency_avg);
}

/* The VC rules on one ring of 4 (ports: 0 = +, 1 = -). */
static void test_vc_rules(void **state)
{
    (void)state;
    kc_simnet net;
    net_init(&net, KC_SIM_TORUS, 4, 1, 2, 1);
    kc_simroute hl = {KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_TIE_PLUS}, dl = {KC_ROUTE_DOR, KC_VC_DATELINE, KC_TIE_PLUS};
    uint32_t out[KC_SIMROUTE_MAX];
    /* 3 -> 1: distance 2, a tie, taken in + and through the wraparound: low */
    assert_int_equal(kc_simroute_candidates(&hl, &net, 3, 1, kc_simnet_injch(&net, 3, 0), out), 1);
    assert_int_equal(out[0], kc_simnet_netch(&net, 3, 0, 0));
    /* ... and it stays low after the wrap (3 -> 0 came in on VC 0) */
    assert_int_equal(kc_simroute_candidates(&hl, &net, 0, 1, kc_simnet_netch(&net, 3, 0, 0), out), 1);
    assert_int_equal(out[0], kc_simnet_netch(&net, 0, 0, 0));
    /* 0 -> 2 does not wrap: high */
    kc_simroute_candidates(&hl, &net, 0, 2, kc_simnet_injch(&net, 0, 0), out);
    assert_int_equal(out[0], kc_simnet_netch(&net, 0, 0, 1));
    /* 1 -> 0 goes - without wrapping: high; 0 -> 3 goes - through the wrap: low */
    kc_simroute_candidates(&hl, &net, 1, 0, kc_simnet_injch(&net, 1, 0), out);
    assert_int_equal(out[0], kc_simnet_netch(&net, 1, 1, 1));
    kc_simroute_candidates(&hl, &net, 0, 3, kc_simnet_injch(&net, 0, 0), out);
    assert_int_equal(out[0], kc_simnet_netch(&net, 0, 1, 0));
    /* dateline: VC 0 before the wrap, VC 1 after it */
    kc_simroute_candidates(&dl, &net, 3, 1, kc_simnet_injch(&net, 3, 0), out);
    assert_int_equal(out[0], kc_simnet_netch(&net, 3, 0, 0));
    kc_simroute_candidates(&dl, &net, 0, 1, kc_simnet_netch(&net, 3, 0, 0), out);
    assert_int_equal(out[0], kc_simnet_netch(&net, 0, 0, 1));
    kc_simroute_candidates(&dl, &net, 1, 2, kc_simnet_netch(&net, 0, 0, 0), out);
    assert_int_equal(out[0], kc_simnet_netch(&net, 1, 0, 0));
    kc_simnet_free(&net);
    /* P-cube on the 3-cube from 6 (110) to 1 (001): first the 1 -> 0 dimensions 1, 2 */
    net_init(&net, KC_SIM_HYPERCUBE, 2, 3, 1, 1);
    kc_simroute pc = {KC_ROUTE_PCUBE, KC_VC_NONE, KC_TIE_PLUS}, du = {KC_ROUTE_DUATO, KC_VC_NONE, KC_TIE_PLUS};
    assert_int_equal(kc_simroute_candidates(&pc, &net, 6, 1, kc_simnet_injch(&net, 6, 0), out), 2);
    assert_int_equal(out[0], kc_simnet_netch(&net, 6, 1, 0));
    assert_int_equal(out[1], kc_simnet_netch(&net, 6, 2, 0));
    assert_int_equal(kc_simroute_candidates(&pc, &net, 0, 1, kc_simnet_injch(&net, 0, 0), out), 1);
    kc_simnet_free(&net);
    /* Duato: adaptive VC 1 on dimensions 0, 1, 2, then the e-cube escape (dim 0, VC 0) */
    net_init(&net, KC_SIM_HYPERCUBE, 2, 3, 2, 1);
    assert_int_equal(kc_simroute_candidates(&du, &net, 0, 7, kc_simnet_injch(&net, 0, 0), out), 4);
    assert_int_equal(out[0], kc_simnet_netch(&net, 0, 0, 1));
    assert_int_equal(out[2], kc_simnet_netch(&net, 0, 2, 1));
    assert_int_equal(out[3], kc_simnet_netch(&net, 0, 0, 0));
    kc_simnet_free(&net);
}

/* Heavy overload with the deadlock-free rules: the watchdog never fires. */
static void test_no_deadlock_under_overload(void **state)
{
    (void)state;
    kc_simroute hl = {KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_TIE_PLUS}, dl = {KC_ROUTE_DOR, KC_VC_DATELINE, KC_TIE_PLUS},
                du = {KC_ROUTE_DUATO, KC_VC_NONE, KC_TIE_PLUS}, pc = {KC_ROUTE_PCUBE, KC_VC_NONE, KC_TIE_PLUS};
    check_conservation(KC_SIM_TORUS, 4, 2, 2, hl, "uniform", 2.0);
    check_conservation(KC_SIM_TORUS, 6, 2, 2, dl, "uniform", 2.0);
    check_conservation(KC_SIM_TORUS, 3, 3, 2, hl, "uniform", 2.0);
    check_conservation(KC_SIM_HYPERCUBE, 2, 5, 2, du, "uniform", 2.0);
    check_conservation(KC_SIM_HYPERCUBE, 2, 5, 1, pc, "uniform", 2.0);
}

/* The simulator's dimension-ordered routes against the torus module's
 * exact contention counter (an independent implementation of the same
 * routing): the largest number of messages on one link must agree, for
 * every tie rule, on tori and meshes, for patterns and random pairs. */
static void test_routes_match_torus_module(void **state)
{
    (void)state;
    kc_err err;
    kc_rng rng;
    kc_rng_seed(&rng, 31);
    int ks[3] = {4, 8, 4}, ns[3] = {3, 2, 2};
    kc_tie ties[3] = {KC_TIE_PLUS, KC_TIE_MINUS, KC_TIE_SPLIT};
    for (int g = 0; g < 3; g++)
        for (int mesh = 0; mesh < 2; mesh++)
            for (int ti = 0; ti < 3; ti++) {
                kc_simnet net;
                net_init(&net, mesh ? KC_SIM_MESH : KC_SIM_TORUS, ks[g], ns[g], 1, 1);
                kc_torus tor;
                assert_int_equal(kc_torus_init(&tor, ks[g], ns[g], mesh, ties[ti], &err), KC_OK);
                kc_simroute r = {KC_ROUTE_DOR, KC_VC_NONE, ties[ti]};
                for (int p = 0; p < 4; p++) {
                    uint32_t cnt = net.nodes;
                    uint32_t *s = malloc(cnt * sizeof *s), *d = malloc(cnt * sizeof *d);
                    if (p < 3) {
                        kc_tcomm c;
                        const char *names[3] = {"digit-reverse", "digit-complement", "butterfly:1"};
                        assert_int_equal(kc_tcomm_named(&c, ks[g], ns[g], names[p], &err), KC_OK);
                        assert_int_equal(kc_tcomm_endpoints(&c, s, d, NULL, &err), KC_OK);
                    } else {
                        for (uint32_t i = 0; i < cnt; i++) {
                            s[i] = (uint32_t)kc_rng_below(&rng, net.nodes);
                            d[i] = (uint32_t)kc_rng_below(&rng, net.nodes);
                        }
                    }
                    kc_tcontention tc;
                    assert_int_equal(kc_tcontention_pairs(&tor, s, d, cnt, &tc, &err), KC_OK);
                    kc_simtraffic tr;
                    assert_int_equal(kc_simtraffic_pairs(&tr, net.nodes, s, d, cnt, NULL, &err), KC_OK);
                    long long mine;
                    assert_int_equal(kc_simtraffic_contention(&net, &r, &tr, &mine, &err), KC_OK);
                    assert_int_equal((uint64_t)mine, tc.max);
                    kc_simtraffic_free(&tr);
                    free(s);
                    free(d);
                }
                kc_simnet_free(&net);
            }
}

/* A run (default windows, seed 1) or a sweep of the 8-cube. */
static kc_simresult cube_run(const char *pattern, kc_simalgo algo, double load, kc_simsweep *sweep, const double *loads,
                             int nloads)
{
    kc_err err;
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.n = 8;
    sp.pattern = pattern;
    sp.route.algo = algo;
    kc_simscenario sc;
    assert_int_equal(kc_simscenario_build(&sc, &sp, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.load = load;
    kc_simresult res;
    memset(&res, 0, sizeof res);
    if (sweep) {
        kc_simsweep_opts o = {loads, nloads, 2, 1, NULL, NULL};
        assert_int_equal(kc_sim_sweep(&sc.net, &sc.route, &sc.traffic, &c, &o, sweep, &err), KC_OK);
    } else {
        assert_int_equal(kc_sim_run(&sc.net, &sc.route, &sc.traffic, &c, &res, &err), KC_OK);
    }
    kc_simscenario_free(&sc);
    return res;
}

/* Saturation per source: under li-min the 8 bit-reverse sources
 * 8..15 are forced onto channel 8 -> 0 (and other groups of sources onto
 * other channels); at offered 0.14 they offer it 1.12 flits per cycle and
 * fall behind, while the other senders keep the aggregate above 97 % (the
 * old, aggregate rule called the point sustainable). */
static void test_per_source_saturation(void **state)
{
    (void)state;
    kc_simresult r = cube_run("bit-reverse", KC_ROUTE_LIMIN, 0.14, NULL, NULL, 0);
    assert_true(r.throughput >= 0.97 * r.generated); /* the aggregate keeps up ... */
    assert_false(r.sustainable);                      /* ... but not every source */
    assert_true(r.sources_behind >= 1 && r.sources_behind < 240);
    assert_int_equal(r.sources_judged, 240); /* the 16 fixed points send nothing */
    assert_true(r.source_worst < 256);
    assert_true(r.source_ratio_min < 0.8);
    assert_true(r.source_throughput_min < 0.125);
    assert_true(r.source_growth_max > 0.03 * 0.14 * 10000 + KC_SIM_SOURCE_SLACK * 20);
    /* the sweep's saturation is within 1/8 (the sources behind 8 -> 0 get at most 1/8 each) */
    double loads[10];
    for (int i = 0; i < 10; i++)
        loads[i] = 0.02 * (i + 1);
    kc_simsweep sw;
    cube_run("bit-reverse", KC_ROUTE_LIMIN, 0.1, &sw, loads, 10);
    assert_true(sw.saturated);
    assert_true(sw.saturation_throughput <= 0.125 + 0.002);
    assert_true(sw.saturation_source_min > 0 && sw.saturation_source_min <= sw.saturation_throughput * 1.2);
    kc_simsweep_free(&sw);
    /* uniform traffic below saturation: every source keeps up, as before */
    r = cube_run("uniform", KC_ROUTE_ECUBE, 0.3, NULL, NULL, 0);
    assert_true(r.sustainable);
    assert_int_equal(r.sources_behind, 0);
    assert_int_equal(r.sources_judged, 256);
    assert_true(r.source_ratio_min > 0.8 && r.source_ratio_min <= 1.5);
    assert_true(r.source_throughput_min > 0.1 && r.source_throughput_min < r.throughput);
    /* a one-shot run judges no source */
    kc_simnet net;
    net_init(&net, KC_SIM_HYPERCUBE, 2, 3, 1, 1);
    kc_simroute ec = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    uint32_t src[2] = {0, 1}, dst[2] = {7, 6};
    kc_err err;
    kc_simtraffic tr;
    assert_int_equal(kc_simtraffic_pairs(&tr, net.nodes, src, dst, 2, NULL, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    assert_int_equal(kc_sim_run(&net, &ec, &tr, &c, &r, &err), KC_OK);
    assert_true(r.sustainable);
    assert_int_equal(r.sources_judged, 0);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
}

/* Configuration names: every name and alias of the table runs
 * its entry; "M-S" is M-S (the old parser looked at the second character,
 * '-', and ran M-G); routing names are configurations too. */
static void test_config_names(void **state)
{
    (void)state;
    kc_err err;
    kc_simalgo algo;
    char *m;
    int entries = 0;
    for (const kc_simconf_def *d = kc_simconf_defs; d->name; d++, entries++) {
        const char *want = d->map == KC_SIMCONF_MAP_OPTIMAL ? "optimal" : "set:a,b";
        assert_ptr_equal(kc_simconf_find(d->name), d);
        assert_int_equal(kc_simconf_parse(d->name, "a,b", "file", &algo, &m, &err), KC_OK);
        assert_int_equal(algo, d->algo);
        assert_string_equal(m, want);
        free(m);
        for (int i = 0; d->aliases[i]; i++) {
            assert_ptr_equal(kc_simconf_find(d->aliases[i]), d);
            assert_int_equal(kc_simconf_parse(d->aliases[i], "a,b", NULL, &algo, &m, &err), KC_OK);
            assert_int_equal(algo, d->algo);
            assert_string_equal(m, want);
            free(m);
        }
    }
    assert_int_equal(entries, 2);
    assert_int_equal(kc_simconf_find("M-S")->map, KC_SIMCONF_MAP_OPTIMAL);
    assert_int_equal(kc_simconf_find("M-G")->map, KC_SIMCONF_MAP_SET);
    /* routing names: the routing, with the run's mapping or the one after '@' */
    for (const kc_name *e = kc_simalgo_names.entries; e->name; e++) {
        assert_null(kc_simconf_find(e->name));
        assert_int_equal(kc_simconf_parse(e->name, "a", NULL, &algo, &m, &err), KC_OK);
        assert_int_equal(algo, e->value);
        assert_string_equal(m, "none");
        free(m);
    }
    assert_int_equal(kc_simconf_parse("pcube", "a", "optimal", &algo, &m, &err), KC_OK);
    assert_string_equal(m, "optimal");
    free(m);
    assert_int_equal(kc_simconf_parse("li-min@x@y", "a", "optimal", &algo, &m, &err), KC_OK);
    assert_int_equal(algo, KC_ROUTE_LIMIN);
    assert_string_equal(m, "x@y");
    free(m);
    assert_int_equal(kc_simconf_parse("M-S@map.txt", "a", NULL, &algo, &m, &err), KC_EINVAL);
    assert_string_equal(err.param, "configs");
    assert_null(m);
    assert_int_equal(kc_simconf_parse("m-s", "a", NULL, &algo, &m, &err), KC_EINVAL);
    assert_string_equal(err.param, "configs");
    assert_int_equal(kc_simconf_parse("", "a", NULL, &algo, &m, &err), KC_EINVAL);
}

static void test_bad_config(void **state)
{
    (void)state;
    kc_err err;
    kc_simnet net;
    assert_int_equal(kc_simnet_init(&net, KC_SIM_TORUS, 1, 3, 1, 1, 1, 1, &err), KC_ERANGE);
    net_init(&net, KC_SIM_TORUS, 4, 2, 1, 1);
    kc_simroute r = {KC_ROUTE_DOR, KC_VC_HIGHLOW, KC_TIE_PLUS};
    assert_int_equal(kc_simroute_check(&r, &net, &err), KC_EINVAL);
    r.algo = KC_ROUTE_ECUBE;
    assert_int_equal(kc_simroute_check(&r, &net, &err), KC_EINVAL);
    kc_simalgo a;
    assert_int_equal(kc_simalgo_parse("mixab3", &a, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "could not be established"));
    kc_simnet_free(&net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_load_formula),     cmocka_unit_test(test_oneshot_hand_computed),
        cmocka_unit_test(test_oneshot_mapped_contention_free), cmocka_unit_test(test_conservation),
        cmocka_unit_test(test_watchdog_finds_deadlock), cmocka_unit_test(test_reproducible_and_parallel),
        cmocka_unit_test(test_sample_quantile),       cmocka_unit_test(test_sample_histogram),       cmocka_unit_test(test_injection_rate),       cmocka_unit_test(test_gives_up_past_saturation),       cmocka_unit_test(test_seed_results_fast),
        cmocka_unit_test(test_vc_rules),              cmocka_unit_test(test_no_deadlock_under_overload),
        cmocka_unit_test(test_seed002_fast),          cmocka_unit_test(test_routes_match_torus_module),          cmocka_unit_test(test_bad_config),
        cmocka_unit_test(test_config_names),          cmocka_unit_test(test_per_source_saturation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
