/* k-ary n-cubes: routing, linear-constant communications, Theorem 1 against
 * exact counts (seed 002). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/contention.h"
#include "kcube/lcc.h"
#include "kcube/tcontention.h"

static void torus(kc_torus *t, int k, int n, int mesh, kc_tie tie)
{
    kc_err err = {0};
    assert_int_equal(kc_torus_init(t, k, n, mesh, tie, &err), KC_OK);
}

static void test_init_and_routing(void **state)
{
    kc_torus t;
    kc_err err = {0};
    assert_int_equal(kc_torus_init(&t, 3, 2, 0, KC_TIE_PLUS, &err), KC_EINVAL);
    assert_int_equal(kc_torus_init(&t, 512, 2, 0, KC_TIE_PLUS, &err), KC_EINVAL);
    assert_int_equal(kc_torus_init(&t, 256, 8, 0, KC_TIE_PLUS, &err), KC_ERANGE);
    torus(&t, 8, 2, 0, KC_TIE_PLUS);
    assert_int_equal(kc_torus_ring_move(&t, 0, 3), 3);
    assert_int_equal(kc_torus_ring_move(&t, 0, 5), -3);
    assert_int_equal(kc_torus_ring_move(&t, 0, 4), 4);
    assert_int_equal(kc_torus_ring_move(&t, 6, 1), 3);
    t.tie = KC_TIE_MINUS;
    assert_int_equal(kc_torus_ring_move(&t, 0, 4), -4);
    t.tie = KC_TIE_SPLIT;
    assert_int_equal(kc_torus_ring_move(&t, 0, 4), 4);
    assert_int_equal(kc_torus_ring_move(&t, 1, 5), -4);
    t.mesh = 1;
    assert_int_equal(kc_torus_ring_move(&t, 6, 1), -5);
    /* A route corrects dimension 0 first and has |moves| hops. */
    torus(&t, 4, 3, 0, KC_TIE_PLUS);
    uint64_t src = 0 + 4 * 1 + 16 * 3, dst = 2 + 4 * 1 + 16 * 0;
    assert_int_equal(kc_torus_route(&t, src, dst, NULL, NULL), 2 + 1);
    kc_tie tie;
    assert_int_equal(kc_tie_parse("split", &tie, &err), KC_OK);
    assert_int_equal(tie, KC_TIE_SPLIT);
    assert_int_equal(kc_tie_parse("left", &tie, &err), KC_EINVAL);
}

static void test_patterns(void **state)
{
    kc_tcomm c;
    kc_err err = {0};
    assert_int_equal(kc_tcomm_named(&c, 4, 4, "transpose", &err), KC_OK);
    assert_int_equal(c.kind, KC_TCOMM_PERMUTATION);
    assert_int_equal(c.a.e[0][2], 1); /* Example 1: y0 = x2 */
    assert_int_equal(c.a.e[3][1], 1);
    uint64_t s, d;
    kc_tcomm_message(&c, 1 + 4 * 2, &s, &d); /* (1,2,0,0) -> (0,0,1,2) */
    assert_true(s == 9 && d == 16 * 1 + 64 * 2);
    assert_int_equal(kc_tcomm_named(&c, 8, 3, "digit-complement", &err), KC_OK);
    kc_tcomm_message(&c, 0, &s, &d);
    assert_true(d == 511);
    assert_int_equal(kc_tcomm_named(&c, 4, 3, "butterfly:2", &err), KC_OK);
    kc_tcomm_message(&c, 0, &s, &d);
    assert_true(d == 16);
    assert_int_equal(kc_tcomm_named(&c, 4, 3, "digit-swap:2", &err), KC_OK);
    kc_tcomm_message(&c, 3, &s, &d);
    assert_true(d == 48);
    assert_int_equal(kc_tcomm_named(&c, 4, 3, "bit-reverse", &err), KC_OK); /* alias */
    assert_int_equal(kc_tcomm_named(&c, 4, 3, "transpose", &err), KC_EINVAL);
    assert_int_equal(kc_tcomm_named(&c, 4, 3, "butterfly:3", &err), KC_EINVAL);
    assert_int_equal(kc_tcomm_named(&c, 4, 3, "digit-swap:0", &err), KC_EINVAL);
    assert_int_equal(kc_tcomm_named(&c, 4, 3, "nonsense", &err), KC_EINVAL);
    assert_int_equal(kc_tcomm_named(&c, 6, 3, "transpose", &err), KC_EINVAL);
    assert_int_equal(kc_tcomm_named(&c, 4, 3, "uniform", &err), KC_OK);
    assert_int_equal(c.kind, KC_TCOMM_UNIFORM);
    /* Endpoint tables agree with single messages. */
    assert_int_equal(kc_tcomm_named(&c, 8, 3, "digit-reverse", &err), KC_OK);
    uint32_t src[512], dst[512];
    assert_int_equal(kc_tcomm_endpoints(&c, src, dst, NULL, &err), KC_OK);
    for (uint64_t m = 0; m < 512; m++) {
        kc_tcomm_message(&c, m, &s, &d);
        assert_true(src[m] == s && dst[m] == d);
    }
}

