/* kcube map: the best processor mapping for one or more communications, on
 * any topology, through kc_map (kcube/plan.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export_cli.h"
#include "loads_cli.h"
#include "map_general.h"
#include "budget.h"
#include "budget_rates.h"
#include "options.h"
#include "out.h"
#include "network_cli.h"
#include "plan_cli.h"
#include "traffic_cli.h"
#include "kcube/mapset.h"
#include "kcube/plan.h"

#define NODES_MAX 65536ULL /* node arrays in JSON and --emit-c up to N = 2^16 */
#define TEXT_NODES_MAX 16  /* and in the text output */
#define OUT_NODES_MAX (1ULL << 24) /* --out node lists: what simulate and replay --mapping FILE read */

enum { METHOD_AUTO, METHOD_OPTIMIZER, METHOD_DP, METHOD_EXHAUSTIVE };
static const kc_name method_entries[] = {
    {METHOD_AUTO, "auto", "no restriction (the same as --kind auto)"},
    {METHOD_OPTIMIZER, "optimizer", "reordering by seed 000's O(n^3) optimiser (one communication)"},
    {METHOD_DP, "dp", "reordering by the exact subset dynamic programme (hypercube n <= 32 as memory and "
                      "--max-time allow; refused, not replaced, when it does not fit)"},
    {METHOD_EXHAUSTIVE, "exhaustive", "reordering, checked against all n! orders (hypercube, n <= 10)"},
    {0, NULL, NULL},
};
static const kc_names method_names = {"method", method_entries};

static const cli_opt OPT_METHOD = {.name = "method", .type = CLI_CHOICE, .choices = &method_names, .def = "auto",
                                   .help = "old hypercube methods; every value but auto means --kind reorder"};
/* The search's own default (kcube/plan.h kc_map_budget), applied when
 * --evals is not given. */
static void evals_default(char *buf, size_t size)
{
    snprintf(buf, size, "%d, fewer for large n, at least %d", KC_PLAN_BUDGET, KC_PLAN_BUDGET_MIN);
}
static const cli_opt OPT_EVALS = {.name = "evals", .type = CLI_U64, .meta = "E", .param = "budget",
                                  .help = "evaluations the search may spend", .shown_def = evals_default};
static const cli_opt OPT_Q = {.name = "q", .type = CLI_TEXT, .meta = "Q", .param = "mapping_matrix",
                              .help = "evaluate this nonsingular mapping matrix (syntax of --matrix) instead"};
static const cli_opt OPT_EMIT_C = {.name = "emit-c", .type = CLI_FLAG,
                                   .help = "print to_physical[] / to_virtual[] as C arrays (N <= 65536)"};

static const cli_use map_opts[] = {
    {&OPT_N, NULL, NULL},
    {&OPT_K, "nodes per dimension (2..256; mappings need a power of two)", NULL},
    {&OPT_TOPOLOGY, NULL, NULL},
    {&OPT_SHAPE, NULL, NULL},
    {&OPT_TIE, NULL, NULL},
    {&OPT_NETWORK, NULL, NULL},
    {&OPT_WRAP, NULL, NULL},
    {&OPT_ENDPOINTS, NULL, NULL},
    {&OPT_NODES, NULL, NULL},
    {&OPT_PATTERN, NULL, NULL},
    {&OPT_MATRIX, "y = Ax + b: A row 0 first, rows separated by ';' (bit rows or GF(k) entries)", NULL},
    {&OPT_VECTOR, NULL, NULL},
    {&OPT_SCATTER, NULL, NULL},
    {&OPT_KIND, "reorder keeps neighbours; linear may not; auto: the best of both (ties: reorder)", NULL},
    {&OPT_OBJECTIVE, NULL, NULL},
    {&OPT_SEARCH, "also search with --kind reorder/linear (auto searches within the default --evals)", NULL},
    {&OPT_EVALS, NULL, NULL},
    {&OPT_SEED, "seed of the search and of uniform traffic", NULL},
    {&OPT_METHOD, NULL, NULL},
    {&OPT_Q, NULL, NULL},
    {&OPT_EXACT, "re-count every mapped communication exactly", NULL},
    {&OPT_NO_EXACT, "skip the exact re-count (by default done up to N = 2^20)", NULL},
    {&OPT_EMIT_C, NULL, NULL},
    {&OPT_TRAFFIC, NULL, NULL},
    {&OPT_TRAFFIC_FORMAT, NULL, NULL},
    {&OPT_COLLECTIVES, NULL, NULL},
    {&OPT_FROM, NULL, NULL},
    {&OPT_TO, NULL, NULL},
    {&OPT_REGION, NULL, NULL},
    {&OPT_WORK, "work of the search, in millions: channel-load updates for --kind general; frame additions for "
                "--kind reorder of a set on the hypercube beyond n = 20 (its default takes about 0.3 to 1 s; the "
                "threshold search after it holds at most a quarter of it, over the count of communications, "
                "in prefix sets)", NULL},
    {&OPT_BASELINE, NULL, NULL},
    {&OPT_HOPS_CAP, NULL, NULL},
    {&OPT_STENCIL, NULL, NULL},
    {&OPT_GRID, NULL, NULL},
    {&OPT_PERIODIC, NULL, NULL},
    {&OPT_GRID_ORDER, NULL, NULL},
    {&OPT_COLLECTIVE, NULL, NULL},
    {&OPT_MSG_BYTES, NULL, NULL},
    {&OPT_PHASES, NULL, NULL},
    {&OPT_EMIT_TRAFFIC, NULL, NULL},
    {&OPT_LOADS, "write every loaded directed channel of the final general mapping, one a line: from_router "
                 "to_router axis dir load", NULL},
    {&OPT_MAPPING, "none, or a node list (line r: the endpoint number rank r runs on, as --out writes) counted "
                   "exactly as the general mapping's start \"file\" (with --work 0 only the starts are counted)",
     NULL},
    {&OPT_OUT, "write the mapping as a node list: line v is the physical node of virtual node v (the file "
               "simulate and replay --mapping FILE read; N <= 2^24; '-': standard output), or as --format says",
     NULL},
    {&OPT_FORMAT, "the file --out writes the mapping as (a node list unless asked)", "nodelist"},
    {&OPT_MACHINE, NULL, NULL},
    {&OPT_HOSTS, NULL, NULL},
    {&OPT_SLOTS_PER_HOST, NULL, NULL},
    {&OPT_FILL, NULL, NULL},
    {&OPT_FIRST_HOST, NULL, NULL},
    {&OPT_MAX_TIME, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_CSV, NULL, NULL},
    {NULL, NULL, NULL},
};

