/* Fuzz every command's option parsing and validation: parse, then resolve
 * only (cli_command.check: no computation, no files written). Byte 0 picks
 * the command; the rest, split at newlines, is its argv. Help text goes to
 * /dev/null; messages still reach stderr. */
#include <stdio.h>

#include "dispatch.h"
#include "fuzz_input.h"

#define KCF_MAX_ARGS 24

static void kcf_run(kcf_input *in)
{
    static int quiet;
    if (!quiet) {
        quiet = 1;
        if (!freopen("/dev/null", "w", stdout))
            abort();
    }
    const cli_command *const *cmds = cli_commands();
    size_t ncmd = 0;
    while (cmds[ncmd])
        ncmd++;
    const cli_command *cmd = cmds[kcf_byte(in) % ncmd];
    char *argv[KCF_MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)cmd->name;
    while (in->size && argc <= KCF_MAX_ARGS)
        argv[argc++] = kcf_line(in);
    argv[argc] = NULL;
    int rc = cli_run_command(cmd, argc, argv, 1);
    KCF_CHECK(rc == 0 || rc == 1 || rc == 2);
    for (int i = 1; i < argc; i++)
        free(argv[i]);
}
