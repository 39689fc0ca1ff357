/* Simulator speed: flit-hops per second and ns per flit-hop by network size,
 * memory per node, and (optionally) the same workloads on an older engine.
 *
 *   bench_sim [--reps R] [--quick] [--large] [--only TEXT] [--old BIN] [--threads T] [--deep [--gaps]]
 *
 * --only TEXT keeps the workloads whose label starts with TEXT (repeatable;
 * it also runs the --large ones it names).
 * Each row ends with the machine's 1-minute load average after it.
 * A flit-hop is one flit crossing one router-to-router channel (the run's
 * link_traversals). Every measurement runs in a child process (this program
 * with --worker), so its peak RSS is that run's alone: memory per node is
 * (peak RSS - RSS at start) / nodes. With --old BIN, BIN is this same source
 * built against another engine (bench/sim_baseline.sh [COMMIT] builds it, by
 * default against bd5f219; bench/README.md: against 45a043e);
 * its runs alternate with this build's, new first on even repetitions and old
 * first on odd ones, so a load change on the (shared) machine hits both
 * alike. Figures are medians over the repetitions; the speed-up column is the
 * median of the per-repetition ratios. Fixed cycle counts (no early stop),
 * 1/6 of them warm-up. Only API both engines have is used here.
 * With --threads T every workload also runs on T threads (kc_simconfig
 * threads: one run split by node range, on networks of KC_SIM_PAR_NODES
 * nodes or more, KC_SIM_PAR_STREAM_NODES with --deep; smaller ones with
 * Bernoulli sources generate on a thread of their own), alternating with
 * the one-thread run as --old does; the
 * rows add the CPU time per flit-hop of both (the process's CPU clock over
 * the run) and the median per-repetition wall-time speed-up.
 * With --deep every workload runs the configuration BookSim2 users compare
 * (8-flit buffers, 2 VCs sharing each link, route and switch delays of 2,
 * one-cycle links, Bernoulli injection: the stream loop) instead of the
 * default one (the worm-level loop); --gaps draws those Bernoulli sources
 * as geometric gaps (KC_INJECT_BERNOULLI_GAPS: the same process, a draw
 * per message), which workers built before this option refuse. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "kcube/rng.h"
#include "kcube/sim.h"
#include "kcube/simref.h"

typedef struct bcase {
    const char *label;
    int torus, k, n, vcs;
    const char *pattern; /* "uniform" or a digit pattern */
    double load;
    long long cycles;
    int large; /* only with --large */
} bcase;

/* The first speed study's workloads first (8-cube uniform 0.2, 8-cube transpose 0.05,
 * 16-cube uniform 0.2), then sizes. Cycle counts keep each run at 6-20
 * million flit-hops (a few tenths of a second or more: the machine may be
 * shared), well past the fill of the network; the --large ones run 300-480
 * cycles (hundreds of millions of flit-hops), so most of a run is past the
 * fill (about 70 cycles) too. */
static const bcase cases[] = {
    {"8-cube uniform 0.2", 0, 2, 8, 1, "uniform", 0.2, 48000, 0},
    {"8-cube transpose 0.05", 0, 2, 8, 1, "transpose", 0.05, 120000, 0},
    {"8-cube uniform 0.4", 0, 2, 8, 1, "uniform", 0.4, 24000, 0},
    {"10-cube uniform 0.2", 0, 2, 10, 1, "uniform", 0.2, 12000, 0},
    {"12-cube uniform 0.2", 0, 2, 12, 1, "uniform", 0.2, 2400, 0},
    {"14-cube uniform 0.2", 0, 2, 14, 1, "uniform", 0.2, 300, 0},
    {"16-cube uniform 0.2", 0, 2, 16, 1, "uniform", 0.2, 240, 0},
    {"18-cube uniform 0.2", 0, 2, 18, 1, "uniform", 0.2, 480, 1},
    {"19-cube uniform 0.2", 0, 2, 19, 1, "uniform", 0.2, 400, 1},
    {"20-cube uniform 0.2", 0, 2, 20, 1, "uniform", 0.2, 300, 1},
    {"4-ary 4-cube u 0.2", 1, 4, 4, 2, "uniform", 0.2, 48000, 0},
    {"8-ary 4-cube u 0.1", 1, 8, 4, 2, "uniform", 0.1, 3000, 0},
    {"16-ary 4-cube u 0.05", 1, 16, 4, 2, "uniform", 0.05, 200, 0},
    {"32-ary 4-cube u 0.05", 1, 32, 4, 2, "uniform", 0.05, 300, 1},
};
#define NCASES (sizeof cases / sizeof cases[0])