static const cli_narrow map_narrow[] = {{&OPT_MAPPING, NULL, "none|FILE"}, {&OPT_TIE, "plus|minus|split", NULL}, {NULL, NULL, NULL}};

static const cli_alias map_aliases[] = {
    {"mesh", &OPT_TOPOLOGY, "mesh", NULL, "old spelling of --topology mesh"},
    {"fallback", &OPT_KIND, "auto", NULL, "old spelling of --kind auto (linear if it is better, else reorder)"},
    {"no-verify", &OPT_NO_EXACT, NULL, NULL, "old spelling of --no-exact"},
    {"export", &OPT_FORMAT, NULL, NULL, "old spelling of --format (the file --out writes)"},
    {"ranks-per-node", &OPT_SLOTS_PER_HOST, NULL, NULL, "old spelling of --slots-per-host"},
    {NULL, NULL, NULL, NULL, NULL},
};

typedef struct map_job {
    plan_input in;
    kc_map_opts opts;
    int method, emit_c, has_q;
    const char *out; /* --out FILE, or NULL */
    cli_export exp;  /* --format FORMAT and the machine it names */
    const cli_args *args;
    kc_gfmat q;
} map_job;

/* ---- resolve -------------------------------------------------------------- */

static int resolve_method(const cli_args *a, map_job *j)
{
    j->method = cli_choice(a, &OPT_METHOD, METHOD_AUTO);
    if (j->method == METHOD_AUTO)
        return 0;
    if (cli_given(a, &OPT_KIND) && j->opts.kind != KC_MAP_REORDER)
        return cli_error("--method %s finds a reordering: it does not go with --kind %s",
                            kc_names_name(&method_names, j->method), kc_names_name(&kc_map_kind_names, j->opts.kind));
    j->opts.kind = KC_MAP_REORDER;
    int binary = kc_topology_is_binary(&j->in.topo), n = j->in.topo.n;
    if (j->method == METHOD_OPTIMIZER && j->in.count > 1)
        return cli_error("the optimizer maps one communication; use --method dp for a set");
    if (j->method == METHOD_DP && binary && j->in.count > 1 && n > KC_MAPSET_MAX_N)
        return cli_error("the dynamic programme supports n <= %d, got n = %d (without --method dp a search runs)",
                         KC_MAPSET_MAX_N, n);
    if (j->method == METHOD_DP)
        j->opts.dp = 1;
    if (j->method == METHOD_EXHAUSTIVE && (!binary || n > KC_EXHAUSTIVE_MAX_N))
        return cli_error("exhaustive search supports the hypercube with n <= %d", KC_EXHAUSTIVE_MAX_N);
    return 0;
}

