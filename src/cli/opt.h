/* opt.h - the command line's one declarative option layer.
 *
 * Every option is defined once (a cli_opt: name, type, range or name table,
 * default, help line, and the library parameter id it answers for). A
 * command lists the options it takes (cli_use), plus documented aliases for
 * old spellings (cli_alias), its positional arguments and nested
 * subcommands. One parser turns argv into a cli_args: every occurrence in
 * order (so order-sensitive lists such as --matrix M --vector V keep their
 * pairing) with its value already checked against type and range, and the
 * defaults parsed from the same table. Help text is generated from the same
 * table. Commands then run parse -> resolve -> compute -> render.
 *
 * Cost: parsing is linear in argc times the command's option count. */
#ifndef KC_CLI_OPT_H
#define KC_CLI_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kcube/error.h"
#include "kcube/names.h"

typedef enum cli_type {
    CLI_FLAG,   /* no value */
    CLI_INT,    /* whole number in [lo, hi] (long long) */
    CLI_U64,    /* any value 0..2^64-1 (seeds) */
    CLI_REAL,   /* finite number in [rlo, rhi] */
    CLI_TEXT,   /* any text (file names, lists); checked by the command */
    CLI_CHOICE, /* one name of a kc_names table */
    CLI_RANGE,  /* FROM:TO:STEP, finite, FROM <= TO, STEP > 0, at most CLI_RANGE_MAX points */
    CLI_BYTES   /* a size in bytes with an optional K, M, G or T suffix (powers of 1024) */
} cli_type;

/* What `kcube --version` and `kcube COMMAND --version` print. */
#define CLI_VERSION_LINE "kcube 0.1.0"

/* A range never asks for more points than this (each point is a run). */
#define CLI_RANGE_MAX 100000

enum {
    CLI_REPEAT = 1u << 0, /* may be given several times; every occurrence is kept */
};

typedef struct cli_opt {
    const char *name; /* without the leading dashes */
    cli_type type;
    const char *meta; /* the value's placeholder in help ("N", "FILE"); NULL for choices */
    const char *help; /* one line */
    const char *def;  /* default as text (parsed like user text), or NULL */
    long long lo, hi; /* CLI_INT */
    double rlo, rhi;  /* CLI_REAL and the ends of CLI_RANGE */
    const kc_names *choices; /* CLI_CHOICE */
    unsigned flags;
    const char *param; /* the library parameter id (kc_err.param) this option sets, or NULL */
    /* A default the option does not parse (def is NULL) because the code
     * applies it only when the option is not given, rendered for help from
     * the very constant or library default the code uses; NULL for none. */
    void (*shown_def)(char *buf, size_t size);
} cli_opt;

/* An option as one command uses it; help and def, when set, replace the
 * shared ones for this command only (say why in the help line). def is
 * allowed only where the option has no default of its own: one option, one
 * default (tests/test_opt_table.c holds every command to it). def =
 * CLI_REQUIRED instead says the command cannot run without the option: it
 * has no default there (help says "(required)", the parser refuses a line
 * without it). */
typedef struct cli_use {
    const cli_opt *opt;
    const char *help;
    const char *def;
} cli_use;

extern const char cli_required[];
#define CLI_REQUIRED cli_required
/* Does the command need the option given (def CLI_REQUIRED)? */
#define CLI_IS_REQUIRED(u) ((u)->def == cli_required)

/* A command that takes an option in a narrower form than its definition:
 * only lists the CLI_CHOICE names it accepts ("mesh|torus"; help lists just
 * those, the parser refuses the others with one line); meta replaces the
 * value's placeholder in help (a CLI_TEXT option taken in fewer forms). */
typedef struct cli_narrow {
    const cli_opt *opt;
    const char *only;
    const char *meta;
} cli_narrow;

/* An old spelling kept working: `--name` means `--target VALUE` when value
 * is set (a flag alias, e.g. --mesh for --topology mesh), else `--target`
 * with the alias's own value (an option renamed: the old name takes its value).
 * With shape_target set, a following argument that looks like AxB is taken
 * as that option's value too (hl --mesh 16x16). */
typedef struct cli_alias {
    const char *name;
    const cli_opt *target;
    const char *value;
    const cli_opt *shape_target;
    const char *note; /* one line for help, e.g. "old spelling of --topology mesh" */
} cli_alias;

typedef struct cli_value {
    const cli_opt *opt;
    const char *text; /* as given (or the default's text) */
    int from_user;    /* 0 for a default */
    const char *spelled; /* the old spelling (cli_alias name) it was given as, else NULL: messages use it */
    union {
        long long i;
        uint64_t u;
        double r;
        int choice;
        struct {
            double from, to, step;
            long long count;
        } range;
        uint64_t bytes;
    } v;
} cli_value;

