/* The LogGOPS model (kcube/loggops.h) on hand-computed
 * cases: ping-pong, fan-in, fan-out, a chain with g and O non-zero, a
 * rendezvous pair, a 0-byte message, irequires, LogGOPSim's release order,
 * a wildcard gather, a receive above S meeting an eager send (the send
 * completes once); the parameter parser; the
 * per-operation slices (no CPU runs two slices at once, the last one ends at
 * the rank's finish) on seeded random schedules; errors; cpu and nic numbers
 * read and written back. Every case uses
 * L=100, o=10, g=20, G=2, O=1, S=1000 unless it says otherwise; the
 * arithmetic is in the comments (docs/loggops.md has the rules). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/goal.h"
#include "kcube/loggops.h"
#include "kcube/rng.h"
#include "kc_testutil.h"

static const kc_loggops_params P = {100, 10, 20, 2, 1, 1000};

/* Read text and run the model; finish (may be NULL) receives the ranks' finishes. */
static uint64_t run(const char *text, const kc_loggops_params *p, uint64_t *finish)
{
    kc_goal g;
    kc_err err = {0};
    if (kc_goal_read_mem(&g, text, strlen(text), "test", NULL, 0, &err) || kc_goal_validate(&g, 0, NULL, &err))
        fail_msg("schedule: %s", err.msg);
    kc_loggops_result r;
    if (kc_loggops_run(&g, p, NULL, NULL, &r, &err))
        fail_msg("model: %s", err.msg);
    if (finish)
        memcpy(finish, r.finish_ns, g.num_ranks * sizeof *finish);
    uint64_t t = r.makespan_ns;
    kc_loggops_result_free(&r);
    kc_goal_free(&g);
    return t;
}

/* 11 bytes each way (s - 1 = 10). Rank 0 sends at 0: CPU to 0+10+10 = 20,
 * message at 0+10+100 = 110. Rank 1 takes it at 110: CPU to
 * 110+10+max(10,20) = 140, so its reply starts at 140 (CPU to 160) and
 * reaches rank 0 at 140+10+100 = 250, taken until 250+10+20 = 280. */
static void test_ping_pong(void **state)
{
    (void)state;
    uint64_t f[2];
    assert_int_equal(run("num_ranks 2\n"
                         "rank 0 {\ns: send 11b to 1\nr: recv 11b from 1\nr requires s\n}\n"
                         "rank 1 {\nr: recv 11b from 0\ns: send 11b to 0\ns requires r\n}\n",
                         &P, f),
                     280);
    assert_int_equal(f[0], 280);
    assert_int_equal(f[1], 160);
}

/* Three ranks send 11 bytes to rank 0 at 0; all arrive at 110. Rank 0's
 * NIC takes them g + 10 G = 40 apart (110, 150, 190) and the last one's CPU
 * work ends at 190+10+20 = 220. */
static void test_fan_in(void **state)
{
    (void)state;
    uint64_t f[4];
    assert_int_equal(run("num_ranks 4\nrank 0 {\na: recv 11b from 1\nb: recv 11b from 2\nc: recv 11b from 3\n}\n"
                         "rank 1 {\ns: send 11b to 0\n}\nrank 2 {\ns: send 11b to 0\n}\nrank 3 {\ns: send 11b to 0\n}\n",
                         &P, f),
                     220);
    assert_int_equal(f[0], 220);
    assert_int_equal(f[1], 20);
    assert_int_equal(f[3], 20);
}

/* Rank 0 sends 11 bytes to 1, 2, 3: its NIC allows one send every
 * g + 10 G = 40 (at 0, 40, 80; the CPU is free by then), its CPU ends at
 * 80+20 = 100; the messages arrive at 110, 150, 190 and each receiver ends
 * 30 later. */
