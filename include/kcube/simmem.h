/* kcube/simmem.h - memory of a simulation before it runs, the memory the
 * machine can give, and how many load points of a sweep may run at once.
 *
 * Each load point of a sweep builds its own engine (kcube/sim.h), so a sweep
 * on T threads needs the configuration's shared state (network, traffic
 * table, mapping) once plus T engines. At n = 24 one engine is several GB,
 * so the thread count has to follow the memory, not the cores.
 *
 * The estimate is computed from the spec alone, before anything is
 * allocated (O(1)). Engine state is exact (the arrays kc_sim_run allocates);
 * what grows with the traffic is bounded as documented in docs/sim.md:
 *   source queues  at most queue_cap messages per node (a run gives up past
 *                  that) and no more than the load generates in the run;
 *   latency sample the messages the load generates in the window;
 *   worms          a live worm owns an injection or an ejection channel, or
 *                  has all msg_flits flits in network buffers of its own
 *                  (at least msg_flits / depth channels): at most
 *                  nodes x (inj + ej) + network channels x depth / msg_flits;
 * each rounded up to the power-of-two capacity the engine grows to.
 * Reading the available memory costs two small file reads. */
#ifndef KCUBE_SIMMEM_H
#define KCUBE_SIMMEM_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/sim.h"
#include "kcube/simspec.h"

typedef struct kc_simmem {
    uint64_t shared;    /* once per configuration: network, traffic table, mapping, build transients */
    uint64_t per_point; /* one running load point: engine state, worms, source queues, latency sample */
} kc_simmem;

/* Estimate for a resolved spec (kc_simspec_resolve) and a configuration;
 * cfg->load is the load of the run (for a sweep pass the largest load). */
kc_status kc_simmem_estimate(const kc_simspec *resolved, const kc_simconfig *cfg, kc_simmem *out, kc_err *err);

/* Wall seconds of one run (one load point) on one core, before it runs.
 * Where the worm-level loop applies (one-flit buffers, S = 0, W = 1, VCs not
 * taking turns: kcube/sim.h), work is per message: N x load / msg_flits x
 * cycles messages (N for a one-shot run) of about diameter / 2 + 4 events
 * each, an event costing 90 to 300 ns as the engine's hot state (8 bytes
 * a channel, 80 a node) outgrows the caches (1.2x the one-thread time
 * bench_sim measured on the idle 2-core machine, 2^8 to 2^20 nodes), plus a draw
 * per source and cycle for
 * Bernoulli injection. Otherwise (the flit loop)
 * each cycle the engine visits the nodes and the live worms: cycles x
 * (N / 2 + worms) units, where a run takes warmup + measure + drain / 2
 * cycles (a stable run drains early; a saturated one gives up once its
 * queues are full) and holds about N x load / msg_flits x 8 (diameter +
 * msg_flits) worms (Little's law with a generous latency), at most the
 * memory bound above; a one-shot run has N worms for msg_flits sqrt(N) +
 * diameter cycles (a transpose's contention). A unit costs 8, 20 or 45 ns
 * as one engine's state (per_point) is under 2 MiB, under 32 MiB or
 * larger: measured on the development machine (x86-64, 2 shared cores) from
 * 2^8 to 2^16 nodes, within a factor 3 either way (runs far beyond
 * saturation take the longest a unit). O(1). */
double kc_simwork_seconds(const kc_simspec *resolved, const kc_simconfig *cfg);

/* shared + threads x per_point (saturating at UINT64_MAX). */
uint64_t kc_simmem_total(const kc_simmem *m, int threads);

/* Bytes this process may still use: the smaller of MemAvailable in
 * /proc/meminfo and the cgroup v2 limit memory.max of the process's group
 * ("max": no limit). A file that is missing or unreadable is ignored;
 * UINT64_MAX when neither says anything. */
uint64_t kc_simmem_available(void);
/* The same from given files (either may be NULL); for tests. */
uint64_t kc_simmem_available_from(const char *meminfo_path, const char *memory_max_path);

/* The sweep policy: the most threads (<= `threads`) for which shared +
 * threads x per_point fits in `budget` bytes. Fails with KC_ERANGE (param
 * "max_memory") and a message giving the estimate and the budget when not
 * even one point fits. */
kc_status kc_simmem_plan(uint64_t shared, uint64_t per_point, int threads, uint64_t budget, int *threads_out,
                         kc_err *err);

/* "1.5 GiB", "340 MiB", "12 KiB", "100 B" into buf; returns buf. */
char *kc_simmem_format(uint64_t bytes, char *buf, size_t size);

#endif
