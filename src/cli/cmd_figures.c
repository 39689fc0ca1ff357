/* kcube figures: seed 000 Figures 5-7 (and, with --torus, seed 002 Figures
 * 2-6) from the simulator, as charts plus a CSV and a text summary.
 * options -> resolve (every configuration's spec resolved by
 * kc_simspec_resolve, kcube's own mappings computed by kc_map, memory
 * planned) -> output directory checked, mapping files written -> run figure
 * by figure -> charts, figures.csv and summary.txt written atomically. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "budget.h"
#include "core/grow.h"
#include "options.h"
#include "out.h"
#include "plot.h"
#include "seeds.h"
#include "sim_cli.h"
#include "text.h"
#include "kcube/attr.h"
#include "kcube/plan.h"
#include "kcube/simscenario.h"
#include "kcube/simsweep.h"

#define MAX_LOADS 64
#define MAX_CONF 6
#define NFIGS 8
#define NFIGS_CUBE 3 /* the seed 000 figures come first; --torus adds the rest */

/* A mapping (after '@') of the table meaning: kcube's own mapping for the
 * figure's pattern (kc_map, kind linear, with the search), written to
 * DIR/<figure>MAP_SUFFIX and simulated from that file. */
#define MAP_KCUBE "kcube-map"
#define MAP_SUFFIX "_kcube-map.txt"

static const cli_opt OPT_QUICK = {.name = "quick", .type = CLI_FLAG,
                                  .help = "shorter runs and fewer load points (a few seconds)"};
static const cli_opt OPT_TORUS = {.name = "torus", .type = CLI_FLAG,
                                  .help = "also seed 002 Figures 2-6 (4-ary 4-cube, 16-ary 2-cube, 8-ary 3-cube)"};

static const cli_use figures_opts[] = {
    {&OPT_OUT, "directory: one PNG chart per figure, figures.csv, summary.txt and (--torus) kcube's mapping "
               "files", "kcube-figures"},
    {&OPT_SIZE, "size of each chart in pixels (PNG)", NULL},
    {&OPT_QUICK, NULL, NULL},
    {&OPT_TORUS, NULL, NULL},
    {&OPT_VC_LINK, NULL, NULL},
    {&OPT_SEED, NULL, NULL},
    {&OPT_THREADS, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL},
    {&OPT_MAX_TIME, "refuse a run estimated to take longer (0 or inf: no limit; the fixed figures: only a limit given)",
     "inf"},
    {NULL, NULL, NULL},
};

typedef struct figure {
    const char *file, *title, *ref; /* chart title (pattern, network); the seed's figure (subtitle) */
    int k, n;
    const char *pattern;
    int nconf;
    const char *label[MAX_CONF];
    /* what each curve runs: a configuration name or ROUTING@MAPPING, read by
     * kc_simconf_parse like --configs (M-G's set is the topology's default) */
    const char *conf[MAX_CONF];
    const char *note; /* for summary.txt (lines after the first indented): what is drawn and why */
} figure;

#define CUBE_FIG(file, title, ref, pattern)                                                                   \
    {file, title, ref, 2, 8, pattern, 6, {"e-cube", "M-S", "M-G", "P-cube", "Duato (2 VCs)", "li-min"},       \
     {"ecube", "M-S", "M-G", "pcube", "duato", "li-min"}, NULL}

