/* The general mapping's front door (kcube/mapgeneral.h): which starts it
 * offers, the Gray-code starts' one-hop property checked digit by digit,
 * never worse than any start, and the starts' costs equal to a one-shot
 * recount. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/chanload.h"
#include "kcube/mapgeneral.h"
#include "kcube/scotchmap.h"
#include "kcube/traffic_gen.h"
#include "kc_testutil.h"

static kc_mapgen_opts quick_opts(uint64_t seed)
{
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    o.search.seed = seed;
    o.search.budget_seconds = 0;
    o.search.iterations = 2000;
    return o;
}

/* The search's order: within the hops cap first, then lexicographic. */
static int capped_cmp(const kc_mapgen_result *r, const kc_cost *x, const kc_cost *y)
{
    if (r->hops_cap) {
        int ox = x->hops > r->hops_cap, oy = y->hops > r->hops_cap;
        if (ox != oy)
            return ox - oy;
    }
    return kc_cost_cmp(x, y);
}

static int find_start(const kc_mapgen_result *r, const char *name)
{
    for (int i = 0; i < r->nstarts; i++)
        if (!strcmp(r->start_name[i], name))
            return i;
    return -1;
}

/* Digit i of node x on a torus of radix k. */
static unsigned digit(uint64_t x, int k, int i)
{
    for (int j = 0; j < i; j++)
        x /= (uint64_t)k;
    return (unsigned)(x % (uint64_t)k);
}

/* gray:f moves every rank so that ranks v and v + 1 inside one field of f
 * digits sit on nodes that differ in one digit by one (mod k): checked for
 * every v, on tori of radix 2..7. */
static void test_gray_one_hop(void **state)
{
    (void)state;
    for (int k = 2; k <= 7; k++)
        for (int n = 2; n <= 4; n++) {
            kc_topology t;
            kc_err err = {0};
            assert_int_equal(kc_topology_init(&t, k == 2 ? KC_TOPO_HYPERCUBE : KC_TOPO_TORUS, k, n, KC_TIE_PLUS, &err),
                             KC_OK);
            kc_traffic tr;
            assert_int_equal(kc_traffic_init(&tr, t.nodes, &err), KC_OK);
            assert_int_equal(kc_traffic_add(&tr, 0, 1, 1, &err), KC_OK);
            kc_mapgen_opts o = quick_opts(1);
            o.use_scotch = 0;
            kc_mapgen_result r;
            assert_int_equal(kc_mapgen_run(&t, &tr, NULL, 0, &o, &r, &err), KC_OK);
            for (int f = 2; f <= n; f++) {
                char name[16];
                snprintf(name, sizeof name, "gray:%d", f);
                int s = find_start(&r, name);
                if (n % f) {
                    assert_int_equal(s, -1);
                    continue;
                }
                assert_true(s >= 0);
                const uint32_t *p = r.start_map[s];
                uint64_t field = 1;
                for (int i = 0; i < f; i++)
                    field *= (uint64_t)k;
                unsigned char *seen = calloc(t.nodes, 1);
                assert_non_null(seen);
                for (uint64_t v = 0; v < t.nodes; v++) {
                    assert_false(seen[p[v]]);
                    seen[p[v]] = 1;
                    if ((v + 1) % field == 0)
                        continue;
                    int changed = 0;
                    for (int i = 0; i < n; i++) {
                        unsigned a = digit(p[v], k, i), b = digit(p[v + 1], k, i);
                        if (a != b) {
                            changed++;
                            assert_true((a + 1) % (unsigned)k == b || (b + 1) % (unsigned)k == a);
                        }
                    }
                    assert_int_equal(changed, 1);
                }
                free(seen);
            }
            kc_mapgen_result_free(&r);
            kc_traffic_free(&tr);
        }
}

/* A 2-D halo of a 8 x 8 torus grid lands on the 6-cube with dilation 1
 * through gray:3, and the result is at least that good. */
static void test_gray_halo(void **state)
{
    (void)state;
    kc_topology t;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, 6, &err), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, t.nodes, &err), KC_OK);
    const int shape[2] = {8, 8};
    assert_int_equal(kc_traffic_gen_halo(&tr, shape, 2, 1, 1, &err), KC_OK);
    kc_mapgen_opts o = quick_opts(3);
    kc_mapgen_result r;
    assert_int_equal(kc_mapgen_run(&t, &tr, NULL, 0, &o, &r, &err), KC_OK);
    int s = find_start(&r, "gray:3");
    assert_true(s >= 0);
    assert_int_equal(r.search.start_cost[s].max, 1);
    assert_int_equal(r.search.start_cost[s].hops, tr.count);
    assert_int_equal(r.search.cost.max, 1);
    assert_int_equal(r.search.cost.hops, tr.count);
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

