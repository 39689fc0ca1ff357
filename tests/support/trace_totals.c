/* trace_totals.c - Score-P's per-rank byte totals (trace_totals.h), from
 * its scorep_mpi_coll_bytes_* rules: a one-to-all root sends p blocks and
 * keeps one, an all-to-one root receives p, the all-to-all kinds send and
 * receive p, a scan's rank r sends p - r and receives r + 1. */
#include "trace_totals.h"

void kc_test_scorep_totals(kc_trace_coll op, uint32_t p, uint32_t root, uint32_t me, uint64_t m, uint64_t *s,
                           uint64_t *r)
{
    uint64_t n = p;
    *s = *r = 0;
    if (op == KC_COLL_BCAST || op == KC_COLL_SCATTER || op == KC_COLL_SCATTERV) {
        *s = me == root ? n * m : 0;
        *r = m;
    } else if (op == KC_COLL_GATHER || op == KC_COLL_GATHERV || op == KC_COLL_REDUCE) {
        *s = m;
        *r = me == root ? n * m : 0;
    } else if (op == KC_COLL_REDUCE_SCATTER || op == KC_COLL_REDUCE_SCATTER_BLOCK) {
        *s = m; /* the vector; each receives its block p times over */
        *r = n * (m / n + (me < m % n));
    } else if (op == KC_COLL_SCAN) {
        *s = (n - me) * m;
        *r = ((uint64_t)me + 1) * m;
    } else if (op == KC_COLL_EXSCAN) {
        *s = (n - me - 1) * m;
        *r = (uint64_t)me * m;
    } else if (op != KC_COLL_BARRIER)
        *s = *r = n * m;
}