static const figure FIGS[NFIGS] = {
    CUBE_FIG("fig5_transpose", "matrix-transpose on the 8-cube", "seed 000 Fig. 5", "transpose"),
    CUBE_FIG("fig6_bit-reverse", "bit-reverse on the 8-cube", "seed 000 Fig. 6", "bit-reverse"),
    CUBE_FIG("fig7_reverse-flip", "reverse-flip on the 8-cube", "seed 000 Fig. 7", "reverse-flip"),
    {"seed002_fig2_transpose", "matrix-transpose on the 4-ary 4-cube", "seed 002 Fig. 2", 4, 4, "transpose", 3,
     {"DOR", "Map-S", "Map-G"}, {"dor", "M-S", "M-G"}, NULL},
    {"seed002_fig3_digit-reverse", "digit-reverse on the 4-ary 4-cube", "seed 002 Fig. 3", 4, 4, "digit-reverse", 3,
     {"DOR", "Map-S", "Map-G"}, {"dor", "M-S", "M-G"}, NULL},
    {"seed002_fig4_transpose", "matrix-transpose on the 16-ary 2-cube", "seed 002 Fig. 4", 16, 2, "transpose", 3,
     {"DOR", "Map-S = Map-G", "kcube map"}, {"dor", "M-S", "dor@" MAP_KCUBE},
     "digit-reverse is transpose on the 16-ary 2-cube, so Map-G (Theorem 4 for both) is Map-S\n   "
     "(Theorem 3): one curve. The paper's linear mapping keeps contention 8 (its text says so)."},
    {"seed002_fig5_digit-reverse", "digit-reverse on the 8-ary 3-cube", "seed 002 Fig. 5", 8, 3, "digit-reverse", 3,
     {"DOR", "Map-S = Map-G", "kcube map"}, {"dor", "M-S", "dor@" MAP_KCUBE},
     "transpose swaps two halves of the digits and is undefined for n = 3, so Map-G's set\n   "
     "{transpose, digit-reverse} is {digit-reverse} and Map-G is Map-S (Theorem 3): one curve (the\n   "
     "paper's chart is not in its text). Its linear mapping keeps contention 4 (its text says so)."},
    {"seed002_fig6_uniform", "uniform-random traffic on the 4-ary 4-cube", "seed 002 Fig. 6", 4, 4, "uniform", 2,
     {"DOR", "Map-G"}, {"dor", "M-G"}, NULL},
};

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static void bprintf(buf *b, const char *fmt, ...) KC_PRINTF(2, 3);
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
        if (KCI_RESERVE(b->s, b->cap, b->len + (size_t)need + 1, 256))
            return;
    }
}

typedef struct fig_job {
    const char *out, *size; /* size: --size of the charts, or NULL */
    int quick, torus, nfigs, threads;
    int vc_link; /* --vc-link, -1 when not given (then resolved per figure) */
    double loads[MAX_LOADS];
    int nloads;
    kc_simconfig cfg[NFIGS];         /* per figure: VC link sharing resolved for its network */
    int run_threads[NFIGS];
    sim_series ser[NFIGS][MAX_CONF]; /* specs resolved before any work; built one at a time */
    char *map_path[NFIGS];           /* kcube's mapping of the figure (MAP_KCUBE), NULL when none: */
    char *map_file[NFIGS];           /* the file's text, written before any simulation */
    char map_q[NFIGS][KC_GFMAT_MAX * KC_GFMAT_MAX * 4 + 1];
    unsigned long long map_before[NFIGS], map_after[NFIGS]; /* contention by kc_map's exact count */
} fig_job;

/* ---- resolve ------------------------------------------------------------------ */

static void resolve_loads(fig_job *j)
{
    /* two resolutions: fine at low load, where the curves differ, coarse above */
    double fine = j->quick ? 0.02 : 0.01, from = j->quick ? 0.15 : 0.125, step = j->quick ? 0.05 : 0.025;
    j->nloads = 0;
    for (double l = fine; l < 0.1 + 1e-9; l += fine)
        j->loads[j->nloads++] = l;
    for (double l = from; l < 1.0 + 1e-9; l += step)
        j->loads[j->nloads++] = l;
}

static void resolve_config(const cli_args *a, const fig_job *j, kc_simconfig *c)
{
    kc_simconfig_default(c);
    if (cli_given(a, &OPT_SEED))
        c->seed = cli_u64(a, &OPT_SEED, 0);
    c->vc_independent = j->vc_link; /* -1: kc_simspec_resolve decides per figure */
    if (j->quick) {
        c->warmup = 1000;
        c->measure = 3000;
        c->drain = 6000;
    }
}

/* The file text of a mapping: a comment saying where it comes from, then
 * to_physical[v] for v = 0, 1, ... (the format --mapping FILE reads). */
static char *map_text(const figure *fg, const kc_map_result *r, const char *q)
{
    buf b = {0};
    bprintf(&b, "# kcube map --k %d --n %d --pattern %s --kind linear --search: Q = %s,\n"
                "# contention %llu -> %llu; to_physical[v] for v = 0, 1, ...\n",
            fg->k, fg->n, fg->pattern, q, (unsigned long long)r->comms[0].value_before,
            (unsigned long long)r->comms[0].value_after);
    for (uint64_t v = 0; v < r->nodes.count; v++)
        bprintf(&b, "%u%c", r->nodes.to_physical[v], v % 16 == 15 || v + 1 == r->nodes.count ? '\n' : ' ');
    return b.s;
}