static void test_fan_out(void **state)
{
    (void)state;
    uint64_t f[4];
    assert_int_equal(run("num_ranks 4\nrank 0 {\na: send 11b to 1\nb: send 11b to 2\nc: send 11b to 3\n}\n"
                         "rank 1 {\nr: recv 11b from 0\n}\nrank 2 {\nr: recv 11b from 0\n}\nrank 3 {\nr: recv 11b from 0\n}\n",
                         &P, f),
                     220);
    assert_int_equal(f[0], 100);
    assert_int_equal(f[1], 140);
    assert_int_equal(f[2], 180);
    assert_int_equal(f[3], 220);
}

/* calc 50, then 101 bytes, then 1 byte. The first send at 50: CPU to
 * 50+10+100 O = 160, NIC to 50+20+200 G = 270, message at 160. The second
 * waits for the NIC: at 270, CPU to 280, message at 380. Rank 1 takes the
 * first at 160, CPU to 160+10+max(100,200) = 370, NIC to 380; posts the
 * second receive at 370, takes the message at 380 (CPU to 390), calc 30:
 * 420. */
static void test_chain_g_O(void **state)
{
    (void)state;
    uint64_t f[2];
    assert_int_equal(run("num_ranks 2\n"
                         "rank 0 {\nc: calc 50\na: send 101b to 1\nb: send 1b to 1\na requires c\nb requires a\n}\n"
                         "rank 1 {\na: recv 101b from 0\nb: recv 1b from 0\nc: calc 30\nb requires a\nc requires b\n}\n",
                         &P, f),
                     420);
    assert_int_equal(f[0], 280);
    assert_int_equal(f[1], 420);
}

/* 2001 bytes > S: rank 0's send (CPU to 10+2000 = 2010) is done only when
 * rank 1 posts its receive after calc 5000; the message, there at 110,
 * waits for rank 1's CPU too (5000: CPU to 5000+10+4000 = 9010). Rank 0's
 * calc 40 then starts at 5000: 5040. Eager (S = inf) it starts at 2010. */
static void test_rendezvous(void **state)
{
    (void)state;
    const char *s = "num_ranks 2\nrank 0 {\ns: send 2001b to 1\nc: calc 40\nc requires s\n}\n"
                    "rank 1 {\nc: calc 5000\nr: recv 2001b from 0\nr requires c\n}\n";
    uint64_t f[2];
    assert_int_equal(run(s, &P, f), 9010);
    assert_int_equal(f[0], 5040);
    kc_loggops_params eager = P;
    eager.S = KC_LOGGOPS_S_INF;
    assert_int_equal(run(s, &eager, f), 9010);
    assert_int_equal(f[0], 2050);
    eager.S = 2001; /* S is the largest eager size */
    assert_int_equal(run(s, &eager, f), 9010);
    assert_int_equal(f[0], 2050);
}

/* A 0-byte message costs what a 1-byte one does: sender 10, receiver
 * 110+10 = 120 (LogGOPSim: 9 and 119, its s - 1 wrapping around). */
static void test_zero_bytes(void **state)
{
    (void)state;
    uint64_t f[2];
    const char *s = "num_ranks 2\nrank 0 {\ns: send %sb to 1\n}\nrank 1 {\nr: recv %sb from 0\n}\n";
    char buf[128];
    snprintf(buf, sizeof buf, s, "0", "0");
    assert_int_equal(run(buf, &P, f), 120);
    assert_int_equal(f[0], 10);
    snprintf(buf, sizeof buf, s, "1", "1");
    assert_int_equal(run(buf, &P, f), 120);
    /* rendezvous with S = 0 applies above 0 bytes only */
    kc_loggops_params p0 = P;
    p0.S = 0;
    snprintf(buf, sizeof buf, s, "0", "0");
    assert_int_equal(run(buf, &p0, NULL), 120);
}

/* Both ranks post the receive and send at once (irequires): each send at 0,
 * message at 110, taken until 140. With requires the sends would wait for
 * the receives: a deadlock, reported. */
