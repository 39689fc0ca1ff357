/* kcube/mapgeneral.h - a general mapping from the best start: the front
 * door of the general mapper (docs/gmap.md) over kcube/gmap.h.
 *
 * The starts are identity; kcube's algebraic mappings (the reordering and
 * the linear mapping of kc_map, kcube/plan.h) of the given linear
 * communications when the topology computes over GF(k) (the caller passes
 * the communications it names and those kc_mapgen_find_lcc finds in a
 * traffic); and
 * Scotch's mapping (kcube/scotchmap.h) when Scotch is built in, with the
 * search's seed ("scotch", scotch_gmap's mapping for seed 1) and, on up to
 * 4096 nodes, with three more seeds ("scotch:sS", opts.scotch_seeds); Scotch
 * in the mode plain scotch_gmap runs in ("scotch:def", kc_scotch_map_tool: the
 * result is never worse than that mapping); and on
 * hypercubes and tori the Gray-code starts "gray:f", one for each f > 1
 * dividing n: every field of f digits of the rank replaced by its reflected
 * k-ary Gray code, which puts consecutive ranks of a field one hop apart
 * (a row-major process grid whose sides are powers of k^f then lands with
 * dilation 1, as a binary-reflected Gray code embeds rings and grids in
 * the hypercube); and, when the traffic is a halo exchange on some process
 * grid (detected: most messages go to a grid neighbour, src/gmap/gridfold.c),
 * "fold:AxB[xC[xD]]": the grid embedded by matching the prime factors of its
 * sides with those of the network's, the best of several such claims
 * counted exactly (a periodic 8x8 grid lands on a 4x4x4 torus with every
 * message one hop). Each is
 * evaluated by the exact counter and the best is improved by kc_gmap_run,
 * which never returns anything worse than it. When Scotch is a start, the
 * search by default keeps total bytes x hops within Scotch's (a cap in the
 * search's order, kc_gmap_opts.hops_cap_start): the result is then never worse
 * than Scotch's on both the max channel load and the hops, unless that
 * would put its max load above the best start's (kcube/gmap.h).
 *
 * Costs: kc_map for each algebraic kind (kcube/plan.h), Scotch's mapping,
 * then the search's budget (kcube/gmap.h). */
#ifndef KCUBE_MAPGENERAL_H
#define KCUBE_MAPGENERAL_H
#include "kcube/comm.h"
#include "kcube/gmap.h"

#define KC_MAPGEN_SCOTCH_SEEDS 4 /* Scotch runs at most */
#define KC_MAPGEN_MAX_STARTS (7 + KC_MAPGEN_SCOTCH_SEEDS + KC_TOPO_MAX_DIMS)

typedef struct kc_mapgen_opts {
    kc_gmap_opts search;   /* seed, budget, progress, groups, separate */
    int use_scotch;        /* 1 (default): Scotch's mapping is a start when Scotch is built in */
    int cap_at_scotch;     /* 1 (default): when Scotch is a start, never more bytes x hops than its
                              mapping (search.hops_cap_start), so the result dominates Scotch's on (a) and (b) */
    int scotch_seeds;      /* Scotch runs, 1..KC_MAPGEN_SCOTCH_SEEDS; 0 (default): 4 up to 4096 nodes, 1
                              above. Run i > 0 is the start "scotch:sS", S = search.seed + 2 i (Scotch
                              7.0.3 maps alike with seeds 2j and 2j + 1); run 0 is "scotch", the mapping of
                              scotch_gmap -Cd with seed 1, and the one the cap and reports refer to. Each run
                              costs one Scotch mapping, outside the search's budget: about 0.1 s on 4096
                              nodes, 2 s on 16384 and 84 s on 65536 (docs/traffic.md) */
    const uint32_t *file_map; /* NULL (default), or a mapping of the caller's (a permutation of the slots, e.g.
                                 read from a file) counted as the start "file", right after the identity */
} kc_mapgen_opts;

void kc_mapgen_opts_default(kc_mapgen_opts *o);

typedef struct kc_mapgen_result {
    int nstarts;
    const char *start_name[KC_MAPGEN_MAX_STARTS]; /* "identity", "file", "reorder", "linear", "scotch", "scotch:sS",
                                                     "scotch:def", "gray:f", "fold:AxB[xC[xD]]" */
    uint32_t *start_map[KC_MAPGEN_MAX_STARTS];    /* each start's to_physical */
    int scotch;                                   /* index of Scotch's start, or -1 */
    int scotch_skipped;                           /* 1: Scotch was not run, its target would be graph-built
                                                     on more than KC_SCOTCH_GRAPH_TARGET_MAX routers
                                                     (kcube/scotchmap.h) */
    uint64_t hops_cap;                            /* the cap the search used (0: none) */
    kc_gmap_result search;                        /* start costs, the final mapping and its costs */
    char gray_name[KC_TOPO_MAX_DIMS][16];         /* storage of the "gray:f" names */
    char scotch_name[KC_MAPGEN_SCOTCH_SEEDS][32]; /* storage of the "scotch:sS" names (S the seed) */
    char fold_name[48];                           /* storage of the "fold:AxB[xC[xD]]" name */
    /* Wall-clock seconds (monotonic clock) spent computing each start
     * (kc_map for "reorder"/"linear", one libscotch run per "scotch*"),
     * not counting its evaluation, which is part of the search; and the
     * seconds of the search (kc_gmap_run: counter, starts' counts, search,
     * final recount). For reports and benchmarks; machine-dependent. */
    double start_seconds[KC_MAPGEN_MAX_STARTS];
    double search_seconds;
} kc_mapgen_result;

/* tr->ranks == t->nodes on plain networks; on general ones (kcube/topology.h)
 * tr->ranks <= kc_topology_slots(t), the ranks beyond tr->ranks silent, and
 * every mapping a permutation of the slots. comms[0..ncomms) are linear communications whose
 * reordering and linear mapping are starts (the traffic's own, found or
 * named), or NULL/0 (then no algebraic start). Free the result with
 * kc_mapgen_result_free, also after an error. */
kc_status kc_mapgen_run(const kc_topology *t, const kc_traffic *tr, const kc_comm *comms, int ncomms,
                        const kc_mapgen_opts *opts, kc_mapgen_result *res, kc_err *err);
void kc_mapgen_result_free(kc_mapgen_result *res);

/* Most communications kc_mapgen_find_lcc returns. */
#define KC_MAPGEN_MAX_FOUND 32

/* Algebraic starts for any input: find whether messages
 * [first, first + count) of tr are a set of linear-complement
 * communications y = Ax + b over GF(k) on t (k a power of two, equal
 * sides), each message set (a group of tr, or all of them without groups)
 * apart. Per set: every XOR difference d = src ^ dst (GF(k) addition on the
 * packed digits) that every rank sends at least once is a translation
 * (A = I, b = d) and is peeled off one message per rank at a time; what is
 * left must be one function of the source (ranks that send nothing left
 * send to themselves, as messages to oneself are often dropped): b = f(0),
 * column j of A = f(e_j) - b, then every rank is checked against Ax + b.
 * Self messages belong to any communication and are ignored. Bytes are
 * ignored (the communications are starts, counted exactly afterwards).
 * Writes up to `max_out` communications to out and their number to
 * *found; a set that is not such a union adds nothing, and *found = 0 is
 * no error. O(count log count + N n^2) per set; sets above 2^24 messages
 * are not examined. */
kc_status kc_mapgen_find_lcc(const kc_topology *t, const kc_traffic *tr, size_t first, size_t count, kc_comm *out,
                             int max_out, int *found, kc_err *err);

#endif
