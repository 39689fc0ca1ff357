/* Echoed user text and JSON text on the command line.
 *
 * cli_quote: every piece of user text that an error message repeats goes
 * through it, so a message stays one line and bounded: control bytes become
 * \n \t \r \xNN, bytes that are not valid UTF-8 become \xNN (valid UTF-8 is
 * kept), and text longer than KC_ESCAPE_MAX escaped bytes is cut with "..."
 * (deliberate and visible). The rules are kc_escape's (kcube/reader.h): one
 * implementation for the library and the command line.
 * cli_utf8_fix: JSON must be valid UTF-8; invalid bytes become U+FFFD. */
#ifndef KC_CLI_TEXT_H
#define KC_CLI_TEXT_H

#include <stddef.h>

#include "kcube/reader.h"

/* Caller-owned buffer: no static state, several quotes in one message. */
typedef struct cli_quoted {
    char s[KC_ESCAPE_SIZE];
} cli_quoted;

/* The escaped text (q->s); NULL text gives "(null)". */
const char *cli_quote(cli_quoted *q, const char *text);

/* A copy of text[0..len) (malloc'ed, NUL-terminated) in which every byte
 * that is not part of a valid UTF-8 character is replaced by U+FFFD; NULL
 * when memory runs out. O(len). */
char *cli_utf8_fix(const char *text, size_t len);

#endif
