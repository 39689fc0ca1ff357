/* map_general.c - `kcube map --traffic FILE` and `kcube map --kind general`
 * (map_general.h): resolve (topology, traffic from the file and the given
 * communications, options) -> compute (the starts: identity, kcube's
 * reordering and linear mapping where the traffic holds linear
 * communications, Scotch's mapping where Scotch is built in; then
 * kc_gmap_run) -> render (text, JSON, CSV; --out writes the node list). */
#include "loads_cli.h"
#include "map_general.h"
#include "network_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "budget_rates.h"
#include "cli.h"
#include "core/size.h"
#include "export_cli.h"
#include "options.h"
#include "out.h"
#include "plan_cli.h"
#include "text.h"
#include "trace_cli.h"
#include "traffic_cli.h"
#include "kcube/mapgeneral.h"
#include "kcube/gfk.h"
#include "kcube/mapset.h"
#include "kcube/plan.h"
#include "kcube/scotchmap.h"
#include "kcube/traffic.h"
#include "kcube/traffic_gen.h"

/* ---- options ---------------------------------------------------------------- */

enum { BASELINE_NONE, BASELINE_SCOTCH };
static const kc_name baseline_entries[] = {
    {BASELINE_SCOTCH, "scotch", "Scotch's static mapping (libscotch), evaluated by kcube's exact counter"},
    {0, NULL, NULL},
};
static const kc_names baseline_names = {"baseline", baseline_entries};

enum { CAP_SCOTCH, CAP_NONE };
static const kc_name cap_entries[] = {
    {CAP_SCOTCH, "scotch", "never more bytes x hops than Scotch's mapping (when it is a start)"},
    {CAP_NONE, "none", "the lexicographic objective alone"},
    {0, NULL, NULL},
};
static const kc_names cap_names = {"hops cap", cap_entries};

const cli_opt OPT_HOPS_CAP = {.name = "hops-cap", .type = CLI_CHOICE, .choices = &cap_names, .def = "scotch",
                              .help = "a bound on total bytes x hops the general search keeps (never at the price of a higher max "
                                      "load than the best start's)"};
const cli_opt OPT_TRAFFIC = {
    .name = "traffic", .type = CLI_TEXT, .meta = "FILE", .param = "traffic_file",
    .help = "map this communication graph ('-': standard input): 'src dst [bytes]' lines (bytes 1 when left out; "
            "simulate --pairs's format), CSV with a header, a P x P matrix, a Scotch .grf graph, a .goal "
            "schedule or an OTF2 trace (traces.otf2 or its directory); without --n the smallest network holding "
            "its ranks"};
/* The search stops after a fixed amount of work, counted in channel-load
 * updates (kcube/gmap.h), so a seed gives the same mapping on every
 * machine: the unit is a million updates, not a second. */
/* Two searches take --work, each with its default when it is not given
 * (MAP_GENERAL_WORK, KC_MAPSET_SEARCH_WORK): help shows both. */
static void work_default(char *buf, size_t size)
{
    snprintf(buf, size, "%g for --kind general, %g for --kind reorder", MAP_GENERAL_WORK,
             (double)KC_MAPSET_SEARCH_WORK / 1e6);
}
const cli_opt OPT_WORK = {.name = "work", .type = CLI_REAL, .meta = "M", .rlo = 0, .rhi = 3456000,
                          .shown_def = work_default, .param = "budget",
                          .help = "work of the general search, in millions of channel-load updates (a count, not "
                                  "time: about 15 to 90 per CPU second)"};
const cli_opt OPT_BASELINE = {.name = "baseline", .type = CLI_CHOICE, .choices = &baseline_names,
                              .help = "also report this mapper's result side by side"};

/* Inputs besides --traffic: a stencil on a process
 * grid, a collective over every node; and how a file's phases count. */
const cli_opt OPT_STENCIL = {.name = "stencil", .type = CLI_CHOICE, .choices = &kc_stencil_names, .param = "stencil",
                             .help = "map the halo exchange of this stencil on the --grid (5pt, 9pt: 2 axes; 7pt, "
                                     "27pt: 3)"};
const cli_opt OPT_GRID = {.name = "grid", .type = CLI_TEXT, .meta = "AxB[xC]", .param = "grid",
                          .help = "the stencil's process grid, axis 0 first; as many processes as nodes"};
const cli_opt OPT_PERIODIC = {.name = "periodic", .type = CLI_FLAG,
                              .help = "the stencil's grid wraps around on every axis"};
const cli_opt OPT_GRID_ORDER = {.name = "grid-order", .type = CLI_CHOICE, .choices = &kc_grid_order_names,
                                .def = "axis0-fastest", .param = "grid_order",
                                .help = "how grid coordinates number the ranks"};
const cli_opt OPT_COLLECTIVE = {.name = "collective", .type = CLI_CHOICE, .choices = &kc_collective_names,
                                .param = "collective",
                                .help = "map the traffic of this collective over every node (--bytes per rank)"};
const cli_opt OPT_MSG_BYTES = {.name = "bytes", .type = CLI_BYTES, .meta = "B", .def = "1", .param = "bytes",
                               .help = "bytes of each stencil message, or of each rank's data in a collective "
                                       "(K, M, G suffixes)"};
enum { PHASES_APART, PHASES_TOGETHER };
static const kc_name phases_entries[] = {
    {PHASES_APART, "apart", "each phase a communication of its own, counted as --objective says"},
    {PHASES_TOGETHER, "together", "all phases pooled into one communication"},
    {0, NULL, NULL},
};
static const kc_names phases_names = {"phases", phases_entries};
const cli_opt OPT_PHASES = {.name = "phases", .type = CLI_CHOICE, .choices = &phases_names, .def = "apart",
                            .help = "the phases of a --traffic file or schedule ('# phase', '// kcube-phase')"};
const cli_opt OPT_EMIT_TRAFFIC = {.name = "emit-traffic", .type = CLI_TEXT, .meta = "FILE", .param = "emit_traffic",
                                  .help = "write the traffic as a traffic file and stop (edit it, then --traffic; "
                                          "'-': standard output)"};

