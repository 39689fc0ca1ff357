/* The general mapper: never worse than its best start, the same
 * seed and budget give the same mapping, the 3-cube optimum of an
 * exhaustive search over all 8! mappings, and the 8-cube transpose down to
 * its lower bound (contention 1, 240 hops). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/gmap.h"
#include "kcube/mapgeneral.h"
#include "kcube/perm.h"
#include "kcube/rng.h"
#include "kc_testutil.h"


static kc_gmap_opts iters_opts(uint64_t seed, uint64_t iterations)
{
    kc_gmap_opts o;
    kc_gmap_opts_default(&o);
    o.seed = seed;
    o.iterations = iterations;
    o.budget_seconds = 0;
    return o;
}

/* The final mapping is a permutation, its cost recounts to the reported
 * one, and it is no worse than any start. */
static void check_result(const kc_topology *t, const kc_traffic *tr, const kc_gmap_result *r)
{
    uint32_t *inv = malloc(t->nodes * sizeof *inv);
    assert_int_equal(kc_perm_invert(r->to_physical, inv, t->nodes, "mapping", NULL), KC_OK);
    assert_memory_equal(inv, r->to_virtual, t->nodes * sizeof *inv);
    free(inv);
    kc_cost c;
    assert_int_equal(kc_chanload_eval(t, tr, r->to_physical, &c, NULL), KC_OK);
    assert_int_equal(kc_cost_cmp(&c, &r->cost), 0);
    for (int i = 0; i < r->nstarts; i++)
        assert_true(kc_cost_cmp(&r->cost, &r->start_cost[i]) <= 0);
    assert_true(kc_cost_cmp(&r->start_cost[r->best_start], &r->cost) >= 0);
}

/* Run the search from the identity mapping alone. */
static void run_identity(const kc_topology *t, const kc_traffic *tr, const kc_gmap_opts *o, kc_gmap_result *r)
{
    uint32_t *id = malloc(t->nodes * sizeof *id);
    kc_perm_identity(id, t->nodes);
    kc_gmap_start start = {"identity", id};
    assert_int_equal(kc_gmap_run(t, tr, &start, 1, o, r, NULL), KC_OK);
    free(id);
}

static void test_never_worse(void **state)
{
    kc_topology tops[4];
    assert_int_equal(kc_topology_hypercube(&tops[0], 5, NULL), KC_OK);
    assert_int_equal(kc_topology_torus(&tops[1], 5, 2, KC_TIE_SPLIT, NULL), KC_OK);
    assert_int_equal(kc_topology_torus(&tops[2], 4, 3, KC_TIE_MINUS, NULL), KC_OK);
    static const int shape[] = {6, 3};
    assert_int_equal(kc_topology_mesh_shape(&tops[3], shape, 2, NULL), KC_OK);
    for (int w = 0; w < 4; w++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            const kc_topology *t = &tops[w];
            kc_rng rng;
            kc_rng_seed(&rng, seed * 31 + (uint64_t)w);
            kc_traffic tr;
            kc_test_random_traffic(&tr, t->nodes, 4 * t->nodes, 100, &rng);
            uint32_t *id = malloc(t->nodes * sizeof *id), *rnd = malloc(t->nodes * sizeof *rnd);
            kc_perm_identity(id, t->nodes);
            kc_test_random_perm(rnd, t->nodes, &rng);
            kc_gmap_start starts[2] = {{"identity", id}, {"random", rnd}};
            for (uint64_t iters = 0; iters <= 2000; iters += 1000) {
                kc_gmap_opts o = iters_opts(seed, iters);
                kc_gmap_result r;
                assert_int_equal(kc_gmap_run(t, &tr, starts, 2, &o, &r, NULL), KC_OK);
                check_result(t, &tr, &r);
                assert_int_equal(r.iterations <= iters, 1);
                if (iters == 0)
                    assert_int_equal(kc_cost_cmp(&r.cost, &r.start_cost[r.best_start]), 0);
                kc_gmap_result_free(&r);
            }
            free(id);
            free(rnd);
            kc_traffic_free(&tr);
        }
}

