/* Bernoulli injection drawn two ways (src/sim/calendar.c): one trial per
 * source and cycle (KC_INJECT_BERNOULLI), and geometric gaps between a
 * source's messages (KC_INJECT_BERNOULLI_GAPS), which must be the same
 * process in distribution. Generation runs alone (kci_gen_cycle into a
 * counting sink) for many cycles; both samplers must give at most one
 * message per source and cycle, the expected count, and gaps between a
 * source's messages that pass a chi-square test against the geometric law
 * P(gap = d) = (1 - p)^(d - 1) p; and the two samplers' gap histograms must
 * pass a two-sample test against each other. Seeded; thresholds at a
 * false-alarm rate of about 1e-6 per test. A process value outside the
 * enumeration is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/sim.h"
#include "kcube/simscenario.h"
#include "sim/engine.h"
#include "sim_random.h"

enum { BINS = 40 };

typedef struct gen_log {
    uint32_t nodes, now;
    int64_t *last;             /* per source: cycle of its last message, -1 before the first */
    uint64_t msgs, twice;      /* messages; a source's second message in one cycle */
    uint64_t gap[BINS + 1];    /* gaps 1..BINS-1, and BINS and above in gap[BINS] */
    uint64_t first[BINS + 1];  /* the first message's cycle + 1, binned the same way */
} gen_log;

static int count_put(void *ctx, uint32_t src, uint32_t dst, uint32_t id)
{
    gen_log *g = ctx;
    (void)dst;
    (void)id;
    assert_true(src < g->nodes);
    int64_t d = (int64_t)g->now - g->last[src];
    if (g->last[src] < 0)
        g->first[g->now + 1 < BINS ? g->now + 1 : BINS]++;
    else if (d == 0)
        g->twice++;
    else
        g->gap[d < BINS ? d : BINS]++;
    g->last[src] = g->now;
    g->msgs++;
    return 0;
}

/* Generation alone for `cycles` cycles on the 6-cube, uniform traffic,
 * messages of `flits` flits at offered load `load` (p = load / flits). */
static void run_generation(kc_siminject process, double load, int flits, uint32_t cycles, uint64_t seed, gen_log *g)
{
    kc_err err;
    kc_simscenario sc;
    kc_test_sim_uniform_cube(&sc, 6);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.process = process;
    c.load = load;
    c.msg_flits = flits;
    c.seed = seed;
    kci_engine e;
    memset(&e, 0, sizeof e);
    assert_int_equal(kci_engine_init(&e, &sc.net, &sc.route, &sc.traffic, &c, 0, 1, 0, &err), KC_OK);
    memset(g, 0, sizeof *g);
    g->nodes = sc.net.nodes;
    g->last = malloc(g->nodes * sizeof *g->last);
    assert_non_null(g->last);
    for (uint32_t x = 0; x < g->nodes; x++)
        g->last[x] = -1;
    kci_gen_sink sink = {count_put, NULL, g};
    for (g->now = 0; g->now < cycles; g->now++)
        assert_int_equal(kci_gen_cycle(&e.gen, g->now, &sink), 0);
    kci_engine_free(&e);
    kc_simscenario_free(&sc);
    free(g->last);
}

/* The chi-square quantile for df degrees of freedom at an upper tail of
 * about 1e-6 (Wilson-Hilferty, z = 4.75). */
static double chi2_limit(int df)
{
    double a = 2.0 / (9.0 * df), z = 4.75;
    return df * pow(1 - a + z * sqrt(a), 3);
}

/* Chi-square of a binned histogram against P(d) = (1 - p)^(d - 1) p for
 * d = 1 .. BINS - 1 and the tail (1 - p)^(BINS - 1); bins expected below 5
 * are merged into the tail. Returns the statistic; *df its degrees. */
static double geometric_chi2(const uint64_t *h, double p, int *df)
{
    uint64_t n = 0;
    for (int d = 1; d <= BINS; d++)
        n += h[d];
    double stat = 0, tail_e = 0, tail_o = 0;
    int bins = 0;
    for (int d = 1; d <= BINS; d++) {
        double pr = d < BINS ? pow(1 - p, d - 1) * p : pow(1 - p, BINS - 1), ex = pr * (double)n;
        if (ex < 5 || d == BINS) {
            tail_e += ex;
            tail_o += (double)h[d];
            continue;
        }
        stat += ((double)h[d] - ex) * ((double)h[d] - ex) / ex;
        bins++;
    }
    if (tail_e > 0) {
        stat += (tail_o - tail_e) * (tail_o - tail_e) / tail_e;
        bins++;
    } else {
        assert_true(tail_o == 0);
    }
    *df = bins - 1;
    return stat;
}

