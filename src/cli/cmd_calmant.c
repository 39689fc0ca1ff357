/* kcube calmant: CC-cube algorithms on meshes (seed 003): link loads, message
 * schedules and their verification, pipelined communication time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calmant_alltoall.h"
#include "cli.h"
#include "budget.h"
#include "budget_rates.h"
#include "core/grow.h"
#include "options.h"
#include "kcube/calmant_cost.h"
#include "kcube/calmant_embed.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"
#include "kcube/calmant_task.h"
#include "kcube/topology.h"

/* A schedule holds M 2^d messages and the verifier 2^d (M + 2c) words:
 * d = 20 is a few hundred MB at most. */
#define SCHED_MAX_D 20
/* --verbose lists at most this many conflicts (and says how many it left
 * out): the list is kept in memory, and as cJSON objects for --json (about
 * 1 KB each there). */
#define CONFLICT_LIST_MAX 100000
/* The best degree is searched in 1 .. min(N, this): each degree costs
 * O(d^2 / c), and the optimum (where Q beta balances N tau / Q) lies far
 * below unless tau/beta is extreme. */
#define BEST_DEGREE_MAX 65536

/* Wide ranges on purpose: the library judges c and Q and names the fault.
 * The CC-cube dimension d is the shared --n (the paper's d; once --d, kept
 * as an old spelling). --c, --barrier and --degree are shared with
 * `calmant alltoall` (calmant_options.c). */
#define OPT_C OPT_CALMANT_C
#define OPT_BARRIER OPT_CALMANT_BARRIER
#define OPT_DEGREE OPT_CALMANT_DEGREE
static const cli_opt OPT_TASK = {.name = "task", .type = CLI_TEXT, .meta = "I,M",
                                 .help = "task <I,M>_c: every process talks through dimensions I .. I+M-1",
                                 .param = "task"};
static const cli_opt OPT_EMBEDDING = {.name = "embedding", .type = CLI_CHOICE, .choices = &kc_calmant_embedding_names,
                                      .def = "standard", .help = "how processes sit on the mesh",
                                      .param = "embedding"};
static const cli_opt OPT_VERIFY = {.name = "verify", .type = CLI_FLAG,
                                   .help = "replay the schedule (one-port, DOR) and count conflicts"};
static const cli_opt OPT_VERBOSE = {.name = "verbose", .type = CLI_FLAG,
                                    .help = "with --verify: list every conflict the replay finds"};
static const cli_opt OPT_MESH_SCHEDULE = {.name = "mesh-schedule", .type = CLI_FLAG,
                                          .help = "on a torus: replay the mesh's schedule (it conflicts through a "
                                                  "top dimension)"};
static const cli_opt OPT_BYTES = {.name = "bytes", .type = CLI_BYTES, .meta = "N",
                                  .help = "bytes each node sends per CC-cube iteration (K, M, G suffixes)",
                                  .param = "bytes"};
static const cli_opt OPT_BEST_DEGREE = {.name = "best-degree", .type = CLI_FLAG,
                                        .help = "choose the degree 1..min(N, 65536) of least time (the default)"};

/* ---- resolve ------------------------------------------------------------ */

enum { ACT_LOAD, ACT_SCHEDULE, ACT_COST };

typedef struct cal_job {
    int action;
    cli_fmt fmt;
    kc_calmant g;
    kc_calmant_task task;
    int verify, verbose, mesh_sched;
    kc_calmant_cost_params cost;
    int degree; /* 0: the best one */
} cal_job;

/* --n (d), --c, topology, tie and embedding into the geometry (--n and --c
 * are required: the parser saw them). */