/* The hops cap: whatever start caps the hops (or none), the final max load is
 * at most the least max load of the starts; the plain best start is the
 * lexicographic one; what the capped search saw above the cap is no worse
 * than what it kept. Hypercube, torus with each tie rule, meshes. */
static void test_cap_never_worse_on_max(void **state)
{
    (void)state;
    kc_topology tops[6];
    assert_int_equal(kc_topology_hypercube(&tops[0], 5, NULL), KC_OK);
    assert_int_equal(kc_topology_torus(&tops[1], 4, 3, KC_TIE_PLUS, NULL), KC_OK);
    assert_int_equal(kc_topology_torus(&tops[2], 4, 3, KC_TIE_MINUS, NULL), KC_OK);
    assert_int_equal(kc_topology_torus(&tops[3], 4, 3, KC_TIE_SPLIT, NULL), KC_OK);
    static const int shape[] = {4, 16}, shape2[] = {6, 3};
    assert_int_equal(kc_topology_mesh_shape(&tops[4], shape, 2, NULL), KC_OK);
    assert_int_equal(kc_topology_mesh_shape(&tops[5], shape2, 2, NULL), KC_OK);
    int violations_possible = 0;
    for (int w = 0; w < 6; w++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            const kc_topology *t = &tops[w];
            kc_rng rng;
            kc_rng_seed(&rng, seed * 97 + (uint64_t)w);
            kc_traffic tr;
            kc_test_random_traffic(&tr, t->nodes, 3 * t->nodes, 1 + 999 * (seed & 1), &rng);
            enum { NS = 4 };
            uint32_t *maps[NS];
            kc_gmap_start starts[NS];
            for (int i = 0; i < NS; i++) {
                maps[i] = malloc(t->nodes * sizeof *maps[i]);
                if (i == 0)
                    kc_perm_identity(maps[i], t->nodes);
                else
                    kc_test_random_perm(maps[i], t->nodes, &rng);
                starts[i] = (kc_gmap_start){i ? "random" : "identity", maps[i]};
            }
            for (int cap = -1; cap < NS; cap++)
                for (uint64_t iters = 0; iters <= 3000; iters += 3000) {
                    kc_gmap_opts o = iters_opts(seed, iters);
                    o.hops_cap_start = cap;
                    kc_gmap_result r;
                    assert_int_equal(kc_gmap_run(t, &tr, starts, NS, &o, &r, NULL), KC_OK);
                    uint64_t least = UINT64_MAX;
                    int plain = 0;
                    for (int i = 0; i < NS; i++) {
                        least = r.start_cost[i].max < least ? r.start_cost[i].max : least;
                        if (kc_cost_cmp(&r.start_cost[i], &r.start_cost[plain]) < 0)
                            plain = i;
                    }
                    assert_true(r.cost.max <= least);
                    assert_int_equal(r.plain_best_start, plain);
                    assert_true(kc_cost_cmp(&r.uncapped_seen, &r.cost) <= 0);
                    if (cap >= 0) {
                        assert_int_equal(r.hops_cap, r.start_cost[cap].hops);
                        /* the cap start's max was the least: then the cap holds */
                        if (r.start_cost[cap].max == least)
                            assert_true(r.cost.hops <= r.hops_cap);
                        if (r.start_cost[cap].max > least)
                            violations_possible++;
                    } else {
                        assert_int_equal(r.best_start, plain);
                        assert_int_equal(kc_cost_cmp(&r.uncapped_seen, &r.cost), 0);
                    }
                    kc_gmap_result_free(&r);
                }
            for (int i = 0; i < NS; i++)
                free(maps[i]);
            kc_traffic_free(&tr);
        }
    assert_true(violations_possible > 0); /* the cases the old order got wrong were exercised */
}

