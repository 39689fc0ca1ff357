/* Traces to traffic and schedules (kc_trace_traffic, kc_trace_goal) on
 * in-memory traces built with kc_trace_init/append/finish: blocking
 * point-to-point, isend/irecv with waits, waitall, a sendrecv ring,
 * sub-communicators, every collective with every algorithm, time windows,
 * regions and the compute scale. Traffic is compared with sums the test
 * makes itself; schedules must validate (kc_goal_validate) and replay
 * under the LogGOPS model (kc_loggops_run) to the makespan counted by hand
 * (L=100, o=10, g=20, G=2, O=1, S=1000, the cases of test_loggops.c), and
 * seeded random deadlock-free programs (point-to-point in a global order,
 * blocking or not, waits later, collectives between) must validate and
 * replay with every message delivered. */
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
#include "kcube/trace.h"
#include "trace_totals.h"
#include "kcube/traffic.h"

static const kc_loggops_params P = {100, 10, 20, 2, 1, 1000};

static void ok(kc_status s, const kc_err *err)
{
    if (s)
        fail_msg("%s", err->msg);
}

static void put(kc_trace *t, uint32_t rank, kc_trace_kind kind, uint64_t time, uint32_t peer, uint32_t tag,
                uint64_t bytes, uint32_t comm, uint64_t request)
{
    kc_trace_event e;
    memset(&e, 0, sizeof e);
    e.kind = (uint8_t)kind;
    e.time = e.end = time;
    e.peer = peer;
    e.tag = tag;
    e.bytes = bytes;
    e.comm = comm;
    e.request = request;
    kc_err err = {0};
    ok(kc_trace_append(t, rank, &e, &err), &err);
}

static void send_(kc_trace *t, uint32_t r, uint64_t time, uint32_t to, uint32_t tag, uint64_t bytes)
{
    put(t, r, KC_TRACE_SEND, time, to, tag, bytes, 0, 0);
}
static void recv_(kc_trace *t, uint32_t r, uint64_t time, uint32_t from, uint32_t tag, uint64_t bytes)
{
    put(t, r, KC_TRACE_RECV, time, from, tag, bytes, 0, 0);
}

static void coll(kc_trace *t, uint32_t r, uint64_t time, uint64_t end, kc_trace_coll op, uint32_t comm,
                 uint32_t root, uint64_t sent, uint64_t received)
{
    kc_trace_event e;
    memset(&e, 0, sizeof e);
    e.kind = KC_TRACE_COLL;
    e.coll = (uint8_t)op;
    e.time = time;
    e.end = end;
    e.peer = root;
    e.comm = comm;
    e.bytes = sent;
    e.received = received;
    kc_err err = {0};
    ok(kc_trace_append(t, r, &e, &err), &err);
}

static void region(kc_trace *t, uint32_t r, uint64_t time, uint32_t reg, int enter)
{
    put(t, r, enter ? KC_TRACE_ENTER : KC_TRACE_LEAVE, time, 0, 0, 0, reg, 0);
}

/* Goal of t, validated; returns the LogGOPS makespan (P unless p given). */
static uint64_t replay(const kc_trace *t, double scale, kc_trace_alg alg, const kc_loggops_params *p,
                       kc_trace_summary *sum, uint64_t *messages)
{
    kc_err err = {0};
    kc_goal g;
    kc_trace_goal_opts o = {scale, alg};
    ok(kc_trace_goal(t, &o, &g, sum, &err), &err);
    ok(kc_goal_validate(&g, t->ranks, NULL, &err), &err);
    kc_loggops_result r;
    ok(kc_loggops_run(&g, p ? p : &P, NULL, NULL, &r, &err), &err);
    uint64_t m = r.makespan_ns;
    if (messages)
        *messages = r.messages;
    kc_loggops_result_free(&r);
    kc_goal_free(&g);
    return m;
}

/* Bytes from a to b in the traffic. */
static uint64_t between(const kc_traffic *tr, uint32_t a, uint32_t b)
{
    uint64_t s = 0;
    for (size_t i = 0; i < tr->count; i++)
        if (tr->src[i] == a && tr->dst[i] == b)
            s += tr->bytes[i];
    return s;
}

