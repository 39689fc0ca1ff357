/* One run on several threads (kc_simconfig.threads, src/sim/trains.c and threads.c):
 * the worm-level loop splits header arbitration by node range, and the
 * results must not depend on the number of threads (the stream loop's
 * split allocation is checked against the flit loop in test_sim_stream). On random
 * configurations (cube, torus and mesh sizes, routings, VC rules, ports,
 * route delays, message lengths, loads, patterns, processes, one-shot runs,
 * per-link counts, rings that deadlock) runs on 1, 2, 3 and 4 threads must
 * give every field of the result, every per-link count and every delivery
 * (message and cycle, in delivery order) identical, and identical to one
 * thread run as small networks run. Small networks are split here (and
 * prefetch, as large ones do) through kci_sim_run_par's node threshold;
 * two runs check the public threshold on a 2^18-node cube, one for each
 * loop. Runs that do not
 * split generate on a thread of their own (feed.c), checked likewise. */
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

static void expect_same(const kc_simresult *a, const kc_simresult *b, const kc_simarrival *la, size_t na,
                        const kc_simarrival *lb, size_t nb, size_t links, int cfg, int threads)
{
    char name[32];
    snprintf(name, sizeof name, "%d threads", threads);
    kc_test_sim_expect_same(a, b, links, la, na, lb, nb, "1 thread", name, cfg);
}

/* Runs cfg on 1..4 threads (every network split, and with the prefetching
 * stages of large networks) and compares with one thread as small networks
 * run (no split, no prefetching). */
static int run_all(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *tr, kc_simconfig *c,
                   int cfgi)
{
    kc_err err;
    kc_simresult r[5];
    kc_simarrival *log[5];
    size_t nlog[5];
    c->threads = 1;
    assert_int_equal(kci_sim_run_par(net, route, tr, c, 0, KC_SIM_PAR_NODES, &r[0], &log[0], &nlog[0], &err), KC_OK);
    for (int t = 1; t < 5; t++) {
        c->threads = t;
        assert_int_equal(kci_sim_run_par(net, route, tr, c, 0, 1, &r[t], &log[t], &nlog[t], &err), KC_OK);
    }
    for (int t = 1; t < 5; t++)
        expect_same(&r[0], &r[t], log[0], nlog[0], log[t], nlog[t], net->net_channels / (uint32_t)net->vcs + 1,
                    cfgi, t);
    /* one thread without the log (deliveries then left unsorted): the same figures */
    kc_simresult u;
    c->threads = 1;
    assert_int_equal(kci_sim_run_par(net, route, tr, c, 0, 1, &u, NULL, NULL, &err), KC_OK);
    expect_same(&r[0], &u, NULL, 0, NULL, 0, net->net_channels / (uint32_t)net->vcs + 1, cfgi, 1);
    kc_simresult_free(&u);
    int busy = r[0].messages > 0 && nlog[0] > 0;
    for (int t = 0; t < 5; t++) {
        kc_simresult_free(&r[t]);
        free(log[t]);
    }
    return busy;
}

static void test_runs_same_on_every_thread_count(void **state)
{
    (void)state;
    int busy = 0;
    for (int cfgi = 0; cfgi < 24; cfgi++) {
        kc_rng rng;
        kc_rng_seed(&rng, 7100 + (uint64_t)cfgi);
        kc_simnet net;
        kc_simroute route;
        kc_simconfig c;
        kc_simconfig_default(&c);
        kc_test_sim_random_net(&rng, 5, &net, &route, &c);
        kc_simtraffic tr;
        kc_test_sim_random_load(&rng, &net, 11 + (uint64_t)cfgi, &(kc_test_sim_windows){30, 100, 100, 250, 500}, &c,
                                &tr);
        assert_true(kci_sim_trains(&net, &c));
        busy += run_all(&net, &route, &tr, &c, cfgi);
        kc_simtraffic_free(&tr);
        kc_simnet_free(&net);
    }
    assert_true(busy >= 14);
}

/* Rings with one VC and no VC rule deadlock: the same stop, cycle and
 * blocked channels on every thread count. */
static void test_deadlock_same_on_every_thread_count(void **state)
{
    (void)state;
    int deadlocks = 0;
    for (int k = 4; k <= 9; k++)
        for (int len = 2; len <= 30; len += 14) {
            kc_err err;
            kc_simnet net;
            kc_simroute route;
            kc_simtraffic tr;
            kc_simconfig c;
            kc_test_sim_deadlock_ring(k, len, &net, &route, &tr, &c);
            kc_simresult r;
            assert_int_equal(kci_sim_run_loop(&net, &route, &tr, &c, 0, &r, &err), KC_OK);
            deadlocks += r.deadlock;
            kc_simresult_free(&r);
            run_all(&net, &route, &tr, &c, k * 100 + len);
            kc_simtraffic_free(&tr);
            kc_simnet_free(&net);
        }
    assert_true(deadlocks >= 6);
}

/* Generation on a thread of its own (feed.c: runs on several threads that
 * do not split, with Bernoulli sources): random configurations of the
 * stream, flit and router-pipeline loops (random ring ties), mostly
 * Bernoulli, on 2 and 3 threads and with the flit loop forced, against one
 * thread: every figure and every delivery the same. Most runs end before
 * their last cycle (all delivered after the window), and loaded rings
 * deadlock, so the producer is stopped while far ahead. */
