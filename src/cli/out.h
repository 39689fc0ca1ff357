/* Checked output for the command line: standard streams and output files.
 *
 * The promise: a failure to write prints one line and exits 1, and leaves
 * nothing partial behind.
 *  - cli_std_open() at start-up: descriptors 0, 1 and 2 are open, so a
 *    closed stdout can never be reused by a file opened later. A closed 1 or
 *    2 is replaced by /dev/null opened read-only, so writing to it still
 *    fails (EBADF) and is reported instead of vanishing.
 *  - cli_finish(rc) after the command: flushes and closes stdout, checking
 *    every step; on failure "kcube: cannot write standard output: <reason>"
 *    and exit status 1 (rc is kept when it already says failure). A reader
 *    that closed the pipe (EPIPE) is no failure: rc, nothing said.
 *  - cli_atomic_*: where an output file goes depends on what is there.
 *    A new path or a regular file (through symbolic links: a link stays a
 *    link and its target is replaced) is written to a temporary file with a
 *    short hidden name in the same directory (".kcXXXXXX", so a legal long
 *    name stays legal), flushed, fsync'ed and renamed over the target. A
 *    character device (/dev/null, /dev/full, a terminal) or a FIFO is written
 *    in place, never replaced; a FIFO that no process reads is refused
 *    rather than waited on. "-" is standard output. A directory, socket or
 *    block device is refused, and so is a file the user could not write
 *    (the shell's '>' would fail). On any failure the temporary is removed
 *    and "kcube: cannot write PATH: <reason>" is printed (PATH escaped); exit 1.
 *  - cli_check_output(path) before long work: the same choice, and for a
 *    file the directory takes a new one (probed by creating and removing a
 *    temporary).
 *  - cli_signals_init() at start-up: SIGPIPE and SIGXFSZ are ignored, so a
 *    closed pipe or a file size limit makes a write fail (EPIPE, EFBIG): the
 *    first ends quietly, the second is reported; SIGINT, SIGTERM and SIGHUP
 *    remove the live temporary files and stop the gnuplot child first, then
 *    kill kcube as the signal would have.
 *  - cli_csv_field: one CSV field by RFC 4180. */
#ifndef KC_CLI_OUT_H
#define KC_CLI_OUT_H

#include <stddef.h>
#include <stdio.h>

#include <sys/types.h>

struct cli_args;

/* cli_std_open, cli_finish and cli_signals_init (the dispositions above,
 * installed once by main) are the front end's: cli_host.h. */
#include "cli_host.h"
/* The cleanup list the signal handler works on: a temporary path (the string
 * must stay valid until removed) and the gnuplot child. Both are kept in a
 * small fixed table; 0 when registered, -1 when the table is full. */
int cli_cleanup_add(const char *tmp);
void cli_cleanup_remove(const char *tmp);
void cli_cleanup_child(pid_t pid); /* 0: none */

typedef struct cli_atomic {
    FILE *f;      /* write here */
    char *path;   /* the target as given (for messages) */
    char *target; /* the file renamed over (symbolic links resolved), or NULL */
    char *tmp;    /* the temporary file's name, or NULL when written in place */
    int is_stdout;
} cli_atomic;

/* Around one command (dispatch), who writes standard output:
 *  - an output given as '-' takes it alone; the report goes to standard
 *    error. Two outputs on '-', or one with --json, --csv or --emit-c (a
 *    report that is itself data), are refused: one line, CLI_EXIT_USAGE.
 *  - an output given as a file is refused when it is one of the command's
 *    inputs (the same regular file: --mapping, --traffic, a FILE argument)
 *    or another output's file: one line, CLI_EXIT_USAGE.
 *  - with an output file, the report is held back (in a temporary file)
 *    until the command ends, and dropped when the command fails having said
 *    an output could not be written: nothing on standard output then.
 * cli_outputs_begin returns 0 or the exit status; cli_outputs_end(rc)
 * restores descriptor 1, writes the held report and returns rc (or
 * CLI_EXIT_FAIL when the output on '-' fails last). */
int cli_outputs_begin(const struct cli_args *a);
int cli_outputs_end(int rc);
/* A command whose output goes to standard output by default (map --format
 * without --out, export) says so here; owner is the option's name. 0, or
 * CLI_EXIT_USAGE after one line as above. Nothing outside a command. */
int cli_stdout_take(const struct cli_args *a, const char *owner);

/* Does path mean standard output? */
int cli_is_stdout(const char *path);

/* Create the temporary file. 0, or CLI_EXIT_FAIL after printing. */
int cli_atomic_open(cli_atomic *a, const char *path);
/* Finish: check, sync, close and rename into place. 0, or CLI_EXIT_FAIL after
 * printing (the temporary removed). Frees a's memory either way. */
int cli_atomic_commit(cli_atomic *a);
/* Give up: remove the temporary, print nothing. */
void cli_atomic_abort(cli_atomic *a);
/* Print the standard "cannot write PATH: <strerror(errnum)>" line; returns CLI_EXIT_FAIL. */
int cli_write_error(const char *path, int errnum);

/* The whole file at once. 0, or CLI_EXIT_FAIL after printing. */
int cli_write_file(const char *path, const char *data, size_t len);

/* Can path be written (see above)? 0, or CLI_EXIT_FAIL after printing.
 * Leaves nothing behind. */
int cli_check_output(const char *path);

/* One CSV field (RFC 4180): enclosed in double quotes, each '"' doubled, when
 * it holds '"', ',', CR or LF; as it is otherwise. */
void cli_csv_field(FILE *f, const char *s);

#endif