static void traffic_of(const kc_trace *t, const kc_trace_filter *f, kc_traffic *tr, kc_trace_summary *sum)
{
    kc_err err = {0};
    ok(kc_traffic_init(tr, t->ranks, &err), &err);
    ok(kc_trace_traffic(t, f, tr, sum, &err), &err);
}

/* The ping-pong of test_loggops.c (11 bytes each way: 280 ns), with rank 1
 * computing 1000 ns between its receive and its reply in the trace: the
 * reply starts 1000 ns later (1280), half that at scale 0.5 (780). Rank
 * 0's wait inside MPI_Recv is not compute. */
static void test_ping_pong(void **state)
{
    (void)state;
    kc_trace t;
    kc_err err = {0};
    uint32_t mpi_recv;
    ok(kc_trace_init(&t, 2, "ping-pong", &err), &err);
    ok(kc_trace_add_region(&t, "MPI_Recv", &mpi_recv, &err), &err);
    send_(&t, 0, 0, 1, 3, 11);
    region(&t, 0, 0, mpi_recv, 1); /* blocked in MPI_Recv until 2100: not compute */
    recv_(&t, 0, 2100, 1, 4, 11);
    region(&t, 0, 2100, mpi_recv, 0);
    recv_(&t, 1, 1000, 0, 3, 11);
    send_(&t, 1, 2000, 0, 4, 11);
    ok(kc_trace_finish(&t, &err), &err);
    kc_trace_summary sum;
    assert_int_equal(replay(&t, 0, KC_ALG_AUTO, NULL, &sum, NULL), 280);
    assert_int_equal(sum.p2p_messages, 2);
    assert_int_equal(sum.p2p_bytes, 22);
    assert_int_equal(replay(&t, 1, KC_ALG_AUTO, NULL, NULL, NULL), 1280);
    assert_int_equal(replay(&t, 0.5, KC_ALG_AUTO, NULL, NULL, NULL), 780);
    kc_traffic tr;
    traffic_of(&t, NULL, &tr, &sum);
    assert_int_equal(tr.count, 2);
    assert_int_equal(between(&tr, 0, 1), 11);
    assert_int_equal(between(&tr, 1, 0), 11);
    kc_traffic_free(&tr);
    kc_trace_free(&t);
}

/* Rank 0: isend to 1 and to 2, a waitall, then a blocking send to 1; ranks
 * 1 and 2 post irecvs and wait. Rank 0's CPU: sends at 0 (to 20) and, its
 * NIC busy g + 10 G = 40, at 40 (to 60); the blocking send waits for both
 * (pending) and the NIC: 80 (to 100). Rank 1 takes the first at 110 (to
 * 140), its receive of the third (posted after its irecv completed at 140)
 * takes the message arriving at 190, until 220. */
static void test_nonblocking(void **state)
{
    (void)state;
    kc_trace t;
    kc_err err = {0};
    ok(kc_trace_init(&t, 3, "waitall", &err), &err);
    put(&t, 0, KC_TRACE_ISEND, 0, 1, 0, 11, 0, 1);
    put(&t, 0, KC_TRACE_ISEND, 0, 2, 0, 11, 0, 2);
    put(&t, 0, KC_TRACE_COMPLETE, 0, KC_TRACE_NO_RANK, 0, 0, 0, 2);
    put(&t, 0, KC_TRACE_COMPLETE, 0, KC_TRACE_NO_RANK, 0, 0, 0, 1);
    send_(&t, 0, 0, 1, 1, 11);
    put(&t, 1, KC_TRACE_IRECV, 0, 0, 0, 0, 0, 5);
    put(&t, 1, KC_TRACE_COMPLETE, 0, 0, 0, 11, 0, 5);
    recv_(&t, 1, 0, 0, 1, 11);
    put(&t, 2, KC_TRACE_IRECV, 0, 0, 0, 0, 0, 9);
    put(&t, 2, KC_TRACE_COMPLETE, 0, 0, 0, 11, 0, 9);
    ok(kc_trace_finish(&t, &err), &err);
    uint64_t delivered;
    assert_int_equal(replay(&t, 1, KC_ALG_AUTO, NULL, NULL, &delivered), 220);
    assert_int_equal(delivered, 3);
    /* The blocking send requires both isends, nothing else: linear. */
    kc_goal g;
    ok(kc_trace_goal(&t, NULL, &g, NULL, &err), &err);
    assert_int_equal(g.nops, 6);
    size_t on_third = 0;
    for (size_t d = 0; d < g.ndeps; d++)
        if (g.dep[d].op == 2) {
            assert_true(g.dep[d].on == 0 || g.dep[d].on == 1);
            on_third++;
        }
    assert_int_equal(on_third, 2);
    assert_int_equal(g.ndeps, 2 + 1 + 0);
    kc_goal_free(&g);
    kc_trace_free(&t);
}

