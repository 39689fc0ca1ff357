/* GOAL generators (kcube/goal.h): seed 000 Section 6.2's
 * parallel FFT against the bit-reverse LCC and the n butterflies for
 * n = 4, 6, 8; a dimension reordering keeps the neighbour exchanges
 * neighbour exchanges; complete exchanges and LCC phases, with hand-computed
 * contention-free times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/goal.h"
#include "kcube/loggp.h"
#include "kcube/reorder.h"
#include "kcube/rng.h"
#include "kc_testutil.h"

/* pair (src, dst) -> 1 for every message of phase `phase` with tag `tag`
 * (-2: any tag); returns the count. Checks every message carries `bytes`. */
static size_t messages(const kc_goal *g, const char *phase, int64_t tag, uint64_t bytes, unsigned char *seen)
{
    size_t count = 0, p = g->num_ranks;
    memset(seen, 0, p * p);
    for (size_t i = 0; i < g->nops; i++) {
        const kc_goal_op *o = &g->op[i];
        if (o->kind != KC_GOAL_SEND || strcmp(kc_goal_phase_name(g, o->phase), phase) != 0 ||
            (tag != -2 && o->tag != tag))
            continue;
        assert_int_equal(o->amount, bytes);
        assert_int_equal(seen[o->rank * p + (size_t)o->peer], 0);
        seen[o->rank * p + (size_t)o->peer] = 1;
        count++;
    }
    return count;
}

/* The messages (src != dst) of c are exactly the marked pairs. */
static void same_as_lcc(const kc_lcc *c, const unsigned char *seen, size_t count, size_t p)
{
    size_t want = 0;
    for (uint64_t m = 0; m < p; m++) {
        uint64_t src, dst;
        kc_lcc_message(c, m, &src, &dst);
        if (src == dst)
            continue;
        want++;
        assert_true(seen[src * p + dst]);
    }
    assert_int_equal(count, want);
}

static void fft_case(int n, int d)
{
    kc_goal g;
    kc_goal_match m;
    kc_err err = {0};
    uint32_t p = 1u << n;
    assert_int_equal(kc_goal_init(&g, p, &err), KC_OK);
    if (kc_goal_gen_fft(&g, n, d, 5120, 4470, &err))
        fail_msg("%s", err.msg);
    if (kc_goal_validate(&g, p, &m, &err))
        fail_msg("n %d d %d: %s", n, d, err.msg);
    uint64_t block = 16ull << (2 * d);
    unsigned char *seen = malloc((size_t)p * p);
    assert_non_null(seen);
    kc_lcc c;
    assert_int_equal(kc_lcc_named(&c, "bit-reverse", n, &err), KC_OK);
    size_t br = messages(&g, "bit-reverse", 0, block, seen);
    same_as_lcc(&c, seen, br, p);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "butterfly:%d", i);
        assert_int_equal(kc_lcc_named(&c, name, n, &err), KC_OK);
        same_as_lcc(&c, seen, messages(&g, "neighbour", i + 1, block, seen), p);
    }
    assert_int_equal(m.messages, br + (size_t)n * p);
    /* computation per rank: 2d local stages and n half-butterfly stages */
    uint64_t per = 1ull << (2 * d), want = 2 * (uint64_t)d * (per / 2) * 5120 + (uint64_t)n * per * 4470;
    for (uint32_t r = 0; r < p; r++) {
        uint64_t ns = 0;
        for (size_t i = 0; i < g.nops; i++)
            if (g.op[i].rank == r && g.op[i].kind == KC_GOAL_CALC)
                ns += g.op[i].amount;
        assert_int_equal(ns, want);
    }
    /* Without contention every rank that takes part in the bit-reverse
     * follows the same critical path, and the others only wait for them. */
    double total, xfer = 164.0 + (double)block * 0.57;
    double expect = xfer + 2.0 * d * (double)(per / 2) * 5.12 + n * (xfer + (double)per * 4.47);
    assert_int_equal(kc_goal_loggp(&g, &m, NULL, &total, NULL, &err), KC_OK);
    if (fabs(total - expect) > 1e-6 * expect)
        fail_msg("n %d d %d: %.6f us, expected %.6f", n, d, total, expect);
    /* The two parts together hold the whole programme's operations, and
     * their LogGP times add up to the time with a barrier between them. */
    size_t nparts = 0;
    double apart = 0;
    for (unsigned part = KC_GOAL_FFT_BITREV; part <= KC_GOAL_FFT_REST; part <<= 1) {
        kc_goal h;
        kc_goal_match hm;
        double t;
        assert_int_equal(kc_goal_init(&h, p, &err), KC_OK);
        assert_int_equal(kc_goal_gen_fft_parts(&h, n, d, 5120, 4470, part, &err), KC_OK);
        assert_int_equal(kc_goal_validate(&h, p, &hm, &err), KC_OK);
        assert_int_equal(kc_goal_loggp(&h, &hm, NULL, &t, NULL, &err), KC_OK);
        nparts += h.nops;
        apart += t;
        kc_goal_match_free(&hm);
        kc_goal_free(&h);
    }
    assert_int_equal(nparts, g.nops);
    if (fabs(apart - expect) > 1e-6 * expect)
        fail_msg("n %d d %d: parts %.6f us, whole %.6f", n, d, apart, expect);
    free(seen);
    kc_goal_match_free(&m);
    kc_goal_free(&g);
}

