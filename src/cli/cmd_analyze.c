/* kcube analyze: contention of one communication under dimension-ordered
 * routing, on any topology, through kc_analyze (kcube/plan.h). */
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "cli.h"
#include "loads_cli.h"
#include "options.h"
#include "out.h"
#include "network_cli.h"
#include "plan_cli.h"
#include "kcube/chanload.h"
#include "kcube/netload.h"
#include "kcube/plan.h"

static const cli_use analyze_opts[] = {
    {&OPT_N, NULL, NULL},
    {&OPT_K, "nodes per dimension (2..256; the GF(k) formulas need a power of two)", NULL},
    {&OPT_TOPOLOGY, NULL, NULL},
    {&OPT_SHAPE, NULL, NULL},
    {&OPT_TIE, NULL, NULL},
    {&OPT_NETWORK, NULL, NULL},
    {&OPT_WRAP, NULL, NULL},
    {&OPT_ENDPOINTS, NULL, NULL},
    {&OPT_NODES, NULL, NULL},
    {&OPT_PATTERN, "the communication: a built-in pattern (see the list below)", NULL},
    {&OPT_MATRIX, "y = Ax + b: A row 0 first, rows separated by ';' (bit rows or GF(k) entries)", NULL},
    {&OPT_VECTOR, NULL, NULL},
    {&OPT_SCATTER, "read a singular A as a scatter (y receives from Ay + b)", NULL},
    {&OPT_EXACT, NULL, NULL},
    {&OPT_NO_EXACT, NULL, NULL},
    {&OPT_SEED, "random stream of the uniform pattern", NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_CSV, NULL, NULL},
    {&OPT_LOADS, NULL, NULL},
    {&OPT_MAX_TIME, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL},
    {NULL, NULL, NULL},
};

static const cli_alias analyze_aliases[] = {
    {"mesh", &OPT_TOPOLOGY, "mesh", NULL, "old spelling of --topology mesh"},
    {NULL, NULL, NULL, NULL, NULL},
};

typedef struct analyze_job {
    plan_input in;
    kc_analyze_opts opts;
    const char *loads_path; /* --loads, or NULL */
    cli_loads loads;        /* counted when --loads is given */
} analyze_job;

static int resolve(const cli_args *a, analyze_job *j)
{
    int r = plan_resolve(a, PLAN_COMMS_ONE, &j->in);
    if (r)
        return r;
    kc_analyze_opts_default(&j->opts);
    j->opts.seed = cli_u64(a, &OPT_SEED, 1);
    if (cli_given(a, &OPT_EXACT) && cli_given(a, &OPT_NO_EXACT))
        return cli_error("give --exact or --no-exact, not both");
    j->opts.exact = cli_given(a, &OPT_EXACT) ? 1 : cli_given(a, &OPT_NO_EXACT) ? 0 : KC_EXACT_AUTO;
    j->loads_path = cli_text(a, &OPT_LOADS, NULL);
    if (j->loads_path && j->in.topo.nodes > KC_CHANLOAD_MAX_NODES)
        return cli_error("--loads counts channels on up to %llu routers",
                         (unsigned long long)KC_CHANLOAD_MAX_NODES);
    if (j->loads_path && (r = cli_check_output(j->loads_path)))
        return r;
    if (j->in.comms[0].linear)
        return cli_reject(a, &OPT_SEED, "to a linear communication (it seeds the uniform pattern)");
    return 0;
}

/* ---- renderers ------------------------------------------------------------ */

static const uint64_t *best_dims(const kc_analysis *r) { return r->exact ? r->exact_per_dim : r->formula; }

/* A closed form is shown: every linear communication on a plain network, the
 * split LCCs on a cube with endpoints (kc_analyze_split). */
static int has_formula(const analyze_job *j, const kc_analysis *r)
{
    return r->general ? r->has_formula : j->in.comms[0].linear;
}

/* Where seed 002 Theorem 1 only bounds T_i (case 4b): 1..(k/2) times k^e. */
static void paper_range(const kc_analysis *r, int i, uint64_t out[2])
{
    uint64_t ke = 1;
    for (int e = 0; e < r->exponent[i]; e++)
        ke *= (uint64_t)r->topo.k;
    out[0] = ke;
    out[1] = (uint64_t)r->topo.k / 2 * ke;
}