static int resolve_given(const cli_args *a, map_job *j)
{
    const char *text = cli_text(a, &OPT_Q, NULL);
    int r;
    if (!text)
        return 0;
    if ((r = cli_reject(a, &OPT_SEARCH, "with --q (the given Q is only evaluated)")) ||
        (r = cli_reject(a, &OPT_KIND, "with --q (the given Q decides the kind)")) ||
        (r = cli_reject(a, &OPT_METHOD, "with --q (the given Q is only evaluated)")))
        return r;
    kc_gf f;
    kc_err err = {0};
    if (kc_topology_need_gf(&j->in.topo, "a given mapping", &err) || kc_gf_init(&f, j->in.topo.k, &err) ||
        kc_gfmat_parse(&f, &j->q, text, j->in.topo.n, &err)) {
        err.param = err.param ? err.param : "mapping_matrix";
        return cli_report(a, &err);
    }
    j->has_q = 1;
    return 0;
}

static int resolve(const cli_args *a, map_job *j)
{
    memset(j, 0, sizeof *j);
    j->args = a;
    int r = plan_resolve(a, PLAN_COMMS_SET, &j->in);
    if (r)
        return r;
    kc_map_opts_default(&j->opts);
    j->opts.kind = (kc_map_kind)cli_choice(a, &OPT_KIND, KC_MAP_AUTO);
    j->opts.objective = (kc_objective)cli_choice(a, &OPT_OBJECTIVE, KC_OBJ_MAX);
    j->opts.seed = cli_u64(a, &OPT_SEED, 1);
    j->opts.budget = cli_u64(a, &OPT_EVALS, 0);
    j->opts.search = cli_given(a, &OPT_SEARCH) ? 1 : KC_SEARCH_DEFAULT;
    if (cli_given(a, &OPT_EXACT) && cli_given(a, &OPT_NO_EXACT))
        return cli_error("give --exact or --no-exact, not both");
    j->opts.exact = cli_given(a, &OPT_EXACT) ? 1 : cli_given(a, &OPT_NO_EXACT) ? 0 : KC_EXACT_AUTO;
    j->emit_c = cli_flag(a, &OPT_EMIT_C);
    if (j->emit_c && j->in.fmt != CLI_FMT_TEXT)
        return cli_error("--emit-c is an output of its own: give it without --json or --csv");
    char nb[24];
    if (j->emit_c && j->in.topo.nodes > NODES_MAX)
        return cli_error("--emit-c writes node arrays for N <= %llu nodes, the network has %s",
                         (unsigned long long)NODES_MAX, kc_topology_nodes_text(&j->in.topo, nb, sizeof nb));
    if ((r = resolve_method(a, j)) || (r = resolve_given(a, j)))
        return r;
    if (j->opts.kind != KC_MAP_AUTO && !cli_given(a, &OPT_SEARCH) &&
        (r = cli_reject(a, &OPT_EVALS, "without a search (add --search, or use --kind auto)")))
        return r;
    if (cli_given(a, &OPT_WORK)) {
        if (!kc_topology_is_binary(&j->in.topo) || j->opts.kind != KC_MAP_REORDER)
            return cli_error("--work bounds the general search (--kind general) and the hypercube's reordering "
                             "search (--kind reorder); use --evals for the linear search");
        double w = cli_real(a, &OPT_WORK, 0) * 1e6; /* given: no fallback applies */
        j->opts.work = w < 1 ? 1 : (uint64_t)w;
    }
    static const cli_opt *const general_only[] = {&OPT_BASELINE,   &OPT_HOPS_CAP, &OPT_GRID,
                                                  &OPT_PERIODIC, &OPT_GRID_ORDER, &OPT_MSG_BYTES, &OPT_PHASES,
                                                  &OPT_EMIT_TRAFFIC, &OPT_LOADS, &OPT_COLLECTIVES,
                                                  &OPT_FROM, &OPT_TO, &OPT_REGION, NULL};
    for (int i = 0; general_only[i]; i++)
        if ((r = cli_reject(a, general_only[i], "to algebraic mappings (use --kind general or --traffic FILE)")))
            return r;
    if (strcmp(cli_text(a, &OPT_MAPPING, "none"), "none"))
        return cli_error("--mapping FILE is a start of the general mapping (use --kind general or --traffic FILE)");
    j->opts.given = j->has_q ? &j->q : NULL;
    /* --format without --out writes on standard output: exp.out says where. */
    if ((r = cli_export_resolve(a, &OPT_FORMAT, &j->in.topo, cli_text(a, &OPT_OUT, NULL), 1, &j->exp)))
        return r;
    if ((j->out = j->exp.out)) {
        if (j->in.topo.nodes > OUT_NODES_MAX)
            return cli_error("--out writes node lists for N <= %llu nodes, the network has %s",
                             (unsigned long long)OUT_NODES_MAX, kc_topology_nodes_text(&j->in.topo, nb, sizeof nb));
        if ((r = cli_check_output(j->out)))
            return r;
    }
    return 0;
}

/* ---- the gate -------------------------------------------------------------- */

