/* kcube fft-study: seed 000 Section 6.2's parallel FFT (kc_goal_gen_fft)
 * replayed on the flit-level network (kcube/appsim.h) for several sizes and
 * routing configurations. options -> resolve (sizes and configurations; the
 * plot and schedule file names checked) -> compute (one generated schedule
 * per size and configuration, replayed) -> render (text, JSON, CSV, plot).
 * `check` stops after resolve. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "budget.h"
#include "budget_rates.h"
#include "core/grow.h"
#include "core/size.h"
#include "options.h"
#include "out.h"
#include "plot.h"
#include "seeds.h"
#include "kcube/appsim.h"
#include "kcube/goal.h"
#include "kcube/lcc.h"
#include "kcube/mapgeneral.h"
#include "kcube/reorder.h"
#include "kcube/simscenario.h"
#include "kcube/traffic.h"
#include "network_cli.h"
#include "replay_network.h"

/* ---- options ---------------------------------------------------------------- */

static const cli_opt OPT_POINTS = {.name = "points", .type = CLI_TEXT, .meta = "LIST",
                                   .help = "FFT sizes m, comma-separated (4096 or 2^12); m = 2^(n+2d), d >= 1",
                                   .param = "points"};

static const cli_use fft_opts[] = {
    {&OPT_N, "dimensions of the binary cube (1..16; 2^N processors); with --k or --topology the network's axes",
     NULL},
    {&OPT_K, "nodes per dimension of a torus or mesh (the FFT then runs on a general network)", NULL},
    {&OPT_TOPOLOGY, "hypercube (the default), torus or mesh", NULL},
    {&OPT_SHAPE, NULL, NULL},
    {&OPT_WRAP, NULL, NULL},
    {&OPT_NETWORK, NULL, NULL},
    {&OPT_ENDPOINTS, "endpoints per router: the FFT's rank r on slot r", NULL},
    {&OPT_NODES, NULL, NULL},
    {&OPT_POINTS, NULL, NULL},
    {&OPT_CONFIGS, "routings ecube, pcube, li-min, duato, and M-S (simulate's name: ecube with the optimal mapping "
                   "for the pattern, here the bit-reverse's); on other networks dor, M-S (the general mapper's "
                   "mapping of the FFT) and duato, default dor,M-S", "ecube,M-S,pcube,li-min"},
    {&OPT_STARTUP, "software start-up per message, charged to the sender (µs; the default is the nCUBE 2's)", NULL},
    {&OPT_BYTE_TIME, "channel time per byte (µs; the default is the nCUBE 2's)", NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_CSV, "one row per size and configuration", NULL},
    {&OPT_PLOT, "total time against m, one curve per configuration (.png, .svg, .pdf or .eps)", NULL},
    {&OPT_SIZE, NULL, NULL},
    {&OPT_EMIT_GOAL, "write the schedule of the first size and configuration (GOAL)", NULL},
    {&OPT_MAX_TIME, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL},
    {NULL, NULL, NULL},
};

/* A configuration: a routing of the simulator, or M-S, the name simulate
 * and figures give the optimal mapping for the pattern under deterministic
 * routing (here the bit-reverse's optimal reordering, kcube/simscenario.h
 * kc_simconf_defs). */
enum { CONF_ECUBE, CONF_MAPPED, CONF_PCUBE, CONF_LIMIN, CONF_DUATO, CONF_DOR };
static const kc_name conf_entries[] = {
    {CONF_ECUBE, "ecube", "e-cube routing, rank r on node r"},
    {CONF_MAPPED, "M-S", "e-cube, ranks moved by the optimal reordering of the bit-reverse (also ms, Map-S; "
                         "old spelling ecube+mapping); on other networks dor, ranks placed by the general mapper"},
    {CONF_PCUBE, "pcube", "P-cube adaptive routing"},
    {CONF_LIMIN, "li-min", "Li's minimal routing (a reconstruction, docs/sim.md)"},
    {CONF_DUATO, "duato", "Duato's adaptive routing (2 VCs)"},
    {CONF_DOR, "dor", "dimension-order routing, rank r on slot r (networks other than the binary cube)"},
    {0, NULL, NULL},
};
static const kc_names conf_names = {"configuration", conf_entries};
static const char *const conf_algo[] = {"ecube", "ecube", "pcube", "li-min", "duato", "dor"};