struct cli_command;

typedef struct cli_args {
    const struct cli_command *cmd; /* the (innermost) command */
    const char *path;              /* "map", "calmant load": for messages */
    cli_value *vals;               /* occurrences in order, then defaults */
    size_t nvals, nuser;           /* all; given by the user (a prefix of vals) */
    const char **pos;              /* positional arguments */
    size_t npos;
    const struct cli_host *host;   /* the program around the command (cli.h), NULL in kcube */
} cli_args;

/* One command (or nested subcommand). src/cli/cmd_<name>.c defines
 * kc_command_<name>; the table is generated from the file names. */
typedef struct cli_command {
    const char *name;
    const char *summary;     /* one line for `kcube --help` */
    int order;               /* position in the help listing */
    const char *description; /* a paragraph for `kcube NAME --help`, or NULL */
    const cli_use *opts;     /* ends with {NULL} */
    const cli_alias *aliases; /* ends with {NULL}, or NULL */
    const cli_narrow *narrow; /* ends with {NULL}, or NULL */
    const char *positional;  /* placeholder ("FILE") or NULL for none */
    int min_pos, max_pos;
    const struct cli_command *const *subs; /* nested subcommands (NULL-terminated), or NULL */
    /* Resolve the options without running (exit status; used by fuzzing and
     * tests), and the whole command. Either may be NULL for a group. */
    int (*check)(const cli_args *a);
    int (*run)(const cli_args *a);
    const char *epilog; /* extra help text after the options (examples), or NULL */
    void (*more_help)(FILE *out); /* generated lists (patterns, routings) after the epilog, or NULL */
} cli_command;

/* Parse argv (argv[0] is the command's name) for cmd, descending into nested
 * subcommands. Returns 0 with *out filled, 1 when help was requested and
 * printed to `help_out` (out is then empty), or 2 after printing one error
 * line. Free with cli_args_free. */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out, FILE *help_out);
void cli_args_free(cli_args *a);

/* The default help shows for an option as cmd uses it: the command's own,
 * the option's, or the one shown_def renders into buf (size bytes); NULL
 * when there is none or the option is required. Help and the man page
 * share it. */
const char *cli_shown_default(const cli_use *u, char *buf, size_t size);

/* Print the generated help of a command. */
void cli_help(const cli_command *cmd, const char *path, FILE *out);

/* The value's placeholder as help shows it ("N", "a|b|c", the narrowed
 * form; empty for a flag). Help, the man page and the completion share it. */
void cli_opt_meta(const cli_command *cmd, const cli_opt *o, char *buf, size_t size);

/* How cmd narrows option o (NULL: not at all), and does it accept the
 * choice name (1 when not narrowed)? */
const cli_narrow *cli_narrowed(const cli_command *cmd, const cli_opt *o);
int cli_allows(const cli_command *cmd, const cli_opt *o, const char *name);

/* The value in force: the last occurrence given, else the default, else
 * NULL. Asking for an option the command does not declare is a bug and
 * returns NULL. */
const cli_value *cli_get(const cli_args *a, const cli_opt *o);
/* Was the option given on the command line (any occurrence)? */
int cli_given(const cli_args *a, const cli_opt *o);
/* Typed shortcuts; the fallback is used when the option is neither given
 * nor has a default. */
int cli_flag(const cli_args *a, const cli_opt *o);
long long cli_int(const cli_args *a, const cli_opt *o, long long fallback);
uint64_t cli_u64(const cli_args *a, const cli_opt *o, uint64_t fallback);
double cli_real(const cli_args *a, const cli_opt *o, double fallback);
int cli_choice(const cli_args *a, const cli_opt *o, int fallback);
const char *cli_text(const cli_args *a, const cli_opt *o, const char *fallback);

/* Reject an option that was given but does not apply in this situation:
 * prints "kcube: --NAME does not apply <why>" and returns 2 when given, else
 * returns 0. */
int cli_reject(const cli_args *a, const cli_opt *o, const char *why);

/* Report a library error: the message, prefixed by the option that sets the
 * parameter at fault when the command has one; exit status 2 for input
 * errors, 1 for the rest (memory, i/o, internal). */
int cli_report(const cli_args *a, const kc_err *err);

/* Parse one value of an option's type from text (used for defaults and by
 * tests). 0 on success; on failure prints one error line naming --NAME. */
int cli_parse_value(const cli_opt *o, const char *text, cli_value *out);

#endif
