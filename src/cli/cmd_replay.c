/* kcube replay: a GOAL schedule on the flit-level network (kcube/appsim.h).
 * options -> resolve (read and validate the schedule; network defaults from
 * kc_simspec_resolve) -> compute (build the network, apply the mapping,
 * replay) -> render (text, JSON, CSV). `check` stops after resolve. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "budget.h"
#include "budget_rates.h"
#include "core/size.h"
#include "options.h"
#include "network_cli.h"
#include "out.h"
#include "text.h"
#include "replay_loggops.h"
#include "replay_network.h"
#include "replay_timeline.h"
#include "trace_cli.h"
#include "traffic_cli.h"
#include "kcube/appsim.h"
#include "kcube/goal.h"
#include "kcube/loggp.h"
#include "kcube/machine.h" /* KC_SLOT_MAX: the --ranks-per-node range it shared with the slots */
#include "kcube/simmem.h"
#include "kcube/simscenario.h"
#include "kcube/timeline.h"
#include "kcube/topology.h"

/* ---- options ---------------------------------------------------------------- */

static const cli_opt OPT_BYTES_PER_FLIT = {.name = "bytes-per-flit", .type = CLI_INT, .meta = "B", .def = "1",
                                           .lo = 1, .hi = 65536, .param = "bytes_per_flit",
                                           .help = "bytes per flit (a flit-cycle is B x byte time)"};

/* Ranks per simulated node and timelines (--model and --loggops:
 * replay_loggops.h). Not map's and export's --slots-per-host (slots of a
 * launcher's host), once spelled alike. */
static const cli_opt OPT_RANKS_PER_NODE = {.name = "ranks-per-node", .type = CLI_INT, .meta = "R", .def = "1",
                                           .lo = 1, .hi = KC_SLOT_MAX + 1, .param = "ranks_per_node",
                                           .help = "ranks sharing one node (ranks vR..vR+R-1 on node v, or on the "
                                                   "node on line v of a mapping file)"};
static const cli_opt OPT_TIMELINE = {.name = "timeline", .type = CLI_TEXT, .meta = "FILE", .param = "timeline",
                                     .help = "write what each rank did: FILE.json is Chrome trace-event JSON (so is "
                                             "'-'); FILE.png, .svg, .pdf or .eps draws it (above 64 ranks in rows of several)"};

static const cli_use replay_opts[] = {
    {&OPT_N, NULL, NULL},
    {&OPT_K, "nodes per dimension (tori and meshes; the hypercube when omitted)", NULL},
    {&OPT_TOPOLOGY, "hypercube (k = 2), torus or mesh", NULL},
    {&OPT_SHAPE, NULL, NULL},
    {&OPT_WRAP, NULL, NULL},
    {&OPT_NETWORK, NULL, NULL},
    {&OPT_ENDPOINTS, "endpoints per router: rank r (with --ranks-per-node R, ranks rR..rR+R-1) on slot r", NULL},
    {&OPT_NODES, NULL, NULL},
    {&OPT_MAPPING, "none, or a node list (kcube map --out): rank r (with --ranks-per-node R, the ranks rR.."
                   "rR+R-1) runs on the node on line r (an endpoint number with --shape, --endpoints or --nodes)",
     NULL},
    {&OPT_RANKS_PER_NODE, NULL, NULL},
    {&OPT_MODEL, NULL, NULL},
    {&OPT_TIMELINE, NULL, NULL},
    {&OPT_SIZE, "size of a drawn --timeline", NULL},
    {&OPT_ROUTING, "ecube, pcube, duato, li-min on the hypercube; dor elsewhere (default ecube / dor)", NULL},
    /* The shared defaults are seed 000's nCUBE 2, KC_APPSIM_OPTS_DEFAULT's numbers. */
    {&OPT_STARTUP, "software start-up per message, charged to the sender (µs; the default is the nCUBE 2's)", NULL},
    {&OPT_BYTE_TIME, "channel time per byte (µs; the default is the nCUBE 2's)", NULL},
    {&OPT_BYTES_PER_FLIT, NULL, NULL},
    {&OPT_LOGGOPS, "LogGOPS parameters: with --model loggops L, o, g, G, O, S (unset ones LogGOPSim's defaults "
                   "L=2500,o=1500,g=1000,G=6,O=0,S=65535); with the network o, g, O, S only (unset: 0, S=inf)", NULL},
    {&OPT_COLLECTIVES, NULL, NULL},
    {&OPT_COMPUTE_SCALE, NULL, NULL},
    {&OPT_EMIT_GOAL, "write the schedule made from an OTF2 trace as a GOAL file ('-': standard output)", NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_CSV, "one row per phase, then total, compute, loggp, loggops and time-split rows (path_* with --loggops; "
               "--model loggops: total and finish:R rows in ns)", NULL},
    {&OPT_MAX_TIME, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL},
    {NULL, NULL, NULL},
};

/* replay applies a mapping from a file only (map --out writes one). */
static const cli_narrow replay_narrow[] = {{&OPT_MAPPING, NULL, "none|FILE"}, {NULL, NULL, NULL}};

/* ---- resolve ------------------------------------------------------------------ */

