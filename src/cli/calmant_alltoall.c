/* kcube calmant alltoall: the complete exchange of seed 003 Section 5 and the
 * other all-to-all methods on a c-dimensional mesh, each as a formula and a
 * lockstep replay, against the bisection bound; charts of the speed-up over
 * the unpipelined CC-cube against the block size (Figs. 9-10) and of the
 * barriers' share. parse (cli_opt) -> resolve -> compute -> render. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calmant_alltoall.h"
#include "budget.h"
#include "budget_rates.h"
#include "core/bits.h"
#include "core/size.h"
#include "options.h"
#include "out.h"
#include "plot.h"
#include "seeds.h"
#include "kcube/calmant_alltoall.h"
#include "kcube/calmant_embed.h"
#include "kcube/goal.h"

/* Replays walk every message (the pairwise exchange has 2^(2d)). */
#define A2A_REPLAY_MAX_D 12
/* The charts' block sizes: 16 B .. 64 KiB, powers of two (Figs. 9-10). */
#define SWEEP_LO 4
#define SWEEP_HI 16
#define SWEEP_N (SWEEP_HI - SWEEP_LO + 1)

static const cli_opt OPT_BLOCK = {.name = "block", .type = CLI_BYTES, .meta = "B",
                                  .help = "bytes per block (each process sends one block to every process)",
                                  .param = "block"};
static const cli_opt OPT_METHODS = {.name = "methods", .type = CLI_TEXT, .meta = "LIST", .def = "all",
                                    .help = "comma-separated methods, or all", .param = "methods"};
static const cli_opt OPT_PLOT_BARRIER = {.name = "plot-barrier", .type = CLI_TEXT, .meta = "FILE",
                                         .help = "draw calmant's barrier share of its time, in percent, against the "
                                                 "block size (.png, .svg, .pdf or .eps; needs --barrier > 0)",
                                         .param = "plot"};

static const cli_opt OPT_NO_REPLAY = {.name = "no-replay", .type = CLI_FLAG,
                                     .help = "formulas only: skip the schedule replays (conflicts, link bytes)"};

typedef struct a2a_job {
    cli_fmt fmt;
    int d, c, replay;
    unsigned mask;
    kc_a2a_params p;
    const char *plot, *plot_barrier, *emit;
    const char *size; /* --size of both charts, or NULL */
} a2a_job;

typedef struct a2a_row {
    kc_a2a_cost f;
    kc_a2a_replay r;
    int replayed;
    double speedup; /* the baseline's time over this one's */
} a2a_row;

/* ---- resolve ------------------------------------------------------------ */

/* --plot, --plot-barrier, --emit-goal: named files checked before any work. */
static int resolve_outputs(const cli_args *a, a2a_job *j)
{
    j->emit = cli_text(a, &OPT_EMIT_GOAL, NULL);
    if (j->emit && j->d > A2A_REPLAY_MAX_D)
        return cli_error("--emit-goal: the GOAL schedule has 2 d Q 2^d operations; d <= %d, got %d",
                         A2A_REPLAY_MAX_D, j->d);
    if (j->emit && (uint64_t)j->p.degree > j->p.block << (j->d - 1))
        return cli_error("--emit-goal: the GOAL packets need a degree <= N = %llu bytes, got %d",
                         (unsigned long long)(j->p.block << (j->d - 1)), j->p.degree);
    int r = j->emit ? cli_check_output(j->emit) : 0;
    if (r)
        return r;
    j->plot = cli_text(a, &OPT_PLOT, NULL);
    j->plot_barrier = cli_text(a, &OPT_PLOT_BARRIER, NULL);
    if (j->plot_barrier && !(j->p.barrier > 0))
        return cli_error("--plot-barrier: give --barrier B > 0 (the share is 0 without barriers)");
    if (j->plot_barrier && !(j->mask & (1u << KC_A2A_CALMANT)))
        return cli_error("--plot-barrier: the barrier share is calmant's; include it in --methods");
    j->size = cli_text(a, &OPT_SIZE, NULL);
    if (!j->plot && !j->plot_barrier && (r = cli_reject(a, &OPT_SIZE, "without --plot or --plot-barrier")))
        return r;
    r = j->plot ? cli_plot_check_sized(j->plot, j->size) : 0;
    return r ? r : j->plot_barrier ? cli_plot_check_sized(j->plot_barrier, j->size) : 0;
}