static void expect_dims(const kc_tcontention *c, const uint64_t *v)
{
    for (int i = 0; i < c->n; i++)
        assert_int_equal(c->per_dim[i], v[i]);
}

/* Example 3: transpose on the 4-ary 4-cube has T = 2, 8, 8, 2. */
static void test_example3(void **state)
{
    kc_torus t;
    torus(&t, 4, 4, 0, KC_TIE_PLUS);
    kc_tcomm c;
    kc_tcomm_named(&c, 4, 4, "transpose", NULL);
    kc_tcontention f, x, p;
    kc_tcontention_formula(&t, &c, &f);
    const uint64_t want[4] = {2, 8, 8, 2};
    expect_dims(&f, want);
    assert_true(f.exact);
    assert_int_equal(kc_tcontention_exact(&t, &c, NULL, &x, NULL, NULL), KC_OK);
    expect_dims(&x, want);
    assert_int_equal(kc_tcontention_paths(&t, &c, NULL, &p, NULL), KC_OK);
    expect_dims(&p, want);
    assert_int_equal(x.max, 8);
}

/* Section 4's degrees before mapping: 8 for transpose on the 16-ary 2-cube,
 * 4 for digit-reverse on the 8-ary 3-cube, 8 for both patterns on the 4-ary
 * 4-cube. */