static int resolve_machine(const cli_args *a, cal_job *j, int tori, int embeddings)
{
    int r = cli_format(a, &j->fmt);
    if (r)
        return r;
    if (j->fmt == CLI_FMT_CSV)
        return cli_error("%s prints text or --json", a->path);
    int torus = 0;
    kc_tie tie = KC_TIE_PLUS;
    if (tori) {
        int topo = cli_choice(a, &OPT_TOPOLOGY, KC_TOPO_MESH); /* mesh or torus: the table refuses hypercube */
        torus = topo == KC_TOPO_TORUS;
        tie = (kc_tie)cli_choice(a, &OPT_TIE, KC_TIE_PLUS);
        if (!torus && (r = cli_reject(a, &OPT_TIE, "to a mesh (ties are a torus matter)")))
            return r;
    }
    kc_calmant_embedding emb = KC_CALMANT_STANDARD;
    if (embeddings)
        emb = (kc_calmant_embedding)cli_choice(a, &OPT_EMBEDDING, 0);
    kc_err err = {0};
    if (kc_calmant_init(&j->g, (int)cli_int(a, &OPT_N, 0), (int)cli_int(a, &OPT_C, 0), torus, tie, emb, &err))
        return cli_report(a, &err);
    return 0;
}

static int resolve_task(const cli_args *a, cal_job *j)
{
    const char *text = cli_text(a, &OPT_TASK, NULL);
    if (!text)
        return cli_error("%s needs --task I,M", a->path);
    kc_err err = {0};
    return kc_calmant_task_parse(text, j->g.d, &j->task, &err) ? cli_report(a, &err) : 0;
}

static int resolve_load(const cli_args *a, cal_job *j)
{
    memset(j, 0, sizeof *j);
    j->action = ACT_LOAD;
    int r = resolve_machine(a, j, 1, 1);
    if (!r && j->g.d > KC_CALMANT_LOAD_MAX_D)
        r = cli_error("--d: exact link loads need d <= %d, got %d", KC_CALMANT_LOAD_MAX_D, j->g.d);
    return r ? r : resolve_task(a, j);
}

static int resolve_schedule(const cli_args *a, cal_job *j)
{
    memset(j, 0, sizeof *j);
    j->action = ACT_SCHEDULE;
    int r = resolve_machine(a, j, 1, 0);
    if (!r && j->g.d > SCHED_MAX_D)
        r = cli_error("--d: schedules are generated for d <= %d (M 2^d messages), got %d", SCHED_MAX_D, j->g.d);
    if (!r)
        r = resolve_task(a, j);
    j->verify = cli_flag(a, &OPT_VERIFY);
    j->verbose = cli_flag(a, &OPT_VERBOSE);
    j->mesh_sched = cli_flag(a, &OPT_MESH_SCHEDULE);
    if (!r && !j->verify)
        r = cli_reject(a, &OPT_VERBOSE, "without --verify (it lists what the replay found)");
    if (!r && !j->g.torus)
        r = cli_reject(a, &OPT_MESH_SCHEDULE, "on a mesh (the mesh's schedule is the default there)");
    return r;
}

static int resolve_cost(const cli_args *a, cal_job *j)
{
    memset(j, 0, sizeof *j);
    j->action = ACT_COST;
    int r = resolve_machine(a, j, 0, 0);
    if (r)
        return r;
    if (!cli_given(a, &OPT_BYTES))
        return cli_error("%s needs --bytes N", a->path);
    if (cli_given(a, &OPT_DEGREE) && cli_given(a, &OPT_BEST_DEGREE))
        return cli_error("give --degree Q or --best-degree, not both");
    j->cost = (kc_calmant_cost_params){.beta = cli_real(a, &OPT_STARTUP, 0), .tau = cli_real(a, &OPT_BYTE_TIME, 0),
                                       .barrier = cli_real(a, &OPT_BARRIER, 0), .bytes = cli_u64(a, &OPT_BYTES, 0)};
    kc_err err = {0};
    /* The library checks these when computing; resolve must fail alike. */
    long long q = cli_int(a, &OPT_DEGREE, 0);
    if (cli_given(a, &OPT_DEGREE) && q < 1)
        kc_fail_param(&err, KC_EINVAL, "degree", "the pipelining degree must be at least 1, got %lld", q);
    else if (j->cost.bytes == 0)
        kc_fail_param(&err, KC_EINVAL, "bytes", "each node sends at least 1 byte per iteration");
    j->degree = (int)q;
    return err.status ? cli_report(a, &err) : 0;
}

