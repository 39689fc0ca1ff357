/* Pieces shared by the files of src/gmap, the general mapper (not public). */
#ifndef KCI_GMAP_INTERNAL_H
#define KCI_GMAP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/topology.h"
#include "kcube/traffic.h"

/* The slots of t as a grid whose node x is slot x (slotgrid.c): t itself
 * on plain networks; else an innermost axis of side C (when C > 1), then
 * the router axes, the sides of an allocation that is a box in router
 * order, or one line of the allocation's routers in file order. Axes of
 * the grid wrap where t's do and the grid spans the whole ring. Only for
 * the search's geometric moves: *g is not a valid network (a line may be
 * longer than KC_TOPO_MAX_SIDE). O(n + alloc_count n). */
void kci_slot_grid(const kc_topology *t, kc_topology *g);

/* The "fold" start (gridfold.c): when most messages of tr go to
 * neighbours on some process grid (1 to 3 axes, axis 0 fastest) of as many
 * ranks as the network has slots, the best of several prime-factor
 * embeddings of that grid in the slot grid `grid` (kci_slot_grid of t),
 * counted exactly on t (with groups apart when `separate`). *found = 0 and
 * KC_OK when the traffic is no grid halo; name gets "fold:AxB[xC]". */
kc_status kci_fold_start(const kc_topology *t, const kc_topology *grid, const kc_traffic *tr, const uint32_t *group,
                         uint32_t groups, int separate, uint32_t *out, char *name, size_t namesz, int *found,
                         kc_err *err);

#endif
