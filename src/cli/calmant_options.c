/* The options `kcube calmant` and its subcommands share (--c, --barrier,
 * --degree, and --d as the old spelling of --n), apart from both commands'
 * files so that neither needs the other's. Wide ranges on purpose: the
 * library judges c and Q and names the fault. */
#include "calmant_alltoall.h"

#include "options.h"

const cli_opt OPT_CALMANT_C = {.name = "c", .type = CLI_INT, .meta = "C", .help = "mesh dimension (1, 2 or 3)",
                              .lo = -1000, .hi = 1000, .param = "c"};
const cli_opt OPT_CALMANT_BARRIER = {.name = "barrier", .type = CLI_REAL, .meta = "B", .def = "0",
                                    .help = "barrier after each pipelined iteration, in the unit of --startup",
                                    .rlo = 0, .rhi = 1e12, .param = "barrier"};
const cli_opt OPT_CALMANT_DEGREE = {.name = "degree", .type = CLI_INT, .meta = "Q",
                                   .help = "pipelining degree (packets per message; 1: not pipelined)",
                                   .lo = -1000000000, .hi = 1000000000, .param = "degree"};

const cli_alias kc_calmant_aliases[] = {
    {"d", &OPT_N, NULL, NULL, "old spelling of --n (the CC-cube dimension d)"},
    {NULL, NULL, NULL, NULL, NULL},
};
