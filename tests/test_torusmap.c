/* Mappings on k-ary n-cubes: Theorem 3/4 linear mappings (Examples 4 and 5,
 * Section 4), Corollaries 2 and 3, node maps, best reordering, search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kcube/mapset.h"
#include "kcube/perm.h"
#include "kcube/torusmap.h"

static void parse(const kc_gf *f, kc_gfmat *a, const char *text, int n)
{
    kc_err err = {0};
    assert_int_equal(kc_gfmat_parse(f, a, text, n, &err), KC_OK);
}

static kc_tcontention exact_of(const kc_torus *t, const kc_tcomm *c)
{
    kc_tcontention x;
    assert_int_equal(kc_tcontention_exact(t, c, NULL, &x, NULL, NULL), KC_OK);
    return x;
}

static void test_example4(void **state)
{
    kc_torus t;
    kc_torus_init(&t, 4, 4, 0, KC_TIE_PLUS, NULL);
    kc_tcomm c, mc;
    kc_tcomm_named(&c, 4, 4, "transpose", NULL);
    kc_tmap m;
    assert_int_equal(kc_tmap_linear(&c, 1, 0, &m, NULL), KC_OK);
    kc_gfmat want, wa;
    parse(&c.f, &want, "1010;0101;0010;0001", 4);
    parse(&c.f, &wa, "1000;0100;1010;0101", 4);
    assert_true(kc_gfmat_equal(&m.q, &want));
    assert_true(kc_gfmat_equal(&m.qinv, &want)); /* Q = Q^-1 */
    assert_int_equal(m.kind, KC_TMAP_LINEAR);
    assert_int_equal(kc_tmap_apply(&m, &c, &mc, NULL), KC_OK);
    assert_true(kc_gfmat_equal(&mc.a, &wa));
    kc_tcontention x = exact_of(&t, &mc), f;
    const uint64_t after[4] = {0, 0, 2, 2};
    for (int i = 0; i < 4; i++)
        assert_int_equal(x.per_dim[i], after[i]);
    kc_tcontention_formula(&t, &mc, &f);
    assert_int_equal(f.max, 2);
    assert_int_equal(exact_of(&t, &c).max, 8);
}

/* Integer arithmetic mod 4 on 4 x 4 matrices, for the comparison below. */
static void mul_mod4(int out[4][4], int a[4][4], int b[4][4])
{
    int r[4][4] = {{0}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int l = 0; l < 4; l++)
                r[i][j] = (r[i][j] + a[i][l] * b[l][j]) % 4;
    memcpy(out, r, sizeof r);
}

/* Example 5 is consistent with GF(4) = GF(2)[x]/(x^2 + x + 1) and digit d =
 * the polynomial with the bits of d (2 = x, 3 = x + 1): the paper's Q gives
 * exactly its (1') and (2'). The other labelling (2 = x + 1, 3 = x) gives
 * the same matrices, since swapping 2 and 3 is the Frobenius automorphism
 * a -> a^2. Integers mod 4 are not consistent: there Q^2 != I although
 * the example states Q = Q^-1, and Q A Q^-1 mod 4 differs from (1'). */
