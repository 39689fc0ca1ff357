/* LCCs on the ranks of a general network (kcube/netload.h): the split
 * closed form of seed 000's Origin 2000 case (an LCC on 2^j endpoints per
 * router of an m-cube is 2^j LCCs on the routers, whose loads add,
 * kc_analyze_split) against a brute-force e-cube count written here, on
 * the paper's patterns and seeded random permutations, gathers and
 * scatters; kc_analyze_network on general and plain networks; the rank
 * space and its refusals (kc_comm_space). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/netload.h"
#include "kcube/rng.h"

/* The m-cube of routers with 2^j endpoints each. */
static kc_topology origin(int m, int j)
{
    kc_topology t;
    assert_int_equal(kc_topology_hypercube(&t, m, NULL), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 1 << j, NULL), KC_OK);
    return t;
}

/* T_i by routing every message: rank r on endpoint r, router r >> j,
 * e-cube on the routers (dimension 0 first), messages inside a router
 * dropped. */
static void brute(const kc_lcc *l, int j, uint64_t *per_dim)
{
    int n = l->a.n, m = n - j;
    size_t routers = (size_t)1 << m;
    uint64_t *load = calloc(routers * (size_t)m, sizeof *load);
    assert_non_null(load);
    for (uint64_t msg = 0; msg < (1ULL << n); msg++) {
        uint64_t src, dst;
        kc_lcc_message(l, msg, &src, &dst);
        uint64_t at = src >> j, to = dst >> j;
        for (int i = 0; i < m; i++)
            if (((at ^ to) >> i) & 1) {
                load[at * (uint64_t)m + (uint64_t)i]++;
                at ^= 1ULL << i;
            }
    }
    for (int i = 0; i < m; i++) {
        per_dim[i] = 0;
        for (size_t x = 0; x < routers; x++)
            if (load[x * (size_t)m + (size_t)i] > per_dim[i])
                per_dim[i] = load[x * (size_t)m + (size_t)i];
    }
    free(load);
}

/* kc_analyze_split and the brute count agree on l over m + j digits. */
static void check_split(const kc_lcc *l, int j)
{
    int n = l->a.n, m = n - j;
    kc_topology space, t = origin(m, j);
    kc_comm c;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&space, n, NULL), KC_OK);
    assert_int_equal(kc_comm_from_lcc(&c, &space, l, &err), KC_OK);
    uint64_t want[64], got[64];
    brute(l, j, want);
    assert_int_equal(kc_analyze_split(&t, &c, got, &err), KC_OK);
    for (int i = 0; i < m; i++)
        if (want[i] != got[i])
            fail_msg("%s on %d digits, %d endpoints per router: dimension %d closed form %llu, count %llu", l->name,
                     n, 1 << j, i, (unsigned long long)got[i], (unsigned long long)want[i]);
    /* the whole analysis agrees too (KC_EINTERNAL otherwise) */
    kc_analysis an;
    assert_int_equal(kc_analyze_network(&t, &c, NULL, &an, &err), KC_OK);
    assert_true(an.general && an.has_formula && an.exact);
    for (int i = 0; i < m; i++)
        assert_int_equal(an.exact_per_dim[i], want[i]);
}

static void test_split_paper_patterns(void **state)
{
    (void)state;
    int checked = 0;
    for (int n = 3; n <= 9; n++)
        for (int j = 1; j <= 2 && j < n; j++)
            for (size_t p = 0; kc_lcc_pattern(p); p++) {
                char name[48];
                const char *base = kc_lcc_pattern(p)->name;
                size_t len = strcspn(base, ":");
                /* patterns with a dimension argument: its first and last values */
                for (int arg = 0; arg < (base[len] ? 2 : 1); arg++) {
                    if (base[len])
                        snprintf(name, sizeof name, "%.*s:%d", (int)len, base, arg ? n - 1 : 0);
                    else
                        snprintf(name, sizeof name, "%s", base);
                    kc_lcc l;
                    if (kc_lcc_named(&l, name, n, NULL) != KC_OK)
                        continue; /* not defined for this n (transpose on odd n) */
                    check_split(&l, j);
                    checked++;
                }
            }
    assert_true(checked > 100);
}