/* Linear communications bring kcube's reordering and linear mapping; every
 * start's reported cost is a one-shot recount, and the final mapping is no
 * worse than any of them (random sets of patterns, several seeds). */
static void test_starts_and_never_worse(void **state)
{
    (void)state;
    static const char *const names[] = {"transpose", "bit-reverse", "reverse-flip", "complement", "shuffle"};
    for (uint64_t seed = 1; seed <= 6; seed++) {
        kc_topology t;
        kc_err err = {0};
        assert_int_equal(kc_topology_hypercube(&t, 6, &err), KC_OK);
        kc_comm comms[2];
        kc_traffic tr;
        assert_int_equal(kc_traffic_init(&tr, t.nodes, &err), KC_OK);
        for (int i = 0; i < 2; i++) {
            if (kc_comm_named(&comms[i], &t, names[(seed + (uint64_t)i * 2) % 5], &err))
                fail_msg("%s", err.msg);
            assert_int_equal(kc_traffic_add_comm(&tr, &comms[i], 1, NULL, &err), KC_OK);
        }
        kc_mapgen_opts o = quick_opts(seed);
        o.search.group = tr.group;
        o.search.groups = tr.groups;
        kc_mapgen_result r;
        assert_int_equal(kc_mapgen_run(&t, &tr, comms, 2, &o, &r, &err), KC_OK);
        assert_int_equal(find_start(&r, "identity"), 0);
        assert_true(find_start(&r, "reorder") > 0);
        assert_true(find_start(&r, "linear") > 0);
        assert_int_equal(find_start(&r, "scotch") >= 0, kc_scotch_available());
        for (int i = 0; i < r.nstarts; i++) {
            kc_cost c;
            assert_int_equal(kc_chanload_eval(&t, &tr, r.start_map[i], &c, &err), KC_OK);
            assert_int_equal(kc_cost_cmp(&c, &r.search.start_cost[i]), 0);
            assert_true(capped_cmp(&r, &r.search.cost, &c) <= 0);
        }
        kc_mapgen_result_free(&r);
        kc_traffic_free(&tr);
    }
}

/* With Scotch as a start the result is no worse than Scotch's mapping,
 * (max channel load, hops) lexicographically (the objective's first two
 * keys, in order), on random traffic over several topologies and seeds. */
static void test_dominates_scotch(void **state)
{
    (void)state;
    if (!kc_scotch_available())
        skip();
    for (uint64_t seed = 1; seed <= 8; seed++) {
        kc_topology t;
        kc_err err = {0};
        kc_status st = seed % 3 == 0   ? kc_topology_torus(&t, 5, 2, KC_TIE_PLUS, &err)
                       : seed % 3 == 1 ? kc_topology_hypercube(&t, 5, &err)
                                       : kc_topology_mesh(&t, 6, 2, &err);
        assert_int_equal(st, KC_OK);
        kc_traffic tr;
        assert_int_equal(kc_traffic_init(&tr, t.nodes, &err), KC_OK);
        assert_int_equal(kc_traffic_gen_random(&tr, 4, 1, seed, &err), KC_OK);
        kc_mapgen_opts o = quick_opts(seed);
        kc_mapgen_result r;
        assert_int_equal(kc_mapgen_run(&t, &tr, NULL, 0, &o, &r, &err), KC_OK);
        assert_true(r.scotch >= 0);
        const kc_cost *sc = &r.search.start_cost[r.scotch];
        assert_int_equal(r.hops_cap, sc->hops);
        assert_true(r.search.cost.max <= sc->max);
        /* Lexicographically (max load, bytes x hops) no worse than Scotch: a
         * start with a lower max load may win at more hops. */
        assert_true(r.search.cost.max < sc->max || r.search.cost.hops <= sc->hops);
        kc_mapgen_result_free(&r);
        kc_traffic_free(&tr);
    }
}

/* Each start's computing time and the search's are recorded (the suite's
 * per-start times): finite and not negative, positive for the computed
 * starts that take real work (Scotch) and for the search, zero past the
 * last start. */
