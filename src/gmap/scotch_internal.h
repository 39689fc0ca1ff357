/* scotch_internal.h - the parts of src/gmap/scotchmap.c that the tests
 * check directly: the target Scotch is given for a topology and the
 * conversion of its terminal-domain numbers into kcube node ids. */
#ifndef KCUBE_SCOTCH_INTERNAL_H
#define KCUBE_SCOTCH_INTERNAL_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/topology.h"

/* Scotch's target for t: hcub when every side is 2 (the hypercube, and
 * tori or meshes with the same links), torus2D / torus3D for tori of 2 and
 * 3 axes and torusXD for 1, 4 or 5 axes (the classes scotch_gmap builds from
 * those target lines: torusXD and torus3D are the same network but Scotch
 * splits their domains differently, so the mappings differ), mesh2D /
 * mesh3D for meshes of 1 to 3 axes. Not meshXD: in Scotch 7.0.3
 * its distances wrap around like a torus' (checked in test_scotchmap), so
 * meshes of 4 or more axes with a side above 2 have no target and fail with
 * KC_EINVAL naming "scotch", as do tori of more than 5 axes. */
typedef enum kci_scotch_kind { KCI_SCOTCH_HCUB, KCI_SCOTCH_TORUS, KCI_SCOTCH_MESH } kci_scotch_kind;
typedef struct kci_scotch_tgt {
    kci_scotch_kind kind;
    const char *name;           /* "hcub", "torus2D", "torus3D", "torusXD", "mesh2D", "mesh3D" */
    int dims[KC_TOPO_MAX_DIMS]; /* the extents Scotch numbers terminals with */
} kci_scotch_tgt;
kc_status kci_scotch_target(const kc_topology *t, kci_scotch_tgt *tg, kc_err *err);

/* The kcube node of terminal domain `term` of that target: Scotch numbers
 * the terminals of hcub, torus2/3/X and mesh2/3 with the first axis varying
 * fastest (for hcub: bit i of the number is the coordinate in dimension
 * i; checked pairwise in test_scotchmap); the coordinates are decoded with Scotch's extents and encoded again
 * with kcube's (kcube/topology.h). O(n). */
uint64_t kci_scotch_term_node(const kc_topology *t, const int *dims, uint64_t term);

#ifdef KC_HAVE_SCOTCH
#include <stdio.h>
#include <scotch.h>
/* Initialise *arch as target tg of t (SCOTCH_archExit it after). */
kc_status kci_scotch_arch(const kc_topology *t, const kci_scotch_tgt *tg, SCOTCH_Arch *arch, kc_err *err);
/* Scotch's part[v] (a terminal number) as to_physical[v] (a node, through
 * term_node[]), repaired into a permutation when Scotch puts two ranks on
 * one terminal: the lowest rank keeps it; the others (and any rank with an
 * out-of-range terminal), in rank order, take the unused terminal nearest
 * in hops to the one Scotch chose (ties: the lowest unused terminal; plain
 * lowest-first when more than 2^26 displaced x unused pairs would have to
 * be priced). *repaired gets the number of ranks moved. O(P + D F n) for D
 * displaced ranks and F unused terminals. */
kc_status kci_scotch_to_nodes(const kc_topology *t, const SCOTCH_Num *part, const uint32_t *term_node,
                              uint32_t *to_physical, uint64_t *repaired, kc_err *err);
#endif

#endif
