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

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_reorder_scale dp|dp-search|search|bound|exact N [THREADS|WORK_M]\n");
        return 2;
    }
    const char *mode = argv[1];
    int n = atoi(argv[2]);
    double extra = argc > 3 ? atof(argv[3]) : 0;
    kc_lcc c[4];
    for (int r = 0; r < 4; r++)
        if (kc_lcc_named(&c[r], set_names[r], n, NULL) != KC_OK) {
            fprintf(stderr, "bad n\n");
            return 2;
        }
    kc_err err = {0};
    double t0 = bench_now();
    if (strcmp(mode, "dp-search") == 0) {
        kc_mapset_search_result sr;
        if (kc_mapset_search(c, 4, KC_OBJ_MAX, NULL, &sr, NULL, &err) != KC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        double ts = bench_now() - t0;
        kc_mapset_opts o;
        kc_mapset_opts_default(&o);
        o.upper = sr.best.value;
        kc_mapset_result r;
        if (kc_mapset_optimal_ex(c, 4, KC_OBJ_MAX, &o, &r, NULL, &err) != KC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        printf("dp-search %d %.2f %.0f %llu (search %.2f s: %llu)\n", n, bench_now() - t0, rss_mib(),
               (unsigned long long)r.value, ts, (unsigned long long)sr.best.value);
    } else if (strcmp(mode, "dp") == 0) {
        kc_mapset_opts o;
        kc_mapset_opts_default(&o);
        if (extra > 0)
            o.threads = (int)extra;
        kc_mapset_result r;
        if (kc_mapset_optimal_ex(c, 4, KC_OBJ_MAX, &o, &r, NULL, &err) != KC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        printf("dp %d %.2f %.0f %llu\n", n, bench_now() - t0, rss_mib(), (unsigned long long)r.value);
    } else if (strcmp(mode, "search") == 0) {
        kc_mapset_search_opts o;
        kc_mapset_search_opts_default(&o);
        if (extra > 0)
            o.work = (uint64_t)(extra * 1e6);
        kc_mapset_search_result r;
        if (kc_mapset_search(c, 4, KC_OBJ_MAX, &o, &r, NULL, &err) != KC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        printf("search %d %.2f %.0f %llu %llu\n", n, bench_now() - t0, rss_mib(), (unsigned long long)r.best.value,
               (unsigned long long)r.lower);
    } else if (strcmp(mode, "bound") == 0) {
        kc_mapset_search_result sr;
        if (kc_mapset_search(c, 4, KC_OBJ_MAX, NULL, &sr, NULL, &err) != KC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        double ts = bench_now() - t0;
        kc_mapset_bound_opts bo;
        kc_mapset_bound_opts_default(&bo);
        bo.upper = sr.best.value;
        kc_mapset_bound_result b;
        if (kc_mapset_bound(c, 4, KC_OBJ_MAX, &bo, &b, &err) != KC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        double tb = bench_now() - t0 - ts;
        /* and the least-total order at the search's value, as kc_map asks */
        kc_mapset_bound_result bt;
        bo.reach_upper = 1;
        if (kc_mapset_bound(c, 4, KC_OBJ_MAX, &bo, &bt, &err) != KC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        printf("bound %d %.2f %.0f %llu %llu %s (search %.2f s; bound %.3f s, %llu sets; with the least-total "
               "order %.3f s, %llu sets, total %llu)\n",
               n, bench_now() - t0, rss_mib(), (unsigned long long)sr.best.value, (unsigned long long)b.lower, b.from,
               ts, tb, (unsigned long long)b.states, bench_now() - t0 - ts - tb, (unsigned long long)bt.states,
               (unsigned long long)bt.best.total);
    } else if (strcmp(mode, "exact") == 0) {
        kc_contention x;
        kc_exact_opts eo = {extra > 0 ? (int)extra : 2};
        if (kc_contention_exact_ex(&c[0], &eo, &x, NULL, &err) != KC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        printf("exact %d %.2f %.0f %llu\n", n, bench_now() - t0, rss_mib(), (unsigned long long)x.max);
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
