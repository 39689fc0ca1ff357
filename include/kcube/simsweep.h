/* kcube/simsweep.h - latency/throughput curves: a run per offered load.
 *
 * Load points are independent runs (point i uses the seed derived from the
 * configured seed and i), computed in parallel by `threads` threads; the
 * results are identical to a serial run. With stop_at_saturation the sweep
 * ends at the first unsustainable point (that point is kept). */
#ifndef KCUBE_SIMSWEEP_H
#define KCUBE_SIMSWEEP_H

#include "kcube/error.h"
#include "kcube/sim.h"

typedef struct kc_simsweep {
    int count;                  /* points run */
    kc_simresult *points;       /* [count] */
    double saturation_throughput; /* largest throughput of a sustainable point */
    int saturated;              /* an unsustainable point was reached */
} kc_simsweep;

/* The seed of point i. */
uint64_t kc_simsweep_seed(uint64_t seed, int i);

kc_status kc_sim_sweep(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                       const kc_simconfig *cfg, const double *loads, int count, int threads,
                       int stop_at_saturation, kc_simsweep *out, const kc_progress *progress, kc_err *err);
void kc_simsweep_free(kc_simsweep *s);

#endif
