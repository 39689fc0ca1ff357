/* The exact channel-load counter (the general mapper's) against an independent
 * hop-by-hop route walk written here, on hypercubes, tori (odd and even k,
 * k not a power of two, every tie rule) and meshes with unequal sides;
 * incremental swaps and undo against full recounts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/chanload.h"
#include "kcube/rng.h"
#include "kc_testutil.h"

typedef unsigned __int128 u128;

/* ---- the reference: routes walked node by node, coordinates by division -- */

static unsigned coord_of(const kc_topology *t, uint64_t x, int i)
{
    for (int j = 0; j < i; j++)
        x /= (uint64_t)t->side[j];
    return (unsigned)(x % (uint64_t)t->side[i]);
}

/* Direction of the first hop on axis i from coordinate s to d: +1, -1, 0. */
static int ref_dir(const kc_topology *t, int i, unsigned s, unsigned d)
{
    unsigned k = (unsigned)t->side[i];
    if (s == d)
        return 0;
    if (t->kind == KC_TOPO_MESH)
        return d > s ? 1 : -1;
    if (k == 2)
        return 1;
    unsigned fwd = (d + k - s) % k, back = k - fwd;
    if (fwd != back)
        return fwd < back ? 1 : -1;
    if (t->tie == KC_TIE_MINUS)
        return -1;
    if (t->tie == KC_TIE_SPLIT)
        return s % 2 == 0 ? 1 : -1;
    return 1;
}

typedef struct ref {
    size_t slots;
    uint64_t *load;
    uint64_t hops;
} ref;

static void ref_route(const kc_topology *t, ref *r, uint64_t p, uint64_t q, uint64_t w)
{
    uint64_t cur = p, st = 1;
    for (int i = 0; i < t->n; i++) {
        unsigned d = coord_of(t, q, i);
        unsigned s0 = coord_of(t, cur, i);
        int dir = ref_dir(t, i, s0, d); /* fixed on entering the ring */
        for (unsigned s = s0; s != d;) {
            r->load[(cur * (uint64_t)t->n + (uint64_t)i) * 2 + (dir < 0)] += w;
            r->hops += w;
            unsigned k = (unsigned)t->side[i];
            unsigned nx = dir > 0 ? (s + 1) % k : (s + k - 1) % k;
            cur = cur - (uint64_t)s * st + (uint64_t)nx * st;
            s = nx;
        }
        st *= (uint64_t)t->side[i];
    }
}

static kc_cost ref_count(const kc_topology *t, const kc_traffic *tr, const uint32_t *tophys, ref *r)
{
    r->slots = (size_t)t->nodes * (size_t)t->n * 2;
    r->load = calloc(r->slots, sizeof *r->load);
    r->hops = 0;
    for (size_t m = 0; m < tr->count; m++)
        ref_route(t, r, tophys[tr->src[m]], tophys[tr->dst[m]], tr->bytes[m]);
    kc_cost c = {0, r->hops, 0, 0};
    u128 sq = 0;
    for (size_t i = 0; i < r->slots; i++) {
        if (r->load[i] > c.max)
            c.max = r->load[i];
        sq += (u128)r->load[i] * r->load[i];
    }
    c.sumsq_hi = (uint64_t)(sq >> 64);
    c.sumsq_lo = (uint64_t)sq;
    return c;
}

/* The reference run on group g's messages alone. */
static kc_cost ref_group(const kc_topology *t, const kc_traffic *tr, const uint32_t *group, uint32_t g,
                         const uint32_t *tophys, ref *r)
{
    kc_traffic sub;
    assert_int_equal(kc_traffic_init(&sub, t->nodes, NULL), KC_OK);
    for (size_t m = 0; m < tr->count; m++)
        if (group[m] == g)
            assert_int_equal(kc_traffic_add(&sub, tr->src[m], tr->dst[m], tr->bytes[m], NULL), KC_OK);
    kc_cost c = ref_count(t, &sub, tophys, r);
    kc_traffic_free(&sub);
    return c;
}

/* ---- seeded inputs ------------------------------------------------------- */


static int topo_count(void) { return 13; }