typedef struct sample {
    double secs, hops, nodes, rss_bytes, cpu;
    long long cycles;
} sample;

static long rss_kb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/* One run in this process; prints "nodes hops seconds rss_bytes". */
static int worker(int argc, char **argv)
{
    if (argc < 10 || argc > 13) {
        fprintf(stderr, "bench_sim: --worker torus k n vcs pattern load cycles seed [threads [deep [gaps]]]\n");
        return 2;
    }
    int deep = argc >= 12 && !strcmp(argv[11], "deep"), gaps = deep && argc == 13 && !strcmp(argv[12], "gaps");
    long rss0 = rss_kb();
    int torus = atoi(argv[2]), k = atoi(argv[3]), n = atoi(argv[4]), vcs = atoi(argv[5]);
    const char *pattern = argv[6];
    double load = atof(argv[7]);
    long long cycles = atoll(argv[8]);
    kc_err err;
    kc_simnet net;
    kc_simtraffic tr;
    if (deep)
        vcs = 2;
    if (kc_simnet_init(&net, torus ? KC_SIM_TORUS : KC_SIM_HYPERCUBE, k, n, vcs, 1, 1, deep ? 8 : 1, &err) ||
        (strcmp(pattern, "uniform") ? kc_simtraffic_digits(&tr, k, n, pattern, NULL, &err)
                                    : kc_simtraffic_uniform(&tr, net.nodes, NULL, &err))) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 1;
    }
    kc_simroute r = {torus ? KC_ROUTE_DOR : KC_ROUTE_ECUBE, KC_VC_HIGHLOW, KC_TIE_PLUS};
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.load = load;
    c.warmup = cycles / 6;
    c.measure = cycles - c.warmup;
    c.drain = 0;
    c.queue_cap = 1e9;
    c.seed = (uint64_t)atoll(argv[9]);
#ifdef KC_SIM_PAR_NODES /* engines before one run on several threads have no such field */
    if (argc >= 11)
        c.threads = atoi(argv[10]);
#endif
    if (deep) {
        c.route_delay = c.switch_delay = 2;
        c.link_latency = 1;
        c.process = gaps ? KC_INJECT_BERNOULLI_GAPS : KC_INJECT_BERNOULLI;
        c.vc_independent = 0;
    }
    kc_simresult res;
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    if (kc_sim_run(&net, &r, &tr, &c, &res, &err)) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 1;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    printf("%u %llu %.9f %.0f %.9f\n", net.nodes, (unsigned long long)res.link_traversals, res.wall_seconds,
           1024.0 * (double)(rss_kb() - rss0),
           (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec));
    kc_simresult_free(&res);
    kc_simtraffic_free(&tr);
    kc_simnet_free(&net);
    return 0;
}

/* One worker run: `bin --worker ...` by fork/exec (no shell: --old BIN is
 * a path given by the user), its one result line read from a pipe. deep:
 * 0 the default configuration, 1 the deep one, 2 the deep one with
 * geometric-gap sources (an argument more: older workers refuse it). */
