/* kcube/topology.h - the network a plan is made for: binary hypercube,
 * k-ary n-cube (torus) or mesh, as one value.
 *
 * Node x has coordinates x_0..x_{n-1}, axis 0 first and least significant:
 * x = x_0 + s_0 (x_1 + s_1 (x_2 + ...)) with s_i the side of axis i. For a
 * power-of-two radix this is the bit-field layout of kcube/torus.h (seed
 * 002) and, for k = 2, of the hypercube (seed 000).
 *
 *   hypercube  k = 2, every axis a single channel pair (the seed 000 n-cube)
 *   torus      every axis a ring of k nodes, 2 <= k <= 256; a torus with
 *              k = 2 has the hypercube's links and routes, and the planner
 *              treats it as the hypercube
 *   mesh       every axis a line; equal sides k (a k-ary n-mesh) or a
 *              shape with unequal sides 2..256 per axis ("16x8": axis 0 has
 *              16 nodes, axis 1 has 8)
 * The tie rule says where a ring move of exactly k/2 goes (torus only).
 *
 * Any radix 2..256 is a valid topology (the simulator routes on it); the
 * features that compute over GF(k) (linear communications, their contention
 * formulas and mappings) need k a power of two and equal sides, and say so
 * through kc_topology_need_gf. All functions are O(n). */
#ifndef KCUBE_TOPOLOGY_H
#define KCUBE_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/torus.h"

#define KC_TOPO_MAX_DIMS 64
#define KC_TOPO_MAX_SIDE 256
#define KC_TOPO_MAX_BITS 64 /* nodes <= 2^64: the hypercube has n <= 64 (see nodes below) */

typedef enum kc_topo_kind { KC_TOPO_HYPERCUBE, KC_TOPO_TORUS, KC_TOPO_MESH } kc_topo_kind;

/* hypercube | torus | mesh (parse, print, help). */
extern const kc_names kc_topo_kind_names;

typedef struct kc_topology {
    kc_topo_kind kind;
    int n;                        /* number of axes (dimensions) */
    int k;                        /* the common side; 0 for a mesh with unequal sides */
    int side[KC_TOPO_MAX_DIMS];   /* side of axis i, axis 0 first */
    kc_tie tie;                   /* torus ring ties (ignored elsewhere) */
    uint64_t nodes;               /* product of the sides; UINT64_MAX when it is 2^64 (the 64-cube,
                                     whose 2^64 does not fit): every feature that materialises
                                     nodes refuses far below that, by its own estimate */
} kc_topology;

/* Constructors; each validates (KC_ERANGE / KC_EINVAL naming "n", "k" or
 * "shape"). */
kc_status kc_topology_hypercube(kc_topology *t, int n, kc_err *err);
kc_status kc_topology_torus(kc_topology *t, int k, int n, kc_tie tie, kc_err *err);
kc_status kc_topology_mesh(kc_topology *t, int k, int n, kc_err *err);
/* A mesh with the given sides, axis 0 first (n = count). */
kc_status kc_topology_mesh_shape(kc_topology *t, const int *sides, int count, kc_err *err);
/* Any kind from its parts (k and n; tie for tori). */
kc_status kc_topology_init(kc_topology *t, kc_topo_kind kind, int k, int n, kc_tie tie, kc_err *err);

/* Parse a shape "16x8" (axis 0 first, sides 2..256, at most
 * KC_TOPO_MAX_DIMS axes) into sides[]; *count gets the number of axes. */
kc_status kc_topology_parse_shape(const char *text, int *sides, int *count, kc_err *err);

/* Check every field (for values built by hand). */
kc_status kc_topology_validate(const kc_topology *t, kc_err *err);

/* The node count in decimal, exact also for 2^64 (where nodes saturates).
 * Returns buf (24 bytes suffice). */
const char *kc_topology_nodes_text(const kc_topology *t, char *buf, size_t size);

/* "8-cube", "4-ary 4-cube", "4-ary 4-mesh", "mesh 16x8". Returns buf; a
 * result that does not fit ends in "..." (never silently cut). */
char *kc_topology_format(const kc_topology *t, char *buf, size_t size);

/* 1 when the binary hypercube engine applies: a hypercube, or a torus with
 * k = 2 (same links and routes). */
int kc_topology_is_binary(const kc_topology *t);

/* KC_OK when `feature` can run on t: equal sides and k a power of two
 * (GF(k) arithmetic); otherwise KC_EINVAL naming the parameter ("k" or
 * "shape") and the feature. */
kc_status kc_topology_need_gf(const kc_topology *t, const char *feature, kc_err *err);

/* The kcube/torus.h description (needs kc_topology_need_gf). A hypercube is
 * the 2-ary torus. */
kc_status kc_topology_to_torus(const kc_topology *t, kc_torus *out, const char *feature, kc_err *err);

/* Coordinate i of node x, and the node a link leads to (l.dir = +1 or -1;
 * rings wrap, lines do not: a link off the end of a line returns UINT64_MAX). */
unsigned kc_topology_coord(const kc_topology *t, uint64_t x, int i);
uint64_t kc_topology_link_to(const kc_topology *t, kc_link l);

#endif
