/* CALMANT foundation (seed 003): embeddings, pipelined iterations,
 * decompositions, link loads against Theorems 1-4 and the torus counter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/calmant_embed.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_task.h"
#include "kcube/rng.h"
#include "kcube/tcontention.h"

static void geom(kc_calmant *g, int d, int c, int torus, kc_tie tie, kc_calmant_embedding e)
{
    kc_err err = {0};
    assert_int_equal(kc_calmant_init(g, d, c, torus, tie, e, &err), KC_OK);
}

static void test_init_errors(void **state)
{
    kc_calmant g;
    kc_err err = {0};
    assert_int_equal(kc_calmant_init(&g, 7, 2, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, &err), KC_EINVAL);
    assert_string_equal(err.param, "d");
    assert_int_equal(kc_calmant_init(&g, 3, 3, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, &err), KC_EINVAL);
    assert_string_equal(err.param, "d");
    assert_int_equal(kc_calmant_init(&g, 8, 4, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, &err), KC_EINVAL);
    assert_string_equal(err.param, "c");
    assert_int_equal(kc_calmant_init(&g, 32, 1, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, &err), KC_EINVAL);
    kc_calmant_task t = {3, 2};
    assert_int_equal(kc_calmant_task_check(t, 4, &err), KC_EINVAL);
    assert_string_equal(err.param, "task");
    assert_int_equal(kc_calmant_task_check((kc_calmant_task){0, 0}, 4, &err), KC_EINVAL);
    assert_int_equal(kc_calmant_task_check((kc_calmant_task){2, 2}, 4, &err), KC_OK);
}

/* Fig. 1: the 4-cube on a 4x4 mesh; process n = <n3 n2 n1 n0> sits at
 * column (n2 n0) and row (n3 n1). */
static void test_fig1(void **state)
{
    kc_calmant g;
    geom(&g, 4, 2, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD);
    for (uint64_t n = 0; n < 16; n++) {
        uint64_t m = kc_calmant_to_physical(&g, n);
        uint64_t col = (n & 1) | ((n >> 2) & 1) << 1, row = ((n >> 1) & 1) | ((n >> 3) & 1) << 1;
        assert_int_equal(kc_calmant_coord(&g, m, 0), col);
        assert_int_equal(kc_calmant_coord(&g, m, 1), row);
        assert_int_equal(kc_calmant_to_virtual(&g, m), n);
    }
}

/* The standard embedding's bit gathering against the definition, bit by
 * bit (bit l of coordinate j is process bit j + l c), on seeded random
 * processes for every valid d up to 30 and c = 1..3. */
static void test_embedding_bits(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 5);
    for (int c = 1; c <= 3; c++)
        for (int d = 2 * c; d <= KC_CALMANT_MAX_D; d += c) {
            kc_calmant g;
            geom(&g, d, c, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD);
            for (int r = 0; r < 200; r++) {
                uint64_t n = kc_rng_below(&rng, g.nodes), want = 0;
                for (int j = 0; j < c; j++)
                    for (int l = 0; l < d / c; l++)
                        want |= ((n >> (j + l * c)) & 1) << (j * (d / c) + l);
                assert_int_equal(kc_calmant_to_physical(&g, n), want);
                assert_int_equal(kc_calmant_to_virtual(&g, want), n);
            }
        }
}

/* Item 1: constant dilation D_i = 2^floor(i/c) on axis i mod c only (standard),
 * 2^(i mod b) on axis floor(i/b) (Matic); tori have the same dilations. */
static void test_dilation(void **state)
{
    static const kc_tie ties[] = {KC_TIE_PLUS, KC_TIE_MINUS, KC_TIE_SPLIT};
    for (int c = 1; c <= 3; c++)
        for (int d = 2 * c; d <= 12; d += c)
            for (int e = 0; e < 2; e++)
                for (int tor = 0; tor < 2; tor++)
                    for (int ti = 0; ti < (tor ? 3 : 1); ti++) {
                        kc_calmant g;
                        geom(&g, d, c, tor, ties[ti], (kc_calmant_embedding)e);
                        for (uint64_t n = 0; n < g.nodes; n++)
                            assert_int_equal(kc_calmant_to_virtual(&g, kc_calmant_to_physical(&g, n)), n);
                        for (int i = 0; i < d; i++) {
                            uint64_t dil;
                            int constant;
                            unsigned axes;
                            kc_calmant_check_dim(&g, i, &dil, &constant, &axes);
                            assert_true(constant);
                            assert_int_equal(dil, kc_calmant_dilation(&g, i));
                            assert_int_equal(axes, 1u << kc_calmant_axis(&g, i));
                            if (e == KC_CALMANT_STANDARD) {
                                assert_int_equal(dil, 1ULL << (i / c));
                                assert_int_equal(kc_calmant_axis(&g, i), i % c);
                            }
                        }
                    }
}