typedef struct replay_job {
    const char *path;
    cli_fmt fmt;
    kc_simspec spec; /* resolved */
    kc_simconfig cfg;
    kc_appsim_opts opts;
    uint32_t ranks_per_node;
    const char *timeline, *size; /* --timeline and its --size, or NULL */
    kc_goal g;
    int have_goal;
    kc_goal_match m;       /* the network models: the validation's matching, used by the run */
    int have_match;
    int model;             /* CLI_REPLAY_NETWORK, _LOGGP or _LOGGOPS (replay_loggops.h) */
    kc_loggops_params lp;  /* --model loggops; the network's o, g, O, S (docs/appsim.md) */
    int net_lp;            /* --loggops given to the network replay */
    int general;           /* --shape, --wrap, --endpoints or --nodes: ranks on the slots of net */
    cli_network net;       /* the general network (cli_network_resolve) */
    uint32_t *endpoint_of; /* general: [num_ranks] each rank's endpoint */
    char mapping_desc[160]; /* general: "none" or "file PATH" */
    cli_trace *tr;         /* FILE is an OTF2 trace: it and its schedule's making */
    int is_trace;
    const char *emit;      /* --emit-goal */
    char inferred[160];    /* how --n was derived when not given, or "" */
} replay_job;

static void job_free(replay_job *j)
{
    if (j->have_goal)
        kc_goal_free(&j->g);
    if (j->have_match)
        kc_goal_match_free(&j->m);
    if (j->general)
        cli_network_free(&j->net);
    free(j->endpoint_of);
    cli_trace_free(j->tr);
}

/* --n, --k and --topology into the spec, only what was given:
 * kc_simspec_resolve decides the rest (--k's shared default is not for
 * us). */
static int resolve_plain(const cli_args *a, replay_job *j)
{
    kc_err err = {0};
    kc_simspec *s = &j->spec;
    if (cli_given(a, &OPT_N))
        s->n = (int)cli_int(a, &OPT_N, 0);
    if (cli_given(a, &OPT_K))
        s->k = (int)cli_int(a, &OPT_K, 0);
    s->mapping = cli_text(a, &OPT_MAPPING, NULL);
    if (cli_given(a, &OPT_TOPOLOGY) &&
        kc_simtopo_parse(kc_names_name(&kc_topo_kind_names, cli_choice(a, &OPT_TOPOLOGY, 0)), &s->topo, &err))
        return cli_report(a, &err);
    return 0;
}

/* The general network (cli_network_resolve) into the spec; a mapping file
 * is read onto its slots once the schedule's ranks are known. Today's
 * networks however spelled (equal sides, C = 1, no allocation, every axis
 * wrapping or none) take the plain path and print what they always did. */
static int resolve_general(const cli_args *a, replay_job *j)
{
    int r = cli_network_resolve(a, &j->net);
    j->general = 1; /* cli_network_free is safe on what resolve left */
    if (r)
        return r;
    const kc_topology *t = &j->net.topo;
    if (kc_topology_is_plain(t) && t->k) {
        j->spec.topo = t->kind == KC_TOPO_HYPERCUBE ? KC_SIM_HYPERCUBE
                       : t->kind == KC_TOPO_TORUS   ? KC_SIM_TORUS
                                                    : KC_SIM_MESH;
        j->spec.k = t->k;
        j->spec.n = t->n;
        j->spec.mapping = cli_text(a, &OPT_MAPPING, NULL);
        cli_network_free(&j->net);
        j->general = 0;
        return 0;
    }
    if (j->net.topo.nodes > KC_SIMNET_MAX_NODES)
        return cli_error("the network has more than %u routers", KC_SIMNET_MAX_NODES);
    const char *m = cli_text(a, &OPT_MAPPING, NULL);
    cli_replay_mapping_desc(m && strcmp(m, "none") ? m : NULL, j->mapping_desc, sizeof j->mapping_desc);
    j->spec.network = &j->net.topo; /* j outlives the spec's uses */
    return 0;
}

/* No --n and no other description of the network: the smallest n whose
 * network of the kind asked (the hypercube, or k-ary with --k) holds the
 * schedule's ranks, --ranks-per-node of them a node; said in the report. */
static int infer_n(replay_job *j)
{
    kc_simspec *s = &j->spec;
    if (s->topo == KC_SIM_MESH && !s->k)
        return cli_error("replay needs --n N (and --k K for a torus or mesh)");
    uint64_t k = s->k ? (uint64_t)s->k : 2;
    uint64_t need = (j->g.num_ranks + (uint64_t)j->ranks_per_node - 1) / j->ranks_per_node;
    int n = s->n = cli_smallest_n(k, need, 64);
    snprintf(j->inferred, sizeof j->inferred, "n = %d inferred: the smallest network with k = %llu holding the "
             "%u ranks%s (--n chooses)", n, (unsigned long long)k, j->g.num_ranks,
             j->ranks_per_node > 1 ? ", --ranks-per-node of them a node" : "");
    return 0;
}

static int resolve_network(const cli_args *a, replay_job *j)
{
    kc_err err = {0};
    kc_simspec *s = &j->spec;
    kc_simspec_default(s);
    kc_simconfig_default(&j->cfg);
    s->pattern = "uniform"; /* the scenario's traffic is not used: the schedule is */
    const char *m = cli_text(a, &OPT_MAPPING, NULL);
    if (m && (!strcmp(m, "optimal") || !strncmp(m, "set:", 4)))
        return cli_error("--mapping: replay takes none or a mapping file (apply a reordering with a file)");
    int r = cli_network_given(a) ? resolve_general(a, j) : resolve_plain(a, j);
    if (r)
        return r;
    if (cli_given(a, &OPT_ROUTING) && kc_simalgo_parse(cli_text(a, &OPT_ROUTING, ""), &s->route.algo, &err))
        return cli_report(a, &err);
    if (!j->general && !s->n && !cli_given(a, &OPT_N) && (r = infer_n(j)))
        return r;
    if (kc_simspec_resolve(s, &j->cfg, &err))
        return cli_report(a, &err);
    return 0;
}