static void test_example5_arithmetic(void **state)
{
    kc_gf f;
    kc_gf_init(&f, 4, NULL);
    kc_gfmat q, tr, dr, want1, want2, out;
    parse(&f, &q, "1 0 1 1;0 1 2 1;0 0 1 0;0 0 0 1", 4);
    parse(&f, &tr, "0010;0001;1000;0100", 4);
    parse(&f, &dr, "0001;0010;0100;1000", 4);
    parse(&f, &want1, "1 1 2 0;2 1 0 2;1 0 1 1;0 1 2 1", 4);
    parse(&f, &want2, "1 1 3 1;1 2 3 3;0 1 2 1;1 0 1 1", 4);
    kc_gfmat sq;
    kc_gfmat_mul(&f, &sq, &q, &q);
    assert_true(kc_gfmat_is_identity(&sq));
    assert_int_equal(kc_gfmat_conjugate(&f, &out, &q, &tr, NULL), KC_OK);
    assert_true(kc_gfmat_equal(&out, &want1));
    assert_int_equal(kc_gfmat_conjugate(&f, &out, &q, &dr, NULL), KC_OK);
    assert_true(kc_gfmat_equal(&out, &want2));

    /* The other labelling: relabel 2 <-> 3, compute, relabel back. */
    static const uint8_t swap23[4] = {0, 1, 3, 2};
    kc_gfmat qs = q, ts = tr;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            qs.e[i][j] = swap23[q.e[i][j]];
            ts.e[i][j] = swap23[tr.e[i][j]];
        }
    kc_gfmat_conjugate(&f, &out, &qs, &ts, NULL);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            out.e[i][j] = swap23[out.e[i][j]];
    assert_true(kc_gfmat_equal(&out, &want1));

    /* Integers mod 4. Q is unitriangular, so Q^-1 = I - N + N^2 - N^3 with
     * N = Q - I. */
    int qi[4][4], n1[4][4], n2[4][4], n3[4][4], tq[4][4], t[4][4], q2[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            tq[i][j] = q.e[i][j];
            n1[i][j] = q.e[i][j] - (i == j);
            t[i][j] = tr.e[i][j];
        }
    mul_mod4(q2, tq, tq);
    assert_int_equal(q2[0][2], 2); /* Q^2 != I */
    mul_mod4(n2, n1, n1);
    mul_mod4(n3, n2, n1);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            qi[i][j] = (((i == j) - n1[i][j] + n2[i][j] - n3[i][j]) % 4 + 4) % 4;
    mul_mod4(t, tq, t);
    mul_mod4(t, t, qi);
    int same = 1;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            same &= t[i][j] == want1.e[i][j];
    assert_false(same);
}

/* Example 5 and Section 4 (Map-G): transpose and digit-reverse on the 4-ary
 * 4-cube go from 8 to 2 both with the paper's Q and with ours. */
static void test_example5_contention(void **state)
{
    kc_torus t;
    kc_torus_init(&t, 4, 4, 0, KC_TIE_PLUS, NULL);
    kc_tcomm both[2], mc;
    kc_tcomm_named(&both[0], 4, 4, "transpose", NULL);
    kc_tcomm_named(&both[1], 4, 4, "digit-reverse", NULL);
    kc_gfmat q;
    parse(&both[0].f, &q, "1 0 1 1;0 1 2 1;0 0 1 0;0 0 0 1", 4);
    kc_tmap paper, ours;
    assert_int_equal(kc_tmap_from_matrix(&paper, &both[0].f, &q, NULL), KC_OK);
    assert_int_equal(kc_tmap_linear(both, 2, 0, &ours, NULL), KC_OK);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(exact_of(&t, &both[r]).max, 8);
        kc_tmap_apply(&paper, &both[r], &mc, NULL);
        assert_int_equal(exact_of(&t, &mc).max, 2);
        kc_tmap_apply(&ours, &both[r], &mc, NULL);
        assert_int_equal(exact_of(&t, &mc).max, 2);
        /* Theorem 4's property: leading minors of full rank. */
        for (int i = 1; i <= 4; i++)
            assert_int_equal(kc_gfmat_rank_sub(&mc.f, &mc.a, kc_gf_low(i), kc_gf_low(i)), i);
    }
    uint64_t v, tot;
    assert_int_equal(kc_tmap_evaluate(&t, both, 2, &ours, &v, &tot, NULL, NULL), KC_OK);
    assert_int_equal(v, 2);
}

/* Section 4 (Map-S): T = 8 for transpose on the 16-ary 2-cube and T = 4 for
 * digit-reverse on the 8-ary 3-cube, before and after the mapping. */