static void test_irequires(void **state)
{
    (void)state;
    assert_int_equal(run("num_ranks 2\n"
                         "rank 0 {\nr: recv 11b from 1\ns: send 11b to 1\ns irequires r\n}\n"
                         "rank 1 {\nr: recv 11b from 0\ns: send 11b to 0\ns irequires r\n}\n",
                         &P, NULL),
                     140);
    /* a send above S waiting for its own rank's receive's end, both ways: stuck */
    const char *dl = "num_ranks 2\nrank 0 {\ns: send 2000b to 1\nr: recv 2000b from 1\nr requires s\n}\n"
                     "rank 1 {\ns: send 2000b to 0\nr: recv 2000b from 0\nr requires s\n}\n";
    kc_goal g;
    kc_err err = {0};
    assert_int_equal(kc_goal_read_mem(&g, dl, strlen(dl), "t", NULL, 0, &err), KC_OK);
    kc_loggops_result r;
    assert_int_equal(kc_loggops_run(&g, &P, NULL, NULL, &r, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "never complete"));
    assert_null(r.finish_ns);
    kc_loggops_params eager = P;
    eager.S = 2000;
    assert_int_equal(kc_loggops_run(&g, &eager, NULL, NULL, &r, &err), KC_OK);
    kc_loggops_result_free(&r);
    kc_goal_free(&g);
}

/* A receive from any source takes the first message its rank's NIC takes. */
static void test_wildcard(void **state)
{
    (void)state;
    uint64_t f[3];
    /* Both receives are posted at 0, the wildcard first. Rank 2's message
     * arrives at 110 and goes to the wildcard (CPU to 140, NIC to
     * 110+20+20 = 150); rank 1's, sent after calc 5, arrives at 115, waits
     * for the NIC until 150 and goes to the other receive: 150+30 = 180. */
    const char *s = "num_ranks 3\nrank 0 {\na: recv 11b from -1\nb: recv 11b from %s\n}\n"
                    "rank 1 {\nc: calc 5\ns: send 11b to 0\ns requires c\n}\nrank 2 {\ns: send 11b to 0\n}\n";
    char buf[160];
    snprintf(buf, sizeof buf, s, "-1");
    assert_int_equal(run(buf, &P, f), 180);
    assert_int_equal(f[0], 180);
    /* Valid in file order (the wildcard takes rank 1's send), but at run
     * time it takes rank 2's first and rank 1's message is left over, as
     * under MPI: reported. */
    snprintf(buf, sizeof buf, s, "2");
    kc_goal g;
    kc_err err = {0};
    assert_int_equal(kc_goal_read_mem(&g, buf, strlen(buf), "t", NULL, 0, &err), KC_OK);
    assert_int_equal(kc_goal_validate(&g, 0, NULL, &err), KC_OK);
    kc_loggops_result r;
    assert_int_equal(kc_loggops_run(&g, &P, NULL, NULL, &r, &err), KC_EINVAL);
    kc_goal_free(&g);
}

/* Operations made ready by one event are taken in LogGOPSim's order: by
 * kind (sends, receives, calcs), then the order of release: dependents of
 * the start (`irequires`) before those of the end, each in dependency-line
 * order. Rank 0 computes 50 ns, then sends 11 bytes to rank 1 (which then
 * computes 100) and 51 bytes to rank 2; the file writes `l3 requires l1`
 * first, so l3 (51 bytes) leaves first:
 *   l3 at 50: CPU to 50+10+50 = 110, NIC to 50+20+100 = 170, message at 160;
 *     rank 2 takes it: 160+10+max(50,100) = 270.
 *   l2 at 170 (the NIC): CPU to 190, message at 280; rank 1 takes it until
 *     280+10+20 = 310, then calc 100: 410.
 * LogGOPSim (stable sort, bench/build_loggopsim.sh): 190, 410, 270. In program
 * order (l2 first) the makespan would be 310: l2 at 50, rank 1 done 190+100;
 * l3 at 90 (NIC), message at 200, rank 2 done 200+10+100 = 310. */
