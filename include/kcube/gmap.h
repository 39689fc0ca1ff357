/* kcube/gmap.h - the general mapper: place any communication graph on a
 * hypercube, torus or mesh so that the busiest directed channel carries as
 * few bytes as possible (docs/gmap.md).
 *
 * Objective, lexicographic and exact (kcube/chanload.h): (a) the maximum
 * bytes on one directed channel under dimension-ordered routing with the
 * topology's tie rule (seeds 000 and 002: the contention a wormhole network
 * pays), then (b) total bytes x hops, then (c) the sum of squared channel
 * loads. KC_GMAP_OBJECTIVE states it in words for reports.
 *
 * Search. Every start mapping the caller supplies (identity, kcube's
 * algebraic mappings, Scotch's, ...) is evaluated exactly; the best one
 * (the first on ties) is improved in four phases, every candidate evaluated
 * by the counter's exact incremental update (fractions of the budget):
 *   0. sweep     (to 30%) block reflections in a fixed order: axis i
 *                mirrored (c -> r - c on a ring, any centre r; c -> side-1-c
 *                on a line; a bit flip for side 2) on the nodes that hold
 *                given values on 1 or 2 other axes (nearest axes first;
 *                blocks of at most 4096 nodes; with no condition it would
 *                be a symmetry of the network), each kept when better,
 *                passes repeated while one is kept. These carry structure a
 *                swap cannot: Gray-code folds of lines and grids;
 *   1. descent   (to 40%) first-improvement in the lexicographic order over
 *                random candidates, until 40 N + 1000 failures in a row;
 *   2. annealing (to 65%) Metropolis on the scalar energy sumsq + 4 max^2
 *                (bytes normalised by the mean pair weight), temperature
 *                falling geometrically from the mean rise of 64 seeded
 *                sample moves to 1/1000 of it; skipped when the max load
 *                already equals its lower bound, the bytes of the heaviest
 *                ordered pair (the max cannot improve, so phase 3 gets it);
 *   3. hops      (to 97%) annealing on the second key: Metropolis on bytes
 *                x hops from the best mapping seen, each byte of max load
 *                above the best's costing 8 byte-hops, the temperature
 *                falling from 1/50 of the mean rise to 1/1000 of that;
 *                its candidates draw no hot pairs and take the pair that
 *                costs more bytes x hops of two random ones, so that among
 *                mappings equal on the max the search lowers the hops as
 *                hard as it lowered the max;
 *   4. descent   (to 100%) again from the best mapping seen.
 * General networks (kcube/topology.h): ranks are placed on slots, counted
 * on the whole network; the geometric moves (block reflections, neighbours,
 * boxes) walk the slots as a grid: the endpoints of a router an innermost
 * axis of side C, then the router axes, an allocation's box, or one line of
 * the allocation's routers in file order.
 * Candidates: two random ranks; "pulls", which put one end of a pair on a
 * random neighbour node of the other end (6 in 16 from pairs whose route
 * crosses the busiest channel, a list refreshed when it moves, 7 in 16 from
 * any pair); a hot end against
 * a random rank; a cluster (a rank and the ranks reached through its
 * pairs, breadth first, 2, 4 or 8 of them) carried onto the corners of a
 * random box of side 2, first partners next to the first rank; and, in the
 * descents, 1 in 64 a random block reflection. The lexicographically best
 * mapping seen is kept throughout, so the result is never worse than any
 * start (lexicographically; checked on return: KC_EINTERNAL otherwise).
 *
 * Determinism. The search is a function of (topology, traffic, starts,
 * seed, budget). A budget in seconds is turned into a fixed number of work
 * units (kc_chanload_swap's count: about one channel-hop update each),
 * KC_GMAP_WORK_PER_SECOND per second, so the same seed and budget give the
 * same mapping on every machine; only the
 * wall-clock safety cap (default 20 x budget + 10 s) can cut a run short on a
 * very slow machine, and the result says so (stopped_by_wall). (The
 * annealing's exp and pow come from the C library; one that rounds them
 * differently could, rarely, change a decision.)
 *
 * Costs: evaluating the starts O(starts (E D + n N)); each candidate swap
 * O((deg a + deg b) D log(nN)) (kcube/chanload.h); memory that of the
 * counter (times the groups with opts.separate) plus 8 N bytes. Time: the
 * budget, plus the counter's construction, the starts' recounts and one
 * final recount, which the budget does not count. */
