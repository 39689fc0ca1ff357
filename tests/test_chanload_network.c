/* The exact channel-load counter on general networks (sides per axis, wrap
 * per axis, several endpoints per router, allocations) against a recount
 * written here from the network's description alone: every message is
 * routed router by router in dimension order (axis 0 first, rings the
 * shorter way with the tie rule, side-2 axes by their single + channel,
 * lines straight), messages between endpoints of one router touch nothing,
 * and loads are summed per router channel. Checked for the identity, random
 * permutations of the slots, fewer ranks than slots, and random swaps,
 * transposition lists and undos against a fresh count each time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/chanload.h"
#include "kcube/rng.h"

typedef unsigned __int128 u128;

/* ---- the reference ------------------------------------------------------- */

/* Router x's coordinate on axis i: x's mixed-radix digit i (axis 0 least
 * significant), by peeling the lower axes' sides off. */
static unsigned ref_coord(const kc_topology *t, uint64_t x, int i)
{
    uint64_t below = 1;
    for (int j = 0; j < i; j++)
        below *= (uint64_t)t->side[j];
    return (unsigned)(x / below % (uint64_t)t->side[i]);
}

/* The way round axis i from s to d: +1 or -1 (0 when s = d). Lines go
 * straight; a side-2 ring has only its + channel; other rings the shorter
 * way, an exact half by the tie rule (split: + from an even entry). */
static int ref_dir(const kc_topology *t, int i, unsigned s, unsigned d)
{
    int k = t->side[i], up = ((int)d - (int)s + k) % k;
    int ring = (int)((t->wrap >> i) & 1u);
    if (up == 0)
        return 0;
    if (!ring)
        return d > s ? 1 : -1;
    if (k == 2 || 2 * up < k)
        return 1;
    if (2 * up > k)
        return -1;
    switch (t->tie) {
    case KC_TIE_PLUS: return 1;
    case KC_TIE_MINUS: return -1;
    default: return s % 2 ? -1 : 1;
    }
}

/* Slot x's router, written out from the description (not the library's). */
static uint64_t ref_router(const kc_topology *t, uint64_t x)
{
    uint64_t r = x / (uint64_t)(t->endpoints > 1 ? t->endpoints : 1);
    return t->alloc ? t->alloc[r] : r;
}

static void ref_route(const kc_topology *t, uint64_t *load, uint64_t *hops, uint64_t p, uint64_t q, uint64_t w)
{
    uint64_t cur = p, st = 1;
    for (int i = 0; i < t->n; i++) {
        unsigned k = (unsigned)t->side[i], d = ref_coord(t, q, i), s = ref_coord(t, cur, i);
        int dir = ref_dir(t, i, s, d);
        while (s != d) {
            load[(cur * (uint64_t)t->n + (uint64_t)i) * 2 + (dir < 0)] += w;
            *hops += w;
            unsigned nx = dir > 0 ? (s + 1) % k : (s + k - 1) % k;
            cur = cur - (uint64_t)s * st + (uint64_t)nx * st;
            s = nx;
        }
        st *= k;
    }
}

static kc_cost ref_count(const kc_topology *t, const kc_traffic *tr, const uint32_t *tophys, uint64_t *load)
{
    size_t nch = (size_t)t->nodes * (size_t)t->n * 2;
    memset(load, 0, nch * sizeof *load);
    uint64_t hops = 0;
    for (size_t m = 0; m < tr->count; m++)
        ref_route(t, load, &hops, ref_router(t, tophys[tr->src[m]]), ref_router(t, tophys[tr->dst[m]]),
                  tr->bytes[m]);
    kc_cost c = {0, hops, 0, 0};
    u128 sq = 0;
    for (size_t i = 0; i < nch; i++) {
        c.max = load[i] > c.max ? load[i] : c.max;
        sq += (u128)load[i] * load[i];
    }
    c.sumsq_hi = (uint64_t)(sq >> 64);
    c.sumsq_lo = (uint64_t)sq;
    return c;
}

/* ---- random networks ------------------------------------------------------ */

typedef struct net {
    kc_topology t;
    uint32_t alloc[512];
} net;

/* 1 to 4 axes of sides 2..7 (at most 400 routers), random wraps and tie,
 * C in 1..4, and half the time a random allocation in random order. */
static void random_net(kc_rng *rng, net *w)
{
    int sides[4], n = 1 + (int)kc_rng_below(rng, 4);
    uint64_t nodes;
    do {
        nodes = 1;
        for (int i = 0; i < n; i++) {
            sides[i] = 2 + (int)kc_rng_below(rng, 6);
            nodes *= (uint64_t)sides[i];
        }
    } while (nodes > 400);
    kc_tie tie = (kc_tie)kc_rng_below(rng, 3);
    assert_int_equal(kc_topology_shape(&w->t, KC_TOPO_TORUS, sides, n, tie, NULL), KC_OK);
    assert_int_equal(kc_topology_set_wrap(&w->t, kc_rng_below(rng, (uint64_t)1 << n), NULL), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&w->t, 1 + (int)kc_rng_below(rng, 4), NULL), KC_OK);
    if (kc_rng_below(rng, 2)) {
        uint32_t all[512];
        for (uint32_t x = 0; x < nodes; x++)
            all[x] = x;
        for (uint32_t x = (uint32_t)nodes - 1; x > 0; x--) {
            uint32_t y = (uint32_t)kc_rng_below(rng, x + 1), tmp = all[x];
            all[x] = all[y];
            all[y] = tmp;
        }
        uint32_t count = 1 + (uint32_t)kc_rng_below(rng, nodes);
        memcpy(w->alloc, all, count * sizeof *all);
        assert_int_equal(kc_topology_set_alloc(&w->t, w->alloc, count, NULL), KC_OK);
    }
}

