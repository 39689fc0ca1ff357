/* dispatch.h - the command table and top-level dispatch of kcube. */
#ifndef KC_CLI_DISPATCH_H
#define KC_CLI_DISPATCH_H

#include "cli_host.h"
#include "opt.h"

/* All commands, NULL-terminated. */
const cli_command *const *cli_commands(void);
const cli_command *cli_find_command(const char *name);
/* Parse argv (argv[0] the command name) and run the command, or with
 * check_only only resolve its options (no computation, no output files). */
int cli_run_command(const cli_command *cmd, int argc, char **argv, int check_only);
/* cli_dispatch and cli_dispatch_host, the whole tool: cli_host.h. */

#endif
