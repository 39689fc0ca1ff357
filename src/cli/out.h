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
 *    and exit status 1 (rc is kept when it already says failure).
 *  - cli_atomic_*: an output file is written to a temporary file in the same
 *    directory (mkstemp, ".<name>.XXXXXX"), flushed, fsync'ed, closed and
 *    renamed over the target; on any failure the temporary is removed and
 *    "kcube: cannot write PATH: <reason>" is printed (PATH escaped).
 *  - cli_check_output(path) before long work: the directory exists and a
 *    file can be created in it (probed by creating and removing one). */
#ifndef KC_CLI_OUT_H
#define KC_CLI_OUT_H

#include <stddef.h>
#include <stdio.h>

void cli_std_open(void);
int cli_finish(int rc);

typedef struct cli_atomic {
    FILE *f;    /* write here; NULL once closed (e.g. another program writes tmp) */
    char *path; /* the target */
    char *tmp;  /* the temporary file's name */
} cli_atomic;

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

/* Can path be written (directory exists and takes a new file; path is not a
 * directory)? 0, or CLI_EXIT_FAIL after printing. Leaves nothing behind. */
int cli_check_output(const char *path);

#endif