#define PATTERN_BYTES 1 /* a message of a given communication weighs 1 byte: loads count messages */
#define LIST_NODES_MAX 16 /* node arrays in the text output */

typedef struct gen_job {
    plan_input in; /* topology, format, communications (possibly none) */
    const char *traffic, *out;
    const char *source; /* what gave the traffic besides --pattern ("traffic file", "stencil 5pt"), or NULL */
    const char *emit;   /* --emit-traffic */
    char label[64];     /* source's text for --stencil / --collective */
    int baseline;
    int separate; /* --objective max: the communications are phases, counted apart */
    int cap;      /* --hops-cap */
    double work;  /* --work, millions of updates */
    kc_gmap_opts opts;
    kc_traffic tr;
    char **group_name; /* tr.groups names, or NULL */
    size_t file_messages; /* messages [0, file_messages) came from --traffic */
    int found;            /* linear communications found in the file (kc_mapgen_find_lcc) */
    kc_comm *algebra;     /* found, then the named communications: the algebraic starts' input */
    cli_export exp; /* --format FORMAT and the machine it names (export_cli.h) */
    uint64_t slots;     /* what the mapping permutes (kc_topology_slots; the nodes on plain networks) */
    uint64_t ranks;     /* the job's ranks, listed in to_physical and --out: the grid's processes, the ranks a
                           traffic file names, else every slot; ranks beyond it are silent */
    cli_traffic_info info;  /* what --traffic said of itself */
    int loaded;             /* --traffic read before the network (it sizes it) */
    char inferred[320];     /* how the network was sized from the traffic, or "" */
    const char *start_file; /* --mapping FILE, or NULL */
    uint32_t *file_map;     /* its mapping over the slots, silent ranks appended */
} gen_job;

/* --shape (and --wrap) describe a network the algebraic mappings take
 * (kc_topology_need_gf). Built with the library alone, printing nothing: a
 * bad value is reported once, by the path that resolves it. */
static int shape_is_algebraic(const cli_args *a)
{
    int sides[KC_TOPO_MAX_DIMS], count = 0;
    uint64_t mask = 0;
    kc_topology t;
    kc_err err = {0};
    const char *shape = cli_text(a, &OPT_SHAPE, NULL), *wrap = cli_text(a, &OPT_WRAP, NULL);
    int k = (int)cli_int(a, &OPT_K, 2), n = (int)cli_int(a, &OPT_N, 1);
    kc_status s = shape ? kc_topology_parse_shape(shape, sides, &count, &err) ||
                              kc_topology_shape(&t, KC_TOPO_TORUS, sides, count, KC_TIE_PLUS, &err)
                        : kc_topology_torus(&t, k, n, KC_TIE_PLUS, &err);
    if (s || (wrap && (kc_topology_parse_wrap(wrap, t.n, &mask, &err) || kc_topology_set_wrap(&t, mask, &err))))
        return 1;
    return kc_topology_need_gf(&t, "a processor mapping", &err) == KC_OK;
}

/* --kind auto on a network only the general mapping takes (a preset, an
 * allocation, endpoints, unequal or non-power-of-two sides, mixed wraps):
 * the general mapping, whose starts include the algebraic mappings
 * wherever they apply. Decided before anything is read, so an input such
 * as --nodes <(...) is read once. */
static int only_general_applies(const cli_args *a)
{
    if (cli_given(a, &OPT_KIND) || !cli_network_given(a))
        return 0;
    if (cli_given(a, &OPT_NODES) || cli_given(a, &OPT_NETWORK) || cli_int(a, &OPT_ENDPOINTS, 1) > 1)
        return 1;
    return !shape_is_algebraic(a);
}

int map_general_wanted(const cli_args *a)
{
    return cli_given(a, &OPT_TRAFFIC) || cli_given(a, &OPT_STENCIL) || cli_given(a, &OPT_COLLECTIVE) ||
           cli_choice(a, &OPT_KIND, KC_MAP_AUTO) == KC_MAP_GENERAL || only_general_applies(a);
}

/* ---- resolve ------------------------------------------------------------------ */

static void job_free(gen_job *j)
{
    if (j->group_name)
        for (uint32_t g = 0; g < j->tr.groups; g++)
            free(j->group_name[g]);
    free(j->group_name);
    free(j->algebra);
    free(j->file_map);
    kc_traffic_free(&j->tr);
    cli_export_free(&j->exp);
    plan_input_free(&j->in);
    cli_traffic_info_free(&j->info);
}

/* Group names: the phases of the base input (a file's, or its name when it
 * has none; "-" for messages before a file's first phase), then the
 * communications' names. */
static int name_groups(gen_job *j, uint32_t base_groups)
{
    if (!j->tr.groups)
        return 0;
    j->group_name = calloc(j->tr.groups, sizeof *j->group_name);
    if (!j->group_name)
        return cli_error("out of memory");
    for (uint32_t g = 0; g < j->tr.groups; g++) {
        const char *phase = kc_traffic_group_name(&j->tr, g);
        const char *name = g >= base_groups ? j->in.comms[g - base_groups].name
                           : phase          ? phase
                           : base_groups == 1 ? j->source
                                              : "-";
        if (!(j->group_name[g] = strdup(name)))
            return cli_error("out of memory");
    }
    return 0;
}

/* --grid: its sides, as many processes as nodes. */
static int grid_shape(const cli_args *a, const gen_job *j, int *sides, int *dims)
{
    const char *text = cli_text(a, &OPT_GRID, NULL);
    kc_err err = {0};
    if (!text)
        return cli_error("--stencil needs --grid AxB[xC] (as many processes as the network has nodes)");
    if (kc_topology_parse_shape(text, sides, dims, &err))
        return cli_error("--grid: %s", err.msg);
    uint64_t procs = 1;
    for (int i = 0; i < *dims; i++)
        procs *= (uint64_t)sides[i];
    if (kc_topology_is_plain(&j->in.topo) && procs != j->in.topo.nodes)
        return cli_error("--grid %s has %llu processes, the network %llu nodes: they must be equal", text,
                         (unsigned long long)procs, (unsigned long long)j->in.topo.nodes);
    if (procs > j->slots)
        return cli_error("--grid %s has %llu processes, more than the network's %llu slots (routers%s x endpoints)",
                         text, (unsigned long long)procs, (unsigned long long)j->slots,
                         j->in.topo.alloc ? " of --nodes" : "");
    return 0;
}

