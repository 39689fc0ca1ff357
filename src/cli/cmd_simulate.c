/* kcube simulate: the flit-level wormhole simulator from the command line.
 * options -> resolve (every default from kc_simspec_resolve and
 * kc_simconfig_default) -> memory before work -> run -> render (text, JSON,
 * CSV and the plot are separate functions over one result). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "network_cli.h"
#include "out.h"
#include "options.h"
#include "plot.h"
#include "sim_cli.h"
#include "trace_cli.h"
#include "traffic_cli.h"
#include "kcube/sim.h"
#include "kcube/simscenario.h"
#include "kcube/simsweep.h"
#include "kcube/topology.h"
#include "kcube/traffic.h"

#define MAX_SERIES 12

/* ---- options (defaults in the help lines are the library's) --------------- */

/* Help shows the library's defaults (kc_simconfig_default,
 * kc_simspec_default): the values a run keeps where an option is not given. */
#define SHOWN_DEFAULT(type, init, field)                                                                     \
    static void shown_##field(char *buf, size_t size)                                                          \
    {                                                                                                          \
        type d;                                                                                                \
        init(&d);                                                                                              \
        snprintf(buf, size, "%lld", (long long)d.field);                                                       \
    }
#define SHOWN_CONFIG(field) SHOWN_DEFAULT(kc_simconfig, kc_simconfig_default, field)
#define SHOWN_SPEC(field) SHOWN_DEFAULT(kc_simspec, kc_simspec_default, field)
SHOWN_CONFIG(msg_flits) SHOWN_CONFIG(warmup) SHOWN_CONFIG(measure) SHOWN_CONFIG(drain) SHOWN_CONFIG(watchdog)
SHOWN_CONFIG(route_delay) SHOWN_CONFIG(switch_delay) SHOWN_CONFIG(link_latency) SHOWN_CONFIG(threads)
SHOWN_SPEC(inj) SHOWN_SPEC(ej) SHOWN_SPEC(depth)

static const cli_opt OPT_PAIRS = {.name = "pairs", .type = CLI_TEXT, .meta = "FILE", .param = "pairs_file",
                                  .help = "traffic from 'src dst [bytes]' lines ('-': standard input; map --traffic's list "
                                          "format; virtual ids, # comments) or an OTF2 trace's messages; every message "
                                          "is --msg-flits long, so bytes are not used"};
static const cli_opt OPT_VC_RULE = {.name = "vc-rule", .type = CLI_CHOICE, .choices = &kc_simvcrule_names,
                                    .param = "vc_rule", .help = "how torus routes use the VCs (default highlow)"};
static const cli_opt OPT_VCS = {.name = "vcs", .type = CLI_INT, .meta = "V", .lo = 1, .hi = KC_SIMNET_MAX_VCS,
                                .param = "vcs",
                                .help = "virtual channels per link (by default what the routing needs: 2 on tori and for duato, else 1)"};
static const cli_opt OPT_INJ = {.name = "inj", .type = CLI_INT, .meta = "I", .lo = 1, .hi = 8, .param = "inj",
                                .help = "injection channels per node", .shown_def = shown_inj};
static const cli_opt OPT_EJ = {.name = "ej", .type = CLI_INT, .meta = "E", .lo = 1, .hi = 8, .param = "ej",
                               .help = "ejection channels per node", .shown_def = shown_ej};
static const cli_opt OPT_DEPTH = {.name = "depth", .type = CLI_INT, .meta = "B", .lo = 1,
                                  .hi = KC_SIMNET_MAX_DEPTH, .param = "depth",
                                  .help = "flits per channel buffer", .shown_def = shown_depth};
static const cli_opt OPT_RATE = {.name = "rate", .type = CLI_REAL, .meta = "R", .rlo = 1e-9, .rhi = 1e6,
                                 .param = "load", .help = "one run at R offered flits per node per cycle"};
static const cli_opt OPT_NO_STOP = {.name = "no-stop", .type = CLI_FLAG,
                                    .help = "run every load of --sweep (by default it ends past saturation)"};
static const cli_opt OPT_ONESHOT = {.name = "oneshot", .type = CLI_FLAG,
                                    .help = "every source sends one message at cycle 0; prints the completion time"};
static const cli_opt OPT_MSG_FLITS = {.name = "msg-flits", .type = CLI_INT, .meta = "F", .lo = 1, .hi = 65535,
                                      .param = "msg_flits", .help = "flits per message, header included", .shown_def = shown_msg_flits};
static const cli_opt OPT_INJECTION = {.name = "injection", .type = CLI_CHOICE, .choices = &kc_siminject_names,
                                      .help = "message generation (default poisson)"};
static const cli_opt OPT_WARMUP = {.name = "warmup", .type = CLI_INT, .meta = "C", .lo = 0, .hi = 100000000,
                                   .help = "cycles before measuring", .shown_def = shown_warmup};
static const cli_opt OPT_MEASURE = {.name = "measure", .type = CLI_INT, .meta = "C", .lo = 1, .hi = 100000000,
                                    .help = "measurement window in cycles", .shown_def = shown_measure};
static const cli_opt OPT_DRAIN = {.name = "drain", .type = CLI_INT, .meta = "C", .lo = 0, .hi = 100000000,
                                  .help = "at most C cycles to deliver the measured messages", .shown_def = shown_drain};
static const cli_opt OPT_WATCHDOG = {.name = "watchdog", .type = CLI_INT, .meta = "C", .lo = 1, .hi = 100000000,
                                     .help = "report a deadlock after C cycles without progress", .shown_def = shown_watchdog};
static const cli_opt OPT_ROUTE_DELAY = {.name = "route-delay", .type = CLI_INT, .meta = "R", .lo = 0, .hi = 1000,
                                        .help = "cycles a header waits in each router", .shown_def = shown_route_delay};
static const cli_opt OPT_SWITCH_DELAY = {.name = "switch-delay", .type = CLI_INT, .meta = "S", .lo = 0,
                                         .hi = 1000, .help = "switch delay in cycles", .shown_def = shown_switch_delay};
static const cli_opt OPT_LINK_LATENCY = {.name = "link-latency", .type = CLI_INT, .meta = "W", .lo = 1,
                                         .hi = 1000, .help = "link latency in cycles", .shown_def = shown_link_latency};
/* The router-pipeline model: each option one difference between the
 * seeds' router and BookSim2's IQRouter (docs/sim.md, "The BookSim2
 * model"); the defaults are the seeds'. */
static const cli_opt OPT_INJECT_LATENCY = {.name = "inject-latency", .type = CLI_INT, .meta = "I", .lo = 1,
                                           .hi = 1000, .def = "1", .param = "inject_latency",
                                           .help = "cycles from injection to the source router's buffer (BookSim2: 2, "
                                                   "the creation cycle and the injection channel)"};
static const cli_opt OPT_CREDIT_DELAY = {.name = "credit-delay", .type = CLI_INT, .meta = "C", .lo = 0, .hi = 1000,
                                         .def = "0", .param = "credit_delay",
                                         .help = "cycles before a buffer slot freed downstream can be used upstream "
                                                 "(BookSim2: 2, the credit channel and the upstream read; 0 here: the "
                                                 "same cycle when the downstream router is visited first)"};
