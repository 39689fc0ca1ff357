/* kcube/traffic_gen.h - generated communication graphs for the general
 * mapper and its benchmark suite (issue 13, items 1 and 6; docs/traffic.md).
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
 *   random      every rank sends one message to each of `deg` distinct
 *               other ranks drawn uniformly with a seeded kc_rng.
 *   all-to-all  every rank sends one message to every other rank.
 *   patterns    the union of kcube's named communications (kcube/comm.h,
 *               e.g. "transpose+bit-reverse"), each a group of its own, and
 *               the four 8-cube sets of issue 13 by name.
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

/* The four communication sets of issue 13's table (on the 8-cube there;
 * any topology where the patterns exist here). */
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
