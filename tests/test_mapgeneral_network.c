/* The general mapper on general networks (sides per axis, wrap per axis,
 * several endpoints per router, allocations): on seeded random networks and
 * traffics every start is a permutation of the slots, the result is never
 * worse than any start and its cost is what a fresh count gives; Scotch's
 * start on networks without a Scotch class (mixed wraps, more than 5 axes)
 * and with allocations; the grid fold onto the endpoints of a router; the
 * caller's own mapping as the start "file". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/mapgeneral.h"
#include "kcube/rng.h"
#include "kcube/scotchmap.h"

static void assert_perm(const uint32_t *p, uint64_t n)
{
    char *seen = calloc(n, 1);
    for (uint64_t i = 0; i < n; i++) {
        assert_true(p[i] < n);
        assert_false(seen[p[i]]);
        seen[p[i]] = 1;
    }
    free(seen);
}

typedef struct net {
    kc_topology t;
    uint32_t alloc[128];
} net;

/* 1 to 3 axes of sides 2..5, random wraps, C 1..3, half the time a random
 * allocation; at most 96 slots. */
static void random_net(kc_rng *rng, net *w)
{
    for (;;) {
        int sides[3], n = 1 + (int)kc_rng_below(rng, 3);
        uint64_t nodes = 1;
        for (int i = 0; i < n; i++) {
            sides[i] = 2 + (int)kc_rng_below(rng, 4);
            nodes *= (uint64_t)sides[i];
        }
        assert_int_equal(kc_topology_shape(&w->t, KC_TOPO_TORUS, sides, n, KC_TIE_PLUS, NULL), KC_OK);
        assert_int_equal(kc_topology_set_wrap(&w->t, kc_rng_below(rng, (uint64_t)1 << n), NULL), KC_OK);
        assert_int_equal(kc_topology_set_endpoints(&w->t, 1 + (int)kc_rng_below(rng, 3), NULL), KC_OK);
        if (kc_rng_below(rng, 2)) {
            uint32_t count = 2 + (uint32_t)kc_rng_below(rng, nodes - 1), x = (uint32_t)kc_rng_below(rng, nodes);
            for (uint32_t j = 0; j < count; j++) /* a stride walk: distinct, scattered */
                w->alloc[j] = (x + j * 7u) % (uint32_t)nodes;
            if (nodes % 7 == 0)
                continue;
            assert_int_equal(kc_topology_set_alloc(&w->t, w->alloc, count, NULL), KC_OK);
        }
        if (kc_topology_slots(&w->t) >= 2 && kc_topology_slots(&w->t) <= 96)
            return;
    }
}

static void check_result(const kc_topology *t, const kc_traffic *tr, const kc_mapgen_result *r)
{
    uint64_t S = kc_topology_slots(t);
    assert_int_equal(r->search.nodes, S);
    for (int i = 0; i < r->nstarts; i++) {
        assert_perm(r->start_map[i], S);
        assert_true(kc_cost_cmp(&r->search.cost, &r->search.start_cost[i]) <= 0);
    }
    assert_perm(r->search.to_physical, S);
    kc_cost fresh;
    assert_int_equal(kc_chanload_eval(t, tr, r->search.to_physical, &fresh, NULL), KC_OK);
    assert_int_equal(kc_cost_cmp(&fresh, &r->search.cost), 0);
}

static void test_never_worse(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 7);
    for (int c = 0; c < 40; c++) {
        net w;
        random_net(&rng, &w);
        uint64_t S = kc_topology_slots(&w.t);
        uint64_t ranks = kc_topology_is_plain(&w.t) || kc_rng_below(&rng, 2) ? S : 1 + kc_rng_below(&rng, S);
        kc_traffic tr;
        assert_int_equal(kc_traffic_init(&tr, ranks, NULL), KC_OK);
        for (uint64_t m = 0; m < 2 * ranks; m++)
            assert_int_equal(kc_traffic_add(&tr, (uint32_t)kc_rng_below(&rng, ranks),
                                            (uint32_t)kc_rng_below(&rng, ranks), 1 + kc_rng_below(&rng, 9), NULL),
                             KC_OK);
        kc_mapgen_opts o;
        kc_mapgen_opts_default(&o);
        o.search.seed = (uint64_t)c + 1;
        o.search.budget_seconds = 0;
        o.search.iterations = 3000;
        o.scotch_seeds = 1;
        kc_mapgen_result r;
        kc_err err = {0};
        kc_status st = kc_mapgen_run(&w.t, &tr, NULL, 0, &o, &r, &err);
        if (st)
            fail_msg("case %d: %s", c, err.msg);
        check_result(&w.t, &tr, &r);
        kc_mapgen_result_free(&r);
        kc_traffic_free(&tr);
    }
}

/* A 2 x 8 periodic halo on a ring of 8 routers with 2 endpoints each: the
 * fold puts the grid's factor 2 on each router's endpoints, so the axis-0
 * messages never leave a router and each axis-1 message goes one hop. */
