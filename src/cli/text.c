/* TEMPORARY (replaced by the io branch). */
#include "text.h"

#include <stdio.h>
#include <string.h>

const char *cli_quote(cli_quoted *q, const char *text)
{
    size_t o = 0;
    for (size_t i = 0; text[i] && o + 8 < sizeof q->s; i++) {
        unsigned char c = (unsigned char)text[i];
        if (i == 64) {
            memcpy(q->s + o, "...", 3);
            o += 3;
            break;
        }
        if (c == '\n')
            o += (size_t)snprintf(q->s + o, sizeof q->s - o, "\\n");
        else if (c < 32 || c >= 127)
            o += (size_t)snprintf(q->s + o, sizeof q->s - o, "\\x%02X", c);
        else
            q->s[o++] = (char)c;
    }
    q->s[o] = '\0';
    return q->s;
}
