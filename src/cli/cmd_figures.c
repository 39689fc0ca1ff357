/* kcube figures: seed 000 Figures 5-7 (and, with --torus, seed 002 Figures
 * 2, 3 and 6) from the simulator, as charts plus a CSV and a text summary. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "out.h"
#include "plot.h"
#include "kcube/simmem.h"
#include "kcube/simscenario.h"
#include "kcube/simsweep.h"

#define MAX_LOADS 64

static void help(FILE *out)
{
    fprintf(out,
            "usage: kcube figures [--out DIR] [--quick] [--torus] [--vc-link shared|independent] [--seed S]\n"
            "                     [--max-memory BYTES]\n\n"
            "Reproduces seed 000 Figures 5, 6 and 7 on the 8-cube: matrix-transpose,\n"
            "bit-reverse and reverse-flip, 20-flit messages, one-flit buffers, Poisson\n"
            "injection; e-cube unmapped, e-cube with the mapping of each pattern (M-S),\n"
            "e-cube with the mapping chosen for all three (M-G), P-cube, and Duato's fully\n"
            "adaptive routing (2 VCs, e-cube escape). Li's Min, Chiu et al. and MIXab3/MIXbb3\n"
            "are not drawn: their rules could not be established (docs/sim.md).\n"
            "With --torus also seed 002 Figures 2, 3 and 6 on the 4-ary 4-cube\n"
            "(dimension-ordered routing with two VCs, Map-S, Map-G; uniform traffic).\n\n"
            "  --out DIR   where to write (default kcube-figures): fig5_transpose.png,\n"
            "              fig6_bit-reverse.png, fig7_reverse-flip.png, figures.csv,\n"
            "              summary.txt\n"
            "  --quick     shorter runs and fewer load points (a few seconds)\n"
            "  --vc-link   independent (default on tori, seed 002's model): each VC of\n"
            "              a link moves a flit per cycle; shared: the VCs take turns\n"
            "  --seed S    random seed (default 1)\n"
            "  --max-memory B  memory budget (suffix K, M, G; default: the memory available):\n"
            "              fewer load points at once when the estimate does not fit\n");
}

typedef struct figure {
    const char *file, *title;
    int k, n;
    const char *pattern;
    int nconf;
    const char *label[6];
    const char *routing[6];
    const char *mapping[6];
} figure;

static const figure FIGS[] = {
    {"fig5_transpose", "Seed 000 Fig. 5: matrix-transpose on the 8-cube", 2, 8, "transpose", 5,
     {"e-cube", "M-S", "M-G", "P-cube", "Duato (2 VCs)"},
     {"ecube", "ecube", "ecube", "pcube", "duato"},
     {"none", "optimal", "set:transpose,bit-reverse,reverse-flip", "none", "none"}},
    {"fig6_bit-reverse", "Seed 000 Fig. 6: bit-reverse on the 8-cube", 2, 8, "bit-reverse", 5,
     {"e-cube", "M-S", "M-G", "P-cube", "Duato (2 VCs)"},
     {"ecube", "ecube", "ecube", "pcube", "duato"},
     {"none", "optimal", "set:transpose,bit-reverse,reverse-flip", "none", "none"}},
    {"fig7_reverse-flip", "Seed 000 Fig. 7: reverse-flip on the 8-cube", 2, 8, "reverse-flip", 5,
     {"e-cube", "M-S", "M-G", "P-cube", "Duato (2 VCs)"},
     {"ecube", "ecube", "ecube", "pcube", "duato"},
     {"none", "optimal", "set:transpose,bit-reverse,reverse-flip", "none", "none"}},
    {"seed002_fig2_transpose", "Seed 002 Fig. 2: matrix-transpose on the 4-ary 4-cube", 4, 4, "transpose", 3,
     {"DOR", "Map-S", "Map-G"}, {"dor", "dor", "dor"}, {"none", "optimal", "set:transpose,digit-reverse"}},
    {"seed002_fig3_digit-reverse", "Seed 002 Fig. 3: digit-reverse on the 4-ary 4-cube", 4, 4, "digit-reverse", 3,
     {"DOR", "Map-S", "Map-G"}, {"dor", "dor", "dor"}, {"none", "optimal", "set:transpose,digit-reverse"}},
    {"seed002_fig6_uniform", "Seed 002 Fig. 6: uniform-random on the 4-ary 4-cube", 4, 4, "uniform", 2,
     {"DOR", "Map-G"}, {"dor", "dor"}, {"none", "set:transpose,digit-reverse"}},
};

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static void bprintf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int need = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (need < 0)
            return;
        if (b->s && b->len + (size_t)need < b->cap) {
            b->len += (size_t)need;
            return;
        }
        size_t cap = (b->cap + (size_t)need + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return;
        b->s = s;
        b->cap = cap;
    }
}

static int run(int argc, char **argv)
{
    const char *out = "kcube-figures";
    int quick = 0, torus = 0, indep = -1;
    unsigned long long seed = 1;
    uint64_t max_memory = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (kc_cli_is_help(argv[i])) {
            help(stdout);
            return KC_EXIT_OK;
        }
        if ((r = kc_cli_opt(argc, argv, &i, "--out", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            out = v;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--seed", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            char *end;
            errno = 0;
            seed = strtoull(v, &end, 10);
            if (!*v || *end || errno || *v == '-')
                return kc_cli_error("--seed takes a whole number, got '%s'", v);
        } else if ((r = kc_cli_opt(argc, argv, &i, "--vc-link", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            if (kc_names_parse(&kc_simvclink_names, v, &indep))
                return kc_cli_error("--vc-link takes shared or independent, got '%s'", v);
        } else if ((r = kc_cli_opt(argc, argv, &i, "--max-memory", &v))) {
            if (r < 0 || kc_cli_bytes(v, "--max-memory", &max_memory))
                return KC_EXIT_USAGE;
        } else if (kc_cli_flag(argv[i], "--quick")) {
            quick = 1;
        } else if (kc_cli_flag(argv[i], "--torus")) {
            torus = 1;
        } else {
            return kc_cli_error("figures: unknown argument '%s' (see kcube figures --help)", argv[i]);
        }
    }
    if (strlen(out) > 4000)
        return kc_cli_error("--out path too long");
    if (mkdir(out, 0777) != 0 && errno != EEXIST)
        return kc_cli_error("cannot create directory '%s': %s", out, strerror(errno));
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISDIR(st.st_mode))
        return kc_cli_error("'%s' is not a directory", out);
    /* Before the simulations: the charts can be written there. */
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/%s.png", out, FIGS[0].file);
    int prc = cli_plot_check(probe);
    if (prc)
        return prc;

    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    threads = threads < 1 ? 1 : threads > 8 ? 8 : threads;
    kc_simconfig cfg;
    kc_simconfig_default(&cfg);
    cfg.seed = seed;
    cfg.vc_independent = indep; /* -1: resolved per figure (kc_simspec_resolve) */
    double loads[MAX_LOADS];
    int nloads = 0;
    if (quick) {
        cfg.warmup = 1000;
        cfg.measure = 3000;
        cfg.drain = 6000;
        for (double l = 0.02; l < 0.1 + 1e-9; l += 0.02)
            loads[nloads++] = l;
        for (double l = 0.15; l < 1.0 + 1e-9; l += 0.05)
            loads[nloads++] = l;
    } else {
        for (double l = 0.01; l < 0.1 + 1e-9; l += 0.01)
            loads[nloads++] = l;
        for (double l = 0.125; l < 1.0 + 1e-9; l += 0.025)
            loads[nloads++] = l;
    }
    int nfigs = torus ? 6 : 3;
    buf csv = {0}, sum = {0};
    bprintf(&csv, "figure,config,routing,mapping,offered,generated,throughput,latency_avg,latency_p99,"
                  "network_latency_avg,sustainable\n");
    bprintf(&sum, "kcube figures%s%s: 20-flit messages, one-flit buffers, Poisson injection, seed %llu\n"
                  "warm-up %lld, measurement %lld cycles per load point; a curve stops at the first\n"
                  "unsustainable load. Saturation = the largest throughput of a sustainable point;\n"
                  "low-load lat = average latency at the lowest load (%.2f flits/node/cycle).\n\n",
            quick ? " --quick" : "", indep < 0 ? "" : indep ? " --vc-link independent" : " --vc-link shared", seed, (long long)cfg.warmup, (long long)cfg.measure, loads[0]);
    bprintf(&sum, "%-28s %-14s %10s %12s %14s\n", "figure", "config", "contention", "saturation", "low-load lat");
    kc_cli_progress prog;
    kc_cli_progress_init(&prog, "figures");
    int total = 0, done = 0, rc = KC_EXIT_OK;
    for (int f = 0; f < nfigs; f++)
        total += FIGS[f].nconf;
    for (int f = 0; f < nfigs && rc == KC_EXIT_OK; f++) {
        const figure *fg = &FIGS[f];
        cli_plot_series series[6];
        double thr[6][MAX_LOADS], lat[6][MAX_LOADS]; /* 6 KiB */
        for (int c = 0; c < fg->nconf && rc == KC_EXIT_OK; c++) {
            kc_err err;
            kc_simspec sp;
            kc_simspec_default(&sp);
            sp.k = fg->k;
            sp.n = fg->n;
            sp.pattern = fg->pattern;
            sp.mapping = fg->mapping[c];
            kc_simconfig cc = cfg;
            kc_simmem mem;
            int run_threads;
            if (kc_simalgo_parse(fg->routing[c], &sp.route.algo, &err) || kc_simspec_resolve(&sp, &cc, &err) ||
                (cc.load = loads[nloads - 1], kc_simmem_estimate(&sp, &cc, &mem, &err))) {
                rc = kc_cli_report(&err);
                break;
            }
            if ((rc = kc_cli_memory_threads(mem.shared, mem.per_point, threads, max_memory, &run_threads)))
                break;
            kc_simscenario sc;
            if (kc_simscenario_build(&sc, &sp, &err)) {
                rc = kc_cli_report(&err);
                break;
            }
            kc_simsweep sw;
            kc_cli_progress_cb(&prog, done, total);
            kc_simsweep_opts so = {loads, nloads, run_threads, 1, NULL};
            if (kc_sim_sweep(&sc.net, &sc.route, &sc.traffic, &cc, &so, &sw, &err)) {
                kc_simscenario_free(&sc);
                rc = kc_cli_report(&err);
                break;
            }
            done++;
            int m = 0;
            double lat05 = 0;
            for (int i = 0; i < sw.count; i++) {
                const kc_simresult *p = &sw.points[i];
                bprintf(&csv, "%s,%s,%s,%s,%.4f,%.6f,%.6f,%.3f,%.0f,%.3f,%d\n", fg->file, fg->label[c],
                        fg->routing[c], fg->mapping[c], p->offered, p->generated, p->throughput, p->latency_avg,
                        p->latency_p99, p->network_latency_avg, p->sustainable);
                if (i == 0)
                    lat05 = p->latency_avg;
                if (p->sustainable) {
                    thr[c][m] = p->throughput;
                    lat[c][m++] = p->latency_avg;
                }
            }
            char cont[24] = "-";
            if (sc.contention >= 0)
                snprintf(cont, sizeof cont, "%lld", sc.contention);
            char satx[32];
            snprintf(satx, sizeof satx, "%.3f%s", sw.saturation_throughput, sw.saturated ? "" : "+");
            bprintf(&sum, "%-28s %-14s %10s %12s %14.1f\n", fg->file, fg->label[c], cont, satx, lat05);
            series[c] = (cli_plot_series){fg->label[c], m, thr[c], lat[c]};
            kc_simsweep_free(&sw);
            kc_simscenario_free(&sc);
        }
        if (rc != KC_EXIT_OK)
            break;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.png", out, fg->file);
        if ((rc = cli_plot_latency(path, fg->title, series, fg->nconf)))
            break;
    }
    kc_cli_progress_done(&prog);
    if (rc == KC_EXIT_OK) {
        bprintf(&sum, "\n(+: not saturated within the loads tried.) Not drawn: Li's Min, Chiu et al., MIXab3,\n"
                      "MIXbb3 - their routing rules could not be established from published descriptions.\n");
        char path[4200];
        snprintf(path, sizeof path, "%s/figures.csv", out);
        if (!csv.s || cli_write_file(path, csv.s, strlen(csv.s)))
            rc = KC_EXIT_FAIL;
        snprintf(path, sizeof path, "%s/summary.txt", out);
        if (rc == KC_EXIT_OK && (!sum.s || cli_write_file(path, sum.s, strlen(sum.s))))
            rc = KC_EXIT_FAIL;
        if (rc == KC_EXIT_OK) {
            fputs(sum.s, stdout);
            printf("\nwrote %s/{%s}.png, figures.csv, summary.txt\n", out,
                   torus ? "fig5_transpose,fig6_bit-reverse,fig7_reverse-flip,seed002_fig2_transpose,"
                           "seed002_fig3_digit-reverse,seed002_fig6_uniform"
                         : "fig5_transpose,fig6_bit-reverse,fig7_reverse-flip");
        }
    }
    free(csv.s);
    free(sum.s);
    return rc;
}

const cli_command kc_command_figures = {.name = "figures", .summary = "reproduce the seeds' simulation figures (latency vs throughput)", .order = 45, .run_argv = run};