static const cli_opt OPT_VC_RELEASE = {.name = "vc-release", .type = CLI_CHOICE, .choices = &kc_simvcrelease_names,
                                       .def = "tail-out", .param = "vc_release",
                                       .help = "when a VC may be given to the next message (BookSim2 tail-in: once "
                                               "the tail is sent into it, packets then share its buffer)"};
static const cli_opt OPT_VA_DELAY = {.name = "va-delay", .type = CLI_INT, .meta = "V", .lo = 0, .hi = 1000,
                                     .def = "0", .param = "va_delay",
                                     .help = "cycles of R that are VC allocation, a stage of its own: a freed VC is "
                                             "used V + 1 cycles later (BookSim2: 1)"};
static const cli_opt OPT_INJ_VCS = {.name = "inj-vcs", .type = CLI_INT, .meta = "V", .lo = 0,
                                    .hi = KC_SIMNET_MAX_VCS, .def = "0", .param = "inj_vcs",
                                    .help = "0: --inj whole injection channels; V: one injection port of V VCs, one "
                                            "flit per cycle, VCs taken round-robin (BookSim2: the network's VCs)"};
static const cli_opt OPT_EJ_VCS = {.name = "ej-vcs", .type = CLI_INT, .meta = "V", .lo = 0, .hi = KC_SIMNET_MAX_VCS,
                                   .def = "0", .param = "ej_vcs",
                                   .help = "0: --ej whole ejection channels; V: one ejection port of V VCs, one flit "
                                           "per cycle (BookSim2: the network's VCs)"};
static const cli_opt OPT_INPUT_PORT = {.name = "input-port", .type = CLI_CHOICE, .choices = &kc_siminport_names,
                                       .def = "free", .param = "input_port",
                                       .help = "whether an input link's VCs may send in one cycle (free) or the "
                                               "port sends one flit per cycle (shared, BookSim2)"};
static const cli_opt OPT_ARBITRATION = {.name = "arbitration", .type = CLI_CHOICE, .choices = &kc_simarb_names,
                                        .def = "fcfs", .param = "arbitration",
                                        .help = "VC and switch allocators (BookSim2: islip, one iteration; the "
                                                "round-robin pointers' order is reconstructed, docs/sim.md)"};
static const cli_opt OPT_SELF_TRAFFIC = {.name = "self-traffic", .type = CLI_CHOICE, .choices = &kc_simself_names,
                                         .def = "drop", .param = "self_traffic",
                                         .help = "messages to oneself: dropped, or sent through the own router "
                                                 "(BookSim2: uniform draws among all nodes); uniform traffic and built-in "
                                                 "permutations only: a --pairs file's self pairs are dropped"};
SHOWN_CONFIG(queue_cap)
static const cli_opt OPT_QUEUE_CAP = {.name = "queue-cap", .type = CLI_REAL, .meta = "M", .rlo = 1, .rhi = 1e9,
                                      .param = "queue_cap", .shown_def = shown_queue_cap,
                                      .help = "give a run up (unsustainable) once the source queues hold M messages "
                                              "per node on average (BookSim2 has no such limit: --booksim sets "
                                              "1e6, so an overloaded run measures its whole window)"};
static const cli_opt OPT_BOOKSIM = {.name = "booksim", .type = CLI_FLAG,
                                    .help = "BookSim2's router (28f43299 defaults): --depth 8 --vcs 2 --vc-link shared "
                                            "--route-delay 2 --switch-delay 2 --link-latency 1 --injection bernoulli "
                                            "--inject-latency 2 --credit-delay 2 --vc-release tail-in --va-delay 1 "
                                            "--inj-vcs V --ej-vcs V (V: the VCs) --input-port shared --arbitration "
                                            "islip --tie random --self-traffic send --queue-cap 1e6; options given "
                                            "override it"};
static const cli_opt OPT_CHANNEL_UTIL = {.name = "channel-util", .type = CLI_FLAG,
                                         .help = "per-link utilisation in the measurement window"};
static const cli_opt OPT_POINT_THREADS = {.name = "point-threads", .type = CLI_INT, .meta = "T", .lo = 1, .hi = 64,
                                          .shown_def = shown_threads,
                                          .help = "threads within each load point: from 2^18 nodes "
                                                  "on, the worm-level loop splits each cycle's header arbitration "
                                                  "and moves by node range, from 2^19 the stream loop its "
                                                  "header arbitration; a run that does not split, with Bernoulli "
                                                  "sources, generates its messages on a thread of its own; "
                                                  "results do not depend on it"};
static const cli_opt OPT_COMPARE = {.name = "compare", .type = CLI_FLAG,
                                    .help = "several configurations over the same loads (--configs, --set)"};
static const cli_opt OPT_SET = {.name = "set", .type = CLI_TEXT, .meta = "P1,P2,..",
                                .help = "the patterns M-G maps for (default transpose,bit-reverse,reverse-flip on "
                                        "the hypercube, transpose,digit-reverse elsewhere)"};

static const cli_use simulate_opts[] = {
    {&OPT_N, NULL, NULL},
    {&OPT_K, "nodes per dimension (2..256; 2 is the binary n-cube)", NULL},
    {&OPT_TOPOLOGY, NULL, NULL},
    {&OPT_SHAPE, "sides per axis AxBx.. (a mesh unless --topology torus or --wrap; the simulator takes at most 24 axes)",
     NULL},
    {&OPT_WRAP, NULL, NULL},
    {&OPT_NETWORK, NULL, NULL},
    {&OPT_ENDPOINTS, "endpoints per router, sharing its injection and ejection channels; --rate is per endpoint",
     NULL},
    {&OPT_NODES, "the allocation: only its routers' endpoints send and receive, every router forwards", NULL},
    {&OPT_PATTERN, "a pattern (list below; k-ary: transpose, digit-reverse, ...) or uniform", NULL},
    {&OPT_MATRIX, NULL, NULL},
    {&OPT_VECTOR, NULL, NULL},
    {&OPT_SCATTER, NULL, NULL},
    {&OPT_PAIRS, NULL, NULL},
    {&OPT_COLLECTIVES, NULL, NULL},
    {&OPT_FROM, NULL, NULL},
    {&OPT_TO, NULL, NULL},
    {&OPT_REGION, NULL, NULL},
    {&OPT_MAPPING, "optimal (M-S), set:P1,P2,.. (M-G), or a file of node ids (to_physical)", NULL},
    {&OPT_ROUTING, NULL, NULL},
    {&OPT_VC_RULE, NULL, NULL},
    {&OPT_VCS, NULL, NULL},
    {&OPT_VC_LINK, NULL, NULL},
    {&OPT_TIE,
     "ring tie rule on tori (random: BookSim2's, a direction per message and ring from the seeded stream; drawn "
     "here when the message is made, BookSim2 draws at ring entry)",
     NULL},
    {&OPT_INJ, NULL, NULL},
    {&OPT_EJ, NULL, NULL},
    {&OPT_DEPTH, NULL, NULL},
    {&OPT_RATE, NULL, NULL},
    {&OPT_SWEEP, "offered loads FROM, FROM+STEP, .., TO (at most 1000 points)", NULL},
    {&OPT_NO_STOP, NULL, NULL},
    {&OPT_ONESHOT, NULL, NULL},
    {&OPT_MSG_FLITS, NULL, NULL},
    {&OPT_INJECTION, NULL, NULL},
    {&OPT_SEED, NULL, NULL},
    {&OPT_THREADS, "load points in parallel (default: the cores, at most 8); results do not depend on it", NULL},
    {&OPT_POINT_THREADS, NULL, NULL},
    {&OPT_MAX_MEMORY, "memory budget: fewer threads when the estimate does not fit, refused when one point does "
                      "not (default: the memory available)", NULL},
    {&OPT_MAX_TIME, NULL, NULL},
    {&OPT_WARMUP, NULL, NULL},
    {&OPT_MEASURE, NULL, NULL},
    {&OPT_DRAIN, NULL, NULL},
    {&OPT_WATCHDOG, NULL, NULL},
    {&OPT_ROUTE_DELAY, NULL, NULL},
    {&OPT_SWITCH_DELAY, NULL, NULL},
    {&OPT_LINK_LATENCY, NULL, NULL},
    {&OPT_QUEUE_CAP, NULL, NULL},
    {&OPT_BOOKSIM, NULL, NULL},
    {&OPT_INJECT_LATENCY, NULL, NULL},
    {&OPT_CREDIT_DELAY, NULL, NULL},
    {&OPT_VC_RELEASE, NULL, NULL},
    {&OPT_VA_DELAY, NULL, NULL},
    {&OPT_INJ_VCS, NULL, NULL},
    {&OPT_EJ_VCS, NULL, NULL},
    {&OPT_INPUT_PORT, NULL, NULL},
    {&OPT_ARBITRATION, NULL, NULL},
    {&OPT_SELF_TRAFFIC, NULL, NULL},
    {&OPT_CHANNEL_UTIL, NULL, NULL},
    {&OPT_COMPARE, NULL, NULL},
    {&OPT_CONFIGS, "with --compare: routings, M-S, M-G (lists below) or ROUTING@MAPPING (default "
                   "ecube,M-S,M-G,pcube,duato on the hypercube, dor,M-S,M-G on tori with k a power of two; "
                   "no M-S for uniform traffic or --pairs)", NULL},
    {&OPT_SET, NULL, NULL},
    {&OPT_PLOT, "latency against throughput through gnuplot (.png, .svg, .pdf or .eps), checked before simulating",
     NULL},
    {&OPT_SIZE, NULL, NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_CSV, NULL, NULL},
    {NULL, NULL, NULL},
};