#define FFT_MAX_N 16       /* 2^16 ranks: beyond that a study takes too long to be useful */
#define FFT_MAX_LOG_M 40   /* kc_goal_gen_fft's bound on n + 2d */
#define FFT_BUTTERFLY_NS 5120
#define FFT_HALF_NS 4470
#define FFT_MAP_SECONDS 2.0 /* the general mapper's default budget (1 s) and its starts, for the gate */

/* ---- resolve ------------------------------------------------------------------ */

typedef struct fft_job {
    int n;               /* the FFT's 2^n ranks (the cube's dimensions on the binary cube) */
    int general;         /* a network other than the plain binary n-cube: ranks on its slots */
    cli_network net;     /* general: the network */
    uint32_t *unmapped;  /* general: [2^n] rank r's endpoint, slot r's */
    uint32_t *mapped;    /* general, with M-S: rank r's endpoint by the general mapper (compute fills it) */
    cli_fmt fmt;
    int *logm; /* sizes as log2 m */
    size_t npoints;
    int *conf;
    size_t nconfs;
    kc_appsim_opts opts;
    const char *plot, *size, *emit;
} fft_job;

static void job_free(fft_job *j)
{
    free(j->logm);
    free(j->conf);
    free(j->unmapped);
    free(j->mapped);
    if (j->general)
        cli_network_free(&j->net);
}

static int out_of_memory(void)
{
    fprintf(stderr, "kcube: out of memory\n");
    return CLI_EXIT_FAIL;
}

static int push_int(int **v, size_t *count, int x)
{
    if (KCI_RESIZE(*v, *count + 1))
        return out_of_memory();
    (*v)[(*count)++] = x;
    return 0;
}

/* One size: "2^K" or a decimal power of two; *end after it. */
static int parse_point(const char *s, const char **end, int n, int *logm)
{
    char *e;
    int lg = -1;
    errno = 0;
    e = (char *)s; /* strtoull takes '+' and spaces, which no whole number here has */
    if (s[0] == '2' && s[1] == '^' && s[2] >= '0' && s[2] <= '9') {
        unsigned long long k = strtoull(s + 2, &e, 10);
        if (e != s + 2 && !errno && k <= 63)
            lg = (int)k;
    } else if (s[0] >= '0' && s[0] <= '9') {
        unsigned long long m = strtoull(s, &e, 10);
        if (e != s && !errno && m && !(m & (m - 1))) {
            int b = 0;
            while ((1ull << b) != m)
                b++;
            lg = b;
        }
    }
    size_t len = strcspn(s, ",");
    *end = s + len;
    if (lg < 0 || e != *end)
        return cli_error("--points: '%.*s' is not a power of two (give 4096 or 2^12)", (int)(len > 40 ? 40 : len),
                         s);
    if (lg < n + 2 || (lg - n) % 2 || lg > FFT_MAX_LOG_M)
        return cli_error("--points: m = 2^%d is not 2^(n + 2d) with d >= 1 and n + 2d <= %d for n = %d", lg,
                         FFT_MAX_LOG_M, n);
    *logm = lg;
    return 0;
}

static int resolve_points(const cli_args *a, fft_job *j)
{
    const char *s = cli_text(a, &OPT_POINTS, NULL);
    int r = 0;
    if (!s) { /* the valid sizes from 2^10 to 2^14 */
        for (int lg = j->n + 2; lg <= 14 && !r; lg += 2)
            if (lg >= 10)
                r = push_int(&j->logm, &j->npoints, lg);
        if (!r && !j->npoints)
            return cli_error("--n %d: no size 2^(n + 2d) between 2^10 and 2^14; give --points", j->n);
        return r;
    }
    while (*s && !r) {
        const char *end;
        int lg = 0;
        if (!(r = parse_point(s, &end, j->n, &lg)))
            r = push_int(&j->logm, &j->npoints, lg);
        s = *end ? end + 1 : end;
    }
    if (!r && !j->npoints)
        r = cli_error("--points lists no size");
    return r;
}

/* A name of simulate's mapped configurations (kc_simconf_find: M-S and its
 * aliases) or the old spelling ecube+mapping: *c = CONF_MAPPED and 0; M-G
 * (a set of patterns) does not apply: 2 after one line; any other name: -1. */
static int mapped_config(const char *tok, int *c)
{
    const kc_simconf_def *d = kc_simconf_find(tok);
    if (d && d->map == KC_SIMCONF_MAP_SET)
        return cli_error("--configs: %s maps for a set of patterns; the FFT has one, the bit-reverse: give M-S", tok);
    if ((d && d->map == KC_SIMCONF_MAP_OPTIMAL) || !strcmp(tok, "ecube+mapping")) {
        *c = CONF_MAPPED;
        return 0;
    }
    return -1;
}

