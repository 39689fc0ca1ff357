/* Timelines and ranks per node (kcube/timeline.h, kc_appsim_run_placed,
 * kc_goal_loggp_record): the recorder's checks;
 * on seeded random schedules, in both models, one slice per operation and
 * one flow per message, slices of a rank never overlapping and adding up to
 * its busy time counted from the schedule alone, ending at its finish; a
 * placement of one rank a node gives exactly the old replay; ranks sharing
 * nodes keep their messages off the network; bad placements refused. */
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
#include "kcube/loggp.h"
#include "kcube/rng.h"
#include "kcube/timeline.h"
#include "kc_testutil.h"

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-9 * (1 + fabs((double)(b))))

static void test_recorder_checks(void **state)
{
    (void)state;
    kc_timeline t;
    kc_err err = {0};
    assert_int_equal(kc_timeline_init(&t, 2, &err), KC_OK);
    assert_int_equal(t.node_of[1], 1);
    kc_tl_slice s = {.start_us = 1, .dur_us = 2, .posted_us = 1, .amount = 8, .peer = 1, .rank = 0,
                     .kind = KC_TL_SEND, .op = SIZE_MAX};
    size_t a, b;
    assert_int_equal(kc_timeline_add_slice(&t, &s, &a, &err), KC_OK);
    s.rank = 2;
    assert_int_equal(kc_timeline_add_slice(&t, &s, NULL, &err), KC_EINVAL);
    assert_string_equal(err.param, "timeline");
    s.rank = 1;
    s.dur_us = -1;
    assert_int_equal(kc_timeline_add_slice(&t, &s, NULL, &err), KC_EINVAL);
    s.dur_us = NAN;
    assert_int_equal(kc_timeline_add_slice(&t, &s, NULL, &err), KC_EINVAL);
    s.dur_us = 0;
    s.kind = 3;
    assert_int_equal(kc_timeline_add_slice(&t, &s, NULL, &err), KC_EINVAL);
    s.kind = KC_TL_RECV;
    s.start_us = 5;
    assert_int_equal(kc_timeline_add_slice(&t, &s, &b, &err), KC_OK);
    assert_int_equal(kc_timeline_add_flow(&t, b, a, &err), KC_EINVAL); /* recv to send */
    assert_int_equal(kc_timeline_add_flow(&t, a, 7, &err), KC_EINVAL);
    assert_int_equal(kc_timeline_add_flow(&t, a, b, &err), KC_OK);
    double busy[2];
    kc_timeline_busy(&t, busy);
    NEAR(busy[0], 2);
    NEAR(busy[1], 0);
    NEAR(kc_timeline_end(&t), 5);
    t.max_slices = 2;
    assert_int_equal(kc_timeline_add_slice(&t, &s, NULL, &err), KC_ERANGE);
    kc_timeline_free(&t);
}