static int spawn(const char *bin, const bcase *b, int seed, int threads, int deep, sample *s)
{
    char a[8][32];
    snprintf(a[0], sizeof a[0], "%d", b->torus);
    snprintf(a[1], sizeof a[1], "%d", b->k);
    snprintf(a[2], sizeof a[2], "%d", b->n);
    snprintf(a[3], sizeof a[3], "%d", b->vcs);
    snprintf(a[4], sizeof a[4], "%g", b->load);
    snprintf(a[5], sizeof a[5], "%lld", b->cycles);
    snprintf(a[6], sizeof a[6], "%d", seed);
    snprintf(a[7], sizeof a[7], "%d", threads);
    char *argv[] = {(char *)bin, "--worker", a[0], a[1], a[2], a[3], (char *)b->pattern, a[4], a[5], a[6],
                    threads > 1 || deep ? a[7] : NULL, deep ? "deep" : NULL, deep == 2 ? "gaps" : NULL,
                    NULL}; /* an older build takes no thread count */
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        close(fd[1]);
        execvp(bin, argv);
        _exit(127);
    }
    close(fd[1]);
    FILE *p = fdopen(fd[0], "r");
    unsigned long long hops = 0;
    unsigned nodes = 0;
    s->cpu = -1; /* an older build does not print it */
    int got = p ? fscanf(p, "%u %llu %lf %lf %lf", &nodes, &hops, &s->secs, &s->rss_bytes, &s->cpu) : 0;
    if (p)
        fclose(p);
    else
        close(fd[0]);
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || got < 4)
        return -1;
    s->nodes = nodes;
    s->hops = (double)hops;
    s->cycles = b->cycles;
    return 0;
}

/* The engine against the plain reference simulator (kcube/simref.h) on the
 * same one-shot workload: every node sends `per_node` uniform messages. */
static void versus_reference(kc_simtopo topo, int k, int n, int vcs, kc_simalgo algo, int per_node)
{
    kc_err err;
    kc_simnet net;
    if (kc_simnet_init(&net, topo, k, n, vcs, 1, 1, 1, &err)) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        exit(1);
    }
    size_t count = (size_t)net.nodes * (size_t)per_node;
    uint32_t *s = malloc(count * sizeof *s), *d = malloc(count * sizeof *d);
    kc_rng rng;
    kc_rng_seed(&rng, 5);
    for (size_t i = 0; i < count; i++) {
        s[i] = (uint32_t)(i % net.nodes);
        d[i] = (uint32_t)kc_rng_below(&rng, net.nodes);
    }
    kc_simroute r = {algo, KC_VC_HIGHLOW, KC_TIE_PLUS};
    kc_simconfig c;
    kc_simconfig_default(&c);
    c.oneshot = 1;
    kc_simtraffic tr;
    kc_simresult res;
    kc_simref_result ref;
    double te[3], tn[3];
    for (int i = 0; i < 3; i++) {
        double t0 = bench_now();
        if (kc_simtraffic_pairs(&tr, net.nodes, s, d, count, NULL, &err) || kc_sim_run(&net, &r, &tr, &c, &res, &err)) {
            fprintf(stderr, "bench_sim: %s\n", err.msg);
            exit(1);
        }
        kc_simtraffic_free(&tr);
        double t1 = bench_now();
        if (kc_simref_run(&net, &r, s, d, count, &c, &ref, &err)) {
            fprintf(stderr, "bench_sim: %s\n", err.msg);
            exit(1);
        }
        double t2 = bench_now();
        te[i] = t1 - t0;
        tn[i] = t2 - t1;
    }
    double me = bench_median(te, 3), mn = bench_median(tn, 3);
    printf("%u nodes, %d messages/node one-shot: engine %.4f s, reference %.4f s (%.0fx), completion %lld = %lld, "
           "traversals %llu = %llu\n",
           net.nodes, per_node, me, mn, mn / me, (long long)res.completion, (long long)ref.completion,
           (unsigned long long)res.link_traversals, (unsigned long long)ref.link_traversals);
    free(s);
    free(d);
    kc_simnet_free(&net);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_sim [--reps R] [--quick] [--large] [--only TEXT] [--old BIN] [--threads T] [--deep [--gaps]]\n");
    exit(2);
}

