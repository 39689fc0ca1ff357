/* kcube/mapgeneral.h - a general mapping from the best start: the front
 * door of issue 13 over kcube/gmap.h.
 *
 * The starts are identity; kcube's algebraic mappings (the reordering and
 * the linear mapping of kc_map, kcube/plan.h) when the whole traffic is the
 * given linear communications and the topology computes over GF(k); and
 * Scotch's mapping (kcube/scotchmap.h) when Scotch is built in. Each is
 * evaluated by the exact counter and the best is improved by kc_gmap_run,
 * which never returns anything worse than it.
 *
 * Costs: kc_map for each algebraic kind (kcube/plan.h), Scotch's mapping,
 * then the search's budget (kcube/gmap.h). */
#ifndef KCUBE_MAPGENERAL_H
#define KCUBE_MAPGENERAL_H
#include "kcube/comm.h"
#include "kcube/gmap.h"

#define KC_MAPGEN_MAX_STARTS 4

typedef struct kc_mapgen_opts {
    kc_gmap_opts search;   /* seed, budget, progress, groups, separate */
    int use_scotch;        /* 1 (default): Scotch's mapping is a start when Scotch is built in */
} kc_mapgen_opts;

void kc_mapgen_opts_default(kc_mapgen_opts *o);

typedef struct kc_mapgen_result {
    int nstarts;
    const char *start_name[KC_MAPGEN_MAX_STARTS]; /* "identity", "reorder", "linear", "scotch" */
    uint32_t *start_map[KC_MAPGEN_MAX_STARTS];    /* each start's to_physical */
    int scotch;                                   /* index of Scotch's start, or -1 */
    kc_gmap_result search;                        /* start costs, the final mapping and its costs */
} kc_mapgen_result;

/* tr->ranks == t->nodes. comms[0..ncomms) are the linear communications
 * the traffic consists of, or NULL/0 when it is anything else (then no
 * algebraic start). Free the result with kc_mapgen_result_free, also after
 * an error. */
kc_status kc_mapgen_run(const kc_topology *t, const kc_traffic *tr, const kc_comm *comms, int ncomms,
                        const kc_mapgen_opts *opts, kc_mapgen_result *res, kc_err *err);
void kc_mapgen_result_free(kc_mapgen_result *res);

#endif