static int resolve(const cli_args *a, a2a_job *j)
{
    memset(j, 0, sizeof *j);
    int r = cli_format(a, &j->fmt);
    if (r)
        return r;
    /* --n (d), --c and --block are required: the parser saw them. */
    j->d = (int)cli_int(a, &OPT_N, 0);
    j->replay = !cli_flag(a, &OPT_NO_REPLAY);
    j->c = (int)cli_int(a, &OPT_CALMANT_C, 0);
    long long q = cli_int(a, &OPT_CALMANT_DEGREE, 0);
    j->p = (kc_a2a_params){.beta = cli_real(a, &OPT_STARTUP, 164), .tau = cli_real(a, &OPT_BYTE_TIME, 0.57),
                           .barrier = cli_real(a, &OPT_CALMANT_BARRIER, 0), .block = cli_u64(a, &OPT_BLOCK, 0),
                           .degree = q > 0 ? (int)q : 0};
    kc_err err = {0};
    kc_a2a_cost probe;
    if (cli_given(a, &OPT_CALMANT_DEGREE) && q < 1)
        kc_fail_param(&err, KC_EINVAL, "degree", "the pipelining degree must be at least 1, got %lld", q);
    else if (!kc_a2a_methods_parse(cli_text(a, &OPT_METHODS, "all"), &j->mask, &err))
        kc_a2a_cost_of(j->d, j->c, KC_A2A_PAIRWISE, &j->p, &probe, &err); /* d, c, block, times */
    if (err.status)
        return cli_report(a, &err);
    return resolve_outputs(a, j);
}

/* ---- compute ------------------------------------------------------------ */

static kc_status compute(const a2a_job *j, a2a_row *rows, kc_err *err)
{
    kc_a2a_cost base;
    kc_status s = kc_a2a_cost_of(j->d, j->c, KC_A2A_CCCUBE, &j->p, &base, err);
    for (int m = 0; !s && m < KC_A2A_NMETHODS; m++) {
        if (!(j->mask & (1u << m)))
            continue;
        a2a_row *w = &rows[m];
        s = kc_a2a_cost_of(j->d, j->c, (kc_a2a_method)m, &j->p, &w->f, err);
        w->speedup = base.time / w->f.time;
        w->replayed = j->replay && j->d <= A2A_REPLAY_MAX_D;
        if (!s && w->replayed)
            s = kc_a2a_replay_method(j->d, j->c, (kc_a2a_method)m, &j->p, &w->r, err);
    }
    return s;
}

/* The sweep of the charts: y[m][k] for block 2^(SWEEP_LO + k), by formula. */
static kc_status sweep(const a2a_job *j, double y[KC_A2A_NMETHODS][SWEEP_N], double share[SWEEP_N], kc_err *err)
{
    kc_status s = KC_OK;
    for (int k = 0; !s && k < SWEEP_N; k++) {
        kc_a2a_params p = j->p;
        p.block = 1ULL << (SWEEP_LO + k);
        kc_a2a_cost base, f;
        s = kc_a2a_cost_of(j->d, j->c, KC_A2A_CCCUBE, &p, &base, err);
        for (int m = 0; !s && m < KC_A2A_NMETHODS; m++)
            if ((j->mask & (1u << m)) && !(s = kc_a2a_cost_of(j->d, j->c, (kc_a2a_method)m, &p, &f, err))) {
                y[m][k] = base.time / f.time;
                if (m == KC_A2A_CALMANT)
                    share[k] = f.barrier_time / f.time;
            }
    }
    return s;
}

/* ---- render ------------------------------------------------------------- */

/* "16x16 mesh", "8x8x8 mesh", "16-node line". */
static void mesh_name(const a2a_job *j, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%llu", 1ULL << (j->d / j->c));
    for (int a = 1; a < j->c && n > 0 && (size_t)n < size; a++)
        n += snprintf(buf + n, size - (size_t)n, "x%llu", 1ULL << (j->d / j->c));
    if (n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "%s", j->c == 1 ? "-node line" : " mesh");
}

