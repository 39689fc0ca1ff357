/* Simulator speed: link flit-traversals per second on one core.
 *
 * Uniform traffic, 20-flit messages, fixed 1000 warm-up + 5000 measured
 * cycles (no early stop, so saturated points run the full length too);
 * median of 3 runs. Then growth with network size and memory per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/rng.h"
#include "kcube/sim.h"
#include "kcube/simref.h"
#include <time.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void measure(const char *label, kc_simtopo topo, int k, int n, int vcs, kc_simalgo algo, double load,
                    int64_t cycles)
{
    kc_err err;
    kc_simnet net;
    kc_simtraffic tr;
    if (kc_simnet_init(&net, topo, k, n, vcs, 1, 1, 1, &err) || kc_simtraffic_uniform(&tr, net.nodes, NULL, &err)) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        exit(1);
    }
    kc_simroute r = {algo, KC_VC_HIGHLOW, KC_TIE_PLUS};
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.load = load;
    c.warmup = cycles / 6;
    c.measure = cycles - c.warmup;
    c.drain = 0;
    c.queue_cap = 1e9;
    double rate[3], secs[3];
    uint64_t trav = 0;
    for (int i = 0; i < 3; i++) {
        kc_simresult res;
        c.seed = (uint64_t)i + 1;
        if (kc_sim_run(&net, &r, &tr, &c, &res, &err)) {
            fprintf(stderr, "bench_sim: %s\n", err.msg);
            exit(1);
        }
        rate[i] = (double)res.link_traversals / res.wall_seconds;
        secs[i] = res.wall_seconds;
        trav = res.link_traversals;
        kc_simresult_free(&res);
    }
    qsort(rate, 3, sizeof *rate, cmp_d);
    qsort(secs, 3, sizeof *secs, cmp_d);
    size_t mem = kc_sim_memory(&net, &c);
    printf("%-22s %8u nodes  load %.2f  %9.1f M traversals/s  %8.3f s  %6.2f us/cycle  %7llu traversals  %5zu B/node\n",
           label, net.nodes, load, rate[1] / 1e6, secs[1], secs[1] / (double)cycles * 1e6,
           (unsigned long long)trav, mem / net.nodes);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The engine against the plain reference simulator (kcube/simref.h) on the
 * same one-shot workload: every node sends `per_node` uniform messages. */
static void versus_reference(kc_simtopo topo, int k, int n, int vcs, kc_simalgo algo, int per_node)
{
    kc_err err;
    kc_simnet net;
    if (kc_simnet_init(&net, topo, k, n, vcs, 1, 1, 1, &err)) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        exit(1);
    }
    size_t count = (size_t)net.nodes * (size_t)per_node;
    uint32_t *s = malloc(count * sizeof *s), *d = malloc(count * sizeof *d);
    kc_rng rng;
    kc_rng_seed(&rng, 5);
    for (size_t i = 0; i < count; i++) {
        s[i] = (uint32_t)(i % net.nodes);
        d[i] = (uint32_t)kc_rng_below(&rng, net.nodes);
    }
    kc_simroute r = {algo, KC_VC_HIGHLOW, KC_TIE_PLUS};
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    kc_simtraffic tr;
    kc_simresult res;
    kc_simref_result ref;
    double te[3], tn[3];
    for (int i = 0; i < 3; i++) {
        double t0 = now_s();
        if (kc_simtraffic_pairs(&tr, net.nodes, s, d, count, NULL, &err) || kc_sim_run(&net, &r, &tr, &c, &res, &err)) {
            fprintf(stderr, "bench_sim: %s\n", err.msg);
            exit(1);
        }
        kc_simtraffic_free(&tr);
        double t1 = now_s();
        if (kc_simref_run(&net, &r, s, d, count, &c, &ref, &err)) {
            fprintf(stderr, "bench_sim: %s\n", err.msg);
            exit(1);
        }
        double t2 = now_s();
        te[i] = t1 - t0;
        tn[i] = t2 - t1;
    }
    qsort(te, 3, sizeof *te, cmp_d);
    qsort(tn, 3, sizeof *tn, cmp_d);
    printf("%u nodes, %d messages/node one-shot: engine %.4f s, reference %.4f s (%.0fx), completion %lld = %lld, "
           "traversals %llu = %llu\n",
           net.nodes, per_node, te[1], tn[1], tn[1] / te[1], (long long)res.completion, (long long)ref.completion,
           (unsigned long long)res.link_traversals, (unsigned long long)ref.link_traversals);
    free(s);
    free(d);
    kc_simnet_free(&net);
}

int main(void)
{
    printf("Link flit-traversals per second, one core, uniform traffic, 20-flit messages (median of 3)\n");
    double loads[3] = {0.05, 0.2, 0.4};
    for (int i = 0; i < 3; i++)
        measure("8-cube e-cube", KC_SIM_HYPERCUBE, 2, 8, 1, KC_ROUTE_ECUBE, loads[i], 30000);
    for (int i = 0; i < 3; i++)
        measure("4-ary 4-cube dor 2vc", KC_SIM_TORUS, 4, 4, 2, KC_ROUTE_DOR, loads[i], 30000);
    printf("\nGrowth with network size (binary n-cube, e-cube, load 0.2)\n");
    measure("8-cube", KC_SIM_HYPERCUBE, 2, 8, 1, KC_ROUTE_ECUBE, 0.2, 12000);
    measure("12-cube", KC_SIM_HYPERCUBE, 2, 12, 1, KC_ROUTE_ECUBE, 0.2, 3000);
    measure("16-cube", KC_SIM_HYPERCUBE, 2, 16, 1, KC_ROUTE_ECUBE, 0.2, 600);
    printf("(B/node: fixed state of the network, channels and source bookkeeping; worms and queues grow on demand)\n");
    printf("\nEngine vs the plain reference simulator (flit objects, full scans), median of 3\n");
    versus_reference(KC_SIM_HYPERCUBE, 2, 8, 1, KC_ROUTE_ECUBE, 8);
    versus_reference(KC_SIM_TORUS, 4, 4, 2, KC_ROUTE_DOR, 8);
    return 0;
}
