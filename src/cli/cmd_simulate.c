/* kcube simulate: the flit-level wormhole simulator from the command line. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plot.h"
#include "kcube/sim.h"
#include "kcube/simmem.h"
#include "kcube/simscenario.h"
#include "kcube/simsweep.h"

#define MAX_POINTS KC_SIMSWEEP_MAX_POINTS
#define MAX_SERIES 12

static void help(FILE *out)
{
    fprintf(out,
            "usage: kcube simulate [--topology hypercube|torus|mesh] --k K --n N\n"
            "         (--pattern NAME | --uniform | --matrix M [--vector V] [--scatter] | --pairs FILE)\n"
            "         [--mapping none|optimal|set:P1,P2,...|FILE] [--routing ecube|dor|pcube|duato]\n"
            "         [--vc-rule highlow|dateline|none] [--vcs V] [--vc-link shared|independent]\n"
            "         [--tie plus|minus|split] [--inj I] [--ej E] [--depth B]\n"
            "         (--rate R | --sweep FROM:TO:STEP [--no-stop] | --oneshot)\n"
            "         [--msg-flits 20] [--injection poisson|bernoulli] [--seed S] [--threads T]\n"
            "         [--warmup C] [--measure C] [--drain C] [--watchdog C]\n"
            "         [--route-delay R] [--switch-delay S] [--link-latency W] [--channel-util]\n"
            "         [--compare [--configs LIST] [--set P1,P2,...]] [--plot FILE.png|FILE.svg]\n"
            "         [--max-memory BYTES] [--json | --csv]\n\n"
            "Flit-level wormhole simulation (seed 000 Section 6, seed 002 Section 4): one-flit\n"
            "buffers, a header that cannot advance blocks its worm in place, first-come\n"
            "arbitration, lowest free dimension first for adaptive choices, Poisson injection\n"
            "at R flits/node/cycle. Latency counts from generation (source queueing included)\n"
            "to the arrival of the tail; throughput is flits delivered per node per cycle.\n\n"
            "  --k, --n        radix and dimension (k = 2: the binary n-cube; default k = 2)\n"
            "  --topology      torus (default for k > 2) or mesh\n"
            "  --pattern P     hypercube: any kcube pattern (below); k-ary: transpose,\n"
            "                  digit-reverse, digit-complement; everywhere: uniform\n"
            "  --pairs FILE    lines 'source destination' (virtual node ids)\n"
            "  --mapping       optimal (M-S), set:P1,P2,... (M-G: the DP over the set, max\n"
            "                  objective), or a file of N node ids (to_physical); physical\n"
            "                  f(x) sends to f(y)\n"
            "  --routing       ecube (hypercube), dor (tori, meshes), pcube, duato (adds a VC)\n"
            "  --vc-rule       torus VCs: highlow (seed 002, default), dateline, none\n"
            "  --vcs V         virtual channels per link (default 1; 2 on tori and for duato)\n"
            "  --tie           torus rings at distance k/2: plus (default), minus, split\n"
            "                  (+ from an even coordinate, - from an odd one)\n"
            "  --vc-link       independent: each VC moves a flit per cycle (default on\n"
            "                  k-ary n-cubes, seed 002's model); shared: the VCs of a link\n"
            "                  share one flit per cycle (default on the binary cube)\n"
            "  --inj, --ej     injection / ejection channels per node (1)\n"
            "  --depth B       flits per channel buffer (1)\n"
            "  --sweep A:B:S   offered loads A, A+S, ..., B; stops past saturation unless --no-stop\n"
            "  --oneshot       every source sends one message at cycle 0; prints the completion time\n"
            "  --warmup, --measure, --drain   cycles (3000, 10000, at most 20000)\n"
            "  --watchdog C    report a deadlock after C cycles without progress (1000)\n"
            "  --route-delay, --switch-delay, --link-latency   router timing (0, 0, 1);\n"
            "                  zero-load latency H(R+S+W) + R + S + L + 1 for H hops\n"
            "  --channel-util  per-link utilisation in the measurement window\n"
            "  --compare       several configurations over the same loads; --configs takes a\n"
            "                  list of ecube, dor, pcube, duato, M-S, M-G or ROUTING@MAPPING\n"
            "                  (default ecube,M-S,M-G,pcube,duato on the hypercube, dor,M-S,M-G\n"
            "                  on tori with k a power of two); M-G maps\n"
            "                  with the set given by --set (default transpose,bit-reverse,\n"
            "                  reverse-flip on the hypercube)\n"
            "  --plot FILE     latency against throughput through gnuplot (.png or .svg)\n"
            "  --threads T     load points in parallel (default: the cores, at most 8); results\n"
            "                  do not depend on it\n"
            "  --max-memory B  memory budget (suffix K, M, G; default: the memory available):\n"
            "                  fewer threads when the estimate does not fit, refused when one\n"
            "                  load point does not\n\n"
            "Messages to oneself are not injected: fixed points of a pattern send nothing and\n"
            "uniform traffic picks among the other nodes.\n\n");
    kc_cli_print_patterns(out);
}

typedef struct series {
    char label[64];
    kc_simspec spec;
    char mapping[600];
    kc_simscenario sc;
    kc_simsweep sweep;
    int built;
} series;

static cJSON *point_json(const kc_simresult *p, const kc_simnet *net, int oneshot, int64_t window)
{
    cJSON *o = cJSON_CreateObject();
    if (!oneshot)
        cJSON_AddNumberToObject(o, "offered", p->offered);
    cJSON_AddNumberToObject(o, "generated", p->generated);
    cJSON_AddNumberToObject(o, "throughput", p->throughput);
    cJSON_AddNumberToObject(o, "latency_avg", p->latency_avg);
    cJSON_AddNumberToObject(o, "latency_p99", p->latency_p99);
    cJSON_AddNumberToObject(o, "network_latency_avg", p->network_latency_avg);
    cJSON_AddBoolToObject(o, "sustainable", p->sustainable);
    cJSON_AddItemToObject(o, "messages", kc_cli_json_u64(p->messages));
    cJSON_AddNumberToObject(o, "cycles", (double)p->cycles);
    cJSON_AddItemToObject(o, "link_traversals", kc_cli_json_u64(p->link_traversals));
    cJSON_AddNumberToObject(o, "wall_seconds", p->wall_seconds);
    cJSON_AddNumberToObject(o, "queue_avg", p->queue_avg);
    if (oneshot)
        cJSON_AddNumberToObject(o, "completion", (double)p->completion);
    cJSON_AddBoolToObject(o, "deadlock", p->deadlock);
    if (p->deadlock) {
        cJSON *c = cJSON_CreateArray();
        char buf[64];
        for (int i = 0; i < p->cycle_len; i++)
            cJSON_AddItemToArray(c, cJSON_CreateString(kc_simnet_channel_name(net, p->cycle[i], buf, sizeof buf)));
        cJSON_AddItemToObject(o, "blocked_cycle", c);
    }
    if (p->link_flits) {
        uint32_t links = net->nodes * (uint32_t)net->ports;
        cJSON *u = cJSON_CreateArray();
        cJSON_AddNumberToObject(o, "window_cycles", (double)(oneshot ? p->cycles : window));
        for (uint32_t l = 0; l < links; l++)
            cJSON_AddItemToArray(u, cJSON_CreateNumber((double)p->link_flits[l]));
        cJSON_AddItemToObject(o, "link_flits", u); /* per link (node * ports + port), in the window */
    }
    return o;
}

