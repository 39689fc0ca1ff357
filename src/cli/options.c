/* The shared option definitions (options.h). */
#include "options.h"

#include <stdio.h>
#include <string.h>

#include "kcube/machine.h"
#include "kcube/mapset.h"
#include "kcube/plan.h"
#include "kcube/sim.h"
#include "kcube/topology.h"
#include "kcube/torus.h"
#include "kcube/trace.h"
#include "budget.h"
#include "text.h"

const cli_opt OPT_N = {.name = "n", .type = CLI_INT, .meta = "N", .help = "dimensions (the network has k^N nodes)",
                       .lo = 1, .hi = 64, .param = "n"};
const cli_opt OPT_K = {.name = "k", .type = CLI_INT, .meta = "K", .help = "nodes per dimension (2..256)",
                       .def = "2", .lo = 2, .hi = 256, .param = "k"};
const cli_opt OPT_TOPOLOGY = {.name = "topology", .type = CLI_CHOICE, .choices = &kc_topo_kind_names,
                              .help = "network (default: hypercube when k = 2, torus otherwise)",
                              .param = "topology"};
const cli_opt OPT_SHAPE = {.name = "shape", .type = CLI_TEXT, .meta = "AxBx..",
                           .help = "sides such as 16x12x16x16x2, axis 0 first: a mesh unless --topology torus or --wrap",
                           .param = "shape"};
/* random is the simulator's (a draw per message); the other commands
 * narrow the option to the torus module's three rules. */
const cli_opt OPT_TIE = {.name = "tie", .type = CLI_CHOICE, .choices = &kc_simtie_names, .def = "plus",
                         .help = "ring tie rule on tori", .param = "tie"};

const cli_opt OPT_PATTERN = {.name = "pattern", .type = CLI_TEXT, .meta = "NAME",
                             .help = "a built-in communication (see the list below)", .flags = CLI_REPEAT,
                             .param = "pattern"};
const cli_opt OPT_MATRIX = {.name = "matrix", .type = CLI_TEXT, .meta = "ROWS",
                            .help = "y = Ax + b: A row 0 first, rows separated by ';'", .flags = CLI_REPEAT,
                            .param = "matrix"};
const cli_opt OPT_VECTOR = {.name = "vector", .type = CLI_TEXT, .meta = "DIGITS",
                            .help = "b for the --matrix before it (digit 0 first; b = 0 without it)", .flags = CLI_REPEAT,
                            .param = "vector"};
const cli_opt OPT_SCATTER = {.name = "scatter", .type = CLI_FLAG,
                             .help = "the --matrix before it is a scatter (each y receives from Ay + b)",
                             .flags = CLI_REPEAT};

const cli_opt OPT_JSON = {.name = "json", .type = CLI_FLAG, .help = "machine-readable JSON on standard output"};
const cli_opt OPT_CSV = {.name = "csv", .type = CLI_FLAG, .help = "CSV on standard output"};
const cli_opt OPT_PLOT = {.name = "plot", .type = CLI_TEXT, .meta = "FILE",
                          .help = "also draw a plot with gnuplot (.png, .svg, .pdf or .eps; '-': PNG on standard output)",
                          .param = "plot"};
const cli_opt OPT_SIZE = {.name = "size", .type = CLI_TEXT, .meta = "WxH",
                          .help = "chart size: pixels for .png/.svg (1200x800), inches or cm for .pdf/.eps (6x4, "
                                  "15cmx10cm)",
                          .param = "size"};
const cli_opt OPT_EMIT_GOAL = {.name = "emit-goal", .type = CLI_TEXT, .meta = "FILE",
                               .help = "write the generated schedule as a GOAL file (for kcube replay; '-': standard output)",
                               .param = "emit_goal"};
/* Where a command writes its output files: a directory (figures) or a file
 * (map's node list); each command's help says which. */
const cli_opt OPT_OUT = {.name = "out", .type = CLI_TEXT, .meta = "PATH", .help = "where to write the output",
                         .param = "out"};

const cli_opt OPT_SEED = {.name = "seed", .type = CLI_U64, .meta = "S",
                          .help = "random seed (0..2^64-1); the same seed gives the same result", .def = "1",
                          .param = "seed"};
const cli_opt OPT_THREADS = {.name = "threads", .type = CLI_INT, .meta = "T",
                             .help = "parallel runs (default: the machine's cores, at most 8)", .lo = 1, .hi = 64,
                             .param = "threads"};