static void test_section4_before(void **state)
{
    struct {
        int k, n;
        const char *name;
        uint64_t t;
    } cases[] = {{16, 2, "transpose", 8}, {8, 3, "digit-reverse", 4}, {4, 4, "transpose", 8}, {4, 4, "digit-reverse", 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kc_torus t;
        torus(&t, cases[i].k, cases[i].n, 0, KC_TIE_PLUS);
        kc_tcomm c;
        assert_int_equal(kc_tcomm_named(&c, cases[i].k, cases[i].n, cases[i].name, NULL), KC_OK);
        kc_tcontention f, x;
        kc_tcontention_formula(&t, &c, &f);
        assert_int_equal(kc_tcontention_exact(&t, &c, NULL, &x, NULL, NULL), KC_OK);
        assert_int_equal(x.max, cases[i].t);
        assert_int_equal(f.max, cases[i].t);
    }
}

/* A larger case: 16-ary 4-cube (65536 nodes), formula, exact, path walking. */
static void test_16ary_4cube(void **state)
{
    kc_torus t;
    torus(&t, 16, 4, 0, KC_TIE_PLUS);
    const char *names[] = {"transpose", "digit-reverse", "digit-complement", "butterfly:3"};
    for (int j = 0; j < 4; j++) {
        kc_tcomm c;
        assert_int_equal(kc_tcomm_named(&c, 16, 4, names[j], NULL), KC_OK);
        kc_tcontention f, x, p;
        kc_tcontention_formula(&t, &c, &f);
        assert_int_equal(kc_tcontention_exact(&t, &c, NULL, &x, NULL, NULL), KC_OK);
        assert_int_equal(kc_tcontention_paths(&t, &c, NULL, &p, NULL), KC_OK);
        for (int i = 0; i < 4; i++) {
            assert_int_equal(x.per_dim[i], p.per_dim[i]);
            assert_true(x.per_dim[i] >= f.lower[i] && x.per_dim[i] <= f.per_dim[i]);
        }
    }
}

/* Random (A, b): sparse or low-rank so that every case of Theorem 1 shows up. */
static void random_comm(kc_tcomm *c, const kc_gf *f, int n, kc_rng *r)
{
    kc_gfmat a;
    uint8_t b[KC_GFMAT_MAX] = {0};
    int style = (int)kc_rng_below(r, 4);
    if (style == 0) {
        kc_gfmat_random(f, &a, n, r);
    } else if (style == 1) {
        kc_gfmat_random_rank(f, &a, n, (int)kc_rng_below(r, (uint64_t)n + 1), r);
    } else {
        /* Sparse: most entries zero, some unit rows. */
        kc_gfmat_zero(&a, n);
        for (int i = 0; i < n; i++) {
            if (kc_rng_below(r, 4) == 0) {
                a.e[i][i] = 1;
                continue;
            }
            for (int j = 0; j < n; j++)
                if (kc_rng_below(r, 3) == 0)
                    a.e[i][j] = (uint8_t)kc_rng_below(r, (uint64_t)f->k);
        }
    }
    for (int i = 0; i < n; i++)
        if (kc_rng_below(r, 2))
            b[i] = (uint8_t)kc_rng_below(r, (uint64_t)f->k);
    int scatter = kc_rng_below(r, 3) == 0 && kc_gfmat_rank(f, &a) < n;
    assert_int_equal(kc_tcomm_init(c, f, &a, b, scatter, NULL), KC_OK);
}

/* Theorem 1 against the exact count on hundreds of random communications,
 * k in {4, 8, 16}, tori and meshes, every tie rule; the exact counter
 * against hop-by-hop path walking. */
static void test_theorem1_random(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 2002);
    const int ks[] = {4, 8, 16}, maxn[] = {5, 3, 3};
    int seen[6][2] = {{0}}; /* case x (torus plus, mesh) */
    int bounded_strict = 0, trials = 0;
    for (int trial = 0; trial < 900; trial++) {
        int which = trial % 3;
        int k = ks[which];
        int n = 1 + (int)kc_rng_below(&r, (uint64_t)maxn[which]);
        int mesh = kc_rng_below(&r, 4) == 0;
        kc_tie tie = (kc_tie)kc_rng_below(&r, 3);
        if (trial % 2 == 0)
            tie = KC_TIE_PLUS;
        kc_torus t;
        torus(&t, k, n, mesh, tie);
        kc_gf f;
        kc_gf_init(&f, k, NULL);
        kc_tcomm c;
        random_comm(&c, &f, n, &r);
        kc_tcontention fo, ex;
        kc_tcontention_formula(&t, &c, &fo);
        assert_int_equal(kc_tcontention_exact(&t, &c, NULL, &ex, NULL, NULL), KC_OK);
        trials++;
        for (int i = 0; i < n; i++) {
            if (tie == KC_TIE_PLUS)
                seen[fo.tcase[i]][mesh]++;
            if (ex.per_dim[i] < fo.lower[i] || ex.per_dim[i] > fo.per_dim[i]) {
                fprintf(stderr, "k=%d n=%d mesh=%d tie=%s kind=%s dim %d case %s: exact %llu, formula [%llu, %llu]\n",
                        k, n, mesh, kc_tie_name(tie), kc_tcomm_kind_name(c.kind), i, kc_tcase_name(fo.tcase[i]),
                        (unsigned long long)ex.per_dim[i], (unsigned long long)fo.lower[i],
                        (unsigned long long)fo.per_dim[i]);
                fail();
            }
            if (!fo.exact_dim[i] && ex.per_dim[i] < fo.per_dim[i])
                bounded_strict++;
            /* Every case is exact on tori and meshes (4b by the alpha/beta
             * analysis, mesh cases 2 and 3 by the entry/exit positions). */
            assert_true(fo.exact_dim[i]);
        }
        if (trial % 5 == 0) {
            kc_tcontention p;
            assert_int_equal(kc_tcontention_paths(&t, &c, NULL, &p, NULL), KC_OK);
            for (int i = 0; i < n; i++)
                assert_int_equal(p.per_dim[i], ex.per_dim[i]);
        }
    }
    /* Every case of Theorem 1 occurred on tori. */
    for (int tc = KC_TCASE_IDLE; tc <= KC_TCASE_4B; tc++) {
        print_message("case %-4s torus %4d  mesh %4d\n", kc_tcase_name((kc_tcase)tc), seen[tc][0], seen[tc][1]);
        assert_true(seen[tc][0] >= 5);
    }
    assert_int_equal(bounded_strict, 0);
    assert_true(trials == 900);
}

