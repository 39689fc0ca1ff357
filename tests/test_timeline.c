/* Timelines and ranks per node (kcube/timeline.h, kc_appsim_run_placed,
 * kc_goal_loggp_record, kc_timeline_loggops): the recorder's checks;
 * on seeded random schedules, in the network replay and LogGP, one slice
 * per operation and one flow per message, slices of a rank never
 * overlapping and adding up to its busy time counted from the schedule
 * alone, ending at its finish; with LogGOPS's CPUs (rendezvous, cpu and
 * nic numbers), in the pure model and the network replay, holds and waits
 * drawn so that each rank's last slice ends at its finish; the docs' ping-
 * pong and rendezvous by hand (posting, wait, hold); a placement of one
 * rank a node gives exactly the old replay; ranks sharing nodes keep their
 * messages off the network; bad placements refused. */
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
#include "kcube/loggops.h"
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
    s.kind = KC_TL_WAIT + 1;
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
    s.kind = KC_TL_WAIT; /* no processor time: not busy */
    s.dur_us = 4;
    assert_int_equal(kc_timeline_add_slice(&t, &s, NULL, &err), KC_OK);
    kc_timeline_busy(&t, busy);
    NEAR(busy[1], 0);
    NEAR(kc_timeline_end(&t), 9);
    t.max_slices = 2;
    assert_int_equal(kc_timeline_add_slice(&t, &s, NULL, &err), KC_ERANGE);
    kc_timeline_free(&t);
}

/* The checks every timeline passes (kcube/timeline.h): one slice of its
 * kind per operation, at most one hold per send and one wait per receive,
 * the wait from the receive's posting to its match (max(posted, its slice's
 * start)), busy slices of one CPU never overlapping, each rank's last slice
 * ending at its finish, a flow per message (matched at run time: a send to
 * a receive of its peer that fits). */
static void check_common(const kc_goal *g, const kc_goal_match *m, const kc_timeline *t, const double *finish)
{
    size_t n = g->nops, ops = 0;
    size_t *main_of = malloc((n + 1) * sizeof *main_of), *wait_of = malloc((n + 1) * sizeof *wait_of);
    double *last = calloc(g->num_ranks + 1, sizeof *last);
    assert_non_null(main_of), assert_non_null(wait_of), assert_non_null(last);
    for (size_t i = 0; i < n; i++)
        main_of[i] = wait_of[i] = SIZE_MAX;
    for (size_t i = 0; i < t->nslices; i++) {
        const kc_tl_slice *a = &t->slice[i];
        int kind = g->op[a->op].kind;
        double end = a->start_us + a->dur_us;
        last[a->rank] = end > last[a->rank] ? end : last[a->rank];
        if (a->kind == KC_TL_HOLD || a->kind == KC_TL_WAIT) {
            assert_int_equal(kind, a->kind == KC_TL_HOLD ? KC_GOAL_SEND : KC_GOAL_RECV);
            assert_true(a->dur_us > 0);
            if (a->kind == KC_TL_WAIT) {
                assert_int_equal(wait_of[a->op], SIZE_MAX);
                wait_of[a->op] = i;
            }
        } else {
            assert_int_equal(a->kind, kind == KC_GOAL_SEND ? KC_TL_SEND : kind == KC_GOAL_RECV ? KC_TL_RECV : KC_TL_CALC);
            assert_int_equal(main_of[a->op], SIZE_MAX);
            main_of[a->op] = i;
            ops++;
        }
        /* one CPU does one thing at a time: busy slices never overlap */
        for (size_t j = i + 1; j < t->nslices && a->kind != KC_TL_WAIT; j++) {
            const kc_tl_slice *b = &t->slice[j];
            if (b->rank == a->rank && b->cpu == a->cpu && b->kind != KC_TL_WAIT && a->dur_us > 0 && b->dur_us > 0)
                assert_true(b->start_us >= end - 1e-9 || a->start_us >= b->start_us + b->dur_us - 1e-9);
        }
    }
    assert_int_equal(ops, n);
    for (size_t i = 0; i < n; i++) { /* a receive's wait: posted -> matched */
        if (g->op[i].kind != KC_GOAL_RECV)
            continue;
        const kc_tl_slice *r = &t->slice[main_of[i]];
        if (r->start_us > r->posted_us + 1e-9) {
            assert_true(wait_of[i] != SIZE_MAX);
            NEAR(t->slice[wait_of[i]].start_us, r->posted_us);
            NEAR(t->slice[wait_of[i]].dur_us, r->start_us - r->posted_us);
        } else {
            assert_true(wait_of[i] == SIZE_MAX || t->slice[wait_of[i]].dur_us < 1e-9);
        }
    }
    for (uint32_t r = 0; r < g->num_ranks; r++)
        NEAR(last[r], finish[r]);
    assert_int_equal(t->nflows, m->messages);
    for (size_t k = 0; k < t->nflows; k++) {
        const kc_tl_slice *s = &t->slice[t->flow[k].from], *v = &t->slice[t->flow[k].to];
        /* every model matches at run time: a receive of the send's
         * destination that fits its source and tag (the static FIFO one
         * unless tags repeat) */
        assert_int_equal(g->op[v->op].kind, KC_GOAL_RECV);
        assert_int_equal(g->op[v->op].rank, g->op[s->op].peer);
        assert_true(g->op[v->op].tag == KC_GOAL_ANY || g->op[v->op].tag == g->op[s->op].tag);
        assert_int_equal(v->peer, s->rank);
    }
    free(main_of), free(wait_of), free(last);
}