const cli_opt OPT_MAX_MEMORY = {.name = "max-memory", .type = CLI_BYTES, .meta = "BYTES",
                                .help = "memory a run may use (default: what the machine and its control group "
                                        "allow; 0: no limit); K, M, G suffixes",
                                .param = "max_memory"};
/* Wall seconds a run may take by its estimate (budget.h); text, so that
 * "inf" can say "no limit". The default is the gate's, applied when the
 * option is not given (figures checks only a limit the user gives). */
static void max_time_default(char *buf, size_t size) { snprintf(buf, size, "%s", CLI_MAX_TIME_DEFAULT); }
const cli_opt OPT_MAX_TIME = {.name = "max-time", .type = CLI_TEXT, .meta = "SECONDS",
                              .help = "refuse a run estimated to take longer: seconds such as 90, 0.5 or 1e3 (0 or inf: no limit)",
                              .param = "max_time", .shown_def = max_time_default};
const cli_opt OPT_SWEEP = {.name = "sweep", .type = CLI_RANGE, .meta = "FROM:TO:STEP",
                           .help = "offered loads to simulate", .rlo = 1e-9, .rhi = 1e6, .param = "sweep"};
const cli_opt OPT_EXACT = {.name = "exact", .type = CLI_FLAG, .help = "count contention exactly even when large"};
const cli_opt OPT_NO_EXACT = {.name = "no-exact", .type = CLI_FLAG, .help = "skip the exact count (formula only)"};

const cli_opt OPT_KIND = {.name = "kind", .type = CLI_CHOICE, .choices = &kc_map_kind_names, .def = "auto",
                          .help = "which family of mappings map may use", .param = "kind"};
const cli_opt OPT_OBJECTIVE = {.name = "objective", .type = CLI_CHOICE, .choices = &kc_objective_names,
                               .def = "max", .help = "what a set of communications minimises",
                               .param = "objective"};
const cli_opt OPT_SEARCH = {.name = "search", .type = CLI_FLAG,
                            .help = "also run the (seeded, bounded) local search over linear mappings"};
const cli_opt OPT_MAPPING = {.name = "mapping", .type = CLI_TEXT, .meta = "none|optimal|set:P1,P2..|FILE",
                             .help = "the mapping a simulation applies", .def = "none", .param = "mapping"};
const cli_opt OPT_CONFIGS = {.name = "configs", .type = CLI_TEXT, .meta = "LIST",
                             .help = "configurations to compare, comma-separated", .param = "configs"};

const cli_opt OPT_VC_LINK = {.name = "vc-link", .type = CLI_CHOICE, .choices = &kc_simvclink_names,
                             .help = "how the VCs of a link share it (default: independent on k-ary n-cubes, "
                                     "seed 002's model; shared on the binary cube)"};

const cli_opt OPT_ROUTING = {.name = "routing", .type = CLI_TEXT, .meta = "NAME", .param = "routing",
                              .help = "routing (see the list below; default ecube on the hypercube, dor elsewhere)"};
/* One default for every command: the nCUBE 2's (seed 000), which the
 * application-level simulator models. */
const cli_opt OPT_STARTUP = {.name = "startup", .type = CLI_REAL, .meta = "US",
                              .help = "start-up time per message (beta), microseconds; the default is the nCUBE 2's",
                              .def = "164", .rlo = 0, .rhi = 1e12, .param = "startup"};
const cli_opt OPT_BYTE_TIME = {.name = "byte-time", .type = CLI_REAL, .meta = "US",
                               .help = "time per byte (tau), microseconds; the default is the nCUBE 2's", .def = "0.57",
                               .rlo = 0, .rhi = 1e12, .param = "byte_time"};

/* Where ranks run (kcube/machine.h): a machine description or a rule, and
 * the launcher's file a mapping is written as (map --format, export
 * --format; map's old spelling --export). */
const cli_opt OPT_FORMAT = {.name = "format", .type = CLI_CHOICE, .choices = &kc_export_format_names,
                            .help = "the file --out writes the mapping as", .param = "export"};
const cli_opt OPT_MACHINE = {.name = "machine", .type = CLI_TEXT, .meta = "FILE", .param = "machine",
                             .help = "the host and slot of every node: 'NODE HOST [SLOT]' or 'HOST x0 .. x{n-1} "
                                     "[SLOT]' lines (docs/export.md)"};