static int render_json(const a2a_job *j, const a2a_row *rows)
{
    cJSON *o = cJSON_CreateObject();
    cli_json_add_int(o, "d", j->d);
    cli_json_add_int(o, "c", j->c);
    cJSON_AddItemToObject(o, "side", cli_json_u64(1ULL << (j->d / j->c)));
    cJSON_AddItemToObject(o, "block", cli_json_u64(j->p.block));
    cJSON_AddNumberToObject(o, "startup", j->p.beta);
    cJSON_AddNumberToObject(o, "byte_time", j->p.tau);
    cJSON_AddNumberToObject(o, "barrier", j->p.barrier);
    cJSON *arr = cJSON_AddArrayToObject(o, "methods");
    for (int m = 0; m < KC_A2A_NMETHODS; m++) {
        if (!(j->mask & (1u << m)))
            continue;
        const a2a_row *w = &rows[m];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "method", kc_names_name(&kc_a2a_method_names, m));
        cJSON_AddNumberToObject(e, "time", w->f.time);
        cJSON_AddItemToObject(e, "steps", cli_json_u64(w->f.steps));
        cJSON_AddNumberToObject(e, "bisection_bound", w->f.bisection);
        cJSON_AddNumberToObject(e, "bound_ratio", w->f.time / w->f.bisection);
        cJSON_AddNumberToObject(e, "speedup", w->speedup);
        cli_json_add_int(e, "degree", w->f.degree);
        cJSON_AddItemToObject(e, "message_bytes", cli_json_u64(w->f.message));
        cJSON_AddNumberToObject(e, "barrier_time", w->f.barrier_time);
        cJSON_AddBoolToObject(e, "replayed", w->replayed);
        if (w->replayed) {
            cJSON_AddItemToObject(e, "conflicts", cli_json_u64(w->r.conflicts));
            cJSON_AddItemToObject(e, "empty_steps", cli_json_u64(w->r.empty_steps));
            cJSON_AddItemToObject(e, "max_link_bytes", cli_json_u64(w->r.max_link_bytes));
            cJSON_AddNumberToObject(e, "replay_time", w->r.time);
        } else
            cJSON_AddNullToObject(e, "conflicts");
        cJSON_AddItemToArray(arr, e);
    }
    return cli_print_json(o);
}

static const char *degree_text(const a2a_row *w, char *buf, size_t size)
{
    if (!w->f.degree)
        return "-";
    snprintf(buf, size, "%d", w->f.degree);
    return buf;
}

static const char *link_text(const a2a_row *w, char *buf, size_t size)
{
    if (!w->replayed)
        return "-";
    snprintf(buf, size, "%llu", (unsigned long long)w->r.max_link_bytes);
    return buf;
}

static void render_rows(const a2a_job *j, const a2a_row *rows, int csv)
{
    if (csv)
        puts("method,time,steps,bisection_bound,bound_ratio,speedup,degree,message_bytes,barrier_time,conflicts,"
             "empty_steps,max_link_bytes,replay_time");
    else
        printf("%-10s %14s %9s %7s %9s %5s %11s %9s %11s\n", "method", "time (us)", "steps", "/bound", "speed-up", "Q",
               "msg (bytes)", "conflicts", "link bytes");
    for (int m = 0; m < KC_A2A_NMETHODS; m++) {
        const a2a_row *w = &rows[m];
        if (!(j->mask & (1u << m)))
            continue;
        const char *name = kc_names_name(&kc_a2a_method_names, m);
        char q[16], links[24];
        if (csv && w->replayed)
            printf("%s,%.10g,%llu,%.10g,%.6f,%.6f,%d,%llu,%.10g,%llu,%llu,%llu,%.10g\n", name, w->f.time,
                   (unsigned long long)w->f.steps, w->f.bisection, w->f.time / w->f.bisection, w->speedup,
                   w->f.degree, (unsigned long long)w->f.message, w->f.barrier_time,
                   (unsigned long long)w->r.conflicts, (unsigned long long)w->r.empty_steps,
                   (unsigned long long)w->r.max_link_bytes, w->r.time);
        else if (csv)
            printf("%s,%.10g,%llu,%.10g,%.6f,%.6f,%d,%llu,%.10g,,,,\n", name, w->f.time, (unsigned long long)w->f.steps,
                   w->f.bisection, w->f.time / w->f.bisection, w->speedup, w->f.degree,
                   (unsigned long long)w->f.message, w->f.barrier_time);
        else
            printf("%-10s %14.10g %9llu %7.2f %9.3f %5s %11llu %9s %11s\n", name, w->f.time,
                   (unsigned long long)w->f.steps, w->f.time / w->f.bisection, w->speedup, degree_text(w, q, sizeof q),
                   (unsigned long long)w->f.message, w->replayed ? (w->r.conflicts ? "YES" : "0") : "-",
                   link_text(w, links, sizeof links));
    }
}