/* A configuration that cannot run on the job's network: 2 after one line. */
static int config_fits(const fft_job *j, int c)
{
    int cube_only = c == CONF_ECUBE || c == CONF_PCUBE || c == CONF_LIMIN;
    if (j->general && !kc_topology_is_binary(&j->net.topo) && cube_only)
        return cli_error("--configs: %s needs every side 2 (a binary cube); on this network give dor, M-S or duato",
                         kc_names_name(&conf_names, c));
    if (!j->general && c == CONF_DOR)
        return cli_error("--configs: dor is for other networks; the binary cube's dimension order is ecube");
    return 0;
}

static int resolve_configs(const cli_args *a, fft_job *j)
{
    const char *s = j->general && !cli_given(a, &OPT_CONFIGS) ? "dor,M-S" : cli_text(a, &OPT_CONFIGS, NULL);
    int r = 0;
    while (*s && !r) {
        size_t len = strcspn(s, ",");
        char *tok = strndup(s, len);
        int c;
        kc_err err = {0};
        if (!tok)
            r = out_of_memory();
        else if ((r = mapped_config(tok, &c)) < 0)
            r = kc_names_lookup(&conf_names, tok, &c, "configs", &err) ? cli_report(a, &err) : 0;
        if (!r && !(r = config_fits(j, c)))
            r = push_int(&j->conf, &j->nconfs, c);
        free(tok);
        s += len;
        if (*s)
            s++;
    }
    if (!r && !j->nconfs)
        r = cli_error("--configs lists no configuration");
    return r;
}

/* The FFT's ranks on a general network: 2^n, the largest power of two
 * that fits its slots (at most 2^FFT_MAX_N), rank r on slot r. */
static int resolve_general(const cli_args *a, fft_job *j)
{
    const kc_topology *t = &j->net.topo;
    if (t->nodes > KC_SIMNET_MAX_NODES)
        return cli_error("the network has more than %u routers", KC_SIMNET_MAX_NODES);
    uint64_t slots = kc_topology_slots(t);
    while (j->n < FFT_MAX_N && (2ull << j->n) <= slots)
        j->n++;
    if (!j->n)
        return cli_error("the FFT needs at least 2 slots; the network has %llu", (unsigned long long)slots);
    return cli_replay_place(a, t, 1u << j->n, 1, NULL, &j->unmapped);
}

/* The binary cube of --n, or with --k, --topology or a general network
 * option the network cli_network_resolve describes (the plain binary
 * cube that way is the same run). */
static int resolve_network(const cli_args *a, fft_job *j)
{
    if (cli_network_given(a) || cli_given(a, &OPT_K) || cli_given(a, &OPT_TOPOLOGY)) {
        int r = cli_network_resolve(a, &j->net);
        j->general = 1; /* cli_network_free is safe on what resolve left */
        if (r)
            return r;
        if (!kc_topology_is_binary(&j->net.topo) || !kc_topology_is_plain(&j->net.topo))
            return resolve_general(a, j);
        cli_network_free(&j->net);
        j->general = 0;
    } else if (!cli_given(a, &OPT_N)) {
        return cli_error("fft-study needs --n N");
    }
    j->n = (int)cli_int(a, &OPT_N, 0);
    if (j->n > FFT_MAX_N)
        return cli_error("--n: at most %d", FFT_MAX_N);
    return 0;
}

static int resolve(const cli_args *a, fft_job *j)
{
    memset(j, 0, sizeof *j);
    int r = cli_format(a, &j->fmt);
    if (r)
        return r;
    if ((r = resolve_network(a, j)))
        return r;
    j->opts = (kc_appsim_opts){cli_real(a, &OPT_STARTUP, 164), cli_real(a, &OPT_BYTE_TIME, 0.57), 1, NULL};
    if (j->opts.byte_time_us <= 0)
        return cli_error("--byte-time: must be positive (it is the flit-cycle)");
    if ((r = resolve_points(a, j)) || (r = resolve_configs(a, j)))
        return r;
    j->plot = cli_text(a, &OPT_PLOT, NULL);
    j->emit = cli_text(a, &OPT_EMIT_GOAL, NULL);
    j->size = cli_text(a, &OPT_SIZE, NULL);
    if (!j->plot && (r = cli_reject(a, &OPT_SIZE, "without --plot")))
        return r;
    if (j->plot && (r = cli_plot_check_sized(j->plot, j->size)))
        return r;
    if (j->emit && (r = cli_check_output(j->emit)))
        return r;
    return 0;
}

