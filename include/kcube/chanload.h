/* kcube/chanload.h - exact directed-channel loads of a communication graph
 * under a mapping, with cheap exact updates when two ranks trade places
 * (the counter behind the general mapper kcube/gmap.h).
 *
 * Routing is the dimension-ordered routing of the seeds: e-cube on the
 * hypercube (seed 000), and on k-ary n-cubes and meshes axis 0 first, the
 * shorter way round each ring, a ring move of exactly side/2 by the
 * topology's tie rule (seed 002; kc_topology_ring_move decides every move,
 * so plus, minus and split behave as everywhere else in kcube: split sends
 * + when the coordinate where the message enters the ring is even, - when
 * odd, so every message takes one whole path and loads stay integers). Any
 * network kcube/topology.h describes: sides 2..256 per axis, each axis a
 * ring or a line, C endpoints per router, an allocation. A side of 2 has
 * one channel per router pair and axis (the hypercube channel, direction +).
 *
 * Ranks and slots. A mapping is a permutation of the topology's slots
 * (kc_topology_slots: the allocation's routers, or all, times C); slot s is
 * on router kc_topology_slot_router(t, s), and a message goes from its
 * source's router to its destination's; two slots of one router exchange
 * without touching a channel (concentration). A traffic may have fewer
 * ranks than slots: ranks tr->ranks.. are silent (they sit on the slots
 * nobody uses). With C = 1 and no allocation slots are routers.
 *
 * Channel id: c = (router * n + axis) * 2 + (direction < 0) over every
 * router of the network (the allocation's messages cross the rest of the
 * machine too), so the table has 2 n R slots for R routers; slots that are
 * not channels (the - slot of a side-2 axis, the ends of a line) stay 0.
 *
 * Objective, lexicographic: (a) the largest load of one directed
 * channel, in bytes; (b) total bytes x hops; (c) the sum over channels of the
 * squared load. Messages between the same ordered pair are summed first and
 * self messages dropped (they never touch the network).
 *
 * Exactness and limits: loads are uint64. kc_chanload_new refuses (KC_ERANGE,
 * parameter "traffic") a traffic whose total bytes times the network diameter
 * exceeds 2^64 - 1; then every load and (b) fit in 64 bits and (c), at most
 * max load x (b) < 2^128, fits the 128-bit value kept as hi/lo words.
 * Routers and slots each <= KC_CHANLOAD_MAX_NODES.
 *
 * Costs (N slots, R routers (N = R on plain networks), n axes, M messages,
 * E distinct pairs, D the diameter; the n N terms below are n R):
 *   kc_chanload_new        O(M + N + E D + n N) time (aggregation, then a
 *                          recount); memory 4M + 8N bytes while
 *                          aggregating, then about 24E + 20N + 30 n N bytes
 *                          (pairs and their lists, loads, stamps, max tree)
 *                          plus the undo log; x groups for the n N part
 *                          with kc_chanload_new_layered
 *   kc_chanload_set        O(E D + n N): a full recount
 *   kc_chanload_swap       O((deg a + deg b) D log(nN)) worst case, the
 *                          degree counting distinct partners; exact max,
 *                          (b) and (c) after the move
 *   kc_chanload_swaps      the same over all displaced ranks
 *   kc_chanload_undo       O(channels the move touched x log(nN)) */
#ifndef KCUBE_CHANLOAD_H
#define KCUBE_CHANLOAD_H
#include <stddef.h>
#include <stdint.h>
#include "kcube/error.h"
#include "kcube/topology.h"
#include "kcube/traffic.h"

#define KC_CHANLOAD_MAX_NODES ((uint64_t)1 << 20)

/* The three objective values. sumsq = sumsq_hi * 2^64 + sumsq_lo. */
typedef struct kc_cost {
    uint64_t max;      /* (a) bytes on the busiest directed channel */
    uint64_t hops;     /* (b) sum of bytes x hops */
    uint64_t sumsq_hi; /* (c) sum of squared channel loads, high word */
    uint64_t sumsq_lo; /*     low word */
} kc_cost;

/* Lexicographic order of (a), (b), (c): <0, 0, >0. */
int kc_cost_cmp(const kc_cost *x, const kc_cost *y);
/* (c) in decimal into buf (40 bytes always suffice); returns buf. */
char *kc_cost_sumsq_format(const kc_cost *c, char *buf, size_t size);
/* (c) as a double (rounded), for reports and scalarised searches. */
double kc_cost_sumsq_double(const kc_cost *c);

typedef struct kc_chanload kc_chanload; /* opaque */