/* The 1-minute load average, -1 when unknown. */
static double load_now(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

/* The command line, and this binary's path for its workers. */
typedef struct bopts {
    int reps, quick, large, nonly, threads, deep, gaps;
    const char *old; /* --old BIN, or NULL */
    const char *only[16];
    char self[4096];
} bopts;

/* Reads the options into o (usage() on anything else: exits 2); --quick
 * makes one repetition. */
static void parse_opts(int argc, char **argv, bopts *o)
{
    o->reps = 3;
    o->threads = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            o->reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--old") && i + 1 < argc)
            o->old = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            o->threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            o->quick = 1;
        else if (!strcmp(argv[i], "--large"))
            o->large = 1;
        else if (!strcmp(argv[i], "--deep"))
            o->deep = 1;
        else if (!strcmp(argv[i], "--gaps"))
            o->gaps = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc && o->nonly < 16)
            o->only[o->nonly++] = argv[++i];
        else
            usage();
    }
    if (o->reps < 1 || o->reps > 99 || o->threads < 1 || o->threads > 64 || (o->threads > 1 && o->old) ||
        (o->gaps && !o->deep))
        usage();
    o->deep += o->gaps; /* spawn's mode: 2 with gaps */
    if (o->quick)
        o->reps = 1;
    ssize_t len = readlink("/proc/self/exe", o->self, sizeof o->self - 1);
    if (len <= 0)
        snprintf(o->self, sizeof o->self, "%s", argv[0]);
    else
        o->self[len] = 0;
}

/* The title line and the column heads, which depend on --old and --threads. */
static void print_header(const bopts *o)
{
    double load = load_now();
    const char *model = o->deep ? ", depth 8, 2 shared VCs, R 2, S 2, W 1, Bernoulli" : "";
    const char *gaps = o->gaps ? " (geometric gaps)" : "";
    if (o->threads > 1)
        printf("Simulator speed, 1 and %d threads interleaved, 20-flit messages, fixed cycles, median of %d%s%s (load "
               "average %.2f)\n", o->threads, o->reps, model, gaps, load);
    else
        printf("Simulator speed, one core, 20-flit messages, fixed cycles, median of %d%s%s%s (load average %.2f)\n",
               o->reps, o->old ? ", interleaved with --old" : "", model, gaps, load);
    printf("%-22s %8s %6s %9s %8s %9s %7s", "workload", "nodes", "cycles", "hops/run", "ns/hop", "Mhops/s",
           "B/node");
    if (o->old)
        printf(" %8s %7s %7s", "old ns", "old B/n", "speedup");
    if (o->threads > 1)
        printf(" %7s %6s %7s %6s %7s", "cpu ns", "T ns", "T cpu", "T B/n", "speedup");
    printf(" %5s\n", "load");
}

/* Does this workload run? --only picks by label prefix (--large ones too);
 * otherwise --large adds the large ones; --quick keeps networks <= 4096 nodes. */
static int selected(const bopts *o, const bcase *b)
{
    int keep = !o->nonly;
    for (int j = 0; j < o->nonly; j++)
        keep |= !strncmp(b->label, o->only[j], strlen(o->only[j]));
    if (!keep || (b->large && !o->large && !o->nonly))
        return 0;
    long long nodes = 1;
    for (int d = 0; d < b->n; d++)
        nodes *= b->k;
    return !(o->quick && nodes > 4096);
}

/* One workload's per-repetition figures, and the last samples. */
typedef struct series {
    double ns[99], rss[99], ons[99], orss[99], ratio[99], cpu[99], tns[99], tcpu[99], trss[99];
    sample s, o, ts; /* this build on 1 thread, --old, this build on T threads */
} series;

/* Repetition r of workload b: the runs in their alternating order, then
 * their figures into q. Returns 0, or 1 after saying which run failed. */
