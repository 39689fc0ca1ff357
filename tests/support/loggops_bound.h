/* loggops_bound.h - shared by test_appsim.c and the slow
 * test_appsim_bound.c: the network replay against the LogGOPS figure with
 * the network's zero-load numbers on seeded random schedules. */
#ifndef KC_TEST_LOGGOPS_BOUND_H
#define KC_TEST_LOGGOPS_BOUND_H
#include <stdint.h>

#include "kcube/appsim.h"

typedef struct kc_test_bound {
    int ran;        /* schedules both models ran */
    int below;      /* of them, the network's makespan below LogGOPS's */
    int fixed;      /* of them, replayed in LogGOPS's order */
    int chains, rendezvous, packed, gap0; /* variants among those run */
    double worst;   /* the largest shortfall, relative */
    uint64_t worst_trial;
    double path_channel, path_elsewhere; /* sums of the critical-path parts over the runs */
} kc_test_bound;

/* `trials` random schedules of up to 16 ranks on the 4-cube (routings,
 * buffer depths, start-ups, byte times, flit sizes, o, g, O random; every
 * 5th trial one chain per rank, every 4th a finite S (rendezvous), every
 * 3rd g = 0, every 6th two ranks a node when the count allows; one tag per
 * message so both models match alike), replayed in `order`. */
void kc_test_loggops_bound(uint64_t seed, int trials, kc_appsim_order order, kc_test_bound *out);

#endif