static void render_text(const a2a_job *j, const a2a_row *rows)
{
    char mesh[64];
    mesh_name(j, mesh, sizeof mesh);
    printf("complete exchange on the %s (d = %d, c = %d), blocks of %llu bytes, beta %g, tau %g, barrier %g\n",
           mesh, j->d, j->c, (unsigned long long)j->p.block, j->p.beta, j->p.tau, j->p.barrier);
    int first = kci_ctz32(j->mask);
    printf("bisection bound %.10g; speed-up over cc-cube (unpipelined CC-cube); /bound = time / bisection bound\n",
           rows[first].f.bisection);
    render_rows(j, rows, 0);
    if (!j->replay || j->d > A2A_REPLAY_MAX_D)
        printf("not replayed (%s): conflicts and link bytes unknown\n", j->replay ? "d > 12" : "--no-replay");
}

static int draw(const a2a_job *j, const char *path, const char *title, const char *sub, const char *ylabel,
                const cli_plot_series *s, int n)
{
    cli_plot pl;
    cli_plot_init(&pl);
    pl.size = j->size;
    pl.title = title;
    pl.subtitle = sub;
    pl.xlabel = "block size (bytes)";
    pl.ylabel = ylabel;
    pl.logx = 1;
    pl.series = s;
    pl.nseries = n;
    return cli_plot_write(&pl, path);
}

static int render_plots(const a2a_job *j)
{
    double y[KC_A2A_NMETHODS][SWEEP_N] = {{0}}, share[SWEEP_N] = {0}, x[SWEEP_N];
    kc_err err = {0};
    if (sweep(j, y, share, &err))
        return cli_error("%s", err.msg);
    for (int k = 0; k < SWEEP_N; k++)
        x[k] = (double)(1ULL << (SWEEP_LO + k));
    cli_plot_series s[KC_A2A_NMETHODS];
    int n = 0;
    for (int m = 0; m < KC_A2A_NMETHODS; m++)
        if (j->mask & (1u << m))
            s[n++] = (cli_plot_series){kc_names_name(&kc_a2a_method_names, m), SWEEP_N, x, y[m]};
    char mesh[64], title[200], sub[240], cite[120];
    mesh_name(j, mesh, sizeof mesh);
    snprintf(title, sizeof title,
             "complete exchange on the %s (d = %d): speed-up over the CC-cube, blocks 16 B to 64 KiB", mesh, j->d);
    snprintf(sub, sizeof sub, "%s; start-up beta/tau = %g, barrier b/tau = %g (tau: time per byte)",
             cli_seed_cite(cite, sizeof cite, 3, "Figs. 9-10"), j->p.beta / j->p.tau, j->p.barrier / j->p.tau);
    int r = j->plot ? draw(j, j->plot, title, sub, "speed-up over the CC-cube (times)", s, n) : 0;
    for (int k = 0; k < SWEEP_N; k++)
        share[k] *= 100; /* drawn in percent */
    cli_plot_series b = {"calmant", SWEEP_N, x, share};
    snprintf(title, sizeof title,
             "calmant's complete exchange on the %s (d = %d): barrier time in percent of the total", mesh, j->d);
    if (!r && j->plot_barrier)
        r = draw(j, j->plot_barrier, title, sub, "barrier time (% of calmant's total time)", &b, 1);
    return r;
}

/* calmant's pipelined exchange (its degree) as a GOAL schedule, processes
 * placed by the standard embedding, written atomically. */