static void topo_make(int which, kc_topology *t)
{
    static const int shape1[] = {4, 3, 5}, shape2[] = {2, 7}, shape3[] = {6, 2, 3};
    kc_status s;
    switch (which) {
    case 0: s = kc_topology_hypercube(t, 3, NULL); break;
    case 1: s = kc_topology_hypercube(t, 6, NULL); break;
    case 2: s = kc_topology_torus(t, 3, 3, KC_TIE_PLUS, NULL); break;
    case 3: s = kc_topology_torus(t, 5, 2, KC_TIE_MINUS, NULL); break;
    case 4: s = kc_topology_torus(t, 4, 3, KC_TIE_PLUS, NULL); break;
    case 5: s = kc_topology_torus(t, 4, 3, KC_TIE_MINUS, NULL); break;
    case 6: s = kc_topology_torus(t, 4, 3, KC_TIE_SPLIT, NULL); break;
    case 7: s = kc_topology_torus(t, 6, 2, KC_TIE_PLUS, NULL); break;
    case 8: s = kc_topology_torus(t, 6, 2, KC_TIE_SPLIT, NULL); break;
    case 9: s = kc_topology_torus(t, 2, 4, KC_TIE_MINUS, NULL); break;
    case 10: s = kc_topology_mesh_shape(t, shape1, 3, NULL); break;
    case 11: s = kc_topology_mesh_shape(t, shape2, 2, NULL); break;
    default: s = kc_topology_mesh_shape(t, shape3, 3, NULL); break;
    }
    assert_int_equal(s, KC_OK);
}

/* Case (w, seed): topology number w, a stream seeded from both, and
 * per_node x N + fixed random messages of 1..maxbytes bytes. */
static void make_case(int w, uint64_t seed, size_t per_node, size_t fixed, uint64_t maxbytes, kc_topology *t,
                      kc_rng *rng, kc_traffic *tr)
{
    topo_make(w, t);
    kc_rng_seed(rng, seed * 7919 + (uint64_t)w);
    kc_test_random_traffic(tr, t->nodes, per_node * (size_t)t->nodes + fixed, maxbytes, rng);
}

static void assert_cost_equal(kc_cost a, kc_cost b)
{
    assert_int_equal(a.max, b.max);
    assert_int_equal(a.hops, b.hops);
    assert_int_equal(a.sumsq_hi, b.sumsq_hi);
    assert_int_equal(a.sumsq_lo, b.sumsq_lo);
}

/* Every load, and the three objectives, equal the reference's. */
static void check_against_ref(const kc_topology *t, const kc_traffic *tr, kc_chanload *cl)
{
    ref r;
    kc_cost want = ref_count(t, tr, kc_chanload_to_physical(cl), &r);
    size_t slots;
    const uint64_t *load = kc_chanload_loads(cl, &slots);
    assert_int_equal(slots, r.slots);
    assert_memory_equal(load, r.load, slots * sizeof *load);
    assert_cost_equal(kc_chanload_cost(cl), want);
    size_t c = kc_chanload_argmax(cl);
    if (want.max == 0)
        assert_true(c == SIZE_MAX);
    else
        assert_int_equal(load[c], want.max);
    free(r.load);
}

/* Swap two distinct random ranks. */
static void swap_random(kc_chanload *cl, uint64_t nodes, kc_rng *rng)
{
    uint32_t a = (uint32_t)kc_rng_below(rng, nodes), b = (uint32_t)kc_rng_below(rng, nodes - 1);
    kc_chanload_swap(cl, a, b >= a ? b + 1 : b);
}

/* A move of 1..8 random node transpositions (nodes may repeat, x may
 * equal y), checked against the same transpositions done one by one on a
 * copy of the mapping. */
static void move_random(kc_chanload *cl, uint64_t nodes, kc_rng *rng)
{
    uint32_t x[8], y[8];
    size_t count = 1 + (size_t)kc_rng_below(rng, 8);
    uint32_t *want = malloc(nodes * sizeof *want);
    memcpy(want, kc_chanload_to_virtual(cl), nodes * sizeof *want);
    for (size_t k = 0; k < count; k++) {
        x[k] = (uint32_t)kc_rng_below(rng, nodes);
        y[k] = (uint32_t)kc_rng_below(rng, nodes);
        uint32_t r = want[x[k]];
        want[x[k]] = want[y[k]];
        want[y[k]] = r;
    }
    uint64_t work = 0;
    assert_int_equal(kc_chanload_swaps(cl, x, y, count, &work, NULL), KC_OK);
    assert_true(work > 0);
    assert_memory_equal(kc_chanload_to_virtual(cl), want, nodes * sizeof *want);
    free(want);
}