/* Build the counter for traffic tr (tr->ranks <= kc_topology_slots(t):
 * KC_EINVAL naming "traffic" beyond) on topology t, whose allocation is
 * read here only; the mapping starts as the identity, rank r on slot r
 * (call kc_chanload_set for another). */
kc_status kc_chanload_new(kc_chanload **out, const kc_topology *t, const kc_traffic *tr, kc_err *err);

/* The same, with the messages split into `groups` communications that run
 * at different times (message m in group[m] < groups): each group has its
 * own layer of channel loads, so (a) is the largest load any one
 * communication puts on a channel, (b) is unchanged and (c) sums the
 * squares over every layer. Slot ids become g * 2nN + c. Memory grows by
 * the factor groups (KC_ERANGE naming "group" beyond 2^32 slots). With
 * group NULL it is kc_chanload_new. */
kc_status kc_chanload_new_layered(kc_chanload **out, const kc_topology *t, const kc_traffic *tr, const uint32_t *group,
                                  uint32_t groups, kc_err *err);
void kc_chanload_free(kc_chanload *cl);

/* Install a mapping (to_physical[v] = slot of virtual rank v, a permutation
 * of the N slots, silent ranks included; KC_EINVAL naming "mapping"
 * otherwise) and recount everything. */
kc_status kc_chanload_set(kc_chanload *cl, const uint32_t *to_physical, kc_err *err);

/* Exchange the slots of virtual ranks a and b (a != b) and update loads and
 * objective exactly. The previous state is kept for one kc_chanload_undo.
 * Returns the work done, in units of about one channel-hop update: hops
 * walked + 2 x channels touched + 2 x ranks displaced + 16 (what budgets
 * count, kcube/gmap.h). */
uint64_t kc_chanload_swap(kc_chanload *cl, uint32_t a, uint32_t b);
/* One move made of slot transpositions: for k = 0..count-1 in order, the
 * ranks on slots x[k] and y[k] trade places. Every pair of a displaced
 * rank is walked out once and back in once (not once per transposition),
 * and the whole move is one kc_chanload_undo. *work (may be NULL) gets the
 * work as kc_chanload_swap counts it. KC_EINVAL naming "mapping" for a
 * slot out of range, KC_ENOMEM if the undo log cannot grow (state
 * unchanged on error). O(sum of the displaced ranks' pairs x D log(nN)). */
kc_status kc_chanload_swaps(kc_chanload *cl, const uint32_t *x, const uint32_t *y, size_t count, uint64_t *work,
                            kc_err *err);
/* Revert the last swap or move (no-op if there is none or it was already
 * undone). O(channels it touched x log(nN)). */
void kc_chanload_undo(kc_chanload *cl);

/* Current objective, mapping (over slots) and loads (arrays owned by cl,
 * valid until the next call that changes it; loads has 2nR entries per
 * layer, by router channel id). */
kc_cost kc_chanload_cost(const kc_chanload *cl);
const uint32_t *kc_chanload_to_physical(const kc_chanload *cl);
const uint32_t *kc_chanload_to_virtual(const kc_chanload *cl);
const uint64_t *kc_chanload_loads(const kc_chanload *cl, size_t *slots);
/* A channel carrying the maximum load (the lowest id), or SIZE_MAX with no
 * traffic. O(log(nN)). */
size_t kc_chanload_argmax(const kc_chanload *cl);
/* Distinct communicating pairs after aggregation, and pair j's virtual ends
 * and bytes. */
size_t kc_chanload_pairs(const kc_chanload *cl);
void kc_chanload_pair(const kc_chanload *cl, size_t j, uint32_t *src, uint32_t *dst, uint64_t *bytes);
/* Pairs of virtual rank v (each pair listed at both ends): *count entries. */
const uint32_t *kc_chanload_rank_pairs(const kc_chanload *cl, uint32_t v, size_t *count);
/* 1 if pair j's route under the current mapping uses slot c (of its
 * layer). O(n). */
int kc_chanload_pair_uses(const kc_chanload *cl, size_t j, size_t c);

/* One-shot: the objective of mapping to_physical for tr on t. */
kc_status kc_chanload_eval(const kc_topology *t, const kc_traffic *tr, const uint32_t *to_physical, kc_cost *cost,
                           kc_err *err);

/* Per-communication maxima: message m of tr belongs to group[m] (< groups);
 * max_out[g] = the largest channel load made by group g's messages alone
 * under the current mapping of cl (tr must be the traffic cl was built
 * from). O(M D + groups + n N) time, 8 n N bytes of scratch. */
kc_status kc_chanload_group_max(const kc_chanload *cl, const kc_traffic *tr, const uint32_t *group, uint32_t groups,
                                uint64_t *max_out, kc_err *err);

#endif