/* What a timeline of a finished replay must be (kcube/timeline.h). */
static void check_timeline(const kc_goal *g, const kc_goal_match *m, const kc_timeline *t, double startup,
                           const double *finish, const uint32_t *node_of)
{
    assert_int_equal(t->nslices, g->nops);
    assert_int_equal(t->nflows, m->messages);
    double *want = calloc(g->num_ranks, sizeof *want), *busy = calloc(g->num_ranks, sizeof *busy);
    double *last = calloc(g->num_ranks, sizeof *last);
    assert_non_null(want), assert_non_null(busy), assert_non_null(last);
    for (size_t i = 0; i < g->nops; i++)
        want[g->op[i].rank] += g->op[i].kind == KC_GOAL_SEND ? startup
                              : g->op[i].kind == KC_GOAL_CALC ? (double)g->op[i].amount / 1000 : 0;
    kc_timeline_busy(t, busy);
    for (uint32_t r = 0; r < g->num_ranks; r++) {
        NEAR(busy[r], want[r]);
        assert_int_equal(t->node_of[r], node_of ? node_of[r] : r);
    }
    for (size_t i = 0; i < t->nslices; i++) {
        const kc_tl_slice *a = &t->slice[i];
        assert_int_equal(a->kind, g->op[a->op].kind == KC_GOAL_SEND ? KC_TL_SEND
                                  : g->op[a->op].kind == KC_GOAL_RECV ? KC_TL_RECV : KC_TL_CALC);
        double end = a->start_us + a->dur_us;
        last[a->rank] = end > last[a->rank] ? end : last[a->rank];
        /* one processor: busy slices of a rank never overlap */
        for (size_t j = i + 1; j < t->nslices; j++) {
            const kc_tl_slice *b = &t->slice[j];
            if (b->rank == a->rank && a->dur_us > 0 && b->dur_us > 0)
                assert_true(b->start_us >= end - 1e-9 || a->start_us >= b->start_us + b->dur_us - 1e-9);
        }
    }
    for (uint32_t r = 0; r < g->num_ranks; r++)
        NEAR(last[r], finish[r]);
    for (size_t k = 0; k < t->nflows; k++) {
        const kc_tl_slice *s = &t->slice[t->flow[k].from], *v = &t->slice[t->flow[k].to];
        /* matched at run time: a receive of the send's destination that fits
         * its source and tag (not always the static FIFO one: tags repeat) */
        assert_int_equal(g->op[v->op].kind, KC_GOAL_RECV);
        assert_int_equal(g->op[v->op].rank, (uint32_t)g->op[s->op].peer);
        assert_true(g->op[v->op].tag == KC_GOAL_ANY || g->op[v->op].tag == g->op[s->op].tag);
        assert_true(v->start_us >= s->start_us + s->dur_us - 1e-9); /* data leaves when the start-up ends */
        assert_int_equal(v->peer, s->rank);
        assert_true(v->posted_us <= v->start_us);
    }
    free(want), free(busy), free(last);
}

static void test_random_timelines(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 2111);
    for (int trial = 0; trial < 80; trial++) {
        kc_simnet net;
        kc_err err = {0};
        assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 4, 1, 1, 1, 1, &err), KC_OK);
        kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
        kc_simconfig cfg;
        kc_simconfig_default(&cfg);
        kc_goal g;
        kc_goal_match m;
        kc_test_random_goal(&g, 16, &rng);
        assert_int_equal(kc_goal_validate(&g, 0, &m, &err), KC_OK);
        kc_appsim_opts o = {(double)kc_rng_below(&rng, 50), 0.1 + (double)kc_rng_below(&rng, 10) / 10, 1, NULL};
        /* Two ranks a node, at random nodes, when the ranks pair up. */
        uint32_t R = g.num_ranks % 2 ? 1 : 2, *node_of = malloc(g.num_ranks * sizeof *node_of);
        uint32_t perm[16];
        kc_test_random_perm(perm, 16, &rng);
        for (uint32_t r = 0; r < g.num_ranks; r++)
            node_of[r] = perm[r / R];
        kc_appsim_place pl = {R, node_of, NULL};
        kc_timeline t;
        kc_appsim_result res;
        assert_int_equal(kc_timeline_init(&t, g.num_ranks, &err), KC_OK);
        if (kc_appsim_run_placed(&g, &m, &net, &route, &cfg, &o, &pl, &t, &res, &err))
            fail_msg("%s", err.msg);
        assert_false(res.sim.deadlock);
        assert_int_equal(res.messages, m.messages);
        assert_int_equal(res.sim.flits_generated, res.flits);
        check_timeline(&g, &m, &t, o.startup_us, res.finish_us, node_of);
        /* Messages within a node: no flits, and their data is there when the start-up ends. */
        uint64_t net_flits = 0;
        for (size_t i = 0; i < g.nops; i++)
            if (g.op[i].kind == KC_GOAL_SEND &&
                (node_of[g.op[i].rank] != node_of[g.op[i].peer] || g.op[i].rank == g.op[i].peer))
                net_flits += g.op[i].amount ? g.op[i].amount : 1;
        assert_int_equal(res.flits, net_flits);
        /* The LogGP figure with the same placement, and its timeline. */
        kc_goal_timing tm = {o.startup_us, o.byte_time_us};
        double total, *finish = malloc(g.num_ranks * sizeof *finish);
        kc_timeline t2;
        assert_int_equal(kc_timeline_init(&t2, g.num_ranks, &err), KC_OK);
        assert_int_equal(kc_goal_loggp_record(&g, &m, &tm, node_of, &total, finish, &t2, &err), KC_OK);
        NEAR(total, res.loggp_us);
        check_timeline(&g, &m, &t2, o.startup_us, finish, NULL);
        for (size_t k = 0; k < t2.nflows; k++) { /* LogGP: arrival = start-up end + bytes x byte time, or + 0 */
            const kc_tl_slice *s = &t2.slice[t2.flow[k].from], *v = &t2.slice[t2.flow[k].to];
            double arrive = s->start_us + s->dur_us +
                            (node_of[s->rank] == node_of[v->rank] && s->rank != v->rank
                                 ? 0 : (double)s->amount * o.byte_time_us);
            assert_true(v->start_us >= arrive - 1e-9);
        }
        /* One rank a node, no placement: exactly kc_appsim_run. */
        if (R == 1) {
            kc_appsim_result old, placed;
            uint32_t *ident = malloc(g.num_ranks * sizeof *ident);
            for (uint32_t r = 0; r < g.num_ranks; r++)
                ident[r] = r;
            kc_appsim_place one = {1, ident, NULL};
            assert_int_equal(kc_appsim_run(&g, &m, &net, &route, &cfg, &o, &old, &err), KC_OK);
            assert_int_equal(kc_appsim_run_placed(&g, &m, &net, &route, &cfg, &o, &one, NULL, &placed, &err), KC_OK);
            assert_true(old.total_us == placed.total_us && old.loggp_us == placed.loggp_us);
            assert_int_equal(old.sim.cycles, placed.sim.cycles);
            kc_appsim_result_free(&old), kc_appsim_result_free(&placed);
            free(ident);
        }
        kc_timeline_free(&t), kc_timeline_free(&t2);
        kc_appsim_result_free(&res);
        free(node_of), free(finish);
        kc_goal_match_free(&m);
        kc_goal_free(&g);
        kc_simnet_free(&net);
    }
}