/* ---- compute ------------------------------------------------------------------ */

/* The programme as generated (no barrier: phases overlap across nodes), and
 * its two parts replayed apart (a barrier after the bit-reverse). */
typedef struct fft_row {
    double bitrev, neighbour, compute, total;
    double bitrev_apart, rest_apart;
} fft_row;

static uint32_t phase_of(const kc_goal *g, const char *name)
{
    for (uint32_t i = 0; i < g->nphases; i++)
        if (!strcmp(kc_goal_phase_name(g, i), name))
            return i;
    return 0;
}

/* Rank v moves to the node the optimal reordering of the bit-reverse gives it
 * (a reordering: the neighbour exchanges stay one hop). */
static kc_status map_bitrev(kc_goal *g, int n, kc_err *err)
{
    kc_lcc br;
    kc_order best;
    kc_status st = kc_lcc_named(&br, "bit-reverse", n, err);
    if (st || (st = kc_reorder_optimal(&br, &best, err)))
        return st;
    uint32_t *to = malloc(((size_t)1 << n) * sizeof *to);
    if (!to)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint64_t v = 0; v < (1ull << n); v++)
        to[v] = (uint32_t)kc_order_to_physical(&best, v);
    st = kc_goal_remap(g, to, err);
    free(to);
    return st;
}

static kc_status gen(const fft_job *j, int logm, int conf, unsigned parts, kc_goal *g, kc_err *err)
{
    kc_status st = kc_goal_init(g, 1u << j->n, err);
    if (st)
        return st;
    if ((st = kc_goal_gen_fft_parts(g, j->n, (logm - j->n) / 2, FFT_BUTTERFLY_NS, FFT_HALF_NS, parts, err)) ||
        (conf == CONF_MAPPED && !j->general && (st = map_bitrev(g, j->n, err))))
        kc_goal_free(g);
    return st;
}

static kc_status emit_goal(const kc_goal *g, const char *path, int *rc, kc_err *err)
{
    cli_atomic at;
    if ((*rc = cli_atomic_open(&at, path)))
        return KC_OK;
    kc_status st = kc_goal_write(g, at.f, err);
    if (st && st != KC_EIO) {
        cli_atomic_abort(&at);
        return st;
    }
    /* A failed write is reported by the commit: path and reason, one line. */
    *rc = cli_atomic_commit(&at);
    return KC_OK;
}

/* The general mapper's mapping of the FFT's traffic (every send of the
 * first size's schedule, its phases counted apart) onto the slots: rank
 * r's endpoint into j->mapped. Every size sends the same messages scaled
 * alike, so one mapping serves them all. Costs kc_mapgen_run's default
 * budget (about a second) plus its starts. */
static kc_status map_general(fft_job *j, kc_err *err)
{
    const kc_topology *t = &j->net.topo;
    uint32_t ranks = 1u << j->n;
    kc_goal g;
    kc_traffic tr = {0};
    kc_mapgen_result res = {0};
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    kc_status st = gen(j, j->logm[0], CONF_ECUBE, KC_GOAL_FFT_ALL, &g, err);
    if (st)
        return st;
    if (!(st = kc_traffic_init(&tr, kc_topology_slots(t), err)) && !(st = kc_traffic_from_goal(&tr, &g, err))) {
        o.search.group = tr.group;
        o.search.groups = tr.groups;
        o.search.separate = tr.groups > 1;
        st = kc_mapgen_run(t, &tr, NULL, 0, &o, &res, err);
    }
    j->mapped = st ? NULL : malloc((size_t)ranks * sizeof *j->mapped);
    if (!st && !j->mapped)
        st = kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint32_t r = 0; !st && r < ranks; r++) /* the mapping permutes slots: their endpoints */
        j->mapped[r] = (uint32_t)kc_topology_slot_endpoint(t, res.search.to_physical[r]);
    kc_mapgen_result_free(&res);
    kc_traffic_free(&tr);
    kc_goal_free(&g);
    return st;
}

/* The spec of one run: the binary cube, or the general network. */
static void run_spec(const fft_job *j, kc_simspec *spec)
{
    kc_simspec_default(spec);
    if (j->general)
        spec->network = &j->net.topo;
    else
        spec->n = j->n;
    spec->pattern = "uniform"; /* the schedule is the traffic */
}