/* The traffic of --stencil or --collective. */
static int generate(const cli_args *a, gen_job *j)
{
    kc_err err = {0};
    uint64_t bytes = cli_get(a, &OPT_MSG_BYTES)->v.bytes;
    if (cli_given(a, &OPT_COLLECTIVE))
        return kc_traffic_gen_collective(&j->tr, (kc_collective)cli_choice(a, &OPT_COLLECTIVE, 0), bytes, &err)
                   ? cli_report(a, &err)
                   : 0;
    int sides[KC_TOPO_MAX_DIMS], dims = 0, r = grid_shape(a, j, sides, &dims);
    if (r)
        return r;
    j->ranks = 1;
    for (int i = 0; i < dims; i++)
        j->ranks *= (uint64_t)sides[i];
    if (kc_traffic_gen_stencil(&j->tr, (kc_stencil)cli_choice(a, &OPT_STENCIL, 0), sides, dims,
                               cli_flag(a, &OPT_PERIODIC),
                               (kc_grid_order)cli_choice(a, &OPT_GRID_ORDER, KC_GRID_AXIS0_FASTEST), bytes, &err))
        return cli_report(a, &err);
    return 0;
}

static int build_traffic(const cli_args *a, gen_job *j)
{
    kc_err err = {0};
    char nb[24];
    if (j->in.topo.nodes > KC_CHANLOAD_MAX_NODES) /* also keeps ranks in 32 bits */
        return cli_error("a general mapping supports up to %llu nodes, the network has %s",
                         (unsigned long long)KC_CHANLOAD_MAX_NODES, kc_topology_nodes_text(&j->in.topo, nb, sizeof nb));
    j->slots = kc_topology_slots(&j->in.topo);
    if (j->slots > KC_CHANLOAD_MAX_NODES)
        return cli_error("a general mapping supports up to %llu slots (routers x endpoints), the network has %llu",
                         (unsigned long long)KC_CHANLOAD_MAX_NODES, (unsigned long long)j->slots);
    j->ranks = j->slots;
    int r = 0;
    if (j->loaded) /* read first, the network sized to hold it */
        r = kc_traffic_set_ranks(&j->tr, j->slots, &err) ? cli_report(a, &err) : 0;
    else if (j->traffic)
        r = cli_traffic_load(a, j->traffic, j->slots, &j->tr, &j->info);
    else if (kc_traffic_init(&j->tr, j->slots, &err))
        r = cli_report(a, &err);
    if (r)
        return r;
    if (cli_choice(a, &OPT_PHASES, PHASES_APART) == PHASES_TOGETHER)
        kc_traffic_ungroup(&j->tr);
    r = j->source && !j->traffic ? generate(a, j) : 0;
    if (r)
        return r;
    j->file_messages = j->tr.count;
    /* A file's ranks: those it names (a list's highest + 1, a matrix's P,
     * a graph's vertices, a schedule's num_ranks; cli_traffic_info); a
     * trace's on every network, so that each has its rankfile line. */
    if (j->traffic && (j->info.trace || !kc_topology_is_plain(&j->in.topo)))
        j->ranks = j->info.ranks;
    /* The communications begin groups: the base input is then group 0 when
     * it has no phases of its own. */
    uint32_t base_groups = j->tr.groups ? j->tr.groups : j->source && j->tr.count && j->in.count > 0;
    kc_rng rng;
    kc_rng_seed(&rng, j->opts.seed);
    for (int i = 0; i < j->in.count; i++)
        if (kc_traffic_add_comm(&j->tr, &j->in.comms[i], PATTERN_BYTES, &rng, &err))
            return cli_report(a, &err);
    return name_groups(j, base_groups);
}

/* --mapping FILE: the start "file", one endpoint per rank
 * (kc_topology_read_slots); the silent ranks take the slots left, in
 * order. */
static int read_start_file(const cli_args *a, gen_job *j)
{
    kc_err err = {0};
    kc_reader *rd = NULL;
    char *used = calloc(j->slots, 1);
    j->file_map = malloc(j->slots * sizeof *j->file_map);
    uint64_t got = 0;
    int rc = 0;
    if (!used || !j->file_map)
        rc = cli_error("out of memory for --mapping over %llu slots", (unsigned long long)j->slots);
    else if (kc_reader_open(&rd, j->start_file, "mapping file", "mapping", NULL, &err) ||
             kc_topology_read_slots(rd, &j->in.topo, j->ranks, j->ranks, j->file_map, &got, &err))
        rc = cli_report(a, &err);
    for (uint64_t v = 0; !rc && v < j->ranks; v++)
        used[j->file_map[v]] = 1;
    for (uint64_t x = 0, v = j->ranks; !rc && x < j->slots; x++)
        if (!used[x])
            j->file_map[v++] = (uint32_t)x;
    kc_reader_close(rd);
    free(used);
    return rc;
}

/* --traffic without a network size: read it first, and size the network
 * (the smallest of the kind asked holding its ranks) by it. */
static int load_first(const cli_args *a, gen_job *j, int *n)
{
    int r = cli_traffic_load(a, j->traffic, 0, &j->tr, &j->info);
    if (!r)
        r = cli_traffic_infer_n(a, &j->info, n, j->inferred, sizeof j->inferred);
    j->loaded = !r;
    return r;
}

