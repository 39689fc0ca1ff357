/* trace_cli.c - OTF2 traces on the command line (trace_cli.h): the trace
 * options, reading an archive behind the budget gate, the conversions to
 * traffic and schedules with the options' choices, and the one report every
 * command prints about them. */
#include "trace_cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "budget.h"
#include "budget_rates.h"
#include "core/size.h"
#include "options.h"
#include "out.h"
#include "text.h"
#include "kcube/goal.h"
#include "kcube/trace.h"
#include "kcube/traffic.h"

struct cli_trace {
    kc_trace t;
    int loaded;
    const char *path;       /* as given */
    int alg;                /* --collectives (kc_trace_alg) */
    kc_trace_filter filter; /* traffic: window, region, alg */
    int windowed;           /* --from or --to given */
    kc_trace_summary sum;   /* of the last conversion */
    int converted;
    char inferred[160];     /* the command's words for a size it derived from the trace, or "" */
};

/* The trace-only options, in the order a refusal names them. */
static const cli_opt *const trace_only[] = {&OPT_COLLECTIVES, &OPT_FROM, &OPT_TO, &OPT_REGION, &OPT_COMPUTE_SCALE,
                                            NULL};

/* A directory is taken for an archive too: if it is not one, reading it
 * says so (kc_trace_size_otf2's one line), as no other input is a
 * directory. */
int cli_trace_is(const char *path)
{
    struct stat st;
    return path && (kc_trace_is_otf2(path, NULL) || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)));
}

int cli_trace_refuse(const cli_args *a, const char *input)
{
    char why[160];
    snprintf(why, sizeof why, "%s (only to an OTF2 trace)", input);
    int r = 0;
    for (int i = 0; trace_only[i] && !r; i++)
        r = cli_reject(a, trace_only[i], why);
    return r;
}

void cli_trace_free(cli_trace *tr)
{
    if (tr && tr->loaded)
        kc_trace_free(&tr->t);
    free(tr);
}

uint32_t cli_trace_ranks(const cli_trace *tr) { return tr->t.ranks; }
uint32_t cli_trace_ranks_per_node(const cli_trace *tr) { return tr->t.ranks_per_node; }

void cli_trace_set_inferred(cli_trace *tr, const char *text)
{
    snprintf(tr->inferred, sizeof tr->inferred, "%s", text);
}

/* --from and --to as a window in ns; --to must come after --from. */
static int read_window(const cli_args *a, cli_trace *tr)
{
    double from = cli_real(a, &OPT_FROM, 0), to = cli_real(a, &OPT_TO, INFINITY);
    tr->windowed = cli_given(a, &OPT_FROM) || cli_given(a, &OPT_TO);
    if (cli_given(a, &OPT_TO) && !(to > from))
        return cli_error("--to %g: the window ends before it begins (--from %g)", to, from);
    tr->filter.from = (uint64_t)llround(from * 1e9);
    tr->filter.to = isfinite(to) ? (uint64_t)llround(to * 1e9) : UINT64_MAX;
    return 0;
}

/* A region the trace never names is bad input: say which it has. */
static int check_region(const cli_trace *tr)
{
    const char *name = tr->filter.region;
    if (!name || kc_trace_region_find(&tr->t, name) >= 0)
        return 0;
    char list[400] = "";
    size_t len = 0;
    for (uint32_t r = 0; r < tr->t.nregions && len + 8 < sizeof list; r++) {
        int w = snprintf(list + len, sizeof list - len, "%s%s", r ? ", " : "", tr->t.region[r]);
        len = w > 0 && (size_t)w < sizeof list - len ? len + (size_t)w : sizeof list - 1;
    }
    cli_quoted q, qp, ql;
    return cli_error("--region: %s enters no region '%s' (its regions: %s)", cli_quote(&qp, tr->t.name),
                     cli_quote(&q, name), tr->t.nregions ? cli_quote(&ql, list) : "none");
}

/* Reading an archive: the time per declared event (budget_rates.h, from
 * bench_trace_read's figures) against --max-time, the reader's own memory
 * estimate against --max-memory. */
static int gate(const cli_args *a, const char *path, const kc_trace_size *sz)
{
    char what[200];
    cli_quoted q;
    snprintf(what, sizeof what, "reading the trace '%s' (%llu events of %u ranks)", cli_quote(&q, path),
             (unsigned long long)sz->events, sz->ranks);
    double sec = CLI_RATE_TRACE_EVENT * (double)sz->events;
    return cli_budget_check(a, what, sec, kci_clamp_u64((double)sz->bytes + CLI_BASE_BYTES));
}

