/* kcube/reader.h - one strict, bounded reader for kcube's text data files.
 *
 * Node lists (mapping files), pairs files (`src dst` per line) and every later
 * text input (traffic `src dst bytes`, schedules) are read through the token
 * iterator below, so they share one grammar and one set of limits:
 *   - tokens are decimal integers (an optional leading '-' is recognised so
 *     that a negative number can be reported as written), separated by spaces,
 *     tabs, carriage returns or commas; '#' starts a comment to the end of line;
 *   - anything else in a token ("14.15", "14x15", "14;15", "0-1", "15a") is an
 *     error naming the line and column of the token and echoing it escaped;
 *   - NUL bytes anywhere, and control or non-ASCII bytes outside comments, are
 *     errors naming their line and column (comments may hold UTF-8 text);
 *   - a line longer than limits.max_line bytes, or an input longer than
 *     limits.max_bytes, is an error: `/dev/zero` or an endless pipe fails after
 *     reading at most max_line (resp. max_bytes) bytes, never hangs;
 *   - a directory is refused before reading.
 * Lines are assembled in a growable buffer (no fixed-size fgets), so line
 * numbers stay right whatever the line lengths.
 * Errors go to kc_err with the parameter id given at open ("mapping_file",
 * "pairs_file", ...); this is library code and never prints.
 * Cost: O(bytes read) time; memory O(longest line) plus a 64 KiB read buffer.
 * Original to kcube (no seed paper): the strict file parsers every reader
 * of user data shares. */
#ifndef KCUBE_READER_H
#define KCUBE_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kcube/error.h"

/* Default limits (0 in kc_reader_limits selects them). */
#define KC_READER_MAX_LINE ((size_t)1 << 16)  /* 64 KiB per line */
#define KC_READER_MAX_BYTES ((size_t)1 << 30) /* 1 GiB per input */

typedef struct kc_reader_limits {
    size_t max_line;  /* bytes in one line, without its newline; 0: default */
    size_t max_bytes; /* bytes in the whole input; 0: default */
} kc_reader_limits;

typedef struct kc_reader kc_reader;

/* One integer token. text/len point into the reader's line buffer and stay
 * valid until the next call on the reader. */
typedef struct kc_token {
    uint64_t value;  /* the number (its magnitude when negative) */
    int negative;    /* written with a leading '-' */
    long line;       /* 1-based line */
    long column;     /* 1-based byte column */
    const char *text;
    size_t len;
} kc_token;

/* The status of a failed open of a user-named input: KC_EIO for the
 * process's own limits (EMFILE, ENFILE, ENOMEM), KC_EINVAL otherwise (the
 * path names nothing readable: the user's input is at fault). */
kc_status kc_open_failure_status(int errnum);
/* The one opener of user-named inputs: non-blocking and without a controlling
 * terminal, then fstat. Regular files, character devices (/dev/stdin of a
 * terminal, /dev/zero) and pipes or FIFOs someone writes to (`<(...)`, a
 * pipe, a named FIFO with a writer) are opened for blocking reads, which the
 * readers' limits bound; a FIFO with no writer, and none after
 * KC_FIFO_WAIT_MS, is refused (KC_EINVAL, "WHAT 'PATH' is a FIFO no one
 * writes to"), so it never hangs; a directory, socket or block device is
 * refused (KC_EINVAL, "WHAT 'PATH' is a socket, not a regular file"). Errors
 * as kc_open_failure_status says. */
#define KC_FIFO_WAIT_MS 1000
kc_status kc_input_open(FILE **f, const char *path, const char *what, const char *param, kc_err *err);
/* Open a file through kc_input_open. `param` is the id put in kc_err on every
 * error (a string constant); `what` names the input in messages, e.g.
 * "mapping file" (the path is appended, escaped). limits may be NULL. A read
 * error later is KC_EINVAL too (the named input cannot be read). */
kc_status kc_reader_open(kc_reader **r, const char *path, const char *what, const char *param,
                         const kc_reader_limits *limits, kc_err *err);
/* Read from memory (tests, fuzzing): `name` replaces "what 'path'". The data
 * is not copied and must outlive the reader. */
kc_status kc_reader_open_mem(kc_reader **r, const void *data, size_t len, const char *name, const char *param,
                             const kc_reader_limits *limits, kc_err *err);
void kc_reader_close(kc_reader *r);
/* The input as messages name it, e.g. "pairs file 'p.txt'" (escaped). */
const char *kc_reader_name(const kc_reader *r);
/* The parameter id given at open ("mapping_file", ...), for errors about
 * the input as a whole (a count of entries). */
const char *kc_reader_param(const kc_reader *r);

/* The next token, across lines. *have = 0 at the end of the input. */
kc_status kc_reader_next(kc_reader *r, kc_token *tok, int *have, kc_err *err);

/* The next non-empty line as exactly `count` tokens (count <= 64), e.g. 2 for
 * `src dst`. *have = 0 at the end of the input. A line with another number of
 * tokens is an error naming the line; `fields` describes the expected line in
 * that message, e.g. "source destination". */
kc_status kc_reader_record(kc_reader *r, kc_token *toks, int count, const char *fields, int *have, kc_err *err);
/* The same with min..max tokens (max <= 64): *got is how many the line had,
 * 0 at the end of the input. For formats with optional trailing fields. */