static void print_deadlock(const kc_simresult *p, const kc_simnet *net, const char *label, int64_t watchdog)
{
    char buf[64];
    char at[48] = "the one-shot run";
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

static void print_util(const kc_simresult *p, const kc_simnet *net, int64_t window)
{
    uint32_t links = net->nodes * (uint32_t)net->ports, used = 0;
    uint64_t max = 0, sum = 0;
    for (uint32_t l = 0; l < links; l++) {
        if (net->next_node[l] == KC_SIM_NONE)
            continue;
        used++;
        sum += p->link_flits[l];
        if (p->link_flits[l] > max)
            max = p->link_flits[l];
    }
    printf("  link utilisation: mean %.4f, max %.4f flits/cycle over %u links; busiest:", 
           used ? (double)sum / used / (double)window : 0.0, (double)max / (double)window, used);
    int shown = 0;
    for (uint32_t l = 0; l < links && shown < 5; l++)
        if (max && p->link_flits[l] == max) {
            char buf[64];
            printf(" %s", kc_simnet_channel_name(net, l * (uint32_t)net->vcs, buf, sizeof buf));
            shown++;
        }
    printf("\n");
}

static int parse_sweep(const char *text, double *loads, int *count)
{
    double a, b, s;
    char extra;
    if (sscanf(text, "%lf:%lf:%lf%c", &a, &b, &s, &extra) != 3)
        return kc_cli_error("--sweep takes FROM:TO:STEP with 0 < FROM <= TO and STEP > 0, got '%s'", text);
    kc_err err;
    return kc_simsweep_points(a, b, s, loads, count, &err) ? kc_cli_report(&err) : 0;
}

/* One configuration of a comparison: the user's (unresolved) spec with the
 * routing and mapping the token names, resolved on its own. */
static int make_series(series *s, const char *token, const kc_simspec *base, const char *set)
{
    memset(s, 0, sizeof *s);
    s->spec = *base;
    char name[64];
    snprintf(name, sizeof name, "%s", token);
    char *at = strchr(name, '@');
    if (at)
        *at = 0;
    kc_err err;
    if (!strcmp(name, "M-S") || !strcmp(name, "ms")) {
        s->spec.route.algo = KC_ROUTE_AUTO; /* the deterministic routing of the topology */
        snprintf(s->mapping, sizeof s->mapping, "optimal");
    } else if (!strcmp(name, "M-G") || !strcmp(name, "mg")) {
        s->spec.route.algo = KC_ROUTE_AUTO;
        snprintf(s->mapping, sizeof s->mapping, "set:%s", set);
    } else {
        if (kc_simalgo_parse(name, &s->spec.route.algo, &err))
            return kc_cli_report(&err);
        snprintf(s->mapping, sizeof s->mapping, "%s", at ? at + 1 : base->mapping ? base->mapping : "none");
    }
    s->spec.mapping = s->mapping;
    if (kc_simspec_resolve(&s->spec, NULL, &err))
        return kc_cli_report(&err);
    snprintf(s->label, sizeof s->label, "%s", token);
    return 0;
}

static int run(int argc, char **argv)
{
    kc_simspec spec;
    kc_simspec_default(&spec);
    kc_simconfig cfg;
    kc_simconfig_default(&cfg);
    long k = 2, n = -1, vcs = -1, v;
    uint64_t max_memory = 0;
    const char *topo = NULL, *routing = NULL, *vcrule = NULL, *plot = NULL, *configs = NULL, *set = NULL;
    double rate = -1, loads[MAX_POINTS];
    int nloads = 0, compare = 0, no_stop = 0, uniform = 0;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;
    if (threads > 8)
        threads = 8;
    kc_format fmt = KC_FMT_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *val;
        int r;
        if (kc_cli_is_help(argv[i])) {
            help(stdout);
            return KC_EXIT_OK;
        }
        if (kc_cli_format_flag(argv[i], &fmt))
            continue;
#define OPT(name) ((r = kc_cli_opt(argc, argv, &i, name, &val)) != 0)
#define NEED() do { if (r < 0) return KC_EXIT_USAGE; } while (0)
        if (OPT("--k")) {
            NEED();
            if (kc_cli_int(val, 2, 256, "k", &k))
                return KC_EXIT_USAGE;
        } else if (OPT("--n")) {
            NEED();
            if (kc_cli_int(val, 1, KC_SIMNET_MAX_N, "n", &n))
                return KC_EXIT_USAGE;
        } else if (OPT("--topology")) {
            NEED();
            topo = val;
        } else if (OPT("--pattern")) {
            NEED();
            spec.pattern = val;
        } else if (kc_cli_flag(argv[i], "--uniform")) {
            uniform = 1;
        } else if (OPT("--matrix")) {
            NEED();
            spec.matrix = val;
        } else if (OPT("--vector")) {
            NEED();
            spec.vector = val;
        } else if (kc_cli_flag(argv[i], "--scatter")) {
            spec.scatter = 1;
        } else if (OPT("--pairs")) {
            NEED();
            spec.pairs = val;
        } else if (OPT("--mapping")) {
            NEED();
            spec.mapping = val;
        } else if (OPT("--routing")) {
            NEED();
            routing = val;
        } else if (OPT("--vc-rule")) {
            NEED();
            vcrule = val;
        } else if (OPT("--vcs")) {
            NEED();
            if (kc_cli_int(val, 1, KC_SIMNET_MAX_VCS, "vcs", &vcs))
                return KC_EXIT_USAGE;
        } else if (OPT("--inj")) {
            NEED();
            if (kc_cli_int(val, 1, 8, "inj", &v))
                return KC_EXIT_USAGE;
            spec.inj = (int)v;
        } else if (OPT("--ej")) {
            NEED();
            if (kc_cli_int(val, 1, 8, "ej", &v))
                return KC_EXIT_USAGE;
            spec.ej = (int)v;
        } else if (OPT("--depth")) {
            NEED();
            if (kc_cli_int(val, 1, KC_SIMNET_MAX_DEPTH, "depth", &v))
                return KC_EXIT_USAGE;
            spec.depth = (int)v;
        } else if (OPT("--rate")) {
            NEED();
            if (kc_cli_double(val, 1e-9, 1e6, "rate", &rate))
                return KC_EXIT_USAGE;
        } else if (OPT("--sweep")) {
            NEED();
            if (parse_sweep(val, loads, &nloads))
                return KC_EXIT_USAGE;
        } else if (kc_cli_flag(argv[i], "--no-stop")) {
            no_stop = 1;
        } else if (kc_cli_flag(argv[i], "--oneshot")) {
            cfg.oneshot = 1;
        } else if (OPT("--msg-flits")) {
            NEED();
            if (kc_cli_int(val, 1, 65535, "msg-flits", &v))
                return KC_EXIT_USAGE;
            cfg.msg_flits = (int)v;
        } else if (OPT("--injection")) {
            NEED();
            int p;
            if (kc_names_parse(&kc_siminject_names, val, &p))
                return kc_cli_error("--injection takes poisson or bernoulli, got '%s'", val);
            cfg.process = (kc_siminject)p;
        } else if (OPT("--seed")) {
            NEED();
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (!*val || *end || errno || *val == '-')
                return kc_cli_error("--seed takes a whole number, got '%s'", val);
            cfg.seed = s;
        } else if (OPT("--threads")) {
            NEED();
            if (kc_cli_int(val, 1, 64, "threads", &threads))
                return KC_EXIT_USAGE;
        } else if (OPT("--warmup")) {
            NEED();
            if (kc_cli_int(val, 0, 100000000, "warmup", &v))
                return KC_EXIT_USAGE;
            cfg.warmup = v;
        } else if (OPT("--measure")) {
            NEED();
            if (kc_cli_int(val, 1, 100000000, "measure", &v))
                return KC_EXIT_USAGE;
            cfg.measure = v;
        } else if (OPT("--drain")) {
            NEED();
            if (kc_cli_int(val, 0, 100000000, "drain", &v))
                return KC_EXIT_USAGE;
            cfg.drain = v;
        } else if (OPT("--watchdog")) {
            NEED();
            if (kc_cli_int(val, 1, 100000000, "watchdog", &v))
                return KC_EXIT_USAGE;
            cfg.watchdog = v;
        } else if (OPT("--route-delay")) {
            NEED();
            if (kc_cli_int(val, 0, 1000, "route-delay", &v))
                return KC_EXIT_USAGE;
            cfg.route_delay = (int)v;
        } else if (OPT("--switch-delay")) {
            NEED();
            if (kc_cli_int(val, 0, 1000, "switch-delay", &v))
                return KC_EXIT_USAGE;
            cfg.switch_delay = (int)v;
        } else if (OPT("--link-latency")) {
            NEED();
            if (kc_cli_int(val, 1, 1000, "link-latency", &v))
                return KC_EXIT_USAGE;
            cfg.link_latency = (int)v;
        } else if (OPT("--tie")) {
            NEED();
            kc_err e2;
            if (kc_tie_parse(val, &spec.route.tie, &e2))
                return kc_cli_error("%s", e2.msg);
        } else if (OPT("--vc-link")) {
            NEED();
            if (kc_names_parse(&kc_simvclink_names, val, &cfg.vc_independent))
                return kc_cli_error("--vc-link takes shared or independent, got '%s'", val);
        } else if (kc_cli_flag(argv[i], "--channel-util")) {
            cfg.channel_util = 1;
        } else if (kc_cli_flag(argv[i], "--compare")) {
            compare = 1;
        } else if (OPT("--configs")) {
            NEED();
            configs = val;
        } else if (OPT("--set")) {
            NEED();
            set = val;
        } else if (OPT("--plot")) {
            NEED();
            plot = val;
        } else if (OPT("--max-memory")) {
            NEED();
            if (kc_cli_bytes(val, "--max-memory", &max_memory))
                return KC_EXIT_USAGE;
        } else {
            return kc_cli_error("simulate: unknown argument '%s' (see kcube simulate --help)", argv[i]);
        }
#undef OPT
#undef NEED
    }
    kc_err err;
    if (n < 0)
        return kc_cli_error("simulate needs --n");
    spec.k = (int)k;
    spec.n = (int)n;
    if (topo && kc_simtopo_parse(topo, &spec.topo, &err))
        return kc_cli_report(&err);
    if (routing && kc_simalgo_parse(routing, &spec.route.algo, &err))
        return kc_cli_report(&err);
    if (vcrule && kc_simvcrule_parse(vcrule, &spec.route.vcrule, &err))
        return kc_cli_report(&err);
    if (vcs > 0)
        spec.vcs = (int)vcs;
    /* configurations of a comparison resolve the user's spec each on their own */
    kc_simspec user = spec;
    if (kc_simspec_resolve(&spec, &cfg, &err))
        return kc_cli_report(&err);
    if (uniform) {
        if (spec.pattern && strcmp(spec.pattern, "uniform"))
            return kc_cli_error("give either --uniform or --pattern");
        spec.pattern = "uniform";
    }
    if (!spec.pattern && !spec.matrix && !spec.pairs)
        return kc_cli_error("simulate needs --pattern NAME, --uniform, --matrix M or --pairs FILE");
    if ((spec.pattern != NULL) + (spec.matrix != NULL) + (spec.pairs != NULL) > 1)
        return kc_cli_error("give only one of --pattern, --uniform, --matrix and --pairs");
    if ((spec.vector || spec.scatter) && !spec.matrix)
        return kc_cli_error("--vector and --scatter go with --matrix");
    if (cfg.oneshot) {
        if (rate > 0 || nloads)
            return kc_cli_error("--oneshot takes no --rate or --sweep");
        if (spec.pattern && !strcmp(spec.pattern, "uniform"))
            return kc_cli_error("--oneshot needs a pattern or pairs, not uniform traffic");
        loads[0] = 1;
        nloads = 1;
    } else if (rate > 0 && nloads) {
        return kc_cli_error("give --rate or --sweep, not both");
    } else if (rate > 0) {
        loads[0] = rate;
        nloads = 1;
    } else if (!nloads) {
        return kc_cli_error("simulate needs --rate R, --sweep FROM:TO:STEP or --oneshot");
    }
    for (int i = 0; i < nloads && !cfg.oneshot; i++)
        if (loads[i] > cfg.msg_flits)
            return kc_cli_error("offered load %g is more than one message per cycle", loads[i]);
    /* Before the simulation: a plot that cannot be written fails now. */
    int prc;
    if (plot && (prc = cli_plot_check(plot)))
        return prc;
    if ((configs || set) && !compare)
        return kc_cli_error("--configs and --set go with --compare");
    if (!set)
        set = kc_simspec_mapping_set(&spec);

    /* The configurations to run. */
    series *ser = calloc(MAX_SERIES, sizeof *ser);
    if (!ser)
        return kc_cli_error("out of memory");
    int ns = 0, rc = KC_EXIT_OK;
    if (compare) {
        char list[512];
        snprintf(list, sizeof list, "%s", configs ? configs : kc_simspec_compare_configs(&spec));
        for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (ns == MAX_SERIES) {
                rc = kc_cli_error("at most %d configurations", MAX_SERIES);
                goto out;
            }
            if (make_series(&ser[ns], tok, &user, set)) {
                rc = KC_EXIT_USAGE;
                goto out;
            }
            ns++;
        }
        if (!ns) {
            rc = kc_cli_error("--configs lists no configuration");
            goto out;
        }
    } else {
        memset(&ser[0], 0, sizeof ser[0]);
        ser[0].spec = spec;
        snprintf(ser[0].label, sizeof ser[0].label, "%s%s%s", kc_simalgo_name(spec.route.algo),
                 spec.mapping && strcmp(spec.mapping, "none") ? "@" : "",
                 spec.mapping && strcmp(spec.mapping, "none") ? spec.mapping : "");
        ns = 1;
    }
    /* Memory before work: every configuration is built before the sweeps,
     * and each of the threads runs its own engine. */
    kc_simconfig at_max = cfg;
    for (int i = 0; i < nloads; i++)
        if (loads[i] > at_max.load || i == 0)
            at_max.load = loads[i];
    uint64_t shared = 0, per_point = 0;
    for (int s = 0; s < ns; s++) {
        kc_simmem m;
        if (kc_simmem_estimate(&ser[s].spec, &at_max, &m, &err)) {
            rc = kc_cli_report(&err);
            goto out;
        }
        shared += m.shared;
        per_point = m.per_point > per_point ? m.per_point : per_point;
    }
    int run_threads;
    if ((rc = kc_cli_memory_threads(shared, per_point, (int)(threads < nloads ? threads : nloads), max_memory,
                                    &run_threads)))
        goto out;
    for (int s = 0; s < ns; s++) {
        if (kc_simscenario_build(&ser[s].sc, &ser[s].spec, &err)) {
            /* unreadable input files are bad input too */
            rc = err.status == KC_EIO ? kc_cli_error("%s", err.msg) : kc_cli_report(&err);
            goto out;
        }
        ser[s].built = 1;
    }
    kc_cli_progress prog;
    kc_cli_progress_init(&prog, "simulate");
    for (int s = 0; s < ns; s++) {
        kc_cli_progress_cb(&prog, s, ns);
        kc_simsweep_opts so = {loads, nloads, run_threads, !no_stop, NULL};
        if (kc_sim_sweep(&ser[s].sc.net, &ser[s].sc.route, &ser[s].sc.traffic, &cfg, &so, &ser[s].sweep, &err)) {
            kc_cli_progress_done(&prog);
            rc = kc_cli_report(&err);
            goto out;
        }
    }
    kc_cli_progress_done(&prog);
    int deadlocked = 0;
    for (int s = 0; s < ns; s++)
        for (int i = 0; i < ser[s].sweep.count; i++)
            if (ser[s].sweep.points[i].deadlock) {
                print_deadlock(&ser[s].sweep.points[i], &ser[s].sc.net, ser[s].label, cfg.watchdog);
                deadlocked = 1;
            }
    int sweep = nloads > 1;
    if (fmt == KC_FMT_JSON) {
        cJSON *root = cJSON_CreateObject();
        cJSON *net = cJSON_CreateObject();
        cJSON_AddStringToObject(net, "topology", kc_simtopo_name(ser[0].sc.net.topo));
        cJSON_AddNumberToObject(net, "k", ser[0].sc.net.k);
        cJSON_AddNumberToObject(net, "n", ser[0].sc.net.n);
        cJSON_AddNumberToObject(net, "nodes", ser[0].sc.net.nodes);
        cJSON_AddNumberToObject(net, "depth", spec.depth);
        cJSON_AddNumberToObject(net, "msg_flits", cfg.msg_flits);
        cJSON_AddItemToObject(root, "network", net);
        cJSON_AddStringToObject(root, "pattern", spec.pattern ? spec.pattern : spec.matrix ? spec.matrix : spec.pairs);
        cJSON_AddNumberToObject(root, "seed", (double)cfg.seed);
        cJSON *arr = cJSON_CreateArray();
        for (int s = 0; s < ns; s++) {
            series *se = &ser[s];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "label", se->label);
            cJSON_AddStringToObject(o, "routing", kc_simalgo_name(se->spec.route.algo));
            if (se->sc.net.topo == KC_SIM_TORUS) {
                cJSON_AddStringToObject(o, "vc_rule", kc_simvcrule_name(se->spec.route.vcrule));
                cJSON_AddStringToObject(o, "tie", kc_tie_name(se->spec.route.tie));
            }
            cJSON_AddNumberToObject(o, "vcs", se->sc.net.vcs);
            cJSON_AddStringToObject(o, "mapping", se->sc.mapping_desc);
            if (se->sc.contention >= 0)
                cJSON_AddNumberToObject(o, "contention", (double)se->sc.contention);
            cJSON *pts = cJSON_CreateArray();
            for (int i = 0; i < se->sweep.count; i++)
                cJSON_AddItemToArray(pts, point_json(&se->sweep.points[i], &se->sc.net, cfg.oneshot, cfg.measure));
            cJSON_AddItemToObject(o, "points", pts);
            if (sweep) {
                cJSON_AddNumberToObject(o, "saturation_throughput", se->sweep.saturation_throughput);
                cJSON_AddBoolToObject(o, "saturated", se->sweep.saturated);
            }
            cJSON_AddItemToArray(arr, o);
        }
        if (compare) {
            cJSON_AddItemToObject(root, "series", arr);
        } else {
            /* one configuration: its fields at the top level */
            cJSON *one = cJSON_DetachItemFromArray(arr, 0);
            cJSON_Delete(arr);
            cJSON *item = one->child;
            while (item) {
                cJSON *next = item->next;
                cJSON_AddItemToObject(root, item->string, cJSON_DetachItemViaPointer(one, item));
                item = next;
            }
            cJSON_Delete(one);
        }
        rc = kc_cli_print_json(root);
    } else if (fmt == KC_FMT_CSV) {
        printf("series,offered,generated,throughput,latency_avg,latency_p99,network_latency_avg,sustainable,"
               "messages,cycles,link_traversals,wall_seconds%s\n", cfg.oneshot ? ",completion" : "");
        for (int s = 0; s < ns; s++)
            for (int i = 0; i < ser[s].sweep.count; i++) {
                const kc_simresult *p = &ser[s].sweep.points[i];
                printf("%s,%.4f,%.6f,%.6f,%.3f,%.0f,%.3f,%d,%llu,%lld,%llu,%.4f", ser[s].label,
                       cfg.oneshot ? 0.0 : p->offered, p->generated, p->throughput, p->latency_avg, p->latency_p99,
                       p->network_latency_avg, p->sustainable, (unsigned long long)p->messages,
                       (long long)p->cycles, (unsigned long long)p->link_traversals, p->wall_seconds);
                if (cfg.oneshot)
                    printf(",%lld", (long long)p->completion);
                printf("\n");
            }
    } else {
        const kc_simnet *net0 = &ser[0].sc.net;
        printf("network   %s, k = %d, n = %d (%u nodes), %d-flit messages, buffers of %d flit%s\n",
               kc_simtopo_name(net0->topo), net0->k, net0->n, net0->nodes, cfg.msg_flits, spec.depth,
               spec.depth == 1 ? "" : "s");
        printf("traffic   %s, %s injection, seed %llu\n",
               spec.pattern ? spec.pattern : spec.matrix ? spec.matrix : spec.pairs,
               cfg.process == KC_INJECT_POISSON ? "Poisson" : "Bernoulli", (unsigned long long)cfg.seed);
        for (int s = 0; s < ns; s++) {
            series *se = &ser[s];
            printf("\n[%s] routing %s", se->label, kc_simalgo_name(se->spec.route.algo));
            if (se->sc.net.topo == KC_SIM_TORUS)
                printf(" (%s VCs, ties %s)", kc_simvcrule_name(se->spec.route.vcrule), kc_tie_name(se->spec.route.tie));
            printf(", %d VC%s/link, mapping %s", se->sc.net.vcs, se->sc.net.vcs == 1 ? "" : "s", se->sc.mapping_desc);
            if (se->sc.contention >= 0)
                printf(", channel contention %lld", se->sc.contention);
            printf("\n");
            if (cfg.oneshot) {
                const kc_simresult *p = &se->sweep.points[0];
                printf("  one-shot: %llu messages, last tail arrives at cycle %lld, latency avg %.2f max %.0f\n",
                       (unsigned long long)p->messages, (long long)p->completion, p->latency_avg,
                       p->latency_p99);
                continue;
            }
            printf("  %8s %9s %10s %10s %8s %10s %4s %9s %12s %7s\n", "offered", "generated", "throughput",
                   "latency", "p99", "net_lat", "ok", "cycles", "traversals", "wall_s");
            for (int i = 0; i < se->sweep.count; i++) {
                const kc_simresult *p = &se->sweep.points[i];
                printf("  %8.4f %9.4f %10.4f %10.2f %8.0f %10.2f %4s %9lld %12llu %7.3f\n", p->offered, p->generated,
                       p->throughput, p->latency_avg, p->latency_p99, p->network_latency_avg,
                       p->sustainable ? "yes" : "NO", (long long)p->cycles, (unsigned long long)p->link_traversals,
                       p->wall_seconds);
                if (p->link_flits)
                    print_util(p, &se->sc.net, cfg.measure);
            }
            if (sweep)
                printf("  saturation throughput %.4f%s\n", se->sweep.saturation_throughput,
                       se->sweep.saturated ? "" : " (not saturated in the sweep)");
        }
    }
    if (plot && rc == KC_EXIT_OK) {
        cli_plot_series ps[MAX_SERIES];
        double *xy = malloc(sizeof *xy * 2 * MAX_SERIES * MAX_POINTS);
        if (!xy) {
            rc = kc_cli_error("out of memory");
            goto out;
        }
        for (int s = 0; s < ns; s++) {
            double *thr = xy + (size_t)(2 * s) * MAX_POINTS, *lat = thr + MAX_POINTS;
            int m = 0;
            for (int i = 0; i < ser[s].sweep.count; i++)
                if (ser[s].sweep.points[i].sustainable) {
                    thr[m] = ser[s].sweep.points[i].throughput;
                    lat[m++] = ser[s].sweep.points[i].latency_avg;
                }
            ps[s] = (cli_plot_series){ser[s].label, m, thr, lat};
        }
        char title[200];
        snprintf(title, sizeof title, "%s on the %s k=%d n=%d, %d-flit messages",
                 spec.pattern ? spec.pattern : "traffic", kc_simtopo_name(ser[0].sc.net.topo), ser[0].sc.net.k,
                 ser[0].sc.net.n, cfg.msg_flits);
        rc = cli_plot_latency(plot, title, ps, ns);
        free(xy);
    }
    if (deadlocked && rc == KC_EXIT_OK)
        rc = KC_EXIT_FAIL;
out:
    for (int s = 0; s < ns; s++) {
        if (ser[s].built)
            kc_simscenario_free(&ser[s].sc);
        kc_simsweep_free(&ser[s].sweep);
    }
    free(ser);
    return rc;
}

const cli_command kc_command_simulate = {.name = "simulate", .summary = "flit-level wormhole simulation: latency and throughput", .order = 40, .run_argv = run};