static const cli_alias simulate_aliases[] = {
    {"uniform", &OPT_PATTERN, "uniform", NULL, "the same as --pattern uniform"},
    {NULL, NULL, NULL, NULL, NULL},
};

typedef struct sim_job {
    cli_network net; /* --shape, --wrap, --endpoints, --nodes: the general network user.network points to */
    int net_given;   /* one of them was given */
    int general;     /* and the network is not one of today's (plain, equal sides) */
    kc_simspec user; /* as given: each configuration of a comparison resolves it on its own */
    kc_simspec spec; /* resolved */
    kc_simconfig cfg;
    double loads[KC_SIMSWEEP_MAX_POINTS];
    int nloads, threads, compare, stop;
    const char *plot, *size, *traffic; /* size: --plot's --size, or NULL */
    cli_fmt fmt;
    sim_series ser[MAX_SERIES];
    int ns;
    cli_trace *trace;              /* --pairs names an OTF2 trace (trace_cli.h) */
    uint32_t *pair_src, *pair_dst; /* its messages, the spec's pairs */
} sim_job;

/* ---- resolve ------------------------------------------------------------------ */

static void given_int(const cli_args *a, const cli_opt *o, int *field)
{
    if (cli_given(a, o))
        *field = (int)cli_int(a, o, 0);
}

static void given_i64(const cli_args *a, const cli_opt *o, int64_t *field)
{
    if (cli_given(a, o))
        *field = cli_int(a, o, 0);
}

static void given_choice(const cli_args *a, const cli_opt *o, int *field)
{
    if (cli_given(a, o))
        *field = cli_choice(a, o, 0);
}

/* The general network (network_cli.h) when --network, --shape, --wrap,
 * --endpoints or --nodes is given; else --k, --n and --topology as they always were
 * (kc_simspec_resolve decides their defaults). */
static int resolve_general(const cli_args *a, sim_job *j)
{
    j->net_given = cli_network_given(a);
    j->general = j->net_given;
    if (!j->net_given)
        return 0;
    int r = cli_network_resolve(a, &j->net);
    const kc_topology *t = &j->net.topo;
    if (r || !kc_topology_is_plain(t) || t->k == 0) {
        j->user.network = r ? NULL : t;
        return r;
    }
    /* today's networks however spelled (--topology torus --shape 4x4 is
     * --k 4 --n 2): the plain path, with its output */
    j->general = 0;
    j->user.topo = t->kind == KC_TOPO_HYPERCUBE ? KC_SIM_HYPERCUBE : t->kind == KC_TOPO_TORUS ? KC_SIM_TORUS : KC_SIM_MESH;
    j->user.k = t->k;
    j->user.n = t->n;
    return 0;
}

/* given: the general network's options were given (resolve_general took
 * --k, --n and --topology with them). */
static int resolve_network(const cli_args *a, kc_simspec *u, int given)
{
    kc_err err;
    int rule = u->route.vcrule, tie = (int)u->route.tie;
    if (!given) {
        given_int(a, &OPT_N, &u->n);
        given_int(a, &OPT_K, &u->k);
    }
    if (cli_flag(a, &OPT_BOOKSIM)) { /* the preset first: options given override it */
        u->vcs = 2;
        u->depth = 8;
        tie = (int)KC_SIM_TIE_RANDOM;
    }
    given_int(a, &OPT_VCS, &u->vcs);
    given_int(a, &OPT_INJ, &u->inj);
    given_int(a, &OPT_EJ, &u->ej);
    given_int(a, &OPT_DEPTH, &u->depth);
    given_choice(a, &OPT_VC_RULE, &rule);
    given_choice(a, &OPT_TIE, &tie);
    u->route.vcrule = (kc_simvcrule)rule;
    u->route.tie = (kc_tie)tie;
    /* --topology reads the shared table; the simulator's has the same names */
    if (!given && cli_given(a, &OPT_TOPOLOGY) &&
        kc_simtopo_parse(kc_names_name(&kc_topo_kind_names, cli_choice(a, &OPT_TOPOLOGY, 0)), &u->topo, &err))
        return cli_report(a, &err);
    if (cli_given(a, &OPT_ROUTING) && kc_simalgo_parse(cli_text(a, &OPT_ROUTING, ""), &u->route.algo, &err))
        return cli_report(a, &err);
    return 0;
}

static int resolve_traffic(const cli_args *a, kc_simspec *u)
{
    cli_comms l;
    cli_comms_init(&l, "simulate", 1, 1);
    int r = cli_comm_list(a, &l);
    if (r)
        return r;
    if (l.count) {
        u->pattern = l.spec[0].pattern;
        u->matrix = l.spec[0].matrix;
        u->vector = l.spec[0].vector;
        u->scatter = l.scatter[0];
    }
    u->pairs = cli_text(a, &OPT_PAIRS, NULL);
    if (u->pairs && !strcmp(u->pairs, "-"))
        u->pairs = "/dev/stdin"; /* '-': standard input, through the same strict reader */
    u->mapping = cli_text(a, &OPT_MAPPING, NULL);
    if (!l.count && !u->pairs)
        return cli_error("simulate needs --pattern NAME, --uniform, --matrix M or --pairs FILE");
    if (l.count && u->pairs)
        return cli_error("give only one of --pattern, --uniform, --matrix and --pairs");
    if (u->scatter && !u->matrix)
        return cli_error("--scatter goes with --matrix");
    return 0;
}