/* A schedule that does not validate. One made from a trace has no lines:
 * the message names the trace instead (a send never received is a trace
 * cut short, or of a program that left it so). */
static int invalid(const cli_args *a, const replay_job *j, kc_err *err)
{
    if (!j->is_trace)
        return cli_report(a, err);
    const char *msg = strncmp(err->msg, "line 0: ", 8) ? err->msg : err->msg + 8;
    cli_quoted q;
    return cli_error("the schedule made from the trace '%s' cannot be replayed: %s", cli_quote(&q, j->path), msg);
}

/* The pure model: no network; --n, when given, bounds the ranks. */
static int resolve_loggops(const cli_args *a, replay_job *j)
{
    kc_err err = {0};
    long long n = cli_given(a, &OPT_N) ? cli_int(a, &OPT_N, 0) : 0;
    uint64_t nodes = n > 0 && n < 63 ? (uint64_t)1 << n : 0;
    if (kc_goal_validate(&j->g, nodes, NULL, &err))
        return invalid(a, j, &err);
    j->timeline = cli_text(a, &OPT_TIMELINE, NULL);
    j->size = cli_text(a, &OPT_SIZE, NULL);
    if (!j->timeline)
        return cli_reject(a, &OPT_SIZE, "without --timeline");
    return cli_timeline_check(j->timeline, j->size);
}

/* The schedule: a GOAL file, or the one made from an OTF2 trace
 * (cli_trace_goal; --emit-goal writes it when the command runs). The
 * trace's options are refused on a GOAL file. */
static int read_schedule(const cli_args *a, replay_job *j)
{
    kc_err err = {0};
    int r;
    j->path = a->pos[0];
    j->emit = cli_text(a, &OPT_EMIT_GOAL, NULL);
    if (!cli_trace_is(j->path)) {
        if ((r = cli_trace_refuse(a, "to a GOAL schedule")) ||
            (r = cli_reject(a, &OPT_EMIT_GOAL, "to a GOAL schedule (only to an OTF2 trace, whose schedule it writes)")))
            return r;
        if (kc_goal_read_file(&j->g, j->path, NULL, 0, &err))
            return cli_report(a, &err);
        j->have_goal = 1;
        return 0;
    }
    if (j->emit && (r = cli_check_output(j->emit)))
        return r;
    j->is_trace = 1;
    if ((r = cli_trace_load(a, j->path, &j->tr)) || (r = cli_trace_goal(a, j->tr, &j->g)))
        return r;
    j->have_goal = 1;
    return 0;
}

static int resolve(const cli_args *a, replay_job *j)
{
    memset(j, 0, sizeof *j);
    int r = cli_format(a, &j->fmt);
    if (r)
        return r;
    if ((r = cli_replay_model(a, &j->model, &j->lp, &j->net_lp)) || (r = read_schedule(a, j)))
        return r;
    if (j->model == CLI_REPLAY_LOGGOPS)
        return resolve_loggops(a, j);
    /* R ranks a node: the schedule must fill whole nodes, and fit. */
    j->ranks_per_node = (uint32_t)cli_int(a, &OPT_RANKS_PER_NODE, 1);
    if ((r = resolve_network(a, j)))
        return r;
    j->opts = (kc_appsim_opts){cli_real(a, &OPT_STARTUP, 164), cli_real(a, &OPT_BYTE_TIME, 0.57),
                               (int)cli_int(a, &OPT_BYTES_PER_FLIT, 1), j->net_lp ? &j->lp : NULL};
    double nodes = 1;
    for (int i = 0; i < j->spec.n && !j->general; i++)
        nodes *= j->spec.k;
    if (nodes > KC_SIMNET_MAX_NODES)
        return cli_error("--n: the network has more than %u nodes", KC_SIMNET_MAX_NODES);
    kc_err err = {0};
    j->timeline = cli_text(a, &OPT_TIMELINE, NULL);
    j->size = cli_text(a, &OPT_SIZE, NULL);
    if (!j->timeline && (r = cli_reject(a, &OPT_SIZE, "without --timeline")))
        return r;
    if (j->general && (r = cli_replay_place(a, &j->net.topo, j->g.num_ranks, j->ranks_per_node,
                                            strcmp(j->mapping_desc, "none") ? cli_text(a, &OPT_MAPPING, NULL) : NULL,
                                            &j->endpoint_of)))
        return r;
    if (!j->general && j->g.num_ranks % j->ranks_per_node)
        return cli_error("--ranks-per-node: %u ranks are not a multiple of %u", j->g.num_ranks, j->ranks_per_node);
    if (!j->general && j->g.num_ranks > nodes * j->ranks_per_node)
        return cli_error("--ranks-per-node: %u ranks do not fit on %.0f nodes of %u ranks", j->g.num_ranks, nodes,
                         j->ranks_per_node);
    if (kc_goal_validate(&j->g, 0, &j->m, &err))
        return invalid(a, j, &err);
    j->have_match = 1;
    if (j->timeline && (r = cli_timeline_check(j->timeline, j->size)))
        return r;
    return 0;
}

/* ---- compute ------------------------------------------------------------------ */

typedef struct replay_out {
    kc_simscenario sc;
    int built;
    kc_appsim_result r;  /* --model network */
    double loggp_us;     /* --model loggp */
    uint64_t messages;
    double *finish;      /* by rank as in the file */
    uint32_t *node_of;   /* [num_ranks] */
    kc_timeline tl;
    int have_tl;
} replay_out;

