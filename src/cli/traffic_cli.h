/* traffic_cli.h - the command line's traffic inputs (`--traffic FILE`, '-'
 * for standard input) in every format kcube reads (--traffic-format), and
 * what they say about the job: how many ranks, how that was found, ranks
 * per node where the input knows it. Commands read traffic through here,
 * so a new input kind (a trace) is added once for all of them; and a
 * network left unsized (no --n) is sized from the ranks here. */
#ifndef KC_CLI_TRAFFIC_CLI_H
#define KC_CLI_TRAFFIC_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "opt.h"
#include "kcube/traffic.h"

extern const cli_opt OPT_TRAFFIC_FORMAT;

typedef struct cli_traffic_info {
    uint64_t ranks;          /* the ranks the input names (kc_traffic_source) */
    uint64_t ranks_per_node; /* 0: unknown (only a trace knows) */
    const char *format;      /* the format read ("csv", ...) */
    char how[160];           /* how the ranks were found, e.g. "the highest rank in it is 12" */
    char note[160];          /* what the output should say of the reading, or "" (a list that a
                                small matrix would be too) */
    struct cli_trace *trace; /* the input was an OTF2 trace: it, for the report (trace_cli.h); else NULL */
} cli_traffic_info;

/* What cli_traffic_load kept (the trace); info is then empty. */
void cli_traffic_info_free(cli_traffic_info *info);

/* Read the traffic at `path` ('-': standard input, once) in the
 * --traffic-format the command was given, or the messages of an OTF2 trace
 * (trace_cli.h: --collectives, --from, --to, --region; refused on other
 * inputs), into tr (initialised here; free
 * it with kc_traffic_free even after a failure). bound: the network's
 * slots when it is known, so every rank is checked against them as it is
 * read (errors name line and column); 0 when the input decides: tr->ranks
 * is then info->ranks. Returns 0 or an exit status after one line; free
 * info with cli_traffic_info_free either way. */
int cli_traffic_load(const cli_args *a, const char *path, uint64_t bound, kc_traffic *tr, cli_traffic_info *info);

/* Does the command line size the network (--n, --shape or --network)? */
int cli_traffic_sized(const cli_args *a);
/* The smallest network of the kind --k, --topology and --endpoints say
 * that holds info->ranks: its dimension count in *n (k^n routers with C
 * endpoints each >= ranks, n >= 1), and the sentence saying so in `how`.
 * --nodes without a size is refused. Returns 0 or an exit status after one
 * line. */
int cli_traffic_infer_n(const cli_args *a, const cli_traffic_info *info, int *n, char *how, size_t size);
/* The smallest n >= 1 with k^n >= need (k >= 2), at most max. */
int cli_smallest_n(uint64_t k, uint64_t need, int max);

#endif