static void test_fft(void **state)
{
    (void)state;
    fft_case(4, 1);
    fft_case(4, 2);
    fft_case(6, 1);
    fft_case(8, 1);
    fft_case(8, 3);
    kc_goal g;
    kc_err err = {0};
    assert_int_equal(kc_goal_init(&g, 16, &err), KC_OK);
    assert_int_equal(kc_goal_gen_fft(&g, 4, 0, 5120, 4470, &err), KC_ERANGE);
    assert_string_equal(err.param, "d");
    assert_int_equal(kc_goal_gen_fft(&g, 3, 1, 5120, 4470, &err), KC_EINVAL);
    assert_int_equal(kc_goal_gen_fft_parts(&g, 4, 1, 5120, 4470, 0, &err), KC_EINVAL);
    assert_string_equal(err.param, "parts");
    assert_int_equal(kc_goal_gen_fft_parts(&g, 4, 1, 5120, 4470, 4, &err), KC_EINVAL);
    kc_goal_free(&g);
}

static void test_fft_mapping(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 6);
    for (int n = 4; n <= 8; n += 2)
        for (int trial = 0; trial < 5; trial++) {
            int order[32];
            kc_test_random_order(order, n, &rng);
            if (trial == 0) { /* seed 000's mapping: the optimal reordering of the bit-reverse */
                kc_lcc br;
                kc_order best;
                kc_err e = {0};
                assert_int_equal(kc_lcc_named(&br, "bit-reverse", n, &e), KC_OK);
                assert_int_equal(kc_reorder_optimal(&br, &best, &e), KC_OK);
                assert_int_equal(kc_reorder_value(&br, &best), 1);
                memcpy(order, best.dim, (size_t)n * sizeof *order);
            }
            uint32_t p = 1u << n, *to_phys = malloc(p * sizeof *to_phys);
            assert_non_null(to_phys);
            for (uint32_t v = 0; v < p; v++)
                to_phys[v] = kc_test_reorder_node(v, order, n);
            kc_goal g;
            kc_goal_match m;
            kc_err err = {0};
            assert_int_equal(kc_goal_init(&g, p, &err), KC_OK);
            assert_int_equal(kc_goal_gen_fft(&g, n, 1, 5120, 4470, &err), KC_OK);
            double before, after;
            assert_int_equal(kc_goal_validate(&g, p, &m, &err), KC_OK);
            assert_int_equal(kc_goal_loggp(&g, &m, NULL, &before, NULL, &err), KC_OK);
            kc_goal_match_free(&m);
            assert_int_equal(kc_goal_remap(&g, to_phys, &err), KC_OK);
            assert_int_equal(kc_goal_validate(&g, p, &m, &err), KC_OK);
            /* neighbour exchanges stay neighbour exchanges: stage i crosses dimension t with order[t] = i */
            for (size_t i = 0; i < g.nops; i++) {
                const kc_goal_op *o = &g.op[i];
                if (o->kind != KC_GOAL_SEND || o->tag == 0)
                    continue;
                uint32_t diff = o->rank ^ (uint32_t)o->peer;
                assert_int_equal(kci_popcount32(diff), 1);
                assert_int_equal(order[kci_ctz32(diff)], (int)o->tag - 1);
            }
            /* the bit-reverse becomes the reordered LCC (Q A Q^-1, Q b) */
            kc_lcc c, q;
            assert_int_equal(kc_lcc_named(&c, "bit-reverse", n, &err), KC_OK);
            kc_lcc_reorder(&q, &c, order);
            unsigned char *seen = malloc((size_t)p * p);
            assert_non_null(seen);
            same_as_lcc(&q, seen, messages(&g, "bit-reverse", 0, 64, seen), p);
            /* the contention-free time ignores where ranks run */
            assert_int_equal(kc_goal_loggp(&g, &m, NULL, &after, NULL, &err), KC_OK);
            assert_true(fabs(before - after) < 1e-9);
            free(seen);
            free(to_phys);
            kc_goal_match_free(&m);
            kc_goal_free(&g);
        }
    kc_goal g;
    kc_err err = {0};
    uint32_t bad[4] = {0, 1, 1, 3};
    assert_int_equal(kc_goal_init(&g, 4, &err), KC_OK);
    assert_int_equal(kc_goal_remap(&g, bad, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping");
    kc_goal_free(&g);
}

static double time_of(const kc_goal *g, size_t *msgs)
{
    kc_goal_match m;
    kc_err err = {0};
    double total = -1;
    if (kc_goal_validate(g, 0, &m, &err) || kc_goal_loggp(g, &m, NULL, &total, NULL, &err))
        fail_msg("%s", err.msg);
    *msgs = m.messages;
    kc_goal_match_free(&m);
    return total;
}

static void test_complete_exchange(void **state)
{
    (void)state;
    for (int n = 1; n <= 5; n++)
        for (int method = 0; method < 2; method++) {
            uint32_t p = 1u << n;
            kc_goal g;
            kc_err err = {0};
            assert_int_equal(kc_goal_init(&g, p, &err), KC_OK);
            assert_int_equal(kc_goal_gen_complete_exchange(&g, n, 100, (kc_goal_cx)method, "cx", 0, &err), KC_OK);
            size_t msgs;
            double t = time_of(&g, &msgs);
            /* pairwise: p - 1 steps of 100 bytes; recursive: n steps of 100 p / 2 bytes */
            double step = method == KC_GOAL_CX_PAIRWISE ? 164 + 57 : 164 + 0.57 * 100 * (p / 2);
            double steps = method == KC_GOAL_CX_PAIRWISE ? (double)(p - 1) : (double)n;
            assert_true(fabs(t - step * steps) < 1e-6);
            assert_int_equal(msgs, (size_t)p * (size_t)steps);
            if (method == KC_GOAL_CX_PAIRWISE) { /* every ordered pair once */
                unsigned char *seen = malloc((size_t)p * p);
                assert_non_null(seen);
                assert_int_equal(messages(&g, "cx", -2, 100, seen), (size_t)p * (p - 1));
                for (uint32_t x = 0; x < p; x++)
                    assert_int_equal(seen[x * p + x], 0);
                free(seen);
            }
            /* a second exchange chains after the first, rank by rank */
            assert_int_equal(kc_goal_gen_complete_exchange(&g, n, 100, (kc_goal_cx)method, "cx2", 1000, &err),
                             KC_OK);
            assert_true(fabs(time_of(&g, &msgs) - 2 * step * steps) < 1e-6);
            kc_goal_free(&g);
        }
    char names[80];
    assert_string_equal(kc_names_join(&kc_goal_cx_names, names, sizeof names), "pairwise|recursive");
}

static void test_lcc_phase(void **state)
{
    (void)state;
    const char *pats[] = {"transpose", "bit-reverse", "shuffle", "butterfly:2"};
    for (int k = 0; k < 4; k++) {
        kc_lcc c;
        kc_goal g;
        kc_err err = {0};
        assert_int_equal(kc_lcc_named(&c, pats[k], 6, &err), KC_OK);
        assert_int_equal(kc_goal_init(&g, 64, &err), KC_OK);
        assert_int_equal(kc_goal_gen_lcc(&g, &c, 200, pats[k], 5, &err), KC_OK);
        unsigned char seen[64 * 64];
        same_as_lcc(&c, seen, messages(&g, pats[k], 5, 200, seen), 64);
        size_t msgs;
        double t = time_of(&g, &msgs);
        assert_true(fabs(t - (164 + 114)) < 1e-6); /* at most one message per rank, all at once */
        kc_goal_free(&g);
    }
    /* a scatter: one source feeds several destinations, its sends one after the other */
    {
        kc_lcc c;
        kc_goal g;
        kc_err err = {0};
        assert_int_equal(kc_lcc_named(&c, "scale-2x", 6, &err), KC_OK);
        assert_int_equal(kc_goal_init(&g, 64, &err), KC_OK);
        assert_int_equal(kc_goal_gen_lcc(&g, &c, 200, "scatter", 0, &err), KC_OK);
        unsigned char seen[64 * 64];
        same_as_lcc(&c, seen, messages(&g, "scatter", 0, 200, seen), 64);
        size_t msgs;
        assert_true(time_of(&g, &msgs) >= 2 * 164 + 114);
        kc_goal_free(&g);
    }
    /* a gather: several sources share a destination, one processor receives them all */
    kc_bitmat a;
    kc_bitmat_identity(&a, 3);
    a.row[0] = 0; /* y_0 = 0: nodes 2j and 2j+1 both send to 2j */
    kc_lcc c;
    kc_goal g;
    kc_err err = {0};
    assert_int_equal(kc_lcc_init(&c, &a, 0, 0, &err), KC_OK);
    assert_int_equal(kc_goal_init(&g, 8, &err), KC_OK);
    assert_int_equal(kc_goal_gen_lcc(&g, &c, 10, "gather", 0, &err), KC_OK);
    size_t msgs;
    double t = time_of(&g, &msgs);
    assert_int_equal(msgs, 4);
    assert_true(fabs(t - (164 + 5.7)) < 1e-6);
    kc_goal_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fft),
        cmocka_unit_test(test_fft_mapping),
        cmocka_unit_test(test_complete_exchange),
        cmocka_unit_test(test_lcc_phase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
