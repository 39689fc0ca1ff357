/* kcube: the command-line tool. Subcommands live in cmd_<name>.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "text.h"
#include "kc_commands.inc"

static const struct kc_command *const commands[] = {KC_COMMAND_TABLE};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fputs("kcube - plan, analyse and simulate regular communication on hypercubes,\n"
          "k-ary n-cubes and meshes.\n\n"
          "usage: kcube COMMAND [options]     (kcube COMMAND --help for its options)\n\n"
          "commands:\n",
          out);
    /* Listed by their declared order, not by file name. */
    for (int ord = 0; ord < 100; ord++)
        for (size_t i = 0; i < NCOMMANDS; i++)
            if (commands[i]->order == ord)
                fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fputs("\nConventions: node x has address bits x_0 (least significant) .. x_{n-1};\n"
          "matrices are written row 0 first, rows separated by ';', column 0 first.\n"
          "Exit status: 0 success, 1 failure, 2 bad input.\n",
          out);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return KC_EXIT_USAGE;
    }
    if (kc_cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return KC_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        puts("kcube 0.1.0");
        return KC_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i]->name) == 0)
            return commands[i]->run(argc - 1, argv + 1);
    cli_quoted q;
    return kc_cli_error("unknown command '%s' (kcube --help lists the commands)", cli_quote(&q, argv[1]));
}

int main(int argc, char **argv)
{
    /* Before anything is opened: a closed stdout must not become a file. */
    cli_std_open();
    /* Every command's output, --help included, is checked once at the end. */
    return cli_finish(dispatch(argc, argv));
}