/* The network whose routes give the replay's hop counts: the general one,
 * or today's network as a kc_topology (the same hops the simulator's
 * distances give). NULL only if it cannot be described, which resolve
 * rules out. */
static const kc_topology *route_topology(const replay_job *j, const kc_simnet *net, kc_topology *plain)
{
    if (j->general)
        return &j->net.topo;
    kc_topo_kind kind = net->topo == KC_SIM_HYPERCUBE ? KC_TOPO_HYPERCUBE
                        : net->topo == KC_SIM_TORUS   ? KC_TOPO_TORUS
                                                      : KC_TOPO_MESH;
    return kc_topology_init(plain, kind, net->k, net->n, KC_TIE_PLUS, NULL) ? NULL : plain;
}

/* Rank r runs on node to_physical[r / R] (r / R without a mapping file): a
 * mapping file places nodes' worth of ranks, as kcube map's node lists
 * place one rank each. On a general network the nodes are the endpoints
 * resolve placed the ranks on (the placement's topology says their
 * routers). */
static kc_status compute(replay_job *j, replay_out *o, kc_err *err)
{
    memset(o, 0, sizeof *o);
    uint32_t ranks = j->g.num_ranks, R = j->ranks_per_node;
    kc_status st = kc_simscenario_build(&o->sc, &j->spec, err);
    if (st)
        return st;
    o->built = 1;
    o->finish = malloc(((size_t)ranks + 1) * sizeof *o->finish);
    o->node_of = malloc(((size_t)ranks + 1) * sizeof *o->node_of);
    if (!o->finish || !o->node_of)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint32_t r = 0; r < ranks; r++)
        o->node_of[r] = j->general ? j->endpoint_of[r] : o->sc.map.count ? o->sc.map.to_physical[r / R] : r / R;
    if (j->timeline) {
        if ((st = kc_timeline_init(&o->tl, ranks, err)))
            return st;
        o->have_tl = 1;
    }
    const kc_goal_match *m = &j->m;
    o->messages = m->messages;
    if (j->model == CLI_REPLAY_LOGGP) {
        kc_goal_timing tm = {j->opts.startup_us, j->opts.byte_time_us};
        st = kc_goal_loggp_record(&j->g, m, &tm, o->node_of, &o->loggp_us, o->finish, o->have_tl ? &o->tl : NULL,
                                  err);
        if (!st && o->have_tl)
            memcpy(o->tl.node_of, o->node_of, ranks * sizeof *o->node_of);
    } else {
        kc_topology plain;
        kc_appsim_place pl = {R, o->node_of, route_topology(j, &o->sc.net, &plain)};
        st = kc_appsim_run_placed(&j->g, m, &o->sc.net, &o->sc.route, &j->cfg, &j->opts, &pl,
                                  o->have_tl ? &o->tl : NULL, &o->r, err);
        if (!st)
            memcpy(o->finish, o->r.finish_us, ranks * sizeof *o->finish);
    }
    return st;
}

static void out_free(replay_out *o)
{
    kc_appsim_result_free(&o->r);
    if (o->built)
        kc_simscenario_free(&o->sc);
    if (o->have_tl)
        kc_timeline_free(&o->tl);
    free(o->finish), free(o->node_of);
}

/* ---- render ------------------------------------------------------------------- */

/* What placed the ranks: the scenario's mapping, or on a general network
 * the job's. */
static const char *mapping_desc(const replay_job *j, const replay_out *o)
{
    return j->general ? j->mapping_desc : o->sc.mapping_desc;
}

static const char *phase_label(const kc_goal *g, uint32_t p)
{
    const char *name = kc_goal_phase_name(g, p);
    return *name ? name : "(unnamed)";
}

/* The parts of the network's makespan along its critical path, in the order
 * the reports print them (every one a duration >= 0; they add up to
 * total_us). */
typedef struct span_part {
    const char *key, *words;
    double us;
} span_part;

static int span_parts(const kc_appsim_result *r, span_part *p)
{
    const span_part all[] = {
        {"start_up", "start-ups", r->path.span.start_up},
        {"cpu", "computing and CPU overheads", r->path.span.cpu},
        {"nic", "NIC", r->path.span.nic},
        {"transfer", "messages at zero load", r->path.span.transfer},
        {"cycle_boundary", "cycle boundaries", r->path.span.cycle_boundary},
        {"injection_wait", "injection port", r->path.span.injection_wait},
        {"channel_wait", "channels (contention)", r->path.span.channel_wait},
        {"pipeline", "pipeline", r->path.span.pipeline},
        {"waiting", "waiting for another rank", r->path.span.waiting},
    };
    int n = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < n; i++) {
        p[i] = all[i];
        p[i].us = p[i].us > 0 ? p[i].us : 0; /* a duration: never -0 */
    }
    return n;
}

/* critical_path_us: the makespan's parts; loggops_difference_us: the
 * difference with LogGOPS split along the same path (signed: differences,
 * not durations; docs/appsim.md "Along the critical path"). */