#ifndef KCUBE_GMAP_H
#define KCUBE_GMAP_H
#include <stdint.h>
#include "kcube/chanload.h"
#include "kcube/error.h"
#include "kcube/topology.h"
#include "kcube/traffic.h"

#define KC_GMAP_OBJECTIVE "max channel load (bytes), then total bytes x hops, then sum of squared channel loads"

/* Work units per second of budget. bench/bench_gmap measures 15 to 90
 * million units per CPU second on one x86-64 core (the low end for 2^16
 * nodes, whose tables leave the cache), so a run takes about 0.5 to 2.5
 * times its budget in CPU time. */
#define KC_GMAP_WORK_PER_SECOND 40000000.0

typedef struct kc_gmap_start {
    const char *name;            /* "identity", "linear", "reorder", "scotch", ... (caller's string) */
    const uint32_t *to_physical; /* a permutation of the N slots (kc_topology_slots; nodes on plain networks) */
} kc_gmap_start;

typedef struct kc_gmap_opts {
    uint64_t seed;
    uint64_t iterations;     /* most candidate swaps; 0: no limit of this kind */
    double budget_seconds;   /* converted to work units; 0: no limit of this kind */
    double wall_cap_seconds; /* safety cap; 0: 20 x budget_seconds + 10 (none without a seconds budget) */
    kc_progress progress;    /* done/total in budget fractions */
    /* Optional: message m of the traffic belongs to communication group[m]
     * (< groups); the result then gives each communication's own maximum. */
    const uint32_t *group;
    uint32_t groups;
    /* 1: the groups run at different times (phases of a program), so the
     * objective counts each apart: (a) = the largest load one communication
     * puts on a channel, (c) summed over the per-communication loads
     * (kc_chanload_new_layered; memory x groups). 0: the groups share the
     * network at once and are only reported. */
    int separate;
    /* An index into the starts, or -1 (the default): no cap. With a start
     * named here, mappings whose total bytes x hops exceed that start's
     * come after every mapping within it (the search's order and the
     * result), so the result never has more hops than that start and no
     * higher max load (kcube/mapgeneral.h names Scotch's) -- unless that
     * would mean a higher max load than the best start's: a mapping whose
     * max load is above every start's comes after all others, so the cap
     * never makes the result worse than a start on the first key (the
     * result may then exceed the cap). */
    int hops_cap_start;
} kc_gmap_opts;

/* seed 1, budget 1 second, no iteration limit, no cap override, no groups,
 * no hops cap. */
void kc_gmap_opts_default(kc_gmap_opts *o);

typedef struct kc_gmap_result {
    int nstarts;
    kc_cost *start_cost;       /* nstarts entries, in the caller's order */
    int best_start;            /* the start the search began from */
    kc_cost cost;              /* the final mapping's objective */
    uint64_t nodes;            /* slots the mapping permutes */
    uint32_t *to_physical;     /* the final mapping: rank -> slot */
    uint32_t *to_virtual;
    uint64_t iterations;       /* candidate swaps evaluated */
    uint64_t accepted;         /* swaps kept */
    uint64_t work;             /* work units spent */
    int stopped_by_wall;       /* 1: the wall-clock cap ended the run (result machine-dependent) */
    uint32_t groups;           /* copies opts->groups */
    uint64_t *start_group_max; /* nstarts x groups (row per start), NULL without groups */
    uint64_t *group_max;       /* groups entries for the final mapping */
    uint64_t hops_cap;         /* the cap the search kept (0: none) */
    /* With a cap: the start that is best by the plain objective (the one
     * the search would have begun from without the cap), and the best
     * mapping by the plain objective the capped search visited (equal to
     * cost when the cap changed nothing it saw). Without a cap:
     * plain_best_start == best_start and uncapped_seen == cost. */
    int plain_best_start;
    kc_cost uncapped_seen;
} kc_gmap_result;

/* Run the search. Every start is checked (KC_EINVAL naming "mapping" for a
 * non-permutation; at least one start). The result owns its arrays. */
kc_status kc_gmap_run(const kc_topology *t, const kc_traffic *tr, const kc_gmap_start *starts, int nstarts,
                      const kc_gmap_opts *opts, kc_gmap_result *res, kc_err *err);
void kc_gmap_result_free(kc_gmap_result *res);

#endif
