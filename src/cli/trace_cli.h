/* trace_cli.h - OTF2 traces wherever the command line reads traffic or a
 * schedule (docs/traces.md): map --traffic, simulate --pairs and replay
 * FILE accept an OTF2 archive (its anchor traces.otf2 or its directory).
 *
 * A command asks cli_trace_is whether its input is a trace; if not, it
 * refuses the trace-only options with cli_trace_refuse (one line, exit 2).
 * A trace is read once (cli_trace_load: its size from the definitions
 * against the --max-time / --max-memory gate first, then the events), then
 * turned into traffic (cli_trace_traffic: --collectives, --from, --to,
 * --region) or a GOAL schedule (cli_trace_goal: --collectives,
 * --compute-scale). What was read and made is reported the same way by
 * every command: text lines, a "trace" JSON object, CSV rows. */
#ifndef KC_CLI_TRACE_CLI_H
#define KC_CLI_TRACE_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "opt.h"

struct kc_traffic;
struct kc_goal;

/* A trace as a command holds it: the events and what was made of them.
 * Opaque: a command reaches the trace through these functions alone. */
typedef struct cli_trace cli_trace;

/* Is path an OTF2 archive (kc_trace_is_otf2), or a directory (which only
 * an archive may be: reading it then says what is wrong)? */
int cli_trace_is(const char *path);

/* The input is not a trace: every trace option the user gave is refused,
 * saying what the input is ("to a traffic file", "without --traffic").
 * 0 or 2 after one line. */
int cli_trace_refuse(const cli_args *a, const char *input);

/* Read the archive at path into *out: the gate with the size
 * kc_trace_size_otf2 declares, then kc_trace_read_otf2; the options the
 * command takes are read and checked (a --region the trace never enters is
 * refused, naming the regions it has). 0 or an exit status after one line;
 * free *out with cli_trace_free either way (NULL is fine). */
int cli_trace_load(const cli_args *a, const char *path, cli_trace **out);
void cli_trace_free(cli_trace *tr);

/* The trace's world ranks, and the most on one node (0: unknown). */
uint32_t cli_trace_ranks(const cli_trace *tr);
uint32_t cli_trace_ranks_per_node(const cli_trace *tr);
/* A size the command derived from the trace, in its words ("n = 4 ..."),
 * for the report (copied). */
void cli_trace_set_inferred(cli_trace *tr, const char *text);

/* The trace's messages into out (initialised by the caller with
 * out->ranks >= the trace's ranks): kc_trace_traffic with the options'
 * filter. 0 or an exit status after one line. */
int cli_trace_traffic(const cli_args *a, cli_trace *tr, struct kc_traffic *out);

/* The traced run as a schedule into g (kc_trace_goal with --compute-scale
 * and --collectives; g initialised there, free it with kc_goal_free on 0). */
int cli_trace_goal(const cli_args *a, cli_trace *tr, struct kc_goal *g);

/* The report: what the trace holds (ranks, nodes and ranks per node when
 * known, events skipped) and what the conversion kept (point-to-point
 * messages, each collective's calls and algorithm, events outside the
 * window or region). Text lines, the JSON object "trace", CSV rows
 * "trace_ITEM,VALUE" (after the command's own table and a blank line). */
void cli_trace_text(FILE *f, const cli_trace *tr);
void cli_trace_json(cJSON *root, const cli_trace *tr);
void cli_trace_csv(FILE *f, const cli_trace *tr);

#endif