/* No size given for --pairs TRACE: the smallest network of the kind asked
 * holding the trace's ranks (map's rule, traffic_cli.h), said in the
 * trace's report. */
static int trace_size(const cli_args *a, sim_job *j)
{
    cli_traffic_info info = {.ranks = cli_trace_ranks(j->trace), .format = "otf2"};
    char how[200];
    snprintf(info.how, sizeof info.how, "an OTF2 trace of %llu ranks", (unsigned long long)info.ranks);
    int r = cli_traffic_infer_n(a, &info, &j->user.n, how, sizeof how);
    if (!r)
        cli_trace_set_inferred(j->trace, how);
    return r;
}

/* --pairs TRACE: its messages (the trace options' window, region and
 * collectives) as the pairs, one a message; else the trace options are
 * refused. */
static int resolve_trace(const cli_args *a, sim_job *j)
{
    kc_simspec *u = &j->user;
    if (!cli_trace_is(u->pairs))
        return cli_trace_refuse(a, u->pairs ? "to a pairs file" : "without --pairs");
    kc_traffic tr;
    kc_err err = {0};
    int r = cli_trace_load(a, u->pairs, &j->trace);
    if (r)
        return r;
    if (kc_traffic_init(&tr, cli_trace_ranks(j->trace), &err))
        return cli_report(a, &err);
    if ((r = cli_trace_traffic(a, j->trace, &tr))) {
        kc_traffic_free(&tr);
        return r;
    }
    j->pair_src = tr.src, j->pair_dst = tr.dst; /* the traffic's arrays, kept */
    tr.src = tr.dst = NULL;
    u->pair_src = j->pair_src, u->pair_dst = j->pair_dst, u->npairs = tr.count;
    kc_traffic_free(&tr);
    if (j->net_given || !u->n)
        return j->net_given ? 0 : trace_size(a, j);
    double nodes = pow(u->k ? u->k : 2, u->n); /* a network of --n: its nodes hold a rank each */
    if (nodes < cli_trace_ranks(j->trace))
        return cli_error("--n %d: the trace's %u ranks do not fit on the network's %.0f nodes (leave --n out: the "
                         "smallest that holds them)", u->n, cli_trace_ranks(j->trace), nodes);
    return 0;
}

/* --booksim's part of the configuration (resolve_network sets its depth,
 * VCs and tie), before the options given. */
static void booksim_preset(const cli_args *a, kc_simconfig *c)
{
    if (!cli_flag(a, &OPT_BOOKSIM))
        return;
    c->route_delay = 2;
    c->switch_delay = 2;
    c->link_latency = 1;
    c->process = KC_INJECT_BERNOULLI;
    c->vc_independent = 0;
    c->queue_cap = 1e6;
    kc_simconfig_booksim(c, cli_given(a, &OPT_VCS) ? (int)cli_int(a, &OPT_VCS, 2) : 2);
}

/* The router-pipeline options (kc_sim_pipeline). */
static void resolve_pipeline(const cli_args *a, kc_simconfig *c)
{
    if (cli_given(a, &OPT_QUEUE_CAP))
        c->queue_cap = cli_real(a, &OPT_QUEUE_CAP, c->queue_cap);
    given_int(a, &OPT_INJECT_LATENCY, &c->inject_latency);
    given_int(a, &OPT_CREDIT_DELAY, &c->credit_delay);
    given_choice(a, &OPT_VC_RELEASE, &c->vc_release);
    given_int(a, &OPT_VA_DELAY, &c->va_delay);
    given_int(a, &OPT_INJ_VCS, &c->inj_vcs);
    given_int(a, &OPT_EJ_VCS, &c->ej_vcs);
    given_choice(a, &OPT_INPUT_PORT, &c->input_port);
    given_choice(a, &OPT_ARBITRATION, &c->arbitration);
    given_choice(a, &OPT_SELF_TRAFFIC, &c->self_traffic);
}

static void resolve_config(const cli_args *a, kc_simconfig *c)
{
    kc_simconfig_default(c);
    booksim_preset(a, c);
    int process = (int)c->process;
    given_int(a, &OPT_MSG_FLITS, &c->msg_flits);
    given_choice(a, &OPT_INJECTION, &process);
    c->process = (kc_siminject)process;
    if (cli_given(a, &OPT_SEED))
        c->seed = cli_u64(a, &OPT_SEED, 0);
    given_i64(a, &OPT_WARMUP, &c->warmup);
    given_i64(a, &OPT_MEASURE, &c->measure);
    given_i64(a, &OPT_DRAIN, &c->drain);
    given_i64(a, &OPT_WATCHDOG, &c->watchdog);
    given_int(a, &OPT_ROUTE_DELAY, &c->route_delay);
    given_int(a, &OPT_SWITCH_DELAY, &c->switch_delay);
    given_int(a, &OPT_LINK_LATENCY, &c->link_latency);
    given_choice(a, &OPT_VC_LINK, &c->vc_independent);
    given_int(a, &OPT_POINT_THREADS, &c->threads);
    c->oneshot = cli_flag(a, &OPT_ONESHOT);
    c->channel_util = cli_flag(a, &OPT_CHANNEL_UTIL);
    resolve_pipeline(a, c);
}

static int resolve_loads(const cli_args *a, sim_job *j)
{
    int rate = cli_given(a, &OPT_RATE), sweep = cli_given(a, &OPT_SWEEP);
    kc_err err;
    if (j->cfg.oneshot && (rate || sweep))
        return cli_error("--oneshot takes no --rate or --sweep");
    if (rate && sweep)
        return cli_error("give --rate or --sweep, not both");
    if (!j->cfg.oneshot && !rate && !sweep)
        return cli_error("simulate needs --rate R, --sweep FROM:TO:STEP or --oneshot");
    if (j->cfg.oneshot && j->user.pattern && !strcmp(j->user.pattern, "uniform"))
        return cli_error("--oneshot needs a pattern or pairs, not uniform traffic");
    if (!sweep) {
        j->loads[0] = rate ? cli_real(a, &OPT_RATE, 0) : 1;
        j->nloads = 1;
    } else {
        const cli_value *v = cli_get(a, &OPT_SWEEP);
        if (kc_simsweep_points(v->v.range.from, v->v.range.to, v->v.range.step, j->loads, &j->nloads, &err))
            return cli_report(a, &err);
    }
    for (int i = 0; i < j->nloads && !j->cfg.oneshot; i++)
        if (j->loads[i] > j->cfg.msg_flits)
            return cli_error("offered load %g is more than one message per cycle", j->loads[i]);
    j->stop = !cli_flag(a, &OPT_NO_STOP);
    return sweep ? 0 : cli_reject(a, &OPT_NO_STOP, "without --sweep (one load point)");
}

