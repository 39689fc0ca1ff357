/* Private to src/goal: helpers shared by the GOAL reader, validator and
 * generators. */
#ifndef KCUBE_GOAL_INTERNAL_H
#define KCUBE_GOAL_INTERNAL_H

#include "kcube/goal.h"

/* The operations of each rank in index order: ord[first[r]..first[r+1]). */
kc_status kci_goal_by_rank(const kc_goal *g, size_t **first, size_t **ord, kc_err *err);

#endif