/* kcube's mapping for the figure's pattern, as `kcube map --kind linear
 * --search` finds it (the map's own default seed, not --seed, so both agree). */
static int resolve_kcube_map(const cli_args *a, fig_job *j, int f)
{
    const figure *fg = &FIGS[f];
    kc_topology t;
    kc_comm c;
    kc_map_opts o;
    kc_map_result r = {0};
    kc_err err;
    kc_map_opts_default(&o);
    o.kind = KC_MAP_LINEAR;
    o.search = 1;
    o.exact = 1;
    kc_status st = kc_topology_torus(&t, fg->k, fg->n, KC_TIE_PLUS, &err);
    if (!st)
        st = kc_comm_named(&c, &t, fg->pattern, &err);
    if (!st)
        st = kc_map(&t, &c, 1, &o, &r, &err);
    if (!st) {
        kc_gfmat_format(&r.map.q, j->map_q[f], sizeof j->map_q[f]);
        j->map_before[f] = r.comms[0].value_before;
        j->map_after[f] = r.comms[0].value_after;
        j->map_file[f] = map_text(fg, &r, j->map_q[f]);
        j->map_path[f] = sim_strdupf("%s/%s" MAP_SUFFIX, j->out, fg->file);
    }
    kc_map_result_free(&r);
    if (st)
        return cli_report(a, &err);
    return j->map_file[f] && j->map_path[f] ? 0 : cli_error("out of memory");
}

static int resolve_figure(const cli_args *a, fig_job *j, int f)
{
    const figure *fg = &FIGS[f];
    kc_err err;
    resolve_config(a, j, &j->cfg[f]);
    for (int c = 0; c < fg->nconf; c++) {
        sim_series *s = &j->ser[f][c];
        kc_simspec_default(&s->spec);
        s->spec.k = fg->k;
        s->spec.n = fg->n;
        s->spec.pattern = fg->pattern;
        kc_simspec net = s->spec; /* the M-G set is the network's default one */
        if (kc_simspec_resolve(&net, NULL, &err) ||
            kc_simconf_parse(fg->conf[c], kc_simspec_mapping_set(&net), NULL, &s->spec.route.algo, &s->mapping,
                             &err))
            return cli_report(a, &err);
        if (!strcmp(s->mapping, MAP_KCUBE)) {
            int r = j->map_path[f] ? 0 : resolve_kcube_map(a, j, f);
            if (r)
                return r;
            free(s->mapping);
            if (!(s->mapping = strdup(j->map_path[f])))
                return cli_error("out of memory");
        }
        s->spec.mapping = s->mapping;
        if (kc_simspec_resolve(&s->spec, &j->cfg[f], &err))
            return cli_report(a, &err);
    }
    return sim_plan_memory(a, j->ser[f], fg->nconf, 0, &j->cfg[f], j->loads, j->nloads, j->threads,
                           &j->run_threads[f]);
}

static int resolve(const cli_args *a, fig_job *j)
{
    memset(j, 0, sizeof *j);
    j->out = cli_text(a, &OPT_OUT, "kcube-figures");
    j->size = cli_text(a, &OPT_SIZE, NULL);
    j->quick = cli_flag(a, &OPT_QUICK);
    j->torus = cli_flag(a, &OPT_TORUS);
    j->nfigs = j->torus ? NFIGS : NFIGS_CUBE;
    j->threads = sim_threads(a, &OPT_THREADS);
    j->vc_link = cli_given(a, &OPT_VC_LINK) ? cli_choice(a, &OPT_VC_LINK, 0) : -1;
    resolve_loads(j);
    int r = 0;
    for (int f = 0; f < j->nfigs && !r; f++)
        r = resolve_figure(a, j, f);
    return r;
}

static void job_free(fig_job *j)
{
    for (int f = 0; f < NFIGS; f++) {
        for (int c = 0; c < MAX_CONF; c++)
            sim_series_free(&j->ser[f][c]);
        free(j->map_path[f]);
        free(j->map_file[f]);
    }
}

