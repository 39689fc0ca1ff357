/* kcube/topology.h - the network a plan is made for, as one value: the
 * routers' grid (sides per axis, which axes wrap), how many endpoints sit on
 * each router, and optionally the allocation a job may use.
 *
 * Routers. Router x has coordinates x_0..x_{n-1}, axis 0 first and least
 * significant: x = x_0 + s_0 (x_1 + s_1 (x_2 + ...)) with s_i the side of
 * axis i (any 2..KC_TOPO_MAX_SIDE, not only powers of two). For equal
 * power-of-two sides this is the bit-field layout of kcube/torus.h (seed
 * 002) and, for k = 2, of the hypercube (seed 000). `nodes` counts routers.
 *
 * Axes. An axis that wraps is a ring (the shorter way round, a move of
 * exactly s/2 by the tie rule), one that does not is a line. A side-2 axis
 * has one channel each way between its two routers, whether it wraps or not
 * (as on the hypercube). The kinds are names for the common cases:
 *   hypercube  every side 2 (the seed 000 n-cube)
 *   torus      at least one axis wraps: by default all do (the k-ary
 *              n-cube of seed 002 when the sides are equal); kc_topology_set_wrap
 *              picks the ones that wrap (Tofu: X, Y, Z, b)
 *   mesh       no axis wraps
 * A torus with k = 2 has the hypercube's links and routes, and the planner
 * treats it as the hypercube. The tie rule says where a ring move of exactly
 * s/2 goes (rings of even side only).
 *
 * Endpoints. Each router carries `endpoints` = C >= 1 endpoints (compute
 * nodes, or ranks of one node); endpoint e sits on router e / C, so
 * consecutive endpoints share a router, its injection and its ejection
 * channels. Messages between endpoints of one router never enter the
 * network. Seed 000's SGI Origin 2000 (two nodes per router) is C = 2.
 *
 * Allocation. Optionally the routers a job may use (alloc, alloc_count: a
 * borrowed list of distinct router numbers, in the order given), as a Slurm
 * allocation or a sub-box. Ranks go only onto endpoints of those routers;
 * the links of the whole network still route their messages.
 *
 * Slots. What a mapping permutes: the endpoints a job may use, slot s is
 * endpoint s % C of router alloc[s / C] (router s / C without an
 * allocation). kc_topology_slot_endpoint gives its number in the whole
 * network (router * C + s % C), which is what `to_physical` reports. With
 * C = 1 and no allocation slots, endpoints and routers are the same numbers
 * (today's hypercube, torus and mesh are this special case).
 *
 * Any shape is a valid topology (the counters and the simulator route on
 * it); the features that compute over GF(k) (linear communications, their
 * contention formulas and mappings) need equal power-of-two sides, every
 * axis wrapping or none, one endpoint per router and no allocation, and
 * say so through kc_topology_need_gf. All functions are O(n) unless said. */
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
#define KC_TOPO_MAX_ENDPOINTS 256 /* C, endpoints per router */

typedef enum kc_topo_kind { KC_TOPO_HYPERCUBE, KC_TOPO_TORUS, KC_TOPO_MESH } kc_topo_kind;

/* hypercube | torus | mesh (parse, print, help). The kind follows the
 * wraps: kc_topology_set_wrap makes it torus (some axis wraps) or mesh. */
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
    uint64_t wrap;                /* bit i: axis i wraps (a ring); hypercube and torus: every axis, mesh: none */
    int endpoints;                /* C: endpoints per router, 1..KC_TOPO_MAX_ENDPOINTS (the constructors set 1) */
    const uint32_t *alloc;        /* the allocation's routers (borrowed, distinct, < nodes), or NULL: all */
    uint32_t alloc_count;         /* entries of alloc (0 without one) */
} kc_topology;

/* Constructors; each validates (KC_ERANGE / KC_EINVAL naming "n", "k" or
 * "shape"). */
kc_status kc_topology_hypercube(kc_topology *t, int n, kc_err *err);
kc_status kc_topology_torus(kc_topology *t, int k, int n, kc_tie tie, kc_err *err);
kc_status kc_topology_mesh(kc_topology *t, int k, int n, kc_err *err);
/* A mesh with the given sides, axis 0 first (n = count). */
kc_status kc_topology_mesh_shape(kc_topology *t, const int *sides, int count, kc_err *err);
/* A torus (every axis wraps) or mesh with the given sides, axis 0 first;
 * kind KC_TOPO_HYPERCUBE needs every side 2. */
kc_status kc_topology_shape(kc_topology *t, kc_topo_kind kind, const int *sides, int count, kc_tie tie,
                            kc_err *err);
/* Any kind from its parts (k and n; tie for tori). */
kc_status kc_topology_init(kc_topology *t, kc_topo_kind kind, int k, int n, kc_tie tie, kc_err *err);

/* Parse a shape "16x8" (axis 0 first, sides 2..256, at most
 * KC_TOPO_MAX_DIMS axes) into sides[]; *count gets the number of axes. */
kc_status kc_topology_parse_shape(const char *text, int *sides, int *count, kc_err *err);

/* Parse a wrap list: "all", "none", or axis numbers "0,1,2,4" (each < n,
 * none twice), into a mask. KC_EINVAL naming "wrap" otherwise. */