/* The multiset of non-self (src, dst) pairs, sorted, as 64-bit keys. */
static uint64_t *pair_keys(const kc_traffic *tr, size_t *n)
{
    uint64_t *k = malloc((tr->count + 1) * sizeof *k);
    *n = 0;
    for (size_t i = 0; i < tr->count; i++)
        if (tr->src[i] != tr->dst[i])
            k[(*n)++] = (uint64_t)tr->src[i] << 32 | tr->dst[i];
    for (size_t i = 1; i < *n; i++) /* insertion sort: small tests */
        for (size_t j = i; j > 0 && k[j - 1] > k[j]; j--) {
            uint64_t x = k[j];
            k[j] = k[j - 1];
            k[j - 1] = x;
        }
    return k;
}

/* The found communications reproduce exactly the traffic's non-self messages. */
static void assert_reproduces(const kc_topology *t, const kc_traffic *tr, const kc_comm *c, int found)
{
    kc_traffic back;
    assert_int_equal(kc_traffic_init(&back, t->nodes, NULL), KC_OK);
    for (int i = 0; i < found; i++)
        assert_int_equal(kc_traffic_add_comm(&back, &c[i], 1, NULL, NULL), KC_OK);
    size_t n1, n2;
    uint64_t *k1 = pair_keys(tr, &n1), *k2 = pair_keys(&back, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(k1, k2, n1 * sizeof *k1);
    free(k1);
    free(k2);
    kc_traffic_free(&back);
}

/* Algebraic starts found in a traffic: an FFT-like traffic (bit-reverse without its self
 * messages, then the 8 exchanges, bytes varying) on the 8-cube is found to
 * be 9 linear communications; digit-reverse plus a translation on the
 * 4-ary 3-cube (GF(4)) is 2; random traffic, a traffic with one wrong
 * message, and a mesh of unequal sides are none. */
static void test_find_lcc(void **state)
{
    (void)state;
    kc_comm found[KC_MAPGEN_MAX_FOUND];
    int nf = -1;
    kc_topology h;
    assert_int_equal(kc_topology_hypercube(&h, 8, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 256, NULL), KC_OK);
    for (uint32_t x = 0; x < 256; x++) {
        uint32_t y = 0;
        for (int i = 0; i < 8; i++)
            y |= ((x >> i) & 1u) << (7 - i);
        if (y != x)
            assert_int_equal(kc_traffic_add(&tr, x, y, 4096, NULL), KC_OK);
    }
    for (int d = 0; d < 8; d++)
        for (uint32_t x = 0; x < 256; x++)
            assert_int_equal(kc_traffic_add(&tr, x, x ^ (1u << d), 64 + x, NULL), KC_OK);
    assert_int_equal(kc_mapgen_find_lcc(&h, &tr, 0, tr.count, found, KC_MAPGEN_MAX_FOUND, &nf, NULL), KC_OK);
    assert_int_equal(nf, 9);
    assert_reproduces(&h, &tr, found, nf);
    /* the file part only: the bit-reverse alone */
    assert_int_equal(kc_mapgen_find_lcc(&h, &tr, 0, 240, found, KC_MAPGEN_MAX_FOUND, &nf, NULL), KC_OK);
    assert_int_equal(nf, 1);
    /* one message redirected: not linear any more */
    tr.dst[5] ^= 3;
    assert_int_equal(kc_mapgen_find_lcc(&h, &tr, 0, tr.count, found, KC_MAPGEN_MAX_FOUND, &nf, NULL), KC_OK);
    assert_int_equal(nf, 0);
    kc_traffic_free(&tr);

    kc_topology q;
    assert_int_equal(kc_topology_torus(&q, 4, 3, KC_TIE_SPLIT, NULL), KC_OK);
    kc_comm dr;
    assert_int_equal(kc_comm_named(&dr, &q, "digit-reverse", NULL), KC_OK);
    assert_int_equal(kc_traffic_init(&tr, 64, NULL), KC_OK);
    assert_int_equal(kc_traffic_add_comm(&tr, &dr, 10, NULL, NULL), KC_OK);
    for (uint32_t x = 0; x < 64; x++)
        assert_int_equal(kc_traffic_add(&tr, x, x ^ 0x27u, 3, NULL), KC_OK);
    assert_int_equal(kc_mapgen_find_lcc(&q, &tr, 0, tr.count, found, KC_MAPGEN_MAX_FOUND, &nf, NULL), KC_OK);
    assert_int_equal(nf, 2);
    assert_reproduces(&q, &tr, found, nf);
    kc_traffic_free(&tr);

    kc_rng rng;
    kc_rng_seed(&rng, 5);
    kc_test_random_traffic(&tr, 256, 1024, 100, &rng);
    assert_int_equal(kc_mapgen_find_lcc(&h, &tr, 0, tr.count, found, KC_MAPGEN_MAX_FOUND, &nf, NULL), KC_OK);
    assert_int_equal(nf, 0);
    kc_traffic_free(&tr);

    kc_topology m;
    static const int shape[] = {8, 4};
    assert_int_equal(kc_topology_mesh_shape(&m, shape, 2, NULL), KC_OK);
    assert_int_equal(kc_traffic_init(&tr, 32, NULL), KC_OK);
    for (uint32_t x = 0; x < 32; x++)
        assert_int_equal(kc_traffic_add(&tr, x, x ^ 1u, 1, NULL), KC_OK);
    assert_int_equal(kc_mapgen_find_lcc(&m, &tr, 0, tr.count, found, KC_MAPGEN_MAX_FOUND, &nf, NULL), KC_OK);
    assert_int_equal(nf, 0);
    kc_traffic_free(&tr);
}

typedef struct progress_log {
    int calls;
    double last;
    int monotone;
} progress_log;

static void on_progress(void *ctx, double done, double total)
{
    progress_log *p = ctx;
    if (done < p->last || done > total)
        p->monotone = 0;
    p->last = done;
    p->calls++;
}

static void test_deterministic(void **state)
{
    kc_topology t;
    assert_int_equal(kc_topology_torus(&t, 3, 3, KC_TIE_PLUS, NULL), KC_OK);
    kc_rng rng;
    kc_rng_seed(&rng, 9);
    kc_traffic tr;
    kc_test_random_traffic(&tr, t.nodes, 200, 10, &rng);
    kc_gmap_result r1, r2;
    kc_gmap_opts o;
    kc_gmap_opts_default(&o);
    o.seed = 5;
    o.budget_seconds = 0.02; /* a fixed number of work units */
    progress_log log = {0, 0.0, 1};
    o.progress.fn = on_progress;
    o.progress.ctx = &log;
    run_identity(&t, &tr, &o, &r1);
    assert_true(log.calls > 1);
    assert_true(log.monotone);
    assert_true(log.last == 1.0);
    o.progress.fn = NULL;
    run_identity(&t, &tr, &o, &r2);
    assert_int_equal(r1.stopped_by_wall, 0);
    assert_memory_equal(r1.to_physical, r2.to_physical, 27 * sizeof(uint32_t));
    assert_int_equal(r1.iterations, r2.iterations);
    assert_int_equal(r1.work, r2.work);
    kc_gmap_result_free(&r1);
    kc_gmap_result_free(&r2);
    kc_traffic_free(&tr);
}

/* All 8! mappings of the 3-cube, each counted exactly: the search reaches
 * the lexicographic optimum. */
static void test_exhaustive_3cube(void **state)
{
    kc_topology t;
    assert_int_equal(kc_topology_hypercube(&t, 3, NULL), KC_OK);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        kc_rng rng;
        kc_rng_seed(&rng, seed);
        kc_traffic tr;
        kc_test_random_traffic(&tr, 8, 6 + 3 * seed, seed % 2 ? 1 : 20, &rng);
        kc_chanload *cl;
        assert_int_equal(kc_chanload_new(&cl, &t, &tr, NULL), KC_OK);
        uint32_t p[8];
        kc_perm_identity(p, 8);
        kc_cost best = kc_chanload_cost(cl);
        do {
            assert_int_equal(kc_chanload_set(cl, p, NULL), KC_OK);
            kc_cost c = kc_chanload_cost(cl);
            if (kc_cost_cmp(&c, &best) < 0)
                best = c;
        } while (kc_perm_next(p, 8));
        kc_chanload_free(cl);
        kc_gmap_opts o = iters_opts(seed, 20000);
        kc_gmap_result r;
        run_identity(&t, &tr, &o, &r);
        check_result(&t, &tr, &r);
        assert_int_equal(kc_cost_cmp(&r.cost, &best), 0);
        kc_gmap_result_free(&r);
        kc_traffic_free(&tr);
    }
}