/* Time and memory before work (budget.h; plan_gate adds the exact re-count,
 * by default up to N = 2^20), measured on the development machine (x86-64)
 * and rounded up: the search 1 ns per unit of its budget x n^4 x m
 * (kc_map_budget; 0.4 to 0.8 ns measured), the subset DP of a set 8 ns x
 * 2^n m n (binary, n <= 24) or 0.5 ns x 2^n n^5 m (GF(k), n <= 14) and 16
 * bytes a node,
 * --method exhaustive 25 ns x n! m n^2. */
static int gate(const cli_args *a, const map_job *j)
{
    const kc_topology *t = &j->in.topo;
    double n = t->n, m = j->in.count, sec = 0, bytes = 0, N = (double)t->nodes;
    int binary = t->k == 2 && t->kind != KC_TOPO_MESH, given = j->opts.given != NULL;
    if (!given && (j->opts.search == 1 || (j->opts.search == KC_SEARCH_DEFAULT && j->opts.kind == KC_MAP_AUTO)))
        sec += CLI_RATE_MAP_SEARCH * (double)kc_map_budget(&j->opts, t->n, j->in.count) * n * n * n * n * m;
    if (!given && m >= 2 && j->opts.kind != KC_MAP_LINEAR && t->n <= (binary ? KC_MAPSET_DIRECT_N : 14)) {
        sec += binary ? CLI_RATE_MAP_DP_BINARY * ldexp(1, t->n) * m * n
                      : CLI_RATE_MAP_DP_GFK * ldexp(1, t->n) * pow(n, 5) * m;
        bytes += 16 * N;
    }
    if (!given && binary && m >= 1 && j->opts.kind != KC_MAP_LINEAR && t->n > KC_MAPSET_DIRECT_N) {
        /* the search before the DP: 150 ns a frame addition at most; the DP
         * itself is held to --max-time and --max-memory by the library
         * (kc_map_opts dp_max_*), since its memory follows from the
         * search's value */
        double w = j->opts.work ? (double)j->opts.work : (double)KC_MAPSET_SEARCH_WORK;
        sec += CLI_RATE_MAP_FRAME * w;
        /* then the threshold search for the bound: work / 4m prefix sets at
         * most, 30 ns per set, communication and dimension (measured 20) */
        sec += CLI_RATE_MAP_THRESHOLD * w / 4 * n;
    }
    if (j->method == METHOD_EXHAUSTIVE)
        sec += CLI_RATE_MAP_EXHAUSTIVE * tgamma(n + 1) * m * n * n;
    int exact = j->opts.exact == KC_EXACT_AUTO ? t->nodes <= (1ULL << 20) : j->opts.exact;
    return plan_gate(a, &j->in, exact, sec, bytes);
}

/* ---- compute -------------------------------------------------------------- */

/* --method exhaustive: every one of the n! orders must not beat the result. */
static kc_status check_exhaustive(const map_job *j, kc_map_result *r, kc_err *err)
{
    kc_lcc lccs[KC_PLAN_MAX_COMMS];
    int m = 0;
    for (int i = 0; i < j->in.count; i++)
        if (j->in.comms[i].has_lcc)
            lccs[m++] = j->in.comms[i].lcc;
    kc_mapset_result ex;
    kc_status s = kc_mapset_exhaustive(lccs, m, j->opts.objective, &ex, err);
    if (s)
        return s;
    if (ex.value != r->value || ex.total != r->total)
        return kc_fail(err, KC_EINTERNAL, "exhaustive search found %llu/%llu, the planner %llu/%llu",
                       (unsigned long long)ex.value, (unsigned long long)ex.total, (unsigned long long)r->value,
                       (unsigned long long)r->total);
    r->method = "exhaustive";
    return KC_OK;
}

static kc_status compute(map_job *j, kc_map_result *r, kc_err *err)
{
    cli_progress_bar prog;
    cli_progress_init(&prog, "mapping");
    double limit = cli_budget_seconds(j->args);
    j->opts.dp_max_seconds = isfinite(limit) && limit > 0 ? limit : 0;
    j->opts.dp_max_bytes = cli_budget_bytes(j->args);
    kc_progress p = {j->in.topo.n >= 18 ? cli_progress_cb : NULL, &prog};
    j->opts.progress = &p;
    kc_status s = kc_map(&j->in.topo, j->in.comms, j->in.count, &j->opts, r, err);
    cli_progress_done(&prog);
    if (!s && j->method == METHOD_OPTIMIZER && strcmp(r->method, "optimizer") != 0)
        s = kc_fail_param(err, KC_EINVAL, "method", "the optimizer minimises the largest contention; objective "
                                                    "sum on a gather or scatter needs --method dp");
    if (!s && j->method == METHOD_EXHAUSTIVE)
        s = check_exhaustive(j, r, err);
    return s;
}

