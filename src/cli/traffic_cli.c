/* traffic_cli.c - traffic inputs on the command line (traffic_cli.h): the
 * file or standard input read in the format asked or found, the ranks it
 * names, and the smallest network holding them when no size is given. */
#include "traffic_cli.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "network_cli.h"
#include "options.h"
#include "trace_cli.h"

const cli_opt OPT_TRAFFIC_FORMAT = {.name = "traffic-format", .type = CLI_CHOICE, .choices = &kc_traffic_format_names,
                                    .def = "auto", .param = "traffic_format",
                                    .help = "the --traffic input's format; auto: by its name (.grf .goal .mat), "
                                            "then by its first data line (docs/traffic.md)"};

#define STDIN_PATH "/dev/stdin"

/* Standard input through the strict reader (its limits, its messages);
 * a GOAL schedule is read by its path, which /dev/stdin is. */
static kc_status read_stdin(kc_traffic *tr, kc_traffic_format format, kc_traffic_source *src, kc_err *err)
{
    if (format == KC_TRAFFIC_GOAL)
        return kc_traffic_read_file(tr, STDIN_PATH, format, NULL, src, err);
    kc_reader *r;
    kc_status s = kc_reader_open(&r, STDIN_PATH, "standard input", "traffic_file", NULL, err);
    if (s)
        return s;
    s = kc_traffic_read_as(tr, r, format, src, err);
    kc_reader_close(r);
    return s;
}

static void say_how(const kc_traffic_source *src, cli_traffic_info *info)
{
    unsigned long long p = (unsigned long long)src->ranks;
    switch (src->format) {
    case KC_TRAFFIC_MATRIX:
        snprintf(info->how, sizeof info->how, "a %llu x %llu matrix", p, p);
        break;
    case KC_TRAFFIC_GRF:
        snprintf(info->how, sizeof info->how, "a graph of %llu vertices", p);
        break;
    case KC_TRAFFIC_GOAL:
        snprintf(info->how, sizeof info->how, "a schedule of num_ranks %llu", p);
        break;
    default:
        snprintf(info->how, sizeof info->how, "the highest rank in it is %llu", p - 1);
        break;
    }
}

void cli_traffic_info_free(cli_traffic_info *info)
{
    cli_trace_free(info->trace);
    memset(info, 0, sizeof *info);
}

/* An OTF2 trace: its messages (trace_cli.h), its ranks and ranks per node. */
static int load_trace(const cli_args *a, const char *path, uint64_t bound, kc_traffic *tr, cli_traffic_info *info)
{
    kc_err err = {0};
    memset(tr, 0, sizeof *tr); /* freeable whatever happens */
    int r = cli_reject(a, &OPT_TRAFFIC_FORMAT, "to an OTF2 trace (it is found by its anchor file)");
    if (!r)
        r = cli_trace_load(a, path, &info->trace);
    if (r)
        return r;
    uint32_t ranks = cli_trace_ranks(info->trace);
    if (kc_traffic_init(tr, bound ? bound : ranks, &err))
        return cli_report(a, &err);
    if ((r = cli_trace_traffic(a, info->trace, tr)))
        return r;
    info->ranks = ranks;
    info->ranks_per_node = cli_trace_ranks_per_node(info->trace);
    info->format = "otf2";
    snprintf(info->how, sizeof info->how, "an OTF2 trace of %u ranks", ranks);
    return 0;
}

int cli_traffic_load(const cli_args *a, const char *path, uint64_t bound, kc_traffic *tr, cli_traffic_info *info)
{
    memset(info, 0, sizeof *info);
    if (strcmp(path, "-") && cli_trace_is(path))
        return load_trace(a, path, bound, tr, info);
    int rt = cli_trace_refuse(a, "to a traffic file");
    if (rt) {
        memset(tr, 0, sizeof *tr); /* nothing to free */
        return rt;
    }
    kc_err err = {0};
    kc_traffic_format format = (kc_traffic_format)cli_choice(a, &OPT_TRAFFIC_FORMAT, KC_TRAFFIC_AUTO);
    kc_traffic_source src = {format, 0, 0};
    kc_status s = kc_traffic_init(tr, bound ? bound : (uint64_t)1 << 32, &err);
    if (!s)
        s = strcmp(path, "-") ? kc_traffic_read_file(tr, path, format, NULL, &src, &err)
                              : read_stdin(tr, format, &src, &err);
    if (!s && !bound)
        s = kc_traffic_set_ranks(tr, src.ranks, &err);
    if (s)
        return cli_report(a, &err);
    if (src.square)
        snprintf(info->note, sizeof info->note,
                 "%d lines of %d numbers, read as a list of messages (as a %d x %d matrix: --traffic-format matrix)",
                 src.square, src.square, src.square, src.square);
    info->ranks = src.ranks;
    info->format = kc_names_name(&kc_traffic_format_names, src.format);
    say_how(&src, info);
    return 0;
}

int cli_traffic_sized(const cli_args *a)
{
    return cli_given(a, &OPT_N) || cli_given(a, &OPT_SHAPE) || cli_given(a, &OPT_NETWORK);
}

int cli_smallest_n(uint64_t k, uint64_t need, int max)
{
    uint64_t have = k;
    int n = 1;
    while (have < need && n < max && have <= UINT64_MAX / k) {
        have *= k;
        n++;
    }
    return n;
}

int cli_traffic_infer_n(const cli_args *a, const cli_traffic_info *info, int *n, char *how, size_t size)
{
    if (cli_given(a, &OPT_NODES))
        return cli_error("--nodes allocates routers of a network: give its size too (--n, --shape or --network)");
    int k = (int)cli_int(a, &OPT_K, 2), c = (int)cli_int(a, &OPT_ENDPOINTS, 1);
    int kind = cli_choice(a, &OPT_TOPOLOGY, k == 2 ? KC_TOPO_HYPERCUBE : KC_TOPO_TORUS);
    int m = *n = cli_smallest_n((uint64_t)k, (info->ranks + (uint64_t)c - 1) / (uint64_t)c, KC_TOPO_MAX_DIMS);
    char ep[48] = "", side[32] = "";
    if (c > 1)
        snprintf(ep, sizeof ep, " at %d endpoints a router", c);
    if (kind != KC_TOPO_HYPERCUBE)
        snprintf(side, sizeof side, " of side %d", k);
    snprintf(how, size, "n = %d, the smallest %s%s holding the input's %llu ranks%s (%s)", m,
             kc_names_name(&kc_topo_kind_names, kind), side, (unsigned long long)info->ranks, ep, info->how);
    return 0;
}