/* cl's incremental state equals fresh's full recount of the same mapping. */
static void assert_matches_recount(const kc_chanload *cl, kc_chanload *fresh, uint64_t nodes)
{
    size_t slots;
    assert_int_equal(kc_chanload_set(fresh, kc_chanload_to_physical(cl), NULL), KC_OK);
    assert_cost_equal(kc_chanload_cost(cl), kc_chanload_cost(fresh));
    const uint64_t *l1 = kc_chanload_loads(cl, &slots), *l2 = kc_chanload_loads(fresh, &slots);
    assert_memory_equal(l1, l2, slots * sizeof *l1);
    assert_memory_equal(kc_chanload_to_virtual(cl), kc_chanload_to_virtual(fresh), nodes * sizeof(uint32_t));
}

static void test_counter_vs_walk(void **state)
{
    for (int w = 0; w < topo_count(); w++) {
        for (uint64_t seed = 1; seed <= 4; seed++) {
            kc_topology t;
            kc_rng rng;
            kc_traffic tr;
            make_case(w, seed, 3, 0, seed == 1 ? 1 : 1000, &t, &rng, &tr);
            kc_chanload *cl;
            assert_int_equal(kc_chanload_new(&cl, &t, &tr, NULL), KC_OK);
            check_against_ref(&t, &tr, cl); /* identity */
            uint32_t *p = malloc(t.nodes * sizeof *p);
            kc_test_random_perm(p, t.nodes, &rng);
            assert_int_equal(kc_chanload_set(cl, p, NULL), KC_OK);
            check_against_ref(&t, &tr, cl);
            kc_cost one;
            assert_int_equal(kc_chanload_eval(&t, &tr, p, &one, NULL), KC_OK);
            assert_cost_equal(one, kc_chanload_cost(cl));
            free(p);
            kc_chanload_free(cl);
            kc_traffic_free(&tr);
        }
    }
}

/* Many random swaps, some undone: the incremental state always equals a
 * fresh recount; an undo restores the exact previous state. */
static void test_swaps_vs_recount(void **state)
{
    for (int w = 0; w < topo_count(); w++) {
        for (uint64_t seed = 11; seed <= 13; seed++) {
            kc_topology t;
            kc_rng rng;
            kc_traffic tr;
            make_case(w, seed, 2, 0, 500, &t, &rng, &tr);
            kc_chanload *cl, *fresh;
            assert_int_equal(kc_chanload_new(&cl, &t, &tr, NULL), KC_OK);
            assert_int_equal(kc_chanload_new(&fresh, &t, &tr, NULL), KC_OK);
            for (int it = 0; it < 300; it++) {
                kc_cost before = kc_chanload_cost(cl);
                if (it % 5 == 4)
                    move_random(cl, t.nodes, &rng);
                else
                    swap_random(cl, t.nodes, &rng);
                if (it % 3 == 0) {
                    kc_chanload_undo(cl);
                    assert_cost_equal(kc_chanload_cost(cl), before);
                }
                if (it % 25 == 0 || it == 299)
                    assert_matches_recount(cl, fresh, t.nodes);
            }
            check_against_ref(&t, &tr, cl);
            kc_chanload_free(cl);
            kc_chanload_free(fresh);
            kc_traffic_free(&tr);
        }
    }
}

