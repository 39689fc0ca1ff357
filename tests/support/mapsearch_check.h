/* mapsearch_check.h - shared by the tests of sets beyond the DP
 * (test_mapsearch.c and the slow test_mapsearch_large.c): random sets of communications, and the
 * reorder search checked against the exact subset DP. */
#ifndef KC_TEST_MAPSEARCH_CHECK_H
#define KC_TEST_MAPSEARCH_CHECK_H
#include <stdint.h>

#include "kcube/contention.h"
#include "kcube/mapset.h"
#include "kcube/rng.h"

/* A random set in c[0..4): 2..4 random LCCs of random kinds, or 2..4
 * built-in patterns; returns how many. */
int kc_test_random_lcc_set(kc_lcc *c, int n, kc_rng *rng);
/* `trials` random sets at n = n0, n0 + 2, .. n1: the search (work units)
 * reaches the DP's optimum, its lower bound never passes it, and its value
 * and total are recounted. */
void kc_test_search_vs_dp(uint64_t seed, int trials, int n0, int n1, kc_objective obj, uint64_t work);

#endif
