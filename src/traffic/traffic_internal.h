/* traffic_internal.h - what the traffic room's readers share: the list,
 * graph and schedule readers of traffic_read.c, with what the format
 * detection of traffic_formats.c needs to know of each. */
#ifndef KC_TRAFFIC_INTERNAL_H
#define KC_TRAFFIC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/traffic.h"

/* The data lines a list held: how many, the field count of the last, and
 * whether it is square: every line had that count and every phase (the
 * lines between phase lines) that many lines, as the phases of P x P
 * matrices of 2 or 3 ranks would read. */
typedef struct kci_list_shape {
    size_t lines;
    int fields;
    int square;
} kci_list_shape;

/* kc_traffic_read, telling the shape (may be NULL). */
kc_status kci_traffic_read_list(kc_traffic *t, kc_reader *r, kci_list_shape *shape, kc_err *err);
/* kc_traffic_read_grf, telling the graph's vertex count. */
kc_status kci_traffic_read_grf(kc_traffic *t, kc_reader *r, uint64_t *vertices, kc_err *err);
/* A GOAL schedule's sends (kc_traffic_from_goal) read from path and
 * validated for t->ranks nodes; its num_ranks in *num_ranks. */
kc_status kci_traffic_read_goal_path(kc_traffic *t, const char *path, const kc_reader_limits *limits,
                                     uint64_t *num_ranks, kc_err *err);

#endif
