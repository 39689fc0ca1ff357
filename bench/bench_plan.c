/* The front door (kcube/plan.h) against calling the engines directly:
 * kc_map auto (reorder + linear + bounded search + exact re-count) and the
 * same steps by hand, on hypercubes up to n = 24 and on k-ary n-cubes. */
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "kcube/contention.h"
#include "kcube/plan.h"

#define REPS 3

typedef struct setup {
    kc_topology t;
    kc_comm c[3];
    int count;
} setup;

static int make(setup *s, int k, int n, const char *const *names, int count)
{
    kc_err err = {0};
    kc_status st = k == 2 ? kc_topology_hypercube(&s->t, n, &err) : kc_topology_torus(&s->t, k, n, KC_TIE_PLUS, &err);
    for (int r = 0; r < count && !st; r++)
        st = kc_comm_named(&s->c[r], &s->t, names[r], &err);
    s->count = count;
    if (st)
        fprintf(stderr, "bench_plan: %s\n", err.msg);
    return st != KC_OK;
}

/* kc_map with the given kind; median seconds, and the result's figures. */
static double time_map(const setup *s, kc_map_kind kind, int exact, kc_map_result *keep)
{
    double v[REPS];
    for (int i = 0; i < REPS; i++) {
        kc_map_opts o;
        kc_map_opts_default(&o);
        o.kind = kind;
        o.exact = exact;
        kc_map_result r;
        double t0 = bench_now();
        kc_status st = kc_map(&s->t, s->c, s->count, &o, &r, NULL);
        v[i] = bench_now() - t0;
        if (st) {
            kc_map_result_free(&r);
            return -1;
        }
        if (i == REPS - 1)
            *keep = r;
        else
            kc_map_result_free(&r);
    }
    return bench_median(v, REPS);
}

/* The same work by hand: best reordering, Theorem 4 construction, search
 * with the same budget, no re-count. */
static double time_engines(const setup *s)
{
    double v[REPS];
    kc_lcc l[3];
    kc_tcomm tc[3];
    for (int r = 0; r < s->count; r++) {
        l[r] = s->c[r].lcc;
        tc[r] = s->c[r].t;
    }
    kc_torus tor;
    kc_topology_to_torus(&s->t, &tor, "bench", NULL);
    kc_map_opts o;
    kc_map_opts_default(&o);
    for (int i = 0; i < REPS; i++) {
        double t0 = bench_now();
        kc_tmap lin, found;
        if (s->t.k == 2) {
            kc_mapset_result res;
            kc_mapset_optimal(l, s->count, KC_OBJ_MAX, &res, NULL, NULL);
        } else {
            kc_tmap_reorder(&tor, tc, s->count, &lin, NULL, NULL, NULL, NULL, NULL);
        }
        kc_tmap_linear(tc, s->count, 1, &lin, NULL);
        kc_tsearch_opts so = {1, kc_map_budget(&o, s->t.n, s->count), 0};
        kc_tmap_search(&tor, tc, s->count, &lin, &so, &found, NULL, NULL, NULL);
        v[i] = bench_now() - t0;
    }
    return bench_median(v, REPS);
}

static void row(int k, int n, const char *const *names, int count)
{
    setup s;
    if (make(&s, k, n, names, count))
        return;
    char topo[64], label[128] = "";
    kc_topology_format(&s.t, topo, sizeof topo);
    for (int r = 0; r < count; r++)
        snprintf(label + strlen(label), sizeof label - strlen(label), "%s%s", r ? "+" : "", names[r]);
    kc_map_result ra, rr, rn;
    double ta = time_map(&s, KC_MAP_AUTO, KC_EXACT_AUTO, &ra);
    double tn = time_map(&s, KC_MAP_AUTO, 0, &rn);
    double tr = time_map(&s, KC_MAP_REORDER, 0, &rr);
    double te = s.t.n <= KC_MAPSET_AUTO_N && (k > 2 ? s.t.n <= KC_TMAP_REORDER_MAX_N : 1) ? time_engines(&s) : -1;
    if (ta < 0 || tn < 0 || tr < 0) {
        printf("%-14s %-32s failed\n", topo, label);
        return;
    }
    const kc_map_candidate *cl = NULL;
    for (int i = 0; i < ra.ncandidates; i++)
        if (ra.candidates[i].kind == KC_MAP_LINEAR)
            cl = &ra.candidates[i];
    printf("%-14s %-34s %8.3f %8.3f %8.3f %8.3f  %-7s %3llu/%-4llu reorder %llu/%llu  evals %llu\n", topo, label, ta, tn,
           tr, te, kc_names_name(&kc_map_kind_names, ra.kind), (unsigned long long)ra.value,
           (unsigned long long)ra.total, (unsigned long long)rr.value, (unsigned long long)rr.total,
           (unsigned long long)(cl ? cl->evaluations : 0));
    kc_map_result_free(&ra);
    kc_map_result_free(&rn);
    kc_map_result_free(&rr);
}

int main(void)
{
    printf("kc_map, median of %d runs, seconds: auto (with exact re-count where N <= 2^20), auto without re-count,\n"
           "reorder only, and the engines called by hand (best reordering + Theorem 4 + search, same budget)\n",
           REPS);
    printf("%-14s %-34s %8s %8s %8s %8s  %-7s %8s\n", "topology", "communications", "auto", "auto-nx", "reorder",
           "engines", "chosen", "value/total");
    static const char *const tb[] = {"transpose", "bit-reverse", "reverse-flip"};
    static const char *const td[] = {"transpose", "digit-reverse", "digit-swap:1"};
    for (int n = 8; n <= 20; n += 4) {
        row(2, n, tb, 1);
        row(2, n, tb, 2);
        row(2, n, tb, 3);
    }
    row(2, 24, tb, 2);
    row(2, 32, tb, 1);
    row(4, 4, td, 2);
    row(4, 8, td, 2);
    row(4, 10, td, 3);
    row(16, 4, td, 2);
    return 0;
}