/* Four ranks pass 2000 bytes (above S: rendezvous) around a ring with
 * MPI_Sendrecv. Its send and receive start together; read one after the
 * other (no region in the trace) every rank's send waits for a receive
 * posted only after it, and the replay deadlocks. */
static void sendrecv_ring(kc_trace *t, int with_region)
{
    kc_err err = {0};
    uint32_t reg;
    ok(kc_trace_init(t, 4, "ring", &err), &err);
    ok(kc_trace_add_region(t, "MPI_Sendrecv", &reg, &err), &err);
    for (uint32_t r = 0; r < 4; r++) {
        if (with_region)
            region(t, r, 0, reg, 1);
        send_(t, r, 10, (r + 1) % 4, 0, 2000);
        recv_(t, r, 90, (r + 3) % 4, 0, 2000);
        if (with_region)
            region(t, r, 100, reg, 0);
    }
    ok(kc_trace_finish(t, &err), &err);
}

static void test_sendrecv_ring(void **state)
{
    (void)state;
    kc_trace t;
    sendrecv_ring(&t, 1);
    uint64_t delivered;
    assert_true(replay(&t, 1, KC_ALG_AUTO, NULL, NULL, &delivered) > 0);
    assert_int_equal(delivered, 4);
    kc_trace_free(&t);
    sendrecv_ring(&t, 0);
    kc_err err = {0};
    kc_goal g;
    ok(kc_trace_goal(&t, NULL, &g, NULL, &err), &err);
    ok(kc_goal_validate(&g, 4, NULL, &err), &err); /* validation takes sends as eager */
    kc_loggops_result r;
    assert_int_equal(kc_loggops_run(&g, &P, NULL, NULL, &r, &err), KC_EINVAL);
    kc_goal_free(&g);
    kc_trace_free(&t);
}

/* Communicators A = (3, 1) and B = (0, 2, 3): a bcast of 64 bytes on A
 * rooted at world 3, an allreduce of 30 bytes on B, a message on A from
 * world 1 to world 3. Linear: 3 -> 1 (64); 2 -> 0, 3 -> 0, 0 -> 2, 0 -> 3
 * (30 each); 1 -> 3 (5). */
static void subcomm_trace(kc_trace *t)
{
    kc_err err = {0};
    uint32_t a, b, A[2] = {3, 1}, B[3] = {0, 2, 3};
    ok(kc_trace_init(t, 4, "subcomm", &err), &err);
    ok(kc_trace_add_comm(t, 2, A, "A", &a, &err), &err);
    ok(kc_trace_add_comm(t, 3, B, "B", &b, &err), &err);
    coll(t, 3, 0, 10, KC_COLL_BCAST, a, 3, 128, 64);
    coll(t, 1, 0, 10, KC_COLL_BCAST, a, 3, 0, 64);
    for (uint32_t i = 0; i < 3; i++)
        coll(t, B[i], 20, 30, KC_COLL_ALLREDUCE, b, KC_TRACE_NO_RANK, 90, 90);
    put(t, 1, KC_TRACE_SEND, 40, 3, 7, 5, a, 0);
    put(t, 3, KC_TRACE_RECV, 50, 1, 7, 5, a, 0);
    ok(kc_trace_finish(t, &err), &err);
}