static void test_bad_placements(void **state)
{
    (void)state;
    kc_simnet net;
    kc_err err = {0};
    assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 1, 1, 1, 1, 1, &err), KC_OK);
    kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    kc_goal g;
    kc_goal_match m;
    assert_int_equal(kc_goal_init(&g, 4, &err), KC_OK);
    assert_int_equal(kc_goal_add(&g, KC_GOAL_SEND, 0, 3, 0, 8, NULL, 0, NULL, &err), KC_OK);
    assert_int_equal(kc_goal_add(&g, KC_GOAL_RECV, 3, 0, 0, 8, NULL, 0, NULL, &err), KC_OK);
    assert_int_equal(kc_goal_validate(&g, 0, &m, &err), KC_OK);
    kc_appsim_result r;
    kc_appsim_place pl = {3, NULL, NULL}; /* 4 ranks, 3 a node */
    assert_int_equal(kc_appsim_run_placed(&g, &m, &net, &route, NULL, NULL, &pl, NULL, &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "ranks_per_node");
    pl.ranks_per_node = 1; /* 4 ranks on 2 nodes */
    assert_int_equal(kc_appsim_run_placed(&g, &m, &net, &route, NULL, NULL, &pl, NULL, &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "schedule");
    uint32_t far[4] = {0, 0, 1, 2}, crowded[4] = {0, 0, 0, 1};
    pl = (kc_appsim_place){2, far, NULL};
    assert_int_equal(kc_appsim_run_placed(&g, &m, &net, &route, NULL, NULL, &pl, NULL, &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping");
    pl.node_of = crowded;
    assert_int_equal(kc_appsim_run_placed(&g, &m, &net, &route, NULL, NULL, &pl, NULL, &r, &err), KC_EINVAL);
    kc_timeline t;
    assert_int_equal(kc_timeline_init(&t, 3, &err), KC_OK);
    pl.node_of = NULL;
    assert_int_equal(kc_appsim_run_placed(&g, &m, &net, &route, NULL, NULL, &pl, &t, &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "timeline");
    kc_timeline_free(&t);
    /* Two a node: the message 0 -> 3 crosses the network; 8 flits. */
    assert_int_equal(kc_appsim_run_placed(&g, &m, &net, &route, NULL, NULL, &pl, NULL, &r, &err), KC_OK);
    assert_int_equal(r.flits, 8);
    kc_appsim_result_free(&r);
    kc_goal_match_free(&m);
    kc_goal_free(&g);
    kc_simnet_free(&net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorder_checks),
        cmocka_unit_test(test_random_timelines),
        cmocka_unit_test(test_bad_placements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