/* The exact total among optimal orders is not searched for one gather or
 * scatter beyond the dynamic programme. */
static int total_minimised(const map_job *j, const kc_map_result *r)
{
    const kc_comm *c = &j->in.comms[0];
    if (r->kind == KC_MAP_REORDER && j->in.count > 1 && strcmp(r->method, "reorder-search") == 0)
        return 0; /* the set's order came from the search, not a least-total pass (DP or threshold search) */
    return !(r->kind == KC_MAP_REORDER && strcmp(r->method, "optimizer") == 0 && c->has_lcc &&
             c->lcc.kind != KC_LCC_PERMUTATION && j->in.topo.n > KC_MAPSET_AUTO_N);
}

/* ---- renderers ------------------------------------------------------------ */

static const char *kind_name(kc_map_kind k) { return kc_names_name(&kc_map_kind_names, k); }

static cJSON *json_candidates(const kc_map_result *r)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < r->ncandidates; i++) {
        const kc_map_candidate *c = &r->candidates[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", kind_name(c->kind));
        cJSON_AddStringToObject(o, "method", c->method);
        cJSON_AddItemToObject(o, "value", cli_json_u64(c->value));
        cJSON_AddItemToObject(o, "total", cli_json_u64(c->total));
        cJSON_AddItemToObject(o, "evaluations", cli_json_u64(c->evaluations));
        cJSON_AddBoolToObject(o, "exhaustive", c->exhaustive);
        cJSON_AddBoolToObject(o, "optimal", c->optimal);
        if (c->lower)
            cJSON_AddItemToObject(o, "lower_bound", cli_json_u64(c->lower));
        else
            cJSON_AddNullToObject(o, "lower_bound");
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *json_comm(const kc_map_comm *x, int n)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "name", x->before.name);
    cJSON_AddStringToObject(p, "kind", kc_comm_kind_name(&x->before));
    if (x->before.linear) {
        cli_json_add_int(p, "rank", kc_comm_rank(&x->before));
        cJSON_AddItemToObject(p, "matrix", plan_json_matrix(&x->before.t.a));
        cJSON_AddItemToObject(p, "vector", plan_json_vector(x->before.t.b, n));
        cJSON_AddItemToObject(p, "matrix_after", plan_json_matrix(&x->after.t.a));
        cJSON_AddItemToObject(p, "vector_after", plan_json_vector(x->after.t.b, n));
    }
    if (x->known) {
        cJSON_AddItemToObject(p, "contention_before", cli_json_u64(x->value_before));
        cJSON_AddItemToObject(p, "contention_after", cli_json_u64(x->value_after));
        cJSON_AddItemToObject(p, "per_dim_before", cli_json_u64_array(x->per_dim_before, n));
        cJSON_AddItemToObject(p, "per_dim_after", cli_json_u64_array(x->per_dim_after, n));
    } else { /* uniform traffic without the exact count */
        cJSON_AddNullToObject(p, "contention_before");
        cJSON_AddNullToObject(p, "contention_after");
        cJSON_AddNullToObject(p, "per_dim_before");
        cJSON_AddNullToObject(p, "per_dim_after");
    }
    cJSON_AddBoolToObject(p, "verified_exact", x->exact);
    return p;
}

static void json_mapping(cJSON *o, const kc_map_result *r)
{
    char buf[PLAN_TEXT_SIZE];
    cJSON_AddBoolToObject(o, "permutation_matrix", r->is_order);
    if (r->is_order) {
        cJSON *ord = cJSON_AddArrayToObject(o, "order");
        for (int i = 0; i < r->n; i++)
            cJSON_AddItemToArray(ord, cli_json_i64(r->order[i]));
    } else {
        cJSON_AddNullToObject(o, "order");
    }
    cJSON_AddStringToObject(o, "Q", plan_gfmat_text(&r->map.q, r->k, buf, sizeof buf));
    cJSON_AddStringToObject(o, "Q_inverse", plan_gfmat_text(&r->map.qinv, r->k, buf, sizeof buf));
    cJSON_AddItemToObject(o, "matrix", plan_json_matrix(&r->map.q));
    cJSON_AddItemToObject(o, "matrix_inverse", plan_json_matrix(&r->map.qinv));
    if (r->nodes.count && r->nodes.count <= NODES_MAX) {
        cJSON *tp = cJSON_AddArrayToObject(o, "to_physical"), *tv = cJSON_AddArrayToObject(o, "to_virtual");
        for (uint64_t v = 0; v < r->nodes.count; v++) {
            cJSON_AddItemToArray(tp, cli_json_u64(r->nodes.to_physical[v]));
            cJSON_AddItemToArray(tv, cli_json_u64(r->nodes.to_virtual[v]));
        }
    }
}

