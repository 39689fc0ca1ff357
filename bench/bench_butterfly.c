/* Benchmark: an FFT of 2^24 points on a simulated 10-cube through the
 * butterfly emulation on Gray-coded data (seed 001): the best methods
 * (N-sectioning, i.e. multisect with r = n, and bi-sectioning with local
 * code conversion) against the straightforward emulation, each in a child
 * process so that its peak memory is its own;
 * FFTW's time for the same transform as a yardstick.
 * Usage: bench_butterfly [p [n]]   (default p = 24, n = 10) */
#include <complex.h>
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "kcube/butterfly.h"
#include "kcube/rng.h"

typedef struct row {
    double seconds, error;
    long max_rss_kb;
    unsigned long long transfers, startups, elements;
    int ok;
} row;

static void input(double complex *x, uint64_t P)
{
    kc_rng r;
    kc_rng_seed(&r, 2024);
    for (uint64_t i = 0; i < P; i++)
        x[i] = ((double)(kc_rng_next(&r) >> 11) * 0x1p-53 - 0.5) + I * ((double)(kc_rng_next(&r) >> 11) * 0x1p-53 - 0.5);
}

static double fftw_error(const double complex *rows, int p)
{
    uint64_t P = 1ULL << p;
    fftw_complex *a = fftw_malloc(P * sizeof *a), *b = fftw_malloc(P * sizeof *b);
    fftw_plan pl = fftw_plan_dft_1d((int)P, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
    input(a, P);
    fftw_execute(pl);
    double num = 0, den = 0;
    for (uint64_t k = 0; k < P; k++) {
        double d = cabs(rows[kc_bfly_bitrev(k, p)] - b[k]);
        num = d > num ? d : num;
        den = cabs(b[k]) > den ? cabs(b[k]) : den;
    }
    fftw_destroy_plan(pl);
    fftw_free(a);
    fftw_free(b);
    return num / den;
}

/* In the child: one emulation, then the error against FFTW (after the
 * peak memory of the emulation was read). */
static void child(int fd, int n, int p, kc_bfly_method m, int rr)
{
    row r = {0};
    uint64_t P = 1ULL << p;
    double complex *x = malloc(P * sizeof *x);
    kc_bfly_opts o = {.method = m, .r = rr};
    kc_bfly_result res;
    if (x && !kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, KC_ENC_BINARY_GRAY, n, p, NULL)) {
        input(x, P);
        double t0 = bench_now();
        r.ok = kc_bfly_run(&o, x, &res, NULL) == KC_OK && res.placement_ok && !res.net.conflicts;
        r.seconds = bench_now() - t0;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        r.max_rss_kb = ru.ru_maxrss;
        r.transfers = res.net.transfers;
        r.startups = res.net.startups;
        r.elements = res.net.elements;
        r.error = r.ok ? fftw_error(x, p) : -1;
    }
    free(x);
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(1);
    _exit(0);
}

static int measure(int n, int p, kc_bfly_method m, int rr, row *r)
{
    int fds[2];
    if (pipe(fds))
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], n, p, m, rr);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], r, sizeof *r);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof *r ? 0 : -1;
}

int main(int argc, char **argv)
{
    int p = argc > 1 ? atoi(argv[1]) : 24, n = argc > 2 ? atoi(argv[2]) : 10;
    if (p < n + 2 || p > KC_BFLY_MAX_P || n < 1 || n > KC_BFLY_MAX_N) {
        fprintf(stderr, "usage: bench_butterfly [p [n]] with 1 <= n, n + 2 <= p <= %d\n", KC_BFLY_MAX_P);
        return 2;
    }
    printf("FFT of 2^%d complex doubles through the butterfly emulation on a simulated %d-cube\n", p, n);
    printf("(cyclic allocation, memory binary, processors Gray coded; P/N = %llu per processor)\n",
           1ULL << (p - n));
    const struct {
        kc_bfly_method m;
        int r;
        const char *name;
    } methods[] = {{KC_BFLY_MULTISECT, n, "multisect r=n"}, {KC_BFLY_BISECT_LOCAL, 0, "bisect-local"},
                   {KC_BFLY_DIRECT, 0, "direct"}};
    printf("%-18s %10s %12s %10s %14s %12s %10s\n", "method", "seconds", "peak MB", "transfers", "elements moved",
           "max error", "checks");
    for (int i = p < 2 * n ? 1 : 0; i < 3; i++) { /* N-sectioning needs P/N >= N */
        row r;
        if (measure(n, p, methods[i].m, methods[i].r, &r)) {
            printf("%-18s run failed\n", methods[i].name);
            continue;
        }
        printf("%-18s %10.2f %12.1f %10llu %14llu %12.2e %10s\n", methods[i].name, r.seconds,
               (double)r.max_rss_kb / 1024.0, r.transfers, r.elements, r.error, r.ok ? "ok" : "FAILED");
    }
    uint64_t P = 1ULL << p;
    fftw_complex *a = fftw_malloc(P * sizeof *a), *b = fftw_malloc(P * sizeof *b);
    fftw_plan pl = fftw_plan_dft_1d((int)P, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
    input(a, P);
    double t0 = bench_now();
    fftw_execute(pl);
    printf("%-18s %10.2f   (sequential reference, FFTW_ESTIMATE)\n", "fftw", bench_now() - t0);
    fftw_destroy_plan(pl);
    fftw_free(a);
    fftw_free(b);
    return 0;
}
