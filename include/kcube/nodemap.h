/* kcube/nodemap.h - a processor mapping as node arrays, both directions.
 *
 * to_physical[v] is the physical node that runs virtual processor v;
 * to_virtual[p] is the virtual processor on physical node p. These are the
 * arrays an SPMD program indexes (seed 000 Fig. 1d). */
#ifndef KCUBE_NODEMAP_H
#define KCUBE_NODEMAP_H

#include <stdint.h>

#include "kcube/error.h"

typedef struct kc_nodemap {
    uint64_t count;
    uint32_t *to_physical;
    uint32_t *to_virtual;
} kc_nodemap;

/* Build from a function v -> physical node; checks it is a permutation. */
kc_status kc_nodemap_build(kc_nodemap *m, uint64_t count, uint64_t (*to_physical)(const void *ctx, uint64_t v),
                           const void *ctx, kc_err *err);
/* Build from an array (copied); checks it is a permutation of 0..count-1. */
kc_status kc_nodemap_from_array(kc_nodemap *m, const uint32_t *to_physical, uint64_t count, kc_err *err);
void kc_nodemap_free(kc_nodemap *m);

#endif