static void json_path(cJSON *root, const kc_appsim_result *r)
{
    if (!r->path.ok) {
        cJSON_AddNullToObject(root, "critical_path_us");
        cJSON_AddNullToObject(root, "loggops_difference_us");
        return;
    }
    span_part part[16];
    int n = span_parts(r, part);
    cJSON *cp = cJSON_AddObjectToObject(root, "critical_path_us");
    for (int i = 0; i < n; i++)
        cJSON_AddNumberToObject(cp, part[i].key, part[i].us);
    cJSON_AddItemToObject(cp, "steps", cli_json_u64(r->path.steps));
    cJSON_AddItemToObject(cp, "messages", cli_json_u64(r->path.messages));
    cJSON *d = cJSON_AddObjectToObject(root, "loggops_difference_us");
    cJSON_AddNumberToObject(d, "start_up", r->path.start_up);
    cJSON_AddNumberToObject(d, "cpu", r->path.cpu);
    cJSON_AddNumberToObject(d, "nic", r->path.nic);
    cJSON_AddNumberToObject(d, "cycle_boundary", r->path.cycle_boundary);
    cJSON_AddNumberToObject(d, "injection_wait", r->path.injection_wait);
    cJSON_AddNumberToObject(d, "channel_wait", r->path.channel_wait);
    cJSON_AddNumberToObject(d, "pipeline", r->path.pipeline);
    cJSON_AddNumberToObject(d, "other", r->path.other);
    cJSON_AddNumberToObject(d, "elsewhere", r->path.elsewhere);
}

/* kc_appsim_result.order_reason in JSON's fixed words (docs/appsim.md). */
static const char *order_reason(const kc_appsim_result *r)
{
    switch (r->order_reason) {
    case KC_APPSIM_REASON_LOGGOPS: return "loggops_order";
    case KC_APPSIM_REASON_NCUBE2: return "no_loggops_parameters";
    case KC_APPSIM_REASON_ASKED: return "greedy_asked";
    default: return "loggops_deadlock";
    }
}

/* What the report says about its input besides the schedule itself: the
 * trace it was made from (trace_cli.h) and an inferred --n. */
static void input_text(const replay_job *j)
{
    if (j->is_trace)
        cli_trace_text(stdout, j->tr);
    if (j->inferred[0])
        printf("%s\n", j->inferred);
}

static void input_json(cJSON *root, const replay_job *j)
{
    if (j->is_trace)
        cli_trace_json(root, j->tr);
    cJSON_AddItemToObject(root, "inferred", j->inferred[0] ? cJSON_CreateString(j->inferred) : cJSON_CreateNull());
}

static int render_json(const replay_job *j, const replay_out *o)
{
    const kc_appsim_result *r = &o->r;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schedule", j->path);
    cJSON_AddStringToObject(root, "topology", kc_simtopo_name(o->sc.net.topo));
    cli_json_add_int(root, "k", o->sc.net.k);
    cli_json_add_int(root, "n", o->sc.net.n);
    if (j->general)
        cli_network_json(root, &j->net.topo);
    cJSON_AddStringToObject(root, "routing", kc_simalgo_name(o->sc.route.algo));
    cJSON_AddStringToObject(root, "mapping", mapping_desc(j, o));
    cJSON_AddNumberToObject(root, "startup_us", j->opts.startup_us);
    cJSON_AddNumberToObject(root, "byte_time_us", j->opts.byte_time_us);
    cli_json_add_int(root, "bytes_per_flit", j->opts.bytes_per_flit);
    cli_json_add_int(root, "ranks_per_node", j->ranks_per_node);
    cJSON_AddStringToObject(root, "model", "network");
    cJSON_AddNumberToObject(root, "total_us", r->total_us);
    cJSON_AddNumberToObject(root, "loggp_us", r->loggp_us);
    /* the LogGOPS figure with the network's zero-load
     * numbers and where the network's time above it goes */
    if (r->loggops_us >= 0)
        cJSON_AddNumberToObject(root, "loggops_us", r->loggops_us);
    else
        cJSON_AddNullToObject(root, "loggops_us");
    if (r->loggops_us < 0) /* why LogGOPS cannot run the schedule, as the text says it */
        cJSON_AddStringToObject(root, "loggops_why", r->loggops_why);
    cJSON *ref = cJSON_AddObjectToObject(root, "loggops_params");
    static const char *const keys[] = {"L", "o", "g", "G", "O", "S"};
    for (int i = 0; i < 6; i++)
        if (i == 5 && r->loggops_ref[i] == KC_LOGGOPS_S_INF)
            cJSON_AddStringToObject(ref, keys[i], "inf");
        else
            cJSON_AddItemToObject(ref, keys[i], cli_json_u64(r->loggops_ref[i]));
    cJSON *gap = cJSON_AddObjectToObject(root, "network_time_us");
    cJSON_AddNumberToObject(gap, "channel_wait", r->wait_channel_us);
    cJSON_AddNumberToObject(gap, "injection_wait", r->wait_port_us);
    cJSON_AddNumberToObject(gap, "pipeline", r->pipeline_us);
    cJSON_AddNumberToObject(gap, "cycle_boundary", r->boundary_us);
    /* the CPUs' and NICs' order, and the difference along the critical path */
    cJSON_AddStringToObject(root, "order", r->fixed_order ? "loggops" : "greedy");
    cJSON_AddStringToObject(root, "order_reason", order_reason(r));
    json_path(root, r);
    cJSON_AddNumberToObject(root, "compute_us", r->compute_us);
    cJSON_AddItemToObject(root, "messages", cli_json_u64(r->messages));
    cJSON_AddItemToObject(root, "flits", cli_json_u64(r->flits));
    cJSON_AddItemToObject(root, "cycles", cli_json_u64((uint64_t)r->sim.cycles));
    cJSON_AddBoolToObject(root, "deadlock", r->sim.deadlock);
    cJSON *fin = cJSON_AddArrayToObject(root, "finish_us");
    for (uint32_t v = 0; v < j->g.num_ranks; v++)
        cJSON_AddItemToArray(fin, cJSON_CreateNumber(o->finish[v]));
    cJSON *ph = cJSON_AddObjectToObject(root, "phases"), *pc = cJSON_AddObjectToObject(root, "phases_computing_us");
    for (uint32_t p = 0; p < r->nphases; p++) {
        cJSON_AddNumberToObject(ph, phase_label(&j->g, p), r->phase_us[p]);
        cJSON_AddNumberToObject(pc, phase_label(&j->g, p), r->phase_compute_us[p]);
    }
    cJSON *lu = cJSON_AddObjectToObject(root, "link_utilisation");
    cJSON_AddNumberToObject(lu, "mean", r->link_util_mean);
    cJSON_AddNumberToObject(lu, "max", r->link_util_max);
    input_json(root, j);
    return cli_print_json(root);
}

