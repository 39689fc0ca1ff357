/* The two replay models side by side: one schedule of about 10^6
 * operations (122 phases of 4096 messages of 64 bytes on 4096 ranks:
 * transposes and bit-reverses with random complements, each phase after the
 * previous one on every rank) run by the flit-level network replay
 * (kc_appsim_run, 12-cube, e-cube, nCUBE 2 timing) and by the LogGOPS model
 * (kc_loggops_run, LogGOPSim's defaults), and by the network replay with
 * LogGOPSim's o, g, O, S for its CPUs and NICs (each in the LogGOPS run's
 * order: kc_appsim_run_order), each REPS times (default 3);
 * medians of the wall time, operations per second, and the makespans.
 *
 *   bench_replay [--quick] [REPS]     --quick: 8-cube, 40 phases
 *
 * With --network, GOAL files (the bench schedules of
 * tests/support/schedgen_like.py) are timed as whole processes, each
 * repetition interleaved: `kcube replay FILE --n N` with LogGOPS's CPUs and
 * NICs (--loggops o=1500,g=1000,O=0,S=65535: the fixed-order replay) and
 * without (the nCUBE 2 model), and LogGOPSim on txt2bin's binary of the
 * file (found in $LOGGOPSIM_DIR, default peers/loggopsim beside this program,
 * which bench/build_loggopsim.sh makes; its
 * conversion is not timed, kcube's parsing is); medians of the wall time
 * and of the CPU time (user and system, what a loaded machine blurs
 * least), and the largest peak memory of each.
 *
 *   bench_replay --network [--n N] [REPS] FILE...   (N: 9, REPS: 3)
 *
 * Against LogGOPSim (bench/replay_vs_loggopsim.sh makes the schedules and
 * their binary forms, then runs this):
 *
 *   bench_replay --versus REPS FILE.goal...
 *
 * runs, REPS times and interleaved, LogGOPSim on FILE.bin ($LOGGOPSIM_DIR,
 * default peers/loggopsim beside this program: `LogGOPSim -b -f FILE.bin`, its process
 * wall time and peak RSS; its txt2bin conversion is not counted), kcube's
 * LogGOPS model alone (kc_loggops_run on the schedule read beforehand, in
 * a child process: its peak RSS during the run above its RSS before is
 * the model's memory) and `kcube replay FILE.goal --model loggops` end to end ($KCUBE,
 * default ./kcube: process wall time and peak RSS), and prints the medians
 * with LogGOPSim's time over the model's and whether the makespans agree. */
#define _DEFAULT_SOURCE /* wait4: a child's own peak memory */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "kcube/appsim.h"
#include "kcube/goal.h"
#include "kcube/lcc.h"
#include "kcube/loggops.h"
#include "kcube/rng.h"

static void die(const kc_err *err)
{
    fprintf(stderr, "bench_replay: %s\n", err->msg);
    exit(1);
}

/* ---- against LogGOPSim -------------------------------------------------- */

/* A process run: wall and CPU time, peak memory, whether it exited 0. */
typedef struct net_run {
    double sec, cpu; /* wall, and user + system: the figure a loaded machine blurs least */
    long kb;         /* peak resident memory */
    int ok;          /* exit status 0 */
} net_run;

/* Run argv[0] with argv (no shell: file names are data). With out, the
 * first cap - 1 bytes of its standard output go there (NUL-terminated);
 * without, its output is discarded. */