/* A timeline of the nCUBE 2 or LogGP model: no holds, and busy time the
 * start-ups and calcs of the schedule. */
static void check_timeline(const kc_goal *g, const kc_goal_match *m, const kc_timeline *t, double startup,
                           const double *finish, const uint32_t *node_of)
{
    check_common(g, m, t, finish);
    double *want = calloc(g->num_ranks, sizeof *want), *busy = calloc(g->num_ranks, sizeof *busy);
    assert_non_null(want), assert_non_null(busy);
    for (size_t i = 0; i < g->nops; i++)
        want[g->op[i].rank] += g->op[i].kind == KC_GOAL_SEND ? startup
                              : g->op[i].kind == KC_GOAL_CALC ? (double)g->op[i].amount / 1000 : 0;
    kc_timeline_busy(t, busy);
    for (uint32_t r = 0; r < g->num_ranks; r++) {
        NEAR(busy[r], want[r]);
        assert_int_equal(t->node_of[r], node_of ? node_of[r] : r);
    }
    for (size_t i = 0; i < t->nslices; i++)
        assert_true(t->slice[i].kind != KC_TL_HOLD);
    for (size_t k = 0; k < t->nflows; k++) {
        const kc_tl_slice *s = &t->slice[t->flow[k].from], *v = &t->slice[t->flow[k].to];
        /* matched at run time: a receive of the send's destination that fits
         * its source and tag (not always the static FIFO one: tags repeat) */
        assert_int_equal(g->op[v->op].kind, KC_GOAL_RECV);
        assert_int_equal(g->op[v->op].rank, (uint32_t)g->op[s->op].peer);
        assert_true(g->op[v->op].tag == KC_GOAL_ANY || g->op[v->op].tag == g->op[s->op].tag);
        assert_true(v->start_us >= s->start_us + s->dur_us - 1e-9); /* data leaves when the start-up ends */
        assert_true(v->posted_us <= v->start_us);
    }
    free(want), free(busy);
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

/* A timeline in µs of a LogGOPS run's ns: finish_ns / 1000. */
static double *finish_us_of(const kc_loggops_result *r, uint32_t ranks)
{
    double *f = malloc((ranks + 1) * sizeof *f);
    assert_non_null(f);
    for (uint32_t v = 0; v < ranks; v++)
        f[v] = (double)r->finish_ns[v] / 1000.0;
    return f;
}

/* Random schedules with rendezvous (S from 0 to infinite), cpu and nic
 * numbers, under LogGOPS's CPUs: in the pure model (kc_timeline_loggops)
 * and the network replay (--loggops, in LogGOPS's order or greedy), every
 * slice checked (check_common) and each rank's last slice at its finish:
 * exact to the ns in the pure model (relative 1e-12 of µs), to the µs
 * rounding of the replay's doubles in the network. */
static void test_loggops_timelines(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 2113);
    static const uint64_t Ss[] = {0, 40, 200, KC_LOGGOPS_S_INF};
    int holds = 0, waits = 0, pure = 0, net_runs = 0; /* net_runs: in LogGOPS's order */
    for (int trial = 0; trial < 120; trial++) {
        kc_err err = {0};
        kc_goal g;
        kc_goal_match m;
        kc_test_random_goal(&g, 8, &rng);
        int multi = trial % 3 != 0;
        for (size_t i = 0; i < g.nops && multi; i++)
            g.op[i].cpu = (uint8_t)kc_rng_below(&rng, 3), g.op[i].nic = (uint8_t)kc_rng_below(&rng, 2);
        assert_int_equal(kc_goal_validate(&g, 0, &m, &err), KC_OK);
        kc_loggops_params lp = {kc_rng_below(&rng, 3000), kc_rng_below(&rng, 2000), kc_rng_below(&rng, 1500),
                                kc_rng_below(&rng, 8), kc_rng_below(&rng, 3), Ss[trial % 4]};
        kc_timeline t;
        kc_loggops_result r;
        assert_int_equal(kc_timeline_init(&t, g.num_ranks, &err), KC_OK);
        kc_status st = kc_timeline_loggops(&g, &lp, &t, &r, &err);
        if (st == KC_OK) {
            pure++;
            double *f = finish_us_of(&r, g.num_ranks);
            for (uint32_t v = 0; v < g.num_ranks; v++) { /* to the ns: 1e-12 of the µs */
                double last = 0;
                for (size_t i = 0; i < t.nslices; i++)
                    if (t.slice[i].rank == v && t.slice[i].start_us + t.slice[i].dur_us > last)
                        last = t.slice[i].start_us + t.slice[i].dur_us;
                assert_true(fabs(last - f[v]) <= 1e-12 * (1 + f[v]));
            }
            check_common(&g, &m, &t, f);
            for (size_t i = 0; i < t.nslices; i++)
                holds += t.slice[i].kind == KC_TL_HOLD, waits += t.slice[i].kind == KC_TL_WAIT;
            free(f);
            kc_loggops_result_free(&r);
        } else {
            assert_int_equal(st, KC_EINVAL); /* a rendezvous deadlock of the random schedule */
            assert_string_equal(err.param, "schedule");
        }
        kc_timeline_free(&t);
        /* The network replay with the same o, g, O, S (L and G are the network's). */
        kc_simnet net;
        assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 3, 1, 1, 1, 1, &err), KC_OK);
        kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
        kc_appsim_opts o = {(double)kc_rng_below(&rng, 20), 0.1 + (double)kc_rng_below(&rng, 10) / 10, 1, &lp};
        kc_appsim_result res;
        assert_int_equal(kc_timeline_init(&t, g.num_ranks, &err), KC_OK);
        if (kc_appsim_run_placed(&g, &m, &net, &route, NULL, &o, NULL, &t, &res, &err))
            fail_msg("%s", err.msg);
        assert_false(res.sim.deadlock);
        net_runs += res.fixed_order; /* the others: the greedy order */
        check_common(&g, &m, &t, res.finish_us);
        for (size_t i = 0; i < t.nslices; i++)
            holds += t.slice[i].kind == KC_TL_HOLD, waits += t.slice[i].kind == KC_TL_WAIT;
        kc_appsim_result_free(&res);
        kc_timeline_free(&t);
        kc_simnet_free(&net);
        kc_goal_match_free(&m);
        kc_goal_free(&g);
    }
    /* the cases are there: most runs, holds and waits */
    assert_true(pure >= 100 && net_runs >= 60 && holds >= 500 && waits >= 1000); /* seen: 118, 85, 1237, 2344 */
}