static void test_release_order(void **state)
{
    (void)state;
    const char *t = "num_ranks 3\n"
                    "rank 0 {\nl1: calc 50\nl2: send 11b to 1 tag 2\nl3: send 51b to 2 tag 3\n%s\n%s\n}\n"
                    "rank 1 {\nl1: recv 11b from 0 tag 2\nl2: calc 100\nl2 requires l1\n}\n"
                    "rank 2 {\nl1: recv 51b from 0 tag 3\n}\n";
    char buf[400];
    uint64_t f[3];
    snprintf(buf, sizeof buf, t, "l3 requires l1", "l2 requires l1");
    assert_int_equal(run(buf, &P, f), 410);
    assert_true(f[0] == 190 && f[1] == 410 && f[2] == 270);
    /* the dependency lines in program order: l2 first, 310 (LogGOPSim: 150, 290, 310) */
    snprintf(buf, sizeof buf, t, "l2 requires l1", "l3 requires l1");
    assert_int_equal(run(buf, &P, f), 310);
    assert_true(f[0] == 150 && f[1] == 290 && f[2] == 310);
    /* released by one event, the calc's: l3 by its start (irequires), l2 by
     * its end; l3 goes first although its line comes second: 410 again
     * (LogGOPSim: 190, 410, 270) */
    snprintf(buf, sizeof buf, t, "l2 requires l1", "l3 irequires l1");
    assert_int_equal(run(buf, &P, f), 410);
    assert_true(f[0] == 190 && f[1] == 410 && f[2] == 270);
}

/* A gather into rank 0 of 8 ranks with any-source, any-tag receives; rank 1
 * sends only after rank 0's first receive sent it a token. In file order
 * the first receive would take rank 1's send (a cycle); at run time it
 * takes rank 2's message. Under LogGOPSim's defaults LogGOPSim gives
 * 26,688 ns (rank 0), 22,310 (rank 1) and 1,500 (the others: their o).
 * The shape of it: ranks 2..7's messages (64 bytes) all arrive at 4000 and
 * rank 0's NIC takes one every g + 63 G = 1378 ns; the token leaves after
 * the first, and rank 1's message comes last. */
static void test_wildcard_gather(void **state)
{
    (void)state;
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "num_ranks 8\nrank 0 {\n");
    for (int r = 1; r < 8; r++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "l%d: recv 64b from -1 tag -1\n", r);
    n += snprintf(buf + n, sizeof buf - (size_t)n, "go: send 8b to 1 tag 9\ngo requires l1\n}\n"
                  "rank 1 {\nw: recv 8b from 0 tag 9\nl1: send 64b to 0 tag 5\nl1 requires w\n}\n");
    for (int r = 2; r < 8; r++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "rank %d {\nl1: send 64b to 0 tag 5\n}\n", r);
    kc_loggops_params def = KC_LOGGOPS_PARAMS_DEFAULT;
    uint64_t f[8];
    assert_int_equal(run(buf, &def, f), 26688);
    assert_int_equal(f[0], 26688);
    assert_int_equal(f[1], 22310);
    for (int r = 2; r < 8; r++)
        assert_int_equal(f[r], 1500);
}

/* The "N of M operations never complete" count of a failed run, or -1. */
static long long never_count(const char *msg, long long *of)
{
    long long k = -1;
    *of = -1;
    if (sscanf(msg, "%lld of %lld operations never complete", &k, of) != 2)
        return -1;
    return k;
}

/* A receive above S (2000 bytes) from any source meets an eager 100-byte
 * send already in its unexpected queue. kcube: the send's size decides, so
 * the send completed once, when it left. Rank 0: calc 5000, calc 1, then
 * the receive is released at 5001, after the message (there at 110, held by
 * the busy CPU until 5001) was queued: CPU to 5001+10+max(99,198) = 5209;
 * the receive then matches it, the reply (11 bytes) leaves at 5209 (CPU to
 * 5229), arrives at 5319, rank 1 takes it until 5349 and runs z (which
 * requires its send s and that receive): 5356.
 * LogGOPSim decides on the receive's size there (2000 > S: rendezvous) and
 * completes s a second time at 5001: z's count of dependencies reaches 0
 * before its receive is done, z runs 5001-5008 (rank 1's clock moved to the
 * match), and rank 1 ends at 5349 (LogGOPSim: 5229, 5349). */
