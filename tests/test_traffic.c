/* Traffic input for the general mapper (kcube/traffic.h, traffic_gen.h;
 * the general mapper's inputs): traffic files and Scotch graphs read strictly
 * (every bad token with its line and column, ranges, limits), GOAL message
 * lists, unions of named communications with their groups, and the
 * generators checked against hand counts and brute force. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcube/comm.h"
#include "kcube/goal.h"
#include "kcube/lcc.h"
#include "kcube/traffic.h"
#include "kcube/traffic_gen.h"

typedef kc_status (*reader_fn)(kc_traffic *, kc_reader *, kc_err *);

/* Read `text` with fn over `ranks` ranks; the traffic stays in *t. */
static kc_status read_text(reader_fn fn, const char *text, uint64_t ranks, const kc_reader_limits *lim,
                           kc_traffic *t, kc_err *err)
{
    kc_reader *r;
    assert_int_equal(kc_traffic_init(t, ranks, err), KC_OK);
    kc_status s = kc_reader_open_mem(&r, text, strlen(text), "test traffic", "traffic_file", lim, err);
    if (s)
        return s;
    s = fn(t, r, err);
    kc_reader_close(r);
    return s;
}

static void expect_fail(reader_fn fn, const char *text, uint64_t ranks, const char *msg)
{
    kc_traffic t;
    kc_err err = {0};
    assert_int_equal(read_text(fn, text, ranks, NULL, &t, &err), KC_EINVAL);
    assert_string_equal(err.param, "traffic_file");
    if (!strstr(err.msg, msg))
        fail_msg("for '%s': got '%s', expected '%s'", text, err.msg, msg);
    kc_traffic_free(&t);
}

static void expect_message(const kc_traffic *t, size_t m, uint32_t src, uint32_t dst, uint64_t bytes)
{
    assert_true(m < t->count);
    assert_int_equal(t->src[m], src);
    assert_int_equal(t->dst[m], dst);
    assert_int_equal(t->bytes[m], bytes);
}

static void test_traffic_file(void **state)
{
    (void)state;
    kc_traffic t;
    kc_err err = {0};
    const char *good = "# src dst bytes\n0 1 100\n\n2,3,5\n 1 , 0\t18446744073709551615 # the largest\r\n15 15 0\n";
    assert_int_equal(read_text(kc_traffic_read, good, 16, NULL, &t, &err), KC_OK);
    assert_int_equal(t.count, 4);
    expect_message(&t, 0, 0, 1, 100);
    expect_message(&t, 1, 2, 3, 5);
    expect_message(&t, 2, 1, 0, UINT64_MAX);
    expect_message(&t, 3, 15, 15, 0);
    assert_null(t.group);
    kc_traffic_free(&t);
    /* The pairs-file form: no byte count is one message of weight 1. */
    assert_int_equal(read_text(kc_traffic_read, "0 1\n2 3 7\n", 16, NULL, &t, &err), KC_OK);
    assert_int_equal(t.count, 2);
    expect_message(&t, 0, 0, 1, 1);
    expect_message(&t, 1, 2, 3, 7);
    kc_traffic_free(&t);

    expect_fail(kc_traffic_read, "0 1 2\n0 1 1.5\n", 16, "test traffic, line 2, column 5: '1.5' is not a whole number");
    expect_fail(kc_traffic_read, "0 1 -3\n", 16, "line 1, column 5: '-3' is not a byte count (0..18446744073709551615)");
    expect_fail(kc_traffic_read, "0 1 18446744073709551616\n", 16, "line 1, column 5: '18446744073709551616' is too large");
    expect_fail(kc_traffic_read, "0 16 1\n", 16, "line 1, column 3: '16' is not a rank (0..15)");
    expect_fail(kc_traffic_read, "-1 0 1\n", 16, "line 1, column 1: '-1' is not a rank (0..15)");
    expect_fail(kc_traffic_read, "0 1 x\n", 16, "column 5: 'x' is not a whole number");
    expect_fail(kc_traffic_read, "0 1 1e3\n", 16, "'1e3' is not a whole number");
    expect_fail(kc_traffic_read, "0;1 2\n", 16, "'0;1' is not a whole number");
    expect_fail(kc_traffic_read, "\n0\n", 16, "line 2: expected 2 to 3 numbers (source destination [bytes]), found fewer");
    expect_fail(kc_traffic_read, "0 1 2 3\n", 16, "found more");
    expect_fail(kc_traffic_read, "# only a comment\n\n", 16, "test traffic has no messages");
    expect_fail(kc_traffic_read, "0 1 2\n0\0 1 2\n", 16, "line 2");
}

