/* kc_map keeps the nodes where they are when nothing improves: whenever
 * the chosen mapping's (value, total) equals the identity's, the mapping is
 * the identity, for every built-in pattern on small hypercubes and tori and
 * every kind. A shuffle that changes nothing is no answer: a user would
 * renumber the ranks for no gain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kcube/comm.h"
#include "kcube/lcc.h"
#include "kcube/plan.h"

/* Whether r maps every node onto itself. */
static int maps_identity(const kc_map_result *r, uint64_t nodes)
{
    for (uint64_t v = 0; v < nodes; v++)
        if (kc_map_to_physical(r, v) != v)
            return 0;
    return 1;
}

/* kc_map of one communication; when its result ties with the identity on
 * (value, total) the mapping must be the identity. Returns 1 when it tied. */
static int check_one(const kc_topology *t, const kc_comm *c, kc_map_kind kind, const char *what)
{
    kc_map_opts o;
    kc_map_opts_default(&o);
    o.kind = kind;
    kc_map_result r;
    kc_err err = {0};
    kc_status s = kc_map(t, c, 1, &o, &r, &err);
    int tied = 0;
    if (s == KC_OK) {
        uint64_t total = 0;
        for (int i = 0; i < t->n; i++)
            total += r.comms[0].per_dim_before[i];
        tied = r.value == r.comms[0].value_before && r.total == total;
        if (tied && !maps_identity(&r, t->nodes))
            fail_msg("%s, kind %d: value %llu, total %llu as the identity's, yet the nodes are shuffled", what,
                     (int)kind, (unsigned long long)r.value, (unsigned long long)r.total);
    }
    kc_map_result_free(&r);
    return tied;
}

/* The example: bit-reverse on the 3-cube, reorder kind (contention 1 before
 * and after) gives the identity, not the order 0 2 1. */
static void test_bit_reverse_3cube(void **state)
{
    (void)state;
    kc_topology t;
    kc_comm c;
    assert_int_equal(kc_topology_hypercube(&t, 3, NULL), KC_OK);
    assert_int_equal(kc_comm_named(&c, &t, "bit-reverse", NULL), KC_OK);
    kc_map_opts o;
    kc_map_opts_default(&o);
    o.kind = KC_MAP_REORDER;
    kc_map_result r;
    assert_int_equal(kc_map(&t, &c, 1, &o, &r, NULL), KC_OK);
    assert_int_equal(r.value, 1);
    assert_true(maps_identity(&r, t.nodes));
    for (int i = 0; i < 3; i++)
        assert_int_equal(r.order[i], i);
    kc_map_result_free(&r);
}

/* Every built-in pattern (dimension arguments 0), every kind, hypercubes
 * of 3 to 6 dimensions and the 4-ary 2- and 3-cube. */
static void test_every_pattern(void **state)
{
    (void)state;
    kc_topology nets[6];
    int nn = 0;
    for (int n = 3; n <= 6; n++)
        assert_int_equal(kc_topology_hypercube(&nets[nn++], n, NULL), KC_OK);
    assert_int_equal(kc_topology_torus(&nets[nn++], 4, 2, KC_TIE_PLUS, NULL), KC_OK);
    assert_int_equal(kc_topology_torus(&nets[nn++], 4, 3, KC_TIE_PLUS, NULL), KC_OK);
    const kc_map_kind kinds[] = {KC_MAP_AUTO, KC_MAP_REORDER, KC_MAP_LINEAR};
    int ties = 0;
    for (int w = 0; w < nn; w++)
        for (size_t i = 0; kc_lcc_pattern(i); i++) {
            char name[64];
            snprintf(name, sizeof name, "%s", kc_lcc_pattern(i)->name);
            char *colon = strchr(name, ':');
            if (colon)
                snprintf(colon, sizeof name - (size_t)(colon - name), ":0");
            kc_comm c;
            if (kc_comm_named(&c, &nets[w], name, NULL) != KC_OK || !c.linear)
                continue;
            char what[96];
            snprintf(what, sizeof what, "%s on %d-ary %d-cube", name, nets[w].k, nets[w].n);
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
                ties += check_one(&nets[w], &c, kinds[k], what);
        }
    assert_true(ties > 0); /* the property was exercised */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bit_reverse_3cube),
        cmocka_unit_test(test_every_pattern),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