static int resolve(const cli_args *a, gen_job *j)
{
    memset(j, 0, sizeof *j);
    j->traffic = cli_text(a, &OPT_TRAFFIC, NULL);
    int n = 0, r = j->traffic && !cli_traffic_sized(a) ? load_first(a, j, &n) : 0;
    if (r || (r = plan_resolve_n(a, PLAN_COMMS_OPTIONAL, n, &j->in)))
        return r;
    if (!j->traffic && (r = cli_reject(a, &OPT_TRAFFIC_FORMAT, "without --traffic")))
        return r;
    int stencil = cli_given(a, &OPT_STENCIL), coll = cli_given(a, &OPT_COLLECTIVE);
    if ((j->traffic != NULL) + stencil + coll > 1)
        return cli_error("give one of --traffic, --stencil and --collective");
    if (stencil || coll)
        snprintf(j->label, sizeof j->label, "%s %s", stencil ? "stencil" : "collective",
                 stencil ? kc_names_name(&kc_stencil_names, cli_choice(a, &OPT_STENCIL, 0))
                         : kc_names_name(&kc_collective_names, cli_choice(a, &OPT_COLLECTIVE, 0)));
    j->source = j->traffic ? (cli_trace_is(j->traffic) ? "trace" : "traffic file") : stencil || coll ? j->label : NULL;
    if (!j->traffic && (r = cli_trace_refuse(a, "without --traffic")))
        return r;
    if ((!stencil && ((r = cli_reject(a, &OPT_GRID, "without --stencil")) ||
                      (r = cli_reject(a, &OPT_PERIODIC, "without --stencil")) ||
                      (r = cli_reject(a, &OPT_GRID_ORDER, "without --stencil")))) ||
        (!stencil && !coll && (r = cli_reject(a, &OPT_MSG_BYTES, "without --stencil or --collective"))) ||
        (!j->traffic && (r = cli_reject(a, &OPT_PHASES, "without --traffic FILE (only files have phases)"))))
        return r;
    if (!j->source && !j->in.count)
        return cli_error("%s --kind general needs --traffic FILE, --stencil, --collective or at least one --pattern or "
                         "--matrix", a->path);
    if (cli_given(a, &OPT_KIND) && cli_choice(a, &OPT_KIND, KC_MAP_AUTO) != KC_MAP_GENERAL)
        return cli_error("--%s gives a general mapping: --kind %s does not apply (leave it out or say general)",
                         j->traffic ? "traffic" : stencil ? "stencil" : coll ? "collective" : "kind",
                         kc_names_name(&kc_map_kind_names, cli_choice(a, &OPT_KIND, KC_MAP_AUTO)));
    kc_gmap_opts_default(&j->opts);
    j->opts.seed = cli_u64(a, &OPT_SEED, 1);
    j->work = cli_real(a, &OPT_WORK, MAP_GENERAL_WORK);
    j->opts.budget_seconds = j->work * 1e6 / KC_GMAP_WORK_PER_SECOND;
    int objective = cli_choice(a, &OPT_OBJECTIVE, KC_OBJ_MAX);
    if (objective == KC_OBJ_SUM)
        return cli_error("--objective sum does not apply to a general mapping (max: each communication apart; "
                         "simultaneous: all at once)");
    j->separate = objective == KC_OBJ_MAX;
    j->baseline = cli_choice(a, &OPT_BASELINE, BASELINE_NONE);
    j->cap = cli_choice(a, &OPT_HOPS_CAP, CAP_SCOTCH);
    if (j->baseline == BASELINE_SCOTCH && !kc_scotch_available())
        return cli_error("--baseline scotch: this kcube was built without Scotch (install libscotch-dev and rebuild)");
    j->out = cli_text(a, &OPT_OUT, NULL);
    if (j->out && (r = cli_check_output(j->out)))
        return r;
    if (cli_given(a, &OPT_LOADS) && (r = cli_check_output(cli_text(a, &OPT_LOADS, NULL))))
        return r;
    j->emit = cli_text(a, &OPT_EMIT_TRAFFIC, NULL);
    if (j->emit && ((r = cli_reject(a, &OPT_OUT, "with --emit-traffic (it writes the traffic and stops)")) ||
                    (r = cli_check_output(j->emit))))
        return r;
    if (j->emit && (r = cli_reject(a, &OPT_FORMAT, "with --emit-traffic (it writes the traffic and stops)")))
        return r;
    if ((r = cli_export_resolve(a, &OPT_FORMAT, &j->in.topo, j->out, 1, &j->exp)))
        return r;
    /* --format without --out: standard output (exp.out is "-") */
    if (!j->out && (j->out = j->exp.out) && (r = cli_check_output(j->out)))
        return r;
    const char *mapping = cli_text(a, &OPT_MAPPING, "none");
    j->start_file = strcmp(mapping, "none") ? mapping : NULL;
    if ((r = build_traffic(a, j)))
        return r;
    return j->start_file ? read_start_file(a, j) : 0;
}

/* ---- the gate ----------------------------------------------------------------- */

/* Time and memory before work (budget.h), fitted to the runs of
 * bench/estimates.tsv. Outside the search's budget the run builds the exact
 * counter and counts every start: CLI_RATE_GMAP_UNIT per unit of M (n + 1),
 * M messages, n the axes (a torus's longer paths cost little more: the
 * counter works an axis at a time); and it maps with Scotch (4 seeded runs up
 * to 4096 nodes, 1 above: kcube/mapgeneral.h, and once more as plain
 * scotch_gmap would, the start scotch:def), CLI_RATE_GMAP_SCOTCH per node and
 * log2 N, times M / 4N up to 1 (a sparse traffic graph partitions fast),
 * plus CLI_RATE_GMAP_SCOTCH_SQUARE per unit of the traffic graph's
 * component sizes squared (Scotch's mapping of a connected part onto the
 * target's domains, which dominates above some 10^4 ranks). The
 * search runs its budget (0.5 to 0.9 times it measured). Memory: 80 bytes a
 * message and 1100 a node (times the communications counted apart). A limit
 * in wall seconds also caps the search (its wall-clock cap), so the whole
 * run stays within --max-time. */
/* Root of v's component (path halving). */
static uint32_t component_root(uint32_t *up, uint32_t v)
{
    while (up[v] != v)
        v = up[v] = up[up[v]];
    return v;
}

/* The sum over the traffic graph's connected components of their size
 * squared (ranks no message touches count 1 each): what Scotch's mapping
 * time grows with (a ring of N ranks is N^2, N/2 pairs only 2N). One
 * union-find pass, O(M + N) time and 8N bytes; N^2 when that memory is not
 * there (the estimate stays on the safe side). */
