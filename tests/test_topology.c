/* The general network value (kcube/topology.h): ring moves against a
 * shortest-path search on each ring, routes against an independent walk
 * (coordinates corrected axis by axis, written here without the library's
 * ring rule), wrap lists, endpoints and slots, allocations from files with
 * the line and column of every bad token, and the text of each kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/reader.h"
#include "kcube/rng.h"
#include "kcube/topology.h"

/* Shortest signed move on one axis by breadth of the two walks: the
 * fewer hops wins; equal hops (an even ring, distance side/2) by the tie
 * rule; a line has one way. Independent of kc_torus_ring_move. */
static int expected_move(int side, int wraps, kc_tie tie, int s, int d)
{
    if (s == d)
        return 0;
    if (!wraps)
        return d - s;
    int up = 0, down = 0;
    for (int c = s; c != d; c = (c + 1) % side)
        up++;
    for (int c = s; c != d; c = (c + side - 1) % side)
        down++;
    if (side == 2)
        return 1;
    if (up != down)
        return up < down ? up : -down;
    if (tie == KC_TIE_MINUS || (tie == KC_TIE_SPLIT && (s & 1)))
        return -down;
    return up;
}

static void random_network(kc_topology *t, kc_rng *rng)
{
    int n = 1 + (int)kc_rng_below(rng, 4), sides[4];
    for (int i = 0; i < n; i++)
        sides[i] = 2 + (int)kc_rng_below(rng, 7);
    kc_err err = {0};
    kc_tie tie = (kc_tie)kc_rng_below(rng, 3);
    assert_int_equal(kc_topology_shape(t, KC_TOPO_TORUS, sides, n, tie, &err), KC_OK);
    assert_int_equal(kc_topology_set_wrap(t, kc_rng_below(rng, (uint64_t)1 << n), &err), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(t, 1 + (int)kc_rng_below(rng, 3), &err), KC_OK);
    assert_int_equal(kc_topology_validate(t, &err), KC_OK);
}

static void test_ring_moves(void **state)
{
    (void)state;
    kc_err err = {0};
    for (int side = 2; side <= 9; side++)
        for (int w = 0; w < 2; w++)
            for (int tie = 0; tie < 3; tie++) {
                int sides[1] = {side};
                kc_topology t;
                assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, sides, 1, (kc_tie)tie, &err), KC_OK);
                assert_int_equal(kc_topology_set_wrap(&t, (uint64_t)w, &err), KC_OK);
                for (int s = 0; s < side; s++)
                    for (int d = 0; d < side; d++)
                        assert_int_equal(kc_topology_ring_move(&t, 0, (unsigned)s, (unsigned)d),
                                         expected_move(side, w, (kc_tie)tie, s, d));
            }
}

typedef struct walk {
    const kc_topology *t;
    uint64_t at;
    int hops, bad;
} walk;

/* Each link must leave where the previous one arrived, and exist. */
static void follow(void *ctx, kc_link l)
{
    walk *w = ctx;
    if (l.from != w->at)
        w->bad++;
    uint64_t to = kc_topology_link_to(w->t, l);
    if (to == UINT64_MAX)
        w->bad++;
    w->at = to;
    w->hops++;
}

static void test_routes(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 31);
    for (int trial = 0; trial < 200; trial++) {
        kc_topology t;
        random_network(&t, &rng);
        int diameter = 0;
        for (uint64_t s = 0; s < t.nodes; s++)
            for (uint64_t d = 0; d < t.nodes; d++) {
                walk w = {&t, s, 0, 0};
                int hops = kc_topology_route(&t, s, d, follow, &w);
                assert_int_equal(w.bad, 0);
                assert_true(w.at == d);
                int want = 0;
                uint64_t a = s, b = d;
                for (int i = 0; i < t.n; i++, a /= (uint64_t)t.side[i - 1], b /= (uint64_t)t.side[i - 1]) {
                    int mv = expected_move(t.side[i], kc_topology_wraps(&t, i), t.tie, (int)(a % (uint64_t)t.side[i]),
                                           (int)(b % (uint64_t)t.side[i]));
                    want += mv < 0 ? -mv : mv;
                }
                assert_int_equal(hops, want);
                assert_int_equal(w.hops, want);
                diameter = hops > diameter ? hops : diameter;
            }
        assert_int_equal(kc_topology_diameter(&t), diameter);
    }
}