/* ---- compute ------------------------------------------------------------ */

/* The conflicts --verbose lists (kept = min(found, CONFLICT_LIST_MAX)). */
typedef struct conflict_list {
    kc_calmant_conflict *c;
    size_t kept, cap;
    int nomem;
} conflict_list;

static void keep_conflict(void *ctx, const kc_calmant_conflict *c)
{
    conflict_list *l = ctx;
    if (l->nomem || l->kept == CONFLICT_LIST_MAX)
        return;
    if (KCI_RESERVE(l->c, l->cap, l->kept + 1, 64)) {
        l->nomem = 1;
        return;
    }
    l->c[l->kept++] = *c;
}

typedef struct cal_out {
    kc_calmant_load load;
    uint64_t closed; /* Theorems 1, 3 (standard embedding, mesh), else 0 */
    kc_calmant_sched sched;
    kc_calmant_verdict v;
    conflict_list list;
    kc_calmant_time t, unpiped;
    uint64_t lb;
} cal_out;

static kc_status compute(const cal_job *j, cal_out *o, kc_err *err)
{
    memset(o, 0, sizeof *o);
    const kc_calmant *g = &j->g;
    kc_status s = KC_OK;
    if (j->action == ACT_LOAD) {
        s = kc_calmant_load_exact(g, j->task, &o->load, err);
        if (g->emb == KC_CALMANT_STANDARD && !g->torus)
            o->closed = kc_calmant_load_mesh(j->task.i, j->task.m, g->c);
    } else if (j->action == ACT_SCHEDULE) {
        s = g->torus && !j->mesh_sched ? kc_calmant_sched_torus(g, j->task, &o->sched, err)
                                       : kc_calmant_sched_task(g, j->task, &o->sched, err);
        kc_calmant_verify_opts vo = {.on_conflict = j->verbose ? keep_conflict : NULL, .ctx = &o->list};
        if (!s && j->verify)
            s = kc_calmant_verify_with(g, j->task, &o->sched, &vo, &o->v, err);
        if (!s && o->list.nomem)
            s = kc_fail(err, KC_ENOMEM, "out of memory (conflict list)");
        /* Theorem 4 holds for meshes; a torus's bound comes from the counter. */
        if (!s && g->torus)
            s = kc_calmant_load_exact(g, j->task, &o->load, err);
        o->lb = g->torus ? o->load.lower_bound : kc_calmant_lower_bound(j->task.i, j->task.m, g->c);
    } else {
        int qmax = j->cost.bytes < BEST_DEGREE_MAX ? (int)j->cost.bytes : BEST_DEGREE_MAX;
        s = j->degree ? kc_calmant_time_of(g->d, g->c, j->degree, &j->cost, &o->t, err)
                      : kc_calmant_best_degree(g->d, g->c, &j->cost, qmax, &o->t, err);
        if (!s)
            s = kc_calmant_time_of(g->d, g->c, 1, &j->cost, &o->unpiped, err);
    }
    return s;
}

/* ---- render ------------------------------------------------------------- */

static void json_head(cJSON *o, const cal_job *j)
{
    cli_json_add_int(o, "d", j->g.d);
    cli_json_add_int(o, "c", j->g.c);
    cJSON_AddItemToObject(o, "side", cli_json_u64(j->g.side));
    cJSON_AddStringToObject(o, "topology", j->g.torus ? "torus" : "mesh");
    if (j->g.torus)
        cJSON_AddStringToObject(o, "tie", kc_tie_name(j->g.tie));
    if (j->action != ACT_COST) {
        cli_json_add_int(o, "i", j->task.i);
        cli_json_add_int(o, "m", j->task.m);
    }
}