static double component_square_sum(const kc_traffic *tr)
{
    uint64_t R = tr->ranks;
    uint32_t *up = R <= UINT32_MAX ? malloc((size_t)R * sizeof *up) : NULL;
    uint32_t *size = up ? calloc((size_t)R, sizeof *size) : NULL;
    double sum = (double)R * (double)R;
    if (size) {
        for (uint64_t v = 0; v < R; v++)
            up[v] = (uint32_t)v;
        for (size_t m = 0; m < tr->count; m++) {
            uint32_t a = component_root(up, (uint32_t)tr->src[m]), b = component_root(up, (uint32_t)tr->dst[m]);
            if (a != b)
                up[a] = b;
        }
        for (uint64_t v = 0; v < R; v++)
            size[component_root(up, (uint32_t)v)]++;
        sum = 0;
        for (uint64_t v = 0; v < R; v++)
            sum += (double)size[v] * (double)size[v];
    }
    free(up);
    free(size);
    return sum;
}

static double gate_fixed_seconds(const gen_job *j)
{
    const kc_topology *t = &j->in.topo;
    double N = (double)j->slots, M = (double)j->tr.count; /* slots: the nodes on plain networks */
    int graph = kc_scotch_graph_target(t); /* Scotch maps onto a target built from the router graph */
    double runs = !kc_scotch_available() || (graph && t->nodes > KC_SCOTCH_GRAPH_TARGET_MAX) ? 0
                  : N <= 4096                                                              ? 5
                                                                                           : 2; /* seeds, scotch:def */
    double dense = M < 4 * N ? M / (4 * N) : 1;
    double square = runs > 0 ? component_square_sum(&j->tr) : 0;
    double scotch = CLI_RATE_GMAP_SCOTCH * N * log2(N > 2 ? N : 2) * dense + CLI_RATE_GMAP_SCOTCH_SQUARE * square +
                    (graph ? CLI_RATE_GMAP_SCOTCH_GRAPH * pow((double)t->nodes, 1.7) : 0);
    return CLI_RATE_GMAP_UNIT * M * (t->n + 1) + runs * scotch;
}

static int gate(const cli_args *a, gen_job *j)
{
    const kc_topology *t = &j->in.topo;
    double fixed = gate_fixed_seconds(j), sec = fixed + CLI_GMAP_SEARCH_FACTOR * j->opts.budget_seconds;
    double groups = j->separate && j->tr.groups > 1 ? j->tr.groups : 1;
    /* per router and per slot: the nodes on plain networks */
    double N = (double)(j->slots > t->nodes ? j->slots : t->nodes);
    double bytes = 80 * (double)j->tr.count + 1100 * N * groups + CLI_BASE_BYTES;
    char what[128], nb[32];
    snprintf(what, sizeof what, "%s --kind general on %s %s (%zu messages, work %g million)", a->path,
             cli_budget_count(N, nb, sizeof nb), kc_topology_is_plain(t) ? "nodes" : "routers or slots",
             j->tr.count, j->work);
    int rc = cli_budget_check(a, what, sec, kci_clamp_u64(bytes));
    double limit = cli_budget_seconds(a);
    /* The search's wall cap: what the limit leaves after the fixed part. */
    if (!rc && isfinite(limit) && j->opts.budget_seconds > 0) {
        double cap = limit - fixed, dflt = 20 * j->opts.budget_seconds + 10;
        j->opts.wall_cap_seconds = cap < dflt ? (cap > 0.1 ? cap : 0.1) : dflt;
    }
    return rc;
}

/* ---- compute ------------------------------------------------------------------ */

static kc_status compute(gen_job *j, kc_mapgen_result *res, kc_err *err)
{
    cli_progress_bar prog;
    cli_progress_init(&prog, "mapping");
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    o.search = j->opts;
    o.cap_at_scotch = j->cap == CAP_SCOTCH;
    o.search.progress = (kc_progress){cli_progress_cb, &prog};
    o.search.group = j->tr.group;
    o.search.groups = j->tr.groups;
    o.search.separate = j->separate && j->tr.groups > 1;
    o.file_map = j->file_map;
    j->opts.separate = o.search.separate;
    /* Algebraic starts: the linear communications the input (file, stencil
     * or collective) turns out to be, and the ones named on the command line
     * (docs/gmap.md). */
    j->algebra = malloc(((size_t)KC_MAPGEN_MAX_FOUND + (size_t)j->in.count) * sizeof *j->algebra);
    if (!j->algebra) {
        cli_progress_done(&prog);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    kc_status st = j->source ? kc_mapgen_find_lcc(&j->in.topo, &j->tr, 0, j->file_messages, j->algebra,
                                                  KC_MAPGEN_MAX_FOUND, &j->found, err)
                             : KC_OK;
    if (!st) {
        for (int i = 0; i < j->in.count; i++)
            j->algebra[j->found + i] = j->in.comms[i];
        st = kc_mapgen_run(&j->in.topo, &j->tr, j->algebra, j->found + j->in.count, &o, res, err);
    }
    cli_progress_done(&prog);
    return st;
}

/* ---- render ------------------------------------------------------------------- */

static cJSON *json_sumsq(const kc_cost *c)
{
    char buf[48];
    return c->sumsq_hi ? cJSON_CreateString(kc_cost_sumsq_format(c, buf, sizeof buf)) : cli_json_u64(c->sumsq_lo);
}

static cJSON *json_cost(const char *name, const kc_cost *c, const uint64_t *group_max, uint32_t groups)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "mapping", name);
    cJSON_AddItemToObject(o, "max_load", cli_json_u64(c->max));
    cJSON_AddItemToObject(o, "hops", cli_json_u64(c->hops));
    cJSON_AddItemToObject(o, "sumsq", json_sumsq(c));
    if (groups)
        cJSON_AddItemToObject(o, "per_comm_max", cli_json_u64_array(group_max, (int)groups));
    return o;
}

static cJSON *json_nodes(const uint32_t *v, uint64_t count)
{
    cJSON *a = cJSON_CreateArray();
    for (uint64_t i = 0; i < count; i++)
        cJSON_AddItemToArray(a, cli_json_u64(v[i]));
    return a;
}

/* What to_physical and --out give: rank v's endpoint number in the whole
 * network, for the job's ranks (the same as the slots on plain networks).
 * NULL when out of memory. */
