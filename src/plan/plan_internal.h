/* Pieces shared by the files of src/plan (not public). */
#ifndef KC_PLAN_INTERNAL_H
#define KC_PLAN_INTERNAL_H

#include "kcube/comm.h"
#include "kcube/error.h"
#include "kcube/topology.h"

/* The topology is valid and supports `feature` (GF(k)); every communication
 * is built for its k and n. */
kc_status kci_plan_check(const kc_topology *t, const kc_comm *comms, int count, const char *feature, kc_err *err);

/* log2 of the node count (the topology passed kci_plan_check). */
int kci_plan_bits(const kc_topology *t);

#endif