kc_status kc_reader_record_some(kc_reader *r, kc_token *toks, int min, int max, const char *fields, int *got,
                                kc_err *err);

/* The next non-empty line as 1..max words (max <= 64) for formats that mix
 * names and numbers (machine descriptions): a word is any run of printable
 * ASCII between separators, not checked as a number (value 0); the other
 * rules (comments, bytes, limits) are the same. *got = 0 at the end of the
 * input; a line with more than max words is an error naming the column of
 * the first extra one. */
kc_status kc_reader_words(kc_reader *r, kc_token *toks, int max, int *got, kc_err *err);
/* A word as a whole number 0..max (kc_reader_check's message otherwise);
 * sets tok->value and tok->negative. */
kc_status kc_reader_word_number(const kc_reader *r, kc_token *tok, uint64_t max, const char *what, kc_err *err);

/* The next non-empty line as words, however many (kc_reader_words without a
 * maximum; the fields of a matrix row): *toks grows as needed (start with
 * NULL and *cap 0, free() it after). *got = 0 at the end of the input; a
 * directive line (kc_reader_directive) gives *directive = 1, *got = 1 and
 * its word in kc_reader_directive_arg. O(line). */
kc_status kc_reader_fields(kc_reader *r, kc_token **toks, size_t *cap, size_t *got, int *directive, kc_err *err);

/* The line just read is read again by the next call (once; a format
 * chosen by looking at its first line then reads that line itself). Line
 * numbers stay right. No effect before the first line. */
void kc_reader_unread(kc_reader *r);

/* Quoted fields, as CSV writes them: from now on a field may be written
 * "..." ("" inside for one quote; blanks, commas and '#' inside are part of
 * it). The token is its content without the quotes ("" left doubled) at the
 * column of the opening quote. A quote that does not close on its line, or
 * text after a closing quote, is an error naming the column. With strict,
 * commas delimit fields one by one as in CSV: blanks around a field are
 * ignored (so CRLF lines read as LF), blanks inside an unquoted field are
 * part of it, and an empty field ("1,,2", a trailing comma) is an error
 * naming its column; without, commas and blanks separate alike as by
 * default. */
void kc_reader_csv(kc_reader *r, int strict);

/* Directive comments (traffic files' phases): after kc_reader_directive(r,
 * "phase"), a comment line "# phase NAME" ('#' first on its line, blanks
 * around) makes kc_reader_record_some return with *got =
 * KC_READER_DIRECTIVE, and kc_reader_directive_arg(r) gives NAME (valid
 * until the next call). NAME is one word of printable ASCII, at most
 * KC_READER_DIRECTIVE_MAX bytes; "# phase" with no word or with more than
 * one is an error naming the line. Other comments are skipped as before;
 * without the call nothing changes. word must outlive the reader. */
#define KC_READER_DIRECTIVE (-1)
#define KC_READER_DIRECTIVE_MAX 255
void kc_reader_directive(kc_reader *r, const char *word);
const char *kc_reader_directive_arg(const kc_reader *r);

/* Check 0 <= tok <= max; otherwise fail with "..., line L, column C: '-7' is
 * not a <what> (0..max)". Returns KC_OK or KC_EINVAL. */
kc_status kc_reader_check(const kc_reader *r, const kc_token *tok, uint64_t max, const char *what, kc_err *err);

/* Fail (status, the reader's param) with a message about a token:
 * "<input>, line L, column C: '<token escaped>' <fmt...>". */
kc_status kc_reader_fail_token(const kc_reader *r, const kc_token *tok, kc_status status, kc_err *err,
                               const char *fmt, ...) KC_PRINTF(5, 6);

/* A node list: exactly `count` entries, each 0..count-1; with `distinct`, no
 * entry twice (a permutation). Errors name the line and column of the first
 * bad entry, or say how many entries there were. */
kc_status kc_read_nodelist(kc_reader *r, uint32_t *out, uint32_t count, int distinct, kc_err *err);

/* ---- Escaping of echoed text (shared with the command line) ----
 * Bytes are copied except: '\n' '\t' '\r' '\\' become \n \t \r \\, other
 * control bytes (below 0x20, 0x7f) and bytes that are not part of a valid
 * UTF-8 character become \xNN; valid UTF-8 characters other than the C1
 * controls U+0080..U+009F are kept (so names in any script stay readable).
 * The result is cut at a character boundary so that it fits in `size` bytes;
 * when cut, it ends with "..." (a visible, deliberate cut). size >= 8. */
#define KC_ESCAPE_MAX 64                      /* escaped bytes kept in messages */
#define KC_ESCAPE_SIZE (KC_ESCAPE_MAX + 4)    /* + "..." and NUL */
const char *kc_escape(char *out, size_t size, const char *text, size_t len);

/* Length of the valid UTF-8 character starting at s (1..4), 0 when s[0..len)
 * does not start with one (stray continuation, overlong form, surrogate,
 * beyond U+10FFFF, truncated). ASCII bytes, NUL included, have length 1. */
size_t kc_utf8_char(const char *s, size_t len);

#endif