static void test_subcomm(void **state)
{
    (void)state;
    kc_trace t;
    subcomm_trace(&t);
    kc_trace_filter f;
    kc_trace_filter_default(&f);
    f.alg = KC_ALG_LINEAR;
    kc_traffic tr;
    kc_trace_summary sum;
    traffic_of(&t, &f, &tr, &sum);
    assert_int_equal(between(&tr, 3, 1), 64);
    assert_int_equal(between(&tr, 2, 0), 30);
    assert_int_equal(between(&tr, 3, 0), 30);
    assert_int_equal(between(&tr, 0, 2), 30);
    assert_int_equal(between(&tr, 0, 3), 30);
    assert_int_equal(between(&tr, 1, 3), 5);
    assert_int_equal(tr.count, 6);
    assert_int_equal(sum.coll_calls[KC_COLL_BCAST], 1);
    assert_int_equal(sum.coll_calls[KC_COLL_ALLREDUCE], 1);
    assert_int_equal(sum.coll_algs[KC_COLL_ALLREDUCE], 1u << KC_ALG_LINEAR);
    assert_int_equal(sum.coll_messages, 5);
    assert_int_equal(sum.coll_bytes, 64 + 4 * 30);
    assert_int_equal(sum.p2p_messages, 1);
    kc_traffic_free(&tr);
    for (int alg = KC_ALG_AUTO; alg < KC_ALG_COUNT; alg++) {
        uint64_t delivered;
        replay(&t, 1, (kc_trace_alg)alg, NULL, &sum, &delivered);
        assert_int_equal(delivered, sum.coll_messages + sum.p2p_messages);
    }
    /* Written and read back: no message on the world, so the one on A
     * (its tag 7) gets tag 0, the two collective calls tags 1 and 2. */
    kc_err err = {0};
    kc_goal g, back;
    ok(kc_trace_goal(&t, NULL, &g, NULL, &err), &err);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    ok(kc_goal_write(&g, mem, &err), &err);
    fclose(mem);
    assert_non_null(strstr(text, "send 5b to 3 tag 0"));
    assert_non_null(strstr(text, "send 64b to 1 tag 1"));
    assert_non_null(strstr(text, "send 30b to 2 tag 2"));
    ok(kc_goal_read_mem(&back, text, len, "written", NULL, 0, &err), &err);
    ok(kc_goal_validate(&back, 4, NULL, &err), &err);
    assert_int_equal(back.nops, g.nops);
    assert_int_equal(back.ndeps, g.ndeps);
    free(text);
    kc_goal_free(&back);
    kc_goal_free(&g);
    kc_trace_free(&t);
}

typedef struct pair_sum {
    uint64_t *bytes; /* p x p */
    uint32_t p, me;
} pair_sum;

static int count_pair(void *ctx, uint32_t step, uint32_t peer, uint64_t bytes)
{
    (void)step;
    pair_sum *x = ctx;
    x->bytes[(size_t)x->me * x->p + peer] += bytes;
    return 0;
}

/* In a schedule of collectives alone, every message of a later call (a
 * larger tag) must wait, through the dependencies, for every message of
 * each earlier call of its rank: program order. O(ops (ops + deps)). */
static void check_call_order(const kc_goal *g)
{
    size_t *first = calloc(g->nops + 1, sizeof *first), *on = malloc((g->ndeps + 1) * sizeof *on);
    size_t *stack = malloc((g->nops + 1) * sizeof *stack);
    unsigned char *seen = malloc(g->nops + 1);
    assert_true(first && on && stack && seen);
    for (size_t d = 0; d < g->ndeps; d++)
        first[g->dep[d].op + 1]++;
    for (size_t i = 0; i < g->nops; i++)
        first[i + 1] += first[i];
    size_t *fill = malloc((g->nops + 1) * sizeof *fill);
    assert_non_null(fill);
    memcpy(fill, first, (g->nops + 1) * sizeof *fill);
    for (size_t d = 0; d < g->ndeps; d++)
        on[fill[g->dep[d].op]++] = g->dep[d].on;
    for (size_t b = 0; b < g->nops; b++) {
        if (g->op[b].kind == KC_GOAL_CALC)
            continue;
        memset(seen, 0, g->nops);
        size_t n = 0;
        stack[n++] = b;
        while (n) {
            size_t x = stack[--n];
            for (size_t k = first[x]; k < first[x + 1]; k++)
                if (!seen[on[k]]) {
                    seen[on[k]] = 1;
                    stack[n++] = on[k];
                }
        }
        for (size_t a = 0; a < g->nops; a++)
            if (g->op[a].rank == g->op[b].rank && g->op[a].kind != KC_GOAL_CALC && g->op[a].tag < g->op[b].tag &&
                !seen[a])
                fail_msg("rank %u: operation %zu (tag %lld) does not wait for %zu (tag %lld)", g->op[b].rank, b,
                         (long long)g->op[b].tag, a, (long long)g->op[a].tag);
    }
    free(first);
    free(on);
    free(stack);
    free(seen);
    free(fill);
}