static void test_fold_onto_endpoints(void **state)
{
    (void)state;
    kc_topology t;
    assert_int_equal(kc_topology_torus(&t, 8, 1, KC_TIE_PLUS, NULL), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 2, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 16, NULL), KC_OK);
    for (uint32_t y = 0; y < 8; y++)
        for (uint32_t x = 0; x < 2; x++) {
            uint32_t v = y * 2 + x;
            assert_int_equal(kc_traffic_add(&tr, v, y * 2 + (1 - x), 1, NULL), KC_OK);
            assert_int_equal(kc_traffic_add(&tr, v, ((y + 1) % 8) * 2 + x, 1, NULL), KC_OK);
            assert_int_equal(kc_traffic_add(&tr, v, ((y + 7) % 8) * 2 + x, 1, NULL), KC_OK);
        }
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    o.use_scotch = 0;
    o.search.budget_seconds = 0;
    o.search.iterations = 0;
    kc_mapgen_result r;
    assert_int_equal(kc_mapgen_run(&t, &tr, NULL, 0, &o, &r, NULL), KC_OK);
    int fold = -1;
    for (int i = 0; i < r.nstarts; i++)
        if (!strncmp(r.start_name[i], "fold:", 5))
            fold = i;
    assert_true(fold >= 0);
    assert_int_equal(r.search.start_cost[fold].hops, 32); /* 32 ring messages, one hop each */
    check_result(&t, &tr, &r);
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

/* The caller's mapping is the start "file", counted exactly; with no
 * search it is the result when it is the best start. */
static void test_file_start(void **state)
{
    (void)state;
    kc_topology t;
    int sides[2] = {3, 4};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, sides, 2, KC_TIE_PLUS, NULL), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 2, NULL), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 24, NULL), KC_OK);
    uint32_t file[24];
    for (uint32_t v = 0; v < 24; v++)
        assert_int_equal(kc_traffic_add(&tr, v, (v + 13) % 24, 5, NULL), KC_OK);
    for (uint32_t v = 0; v < 24; v++) /* a mapping unlike every start: slots in reverse */
        file[v] = 23 - v;
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    o.use_scotch = 0;
    o.search.budget_seconds = 0;
    o.search.iterations = 0;
    assert_perm(file, 24);
    o.file_map = file;
    kc_mapgen_result r;
    assert_int_equal(kc_mapgen_run(&t, &tr, NULL, 0, &o, &r, NULL), KC_OK);
    assert_string_equal(r.start_name[1], "file");
    assert_memory_equal(r.start_map[1], file, sizeof file);
    kc_cost c;
    assert_int_equal(kc_chanload_eval(&t, &tr, file, &c, NULL), KC_OK);
    assert_int_equal(kc_cost_cmp(&c, &r.search.start_cost[1]), 0);
    check_result(&t, &tr, &r);
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

/* Scotch on networks with no Scotch class: Tofu's mixed wraps and 6 axes
 * (a small variant), and an allocation with 2 endpoints per router. */
static void test_scotch_general(void **state)
{
    (void)state;
    if (!kc_scotch_available())
        skip();
    kc_topology t;
    int tofu[6] = {3, 2, 2, 2, 3, 2};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, tofu, 6, KC_TIE_PLUS, NULL), KC_OK);
    assert_int_equal(kc_topology_set_wrap(&t, 0x17, NULL), KC_OK);
    uint32_t map[288];
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 144, NULL), KC_OK);
    for (uint32_t v = 0; v < 144; v++)
        assert_int_equal(kc_traffic_add(&tr, v, (v + 1) % 144, 1, NULL), KC_OK);
    kc_scotch_info info;
    kc_err err = {0};
    assert_int_equal(kc_scotch_map_info(&t, &tr, 1, map, &info, &err), KC_OK);
    assert_perm(map, 144);
    kc_traffic_free(&tr);
    /* 6 of the 3 x 4 torus's routers, 2 endpoints each, 10 ranks */
    int sides[2] = {3, 4};
    uint32_t alloc[6] = {11, 0, 4, 5, 7, 2};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, sides, 2, KC_TIE_PLUS, NULL), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 2, NULL), KC_OK);
    assert_int_equal(kc_topology_set_alloc(&t, alloc, 6, NULL), KC_OK);
    assert_int_equal(kc_traffic_init(&tr, 10, NULL), KC_OK);
    for (uint32_t v = 0; v < 10; v++)
        assert_int_equal(kc_traffic_add(&tr, v, (v + 1) % 10, 1, NULL), KC_OK);
    assert_int_equal(kc_scotch_map_info(&t, &tr, 1, map, &info, &err), KC_OK);
    assert_string_equal(info.target, "sub");
    assert_perm(map, 12);
    kc_traffic_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_never_worse),
        cmocka_unit_test(test_fold_onto_endpoints),
        cmocka_unit_test(test_file_start),
        cmocka_unit_test(test_scotch_general),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