static kc_status run_one(const fft_job *j, const kc_goal *g, int conf, fft_row *row, kc_err *err)
{
    kc_simspec spec;
    kc_simconfig cfg;
    run_spec(j, &spec);
    kc_simconfig_default(&cfg);
    /* M-S routes as the configuration it is compared with */
    const char *algo = j->general && conf == CONF_MAPPED ? conf_algo[CONF_DOR] : conf_algo[conf];
    kc_status st = kc_simalgo_parse(algo, &spec.route.algo, err);
    if (st || (st = kc_simspec_resolve(&spec, &cfg, err)))
        return st;
    kc_simscenario sc;
    if ((st = kc_simscenario_build(&sc, &spec, err)))
        return st;
    kc_goal_match m;
    kc_appsim_result r;
    /* on a general network rank r runs on its slot's or the mapper's endpoint, on
     * the binary cube on node r; the hops are kc_topology_route's either way */
    kc_topology cube;
    kc_appsim_place pl = {1, NULL, &j->net.topo};
    if (j->general)
        pl.node_of = conf == CONF_MAPPED ? j->mapped : j->unmapped;
    else if ((st = kc_topology_hypercube(&cube, j->n, err)) == KC_OK)
        pl.topo = &cube;
    if (!st && !(st = kc_goal_validate(g, j->general ? 0 : sc.net.nodes, &m, err))) {
        st = kc_appsim_run_placed(g, &m, &sc.net, &sc.route, &cfg, &j->opts, &pl, NULL, &r, err);
        kc_goal_match_free(&m);
    }
    if (!st) {
        if (r.sim.deadlock)
            st = kc_fail(err, KC_EINTERNAL, "the network deadlocked under %s", algo);
        *row = (fft_row){r.phase_us[phase_of(g, "bit-reverse")], r.phase_us[phase_of(g, "neighbour")],
                         r.compute_us, r.total_us, 0, 0};
        kc_appsim_result_free(&r);
    }
    kc_simscenario_free(&sc);
    return st;
}

/* The makespan of one part of the programme replayed alone. */
static kc_status run_part(const fft_job *j, int logm, int conf, unsigned parts, double *total_us, kc_err *err)
{
    kc_goal g;
    fft_row row;
    kc_status st = gen(j, logm, conf, parts, &g, err);
    if (st)
        return st;
    st = run_one(j, &g, conf, &row, err);
    kc_goal_free(&g);
    *total_us = row.total;
    return st;
}

static kc_status compute_rows(const fft_job *j, fft_row *rows, int *rc, cli_progress_bar *prog, kc_err *err);

/* rows[p * nconfs + c]. *rc: an exit status of writing the schedule file.
 * On a general network with M-S the mapping is made first. */
static kc_status compute(fft_job *j, fft_row *rows, int *rc, kc_err *err)
{
    *rc = 0;
    kc_status st0 = KC_OK;
    for (size_t c = 0; j->general && c < j->nconfs && !st0 && !j->mapped; c++)
        if (j->conf[c] == CONF_MAPPED)
            st0 = map_general(j, err);
    if (st0)
        return st0;
    cli_progress_bar prog; /* on stderr when it is a terminal */
    cli_progress_init(&prog, "fft-study");
    kc_status st = compute_rows(j, rows, rc, &prog, err);
    cli_progress_done(&prog);
    return st;
}

static kc_status compute_rows(const fft_job *j, fft_row *rows, int *rc, cli_progress_bar *prog, kc_err *err)
{
    for (size_t p = 0; p < j->npoints; p++)
        for (size_t c = 0; c < j->nconfs; c++) {
            cli_progress_cb(prog, (double)(p * j->nconfs + c), (double)(j->npoints * j->nconfs));
            fft_row *row = &rows[p * j->nconfs + c];
            kc_goal g;
            kc_status st = gen(j, j->logm[p], j->conf[c], KC_GOAL_FFT_ALL, &g, err);
            if (st)
                return st;
            if (!p && !c && j->emit)
                st = emit_goal(&g, j->emit, rc, err);
            if (!st && !*rc)
                st = run_one(j, &g, j->conf[c], row, err);
            kc_goal_free(&g);
            if (!st && !*rc)
                st = run_part(j, j->logm[p], j->conf[c], KC_GOAL_FFT_BITREV, &row->bitrev_apart, err);
            if (!st && !*rc)
                st = run_part(j, j->logm[p], j->conf[c], KC_GOAL_FFT_REST, &row->rest_apart, err);
            if (st || *rc)
                return st;
        }
    return KC_OK;
}

