/* Generated traffic inputs: stencils (against kc_traffic_gen_halo and
 * hand counts), collectives (message counts and byte totals), and phases
 * (a traffic file's "# phase" lines and a GOAL schedule's kcube-phase
 * lines become named groups; kc_traffic_ungroup pools them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/bits.h"
#include "kcube/goal.h"
#include "kcube/traffic.h"
#include "kcube/traffic_gen.h"

static void test_star_equals_halo(void **state)
{
    (void)state;
    static const int shapes[][3] = {{8, 4, 0}, {4, 4, 4}, {2, 8, 0}, {1, 16, 0}, {2, 2, 4}};
    static const int dims[] = {2, 3, 2, 2, 3};
    for (int c = 0; c < 5; c++)
        for (int periodic = 0; periodic <= 1; periodic++) {
            kc_traffic a, b;
            kc_err err = {0};
            assert_int_equal(kc_traffic_init(&a, 64, &err), KC_OK);
            assert_int_equal(kc_traffic_init(&b, 64, &err), KC_OK);
            assert_int_equal(kc_traffic_gen_halo(&a, shapes[c], dims[c], periodic, 5, &err), KC_OK);
            assert_int_equal(kc_traffic_gen_stencil(&b, dims[c] == 2 ? KC_STENCIL_5PT : KC_STENCIL_7PT, shapes[c],
                                                    dims[c], periodic, KC_GRID_AXIS0_FASTEST, 5, &err),
                             KC_OK);
            assert_int_equal(a.count, b.count);
            for (size_t m = 0; m < a.count; m++) {
                assert_int_equal(a.src[m], b.src[m]);
                assert_int_equal(a.dst[m], b.dst[m]);
                assert_int_equal(a.bytes[m], b.bytes[m]);
            }
            kc_traffic_free(&a);
            kc_traffic_free(&b);
        }
}

/* Box stencils: an open a x b grid has (a-1)b + a(b-1) axis edges and
 * 2(a-1)(b-1) diagonals, each sent both ways; a periodic one with sides >= 3
 * sends 8 messages per process (26 in 3-D). */