static void json_cases(cJSON *o, const kc_analysis *r)
{
    if (!r->has_cases) {
        cJSON_AddNullToObject(o, "per_dim_case");
        cJSON_AddNullToObject(o, "per_dim_bound");
        cJSON_AddNullToObject(o, "per_dim_paper_range");
        return;
    }
    cJSON *c = cJSON_AddArrayToObject(o, "per_dim_case"), *b = cJSON_AddArrayToObject(o, "per_dim_bound");
    cJSON *p = cJSON_AddArrayToObject(o, "per_dim_paper_range");
    for (int i = 0; i < r->n; i++) {
        int bound = r->tcase[i] == KC_TCASE_4B;
        uint64_t range[2];
        paper_range(r, i, range);
        cJSON_AddItemToArray(c, cJSON_CreateString(kc_tcase_name(r->tcase[i])));
        cJSON_AddItemToArray(b, cJSON_CreateBool(bound));
        cJSON_AddItemToArray(p, bound ? cli_json_u64_array(range, 2) : cJSON_CreateNull());
    }
}

static void json_comm(cJSON *o, const kc_comm *c)
{
    cJSON_AddStringToObject(o, "pattern", c->name);
    cJSON_AddStringToObject(o, "kind", kc_comm_kind_name(c));
    if (!c->linear) {
        cJSON_AddNullToObject(o, "rank");
        cJSON_AddNullToObject(o, "matrix");
        cJSON_AddNullToObject(o, "vector");
        return;
    }
    cli_json_add_int(o, "rank", kc_comm_rank(c));
    cJSON_AddItemToObject(o, "matrix", plan_json_matrix(&c->t.a));
    cJSON_AddItemToObject(o, "vector", plan_json_vector(c->t.b, c->n));
}

static void json_worst(cJSON *o, const kc_analysis *r)
{
    const uint64_t *v = best_dims(r);
    int known = r->has_worst && r->value_dim >= 0;
    cJSON_AddItemToObject(o, "worst_channel",
                          known ? plan_json_link(&r->topo, r->worst[r->value_dim], 0) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "worst_link",
                          known ? plan_json_link(&r->topo, r->worst[r->value_dim], 1) : cJSON_CreateNull());
    /* One link per dimension that carries T_i (null where idle or unknown). */
    cJSON *wc = cJSON_AddArrayToObject(o, "worst_channels");
    for (int i = 0; i < r->n; i++)
        cJSON_AddItemToArray(wc, r->has_worst && v[i] ? plan_json_link(&r->topo, r->worst[i], 0) : cJSON_CreateNull());
}

static int render_json(const analyze_job *j, const kc_analysis *r)
{
    const kc_comm *c = &j->in.comms[0];
    cJSON *o = cJSON_CreateObject();
    plan_json_topology(o, &r->topo);
    json_comm(o, c);
    if (r->general) { /* the field the ranks' digits live in (kc_comm_space), for a recount */
        cli_json_add_int(o, "field", c->k);
        cli_json_add_int(o, "field_polynomial", kc_gf_polynomial(c->k));
    }
    if (!c->linear)
        cJSON_AddItemToObject(o, "seed", cli_json_u64(j->opts.seed));
    int f = has_formula(j, r);
    cJSON_AddItemToObject(o, "per_dim", f ? cli_json_u64_array(r->formula, r->n) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "per_dim_exact", r->exact ? cli_json_u64_array(r->exact_per_dim, r->n)
                                                       : cJSON_CreateNull());
    json_cases(o, r);
    cJSON_AddBoolToObject(o, "exact", r->exact);
    cJSON_AddItemToObject(o, "contention", cli_json_u64(r->value));
    cJSON_AddItemToObject(o, "contention_formula", f ? cli_json_u64(r->value_formula) : cJSON_CreateNull());
    cJSON_AddBoolToObject(o, "formula_exact", f);
    json_worst(o, r);
    if (j->loads_path) /* only when asked: the default document stays as it was */
        cJSON_AddItemToObject(o, "channel_loads", cli_loads_json(&j->loads));
    return cli_print_json(o);
}

