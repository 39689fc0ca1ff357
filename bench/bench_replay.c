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
 * file (found in $LOGGOPSIM_DIR, default /work/peers/loggopsim; its
 * conversion is not timed, kcube's parsing is); medians of the wall time
 * and of the CPU time (user and system, what a loaded machine blurs
 * least), and the largest peak memory of each.
 *
 *   bench_replay --network [--n N] [REPS] FILE...   (N: 9, REPS: 3) */
#define _DEFAULT_SOURCE /* wait4: a child's own peak memory */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

static int network_main(int argc, char **argv, const char *self);

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--network"))
        return network_main(argc - 2, argv + 2, argv[0]);
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

typedef struct net_run {
    double sec, cpu; /* wall, and user + system: the figure a loaded machine blurs least */
    long kb;         /* peak resident memory */
    int ok;  /* exit status 0 */
} net_run;

/* Run argv[0] with argv (no shell: file names are data), its output
 * discarded; its wall time and peak memory. */
static net_run net_spawn(char *const argv[])
{
    net_run r = {0, 0, 0, 0};
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid < 0)
        return r;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1), dup2(fd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return r;
    r.sec = bench_now() - t0;
    r.cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
            1e-6 * (double)ru.ru_stime.tv_usec;
    r.kb = ru.ru_maxrss;
    r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

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
    char conv[4096] = "", sim[4096] = "", bin[] = "/tmp/bench_replay_XXXXXX";
    int have = 0;
    if (lgs) {
        snprintf(conv, sizeof conv, "%s/txt2bin", lgs);
        snprintf(sim, sizeof sim, "%s/LogGOPSim", lgs);
        int fd = mkstemp(bin);
        if (fd >= 0) {
            close(fd);
            char *argv[] = {conv, "-i", (char *)path, "-o", bin, NULL};
            have = net_spawn(argv).ok;
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
            net_add(&c[0], net_spawn(lg));
        net_add(&c[1], net_spawn(fixed));
        net_add(&c[2], net_spawn(greedy));
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
    const char *lgs = getenv("LOGGOPSIM_DIR");
    char probe[4096];
    if (!lgs || !*lgs)
        lgs = "/work/peers/loggopsim";
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