static void test_start_seconds(void **state)
{
    (void)state;
    kc_topology t;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, 6, &err), KC_OK);
    kc_comm comm;
    if (kc_comm_named(&comm, &t, "transpose", &err))
        fail_msg("%s", err.msg);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, t.nodes, &err), KC_OK);
    assert_int_equal(kc_traffic_add_comm(&tr, &comm, 1, NULL, &err), KC_OK);
    kc_mapgen_opts o = quick_opts(1);
    kc_mapgen_result r;
    assert_int_equal(kc_mapgen_run(&t, &tr, &comm, 1, &o, &r, &err), KC_OK);
    for (int i = 0; i < r.nstarts; i++)
        assert_true(r.start_seconds[i] >= 0 && r.start_seconds[i] < 60);
    if (r.scotch >= 0)
        assert_true(r.start_seconds[r.scotch] > 0);
    assert_true(r.nstarts < KC_MAPGEN_MAX_STARTS);
    assert_true(r.start_seconds[r.nstarts] == 0);
    assert_true(r.search_seconds > 0 && r.search_seconds < 60);
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

/* ---- the "fold" start (src/gmap/gridfold.c) ---------------------------------- */

static int find_prefix(const kc_mapgen_result *r, const char *prefix)
{
    for (int i = 0; i < r->nstarts; i++)
        if (!strncmp(r->start_name[i], prefix, strlen(prefix)))
            return i;
    return -1;
}

static int is_perm(const uint32_t *p, uint64_t n)
{
    char *seen = calloc(n, 1);
    int ok = seen != NULL;
    for (uint64_t v = 0; ok && v < n; v++)
        ok = p[v] < n && !seen[p[v]]++;
    free(seen);
    return ok;
}

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x >> 33;
}

/* Run the mapper without Scotch (the fold start is what is tested) on a
 * stencil; returns the fold start's index (or -1). */
static int fold_run(const kc_topology *t, kc_stencil sten, const int *grid, int dims, int periodic,
                    kc_grid_order order, uint64_t wseed, kc_traffic *tr, kc_mapgen_result *r)
{
    kc_err err = {0};
    assert_int_equal(kc_traffic_init(tr, t->nodes, &err), KC_OK);
    if (kc_traffic_gen_stencil(tr, sten, grid, dims, periodic, order, 1, &err))
        fail_msg("%s", err.msg);
    for (size_t m = 0; wseed && m < tr->count; m++)
        tr->bytes[m] = 1 + lcg(&wseed) % 20000;
    kc_mapgen_opts o = quick_opts(wseed + 1);
    o.use_scotch = 0;
    o.search.iterations = 200;
    if (kc_mapgen_run(t, tr, NULL, 0, &o, r, &err))
        fail_msg("%s", err.msg);
    return find_prefix(r, "fold:");
}

/* Where the grid's sides can be matched by the network's, the fold start
 * puts every message one hop apart: bytes x hops is the total bytes and the
 * max load the largest message (the weighted periodic 8x8 halo on a
 * 4x4x4 torus with ties split, which scotch_gmap solves and kcube's search
 * did not), for tori, hypercubes and meshes whose axes come in another
 * order; and the open 16x16x16 halo on the 8-ary 4-cube, where plain
 * scotch_gmap once gave 4 / 27840, gets 3 / 24064. */