static void test_section4_single(void **state)
{
    struct {
        int k, n;
        const char *name;
        uint64_t t;
    } cases[] = {{16, 2, "transpose", 8}, {8, 3, "digit-reverse", 4}, {4, 4, "transpose", 2}, {4, 4, "digit-reverse", 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kc_torus t;
        kc_torus_init(&t, cases[i].k, cases[i].n, 0, KC_TIE_PLUS, NULL);
        kc_tcomm c, mc;
        kc_tcomm_named(&c, cases[i].k, cases[i].n, cases[i].name, NULL);
        kc_tmap m;
        assert_int_equal(kc_tmap_linear(&c, 1, 0, &m, NULL), KC_OK);
        kc_tmap_apply(&m, &c, &mc, NULL);
        assert_int_equal(exact_of(&t, &mc).max, cases[i].t);
    }
}

static int leading_ok(const kc_tcomm *c)
{
    /* Theorem 3/4: rank of the leading i x i block is i for i <= rank A;
     * for scatters the trailing blocks (the mirrored condition). */
    int n = c->a.n;
    for (int i = 1; i <= c->rank; i++) {
        uint64_t s = c->kind == KC_TCOMM_SCATTER ? kc_gf_low(n) & ~kc_gf_low(n - i) : kc_gf_low(i);
        if (c->kind == KC_TCOMM_PERMUTATION || c->kind == KC_TCOMM_GATHER || c->kind == KC_TCOMM_SCATTER)
            if (kc_gfmat_rank_sub(&c->f, &c->a, s, s) != i)
                return 0;
    }
    return 1;
}

static void random_comm(kc_tcomm *c, const kc_gf *f, int n, int kind, kc_rng *r)
{
    kc_gfmat a;
    uint8_t b[KC_GFMAT_MAX] = {0};
    if (kind == KC_TCOMM_PERMUTATION)
        kc_gfmat_random_nonsingular(f, &a, n, r);
    else
        kc_gfmat_random_rank(f, &a, n, (int)kc_rng_below(r, (uint64_t)n), r);
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)kc_rng_below(r, (uint64_t)f->k);
    assert_int_equal(kc_tcomm_init(c, f, &a, b, kind == KC_TCOMM_SCATTER, NULL), KC_OK);
}

/* Theorem 3 with Corollaries 2 and 3 on random inputs, and Theorem 2 checked
 * by replaying the node map: the mapped messages (Qx, Qy) counted as plain
 * pairs give the same T_i as (QAQ^-1, Qb). */