/* Every operation in turn on the world of p ranks (root 2, 1000 bytes),
 * with rank-dependent compute between: for each algorithm the traffic is
 * what each rank's own expansion says, the schedule validates and
 * replays with every message delivered, and each call waits for all of
 * the calls before it. */
static void test_every_collective(void **state)
{
    (void)state;
    for (uint32_t p = 3; p <= 8; p += 5) {
        kc_trace t;
        kc_err err = {0};
        ok(kc_trace_init(&t, p, "collectives", &err), &err);
        for (uint32_t r = 0; r < p; r++)
            for (int op = 0; op < KC_COLL_COUNT; op++) {
                uint64_t s, v, at = 1000 * (uint64_t)op + 37 * r;
                kc_test_scorep_totals((kc_trace_coll)op, p, 2, r, 1000, &s, &v);
                coll(&t, r, at, at + 300, (kc_trace_coll)op, 0, 2, s, v);
            }
        ok(kc_trace_finish(&t, &err), &err);
        for (int alg = KC_ALG_AUTO; alg < KC_ALG_COUNT; alg++) {
            kc_trace_filter f;
            kc_trace_filter_default(&f);
            f.alg = (kc_trace_alg)alg;
            kc_traffic tr;
            kc_trace_summary sum;
            traffic_of(&t, &f, &tr, &sum);
            pair_sum x = {calloc((size_t)p * p, sizeof *x.bytes), p, 0};
            for (int op = 0; op < KC_COLL_COUNT; op++) {
                assert_int_equal(sum.coll_calls[op], 1);
                uint64_t decided = op == KC_COLL_REDUCE_SCATTER_BLOCK ? 1000 / p : 1000; /* its per-rank share */
                kc_trace_alg a = alg ? (kc_trace_alg)alg : kc_trace_coll_auto((kc_trace_coll)op, p, decided);
                for (x.me = 0; x.me < p; x.me++) {
                    uint64_t s, v;
                    kc_test_scorep_totals((kc_trace_coll)op, p, 2, x.me, 1000, &s, &v);
                    kc_trace_coll_messages((kc_trace_coll)op, a, p, 2, x.me, s, v, count_pair, NULL, &x);
                }
            }
            for (uint32_t i = 0; i < p; i++)
                for (uint32_t j = 0; j < p; j++)
                    assert_int_equal(between(&tr, i, j), x.bytes[(size_t)i * p + j]);
            free(x.bytes);
            kc_traffic_free(&tr);
            uint64_t delivered;
            replay(&t, 1, (kc_trace_alg)alg, NULL, &sum, &delivered);
            assert_int_equal(delivered, sum.coll_messages);
            kc_goal g;
            kc_trace_goal_opts o = {1, (kc_trace_alg)alg};
            ok(kc_trace_goal(&t, &o, &g, NULL, &err), &err);
            check_call_order(&g);
            kc_goal_free(&g);
        }
        kc_trace_free(&t);
    }
}

/* Windows and regions: rank 0 sends 1 byte at 10, enters "solver" at 20,
 * sends 100 at 30 and 200 at 40, leaves at 50, sends 7 at 60; inside the
 * solver a second "solver" region is nested around the 200. */