static net_run spawn(char *const argv[], char *out, size_t cap)
{
    net_run r = {0, 0, 0, 0};
    int fd[2] = {-1, -1};
    if (out && pipe(fd))
        return r;
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid == 0) {
        int sink = out ? fd[1] : open("/dev/null", O_WRONLY);
        if (sink >= 0)
            dup2(sink, 1);
        if (!out && sink >= 0)
            dup2(sink, 2);
        if (out)
            close(fd[0]), close(fd[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    if (out) {
        close(fd[1]);
        size_t n = 0;
        char drop[4096];
        for (ssize_t k; pid > 0 && (k = read(fd[0], n + 1 < cap ? out + n : drop,
                                             n + 1 < cap ? cap - 1 - n : sizeof drop)) > 0;)
            n += n + 1 < cap ? (size_t)k : 0;
        out[n] = 0;
        close(fd[0]);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
        return r;
    r.sec = bench_now() - t0;
    r.cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
            1e-6 * (double)ru.ru_stime.tv_usec;
    r.kb = ru.ru_maxrss;
    r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

/* What the child running kcube's model reports. */
typedef struct model_run {
    double read_s, validate_s, model_s, model_mb;
    uint64_t makespan, ops;
    int ok;
} model_run;

/* A field of /proc/self/status in MB ("VmRSS:", "VmHWM:"), or -1. */
static double status_mb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, strlen(field)))
            kb = atof(line + strlen(field));
    if (f)
        fclose(f);
    return kb < 0 ? -1 : kb / 1024;
}

/* The resident memory now; the peak is reset to it (Linux: clear_refs 5),
 * so that peak_since() is the peak from here on. */
static double rss_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
    return status_mb("VmRSS:");
}

static double peak_since(void) { return status_mb("VmHWM:"); }

/* In a child process: read and validate path, then time kc_loggops_run
 * (LogGOPSim's defaults); its peak RSS above the RSS before it is the
 * model's memory. */
