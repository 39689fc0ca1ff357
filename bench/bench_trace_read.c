/* bench_trace_read - how fast kc_trace_read_otf2 reads an OTF2 archive,
 * against OTF2's own `otf2-print` on the same archive in the same run:
 * printing every event (to /dev/null) and with --silent (reading and
 * validating only, the fairer match). Each is timed K times, medians
 * reported, as events per second (the events the archive declares), by
 * wall time and by CPU time (user + system: the measure that holds on a
 * loaded machine).
 *
 * usage: bench_trace_read [--ranks R] [--iters N] [--runs K] [--archive DIR]
 *
 * Without --archive, an archive of R ranks (16) x N iterations (10000) x 12
 * events is written first into a temporary directory with OTF2's writer
 * (tests/support/otf2_gen.c: a ring of non-blocking messages, a pair
 * exchange on two sub-communicators, an allreduce and regions per
 * iteration) and removed at the end. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "kcube/trace.h"
#include "otf2_gen.h"

extern char **environ;

typedef struct timing {
    double wall, cpu; /* seconds; wall -1: the run failed */
} timing;

static double cpu_of(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + 1e-6 * (double)ru->ru_utime.tv_usec + (double)ru->ru_stime.tv_sec +
           1e-6 * (double)ru->ru_stime.tv_usec;
}

/* Run otf2-print on the anchor (stdout to /dev/null). */
static timing time_print(const char *anchor, int silent)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"otf2-print", silent ? "--silent" : "--", (char *)anchor, NULL};
    double t0 = bench_now();
    pid_t pid;
    int status = -1;
    struct rusage r0, r1; /* the children's CPU time grows by this one's when it is waited for */
    getrusage(RUSAGE_CHILDREN, &r0);
    if (posix_spawnp(&pid, "otf2-print", &fa, NULL, argv, environ) == 0)
        waitpid(pid, &status, 0);
    getrusage(RUSAGE_CHILDREN, &r1);
    posix_spawn_file_actions_destroy(&fa);
    return (timing){status == 0 ? bench_now() - t0 : -1.0, cpu_of(&r1) - cpu_of(&r0)};
}

static timing time_read(const char *path, size_t *kept, size_t *skipped)
{
    kc_trace t;
    kc_err err = {0};
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    double t0 = bench_now();
    if (kc_trace_read_otf2(&t, path, NULL, &err) != KC_OK) {
        fprintf(stderr, "bench_trace_read: %s\n", err.msg);
        exit(1);
    }
    double s = bench_now() - t0;
    getrusage(RUSAGE_SELF, &r1);
    *kept = t.nev;
    *skipped = t.skipped;
    kc_trace_free(&t);
    return (timing){s, cpu_of(&r1) - cpu_of(&r0)};
}

static void remove_archive(const char *dir, uint32_t ranks)
{
    char p[4096];
    for (uint32_t r = 0; r < ranks; r++) {
        snprintf(p, sizeof p, "%s/traces/%u.evt", dir, r);
        remove(p);
        snprintf(p, sizeof p, "%s/traces/%u.def", dir, r);
        remove(p);
    }
    static const char *const rest[] = {"traces", "traces.def", "traces.otf2", ""};
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, rest[i]);
        remove(p);
    }
}

#define MAX_RUNS 15

int main(int argc, char **argv)
{
    uint32_t ranks = 16;
    uint64_t iters = 10000;
    int runs = 5;
    const char *given = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--ranks"))
            ranks = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--iters"))
            iters = (uint64_t)atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--runs"))
            runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--archive"))
            given = argv[i + 1];
    }
    if (runs < 1 || runs > MAX_RUNS || ranks < 2) {
        fprintf(stderr, "usage: bench_trace_read [--ranks R>=2] [--iters N] [--runs 1..%d] [--archive DIR]\n",
                MAX_RUNS);
        return 2;
    }
    char dir[] = "/tmp/kc_bench_otf2_XXXXXX", *anchor = NULL;
    const char *path = given ? given : dir;
    if (!given) {
        double t0 = bench_now();
        if (!mkdtemp(dir) || kc_test_otf2_write(dir, ranks, iters) != 0) {
            fprintf(stderr, "bench_trace_read: cannot write an archive in %s\n", dir);
            return 1;
        }
        printf("wrote %u ranks x %llu iterations in %.2f s\n", ranks, (unsigned long long)iters, bench_now() - t0);
    }
    kc_trace_size sz;
    kc_err err = {0};
    if (!kc_trace_is_otf2(path, &anchor) || kc_trace_size_otf2(path, &sz, &err) != KC_OK) {
        fprintf(stderr, "bench_trace_read: %s: %s\n", path, err.msg[0] ? err.msg : "not an OTF2 archive");
        return 1;
    }
    timing runs_of[3][MAX_RUNS];
    size_t kept = 0, skipped = 0;
    for (int k = 0; k < runs; k++) {
        runs_of[0][k] = time_read(path, &kept, &skipped);
        runs_of[1][k] = time_print(anchor, 0);
        runs_of[2][k] = time_print(anchor, 1);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("archive: %u ranks, %llu events declared, %zu kept, %zu skipped; estimate %.1f MiB, peak RSS %.1f MiB\n",
           sz.ranks, (unsigned long long)sz.events, kept, skipped, (double)sz.bytes / 1048576.0,
           (double)ru.ru_maxrss / 1024.0);
    printf("median of %d          wall s   events/s    CPU s   events/s\n", runs);
    static const char *const what[3] = {"kc_trace_read_otf2", "otf2-print", "otf2-print --silent"};
    for (int w = 0; w < 3; w++) {
        double wall[MAX_RUNS], cpu[MAX_RUNS];
        int failed = 0;
        for (int k = 0; k < runs; k++) {
            wall[k] = runs_of[w][k].wall;
            cpu[k] = runs_of[w][k].cpu;
            failed |= wall[k] < 0;
        }
        if (failed) {
            printf("%-20s  not run (otf2-print not on PATH, or it failed)\n", what[w]);
            continue;
        }
        double mw = bench_median(wall, runs), mc = bench_median(cpu, runs);
        printf("%-20s %7.3f  %9.3g  %7.3f  %9.3g\n", what[w], mw, (double)sz.events / mw, mc,
               (double)sz.events / mc);
    }
    free(anchor);
    if (!given)
        remove_archive(dir, ranks);
    return 0;
}