/* The slice of kind `kind` of operation `op`, or NULL. */
static const kc_tl_slice *find(const kc_timeline *t, int kind, size_t op)
{
    for (size_t i = 0; i < t->nslices; i++)
        if (t->slice[i].kind == kind && t->slice[i].op == op)
            return &t->slice[i];
    return NULL;
}

/* A slice of kind at [start, end) µs, or none when start < 0. */
static void expect(const kc_timeline *t, int kind, size_t op, double start, double end)
{
    const kc_tl_slice *s = find(t, kind, op);
    if (start < 0) {
        assert_null(s);
        return;
    }
    assert_non_null(s);
    NEAR(s->start_us, start);
    NEAR(s->start_us + s->dur_us, end);
}

static void read_text(kc_goal *g, const char *text)
{
    kc_err err = {0};
    if (kc_goal_read_mem(g, text, strlen(text), "t", NULL, 0, &err))
        fail_msg("%s", err.msg);
}

/* docs/loggops.md's worked examples (L 100, o 10, g 20, G 2, O 1, S 1000 ns)
 * by hand. Ping-pong of 11 bytes (ops: rank 0 s 0, r 1; rank 1 r 2, s 3):
 * rank 0 posts its receive at 20 (its CPU free after the send), the reply
 * is taken at 250: a wait of 230 ns; rank 1 posted at 0, matched at 110.
 * Rendezvous: rank 0's CPU, free at 2010, is held until the receive is
 * matched at 5000; rank 1 posts at 5000, after its message (taken at
 * 5000, first in the queue): no wait. */