static int render_csv(const analyze_job *j, const kc_analysis *r)
{
    const uint64_t *v = best_dims(r);
    int linear = has_formula(j, r);
    puts("dim,formula,exact,worst_from,worst_to,worst_dir,case");
    for (int i = 0; i < r->n; i++) {
        printf("%d,", i);
        if (linear)
            printf("%llu", (unsigned long long)r->formula[i]);
        putchar(',');
        if (r->exact)
            printf("%llu", (unsigned long long)r->exact_per_dim[i]);
        if (r->has_worst && v[i])
            printf(",%llu,%llu,%d,", (unsigned long long)r->worst[i].from,
                   (unsigned long long)kc_topology_link_to(&r->topo, r->worst[i]), r->worst[i].dir);
        else
            printf(",,,,");
        puts(r->has_cases ? kc_tcase_name(r->tcase[i]) : "");
    }
    return CLI_EXIT_OK;
}

static void text_header(const analyze_job *j, const kc_analysis *r)
{
    const kc_comm *c = &j->in.comms[0];
    char topo[128], buf[PLAN_TEXT_SIZE];
    kc_topology_format(&r->topo, topo, sizeof topo);
    if (!c->linear) {
        printf("%s on the %s: uniform random destinations (seed %llu)\n", c->name, topo,
               (unsigned long long)j->opts.seed);
        return;
    }
    printf("%s on the %s: %s, rank %d", c->name, topo, kc_comm_kind_name(c), kc_comm_rank(c));
    if (r->general)
        printf(", %d digits, rank r on slot r", c->n);
    if (r->general ? c->k > 2 : !r->binary)
        printf(", GF(%d) mod %u", r->topo.k, kc_gf_polynomial(r->topo.k));
    putchar('\n');
    if (r->n <= (r->binary ? 16 : 8)) {
        printf("A = %s", plan_matrix_text(c, buf, sizeof buf));
        printf("   b = %s\n", plan_vector_text(c, buf, sizeof buf));
    }
}

/* The direction goes without saying on the hypercube's channels. */
static int no_dir(const kc_analysis *r, int i)
{
    return r->binary || (r->general && r->topo.side[i] == 2 && kc_topology_wraps(&r->topo, i));
}

static void text_row(const kc_analysis *r, int linear, int i)
{
    char th[64] = "-";
    uint64_t range[2];
    paper_range(r, i, range);
    if (linear && r->has_cases && r->tcase[i] == KC_TCASE_4B)
        snprintf(th, sizeof th, "%llu (paper %llu..%llu)", (unsigned long long)r->formula[i],
                 (unsigned long long)range[0], (unsigned long long)range[1]);
    else if (linear)
        snprintf(th, sizeof th, "%llu", (unsigned long long)r->formula[i]);
    if (r->has_cases) /* the seed 002 case column exists on the GF(k) engine only */
        printf("%4d  %5s  %22s  ", i, kc_tcase_name(r->tcase[i]), th);
    else
        printf("%4d  %12s  ", i, th);
    if (r->exact)
        printf("%12llu  ", (unsigned long long)r->exact_per_dim[i]);
    else
        printf("%12s  ", "");
    const uint64_t *v = best_dims(r);
    if (!v[i])
        puts("(no traffic)");
    else if (r->has_worst)
        printf("%llu -> %llu%s\n", (unsigned long long)r->worst[i].from,
               (unsigned long long)kc_topology_link_to(&r->topo, r->worst[i]),
               no_dir(r, i) ? "" : r->worst[i].dir > 0 ? " (+)" : " (-)");
    else
        puts("(use --exact)");
}

static int render_text(const analyze_job *j, const kc_analysis *r)
{
    int linear = has_formula(j, r);
    text_header(j, r);
    if (r->has_cases)
        printf("%4s  %5s  %22s  ", "dim", "case", "T_i Theorem 1");
    else
        printf("%4s  %12s  ", "dim", "T_i formula");
    printf("%12s  %s\n", r->exact ? "T_i exact" : "", "a worst link");
    for (int i = 0; i < r->n; i++)
        text_row(r, linear, i);
    printf("contention %llu", (unsigned long long)r->value);
    if (r->value_dim >= 0)
        printf(" (dimension %d)", r->value_dim);
    if (!r->exact)
        puts(", by formula");
    else if (!linear)
        puts(", exact count");
    else
        puts(", formula and exact count agree");
    return CLI_EXIT_OK;
}