static void json_conflicts(cJSON *o, const cal_out *r)
{
    cJSON_AddStringToObject(o, "first_conflict", r->v.first_conflict);
    cJSON *arr = cJSON_AddArrayToObject(o, "conflict_list");
    for (size_t k = 0; k < r->list.kept; k++) {
        const kc_calmant_conflict *c = &r->list.c[k];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "step", cli_json_u64(c->step));
        cJSON_AddStringToObject(e, "kind", kc_names_name(&kc_stepnet_conflict_names, (int)c->kind));
        cJSON_AddItemToObject(e, "node", cli_json_u64(c->node));
        cli_json_add_int(e, "axis", c->axis);
        cli_json_add_int(e, "dir", c->dir);
        cJSON_AddItemToObject(e, "src", cli_json_u64(c->src));
        cJSON_AddItemToObject(e, "dst", cli_json_u64(c->dst));
        cJSON_AddItemToArray(arr, e);
    }
    cJSON_AddItemToObject(o, "conflicts_not_listed", cli_json_u64(r->v.conflicts - r->list.kept));
}

static void text_conflicts(const cal_out *r)
{
    for (size_t k = 0; k < r->list.kept; k++) {
        const kc_calmant_conflict *c = &r->list.c[k];
        printf("conflict %zu: step %llu, %s twice at node %llu, axis %d %c (message %llu -> %llu)\n", k + 1,
               (unsigned long long)c->step, kc_names_name(&kc_stepnet_conflict_names, (int)c->kind),
               (unsigned long long)c->node, c->axis, c->dir > 0 ? '+' : '-', (unsigned long long)c->src,
               (unsigned long long)c->dst);
    }
    if (r->v.conflicts > r->list.kept)
        printf("%llu more conflicts not listed (at most %d are)\n",
               (unsigned long long)(r->v.conflicts - r->list.kept), CONFLICT_LIST_MAX);
}

static int render_json(const cal_job *j, const cal_out *r)
{
    cJSON *o = cJSON_CreateObject();
    json_head(o, j);
    if (j->action == ACT_LOAD) {
        cJSON_AddStringToObject(o, "embedding", kc_names_name(&kc_calmant_embedding_names, j->g.emb));
        cJSON_AddItemToObject(o, "max_load", cli_json_u64(r->load.max_load));
        cJSON_AddItemToObject(o, "lower_bound", cli_json_u64(r->load.lower_bound));
        if (r->closed)
            cJSON_AddItemToObject(o, "closed_form_load", cli_json_u64(r->closed));
        cJSON *l = cJSON_AddObjectToObject(o, "busiest_link");
        cJSON_AddItemToObject(l, "node", cli_json_u64(r->load.node));
        cli_json_add_int(l, "axis", r->load.axis);
        cli_json_add_int(l, "dir", r->load.dir);
    } else if (j->action == ACT_SCHEDULE) {
        cJSON_AddItemToObject(o, "steps", cli_json_u64(j->verify ? r->v.steps : r->sched.steps));
        cJSON_AddItemToObject(o, "lower_bound", cli_json_u64(r->lb));
        cJSON_AddItemToObject(o, "messages", cli_json_u64(r->sched.count));
        cJSON_AddBoolToObject(o, "verified", j->verify);
        if (j->verify) {
            cJSON_AddItemToObject(o, "conflicts", cli_json_u64(r->v.conflicts));
            cJSON_AddItemToObject(o, "missing", cli_json_u64(r->v.missing));
            cJSON_AddItemToObject(o, "unexpected", cli_json_u64(r->v.unexpected));
        } else
            cJSON_AddNullToObject(o, "conflicts");
        if (j->verbose)
            json_conflicts(o, r);
    } else {
        cli_json_add_int(o, "degree", r->t.degree);
        cJSON_AddNumberToObject(o, "time", r->t.time);
        cJSON_AddItemToObject(o, "packet_bytes", cli_json_u64(r->t.packet));
        cJSON_AddItemToObject(o, "iterations", cli_json_u64(r->t.iterations));
        cJSON_AddItemToObject(o, "steps", cli_json_u64(r->t.steps));
        cJSON_AddItemToObject(o, "lb_steps", cli_json_u64(r->t.lb_steps));
        cJSON_AddItemToObject(o, "rho_steps", cli_json_u64(r->t.rho_steps));
        cJSON_AddNumberToObject(o, "time_lb", r->t.time_lb);
        cJSON_AddNumberToObject(o, "time_unpipelined", r->unpiped.time);
        cJSON_AddBoolToObject(o, "best_degree", j->degree == 0);
    }
    return cli_print_json(o);
}

