/* The synchronous step engine: counts and conflicts, cube and torus. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kcube/stepnet.h"

static void test_counts(void **state)
{
    kc_stepnet_topo t;
    kc_stepnet net;
    assert_int_equal(kc_stepnet_topo_cube(&t, 3, NULL), KC_OK);
    assert_int_equal(kc_stepnet_init(&net, &t, KC_STEPNET_ALL_PORT, NULL), KC_OK);
    /* step 1: every node sends 1 element on every port */
    for (uint64_t x = 0; x < 8; x++)
        for (int d = 0; d < 3; d++)
            assert_int_equal(kc_stepnet_send(&net, x, d, 1, NULL), KC_OK);
    kc_stepnet_end_step(&net);
    kc_stepnet_end_step(&net); /* empty */
    assert_int_equal(kc_stepnet_send(&net, 0, 0, 3, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send(&net, 1, 0, 2, NULL), KC_OK); /* the other direction: fine */
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.steps, 3);
    assert_int_equal(net.st.startups, 2);
    assert_int_equal(net.st.transfers, 1 + 3);
    assert_int_equal(net.st.elements, 24 + 5);
    assert_int_equal(net.st.conflicts, 0);
    /* a second message on a directed link in one step */
    assert_int_equal(kc_stepnet_send(&net, 5, 2, 1, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send(&net, 5, 2, 1, NULL), KC_OK);
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.conflicts, 1);
    char buf[200];
    assert_non_null(strstr(kc_stepnet_conflict_text(&net, buf, sizeof buf), "step 4 at node 5 port 2"));
    kc_err err = {0};
    assert_int_equal(kc_stepnet_send(&net, 8, 0, 1, &err), KC_EINVAL);
    assert_int_equal(kc_stepnet_send(&net, 0, 3, 1, &err), KC_EINVAL);
    kc_stepnet_free(&net);
}

static void test_one_port(void **state)
{
    kc_stepnet_topo t;
    kc_stepnet net;
    assert_int_equal(kc_stepnet_topo_cube(&t, 2, NULL), KC_OK);
    assert_int_equal(kc_stepnet_init(&net, &t, KC_STEPNET_ONE_PORT, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send(&net, 0, 0, 1, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send(&net, 1, 0, 1, NULL), KC_OK); /* exchange: one send, one receive each */
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.conflicts, 0);
    assert_int_equal(kc_stepnet_send(&net, 0, 0, 1, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send(&net, 0, 1, 1, NULL), KC_OK); /* node 0 sends twice */
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.conflicts, 1);
    assert_int_equal(kc_stepnet_send(&net, 1, 0, 1, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send(&net, 2, 1, 1, NULL), KC_OK); /* node 0 receives twice */
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.conflicts, 2);
    assert_int_equal(net.first_kind, KC_STEPNET_SEND_TWICE);
    kc_stepnet_free(&net);
}

/* The 4x4 mesh through kc_torus. */
static void mesh4(kc_torus *tor, kc_stepnet_topo *t)
{
    assert_int_equal(kc_torus_init(tor, 4, 2, 1, KC_TIE_PLUS, NULL), KC_OK);
    assert_int_equal(kc_stepnet_topo_torus(t, tor, NULL), KC_OK);
}

/* A 4x4 mesh: the ends of a line have no outward link. */
static void test_mesh(void **state)
{
    kc_torus tor;
    kc_stepnet_topo t;
    kc_stepnet net;
    mesh4(&tor, &t);
    assert_int_equal(t.ports, 4);
    assert_int_equal(t.neighbor(t.ctx, 0, 0), 1);
    assert_int_equal(t.neighbor(t.ctx, 0, 2), 4);
    assert_int_equal(t.neighbor(t.ctx, 0, 1), KC_STEPNET_NO_LINK);
    assert_int_equal(t.neighbor(t.ctx, 3, 0), KC_STEPNET_NO_LINK);
    assert_int_equal(kc_stepnet_init(&net, &t, KC_STEPNET_ONE_PORT, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send(&net, 0, 1, 1, NULL), KC_EINVAL);
    assert_int_equal(kc_stepnet_send(&net, 5, 3, 2, NULL), KC_OK);
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.transfers, 2);
    kc_stepnet_free(&net);
    /* a k = 4 torus wraps */
    assert_int_equal(kc_torus_init(&tor, 4, 2, 0, KC_TIE_PLUS, NULL), KC_OK);
    assert_int_equal(kc_stepnet_topo_torus(&t, &tor, NULL), KC_OK);
    assert_int_equal(t.neighbor(t.ctx, 3, 0), 0);
    assert_int_equal(t.neighbor(t.ctx, 0, 1), 3);
}

/* Multi-hop DOR paths on a 4x4 mesh: every link of a path is held for the
 * step; one-port counts only the two ends. */
static void test_paths(void **state)
{
    kc_torus tor;
    kc_stepnet_topo t;
    kc_stepnet net;
    mesh4(&tor, &t);
    assert_int_equal(kc_stepnet_init(&net, &t, KC_STEPNET_ONE_PORT, NULL), KC_OK);
    /* 0 -> 3 then up to 15 (axis 0 +3, axis 1 +3), and 12 -> 13 -> 14: disjoint links */
    kc_stepnet_leg a[] = {{0, 3}, {2, 3}}, b[] = {{0, 2}};
    assert_int_equal(kc_stepnet_send_path(&net, 0, a, 2, 1, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send_path(&net, 12, b, 1, 1, NULL), KC_OK);
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.conflicts, 0);
    assert_int_equal(net.st.messages, 2);
    /* 1 -> 2 passes through node 1 -> 2 which 0 -> 3 also uses */
    kc_stepnet_leg c[] = {{0, 1}}, e[] = {{0, 3}};
    assert_int_equal(kc_stepnet_send_path(&net, 0, e, 1, 1, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send_path(&net, 1, c, 1, 1, NULL), KC_OK);
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.conflicts, 1);
    assert_int_equal(net.first_kind, KC_STEPNET_LINK_TWICE);
    /* intermediate nodes are not ports' users: 0 -> 2 and 1 -> 0 share no link and no end */
    kc_stepnet_leg f[] = {{0, 2}}, g[] = {{1, 1}};
    assert_int_equal(kc_stepnet_send_path(&net, 0, f, 1, 1, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send_path(&net, 1, g, 1, 1, NULL), KC_OK);
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.conflicts, 1);
    /* two messages into node 3: a receive conflict */
    kc_stepnet_leg h[] = {{0, 1}};
    assert_int_equal(kc_stepnet_send_path(&net, 2, h, 1, 1, NULL), KC_OK);
    assert_int_equal(kc_stepnet_send_path(&net, 7, (kc_stepnet_leg[]){{3, 1}}, 1, 1, NULL), KC_OK);
    kc_stepnet_end_step(&net);
    assert_int_equal(net.st.conflicts, 2);
    /* off the mesh, no legs, zero hops */
    kc_err err = {0};
    kc_stepnet_leg off[] = {{0, 4}}, zero[] = {{0, 0}};
    assert_int_equal(kc_stepnet_send_path(&net, 0, off, 1, 1, &err), KC_EINVAL);
    assert_int_equal(kc_stepnet_send_path(&net, 0, a, 0, 1, &err), KC_EINVAL);
    assert_int_equal(kc_stepnet_send_path(&net, 0, zero, 1, 1, &err), KC_EINVAL);
    kc_stepnet_free(&net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_one_port),
        cmocka_unit_test(test_mesh),
        cmocka_unit_test(test_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