static model_run model_in_child(const char *path)
{
    model_run r = {0};
    int fd[2];
    if (pipe(fd))
        return r;
    pid_t pid = fork();
    if (pid == 0) {
        kc_err err = {0};
        kc_goal g;
        kc_loggops_result lr;
        double t0 = bench_now();
        if (!kc_goal_read_file(&g, path, NULL, 0, &err)) {
            double t1 = bench_now();
            int bad = kc_goal_validate(&g, 0, NULL, &err);
            double before = rss_reset(), t2 = bench_now();
            if (!bad && !kc_loggops_run(&g, NULL, NULL, NULL, &lr, &err)) {
                r = (model_run){t1 - t0, t2 - t1, bench_now() - t2, peak_since() - before, lr.makespan_ns, g.nops, 1};
                kc_loggops_result_free(&lr);
            }
        }
        if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    if (pid < 0 || read(fd[0], &r, sizeof r) != (ssize_t)sizeof r)
        r.ok = 0;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return r;
}

/* LogGOPSim's makespan from "Maximum finishing time at host H: T", or
 * UINT64_MAX. */
static uint64_t lgs_makespan(const char *out)
{
    const char *p = strstr(out, "Maximum finishing time at host");
    p = p ? strchr(p, ':') : NULL;
    return p ? strtoull(p + 1, NULL, 10) : UINT64_MAX;
}

/* One schedule's medians over reps interleaved runs. */
typedef struct versus_row {
    double lgs_s, lgs_mb, model_s, model_mb, read_s, validate_s, e2e_s, e2e_mb;
    double net_s; /* the network replay's column: < 0 until measured */
    uint64_t ops, makespan, lgs_makespan, e2e_makespan;
    int lgs_found, ok;
} versus_row;

/* kcube's makespan from "...: LogGOPS makespan T ns", or UINT64_MAX. */
static uint64_t kcube_makespan(const char *out)
{
    const char *p = strstr(out, "LogGOPS makespan ");
    return p ? strtoull(p + 17, NULL, 10) : UINT64_MAX;
}

/* reps interleaved runs of LogGOPSim, the model and the kcube command on
 * one schedule (path ends in .goal; LogGOPSim reads the .bin beside it). */
static versus_row measure_row(const char *path, int reps, const char *lgs, const char *kcube)
{
    versus_row row = {.net_s = -1, .ok = 1};
    char bin[4096], out[8192];
    snprintf(bin, sizeof bin, "%.*s.bin", (int)(strlen(path) > 5 ? strlen(path) - 5 : strlen(path)), path);
    row.lgs_found = access(lgs, X_OK) == 0 && access(bin, R_OK) == 0;
    char *lgs_argv[] = {(char *)lgs, "-b", "-f", bin, NULL};
    char *kc_argv[] = {(char *)kcube, "replay", (char *)path, "--model", "loggops", NULL};
    double v[8][99] = {{0}};
    for (int i = 0; i < reps; i++) {
        if (row.lgs_found) {
            net_run x = spawn(lgs_argv, out, sizeof out);
            v[0][i] = x.sec, v[1][i] = (double)x.kb / 1024;
            row.lgs_found = x.ok;
            row.lgs_makespan = lgs_makespan(out);
        }
        model_run r = model_in_child(path);
        row.ok &= r.ok;
        v[2][i] = r.model_s, v[3][i] = r.model_mb, v[4][i] = r.read_s, v[5][i] = r.validate_s;
        row.ops = r.ops, row.makespan = r.makespan;
        net_run x = spawn(kc_argv, out, sizeof out);
        v[6][i] = x.sec, v[7][i] = (double)x.kb / 1024;
        row.ok &= x.ok;
        row.e2e_makespan = kcube_makespan(out);
    }
    double *m[8] = {&row.lgs_s, &row.lgs_mb, &row.model_s, &row.model_mb, &row.read_s, &row.validate_s,
                    &row.e2e_s, &row.e2e_mb};
    for (int k = 0; k < 8; k++)
        *m[k] = bench_median(v[k], reps);
    return row;
}

/* The table row of one schedule (markdown). */
static void print_row(const char *path, const versus_row *r)
{
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("| %s | %llu | ", name, (unsigned long long)r->ops);
    if (r->lgs_found)
        printf("%.3f | %.0f | ", r->lgs_s, r->lgs_mb);
    else
        printf("not found | - | ");
    printf("%.3f | %.0f | %.3f + %.3f | %.3f | %.0f | ", r->model_s, r->model_mb, r->read_s, r->validate_s, r->e2e_s,
           r->e2e_mb);
    if (r->lgs_found)
        printf("%.1f | %s | ", r->lgs_s / r->model_s,
               r->lgs_makespan == r->makespan && r->e2e_makespan == r->makespan ? "yes" : "NO");
    else
        printf("- | %s | ", r->e2e_makespan == r->makespan ? "(kcube only)" : "NO");
    /* the network replay's column (kc_appsim on the default 9-cube, fixed order) */
    if (r->net_s >= 0)
        printf("%.3f |\n", r->net_s);
    else
        printf("- |\n");
}

/* LogGOPSim's directory into out: $LOGGOPSIM_DIR, else peers/loggopsim
 * beside this program (self: its argv[0]; bench/build_loggopsim.sh builds
 * it there). */
static void loggopsim_dir(const char *self, char *out, size_t size)
{
    const char *dir = getenv("LOGGOPSIM_DIR"), *slash = strrchr(self, '/');
    if (dir && *dir)
        snprintf(out, size, "%s", dir);
    else
        snprintf(out, size, "%.*speers/loggopsim", slash ? (int)(slash - self + 1) : 0, self);
}

/* --versus REPS FILE.goal...: the table. */
static int versus(int argc, char **argv)
{
    int reps = argc > 2 ? atoi(argv[2]) : 0;
    if (reps < 1 || reps > 99 || argc < 4) {
        fprintf(stderr, "usage: bench_replay --versus REPS FILE.goal...\n");
        return 2;
    }
    const char *kcube = getenv("KCUBE");
    char dir[4000], lgs[4096];
    loggopsim_dir(argv[0], dir, sizeof dir);
    snprintf(lgs, sizeof lgs, "%s/LogGOPSim", dir);
    kcube = kcube && *kcube ? kcube : "./kcube";
    printf("medians of %d interleaved runs; LogGOPSim: %s (-b -f FILE.bin, txt2bin not counted); kcube: %s\n\n", reps,
           lgs, kcube);
    printf("| schedule | ops | LogGOPSim s | LogGOPSim MB | kcube model s | model MB | read + validate s | "
           "kcube end-to-end s | kcube MB | LogGOPSim / model | makespans equal | network replay s |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int bad = 0;
    for (int i = 3; i < argc; i++) {
        versus_row r = measure_row(argv[i], reps, lgs, kcube);
        print_row(argv[i], &r);
        fflush(stdout);
        bad |= !r.ok || r.e2e_makespan != r.makespan || (r.lgs_found && r.lgs_makespan != r.makespan);
    }
    return bad;
}

static int fft_bench(int argc, char **argv);

static int network_main(int argc, char **argv, const char *self);

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--versus"))
        return versus(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "--network"))
        return network_main(argc - 2, argv + 2, argv[0]);
    return fft_bench(argc, argv);
}

