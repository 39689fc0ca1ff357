/* The in-memory trace (kcube/trace.h): kc_trace_finish orders events rank
 * by rank without reordering a rank's own, ties every completion to the
 * request it ends (checked against a linear search over seeded random
 * request streams, which exercises the table's removals), copies a
 * receive's source to its posting, and refuses each malformed trace with
 * one message naming the rank and the event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/rng.h"
#include "kcube/trace.h"

static kc_trace_event ev(kc_trace_kind kind, uint64_t time, uint32_t peer, uint64_t bytes, uint64_t request)
{
    kc_trace_event e;
    memset(&e, 0, sizeof e);
    e.kind = (uint8_t)kind;
    e.time = e.end = time;
    e.peer = peer;
    e.bytes = bytes;
    e.request = request;
    return e;
}

static void add(kc_trace *t, uint32_t rank, kc_trace_event e)
{
    kc_err err = {0};
    assert_int_equal(kc_trace_append(t, rank, &e, &err), KC_OK);
}

static void test_order_and_links(void **state)
{
    (void)state;
    kc_trace t;
    kc_err err = {0};
    assert_int_equal(kc_trace_init(&t, 3, "trace 'x'", &err), KC_OK);
    /* Ranks interleaved; each rank's own order must survive. */
    add(&t, 1, ev(KC_TRACE_IRECV, 5, KC_TRACE_NO_RANK, 0, 7));
    add(&t, 0, ev(KC_TRACE_SEND, 10, 1, 100, 0));
    add(&t, 2, ev(KC_TRACE_SEND, 1, 0, 8, 0));
    kc_trace_event done = ev(KC_TRACE_COMPLETE, 20, 0, 100, 7);
    done.tag = 42;
    add(&t, 1, done);
    add(&t, 0, ev(KC_TRACE_RECV, 30, 2, 8, 0));
    assert_int_equal(kc_trace_finish(&t, &err), KC_OK);
    assert_int_equal(t.first[0], 0);
    assert_int_equal(t.first[1], 2);
    assert_int_equal(t.first[2], 4);
    assert_int_equal(t.first[3], 5);
    assert_int_equal(t.ev[0].kind, KC_TRACE_SEND);
    assert_int_equal(t.ev[1].kind, KC_TRACE_RECV);
    const kc_trace_event *post = &t.ev[2], *end = &t.ev[3];
    assert_int_equal(end->op, 0);
    assert_int_equal(post->peer, 0);
    assert_int_equal(post->tag, 42);
    assert_int_equal(post->bytes, 100);
    assert_int_equal(t.duration, 30);
    kc_trace_free(&t);
}

/* A malformed trace: one line naming the rank and event. */
static void expect_refused(kc_trace *t, const char *needle)
{
    kc_err err = {0};
    assert_int_equal(kc_trace_finish(t, &err), KC_EINVAL);
    if (!strstr(err.msg, needle))
        fail_msg("'%s' does not say '%s'", err.msg, needle);
    kc_trace_free(t);
}

static void test_refusals(void **state)
{
    (void)state;
    kc_trace t;
    kc_err err = {0};
    uint32_t members[2] = {0, 2}, comm, region;

    assert_int_equal(kc_trace_init(&t, 3, NULL, &err), KC_OK);
    add(&t, 0, ev(KC_TRACE_COMPLETE, 1, KC_TRACE_NO_RANK, 0, 9));
    expect_refused(&t, "never started");

    assert_int_equal(kc_trace_init(&t, 3, NULL, &err), KC_OK);
    assert_int_equal(kc_trace_add_comm(&t, 2, members, NULL, &comm, &err), KC_OK);
    kc_trace_event e = ev(KC_TRACE_SEND, 1, 1, 4, 0);
    e.comm = comm; /* rank 1 is not in {0, 2} */
    add(&t, 0, e);
    expect_refused(&t, "peer is not a member");

    assert_int_equal(kc_trace_init(&t, 3, NULL, &err), KC_OK);
    e = ev(KC_TRACE_SEND, 1, 1, 4, 0);
    e.comm = 5;
    add(&t, 0, e);
    expect_refused(&t, "unknown communicator");

    assert_int_equal(kc_trace_init(&t, 2, NULL, &err), KC_OK);
    add(&t, 1, ev(KC_TRACE_SEND, 9, 0, 4, 0));
    add(&t, 1, ev(KC_TRACE_SEND, 3, 0, 4, 0));
    expect_refused(&t, "rank 1, event 1");

    assert_int_equal(kc_trace_init(&t, 2, NULL, &err), KC_OK);
    assert_int_equal(kc_trace_add_region(&t, "solver", &region, &err), KC_OK);
    e = ev(KC_TRACE_LEAVE, 1, 0, 0, 0);
    e.comm = region;
    add(&t, 0, e);
    expect_refused(&t, "not the innermost");

    assert_int_equal(kc_trace_init(&t, 2, NULL, &err), KC_OK);
    add(&t, 0, ev(KC_TRACE_ISEND, 1, 1, 4, 3));
    add(&t, 0, ev(KC_TRACE_ISEND, 2, 1, 4, 3));
    expect_refused(&t, "same id is live");

    assert_int_equal(kc_trace_add_comm(&(kc_trace){.ranks = 2, .name = "t"}, 3, members, NULL, NULL, &err),
                     KC_EINVAL);
}

/* Seeded random request streams: starts with ids drawn from a small range
 * (many collisions and removals in the table), completions of random live
 * requests; every COMPLETE.op must be what a linear search finds. */
static void test_requests_random(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 20261128);
    for (int round = 0; round < 40; round++) {
        kc_trace t;
        kc_err err = {0};
        assert_int_equal(kc_trace_init(&t, 2, NULL, &err), KC_OK);
        uint64_t live_id[64];
        size_t live_at[64], nlive = 0, count = 0;
        size_t *expect = malloc(4000 * sizeof *expect);
        assert_non_null(expect);
        for (size_t k = 0; k < 4000; k++) {
            int start = nlive == 0 || (nlive < 64 && kc_rng_below(&rng, 2));
            if (start) {
                uint64_t id;
                int clash;
                do { /* a fresh id among the live ones */
                    id = kc_rng_below(&rng, 96);
                    clash = 0;
                    for (size_t i = 0; i < nlive; i++)
                        clash |= live_id[i] == id;
                } while (clash);
                add(&t, 0, ev(KC_TRACE_ISEND, k, 1, 1, id));
                live_id[nlive] = id;
                live_at[nlive++] = count;
                expect[count++] = KC_TRACE_NONE;
            } else {
                size_t pick = (size_t)kc_rng_below(&rng, nlive);
                add(&t, 0, ev(KC_TRACE_COMPLETE, k, KC_TRACE_NO_RANK, 0, live_id[pick]));
                expect[count++] = live_at[pick];
                live_id[pick] = live_id[--nlive];
                live_at[pick] = live_at[nlive];
            }
        }
        assert_int_equal(kc_trace_finish(&t, &err), KC_OK);
        for (size_t k = 0; k < count; k++)
            if (t.ev[k].kind == KC_TRACE_COMPLETE)
                assert_int_equal(t.ev[k].op, expect[k]);
        free(expect);
        kc_trace_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_links),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_requests_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
