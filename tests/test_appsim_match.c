/* Receives matched at run time in the network replay (kcube/appsim.h,
 * docs/appsim.md "Matching and the order"). Without wildcards the nCUBE 2
 * run is the one before run-time matching whenever the run matches as the
 * file's FIFO order does: makespans bit-identical to the values the
 * static-matching replay gave on the same seeded random schedules (kept
 * below; with one tag per message every run matches so). A wildcard
 * gather and a schedule reusing a tag are matched as worked out here from
 * the schedule (arrival order against posting order), in both orders; the
 * reason for the order taken is reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/appsim.h"
#include "kcube/goal.h"
#include "kcube/loggops.h"
#include "kcube/rng.h"
#include "kcube/timeline.h"
#include "kc_testutil.h"

/* The nCUBE 2 makespans (total_us) of the replay with the static FIFO
 * matching (the library before run-time matching), random_case's trials
 * 0..119: the same with one tag per message and with the generator's tags
 * (it adds each send with its receive, so FIFO pairs them alike). */
static const double before[120] = {
    0x1.bf4ccccccccccp+10, 0x1.695999999999bp+10, 0x1.74ccccccccccdp+10, 0x1.ec00000000001p+8, 0x1.2bc6666666666p+11, 0x1.a466666666667p+8,
    0x1.e600000000001p+9, 0x1.b94p+11, 0x1.a07999999999ap+10, 0x1.27cp+11, 0x1.60ccccccccccdp+10, 0x1.0de3333333334p+11,
    0x1.85b3333333333p+10, 0x1.0595a1cac0831p+10, 0x1.b2f947ae147afp+10, 0x1.08d3333333333p+11, 0x1.414cccccccccdp+11, 0x1.4f4p+9,
    0x1.a293333333334p+10, 0x1.7eb9999999998p+10, 0x1.689999999999bp+9, 0x1p+10, 0x1.30883126e978dp+8, 0x1.3fe6666666666p+11,
    0x1.cc3ffffffffffp+11, 0x1.70ccccccccccdp+9, 0x1.c946666666666p+11, 0x1.1b33333333333p+8, 0x1.bbap+11, 0x1.528p+10,
    0x1.2cccccccccccdp+10, 0x1.7919999999999p+10, 0x1.029999999999ap+11, 0x1.2c2p+12, 0x1.bc9999999999bp+7, 0x1.b6e6666666668p+9,
    0x1.3a36666666665p+11, 0x1.c366666666666p+11, 0x1.75a6666666667p+10, 0x1.8accccccccccdp+9, 0x1.72684189374bbp+10, 0x1.c0a6666666668p+10,
    0x1.2e66666666666p+9, 0x1.63ccccccccccep+9, 0x1.48p+6, 0x1.5ep+8, 0x1.a666666666666p+10, 0x1.68e6666666667p+10,
    0x1.22p+10, 0x1.0766666666667p+10, 0x0p+0, 0x1.29p+10, 0x1.aa13333333333p+11, 0x0p+0,
    0x1.37ce666666666p+12, 0x1.0bcp+11, 0x1.4f7999999999ap+10, 0x1.99p+11, 0x1.149999999999ap+10, 0x1.d6ccccccccccdp+10,
    0x1.0333333333333p+8, 0x1.0866666666667p+10, 0x1.b999999999999p+8, 0x1.2e0ccccccccccp+11, 0x1.02e6666666667p+9, 0x1.8dccccccccccdp+9,
    0x1.fp+9, 0x1.2bb3333333334p+9, 0x1.3d8p+11, 0x1.c766666666667p+9, 0x1.989999999999bp+9, 0x1.6f33333333333p+10,
    0x1.b38p+11, 0x1.4c53333333332p+10, 0x1.55c1a9fbe76c9p+10, 0x1.997ffffffffffp+11, 0x1.b14ccccccccccp+9, 0x1.e02e353f7ced7p+10,
    0x1.aa7cccccccccdp+11, 0x1.ab22b020c49bap+10, 0x1.943624dd2f1aap+9, 0x1.7ae6666666666p+9, 0x1.4c36666666667p+12, 0x1.ee8cccccccccdp+10,
    0x1.3566666666666p+10, 0x1.c433333333333p+11, 0x1.b4p+7, 0x1.7acccccccccccp+11, 0x1.37cp+12, 0x1.2ccp+10,
    0x1.038p+12, 0x1.514p+12, 0x1.08f09374bc6a9p+10, 0x1.59e6666666667p+10, 0x1.0fp+11, 0x1.9166666666667p+8,
    0x1.308p+11, 0x1.c47999999999bp+10, 0x1.15810624dd2f2p+3, 0x1.719999999999ap+7, 0x1.4a4cccccccccep+9, 0x1.6c4p+10,
    0x1.91e6666666667p+8, 0x1.d066666666667p+10, 0x1.74p+9, 0x1.7503333333332p+11, 0x1.0d8cccccccccep+10, 0x1.633b439581063p+10,
    0x1.c6p+9, 0x1.bbap+10, 0x1.f399999999999p+11, 0x1.8c4cccccccccdp+10, 0x1.0bp+7, 0x1.56p+10,
    0x1.668p+10, 0x1.3b56666666667p+11, 0x1.4133333333334p+9, 0x1.e6ccac083127p+9, 0x1.408p+9, 0x1.a199999999999p+9,
};