/* Options that the resolved network or the mode ignores are refused. */
static int reject_unused(const cli_args *a, const sim_job *j)
{
    int r = 0;
    if (j->spec.topo != KC_SIM_TORUS)
        r = cli_reject(a, &OPT_VC_RULE, "off tori: VC rules split the VCs of a ring (hypercube and meshes have none)");
    if (!r && j->spec.topo != KC_SIM_TORUS)
        r = cli_reject(a, &OPT_TIE, "off tori: only torus rings have ties at distance k/2");
    if (!r && !j->compare)
        r = cli_reject(a, &OPT_CONFIGS, "without --compare");
    if (!r && !j->compare)
        r = cli_reject(a, &OPT_SET, "without --compare");
    return r;
}

static int out_of_memory(void)
{
    fprintf(stderr, "kcube: out of memory\n");
    return CLI_EXIT_FAIL;
}

/* One configuration of a comparison: the user's spec with the routing and
 * mapping the token names (kc_simconf_parse, the one table of names),
 * resolved on its own. */
static int make_series(const cli_args *a, sim_series *s, const char *token, const kc_simspec *user, const char *set)
{
    kc_err err;
    s->spec = *user;
    s->label = strdup(token);
    if (!s->label)
        return out_of_memory();
    if (kc_simconf_parse(token, set, user->mapping, &s->spec.route.algo, &s->mapping, &err))
        return err.status == KC_ENOMEM ? out_of_memory() : cli_report(a, &err);
    s->spec.mapping = s->mapping;
    if (kc_simspec_resolve(&s->spec, NULL, &err))
        return sim_series_report(a, s, &err);
    return 0;
}

/* The configurations compared when --configs is not given: the library's
 * list, less M-S when there is no linear pattern for it to be optimal for
 * (uniform traffic, a pairs file). A new string, or NULL. */
static char *default_configs(const sim_job *j)
{
    const kc_simspec *u = &j->user;
    int linear = !u->pairs && !(u->pattern && !strcmp(u->pattern, "uniform"));
    const char *list = kc_simspec_compare_configs(&j->spec);
    char *out = malloc(strlen(list) + 1);
    if (!out)
        return NULL;
    out[0] = '\0';
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (linear || len != 3 || strncmp(p, "M-S", 3))
            strncat(strcat(out, out[0] ? "," : ""), p, len);
        p += len + (p[len] == ',');
    }
    return out;
}

static int resolve_compare(const cli_args *a, sim_job *j)
{
    char *list = cli_given(a, &OPT_CONFIGS) ? strdup(cli_text(a, &OPT_CONFIGS, "")) : default_configs(j);
    const char *set = cli_text(a, &OPT_SET, kc_simspec_mapping_set(&j->spec));
    int r = list ? 0 : out_of_memory();
    for (char *save = NULL, *tok = list ? strtok_r(list, ",", &save) : NULL; tok && !r;
         tok = strtok_r(NULL, ",", &save)) {
        if (j->ns == MAX_SERIES)
            r = cli_error("--configs: at most %d configurations", MAX_SERIES);
        else
            r = make_series(a, &j->ser[j->ns++], tok, &j->user, set);
    }
    free(list);
    if (!r && !j->ns)
        r = cli_error("--configs lists no configuration");
    return r;
}

static int resolve_single(sim_job *j)
{
    sim_series *s = &j->ser[0];
    const char *m = j->spec.mapping && strcmp(j->spec.mapping, "none") ? j->spec.mapping : NULL;
    const char *algo = kc_simalgo_name(j->spec.route.algo);
    j->ns = 1;
    s->spec = j->spec;
    s->label = m ? sim_strdupf("%s@%s", algo, m) : strdup(algo);
    return s->label ? 0 : out_of_memory();
}

static int resolve(const cli_args *a, sim_job *j)
{
    memset(j, 0, sizeof *j);
    kc_simspec_default(&j->user);
    kc_err err;
    int r = cli_format(a, &j->fmt);
    if (!r)
        r = resolve_general(a, j);
    if (!r)
        r = resolve_network(a, &j->user, j->net_given);
    if (!r)
        r = resolve_traffic(a, &j->user);
    if (!r)
        r = resolve_trace(a, j);
    if (r)
        return r;
    resolve_config(a, &j->cfg);
    j->user.self_traffic = j->cfg.self_traffic;
    j->spec = j->user;
    if (kc_simspec_resolve(&j->spec, &j->cfg, &err))
        return cli_report(a, &err);
    j->compare = cli_flag(a, &OPT_COMPARE);
    j->threads = sim_threads(a, &OPT_THREADS);
    j->plot = cli_text(a, &OPT_PLOT, NULL);
    j->size = cli_text(a, &OPT_SIZE, NULL);
    if (!j->plot && (r = cli_reject(a, &OPT_SIZE, "without --plot")))
        return r;
    j->traffic = j->user.pattern ? j->user.pattern : j->user.matrix ? j->user.matrix : j->user.pairs;
    if ((r = resolve_loads(a, j)) || (r = reject_unused(a, j)))
        return r;
    if (j->plot && (r = cli_plot_usable(j->plot, j->size))) /* the file itself: before the work */
        return r;
    return j->compare ? resolve_compare(a, j) : resolve_single(j);
}

static void job_free(sim_job *j)
{
    for (int s = 0; s < MAX_SERIES; s++)
        sim_series_free(&j->ser[s]);
    cli_network_free(&j->net);
    cli_trace_free(j->trace);
    free(j->pair_src), free(j->pair_dst);
}

/* ---- compute --------------------------------------------------------------- */

static int simulate(const cli_args *a, sim_job *j)
{
    int threads = 1, r = j->plot && cli_writes_output(a) ? cli_check_output(j->plot) : 0; /* before any work */
    if (!r)
        r = sim_plan_memory(a, j->ser, j->ns, 1, &j->cfg, j->loads, j->nloads, j->threads, &threads);
    if (!r)
        r = sim_plan_time(a, j->ser, j->ns, 1, &j->cfg, j->loads, j->nloads, threads);
    /* every configuration is built before the first sweep: bad input fails at once */
    for (int s = 0; s < j->ns && !r; s++)
        r = sim_series_build(a, &j->ser[s]);
    cli_progress_bar prog;
    cli_progress_init(&prog, "simulate");
    kc_simsweep_opts so = {j->loads, j->nloads, threads, j->stop, NULL, NULL};
    for (int s = 0; s < j->ns && !r; s++) {
        cli_progress_cb(&prog, s, j->ns);
        r = sim_series_sweep(a, &j->ser[s], &j->cfg, &so);
    }
    cli_progress_done(&prog);
    return r;
}

/* ---- render ------------------------------------------------------------------ */

static void print_deadlock(const kc_simresult *p, const kc_simnet *net, const char *label, int64_t watchdog)
{
    char buf[64], at[48] = "the one-shot run";
    if (p->offered > 0)
        snprintf(at, sizeof at, "offered load %.4g", p->offered);
    fprintf(stderr, "kcube: deadlock in %s at %s: no flit moved for %lld cycles (cycle %lld); blocked cycle:", label,
            at, (long long)watchdog, (long long)p->cycles);
    for (int i = 0; i < p->cycle_len; i++)
        fprintf(stderr, " %s ->", kc_simnet_channel_name(net, p->cycle[i], buf, sizeof buf));
    if (p->cycle_len)
        fprintf(stderr, " %s\n", kc_simnet_channel_name(net, p->cycle[0], buf, sizeof buf));
    else
        fprintf(stderr, " (not found)\n");
}