static void test_double_completion(void **state)
{
    (void)state;
    const char *t = "num_ranks 2\n"
                    "rank 0 {\nc: calc 5000\nd: calc 1\nr: recv %db from -1 tag -1\nt: send 11b to 1 tag 2\n"
                    "d requires c\nr requires d\nt requires r\n}\n"
                    "rank 1 {\ns: send %db to 0 tag 1\nw: recv 11b from 0 tag 2\nz: calc 7\nz requires s\n"
                    "z requires w\n}\n";
    char buf[400];
    uint64_t f[2];
    snprintf(buf, sizeof buf, t, 2000, 100);
    assert_int_equal(run(buf, &P, f), 5356);
    assert_true(f[0] == 5229 && f[1] == 5356);
    /* The other way round, a 100-byte receive meets a 2000-byte rendezvous
     * send: kcube ends the send at the match (5001): z still runs, 9156.
     * LogGOPSim (receive's size: eager) never completes the send, z never
     * runs and nothing is reported: 9029, 9149. */
    snprintf(buf, sizeof buf, t, 100, 2000);
    assert_int_equal(run(buf, &P, f), 9156);
    assert_true(f[0] == 9029 && f[1] == 9156);
    /* A run that cannot complete (a receive nothing sends to, not
     * validated; it takes s's message, so r waits forever) names how many
     * never complete, never a wrapped count. */
    snprintf(buf, sizeof buf, t, 2000, 100);
    char *x = strstr(buf, "t: send");
    memmove(x + 26, x, strlen(x) + 1);
    memcpy(x, "e: recv 5b from -1 tag -1\n", 26);
    kc_goal g;
    kc_err err = {0};
    assert_int_equal(kc_goal_read_mem(&g, buf, strlen(buf), "t", NULL, 0, &err), KC_OK);
    kc_loggops_result r;
    assert_int_equal(kc_loggops_run(&g, &P, NULL, NULL, &r, &err), KC_EINVAL);
    long long of, k = never_count(err.msg, &of);
    if (k < 1 || k > of || of != (long long)g.nops)
        fail_msg("%s", err.msg);
    kc_goal_free(&g);
}

static void test_parse(void **state)
{
    (void)state;
    kc_loggops_params p = KC_LOGGOPS_PARAMS_DEFAULT;
    kc_err err = {0};
    assert_int_equal(kc_loggops_parse("L=1,o=2,g=3,G=4,O=5,S=6", &p, &err), KC_OK);
    assert_true(p.L == 1 && p.o == 2 && p.g == 3 && p.G == 4 && p.O == 5 && p.S == 6);
    p = (kc_loggops_params)KC_LOGGOPS_PARAMS_DEFAULT;
    assert_int_equal(kc_loggops_parse("S=inf,G=0", &p, &err), KC_OK);
    assert_true(p.L == 2500 && p.o == 1500 && p.g == 1000 && p.G == 0 && p.O == 0 && p.S == KC_LOGGOPS_S_INF);
    const char *bad[] = {"", "x=1", "L=", "L=1,", "L=1,L=2", "L=1;o=2", "L=-1", "L=1x", "o=inf", "L=86400000000001",
                         "L = 1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&err, 0, sizeof err);
        if (kc_loggops_parse(bad[i], &p, &err) != KC_EINVAL)
            fail_msg("'%s' accepted", bad[i]);
        assert_string_equal(err.param, "loggops");
    }
}

/* ---- slices ------------------------------------------------------------------ */

typedef struct slices {
    kc_loggops_slice *s;
    size_t n, cap;
} slices;

static void collect(void *ctx, const kc_loggops_slice *s)
{
    slices *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->s = realloc(l->s, l->cap * sizeof *l->s);
        assert_non_null(l->s);
    }
    l->s[l->n++] = *s;
}