static int render_json(const map_job *j, const kc_map_result *r)
{
    cJSON *o = cJSON_CreateObject();
    plan_json_topology(o, &j->in.topo);
    cJSON_AddStringToObject(o, "kind", kind_name(r->kind));
    cJSON_AddStringToObject(o, "mapping", kind_name(r->kind)); /* the old torus field */
    cJSON_AddStringToObject(o, "method", r->method);
    cJSON_AddStringToObject(o, "objective", kc_objective_name(r->objective));
    cJSON_AddItemToObject(o, "value", cli_json_u64(r->value));
    cJSON_AddItemToObject(o, "total", cli_json_u64(r->total));
    cJSON_AddBoolToObject(o, "total_minimised", total_minimised(j, r));
    cJSON_AddBoolToObject(o, "exact", r->exact);
    cJSON_AddStringToObject(o, "exact_by", !r->exact ? "none" : r->exact_by_bound ? "lower-bound" : "method");
    if (r->lower_bound) {
        cJSON_AddItemToObject(o, "lower_bound", cli_json_u64(r->lower_bound));
        cJSON_AddStringToObject(o, "lower_bound_from", r->lower_bound_from ? r->lower_bound_from : "unknown");
    } else {
        cJSON_AddNullToObject(o, "lower_bound");
        cJSON_AddNullToObject(o, "lower_bound_from");
    }
    if (r->dp_bytes) {
        cJSON *e = cJSON_AddObjectToObject(o, "dp_estimate");
        cJSON_AddItemToObject(e, "bytes", cli_json_u64(r->dp_bytes));
        cJSON_AddNumberToObject(e, "worst_seconds", r->dp_seconds);
    }
    cJSON_AddItemToObject(o, "candidates", json_candidates(r));
    json_mapping(o, r);
    cJSON *pats = cJSON_AddArrayToObject(o, "patterns");
    for (int i = 0; i < r->count; i++)
        cJSON_AddItemToArray(pats, json_comm(&r->comms[i], r->n));
    return cli_print_json(o);
}

static int render_csv(const kc_map_result *r)
{
    puts("communication,dim,order,before,after");
    for (int c = 0; c < r->count; c++) {
        const kc_map_comm *x = &r->comms[c];
        if (!x->known)
            continue;
        for (int i = 0; i < r->n; i++) {
            cli_csv_field(stdout, x->before.name);
            printf(",%d,", i);
            if (r->is_order)
                printf("%d", r->order[i]);
            printf(",%llu,%llu\n", (unsigned long long)x->per_dim_before[i], (unsigned long long)x->per_dim_after[i]);
        }
    }
    return CLI_EXIT_OK;
}

static void text_candidates(const kc_map_result *r)
{
    if (r->kind == KC_MAP_REORDER || r->ncandidates < 2)
        return;
    printf("candidates (a reordering keeps neighbours, a linear mapping may not):\n");
    for (int i = 0; i < r->ncandidates; i++) {
        const kc_map_candidate *c = &r->candidates[i];
        printf("  %-8s %-22s value %llu, total %llu%s\n", kind_name(c->kind), c->method,
               (unsigned long long)c->value, (unsigned long long)c->total, c->kind == r->kind ? "  (chosen)" : "");
    }
}

static void text_mapping(const kc_map_result *r)
{
    char buf[PLAN_TEXT_SIZE];
    if (r->is_order) {
        printf("order R (new dimension t is old dimension R[t]):");
        for (int t = 0; t < r->n; t++)
            printf(" %d", r->order[t]);
        putchar('\n');
    }
    if (!r->is_order || r->k > 2) {
        printf("Q    = %s\n", plan_gfmat_text(&r->map.q, r->k, buf, sizeof buf));
        printf("Q^-1 = %s\n", plan_gfmat_text(&r->map.qinv, r->k, buf, sizeof buf));
    }
}

static void text_comms(const kc_map_result *r)
{
    printf("%-22s %-12s %7s %7s  %s\n", "communication", "kind", "before", "after", "T_i after (dim 0 first)");
    for (int c = 0; c < r->count; c++) {
        const kc_map_comm *x = &r->comms[c];
        if (!x->known) {
            printf("%-22s %-12s %7s %7s  (needs the exact count)\n", x->before.name, "uniform", "-", "-");
            continue;
        }
        printf("%-22s %-12s %7llu %7llu  ", x->before.name, kc_comm_kind_name(&x->before),
               (unsigned long long)x->value_before, (unsigned long long)x->value_after);
        plan_print_dims(x->per_dim_after, r->n);
        puts(x->exact ? "" : "  (formula)");
    }
}

