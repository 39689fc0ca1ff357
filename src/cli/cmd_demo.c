/* kcube demo: the foundation's story on the 8-cube, on built-in defaults. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "seeds.h"
#include "kcube/butterfly.h"
#include "kcube/contention.h"
#include "kcube/mapset.h"
#include "kcube/mapgeneral.h"
#include "kcube/plan.h"
#include "kcube/reorder.h"
#include "kcube/scotchmap.h"

static void dims(const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        printf("%3llu", (unsigned long long)v[i]);
}

static void order_line(const char *label, const kc_order *o)
{
    printf("  %-34s", label);
    for (int t = 0; t < o->n; t++)
        printf("%s%d", t ? " " : "", o->dim[t]);
    putchar('\n');
}

enum { DEMO_N = 8, DEMO_M = 3 };
static const char *const demo_names[DEMO_M] = {"transpose", "bit-reverse", "reverse-flip"};

static kc_status show_contention(const kc_lcc *comms, kc_err *err)
{
    int n = DEMO_N;
    printf("1. Contention per dimension, T_i = largest number of messages on one channel\n");
    printf("   %-14s %-8s", "pattern", "source");
    for (int i = 0; i < n; i++)
        printf("%3d", i);
    printf("   max\n");
    for (int r = 0; r < DEMO_M; r++) {
        kc_contention f, x;
        kc_contention_formula(&comms[r], &f);
        kc_status s = kc_contention_exact(&comms[r], &x, NULL, err);
        if (s)
            return s;
        printf("   %-14s %-8s", demo_names[r], "formula");
        dims(f.per_dim, n);
        printf("   %3llu\n", (unsigned long long)f.max);
        printf("   %-14s %-8s", "", "exact");
        dims(x.per_dim, n);
        printf("   %3llu  worst channel %llu -> %llu\n", (unsigned long long)x.max,
               (unsigned long long)x.witness[x.max_dim],
               (unsigned long long)(x.witness[x.max_dim] ^ (1ULL << x.max_dim)));
    }
    return KC_OK;
}

static kc_status show_reorderings(const kc_lcc *comms, kc_err *err)
{
    printf("\n2. Optimal reordering for each (seed 000 Fig. 3), new dimension t = old R[t]\n");
    for (int r = 0; r < DEMO_M; r++) {
        kc_order o, id;
        kc_status s = kc_reorder_optimal(&comms[r], &o, err);
        if (s)
            return s;
        kc_order_identity(&id, DEMO_N);
        char label[64];
        snprintf(label, sizeof label, "%-13s %llu -> %llu   R =", demo_names[r],
                 (unsigned long long)kc_reorder_value(&comms[r], &id),
                 (unsigned long long)kc_reorder_value(&comms[r], &o));
        order_line(label, &o);
    }
    return KC_OK;
}

static kc_status show_set(const kc_lcc *comms, kc_err *err)
{
    printf("\n3. One reordering for all three (dynamic programming, objective max)\n");
    kc_mapset_result res;
    kc_status s = kc_mapset_optimal(comms, DEMO_M, KC_OBJ_MAX, &res, NULL, err);
    if (s)
        return s;
    order_line("R =", &res.order);
    printf("   %-14s %6s %6s   T_i after\n", "pattern", "before", "after");
    for (int r = 0; r < DEMO_M; r++) {
        kc_lcc after;
        kc_contention b, a;
        kc_lcc_reorder(&after, &comms[r], res.order.dim);
        kc_contention_formula(&comms[r], &b);
        kc_contention_formula(&after, &a);
        printf("   %-14s %6llu %6llu  ", demo_names[r], (unsigned long long)b.max, (unsigned long long)a.max);
        dims(a.per_dim, DEMO_N);
        putchar('\n');
    }
    return KC_OK;
}

/* What plain `kcube map` does: every kind that applies, the best kept. */
static kc_status show_front_door(kc_err *err)
{
    kc_topology t;
    kc_comm comms[2];
    kc_status s = kc_topology_hypercube(&t, DEMO_N, err);
    for (int r = 0; r < 2 && !s; r++)
        s = kc_comm_named(&comms[r], &t, demo_names[r], err);
    kc_map_opts o;
    kc_map_opts_default(&o);
    kc_map_result res;
    if (s || (s = kc_map(&t, comms, 2, &o, &res, err)))
        return s;
    printf("\n4. Transpose and bit-reverse together, every mapping kind (kcube map):\n");
    for (int c = 0; c < res.ncandidates; c++)
        printf("   %-8s (%s) value %llu, total %llu%s\n", kc_names_name(&kc_map_kind_names, res.candidates[c].kind),
               res.candidates[c].method, (unsigned long long)res.candidates[c].value,
               (unsigned long long)res.candidates[c].total, res.candidates[c].kind == res.kind ? "  <- chosen" : "");
    printf("   a reordering keeps neighbours; a linear map over GF(2) may not, and here it removes the\n"
           "   contention of both (seed 002's Theorem 4 construction, then a seeded local search)\n");
    kc_map_result_free(&res);
    return KC_OK;
}