const cli_opt OPT_HOSTS = {.name = "hosts", .type = CLI_TEXT, .meta = "PATTERN", .param = "hosts",
                           .help = "hosts by a rule instead: names with %d (or %0Nd) for the host number, e.g. "
                                   "nid%05d; with --slots-per-host"};
/* Slots of one host (map, export). Not replay's --ranks-per-node, the
 * ranks of one simulated node: this one was spelled so once and keeps the
 * old spelling as an alias in map and export. */
const cli_opt OPT_SLOTS_PER_HOST = {.name = "slots-per-host", .type = CLI_INT, .meta = "R", .lo = 1,
                                    .hi = KC_SLOT_MAX + 1, .param = "ranks_per_node",
                                    .help = "slots per host under --hosts (nodes fill slots 0..R-1 of a host, then "
                                            "the next; for Open MPI a slot is a core: more slots than this "
                                            "machine's processors on localhost are warned about)"};
const cli_opt OPT_FILL = {.name = "fill", .type = CLI_CHOICE, .choices = &kc_machine_fill_names, .def = "first-axis",
                          .param = "fill", .help = "which coordinate varies fastest as --hosts fills slots, then hosts"};
const cli_opt OPT_FIRST_HOST = {.name = "first-host", .type = CLI_U64, .meta = "H", .def = "0", .param = "first_host",
                                .help = "the number the first host gets in --hosts"};

/* Reading an OTF2 trace (map --traffic, simulate --pairs, replay FILE; trace_cli.h). */
const cli_opt OPT_COLLECTIVES = {.name = "collectives", .type = CLI_CHOICE, .choices = &kc_trace_alg_names,
                                 .def = "auto", .param = "collectives",
                                 .help = "how a trace's collective calls become point-to-point messages"};
/* Seconds from the trace's first timestamp; a window of the traffic. Not in
 * the shared list: gray keeps --from as the old spelling of its --first. */
const cli_opt OPT_FROM = {.name = "from", .type = CLI_REAL, .meta = "SECONDS", .rlo = 0, .rhi = 1e9, .param = "from",
                          .help = "keep a trace's events from this time on (seconds from its first event)"};
const cli_opt OPT_TO = {.name = "to", .type = CLI_REAL, .meta = "SECONDS", .rlo = 0, .rhi = 1e9, .param = "to",
                        .help = "keep a trace's events before this time (seconds from its first event)"};
const cli_opt OPT_REGION = {.name = "region", .type = CLI_TEXT, .meta = "NAME", .param = "region",
                            .help = "keep a trace's events inside this code region only (e.g. the solver's "
                                    "iteration, MPI_Pcontrol with the tracer)"};
const cli_opt OPT_COMPUTE_SCALE = {.name = "compute-scale", .type = CLI_REAL, .meta = "X", .def = "1", .rlo = 0,
                                   .rhi = 1e6, .param = "compute_scale",
                                   .help = "a trace's compute (the time between its MPI calls) times X in the "
                                           "schedule (0: none)"};

const cli_opt *const cli_shared_options[] = {
    &OPT_N,       &OPT_K,      &OPT_TOPOLOGY, &OPT_SHAPE,      &OPT_TIE,   &OPT_PATTERN, &OPT_MATRIX,
    &OPT_VECTOR,  &OPT_SCATTER, &OPT_JSON,    &OPT_CSV,        &OPT_PLOT,  &OPT_SIZE, &OPT_OUT,     &OPT_SEED,
    &OPT_THREADS, &OPT_MAX_MEMORY, &OPT_MAX_TIME, &OPT_SWEEP, &OPT_EXACT,     &OPT_NO_EXACT, &OPT_KIND, &OPT_OBJECTIVE,
    &OPT_SEARCH,  &OPT_MAPPING, &OPT_CONFIGS, &OPT_ROUTING, &OPT_VC_LINK, &OPT_STARTUP, &OPT_BYTE_TIME,
    &OPT_EMIT_GOAL, &OPT_FORMAT, &OPT_MACHINE, &OPT_HOSTS, &OPT_SLOTS_PER_HOST, &OPT_FILL, &OPT_FIRST_HOST,
    &OPT_COLLECTIVES, &OPT_REGION, &OPT_COMPUTE_SCALE, NULL,
};
