/* kcube/simsweep.h - latency/throughput curves: a run per offered load.
 *
 * Load points are independent runs (point i uses the seed derived from the
 * configured seed and i), computed in parallel by `threads` threads; the
 * results are identical to a serial run. With stop_at_saturation the sweep
 * ends at the first unsustainable point (that point is kept).
 * kc_simsweep_points turns FROM:TO:STEP into loads in O(points), refusing
 * more than KC_SIMSWEEP_MAX_POINTS; a sweep costs one kc_sim_run per point,
 * and `threads` engines are alive at once (memory: kcube/simmem.h).
 * A sweep may be shared among processes (kc_simsweep_share, used by
 * kcube-mpi): each runs its own points and an exchange gives every process
 * the same result a single process gets. */
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

/* What a process has of a shared sweep when it calls the exchange, and what
 * the exchange leaves there. In: end is the lowest index among this
 * process's points that ends the sweep (a failure, or with
 * stop_at_saturation an unsustainable point), count when none did; for each
 * of this process's points i <= end, status[i] and points[i] (KC_OK) or
 * errs[i] (a failure). Out: end is the lowest over all processes, and every
 * i <= end has status[i] and points[i] or errs[i] as its owner computed
 * them. Received points' link_flits (link_flits elements each) must be
 * allocated with malloc: the sweep frees them. */
typedef struct kc_simsweep_exchange {
    int count;             /* load points of the sweep */
    int end;
    kc_simresult *points;  /* [count] */
    kc_status *status;     /* [count] */
    kc_err *errs;          /* [count] */
    size_t link_flits;     /* elements of points[i].link_flits when it is set (channel_util) */
} kc_simsweep_exchange;

/* One sweep shared by `parts` processes: process `part` runs the points
 * i with i % parts == part, in order, `threads` at a time, and starts none
 * past its own first point that ends the sweep. Every point below the
 * first one that ends the sweep overall is then run by its owner, so after
 * the exchange each process keeps exactly the points, saturation figures and
 * failure of a one-process sweep; points are seeded by index
 * (kc_simsweep_seed), so they do not depend on which process ran them.
 * exchange() is called once per sweep on every process, from the thread
 * that called kc_sim_sweep, after the local points are done; it returns
 * KC_OK or a failure in err (kc_sim_sweep then fails with it). */
typedef struct kc_simsweep_share {
    int part, parts; /* 0 <= part < parts */
    kc_status (*exchange)(void *ctx, kc_simsweep_exchange *x, kc_err *err);
    void *ctx;
} kc_simsweep_share;

typedef struct kc_simsweep_opts {
    const double *loads;         /* offered loads, in order */
    int count;                   /* >= 1 */
    int threads;                 /* load points run at once (< 1: 1; at most 64) */
    int stop_at_saturation;      /* end at the first unsustainable point */
    const kc_progress *progress; /* NULL: no reports (this process's points) */
    const kc_simsweep_share *share; /* NULL: every point runs here */
} kc_simsweep_opts;

/* Zero options; threads = 1, stop_at_saturation = 1. */
void kc_simsweep_opts_default(kc_simsweep_opts *o);

/* The sweep: one kc_sim_run per point run (this process's share with
 * opts->share), `threads` at once; O(count) memory besides the runs. */
kc_status kc_sim_sweep(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                       const kc_simconfig *cfg, const kc_simsweep_opts *opts, kc_simsweep *out, kc_err *err);
void kc_simsweep_free(kc_simsweep *s);

#endif