static void test_windows_regions(void **state)
{
    (void)state;
    kc_trace t;
    kc_err err = {0};
    uint32_t solver, other;
    ok(kc_trace_init(&t, 3, "windows", &err), &err);
    ok(kc_trace_add_region(&t, "solver", &solver, &err), &err);
    ok(kc_trace_add_region(&t, "io", &other, &err), &err);
    send_(&t, 0, 10, 1, 0, 1);
    region(&t, 0, 20, solver, 1);
    send_(&t, 0, 30, 1, 0, 100);
    region(&t, 0, 35, other, 1);
    region(&t, 0, 36, solver, 1);
    send_(&t, 0, 40, 2, 0, 200);
    region(&t, 0, 45, solver, 0);
    region(&t, 0, 46, other, 0);
    region(&t, 0, 50, solver, 0);
    send_(&t, 0, 60, 2, 0, 7);
    recv_(&t, 1, 10, 0, 0, 1);
    recv_(&t, 1, 30, 0, 0, 100);
    recv_(&t, 2, 40, 0, 0, 200);
    recv_(&t, 2, 60, 0, 0, 7);
    ok(kc_trace_finish(&t, &err), &err);
    struct {
        uint64_t from, to;
        const char *region;
        uint64_t to1, to2, dropped;
    } cases[] = {
        {0, UINT64_MAX, NULL, 101, 207, 0}, {0, UINT64_MAX, "solver", 100, 200, 2}, {35, 61, NULL, 0, 207, 2},
        {35, UINT64_MAX, "solver", 0, 200, 3}, {0, 40, "io", 0, 0, 4}, {10, 11, NULL, 1, 0, 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kc_trace_filter f;
        kc_trace_filter_default(&f);
        f.from = cases[c].from;
        f.to = cases[c].to;
        f.region = cases[c].region;
        kc_traffic tr;
        kc_trace_summary sum;
        traffic_of(&t, &f, &tr, &sum);
        assert_int_equal(between(&tr, 0, 1), cases[c].to1);
        assert_int_equal(between(&tr, 0, 2), cases[c].to2);
        assert_int_equal(sum.dropped, cases[c].dropped);
        assert_int_equal(sum.p2p_bytes, cases[c].to1 + cases[c].to2);
        kc_traffic_free(&tr);
    }
    kc_trace_filter f;
    kc_trace_filter_default(&f);
    f.region = "solve";
    kc_traffic tr;
    ok(kc_traffic_init(&tr, 3, &err), &err);
    assert_int_equal(kc_trace_traffic(&t, &f, &tr, NULL, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "no region called 'solve'"));
    kc_traffic_free(&tr);
    kc_trace_free(&t);
}

/* ---- Seeded random programs ----
 * Messages in one global order, each end blocking or not (a non-blocking
 * one completed at a later wait of its rank), collectives on the world
 * between them: the smallest unfinished message always has both ends
 * posted, so the program cannot deadlock, and neither may its schedule.
 * Exchanges (receives posted before blocking sends of 2000 bytes and more,
 * above S) and sendrecv shifts around the ring need the non-blocking and
 * sendrecv rules: read as blocking and serial, they deadlock. */
typedef struct open_req {
    uint64_t request, bytes;
    uint32_t peer, tag;
    int recv;
} open_req;

typedef struct program {
    kc_trace *t;
    kc_rng rng;
    uint32_t p, mpi_send, sendrecv;
    uint64_t *now, *next_req, *pair, p2p_bytes;
    open_req *open; /* p x 64 */
    size_t *nopen;
} program;

static uint64_t tick(program *g, uint32_t r) { return g->now[r] += kc_rng_below(&g->rng, 500); }

static void wait_all(program *g, uint32_t r)
{
    for (size_t i = g->nopen[r]; i-- > 0;) {
        open_req *o = &g->open[(size_t)r * 64 + i];
        if (o->recv)
            put(g->t, r, KC_TRACE_COMPLETE, tick(g, r), o->peer, o->tag, o->bytes, 0, o->request);
        else
            put(g->t, r, KC_TRACE_COMPLETE, tick(g, r), KC_TRACE_NO_RANK, 0, 0, 0, o->request);
    }
    g->nopen[r] = 0;
}

static void one_end(program *g, uint32_t r, int recv, uint32_t peer, uint32_t tag, uint64_t bytes)
{
    if (g->nopen[r] == 64)
        wait_all(g, r);
    if (kc_rng_below(&g->rng, 2)) {
        uint64_t req = ++g->next_req[r];
        put(g->t, r, recv ? KC_TRACE_IRECV : KC_TRACE_ISEND, tick(g, r), recv ? 0 : peer, recv ? 0 : tag,
            recv ? 0 : bytes, 0, req);
        g->open[(size_t)r * 64 + g->nopen[r]++] = (open_req){req, bytes, peer, tag, recv};
        return;
    }
    int wrap = kc_rng_below(&g->rng, 2);
    if (wrap)
        region(g->t, r, tick(g, r), g->mpi_send, 1);
    put(g->t, r, recv ? KC_TRACE_RECV : KC_TRACE_SEND, tick(g, r), peer, tag, bytes, 0, 0);
    if (wrap)
        region(g->t, r, tick(g, r), g->mpi_send, 0);
}

static void message(program *g)
{
    static const uint64_t sizes[] = {0, 11, 500, 2000, 5000};
    uint32_t src = (uint32_t)kc_rng_below(&g->rng, g->p);
    uint32_t dst = (src + 1 + (uint32_t)kc_rng_below(&g->rng, g->p - 1)) % g->p;
    uint32_t tag = (uint32_t)kc_rng_below(&g->rng, 4);
    uint64_t bytes = sizes[kc_rng_below(&g->rng, 5)];
    one_end(g, src, 0, dst, tag, bytes);
    one_end(g, dst, 1, src, tag, bytes);
    g->pair[(size_t)src * g->p + dst] += bytes;
    g->p2p_bytes += bytes;
}

/* Two ranks that both post a receive from the other, then send blocking:
 * safe only because the receives do not block. */
static void exchange(program *g)
{
    uint32_t a = (uint32_t)kc_rng_below(&g->rng, g->p), b = (a + 1 + (uint32_t)kc_rng_below(&g->rng, g->p - 1)) % g->p;
    uint64_t bytes = 2000 + kc_rng_below(&g->rng, 3000);
    uint32_t ends[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        uint32_t r = ends[i], peer = ends[1 - i];
        if (g->nopen[r] == 64)
            wait_all(g, r);
        uint64_t req = ++g->next_req[r];
        put(g->t, r, KC_TRACE_IRECV, tick(g, r), 0, 0, 0, 0, req);
        g->open[(size_t)r * 64 + g->nopen[r]++] = (open_req){req, bytes, peer, 9, 1};
    }
    for (int i = 0; i < 2; i++)
        send_(g->t, ends[i], tick(g, ends[i]), ends[1 - i], 9, bytes);
    g->pair[(size_t)a * g->p + b] += bytes;
    g->pair[(size_t)b * g->p + a] += bytes;
    g->p2p_bytes += 2 * bytes;
}

/* Every rank shifts a block to the next with MPI_Sendrecv. */
static void shift(program *g)
{
    uint64_t bytes = 1500 + kc_rng_below(&g->rng, 1000);
    for (uint32_t r = 0; r < g->p; r++) {
        region(g->t, r, tick(g, r), g->sendrecv, 1);
        send_(g->t, r, tick(g, r), (r + 1) % g->p, 8, bytes);
        recv_(g->t, r, tick(g, r), (r + g->p - 1) % g->p, 8, bytes);
        region(g->t, r, tick(g, r), g->sendrecv, 0);
        g->pair[(size_t)r * g->p + (r + 1) % g->p] += bytes;
    }
    g->p2p_bytes += g->p * bytes;
}

static void collective_call(program *g)
{
    kc_trace_coll op = (kc_trace_coll)kc_rng_below(&g->rng, KC_COLL_COUNT);
    uint32_t root = (uint32_t)kc_rng_below(&g->rng, g->p);
    uint64_t m = kc_rng_below(&g->rng, 3000);
    for (uint32_t r = 0; r < g->p; r++) {
        uint64_t s, v, at = tick(g, r);
        kc_test_scorep_totals(op, g->p, root, r, m, &s, &v);
        g->now[r] += kc_rng_below(&g->rng, 200);
        coll(g->t, r, at, g->now[r], op, 0, root, s, v);
    }
}

static void random_program(kc_trace *t, uint64_t seed, int with_coll, program *g)
{
    kc_err err = {0};
    kc_rng_seed(&g->rng, seed);
    g->p = 2 + (uint32_t)kc_rng_below(&g->rng, 7);
    g->t = t;
    g->now = calloc(g->p, sizeof *g->now);
    g->next_req = calloc(g->p, sizeof *g->next_req);
    g->pair = calloc((size_t)g->p * g->p, sizeof *g->pair);
    g->open = calloc((size_t)g->p * 64, sizeof *g->open);
    g->nopen = calloc(g->p, sizeof *g->nopen);
    g->p2p_bytes = 0;
    ok(kc_trace_init(t, g->p, "random", &err), &err);
    ok(kc_trace_add_region(t, "MPI_Send", &g->mpi_send, &err), &err);
    ok(kc_trace_add_region(t, "MPI_Sendrecv", &g->sendrecv, &err), &err);
    size_t items = 5 + kc_rng_below(&g->rng, 56);
    for (size_t i = 0; i < items; i++) {
        uint64_t kind = kc_rng_below(&g->rng, 16);
        if (with_coll && kind < 2)
            collective_call(g);
        else if (kind < 4)
            exchange(g);
        else if (kind < 5)
            shift(g);
        else
            message(g);
        for (uint32_t r = 0; r < g->p; r++)
            if (kc_rng_below(&g->rng, 4) == 0)
                wait_all(g, r);
    }
    for (uint32_t r = 0; r < g->p; r++)
        wait_all(g, r);
    ok(kc_trace_finish(t, &err), &err);
}

static void program_free(program *g)
{
    free(g->now);
    free(g->next_req);
    free(g->pair);
    free(g->open);
    free(g->nopen);
}

static void test_random_programs(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        kc_trace t;
        program g;
        int with_coll = seed % 2 == 0;
        random_program(&t, kc_seed_derive(0x7ACE, seed), with_coll, &g);
        kc_trace_alg alg = (kc_trace_alg)kc_rng_below(&g.rng, KC_ALG_COUNT);
        double scale = (double)kc_rng_below(&g.rng, 3) / 2;
        kc_trace_summary sum;
        uint64_t delivered;
        replay(&t, scale, alg, NULL, &sum, &delivered);
        assert_int_equal(delivered, sum.p2p_messages + sum.coll_messages);
        assert_int_equal(sum.p2p_bytes, g.p2p_bytes);
        kc_trace_filter f;
        kc_trace_filter_default(&f);
        f.alg = alg;
        kc_traffic tr;
        traffic_of(&t, &f, &tr, &sum);
        uint64_t total = 0;
        for (size_t i = 0; i < tr.count; i++)
            total += tr.bytes[i];
        assert_int_equal(total, g.p2p_bytes + sum.coll_bytes);
        for (uint32_t i = 0; !with_coll && i < g.p; i++)
            for (uint32_t j = 0; j < g.p; j++)
                assert_int_equal(between(&tr, i, j), g.pair[(size_t)i * g.p + j]);
        kc_traffic_free(&tr);
        program_free(&g);
        kc_trace_free(&t);
    }
}

