/* Escaped echoes and UTF-8 repair for the command line (text.h). */
#include "text.h"

#include <stdlib.h>
#include <string.h>

const char *cli_quote(cli_quoted *q, const char *text)
{
    if (!text)
        text = "(null)";
    return kc_escape(q->s, sizeof q->s, text, strlen(text));
}

char *cli_utf8_fix(const char *text, size_t len)
{
    /* Each bad byte grows to three (EF BF BD). */
    char *out = malloc(3 * len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t u = kc_utf8_char(text + i, len - i);
        if (u) {
            memcpy(out + o, text + i, u);
            o += u;
            i += u;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}
