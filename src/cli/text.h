/* text.h - TEMPORARY (replaced by the io branch): echo user text safely. */
#ifndef KC_CLI_TEXT_H
#define KC_CLI_TEXT_H
typedef struct cli_quoted {
    char s[300];
} cli_quoted;
const char *cli_quote(cli_quoted *q, const char *text);
#endif
