/* kcube/scotchmap.h - Scotch's static mapping of a communication graph onto
 * kcube's topologies, as a start and a baseline for the general mapper
 * (docs/traffic.md).
 *
 * Scotch (libscotch, Debian's libscotch-dev) is the field's standard mapper
 * by dual recursive bipartitioning. This module turns a kc_traffic into
 * Scotch's undirected weighted source graph (one vertex per rank, the bytes
 * of u -> v and v -> u summed into one edge weight, self and empty messages
 * dropped, weights scaled down in proportion when they add up to more than
 * 2^30 because SCOTCH_Num is 32 bits) and maps it with Scotch's default
 * strategy onto the target that matches the topology: hcub when every side
 * is 2, torus2D / torus3D / torusXD for tori of 2, 3, or 1, 4, 5 axes,
 * mesh2D / mesh3D for meshes of up to 3 axes (Scotch 7.0.3's meshXD measures distances around a torus, so it
 * is not used); other topologies are KC_EINVAL naming "scotch". Terminal
 * numbers become kcube node ids through an explicit conversion that every
 * call checks against Scotch's own distances (KC_EINTERNAL on a mismatch).
 * Scotch's cost figures are not reported: callers evaluate the mapping with
 * kcube's exact counter.
 *
 * General networks (kcube/topology.h: C endpoints per router, an
 * allocation, mixed wraps): Scotch maps the ranks onto the ROUTERS, C ranks
 * to a router, and each rank then takes a free endpoint of its router (a
 * rank of an overfull router the free slot nearest in hops). The routers'
 * target is the class above when there is one (side-2 axes count as rings
 * or lines as the longer axes are, since their one channel each way is the
 * same network), restricted to an allocation by SCOTCH_archSub; otherwise
 * (longer axes that mix rings and lines, more than 5 torus axes as Tofu's
 * 6, meshes of 4 or more axes) a decomposition-defined target built by
 * SCOTCH_archBuild2 from the router graph, restricted to the allocation's
 * routers. Info's target names "sub" and "deco" for these. There
 * tr->ranks may be below the slot count (the slots left over get the
 * silent ranks in order) and to_physical gets kc_topology_slots(t) entries.
 *
 * Determinism: Scotch runs in a context of its own (private copy of its
 * random generator seeded with `seed`, deterministic mode, one thread), so
 * its process-wide generator is untouched and the same input and seed give
 * the same mapping. With seed 1 it is the mapping `scotch_gmap -Cd` writes
 * for the same graph (edges in increasing neighbour order) and target line
 * ("hcub n", "torus3D a b c", "mesh2D a b", ...), terminal t becoming the
 * node with the same coordinates (axis 0 fastest in both); plain
 * scotch_gmap runs threads in Scotch's non-deterministic mode and usually,
 * not always, gives the same mapping. Printing: libkcube defines Scotch's error hooks
 * (SCOTCH_errorPrint, SCOTCH_errorPrintW) as silent functions instead of
 * linking libscotcherr, which prints to stderr; failures come back in kc_err.
 *
 * Scotch is an optional build dependency (CMake option KC_WITH_SCOTCH, on
 * when libscotch is found): without it kc_scotch_available() is 0 and
 * kc_scotch_map returns KC_EINVAL naming the parameter "scotch". Cost:
 * O(M log M) to build the graph from M messages, O(P n) for the numbering
 * check, then Scotch's mapping, about O(E log P) for E communicating pairs
 * on P nodes in theory but measured superlinear in P (84 s on the 16-cube
 * for a degree-6 graph; docs/traffic.md). */
#ifndef KCUBE_SCOTCHMAP_H
#define KCUBE_SCOTCHMAP_H
#include <stdint.h>
#include "kcube/error.h"
#include "kcube/topology.h"
#include "kcube/traffic.h"

/* 1 when libkcube was built with Scotch. */
int kc_scotch_available(void);

/* 1 when Scotch has no target class for t's routers (mixed rings and lines
 * beyond side-2 axes, as Tofu's), so kc_scotch_map builds a
 * decomposition-defined target from the router graph (SCOTCH_archBuild2);
 * 0 without Scotch. That target's mapping grows about as R^1.7 in the
 * routers R: 0.7 s at 4608, 6.5 s at 20,736, 17 s at 36,864 per run, and
 * more than 15 minutes on Tofu-D's 158,976 (measured), so the general
 * mapper does not start from Scotch on such networks beyond
 * KC_SCOTCH_GRAPH_TARGET_MAX routers. O(n). */
#define KC_SCOTCH_GRAPH_TARGET_MAX 65536
int kc_scotch_graph_target(const kc_topology *t);
/* Scotch's version as text ("7.0.3"), or NULL without Scotch. */
const char *kc_scotch_version(void);

/* Map tr (tr->ranks == t->nodes, else KC_EINVAL naming "traffic"; on
 * general networks tr->ranks <= the slots) onto t:
 * to_physical[v] is the node of virtual rank v, always a permutation of
 * 0..nodes-1. Scotch's default strategy allows about 1% imbalance, so on
 * large targets it may put two ranks on one terminal (14 of 16384 in a
 * measured case); then the lowest rank keeps it and the others, in rank
 * order, take the unused terminal nearest to it in hops. The seed fixes
 * Scotch's random generator. */
kc_status kc_scotch_map(const kc_topology *t, const kc_traffic *tr, uint64_t seed, uint32_t *to_physical,
                        kc_err *err);

/* What a mapping involved, for reports. */
typedef struct kc_scotch_info {
    const char *target; /* Scotch's target: "hcub", "torus2D", "torus3D", "torusXD", "mesh2D", "mesh3D"; on general
                           networks also "sub" (a class target's allocated routers) and "deco" */
    uint64_t repaired;  /* ranks moved off a terminal Scotch had used twice */
} kc_scotch_info;
/* kc_scotch_map that also fills *info (may be NULL). */
kc_status kc_scotch_map_info(const kc_topology *t, const kc_traffic *tr, uint64_t seed, uint32_t *to_physical,
                             kc_scotch_info *info, kc_err *err);

/* Scotch in the mode plain `scotch_gmap` runs in: the same graph, target
 * and default strategy, in Scotch's non-deterministic mode with its fixed
 * seed (the tool's defaults) rather than the deterministic mode above,
 * which takes other paths inside Scotch. One thread and the generator
 * seeded with `seed` keep it repeatable; the tool itself runs a thread per
 * core, so its output varies from run to run (bytes x hops 1036 to 1048 in
 * six runs on a random 1-byte permutation of the 10-cube, where this call
 * gives 1056 after its repair, as the deterministic mode does): it is one
 * more start, and the tool's own mapping is what bench/bench_gmap_scotch
 * compares against. Same costs and repair as kc_scotch_map. */
kc_status kc_scotch_map_tool(const kc_topology *t, const kc_traffic *tr, uint64_t seed, uint32_t *to_physical,
                             kc_scotch_info *info, kc_err *err);

#endif