/* Every deadlocked point on stderr; 1 if there was one. */
static int report_deadlocks(const sim_job *j)
{
    int any = 0;
    for (int s = 0; s < j->ns; s++)
        for (int i = 0; i < j->ser[s].sweep.count; i++)
            if (j->ser[s].sweep.points[i].deadlock) {
                print_deadlock(&j->ser[s].sweep.points[i], &j->ser[s].sc.net, j->ser[s].label, j->cfg.watchdog);
                any = 1;
            }
    return any;
}

static void json_deadlock(cJSON *o, const kc_simresult *p, const kc_simnet *net)
{
    cJSON_AddBoolToObject(o, "deadlock", p->deadlock);
    if (!p->deadlock)
        return;
    cJSON *c = cJSON_AddArrayToObject(o, "blocked_cycle");
    char buf[64];
    for (int i = 0; i < p->cycle_len; i++)
        cJSON_AddItemToArray(c, cJSON_CreateString(kc_simnet_channel_name(net, p->cycle[i], buf, sizeof buf)));
}

static void json_util(cJSON *o, const kc_simresult *p, const kc_simnet *net, int64_t window)
{
    uint32_t links = net->nodes * (uint32_t)net->ports;
    cli_json_add_int(o, "window_cycles", window);
    cJSON *u = cJSON_AddArrayToObject(o, "link_flits"); /* per link (node * ports + port), in the window */
    for (uint32_t l = 0; l < links; l++)
        cJSON_AddItemToArray(u, cli_json_u64(p->link_flits[l]));
}

static cJSON *point_json(const kc_simresult *p, const kc_simnet *net, const kc_simconfig *cfg)
{
    cJSON *o = cJSON_CreateObject();
    if (!cfg->oneshot)
        cJSON_AddNumberToObject(o, "offered", p->offered);
    cJSON_AddNumberToObject(o, "generated", p->generated);
    cJSON_AddNumberToObject(o, "throughput", p->throughput);
    if (!cfg->oneshot) { /* per source, beside the aggregate (kcube/sim.h "Sustained load") */
        cJSON_AddNumberToObject(o, "source_throughput_min", p->source_throughput_min);
        cJSON_AddNumberToObject(o, "source_ratio_min", p->source_ratio_min);
        cJSON_AddNumberToObject(o, "source_growth_max", p->source_growth_max);
        cli_json_add_u64(o, "sources_judged", p->sources_judged);
        cli_json_add_u64(o, "sources_behind", p->sources_behind);
        if (p->source_worst != KC_SIM_NONE)
            cli_json_add_u64(o, "source_worst", p->source_worst);
    }
    cJSON_AddNumberToObject(o, "latency_avg", p->latency_avg);
    cJSON_AddNumberToObject(o, "latency_p99", p->latency_p99);
    cJSON_AddNumberToObject(o, "network_latency_avg", p->network_latency_avg);
    cJSON_AddBoolToObject(o, "sustainable", p->sustainable);
    cJSON_AddItemToObject(o, "messages", cli_json_u64(p->messages));
    cli_json_add_int(o, "cycles", p->cycles);
    cJSON_AddItemToObject(o, "link_traversals", cli_json_u64(p->link_traversals));
    cJSON_AddNumberToObject(o, "wall_seconds", p->wall_seconds);
    cJSON_AddNumberToObject(o, "queue_avg", p->queue_avg);
    if (cfg->oneshot)
        cli_json_add_int(o, "completion", p->completion);
    json_deadlock(o, p, net);
    if (p->link_flits)
        json_util(o, p, net, cfg->oneshot ? p->cycles : cfg->measure);
    return o;
}

static cJSON *series_json(const sim_job *j, const sim_series *se)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "label", se->label);
    cJSON_AddStringToObject(o, "routing", kc_simalgo_name(se->spec.route.algo));
    if (se->sc.net.topo == KC_SIM_TORUS) {
        cJSON_AddStringToObject(o, "vc_rule", kc_simvcrule_name(se->spec.route.vcrule));
        cJSON_AddStringToObject(o, "tie", kc_names_name(&kc_simtie_names, (int)se->spec.route.tie));
    }
    cli_json_add_int(o, "vcs", se->sc.net.vcs);
    cJSON_AddStringToObject(o, "mapping", se->sc.mapping_desc);
    if (se->sc.contention >= 0)
        cli_json_add_int(o, "contention", se->sc.contention);
    cJSON *pts = cJSON_AddArrayToObject(o, "points");
    for (int i = 0; i < se->sweep.count; i++)
        cJSON_AddItemToArray(pts, point_json(&se->sweep.points[i], &se->sc.net, &j->cfg));
    if (j->nloads > 1) {
        cJSON_AddNumberToObject(o, "saturation_throughput", se->sweep.saturation_throughput);
        cJSON_AddNumberToObject(o, "saturation_source_min", se->sweep.saturation_source_min);
        cJSON_AddBoolToObject(o, "saturated", se->sweep.saturated);
    }
    return o;
}

/* One configuration: its fields at the top level. */
static void hoist(cJSON *root, cJSON *one)
{
    for (cJSON *item = one->child, *next; item; item = next) {
        next = item->next;
        cJSON_AddItemToObject(root, item->string, cJSON_DetachItemViaPointer(one, item));
    }
    cJSON_Delete(one);
}

/* The router-pipeline model's line, when a run leaves the seeds' router. */
static void text_router(const sim_job *j)
{
    const kc_simconfig *c = &j->cfg;
    if (!kc_sim_pipeline(c, &j->spec.route))
        return;
    printf("router    pipeline: R %d (VA %d), S %d, W %d, inject %d, credit delay %d, VC release %s, injection %d VC%s, "
           "ejection %d VC%s, input ports %s, %s, self traffic %s\n",
           c->route_delay, c->va_delay, c->switch_delay, c->link_latency, kc_simconfig_inject_latency(c),
           c->credit_delay, kc_names_name(&kc_simvcrelease_names, c->vc_release), c->inj_vcs ? c->inj_vcs : 1,
           c->inj_vcs ? "s" : " (whole channels)", c->ej_vcs ? c->ej_vcs : 1, c->ej_vcs ? "s" : " (whole channels)",
           kc_names_name(&kc_siminport_names, c->input_port), kc_names_name(&kc_simarb_names, c->arbitration),
           kc_names_name(&kc_simself_names, c->self_traffic));
}