static void test_fold_one_hop(void **state)
{
    (void)state;
    struct {
        kc_topo_kind kind;
        int k, n;
        const char *shape;
        kc_stencil sten;
        int grid[3], dims, periodic;
        const char *name;
    } cases[] = {
        {KC_TOPO_TORUS, 4, 3, NULL, KC_STENCIL_5PT, {8, 8}, 2, 1, "fold:8x8"},
        {KC_TOPO_TORUS, 8, 3, NULL, KC_STENCIL_7PT, {8, 8, 8}, 3, 1, "fold:8x8x8"},
        {KC_TOPO_TORUS, 4, 4, NULL, KC_STENCIL_5PT, {16, 16}, 2, 1, "fold:16x16"},
        {KC_TOPO_HYPERCUBE, 2, 8, NULL, KC_STENCIL_5PT, {16, 16}, 2, 1, "fold:16x16"},
        {KC_TOPO_HYPERCUBE, 2, 9, NULL, KC_STENCIL_7PT, {8, 4, 16}, 3, 1, "fold:8x4x16"},
        {KC_TOPO_MESH, 0, 0, "10x6", KC_STENCIL_5PT, {6, 10}, 2, 0, "fold:6x10"},
        {KC_TOPO_MESH, 0, 0, "12x4x3", KC_STENCIL_7PT, {3, 12, 4}, 3, 0, "fold:3x12x4"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int tie = 0; tie < (cases[c].kind == KC_TOPO_TORUS ? 3 : 1); tie++) {
            kc_topology t;
            kc_err err = {0};
            if (cases[c].shape) {
                int sides[KC_TOPO_MAX_DIMS], count;
                assert_int_equal(kc_topology_parse_shape(cases[c].shape, sides, &count, &err), KC_OK);
                assert_int_equal(kc_topology_mesh_shape(&t, sides, count, &err), KC_OK);
            } else {
                kc_tie ties[3] = {KC_TIE_PLUS, KC_TIE_MINUS, KC_TIE_SPLIT};
                assert_int_equal(kc_topology_init(&t, cases[c].kind, cases[c].k, cases[c].n, ties[tie], &err), KC_OK);
            }
            kc_traffic tr;
            kc_mapgen_result r;
            int f = fold_run(&t, cases[c].sten, cases[c].grid, cases[c].dims, cases[c].periodic,
                             KC_GRID_AXIS0_FASTEST, 17 + c, &tr, &r);
            assert_true(f > 0);
            assert_string_equal(r.start_name[f], cases[c].name);
            uint64_t total = 0, biggest = 0;
            for (size_t m = 0; m < tr.count; m++)
                if (tr.src[m] != tr.dst[m]) {
                    total += tr.bytes[m];
                    biggest = tr.bytes[m] > biggest ? tr.bytes[m] : biggest;
                }
            assert_int_equal(r.search.start_cost[f].hops, total);
            assert_int_equal(r.search.cost.hops, total);
            /* one message per directed channel, except where a side of 2 sends
             * both ways round the same pair (the stencils here have none) */
            assert_int_equal(r.search.cost.max, biggest);
            kc_mapgen_result_free(&r);
            kc_traffic_free(&tr);
        }
    kc_topology t;
    kc_err err = {0};
    assert_int_equal(kc_topology_torus(&t, 8, 4, KC_TIE_PLUS, &err), KC_OK);
    kc_traffic tr;
    kc_mapgen_result r;
    int f = fold_run(&t, KC_STENCIL_7PT, (int[]){16, 16, 16}, 3, 0, KC_GRID_AXIS0_FASTEST, 0, &tr, &r);
    assert_true(f > 0);
    assert_int_equal(r.search.start_cost[f].max, 3);
    assert_int_equal(r.search.start_cost[f].hops, 24064);
    assert_true(r.search.cost.max <= 3 && r.search.cost.hops <= 24064);
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

/* A random network from the stream x into t: a hypercube (n 4..9), a torus
 * (k in {3, 4, 5, 6, 8}, n 2..3, any tie rule) or a mesh of 2 or 3 sides. */
static void random_network(uint64_t *x, kc_topology *t)
{
    kc_err err = {0};
    int kind = (int)(lcg(x) % 3);
    if (kind == 0)
        assert_int_equal(kc_topology_hypercube(t, 4 + (int)(lcg(x) % 6), &err), KC_OK);
    else if (kind == 1) {
        static const int ks[] = {3, 4, 5, 6, 8};
        int k = ks[lcg(x) % 5], n = 2 + (int)(lcg(x) % 2);
        assert_int_equal(kc_topology_torus(t, k, n, (kc_tie)(lcg(x) % 3), &err), KC_OK);
    } else {
        int sides[3] = {2 + (int)(lcg(x) % 11), 2 + (int)(lcg(x) % 11), 2 + (int)(lcg(x) % 3)};
        assert_int_equal(kc_topology_mesh_shape(t, sides, 2 + (int)(lcg(x) % 2), &err), KC_OK);
    }
}

/* A random factorisation of nodes into *dims (2 or 3) sides >= 2, drawn
 * from x into grid; 0 when the draw leaves no fitting side. */
static int random_grid(uint64_t *x, uint64_t nodes, int grid[3], int *dims)
{
    *dims = 2 + (int)(lcg(x) % 2);
    uint64_t rest = nodes;
    for (int i = 0; i < *dims - 1; i++) {
        uint64_t divs[64];
        int nd = 0;
        for (uint64_t d = 2; d * 2 <= rest && nd < 64; d++)
            if (rest % d == 0)
                divs[nd++] = d;
        if (!nd)
            return 0;
        grid[i] = (int)divs[lcg(x) % (uint64_t)nd];
        rest /= (uint64_t)grid[i];
    }
    if (rest < 2)
        return 0;
    grid[*dims - 1] = (int)rest;
    return 1;
}

/* The fold start's name for grid in this numbering: "fold:AxBxC", sides
 * fastest first. */
static void fold_name(const int *grid, int dims, kc_grid_order order, char want[48])
{
    int len = snprintf(want, 48, "fold:");
    for (int i = 0; i < dims; i++) {
        int g = grid[order == KC_GRID_AXIS0_FASTEST ? i : dims - 1 - i];
        len += snprintf(want + len, 48 - (size_t)len, i ? "x%d" : "%d", g);
    }
}

/* A random stencil and numbering of grid (drawn from x) mapped onto t: the
 * fold start exists, is a permutation, costs what the recount says, and
 * names the grid when every side is at least 3. */
static void check_fold(uint64_t *x, const kc_topology *t, const int *grid, int dims)
{
    kc_err err = {0};
    kc_stencil sten = dims == 2 ? (lcg(x) & 1 ? KC_STENCIL_9PT : KC_STENCIL_5PT)
                                : (lcg(x) & 1 ? KC_STENCIL_27PT : KC_STENCIL_7PT);
    kc_grid_order order = (kc_grid_order)(lcg(x) % 2);
    kc_traffic tr;
    kc_mapgen_result r;
    int f = fold_run(t, sten, grid, dims, (int)(lcg(x) & 1), order, lcg(x) % 2 ? 5 : 0, &tr, &r);
    assert_true(f > 0);
    assert_true(is_perm(r.start_map[f], t->nodes));
    kc_cost c;
    assert_int_equal(kc_chanload_eval(t, &tr, r.start_map[f], &c, &err), KC_OK);
    assert_int_equal(kc_cost_cmp(&c, &r.search.start_cost[f]), 0);
    assert_true(r.search.cost.max <= c.max);
    int big = 1;
    for (int i = 0; i < dims; i++)
        big &= grid[i] >= 3;
    if (big) {
        char want[48];
        fold_name(grid, dims, order, want);
        assert_string_equal(r.start_name[f], want);
    }
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

/* Random partners on the 8-cube are no halo: no fold start. */
static void check_no_fold(void)
{
    kc_topology t;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, 8, &err), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, t.nodes, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_random(&tr, 6, 1, 3, &err), KC_OK);
    kc_mapgen_opts o = quick_opts(3);
    o.use_scotch = 0;
    kc_mapgen_result r;
    assert_int_equal(kc_mapgen_run(&t, &tr, NULL, 0, &o, &r, &err), KC_OK);
    assert_int_equal(find_prefix(&r, "fold:"), -1);
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

/* Seeded random stencils on random networks: the fold start is found, is a
 * permutation, its cost is the one-shot recount's, and it names the grid
 * (reversed for axis-0-slowest numbering) when every side is at least 3
 * (sides of 2 make other factorisations fit as well); a traffic that is no
 * halo (random partners) gets no fold start. */
static void test_fold_random(void **state)
{
    (void)state;
    uint64_t x = 2026;
    int tested = 0;
    for (int trial = 0; trial < 60; trial++) {
        kc_topology t;
        int grid[3], dims;
        random_network(&x, &t);
        if (!random_grid(&x, t.nodes, grid, &dims))
            continue;
        check_fold(&x, &t, grid, dims);
        tested++;
    }
    assert_true(tested >= 30);
    check_no_fold();
}

static void test_errors(void **state)
{
    (void)state;
    kc_topology t;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, 3, &err), KC_OK);
    kc_traffic tr;
    assert_int_equal(kc_traffic_init(&tr, 4, &err), KC_OK);
    kc_mapgen_result r;
    assert_int_equal(kc_mapgen_run(&t, &tr, NULL, 0, NULL, &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "traffic");
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gray_one_hop),
        cmocka_unit_test(test_gray_halo),
        cmocka_unit_test(test_starts_and_never_worse),
        cmocka_unit_test(test_dominates_scotch),
        cmocka_unit_test(test_start_seconds),
        cmocka_unit_test(test_fold_one_hop),
        cmocka_unit_test(test_fold_random),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
