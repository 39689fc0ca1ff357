/* CALMANT schedules (seed 003): generation and verification time at the
 * issue's sizes (medians of several runs, wall and CPU time), the verifier's
 * interval check against the hop-by-hop walk of every step (the naive
 * replay), and with --gaps the exhaustive table of P - LB over all tasks,
 * every schedule replayed by the verifier (meshes and tori, every tie rule).
 * Usage: bench_calmant [--quick] | --gaps DMAX [mesh|torus] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#include "kcube/calmant_cost.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Build (torus: kcube's torus schedule) and verify <i,M>_c; exit on any fault. */
static uint64_t build_verify(const kc_calmant *g, kc_calmant_task t, int walk, double *gen, double *ver)
{
    kc_calmant_sched s = {0};
    kc_calmant_verdict v;
    kc_calmant_verify_opts o = {.walk = walk};
    kc_err err = {0};
    double t0 = cpu_now();
    kc_status st = g->torus ? kc_calmant_sched_torus(g, t, &s, &err) : kc_calmant_sched_task(g, t, &s, &err);
    double t1 = cpu_now();
    if (!st)
        st = kc_calmant_verify_with(g, t, &s, &o, &v, &err);
    double t2 = cpu_now();
    if (st || v.conflicts || v.missing || v.unexpected) {
        fprintf(stderr, "d=%d c=%d torus=%d <%d,%d>: %s %llu conflicts %llu missing %llu unexpected\n", g->d, g->c,
                g->torus, t.i, t.m, err.msg, (unsigned long long)v.conflicts, (unsigned long long)v.missing,
                (unsigned long long)v.unexpected);
        exit(1);
    }
    if (gen)
        *gen = t1 - t0;
    if (ver)
        *ver = t2 - t1;
    kc_calmant_sched_free(&s);
    return v.steps;
}

static void timing(int d, int c, int torus, kc_tie tie, int runs, int walk_runs)
{
    kc_calmant g;
    if (kc_calmant_init(&g, d, c, torus, tie, KC_CALMANT_STANDARD, NULL))
        exit(1);
    kc_calmant_task t = {0, d};
    double gen[9], ver[9], wall[9], walk[9];
    uint64_t steps = 0;
    for (int r = 0; r < runs; r++) {
        double w0 = bench_now();
        steps = build_verify(&g, t, 0, &gen[r], &ver[r]);
        wall[r] = bench_now() - w0;
    }
    kc_calmant_load L;
    if (kc_calmant_load_exact(&g, t, &L, NULL))
        exit(1);
    printf("  <0,%d>_%d %-11s %6d steps (LB %6llu)  generate %6.3f s  verify %6.3f s  (CPU; wall %6.3f s)", d, c,
           torus ? kc_tie_name(tie) : "mesh", (int)steps, (unsigned long long)L.lower_bound, bench_median(gen, runs),
           bench_median(ver, runs), bench_median(wall, runs));
    for (int r = 0; r < walk_runs; r++)
        build_verify(&g, t, 1, NULL, &walk[r]);
    if (walk_runs)
        printf("  walk every hop %7.2f s", bench_median(walk, walk_runs));
    putchar('\n');
}

/* One row of the gap table: all tasks on d, c (mesh or torus with tie). */
static void gap_row(int d, int c, int torus, kc_tie tie)
{
    kc_calmant g;
    if (kc_calmant_init(&g, d, c, torus, tie, KC_CALMANT_STANDARD, NULL))
        exit(1);
    int tasks = 0, maxgap = 0, hist[6] = {0}, maxsub = 0, offrule = 0;
    for (int i = 0; i < d; i++)
        for (int m = 1; i + m <= d; m++) {
            kc_calmant_task t = {i, m};
            kc_calmant_load L;
            if (kc_calmant_load_exact(&g, t, &L, NULL))
                exit(1);
            uint64_t p = build_verify(&g, t, 0, NULL, NULL);
            int gap = (int)(p - L.lower_bound);
            if (p < L.lower_bound) {
                fprintf(stderr, "below the lower bound: d=%d c=%d <%d,%d>\n", d, c, i, m);
                exit(1);
            }
            /* Lemma 2's difference and Section 4.3's rule P = sum LB(subtasks) + r */
            kc_calmant_task parts[KC_CALMANT_MAX_D + 1];
            size_t np = kc_calmant_decompose(t, c, parts);
            uint64_t sum = 0, x = (uint64_t)(m % (2 * c));
            for (size_t k = 0; k < np; k++)
                sum += kc_calmant_lower_bound(parts[k].i, parts[k].m, c);
            uint64_t r = x > (uint64_t)c && kc_calmant_lower_bound(i, (int)x, c) % 2;
            maxsub = (int)(sum - kc_calmant_lower_bound(i, m, c)) > maxsub ? (int)(sum - kc_calmant_lower_bound(i, m, c))
                                                                           : maxsub;
            offrule += p != sum + r;
            tasks++;
            maxgap = gap > maxgap ? gap : maxgap;
            hist[gap < 5 ? gap : 5]++;
        }
    printf("| %s | %d | %d | %d | %d | %d/%d/%d/%d/%d/%d |", torus ? kc_tie_name(tie) : "mesh", c, d, tasks, maxgap,
           hist[0], hist[1], hist[2], hist[3], hist[4], hist[5]);
    if (!torus)
        printf(" %d | %d |", maxsub, offrule);
    putchar('\n');
    fflush(stdout);
}

static void gaps(int dmax, const char *only)
{
    if (only && strcmp(only, "torus") == 0)
        printf("| ties | c | d | tasks | max P-LB | P-LB = 0/1/2/3/4/5+ |\n|---|---|---|---|---|---|\n");
    else
        printf("| topology | c | d | tasks | max P-LB | P-LB = 0/1/2/3/4/5+ | max sum LB(sub) - LB | P != sum + r |\n"
               "|---|---|---|---|---|---|---|---|\n");
    for (int topo = 0; topo < 4; topo++)
        for (int c = 1; c <= 3 && (!only || (strcmp(only, "mesh") == 0) == (topo == 0)); c++)
            for (int d = 2 * c; d <= dmax; d += c)
                gap_row(d, c, topo > 0, topo == 1 ? KC_TIE_PLUS : topo == 2 ? KC_TIE_MINUS : KC_TIE_SPLIT);
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--gaps") == 0) {
        gaps(atoi(argv[2]), argc > 3 ? argv[3] : NULL);
        return 0;
    }
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int runs = quick ? 1 : 5;
    printf("CALMANT schedule generation and verification (medians of %d runs; the hop-by-hop walk of\n"
           "every step is the naive verifier the interval check replaces):\n", runs);
    timing(16, 1, 0, KC_TIE_PLUS, runs, quick ? 0 : 1);
    timing(16, 2, 0, KC_TIE_PLUS, runs, quick ? 0 : 3);
    timing(18, 3, 0, KC_TIE_PLUS, runs, quick ? 0 : 3);
    printf("tori (generation includes the counter's LB and the compaction):\n");
    for (int tie = KC_TIE_PLUS; tie <= KC_TIE_SPLIT; tie += KC_TIE_SPLIT - KC_TIE_PLUS) {
        timing(16, 1, 1, (kc_tie)tie, quick ? 1 : 3, 0);
        timing(16, 2, 1, (kc_tie)tie, quick ? 1 : 3, 0);
        timing(18, 3, 1, (kc_tie)tie, quick ? 1 : 3, 0);
    }
    return 0;
}