/* The 8-cube transpose, the mapper's first target: x = (lo4, hi4) sends
 * one byte to (hi4, lo4). The 16 ranks with lo4 == hi4 stay home; each of the
 * 240 others needs a hop, and 120 disjoint links carry the 120 exchanges both
 * ways: 1 and 240. */
static void test_transpose_8cube(void **state)
{
    kc_topology t;
    assert_int_equal(kc_topology_hypercube(&t, 8, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 256, NULL), KC_OK);
    for (uint32_t x = 0; x < 256; x++)
        assert_int_equal(kc_traffic_add(&tr, x, ((x & 15) << 4) | (x >> 4), 1, NULL), KC_OK);
    kc_gmap_opts o;
    kc_gmap_opts_default(&o);
    o.seed = 1;
    o.budget_seconds = 0.25; /* 10^7 work units: about 6 times what seed 1 needs */
    kc_gmap_result r;
    run_identity(&t, &tr, &o, &r);
    check_result(&t, &tr, &r);
    assert_int_equal(r.start_cost[0].hops, 1024);
    assert_int_equal(r.cost.max, 1);
    assert_int_equal(r.cost.hops, 240);
    kc_gmap_result_free(&r);
    kc_traffic_free(&tr);
}

/* A 16 x 16 grid's 5-point halo (no wraparound) onto the 4-ary 4-cube:
 * the identity folds rows badly (1152 hops); block reflections turn each
 * 16-line into a boustrophedon through a 4 x 4 torus, every one of the 960
 * messages one hop: the lower bound. */