static void text_nodes(const kc_map_result *r)
{
    if (!r->nodes.count || r->nodes.count > TEXT_NODES_MAX) {
        puts("(node arrays to_physical / to_virtual: use --json or --emit-c)");
        return;
    }
    printf("to_physical:");
    for (uint64_t v = 0; v < r->nodes.count; v++)
        printf(" %llu", (unsigned long long)r->nodes.to_physical[v]);
    printf("\nto_virtual: ");
    for (uint64_t p = 0; p < r->nodes.count; p++)
        printf(" %llu", (unsigned long long)r->nodes.to_virtual[p]);
    putchar('\n');
}

static int render_text(const map_job *j, const kc_map_result *r)
{
    char topo[128];
    kc_topology_format(&j->in.topo, topo, sizeof topo);
    char proof[160];
    if (r->exact && r->exact_by_bound)
        snprintf(proof, sizeof proof, " (optimal, by lower bound: %s)",
                 r->lower_bound_from ? r->lower_bound_from : "unknown");
    else if (r->exact)
        snprintf(proof, sizeof proof, " (optimal)");
    else if (r->lower_bound)
        snprintf(proof, sizeof proof, " (search, not proved optimal; lower bound %llu: %s)",
                 (unsigned long long)r->lower_bound, r->lower_bound_from ? r->lower_bound_from : "unknown");
    else
        snprintf(proof, sizeof proof, " (not proved optimal)");
    printf("%s mapping (%s) for %d communication%s on the %s, objective %s: value %llu, total %llu%s%s\n",
           kind_name(r->kind), r->method, r->count, r->count > 1 ? "s" : "", topo, kc_objective_name(r->objective),
           (unsigned long long)r->value, (unsigned long long)r->total, proof,
           total_minimised(j, r) || !r->exact ? "" : " (total not minimised among optimal orders)");
    if (!r->exact && r->dp_bytes && r->n <= KC_MAPSET_MAX_N)
        printf("(the exact subset programme needs %.0f MiB and at worst about %.0f s: --method dp --max-time %.0f "
               "--max-memory %.0fM runs it)\n",
               ceil((double)r->dp_bytes / 1048576.0), r->dp_seconds, ceil(r->dp_seconds * 1.1) + 1,
               ceil((double)r->dp_bytes / 1048576.0 * 1.05));
    text_candidates(r);
    text_mapping(r);
    text_comms(r);
    text_nodes(r);
    return CLI_EXIT_OK;
}

/* The compiler's view (seed 000 Fig. 1d): the node program indexes these
 * arrays instead of calling the mapping. */
static int render_c(const map_job *j, const kc_map_result *r)
{
    char topo[128];
    uint64_t count = r->nodes.count;
    printf("/* kcube map: %s mapping (%s) for the %s (%llu nodes).\n", kind_name(r->kind), r->method,
           kc_topology_format(&j->in.topo, topo, sizeof topo), (unsigned long long)count);
    for (int c = 0; c < r->count; c++)
        if (r->comms[c].known)
            printf(" * %s: contention %llu -> %llu\n", r->comms[c].before.name,
                   (unsigned long long)r->comms[c].value_before, (unsigned long long)r->comms[c].value_after);
    printf(" * Virtual processor v runs on physical node kc_to_physical[v]. */\n");
    for (int dir = 0; dir < 2; dir++) {
        const uint32_t *v = dir ? r->nodes.to_virtual : r->nodes.to_physical;
        printf("static const unsigned int kc_to_%s[%llu] = {", dir ? "virtual" : "physical", (unsigned long long)count);
        for (uint64_t i = 0; i < count; i++)
            printf("%s%s%llu", i ? "," : "", i % 16 ? " " : "\n    ", (unsigned long long)v[i]);
        printf("\n};\n");
    }
    return CLI_EXIT_OK;
}

/* --out: by default the node list simulate / replay --mapping FILE read,
 * line v the physical node of virtual node v (the format map_general.c
 * writes too); --format names another (export_cli.h). */
static int write_nodes(const cli_args *a, const map_job *j, const kc_map_result *r)
{
    uint64_t count = j->in.topo.nodes;
    uint32_t *nodes = malloc(count * sizeof *nodes);
    if (!nodes) {
        fprintf(stderr, "kcube: out of memory for the node list of %llu nodes\n", (unsigned long long)count);
        return CLI_EXIT_FAIL;
    }
    for (uint64_t v = 0; v < count; v++)
        nodes[v] = (uint32_t)kc_map_to_physical(r, v);
    int rc = cli_export_write(a, &j->exp, nodes, count);
    free(nodes);
    return rc;
}

/* ---- the command ---------------------------------------------------------- */

/* A general mapping (map_general.c): the algebraic mappers' options mean
 * nothing there, so they are refused by name. */
static int general(const cli_args *a, int check_only)
{
    static const cli_opt *const algebraic[] = {&OPT_SEARCH, &OPT_EXACT, &OPT_NO_EXACT, &OPT_EVALS,
                                               &OPT_METHOD, &OPT_Q, &OPT_EMIT_C, NULL};
    for (int i = 0; algebraic[i]; i++) {
        int r = cli_reject(a, algebraic[i], "to a general mapping (one objective, stated in the output)");
        if (r)
            return r;
    }
    return map_general_run(a, check_only);
}

