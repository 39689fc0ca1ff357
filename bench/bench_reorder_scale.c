/* Scale of seed 000's exact methods: the subset DP for a set of
 * communications at n = 20..28, the search beyond it, and the exact
 * contention count at n = 24..30. One measurement per process, so that the
 * peak RSS (getrusage) belongs to it:
 *   bench_reorder_scale dp N [THREADS]      transpose, bit-reverse, reverse-flip, shuffle: the DP alone
 *   bench_reorder_scale dp-search N         the search, then the DP pruned by its value (what kc_map runs)
 *   bench_reorder_scale search N [WORK_M]   the same set, kc_mapset_search
 *   bench_reorder_scale exact N [THREADS]   kc_contention_exact of transpose
 *   bench_reorder_scale bound N             the search, then kc_mapset_bound below its value, then
 *                                           with reach_upper (what kc_map runs before the DP; prints
 *                                           the sets reached)
 * Prints one line: mode n seconds peak_rss_MiB value [lower bound]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "kcube/contention.h"
#include "kcube/mapset.h"

static const char *const set_names[] = {"transpose", "bit-reverse", "reverse-flip", "shuffle"};

static double rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* kilobytes on Linux */
}

/* What every mode shares: the set of four communications at n, the
 * optional third argument, the start time and the error. */
typedef struct {
    kc_lcc c[4];
    int n;
    double extra; /* THREADS or WORK_M; 0 when absent */
    double t0;
    kc_err err;
} scale_run;

/* Prints the library's error; returns the exit code of a failed run. */
static int fail(const scale_run *s)
{
    fprintf(stderr, "%s\n", s->err.msg);
    return 1;
}

/* The search with its default options, as kc_map runs it first: its result
 * into sr and the seconds since the start into ts; nonzero on error. */
static int search_first(scale_run *s, kc_mapset_search_result *sr, double *ts)
{
    if (kc_mapset_search(s->c, 4, KC_OBJ_MAX, NULL, sr, NULL, &s->err) != KC_OK)
        return 1;
    *ts = bench_now() - s->t0;
    return 0;
}

/* The subset DP into r, on threads threads (0: the default) and below the
 * value of sr when given; nonzero on error. */
static int subset_dp(scale_run *s, int threads, const kc_mapset_search_result *sr, kc_mapset_result *r)
{
    kc_mapset_opts o;
    kc_mapset_opts_default(&o);
    if (threads > 0)
        o.threads = threads;
    if (sr)
        o.upper = sr->best.value;
    return kc_mapset_optimal_ex(s->c, 4, KC_OBJ_MAX, &o, r, NULL, &s->err) != KC_OK;
}

/* The search, then the DP pruned by the search's value (what kc_map runs). */
static int run_dp_search(scale_run *s)
{
    kc_mapset_search_result sr;
    double ts;
    if (search_first(s, &sr, &ts))
        return fail(s);
    kc_mapset_result r;
    if (subset_dp(s, 0, &sr, &r))
        return fail(s);
    printf("dp-search %d %.2f %.0f %llu (search %.2f s: %llu)\n", s->n, bench_now() - s->t0, rss_mib(),
           (unsigned long long)r.value, ts, (unsigned long long)sr.best.value);
    return 0;
}

/* The subset DP alone, on THREADS threads when given. */
static int run_dp(scale_run *s)
{
    kc_mapset_result r;
    if (subset_dp(s, s->extra > 0 ? (int)s->extra : 0, NULL, &r))
        return fail(s);
    printf("dp %d %.2f %.0f %llu\n", s->n, bench_now() - s->t0, rss_mib(), (unsigned long long)r.value);
    return 0;
}

/* kc_mapset_search with a budget of WORK_M million steps when given. */
static int run_search(scale_run *s)
{
    kc_mapset_search_opts o;
    kc_mapset_search_opts_default(&o);
    if (s->extra > 0)
        o.work = (uint64_t)(s->extra * 1e6);
    kc_mapset_search_result r;
    if (kc_mapset_search(s->c, 4, KC_OBJ_MAX, &o, &r, NULL, &s->err) != KC_OK)
        return fail(s);
    printf("search %d %.2f %.0f %llu %llu\n", s->n, bench_now() - s->t0, rss_mib(), (unsigned long long)r.best.value,
           (unsigned long long)r.lower);
    return 0;
}

/* The search, then kc_mapset_bound below its value, then with reach_upper. */
static int run_bound(scale_run *s)
{
    kc_mapset_search_result sr;
    double ts;
    if (search_first(s, &sr, &ts))
        return fail(s);
    kc_mapset_bound_opts bo;
    kc_mapset_bound_opts_default(&bo);
    bo.upper = sr.best.value;
    kc_mapset_bound_result b;
    if (kc_mapset_bound(s->c, 4, KC_OBJ_MAX, &bo, &b, &s->err) != KC_OK)
        return fail(s);
    double tb = bench_now() - s->t0 - ts;
    /* and the least-total order at the search's value, as kc_map asks */
    kc_mapset_bound_result bt;
    bo.reach_upper = 1;
    if (kc_mapset_bound(s->c, 4, KC_OBJ_MAX, &bo, &bt, &s->err) != KC_OK)
        return fail(s);
    printf("bound %d %.2f %.0f %llu %llu %s (search %.2f s; bound %.3f s, %llu sets; with the least-total "
           "order %.3f s, %llu sets, total %llu)\n",
           s->n, bench_now() - s->t0, rss_mib(), (unsigned long long)sr.best.value, (unsigned long long)b.lower,
           b.from, ts, tb, (unsigned long long)b.states, bench_now() - s->t0 - ts - tb,
           (unsigned long long)bt.states, (unsigned long long)bt.best.total);
    return 0;
}

/* kc_contention_exact of transpose on THREADS threads (default 2). */
static int run_exact(scale_run *s)
{
    kc_contention x;
    kc_exact_opts eo = {s->extra > 0 ? (int)s->extra : 2};
    if (kc_contention_exact_ex(&s->c[0], &eo, &x, NULL, &s->err) != KC_OK)
        return fail(s);
    printf("exact %d %.2f %.0f %llu\n", s->n, bench_now() - s->t0, rss_mib(), (unsigned long long)x.max);
    return 0;
}

/* Parses MODE N [EXTRA], builds the set, runs the one mode: 0, 1 (library
 * error) or 2 (usage). */
int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(scale_run *);
    } modes[] = {{"dp-search", run_dp_search}, {"dp", run_dp}, {"search", run_search},
                 {"bound", run_bound},         {"exact", run_exact}};
    if (argc < 3) {
        fprintf(stderr, "usage: bench_reorder_scale dp|dp-search|search|bound|exact N [THREADS|WORK_M]\n");
        return 2;
    }
    const char *mode = argv[1];
    scale_run s = {.n = atoi(argv[2]), .extra = argc > 3 ? atof(argv[3]) : 0};
    for (int r = 0; r < 4; r++)
        if (kc_lcc_named(&s.c[r], set_names[r], s.n, NULL) != KC_OK) {
            fprintf(stderr, "bad n\n");
            return 2;
        }
    s.t0 = bench_now();
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(mode, modes[i].name) == 0)
            return modes[i].run(&s);
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