/* The geometry's ring moves equal kc_torus's wherever kc_torus applies. */
static void test_routing_matches_torus(void **state)
{
    static const kc_tie ties[] = {KC_TIE_PLUS, KC_TIE_MINUS, KC_TIE_SPLIT};
    for (int b = 2; b <= 8; b++)
        for (int tor = 0; tor < 2; tor++)
            for (int ti = 0; ti < 3; ti++) {
                kc_calmant g;
                kc_torus t;
                geom(&g, b, 1, tor, ties[ti], KC_CALMANT_STANDARD);
                assert_int_equal(kc_torus_init(&t, 1 << b, 1, !tor, ties[ti], NULL), KC_OK);
                for (unsigned s = 0; s < (1u << b); s++)
                    for (unsigned x = 0; x < (1u << b); x++)
                        assert_int_equal(kc_calmant_axis_move(&g, s, x), kc_torus_ring_move(&t, s, x));
            }
}

/* Iterations against the definition: packet p of dimension j goes in
 * iteration p + j. */
static void test_iterations(void **state)
{
    kc_calmant_iter it[64];
    size_t n;
    for (int d = 1; d <= 12; d++)
        for (int q = 1; q <= 20; q++) {
            assert_int_equal(kc_calmant_iterations(d, q, it, 64, &n, NULL), KC_OK);
            assert_int_equal(n, (size_t)(d + q - 1));
            for (size_t t = 0; t < n; t++) {
                int lo = (int)t - q + 1 > 0 ? (int)t - q + 1 : 0, hi = (int)t < d - 1 ? (int)t : d - 1;
                assert_int_equal(it[t].task.i, lo);
                assert_int_equal(it[t].task.m, hi - lo + 1);
            }
            int edge = (q < d ? q : d) - 1;
            assert_int_equal(it[0].phase, edge ? KC_CALMANT_PROLOGUE : KC_CALMANT_KERNEL);
            assert_int_equal(it[edge].phase, KC_CALMANT_KERNEL);
            assert_int_equal(it[n - 1 - (size_t)edge].phase, KC_CALMANT_KERNEL);
            if (edge)
                assert_int_equal(it[n - 1].phase, KC_CALMANT_EPILOGUE);
        }
    /* Fig. 2b (d = 3, Q = 4, deep): kernel <0,3> twice, first epilogue <1,2> */
    assert_int_equal(kc_calmant_iterations(3, 4, it, 64, &n, NULL), KC_OK);
    assert_int_equal(n, 6);
    assert_int_equal(it[2].task.m, 3);
    assert_int_equal(it[3].task.m, 3);
    assert_int_equal(it[4].task.i, 1);
    assert_int_equal(it[4].task.m, 2);
    kc_err err = {0};
    assert_int_equal(kc_calmant_iterations(4, 0, it, 64, &n, &err), KC_EINVAL);
    assert_string_equal(err.param, "degree");
    assert_int_equal(kc_calmant_iterations(4, 4, it, 3, &n, &err), KC_ERANGE);
}

static void test_decompose(void **state)
{
    kc_calmant_task out[32];
    size_t n = kc_calmant_decompose((kc_calmant_task){0, 6}, 1, out);
    assert_int_equal(n, 3); /* <4,2> <2,2> <0,2> */
    assert_int_equal(out[0].i, 4);
    assert_int_equal(out[1].i, 2);
    assert_int_equal(out[2].i, 0);
    n = kc_calmant_decompose((kc_calmant_task){0, 10}, 2, out);
    assert_int_equal(n, 3); /* <6,4> <2,4> <0,2> */
    assert_int_equal(out[0].i, 6);
    assert_int_equal(out[0].m, 4);
    assert_int_equal(out[1].i, 2);
    assert_int_equal(out[2].i, 0);
    assert_int_equal(out[2].m, 2);
    /* every decomposition covers the task's dimensions exactly once */
    for (int c = 1; c <= 3; c++)
        for (int i = 0; i < 10; i++)
            for (int m = 1; m <= 20; m++) {
                n = kc_calmant_decompose((kc_calmant_task){i, m}, c, out);
                int seen[64] = {0};
                for (size_t j = 0; j < n; j++) {
                    assert_true(out[j].m >= 1 && out[j].m <= 2 * c);
                    for (int k = out[j].i; k < out[j].i + out[j].m; k++)
                        seen[k]++;
                }
                for (int k = 0; k < 64; k++)
                    assert_int_equal(seen[k], k >= i && k < i + m);
            }
}

