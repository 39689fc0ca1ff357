/* `kcube calmant alltoall` (the complete exchange, seed 003 Section 5): a
 * subcommand of cmd_calmant.c kept in a file of its own. */
#ifndef KC_CLI_CALMANT_ALLTOALL_H
#define KC_CLI_CALMANT_ALLTOALL_H

#include "cli.h"
#include "opt.h"

/* --d, --c, --barrier, --degree: defined in cmd_calmant.c, shared by its
 * subcommands. */
extern const cli_opt OPT_CALMANT_D, OPT_CALMANT_C, OPT_CALMANT_BARRIER, OPT_CALMANT_DEGREE;

extern const cli_command kc_calmant_alltoall_command;

#endif
