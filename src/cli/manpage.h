/* manpage.h - the man page and the bash completion of kcube, generated from
 * the same command and option tables the parser and --help use (so neither
 * can go stale). `kcube help --man` and `kcube help --bash-completion` print
 * them; the build installs their output (cmake/install.cmake). */
#ifndef KC_CLI_MANPAGE_H
#define KC_CLI_MANPAGE_H

#include <stdio.h>

/* kcube(1) in roff (man macros): every command and subcommand, every option
 * with its placeholder, default and choices, old spellings, examples, exit
 * statuses. Cost: linear in the size of the tables. */
void cli_man(FILE *out);

/* A bash completion script defining _kcube: commands, subcommands, each
 * command's options, the names of choice options and file names for file
 * options. Cost: linear in the size of the tables. */
void cli_bash_completion(FILE *out);

#endif