static int check(const cli_args *a)
{
    if (map_general_wanted(a))
        return general(a, 1);
    map_job j;
    int r = resolve(a, &j);
    cli_export_free(&j.exp);
    plan_input_free(&j.in);
    return r;
}


/* A library failure, one line; the exact subset programme stopped by
 * --max-time or --max-memory is a run over its limit, not bad input
 * (CLI_EXIT_OVER_BUDGET, as the gate's refusals). */
static int report_failure(const cli_args *a, const kc_err *err)
{
    int r = cli_report(a, err);
    int over = err->status == KC_ERANGE && err->param &&
               (!strcmp(err->param, "max-time") || !strcmp(err->param, "max-memory"));
    return over ? CLI_EXIT_OVER_BUDGET : r;
}

static int run(const cli_args *a)
{
    if (map_general_wanted(a))
        return general(a, 0);
    map_job j;
    kc_map_result res;
    kc_err err = {0};
    memset(&res, 0, sizeof res);
    int r = resolve(a, &j);
    if (!r)
        r = gate(a, &j);
    if (!r) {
        kc_status s = compute(&j, &res, &err);
        r = s                           ? report_failure(a, &err)
            : j.emit_c                  ? render_c(&j, &res)
            : j.in.fmt == CLI_FMT_JSON   ? render_json(&j, &res)
            : j.in.fmt == CLI_FMT_CSV    ? render_csv(&res)
                                        : render_text(&j, &res);
        if (!r && j.out)
            r = write_nodes(a, &j, &res);
    }
    kc_map_result_free(&res);
    cli_export_free(&j.exp);
    plan_input_free(&j.in);
    return r;
}

const cli_command kc_command_map = {
    .name = "map",
    .summary = "the best processor mapping for one or more communications",
    .order = 20,
    .description =
        "Finds a processor mapping x' = Qx that lowers link contention under dimension-ordered routing, on\n"
        "the hypercube, a k-ary n-cube torus or a mesh. Kinds: reorder (a permutation of dimensions, so\n"
        "neighbours stay neighbours: seed 000 Fig. 3 / Theorem 4 for one communication, the exact subset\n"
        "dynamic programme for sets) and linear (any nonsingular Q over GF(k): seed 002 Theorems 3 and 4, then\n"
        "a seeded local search bounded by --evals). --kind auto (the default) tries both and keeps the best by\n"
        "(objective value, total), ties going to reorder; when linear wins the text lists both candidates.\n"
        "On the hypercube a set beyond n = 20 (up to n = 64) is first searched (seeded by each communication's\n"
        "optimum and a coarsened DP; --work, --seed); then a threshold search over prefix sets proves a lower\n"
        "bound by refuting every smaller value and, when it reaches the search's value, gives the optimal order\n"
        "of least total (method threshold-search); failing that the subset DP pruned by the search's value\n"
        "runs when it fits --max-memory and --max-time (n <= 32). The first line says \"(optimal)\", \"(optimal,\n"
        "by lower bound: ARGUMENT)\" or \"(search, not proved optimal; lower bound L: ARGUMENT)\" (JSON \"exact\",\n"
        "\"exact_by\", \"lower_bound\", \"lower_bound_from\").\n"
        "For one gather or scatter beyond n = 24 the total among optimal orders is not minimised (said in\n"
        "the output). Output: the order R or Q and Q^-1, each communication before and after (Q A Q^-1, Q b),\n"
        "the candidates, and the node arrays to_physical / to_virtual (JSON and --emit-c, N <= 65536).",
    .opts = map_opts,
    .aliases = map_aliases,
    .narrow = map_narrow,
    .check = check,
    .run = run,
    .more_help = cli_print_patterns,
    .epilog = "examples:\n"
              "  kcube map --n 8 --pattern transpose --pattern bit-reverse\n"
              "  kcube map --n 8 --pattern transpose --pattern bit-reverse --kind reorder --json\n"
              "  kcube map --n 28 --pattern transpose --pattern bit-reverse --pattern reverse-flip --pattern shuffle \\\n"
              "            --kind reorder\n"
              "  kcube map --k 4 --n 4 --pattern transpose --pattern digit-reverse --emit-c\n"
              "  kcube map --traffic kcube-demo-traffic.txt   (the file kcube demo writes; n from its ranks)\n"
              "  kcube map --n 8 --pattern transpose --out rankfile --format openmpi-rankfile --hosts node%02d "
              "--slots-per-host 16\n"
              "  kcube map --traffic run1/traces.otf2 --region solver --format openmpi-rankfile --hosts node%02d "
              "--slots-per-host 16 --out rankfile",
};