static int by_cpu_start(const void *a, const void *b)
{
    const kc_loggops_slice *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* The ping-pong's slices, by hand, then random schedules: CPU slices (all
 * but WIRE) of a (rank, cpu) never overlap, the last ends at the rank's
 * finish, every message has one RECV and one WIRE slice. */
static void test_slices(void **state)
{
    (void)state;
    const char *pp = "num_ranks 2\nrank 0 {\ns: send 11b to 1\nr: recv 11b from 1\nr requires s\n}\n"
                     "rank 1 {\nr: recv 11b from 0\ns: send 11b to 0\ns requires r\n}\n";
    kc_goal g;
    kc_err err = {0};
    assert_int_equal(kc_goal_read_mem(&g, pp, strlen(pp), "t", NULL, 0, &err), KC_OK);
    slices l = {0};
    kc_loggops_result r;
    assert_int_equal(kc_loggops_run(&g, &P, collect, &l, &r, &err), KC_OK);
    assert_int_equal(l.n, 8); /* and a WAIT per receive */
    int seen = 0;
    for (size_t i = 0; i < l.n; i++) {
        const kc_loggops_slice *s = &l.s[i];
        if (s->kind == KC_LOGGOPS_SEND && s->rank == 0)
            seen |= 1, assert_true(s->op == 0 && s->start_ns == 0 && s->end_ns == 20);
        if (s->kind == KC_LOGGOPS_WIRE && s->rank == 0)
            seen |= 2, assert_true(s->op == 0 && s->peer == 2 && s->start_ns == 10 && s->end_ns == 110);
        if (s->kind == KC_LOGGOPS_RECV && s->rank == 0)
            seen |= 4, assert_true(s->op == 1 && s->peer == 3 && s->start_ns == 250 && s->end_ns == 280);
    }
    assert_int_equal(seen, 7);
    kc_loggops_result_free(&r);
    kc_goal_free(&g);

    kc_rng rng;
    kc_rng_seed(&rng, 2101);
    kc_loggops_params ps[2] = {{100, 10, 20, 2, 1, 64}, {2500, 1500, 1000, 6, 0, 65535}};
    for (int trial = 0; trial < 40; trial++) {
        kc_test_random_goal(&g, 8, &rng);
        kc_goal_match m;
        assert_int_equal(kc_goal_validate(&g, 0, &m, &err), KC_OK);
        l.n = 0;
        kc_status st = kc_loggops_run(&g, &ps[trial & 1], collect, &l, &r, &err);
        if (st == KC_EINVAL) { /* a rendezvous deadlock of the random schedule */
            kc_goal_match_free(&m);
            kc_goal_free(&g);
            continue;
        }
        assert_int_equal(st, KC_OK);
        size_t wires = 0, recvs = 0;
        for (size_t i = 0; i < l.n; i++) {
            wires += l.s[i].kind == KC_LOGGOPS_WIRE;
            recvs += l.s[i].kind == KC_LOGGOPS_RECV;
            if (l.s[i].kind == KC_LOGGOPS_WIRE || l.s[i].kind == KC_LOGGOPS_WAIT) /* no CPU: sorted past */
                l.s[i].rank = UINT32_MAX;
        }
        assert_int_equal(wires, m.messages);
        assert_int_equal(recvs, m.messages);
        assert_int_equal(r.messages, m.messages);
        qsort(l.s, l.n, sizeof *l.s, by_cpu_start);
        uint64_t *last = calloc(g.num_ranks, sizeof *last);
        for (size_t i = 0; i < l.n && l.s[i].rank != UINT32_MAX; i++) {
            const kc_loggops_slice *s = &l.s[i];
            assert_true(s->start_ns <= s->end_ns);
            if (i && l.s[i - 1].rank == s->rank && l.s[i - 1].cpu == s->cpu)
                assert_true(l.s[i - 1].end_ns <= s->start_ns);
            if (s->end_ns > last[s->rank])
                last[s->rank] = s->end_ns;
        }
        for (uint32_t v = 0; v < g.num_ranks; v++)
            assert_int_equal(last[v], r.finish_ns[v]);
        free(last);
        kc_loggops_result_free(&r);
        kc_goal_match_free(&m);
        kc_goal_free(&g);
    }
    free(l.s);
}