/* Endless or oversized input stops at the reader's limits. */
static void test_limits(void **state)
{
    (void)state;
    kc_traffic t;
    kc_err err = {0};
    kc_reader_limits lim = {1000, 0};
    assert_int_equal(kc_traffic_init(&t, 16, &err), KC_OK);
    assert_int_equal(kc_traffic_read_path(&t, "/dev/zero", &lim, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 1 longer than 1000 bytes"));
    kc_traffic_free(&t);

    size_t n = 100000;
    char *big = malloc(6 * n + 1);
    for (size_t i = 0; i < n; i++)
        memcpy(big + 6 * i, "0 1 1\n", 6);
    big[6 * n] = '\0';
    kc_reader_limits small = {0, 1000};
    assert_int_equal(read_text(kc_traffic_read, big, 16, &small, &t, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "larger than 1000 bytes"));
    kc_traffic_free(&t);
    assert_int_equal(read_text(kc_traffic_read, big, 16, NULL, &t, &err), KC_OK);
    assert_int_equal(t.count, n);
    kc_traffic_free(&t);
    free(big);
}

static void test_grf(void **state)
{
    (void)state;
    kc_traffic t;
    kc_err err = {0};
    /* A path 0 - 1 - 2, base 0, no weights, on 4 ranks (rank 3 silent). */
    const char *path = "0\n3 4\n0 000\n1 1\n2 0 2\n1 1\n";
    assert_int_equal(read_text(kc_traffic_read_grf, path, 4, NULL, &t, &err), KC_OK);
    assert_int_equal(t.count, 4);
    expect_message(&t, 0, 0, 1, 1);
    expect_message(&t, 1, 1, 0, 1);
    expect_message(&t, 2, 1, 2, 1);
    expect_message(&t, 3, 2, 1, 1);
    kc_traffic_free(&t);
    /* Base 1, labels, edge and vertex weights, vertices out of order and
     * tokens spread over lines as Scotch allows. */
    const char *labelled = "0\n3 4\n1 111\n3 7 1 50 2\n1 7 1\n20 2\n2 7 2 50 3 20 1\n";
    assert_int_equal(read_text(kc_traffic_read_grf, labelled, 3, NULL, &t, &err), KC_OK);
    assert_int_equal(t.count, 4);
    expect_message(&t, 0, 2, 1, 50);
    expect_message(&t, 1, 0, 1, 20);
    expect_message(&t, 2, 1, 2, 50);
    expect_message(&t, 3, 1, 0, 20);
    kc_traffic_free(&t);
    /* Edge weights only, base 1 without labels. */
    assert_int_equal(read_text(kc_traffic_read_grf, "0 2 2 1 010 1 9 2 1 9 1", 2, NULL, &t, &err), KC_OK);
    expect_message(&t, 0, 0, 1, 9);
    expect_message(&t, 1, 1, 0, 9);
    kc_traffic_free(&t);

    expect_fail(kc_traffic_read_grf, "1\n3 4\n", 4, "line 1, column 1: '1' is not a graph file version (0..0)");
    expect_fail(kc_traffic_read_grf, "0\n5 4\n", 4, "line 2, column 1: '5' is not a vertex count (0..4)");
    expect_fail(kc_traffic_read_grf, "0\n3 4\n2 000\n", 4, "line 3, column 1: '2' is not a base (0..1)");
    expect_fail(kc_traffic_read_grf, "0\n3 4\n0 012\n", 4, "line 3, column 3: '012' is not a flag field");
    expect_fail(kc_traffic_read_grf, "0\n3 4\n0 0\n1 1\n2 0 3\n1 1\n", 4, "line 5, column 5: '3' is not a neighbour");
    expect_fail(kc_traffic_read_grf, "0\n3 4\n1 0\n1 0\n", 4, "line 4, column 3: '0' is not a neighbour (1..3)");
    expect_fail(kc_traffic_read_grf, "0\n3 5\n0 0\n1 1\n2 0 2\n1 1\n", 4, "the degrees add up to 4 arcs, the header says 5");
    expect_fail(kc_traffic_read_grf, "0\n3 4\n0 0\n1 1\n2 0 2\n1 1\n7\n", 4, "line 7, column 1: '7' follows the last vertex");
    expect_fail(kc_traffic_read_grf, "0\n3 4\n0 0\n1 1\n2 0 2\n", 4, "ends early: expected a degree");
    expect_fail(kc_traffic_read_grf, "0\n2 2\n1 100\n1 1 2\n1 1 1\n", 4,
                "line 5, column 1: '1' labels a second vertex (labels must be a permutation)");
    expect_fail(kc_traffic_read_grf, "0\n2 2\n0 010\n1 -4 1\n", 4, "'-4' is not a weight of an edge");
    expect_fail(kc_traffic_read_grf, "0\n0 0\n0 000\n", 4, "'0' vertices: the graph is empty");
}

static void test_read_path(void **state)
{
    (void)state;
    const char *texts[3] = {"0 1 10\n", "0\n2 2\n0 000\n1 1\n1 0\n",
                            "num_ranks 2\nrank 0 {\nl1: send 12b to 1 tag 0\n}\nrank 1 {\nl1: recv 12b from 0 tag 0\n}\n"};
    const char *ext[3] = {".txt", ".grf", ".goal"};
    uint64_t want_count[3] = {1, 2, 1}, want_bytes[3] = {10, 1, 12};
    char dir[] = "/tmp/kc_traffic_XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "%s/in%s", dir, ext[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(texts[i], f);
        fclose(f);
        kc_traffic t;
        kc_err err = {0};
        assert_int_equal(kc_traffic_init(&t, 4, &err), KC_OK);
        kc_status s = kc_traffic_read_path(&t, path, NULL, &err);
        if (s)
            fail_msg("%s: %s", ext[i], err.msg);
        assert_int_equal(t.count, want_count[i]);
        expect_message(&t, 0, 0, 1, want_bytes[i]);
        kc_traffic_free(&t);
        /* Too few ranks for the file. */
        assert_int_equal(kc_traffic_init(&t, 1, &err), KC_OK);
        assert_int_equal(kc_traffic_read_path(&t, path, NULL, &err), KC_EINVAL);
        kc_traffic_free(&t);
        unlink(path);
    }
    rmdir(dir);
}

static void test_goal(void **state)
{
    (void)state;
    kc_goal g;
    kc_traffic t;
    kc_err err = {0};
    const char *text = "num_ranks 3\nrank 0 {\nl1: send 8b to 1 tag 0\nl2: send 5b to 2 tag 0\nl3: calc 100\n}\n"
                       "rank 1 {\nl1: recv 8b from 0 tag 0\nl2: send 3b to 2 tag 1\n}\n"
                       "rank 2 {\nl1: recv 5b from 0 tag 0\nl2: recv 3b from 1 tag 1\n}\n";
    assert_int_equal(kc_goal_read_mem(&g, text, strlen(text), "test", NULL, 0, &err), KC_OK);
    assert_int_equal(kc_goal_validate(&g, 4, NULL, &err), KC_OK);
    assert_int_equal(kc_traffic_init(&t, 4, &err), KC_OK);
    assert_int_equal(kc_traffic_from_goal(&t, &g, &err), KC_OK);
    assert_int_equal(t.count, 3);
    expect_message(&t, 0, 0, 1, 8);
    expect_message(&t, 1, 0, 2, 5);
    expect_message(&t, 2, 1, 2, 3);
    kc_traffic_free(&t);
    /* The same schedule on 2 ranks: the send to rank 2 is out of range. */
    assert_int_equal(kc_traffic_init(&t, 2, &err), KC_OK);
    assert_int_equal(kc_traffic_from_goal(&t, &g, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 4: send from rank 0 to 2, outside 0..1"));
    kc_traffic_free(&t);
    kc_goal_free(&g);
}

/* Named sets on the 8-cube: message counts, groups, and each group equal
 * to its pattern's messages. */
static void test_sets(void **state)
{
    (void)state;
    kc_topology topo;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&topo, 8, &err), KC_OK);
    const char *groups[4][10] = {{"transpose"},
                                 {"transpose", "bit-reverse"},
                                 {"transpose", "bit-reverse", "reverse-flip"},
                                 {"bit-reverse", "butterfly:0", "butterfly:1", "butterfly:2", "butterfly:3",
                                  "butterfly:4", "butterfly:5", "butterfly:6", "butterfly:7"}};
    uint32_t want_groups[4] = {1, 2, 3, 9};
    for (int set = 0; set < 4; set++) {
        kc_traffic t;
        assert_int_equal(kc_traffic_init(&t, 256, &err), KC_OK);
        assert_int_equal(kc_traffic_gen_set(&t, &topo, (kc_traffic_set)set, 1, &err), KC_OK);
        assert_int_equal(t.groups, want_groups[set]);
        assert_int_equal(t.count, 256 * want_groups[set]);
        for (uint32_t gi = 0; gi < t.groups; gi++) {
            kc_lcc l;
            assert_int_equal(kc_lcc_named(&l, groups[set][gi], 8, &err), KC_OK);
            for (uint64_t m = 0; m < 256; m++) {
                uint64_t s, d;
                kc_lcc_message(&l, m, &s, &d);
                size_t at = gi * 256 + m;
                assert_int_equal(t.group[at], gi);
                expect_message(&t, at, (uint32_t)s, (uint32_t)d, 1);
            }
        }
        kc_traffic_free(&t);
    }
    int v;
    assert_int_equal(kc_names_parse(&kc_traffic_set_names, "transpose+bit-reverse+reverse-flip", &v), 0);
    assert_int_equal(v, KC_TSET_TRANSPOSE_BITREV_RFLIP);

    /* A group begun after ungrouped messages: those become group 0. */
    kc_traffic t;
    assert_int_equal(kc_traffic_init(&t, 256, &err), KC_OK);
    assert_int_equal(kc_traffic_add(&t, 1, 2, 3, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_patterns(&t, &topo, "shuffle+nonsense", 1, 0, &err), KC_EINVAL);
    assert_int_equal(t.count, 257);
    assert_int_equal(t.groups, 2);
    assert_int_equal(t.group[0], 0);
    assert_int_equal(t.group[256], 1);
    assert_int_equal(kc_traffic_gen_patterns(&t, &topo, "", 1, 0, &err), KC_EINVAL);
    kc_traffic_free(&t);
}

/* A GF(k) communication on a 4-ary 3-cube equals kc_tcomm_message; uniform
 * needs a stream; the ranks must match the communication's nodes. */
static void test_comm_torus(void **state)
{
    (void)state;
    kc_topology topo;
    kc_comm c;
    kc_traffic t;
    kc_err err = {0};
    assert_int_equal(kc_topology_torus(&topo, 4, 3, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_comm_named(&c, &topo, "digit-reverse", &err), KC_OK);
    assert_int_equal(kc_traffic_init(&t, 64, &err), KC_OK);
    assert_int_equal(kc_traffic_add_comm(&t, &c, 9, NULL, &err), KC_OK);
    assert_int_equal(t.count, 64);
    for (uint64_t m = 0; m < 64; m++) {
        uint64_t s, d;
        kc_tcomm_message(&c.t, m, &s, &d);
        expect_message(&t, m, (uint32_t)s, (uint32_t)d, 9);
    }
    assert_int_equal(kc_comm_named(&c, &topo, "uniform", &err), KC_OK);
    assert_int_equal(kc_traffic_add_comm(&t, &c, 9, NULL, &err), KC_EINVAL);
    kc_rng rng;
    kc_rng_seed(&rng, 3);
    assert_int_equal(kc_traffic_add_comm(&t, &c, 9, &rng, &err), KC_OK);
    assert_int_equal(t.count, 128);
    kc_traffic_free(&t);
    assert_int_equal(kc_traffic_init(&t, 32, &err), KC_OK);
    assert_int_equal(kc_traffic_add_comm(&t, &c, 9, &rng, &err), KC_EINVAL);
    assert_string_equal(err.param, "traffic");
    kc_traffic_free(&t);
}

/* Halo exchanges: hand counts, then every message checked against grid
 * coordinates and the total against a brute-force neighbour count. */
static uint64_t halo_brute(const int *shape, int dims, int periodic)
{
    uint64_t procs = 1, total = 0;
    for (int i = 0; i < dims; i++)
        procs *= (uint64_t)shape[i];
    for (uint64_t r = 0; r < procs; r++) {
        uint64_t rest = r;
        for (int i = 0; i < dims; i++) {
            int c = (int)(rest % (uint64_t)shape[i]);
            rest /= (uint64_t)shape[i];
            if (shape[i] == 1)
                continue;
            total += (uint64_t)(periodic || c > 0) + (uint64_t)(periodic || c + 1 < shape[i]);
        }
    }
    return total;
}

static void check_halo(const int *shape, int dims, int periodic, uint64_t ranks, uint64_t want)
{
    kc_traffic t;
    kc_err err = {0};
    assert_int_equal(kc_traffic_init(&t, ranks, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_halo(&t, shape, dims, periodic, 64, &err), KC_OK);
    assert_int_equal(t.count, want);
    assert_int_equal(t.count, halo_brute(shape, dims, periodic));
    for (size_t m = 0; m < t.count; m++) {
        uint64_t a = t.src[m], b = t.dst[m];
        int differ = 0;
        for (int i = 0; i < dims; i++) {
            uint64_t s = (uint64_t)shape[i], ca = a % s, cb = b % s;
            a /= s;
            b /= s;
            if (ca == cb)
                continue;
            differ++;
            uint64_t d = (cb + s - ca) % s;
            assert_true(d == 1 || d == s - 1);
            if (!periodic)
                assert_true(ca + 1 == cb || cb + 1 == ca);
        }
        assert_int_equal(differ, 1);
        assert_int_equal(t.bytes[m], 64);
    }
    kc_traffic_free(&t);
}

static void test_halo(void **state)
{
    (void)state;
    int s2[2] = {4, 3}, s3[3] = {2, 3, 4}, line[1] = {5}, flat[3] = {4, 1, 4};
    check_halo(s2, 2, 0, 12, 2 * (3 * 3 + 4 * 2));
    check_halo(s2, 2, 1, 16, 4 * 12);
    check_halo(s3, 3, 0, 24, 2 * (1 * 3 * 4 + 2 * 2 * 4 + 2 * 3 * 3));
    check_halo(s3, 3, 1, 24, 6 * 24);
    check_halo(line, 1, 0, 5, 8);
    check_halo(flat, 3, 1, 16, 4 * 16);
    int s16[2] = {16, 16};
    check_halo(s16, 2, 1, 256, 1024);
    kc_traffic t;
    kc_err err = {0};
    assert_int_equal(kc_traffic_init(&t, 11, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_halo(&t, s2, 2, 0, 1, &err), KC_EINVAL);
    assert_string_equal(err.param, "shape");
    assert_int_equal(kc_traffic_gen_halo(&t, s2, 0, 0, 1, &err), KC_EINVAL);
    kc_traffic_free(&t);
}

static void check_random(uint64_t P, uint64_t deg, uint64_t seed)
{
    kc_traffic a, b;
    kc_err err = {0};
    assert_int_equal(kc_traffic_init(&a, P, &err), KC_OK);
    assert_int_equal(kc_traffic_init(&b, P, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_random(&a, deg, 7, seed, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_random(&b, deg, 7, seed, &err), KC_OK);
    assert_int_equal(a.count, P * deg);
    assert_memory_equal(a.dst, b.dst, a.count * sizeof *a.dst);
    unsigned char *seen = calloc(P, 1);
    for (uint64_t r = 0; r < P; r++) {
        memset(seen, 0, P);
        for (uint64_t j = 0; j < deg; j++) {
            size_t m = r * deg + j;
            assert_int_equal(a.src[m], r);
            assert_true(a.dst[m] != r && a.dst[m] < P);
            assert_false(seen[a.dst[m]]);
            seen[a.dst[m]] = 1;
        }
    }
    free(seen);
    kc_traffic_free(&b);
    assert_int_equal(kc_traffic_init(&b, P, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_random(&b, deg, 7, seed + 1, &err), KC_OK);
    if (deg > 0 && deg < P - 1)
        assert_memory_not_equal(a.dst, b.dst, a.count * sizeof *a.dst);
    kc_traffic_free(&a);
    kc_traffic_free(&b);
}

static void test_random_and_all(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        check_random(64, 6, seed);
        check_random(64, 50, seed);
        check_random(64, 63, seed);
        check_random(4096, 6, seed);
    }
    kc_traffic t;
    kc_err err = {0};
    assert_int_equal(kc_traffic_init(&t, 64, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_random(&t, 64, 1, 1, &err), KC_EINVAL);
    assert_string_equal(err.param, "deg");
    kc_traffic_free(&t);
    assert_int_equal(kc_traffic_init(&t, 8, &err), KC_OK);
    assert_int_equal(kc_traffic_gen_all_to_all(&t, 3, &err), KC_OK);
    assert_int_equal(t.count, 56);
    for (size_t m = 0; m < t.count; m++)
        assert_true(t.src[m] != t.dst[m]);
    expect_message(&t, 0, 0, 1, 3);
    expect_message(&t, 55, 7, 6, 3);
    kc_traffic_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traffic_file), cmocka_unit_test(test_limits),
        cmocka_unit_test(test_grf),          cmocka_unit_test(test_read_path),
        cmocka_unit_test(test_goal),         cmocka_unit_test(test_sets),
        cmocka_unit_test(test_comm_torus),   cmocka_unit_test(test_halo),
        cmocka_unit_test(test_random_and_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
