/* Simulator policy in the library: kc_simspec_resolve, sweep points, the
 * memory estimate and the sweep's thread policy, name tables, parameter ids. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kcube/rng.h"
#include "kcube/simmem.h"
#include "kcube/simscenario.h"
#include "kcube/simsweep.h"

static kc_simspec spec_of(kc_simtopo topo, int k, int n)
{
    kc_simspec s;
    kc_simspec_default(&s);
    s.topo = topo;
    s.k = k;
    s.n = n;
    return s;
}

typedef struct expect {
    kc_simtopo topo_in;
    int k_in;
    kc_simalgo algo_in;
    kc_simtopo topo;
    int k;
    kc_simalgo algo;
    kc_simvcrule rule;
    int vcs, indep;
} expect;

/* The documented table (simscenario.h, docs/sim.md), row by row. */
static void test_resolve_defaults(void **state)
{
    (void)state;
    static const expect rows[] = {
        {KC_SIM_TOPO_AUTO, 0, KC_ROUTE_AUTO, KC_SIM_HYPERCUBE, 2, KC_ROUTE_ECUBE, KC_VC_NONE, 1, 0},
        {KC_SIM_TOPO_AUTO, 2, KC_ROUTE_AUTO, KC_SIM_HYPERCUBE, 2, KC_ROUTE_ECUBE, KC_VC_NONE, 1, 0},
        {KC_SIM_HYPERCUBE, 0, KC_ROUTE_AUTO, KC_SIM_HYPERCUBE, 2, KC_ROUTE_ECUBE, KC_VC_NONE, 1, 0},
        {KC_SIM_HYPERCUBE, 0, KC_ROUTE_DUATO, KC_SIM_HYPERCUBE, 2, KC_ROUTE_DUATO, KC_VC_NONE, 2, 0},
        {KC_SIM_HYPERCUBE, 0, KC_ROUTE_PCUBE, KC_SIM_HYPERCUBE, 2, KC_ROUTE_PCUBE, KC_VC_NONE, 1, 0},
        {KC_SIM_TOPO_AUTO, 4, KC_ROUTE_AUTO, KC_SIM_TORUS, 4, KC_ROUTE_DOR, KC_VC_HIGHLOW, 2, 1},
        {KC_SIM_TORUS, 5, KC_ROUTE_AUTO, KC_SIM_TORUS, 5, KC_ROUTE_DOR, KC_VC_HIGHLOW, 2, 1},
        {KC_SIM_TORUS, 2, KC_ROUTE_AUTO, KC_SIM_HYPERCUBE, 2, KC_ROUTE_ECUBE, KC_VC_NONE, 1, 0},
        {KC_SIM_MESH, 4, KC_ROUTE_AUTO, KC_SIM_MESH, 4, KC_ROUTE_DOR, KC_VC_NONE, 1, 1},
        {KC_SIM_MESH, 2, KC_ROUTE_AUTO, KC_SIM_MESH, 2, KC_ROUTE_DOR, KC_VC_NONE, 1, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const expect *e = &rows[i];
        kc_simspec s = spec_of(e->topo_in, e->k_in, 3);
        s.route.algo = e->algo_in;
        kc_simconfig c;
        kc_simconfig_default(&c);
        kc_err err;
        assert_int_equal(kc_simspec_resolve(&s, &c, &err), KC_OK);
        assert_int_equal(s.topo, e->topo);
        assert_int_equal(s.k, e->k);
        assert_int_equal(s.route.algo, e->algo);
        assert_int_equal(s.route.vcrule, e->rule);
        assert_int_equal(s.route.tie, KC_TIE_PLUS);
        assert_int_equal(s.vcs, e->vcs);
        assert_int_equal(c.vc_independent, e->indep);
        /* idempotent */
        kc_simspec again = s;
        kc_simconfig c2 = c;
        assert_int_equal(kc_simspec_resolve(&again, &c2, &err), KC_OK);
        assert_memory_equal(&again, &s, sizeof s);
        assert_int_equal(c2.vc_independent, c.vc_independent);
        /* the defaults always give a network the routing accepts */
        kc_simnet net;
        assert_int_equal(kc_simnet_init(&net, s.topo, s.k, s.n, s.vcs, s.inj, s.ej, s.depth, &err), KC_OK);
        assert_int_equal(kc_simroute_check(&s.route, &net, &err), KC_OK);
        assert_int_equal(kc_sim_vcs_independent(&net, &c), e->indep);
        kc_simnet_free(&net);
    }
}

/* Every combination the user can name: unset fields resolve to something
 * kc_simroute_check accepts whenever an explicit choice makes that possible
 * (brute force over topology x routing x VC rule). */
static void test_resolve_all_combinations(void **state)
{
    (void)state;
    for (int t = KC_SIM_HYPERCUBE; t <= KC_SIM_MESH; t++)
        for (int a = KC_ROUTE_AUTO; a <= KC_ROUTE_LIMIN; a++)
            for (int r = KC_VC_AUTO; r <= KC_VC_NONE; r++) {
                kc_simspec s = spec_of((kc_simtopo)t, t == KC_SIM_HYPERCUBE ? 2 : 4, 2);
                s.route.algo = (kc_simalgo)a;
                s.route.vcrule = (kc_simvcrule)r;
                kc_err err;
                assert_int_equal(kc_simspec_resolve(&s, NULL, &err), KC_OK);
                kc_simnet net;
                assert_int_equal(kc_simnet_init(&net, s.topo, s.k, s.n, s.vcs, 1, 1, 1, &err), KC_OK);
                kc_status st = kc_simroute_check(&s.route, &net, &err);
                /* only routings that do not exist on the topology are refused */
                int cube_only = s.route.algo == KC_ROUTE_ECUBE || s.route.algo == KC_ROUTE_PCUBE ||
                                s.route.algo == KC_ROUTE_LIMIN; /* duato runs everywhere (dor escape) */
                assert_int_equal(st != KC_OK, cube_only && t != KC_SIM_HYPERCUBE);
                if (st)
                    assert_string_equal(err.param, "routing");
                kc_simnet_free(&net);
            }
}

static void test_resolve_keeps_explicit(void **state)
{
    (void)state;
    kc_err err;
    kc_simspec s = spec_of(KC_SIM_TORUS, 4, 2);
    s.vcs = 3;
    s.route.vcrule = KC_VC_NONE;
    s.route.tie = KC_TIE_SPLIT;
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.vc_independent = 0;
    assert_int_equal(kc_simspec_resolve(&s, &c, &err), KC_OK);
    assert_int_equal(s.vcs, 3);
    assert_int_equal(s.route.vcrule, KC_VC_NONE);
    assert_int_equal(s.route.tie, KC_TIE_SPLIT);
    assert_int_equal(s.route.algo, KC_ROUTE_DOR);
    assert_int_equal(c.vc_independent, 0);
    /* a torus VC rule given as none leaves one VC */
    s = spec_of(KC_SIM_TORUS, 4, 2);
    s.route.vcrule = KC_VC_NONE;
    assert_int_equal(kc_simspec_resolve(&s, NULL, &err), KC_OK);
    assert_int_equal(s.vcs, 1);
    s = spec_of(KC_SIM_HYPERCUBE, 2, 4);
    s.route.algo = KC_ROUTE_DUATO;
    s.vcs = 4;
    c.vc_independent = 1;
    assert_int_equal(kc_simspec_resolve(&s, &c, &err), KC_OK);
    assert_int_equal(s.vcs, 4);
    assert_int_equal(c.vc_independent, 1);
    s = spec_of(KC_SIM_TORUS, 4, 2);
    s.route.vcrule = KC_VC_DATELINE;
    assert_int_equal(kc_simspec_resolve(&s, NULL, &err), KC_OK);
    assert_int_equal(s.route.vcrule, KC_VC_DATELINE);
    assert_int_equal(s.vcs, 2);
}

static void test_resolve_errors(void **state)
{
    (void)state;
    static const struct {
        kc_simtopo topo;
        int k, n;
        kc_status st;
        const char *param;
    } rows[] = {
        {KC_SIM_HYPERCUBE, 4, 3, KC_EINVAL, "k"}, {KC_SIM_TORUS, 0, 3, KC_EINVAL, "k"},
        {KC_SIM_MESH, 300, 3, KC_ERANGE, "k"},    {KC_SIM_TOPO_AUTO, 0, 0, KC_EINVAL, "n"},
        {KC_SIM_TOPO_AUTO, 0, 25, KC_ERANGE, "n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kc_err err;
        kc_simspec s = spec_of(rows[i].topo, rows[i].k, rows[i].n);
        assert_int_equal(kc_simspec_resolve(&s, NULL, &err), rows[i].st);
        assert_string_equal(err.param, rows[i].param);
        assert_null(strstr(err.msg, "--"));
    }
}

static void test_compare_defaults(void **state)
{
    (void)state;
    kc_err err;
    kc_simspec s = spec_of(KC_SIM_TOPO_AUTO, 0, 4);
    assert_int_equal(kc_simspec_resolve(&s, NULL, &err), KC_OK);
    assert_string_equal(kc_simspec_compare_configs(&s), "ecube,M-S,M-G,pcube,duato");
    assert_string_equal(kc_simspec_mapping_set(&s), "transpose,bit-reverse,reverse-flip");
    s = spec_of(KC_SIM_TOPO_AUTO, 4, 4);
    assert_int_equal(kc_simspec_resolve(&s, NULL, &err), KC_OK);
    assert_string_equal(kc_simspec_compare_configs(&s), "dor,M-S,M-G");
    assert_string_equal(kc_simspec_mapping_set(&s), "transpose,digit-reverse");
    s = spec_of(KC_SIM_TOPO_AUTO, 5, 2);
    assert_int_equal(kc_simspec_resolve(&s, NULL, &err), KC_OK);
    assert_string_equal(kc_simspec_compare_configs(&s), "dor");
}

/* The scenario builds from an unresolved spec and hands back the resolved
 * routing; its errors name parameters, never command-line flags. */
static void test_scenario_params(void **state)
{
    (void)state;
    kc_err err;
    kc_simscenario sc;
    kc_simspec s = spec_of(KC_SIM_TOPO_AUTO, 4, 2);
    s.pattern = "transpose";
    assert_int_equal(kc_simscenario_build(&sc, &s, &err), KC_OK);
    assert_int_equal(sc.route.algo, KC_ROUTE_DOR);
    assert_int_equal(sc.route.vcrule, KC_VC_HIGHLOW);
    assert_int_equal(sc.net.vcs, 2);
    kc_simscenario_free(&sc);
    s = spec_of(KC_SIM_TOPO_AUTO, 0, 4);
    s.pattern = "uniform";
    s.mapping = "optimal";
    assert_int_equal(kc_simscenario_build(&sc, &s, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping");
    assert_null(strstr(err.msg, "--"));
    s = spec_of(KC_SIM_TOPO_AUTO, 4, 2);
    s.pattern = "uniform";
    s.mapping = "set:";
    assert_int_equal(kc_simscenario_build(&sc, &s, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping");
    assert_null(strstr(err.msg, "--"));
    s = spec_of(KC_SIM_TOPO_AUTO, 0, 4);
    s.pattern = "transpose";
    s.route.algo = KC_ROUTE_DUATO;
    s.vcs = 1;
    assert_int_equal(kc_simscenario_build(&sc, &s, &err), KC_EINVAL);
    assert_string_equal(err.param, "vcs");
}

/* Independent count: walk from `from` by repeated index until past `to`. */
static int brute_points(double from, double to, double step)
{
    int n = 0;
    while (from + step * n <= to + 1e-9 * step)
        n++;
    return n;
}

static void test_sweep_points(void **state)
{
    (void)state;
    kc_err err;
    double loads[KC_SIMSWEEP_MAX_POINTS];
    int n;
    assert_int_equal(kc_simsweep_points(0.1, 0.3, 0.1, loads, &n, &err), KC_OK);
    assert_int_equal(n, 3);
    assert_true(fabs(loads[2] - 0.3) < 1e-12);
    assert_int_equal(kc_simsweep_points(0.05, 1, 0.05, NULL, &n, &err), KC_OK);
    assert_int_equal(n, 20);
    assert_int_equal(kc_simsweep_points(1, 1, 1, loads, &n, &err), KC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(kc_simsweep_points(0.001, 1, 0.001, loads, &n, &err), KC_OK);
    assert_int_equal(n, KC_SIMSWEEP_MAX_POINTS);
    /* too many: refused, saying how many */
    struct {
        double a, b, s;
        const char *count;
    } big[] = {
        {0.001, 1.001, 0.001, "1001"},
        {0.1, 1e300, 1e-300, "inf"},
        {1e-9, 1e6, 1e-9, "1e+15"},
        {0.1, 1e300, 1e-3, "1e+303"},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        n = -1;
        assert_int_equal(kc_simsweep_points(big[i].a, big[i].b, big[i].s, loads, &n, &err), KC_ERANGE);
        assert_string_equal(err.param, "sweep");
        assert_non_null(strstr(err.msg, big[i].count));
        assert_non_null(strstr(err.msg, "at most 1000"));
        assert_int_equal(n, 0);
    }
    /* not numbers, not finite, wrong order or sign */
    double bad[][3] = {{NAN, 1, 0.1}, {0.1, NAN, 0.1}, {0.1, 1, NAN}, {INFINITY, INFINITY, 1}, {0.1, INFINITY, 0.1},
                       {0.1, 1, INFINITY}, {0.1, 1, 0}, {0.1, 1, -0.1}, {0, 1, 0.1}, {-1, 1, 0.1}, {0.5, 0.4, 0.1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(kc_simsweep_points(bad[i][0], bad[i][1], bad[i][2], loads, &n, &err), KC_EINVAL);
        assert_string_equal(err.param, "sweep");
        assert_null(strstr(err.msg, "--"));
    }
    /* seeded random ranges against the brute-force count */
    kc_rng rng;
    kc_rng_seed(&rng, 99);
    for (int t = 0; t < 2000; t++) {
        double step = (double)(1 + kc_rng_below(&rng, 200)) / 1000.0;
        double from = (double)(1 + kc_rng_below(&rng, 1000)) / 1000.0;
        double to = from + step * (double)kc_rng_below(&rng, 1200) + (double)kc_rng_below(&rng, 3) * step / 3;
        int want = brute_points(from, to, step);
        kc_status st = kc_simsweep_points(from, to, step, loads, &n, &err);
        if (want > KC_SIMSWEEP_MAX_POINTS) {
            assert_int_equal(st, KC_ERANGE);
        } else {
            assert_int_equal(st, KC_OK);
            assert_int_equal(n, want);
            assert_true(loads[n - 1] <= to + 1e-9 * step);
        }
    }
}

static void test_sweep_opts(void **state)
{
    (void)state;
    kc_err err;
    kc_simspec s = spec_of(KC_SIM_TOPO_AUTO, 0, 4);
    s.pattern = "transpose";
    kc_simscenario sc;
    assert_int_equal(kc_simscenario_build(&sc, &s, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.warmup = 100;
    c.measure = 500;
    kc_simsweep_opts o;
    kc_simsweep_opts_default(&o);
    assert_int_equal(o.threads, 1);
    assert_int_equal(o.stop_at_saturation, 1);
    kc_simsweep sw;
    assert_int_equal(kc_sim_sweep(&sc.net, &sc.route, &sc.traffic, &c, &o, &sw, &err), KC_EINVAL);
    assert_string_equal(err.param, "sweep");
    double loads[2] = {0.05, 0.1};
    o.loads = loads;
    o.count = 2;
    o.threads = 2;
    assert_int_equal(kc_sim_sweep(&sc.net, &sc.route, &sc.traffic, &c, &o, &sw, &err), KC_OK);
    assert_int_equal(sw.count, 2);
    kc_simsweep_free(&sw);
    kc_simscenario_free(&sc);
}

static kc_simmem estimate(kc_simtopo topo, int k, int n, double load)
{
    kc_err err;
    kc_simspec s = spec_of(topo, k, n);
    s.pattern = "transpose";
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.load = load;
    assert_int_equal(kc_simspec_resolve(&s, &c, &err), KC_OK);
    kc_simmem m;
    assert_int_equal(kc_simmem_estimate(&s, &c, &m, &err), KC_OK);
    return m;
}

static void test_memory_estimate(void **state)
{
    (void)state;
    kc_err err;
    /* grows with the network and the load */
    kc_simmem a = estimate(KC_SIM_HYPERCUBE, 2, 10, 0.1), b = estimate(KC_SIM_HYPERCUBE, 2, 12, 0.1);
    kc_simmem c = estimate(KC_SIM_HYPERCUBE, 2, 12, 1.0), low = estimate(KC_SIM_HYPERCUBE, 2, 12, 0.01);
    assert_true(b.per_point > 3 * a.per_point && b.shared > 3 * a.shared);
    assert_true(c.per_point > low.per_point); /* source queues; 0.1 and 1.0 both reach the queue cap */
    /* at least the engine's fixed state of the built network (kc_sim_memory
     * includes the network arrays, which are in the shared part) */
    kc_simnet net;
    kc_simconfig cfg;
    kc_simconfig_default(&cfg);
    assert_int_equal(kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 12, 1, 1, 1, 1, &err), KC_OK);
    assert_true(b.per_point + b.shared >= kc_sim_memory(&net, &cfg));
    kc_simnet_free(&net);
    /* n = 24: several GB per point, so the cores do not decide the threads */
    kc_simmem big = estimate(KC_SIM_HYPERCUBE, 2, 24, 1.0);
    assert_true(big.per_point > (1ull << 32));
    assert_true(kc_simmem_total(&big, 8) > 8 * big.per_point);
    kc_simmem t = estimate(KC_SIM_TORUS, 4, 4, 0.5);
    assert_true(t.per_point > 0 && t.per_point < (64u << 20));
    /* an unresolved spec is refused */
    kc_simspec s;
    kc_simspec_default(&s);
    kc_simmem m;
    assert_int_equal(kc_simmem_estimate(&s, &cfg, &m, &err), KC_EINVAL);
}

static void test_memory_plan(void **state)
{
    (void)state;
    kc_err err;
    int t = -1;
    assert_int_equal(kc_simmem_plan(100, 50, 8, UINT64_MAX, &t, &err), KC_OK);
    assert_int_equal(t, 8);
    assert_int_equal(kc_simmem_plan(100, 50, 8, 300, &t, &err), KC_OK);
    assert_int_equal(t, 4);
    assert_int_equal(kc_simmem_plan(100, 50, 8, 150, &t, &err), KC_OK);
    assert_int_equal(t, 1);
    assert_int_equal(kc_simmem_plan(100, 50, 0, 150, &t, &err), KC_OK);
    assert_int_equal(t, 1);
    assert_int_equal(kc_simmem_plan(3ull << 20, 5ull << 30, 4, 1ull << 30, &t, &err), KC_ERANGE);
    assert_int_equal(t, 0);
    assert_string_equal(err.param, "max_memory");
    assert_non_null(strstr(err.msg, "5.0 GiB"));
    assert_non_null(strstr(err.msg, "1.0 GiB"));
    /* saturating totals never wrap into a small number */
    assert_int_equal(kc_simmem_plan(UINT64_MAX - 5, UINT64_MAX / 2, 64, UINT64_MAX - 1, &t, &err), KC_ERANGE);
    kc_simmem m = {10, UINT64_MAX / 3};
    assert_true(kc_simmem_total(&m, 64) == UINT64_MAX);
    char buf[32];
    assert_string_equal(kc_simmem_format(100, buf, sizeof buf), "100 B");
    assert_string_equal(kc_simmem_format(3u << 20, buf, sizeof buf), "3.0 MiB");
    assert_string_equal(kc_simmem_format(300ull << 30, buf, sizeof buf), "300 GiB");
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_memory_available(void **state)
{
    (void)state;
    char dir[] = "/tmp/kc_simmemXXXXXX";
    assert_non_null(mkdtemp(dir));
    char mi[64], mx[64], none[64];
    snprintf(mi, sizeof mi, "%s/meminfo", dir);
    snprintf(mx, sizeof mx, "%s/memory.max", dir);
    snprintf(none, sizeof none, "%s/missing", dir);
    write_text(mi, "MemTotal:       32000000 kB\nMemFree:  100 kB\nMemAvailable:    2000 kB\n");
    write_text(mx, "max\n");
    assert_true(kc_simmem_available_from(mi, mx) == 2000 * 1024);
    write_text(mx, "1000000\n");
    assert_true(kc_simmem_available_from(mi, mx) == 1000000);
    write_text(mx, "900000000000\n");
    assert_true(kc_simmem_available_from(mi, mx) == 2000 * 1024);
    assert_true(kc_simmem_available_from(none, mx) == 900000000000ull);
    assert_true(kc_simmem_available_from(none, none) == UINT64_MAX);
    assert_true(kc_simmem_available_from(NULL, NULL) == UINT64_MAX);
    write_text(mx, "garbage\n");
    assert_true(kc_simmem_available_from(mi, mx) == 2000 * 1024);
    /* the real machine: something positive */
    assert_true(kc_simmem_available() > 0);
    unlink(mi);
    unlink(mx);
    rmdir(dir);
}

/* Every name table parses what it prints. */
static void test_name_tables(void **state)
{
    (void)state;
    const kc_names *tables[] = {&kc_simtopo_names, &kc_simalgo_names, &kc_simvcrule_names, &kc_siminject_names,
                                &kc_simvclink_names, &kc_simdigits_names};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        assert_true(kc_names_count(tables[t]) >= 2);
        for (const kc_name *e = tables[t]->entries; e->name; e++) {
            int v;
            assert_int_equal(kc_names_parse(tables[t], kc_names_name(tables[t], e->value), &v), 0);
            assert_int_equal(v, e->value);
        }
    }
    kc_err err;
    kc_simalgo a;
    assert_int_equal(kc_simalgo_parse("e-cube", &a, &err), KC_OK);
    assert_int_equal(a, KC_ROUTE_ECUBE);
    assert_string_equal(kc_simalgo_name(a), "ecube");
    assert_int_equal(kc_simalgo_parse("chiu", &a, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "not implemented"));
    assert_string_equal(err.param, "routing");
    kc_simtopo tp;
    assert_int_equal(kc_simtopo_parse("cube", &tp, &err), KC_OK);
    assert_string_equal(kc_simtopo_name(tp), "hypercube");
    assert_int_equal(kc_simtopo_parse("ring", &tp, &err), KC_EINVAL);
    assert_string_equal(err.param, "topology");
    kc_simvcrule r;
    assert_int_equal(kc_simvcrule_parse("zigzag", &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "vc_rule");
    char buf[128];
    assert_string_equal(kc_names_join(&kc_simvcrule_names, buf, sizeof buf), "highlow|dateline|none");
    assert_string_equal(kc_simalgo_name(KC_ROUTE_AUTO), "?");
}

/* A mapping set is read whole, however long its text (no fixed buffer):
 * empty entries padding it past 512 characters change nothing, on the cube
 * and on a torus; more than 16 patterns is an error, not a cut. */
static void build_mapping(int k, int n, const char *pattern, const char *mapping, kc_simscenario *sc,
                          kc_status want)
{
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.k = k;
    sp.n = n;
    sp.pattern = pattern;
    sp.mapping = mapping;
    kc_err err = {0};
    kc_status st = kc_simscenario_build(sc, &sp, &err);
    if (st != want)
        fail_msg("%s: %s", mapping, err.msg);
}

static void test_long_mapping_set(void **state)
{
    char padded[1200], many[1200];
    const char *sets[2][3] = {{"set:transpose,bit-reverse", "transpose", "bit-reverse"},
                              {"set:transpose,digit-reverse", "transpose", "digit-reverse"}};
    for (int t = 0; t < 2; t++) {
        int k = t ? 4 : 2, n = t ? 4 : 6;
        snprintf(padded, sizeof padded, "set:%s%s,%s", sets[t][1],
                 ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
                 ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
                 ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
                 ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
                 ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
                 ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,",
                 sets[t][2]);
        assert_true(strlen(padded) > 600);
        kc_simscenario a, b;
        build_mapping(k, n, "transpose", sets[t][0], &a, KC_OK);
        build_mapping(k, n, "transpose", padded, &b, KC_OK);
        assert_string_equal(a.mapping_desc, b.mapping_desc);
        assert_int_equal(a.map.count, b.map.count);
        assert_memory_equal(a.map.to_physical, b.map.to_physical, a.map.count * sizeof *a.map.to_physical);
        kc_simscenario_free(&a);
        kc_simscenario_free(&b);
    }
    strcpy(many, "set:transpose");
    for (int i = 0; i < 16; i++)
        strcat(many, ",bit-reverse");
    kc_simscenario c;
    build_mapping(2, 6, "transpose", many, &c, KC_ERANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve_defaults),  cmocka_unit_test(test_resolve_all_combinations),
        cmocka_unit_test(test_resolve_keeps_explicit), cmocka_unit_test(test_resolve_errors),
        cmocka_unit_test(test_compare_defaults),  cmocka_unit_test(test_scenario_params),
        cmocka_unit_test(test_sweep_points),      cmocka_unit_test(test_sweep_opts),
        cmocka_unit_test(test_memory_estimate),   cmocka_unit_test(test_memory_plan),
        cmocka_unit_test(test_memory_available),  cmocka_unit_test(test_name_tables),
        cmocka_unit_test(test_long_mapping_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