static void test_errors(void **state)
{
    (void)state;
    kc_goal g;
    kc_err err = {0};
    assert_int_equal(kc_goal_init(&g, 2, &err), KC_OK);
    assert_int_equal(kc_goal_add(&g, KC_GOAL_SEND, 0, 5, 0, 1, NULL, 3, NULL, &err), KC_OK);
    kc_loggops_result r;
    assert_int_equal(kc_loggops_run(&g, NULL, NULL, NULL, &r, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 3"));
    g.op[0].peer = 1; /* now a send nobody receives: left unmatched */
    assert_int_equal(kc_loggops_run(&g, NULL, NULL, NULL, &r, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "unmatched"));
    kc_loggops_params big = KC_LOGGOPS_PARAMS_DEFAULT;
    big.L = KC_LOGGOPS_PARAM_MAX + 1;
    assert_int_equal(kc_loggops_run(&g, &big, NULL, NULL, &r, &err), KC_EINVAL);
    /* a time past 2^64 - 1 ns */
    g.op[0].kind = KC_GOAL_CALC;
    g.op[0].amount = UINT64_MAX - 5;
    assert_int_equal(kc_goal_add(&g, KC_GOAL_CALC, 0, 0, 0, 10, NULL, 4, NULL, &err), KC_OK);
    assert_int_equal(kc_loggops_run(&g, NULL, NULL, NULL, &r, &err), KC_ERANGE);
    kc_goal_free(&g);
    /* no operations at all */
    assert_int_equal(kc_goal_init(&g, 3, &err), KC_OK);
    assert_int_equal(kc_loggops_run(&g, NULL, NULL, NULL, &r, &err), KC_OK);
    assert_int_equal(r.makespan_ns, 0);
    kc_loggops_result_free(&r);
    kc_goal_free(&g);
}

/* cpu and nic numbers are kept by the reader and written back. */
static void test_cpu_nic_kept(void **state)
{
    (void)state;
    const char *t = "num_ranks 2\nrank 0 {\na: calc 5 cpu 2\nb: send 4b to 1 tag 1 cpu 1 nic 3\n}\n"
                    "rank 1 {\nr: recv 4b from 0 tag 1 nic 1\n}\n";
    kc_goal g;
    kc_err err = {0};
    assert_int_equal(kc_goal_read_mem(&g, t, strlen(t), "t", NULL, 0, &err), KC_OK);
    assert_true(g.op[0].cpu == 2 && g.op[0].nic == 0 && g.op[1].cpu == 1 && g.op[1].nic == 3);
    assert_true(g.op[2].cpu == 0 && g.op[2].nic == 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(kc_goal_write(&g, f, &err), KC_OK);
    fclose(f);
    assert_non_null(strstr(buf, "calc 5 cpu 2\n"));
    assert_non_null(strstr(buf, "send 4b to 1 tag 1 cpu 1 nic 3\n"));
    assert_non_null(strstr(buf, "recv 4b from 0 tag 1 nic 1\n"));
    free(buf);
    kc_goal_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ping_pong),  cmocka_unit_test(test_fan_in),   cmocka_unit_test(test_fan_out),
        cmocka_unit_test(test_chain_g_O),  cmocka_unit_test(test_rendezvous), cmocka_unit_test(test_zero_bytes),
        cmocka_unit_test(test_irequires),  cmocka_unit_test(test_wildcard), cmocka_unit_test(test_parse),
        cmocka_unit_test(test_slices),     cmocka_unit_test(test_errors), cmocka_unit_test(test_cpu_nic_kept),
        cmocka_unit_test(test_release_order), cmocka_unit_test(test_wildcard_gather),
        cmocka_unit_test(test_double_completion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