static void test_theorem3_random(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 3003);
    const int ks[] = {4, 8, 16}, maxn[] = {5, 3, 3};
    for (int trial = 0; trial < 240; trial++) {
        int w = trial % 3, k = ks[w];
        int n = 1 + (int)kc_rng_below(&r, (uint64_t)maxn[w]);
        int kind = (int)kc_rng_below(&r, n > 1 ? 3 : 1);
        kc_gf f;
        kc_gf_init(&f, k, NULL);
        kc_tcomm c, mc;
        random_comm(&c, &f, n, kind, &r);
        kc_tmap m;
        kc_err err = {0};
        assert_int_equal(kc_tmap_linear(&c, 1, 0, &m, &err), KC_OK);
        assert_int_equal(kc_tmap_apply(&m, &c, &mc, NULL), KC_OK);
        assert_true(leading_ok(&mc));
        kc_torus t;
        kc_torus_init(&t, k, n, 0, KC_TIE_PLUS, NULL);
        kc_tcontention x = exact_of(&t, &mc);
        uint64_t bound = (uint64_t)k / 2;
        for (int e = 0; e < n - 1 - c.rank; e++)
            bound *= (uint64_t)k;
        assert_true(x.max <= bound); /* Corollary 2 (rank n) / Corollary 3 */
        /* Replay through the node arrays. */
        kc_nodemap nm;
        assert_int_equal(kc_tmap_nodemap(&m, &nm, NULL), KC_OK);
        uint32_t *src = malloc(t.nodes * sizeof *src), *dst = malloc(t.nodes * sizeof *dst);
        assert_int_equal(kc_tcomm_endpoints(&c, src, dst, NULL, NULL), KC_OK);
        for (uint64_t j = 0; j < t.nodes; j++) {
            assert_int_equal(nm.to_virtual[nm.to_physical[j]], j);
            assert_int_equal(nm.to_physical[j], kc_tmap_to_physical(&m, j));
            src[j] = nm.to_physical[src[j]];
            dst[j] = nm.to_physical[dst[j]];
        }
        kc_tcontention p;
        assert_int_equal(kc_tcontention_pairs(&t, src, dst, t.nodes, &p, NULL), KC_OK);
        for (int i = 0; i < n; i++)
            assert_int_equal(p.per_dim[i], x.per_dim[i]);
        /* kc_tmap_endpoints gives the same physical messages. */
        uint32_t *ps = malloc(t.nodes * sizeof *ps), *pd = malloc(t.nodes * sizeof *pd);
        assert_int_equal(kc_tmap_endpoints(&m, &c, ps, pd, NULL, NULL), KC_OK);
        assert_memory_equal(ps, src, t.nodes * sizeof *ps);
        assert_memory_equal(pd, dst, t.nodes * sizeof *pd);
        free(ps);
        free(pd);
        uint64_t v;
        kc_tcontention per[1];
        assert_int_equal(kc_tmap_evaluate(&t, &c, 1, &m, &v, NULL, per, NULL), KC_OK);
        assert_int_equal(v, x.max);
        free(src);
        free(dst);
        kc_nodemap_free(&nm);
    }
}

/* Theorem 4: up to k-1 random communications at once. */
static void test_theorem4_random(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 4004);
    const int ks[] = {4, 8, 16};
    for (int trial = 0; trial < 150; trial++) {
        int k = ks[trial % 3];
        int n = 2 + (int)kc_rng_below(&r, 4);
        int count = 1 + (int)kc_rng_below(&r, (uint64_t)(k - 1 < 6 ? k - 1 : 6));
        int scat = kc_rng_below(&r, 3) == 0;
        kc_gf f;
        kc_gf_init(&f, k, NULL);
        kc_tcomm comms[8];
        for (int j = 0; j < count; j++) {
            int kind = (int)kc_rng_below(&r, 2) ? KC_TCOMM_PERMUTATION : (scat ? KC_TCOMM_SCATTER : KC_TCOMM_GATHER);
            random_comm(&comms[j], &f, n, kind, &r);
        }
        kc_tmap m;
        kc_err err = {0};
        assert_int_equal(kc_tmap_linear(comms, count, 0, &m, &err), KC_OK);
        for (int j = 0; j < count; j++) {
            kc_tcomm mc;
            kc_tmap_apply(&m, &comms[j], &mc, NULL);
            assert_true(leading_ok(&mc));
        }
    }
}

