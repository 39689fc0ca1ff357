/* kcube replay --model loggops: the LogGOPS model (kcube/loggops.h) of a
 * schedule, without a network. Kept apart from cmd_replay.c so that the
 * network replay and the pure model evolve in separate files. */
#ifndef KC_CLI_REPLAY_LOGGOPS_H
#define KC_CLI_REPLAY_LOGGOPS_H

#include "kcube/goal.h"
#include "kcube/loggops.h"
#include "opt.h"
#include "cli.h"

enum { CLI_REPLAY_NETWORK, CLI_REPLAY_LOGGP, CLI_REPLAY_LOGGOPS };
extern const kc_names cli_replay_model_names;
extern const cli_opt OPT_MODEL;   /* --model network|loggp|loggops */
extern const cli_opt OPT_LOGGOPS; /* --loggops L=..,o=..,g=..,G=..,O=..,S=.. */

/* Which model, and its LogGOPS parameters: with --model loggops
 * LogGOPSim's defaults, then --loggops; with the network model only o, g,
 * O and S of --loggops (L and G refused: the network gives them;
 * *network_cpu = 1 when given); refused with loggp, as are the network's
 * options with the pure model. 0 or an exit status (message printed). */
int cli_replay_model(const cli_args *a, int *model, kc_loggops_params *p, int *network_cpu);

struct cli_trace;

/* Run the model on a validated schedule and print it in fmt; with a
 * timeline path (or NULL), also write the CPU slices there (replay_timeline.h);
 * with the trace the schedule was made from (or NULL), its report too
 * (trace_cli.h). 0 or an exit status. */
int cli_replay_loggops(const cli_args *a, const char *path, cli_fmt fmt, const kc_goal *g,
                       const kc_loggops_params *p, const char *timeline, const struct cli_trace *tr);

#endif
