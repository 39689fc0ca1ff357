/* kcube replay --model loggops (replay_loggops.h): LogGOPSim's model in
 * integer nanoseconds, no network. resolve (model and parameters) ->
 * compute (kc_loggops_run) -> render (text: one line; JSON: a "loggops"
 * object; CSV: item,ns rows like the network replay's item,us rows). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_loggops.h"
#include "budget.h"
#include "budget_rates.h"
#include "options.h"
#include "out.h"
#include "replay_timeline.h"
#include "trace_cli.h"
#include "kcube/timeline.h"

static const kc_name model_entries[] = {
    {CLI_REPLAY_NETWORK, "network", "the flit-level network replay and its full report (--n, --startup, "
                                    "--byte-time, ...)"},
    {CLI_REPLAY_LOGGP, "loggp", "the contention-free LogGP time alone (start-up and byte time, no network)"},
    {CLI_REPLAY_LOGGOPS, "loggops", "LogGOPSim's LogGOPS model, no network (--loggops)"},
    {0, NULL, NULL},
};
const kc_names cli_replay_model_names = {"model", model_entries};

const cli_opt OPT_MODEL = {.name = "model", .type = CLI_CHOICE, .choices = &cli_replay_model_names, .def = "network",
                           .help = "which model times the schedule (and the timeline)",
                           .param = "model"};
const cli_opt OPT_LOGGOPS = {.name = "loggops", .type = CLI_TEXT, .meta = "L=N,o=N,g=N,G=N,O=N,S=N",
                             .help = "LogGOPS parameters for --model loggops: ns, ns/byte, bytes (S=inf: no "
                                     "rendezvous); unset ones keep LogGOPSim's defaults "
                                     "L=2500,o=1500,g=1000,G=6,O=0,S=65535; or all six by position, "
                                     "L,o,g,G,O,S",
                             .param = "loggops"};

int cli_replay_model(const cli_args *a, int *model, kc_loggops_params *p, int *network_cpu)
{
    *model = cli_choice(a, &OPT_MODEL, CLI_REPLAY_NETWORK);
    *network_cpu = 0;
    const char *spec = cli_text(a, &OPT_LOGGOPS, NULL);
    kc_err err = {0};
    if (*model == CLI_REPLAY_LOGGP)
        return cli_reject(a, &OPT_LOGGOPS, "to --model loggp (it uses --startup and --byte-time)");
    if (*model == CLI_REPLAY_NETWORK) {
        /* The network's CPU and NIC as LogGOPS charges them: o, g, O, S over zeros
         * and S = inf, the nCUBE 2 model; L and G are the network's own, so
         * they stay at a sentinel that says whether they were given. */
        if (!spec)
            return 0;
        *p = (kc_loggops_params){KC_LOGGOPS_S_INF, 0, 0, KC_LOGGOPS_S_INF, 0, KC_LOGGOPS_S_INF};
        if (kc_loggops_parse(spec, p, &err))
            return cli_report(a, &err);
        if (p->L != KC_LOGGOPS_S_INF || p->G != KC_LOGGOPS_S_INF)
            return cli_error("--loggops: L and G are the network's with --model network (its latency and "
                             "--byte-time); give o, g, O and S");
        p->L = p->G = 0;
        *network_cpu = 1;
        return 0;
    }
    *p = (kc_loggops_params)KC_LOGGOPS_PARAMS_DEFAULT;
    static const char *const network_only[] = {"k", "topology", "shape", "wrap", "endpoints", "nodes", "mapping",
                                               "routing", "startup", "byte-time", "bytes-per-flit",
                                               "ranks-per-node", NULL};
    for (const cli_use *u = a->cmd->opts; u && u->opt; u++)
        for (int i = 0; network_only[i]; i++)
            if (!strcmp(u->opt->name, network_only[i]) && cli_given(a, u->opt))
                return cli_reject(a, u->opt, "to --model loggops (no network)");
    if (spec && kc_loggops_parse(spec, p, &err))
        return cli_report(a, &err);
    return 0;
}

static cJSON *params_json(const kc_loggops_params *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "L", cli_json_u64(p->L));
    cJSON_AddItemToObject(o, "o", cli_json_u64(p->o));
    cJSON_AddItemToObject(o, "g", cli_json_u64(p->g));
    cJSON_AddItemToObject(o, "G", cli_json_u64(p->G));
    cJSON_AddItemToObject(o, "O", cli_json_u64(p->O));
    if (p->S == KC_LOGGOPS_S_INF)
        cJSON_AddStringToObject(o, "S", "inf");
    else
        cJSON_AddItemToObject(o, "S", cli_json_u64(p->S));
    return o;
}