static void test_mapping_errors(void **state)
{
    kc_gf f;
    kc_gf_init(&f, 4, NULL);
    kc_err err = {0};
    kc_tcomm c[4];
    kc_tcomm_named(&c[0], 4, 4, "transpose", NULL);
    kc_tcomm_named(&c[1], 4, 4, "digit-reverse", NULL);
    kc_tcomm_named(&c[2], 4, 4, "digit-complement", NULL);
    kc_tcomm_named(&c[3], 4, 4, "butterfly:1", NULL);
    kc_tmap m;
    assert_int_equal(kc_tmap_linear(c, 4, 0, &m, &err), KC_ERANGE);
    assert_non_null(strstr(err.msg, "k-1 = 3"));
    /* Beyond the limit the construction may still succeed. */
    kc_status s = kc_tmap_linear(c, 4, 1, &m, &err);
    assert_true(s == KC_OK || s == KC_EINVAL);
    kc_gfmat q;
    parse(&f, &q, "1 1 0 0;1 1 0 0;0 0 1 0;0 0 0 1", 4);
    assert_int_equal(kc_tmap_from_matrix(&m, &f, &q, &err), KC_ESINGULAR);
    assert_non_null(strstr(err.msg, "singular"));
    int bad[4] = {0, 1, 1, 3};
    assert_int_equal(kc_tmap_from_order(&m, &f, bad, 4, &err), KC_EINVAL);
    kc_tcomm u;
    kc_tcomm_named(&u, 4, 4, "uniform", NULL);
    assert_int_equal(kc_tmap_linear(&u, 1, 0, &m, &err), KC_EINVAL);
    /* Over GF(2) no linear mapping serves both the swap and the all-ones
     * gather (checked by hand over the four admissible first steps). */
    kc_gf f2;
    kc_gf_init(&f2, 2, NULL);
    kc_tcomm pair[2];
    kc_tcomm_named(&pair[0], 2, 2, "transpose", NULL);
    kc_gfmat ones;
    parse(&f2, &ones, "11;11", 2);
    kc_tcomm_init(&pair[1], &f2, &ones, NULL, 0, NULL);
    assert_int_equal(kc_tmap_linear(pair, 2, 0, &m, &err), KC_ERANGE);
    assert_int_equal(kc_tmap_linear(pair, 2, 1, &m, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "no linear mapping"));
    /* Scatters and gathers together. */
    kc_gfmat a;
    kc_gfmat_zero(&a, 4);
    a.e[0][0] = 1;
    kc_tcomm g, sc, two[2];
    kc_tcomm_init(&g, &f, &a, NULL, 0, NULL);
    kc_tcomm_init(&sc, &f, &a, NULL, 1, NULL);
    two[0] = g;
    two[1] = sc;
    assert_int_equal(kc_tmap_linear(two, 2, 0, &m, &err), KC_EINVAL);
}

/* Idle dimensions stay idle. */
static void test_idle_kept(void **state)
{
    kc_gf f;
    kc_gf_init(&f, 8, NULL);
    kc_gfmat a;
    parse(&f, &a, "0 0 1 0;0 1 0 0;1 0 0 0;0 0 0 1", 4);
    kc_tcomm c, mc;
    kc_tcomm_init(&c, &f, &a, NULL, 0, NULL);
    kc_tmap m;
    assert_int_equal(kc_tmap_linear(&c, 1, 0, &m, NULL), KC_OK);
    kc_tmap_apply(&m, &c, &mc, NULL);
    /* Dimensions 1 and 3 were idle; they go last and stay idle (and the
     * mapping may make more dimensions idle, as in Example 4). */
    assert_int_equal(kc_tcomm_idle_dims(&mc) & 12, 12);
}

/* The best reordering by the dynamic programme equals the best of all n!
 * orders by exact evaluation. */
static void test_reorder_exhaustive(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 5005);
    for (int trial = 0; trial < 40; trial++) {
        int k = trial % 2 ? 4 : 8, n = k == 4 ? 4 : 3;
        int mesh = trial % 5 == 0;
        kc_gf f;
        kc_gf_init(&f, k, NULL);
        kc_torus t;
        kc_torus_init(&t, k, n, mesh, trial % 3 == 0 ? KC_TIE_SPLIT : KC_TIE_PLUS, NULL);
        int count = 1 + (int)kc_rng_below(&r, 3);
        kc_tcomm comms[3];
        for (int j = 0; j < count; j++)
            random_comm(&comms[j], &f, n, (int)kc_rng_below(&r, 2), &r);
        kc_tmap m;
        uint64_t v, tot;
        int exact;
        kc_err err = {0};
        assert_int_equal(kc_tmap_reorder(&t, comms, count, &m, &v, &tot, &exact, NULL, &err), KC_OK);
        assert_true(exact);
        assert_int_equal(m.kind, KC_TMAP_REORDER);
        uint64_t ev, et;
        assert_int_equal(kc_tmap_evaluate(&t, comms, count, &m, &ev, &et, NULL, NULL), KC_OK);
        assert_int_equal(ev, v);
        assert_int_equal(et, tot);
        int p[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        uint64_t bv = UINT64_MAX, bt = UINT64_MAX;
        do {
            kc_tmap pm;
            kc_tmap_from_order(&pm, &f, p, n, NULL);
            uint64_t a, b;
            kc_tmap_evaluate(&t, comms, count, &pm, &a, &b, NULL, NULL);
            if (a < bv || (a == bv && b < bt)) {
                bv = a;
                bt = b;
            }
        } while (kc_order_next(p, n));
        assert_int_equal(v, bv);
        assert_int_equal(tot, bt);
    }
}