/* ---- render ------------------------------------------------------------------- */

/* The index of configuration conf in the job, or -1. */
static int conf_index(const fft_job *j, int conf)
{
    for (size_t c = 0; c < j->nconfs; c++)
        if (j->conf[c] == conf)
            return (int)c;
    return -1;
}

/* The configuration M-S is compared with: ecube on the binary cube, dor
 * (rank r on slot r) elsewhere; its index or -1. */
static int base_index(const fft_job *j) { return conf_index(j, j->general ? CONF_DOR : CONF_ECUBE); }

/* "the 8-cube", or the general network and the FFT's ranks on it. */
static char *where(const fft_job *j, char *buf, size_t size)
{
    char net[256];
    if (j->general)
        snprintf(buf, size, "2^%d ranks on the %s", j->n, cli_replay_network_text(&j->net.topo, net, sizeof net));
    else
        snprintf(buf, size, "the %d-cube", j->n);
    return buf;
}

static double m_of(int logm) { return ldexp(1, logm); }

/* The overall gain of the mapping when a barrier follows the bit-reverse. */
static double apart_gain(const fft_row *we, const fft_row *wm)
{
    return (we->bitrev_apart + we->rest_apart) / (wm->bitrev_apart + wm->rest_apart) - 1;
}

static int render_json(const fft_job *j, const fft_row *rows)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *ra = cJSON_AddArrayToObject(root, "rows"), *sa = cJSON_AddArrayToObject(root, "summary");
    int e = base_index(j), mp = conf_index(j, CONF_MAPPED);
    if (j->general) {
        cli_network_json(root, &j->net.topo);
        cli_json_add_u64(root, "ranks", (uint64_t)1 << j->n);
    }
    for (size_t p = 0; p < j->npoints; p++) {
        for (size_t c = 0; c < j->nconfs; c++) {
            const fft_row *w = &rows[p * j->nconfs + c];
            cJSON *o = cJSON_CreateObject();
            cli_json_add_u64(o, "m", (uint64_t)1 << j->logm[p]);
            cJSON_AddStringToObject(o, "config", kc_names_name(&conf_names, j->conf[c]));
            cJSON_AddNumberToObject(o, "bitrev_us", w->bitrev);
            cJSON_AddNumberToObject(o, "neighbour_us", w->neighbour);
            cJSON_AddNumberToObject(o, "compute_us", w->compute);
            cJSON_AddNumberToObject(o, "total_us", w->total);
            cJSON_AddNumberToObject(o, "bitrev_apart_us", w->bitrev_apart);
            cJSON_AddNumberToObject(o, "total_apart_us", w->bitrev_apart + w->rest_apart);
            cJSON_AddItemToArray(ra, o);
        }
        if (e >= 0 && mp >= 0) {
            const fft_row *we = &rows[p * j->nconfs + e], *wm = &rows[p * j->nconfs + mp];
            cJSON *o = cJSON_CreateObject();
            cli_json_add_u64(o, "m", (uint64_t)1 << j->logm[p]);
            cJSON_AddNumberToObject(o, "bitrev_speedup", we->bitrev / wm->bitrev);
            cJSON_AddNumberToObject(o, "total_gain", we->total / wm->total - 1);
            cJSON_AddNumberToObject(o, "bitrev_speedup_apart", we->bitrev_apart / wm->bitrev_apart);
            cJSON_AddNumberToObject(o, "total_gain_apart", apart_gain(we, wm));
            cJSON_AddItemToArray(sa, o);
        }
    }
    return cli_print_json(root);
}

static void render_csv(const fft_job *j, const fft_row *rows)
{
    puts("m,config,bitrev_us,neighbour_us,compute_us,total_us,bitrev_apart_us,total_apart_us");
    for (size_t p = 0; p < j->npoints; p++)
        for (size_t c = 0; c < j->nconfs; c++) {
            const fft_row *w = &rows[p * j->nconfs + c];
            printf("%.0f,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", m_of(j->logm[p]),
                   kc_names_name(&conf_names, j->conf[c]), w->bitrev, w->neighbour, w->compute, w->total,
                   w->bitrev_apart, w->bitrev_apart + w->rest_apart);
        }
}