static void test_halo_4ary(void **state)
{
    kc_topology t;
    assert_int_equal(kc_topology_torus(&t, 4, 4, KC_TIE_PLUS, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 256, NULL), KC_OK);
    for (uint32_t v = 0; v < 256; v++) {
        uint32_t x = v % 16, y = v / 16;
        if (x > 0)
            assert_int_equal(kc_traffic_add(&tr, v, v - 1, 1, NULL), KC_OK);
        if (x < 15)
            assert_int_equal(kc_traffic_add(&tr, v, v + 1, 1, NULL), KC_OK);
        if (y > 0)
            assert_int_equal(kc_traffic_add(&tr, v, v - 16, 1, NULL), KC_OK);
        if (y < 15)
            assert_int_equal(kc_traffic_add(&tr, v, v + 16, 1, NULL), KC_OK);
    }
    kc_gmap_opts o;
    kc_gmap_opts_default(&o);
    o.budget_seconds = 0.5; /* 2 10^7 work units: about 3 times what seed 1 needs */
    kc_gmap_result r;
    run_identity(&t, &tr, &o, &r);
    check_result(&t, &tr, &r);
    assert_int_equal(r.start_cost[0].hops, 1152);
    assert_int_equal(r.cost.max, 1);
    assert_int_equal(r.cost.hops, 960);
    kc_gmap_result_free(&r);
    kc_traffic_free(&tr);
}