/* Step 5: any node permutation (the general mapper, docs/gmap.md), from the best of
 * identity, kcube's algebraic mappings, Gray-code embeddings and Scotch's. */
static kc_status show_general(kc_err *err)
{
    kc_topology t;
    kc_comm comms[DEMO_M];
    kc_traffic tr;
    kc_status s = kc_topology_hypercube(&t, DEMO_N, err);
    if (s || (s = kc_traffic_init(&tr, t.nodes, err)))
        return s;
    for (int r = 0; r < DEMO_M && !s; r++)
        if (!(s = kc_comm_named(&comms[r], &t, demo_names[r], err)))
            s = kc_traffic_add_comm(&tr, &comms[r], 1, NULL, err);
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    o.search.budget_seconds = 0.5;
    o.search.group = tr.group;
    o.search.groups = tr.groups;
    o.search.separate = 1;
    kc_mapgen_result res;
    if (!s && !(s = kc_mapgen_run(&t, &tr, comms, DEMO_M, &o, &res, err))) {
        const kc_gmap_result *g = &res.search;
        printf("\n5. All three, any node permutation (kcube map --kind general), each counted apart:\n");
        for (int i = 0; i <= g->nstarts; i++) {
            const kc_cost *c = i < g->nstarts ? &g->start_cost[i] : &g->cost;
            printf("   %-9s largest load %llu, %5llu hops%s\n", i < g->nstarts ? res.start_name[i] : "general",
                   (unsigned long long)c->max, (unsigned long long)c->hops,
                   i == g->nstarts ? "  <- searched from the best start" : "");
        }
        printf("   a largest load of 1 cannot be beaten; the hops cannot go below 720 (240 ranks move in each)\n");
    }
    kc_mapgen_result_free(&res);
    kc_traffic_free(&tr);
    return s;
}

/* Step 6: seed 001, an FFT through the butterfly emulation on Gray-coded
 * processors, three methods against the paper's counts and against the
 * serial decimation-in-frequency FFT. */
static kc_status show_butterfly(kc_err *err)
{
    enum { BN = 4, BP = 12 };
    static const kc_bfly_method methods[] = {KC_BFLY_DIRECT, KC_BFLY_BISECT_LOCAL, KC_BFLY_MULTISECT};
    uint64_t P = 1ULL << BP;
    double complex *in = malloc(P * sizeof *in), *want = malloc(P * sizeof *want), *x = malloc(P * sizeof *x);
    kc_status s = in && want && x ? KC_OK : kc_fail(err, KC_ENOMEM, "out of memory (demo)");
    for (uint64_t i = 0; !s && i < P; i++)
        in[i] = want[i] = (double)(i % 7) - 3.0 + I * (double)(i % 5);
    if (!s)
        kc_bfly_dif_serial(want, BP);
    printf("\n6. An FFT of 2^%d points on the %d-cube, processors Gray coded, %d per processor (kcube butterfly):\n",
           BP, BN, 1 << (BP - BN));
    for (size_t m = 0; !s && m < sizeof methods / sizeof methods[0]; m++) {
        kc_bfly_opts o = {.method = methods[m], .r = BN};
        kc_bfly_result res;
        kc_bfly_bounds b;
        memcpy(x, in, P * sizeof *x);
        if ((s = kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, KC_ENC_BINARY_GRAY, BN, BP, err)) ||
            (s = kc_bfly_run(&o, x, &res, err)))
            break;
        kc_bfly_get_bounds(&o, &b);
        double e = 0, top = 0;
        for (uint64_t i = 0; i < P; i++) {
            e = cabs(x[i] - want[i]) > e ? cabs(x[i] - want[i]) : e;
            top = cabs(want[i]) > top ? cabs(want[i]) : top;
        }
        printf("   %-16s %4llu transfers in sequence", kc_names_name(&kc_bfly_method_names, (int)o.method),
               (unsigned long long)res.net.transfers);
        if (b.theorem >= 0)
            printf(" (%s: %lld%s", b.which, (long long)b.theorem, b.table4 >= 0 ? "" : ")");
        if (b.table4 >= 0)
            printf("%sTable 4: %lld)", b.theorem >= 0 ? ", " : " (", (long long)b.table4);
        printf(", relative error %.1e\n", top > 0 ? e / top : e);
    }
    if (!s)
        printf("   with r = n, multisect is N-sectioning: P/2N transfers, the lower bound, Gray code or not\n");
    free(in);
    free(want);
    free(x);
    return s;
}