static void render_text(const cal_job *j, const cal_out *r)
{
    const kc_calmant *g = &j->g;
    printf("%d-dimensional CC-cube on a %s of side %llu (c = %d)", g->d, g->torus ? "torus" : "mesh",
           (unsigned long long)g->side, g->c);
    if (g->torus)
        printf(", %s ties", kc_tie_name(g->tie));
    if (j->action != ACT_COST)
        printf(", task <%d,%d>_%d", j->task.i, j->task.m, g->c);
    putchar('\n');
    if (j->action == ACT_LOAD) {
        printf("%s embedding: max link load %llu, lower bound %llu steps\n",
               kc_names_name(&kc_calmant_embedding_names, g->emb), (unsigned long long)r->load.max_load,
               (unsigned long long)r->load.lower_bound);
        if (r->closed)
            printf("closed form (Theorem %d): %llu\n", g->c == 1 ? 1 : 3, (unsigned long long)r->closed);
    } else if (j->action == ACT_SCHEDULE) {
        printf("schedule: %llu messages in %llu steps, lower bound %llu\n", (unsigned long long)r->sched.count,
               (unsigned long long)(j->verify ? r->v.steps : r->sched.steps), (unsigned long long)r->lb);
        if (j->verify)
            printf("replay: %llu conflicts, %llu missing, %llu unexpected\n", (unsigned long long)r->v.conflicts,
                   (unsigned long long)r->v.missing, (unsigned long long)r->v.unexpected);
        if (j->verbose)
            text_conflicts(r);
    } else {
        printf("degree %d%s: %llu iterations, packets of %llu bytes, %llu steps (sum of lower bounds %llu)\n",
               r->t.degree, j->degree ? "" : " (best)", (unsigned long long)r->t.iterations,
               (unsigned long long)r->t.packet, (unsigned long long)r->t.steps, (unsigned long long)r->t.lb_steps);
        printf("time %.10g us (with the lower bounds %.10g us; not pipelined %.10g us)\n", r->t.time, r->t.time_lb,
               r->unpiped.time);
    }
}

/* ---- the gate ----------------------------------------------------------- */

/* Time and memory before work (budget.h), fitted to the runs of
 * bench/estimates.tsv. With W = M 2^d messages: a mesh schedule (built and
 * verified) CLI_RATE_CAL_SCHEDULE x W d and 30 bytes a message; kcube's
 * torus schedule, whose search grows much faster, CLI_RATE_CAL_TORUS x M^3
 * 2^d 2^(3d/4) on meshes of 2 or 3 axes (the ring's is like the mesh's) and
 * 45 bytes a message; exact loads CLI_RATE_CAL_LOAD x W c and 8c bytes a
 * node. Formulas (cost) are O(1). */
static int gate(const cli_args *a, const cal_job *j)
{
    double nodes = ldexp(1, j->g.d), w = nodes * j->task.m, sec = 0, bytes = CLI_BASE_BYTES;
    if (j->action == ACT_LOAD) {
        sec = CLI_RATE_CAL_LOAD * w * j->g.c;
        bytes += 8.0 * j->g.c * nodes;
    } else if (j->action == ACT_SCHEDULE) {
        int torus_sched = j->g.torus && !j->mesh_sched && j->g.c > 1;
        double m = j->task.m;
        sec = torus_sched ? CLI_RATE_CAL_TORUS * m * m * m * nodes * ldexp(1, 3 * j->g.d / 4)
                          : CLI_RATE_CAL_SCHEDULE * w * j->g.d;
        bytes += (torus_sched ? 45 : 30) * w;
        if (j->g.torus) /* the exact count gives a torus's lower bound */
            sec += CLI_RATE_CAL_LOAD * w * j->g.c;
    } else
        return 0;
    char what[96];
    snprintf(what, sizeof what, "%s --d %d --c %d (%.0f messages)", a->path, j->g.d, j->g.c, w);
    return cli_budget_check(a, what, sec, (uint64_t)bytes);
}