/* pair_uses agrees with the walk: exactly the channels the route loads. */
static void test_pair_uses(void **state)
{
    for (int w = 0; w < topo_count(); w++) {
        kc_topology t;
        kc_rng rng;
        kc_traffic tr;
        make_case(w, 21, 0, 40, 1, &t, &rng, &tr);
        kc_chanload *cl;
        assert_int_equal(kc_chanload_new(&cl, &t, &tr, NULL), KC_OK);
        uint32_t *p = malloc(t.nodes * sizeof *p);
        kc_test_random_perm(p, t.nodes, &rng);
        assert_int_equal(kc_chanload_set(cl, p, NULL), KC_OK);
        for (size_t j = 0; j < kc_chanload_pairs(cl); j++) {
            uint32_t s, d;
            uint64_t bytes;
            kc_chanload_pair(cl, j, &s, &d, &bytes);
            kc_traffic one;
            assert_int_equal(kc_traffic_init(&one, t.nodes, NULL), KC_OK);
            assert_int_equal(kc_traffic_add(&one, s, d, 1, NULL), KC_OK);
            ref r;
            ref_count(&t, &one, p, &r);
            for (size_t c = 0; c < r.slots; c++)
                assert_int_equal(kc_chanload_pair_uses(cl, j, c), r.load[c] != 0);
            free(r.load);
            kc_traffic_free(&one);
        }
        free(p);
        kc_chanload_free(cl);
        kc_traffic_free(&tr);
    }
}

/* Per-group maxima equal each group counted alone by the reference. */
static void test_group_max(void **state)
{
    kc_topology t;
    topo_make(8, &t);
    kc_rng rng;
    kc_rng_seed(&rng, 3);
    kc_traffic tr;
    kc_test_random_traffic(&tr, t.nodes, 90, 50, &rng);
    uint32_t *group = malloc(tr.count * sizeof *group);
    for (size_t m = 0; m < tr.count; m++)
        group[m] = (uint32_t)kc_rng_below(&rng, 4); /* group 4 stays empty */
    kc_chanload *cl;
    assert_int_equal(kc_chanload_new(&cl, &t, &tr, NULL), KC_OK);
    uint32_t *p = malloc(t.nodes * sizeof *p);
    kc_test_random_perm(p, t.nodes, &rng);
    assert_int_equal(kc_chanload_set(cl, p, NULL), KC_OK);
    uint64_t got[5];
    assert_int_equal(kc_chanload_group_max(cl, &tr, group, 5, got, NULL), KC_OK);
    for (uint32_t g = 0; g < 5; g++) {
        ref r;
        kc_cost c = ref_group(&t, &tr, group, g, p, &r);
        assert_int_equal(got[g], c.max);
        free(r.load);
    }
    kc_err err = {0};
    group[0] = 5;
    assert_int_equal(kc_chanload_group_max(cl, &tr, group, 5, got, &err), KC_ERANGE);
    assert_string_equal(err.param, "group");
    free(group);
    free(p);
    kc_chanload_free(cl);
    kc_traffic_free(&tr);
}

/* Layers: each group's loads in its own slots, equal to the reference run
 * on that group alone; (a) the largest of them; swaps exact as before. */
