/* kcube/simtraffic.h - where simulated messages go.
 *
 * Traffic is a table of destinations per physical source node (any number
 * each, picked uniformly per message), or uniform random. Patterns are given
 * on virtual nodes and seen through a mapping f (kc_nodemap): virtual x
 * sending to y becomes physical f(x) sending to f(y). Messages to oneself are
 * never injected: such table entries are dropped, so a fixed point of a
 * permutation generates no traffic, and uniform traffic draws among the
 * other N - 1 nodes. */
#ifndef KCUBE_SIMTRAFFIC_H
#define KCUBE_SIMTRAFFIC_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/lcc.h"
#include "kcube/names.h"
#include "kcube/reader.h"
#include "kcube/nodemap.h"
#include "kcube/simnet.h"
#include "kcube/simroute.h"

typedef struct kc_simtraffic {
    uint32_t nodes;     /* routers */
    int uniform;        /* destinations uniformly random */
    uint32_t *start;    /* [nodes + 1]: physical source s sends to dest[start[s] .. start[s+1]) */
    uint32_t *dest;     /* physical destinations */
    uint32_t *to_phys;  /* uniform with a mapping: the mapping (else NULL); general networks: the
                           router of each rank */
    uint32_t *to_virt;  /* uniform: the rank a draw at each router skips (else the router itself) */
    /* general networks (kc_simtraffic_uniform_net, kc_simtraffic_pairs_net); 0 / NULL otherwise */
    uint32_t draw;      /* uniform: ranks drawn among (0: nodes) */
    uint16_t *weight;   /* [nodes]: the router's endpoints that send (NULL: 1 for every sender);
                           the router generates weight x the load, as one FIFO queue */
    uint32_t weight_max;
} kc_simtraffic;

/* General networks (kcube/simnet.h: endpoints per router, an allocation).
 * Ranks 0..S-1 (S = kc_simnet_slots) sit on endpoints: rank v on
 * place[v] (S distinct endpoint numbers of the allocation's routers), or
 * with place NULL on slot v (endpoint v % C of the allocation's router
 * v / C, in the order given; endpoint v without an allocation). Every
 * endpoint with a rank generates at the run's load, so a router with w
 * sending endpoints generates w x load into one FIFO queue (for Poisson
 * sources the superposition of its endpoints' streams). A message between
 * two endpoints of one router goes from injection to ejection; one from an
 * endpoint to itself is dropped. On a plain network (C = 1, no allocation)
 * these give the tables and draws of the functions below. */
/* Uniform: each message to one of the other S - 1 ranks (one draw). */
kc_status kc_simtraffic_uniform_net(kc_simtraffic *t, const kc_simnet *net, const uint32_t *place, kc_err *err);
/* (src[i], dst[i]) rank pairs. */
kc_status kc_simtraffic_pairs_net(kc_simtraffic *t, const kc_simnet *net, const uint32_t *src, const uint32_t *dst,
                                  size_t count, const uint32_t *place, kc_err *err);
/* A traffic file (the format of kc_simtraffic_read) naming ranks. */
kc_status kc_simtraffic_read_net(kc_simtraffic *t, const kc_simnet *net, const char *path, const uint32_t *place,
                                 kc_err *err);
/* The endpoint of every rank (place, or the slots), checked: distinct and
 * on the allocation's routers (KC_EINVAL naming "mapping"). out gets S
 * entries (free it). O(S + nodes). */
kc_status kc_simnet_rank_endpoints(const kc_simnet *net, const uint32_t *place, uint32_t **out, kc_err *err);

/* Uniform random destinations (through the mapping if map is not NULL). */
kc_status kc_simtraffic_uniform(kc_simtraffic *t, uint32_t nodes, const kc_nodemap *map, kc_err *err);
/* Virtual (src, dst) pairs through an optional mapping. */
kc_status kc_simtraffic_pairs(kc_simtraffic *t, uint32_t nodes, const uint32_t *src, const uint32_t *dst,
                              size_t count, const kc_nodemap *map, kc_err *err);
/* One destination per virtual node (KC_SIM_NONE: none). */
kc_status kc_simtraffic_table(kc_simtraffic *t, uint32_t nodes, const uint32_t *dst, const kc_nodemap *map,
                              kc_err *err);
/* Every message of a binary-cube LCC (permutation, gather or scatter). */
kc_status kc_simtraffic_lcc(kc_simtraffic *t, const kc_lcc *c, const kc_nodemap *map, kc_err *err);
/* A permutation's fixed points back in its table (the builders above drop
 * messages to oneself): when every source has at most one destination,
 * the destinations are distinct and none is a source without one, the
 * sources without one are the fixed points, and each gets itself as its
 * destination (BookSim2 sends them through the own router). Any other
 * table is left as it is. O(nodes). */
kc_status kc_simtraffic_keep_fixed(kc_simtraffic *t, kc_err *err);
/* The digit patterns below ("bit-reverse", "complement": aliases). */
extern const kc_names kc_simdigits_names;
/* Digit permutations on the k-ary n-cube: "transpose" (digit i <-> i + n/2, n
 * even), "digit-reverse" (d_i -> d_{n-1-i}), "digit-complement" (k-1-d_i).
 * On k = 2 they are transpose, bit-reverse and complement. */
kc_status kc_simtraffic_digits(kc_simtraffic *t, int k, int n, const char *name, const kc_nodemap *map,
                               kc_err *err);
/* A text file of "source destination [bytes]" lines (virtual node ids; '#'
 * starts a comment; the traffic-file format of kcube/traffic.h, whose
 * "# phase NAME" lines are checked alike and the phases simulated
 * together), through an
 * optional mapping. Every message has the simulation's one size, so a byte
 * count is checked (0..2^64-1) and not used. */
kc_status kc_simtraffic_read(kc_simtraffic *t, uint32_t nodes, const char *path, const kc_nodemap *map,
                             kc_err *err);
/* The same from an open reader (kcube/reader.h; a file or memory), which
 * the caller closes. O(file size + nodes). */
kc_status kc_simtraffic_read_from(kc_simtraffic *t, uint32_t nodes, kc_reader *r, const kc_nodemap *map,
                                  kc_err *err);
void kc_simtraffic_free(kc_simtraffic *t);

/* Number of physical nodes that send anything. */
uint32_t kc_simtraffic_senders(const kc_simtraffic *t);

/* Largest number of messages of a traffic table whose routes (the first
 * candidate at every hop) share a channel: the degree of contention. */
kc_status kc_simtraffic_contention(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *t,
                                   long long *out, kc_err *err);

#endif