static int fft_bench(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int reps = argc > 1 + quick ? atoi(argv[1 + quick]) : 3;
    if (reps < 1 || reps > 99)
        reps = 3;
    int n = quick ? 8 : 12, phases = quick ? 40 : 122;
    kc_err err = {0};
    kc_simnet net;
    kc_goal g;
    kc_rng rng;
    kc_rng_seed(&rng, 21);
    if (kc_simnet_init(&net, KC_SIM_HYPERCUBE, 2, n, 1, 1, 1, 1, &err) || kc_goal_init(&g, 1u << n, &err))
        die(&err);
    for (int ph = 0; ph < phases; ph++) {
        kc_lcc c;
        if (kc_lcc_named(&c, (ph % 2) ? "bit-reverse" : "transpose", n, &err))
            die(&err);
        c.b = kc_rng_next(&rng) & ((1u << n) - 1);
        if (kc_goal_gen_lcc(&g, &c, 64, "p", ph, &err))
            die(&err);
    }
    kc_goal_match m;
    if (kc_goal_validate(&g, net.nodes, &m, &err))
        die(&err);
    printf("%d-cube, %u ranks, %zu operations (%zu messages of 64 bytes), %zu dependences; %d runs each\n", n,
           g.num_ranks, g.nops, m.messages, g.ndeps, reps);

    kc_simroute route = {KC_ROUTE_ECUBE, KC_VC_NONE, KC_TIE_PLUS};
    kc_simconfig cfg;
    kc_simconfig_default(&cfg);
    double tn[99], tl[99], tf[99], net_total = 0, loggp = 0, fx_total = 0, fx_loggops = 0;
    uint64_t makespan = 0, events = 0;
    kc_loggops_params lgp = KC_LOGGOPS_PARAMS_DEFAULT;
    kc_appsim_opts fo = KC_APPSIM_OPTS_DEFAULT;
    fo.loggops = &lgp;
    for (int i = 0; i < reps; i++) {
        kc_appsim_result r;
        double t0 = bench_now();
        if (kc_appsim_run(&g, &m, &net, &route, &cfg, NULL, &r, &err))
            die(&err);
        tn[i] = bench_now() - t0;
        net_total = r.total_us;
        loggp = r.loggp_us;
        kc_appsim_result_free(&r);

        kc_loggops_result lr;
        t0 = bench_now();
        if (kc_loggops_run(&g, NULL, NULL, NULL, &lr, &err))
            die(&err);
        tl[i] = bench_now() - t0;
        makespan = lr.makespan_ns;
        events = lr.events;
        kc_loggops_result_free(&lr);

        t0 = bench_now();
        if (kc_appsim_run_order(&g, &m, &net, &route, &cfg, &fo, NULL, NULL, KC_APPSIM_ORDER_LOGGOPS, &r, &err))
            die(&err);
        tf[i] = bench_now() - t0;
        fx_total = r.total_us;
        fx_loggops = r.loggops_us;
        kc_appsim_result_free(&r);
    }
    double mn = bench_median(tn, reps), ml = bench_median(tl, reps), mf = bench_median(tf, reps);
    printf("model                          median s   Mops/s   makespan\n");
    printf("network (flit-level, nCUBE 2)  %8.3f  %7.2f   %.0f us (contention-free LogGP %.0f us)\n", mn,
           (double)g.nops / mn / 1e6, net_total, loggp);
    printf("loggops (LogGOPSim defaults)   %8.3f  %7.2f   %llu ns (%llu events)\n", ml,
           (double)g.nops / ml / 1e6, (unsigned long long)makespan, (unsigned long long)events);
    printf("network + LogGOPS CPU/NIC      %8.3f  %7.2f   %.0f us (LogGOPS with its zero-load L, G %.0f us)\n", mf,
           (double)g.nops / mf / 1e6, fx_total, fx_loggops);
    kc_goal_match_free(&m);
    kc_goal_free(&g);
    kc_simnet_free(&net);
    return 0;
}