/* Two-sample chi-square (homogeneity) of two histograms over bins with
 * at least 10 in both together; returns the statistic, *df its degrees. */
static double two_sample_chi2(const uint64_t *a, const uint64_t *b, int *df)
{
    double na = 0, nb = 0;
    for (int d = 1; d <= BINS; d++)
        na += (double)a[d], nb += (double)b[d];
    double stat = 0, ra = 0, rb = 0;
    int bins = 0;
    for (int d = 1; d <= BINS; d++) {
        ra += (double)a[d];
        rb += (double)b[d];
        if (ra + rb < 10 && d < BINS)
            continue;
        double t = ra + rb, ea = t * na / (na + nb), eb = t * nb / (na + nb);
        if (t > 0) {
            stat += (ra - ea) * (ra - ea) / ea + (rb - eb) * (rb - eb) / eb;
            bins++;
        }
        ra = rb = 0;
    }
    *df = bins - 1;
    return stat;
}

static void test_gaps_are_geometric(void **state)
{
    (void)state;
    static const double ps[] = {0.02, 0.1, 0.3, 0.7};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        double p = ps[i];
        uint32_t cycles = (uint32_t)(4000.0 / p);
        gen_log g[2];
        run_generation(KC_INJECT_BERNOULLI, 10 * p, 10, cycles, 7 + i, &g[0]);
        run_generation(KC_INJECT_BERNOULLI_GAPS, 10 * p, 10, cycles, 7 + i, &g[1]);
        for (int s = 0; s < 2; s++) {
            assert_int_equal(g[s].twice, 0); /* a source makes at most one message a cycle */
            double n = 64.0 * cycles, mean = n * p, sd = sqrt(n * p * (1 - p));
            assert_true(fabs((double)g[s].msgs - mean) < 5 * sd);
            int df;
            double chi = geometric_chi2(g[s].gap, p, &df);
            assert_true(df >= 1);
            assert_true(chi < chi2_limit(df));
        }
        int df;
        double chi = two_sample_chi2(g[0].gap, g[1].gap, &df);
        assert_true(df >= 1);
        assert_true(chi < chi2_limit(df));
    }
}

/* The first message's cycle c has P(c) = (1 - p)^c p (a trial at every
 * cycle from 0): over many seeds, the two samplers agree with it. */
static void test_first_message(void **state)
{
    (void)state;
    double p = 0.2;
    uint64_t first[2][BINS + 1];
    memset(first, 0, sizeof first);
    for (uint64_t seed = 1; seed <= 200; seed++)
        for (int s = 0; s < 2; s++) {
            gen_log g;
            run_generation(s ? KC_INJECT_BERNOULLI_GAPS : KC_INJECT_BERNOULLI, 4 * p, 4, 200, seed, &g);
            for (int d = 1; d <= BINS; d++)
                first[s][d] += g.first[d];
        }
    for (int s = 0; s < 2; s++) {
        int df;
        double chi = geometric_chi2(first[s], p, &df);
        assert_true(chi < chi2_limit(df));
    }
}

/* Load equal to the message length: a message every cycle from every
 * source, with either sampler. */
static void test_every_cycle(void **state)
{
    (void)state;
    for (int s = 0; s < 2; s++) {
        gen_log g;
        run_generation(s ? KC_INJECT_BERNOULLI_GAPS : KC_INJECT_BERNOULLI, 8, 8, 500, 3, &g);
        assert_int_equal(g.msgs, 64 * 500);
        assert_int_equal(g.twice, 0);
        assert_int_equal(g.gap[1], 64 * 499);
        assert_int_equal(g.first[1], 64);
    }
}

/* A process outside the enumeration is refused, not run as some other. */
static void test_unknown_process(void **state)
{
    (void)state;
    kc_err err;
    kc_simscenario sc;
    kc_test_sim_uniform_cube(&sc, 3);
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.process = (kc_siminject)(KC_INJECT_BERNOULLI_GAPS + 1);
    kc_simresult res;
    assert_int_equal(kc_sim_run(&sc.net, &sc.route, &sc.traffic, &c, &res, &err), KC_EINVAL);
    kc_simscenario_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaps_are_geometric),
        cmocka_unit_test(test_first_message),
        cmocka_unit_test(test_every_cycle),
        cmocka_unit_test(test_unknown_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