static int emit_goal(const cli_args *a, const a2a_job *j)
{
    kc_err err = {0};
    kc_calmant g;
    kc_goal gl = {0};
    kc_a2a_cost f;
    cli_atomic at;
    int rc = 0;
    kc_status st = kc_calmant_init(&g, j->d, j->c, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, &err);
    uint32_t *to = st ? NULL : malloc(g.nodes * sizeof *to);
    if (!st && !to)
        st = kc_fail(&err, KC_ENOMEM, "out of memory (GOAL schedule)");
    for (uint64_t x = 0; !st && x < g.nodes; x++)
        to[x] = (uint32_t)kc_calmant_to_physical(&g, x);
    if (!st && !(st = kc_a2a_cost_of(j->d, j->c, KC_A2A_CALMANT, &j->p, &f, &err)) &&
        !(st = kc_goal_init(&gl, (uint32_t)g.nodes, &err)) &&
        !(st = kc_goal_gen_complete_exchange_pipelined(&gl, j->d, j->p.block, f.degree, "complete-exchange", 0,
                                                       &err)) &&
        !(st = kc_goal_remap(&gl, to, &err)) && !(rc = cli_atomic_open(&at, j->emit))) {
        if ((st = kc_goal_write(&gl, at.f, &err)) && st != KC_EIO)
            cli_atomic_abort(&at);
        else /* a failed write is reported by the commit: path and reason, one line */
            st = KC_OK, rc = cli_atomic_commit(&at);
    }
    kc_goal_free(&gl);
    free(to);
    return st ? cli_report(a, &err) : rc;
}

/* ---- the gate ------------------------------------------------------------ */

/* Time and memory before work (budget.h), fitted to the runs of
 * bench/estimates.tsv. Choosing calmant's parameters takes
 * CLI_A2A_CHOOSE_SECONDS x d^2. A replay walks every message's path:
 * CLI_RATE_A2A_MSG a message and CLI_RATE_A2A_HOP a hop, paths of c s / 2
 * hops on average (s = 2^(d/c) the side), 2^d (2^d - 1) messages for
 * pairwise, d 2^d for recursive, about 2 d^2 2^d for calmant and cc-cube
 * (their distinct iterations). The GOAL schedule of --emit-goal has about
 * 2^d (d + Q - 1) (4 d^2 + 2 d) lines (operations and their dependences on
 * the previous iteration): CLI_RATE_A2A_GOAL_LINE and 48 bytes each. */
static int gate(const cli_args *a, const a2a_job *j)
{
    double nodes = ldexp(1, j->d), hops = j->c * ldexp(1, j->d / j->c) / 2, msgs = 0, sec = 0, bytes = CLI_BASE_BYTES;
    if (j->mask & (1u << KC_A2A_CALMANT) || j->emit)
        sec += CLI_A2A_CHOOSE_SECONDS * j->d * j->d;
    if (j->replay && j->d <= A2A_REPLAY_MAX_D) {
        if (j->mask & (1u << KC_A2A_PAIRWISE))
            msgs += nodes * (nodes - 1);
        if (j->mask & (1u << KC_A2A_RECURSIVE))
            msgs += j->d * nodes;
        for (int m = KC_A2A_CALMANT; m <= KC_A2A_CCCUBE; m++)
            if (j->mask & (1u << m))
                msgs += 2.0 * j->d * j->d * nodes;
        sec += msgs * (CLI_RATE_A2A_MSG + CLI_RATE_A2A_HOP * hops);
        bytes += 64 * nodes * (j->c + 2);
    }
    if (j->emit) {
        kc_a2a_cost f;
        kc_err err = {0};
        if (kc_a2a_cost_of(j->d, j->c, KC_A2A_CALMANT, &j->p, &f, &err))
            return cli_report(a, &err);
        double lines = nodes * (j->d + f.degree - 1.0) * (4.0 * j->d * j->d + 2.0 * j->d);
        sec += CLI_RATE_A2A_GOAL_LINE * lines;
        bytes += 48 * lines;
    }
    char what[96];
    snprintf(what, sizeof what, "%s --d %d --c %d%s", a->path, j->d, j->c, j->emit ? " --emit-goal" : "");
    return cli_budget_check(a, what, sec, kci_clamp_u64(bytes));
}

/* ---- the subcommand ----------------------------------------------------- */

static int check(const cli_args *a)
{
    a2a_job j;
    return resolve(a, &j);
}

/* Files first (charts, the GOAL schedule), standard output last: a failure
 * never leaves part of the table printed. */