static int measure_rep(const bopts *o, const bcase *b, int r, series *q)
{
    int old_first = o->old && (r % 2), par_first = o->threads > 1 && (r % 2);
    if (old_first && spawn(o->old, b, r + 1, 1, o->deep, &q->o))
        goto fail_old;
    if ((par_first && spawn(o->self, b, r + 1, o->threads, o->deep, &q->ts)) ||
        spawn(o->self, b, r + 1, 1, o->deep, &q->s) ||
        (o->threads > 1 && !par_first && spawn(o->self, b, r + 1, o->threads, o->deep, &q->ts))) {
        fprintf(stderr, "bench_sim: run of %s failed\n", b->label);
        return 1;
    }
    if (o->old && !old_first && spawn(o->old, b, r + 1, 1, o->deep, &q->o))
        goto fail_old;
    q->cpu[r] = 1e9 * q->s.cpu / q->s.hops;
    if (o->threads > 1 && q->ts.hops != q->s.hops) {
        fprintf(stderr, "bench_sim: %s: %.0f flit-hops on 1 thread, %.0f on %d\n", b->label, q->s.hops, q->ts.hops,
                o->threads);
        return 1;
    }
    if (o->threads > 1) {
        q->tns[r] = 1e9 * q->ts.secs / q->ts.hops;
        q->tcpu[r] = 1e9 * q->ts.cpu / q->ts.hops;
        q->trss[r] = q->ts.rss_bytes / q->ts.nodes;
        q->ratio[r] = q->ts.secs > 0 ? q->s.secs / q->ts.secs : 0;
    }
    q->ns[r] = 1e9 * q->s.secs / q->s.hops;
    q->rss[r] = q->s.rss_bytes / q->s.nodes;
    if (o->old) {
        q->ons[r] = 1e9 * q->o.secs / q->o.hops;
        q->orss[r] = q->o.rss_bytes / q->o.nodes;
        q->ratio[r] = q->ons[r] / q->ns[r];
    }
    return 0;
fail_old:
    fprintf(stderr, "bench_sim: run of %s on %s failed\n", b->label, o->old);
    return 1;
}

/* One row: the medians of q over the repetitions (bench_median sorts
 * them in place), then the load average. */
static void report_case(const bopts *o, const bcase *b, series *q)
{
    int reps = o->reps;
    double mns = bench_median(q->ns, reps);
    printf("%-22s %8.0f %6lld %8.2fM %8.1f %9.1f %7.0f", b->label, q->s.nodes, b->cycles, q->s.hops / 1e6, mns,
           1e3 / mns, bench_median(q->rss, reps));
    if (o->old)
        printf(" %8.1f %7.0f %6.2fx", bench_median(q->ons, reps), bench_median(q->orss, reps),
               bench_median(q->ratio, reps));
    if (o->threads > 1)
        printf(" %7.1f %6.1f %7.1f %6.0f %6.2fx", bench_median(q->cpu, reps), bench_median(q->tns, reps),
               bench_median(q->tcpu, reps), bench_median(q->trss, reps), bench_median(q->ratio, reps));
    printf(" %5.1f\n", load_now());
    fflush(stdout);
}

/* A worker run (--worker ...), or the whole table and the reference
 * comparison: 0, 1 when a run failed, 2 on bad options. */
int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--worker"))
        return worker(argc, argv);
    bopts o = {0};
    parse_opts(argc, argv, &o);
    print_header(&o);
    for (size_t i = 0; i < NCASES; i++) {
        const bcase *b = &cases[i];
        if (!selected(&o, b))
            continue;
        series q = {0};
        for (int r = 0; r < o.reps; r++)
            if (measure_rep(&o, b, r, &q))
                return 1;
        report_case(&o, b, &q);
    }
    printf("(B/node: peak RSS of the run minus the process's RSS at start, per node)\n");
    printf("\nEngine vs the plain reference simulator (flit objects, full scans), median of 3\n");
    versus_reference(KC_SIM_HYPERCUBE, 2, 8, 1, KC_ROUTE_ECUBE, 8);
    versus_reference(KC_SIM_TORUS, 4, 4, 2, KC_ROUTE_DOR, 8);
    return 0;
}
