/* Private to src/sim: what the engine and the memory and work estimates
 * share (the shape of a network, the decisions that size a run, the bytes
 * of the engine's arrays), and the test entry points of the engine. */
#ifndef KCI_SIM_INTERNAL_H
#define KCI_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/sim.h"

#define KCI_MAX_THREADS 64 /* node ranges of one run */
#define KCI_SIM_DELAY_MAX 1000 /* the most cycles of R, S and W (kci_sim_check_timing) */

/* The shape of a network, enough to size the engine without building it. */
typedef struct kci_simshape {
    uint64_t nodes;
    int n, ports, vcs, inj, ej, depth, max_hops;
    kc_simtopo topo;
    int k;
} kci_simshape;

/* The shape of a built network. */
kci_simshape kci_sim_shape(const kc_simnet *net);
/* Whether the VCs of a link each move a flit per cycle (kc_sim_vcs_independent
 * on a shape). */
int kci_sim_shape_vcs_independent(const kci_simshape *s, const kc_simconfig *cfg);
/* 1 when the worm-level loop reproduces the flit loop for a run on shape s
 * (one-flit buffers, no switch delay, one-cycle links, no VCs taking turns
 * on a link): the engine's choice of loop and the estimates' alike. */
int kci_sim_shape_trains(const kci_simshape *s, const kc_simconfig *cfg);
/* Node ranges (threads) of a run: cfg->threads, at most KCI_MAX_THREADS and
 * the node count, when a loop that splits runs (splits: the worm-level or
 * the stream loop) on a network of at least min_nodes nodes (the stream
 * loop: 2 x min_nodes); else 1. */
uint32_t kci_sim_parts(const kci_simshape *s, const kc_simconfig *cfg, int splits, uint64_t min_nodes);
/* 1 when a run of cfg on `parts` node ranges generates its messages on a
 * thread of its own (feed.c): on several threads, when the nodes are not
 * split (the split already keeps both cores busy) and Bernoulli sources
 * draw every cycle (Poisson generation visits only the due sources and
 * costs too little to gain from a thread: 0.91-1.08x measured). */
int kci_sim_feeds(const kc_simconfig *cfg, uint32_t parts);
/* Bytes of that thread's ring and scratch for a run on `nodes` sources. */
uint64_t kci_feed_bytes(uint64_t nodes);
/* The checks kc_sim_run makes of its arguments (ranges, sizes, routing). */
kc_status kci_sim_check_config(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *tr,
                               const kc_simconfig *c, kc_err *err);
/* The parts of those checks kc_simdrive_new makes too: the router delays
 * and link latency; the routes (their length, the routing's check). */
kc_status kci_sim_check_timing(const kc_simconfig *c, kc_err *err);
kc_status kci_sim_check_routes(const kc_simnet *net, const kc_simroute *route, kc_err *err);

/* Bytes of the engine's fixed arrays (kci_engine_init's); trains:
 * the worm-level loop applies (kci_sim_trains); parts: its node ranges
 * (kc_simconfig.threads on a network that splits, else 1). */
uint64_t kci_sim_fixed_bytes(const kci_simshape *s, int vc_independent, int trains, int parts);
/* Bytes per worm slot (worm record, path, index lists, waiting lists, and
 * for the trains their wait entries: one a VC of a port, of every port
 * when the routing is adaptive; parts: the node ranges of a run on several
 * threads, each with its own lists). */
uint64_t kci_sim_worm_bytes(const kci_simshape *s, int trains, int adaptive, int parts);
/* The traffic table of (src[i], dst[i]) router pairs through an optional
 * mapping, in the pairs' order per source; keep_self keeps pairs whose
 * two ends are one router (endpoints of one router: injection to
 * ejection), else they are dropped. O(count + nodes). */
kc_status kci_simtraffic_build(kc_simtraffic *t, uint32_t nodes, const uint32_t *src, const uint32_t *dst,
                               size_t count, const kc_nodemap *map, int keep_self, kc_err *err);
/* The (source, destination) pairs of a traffic file (kcube/traffic.h's
 * format), each below `nodes`, into new arrays *src, *dst (free them, also
 * on failure). O(file size). */
kc_status kci_simtraffic_read_pairs(struct kc_reader *r, uint32_t nodes, uint32_t **src, uint32_t **dst,
                                    size_t *count, kc_err *err);
/* Asks for transparent huge pages on a large array the engine reads at
 * random (src/sim/pages.c); advice only, a no-op where unsupported. */
void kci_sim_huge(void *p, size_t bytes);
/* Bytes of the router-pipeline loop's arrays (kc_sim_pipeline runs) on
 * shape s: per input VC its buffer of depth flits and records, per output
 * VC its credits, per router its pointers and counts (config.c). */
uint64_t kci_sim_pipe_bytes(const kci_simshape *s, const kc_simconfig *cfg);
/* Bytes per source-queue entry. */
uint64_t kci_sim_queue_entry_bytes(void);

/* kc_sim_run and kc_simdrive_new with a choice of loop: flit_loop 1 keeps
 * the flit-by-flit loop even where the worm-level one applies (the test
 * comparing the two uses it); 0 picks as the public calls do. */
kc_status kci_sim_run_loop(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                           const kc_simconfig *cfg, int flit_loop, kc_simresult *out, kc_err *err);
/* kci_sim_run_loop with the smallest network that runs on cfg->threads
 * threads (kci_sim_run_loop: KC_SIM_PAR_NODES; tests pass 1 to split small
 * networks; any value below KC_SIM_PAR_NODES also turns on the prefetching
 * stages that otherwise only large networks use) and, when log is not NULL, every delivery in delivery order
 * ({injection order of the message, cycle}; the caller frees *log). */
kc_status kci_sim_run_par(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                          const kc_simconfig *cfg, int flit_loop, uint32_t min_nodes, kc_simresult *out,
                          kc_simarrival **log, size_t *nlog, kc_err *err);
kc_status kci_simdrive_new_loop(const kc_simnet *net, const kc_simroute *route, const kc_simconfig *cfg,
                                int flit_loop, kc_simdrive **out, kc_err *err);
/* 1 when the worm-level loop applies to the run (one-flit buffers, no
 * switch delay, one-cycle links, no VCs taking turns on a link). */
int kci_sim_trains(const kc_simnet *net, const kc_simconfig *cfg);

#endif