/* The same as JSON: a "router" object. */
static void json_router(cJSON *root, const sim_job *j)
{
    const kc_simconfig *c = &j->cfg;
    if (!kc_sim_pipeline(c, &j->spec.route))
        return;
    cJSON *o = cJSON_AddObjectToObject(root, "router");
    cJSON_AddStringToObject(o, "model", "pipeline");
    int v[] = {c->route_delay, c->va_delay, c->switch_delay, c->link_latency, kc_simconfig_inject_latency(c),
               c->credit_delay, c->inj_vcs, c->ej_vcs};
    const char *names[] = {"route_delay", "va_delay", "switch_delay", "link_latency", "inject_latency",
                           "credit_delay", "inj_vcs", "ej_vcs"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        cli_json_add_int(o, names[i], v[i]);
    cJSON_AddStringToObject(o, "vc_release", kc_names_name(&kc_simvcrelease_names, c->vc_release));
    cJSON_AddStringToObject(o, "input_port", kc_names_name(&kc_siminport_names, c->input_port));
    cJSON_AddStringToObject(o, "arbitration", kc_names_name(&kc_simarb_names, c->arbitration));
    cJSON_AddStringToObject(o, "self_traffic", kc_names_name(&kc_simself_names, c->self_traffic));
}

static int render_json(const sim_job *j)
{
    const kc_simnet *net0 = &j->ser[0].sc.net;
    cJSON *root = cJSON_CreateObject(), *net = cJSON_AddObjectToObject(root, "network");
    cJSON_AddStringToObject(net, "topology", kc_simtopo_name(net0->topo));
    cli_json_add_int(net, "k", net0->k);
    cli_json_add_int(net, "n", net0->n);
    cli_json_add_u64(net, "nodes", net0->nodes);
    if (j->general)
        cli_network_json(net, &j->net.topo);
    cli_json_add_int(net, "depth", j->spec.depth);
    cli_json_add_u64(net, "msg_flits", j->cfg.msg_flits);
    cJSON_AddStringToObject(root, "pattern", j->traffic);
    cli_json_add_u64(root, "seed", j->cfg.seed);
    json_router(root, j);
    if (j->trace)
        cli_trace_json(root, j->trace);
    if (!j->compare) {
        hoist(root, series_json(j, &j->ser[0]));
        return cli_print_json(root);
    }
    cJSON *arr = cJSON_AddArrayToObject(root, "series");
    for (int s = 0; s < j->ns; s++)
        cJSON_AddItemToArray(arr, series_json(j, &j->ser[s]));
    return cli_print_json(root);
}

static int render_csv(const sim_job *j)
{
    int oneshot = j->cfg.oneshot;
    printf("series,offered,generated,throughput,latency_avg,latency_p99,network_latency_avg,sustainable,"
           "messages,cycles,link_traversals,wall_seconds,source_throughput_min,source_ratio_min,sources_behind%s\n",
           oneshot ? ",completion" : "");
    for (int s = 0; s < j->ns; s++)
        for (int i = 0; i < j->ser[s].sweep.count; i++) {
            const kc_simresult *p = &j->ser[s].sweep.points[i];
            cli_csv_field(stdout, j->ser[s].label); /* labels hold file names: RFC 4180 quoting */
            printf(",%.4f,%.6f,%.6f,%.3f,%.0f,%.3f,%d,%llu,%lld,%llu,%.4f",
                   oneshot ? 0.0 : p->offered, p->generated, p->throughput, p->latency_avg, p->latency_p99,
                   p->network_latency_avg, p->sustainable, (unsigned long long)p->messages, (long long)p->cycles,
                   (unsigned long long)p->link_traversals, p->wall_seconds);
            printf(",%.6f,%.4f,%u", p->source_throughput_min, p->source_ratio_min, p->sources_behind);
            if (oneshot)
                printf(",%lld", (long long)p->completion);
            printf("\n");
        }
    if (j->trace)
        cli_trace_csv(stdout, j->trace);
    return CLI_EXIT_OK;
}

static void print_util(const kc_simresult *p, const kc_simnet *net, int64_t window)
{
    uint32_t links = net->nodes * (uint32_t)net->ports, used = 0;
    uint64_t max = 0, sum = 0;
    for (uint32_t l = 0; l < links; l++)
        if (net->next_node[l] != KC_SIM_NONE) {
            used++;
            sum += p->link_flits[l];
            max = p->link_flits[l] > max ? p->link_flits[l] : max;
        }
    printf("  link utilisation: mean %.4f, max %.4f flits/cycle over %u links; busiest:",
           used ? (double)sum / used / (double)window : 0.0, (double)max / (double)window, used);
    for (uint32_t l = 0, shown = 0; l < links && shown < 5; l++)
        if (max && p->link_flits[l] == max) {
            char buf[64];
            printf(" %s", kc_simnet_channel_name(net, l * (uint32_t)net->vcs, buf, sizeof buf));
            shown++;
        }
    printf("\n");
}

static void text_points(const sim_job *j, const sim_series *se)
{
    /* src_min, src_ratio: the lowest accepted throughput and accepted / generated of one source */
    printf("  %8s %9s %10s %8s %9s %10s %8s %10s %4s %9s %12s %7s\n", "offered", "generated", "throughput", "src_min",
           "src_ratio", "latency", "p99", "net_lat", "ok", "cycles", "traversals", "wall_s");
    printf("  %29s %8s %9s %10s %8s %10s %4s %9s %12s %7s\n", "(flits/node/cycle)", "(f/n/c)", "(ratio)",
           "(cycles)", "(cycles)", "(cycles)", "", "(cycles)", "(flit hops)", "(s)");
    for (int i = 0; i < se->sweep.count; i++) {
        const kc_simresult *p = &se->sweep.points[i];
        printf("  %8.4f %9.4f %10.4f %8.4f %9.3f %10.2f %8.0f %10.2f %4s %9lld %12llu %7.3f\n", p->offered,
               p->generated, p->throughput, p->source_throughput_min, p->source_ratio_min, p->latency_avg,
               p->latency_p99, p->network_latency_avg, p->sustainable ? "yes" : "NO", (long long)p->cycles,
               (unsigned long long)p->link_traversals, p->wall_seconds);
        if (!p->sustainable && p->sources_behind)
            printf("  %u of %u sources fell behind (source %u accepted %.1f%% of its flits)\n", p->sources_behind,
                   p->sources_judged, p->source_worst, 100 * p->source_ratio_min);
        if (p->link_flits)
            print_util(p, &se->sc.net, j->cfg.measure);
    }
    if (j->nloads > 1)
        printf("  saturation throughput %.4f (lowest source %.4f)%s\n", se->sweep.saturation_throughput,
               se->sweep.saturation_source_min, se->sweep.saturated ? "" : " (not saturated in the sweep)");
}

static void text_series(const sim_job *j, const sim_series *se)
{
    printf("\n[%s] routing %s", se->label, kc_simalgo_name(se->spec.route.algo));
    if (se->sc.net.topo == KC_SIM_TORUS)
        printf(" (%s VCs, ties %s)", kc_simvcrule_name(se->spec.route.vcrule),
               kc_names_name(&kc_simtie_names, (int)se->spec.route.tie));
    printf(", %d VC%s/link, mapping %s", se->sc.net.vcs, se->sc.net.vcs == 1 ? "" : "s", se->sc.mapping_desc);
    if (se->sc.contention >= 0)
        printf(", channel contention %lld", se->sc.contention);
    printf("\n");
    if (!j->cfg.oneshot) {
        text_points(j, se);
        return;
    }
    const kc_simresult *p = &se->sweep.points[0];
    if (p->deadlock) /* no completion, no latency: say what happened (the cycle is on stderr) */
        printf("  one-shot: deadlock at cycle %lld, %llu messages delivered before it\n", (long long)p->cycles,
               (unsigned long long)p->messages);
    else
        printf("  one-shot: %llu messages, last tail arrives at cycle %lld, latency avg %.2f max %.0f\n",
               (unsigned long long)p->messages, (long long)p->completion, p->latency_avg, p->latency_p99);
}

/* The network line of a general network: its description (shape, wraps,
 * endpoints, allocation), routers and the job's endpoints. */
static void text_general(const sim_job *j, const kc_simnet *net0)
{
    char name[160];
    uint64_t S = kc_simnet_slots(net0);
    printf("network   %s (%u routers, %llu endpoint%s in the job), %d-flit messages, buffers of %d flit%s\n",
           kc_topology_format(&j->net.topo, name, sizeof name), net0->nodes, (unsigned long long)S, S == 1 ? "" : "s",
           j->cfg.msg_flits, j->spec.depth, j->spec.depth == 1 ? "" : "s");
}

static int render_text(const sim_job *j)
{
    const kc_simnet *net0 = &j->ser[0].sc.net;
    if (j->trace)
        cli_trace_text(stdout, j->trace);
    if (j->general)
        text_general(j, net0);
    else
        printf("network   %s, k = %d, n = %d (%u nodes), %d-flit messages, buffers of %d flit%s\n",
               kc_simtopo_name(net0->topo), net0->k, net0->n, net0->nodes, j->cfg.msg_flits, j->spec.depth,
               j->spec.depth == 1 ? "" : "s");
    if (j->cfg.oneshot)
        printf("traffic   %s, one-shot: one message per pair at cycle 0, seed %llu\n", j->traffic,
               (unsigned long long)j->cfg.seed);
    else
        printf("traffic   %s, %s injection, seed %llu\n", j->traffic, sim_injection_name(j->cfg.process),
               (unsigned long long)j->cfg.seed);
    text_router(j);
    for (int s = 0; s < j->ns; s++)
        text_series(j, &j->ser[s]);
    return CLI_EXIT_OK;
}

/* Average latency against accepted throughput, sustainable points only. */
static int render_plot(const sim_job *j)
{
    cli_plot_series ps[MAX_SERIES];
    double *xy = malloc(sizeof *xy * 2 * MAX_SERIES * (size_t)j->nloads);
    if (!xy)
        return out_of_memory();
    for (int s = 0; s < j->ns; s++) {
        double *thr = xy + (size_t)(2 * s) * (size_t)j->nloads, *lat = thr + j->nloads;
        int m = 0;
        for (int i = 0; i < j->ser[s].sweep.count; i++)
            if (j->ser[s].sweep.points[i].sustainable) {
                thr[m] = j->ser[s].sweep.points[i].throughput;
                lat[m++] = j->ser[s].sweep.points[i].latency_avg;
            }
        ps[s] = (cli_plot_series){j->ser[s].label, m, thr, lat};
    }
    const kc_simnet *net0 = &j->ser[0].sc.net;
    char *title = sim_strdupf("%s on the %s k=%d n=%d: %d-flit messages, %d-flit buffers",
                              j->user.pattern ? j->user.pattern : "traffic", kc_simtopo_name(net0->topo), net0->k,
                              net0->n, j->cfg.msg_flits, net0->depth);
    char *sub = sim_strdupf("kcube simulate; %s injection, seed %llu",
                            sim_injection_name(j->cfg.process),
                            (unsigned long long)j->cfg.seed);
    int r = title && sub ? cli_plot_latency(j->plot, j->size, title, sub, ps, j->ns) : out_of_memory();
    free(title);
    free(sub);
    free(xy);
    return r;
}

/* ---- the command --------------------------------------------------------------- */

static int check(const cli_args *a)
{
    sim_job *j = malloc(sizeof *j);
    int r = j ? resolve(a, j) : out_of_memory();
    if (j)
        job_free(j);
    free(j);
    return r;
}

static int run(const cli_args *a)
{
    sim_job *j = malloc(sizeof *j);
    int r = j ? resolve(a, j) : out_of_memory();
    if (!r)
        r = simulate(a, j);
    int deadlocked = !r && report_deadlocks(j), out = cli_writes_output(a); /* 0: a kcube-mpi helper */
    if (!r && out)
        r = j->fmt == CLI_FMT_JSON ? render_json(j) : j->fmt == CLI_FMT_CSV ? render_csv(j) : render_text(j);
    if (!r && j->plot && out)
        r = render_plot(j);
    if (!r && deadlocked)
        r = CLI_EXIT_FAIL;
    if (j)
        job_free(j);
    free(j);
    return r;
}

static void more_help(FILE *out)
{
    fputs("routings (--routing, --configs):\n", out);
    for (const kc_name *e = kc_simalgo_names.entries; e->name; e++)
        if (e->help)
            fprintf(out, "  %-22s %s\n", e->name, e->help);
    fputs("  aliases:", out);
    const char *sep = " ";
    for (const kc_name *e = kc_simalgo_names.entries; e->name; e++)
        if (!e->help) {
            fprintf(out, "%s%s = %s", sep, e->name, kc_simalgo_name((kc_simalgo)e->value));
            sep = ", ";
        }
    fputs("\n\nmore configurations (--configs; a routing above is one too, ROUTING@MAPPING with a mapping):\n",
          out);
    for (const kc_simconf_def *d = kc_simconf_defs; d->name; d++) {
        char names[64];
        int len = snprintf(names, sizeof names, "%s", d->name);
        for (int i = 0; d->aliases[i] && len > 0 && (size_t)len < sizeof names; i++)
            len += snprintf(names + len, sizeof names - (size_t)len, ", %s", d->aliases[i]);
        fprintf(out, "  %-22s %s\n", names, d->help);
    }
    fputc('\n', out);
    cli_print_patterns(out);
}

const cli_command kc_command_simulate = {
    .name = "simulate",
    .summary = "flit-level wormhole simulation: latency and throughput",
    .order = 40,
    .description =
        "Flit-level wormhole simulation (seed 000 Section 6, seed 002 Section 4): one-flit buffers, a header that\n"
        "cannot advance blocks its worm in place, first-come arbitration, lowest free dimension first for adaptive\n"
        "choices, Poisson injection at R flits/node/cycle. Latency counts from generation (source queueing\n"
        "included) to the arrival of the tail; throughput is flits delivered per node per cycle. A load is\n"
        "sustainable only if every source keeps up: it gets at least 97% of its flits through (up to 4 messages)\n"
        "or its source queue keeps coming back down (src_min, src_ratio: the worst source). Zero-load latency\n"
        "is H(R+S+W) + R + S + L + 1 for H hops (R, S, W: --route-delay, --switch-delay, --link-latency).\n"
        "Give one traffic (--pattern, --uniform, --matrix or --pairs) and one of --rate, --sweep or --oneshot.\n"
        "Messages to oneself are not injected: fixed points of a pattern send nothing and uniform traffic picks\n"
        "among the other nodes. Every default that depends on the topology comes from kc_simspec_resolve.",
    .opts = simulate_opts,
    .aliases = simulate_aliases,
    .check = check,
    .run = run,
    .more_help = more_help,
    .epilog = "examples:\n"
              "  kcube simulate --n 8 --pattern transpose --sweep 0.01:0.3:0.01\n"
              "  kcube simulate --n 8 --pattern transpose --mapping optimal --rate 0.5 --json\n"
              "  kcube simulate --n 8 --pattern bit-reverse --compare --sweep 0.02:1:0.02 --plot fig6.png\n"
              "  kcube simulate --k 4 --n 4 --pattern transpose --mapping set:transpose,digit-reverse --sweep "
              "0.025:0.6:0.025",
};