/* Reference: walk every message hop by hop into one counter per link. */
static uint64_t walk_max(const kc_calmant *g, kc_calmant_task t)
{
    uint64_t ports = 2 * (uint64_t)g->c;
    uint32_t *cnt = calloc(g->nodes * ports, sizeof *cnt);
    assert_non_null(cnt);
    kc_calmant_leg legs[KC_CALMANT_MAX_C];
    for (uint64_t n = 0; n < g->nodes; n++)
        for (int k = t.i; k < t.i + t.m; k++) {
            uint64_t at = kc_calmant_to_physical(g, n), to = kc_calmant_to_physical(g, n ^ (1ULL << k));
            int nl = kc_calmant_route(g, at, to, legs);
            for (int j = 0; j < nl; j++) {
                uint64_t stride = 1ULL << (legs[j].axis * g->b);
                for (uint64_t h = 0; h < legs[j].hops; h++) {
                    cnt[kc_calmant_link_index(g, at, legs[j].axis, legs[j].dir)]++;
                    uint64_t x = kc_calmant_coord(g, at, legs[j].axis);
                    uint64_t nx = (x + g->side + (uint64_t)(int64_t)legs[j].dir) % g->side;
                    at = at - x * stride + nx * stride;
                }
            }
            assert_int_equal(at, to);
        }
    uint64_t mx = 0;
    for (uint64_t l = 0; l < g->nodes * ports; l++)
        if (cnt[l] > mx)
            mx = cnt[l];
    free(cnt);
    return mx;
}

/* Item 3: Theorems 1 and 3 against the exact counter for ALL tasks on lines
 * and meshes up to d = 12, and the lower bound of Theorems 2 and 4. */
static void test_closed_forms(void **state)
{
    for (int c = 1; c <= 3; c++)
        for (int d = 2 * c; d <= 12; d += c) {
            kc_calmant g;
            geom(&g, d, c, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD);
            for (int i = 0; i < d; i++)
                for (int m = 1; i + m <= d; m++) {
                    kc_calmant_load L;
                    assert_int_equal(kc_calmant_load_exact(&g, (kc_calmant_task){i, m}, &L, NULL), KC_OK);
                    uint64_t f = c == 1 ? kc_calmant_load_line(i, m) : kc_calmant_load_mesh(i, m, c);
                    if (L.max_load != f)
                        fail_msg("d=%d c=%d <%d,%d>: exact %llu, closed form %llu", d, c, i, m,
                                 (unsigned long long)L.max_load, (unsigned long long)f);
                    assert_int_equal(L.lower_bound, kc_calmant_lower_bound(i, m, c));
                    assert_int_equal(L.lower_bound, f > (uint64_t)m ? f : (uint64_t)m);
                }
        }
    /* Theorem 1 spot values: <i,1> = 2^i, <i,2> = 2^(i+1), <0,6>_1 = 42 */
    assert_int_equal(kc_calmant_load_line(3, 1), 8);
    assert_int_equal(kc_calmant_load_line(3, 2), 16);
    assert_int_equal(kc_calmant_load_line(0, 6), 42);
}

/* The difference-array counter against the hop walk (meshes, tori, both
 * embeddings) and against kcube/torus.h's counter where k <= 256. */
static void test_counter_references(void **state)
{
    static const kc_tie ties[] = {KC_TIE_PLUS, KC_TIE_MINUS, KC_TIE_SPLIT};
    kc_rng rng;
    kc_rng_seed(&rng, 3003);
    for (int trial = 0; trial < 60; trial++) {
        int c = 1 + (int)kc_rng_below(&rng, 3);
        int b = 2 + (int)kc_rng_below(&rng, c == 1 ? 9 : (c == 2 ? 4 : 2));
        int d = b * c, tor = (int)kc_rng_below(&rng, 2);
        kc_tie tie = ties[kc_rng_below(&rng, 3)];
        kc_calmant_embedding e = (kc_calmant_embedding)kc_rng_below(&rng, 2);
        int i = (int)kc_rng_below(&rng, (uint64_t)d), m = 1 + (int)kc_rng_below(&rng, (uint64_t)(d - i));
        kc_calmant g;
        geom(&g, d, c, tor, tie, e);
        kc_calmant_task t = {i, m};
        kc_calmant_load L;
        assert_int_equal(kc_calmant_load_exact(&g, t, &L, NULL), KC_OK);
        assert_int_equal(L.max_load, walk_max(&g, t));
        if (b <= 8) { /* kc_torus: k <= 256 */
            kc_torus tt;
            assert_int_equal(kc_torus_init(&tt, 1 << b, c, !tor, tie, NULL), KC_OK);
            uint64_t cnt = g.nodes * (uint64_t)m;
            uint32_t *src = malloc(cnt * sizeof *src), *dst = malloc(cnt * sizeof *dst);
            assert_non_null(src);
            assert_non_null(dst);
            uint64_t j = 0;
            for (uint64_t n = 0; n < g.nodes; n++)
                for (int k = i; k < i + m; k++) {
                    src[j] = (uint32_t)kc_calmant_to_physical(&g, n);
                    dst[j++] = (uint32_t)kc_calmant_to_physical(&g, n ^ (1ULL << k));
                }
            kc_tcontention tc;
            assert_int_equal(kc_tcontention_pairs(&tt, src, dst, cnt, &tc, NULL), KC_OK);
            assert_int_equal(tc.max, L.max_load);
            free(src);
            free(dst);
        }
    }
}

