/* kcube/traffic.h - a communication graph: who sends how many bytes to whom,
 * for mapping programs whose communication is not a linear-complement
 * communication (issue 13).
 *
 * A traffic value is a list of messages (src, dst, bytes) over virtual ranks
 * 0..ranks-1, ranks = the number of nodes of the topology it is mapped on.
 * A rank that never appears simply sends nothing. Messages with src == dst
 * cost nothing on the network and are kept only for the totals.
 *
 * Sources (implemented in src/mapping/traffic.c): a plain traffic file
 * ("src dst bytes" per line, commas or blanks, '#' comments), a Scotch
 * source graph (.grf), the message list of a GOAL schedule, and the union of
 * linear communications. Readers are strict and bounded (kcube/reader.h):
 * a bad token, an id out of range, or negative or overflowing bytes is
 * KC_EINVAL/KC_ERANGE naming the line and column. Appending is amortised
 * O(1); the readers are O(file size). */
#ifndef KCUBE_TRAFFIC_H
#define KCUBE_TRAFFIC_H
#include <stddef.h>
#include <stdint.h>
#include "kcube/error.h"

#define KC_TRAFFIC_MAX_MESSAGES 100000000u /* 10^8: ten times the 10^7 */

typedef struct kc_traffic {
    uint64_t ranks;  /* virtual ranks 0..ranks-1 */
    size_t count;    /* messages */
    size_t cap;
    uint32_t *src;   /* count entries each */
    uint32_t *dst;
    uint64_t *bytes;
} kc_traffic;

/* An empty traffic over `ranks` ranks (1..2^32). */
kc_status kc_traffic_init(kc_traffic *t, uint64_t ranks, kc_err *err);
void kc_traffic_free(kc_traffic *t);
/* Append one message; src/dst < ranks (KC_ERANGE naming "traffic"). */
kc_status kc_traffic_add(kc_traffic *t, uint64_t src, uint64_t dst, uint64_t bytes, kc_err *err);

#endif