static void test_wrap_lists(void **state)
{
    (void)state;
    kc_err err = {0};
    uint64_t m = 0;
    assert_int_equal(kc_topology_parse_wrap("0,1,2,4", 6, &m, &err), KC_OK);
    assert_true(m == 0x17);
    assert_int_equal(kc_topology_parse_wrap("all", 5, &m, &err), KC_OK);
    assert_true(m == 0x1f);
    assert_int_equal(kc_topology_parse_wrap("none", 5, &m, &err), KC_OK);
    assert_true(m == 0);
    const char *bad[] = {"6", "1,1", "x", "", "1,", "-1", "0;1", NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(kc_topology_parse_wrap(bad[i], 6, &m, &err), KC_EINVAL);
        assert_string_equal(err.param, "wrap");
    }
    /* Tofu-D: X, Y, Z and b wrap, a and c do not */
    int sides[6] = {24, 23, 24, 2, 3, 2};
    kc_topology t;
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, sides, 6, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_parse_wrap("0,1,2,4", 6, &m, &err), KC_OK);
    assert_int_equal(kc_topology_set_wrap(&t, m, &err), KC_OK);
    assert_int_equal(t.kind, KC_TOPO_TORUS);
    assert_int_equal(kc_topology_is_plain(&t), 0);
    assert_int_equal(kc_topology_diameter(&t), 12 + 11 + 12 + 1 + 1 + 1);
    char buf[96];
    assert_string_equal(kc_topology_format(&t, buf, sizeof buf), "torus 24x23x24x2x3x2 (wrap 0,1,2,4)");
    assert_int_equal(kc_topology_need_gf(&t, "a linear communication", &err), KC_EINVAL);
    assert_int_equal(kc_topology_set_wrap(&t, 0, &err), KC_OK);
    assert_int_equal(t.kind, KC_TOPO_MESH);
    assert_int_equal(kc_topology_set_wrap(&t, 1u << 6, &err), KC_EINVAL);
}

static void test_kinds_and_text(void **state)
{
    (void)state;
    kc_err err = {0};
    kc_topology t;
    char buf[96];
    int bgq[5] = {16, 12, 16, 16, 2};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, bgq, 5, KC_TIE_PLUS, &err), KC_OK);
    assert_true(t.nodes == 98304 && t.k == 0 && t.wrap == 0x1f);
    assert_int_equal(kc_topology_is_plain(&t), 1);
    assert_string_equal(kc_topology_format(&t, buf, sizeof buf), "torus 16x12x16x16x2");
    int titan[3] = {25, 16, 24};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, titan, 3, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 2, &err), KC_OK);
    assert_true(kc_topology_slots(&t) == 19200 && kc_topology_endpoint_count(&t) == 19200);
    assert_true(kc_topology_slot_router(&t, 7) == 3 && kc_topology_slot_endpoint(&t, 7) == 7);
    assert_string_equal(kc_topology_format(&t, buf, sizeof buf), "torus 25x16x24, 2 endpoints per router");
    assert_int_equal(kc_topology_set_endpoints(&t, 0, &err), KC_ERANGE);
    assert_string_equal(err.param, "endpoints");
    /* equal sides keep today's names */
    assert_int_equal(kc_topology_torus(&t, 4, 3, KC_TIE_PLUS, &err), KC_OK);
    assert_string_equal(kc_topology_format(&t, buf, sizeof buf), "4-ary 3-cube");
    assert_int_equal(kc_topology_hypercube(&t, 5, &err), KC_OK);
    assert_string_equal(kc_topology_format(&t, buf, sizeof buf), "5-cube");
    assert_int_equal(kc_topology_set_wrap(&t, 0x1f, &err), KC_OK);
    assert_int_equal(t.kind, KC_TOPO_HYPERCUBE);
    int sq[2] = {6, 4};
    assert_int_equal(kc_topology_mesh_shape(&t, sq, 2, &err), KC_OK);
    assert_string_equal(kc_topology_format(&t, buf, sizeof buf), "mesh 6x4");
    int one[2] = {6, 1};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, one, 2, KC_TIE_PLUS, &err), KC_ERANGE);
    int h[2] = {2, 4};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_HYPERCUBE, h, 2, KC_TIE_PLUS, &err), KC_EINVAL);
}

static kc_status read_alloc(const char *text, const kc_topology *t, kc_allocation *a, kc_err *err)
{
    kc_reader *r = NULL;
    kc_status s = kc_reader_open_mem(&r, text, strlen(text), "allocation", "nodes_file", NULL, err);
    if (s)
        return s;
    s = kc_alloc_read(a, r, t, err);
    kc_reader_close(r);
    return s;
}

