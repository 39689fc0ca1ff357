/* The top-level dispatch: kcube COMMAND [options] (the command table is
 * commands.c's). */
#include "dispatch.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "cli.h"
#include "core/near.h"
#include "manpage.h"
#include "out.h"
#include "presets.h"
#include "seeds.h"
#include "text.h"

static void usage(FILE *out)
{
    fputs("kcube - plan, analyse and simulate regular communication on hypercubes,\n"
          "k-ary n-cubes and meshes.\n\n"
          "usage: kcube COMMAND [options]     (kcube help COMMAND, or kcube COMMAND --help, for its options)\n\n"
          "commands:\n",
          out);
    /* Listed by their declared order, not by file name; every command is
     * listed, whatever its order (ties keep the file-name order). */
    const cli_command *const *commands = cli_commands();
    int prev = INT_MIN;
    for (;;) {
        int next = INT_MAX;
        for (size_t i = 0; commands[i]; i++)
            if (commands[i]->order > prev && commands[i]->order < next)
                next = commands[i]->order;
        if (next == INT_MAX)
            break;
        for (size_t i = 0; commands[i]; i++)
            if (commands[i]->order == next)
                fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
        prev = next;
    }
    fputs("\nConventions: node x has address digits x_0 (least significant) .. x_{n-1};\n"
          "matrices are written row 0 first, rows separated by ';', column 0 first.\n"
          "Files: '-' as an output file (--out, --plot, --emit-goal) means standard output, and\n"
          "then the report goes to standard error.\n"
          "Exit status: 0 success (also when a reader closes the pipe early: kcube ... | head);\n"
          "1 failure, including an output file or standard output that cannot be written\n"
          "(its directory missing, no permission, a full disk, a FIFO no one reads);\n"
          "2 bad input, including an input file that cannot be opened or read.\n"
          "Machine presets (--network NAME, e.g. sequoia, titan, fugaku): kcube --list-networks.\n"
          "A run estimated to take more than --max-time SECONDS (default " CLI_MAX_TIME_DEFAULT ") or more memory than\n"
          "the machine has (--max-memory) is refused before it starts, with the value that runs it.\n",
          out);
    cli_seed_key_all(out);
}

/* Other spellings of command names (the British one the docs also use). */
static const char *const command_aliases[][2] = {{"analyse", "analyze"}};

const cli_command *cli_find_command(const char *name)
{
    const cli_command *const *commands = cli_commands();
    for (size_t a = 0; a < sizeof command_aliases / sizeof command_aliases[0]; a++)
        if (strcmp(name, command_aliases[a][0]) == 0)
            name = command_aliases[a][1];
    for (size_t i = 0; commands[i]; i++)
        if (strcmp(name, commands[i]->name) == 0)
            return commands[i];
    return NULL;
}

static int run_command(const cli_command *cmd, int argc, char **argv, int check_only, const cli_host *host)
{
    cli_args a;
    int r = cli_parse(cmd, argc, argv, &a, stdout);
    if (r == 1)
        return CLI_EXIT_OK; /* help printed */
    if (r)
        return r;
    a.host = host;
    int (*fn)(const cli_args *) = check_only ? a.cmd->check : a.cmd->run;
    /* Who writes standard output, and outputs that are inputs (out.h). */
    if (!(r = cli_outputs_begin(&a)))
        r = fn ? fn(&a) : CLI_EXIT_OK;
    r = cli_outputs_end(r);
    cli_args_free(&a);
    return r;
}

/* One error line for a command name that is not in the table; CLI_EXIT_USAGE. */
static int unknown_command(const char *name)
{
    cli_quoted q;
    kci_near near;
    kci_near_init(&near, name, strlen(name));
    const cli_command *const *commands = cli_commands();
    for (size_t i = 0; commands[i]; i++)
        kci_near_offer(&near, commands[i]->name, strlen(commands[i]->name));
    kci_near_offer(&near, "help", 4);
    size_t len;
    const char *best = kci_near_best(&near, &len);
    if (best)
        fprintf(stderr, "kcube: unknown command '%s'; did you mean '%.*s'? (kcube --help lists the commands)\n",
                cli_quote(&q, name), (int)len, best);
    else
        fprintf(stderr, "kcube: unknown command '%s' (kcube --help lists the commands)\n", cli_quote(&q, name));
    return CLI_EXIT_USAGE;
}

/* kcube help WORD..: the help of the command the words name, as WORD..
 * --help prints it (the parser descends into subcommands); an unknown
 * command is the same error as without help. */
static int help_command(int argc, char **argv, const cli_host *host)
{
    if (argc > 8)
        return cli_error("help takes a command and its subcommand (kcube --help lists the commands)");
    const cli_command *cmd = cli_find_command(argv[0]);
    if (!cmd)
        return unknown_command(argv[0]);
    char *words[10];
    for (int i = 0; i < argc; i++)
        words[i] = argv[i];
    words[argc] = (char *)"--help";
    words[argc + 1] = NULL;
    return run_command(cmd, argc + 1, words, 0, host);
}

int cli_run_command(const cli_command *cmd, int argc, char **argv, int check_only)
{
    return run_command(cmd, argc, argv, check_only, NULL);
}

int cli_dispatch(int argc, char **argv) { return cli_dispatch_host(argc, argv, NULL); }

int cli_dispatch_host(int argc, char **argv, const cli_host *host)
{
    if (argc < 2)
        return cli_error("no command given (kcube --help lists the commands)");
    /* Hidden: what the build installs as kcube.1 and the bash completion (manpage.h). */
    if (argc == 3 && strcmp(argv[1], "help") == 0 && strcmp(argv[2], "--man") == 0) {
        cli_man(stdout);
        return CLI_EXIT_OK;
    }
    if (argc == 3 && strcmp(argv[1], "help") == 0 && strcmp(argv[2], "--bash-completion") == 0) {
        cli_bash_completion(stdout);
        return CLI_EXIT_OK;
    }
    /* kcube help COMMAND [SUBCOMMAND] is kcube COMMAND [SUBCOMMAND] --help. */
    if (argc >= 3 && strcmp(argv[1], "help") == 0)
        return help_command(argc - 2, argv + 2, host);
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        puts(CLI_VERSION_LINE);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--list-networks") == 0)
        return argc == 2 ? cli_preset_list(stdout) : cli_error("--list-networks takes no arguments");
    const cli_command *cmd = cli_find_command(argv[1]);
    if (!cmd)
        return unknown_command(argv[1]);
    return run_command(cmd, argc - 1, argv + 1, 0, host);
}
