/* `kcube calmant alltoall` (the complete exchange, seed 003 Section 5): a
 * subcommand of cmd_calmant.c kept in a file of its own. */
#ifndef KC_CLI_CALMANT_ALLTOALL_H
#define KC_CLI_CALMANT_ALLTOALL_H

#include "cli.h"
#include "opt.h"

/* --c, --barrier, --degree: defined in calmant_options.c, shared by
 * `calmant` and its subcommands; so are --n's help line (the CC-cube dimension d) and the old
 * spelling --d for it. */
extern const cli_opt OPT_CALMANT_C, OPT_CALMANT_BARRIER, OPT_CALMANT_DEGREE;
extern const cli_alias kc_calmant_aliases[];
#define CALMANT_N_HELP "CC-cube dimension d (2^d processes; a multiple of --c, d/c >= 2)"

extern const cli_command kc_calmant_alltoall_command;

#endif