static void random_perm(kc_rng *rng, uint32_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        p[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)kc_rng_below(rng, i), tmp = p[i - 1];
        p[i - 1] = p[j];
        p[j] = tmp;
    }
}

static void assert_same(const kc_topology *t, const kc_chanload *cl, const kc_traffic *tr, uint64_t *load)
{
    kc_cost want = ref_count(t, tr, kc_chanload_to_physical(cl), load), got = kc_chanload_cost(cl);
    assert_int_equal(kc_cost_cmp(&want, &got), 0);
    size_t nch;
    const uint64_t *l = kc_chanload_loads(cl, &nch);
    assert_int_equal(nch, (size_t)t->nodes * (size_t)t->n * 2);
    assert_memory_equal(l, load, nch * sizeof *load);
}

/* Identity, a random mapping, then swaps, moves and undos, each compared
 * with the reference. */
static void check_network(kc_rng *rng, const net *w)
{
    const kc_topology *t = &w->t;
    uint32_t slots = (uint32_t)kc_topology_slots(t);
    uint32_t ranks = kc_rng_below(rng, 3) ? slots : 1 + (uint32_t)kc_rng_below(rng, slots);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, ranks, NULL), KC_OK);
    for (uint32_t m = 0; m < 3 * ranks; m++)
        assert_int_equal(kc_traffic_add(&tr, (uint32_t)kc_rng_below(rng, ranks), (uint32_t)kc_rng_below(rng, ranks),
                                        1 + kc_rng_below(rng, 100), NULL),
                         KC_OK);
    uint64_t *load = malloc((size_t)t->nodes * (size_t)t->n * 2 * sizeof *load);
    uint32_t *p = malloc(slots * sizeof *p);
    kc_chanload *cl;
    assert_int_equal(kc_chanload_new(&cl, t, &tr, NULL), KC_OK);
    assert_same(t, cl, &tr, load);
    random_perm(rng, p, slots);
    assert_int_equal(kc_chanload_set(cl, p, NULL), KC_OK);
    assert_same(t, cl, &tr, load);
    for (int it = 0; it < 40 && slots > 1; it++) {
        kc_cost before = kc_chanload_cost(cl);
        uint32_t a = (uint32_t)kc_rng_below(rng, slots), b = (uint32_t)kc_rng_below(rng, slots - 1);
        b += b >= a;
        if (it % 3 == 2) {
            uint32_t x[3], y[3];
            for (int k = 0; k < 3; k++) {
                x[k] = (uint32_t)kc_rng_below(rng, slots);
                y[k] = (uint32_t)kc_rng_below(rng, slots);
            }
            assert_int_equal(kc_chanload_swaps(cl, x, y, 3, NULL, NULL), KC_OK);
        } else
            kc_chanload_swap(cl, a, b);
        assert_same(t, cl, &tr, load);
        if (it % 4 == 0) {
            kc_chanload_undo(cl);
            kc_cost after = kc_chanload_cost(cl);
            assert_int_equal(kc_cost_cmp(&before, &after), 0);
            assert_same(t, cl, &tr, load);
        }
    }
    kc_chanload_free(cl);
    free(p);
    free(load);
    kc_traffic_free(&tr);
}

static void test_random_networks(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 31);
    for (int c = 0; c < 300; c++) {
        net w;
        random_net(&rng, &w);
        check_network(&rng, &w);
    }
}

/* Two endpoints per router: messages between them never load a channel;
 * the Origin 2000's case, pairs of nodes on one router. */
static void test_concentration(void **state)
{
    (void)state;
    kc_topology t;
    assert_int_equal(kc_topology_hypercube(&t, 3, NULL), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 2, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 16, NULL), KC_OK);
    for (uint32_t v = 0; v < 16; v += 2)
        assert_int_equal(kc_traffic_add(&tr, v, v + 1, 10, NULL), KC_OK);
    kc_chanload *cl;
    assert_int_equal(kc_chanload_new(&cl, &t, &tr, NULL), KC_OK);
    kc_cost c = kc_chanload_cost(cl);
    assert_int_equal(c.max, 0);
    assert_int_equal(c.hops, 0);
    kc_chanload_swap(cl, 1, 2); /* ranks 1 and 2 trade: 0-1 and 2-3 both cross router 0's axis-0 link */
    c = kc_chanload_cost(cl);
    assert_int_equal(c.max, 20);
    assert_int_equal(c.hops, 20);
    kc_chanload_free(cl);
    kc_traffic_free(&tr);
}

/* More ranks than slots is refused, as on the plain networks. */
static void test_refusals(void **state)
{
    (void)state;
    kc_topology t;
    int sides[2] = {3, 2};
    uint32_t alloc[2] = {4, 1};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, sides, 2, KC_TIE_PLUS, NULL), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 2, NULL), KC_OK);
    assert_int_equal(kc_topology_set_alloc(&t, alloc, 2, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 5, NULL), KC_OK);
    kc_err err = {0};
    kc_chanload *cl;
    assert_int_equal(kc_chanload_new(&cl, &t, &tr, &err), KC_EINVAL);
    assert_string_equal(err.param, "traffic");
    kc_traffic_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_networks),
        cmocka_unit_test(test_concentration),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
