/* Private to src/reorder: how an objective combines per-dimension costs,
 * shared by its value (objective.c) and the subset programme (mapset.c). */
#ifndef KCI_REORDER_OBJECTIVE_H
#define KCI_REORDER_OBJECTIVE_H

#include "kcube/mapset.h"

/* Costs at one position are combined over the communications (the step) by
 * max for KC_OBJ_MAX, else by +. */
static inline int kci_objective_step_max(kc_objective obj) { return obj == KC_OBJ_MAX; }
/* Steps are combined over the positions (the path) by max except for
 * KC_OBJ_SUM, which adds them. */
static inline int kci_objective_path_max(kc_objective obj) { return obj != KC_OBJ_SUM; }

#endif