static uint32_t *rank_endpoints(const gen_job *j, const kc_gmap_result *r)
{
    uint32_t *e = malloc((j->ranks ? j->ranks : 1) * sizeof *e);
    for (uint64_t v = 0; e && v < j->ranks; v++)
        e[v] = (uint32_t)kc_topology_slot_endpoint(&j->in.topo, r->to_physical[v]);
    return e;
}

/* to_virtual, indexed by slot: the rank there, null for a slot no rank of
 * the job uses. On general networks also each slot's endpoint. */
static void json_virtual(cJSON *o, const gen_job *j, const kc_gmap_result *r)
{
    if (kc_topology_is_plain(&j->in.topo) && j->ranks == r->nodes) {
        cJSON_AddItemToObject(o, "to_virtual", json_nodes(r->to_virtual, r->nodes));
        return;
    }
    cJSON *a = cJSON_AddArrayToObject(o, "to_virtual"), *e = cJSON_AddArrayToObject(o, "slot_endpoints");
    for (uint64_t x = 0; x < r->nodes; x++) {
        cJSON_AddItemToArray(a, r->to_virtual[x] < j->ranks ? cli_json_u64(r->to_virtual[x]) : cJSON_CreateNull());
        cJSON_AddItemToArray(e, cli_json_u64(kc_topology_slot_endpoint(&j->in.topo, x)));
    }
    cJSON_AddItemToObject(o, "ranks", cli_json_u64(j->ranks));
}

/* 1 when the hops cap changed the answer: another start won, or the
 * search saw a mapping better by the objective alone above the cap. */
static int cap_changed(const kc_gmap_result *r)
{
    return r->hops_cap && (r->plain_best_start != r->best_start || kc_cost_cmp(&r->uncapped_seen, &r->cost) < 0);
}

/* Why Scotch was not a start (kc_mapgen_result.scotch_skipped). */
static const char *scotch_skipped_text(char *buf, size_t size)
{
    snprintf(buf, size, "Scotch has no target class for this network and its graph-built target is not run beyond "
                        "%d routers (minutes to hours; kcube/scotchmap.h)", KC_SCOTCH_GRAPH_TARGET_MAX);
    return buf;
}

static int render_json(const gen_job *j, const kc_mapgen_result *m)
{
    const kc_gmap_result *r = &m->search;
    cJSON *o = cJSON_CreateObject();
    plan_json_topology(o, &j->in.topo);
    cJSON_AddStringToObject(o, "kind", "general");
    cJSON_AddStringToObject(o, "objective", KC_GMAP_OBJECTIVE);
    cJSON_AddStringToObject(o, "communications_counted", j->opts.separate ? "apart" : "together");
    cJSON_AddItemToObject(o, "hops_cap", m->hops_cap ? cli_json_u64(m->hops_cap) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "messages", cli_json_u64(j->tr.count));
    if (j->traffic) {
        cJSON_AddStringToObject(o, "traffic_format", j->info.format);
        cJSON_AddItemToObject(o, "inferred", j->loaded ? cJSON_CreateString(j->inferred) : cJSON_CreateNull());
        cJSON_AddItemToObject(o, "traffic_note", j->info.note[0] ? cJSON_CreateString(j->info.note) : cJSON_CreateNull());
    }
    cJSON_AddItemToObject(o, "linear_in_file", j->source ? cli_json_i64(j->found) : cJSON_CreateNull());
    cJSON *names = cJSON_AddArrayToObject(o, "communications");
    for (uint32_t g = 0; g < j->tr.groups; g++)
        cJSON_AddItemToArray(names, cJSON_CreateString(j->group_name[g]));
    cJSON *st = cJSON_AddArrayToObject(o, "starts");
    for (int i = 0; i < r->nstarts; i++) {
        cJSON *e = json_cost(m->start_name[i], &r->start_cost[i],
                             r->groups ? r->start_group_max + (size_t)i * r->groups : NULL, r->groups);
        cJSON_AddBoolToObject(e, "won", i == r->best_start);
        cJSON_AddNumberToObject(e, "seconds", m->start_seconds[i]); /* computing it, wall clock */
        cJSON_AddItemToArray(st, e);
    }
    cJSON_AddStringToObject(o, "won_from", m->start_name[r->best_start]);
    cJSON_AddStringToObject(o, "best_start_without_cap", m->start_name[r->plain_best_start]);
    cJSON_AddItemToObject(o, "best_seen_above_cap",
                          cap_changed(r) ? json_cost("uncapped", &r->uncapped_seen, NULL, 0) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "final", json_cost("general", &r->cost, r->group_max, r->groups));
    if (j->baseline == BASELINE_SCOTCH && m->scotch >= 0)
        cJSON_AddItemToObject(o, "baseline", json_cost("scotch", &r->start_cost[m->scotch],
                                                       r->groups ? r->start_group_max + (size_t)m->scotch * r->groups
                                                                 : NULL, r->groups));
    cJSON_AddBoolToObject(o, "scotch_available", kc_scotch_available());
    if (m->scotch_skipped) {
        char why[160];
        cJSON_AddStringToObject(o, "scotch_skipped", scotch_skipped_text(why, sizeof why));
    }
    cJSON_AddItemToObject(o, "seed", cli_json_u64(j->opts.seed));
    cJSON_AddNumberToObject(o, "work_millions", j->work);
    cJSON_AddItemToObject(o, "iterations", cli_json_u64(r->iterations));
    cJSON_AddItemToObject(o, "accepted", cli_json_u64(r->accepted));
    cJSON_AddBoolToObject(o, "stopped_by_wall", r->stopped_by_wall);
    cJSON_AddNumberToObject(o, "search_seconds", m->search_seconds);
    uint32_t *phys = rank_endpoints(j, r);
    if (!phys) {
        cJSON_Delete(o);
        return cli_error("out of memory");
    }
    cJSON_AddItemToObject(o, "to_physical", json_nodes(phys, j->ranks));
    free(phys);
    json_virtual(o, j, r);
    if (j->info.trace)
        cli_trace_json(o, j->info.trace);
    return cli_print_json(o);
}

static void csv_row(const char *name, const kc_cost *c)
{
    char buf[48];
    cli_csv_field(stdout, name);
    printf(",%llu,%llu,%s\n", (unsigned long long)c->max, (unsigned long long)c->hops,
           kc_cost_sumsq_format(c, buf, sizeof buf));
}