/* ---- the command ---------------------------------------------------------- */

static int check(const cli_args *a)
{
    analyze_job j;
    int r = resolve(a, &j);
    plan_input_free(&j.in);
    return r;
}

/* Memory of the general counter when it runs (a general network, or
 * --loads): about 30 bytes a router and axis and 48 a slot (kcube/chanload.h). */
static double counter_bytes(const analyze_job *j)
{
    const kc_topology *t = &j->in.topo;
    if (!j->loads_path && kc_topology_need_gf(t, "the contention analysis", NULL) == KC_OK)
        return 0;
    return 30.0 * (double)t->nodes * t->n + 48.0 * (double)kc_topology_slots(t);
}

/* --loads: every directed channel's load, counted with rank r on slot r,
 * written before the report (so --json can carry them too). */
static int write_loads(const cli_args *a, analyze_job *j, uint64_t **loads)
{
    kc_err err = {0};
    size_t count;
    if (kc_analyze_loads(&j->in.topo, &j->in.comms[0], j->opts.seed, loads, &count, &err))
        return cli_report(a, &err);
    j->loads = (cli_loads){&j->in.topo, *loads, count};
    return cli_loads_write(j->loads_path, &j->loads, j->in.comms[0].name);
}

static int run(const cli_args *a)
{
    analyze_job j;
    kc_analysis res;
    kc_err err = {0};
    int r = resolve(a, &j);
    /* the exact count, by default up to 2^KC_PLAN_EXACT_AUTO_BITS nodes (kcube/plan.h) */
    if (!r)
        r = plan_gate(a, &j.in,
                      j.opts.exact == KC_EXACT_AUTO ? j.in.topo.nodes <= (1ULL << KC_PLAN_EXACT_AUTO_BITS)
                                                    : j.opts.exact,
                      0, counter_bytes(&j));
    if (!r) {
        cli_progress_bar prog;
        cli_progress_init(&prog, "counting");
        kc_progress p = {j.in.topo.nodes >= (1ULL << 20) ? cli_progress_cb : NULL, &prog};
        j.opts.progress = &p;
        kc_status s = kc_analyze_network(&j.in.topo, &j.in.comms[0], &j.opts, &res, &err);
        cli_progress_done(&prog);
        uint64_t *loads = NULL;
        r = s ? cli_report(a, &err) : j.loads_path ? write_loads(a, &j, &loads) : 0;
        r = r ? r
              : j.in.fmt == CLI_FMT_JSON ? render_json(&j, &res)
              : j.in.fmt == CLI_FMT_CSV  ? render_csv(&j, &res)
                                        : render_text(&j, &res);
        free(loads);
    }
    plan_input_free(&j.in);
    return r;
}

/* random ties are the simulator's */
static const cli_narrow analyze_narrow[] = {{&OPT_TIE, "plus|minus|split", NULL}, {NULL, NULL, NULL}};

const cli_command kc_command_analyze = {
    .name = "analyze",
    .summary = "contention of one communication under dimension-ordered routing",
    .order = 10,
    .description =
        "Link contention T_i per dimension of y = Ax + b (or a built-in pattern) under dimension-ordered routing\n"
        "(dimension 0 corrected first) on the hypercube (seed 000 Theorem 1 and its scatter mirror), a k-ary\n"
        "n-cube torus or a mesh (seed 002 Theorem 1, extended to exact values; case 4b is where the paper\n"
        "only bounds it), and the exact count from routing every message (by default up to N = 2^24 nodes;\n"
        "--exact asks for it up to 2^30, 2^24 on the hypercube).",
    .opts = analyze_opts,
    .aliases = analyze_aliases,
    .narrow = analyze_narrow,
    .check = check,
    .run = run,
    .more_help = cli_print_patterns,
    .epilog = "examples:\n"
              "  kcube analyze --n 8 --pattern transpose\n"
              "  kcube analyze --k 4 --n 4 --pattern transpose --topology mesh --json\n"
              "  kcube analyze --n 4 --matrix \"0100;0010;0001;0000\" --vector 1000 --scatter",
};
