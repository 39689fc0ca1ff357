/* kcube/traffic_gen.h - generated communication graphs for the general
 * mapper and its benchmark suite (docs/traffic.md).
 *
 * Every generator appends to a kc_traffic whose ranks were set by
 * kc_traffic_init (normally the nodes of the topology):
 *   halo        the halo exchange of a (2 dims + 1)-point stencil (5-point
 *               in 2-D, 7-point in 3-D) on a process grid: every process
 *               sends one message to each of its 2 dims grid neighbours,
 *               axis by axis, - then +. Grid rank numbering is row-major
 *               with axis 0 fastest: rank = c_0 + s_0 (c_1 + s_1 c_2 ...),
 *               as kcube numbers nodes. Periodic grids wrap around; open
 *               ones send nothing across their edges. An axis of side 1
 *               sends nothing (the neighbour would be the process itself);
 *               a periodic axis of side 2 sends two messages to the same
 *               neighbour (as MPI_Cart_shift gives). Ranks past the grid
 *               send nothing.
 *   stencil     the halo exchange of a 5-, 7-, 9- or 27-point stencil on a
 *               2- or 3-axis grid (star: the 2 dims axis neighbours; box:
 *               all 3^dims - 1 neighbours, diagonals included), in either
 *               rank order (axis 0 fastest or slowest).
 *   collective  the traffic of an MPI-style collective of `bytes` per rank:
 *               all-to-all, ring or recursive-doubling allreduce, binomial
 *               broadcast; one message per (source, destination) pair, the
 *               bytes of every step summed (no phases).
 *   random      every rank sends one message to each of `deg` distinct
 *               other ranks drawn uniformly with a seeded kc_rng.
 *   all-to-all  every rank sends one message to every other rank.
 *   patterns    the union of kcube's named communications (kcube/comm.h,
 *               e.g. "transpose+bit-reverse"), each a group of its own, and
 *               the four 8-cube sets of the mapper benchmark (kc_traffic_set) by name.
 * Costs: O(messages generated), plus O(deg^2) expected per rank for random
 * (O(ranks) per rank when deg > ranks / 2); patterns O(N n) each. */
#ifndef KCUBE_TRAFFIC_GEN_H
#define KCUBE_TRAFFIC_GEN_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/topology.h"
#include "kcube/traffic.h"

#define KC_HALO_MAX_DIMS 8

/* Halo exchange on a grid of `dims` axes (1..KC_HALO_MAX_DIMS) with sides
 * shape[0..dims) >= 1, whose product must not exceed t->ranks (param
 * "shape"). */
kc_status kc_traffic_gen_halo(kc_traffic *t, const int *shape, int dims, int periodic, uint64_t bytes,
                              kc_err *err);

/* Stencils (kc_stencil_names: "5pt", "7pt", "9pt", "27pt"). 5pt and 9pt
 * need a 2-axis grid, 7pt and 27pt a 3-axis one (param "stencil"). */
typedef enum kc_stencil { KC_STENCIL_5PT, KC_STENCIL_7PT, KC_STENCIL_9PT, KC_STENCIL_27PT } kc_stencil;
extern const kc_names kc_stencil_names;
/* Grid rank orders (kc_grid_order_names): "axis0-fastest", rank = c0 + s0
 * (c1 + s1 c2), kcube's node numbering and kc_traffic_gen_halo's;
 * "axis0-slowest", rank = c_last + s_last (c_last-1 + ...), C's row-major
 * order of an array a[s0][s1][s2]. */
typedef enum kc_grid_order { KC_GRID_AXIS0_FASTEST, KC_GRID_AXIS0_SLOWEST } kc_grid_order;
extern const kc_names kc_grid_order_names;

/* Every process of the grid (sides shape[0..dims), each >= 1, product <=
 * t->ranks, param "grid") sends `bytes` to each neighbour of the stencil,
 * offsets in lexicographic order (axis 0's offset varying slowest, -1
 * before +1). Open grids send nothing across their edges; periodic ones
 * wrap; an offset that moves along an axis of side 1 is skipped (it would
 * reach the process itself or repeat another offset); on a periodic axis
 * of side 2, -1 and +1 reach the same neighbour and both are sent, as
 * MPI_Cart_shift gives. 5pt / 7pt in order axis0-fastest equal
 * kc_traffic_gen_halo message for message. Cost O(procs 3^dims). */
