/* The network replay against LogGOPS on random schedules (loggops_bound.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loggops_bound.h"

#include <math.h>
#include <string.h>

#include "kcube/goal.h"
#include "kcube/loggops.h"
#include "kcube/rng.h"
#include "kc_testutil.h"

/* Each rank's operations one chain: every op requires the rank's one before. */
static void chain(kc_goal *g)
{
    kc_err err = {0};
    size_t n = g->nops;
    for (uint32_t r = 0; r < g->num_ranks; r++) {
        size_t prev = KC_GOAL_NONE;
        for (size_t i = 0; i < n; i++) {
            if (g->op[i].rank != r)
                continue;
            if (prev != KC_GOAL_NONE)
                assert_int_equal(kc_goal_depend(g, i, prev, 0, 0, &err), KC_OK);
            prev = i;
        }
    }
}

void kc_test_loggops_bound(uint64_t seed, int trials, kc_appsim_order order, kc_test_bound *out)
{
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    memset(out, 0, sizeof *out);
    kc_simalgo algos[] = {KC_ROUTE_ECUBE, KC_ROUTE_PCUBE, KC_ROUTE_LIMIN};
    for (int trial = 0; trial < trials; trial++) {
        kc_err err = {0};
        kc_simnet net;
        assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 4, 1, 1, 1, 1 + trial % 3, &err), KC_OK);
        kc_simroute route = {algos[trial % 3], KC_VC_NONE, KC_TIE_PLUS};
        kc_simconfig cfg;
        kc_simconfig_default(&cfg);
        kc_goal g;
        kc_test_random_goal(&g, 16, &rng);
        int is_chain = trial % 5 == 0, rndv = trial % 4 == 0, gap0 = trial % 3 == 0;
        if (is_chain)
            chain(&g);
        kc_loggops_params lp = {0, kc_rng_below(&rng, 5000), gap0 ? 0 : 1 + kc_rng_below(&rng, 3000), 0,
                                kc_rng_below(&rng, 20), rndv ? kc_rng_below(&rng, 300) : KC_LOGGOPS_S_INF};
        kc_appsim_opts o = {(double)kc_rng_below(&rng, 50), (double)(1 + kc_rng_below(&rng, 4)) / 4,
                            1 + (int)kc_rng_below(&rng, 3), &lp};
        kc_appsim_place pl = {trial % 6 == 1 && g.num_ranks % 2 == 0 ? 2 : 1, NULL, NULL};
        kc_goal_match m;
        assert_int_equal(kc_goal_validate(&g, net.nodes * pl.ranks_per_node, &m, &err), KC_OK);
        for (size_t i = 0, k = 0; i < g.nops; i++)
            if (g.op[i].kind == KC_GOAL_SEND && m.recv_of[i] != KC_GOAL_NONE)
                g.op[i].tag = g.op[m.recv_of[i]].tag = (int64_t)k++;
        kc_goal_match_free(&m);
        assert_int_equal(kc_goal_validate(&g, net.nodes * pl.ranks_per_node, &m, &err), KC_OK);
        kc_appsim_result r;
        kc_status st = kc_appsim_run_order(&g, &m, &net, &route, &cfg, &o, &pl, NULL, order, &r, &err);
        if (st == KC_OK) {
            assert_false(r.sim.deadlock);
            if (r.loggops_us >= 0) {
                out->ran++;
                out->fixed += r.fixed_order;
                out->chains += is_chain;
                out->rendezvous += rndv;
                out->packed += pl.ranks_per_node > 1;
                out->gap0 += gap0;
                /* both in double µs from whole ns: a rounding error is no shortfall */
                double short_by = (r.loggops_us - r.total_us) / r.loggops_us;
                if (short_by > 1e-12) {
                    out->below++;
                    if (short_by > out->worst) {
                        out->worst = short_by;
                        out->worst_trial = (uint64_t)trial;
                    }
                }
            }
            if (r.fixed_order) { /* the critical-path split adds up to the difference */
                double sum = r.path.start_up + r.path.cpu + r.path.nic + r.path.cycle_boundary +
                             r.path.injection_wait + r.path.channel_wait + r.path.pipeline + r.path.other +
                             r.path.elsewhere;
                assert_true(r.path.ok);
                if (fabs(sum - (r.total_us - r.loggops_us)) > 1e-9 * (1 + r.total_us))
                    fail_msg("trial %d: the path's parts sum to %.12g, the difference is %.12g", trial, sum,
                             r.total_us - r.loggops_us);
                assert_true(r.path.channel_wait >= 0 && r.path.injection_wait >= 0 && r.path.cycle_boundary >= 0);
                out->path_channel += r.path.channel_wait;
                out->path_elsewhere += r.path.elsewhere;
            }
            assert_true(r.wait_channel_us >= 0 && r.wait_port_us >= 0 && r.pipeline_us >= 0 &&
                        r.boundary_us >= -1e-9);
            kc_appsim_result_free(&r);
        } else { /* a rendezvous deadlock is refused, as by LogGOPS */
            if (st == KC_EINTERNAL)
                fail_msg("trial %d: %s", trial, err.msg);
            assert_int_equal(rndv, 1);
        }
        kc_goal_match_free(&m);
        kc_goal_free(&g);
        kc_simnet_free(&net);
    }
}