int cli_trace_load(const cli_args *a, const char *path, cli_trace **out)
{
    cli_trace *tr = *out = calloc(1, sizeof *tr);
    if (!tr)
        return cli_error("out of memory");
    tr->path = path;
    kc_trace_filter_default(&tr->filter);
    tr->alg = cli_choice(a, &OPT_COLLECTIVES, KC_ALG_AUTO);
    tr->filter.alg = (kc_trace_alg)tr->alg;
    tr->filter.region = cli_text(a, &OPT_REGION, NULL);
    int r = read_window(a, tr);
    if (r)
        return r;
    kc_err err = {0};
    kc_trace_size sz;
    if (kc_trace_size_otf2(path, &sz, &err))
        return cli_report(a, &err);
    if ((r = gate(a, path, &sz)))
        return r;
    if (kc_trace_read_otf2(&tr->t, path, NULL, &err))
        return cli_report(a, &err);
    tr->loaded = 1;
    return check_region(tr);
}

int cli_trace_traffic(const cli_args *a, cli_trace *tr, struct kc_traffic *out)
{
    kc_err err = {0};
    cli_quoted q;
    if (out->ranks < tr->t.ranks)
        return cli_error("%s has %u ranks, more than the network's %llu slots", cli_quote(&q, tr->t.name),
                         tr->t.ranks, (unsigned long long)out->ranks);
    if (kc_trace_traffic(&tr->t, &tr->filter, out, &tr->sum, &err))
        return cli_report(a, &err);
    tr->converted = 1;
    if (out->count == 0)
        return cli_error("%s has no message%s", cli_quote(&q, tr->t.name),
                         tr->windowed || tr->filter.region ? " in the window or region asked" : "");
    return 0;
}

int cli_trace_goal(const cli_args *a, cli_trace *tr, struct kc_goal *g)
{
    kc_err err = {0};
    kc_trace_goal_opts o = {cli_real(a, &OPT_COMPUTE_SCALE, 1), (kc_trace_alg)tr->alg};
    if (kc_trace_goal(&tr->t, &o, g, &tr->sum, &err))
        return cli_report(a, &err);
    tr->converted = 1;
    return 0;
}

/* ---- the report ---------------------------------------------------------- */

/* "recursive-doubling" or "binomial+ring": the algorithms some call of
 * collective c was expanded with. */
static const char *algs_text(const cli_trace *tr, int c, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int alg = 0; alg < KC_ALG_COUNT; alg++)
        if (tr->sum.coll_algs[c] & (1u << alg)) {
            int w = snprintf(buf + len, size - len, "%s%s", len ? "+" : "", kc_names_name(&kc_trace_alg_names, alg));
            len = w > 0 && (size_t)w < size - len ? len + (size_t)w : size - 1;
        }
    return buf;
}

static void text_colls(FILE *f, const cli_trace *tr)
{
    for (int c = 0; c < KC_COLL_COUNT; c++) {
        if (!tr->sum.coll_calls[c])
            continue;
        char algs[128];
        fprintf(f, "  %s: %llu call%s, %s%s\n", kc_names_name(&kc_trace_coll_names, c),
                (unsigned long long)tr->sum.coll_calls[c], tr->sum.coll_calls[c] == 1 ? "" : "s",
                algs_text(tr, c, algs, sizeof algs), tr->alg == KC_ALG_AUTO ? " (auto: Open MPI tuned)" : "");
    }
}

void cli_trace_text(FILE *f, const cli_trace *tr)
{
    const kc_trace *t = &tr->t;
    cli_quoted q;
    fprintf(f, "%s: %u ranks", cli_quote(&q, t->name), t->ranks);
    if (t->nodes)
        fprintf(f, " on %u node%s (%u rank%s on the fullest)", t->nodes, t->nodes == 1 ? "" : "s", t->ranks_per_node,
                t->ranks_per_node == 1 ? "" : "s");
    fprintf(f, ", %zu events over %.6g s; %zu more skipped (neither point-to-point nor collective)\n", t->nev,
            (double)t->duration * 1e-9, t->skipped);
    if (!tr->converted)
        return;
    const kc_trace_summary *s = &tr->sum;
    fprintf(f, "point-to-point: %llu message%s, %llu bytes; collectives: %llu message%s, %llu bytes\n",
            (unsigned long long)s->p2p_messages, s->p2p_messages == 1 ? "" : "s", (unsigned long long)s->p2p_bytes,
            (unsigned long long)s->coll_messages, s->coll_messages == 1 ? "" : "s",
            (unsigned long long)s->coll_bytes);
    text_colls(f, tr);
    if (tr->windowed || tr->filter.region) {
        char to[48] = "the end";
        if (tr->filter.to != UINT64_MAX)
            snprintf(to, sizeof to, "%g s", (double)tr->filter.to * 1e-9);
        fprintf(f, "kept: events from %g s to %s%s%s%s; %llu dropped\n", (double)tr->filter.from * 1e-9, to,
                tr->filter.region ? " inside region '" : "", tr->filter.region ? cli_quote(&q, tr->filter.region) : "",
                tr->filter.region ? "'" : "", (unsigned long long)s->dropped);
    }
    if (tr->inferred[0])
        fprintf(f, "%s\n", tr->inferred);
}