/* Trial `trial` of the seeded sequence: a random schedule (one tag per
 * message when unique), the 4-cube with a routing, VCs and buffer depth,
 * start-up, byte time and flit size, and R ranks a node. */
static void random_case(kc_rng *rng, int trial, int unique, kc_goal *g, kc_simnet *net, kc_simroute *route,
                        kc_appsim_opts *o, uint32_t *R)
{
    kc_err err = {0};
    kc_simalgo algos[] = {KC_ROUTE_ECUBE, KC_ROUTE_PCUBE, KC_ROUTE_LIMIN};
    assert_int_equal(kc_simnet_init(net, KC_SIM_HYPERCUBE, 2, 4, 1 + trial % 2, 1, 1, 1 + trial % 3, &err), KC_OK);
    *route = (kc_simroute){algos[trial % 3], KC_VC_NONE, KC_TIE_PLUS};
    kc_test_random_goal(g, 16, rng);
    for (size_t i = 0; unique && i + 1 < g->nops; i++) /* the generator adds a send, then its receive */
        if (g->op[i].kind == KC_GOAL_SEND)
            g->op[i].tag = g->op[i + 1].tag = (int64_t)i;
    *o = (kc_appsim_opts){(double)kc_rng_below(rng, 200), 0.1 + (double)kc_rng_below(rng, 10) / 10,
                          1 + (int)kc_rng_below(rng, 4), NULL};
    *R = g->num_ranks % 2 || trial % 4 ? 1 : 2;
}

/* Replay g (validated) on net in `order`, R ranks a node; the run's
 * matching from its timeline's flows into mate (a send's receive and a
 * receive's send, [nops]). */
static void replay(const kc_goal *g, const kc_simnet *net, const kc_simroute *route, const kc_appsim_opts *o,
                   uint32_t R, kc_appsim_order order, size_t *mate, kc_appsim_result *r)
{
    kc_simconfig cfg;
    kc_simconfig_default(&cfg);
    kc_goal_match m;
    kc_timeline t;
    kc_err err = {0};
    assert_int_equal(kc_goal_validate(g, net->nodes, &m, &err), KC_OK);
    assert_int_equal(kc_timeline_init(&t, g->num_ranks, &err), KC_OK);
    kc_appsim_place pl = {R, NULL, NULL};
    if (kc_appsim_run_order(g, &m, net, route, &cfg, o, &pl, &t, order, r, &err))
        fail_msg("%s", err.msg);
    assert_false(r->sim.deadlock);
    for (size_t i = 0; i < g->nops; i++)
        mate[i] = KC_GOAL_NONE;
    for (size_t k = 0; k < t.nflows; k++) {
        size_t s = t.slice[t.flow[k].from].op, v = t.slice[t.flow[k].to].op;
        assert_int_equal(mate[s], KC_GOAL_NONE);
        assert_int_equal(mate[v], KC_GOAL_NONE);
        mate[s] = v, mate[v] = s;
    }
    assert_int_equal(t.nflows, m.messages);
    kc_timeline_free(&t);
    kc_goal_match_free(&m);
}