static void params_text(const kc_loggops_params *p, char *buf, size_t size)
{
    char s[24];
    if (p->S == KC_LOGGOPS_S_INF)
        snprintf(s, sizeof s, "inf");
    else
        snprintf(s, sizeof s, "%llu", (unsigned long long)p->S);
    snprintf(buf, size, "L=%llu o=%llu g=%llu G=%llu O=%llu S=%s", (unsigned long long)p->L,
             (unsigned long long)p->o, (unsigned long long)p->g, (unsigned long long)p->G,
             (unsigned long long)p->O, s);
}

/* The model's result in fmt, after the trace's report when the schedule
 * was made from one. */
static int render(const char *path, cli_fmt fmt, const kc_goal *g, const kc_loggops_params *p,
                  const kc_loggops_result *r, const cli_trace *tr)
{
    if (fmt == CLI_FMT_JSON) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "schedule", path);
        cJSON_AddStringToObject(root, "model", "loggops");
        cJSON *lg = cJSON_AddObjectToObject(root, "loggops");
        cJSON_AddItemToObject(lg, "makespan_ns", cli_json_u64(r->makespan_ns));
        cJSON_AddItemToObject(lg, "finish_ns", cli_json_u64_array(r->finish_ns, (int)g->num_ranks));
        cJSON_AddItemToObject(lg, "params", params_json(p));
        cJSON_AddItemToObject(lg, "messages", cli_json_u64(r->messages));
        cJSON_AddItemToObject(lg, "rendezvous", cli_json_u64(r->rendezvous));
        if (tr)
            cli_trace_json(root, tr);
        return cli_print_json(root);
    }
    if (fmt == CLI_FMT_CSV) {
        printf("item,ns\ntotal,%llu\n", (unsigned long long)r->makespan_ns);
        for (uint32_t v = 0; v < g->num_ranks && !ferror(stdout); v++)
            printf("finish:%u,%llu\n", v, (unsigned long long)r->finish_ns[v]);
        if (tr)
            cli_trace_csv(stdout, tr);
        return 0;
    }
    char ps[160];
    params_text(p, ps, sizeof ps);
    if (tr)
        cli_trace_text(stdout, tr);
    printf("%s: LogGOPS makespan %llu ns (%s; %llu messages, %llu by rendezvous)\n", path,
           (unsigned long long)r->makespan_ns, ps, (unsigned long long)r->messages,
           (unsigned long long)r->rendezvous);
    return 0;
}

int cli_replay_loggops(const cli_args *a, const char *path, cli_fmt fmt, const kc_goal *g,
                       const kc_loggops_params *p, const char *timeline, const cli_trace *tr)
{
    /* The gate (budget.h), fitted to bench/estimates.tsv: the schedule and
     * the model's state, 150 bytes an operation and 64 a dependence, and a
     * timeline's slices. */
    char what[96];
    double ops = (double)g->nops, deps = (double)g->ndeps;
    snprintf(what, sizeof what, "%s of %zu operations (LogGOPS)", a->path, g->nops);
    int rc = cli_budget_check(a, what,
                              CLI_RATE_LOGGOPS_OP * ops + CLI_RATE_LOGGOPS_DEP * deps + CLI_LOGGOPS_FIXED_SECONDS,
                              (uint64_t)(150 * ops + 64 * deps + CLI_BASE_BYTES +
                                         (timeline ? CLI_TIMELINE_BYTES_PER_OP * ops : 0)));
    if (rc)
        return rc;
    kc_loggops_result r;
    kc_err err = {0};
    kc_timeline tl;
    kc_status st;
    if (timeline) { /* the model's CPU slices, holds and waits (kcube/timeline.h) */
        if (kc_timeline_init(&tl, g->num_ranks, &err))
            return cli_report(a, &err);
        st = kc_timeline_loggops(g, p, &tl, &r, &err);
    } else {
        st = kc_loggops_run(g, p, NULL, NULL, &r, &err);
    }
    if (!st && timeline) {
        rc = cli_timeline_write(timeline, cli_text(a, &OPT_SIZE, NULL), &tl, path, "loggops");
        /* A timeline on standard output is all that goes there. */
        if (rc || cli_is_stdout(timeline)) {
            kc_timeline_free(&tl);
            kc_loggops_result_free(&r);
            return rc;
        }
    }
    if (timeline)
        kc_timeline_free(&tl);
    if (st)
        return cli_report(a, &err);
    rc = render(path, fmt, g, p, &r, tr);
    kc_loggops_result_free(&r);
    return rc;
}