/* The closed form against the exact count on larger random networks
 * (up to 65536 nodes and 8 dimensions). */
static void test_formula_larger(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 2024);
    const int ks[] = {4, 8, 16}, ns[] = {8, 5, 4};
    for (int trial = 0; trial < 45; trial++) {
        int w = trial % 3, k = ks[w], n = ns[w];
        kc_torus t;
        torus(&t, k, n, trial % 4 == 0, (kc_tie)(trial % 3));
        kc_gf f;
        kc_gf_init(&f, k, NULL);
        kc_tcomm c;
        random_comm(&c, &f, n, &r);
        kc_tcontention fo, ex;
        kc_tcontention_formula(&t, &c, &fo);
        assert_int_equal(kc_tcontention_exact(&t, &c, NULL, &ex, NULL, NULL), KC_OK);
        for (int i = 0; i < n; i++) {
            assert_true(fo.exact_dim[i]);
            assert_int_equal(fo.per_dim[i], ex.per_dim[i]);
        }
    }
}

/* Case 4b, where Theorem 1 gives only 1..k/2 groups: y = x + 2 on the
 * 4-ring moves distance 2 (T = 2 with plus ties, 1 with split ties),
 * y = x + 1 moves one step (T = 1). kcube's exact 4b value (alpha, beta
 * analysis) matches the count in each case. */
static void test_case4b_examples(void **state)
{
    kc_torus t;
    kc_gf f;
    kc_gf_init(&f, 4, NULL);
    kc_gfmat a;
    kc_gfmat_identity(&a, 1);
    uint8_t b2[1] = {2}, b1[1] = {1};
    kc_tcomm c2, c1;
    kc_tcomm_init(&c2, &f, &a, b2, 0, NULL);
    kc_tcomm_init(&c1, &f, &a, b1, 0, NULL);
    kc_tcontention fo, ex;
    torus(&t, 4, 1, 0, KC_TIE_PLUS);
    kc_tcontention_formula(&t, &c2, &fo);
    assert_int_equal(fo.tcase[0], KC_TCASE_4B);
    assert_true(fo.exact_dim[0]);
    assert_int_equal(fo.per_dim[0], 2);
    kc_tcontention_exact(&t, &c2, NULL, &ex, NULL, NULL);
    assert_int_equal(ex.per_dim[0], 2);
    kc_tcontention_formula(&t, &c1, &fo);
    assert_int_equal(fo.per_dim[0], 1);
    kc_tcontention_exact(&t, &c1, NULL, &ex, NULL, NULL);
    assert_int_equal(ex.per_dim[0], 1);
    t.tie = KC_TIE_SPLIT;
    kc_tcontention_formula(&t, &c2, &fo);
    assert_int_equal(fo.per_dim[0], 1);
    kc_tcontention_exact(&t, &c2, NULL, &ex, NULL, NULL);
    assert_int_equal(ex.per_dim[0], 1);
    /* Example 4's mapped transpose: dimensions 2 and 3 are 4b, exactly 2. */
    kc_gfmat m;
    kc_gfmat_parse(&f, &m, "1000;0100;1010;0101", 4, NULL);
    kc_tcomm c;
    kc_tcomm_init(&c, &f, &m, NULL, 0, NULL);
    torus(&t, 4, 4, 0, KC_TIE_PLUS);
    kc_tcontention_formula(&t, &c, &fo);
    assert_int_equal(fo.tcase[2], KC_TCASE_4B);
    assert_true(fo.exact);
    assert_int_equal(fo.per_dim[2], 2);
    assert_int_equal(fo.per_dim[3], 2);
}

