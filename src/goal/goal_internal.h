/* Private to src/goal: helpers shared by the GOAL reader, validator and
 * generators. */
#ifndef KCUBE_GOAL_INTERNAL_H
#define KCUBE_GOAL_INTERNAL_H

#include "kcube/goal.h"

/* The operations of each rank in index order: ord[first[r]..first[r+1]). */
kc_status kci_goal_by_rank(const kc_goal *g, size_t **first, size_t **ord, kc_err *err);

/* The checks that hold for every run of a schedule with wildcard receives
 * (validate_wild.c): KC_EINVAL naming a receive no run can match or a send
 * no run receives. forced[op] (nops entries, filled on success) is 1 for a
 * receive naming source and tag whose sends no wildcard receive can take:
 * its file-order match is the run's. O(ops log ops). */
kc_status kci_goal_wild_check(const kc_goal *g, unsigned char *forced, kc_err *err);

#endif
