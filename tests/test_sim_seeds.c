/* kc-test: slow
 * The seeds' simulation results as assertions, from whole sweeps:
 * seed 000 Section 6.1 (8-cube: e-cube vs M-S vs M-G) and seed 002 Section 4
 * (4-ary 4-cube: dimension-ordered routing with two VCs, Map-S, Map-G,
 * uniform traffic). Tolerances are in the asserts; docs/sim.md lists the
 * measured values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kcube/simscenario.h"
#include "kcube/simsweep.h"

typedef struct curve {
    double sat;
    int saturated;
    long long contention;
    double lat_low; /* latency at the lowest load */
} curve;

static curve sweep_vc(int k, int n, const char *pattern, const char *mapping, double step, double top, int indep)
{
    kc_err err;
    kc_simspec sp;
    kc_simspec_default(&sp);
    sp.k = k;
    sp.n = n;
    if (k > 2) {
        sp.topo = KC_SIM_TORUS;
        sp.route.algo = KC_ROUTE_DOR;
        sp.vcs = 2;
    }
    sp.pattern = pattern;
    sp.mapping = mapping;
    kc_simscenario sc;
    assert_int_equal(kc_simscenario_build(&sc, &sp, &err), KC_OK);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.warmup = 2000;
    c.measure = 6000;
    c.seed = 2024;
    c.vc_independent = indep;
    double loads[100];
    int count = 0;
    for (double l = step; l <= top + 1e-9 && count < 100; l += step)
        loads[count++] = l;
    kc_simsweep sw;
    kc_simsweep_opts o = {loads, count, 2, 1, NULL, NULL};
    assert_int_equal(kc_sim_sweep(&sc.net, &sc.route, &sc.traffic, &c, &o, &sw, &err), KC_OK);
    curve r = {sw.saturation_throughput, sw.saturated, sc.contention, sw.points[0].latency_avg};
    printf("  %d-ary %d-cube %-14s %-36s%s contention %2lld  saturation %.4f%s\n", k, n, pattern,
           mapping ? mapping : "none", indep > 0 ? " (independent VCs)" : indep == 0 ? " (shared VCs)" : "", sc.contention, r.sat,
           r.saturated ? "" : " (not reached)");
    kc_simsweep_free(&sw);
    kc_simscenario_free(&sc);
    return r;
}

static curve sweep(int k, int n, const char *pattern, const char *mapping, double step, double top)
{
    return sweep_vc(k, n, pattern, mapping, step, top, -1);
}

static void test_seed000_8cube(void **state)
{
    (void)state;
    const char *names[3] = {"transpose", "bit-reverse", "reverse-flip"};
    const char *set = "set:transpose,bit-reverse,reverse-flip";
    for (int p = 0; p < 3; p++) {
        curve e = sweep(2, 8, names[p], NULL, 0.0125, 0.3);
        assert_int_equal(e.contention, 8);
        assert_true(e.saturated);
        assert_true(e.sat < 0.125); /* "always less than 0.125" */
        curve ms = sweep(2, 8, names[p], "optimal", 0.05, 1.0);
        assert_int_equal(ms.contention, 1);
        assert_true(ms.sat >= 4 * e.sat); /* several times higher */
        curve mg = sweep(2, 8, names[p], set, 0.025, 1.0);
        assert_int_equal(mg.contention, p == 0 ? 2 : 1); /* transpose 2, the others 1 */
        if (p == 0)
            assert_true(mg.sat >= 0.27); /* "about 0.3" */
        else
            assert_true(mg.sat >= 4 * e.sat);
        assert_true(mg.lat_low < e.lat_low);
    }
    /* uniform traffic is not hurt by M-G */
    curve u = sweep(2, 8, "uniform", NULL, 0.025, 1.0), um = sweep(2, 8, "uniform", set, 0.025, 1.0);
    assert_true(um.sat >= 0.9 * u.sat && um.sat <= 1.1 * u.sat);
}

static void test_seed002_4ary4cube(void **state)
{
    (void)state;
    const char *names[2] = {"transpose", "digit-reverse"};
    const char *set = "set:transpose,digit-reverse";
    /* The default model (seed 002: the VCs of a link do not take turns, each
     * VC's one-flit buffer sends its flit in a cycle): mapped curves reach
     * 0.33-0.40 with every source keeping up (about 0.45 by the aggregate
     * alone), near the seed's "about 0.4"; unmapped stay below 1/8. */
    for (int p = 0; p < 2; p++) {
        curve e = sweep(4, 4, names[p], NULL, 0.0125, 0.3);
        assert_int_equal(e.contention, 8);
        assert_true(e.saturated);
        assert_true(e.sat < 0.125); /* below 1/T = 1/8 */
        curve ms = sweep(4, 4, names[p], "optimal", 0.025, 0.8);
        curve mg = sweep(4, 4, names[p], set, 0.025, 0.8);
        assert_int_equal(ms.contention, 2);
        assert_int_equal(mg.contention, 2);
        assert_true(ms.sat >= 0.3 && ms.sat >= 3 * e.sat);
        assert_true(mg.sat >= 0.3 && mg.sat >= 3 * e.sat);
    }
    curve u = sweep(4, 4, "uniform", NULL, 0.025, 1.0), um = sweep(4, 4, "uniform", set, 0.025, 1.0);
    assert_true(u.sat >= 0.33); /* 0.35 with every source keeping up, 0.39 by the aggregate */
    assert_true(um.sat >= 0.9 * u.sat && um.sat <= 1.1 * u.sat);
    /* With the VCs sharing the link (--vc-link shared) the mapped curves are
     * lower (see docs/sim.md) but still several times the unmapped ones. */
    for (int p = 0; p < 2; p++) {
        curve e = sweep_vc(4, 4, names[p], NULL, 0.0125, 0.3, 0);
        curve mg = sweep_vc(4, 4, names[p], set, 0.025, 0.8, 0);
        assert_true(e.saturated && e.sat < 0.125);
        assert_true(mg.sat >= 0.25 && mg.sat >= 3 * e.sat);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed000_8cube),
        cmocka_unit_test(test_seed002_4ary4cube),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
