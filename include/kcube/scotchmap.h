/* kcube/scotchmap.h - Scotch's static mapping of a communication graph onto
 * kcube's topologies, as a start and a baseline for the general mapper
 * (issue 13).
 *
 * Scotch (libscotch, Debian's libscotch-dev) is the field's standard mapper
 * by dual recursive bipartitioning. This module turns a kc_traffic into
 * Scotch's undirected weighted source graph (both directions of a pair
 * summed, self messages dropped) and maps it onto the target that matches
 * the topology: the hypercube (hcub), the torus (torusXD) or the mesh
 * (meshXD). The terminal-domain numbers of these targets are turned into
 * kcube node ids explicitly (never assumed). Scotch's own cost figures are
 * not reported: callers evaluate the mapping with kcube's exact counter.
 *
 * Scotch is an optional build dependency: without it kc_scotch_available()
 * is 0 and kc_scotch_map returns KC_EINVAL naming
 * the parameter "scotch" (a request this build cannot serve). Cost: Scotch's
 * mapping, about O(E log P) for E communicating pairs on P nodes. */
#ifndef KCUBE_SCOTCHMAP_H
#define KCUBE_SCOTCHMAP_H
#include <stdint.h>
#include "kcube/error.h"
#include "kcube/topology.h"
#include "kcube/traffic.h"

/* 1 when libkcube was built with Scotch. */
int kc_scotch_available(void);
/* Scotch's version as text ("7.0.3"), or NULL without Scotch. */
const char *kc_scotch_version(void);

/* Map tr (tr->ranks == t->nodes) onto t: to_physical[v] is the node of
 * virtual rank v (a permutation of 0..nodes-1). The seed fixes Scotch's
 * random generator so the same input gives the same mapping. */
kc_status kc_scotch_map(const kc_topology *t, const kc_traffic *tr, uint64_t seed, uint32_t *to_physical,
                        kc_err *err);

#endif