static void test_feed_same_on_every_thread_count(void **state)
{
    (void)state;
    int fed = 0, stopped = 0, dead = 0;
    for (int cfgi = 0; cfgi < 32; cfgi++) {
        kc_rng rng;
        kc_simnet net;
        kc_simroute route;
        kc_simconfig c;
        kc_simtraffic tr;
        kc_test_sim_random_setup(&rng, 7300 + (uint64_t)cfgi, 1, 4, &net, &route, &c);
        kc_test_sim_random_load(&rng, &net, 5 + (uint64_t)cfgi, &(kc_test_sim_windows){50, 100, 200, 400, 600}, &c,
                                &tr);
        if (cfgi % 4)
            c.process = KC_INJECT_BERNOULLI;
        size_t links = net.net_channels / (uint32_t)net.vcs + 1;
        for (int flit = 0; flit < 2; flit++) {
            kc_err err;
            kc_simresult r[3];
            kc_simarrival *log[3];
            size_t nlog[3];
            for (int t = 0; t < 3; t++) {
                c.threads = t + 1;
                assert_int_equal(kci_sim_run_par(&net, &route, &tr, &c, flit, KC_SIM_PAR_NODES, &r[t], &log[t],
                                                 &nlog[t], &err), KC_OK);
            }
            for (int t = 1; t < 3; t++)
                expect_same(&r[0], &r[t], log[0], nlog[0], log[t], nlog[t], links, cfgi * 2 + flit, t + 1);
            c.threads = 2;
            fed += kci_sim_feeds(&c, 1);
            stopped += kci_sim_feeds(&c, 1) && r[0].cycles < c.warmup + c.measure + c.drain;
            dead += kci_sim_feeds(&c, 1) && r[0].deadlock;
            for (int t = 0; t < 3; t++) {
                kc_simresult_free(&r[t]);
                free(log[t]);
            }
        }
        kc_simtraffic_free(&tr);
        kc_simnet_free(&net);
    }
    for (int k = 4; k <= 9; k++) { /* the deadlocking rings, loaded: the producer stops far ahead */
        kc_err err;
        kc_simnet net;
        kc_simroute route;
        kc_simtraffic tr;
        kc_simconfig c;
        kc_test_sim_deadlock_ring(k, 6 + k, &net, &route, &tr, &c);
        c.oneshot = 0;
        c.process = KC_INJECT_BERNOULLI;
        c.load = 0.3;
        c.drain = c.measure = 300;
        kc_simresult r[2];
        for (int t = 0; t < 2; t++) {
            c.threads = t + 1;
            assert_int_equal(kci_sim_run_par(&net, &route, &tr, &c, 0, KC_SIM_PAR_NODES, &r[t], NULL, NULL, &err),
                             KC_OK);
        }
        expect_same(&r[0], &r[1], NULL, 0, NULL, 0, net.net_channels / (uint32_t)net.vcs + 1, 1000 + k, 2);
        dead += r[0].deadlock;
        for (int t = 0; t < 2; t++)
            kc_simresult_free(&r[t]);
        kc_simtraffic_free(&tr);
        kc_simnet_free(&net);
    }
    assert_true(fed >= 30);
    assert_true(stopped >= 20);
    assert_true(dead >= 4);
}

/* The public call: a cube at the threshold on 2 threads, a short run,
 * against one thread: 2^18 nodes, or deep (8-flit buffers, two VCs sharing
 * each link, route and switch delays of 2: the stream loop, which splits
 * only its header allocation) 2^19, where 2^18 does not split. */
static void public_threshold(int deep)
{
    kc_err err;
    kc_simnet net;
    kc_simtraffic tr;
    assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 18 + deep, deep ? 2 : 1, 1, 1, deep ? 8 : 1, &err),
                     KC_OK);
    assert_true(net.nodes >= (deep ? KC_SIM_PAR_STREAM_NODES : KC_SIM_PAR_NODES));
    assert_int_equal(kc_simtraffic_uniform(&tr, net.nodes, NULL, &err), KC_OK);
    kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.load = 0.3;
    c.warmup = 10;
    c.measure = 20;
    c.drain = 60;
    if (deep) {
        c.route_delay = c.switch_delay = 2;
        c.vc_independent = 0;
        c.load = 0.03;
        c.drain = 100;
    }
    kci_simshape shape = kci_sim_shape(&net);
    c.threads = 2;
    assert_int_equal(kci_sim_trains(&net, &c), !deep);
    assert_int_equal(kci_sim_parts(&shape, &c, 1, KC_SIM_PAR_NODES), 2);
    shape.nodes = net.nodes - 1; /* just below the loop's threshold */
    assert_int_equal(kci_sim_parts(&shape, &c, 1, KC_SIM_PAR_NODES), 1);
    shape.nodes = KC_SIM_PAR_NODES; /* the worm-level loop's */
    assert_int_equal(kci_sim_parts(&shape, &c, 1, KC_SIM_PAR_NODES), deep ? 1 : 2);
    kc_simresult r[2];
    for (int t = 0; t < 2; t++) {
        c.threads = t + 1;
        assert_int_equal(kc_sim_run(&net, &route, &tr, &c, &r[t], &err), KC_OK);
    }
    assert_true(r[0].messages > 1000);
    expect_same(&r[0], &r[1], NULL, 0, NULL, 0, 0, 18 + deep, 2);
    for (int t = 0; t < 2; t++)
        kc_simresult_free(&r[t]);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
}

static void test_public_threshold(void **state)
{
    (void)state;
    public_threshold(0);
    public_threshold(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_same_on_every_thread_count),
        cmocka_unit_test(test_deadlock_same_on_every_thread_count),
        cmocka_unit_test(test_feed_same_on_every_thread_count),
        cmocka_unit_test(test_public_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
