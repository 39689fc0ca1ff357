/* kcube/simroute.h - routing functions for the wormhole simulator.
 *
 * A routing function lists, for a header at a router, the output channels it
 * may take in order of preference; the router gives it the first free one.
 * Adaptive choices prefer the lowest dimension (seed 000 Section 6).
 *
 *   ecube  binary n-cube: the lowest dimension still to correct (any VC,
 *          lowest free first); deadlock-free.
 *   dor    tori and meshes: dimension-ordered (dimension 0 first), shortest
 *          ring path, a tie (distance k/2) by `tie` (+ by default). On tori the
 *          virtual channel follows `vcrule`; on meshes any VC. On the
 *          hypercube, dor is ecube.
 *   pcube  Glass and Ni's P-cube (turn model for hypercubes): first correct,
 *          in any order, the dimensions where the current address has 1 and
 *          the destination 0; then those with 0 -> 1. Minimal, no extra VCs.
 *   duato  fully adaptive minimal routing on VCs 1..vcs-1 of every dimension
 *          still to correct, with VC 0 as an e-cube escape channel (Duato's
 *          method); needs vcs >= 2.
 *   li-min binary n-cube: a RECONSTRUCTION of Li's minimal deadlock-free
 *          restriction (Q. Li, JPDC 15(2), 1992; seed 000 Section 6.1 calls it
 *          Min), built from the paper's abstract and seed 000's statement that
 *          bit-reverse on the 8-cube forces 8 paths onto the channel 8 -> 0:
 *          a 0 -> 1 hop at any time; a 1 -> 0 hop in dimension j only as the
 *          first hop or right after a hop in a lower dimension; only hops
 *          after which the rest can still be routed so; lowest dimension
 *          first. Minimal, adaptive, no extra VCs, deadlock-free (proof in
 *          docs/sim.md). Needs the input channel to know the previous hop.
 *
 * Torus VC rules (2 VCs per link):
 *   highlow   seed 002 (Cray T3D): on entering a dimension, a message that
 *             will not cross the wraparound link of that ring takes the high
 *             channel (VC 1), one that will, the low channel (VC 0), and keeps
 *             it for the whole dimension;
 *   dateline  VC 0 until the message crosses the wraparound link of the ring,
 *             VC 1 after it;
 *   none      no rule: any VC (with 1 VC this deadlocks on rings, on purpose). */
#ifndef KCUBE_SIMROUTE_H
#define KCUBE_SIMROUTE_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/simnet.h"
#include "kcube/torus.h" /* kc_tie */

/* The _AUTO values mean "unset" in a kc_simspec (kc_simspec_resolve fills
 * them per topology); a kc_simroute given to the engine never holds them. */
typedef enum kc_simalgo { KC_ROUTE_AUTO = -1, KC_ROUTE_ECUBE, KC_ROUTE_DOR, KC_ROUTE_PCUBE, KC_ROUTE_DUATO,
                            KC_ROUTE_LIMIN } kc_simalgo;
typedef enum kc_simvcrule { KC_VC_AUTO = -1, KC_VC_HIGHLOW, KC_VC_DATELINE, KC_VC_NONE } kc_simvcrule;

/* A tie rule of the simulator only (kc_simroute.tie): each message draws,
 * when it is generated, one direction per dimension from the run's seeded
 * stream, and takes it at a distance-k/2 tie (BookSim2 draws when the
 * packet turns into the ring). Runs the router-pipeline loop. */
#define KC_SIM_TIE_RANDOM ((kc_tie)3)
/* "plus", "minus", "split", "random": the torus module's rules and random. */
extern const kc_names kc_simtie_names;

typedef struct kc_simroute {
    kc_simalgo algo;
    kc_simvcrule vcrule;
    kc_tie tie;   /* torus rings at distance k/2: plus (default), minus, or split
                     (+ from an even coordinate, - from an odd one), as kcube/torus.h */
} kc_simroute;

/* Most candidates any routing lists (ports * vcs, or ej). */
#define KC_SIMROUTE_MAX (2 * KC_SIMNET_MAX_N * KC_SIMNET_MAX_VCS + 16)

/* Name tables (parse, print, help lists): routings ("e-cube" and "p-cube"
 * are aliases) and torus VC rules. */
extern const kc_names kc_simalgo_names;
extern const kc_names kc_simvcrule_names;
/* Thin wrappers over the tables; failures name the parameter "routing" or
 * "vc_rule". kc_simalgo_parse also recognises the routings the seeds cite
 * that are not implemented (min, chiu, mixab3, mixbb3) and says so; for
 * min it points to li-min, the reconstruction. */
kc_status kc_simalgo_parse(const char *text, kc_simalgo *algo, kc_err *err);
const char *kc_simalgo_name(kc_simalgo algo);
kc_status kc_simvcrule_parse(const char *text, kc_simvcrule *rule, kc_err *err);
const char *kc_simvcrule_name(kc_simvcrule rule);

/* Check that the routing suits the network (topology, VC count). */
kc_status kc_simroute_check(const kc_simroute *r, const kc_simnet *net, kc_err *err);

/* Candidate output channels for a header at `node` bound for `dst`, which
 * arrived through channel `in` (a network or injection channel). At the
 * destination these are the ejection channels. Returns the count; O(n * vcs)
 * on the cube. */
int kc_simroute_candidates(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t in,
                           uint32_t *out);
/* The same for a message with its random tie bits (bit d: + on dimension
 * d at a tie, under KC_SIM_TIE_RANDOM; kc_simroute_candidates passes 0). */
int kc_simroute_candidates_ties(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t in,
                                uint32_t ties, uint32_t *out);

#endif