/* ---- The network replay against LogGOPSim, process by process ---- */

/* One column's runs of one file: medians and the largest memory. */
typedef struct net_col {
    double sec[99], cpu[99];
    long kb;
    int n, failed;
} net_col;

static void net_add(net_col *c, net_run r)
{
    if (!r.ok) {
        c->failed = 1;
        return;
    }
    c->cpu[c->n] = r.cpu;
    c->sec[c->n++] = r.sec;
    if (r.kb > c->kb)
        c->kb = r.kb;
}

static void net_print(net_col *c, int present)
{
    if (!present)
        printf("  %-26s", "not found");
    else if (c->failed || !c->n)
        printf("  %-26s", "failed");
    else
        printf("  %7.2f s %7.2f s %4ld MB", bench_median(c->sec, c->n), bench_median(c->cpu, c->n),
               (c->kb + 512) / 1024);
}

/* A file's three columns, reps interleaved; lgs: LogGOPSim's directory or
 * NULL when it is absent. */
static void net_file(const char *kcube, const char *n, const char *path, const char *lgs, int reps)
{
    char conv[4096] = "", sim[4096] = "", bin[] = "bench_replay_XXXXXX"; /* in the working directory */
    int have = 0;
    if (lgs) {
        snprintf(conv, sizeof conv, "%s/txt2bin", lgs);
        snprintf(sim, sizeof sim, "%s/LogGOPSim", lgs);
        int fd = mkstemp(bin);
        if (fd >= 0) {
            close(fd);
            char *argv[] = {conv, "-i", (char *)path, "-o", bin, NULL};
            have = spawn(argv, NULL, 0).ok;
        }
    }
    char *fixed[] = {(char *)kcube, "replay", (char *)path, "--n", (char *)n, "--loggops",
                     "o=1500,g=1000,O=0,S=65535", "--max-time", "0", NULL};
    char *greedy[] = {(char *)kcube, "replay", (char *)path, "--n", (char *)n, "--max-time", "0", NULL};
    char *lg[] = {sim, "-b", "-f", bin, NULL};
    net_col c[3];
    memset(c, 0, sizeof c);
    for (int i = 0; i < reps; i++) {
        if (have)
            net_add(&c[0], spawn(lg, NULL, 0));
        net_add(&c[1], spawn(fixed, NULL, 0));
        net_add(&c[2], spawn(greedy, NULL, 0));
    }
    printf("%-22s", path);
    net_print(&c[0], have);
    net_print(&c[1], 1);
    net_print(&c[2], 1);
    printf("\n");
    if (lgs)
        unlink(bin);
}

/* bench_replay --network [--n N] [REPS] FILE...: kcube is the program next
 * to this one. */
static int network_main(int argc, char **argv, const char *self)
{
    const char *n = "9";
    int reps = 3, k = 0;
    if (k + 1 < argc && !strcmp(argv[k], "--n"))
        n = argv[k + 1], k += 2;
    if (k < argc && argv[k][strspn(argv[k], "0123456789")] == '\0') {
        reps = atoi(argv[k++]);
        if (reps < 1 || reps > 99)
            reps = 3;
    }
    if (k >= argc) {
        fprintf(stderr, "usage: bench_replay --network [--n N] [REPS] FILE...\n");
        return 2;
    }
    char kcube[4096];
    const char *slash = strrchr(self, '/');
    snprintf(kcube, sizeof kcube, "%.*skcube", slash ? (int)(slash - self + 1) : 0, self);
    char dir[4000], probe[4096];
    loggopsim_dir(self, dir, sizeof dir);
    const char *lgs = dir;
    snprintf(probe, sizeof probe, "%s/LogGOPSim", lgs);
    if (access(probe, X_OK))
        lgs = NULL;
    printf("network replay on the %s-cube: medians of %d interleaved runs, whole processes (wall time, CPU time, "
           "peak memory)\n", n, reps);
    printf("%-22s  %-26s  %-26s  %-26s\n", "schedule", "LogGOPSim", "kcube --loggops", "kcube (nCUBE 2)");
    for (; k < argc; k++)
        net_file(kcube, n, argv[k], lgs, reps);
    return 0;
}