kc_status kc_topology_parse_wrap(const char *text, int n, uint64_t *mask, kc_err *err);
/* Make exactly the axes of mask wrap (bits >= n are KC_EINVAL, "wrap"); the
 * kind becomes torus when some axis wraps, mesh when none does (a hypercube
 * stays one when every axis wraps). */
kc_status kc_topology_set_wrap(kc_topology *t, uint64_t mask, kc_err *err);
/* C endpoints per router, 1..KC_TOPO_MAX_ENDPOINTS (KC_ERANGE naming
 * "endpoints"); the endpoint count must stay below 2^64. */
kc_status kc_topology_set_endpoints(kc_topology *t, int endpoints, kc_err *err);
/* Borrow an allocation: `count` distinct routers < t->nodes (KC_EINVAL
 * naming "nodes_file" for a repeat or one outside, KC_ERANGE for none);
 * routers must outlive every use of t. NULL/0 removes it. O(count) time
 * and t->nodes / 8 bytes of scratch (KC_ENOMEM). */
kc_status kc_topology_set_alloc(kc_topology *t, const uint32_t *routers, uint32_t count, kc_err *err);

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

/* ---- the general network: wraps, endpoints, allocations ----------------- */

/* 1 when axis i wraps. */
static inline int kc_topology_wraps(const kc_topology *t, int i) { return (int)((t->wrap >> i) & 1u); }
/* C (1 for a value whose endpoints field was never set). */
static inline int kc_topology_conc(const kc_topology *t) { return t->endpoints > 1 ? t->endpoints : 1; }
/* 1 for today's special cases: one endpoint per router, no allocation, and
 * every axis wrapping (hypercube, torus) or none (mesh). */
int kc_topology_is_plain(const kc_topology *t);
/* Endpoints of the whole network (nodes x C; UINT64_MAX when it does not
 * fit) and slots (the allocation's routers, or all, x C). */
uint64_t kc_topology_endpoint_count(const kc_topology *t);
uint64_t kc_topology_slots(const kc_topology *t);
/* Slot s's router, and its endpoint number in the whole network. O(1). */
static inline uint64_t kc_topology_slot_router(const kc_topology *t, uint64_t s)
{
    uint64_t r = s / (uint64_t)kc_topology_conc(t);
    return t->alloc ? t->alloc[r] : r;
}
static inline uint64_t kc_topology_slot_endpoint(const kc_topology *t, uint64_t s)
{
    uint64_t c = (uint64_t)kc_topology_conc(t);
    return kc_topology_slot_router(t, s) * c + s % c;
}

/* The signed move on axis i from coordinate s to d: 0 when s == d; on a
 * line d - s; on a ring the shorter way, a move of exactly side/2 by the
 * tie rule (split: + from an even s, - from an odd one); on a side-2 ring
 * always +1 (its one channel each way). The one rule every counter,
 * router and simulator of kcube follows (kc_torus_ring_move per axis). */
int kc_topology_ring_move(const kc_topology *t, int i, unsigned s, unsigned d);
/* Walk the dimension-ordered route between routers src and dst (axis 0
 * first): fn gets every link in order (may be NULL). Returns the hops. */
int kc_topology_route(const kc_topology *t, uint64_t src, uint64_t dst, void (*fn)(void *ctx, kc_link l),
                      void *ctx);
/* The longest dimension-ordered route: sum over axes of side/2 (rings) or
 * side - 1 (lines). */
int kc_topology_diameter(const kc_topology *t);

/* ---- allocations from files -------------------------------------------- */

/* The routers a job may use, as read from a file: one router per line,
 * either its number ("517") or its coordinates, axis 0 first ("5 2 0 1",
 * commas also separate); '#' starts a comment. A router twice, outside the
 * network, or a line with neither 1 nor n numbers is KC_EINVAL (parameter
 * "nodes_file") naming its line and column. O(lines x n) time. */
typedef struct kc_allocation {
    uint32_t count;
    uint32_t *router;
} kc_allocation;
struct kc_reader;
kc_status kc_alloc_read(kc_allocation *a, struct kc_reader *r, const kc_topology *t, kc_err *err);
kc_status kc_alloc_read_path(kc_allocation *a, const char *path, const kc_topology *t, kc_err *err);
void kc_alloc_free(kc_allocation *a);

/* ---- where ranks run, from files ----------------------------------------- */

/* A list of endpoint numbers, one per rank, rank 0 first (the node list
 * `kcube map --out` writes; commas and '#' comments as kcube/reader.h
 * says): every entry an endpoint of the whole network (router x C + index)
 * on a router of the allocation, none twice, between min and max entries
 * (max <= kc_topology_slots). slot[i] gets entry i's slot (slot[] has max
 * entries) and *count the entries. An entry out of range, off the
 * allocation or given twice is KC_EINVAL (the reader's parameter) naming
 * its line and column; too many or too few entries say how many were
 * expected. O(entries + slots) time, 4 x endpoint count bytes of scratch
 * (KC_ENOMEM; KC_ERANGE beyond 2^32 endpoints). */
kc_status kc_topology_read_slots(struct kc_reader *r, const kc_topology *t, uint64_t min, uint64_t max,
                                 uint32_t *slot, uint64_t *count, kc_err *err);

#endif