/* ---- the commands ------------------------------------------------------- */

static int execute(const cli_args *a, const cal_job *j)
{
    cal_out o;
    kc_err err = {0};
    int rc = gate(a, j);
    if (rc)
        return rc;
    if (compute(j, &o, &err))
        rc = cli_report(a, &err);
    else if (j->fmt == CLI_FMT_JSON)
        rc = render_json(j, &o);
    else {
        render_text(j, &o);
        rc = CLI_EXIT_OK;
    }
    kc_calmant_sched_free(&o.sched);
    free(o.list.c);
    /* A replay that finds faults is a failed run. */
    if (!rc && j->verify && (o.v.conflicts || o.v.missing || o.v.unexpected))
        rc = CLI_EXIT_FAIL;
    return rc;
}

#define CAL_ENTRY(name)                                                                                              \
    static int check_##name(const cli_args *a)                                                                      \
    {                                                                                                                \
        cal_job j;                                                                                                   \
        return resolve_##name(a, &j);                                                                                \
    }                                                                                                                \
    static int run_##name(const cli_args *a)                                                                        \
    {                                                                                                                \
        cal_job j;                                                                                                   \
        int r = resolve_##name(a, &j);                                                                               \
        return r ? r : execute(a, &j);                                                                               \
    }
CAL_ENTRY(load)
CAL_ENTRY(schedule)
CAL_ENTRY(cost)

static const cli_use load_opts[] = {
    {&OPT_N, CALMANT_N_HELP, CLI_REQUIRED}, {&OPT_C, NULL, CLI_REQUIRED}, {&OPT_TASK, NULL, NULL},
    {&OPT_EMBEDDING, NULL, NULL},
    {&OPT_TOPOLOGY, "mesh or torus (wraparound)", "mesh"}, {&OPT_TIE, NULL, NULL}, {&OPT_JSON, NULL, NULL},
    {&OPT_MAX_TIME, NULL, NULL}, {&OPT_MAX_MEMORY, NULL, NULL}, {NULL, NULL, NULL},
};
static const cli_use schedule_opts[] = {
    {&OPT_N, CALMANT_N_HELP, CLI_REQUIRED},
    {&OPT_C, NULL, CLI_REQUIRED},
    {&OPT_TASK, NULL, NULL},
    {&OPT_TOPOLOGY, "mesh or torus (wraparound; kcube's torus schedule)", "mesh"},
    {&OPT_TIE, NULL, NULL},
    {&OPT_MESH_SCHEDULE, NULL, NULL},
    {&OPT_VERIFY, NULL, NULL},
    {&OPT_VERBOSE, NULL, NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_MAX_TIME, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL},
    {NULL, NULL, NULL},
};
static const cli_use cost_opts[] = {
    {&OPT_N, CALMANT_N_HELP, CLI_REQUIRED}, {&OPT_C, NULL, CLI_REQUIRED}, {&OPT_BYTES, NULL, NULL},
    {&OPT_STARTUP, "start-up per message (beta), µs; other times use this unit; the default is the nCUBE 2's", NULL},
    {&OPT_BYTE_TIME, NULL, NULL}, {&OPT_BARRIER, NULL, NULL},
    {&OPT_DEGREE, NULL, NULL},  {&OPT_BEST_DEGREE, NULL, NULL}, {&OPT_JSON, NULL, NULL},
    {NULL, NULL, NULL},
};