/* Tori: loads by the counter. The top dimension (distance side/2) meets
 * the tie rule; with split ties the wraparound halves the line's load. */
static void test_torus_loads(void **state)
{
    kc_calmant g, m;
    kc_calmant_load L, Lm;
    geom(&m, 4, 1, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD);
    geom(&g, 4, 1, 1, KC_TIE_PLUS, KC_CALMANT_STANDARD);
    /* <3,1>_1 on 16 nodes: line load 8; torus with + ties: every node sends
     * 8 hops +: 8 messages on each + link; split ties: 4 */
    assert_int_equal(kc_calmant_load_exact(&m, (kc_calmant_task){3, 1}, &Lm, NULL), KC_OK);
    assert_int_equal(Lm.max_load, 8);
    assert_int_equal(kc_calmant_load_exact(&g, (kc_calmant_task){3, 1}, &L, NULL), KC_OK);
    assert_int_equal(L.max_load, 8);
    geom(&g, 4, 1, 1, KC_TIE_SPLIT, KC_CALMANT_STANDARD);
    assert_int_equal(kc_calmant_load_exact(&g, (kc_calmant_task){3, 1}, &L, NULL), KC_OK);
    assert_int_equal(L.max_load, 4);
    /* a torus never loads a link more than the mesh does under split ties */
    for (int c = 1; c <= 2; c++)
        for (int d = 2 * c; d <= 10; d += c) {
            geom(&g, d, c, 1, KC_TIE_SPLIT, KC_CALMANT_STANDARD);
            for (int i = 0; i < d; i++)
                for (int mm = 1; i + mm <= d; mm++) {
                    assert_int_equal(kc_calmant_load_exact(&g, (kc_calmant_task){i, mm}, &L, NULL), KC_OK);
                    assert_true(L.max_load <= kc_calmant_load_mesh(i, mm, c));
                }
        }
}

/* --task I,M: accepted exactly when kc_calmant_task_check accepts, for
 * every I, M in a range around d's; malformed text fails with "task". */
static void test_task_parse(void **state)
{
    (void)state;
    for (int d = 1; d <= 8; d++)
        for (int i = -2; i <= d + 1; i++)
            for (int m = -1; m <= d + 2; m++) {
                char buf[32];
                snprintf(buf, sizeof buf, "%d,%d", i, m);
                kc_calmant_task t = {-9, -9};
                kc_err err = {0}, err2 = {0};
                kc_status want = kc_calmant_task_check((kc_calmant_task){i, m}, d, &err2);
                assert_int_equal(kc_calmant_task_parse(buf, d, &t, &err), want);
                if (want == KC_OK)
                    assert_true(t.i == i && t.m == m);
                else
                    assert_string_equal(err.param, "task");
            }
    const char *bad[] = {"", "1", "1,", ",2", "1,2,", " 1,2", "1,2 ", "1;2", "a,2", "1,b", "--1,2", "2147483648,1",
                         "1,99999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        kc_err err = {0};
        kc_calmant_task t;
        assert_int_equal(kc_calmant_task_parse(bad[k], 8, &t, &err), KC_EINVAL);
        assert_string_equal(err.param, "task");
    }
    kc_calmant_task t;
    assert_int_equal(kc_calmant_task_parse("+3,-0", 0, &t, NULL), KC_EINVAL); /* M < 1 even without d */
    assert_int_equal(kc_calmant_task_parse("+3,+40", 0, &t, NULL), KC_OK);     /* d < 1: syntax only */
    assert_true(t.i == 3 && t.m == 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_errors),     cmocka_unit_test(test_fig1),
        cmocka_unit_test(test_embedding_bits),
        cmocka_unit_test(test_dilation),        cmocka_unit_test(test_routing_matches_torus),
        cmocka_unit_test(test_iterations),      cmocka_unit_test(test_decompose),
        cmocka_unit_test(test_closed_forms),    cmocka_unit_test(test_counter_references),
        cmocka_unit_test(test_torus_loads),     cmocka_unit_test(test_task_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