/* k = 2: the torus module agrees with the hypercube module. */
static void test_k2_matches_hypercube(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 22);
    kc_gf f;
    kc_gf_init(&f, 2, NULL);
    for (int trial = 0; trial < 300; trial++) {
        int n = 1 + (int)kc_rng_below(&r, 10);
        kc_bitmat bm;
        if (trial % 2)
            kc_bitmat_random(&bm, n, &r);
        else
            kc_bitmat_random_rank(&bm, n, (int)kc_rng_below(&r, (uint64_t)n + 1), &r);
        uint64_t bv = kc_rng_next(&r) & kc_mask(n);
        int scatter = kc_bitmat_rank(&bm) < n && kc_rng_below(&r, 2);
        kc_lcc l;
        assert_int_equal(kc_lcc_init(&l, &bm, bv, scatter, NULL), KC_OK);
        kc_gfmat a;
        uint8_t b[KC_GFMAT_MAX] = {0};
        kc_gfmat_zero(&a, n);
        for (int i = 0; i < n; i++) {
            b[i] = (uint8_t)((bv >> i) & 1);
            for (int j = 0; j < n; j++)
                a.e[i][j] = (uint8_t)kc_bitmat_get(&bm, i, j);
        }
        kc_tcomm c;
        assert_int_equal(kc_tcomm_init(&c, &f, &a, b, scatter, NULL), KC_OK);
        kc_torus t;
        torus(&t, 2, n, trial % 3 == 0, KC_TIE_PLUS);
        kc_contention hf, hx;
        kc_contention_formula(&l, &hf);
        assert_int_equal(kc_contention_exact(&l, &hx, NULL, NULL), KC_OK);
        kc_tcontention tf, tx;
        kc_tcontention_formula(&t, &c, &tf);
        assert_int_equal(kc_tcontention_exact(&t, &c, NULL, &tx, NULL, NULL), KC_OK);
        for (int i = 0; i < n; i++) {
            assert_int_equal(tx.per_dim[i], hx.per_dim[i]);
            assert_true(tf.exact_dim[i]); /* every case is exact when k = 2 */
            assert_int_equal(tf.per_dim[i], hf.per_dim[i]);
        }
    }
}

static void test_uniform_and_pairs(void **state)
{
    kc_torus t;
    torus(&t, 4, 3, 0, KC_TIE_SPLIT);
    kc_tcomm c;
    kc_tcomm_named(&c, 4, 3, "uniform", NULL);
    kc_rng r1, r2, r3;
    kc_rng_seed(&r1, 5);
    kc_rng_seed(&r2, 5);
    kc_rng_seed(&r3, 5);
    kc_tcontention ex, p, q;
    kc_err err = {0};
    assert_int_equal(kc_tcontention_exact(&t, &c, &r1, &ex, NULL, &err), KC_OK);
    assert_int_equal(kc_tcontention_paths(&t, &c, &r2, &p, &err), KC_OK);
    uint32_t src[64], dst[64];
    assert_int_equal(kc_tcomm_endpoints(&c, src, dst, &r3, &err), KC_OK);
    assert_int_equal(kc_tcontention_pairs(&t, src, dst, 64, &q, &err), KC_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ex.per_dim[i], p.per_dim[i]);
        assert_int_equal(ex.per_dim[i], q.per_dim[i]);
    }
    /* The stream advanced by one draw per node, as a table would. */
    assert_true(kc_rng_next(&r1) == kc_rng_next(&r3));
    assert_int_equal(kc_tcontention_exact(&t, &c, NULL, &ex, NULL, &err), KC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_and_routing),   cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_example3),           cmocka_unit_test(test_section4_before),
        cmocka_unit_test(test_16ary_4cube),        cmocka_unit_test(test_formula_larger),
        cmocka_unit_test(test_theorem1_random),    cmocka_unit_test(test_case4b_examples),
        cmocka_unit_test(test_k2_matches_hypercube), cmocka_unit_test(test_uniform_and_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