/* The size derived from the schedule when --n was not given, as its own
 * two-column section (the rows above are times). */
static void csv_inferred(const replay_job *j)
{
    if (!j->inferred[0])
        return;
    fputs("\nitem,value\ninferred,", stdout);
    cli_csv_field(stdout, j->inferred);
    putchar('\n');
}

static void render_csv(const replay_job *j, const replay_out *o)
{
    const kc_appsim_result *r = &o->r;
    puts("item,us");
    for (uint32_t p = 0; p < r->nphases && !ferror(stdout); p++) {
        /* The whole field "phase:NAME" is one CSV field (RFC 4180 quoting). */
        const char *name = phase_label(&j->g, p);
        char *field = malloc(strlen(name) + 7);
        if (field)
            sprintf(field, "phase:%s", name);
        cli_csv_field(stdout, field ? field : "phase:?");
        free(field);
        printf(",%.6f\n", r->phase_us[p]);
    }
    printf("compute,%.6f\ntotal,%.6f\nloggp,%.6f\n", r->compute_us, r->total_us, r->loggp_us);
    if (r->loggops_us >= 0)
        printf("loggops,%.6f\n", r->loggops_us);
    printf("channel_wait,%.6f\ninjection_wait,%.6f\npipeline,%.6f\ncycle_boundary,%.6f\n", r->wait_channel_us,
           r->wait_port_us, r->pipeline_us, r->boundary_us);
    span_part part[16];
    for (int i = 0, n = r->path.ok ? span_parts(r, part) : 0; i < n; i++)
        printf("path_%s,%.6f\n", part[i].key, part[i].us);
    csv_inferred(j);
    if (j->is_trace)
        cli_trace_csv(stdout, j->tr);
}

/* The LogGOPS figure and the network's time against it, said as what it
 * is: longer, as long, or faster, and why; or why there is none. */
static void print_loggops(const kc_appsim_result *r)
{
    const uint64_t *q = r->loggops_ref;
    if (r->loggops_us < 0) {
        printf("LogGOPS with the network's zero-load numbers (L %llu ns, G %llu ns/byte): no time, %s%s\n",
               (unsigned long long)q[0], (unsigned long long)q[3], r->loggops_why,
               r->order_reason == KC_APPSIM_REASON_NO_LOGGOPS
                   ? "; so the greedy order (receives matched at run time) and no bound" : "");
        return;
    }
    double d = r->total_us - r->loggops_us;
    char diff[96];
    if (fabs(d) < 0.005)
        snprintf(diff, sizeof diff, "the network takes as long as LogGOPS");
    else if (d > 0)
        snprintf(diff, sizeof diff, "the network takes %.2f us longer than LogGOPS", d);
    else
        snprintf(diff, sizeof diff, "the network is %.2f us faster than LogGOPS", -d);
    const char *why = r->fixed_order ? "; each CPU and NIC in LogGOPS's order, so never below it"
                      : r->order_reason == KC_APPSIM_REASON_ASKED ? "; the greedy order, as asked, so no bound"
                      : q[2] ? ""
                      : d < 0 ? ", because g = 0 here: no NIC model, a send does not wait for the injection port "
                                "as in LogGOPS"
                              : " (g = 0: no NIC model here, a send does not wait for the injection port as in LogGOPS)";
    printf("LogGOPS time with the network's zero-load numbers (L %llu ns, G %llu ns/byte) %.2f us; %s%s\n",
           (unsigned long long)q[0], (unsigned long long)q[3], r->loggops_us, diff, why);
}