/* k = 2: the best reordering agrees with the hypercube module's exact
 * dynamic programme (objective max, ties by the total). */
static void test_reorder_k2_matches_mapset(void **state)
{
    kc_rng r;
    kc_rng_seed(&r, 6006);
    kc_gf f;
    kc_gf_init(&f, 2, NULL);
    for (int trial = 0; trial < 60; trial++) {
        int n = 2 + (int)kc_rng_below(&r, 7), count = 1 + (int)kc_rng_below(&r, 3);
        kc_lcc l[3];
        kc_tcomm c[3];
        for (int j = 0; j < count; j++) {
            kc_bitmat bm;
            kc_bitmat_random_rank(&bm, n, j % 2 ? n : (int)kc_rng_below(&r, (uint64_t)n + 1), &r);
            uint64_t bv = kc_rng_next(&r) & kc_mask(n);
            assert_int_equal(kc_lcc_init(&l[j], &bm, bv, 0, NULL), KC_OK);
            kc_gfmat a;
            uint8_t b[KC_GFMAT_MAX] = {0};
            kc_gfmat_zero(&a, n);
            for (int i = 0; i < n; i++) {
                b[i] = (uint8_t)((bv >> i) & 1);
                for (int q = 0; q < n; q++)
                    a.e[i][q] = (uint8_t)kc_bitmat_get(&bm, i, q);
            }
            assert_int_equal(kc_tcomm_init(&c[j], &f, &a, b, 0, NULL), KC_OK);
        }
        kc_mapset_result hr;
        assert_int_equal(kc_mapset_optimal(l, count, KC_OBJ_MAX, &hr, NULL, NULL), KC_OK);
        kc_torus t;
        kc_torus_init(&t, 2, n, 0, KC_TIE_PLUS, NULL);
        kc_tmap m;
        uint64_t v, tot;
        int exact;
        assert_int_equal(kc_tmap_reorder(&t, c, count, &m, &v, &tot, &exact, NULL, NULL), KC_OK);
        assert_int_equal(v, hr.value);
        assert_int_equal(tot, hr.total);
    }
}

/* The search never returns anything worse than its start; on the 16-ary
 * 2-cube it tries every nonsingular Q. */
