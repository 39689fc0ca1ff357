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

#include <stdlib.h>
#include <string.h>

#include "kcube/goal.h"
#include "kcube/loggops.h"
#include "kcube/rng.h"
#include "kcube/trace.h"
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
    kc_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ping_pong),
        cmocka_unit_test(test_nonblocking),
        cmocka_unit_test(test_sendrecv_ring),
        cmocka_unit_test(test_subcomm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