/* MPI keeps communicators apart: rank 0 sends 100 bytes on A then 200 on
 * the world, both tag 0; rank 1 takes the world's first. GOAL matches by
 * (source, tag) only, so A's messages get a tag of their own. */
static void test_two_comms(void **state)
{
    (void)state;
    kc_trace t;
    kc_err err = {0};
    uint32_t a, both[2] = {0, 1};
    ok(kc_trace_init(&t, 2, "two comms", &err), &err);
    ok(kc_trace_add_comm(&t, 2, both, "A", &a, &err), &err);
    put(&t, 0, KC_TRACE_SEND, 0, 1, 0, 100, a, 0);
    send_(&t, 0, 10, 1, 0, 200);
    recv_(&t, 1, 20, 0, 0, 200);
    put(&t, 1, KC_TRACE_RECV, 30, 0, 0, 100, a, 0);
    ok(kc_trace_finish(&t, &err), &err);
    uint64_t delivered;
    replay(&t, 1, KC_ALG_AUTO, NULL, NULL, &delivered);
    assert_int_equal(delivered, 2);
    kc_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ping_pong),
        cmocka_unit_test(test_nonblocking),
        cmocka_unit_test(test_sendrecv_ring),
        cmocka_unit_test(test_subcomm),
        cmocka_unit_test(test_two_comms),
        cmocka_unit_test(test_every_collective),
        cmocka_unit_test(test_windows_regions),
        cmocka_unit_test(test_random_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
