/* Pieces shared by the files of src/gmap, the general mapper (not public). */
#ifndef KCI_GMAP_INTERNAL_H
#define KCI_GMAP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/topology.h"
#include "kcube/traffic.h"

/* The "fold" start (gridfold.c): when most messages of tr go to
 * neighbours on some process grid (1 to 3 axes, axis 0 fastest), the best
 * of several prime-factor embeddings of that grid in t, counted exactly
 * (with groups apart when `separate`). *found = 0 and KC_OK when the traffic
 * is no grid halo; name gets "fold:AxB[xC]". */
kc_status kci_fold_start(const kc_topology *t, const kc_traffic *tr, const uint32_t *group, uint32_t groups,
                         int separate, uint32_t *out, char *name, size_t namesz, int *found, kc_err *err);

#endif