static void render_text(const fft_job *j, const fft_row *rows)
{
    char cite[160], on[320];
    printf("parallel FFT, %s, on %s: start-up %g us, %g us per byte, butterfly "
           "%.2f us, half butterfly %.2f us\n", cli_seed_cite(cite, sizeof cite, 0, "Section 6.2"),
           where(j, on, sizeof on), j->opts.startup_us, j->opts.byte_time_us, FFT_BUTTERFLY_NS / 1000.0,
           FFT_HALF_NS / 1000.0);
    printf("%-6s %-14s %12s %12s %12s %12s | %12s %12s\n", "m", "config", "bitrev_us", "neighbour_us",
           "compute_us", "total_us", "bitrev_apart", "total_apart");
    for (size_t p = 0; p < j->npoints; p++)
        for (size_t c = 0; c < j->nconfs; c++) {
            const fft_row *w = &rows[p * j->nconfs + c];
            printf("2^%-4d %-14s %12.2f %12.2f %12.2f %12.2f | %12.2f %12.2f\n", j->logm[p],
                   kc_names_name(&conf_names, j->conf[c]), w->bitrev, w->neighbour, w->compute, w->total,
                   w->bitrev_apart, w->bitrev_apart + w->rest_apart);
        }
    int e = base_index(j), mp = conf_index(j, CONF_MAPPED);
    if (e < 0 || mp < 0)
        return;
    puts(j->general ? "the general mapper's mapping against rank r on slot r (as generated | with a barrier after "
                      "the bit-reverse):"
                    : "the mapping against e-cube (as generated | with a barrier after the bit-reverse):");
    for (size_t p = 0; p < j->npoints; p++) {
        const fft_row *we = &rows[p * j->nconfs + e], *wm = &rows[p * j->nconfs + mp];
        printf("  m = 2^%-3d bit-reverse %.2f times faster, whole FFT %+.1f %% | %.2f times, %+.1f %%\n",
               j->logm[p], we->bitrev / wm->bitrev, 100 * (we->total / wm->total - 1),
               we->bitrev_apart / wm->bitrev_apart, 100 * apart_gain(we, wm));
    }
    if (!j->general)
        puts("(seed 000 reports 6.43 times and about 41 % at m = 2^14 for the 8-cube)");
}

static int render_plot(const fft_job *j, const fft_row *rows)
{
    cli_plot_series *s = calloc(j->nconfs, sizeof *s);
    double *x = malloc(j->npoints * sizeof *x), *y = malloc(j->npoints * j->nconfs * sizeof *y);
    int r = s && x && y ? 0 : out_of_memory();
    for (size_t c = 0; c < j->nconfs && !r; c++) {
        for (size_t p = 0; p < j->npoints; p++) {
            x[p] = m_of(j->logm[p]);
            y[c * j->npoints + p] = rows[p * j->nconfs + c].total;
        }
        s[c] = (cli_plot_series){kc_names_name(&conf_names, j->conf[c]), (int)j->npoints, x, y + c * j->npoints};
    }
    if (!r) {
        cli_plot pl;
        cli_plot_init(&pl);
        char title[480], sub[240], cite[160], on[320];
        snprintf(title, sizeof title,
                 "parallel FFT of m points on %s, flit-level network: total time, bit-reverse included",
                 where(j, on, sizeof on));
        snprintf(sub, sizeof sub, "%s; start-up %g µs, %g µs a byte",
                 cli_seed_cite(cite, sizeof cite, 0, "Section 6.2"), j->opts.startup_us, j->opts.byte_time_us);
        pl.title = title;
        pl.subtitle = sub;
        pl.xlabel = "points m";
        pl.ylabel = "total time (µs)";
        pl.logx = pl.logy = 1; /* sizes a factor 4 apart; times from ms to s, compared by ratio */
        pl.series = s;
        pl.nseries = (int)j->nconfs;
        pl.size = j->size;
        r = cli_plot_write(&pl, j->plot);
    }
    free(s);
    free(x);
    free(y);
    return r;
}

/* ---- the command --------------------------------------------------------------- */

static int check(const cli_args *a)
{
    fft_job j;
    int r = resolve(a, &j);
    job_free(&j);
    return r;
}

/* Time and memory before work (budget.h), fitted to the runs of
 * bench/estimates.tsv (n = 2 .. 12): each size m and configuration
 * generates the schedule and replays it three times (whole, then its two
 * parts): CLI_RATE_FFT_POINT x m x sqrt(m / N) (a rank's block, moved in
 * messages as long as it, costs more than its points) plus
 * CLI_RATE_FFT_RANK x N^1.5 for the N ranks' schedule. Memory: 22 KB a
 * rank and 24 bytes a point of the largest size. */
