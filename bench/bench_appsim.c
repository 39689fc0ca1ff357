/* Application-level simulation (kcube/appsim.h): seed 000 Section 6.2's FFT
 * on the 8-cube (m = 2^10, 2^12, 2^14), e-cube, without and with the
 * optimal reordering of the bit-reverse, nCUBE 2 timing; then a schedule of
 * 10^6 messages on the 12-cube (244 phases of random permutations, 4096
 * messages of 64 bytes each) for speed and memory (see the closing line and
 * GNU time's maximum RSS). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kcube/appsim.h"
#include "kcube/goal.h"
#include "kcube/lcc.h"
#include "kcube/reorder.h"
#include "kcube/rng.h"

static void die(const kc_err *err)
{
    fprintf(stderr, "bench_appsim: %s\n", err->msg);
    exit(1);
}

static uint32_t phase_of(const kc_goal *g, const char *name)
{
    for (uint32_t i = 0; i < g->nphases; i++)
        if (!strcmp(kc_goal_phase_name(g, i), name))
            return i;
    return 0;
}

static void run(kc_goal *g, kc_simnet *net, kc_appsim_result *r, double *secs)
{
    kc_err err = {0};
    kc_goal_match m;
    kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    kc_simconfig cfg;
    kc_simconfig_default(&cfg);
    double t0 = bench_now();
    if (kc_goal_validate(g, net->nodes, &m, &err) || kc_appsim_run(g, &m, net, &route, &cfg, NULL, r, &err))
        die(&err);
    *secs = bench_now() - t0;
    kc_goal_match_free(&m);
}

static void fft(int n, int d, int mapped, kc_simnet *net)
{
    kc_err err = {0};
    kc_goal g;
    uint32_t p = 1u << n;
    if (kc_goal_init(&g, p, &err) || kc_goal_gen_fft(&g, n, d, 5120, 4470, &err))
        die(&err);
    if (mapped) {
        kc_lcc br;
        kc_order best;
        uint32_t *to = malloc(p * sizeof *to);
        if (!to || kc_lcc_named(&br, "bit-reverse", n, &err) || kc_reorder_optimal(&br, &best, &err))
            die(&err);
        for (uint32_t v = 0; v < p; v++) {
            to[v] = 0;
            for (int t = 0; t < n; t++)
                to[v] |= ((v >> best.dim[t]) & 1u) << t;
        }
        if (kc_goal_remap(&g, to, &err))
            die(&err);
        free(to);
    }
    kc_appsim_result r;
    double secs;
    run(&g, net, &r, &secs);
    printf("m = 2^%-2d %-8s total %9.2f us  bit-reverse %8.2f us  neighbour %8.2f us  compute %8.2f us  "
           "LogGP %9.2f us  (%.2f s)\n",
           n + 2 * d, mapped ? "mapped" : "e-cube", r.total_us, r.phase_us[phase_of(&g, "bit-reverse")],
           r.phase_us[phase_of(&g, "neighbour")], r.compute_us, r.loggp_us, secs);
    kc_appsim_result_free(&r);
    kc_goal_free(&g);
}

static void million(void)
{
    kc_err err = {0};
    kc_simnet net;
    kc_goal g;
    kc_rng rng;
    kc_rng_seed(&rng, 12);
    if (kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 12, 1, 1, 1, 1, &err) || kc_goal_init(&g, 4096, &err))
        die(&err);
    for (int ph = 0; ph < 244; ph++) {
        kc_lcc c;
        if (kc_lcc_named(&c, (ph % 2) ? "bit-reverse" : "transpose", 12, &err))
            die(&err);
        /* shift by a random complement so phases differ */
        c.b = kc_rng_next(&rng) & 0xfff;
        if (kc_goal_gen_lcc(&g, &c, 64, "p", ph, &err))
            die(&err);
    }
    size_t msgs = 0;
    for (size_t i = 0; i < g.nops; i++)
        msgs += g.op[i].kind == KC_GOAL_SEND;
    kc_appsim_result r;
    double secs;
    run(&g, &net, &r, &secs);
    printf("12-cube, %zu messages of 64 bytes in 244 phases: total %.0f us, LogGP %.0f us, %lld cycles, %.2f s\n",
           msgs, r.total_us, r.loggp_us, (long long)r.sim.cycles, secs);
    kc_appsim_result_free(&r);
    kc_goal_free(&g);
    kc_simnet_free(&net);
}

int main(int argc, char **argv)
{
    kc_err err = {0};
    kc_simnet net;
    if (kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, 8, 1, 1, 1, 1, &err))
        die(&err);
    for (int d = 1; d <= 3; d++)
        for (int mapped = 0; mapped <= 1; mapped++)
            fft(8, d, mapped, &net);
    kc_simnet_free(&net);
    if (argc < 2 || strcmp(argv[1], "--quick"))
        million();
    return 0;
}