/* The file the "Try" line maps: step 5's traffic, in the current directory. */
#define DEMO_TRAFFIC "kcube-demo-traffic.txt"

/* Step 5's traffic as a CSV file with a header and a phase per
 * communication (docs/traffic.md), written atomically (out.h): 0, or
 * nonzero when it could not be (said on standard error). */
static int write_traffic(kc_err *err)
{
    kc_topology t;
    kc_comm c;
    kc_traffic tr;
    kc_status s = kc_topology_hypercube(&t, DEMO_N, err);
    if (s || (s = kc_traffic_init(&tr, t.nodes, err)))
        return 1;
    for (int r = 0; r < DEMO_M && !s; r++)
        if (!(s = kc_comm_named(&c, &t, demo_names[r], err)))
            s = kc_traffic_add_comm(&tr, &c, 1, NULL, err);
    cli_atomic at;
    int rc = s ? 1 : cli_atomic_open(&at, DEMO_TRAFFIC);
    if (!rc) {
        fprintf(at.f, "# kcube demo: transpose, bit-reverse and reverse-flip on the %d-cube, a phase each\n"
                      "# (step 5); map it with: kcube map --traffic " DEMO_TRAFFIC "\nsrc,dst,bytes\n", DEMO_N);
        /* kc_traffic_add_comm makes each communication a group, in order */
        for (size_t m = 0, phase = 0; m < tr.count; m++) {
            if (m == 0 || tr.group[m] != tr.group[m - 1])
                fprintf(at.f, "# phase %s\n", demo_names[phase++]);
            fprintf(at.f, "%u,%u,%llu\n", tr.src[m], tr.dst[m], (unsigned long long)tr.bytes[m]);
        }
        rc = cli_atomic_commit(&at);
    }
    kc_traffic_free(&tr);
    return rc;
}

static void try_lines(int wrote)
{
    if (wrote)
        printf("\nStep 5's traffic is in ./" DEMO_TRAFFIC " (written here: CSV with a header, a phase each).\n");
    else
        printf("\n(" DEMO_TRAFFIC " could not be written in this directory: run the demo where it can be.)\n");
    printf("Try: kcube analyze --n 8 --pattern transpose\n"
           "     kcube map --n 8 --pattern transpose --pattern bit-reverse --objective simultaneous --json\n");
    if (wrote)
        printf("     kcube map --traffic " DEMO_TRAFFIC "%s\n", kc_scotch_available() ? " --baseline scotch" : "");
    printf("     kcube butterfly --n 4 --p 10 --method multisect --r 4 --fft\n");
}

static int run(const cli_args *a)
{
    kc_lcc comms[DEMO_M];
    kc_err err = {0};
    for (int r = 0; r < DEMO_M; r++)
        if (kc_lcc_named(&comms[r], demo_names[r], DEMO_N, &err))
            return cli_report(a, &err);
    printf("kcube demo: linear-complement communication on the %d-cube (%d nodes), e-cube routing\n\n", DEMO_N,
           1 << DEMO_N);
    if (show_contention(comms, &err) || show_reorderings(comms, &err) || show_set(comms, &err) ||
        show_front_door(&err) || show_general(&err) || show_butterfly(&err))
        return cli_report(a, &err);
    try_lines(write_traffic(&err) == 0);
    cli_seed_key(stdout, "seed 000 seed 002"); /* the papers the steps above cite by number */
    return CLI_EXIT_OK;
}

static const cli_use demo_opts[] = {{NULL, NULL, NULL}};

const cli_command kc_command_demo = {
    .name = "demo",
    .summary = "a guided tour on built-in defaults (the README's first command)",
    .order = 0,
    .description = "Shows, for the 8-cube, transpose, bit-reverse and reverse-flip: contention per dimension\n"
                   "under e-cube routing (Theorem 1 and exact count), the optimal reordering of each, and the\n"
                   "best single reordering for all three; then what plain `kcube map` finds for transpose and\n"
                   "bit-reverse when linear mappings are allowed too; any node permutation (the general mapper);\n"
                   "and an FFT through the butterfly emulation on Gray-coded processors (seed 001).",
    .opts = demo_opts,
    .run = run,
};
