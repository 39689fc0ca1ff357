/* Helpers shared by the foundation's tests: random communications. */
#ifndef KC_TESTUTIL_H
#define KC_TESTUTIL_H

#include <stdint.h>

#include "kcube/goal.h"
#include "kcube/lcc.h"
#include "kcube/rng.h"
#include "kcube/traffic.h"

/* A random LCC of the given kind on the n-cube (gathers and scatters get a
 * random rank below n); with probability 1/3 some dimensions are made idle
 * (row i = e_i, b_i = 0) so that the idle-dimension rules are exercised. */
void kc_test_random_lcc(kc_lcc *c, int n, kc_lcc_kind kind, kc_rng *rng);

/* A random dimension order of n dimensions. */
void kc_test_random_order(int *order, int n, kc_rng *rng);

/* A random valid schedule of 1..max_ranks ranks: messages in a global order
 * (no wildcards), calcs, phases "a", "b", "c", each new operation waiting
 * (requires or irequires) on some earlier ones of its rank, so the events
 * form no cycle. */
void kc_test_random_goal(kc_goal *g, uint32_t max_ranks, kc_rng *rng);

/* Virtual node v under a dimension reordering: physical bit t = virtual bit
 * order[t]. */
uint32_t kc_test_reorder_node(uint32_t v, const int *order, int n);

/* A uniformly random permutation of 0..n-1 (a node mapping). */
void kc_test_random_perm(uint32_t *p, uint64_t n, kc_rng *rng);

/* count random messages over `nodes` ranks, 1..maxbytes bytes each; every
 * 7th repeats an earlier pair, and self messages occur at random. */
void kc_test_random_traffic(kc_traffic *tr, uint64_t nodes, size_t count, uint64_t maxbytes, kc_rng *rng);

#endif