static void render_text(const replay_job *j, const replay_out *o)
{
    const kc_appsim_result *r = &o->r;
    char net[256];
    input_text(j);
    if (j->general)
        printf("%s on the %s, routing %s, mapping %s\n", j->path,
               cli_replay_network_text(&j->net.topo, net, sizeof net), kc_simalgo_name(o->sc.route.algo),
               j->mapping_desc);
    else
        printf("%s on the %s (k = %d, n = %d), routing %s, mapping %s\n", j->path, kc_simtopo_name(o->sc.net.topo),
               o->sc.net.k, o->sc.net.n, kc_simalgo_name(o->sc.route.algo), o->sc.mapping_desc);
    printf("start-up %g us, %g us per byte, %d byte(s) per flit: one flit-cycle is %g us\n", j->opts.startup_us,
           j->opts.byte_time_us, j->opts.bytes_per_flit, r->cycle_us);
    if (j->ranks_per_node > 1)
        printf("%u ranks per node (messages within a node do not enter the network)\n", j->ranks_per_node);
    const uint64_t *q = r->loggops_ref;
    if (j->net_lp) {
        printf("CPU and NIC (LogGOPS): o %llu ns, g %llu ns, O %llu ns/byte, S ", (unsigned long long)q[1],
               (unsigned long long)q[2], (unsigned long long)q[4]);
        if (q[5] == KC_LOGGOPS_S_INF)
            printf("inf\n");
        else
            printf("%llu bytes\n", (unsigned long long)q[5]);
    }
    printf("total %.2f us; contention-free LogGP time %.2f us\n", r->total_us, r->loggp_us);
    print_loggops(r);
    if (r->path.ok) {
        span_part part[16];
        int n = span_parts(r, part);
        printf("the network's %.2f us along its critical path (%llu steps, %llu messages):", r->total_us,
               (unsigned long long)r->path.steps, (unsigned long long)r->path.messages);
        for (int i = 0; i < n; i++)
            printf("%s %s %.2f us", i ? "," : "", part[i].words, part[i].us);
        putchar('\n');
    }
    printf("network time beyond the zero-load latency, summed over messages: waiting for channels (contention) %.2f us, for the "
           "injection port %.2f us, pipeline latency %.2f us, cycle boundaries %.2f us\n", r->wait_channel_us,
           r->wait_port_us, r->pipeline_us, r->boundary_us);
    printf("%llu messages delivered, %llu flits, %lld cycles\n", (unsigned long long)r->messages,
           (unsigned long long)r->flits, (long long)r->sim.cycles);
    printf("phases (largest time a node spends on them): %12s %15s\n", "messages", "computing");
    for (uint32_t p = 0; p < r->nphases; p++)
        printf("  %-42s %12.2f us %12.2f us\n", phase_label(&j->g, p), r->phase_us[p], r->phase_compute_us[p]);
    printf("  %-42s %16s%12.2f us\n", "computing, all phases", "", r->compute_us);
    printf("link utilisation: mean %.4f, max %.4f\n", r->link_util_mean, r->link_util_max);
    if (r->sim.deadlock)
        printf("DEADLOCK in the network: the times are those reached\n");
}

/* --model loggp: the contention-free time alone. */
static int render_loggp(const replay_job *j, const replay_out *o)
{
    if (j->fmt == CLI_FMT_JSON) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "schedule", j->path);
        cJSON_AddStringToObject(root, "model", "loggp");
        cJSON_AddStringToObject(root, "mapping", mapping_desc(j, o));
        cJSON_AddNumberToObject(root, "startup_us", j->opts.startup_us);
        cJSON_AddNumberToObject(root, "byte_time_us", j->opts.byte_time_us);
        cli_json_add_int(root, "ranks_per_node", j->ranks_per_node);
        cJSON_AddNumberToObject(root, "loggp_us", o->loggp_us);
        cJSON_AddItemToObject(root, "messages", cli_json_u64(o->messages));
        cJSON *fin = cJSON_AddArrayToObject(root, "finish_us");
        for (uint32_t v = 0; v < j->g.num_ranks; v++)
            cJSON_AddItemToArray(fin, cJSON_CreateNumber(o->finish[v]));
        input_json(root, j);
        return cli_print_json(root);
    }
    if (j->fmt == CLI_FMT_CSV) {
        printf("item,us\nloggp,%.6f\n", o->loggp_us);
        if (j->is_trace)
            cli_trace_csv(stdout, j->tr);
        return 0;
    }
    input_text(j);
    printf("%s: contention-free LogGP time %.2f us (start-up %g us, %g us per byte, %u rank(s) per node)\n",
           j->path, o->loggp_us, j->opts.startup_us, j->opts.byte_time_us, j->ranks_per_node);
    return 0;
}

static int render(const replay_job *j, const replay_out *o)
{
    if (j->model == CLI_REPLAY_LOGGP)
        return render_loggp(j, o);
    if (j->fmt == CLI_FMT_JSON)
        return render_json(j, o);
    if (j->fmt == CLI_FMT_CSV)
        render_csv(j, o);
    else
        render_text(j, o);
    return 0;
}

/* ---- the command --------------------------------------------------------------- */

/* ---- the gate ------------------------------------------------------------------ */

/* Time and memory before work (budget.h), fitted to the runs of
 * bench/estimates.tsv: the network, 0.4 us and 300 bytes a node; the
 * schedule's list scheduling and replay, 2.2 us and 350 bytes an operation,
 * 0.85 us and 60 bytes a dependence (kcube/appsim.h: O((ops + deps) log
 * ops)); the engine's flits, 2 ns a byte sent (the schedules measured send
 * mostly to neighbours: contention and longer paths take more, known only
 * by running). */
static int gate(const cli_args *a, const replay_job *j)
{
    double nodes = j->general ? (double)j->net.topo.nodes : 1, bytes_sent = 0;
    for (int i = 0; i < j->spec.n && !j->general; i++)
        nodes *= j->spec.k;
    for (size_t i = 0; i < j->g.nops; i++)
        if (j->g.op[i].kind == KC_GOAL_SEND)
            bytes_sent += (double)j->g.op[i].amount;
    double ops = (double)j->g.nops, deps = (double)j->g.ndeps;
    double sec = CLI_RATE_REPLAY_NODE * nodes + CLI_RATE_REPLAY_OP * ops + CLI_RATE_REPLAY_DEP * deps +
                 CLI_RATE_REPLAY_BYTE * bytes_sent;
    double bytes = 300 * nodes + 350 * ops + 60 * deps + CLI_BASE_BYTES;
    if (j->timeline) /* up to two 64-byte slices an operation (its own, a hold or a wait), a 16-byte flow a
                      * message, with the doubling's slack */
        bytes += CLI_TIMELINE_BYTES_PER_OP * ops;
    char what[96], nb[32];
    snprintf(what, sizeof what, "%s of %zu operations on %s nodes", a->path, j->g.nops,
             cli_budget_count(nodes, nb, sizeof nb));
    return cli_budget_check(a, what, sec, kci_clamp_u64(bytes));
}

