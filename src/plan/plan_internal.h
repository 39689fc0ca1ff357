/* Pieces shared by the files of src/plan (not public). */
#ifndef KC_PLAN_INTERNAL_H
#define KC_PLAN_INTERNAL_H

#include "kcube/comm.h"
#include "kcube/error.h"
#include "kcube/topology.h"
#include "kcube/traffic.h"

/* The topology is valid and supports `feature` (GF(k)); every communication
 * is built for its k and n. */
kc_status kci_plan_check(const kc_topology *t, const kc_comm *comms, int count, const char *feature, kc_err *err);

/* log2 of the node count (the topology passed kci_plan_check). */
int kci_plan_bits(const kc_topology *t);

/* The "fold" start (gridfold.c, issue 20): when most messages of tr go to
 * neighbours on some process grid (1 to 3 axes, axis 0 fastest), the best
 * of several prime-factor embeddings of that grid in t, counted exactly
 * (with groups apart when `separate`). *found = 0 and KC_OK when the traffic
 * is no grid halo; name gets "fold:AxB[xC]". */
kc_status kci_fold_start(const kc_topology *t, const kc_traffic *tr, const uint32_t *group, uint32_t groups,
                         int separate, uint32_t *out, char *name, size_t namesz, int *found, kc_err *err);

#endif