/* Per-communication maxima for the starts and the final mapping. */
static void test_groups(void **state)
{
    kc_topology t;
    assert_int_equal(kc_topology_torus(&t, 4, 2, KC_TIE_PLUS, NULL), KC_OK);
    kc_rng rng;
    kc_rng_seed(&rng, 4);
    kc_traffic tr;
    kc_test_random_traffic(&tr, 16, 60, 5, &rng);
    uint32_t group[60];
    for (int m = 0; m < 60; m++)
        group[m] = (uint32_t)(m % 3);
    kc_gmap_opts o = iters_opts(2, 500);
    o.group = group;
    o.groups = 3;
    kc_gmap_result r;
    run_identity(&t, &tr, &o, &r);
    kc_chanload *cl;
    assert_int_equal(kc_chanload_new(&cl, &t, &tr, NULL), KC_OK);
    uint64_t want[3];
    assert_int_equal(kc_chanload_group_max(cl, &tr, group, 3, want, NULL), KC_OK);
    assert_memory_equal(r.start_group_max, want, sizeof want);
    assert_int_equal(kc_chanload_set(cl, r.to_physical, NULL), KC_OK);
    assert_int_equal(kc_chanload_group_max(cl, &tr, group, 3, want, NULL), KC_OK);
    assert_memory_equal(r.group_max, want, sizeof want);
    kc_chanload_free(cl);
    kc_gmap_result_free(&r);
    kc_traffic_free(&tr);
}

/* Phases counted apart: transpose and bit-reverse on the 8-cube as two
 * communications at different times. Counted apart, the identity has 8
 * and 8; the search brings both to 1 (Scotch: 1, 1 / 480 hops), and (a)
 * is the larger of the two. */
static void test_separate(void **state)
{
    kc_topology t;
    assert_int_equal(kc_topology_hypercube(&t, 8, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 256, NULL), KC_OK);
    uint32_t group[512];
    for (uint32_t x = 0; x < 256; x++) {
        uint32_t rev = 0;
        for (int i = 0; i < 8; i++)
            rev |= ((x >> i) & 1u) << (7 - i);
        group[2 * x] = 0;
        assert_int_equal(kc_traffic_add(&tr, x, ((x & 15) << 4) | (x >> 4), 1, NULL), KC_OK);
        group[2 * x + 1] = 1;
        assert_int_equal(kc_traffic_add(&tr, x, rev, 1, NULL), KC_OK);
    }
    kc_gmap_opts o;
    kc_gmap_opts_default(&o);
    o.group = group;
    o.groups = 2;
    o.separate = 1;
    kc_gmap_result r;
    run_identity(&t, &tr, &o, &r);
    assert_int_equal(r.start_cost[0].max, 8);
    assert_int_equal(r.start_group_max[0], 8);
    assert_int_equal(r.start_group_max[1], 8);
    assert_int_equal(r.group_max[0], 1);
    assert_int_equal(r.group_max[1], 1);
    assert_int_equal(r.cost.max, 1);
    assert_true(r.cost.hops < 600);
    kc_gmap_result_free(&r);
    kc_traffic_free(&tr);
}

static void test_errors(void **state)
{
    kc_topology t;
    assert_int_equal(kc_topology_hypercube(&t, 2, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 4, NULL), KC_OK);
    uint32_t bad[4] = {0, 1, 1, 3};
    kc_gmap_start start = {"broken", bad};
    kc_gmap_result r;
    kc_err err = {0};
    assert_int_equal(kc_gmap_run(&t, &tr, &start, 0, NULL, &r, &err), KC_EINVAL);
    assert_int_equal(kc_gmap_run(&t, &tr, &start, 1, NULL, &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping");
    assert_null(r.to_physical);
    /* no messages at all: nothing to improve, the start comes back */
    kc_gmap_opts o = iters_opts(1, 100);
    run_identity(&t, &tr, &o, &r);
    assert_int_equal(r.cost.max, 0);
    assert_int_equal(r.cost.hops, 0);
    assert_int_equal(r.to_physical[3], 3);
    kc_gmap_result_free(&r);
    kc_traffic_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_never_worse),     cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_exhaustive_3cube), cmocka_unit_test(test_transpose_8cube),
        cmocka_unit_test(test_halo_4ary),       cmocka_unit_test(test_groups),
        cmocka_unit_test(test_separate),        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cap_never_worse_on_max), cmocka_unit_test(test_find_lcc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