void cli_trace_json(cJSON *root, const cli_trace *tr)
{
    const kc_trace *t = &tr->t;
    cJSON *o = cJSON_AddObjectToObject(root, "trace");
    cJSON_AddStringToObject(o, "path", tr->path);
    cli_json_add_int(o, "ranks", t->ranks);
    cJSON_AddItemToObject(o, "nodes", t->nodes ? cli_json_u64(t->nodes) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "ranks_per_node", t->ranks_per_node ? cli_json_u64(t->ranks_per_node) : cJSON_CreateNull());
    cli_json_add_u64(o, "events", t->nev);
    cli_json_add_u64(o, "skipped", t->skipped);
    cJSON_AddNumberToObject(o, "duration_s", (double)t->duration * 1e-9);
    cJSON_AddStringToObject(o, "collectives", kc_names_name(&kc_trace_alg_names, tr->alg));
    cJSON_AddItemToObject(o, "inferred", tr->inferred[0] ? cJSON_CreateString(tr->inferred) : cJSON_CreateNull());
    if (!tr->converted)
        return;
    const kc_trace_summary *s = &tr->sum;
    cli_json_add_u64(o, "p2p_messages", s->p2p_messages);
    cli_json_add_u64(o, "p2p_bytes", s->p2p_bytes);
    cli_json_add_u64(o, "coll_messages", s->coll_messages);
    cli_json_add_u64(o, "coll_bytes", s->coll_bytes);
    cli_json_add_u64(o, "dropped", s->dropped);
    cJSON_AddItemToObject(o, "from_s", tr->windowed ? cJSON_CreateNumber((double)tr->filter.from * 1e-9)
                                                    : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "to_s", tr->windowed && tr->filter.to != UINT64_MAX
                                         ? cJSON_CreateNumber((double)tr->filter.to * 1e-9)
                                         : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "region", tr->filter.region ? cJSON_CreateString(tr->filter.region) : cJSON_CreateNull());
    cJSON *cs = cJSON_AddObjectToObject(o, "collective_calls");
    for (int c = 0; c < KC_COLL_COUNT; c++) {
        if (!s->coll_calls[c])
            continue;
        char algs[128];
        cJSON *e = cJSON_AddObjectToObject(cs, kc_names_name(&kc_trace_coll_names, c));
        cli_json_add_u64(e, "calls", s->coll_calls[c]);
        cJSON_AddStringToObject(e, "algorithm", algs_text(tr, c, algs, sizeof algs));
    }
}

void cli_trace_csv(FILE *f, const cli_trace *tr)
{
    const kc_trace *t = &tr->t;
    const kc_trace_summary *s = &tr->sum;
    fputs("\ntrace_item,value\ntrace_path,", f);
    cli_csv_field(f, tr->path);
    fprintf(f, "\ntrace_ranks,%u\ntrace_nodes,%u\ntrace_ranks_per_node,%u\ntrace_events,%zu\ntrace_skipped,%zu\n",
            t->ranks, t->nodes, t->ranks_per_node, t->nev, t->skipped);
    fprintf(f, "trace_collectives,%s\n", kc_names_name(&kc_trace_alg_names, tr->alg));
    if (!tr->converted)
        return;
    fprintf(f, "trace_p2p_messages,%llu\ntrace_p2p_bytes,%llu\ntrace_coll_messages,%llu\ntrace_coll_bytes,%llu\n"
               "trace_dropped,%llu\n",
            (unsigned long long)s->p2p_messages, (unsigned long long)s->p2p_bytes,
            (unsigned long long)s->coll_messages, (unsigned long long)s->coll_bytes, (unsigned long long)s->dropped);
    for (int c = 0; c < KC_COLL_COUNT; c++)
        if (s->coll_calls[c]) {
            char algs[128];
            fprintf(f, "trace_calls:%s,%llu\ntrace_algorithm:%s,%s\n", kc_names_name(&kc_trace_coll_names, c),
                    (unsigned long long)s->coll_calls[c], kc_names_name(&kc_trace_coll_names, c),
                    algs_text(tr, c, algs, sizeof algs));
        }
}