static void test_loggops_examples(void **state)
{
    (void)state;
    const char *pp = "num_ranks 2\nrank 0 {\ns: send 11b to 1\nr: recv 11b from 1\nr requires s\n}\n"
                     "rank 1 {\nr: recv 11b from 0\ns: send 11b to 0\ns requires r\n}\n";
    const char *rv = "num_ranks 2\nrank 0 {\ns: send 2001b to 1\nc: calc 40\nc requires s\n}\n"
                     "rank 1 {\nc: calc 5000\nr: recv 2001b from 0\nr requires c\n}\n";
    kc_loggops_params P = {100, 10, 20, 2, 1, 1000};
    kc_goal g;
    kc_timeline t;
    kc_loggops_result r;
    kc_err err = {0};
    read_text(&g, pp);
    assert_int_equal(kc_timeline_init(&t, 2, &err), KC_OK);
    assert_int_equal(kc_timeline_loggops(&g, &P, &t, &r, &err), KC_OK);
    expect(&t, KC_TL_SEND, 0, 0, 0.020);
    expect(&t, KC_TL_WAIT, 1, 0.020, 0.250);
    expect(&t, KC_TL_RECV, 1, 0.250, 0.280);
    NEAR(find(&t, KC_TL_RECV, 1)->posted_us, 0.020);
    expect(&t, KC_TL_WAIT, 2, 0, 0.110);
    expect(&t, KC_TL_RECV, 2, 0.110, 0.140);
    NEAR(find(&t, KC_TL_RECV, 2)->posted_us, 0);
    expect(&t, KC_TL_SEND, 3, 0.140, 0.160);
    assert_int_equal(t.nslices, 6);
    assert_true(r.finish_ns[0] == 280 && r.finish_ns[1] == 160);
    kc_loggops_result_free(&r);
    kc_timeline_free(&t);
    kc_goal_free(&g);

    read_text(&g, rv); /* ops: rank 0 s 0, c 1; rank 1 c 2, r 3 */
    assert_int_equal(kc_timeline_init(&t, 2, &err), KC_OK);
    assert_int_equal(kc_timeline_loggops(&g, &P, &t, &r, &err), KC_OK);
    expect(&t, KC_TL_SEND, 0, 0, 2.010);
    expect(&t, KC_TL_HOLD, 0, 2.010, 5.000);
    expect(&t, KC_TL_CALC, 1, 5.000, 5.040);
    expect(&t, KC_TL_CALC, 2, 0, 5.000);
    expect(&t, KC_TL_WAIT, 3, -1, 0);
    expect(&t, KC_TL_RECV, 3, 5.000, 9.010);
    NEAR(find(&t, KC_TL_RECV, 3)->posted_us, 5.000);
    assert_true(r.finish_ns[0] == 5040 && r.finish_ns[1] == 9010);
    kc_loggops_result_free(&r);
    kc_timeline_free(&t);
    kc_goal_free(&g);
}