static int run(const cli_args *a)
{
    a2a_job j;
    int rc = resolve(a, &j);
    if (rc || (rc = gate(a, &j)))
        return rc;
    a2a_row rows[KC_A2A_NMETHODS];
    memset(rows, 0, sizeof rows);
    kc_err err = {0};
    if (compute(&j, rows, &err))
        return cli_report(a, &err);
    rc = render_plots(&j);
    if (!rc && j.emit)
        rc = emit_goal(a, &j);
    if (rc)
        return rc;
    if (j.fmt == CLI_FMT_JSON)
        return render_json(&j, rows);
    j.fmt == CLI_FMT_CSV ? render_rows(&j, rows, 1) : render_text(&j, rows);
    return CLI_EXIT_OK;
}

static void methods_help(FILE *out)
{
    fputs("methods (--methods):\n", out);
    for (const kc_name *e = kc_a2a_method_names.entries; e->name; e++)
        fprintf(out, "  %-10s %s\n", e->name, e->help);
}

static const cli_use alltoall_opts[] = {
    {&OPT_N, CALMANT_N_HELP, CLI_REQUIRED},
    {&OPT_CALMANT_C, NULL, CLI_REQUIRED},
    {&OPT_BLOCK, NULL, CLI_REQUIRED},
    {&OPT_METHODS, NULL, NULL},
    {&OPT_STARTUP, "start-up per message (beta), µs; other times use this unit; the default is the nCUBE 2's", NULL},
    {&OPT_BYTE_TIME, NULL, NULL},
    {&OPT_CALMANT_BARRIER, "barrier after each CC-cube iteration (calmant, cc-cube; the paper compares with 0)",
     NULL},
    {&OPT_CALMANT_DEGREE, "calmant's pipelining degree (default: the best in 1..min(N, 65536))", NULL},
    {&OPT_NO_REPLAY, NULL, NULL},
    {&OPT_MAX_TIME, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_CSV, "one row per method", NULL},
    {&OPT_PLOT, "speed-up over the CC-cube against the block size, 16 B .. 64 KiB (Figs. 9-10)", NULL},
    {&OPT_PLOT_BARRIER, NULL, NULL},
    {&OPT_SIZE, NULL, NULL},
    {&OPT_EMIT_GOAL, "write calmant's pipelined exchange (its degree) as a GOAL schedule, ranks on the mesh "
                     "nodes by the standard embedding (d <= 12; kcube replay --topology mesh gives the flit-level "
                     "network's time, kcube replay --model loggops LogGOPSim's)", NULL},
    {NULL, NULL, NULL},
};

const cli_command kc_calmant_alltoall_command = {
    .name = "alltoall",
    .summary = "complete exchange (all-to-all personalized): CALMANT's pipelined CC-cube and other methods",
    .description = "Every process sends one block of B bytes to every process (seed 003 Section 5). For each method:\n"
                   "its time by formula, steps (a step costs beta + (largest message) tau), the bisection bound\n"
                   "s^(c+1) B tau / 4, the speed-up over the unpipelined CC-cube, and a lockstep replay of its\n"
                   "schedule (one-port, DOR; d <= 12) for conflicts and the busiest link's bytes.\n"
                   "N = 2^(d-1) B bytes per CC-cube iteration. Times in the unit of --startup.\n"
                   "Model: time, the bisection bound and replay_time are seed 003's step model (a step costs\n"
                   "beta + its largest message x tau, one port, no contention inside a step), neither the\n"
                   "flit-level network nor LogGOPS; --emit-goal's schedule gives those with kcube replay.",
    .opts = alltoall_opts,
    .aliases = kc_calmant_aliases,
    .check = check,
    .run = run,
    .epilog = "examples:\n  kcube calmant alltoall --n 8 --c 2 --block 64 --startup 500 --byte-time 1\n"
              "  kcube calmant alltoall --n 12 --c 3 --block 16 --methods calmant,pairwise --json\n"
              "  kcube calmant alltoall --n 8 --c 2 --block 64 --plot fig9.png\n"
              "  kcube calmant alltoall --n 4 --c 2 --block 64 --degree 4 --emit-goal cx.goal &&\n"
              "    kcube replay cx.goal --topology mesh --k 4 --n 2 --startup 500 --byte-time 1",
    .more_help = methods_help,
};