/* ---- output place: checked before any simulation ---------------------------------- */

static char *out_path(const fig_job *j, const char *name, const char *ext)
{
    return sim_strdupf("%s/%s%s", j->out, name, ext);
}

static int prepare_out(const fig_job *j)
{
    cli_quoted q;
    struct stat st;
    /* Name checks first: a bad name must not leave a directory behind. */
    if (cli_is_stdout(j->out))
        return cli_error("--out: figures writes a directory of files; '-' (standard output) cannot be one");
    for (const char *c = j->out; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return cli_error("--out: directory name '%s' holds control characters", cli_quote(&q, j->out));
    /* A place that cannot be written is a failed write (exit 1), as for every output file. */
    if (mkdir(j->out, 0777) != 0 && errno != EEXIST)
        return cli_write_error(j->out, errno);
    if (stat(j->out, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_write_error(j->out, ENOTDIR);
    char *probe = out_path(j, FIGS[0].file, ".png");
    int r = probe ? cli_plot_check_sized(probe, j->size) : CLI_EXIT_FAIL;
    free(probe);
    for (int f = 0; f < j->nfigs && !r; f++)
        if (j->map_path[f])
            r = cli_write_file(j->map_path[f], j->map_file[f], strlen(j->map_file[f]));
    return r;
}

/* ---- compute and render, figure by figure ----------------------------------------- */

typedef struct fig_out {
    buf csv, sum;
    cli_progress_bar prog;
    int done, total;
} fig_out;

/* One configuration's rows; its sustainable points into thr/lat. Returns their count. */
static int config_rows(fig_out *o, const figure *fg, int c, const sim_series *s, const char *j_map_path, double *thr,
                       double *lat)
{
    /* the columns say what ran: the resolved routing and the mapping text
     * (kcube's own mapping file without the directory) */
    int m = 0, own = j_map_path && !strcmp(s->mapping, j_map_path);
    for (int i = 0; i < s->sweep.count; i++) {
        const kc_simresult *p = &s->sweep.points[i];
        bprintf(&o->csv, "%s,%s,%s,%s%s,%.4f,%.6f,%.6f,%.3f,%.0f,%.3f,%d,%.6f,%.4f\n", fg->file, fg->label[c],
                kc_simalgo_name(s->spec.route.algo), own ? fg->file : s->mapping, own ? MAP_SUFFIX : "", p->offered,
                p->generated, p->throughput, p->latency_avg, p->latency_p99, p->network_latency_avg, p->sustainable,
                p->source_throughput_min, p->source_ratio_min);
        if (p->sustainable) {
            thr[m] = p->throughput;
            lat[m++] = p->latency_avg;
        }
    }
    char cont[24] = "-", satx[32];
    if (s->sc.contention >= 0)
        snprintf(cont, sizeof cont, "%lld", s->sc.contention);
    snprintf(satx, sizeof satx, "%.3f%s", s->sweep.saturation_throughput, s->sweep.saturated ? "" : "+");
    bprintf(&o->sum, "%-28s %-14s %10s %12s %14.1f\n", fg->file, fg->label[c], cont, satx,
            s->sweep.count ? s->sweep.points[0].latency_avg : 0.0);
    return m;
}

static int run_figure(const cli_args *a, fig_job *j, int f, fig_out *o)
{
    const figure *fg = &FIGS[f];
    cli_plot_series series[MAX_CONF];
    double thr[MAX_CONF][MAX_LOADS], lat[MAX_CONF][MAX_LOADS]; /* 6 KiB */
    kc_simsweep_opts so = {j->loads, j->nloads, j->run_threads[f], 1, NULL, NULL};
    int r = 0, depth = 1;
    for (int c = 0; c < fg->nconf && !r; c++) {
        sim_series *s = &j->ser[f][c];
        depth = s->spec.depth;
        cli_progress_cb(&o->prog, o->done++, o->total);
        r = sim_series_build(a, s);
        if (!r)
            r = sim_series_sweep(a, s, &j->cfg[f], &so);
        if (!r)
            series[c] = (cli_plot_series){fg->label[c], config_rows(o, fg, c, s, j->map_path[f], thr[c], lat[c]), thr[c], lat[c]};
        sim_series_free(s); /* one configuration in memory at a time */
    }
    if (!r && fg->note)
        bprintf(&o->sum, "  (%s)\n", fg->note);
    if (!r && j->map_path[f])
        bprintf(&o->sum, "  kcube map: Q = %s, contention %llu -> %llu (kcube map --k %d --n %d --pattern %s\n"
                         "  --kind linear --search), in %s" MAP_SUFFIX "\n",
                j->map_q[f], j->map_before[f], j->map_after[f], fg->k, fg->n, fg->pattern, fg->file);
    char *path = r ? NULL : out_path(j, fg->file, ".png"), cite[160]; /* ref: "seed 00S Fig. F" */
    const kc_simconfig *cfg = &j->cfg[f];
    char *title = r ? NULL : sim_strdupf("%s: %d-flit messages, %d-flit buffers", fg->title, cfg->msg_flits, depth);
    char *sub = r ? NULL
                  : sim_strdupf("%s; %s injection, VCs of a link %s, seed %llu%s",
                                cli_seed_cite(cite, sizeof cite, fg->ref[7] - '0', fg->ref + 9),
                                sim_injection_name(cfg->process),
                                cfg->vc_independent > 0 || (cfg->vc_independent < 0 && fg->k > 2) ? "independent"
                                                                                                 : "shared",
                                (unsigned long long)cfg->seed, j->quick ? ", --quick (short runs)" : "");
    if (!r && cli_writes_output(a)) /* not in a kcube-mpi helper */
        r = path && title && sub ? cli_plot_latency(path, j->size, title, sub, series, fg->nconf) : CLI_EXIT_FAIL;
    free(path);
    free(title);
    free(sub);
    return r;
}

static void summary_head(const fig_job *j, buf *sum)
{
    const kc_simconfig *c = &j->cfg[0];
    bprintf(sum, "kcube figures%s%s: 20-flit messages, one-flit buffers, Poisson injection, seed %llu\n"
                 "warm-up %lld, measurement %lld cycles per load point; a curve stops at the first\n"
                 "unsustainable load (a load is sustainable when every source keeps up, docs/sim.md).\n"
                 "Saturation = the largest throughput of a sustainable point;\n"
                 "low-load lat = average latency at the lowest load (%.2f flits/node/cycle).\n\n",
            j->quick ? " --quick" : "", j->vc_link < 0 ? "" : j->vc_link ? " --vc-link independent" : " --vc-link shared",
            (unsigned long long)c->seed, (long long)c->warmup, (long long)c->measure, j->loads[0]);
    bprintf(sum, "%-28s %-14s %10s %12s %14s\n", "figure", "config", "contention", "saturation", "low-load lat");
    bprintf(sum, "%-28s %-14s %10s %12s %14s\n", "", "", "(messages)", "(flits/n/c)", "(cycles)");
}

static int write_results(const fig_job *j, fig_out *o)
{
    bprintf(&o->sum, "\n(+: not saturated within the loads tried.) li-min is kcube's reconstruction of Li's Min\n"
                     "(docs/sim.md), not Li's published rule. Not drawn: Chiu et al., MIXab3, MIXbb3 - their\n"
                     "routing rules could not be established from published descriptions.\n");
    char *csv = out_path(j, "figures", ".csv"), *sum = out_path(j, "summary", ".txt");
    int r = !csv || !sum || !o->csv.s || !o->sum.s ? CLI_EXIT_FAIL : cli_write_file(csv, o->csv.s, o->csv.len);
    if (!r)
        r = cli_write_file(sum, o->sum.s, o->sum.len);
    free(csv);
    free(sum);
    if (r)
        return r;
    fputs(o->sum.s, stdout);
    printf("\nwrote %s/{", j->out);
    for (int f = 0; f < j->nfigs; f++)
        printf("%s%s", f ? "," : "", FIGS[f].file);
    printf("}.png, figures.csv, summary.txt");
    for (int f = 0; f < j->nfigs; f++)
        if (j->map_path[f])
            printf(", %s" MAP_SUFFIX, FIGS[f].file);
    printf("\n");
    return CLI_EXIT_OK;
}

/* ---- the command --------------------------------------------------------------- */

static int check(const cli_args *a)
{
    fig_job *j = malloc(sizeof *j);
    int r = j ? resolve(a, j) : CLI_EXIT_FAIL;
    if (j)
        job_free(j);
    free(j);
    return r;
}

static int figures(const cli_args *a, fig_job *j)
{
    fig_out o = {0};
    int r = cli_writes_output(a) ? prepare_out(j) : 0; /* a kcube-mpi helper writes nothing */
    cli_progress_init(&o.prog, "figures");
    for (int f = 0; f < j->nfigs; f++)
        o.total += FIGS[f].nconf;
    bprintf(&o.csv, "figure,config,routing,mapping,offered,generated,throughput,latency_avg,latency_p99,"
                    "network_latency_avg,sustainable,source_throughput_min,source_ratio_min\n");
    summary_head(j, &o.sum);
    for (int f = 0; f < j->nfigs && !r; f++)
        r = run_figure(a, j, f, &o);
    cli_progress_done(&o.prog);
    if (!r && cli_writes_output(a))
        r = write_results(j, &o);
    free(o.csv.s);
    free(o.sum.s);
    return r;
}

/* Time before work (budget.h): every figure's runs, one figure after the
 * other (sim_estimate); memory is planned per figure by sim_plan_memory.
 * The figures are a fixed workload with no size to refuse (it shows its
 * progress), and the estimate counts every load point of sweeps that stop
 * at saturation (4 to 5 times the real time), so the time is checked only
 * against a --max-time the user gave. */
static int gate(const cli_args *a, const fig_job *j)
{
    if (!cli_given(a, &OPT_MAX_TIME))
        return 0;
    double total = 0, nodes = 0;
    uint64_t peak = 0;
    for (int f = 0; f < j->nfigs; f++) {
        double sec, nd;
        uint64_t bytes;
        sim_estimate(j->ser[f], FIGS[f].nconf, 0, &j->cfg[f], j->loads, j->nloads, j->run_threads[f], &sec, &bytes,
                     &nd);
        total += sec / sim_processes(a);
        peak = bytes > peak ? bytes : peak;
        nodes = nd > nodes ? nd : nodes;
    }
    char what[96];
    snprintf(what, sizeof what, "%s%s%s (%d figures)", a->path, j->quick ? " --quick" : "", j->torus ? " --torus" : "",
             j->nfigs);
    return cli_budget_check_time(a, what, total, peak); /* memory: sim_plan_memory, per figure */
}

static int run(const cli_args *a)
{
    fig_job *j = malloc(sizeof *j);
    int r = j ? resolve(a, j) : CLI_EXIT_FAIL;
    if (!r)
        r = gate(a, j);
    if (!r)
        r = figures(a, j);
    if (j)
        job_free(j);
    free(j);
    return r;
}

const cli_command kc_command_figures = {
    .name = "figures",
    .summary = "reproduce the seeds' simulation figures (latency vs throughput)",
    .order = 45,
    .description =
        "Reproduces seed 000 Figures 5, 6 and 7 on the 8-cube: matrix-transpose, bit-reverse and reverse-flip,\n"
        "20-flit messages, one-flit buffers, Poisson injection; e-cube unmapped, e-cube with the mapping of each\n"
        "pattern (M-S), e-cube with the mapping chosen for all three (M-G), P-cube, Duato's fully adaptive\n"
        "routing (2 VCs, e-cube escape) and li-min, a reconstruction of Li's Min. Chiu et al. and MIXab3/MIXbb3\n"
        "are not drawn: their rules could not be established (docs/sim.md). With --torus also seed 002 Figures\n"
        "2-6 with dimension-ordered routing (two VCs), Map-S and Map-G: transpose and digit-reverse on the 4-ary\n"
        "4-cube, transpose on the 16-ary 2-cube, digit-reverse on the 8-ary 3-cube (where Map-G is Map-S, and\n"
        "kcube's own linear mapping, found by search, is added), uniform traffic on the 4-ary 4-cube. The\n"
        "output directory is checked before any simulation; every file is written whole or not at all.",
    .opts = figures_opts,
    .check = check,
    .run = run,
    .epilog = "examples:\n"
              "  kcube figures --out kcube-figures\n"
              "  kcube figures --quick --torus --out /tmp/figs",
};