static void render_csv(const gen_job *j, const kc_mapgen_result *m)
{
    const kc_gmap_result *r = &m->search;
    puts("mapping,max_load,hops,sumsq");
    for (int i = 0; i < r->nstarts; i++)
        csv_row(m->start_name[i], &r->start_cost[i]);
    csv_row("general", &r->cost);
    if (j->loaded) { /* the size the traffic chose, as the text and JSON say it */
        fputs("\nitem,value\ninferred,", stdout);
        cli_csv_field(stdout, j->inferred);
        putchar('\n');
    }
    if (j->info.trace)
        cli_trace_csv(stdout, j->info.trace);
}

/* The name column: 10 wide, wider for a longer start name (a fold on a
 * large grid) so the numbers stay under their headings. */
static int name_width(const kc_mapgen_result *m)
{
    int w = 10;
    for (int i = 0; i < m->search.nstarts; i++)
        w = (int)strlen(m->start_name[i]) > w ? (int)strlen(m->start_name[i]) : w;
    return w;
}

static void text_row(int w, const char *name, const kc_cost *c, const char *note)
{
    char buf[48];
    printf("  %-*s %14llu %16llu %22s%s\n", w, name, (unsigned long long)c->max, (unsigned long long)c->hops,
           kc_cost_sumsq_format(c, buf, sizeof buf), note);
}

static void text_groups(const gen_job *j, const kc_mapgen_result *m)
{
    const kc_gmap_result *r = &m->search;
    if (!r->groups)
        return;
    printf("largest channel load of each communication (bytes):\n  %-20s", "communication");
    for (int i = 0; i < r->nstarts; i++)
        printf(" %10s", m->start_name[i]);
    printf(" %10s\n", "general");
    for (uint32_t g = 0; g < r->groups; g++) {
        cli_quoted q;
        printf("  %-20s", cli_quote(&q, j->group_name[g]));
        for (int i = 0; i < r->nstarts; i++)
            printf(" %10llu", (unsigned long long)r->start_group_max[(size_t)i * r->groups + g]);
        printf(" %10llu\n", (unsigned long long)r->group_max[g]);
    }
}

/* "1.25x lower (5 -> 4)": how the final value compares with a start's. */
static const char *ratio_words(uint64_t before, uint64_t after, char *buf, size_t len)
{
    if (before == after)
        snprintf(buf, len, "the same (%llu)", (unsigned long long)after);
    else if (after == 0 || before == 0)
        snprintf(buf, len, "%s (%llu -> %llu)", after ? "higher" : "lower", (unsigned long long)before,
                 (unsigned long long)after);
    else if (before > after)
        snprintf(buf, len, "%.2fx lower (%llu -> %llu)", (double)before / (double)after,
                 (unsigned long long)before, (unsigned long long)after);
    else
        snprintf(buf, len, "%.2fx higher (%llu -> %llu)", (double)after / (double)before,
                 (unsigned long long)before, (unsigned long long)after);
    return buf;
}

/* The gain at a glance, against the identity and
 * against Scotch's mapping. */
static void text_gain(const kc_mapgen_result *m)
{
    const kc_gmap_result *r = &m->search;
    for (int i = 0; i < r->nstarts; i++) {
        if (strcmp(m->start_name[i], "identity") && i != m->scotch)
            continue;
        char b1[96], b2[96];
        printf("against %-8s max load %s, bytes x hops %s\n", i == m->scotch ? "Scotch:" : "identity:",
               ratio_words(r->start_cost[i].max, r->cost.max, b1, sizeof b1),
               ratio_words(r->start_cost[i].hops, r->cost.hops, b2, sizeof b2));
    }
}

/* When the hops cap changed the answer: which start the search kept and
 * what the cap cost against the best seen above it. */
static void text_cap(const kc_mapgen_result *m)
{
    const kc_gmap_result *r = &m->search;
    if (r->hops_cap && r->cost.hops > r->hops_cap)
        printf("the result is above Scotch's bytes x hops: within it no mapping was found with a max load as "
               "low as the best start's (%s)\n", m->start_name[r->plain_best_start]);
    if (!cap_changed(r))
        return;
    if (r->plain_best_start != r->best_start)
        printf("the hops cap changed the start: searched from %s (within the cap), not %s (best by the "
               "objective alone)\n", m->start_name[r->best_start], m->start_name[r->plain_best_start]);
    if (kc_cost_cmp(&r->uncapped_seen, &r->cost) < 0)
        printf("what the cap cost: the best mapping seen above it had max load %llu, bytes x hops %llu "
               "(kept: %llu, %llu)\n", (unsigned long long)r->uncapped_seen.max,
               (unsigned long long)r->uncapped_seen.hops, (unsigned long long)r->cost.max,
               (unsigned long long)r->cost.hops);
}