/* A random matrix: nonsingular for a permutation, singular otherwise. */
static void random_lcc(kc_rng *rng, int n, int kind, kc_lcc *l)
{
    for (;;) {
        kc_bitmat a;
        kc_bitmat_zero(&a, n);
        for (int i = 0; i < n; i++)
            a.row[i] = kc_rng_next(rng) & kc_mask(n);
        if (kind != KC_LCC_PERMUTATION) /* singular: a zero row */
            a.row[kc_rng_below(rng, (uint64_t)n)] = 0;
        int full = kc_bitmat_rank(&a) == n;
        if (full != (kind == KC_LCC_PERMUTATION))
            continue;
        assert_int_equal(kc_lcc_init(l, &a, kc_rng_next(rng) & kc_mask(n), kind == KC_LCC_SCATTER, NULL), KC_OK);
        return;
    }
}

static void test_split_random(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 2026);
    for (int trial = 0; trial < 600; trial++) {
        int n = 2 + (int)kc_rng_below(&rng, 9), j = 1 + (int)kc_rng_below(&rng, 3);
        if (j >= n)
            j = n - 1;
        kc_lcc l;
        random_lcc(&rng, n, (int)kc_rng_below(&rng, 3), &l);
        check_split(&l, j);
    }
}

static void test_network_analysis(void **state)
{
    (void)state;
    kc_err err = {0};
    /* a plain network: the same answer as kc_analyze */
    kc_topology cube;
    assert_int_equal(kc_topology_hypercube(&cube, 6, NULL), KC_OK);
    kc_comm c;
    assert_int_equal(kc_comm_named(&c, &cube, "transpose", &err), KC_OK);
    kc_analysis a, b;
    assert_int_equal(kc_analyze(&cube, &c, NULL, &a, &err), KC_OK);
    assert_int_equal(kc_analyze_network(&cube, &c, NULL, &b, &err), KC_OK);
    assert_false(b.general);
    assert_memory_equal(a.exact_per_dim, b.exact_per_dim, sizeof a.exact_per_dim);
    /* the space of a general network: 16 routers x 2 endpoints is the 5-cube */
    kc_topology t = origin(4, 1), space;
    assert_int_equal(kc_comm_space(&t, &space, &err), KC_OK);
    assert_int_equal(space.k, 2);
    assert_int_equal(space.n, 5);
    /* 4x4 routers with 4 endpoints: 64 slots, GF(4) on 3 digits */
    int sides[2] = {4, 4};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_MESH, sides, 2, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 4, &err), KC_OK);
    assert_int_equal(kc_comm_space(&t, &space, &err), KC_OK);
    assert_int_equal(space.k, 4);
    assert_int_equal(space.n, 3);
    /* 3 endpoints: 48 slots, no power of two */
    assert_int_equal(kc_topology_set_endpoints(&t, 3, &err), KC_OK);
    assert_int_equal(kc_comm_space(&t, &space, &err), KC_EINVAL);
    assert_string_equal(err.param, "endpoints");
    assert_non_null(strstr(err.msg, "2^m slots"));
    /* a communication for other digits, and --no-exact, are refused */
    t = origin(3, 1);
    assert_int_equal(kc_analyze_network(&t, &c, NULL, &a, &err), KC_EINVAL);
    assert_string_equal(err.param, "n");
    kc_analyze_opts o;
    kc_analyze_opts_default(&o);
    o.exact = 0;
    kc_topology s4;
    assert_int_equal(kc_topology_hypercube(&s4, 4, NULL), KC_OK);
    assert_int_equal(kc_comm_named(&c, &s4, "transpose", &err), KC_OK);
    assert_int_equal(kc_analyze_network(&t, &c, &o, &a, &err), KC_EINVAL);
    assert_string_equal(err.param, "exact");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_paper_patterns),
        cmocka_unit_test(test_split_random),
        cmocka_unit_test(test_network_analysis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