/* g read from text and the n-cube with e-cube routing. */
static void small_case(const char *text, int n, kc_goal *g, kc_simnet *net, kc_simroute *route)
{
    kc_err err = {0};
    if (kc_goal_read_mem(g, text, strlen(text), "t", NULL, 0, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(kc_simnet_init(net, KC_SIM_HYPERCUBE, 2, n, 1, 1, 1, 1, &err), KC_OK);
    *route = (kc_simroute){KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
}

/* A small case replayed (start-up 1 µs, 1 µs a byte, 1 byte a flit, lp)
 * in `order`: it took the order `reason` says. */
static void run_case(const kc_goal *g, const kc_simnet *net, const kc_simroute *route, const kc_loggops_params *lp,
                     kc_appsim_order order, int reason, size_t *mate, kc_appsim_result *r)
{
    kc_appsim_opts o = {1, 1, 1, lp};
    replay(g, net, route, &o, 1, order, mate, r);
    assert_int_equal(r->order_reason, reason);
    assert_int_equal(r->fixed_order, reason == KC_APPSIM_REASON_LOGGOPS);
}

/* Is mate the static FIFO matching of g? */
static int as_static(const kc_goal *g, const kc_simnet *net, const size_t *mate)
{
    kc_goal_match m;
    kc_err err = {0};
    assert_int_equal(kc_goal_validate(g, net->nodes, &m, &err), KC_OK);
    int same = 1;
    for (size_t i = 0; i < g->nops; i++)
        if (g->op[i].kind == KC_GOAL_SEND && m.recv_of[i] != mate[i])
            same = 0;
    kc_goal_match_free(&m);
    return same;
}

static void test_unchanged_without_wildcards(void **state)
{
    (void)state;
    int alike = 0, differ = 0;
    for (int unique = 1; unique >= 0; unique--) {
        kc_rng rng;
        kc_rng_seed(&rng, 20261128);
        for (int trial = 0; trial < 120; trial++) {
            kc_goal g;
            kc_simnet net;
            kc_simroute route;
            kc_appsim_opts o;
            uint32_t R;
            random_case(&rng, trial, unique, &g, &net, &route, &o, &R);
            size_t *mate = malloc((g.nops + 1) * sizeof *mate);
            kc_appsim_result r;
            replay(&g, &net, &route, &o, R, KC_APPSIM_ORDER_LOGGOPS, mate, &r);
            double want = before[trial];
            int same = as_static(&g, &net, mate);
            assert_true(same || !unique); /* one tag a message: nothing else fits */
            if (same && r.total_us != want)
                fail_msg("trial %d%s: %a, before %a", trial, unique ? " (one tag a message)" : "", r.total_us, want);
            alike += same && !unique;
            differ += !same;
            assert_int_equal(r.order_reason, KC_APPSIM_REASON_NCUBE2);
            kc_appsim_result_free(&r);
            free(mate);
            kc_goal_free(&g);
            kc_simnet_free(&net);
        }
    }
    print_message("tags reused: %d of 120 matched as the file's FIFO order, %d otherwise\n", alike, differ);
    assert_true(alike >= 90 && differ >= 1); /* both kinds occur */
}

/* Rank 0 receives 7 messages from any source, any tag, one after the
 * other; rank i sends after a calc of (8 - i) x 100 µs. Worked out: the
 * messages leave 100 µs apart, far more than any latency, so they arrive
 * in that order and each receive, posted when the one before ended, takes
 * the next: the k-th receive gets rank 8 - k's message. The file order
 * would give it rank k's. */
static void test_wildcard_gather(void **state)
{
    (void)state;
    char text[1024];
    int k = snprintf(text, sizeof text, "num_ranks 8\nrank 0 {\n");
    for (int i = 1; i <= 7; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, "r%d: recv 100b from -1 tag -1\n", i);
    for (int i = 2; i <= 7; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, "r%d requires r%d\n", i, i - 1);
    k += snprintf(text + k, sizeof text - (size_t)k, "}\n");
    for (int i = 1; i <= 7; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, "rank %d {\nc: calc %d\ns: send 100b to 0 tag %d\n"
                      "s requires c\n}\n", i, (8 - i) * 100000, i);
    kc_goal g;
    kc_simnet net;
    kc_simroute route;
    small_case(text, 3, &g, &net, &route);
    kc_loggops_params lp = {0, 100, 0, 0, 0, KC_LOGGOPS_S_INF};
    const kc_loggops_params *with[] = {NULL, &lp};
    size_t mate[64];
    for (int w = 0; w < 2; w++) {
        kc_appsim_result r;
        run_case(&g, &net, &route, with[w], KC_APPSIM_ORDER_LOGGOPS,
                 w ? KC_APPSIM_REASON_LOGGOPS : KC_APPSIM_REASON_NCUBE2, mate, &r);
        assert_true(r.loggops_us > 0 && (!w || r.total_us >= r.loggops_us));
        assert_int_equal(r.messages, 7);
        for (size_t i = 0; i < g.nops; i++)
            if (g.op[i].kind == KC_GOAL_RECV) /* rank 0's receives are ops 0..6, in file order */
                assert_int_equal(g.op[mate[i]].rank, 7 - i);
        assert_false(as_static(&g, &net, mate));
        kc_appsim_result_free(&r);
    }
    kc_simnet_free(&net);
    kc_goal_free(&g);
}

/* Rank 1 sends two messages with tag 0; rank 0 posts its second receive
 * at once and its first after 50 µs: both messages are there by then, so
 * the second receive takes the first message and the first the second
 * (the file's FIFO order pairs them the other way). */
static void test_tag_reused(void **state)
{
    (void)state;
    const char *text = "num_ranks 2\nrank 0 {\nc: calc 50000\na: recv 10b from 1 tag 0\nb: recv 10b from 1 tag 0\n"
                       "a requires c\n}\nrank 1 {\ns: send 10b to 0 tag 0\nt: send 10b to 0 tag 0\n}\n";
    kc_goal g;
    kc_simnet net;
    kc_simroute route;
    small_case(text, 1, &g, &net, &route);
    kc_loggops_params lp = {0, 100, 1000, 0, 10, KC_LOGGOPS_S_INF};
    const kc_loggops_params *with[] = {NULL, &lp};
    kc_appsim_order orders[] = {KC_APPSIM_ORDER_LOGGOPS, KC_APPSIM_ORDER_GREEDY};
    int reason[] = {KC_APPSIM_REASON_NCUBE2, KC_APPSIM_REASON_LOGGOPS, KC_APPSIM_REASON_ASKED};
    size_t mate[8];
    for (int w = 0; w < 3; w++) {
        kc_appsim_result r;
        run_case(&g, &net, &route, with[w > 0], orders[w == 2], reason[w], mate, &r);
        /* ops: c 0, a 1, b 2, s 3, t 4 */
        assert_int_equal(mate[2], 3);
        assert_int_equal(mate[1], 4);
        kc_appsim_result_free(&r);
    }
    kc_simnet_free(&net);
    kc_goal_free(&g);
}

/* LogGOPS, with one latency for every message, has rank 7's message reach
 * rank 0 first and the wildcard take it: the receive from rank 7 is never
 * matched. On the 3-cube rank 1's message (1 hop) comes first and the
 * network replay runs, greedy, saying why. With S = 50 it is rank 1's
 * rendezvous send that stays unmatched. */
static void test_loggops_deadlock(void **state)
{
    (void)state;
    const char *text = "num_ranks 8\nrank 0 {\na: recv 100b from -1 tag -1\nb: recv 100b from 7 tag 0\n}\n"
                       "rank 1 {\nc: calc 5\ns: send 100b to 0 tag 0\ns requires c\n}\n"
                       "rank 7 {\ns: send 100b to 0 tag 0\n}\n";
    kc_goal g;
    kc_simnet net;
    kc_simroute route;
    small_case(text, 3, &g, &net, &route);
    kc_loggops_params eager = {0, 100, 0, 0, 0, KC_LOGGOPS_S_INF}, rdv = {0, 100, 0, 0, 0, 50};
    const kc_loggops_params *with[] = {NULL, &eager, &rdv};
    const char *why[] = {"it deadlocks (rank 0's receive from rank 7, tag 0, line 4, is never matched)",
                         "it deadlocks (rank 0's receive from rank 7, tag 0, line 4, is never matched)",
                         "it deadlocks (rank 1's rendezvous send of 100 bytes > S to rank 0, line 8, is never matched)"};
    size_t mate[8];
    for (int w = 0; w < 3; w++) {
        kc_appsim_result r;
        run_case(&g, &net, &route, with[w], KC_APPSIM_ORDER_LOGGOPS,
                 w ? KC_APPSIM_REASON_NO_LOGGOPS : KC_APPSIM_REASON_NCUBE2, mate, &r);
        assert_true(r.loggops_us < 0);
        assert_string_equal(r.loggops_why, why[w]);
        assert_int_equal(g.op[mate[0]].rank, 1); /* the wildcard took rank 1's message */
        assert_int_equal(g.op[mate[1]].rank, 7);
        kc_appsim_result_free(&r);
    }
    kc_simnet_free(&net);
    kc_goal_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unchanged_without_wildcards),
        cmocka_unit_test(test_wildcard_gather),
        cmocka_unit_test(test_tag_reused),
        cmocka_unit_test(test_loggops_deadlock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
