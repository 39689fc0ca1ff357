/* seeds.h - the five papers kcube implements, by the numbers the sources
 * and documents call them ("seed 000" .. "seed 004"), so that every output
 * that cites a number also says which paper it is: chart subtitles, help
 * texts (a key after the text) and the man page. */
#ifndef KC_CLI_SEEDS_H
#define KC_CLI_SEEDS_H

#include <stddef.h>
#include <stdio.h>

#define CLI_NSEEDS 5

/* The paper of seed number s (0..CLI_NSEEDS-1): authors where the text
 * names them, and the title; NULL for another number. */
const char *cli_seed_paper(int s);

/* "seed 00S WHERE (PAPER)" into buf (where may be "", e.g. "Fig. 5"):
 * a citation that names the paper in a few words (a chart's subtitle).
 * Returns buf. */
char *cli_seed_cite(char *buf, size_t size, int s, const char *where);

/* After a text that cites seed numbers: a key naming each paper the text
 * cites ("seed 00S"), once, in number order; nothing when it cites none.
 * O(length of text). */
void cli_seed_key(FILE *out, const char *text);

/* The key with every paper (kcube --help lists commands citing all). */
void cli_seed_key_all(FILE *out);

#endif