/* docs/appsim.md's 100-byte ping-pong on the 1-cube (start-up 10 µs, 1
 * µs a byte, o = 2 µs; ops as above), in LogGOPS's order: a send's CPU
 * 10 + 2 µs, its first byte 3 cycles later (15), the receiver's CPU takes
 * it from there for o + 99 byte times (15..116). Rank 1 posted at 0, waits
 * until 15; rank 0 posts at 12, the reply leaves at 128, taken at 131:
 * waits 119. With S = 50 each send holds its CPU until its receive is
 * matched at the intake's start: 12..15 and 128..131, and rank 0 posts at
 * 15 (after its send ends), waiting 116. */
static void test_network_examples(void **state)
{
    (void)state;
    const char *pp = "num_ranks 2\nrank 0 {\ns: send 100b to 1 tag 0\nr: recv 100b from 1 tag 0\nr requires s\n}\n"
                     "rank 1 {\nr: recv 100b from 0 tag 0\ns: send 100b to 0 tag 0\ns requires r\n}\n";
    kc_goal g;
    kc_goal_match m;
    kc_err err = {0};
    read_text(&g, pp);
    assert_int_equal(kc_goal_validate(&g, 0, &m, &err), KC_OK);
    kc_simnet net;
    assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 1, 1, 1, 1, 1, &err), KC_OK);
    kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    for (int rv = 0; rv < 2; rv++) {
        kc_loggops_params lp = {0, 2000, 0, 0, 0, rv ? 50 : KC_LOGGOPS_S_INF};
        kc_appsim_opts o = {10, 1, 1, &lp};
        kc_timeline t;
        kc_appsim_result res;
        assert_int_equal(kc_timeline_init(&t, 2, &err), KC_OK);
        assert_int_equal(kc_appsim_run_placed(&g, &m, &net, &route, NULL, &o, NULL, &t, &res, &err), KC_OK);
        assert_true(res.fixed_order);
        expect(&t, KC_TL_SEND, 0, 0, 12);
        expect(&t, KC_TL_HOLD, 0, rv ? 12 : -1, 15);
        expect(&t, KC_TL_WAIT, 2, 0, 15);
        expect(&t, KC_TL_RECV, 2, 15, 116);
        expect(&t, KC_TL_SEND, 3, 116, 128);
        expect(&t, KC_TL_HOLD, 3, rv ? 128 : -1, 131);
        expect(&t, KC_TL_WAIT, 1, rv ? 15 : 12, 131);
        expect(&t, KC_TL_RECV, 1, 131, 232);
        NEAR(find(&t, KC_TL_RECV, 1)->posted_us, rv ? 15 : 12);
        NEAR(res.finish_us[0], 232);
        NEAR(res.finish_us[1], rv ? 131 : 128);
        kc_appsim_result_free(&res);
        kc_timeline_free(&t);
    }
    kc_simnet_free(&net);
    kc_goal_match_free(&m);
    kc_goal_free(&g);
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
        cmocka_unit_test(test_loggops_timelines),
        cmocka_unit_test(test_loggops_examples),
        cmocka_unit_test(test_network_examples),
        cmocka_unit_test(test_bad_placements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