static int gate(const cli_args *a, const fft_job *j)
{
    double points = 0, top = 0, ranks = ldexp(1, j->n);
    for (size_t p = 0; p < j->npoints; p++) {
        double m = ldexp(1, j->logm[p]);
        points += m * sqrt(m / ranks);
        top = m > top ? m : top;
    }
    double per_conf = CLI_RATE_FFT_POINT * points + CLI_RATE_FFT_RANK * ranks * sqrt(ranks) * (double)j->npoints;
    double sec = per_conf * (double)j->nconfs, bytes = 22e3 * ranks + 24 * top + CLI_BASE_BYTES;
    if (j->general && conf_index(j, CONF_MAPPED) >= 0) /* the general mapper: its budget and its starts */
        sec += FFT_MAP_SECONDS;
    char what[96], mb[32];
    snprintf(what, sizeof what, "%s --n %d up to %s points, %zu configuration%s", a->path, j->n,
             cli_budget_count(top, mb, sizeof mb), j->nconfs, j->nconfs == 1 ? "" : "s");
    return cli_budget_check(a, what, sec, kci_clamp_u64(bytes));
}

/* The chart is drawn before the table is printed: a failure leaves no
 * partial output. */
static int run(const cli_args *a)
{
    fft_job j;
    int rc = resolve(a, &j);
    if (!rc)
        rc = gate(a, &j);
    fft_row *rows = rc ? NULL : calloc(j.npoints * j.nconfs, sizeof *rows);
    if (!rc && !rows)
        rc = out_of_memory();
    if (!rc) {
        kc_err err = {0};
        if (compute(&j, rows, &rc, &err))
            rc = cli_report(a, &err);
        if (!rc && j.plot)
            rc = render_plot(&j, rows);
        if (!rc && j.fmt == CLI_FMT_JSON)
            rc = render_json(&j, rows);
        else if (!rc && j.fmt == CLI_FMT_CSV)
            render_csv(&j, rows);
        else if (!rc)
            render_text(&j, rows);
    }
    free(rows);
    job_free(&j);
    return rc;
}

static void fft_more_help(FILE *out)
{
    fputs("configurations (--configs):\n", out);
    for (const kc_name *e = conf_entries; e->name; e++)
        fprintf(out, "  %-14s %s\n", e->name, e->help);
}

const cli_command kc_command_fft_study = {
    .name = "fft-study",
    .summary = "seed 000's parallel FFT on the flit-level network, with and without the mapping",
    .order = 76,
    .description =
        "Generates seed 000 Section 6.2's parallel FFT (m = 2^(n+2d) points of 16 bytes, 2^(2d) per processor:\n"
        "a bit-reverse, d local stages, n neighbour exchanges, d local stages) for each size and replays it on\n"
        "the flit-level network under each configuration (as `kcube replay`). Reports the bit-reverse, neighbour\n"
        "and computing times and the total, and for ecube against M-S the bit-reverse speed-up and\n"
        "the overall gain. Each is given twice: the programme as generated (no barrier, phases overlap across\n"
        "nodes) and with a barrier after the bit-reverse (the two parts replayed apart and added: the reading\n"
        "that reproduces seed 000's 6.43 times and 41 %, docs/appsim.md). Default sizes: the valid ones from\n"
        "2^10 to 2^14. Model: every figure is the flit-level network replay's (kcube replay --model network:\n"
        "--startup on the sender, --byte-time a byte on a channel, contention), not LogGOPS; the --emit-goal file\n"
        "gives LogGOPSim's figure with kcube replay --model loggops (docs/loggops.md).\n"
        "Other networks (--k, --topology, --shape, --wrap, --endpoints, --nodes): the FFT runs on 2^n ranks, the\n"
        "largest power of two that fits the slots (at most 2^16); dor puts rank r on slot r, and M-S places the\n"
        "ranks by the general mapper (kcube map's search, about a second) on the FFT's traffic, counted phase by\n"
        "phase: seed 000's reordering needs the plain binary cube. ecube, pcube and li-min need every side 2.",
    .opts = fft_opts,
    .check = check,
    .run = run,
    .epilog = "examples:\n"
              "  kcube fft-study --n 8\n"
              "  kcube fft-study --n 8 --points 2^14 --configs ecube,M-S,duato --json\n"
              "  kcube fft-study --n 6 --plot fft.png --emit-goal fft.goal\n"
              "  kcube fft-study --topology torus --shape 4x4x2 --endpoints 2 --points 2^8",
    .more_help = fft_more_help,
};
