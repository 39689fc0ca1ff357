/* trace_totals.h - Score-P's per-rank byte totals of a collective call,
 * written in the tests apart from the library's reading of them
 * (src/trace/trace_coll.c), for test_trace_coll.c and test_trace_convert.c. */
#ifndef KC_TEST_TRACE_TOTALS_H
#define KC_TEST_TRACE_TOTALS_H
#include <stdint.h>

#include "kcube/trace.h"

/* What rank `me` of p records as sent (*s) and received (*r) for a call of
 * block m (the vector for reductions and reduce-scatters) rooted at `root`,
 * by Score-P's rules without MPI_IN_PLACE. */
void kc_test_scorep_totals(kc_trace_coll op, uint32_t p, uint32_t root, uint32_t me, uint64_t m, uint64_t *s,
                           uint64_t *r);

#endif
