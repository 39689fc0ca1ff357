#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kc_testutil.h"

void kc_test_random_order(int *order, int n, kc_rng *rng)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)kc_rng_below(rng, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

void kc_test_random_lcc(kc_lcc *c, int n, kc_lcc_kind kind, kc_rng *rng)
{
    for (;;) {
        kc_bitmat a;
        if (kind == KC_LCC_PERMUTATION)
            kc_bitmat_random_nonsingular(&a, n, rng);
        else
            kc_bitmat_random_rank(&a, n, n == 1 ? 0 : (int)kc_rng_below(rng, (uint64_t)n), rng);
        uint64_t b = kc_rng_next(rng) & kc_mask(n);
        if (kc_rng_below(rng, 3) == 0) {
            uint64_t idle = kc_rng_next(rng) & kc_rng_next(rng) & kc_mask(n);
            for (int i = 0; i < n; i++)
                if ((idle >> i) & 1) {
                    a.row[i] = 1ULL << i;
                    b &= ~(1ULL << i);
                }
        }
        int rank = kc_bitmat_rank(&a);
        /* Idle rows can change the rank; keep only matrices of the kind asked. */
        if ((kind == KC_LCC_PERMUTATION) != (rank == n))
            continue;
        if (kc_lcc_init(c, &a, b, kind == KC_LCC_SCATTER, NULL) == KC_OK)
            return;
    }
}

/* A random valid schedule: messages in a global order, each rank's new
 * operation waiting (requires or irequires) on some earlier ones of its rank,
 * so the graph of events is acyclic; no wildcards, so the matching survives
 * the writer's grouping by rank. */
void kc_test_random_goal(kc_goal *g, uint32_t max_ranks, kc_rng *rng)
{
    kc_err err = {0};
    uint32_t p = 1 + (uint32_t)kc_rng_below(rng, max_ranks);
    assert_int_equal(kc_goal_init(g, p, &err), KC_OK);
    size_t steps = kc_rng_below(rng, 40);
    const char *phases[] = {"a", "b", "c"};
    for (size_t k = 0; k < steps; k++) {
        if (kc_rng_below(rng, 4) == 0)
            assert_int_equal(kc_goal_set_phase(g, phases[kc_rng_below(rng, 3)], &err), KC_OK);
        size_t ops[2];
        int nnew = 1;
        uint32_t src = (uint32_t)kc_rng_below(rng, p);
        if (p > 1 && kc_rng_below(rng, 3)) {
            uint32_t dst = (uint32_t)kc_rng_below(rng, p - 1);
            dst += dst >= src;
            int64_t tag = (int64_t)kc_rng_below(rng, 3);
            uint64_t size = kc_rng_below(rng, 1000);
            assert_int_equal(kc_goal_add(g, KC_GOAL_SEND, src, dst, tag, size, NULL, 0, &ops[0], &err), KC_OK);
            assert_int_equal(kc_goal_add(g, KC_GOAL_RECV, dst, src, tag, size, NULL, 0, &ops[1], &err), KC_OK);
            nnew = 2;
        } else {
            assert_int_equal(kc_goal_add(g, KC_GOAL_CALC, src, 0, 0, kc_rng_below(rng, 100000), NULL, 0, &ops[0],
                                         &err),
                             KC_OK);
        }
        for (int j = 0; j < nnew; j++)
            for (size_t e = 0; e < ops[0]; e++)
                if (g->op[e].rank == g->op[ops[j]].rank && kc_rng_below(rng, 4) == 0)
                    assert_int_equal(kc_goal_depend(g, ops[j], e, (int)kc_rng_below(rng, 2), 0, &err), KC_OK);
    }
    g->cur_phase = 0;
}

uint32_t kc_test_reorder_node(uint32_t v, const int *order, int n)
{
    uint32_t y = 0;
    for (int t = 0; t < n; t++)
        y |= ((v >> order[t]) & 1u) << t;
    return y;
}

void kc_test_random_perm(uint32_t *p, uint64_t n, kc_rng *rng)
{
    kc_rng_perm(rng, p, n);
}

void kc_test_random_traffic(kc_traffic *tr, uint64_t nodes, size_t count, uint64_t maxbytes, kc_rng *rng)
{
    assert_int_equal(kc_traffic_init(tr, nodes, NULL), KC_OK);
    for (size_t m = 0; m < count; m++) {
        uint64_t s = kc_rng_below(rng, nodes), d = kc_rng_below(rng, nodes);
        if (m % 7 == 3) {
            s = tr->src[m / 2];
            d = tr->dst[m / 2];
        }
        assert_int_equal(kc_traffic_add(tr, s, d, 1 + kc_rng_below(rng, maxbytes), NULL), KC_OK);
    }
}
