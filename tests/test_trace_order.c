/* kc_trace_finish's ordering against a brute-force one on seeded random
 * traces: events appended with the ranks interleaved (the counting sort
 * moves them) or already rank by rank (as the OTF2 reader appends them:
 * they stay in place), each rank's events in program order either way;
 * first[] and every field kept. And membership of MPI_COMM_WORLD and of a
 * sub-communicator checked through the events it admits and refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/rng.h"
#include "kcube/trace.h"

/* A send of rank r at time `time`, its bytes a tag for the check. */
static kc_trace_event send_at(uint64_t time, uint32_t peer, uint64_t id)
{
    kc_trace_event e = {.time = time, .request = KC_TRACE_NONE, .peer = peer, .bytes = id, .kind = KC_TRACE_SEND};
    return e;
}

static void check_random(uint64_t seed, int grouped)
{
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    uint32_t ranks = 1 + (uint32_t)kc_rng_below(&rng, 9);
    size_t n = (size_t)kc_rng_below(&rng, 400);
    uint32_t *rank = malloc((n ? n : 1) * sizeof *rank);
    uint64_t *clock = calloc(ranks, sizeof *clock);
    assert_non_null(rank);
    assert_non_null(clock);
    for (size_t i = 0; i < n; i++)
        rank[i] = (uint32_t)kc_rng_below(&rng, ranks);
    if (grouped) /* rank by rank: sort the rank list (insertion sort, small) */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && rank[j - 1] > rank[j]; j--) {
                uint32_t x = rank[j];
                rank[j] = rank[j - 1];
                rank[j - 1] = x;
            }
    kc_trace t;
    kc_err err;
    assert_int_equal(kc_trace_init(&t, ranks, NULL, &err), KC_OK);
    for (size_t i = 0; i < n; i++) {
        clock[rank[i]] += kc_rng_below(&rng, 3); /* equal times too */
        kc_trace_event e = send_at(clock[rank[i]], (uint32_t)kc_rng_below(&rng, ranks), i);
        assert_int_equal(kc_trace_append(&t, rank[i], &e, &err), KC_OK);
    }
    assert_int_equal(kc_trace_finish(&t, &err), KC_OK);
    /* Brute force: rank r's events are the appended ones of r, in append order. */
    size_t at = 0;
    for (uint32_t r = 0; r < ranks; r++) {
        assert_int_equal(t.first[r], at);
        for (size_t i = 0; i < n; i++)
            if (rank[i] == r) {
                assert_int_equal(t.ev[at].bytes, i);
                assert_int_equal(t.ev[at].kind, KC_TRACE_SEND);
                at++;
            }
    }
    assert_int_equal(t.first[ranks], n);
    assert_null(t.rank_of);
    kc_trace_free(&t);
    free(rank);
    free(clock);
}

static void test_order_random(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        check_random(seed, 0);
        check_random(seed, 1);
    }
}

/* One event of rank `rank` to `peer` on comm `comm`: finish's verdict. */
static kc_status one_send(uint32_t ranks, const uint32_t *sub, uint32_t nsub, uint32_t comm, uint32_t rank,
                          uint32_t peer)
{
    kc_trace t;
    kc_err err;
    assert_int_equal(kc_trace_init(&t, ranks, NULL, &err), KC_OK);
    assert_int_equal(kc_trace_add_comm(&t, nsub, sub, "sub", NULL, &err), KC_OK);
    kc_trace_event e = send_at(0, peer, 0);
    e.comm = comm;
    assert_int_equal(kc_trace_append(&t, rank, &e, &err), KC_OK);
    kc_status s = kc_trace_finish(&t, &err);
    kc_trace_free(&t);
    return s;
}

static void test_membership(void **state)
{
    (void)state;
    const uint32_t sub[] = {2, 0, 4}; /* member 0 is world rank 2: not the identity */
    for (uint32_t r = 0; r < 6; r++)
        for (uint32_t p = 0; p < 6; p++) {
            assert_int_equal(one_send(6, sub, 3, 0, r, p), KC_OK);
            int in = (r == 0 || r == 2 || r == 4) && (p == 0 || p == 2 || p == 4);
            assert_int_equal(one_send(6, sub, 3, 1, r, p), in ? KC_OK : KC_EINVAL);
        }
    assert_int_equal(one_send(6, sub, 3, 0, 0, 6), KC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_order_random), cmocka_unit_test(test_membership)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