kc_status kc_traffic_gen_stencil(kc_traffic *t, kc_stencil st, const int *shape, int dims, int periodic,
                                 kc_grid_order order, uint64_t bytes, kc_err *err);

/* Collectives over all t->ranks = P ranks (kc_collective_names), with
 * `bytes` = B the data of each rank:
 *   alltoall           every ordered pair of distinct ranks, B bytes each
 *                      (kc_traffic_gen_all_to_all; P (P - 1) messages);
 *   allreduce-ring     reduce-scatter then allgather on the ring 0 -> 1 ->
 *                      ... -> P-1 -> 0: B cut into P chunks (sizes B / P,
 *                      the first B mod P one byte larger), 2 (P - 1)
 *                      steps, each rank sending one chunk to its
 *                      successor per step. As traffic: P messages r -> r+1
 *                      mod P of 2B - |chunk r+1| - |chunk r+2| bytes
 *                      (indices mod P; 2 (P - 1) B / P when P divides B);
 *   allreduce-recdoub  recursive doubling: log2 P rounds, in round i every
 *                      rank sends B to rank XOR 2^i (P a power of two,
 *                      param "collective"); P log2 P messages;
 *   bcast-binomial     binomial tree from rank 0: in round i every rank
 *                      r < 2^i sends B to r + 2^i when below P; P - 1
 *                      messages.
 * P = 1 gives no messages. Cost O(messages). */
typedef enum kc_collective {
    KC_COLL_ALLTOALL_PAIRS, /* "alltoall" (kcube/trace.h has KC_COLL_ALLTOALL, the MPI operation) */
    KC_COLL_ALLREDUCE_RING,
    KC_COLL_ALLREDUCE_RECDOUB,
    KC_COLL_BCAST_BINOMIAL
} kc_collective;
extern const kc_names kc_collective_names;
kc_status kc_traffic_gen_collective(kc_traffic *t, kc_collective c, uint64_t bytes, kc_err *err);

/* deg distinct random destinations per rank, deg <= ranks - 1 (param
 * "deg"). The same seed gives the same traffic. */
kc_status kc_traffic_gen_random(kc_traffic *t, uint64_t deg, uint64_t bytes, uint64_t seed, kc_err *err);

/* ranks (ranks - 1) messages, source-major. */
kc_status kc_traffic_gen_all_to_all(kc_traffic *t, uint64_t bytes, kc_err *err);

/* The union of the named patterns in `list`, separated by '+', for
 * topology topo (t->ranks == topo->nodes): each pattern through
 * kc_comm_named, its N messages of `bytes` each a new group. `uniform`
 * draws from a stream seeded with seed. Unknown names: kc_comm_named's
 * error. */
kc_status kc_traffic_gen_patterns(kc_traffic *t, const kc_topology *topo, const char *list, uint64_t bytes,
                                  uint64_t seed, kc_err *err);

/* The four communication sets of the general mapper's benchmark table
 * (docs/gmap.md; on the 8-cube there, any topology where the patterns
 * exist here). */
typedef enum kc_traffic_set {
    KC_TSET_TRANSPOSE,         /* "transpose" */
    KC_TSET_TRANSPOSE_BITREV,  /* "transpose+bit-reverse" */
    KC_TSET_TRANSPOSE_BITREV_RFLIP, /* "transpose+bit-reverse+reverse-flip" */
    KC_TSET_FFT                /* "fft": bit-reverse and butterfly:0 .. butterfly:n-1 */
} kc_traffic_set;
extern const kc_names kc_traffic_set_names;

kc_status kc_traffic_gen_set(kc_traffic *t, const kc_topology *topo, kc_traffic_set set, uint64_t bytes,
                             kc_err *err);

#endif