static void test_layered(void **state)
{
    for (int w = 0; w < topo_count(); w += 3) {
        kc_topology t;
        kc_rng rng;
        kc_traffic tr;
        make_case(w, 31, 3, 0, 30, &t, &rng, &tr);
        uint32_t *group = malloc(tr.count * sizeof *group);
        for (size_t m = 0; m < tr.count; m++)
            group[m] = (uint32_t)kc_rng_below(&rng, 3);
        kc_chanload *cl, *fresh;
        assert_int_equal(kc_chanload_new_layered(&cl, &t, &tr, group, 3, NULL), KC_OK);
        assert_int_equal(kc_chanload_new_layered(&fresh, &t, &tr, group, 3, NULL), KC_OK);
        for (int it = 0; it < 200; it++) {
            swap_random(cl, t.nodes, &rng);
            if (it % 4 == 1)
                kc_chanload_undo(cl);
        }
        assert_matches_recount(cl, fresh, t.nodes);
        size_t slots;
        const uint64_t *load = kc_chanload_loads(cl, &slots);
        size_t per = (size_t)t.nodes * (size_t)t.n * 2;
        assert_int_equal(slots, 3 * per);
        uint64_t mx = 0, hops = 0;
        for (uint32_t g = 0; g < 3; g++) {
            ref r;
            kc_cost c = ref_group(&t, &tr, group, g, kc_chanload_to_physical(cl), &r);
            assert_memory_equal(&load[g * per], r.load, per * sizeof *load);
            mx = c.max > mx ? c.max : mx;
            hops += c.hops;
            free(r.load);
        }
        kc_cost got = kc_chanload_cost(cl);
        assert_int_equal(got.max, mx);
        assert_int_equal(got.hops, hops);
        for (size_t j = 0; j < kc_chanload_pairs(cl); j++) { /* one layer, as many slots as hops */
            uint32_t src, dst;
            uint64_t bytes;
            kc_chanload_pair(cl, j, &src, &dst, &bytes);
            ref one = {per, calloc(per, sizeof(uint64_t)), 0};
            const uint32_t *p = kc_chanload_to_physical(cl);
            ref_route(&t, &one, p[src], p[dst], 1);
            size_t used = 0, lo = SIZE_MAX, hi = 0;
            for (size_t c = 0; c < slots; c++)
                if (kc_chanload_pair_uses(cl, j, c)) {
                    used++;
                    lo = c / per < lo ? c / per : lo;
                    hi = c / per > hi ? c / per : hi;
                }
            assert_int_equal(used, one.hops);
            assert_true(used == 0 || lo == hi);
            free(one.load);
        }
        group[0] = 3;
        kc_err err = {0};
        kc_chanload *bad;
        assert_int_equal(kc_chanload_new_layered(&bad, &t, &tr, group, 3, &err), KC_ERANGE);
        assert_string_equal(err.param, "group");
        free(group);
        kc_chanload_free(cl);
        kc_chanload_free(fresh);
        kc_traffic_free(&tr);
    }
}

static void test_errors_and_limits(void **state)
{
    kc_topology t;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, 3, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 16, NULL), KC_OK);
    kc_chanload *cl;
    assert_int_equal(kc_chanload_new(&cl, &t, &tr, &err), KC_EINVAL);
    assert_string_equal(err.param, "traffic");
    kc_traffic_free(&tr);
    /* total bytes x diameter must fit 64 bits: 2^63 bytes over 3 hops do not */
    assert_int_equal(kc_traffic_init(&tr, 8, NULL), KC_OK);
    assert_int_equal(kc_traffic_add(&tr, 0, 7, (uint64_t)1 << 63, NULL), KC_OK);
    assert_int_equal(kc_chanload_new(&cl, &t, &tr, &err), KC_ERANGE);
    kc_traffic_free(&tr);
    /* 2^61 over diameter 3 fits; one full-weight channel of 2^61 gives
     * (c) = 3 * 2^122, beyond 64 bits: checks the 128-bit sum */
    assert_int_equal(kc_traffic_init(&tr, 8, NULL), KC_OK);
    assert_int_equal(kc_traffic_add(&tr, 0, 7, (uint64_t)1 << 61, NULL), KC_OK);
    assert_int_equal(kc_chanload_new(&cl, &t, &tr, &err), KC_OK);
    kc_cost c = kc_chanload_cost(cl);
    assert_int_equal(c.max, (uint64_t)1 << 61);
    assert_int_equal(c.hops, 3 * ((uint64_t)1 << 61));
    assert_int_equal(c.sumsq_hi, (uint64_t)3 << 58);
    assert_int_equal(c.sumsq_lo, 0);
    char buf[48];
    assert_string_equal(kc_cost_sumsq_format(&c, buf, sizeof buf), "15950735949418990474845684723364134912");
    uint32_t bad[8] = {0, 1, 2, 3, 4, 5, 6, 6};
    assert_int_equal(kc_chanload_set(cl, bad, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping");
    uint32_t x = 1, y = 8;
    err.param = NULL;
    assert_int_equal(kc_chanload_swaps(cl, &x, &y, 1, NULL, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping");
    kc_cost after = kc_chanload_cost(cl);
    assert_int_equal(kc_cost_cmp(&after, &c), 0);
    kc_chanload_free(cl);
    kc_traffic_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_vs_walk),  cmocka_unit_test(test_swaps_vs_recount),
        cmocka_unit_test(test_pair_uses),        cmocka_unit_test(test_group_max),
        cmocka_unit_test(test_layered),          cmocka_unit_test(test_errors_and_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