static void test_search(void **state)
{
    kc_torus t;
    kc_torus_init(&t, 16, 2, 0, KC_TIE_PLUS, NULL);
    kc_tcomm c;
    kc_tcomm_named(&c, 16, 2, "transpose", NULL);
    kc_tmap start, best;
    kc_tmap_linear(&c, 1, 0, &start, NULL);
    kc_tsearch_opts o = {1, 0, 0};
    kc_tsearch_stats st;
    assert_int_equal(kc_tmap_search(&t, &c, 1, &start, &o, &best, &st, NULL, NULL), KC_OK);
    assert_true(st.exhaustive);
    assert_int_equal(st.start_value, 8);
    assert_true(st.value <= st.start_value);
    uint64_t v;
    kc_tmap_evaluate(&t, &c, 1, &best, &v, NULL, NULL, NULL);
    assert_int_equal(v, st.value);

    kc_torus_init(&t, 4, 4, 0, KC_TIE_PLUS, NULL);
    kc_tcomm both[2];
    kc_tcomm_named(&both[0], 4, 4, "transpose", NULL);
    kc_tcomm_named(&both[1], 4, 4, "digit-reverse", NULL);
    kc_tmap_linear(both, 2, 0, &start, NULL);
    o.max_evals = 3000;
    assert_int_equal(kc_tmap_search(&t, both, 2, &start, &o, &best, &st, NULL, NULL), KC_OK);
    assert_false(st.exhaustive);
    assert_true(st.value < st.start_value || (st.value == st.start_value && st.total <= st.start_total));
    assert_true(st.evals <= 3000 + 1);

    /* Orders only: all 4! orders, the same optimum as the dynamic programme. */
    kc_tmap ro;
    uint64_t rv, rt;
    int exact;
    assert_int_equal(kc_tmap_reorder(&t, both, 2, &ro, &rv, &rt, &exact, NULL, NULL), KC_OK);
    kc_tsearch_opts oo = {1, 0, 1};
    assert_int_equal(kc_tmap_search(&t, both, 2, &ro, &oo, &best, &st, NULL, NULL), KC_OK);
    assert_true(st.exhaustive);
    assert_int_equal(st.evals, 24 + 1);
    assert_int_equal(best.kind, KC_TMAP_REORDER);
    assert_int_equal(st.value, rv);
    assert_int_equal(st.total, rt);
}

/* Digit-reverse on the 8-ary 3-cube: every mapped matrix QAQ^-1 is an
 * involution with rank(A' + I) = 1, i.e. A' = I + u v^T with v.u = 0 (and
 * b' = 0), and each such matrix is reachable. Enumerating all of them shows
 * the search's value 2 is the optimum (the paper's mapping keeps 4). */
static void test_digit_reverse_8ary_optimum(void **state)
{
    kc_gf f;
    kc_gf_init(&f, 8, NULL);
    kc_torus t;
    kc_torus_init(&t, 8, 3, 0, KC_TIE_PLUS, NULL);
    uint64_t best = UINT64_MAX;
    int members = 0;
    for (unsigned u = 1; u < 512; u++)
        for (unsigned v = 1; v < 512; v++) {
            uint8_t uu[3], vv[3];
            kc_gfvec_unpack(u, uu, 3, 3);
            kc_gfvec_unpack(v, vv, 3, 3);
            /* One representative per (u, v) ~ (cu, v/c): u's first nonzero digit is 1. */
            int lead = uu[0] ? 0 : uu[1] ? 1 : 2;
            if (uu[lead] != 1)
                continue;
            unsigned dot = 0;
            for (int i = 0; i < 3; i++)
                dot ^= kc_gf_mul(&f, uu[i], vv[i]);
            if (dot)
                continue;
            kc_gfmat a;
            kc_gfmat_identity(&a, 3);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    a.e[i][j] ^= (uint8_t)kc_gf_mul(&f, uu[i], vv[j]);
            kc_tcomm c;
            kc_tcomm_init(&c, &f, &a, NULL, 0, NULL);
            uint64_t x = exact_of(&t, &c).max;
            if (x < best)
                best = x;
            members++;
        }
    assert_int_equal(members, 511 * 63 / 7);
    assert_int_equal(best, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example4),          cmocka_unit_test(test_example5_arithmetic),
        cmocka_unit_test(test_example5_contention), cmocka_unit_test(test_section4_single),
        cmocka_unit_test(test_theorem3_random),   cmocka_unit_test(test_theorem4_random),
        cmocka_unit_test(test_mapping_errors),    cmocka_unit_test(test_idle_kept),
        cmocka_unit_test(test_reorder_exhaustive), cmocka_unit_test(test_search),
        cmocka_unit_test(test_reorder_k2_matches_mapset),
        cmocka_unit_test(test_digit_reverse_8ary_optimum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