static void test_allocations(void **state)
{
    (void)state;
    kc_err err = {0};
    kc_topology t;
    int sides[3] = {4, 3, 2};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, sides, 3, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 2, &err), KC_OK);
    kc_allocation a;
    /* by number and by coordinates (axis 0 first: 1 + 4*2 + 12*1 = 21) */
    assert_int_equal(read_alloc("# my job\n5\n1 2 1\n0,0,0\n", &t, &a, &err), KC_OK);
    assert_int_equal(a.count, 3);
    assert_int_equal(a.router[0], 5);
    assert_int_equal(a.router[1], 21);
    assert_int_equal(a.router[2], 0);
    assert_int_equal(kc_topology_set_alloc(&t, a.router, a.count, &err), KC_OK);
    assert_true(kc_topology_slots(&t) == 6);
    assert_true(kc_topology_slot_router(&t, 3) == 21 && kc_topology_slot_endpoint(&t, 3) == 43);
    assert_int_equal(kc_topology_is_plain(&t), 0);
    char buf[96];
    assert_string_equal(kc_topology_format(&t, buf, sizeof buf), "torus 4x3x2, 2 endpoints per router, 3 routers "
                                                                  "allocated");
    assert_int_equal(kc_topology_validate(&t, &err), KC_OK);
    uint32_t twice[2] = {3, 3}, outside[1] = {24};
    assert_int_equal(kc_topology_set_alloc(&t, twice, 2, &err), KC_EINVAL);
    assert_int_equal(kc_topology_set_alloc(&t, outside, 1, &err), KC_EINVAL);
    assert_int_equal(kc_topology_set_alloc(&t, NULL, 0, &err), KC_OK);
    assert_null(t.alloc);
    kc_alloc_free(&a);
    struct {
        const char *text, *where;
    } bad[] = {
        {"5\n5\n", "line 2, column 1"},     /* twice */
        {"0\n1 2 1\n21\n", "line 3, column 1"}, /* twice, by number after coordinates */
        {"24\n", "line 1, column 1"},       /* outside */
        {"1 3 0\n", "line 1, column 3"},    /* coordinate outside axis 1 */
        {"1 2\n", "line 1, column 1"},      /* neither 1 nor 3 numbers */
        {"1x2\n", "line 1, column 1"},      /* not a number */
        {"# nothing\n", "names no router"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(read_alloc(bad[i].text, &t, &a, &err), KC_EINVAL);
        assert_string_equal(err.param, "nodes_file");
        if (!strstr(err.msg, bad[i].where))
            fail_msg("'%s': message '%s' lacks '%s'", bad[i].text, err.msg, bad[i].where);
        assert_null(a.router);
    }
}

static kc_status read_slots(const char *text, const kc_topology *t, uint64_t min, uint64_t max, uint32_t *slot,
                            uint64_t *count, kc_err *err)
{
    kc_reader *r = NULL;
    kc_status s = kc_reader_open_mem(&r, text, strlen(text), "mapping", "mapping_file", NULL, err);
    if (s)
        return s;
    s = kc_topology_read_slots(r, t, min, max, slot, count, err);
    kc_reader_close(r);
    return s;
}

/* Endpoint lists: slots back, every rule with its line and column. */
static void test_endpoint_lists(void **state)
{
    (void)state;
    kc_err err = {0};
    kc_topology t;
    int sides[2] = {4, 3};
    uint32_t routers[3] = {5, 0, 11}, slot[6];
    uint64_t count = 0;
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_TORUS, sides, 2, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 2, &err), KC_OK);
    assert_int_equal(kc_topology_set_alloc(&t, routers, 3, &err), KC_OK);
    /* endpoints 11 (router 5, index 1), 0 (router 0), 23 (router 11, index 1) */
    assert_int_equal(read_slots("11\n0, 23\n", &t, 3, 6, slot, &count, &err), KC_OK);
    assert_true(count == 3 && slot[0] == 1 && slot[1] == 2 && slot[2] == 5);
    const uint64_t endpoint[3] = {11, 0, 23};
    for (uint64_t i = 0; i < count; i++)
        assert_true(kc_topology_slot_endpoint(&t, slot[i]) == endpoint[i]);
    struct {
        const char *text, *where;
        uint64_t min, max;
    } bad[] = {
        {"0\n2\n", "line 2, column 1: '2' is on a router outside the allocation", 1, 6},
        {"0\n1\n0\n", "line 3, column 1: '0' appears twice", 1, 6},
        {"24\n", "line 1, column 1: '24' is not a network endpoint (0..23)", 1, 6},
        {"0 1 10\n", "line 1, column 5: '10' is one entry too many (2 ranks)", 1, 2},
        {"0\n", "has 1 entries, expected at least 2", 2, 6},
        {"0\n", "has 1 entries, expected 2 (one endpoint per rank)", 2, 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(read_slots(bad[i].text, &t, bad[i].min, bad[i].max, slot, &count, &err), KC_EINVAL);
        assert_string_equal(err.param, "mapping_file");
        if (!strstr(err.msg, bad[i].where))
            fail_msg("'%s': message '%s' lacks '%s'", bad[i].text, err.msg, bad[i].where);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_moves),   cmocka_unit_test(test_routes),      cmocka_unit_test(test_wrap_lists),
        cmocka_unit_test(test_kinds_and_text), cmocka_unit_test(test_allocations), cmocka_unit_test(test_endpoint_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
