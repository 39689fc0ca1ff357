/* Shared inside src/calmant: a DOR leg as coordinate intervals of links. */
#ifndef KCI_CALMANT_INTERNAL_H
#define KCI_CALMANT_INTERNAL_H

#include <stdint.h>

#include "kcube/calmant_embed.h"
#include "kcube/calmant_sched.h"

/* The directed links a leg uses on one line: those leaving the coordinates
 * lo .. hi-1 of the line whose coordinate-0 node is `base`, on port
 * 2 axis (+) or 2 axis + 1 (-). */
typedef struct kci_calmant_span {
    uint64_t base, lo, hi;
    int port;
} kci_calmant_span;

/* The spans of `leg` leaving node `at`: one, or two when it wraps round a
 * torus. *next is the node the leg ends at. */
int kci_calmant_leg_spans(const kc_calmant *g, uint64_t at, const kc_calmant_leg *leg, kci_calmant_span out[2],
                          uint64_t *next);

/* Messages by step (a counting sort; steps > every message's step):
 * order[start[q] .. start[q+1]-1] are step q's, in schedule order. The
 * caller frees both arrays (also on failure). */
kc_status kci_calmant_by_step(const kc_calmant_sched *s, uint64_t steps, size_t **start, size_t **order,
                              kc_err *err);

#endif
