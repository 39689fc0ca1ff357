/* Private to src/reorder: how an objective combines per-dimension costs,
 * shared by its value (objective.c), the subset programme (mapset.c) and
 * the search beyond it (mapsearch.c). */
#ifndef KCI_REORDER_OBJECTIVE_H
#define KCI_REORDER_OBJECTIVE_H

#include <stdint.h>

#include "kcube/mapset.h"

/* Costs at one position are combined over the communications (the step) by
 * max for KC_OBJ_MAX, else by +. */
static inline int kci_objective_step_max(kc_objective obj) { return obj == KC_OBJ_MAX; }
/* Steps are combined over the positions (the path) by max except for
 * KC_OBJ_SUM, which adds them. */
static inline int kci_objective_path_max(kc_objective obj) { return obj != KC_OBJ_SUM; }

/* A step with one more communication's cost t at this position. */
static inline uint64_t kci_objective_step(kc_objective obj, uint64_t step, uint64_t t)
{
    return kci_objective_step_max(obj) ? (t > step ? t : step) : step + t;
}

/* A path with one more position's step. */
static inline uint64_t kci_objective_path(kc_objective obj, uint64_t path, uint64_t step)
{
    return kci_objective_path_max(obj) ? (step > path ? step : path) : path + step;
}

#endif