/* --emit-goal: the schedule made from the trace, before it is replayed. */
static int emit_goal(const cli_args *a, const replay_job *j)
{
    cli_atomic at;
    kc_err err = {0};
    int rc = cli_atomic_open(&at, j->emit);
    if (rc)
        return rc;
    if (kc_goal_write(&j->g, at.f, &err) && err.status != KC_EIO) {
        cli_atomic_abort(&at);
        return cli_report(a, &err);
    }
    return cli_atomic_commit(&at); /* a failed write: path and reason, one line */
}

static int check(const cli_args *a)
{
    replay_job j;
    int r = resolve(a, &j);
    job_free(&j);
    return r;
}

static int run(const cli_args *a)
{
    replay_job j;
    int rc = resolve(a, &j);
    if (!rc && j.emit)
        rc = emit_goal(a, &j);
    if (!rc && j.model == CLI_REPLAY_LOGGOPS) {
        rc = cli_replay_loggops(a, j.path, j.fmt, &j.g, &j.lp, j.timeline, j.is_trace ? j.tr : NULL);
        job_free(&j);
        return rc;
    }
    if (!rc)
        rc = gate(a, &j);
    if (!rc) {
        replay_out o;
        kc_err err = {0};
        if (compute(&j, &o, &err)) {
            rc = cli_report(a, &err);
        } else {
            /* Only once the run stands: an error must be the one line on stderr. */
            /* with --loggops the network replay honours them (LogGOPS's order) */
            if (j.g.warnings && j.fmt == CLI_FMT_TEXT && !(j.model == CLI_REPLAY_NETWORK && o.r.fixed_order))
                fprintf(stderr, "kcube: warning: %s\n", j.g.warning);
            if (j.timeline)
                rc = cli_timeline_write(j.timeline, j.size, &o.tl, j.path, kc_names_name(&cli_replay_model_names, j.model));
            /* A timeline on standard output is all that goes there. */
            if (!rc && !(j.timeline && cli_is_stdout(j.timeline)))
                rc = render(&j, &o);
        }
        if (!rc && o.r.sim.deadlock)
            rc = CLI_EXIT_FAIL;
        out_free(&o);
    }
    job_free(&j);
    return rc;
}

const cli_command kc_command_replay = {
    .name = "replay",
    .summary = "run a GOAL schedule (LogGOPSim format) on the flit-level network or the LogGOPS model",
    .order = 75,
    .description =
        "Replays a GOAL schedule on the flit-level wormhole network: one processor per rank does its start-ups\n"
        "and computations one at a time; each message is one worm of ceil(bytes / bytes-per-flit) flits injected\n"
        "when its start-up ends; a receive completes when the tail flit arrives. Reports the makespan, each\n"
        "rank's finish, per-phase times (phases from '// kcube-phase NAME' lines), link utilisation and the\n"
        "contention-free LogGP time of the same schedule (--model loggp: that time alone).\n"
        "--loggops o=N,g=N,O=N,S=N gives the network replay LogGOPS's CPUs and NICs (ns; L and G are the\n"
        "network's): o + (s-1) O on both CPUs, g + (s-1) byte times on both NICs, rendezvous above S, cpu and\n"
        "nic numbers honoured, each CPU and NIC taking its work in the order LogGOPS at the network's\n"
        "zero-load latency and byte time took it, so the makespan is never below that LogGOPS figure; the\n"
        "report splits the difference along the critical path and sums the network's time over messages:\n"
        "channel waits (contention), injection-port waits, pipeline latency and cycle boundaries.\n"
        "--ranks-per-node R puts R ranks on each node (ranks vR..vR+R-1 on node v, or on the node on line v of a\n"
        "mapping file): they share its injection and ejection channels, and a message between two of them does\n"
        "not enter the network (it arrives when its start-up ends). --timeline FILE records what each rank did:\n"
        "Chrome trace-event JSON for FILE.json or '-' (ts and dur in microseconds; Perfetto, chrome://tracing),\n"
        "a Gantt chart for FILE.png/.svg/.pdf/.eps (a row a rank up to 64 ranks, above that rows of several\n"
        "ranks stacking each kind's share of their time; message arrows up to 400 messages), any other name\n"
        "refused; rendezvous holds and receive waits are slices of their own. Exit status 1 on a network\n"
        "deadlock, 2 on bad input.\n"
        "FILE may be an OTF2 trace (its traces.otf2 or directory): the traced run as a schedule, compute\n"
        "between MPI calls times --compute-scale, collectives by --collectives; --emit-goal writes it\n"
        "(docs/traces.md). Without --n: the smallest network of the kind asked holding the ranks.\n"
        "--model loggops runs LogGOPSim's LogGOPS model instead, in integer ns and without a network\n"
        "(--loggops L,o,g,G,O,S; receive overhead, NIC gaps, rendezvous above S; docs/loggops.md).",
    .opts = replay_opts,
    .narrow = replay_narrow,
    .positional = "FILE",
    .min_pos = 1,
    .max_pos = 1,
    .check = check,
    .run = run,
    .epilog = "examples:\n"
              "  kcube replay fft.goal --n 8 --json\n"
              "  kcube replay fft.goal --n 8 --mapping order.map --startup 164 --byte-time 0.57\n"
              "  kcube replay fft.goal --n 7 --ranks-per-node 2 --timeline fft.json\n"
              "  kcube replay fft.goal --model loggops --loggops L=2500,o=1500,g=1000,G=6,O=0,S=65535\n"
              "  kcube replay run1/traces.otf2 --mapping order.map --emit-goal run1.goal",
};
