/* The two replay models side by side: one schedule of about 10^6
 * operations (122 phases of 4096 messages of 64 bytes on 4096 ranks:
 * transposes and bit-reverses with random complements, each phase after the
 * previous one on every rank) run by the flit-level network replay
 * (kc_appsim_run, 12-cube, e-cube, nCUBE 2 timing) and by the LogGOPS model
 * (kc_loggops_run, LogGOPSim's defaults), and by the network replay with
 * LogGOPSim's o, g, O, S for its CPUs and NICs (each in the LogGOPS run's
 * order: kc_appsim_run_order), each REPS times (default 3);
 * medians of the wall time, operations per second, and the makespans.
 *
 *   bench_replay [--quick] [REPS]     --quick: 8-cube, 40 phases */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kcube/appsim.h"
#include "kcube/goal.h"
#include "kcube/lcc.h"
#include "kcube/loggops.h"
#include "kcube/rng.h"

static void die(const kc_err *err)
{
    fprintf(stderr, "bench_replay: %s\n", err->msg);
    exit(1);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int reps = argc > 1 + quick ? atoi(argv[1 + quick]) : 3;
    if (reps < 1 || reps > 99)
        reps = 3;
    int n = quick ? 8 : 12, phases = quick ? 40 : 122;
    kc_err err = {0};
    kc_simnet net;
    kc_goal g;
    kc_rng rng;
    kc_rng_seed(&rng, 21);
    if (kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, n, 1, 1, 1, 1, &err) || kc_goal_init(&g, 1u << n, &err))
        die(&err);
    for (int ph = 0; ph < phases; ph++) {
        kc_lcc c;
        if (kc_lcc_named(&c, (ph % 2) ? "bit-reverse" : "transpose", n, &err))
            die(&err);
        c.b = kc_rng_next(&rng) & ((1u << n) - 1);
        if (kc_goal_gen_lcc(&g, &c, 64, "p", ph, &err))
            die(&err);
    }
    kc_goal_match m;
    if (kc_goal_validate(&g, net.nodes, &m, &err))
        die(&err);
    printf("%d-cube, %u ranks, %zu operations (%zu messages of 64 bytes), %zu dependences; %d runs each\n", n,
           g.num_ranks, g.nops, m.messages, g.ndeps, reps);

    kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    kc_simconfig cfg;
    kc_simconfig_default(&cfg);
    double tn[99], tl[99], tf[99], net_total = 0, loggp = 0, fx_total = 0, fx_loggops = 0;
    uint64_t makespan = 0, events = 0;
    kc_loggops_params lgp = KC_LOGGOPS_PARAMS_DEFAULT;
    kc_appsim_opts fo = KC_APPSIM_OPTS_DEFAULT;
    fo.loggops = &lgp;
    for (int i = 0; i < reps; i++) {
        kc_appsim_result r;
        double t0 = bench_now();
        if (kc_appsim_run(&g, &m, &net, &route, &cfg, NULL, &r, &err))
            die(&err);
        tn[i] = bench_now() - t0;
        net_total = r.total_us;
        loggp = r.loggp_us;
        kc_appsim_result_free(&r);

        kc_loggops_result lr;
        t0 = bench_now();
        if (kc_loggops_run(&g, NULL, NULL, NULL, &lr, &err))
            die(&err);
        tl[i] = bench_now() - t0;
        makespan = lr.makespan_ns;
        events = lr.events;
        kc_loggops_result_free(&lr);

        t0 = bench_now();
        if (kc_appsim_run_order(&g, &m, &net, &route, &cfg, &fo, NULL, NULL, KC_APPSIM_ORDER_LOGGOPS, &r, &err))
            die(&err);
        tf[i] = bench_now() - t0;
        fx_total = r.total_us;
        fx_loggops = r.loggops_us;
        kc_appsim_result_free(&r);
    }
    double mn = bench_median(tn, reps), ml = bench_median(tl, reps), mf = bench_median(tf, reps);
    printf("model                          median s   Mops/s   makespan\n");
    printf("network (flit-level, nCUBE 2)  %8.3f  %7.2f   %.0f us (contention-free LogGP %.0f us)\n", mn,
           (double)g.nops / mn / 1e6, net_total, loggp);
    printf("loggops (LogGOPSim defaults)   %8.3f  %7.2f   %llu ns (%llu events)\n", ml,
           (double)g.nops / ml / 1e6, (unsigned long long)makespan, (unsigned long long)events);
    printf("network + LogGOPS CPU/NIC      %8.3f  %7.2f   %.0f us (LogGOPS with its zero-load L, G %.0f us)\n", mf,
           (double)g.nops / mf / 1e6, fx_total, fx_loggops);
    kc_goal_match_free(&m);
    kc_goal_free(&g);
    kc_simnet_free(&net);
    return 0;
}
