/* kcube/simref.h - a plain reference simulator for one-shot workloads.
 *
 * The same rules as the engine in kcube/sim.h, written the obvious way:
 * every flit is an object with its position on its worm's path, and every
 * cycle scans every message and flit. It exists to check the engine (tests
 * compare them exactly on random workloads) and as the naive baseline of
 * bench_sim. Every (src[i], dst[i]) pair with src != dst sends one message
 * at cycle 0; a source sends its messages in the order given. It has no
 * offered load or measurement window, so it makes no sustainability
 * judgement (the engine's per-source rule, kcube/sim.h, applies to runs
 * with a load; a one-shot run judges no source). */
#ifndef KCUBE_SIMREF_H
#define KCUBE_SIMREF_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/sim.h"

typedef struct kc_simref_result {
    int64_t completion;       /* cycle at which the last tail arrived */
    double latency_avg;
    uint32_t latency_p99;
    uint64_t link_traversals;
    uint64_t messages;
} kc_simref_result;

/* src and dst are endpoint numbers (router numbers when net->conc is 1):
 * a message runs from router src / C to router dst / C, and one from an
 * endpoint to itself is not sent. Uses cfg's msg_flits, route/switch delays, link latency, vc_independent
 * and watchdog (a deadlock is reported as KC_EINVAL). */
kc_status kc_simref_run(const kc_simnet *net, const kc_simroute *route, const uint32_t *src, const uint32_t *dst,
                        size_t count, const kc_simconfig *cfg, kc_simref_result *out, kc_err *err);

#endif