static void test_box_counts(void **state)
{
    (void)state;
    kc_err err = {0};
    kc_traffic t;
    int s2[2] = {5, 6}, s3[3] = {3, 4, 5};
    assert_int_equal(kc_traffic_init(&t, 60, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_stencil(&t, KC_STENCIL_9PT, s2, 2, 0, KC_GRID_AXIS0_FASTEST, 1, &err), KC_OK);
    assert_int_equal(t.count, 2 * ((4 * 6 + 5 * 5) + 2 * 4 * 5));
    kc_traffic_free(&t);
    assert_int_equal(kc_traffic_init(&t, 60, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_stencil(&t, KC_STENCIL_9PT, s2, 2, 1, KC_GRID_AXIS0_SLOWEST, 1, &err), KC_OK);
    assert_int_equal(t.count, 30 * 8);
    kc_traffic_free(&t);
    assert_int_equal(kc_traffic_init(&t, 60, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_stencil(&t, KC_STENCIL_27PT, s3, 3, 1, KC_GRID_AXIS0_FASTEST, 1, &err), KC_OK);
    assert_int_equal(t.count, 60 * 26);
    /* every message goes to a neighbour in the grid's torus sense */
    for (size_t m = 0; m < t.count; m++) {
        int a = (int)t.src[m], b = (int)t.dst[m];
        int da = (a % 3 - b % 3 + 3) % 3, db = (a / 3 % 4 - b / 3 % 4 + 4) % 4, dc = (a / 12 - b / 12 + 5) % 5;
        assert_true(da <= 1 || da == 2);
        assert_true(db <= 1 || db == 3);
        assert_true(dc <= 1 || dc == 4);
        assert_true(a != b);
    }
    kc_traffic_free(&t);
    /* the wrong number of axes */
    assert_int_equal(kc_traffic_init(&t, 60, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_stencil(&t, KC_STENCIL_7PT, s2, 2, 0, KC_GRID_AXIS0_FASTEST, 1, &err), KC_EINVAL);
    assert_string_equal(err.param, "stencil");
    kc_traffic_free(&t);
}

static void test_collectives(void **state)
{
    (void)state;
    kc_err err = {0};
    kc_traffic t;
    /* ring: P messages, 2(P-1) chunks each; in all 2(P-1) B bytes leave the P ranks */
    for (uint64_t P = 2; P <= 13; P++)
        for (uint64_t B = 0; B <= 40; B += 7) {
            assert_int_equal(kc_traffic_init(&t, P, &err), KC_OK);
            assert_int_equal(kc_traffic_gen_collective(&t, KC_COLL_ALLREDUCE_RING, B, &err), KC_OK);
            assert_int_equal(t.count, P);
            uint64_t sum = 0;
            for (size_t m = 0; m < t.count; m++) {
                assert_int_equal(t.dst[m], (t.src[m] + 1) % P);
                sum += t.bytes[m];
            }
            assert_int_equal(sum, 2 * (P - 1) * B);
            kc_traffic_free(&t);
        }
    assert_int_equal(kc_traffic_init(&t, 16, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_collective(&t, KC_COLL_ALLREDUCE_RECDOUB, 9, &err), KC_OK);
    assert_int_equal(t.count, 16 * 4);
    for (size_t m = 0; m < t.count; m++)
        assert_int_equal(kci_popcount32(t.src[m] ^ t.dst[m]), 1);
    kc_traffic_free(&t);
    assert_int_equal(kc_traffic_init(&t, 12, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_collective(&t, KC_COLL_ALLREDUCE_RECDOUB, 9, &err), KC_EINVAL);
    assert_int_equal(kc_traffic_gen_collective(&t, KC_COLL_BCAST_BINOMIAL, 9, &err), KC_OK);
    assert_int_equal(t.count, 11);
    unsigned char got[12] = {1};
    for (size_t m = 0; m < t.count; m++) {
        assert_true(got[t.src[m]]); /* a sender already has the data */
        assert_false(got[t.dst[m]]);
        got[t.dst[m]] = 1;
    }
    kc_traffic_free(&t);
    assert_int_equal(kc_traffic_init(&t, 6, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_collective(&t, KC_COLL_ALLTOALL_PAIRS, 3, &err), KC_OK);
    assert_int_equal(t.count, 30);
    kc_traffic_free(&t);
}

static void test_file_phases(void **state)
{
    (void)state;
    static const char text[] = "0 1 5\n# a comment\n  #  phase  one \n1 2\n#phase two\n2 3\n# phase one\n3 0 7\n";
    kc_err err = {0};
    kc_traffic t;
    kc_reader *r;
    assert_int_equal(kc_traffic_init(&t, 4, &err), KC_OK);
    assert_int_equal(kc_reader_open_mem(&r, text, strlen(text), "test traffic", "traffic_file", NULL, &err), KC_OK);
    assert_int_equal(kc_traffic_read(&t, r, &err), KC_OK);
    kc_reader_close(r);
    assert_int_equal(t.count, 4);
    assert_int_equal(t.groups, 3);
    assert_null(kc_traffic_group_name(&t, 0));
    assert_string_equal(kc_traffic_group_name(&t, 1), "one");
    assert_string_equal(kc_traffic_group_name(&t, 2), "two");
    static const uint32_t want[] = {0, 1, 2, 1};
    for (int m = 0; m < 4; m++)
        assert_int_equal(t.group[m], want[m]);
    kc_traffic_ungroup(&t);
    assert_null(t.group);
    assert_int_equal(t.groups, 0);
    assert_int_equal(kc_traffic_add(&t, 0, 1, 1, &err), KC_OK);
    kc_traffic_free(&t);

    static const char bad[] = "0 1\n# phase a b\n";
    assert_int_equal(kc_traffic_init(&t, 4, &err), KC_OK);
    assert_int_equal(kc_reader_open_mem(&r, bad, strlen(bad), "test traffic", "traffic_file", NULL, &err), KC_OK);
    assert_int_equal(kc_traffic_read(&t, r, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 2"));
    kc_reader_close(r);
    kc_traffic_free(&t);
}

static void test_goal_phases(void **state)
{
    (void)state;
    static const char text[] = "num_ranks 2\nrank 0 {\nsend 4b to 1\n// kcube-phase x\nsend 4b to 1 tag 1\n}\n"
                               "rank 1 {\nrecv 4b from 0\n// kcube-phase x\nrecv 4b from 0 tag 1\n}\n";
    kc_err err = {0};
    kc_goal g;
    assert_int_equal(kc_goal_read_mem(&g, text, strlen(text), "test goal", NULL, 16, &err), KC_OK);
    kc_traffic t;
    assert_int_equal(kc_traffic_init(&t, 2, &err), KC_OK);
    assert_int_equal(kc_traffic_from_goal(&t, &g, &err), KC_OK);
    assert_int_equal(t.count, 2);
    assert_int_equal(t.groups, 2);
    assert_string_equal(kc_traffic_group_name(&t, 0), "-");
    assert_string_equal(kc_traffic_group_name(&t, 1), "x");
    kc_traffic_free(&t);
    kc_goal_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_star_equals_halo), cmocka_unit_test(test_box_counts),
        cmocka_unit_test(test_collectives),      cmocka_unit_test(test_file_phases),
        cmocka_unit_test(test_goal_phases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
