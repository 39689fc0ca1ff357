/* Timing helpers shared by the benchmark programs (header-only: each bench
 * is a single translation unit). */
#ifndef KC_BENCH_UTIL_H
#define KC_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

/* Monotonic wall-clock time in seconds. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of k samples (sorts them in place). */
static inline double bench_median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, bench_cmp_double);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

#endif