/* The CC-cube sits on a mesh or a torus, never on a hypercube. */
static const cli_narrow on_mesh_or_torus[] = {{&OPT_TOPOLOGY, "mesh|torus", NULL}, {&OPT_TIE, "plus|minus|split", NULL}, {NULL, NULL, NULL}};

static const cli_command cmd_load = {
    .name = "load",
    .summary = "exact maximum link load of a task <I,M>_c and its lower bound (Theorems 1-4)",
    .description = "Counts the task's messages on every directed link (DOR routing). On a mesh with the standard\n"
                   "embedding it also prints Theorem 1's (line) or Theorem 3's (mesh) closed form, which must agree.\n"
                   "lower_bound = max(max_load, M) steps. d (--n) <= 24.",
    .opts = load_opts,
    .aliases = kc_calmant_aliases,
    .narrow = on_mesh_or_torus,
    .check = check_load,
    .run = run_load,
    .epilog = "examples:\n  kcube calmant load --n 4 --c 1 --task 1,2\n"
              "  kcube calmant load --n 8 --c 2 --task 3,4 --topology torus --tie split --json",
};

static const cli_command cmd_schedule = {
    .name = "schedule",
    .summary = "message schedule of a task <I,M>_c (the paper's on meshes, kcube's on tori), optionally verified",
    .description = "Builds the schedule of Sections 3.2 and 4.2 (standard embedding). --verify replays it one-port\n"
                   "with DOR routing and counts conflicts (a directed link, a sender or a receiver twice in one step)\n"
                   "and messages missing or foreign to the task; the exit status is 1 when it finds any. On a torus\n"
                   "kcube's torus schedule is built (docs/calmant.md, Tori) and lower_bound comes from the exact\n"
                   "count; --mesh-schedule replays the mesh's instead. d <= 20. --verbose lists every conflict\n"
                   "(step, node, link, kind and the message that ran into it; at most 100000).",
    .opts = schedule_opts,
    .aliases = kc_calmant_aliases,
    .narrow = on_mesh_or_torus,
    .check = check_schedule,
    .run = run_schedule,
    .epilog = "examples:\n  kcube calmant schedule --n 4 --c 1 --task 1,2 --verify\n"
              "  kcube calmant schedule --n 8 --c 2 --task 3,4 --verify --json",
};

static const cli_command cmd_cost = {
    .name = "cost",
    .summary = "communication time of the pipelined CC-cube, T = sum P (beta + L tau) + (d+Q-1) b",
    .description = "L = ceil(N/Q) bytes per message; P is the generated schedules' step count per iteration.\n"
                   "Without --degree the degree 1..min(N, 65536) of least time is chosen. Times are in the unit\n"
                   "of --startup (microseconds).",
    .opts = cost_opts,
    .aliases = kc_calmant_aliases,
    .check = check_cost,
    .run = run_cost,
    .epilog = "examples:\n  kcube calmant cost --n 8 --c 2 --bytes 4096 --startup 100 --byte-time 1 --degree 4\n"
              "  kcube calmant cost --n 12 --c 2 --bytes 64K --startup 164 --byte-time 0.57 --barrier 50 --json",
};

static const cli_command *const calmant_subs[] = {&cmd_load, &cmd_schedule, &cmd_cost, &kc_calmant_alltoall_command,
                                                  NULL};

const cli_command kc_command_calmant = {
    .name = "calmant",
    .summary = "CC-cube (hypercube) algorithms on meshes: loads, schedules, cost, all-to-all (seed 003)",
    .order = 62,
    .description = "A d-dimensional CC-cube (2^d processes) on a c-dimensional mesh of side 2^(d/c), standard\n"
                   "embedding. Task <I,M>_c: every process talks through dimensions I .. I+M-1 (docs/calmant.md).",
    .subs = calmant_subs,
    .epilog = "examples:\n  kcube calmant load --n 4 --c 1 --task 1,2\n  kcube calmant schedule --help",
};