static void render_text(const gen_job *j, const kc_mapgen_result *m)
{
    const kc_gmap_result *r = &m->search;
    char topo[96];
    if (j->info.trace)
        cli_trace_text(stdout, j->info.trace);
    if (kc_topology_is_plain(&j->in.topo))
        printf("general mapping on the %s (%llu nodes), %zu messages\n",
               kc_topology_format(&j->in.topo, topo, sizeof topo), (unsigned long long)j->in.topo.nodes, j->tr.count);
    else
        printf("general mapping on the %s (%llu routers, %llu slots, %llu ranks), %zu messages\n",
               kc_topology_format(&j->in.topo, topo, sizeof topo), (unsigned long long)j->in.topo.nodes,
               (unsigned long long)j->slots, (unsigned long long)j->ranks, j->tr.count);
    if (j->loaded)
        printf("network sized by the traffic (%s): %s\n", j->info.format, j->inferred);
    if (j->info.note[0])
        printf("traffic: %s\n", j->info.note);
    printf("objective: %s%s\n", KC_GMAP_OBJECTIVE,
           j->opts.separate ? " (each communication counted apart: they run at different times)" : "");
    if (m->hops_cap)
        printf("kept within Scotch's bytes x hops (%llu) first, never above the best start's max load "
               "(--hops-cap none lifts this)\n",
               (unsigned long long)m->hops_cap);
    int w = name_width(m);
    printf("  %-*s %14s %16s %22s\n", w, "mapping", "max_load", "bytes_x_hops", "sum_sq_loads");
    printf("  %-*s %14s %16s %22s\n", w, "", "(bytes)", "(bytes x hops)", "(bytes^2)");
    for (int i = 0; i < r->nstarts; i++)
        text_row(w, m->start_name[i], &r->start_cost[i],
                 i == m->scotch && j->baseline == BASELINE_SCOTCH ? "  (baseline)" : "");
    text_row(w, "general", &r->cost, "  (final)");
    char why[160];
    if (m->scotch_skipped)
        printf("not started from Scotch: %s\n", scotch_skipped_text(why, sizeof why));
    if (j->found)
        printf("the %s is %d linear communication%s on this network: kcube's reordering and linear "
               "mapping of %s are starts\n", j->source, j->found, j->found == 1 ? "" : "s",
               j->in.count ? "them and of the named ones" : "them");
    else if (j->source && j->in.count)
        printf("the named communications' reordering and linear mapping are starts\n");
    text_groups(j, m);
    text_gain(m);
    text_cap(m);
    printf("searched from %s: %llu candidate swaps, %llu kept; seed %llu, work %g million updates%s\n",
           m->start_name[r->best_start], (unsigned long long)r->iterations, (unsigned long long)r->accepted,
           (unsigned long long)j->opts.seed, j->work,
           r->stopped_by_wall ? " (cut short by the wall-clock cap: not reproducible)" : "");
    if (!kc_scotch_available())
        printf("Scotch is not built in: its mapping was not a start\n");
    if (r->nodes <= LIST_NODES_MAX) {
        printf("to_physical:");
        for (uint64_t v = 0; v < j->ranks; v++)
            printf(" %llu", (unsigned long long)kc_topology_slot_endpoint(&j->in.topo, r->to_physical[v]));
        printf("\nto_virtual: ");
        for (uint64_t p = 0; p < r->nodes; p++)
            if (r->to_virtual[p] < j->ranks)
                printf(" %u", r->to_virtual[p]);
            else
                printf(" -");
        printf("\n");
    } else {
        printf("to_physical / to_virtual: %llu entries each (--json, or --out FILE for the node list)\n",
               (unsigned long long)r->nodes);
    }
}

/* --out: the node list `kcube simulate --mapping FILE` reads (one physical
 * node per line, in rank order), or the --format format. */
/* A node list of endpoint numbers (general networks: not a permutation of
 * 0..ranks-1, so written here rather than through the export formats). */
static int write_endpoints(const gen_job *j, const uint32_t *phys)
{
    cli_atomic at;
    int rc = cli_atomic_open(&at, j->out);
    if (rc)
        return rc;
    for (uint64_t v = 0; v < j->ranks; v++)
        fprintf(at.f, "%u\n", phys[v]);
    return cli_atomic_commit(&at);
}

static int write_nodes(const cli_args *a, const gen_job *j, const kc_gmap_result *r)
{
    uint32_t *phys = rank_endpoints(j, r);
    int general = !kc_topology_is_plain(&j->in.topo) && j->exp.format == KC_EXPORT_NODELIST;
    int rc = !phys ? cli_error("out of memory")
             : general ? write_endpoints(j, phys)
                       : cli_export_write(a, &j->exp, phys, j->ranks);
    free(phys);
    return rc;
}

/* --emit-traffic: the traffic file kc_traffic_read reads back, message for
 * message, with a "# phase" line where the group changes (names made one
 * word) when there are several groups. */
static int write_traffic(const gen_job *j)
{
    cli_atomic at;
    int rc = cli_atomic_open(&at, j->emit);
    if (rc)
        return rc;
    char topo[96];
    fprintf(at.f, "# kcube traffic: %s%s%s on the %s (%llu ranks)\n# src dst bytes\n", j->source ? j->source : "",
            j->source && j->in.count ? " + " : "", j->in.count ? "communications" : "",
            kc_topology_format(&j->in.topo, topo, sizeof topo), (unsigned long long)j->tr.ranks);
    uint32_t cur = UINT32_MAX;
    for (size_t m = 0; m < j->tr.count; m++) {
        uint32_t g = j->tr.group && j->tr.groups > 1 ? j->tr.group[m] : 0;
        if (g != cur && j->tr.group && j->tr.groups > 1 && !(g == 0 && !kc_traffic_group_name(&j->tr, 0))) {
            fputs("# phase ", at.f);
            for (const char *c = j->group_name[g]; *c; c++)
                fputc(*c > ' ' && *c < 0x7f ? *c : '_', at.f);
            fputc('\n', at.f);
        }
        cur = g;
        fprintf(at.f, "%u %u %llu\n", j->tr.src[m], j->tr.dst[m], (unsigned long long)j->tr.bytes[m]);
    }
    return cli_atomic_commit(&at);
}

int map_general_run(const cli_args *a, int check_only)
{
    gen_job j;
    int rc = resolve(a, &j);
    if (!rc && !check_only && j.emit) {
        rc = write_traffic(&j);
        job_free(&j);
        return rc;
    }
    if (!rc && !check_only)
        rc = gate(a, &j);
    if (rc || check_only) {
        job_free(&j);
        return rc;
    }
    kc_mapgen_result res;
    kc_err err = {0};
    if (compute(&j, &res, &err))
        rc = cli_report(a, &err);
    else if (j.in.fmt == CLI_FMT_JSON)
        rc = render_json(&j, &res);
    else if (j.in.fmt == CLI_FMT_CSV)
        render_csv(&j, &res);
    else
        render_text(&j, &res);
    if (!rc && j.out)
        rc = write_nodes(a, &j, &res.search);
    if (!rc && cli_given(a, &OPT_LOADS)) /* the final mapping's loads, recounted (loads_cli.h) */
        rc = cli_loads_write_mapping(cli_text(a, &OPT_LOADS, NULL), &j.in.topo, &j.tr, res.search.to_physical,
                                     "the final mapping");
    kc_mapgen_result_free(&res);
    job_free(&j);
    return rc;
}
