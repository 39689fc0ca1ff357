/* Benchmark of the toolbox's barrier (core/pool.h) against
 * pthread_barrier_t, where the system has it: threads cross a barrier again
 * and again with a little work between (none, about 1 us, about 10 us: the
 * simulator engine crosses two a cycle), and the time per crossing is the
 * median of five runs. Also the persistent pool's kci_pool_run (two
 * crossings and a call). Usage: bench_core [--quick] [threads] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "core/pool.h"

typedef struct run {
    int kind; /* 0: kci_barrier, 1: kci_barrier sleeping at once (no spins, no yields), 2: pthread_barrier_t */
    kci_barrier kb;
#if defined(_POSIX_BARRIERS) && _POSIX_BARRIERS > 0
    pthread_barrier_t pb;
#endif
    long rounds, work;
    volatile unsigned long sink[64];
} run;

/* About work * 1 ns of arithmetic the optimiser cannot drop. */
static void busy(run *r, unsigned w, long work)
{
    unsigned long x = w + 1;
    for (long i = 0; i < work; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    r->sink[w * 8 % 64] = x;
}

static void cross_job(void *ctx, unsigned w)
{
    run *r = ctx;
    for (long i = 0; i < r->rounds; i++) {
        busy(r, w, r->work);
        if (r->kind < 2)
            kci_barrier_wait(&r->kb);
#if defined(_POSIX_BARRIERS) && _POSIX_BARRIERS > 0
        else
            pthread_barrier_wait(&r->pb);
#endif
    }
}

/* Nanoseconds per crossing (median of 5), or -1 when the kind is absent. */
static double time_kind(int kind, unsigned nt, long rounds, long work)
{
    double s[5];
    for (int k = 0; k < 5; k++) {
        run *r = calloc(1, sizeof *r);
        r->kind = kind;
        r->rounds = rounds;
        r->work = work;
        if (kind < 2) {
            kci_barrier_init(&r->kb, nt);
            if (kind == 1)
                r->kb.spin = r->kb.yields = 0;
            else if (getenv("KCI_SPIN")) /* trials: KCI_SPIN=pauses KCI_YIELDS=yields */
                r->kb.spin = (unsigned)atoi(getenv("KCI_SPIN"));
            if (kind == 0 && getenv("KCI_YIELDS"))
                r->kb.yields = (unsigned)atoi(getenv("KCI_YIELDS"));
        }
#if defined(_POSIX_BARRIERS) && _POSIX_BARRIERS > 0
        else
            pthread_barrier_init(&r->pb, NULL, nt);
#else
        else {
            free(r);
            return -1;
        }
#endif
        double t0 = bench_now();
        kci_run_threads(nt, cross_job, r);
        s[k] = (bench_now() - t0) / (double)rounds * 1e9;
        if (kind < 2)
            kci_barrier_destroy(&r->kb);
#if defined(_POSIX_BARRIERS) && _POSIX_BARRIERS > 0
        else
            pthread_barrier_destroy(&r->pb);
#endif
        free(r);
    }
    return bench_median(s, 5);
}

static void pool_job(void *ctx, unsigned w)
{
    run *r = ctx;
    busy(r, w, r->work);
}

/* Nanoseconds per kci_pool_run (median of 5). */
static double time_pool(unsigned nt, long rounds, long work)
{
    double s[5];
    kci_pool *p = kci_pool_new(nt);
    if (!p)
        return -1;
    run *r = calloc(1, sizeof *r);
    r->work = work;
    for (int k = 0; k < 5; k++) {
        double t0 = bench_now();
        for (long i = 0; i < rounds; i++)
            kci_pool_run(p, pool_job, r);
        s[k] = (bench_now() - t0) / (double)rounds * 1e9;
    }
    free(r);
    kci_pool_free(p);
    return bench_median(s, 5);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    unsigned nt = 2;
    if (argc > 1 + quick)
        nt = (unsigned)atoi(argv[1 + quick]);
    if (nt < 2)
        nt = 2;
    long rounds = quick ? 20000 : 200000;
    static const long works[] = {0, 1000, 10000};
    printf("barrier crossings, %u threads, %ld rounds (ns per crossing, median of 5; work = loop steps of ~1 ns)\n",
           nt, rounds);
    printf("%8s %14s %14s %14s %14s\n", "work", "kci_barrier", "kci(sleep)", "pthread", "kci_pool_run");
    for (size_t i = 0; i < sizeof works / sizeof *works; i++) {
        long rr = works[i] >= 10000 ? rounds / 10 : rounds;
        printf("%8ld %14.0f %14.0f %14.0f %14.0f\n", works[i], time_kind(0, nt, rr, works[i]),
               time_kind(1, nt, rr, works[i]), time_kind(2, nt, rr, works[i]), time_pool(nt, rr, works[i]));
        fflush(stdout);
    }
    return 0;
}
