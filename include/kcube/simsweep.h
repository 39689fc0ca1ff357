/* kcube/simsweep.h - latency/throughput curves: a run per offered load.
 *
 * Load points are independent runs (point i uses the seed derived from the
 * configured seed and i), computed in parallel by `threads` threads; the
 * results are identical to a serial run. With stop_at_saturation the sweep
 * ends at the first unsustainable point (that point is kept).
 * kc_simsweep_points turns FROM:TO:STEP into loads in O(points), refusing
 * more than KC_SIMSWEEP_MAX_POINTS; a sweep costs one kc_sim_run per point,
 * and `threads` engines are alive at once (memory: kcube/simmem.h). */
#ifndef KCUBE_SIMSWEEP_H
#define KCUBE_SIMSWEEP_H

#include "kcube/error.h"
#include "kcube/sim.h"

typedef struct kc_simsweep {
    int count;                  /* points run */
    kc_simresult *points;       /* [count] */
    double saturation_throughput; /* largest throughput of a sustainable point (every source keeping
                                     up: kcube/sim.h "Sustained load") */
    double saturation_source_min; /* that point's lowest per-source accepted throughput */
    int saturated;              /* an unsustainable point was reached */
} kc_simsweep;

/* The seed of point i. */
uint64_t kc_simsweep_seed(uint64_t seed, int i);

/* Most load points in one sweep. */
#define KC_SIMSWEEP_MAX_POINTS 1000

/* The loads from, from + step, ..., up to to (a point within 1e-9 steps of
 * `to` is included). Needs finite 0 < from <= to and finite step > 0; the
 * count is taken in a wide type, so any doubles (1e300, nan, inf, a tiny
 * step) are refused cleanly: more than KC_SIMSWEEP_MAX_POINTS fails with
 * KC_ERANGE saying how many were asked. loads (NULL: count only) needs room
 * for KC_SIMSWEEP_MAX_POINTS. Failures name the parameter "sweep". */
kc_status kc_simsweep_points(double from, double to, double step, double *loads, int *count, kc_err *err);

typedef struct kc_simsweep_opts {
    const double *loads;         /* offered loads, in order */
    int count;                   /* >= 1 */
    int threads;                 /* load points run at once (< 1: 1; at most 64) */
    int stop_at_saturation;      /* end at the first unsustainable point */
    const kc_progress *progress; /* NULL: no reports */
} kc_simsweep_opts;

/* Zero options; threads = 1, stop_at_saturation = 1. */
void kc_simsweep_opts_default(kc_simsweep_opts *o);

kc_status kc_sim_sweep(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                       const kc_simconfig *cfg, const kc_simsweep_opts *opts, kc_simsweep *out, kc_err *err);
void kc_simsweep_free(kc_simsweep *s);

#endif
