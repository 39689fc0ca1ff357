/* kcube/netload.h - one communication counted on a general network: rank r
 * on slot r (kcube/topology.h), every message routed on the router channels
 * by the general counter (kcube/chanload.h), messages inside one router
 * dropped (they never enter the network).
 *
 * A linear communication over GF(k) lives on the ranks: it is built for
 * kc_comm_space(t) (kcube/comm.h), k^m slots for m digits. On the m-cube
 * of routers with 2^j endpoints each (seed 000's Origin 2000: j = 1) the
 * count is checked against the closed form of kc_analyze_split
 * (kcube/plan.h): the 2^j LCCs on the routers whose loads add. */
#ifndef KCUBE_NETLOAD_H
#define KCUBE_NETLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/comm.h"
#include "kcube/error.h"
#include "kcube/plan.h"
#include "kcube/topology.h"

/* Exact load of every directed router channel with rank r of c on slot r
 * of t (uniform traffic draws from `seed` as kc_analyze does): *loads gets
 * 2 n nodes entries (malloc'ed, the caller frees), channel id
 * (router * n + axis) * 2 + (dir < 0) as in kcube/chanload.h; each message
 * counts 1. KC_EINVAL naming "n" when c is not built for kc_comm_space(t),
 * KC_ERANGE naming "exact" beyond KC_CHANLOAD_MAX_NODES routers or 2^32
 * slots. O(slots x diameter + n nodes) time, about the counter's memory. */
kc_status kc_analyze_loads(const kc_topology *t, const kc_comm *c, uint64_t seed, uint64_t **loads, size_t *count,
                           kc_err *err);

/* kc_analyze on any network: a plain GF(k) one goes to kc_analyze (the same
 * result); any other is counted by kc_analyze_loads (out->general = 1,
 * exact_per_dim the largest load per axis, worst the lowest channel that
 * carries it), with the split closed form in formula where it applies
 * (has_formula; KC_EINTERNAL if they differ). opts->exact = 0 is KC_EINVAL
 * there (only the count exists). */
kc_status kc_analyze_network(const kc_topology *t, const kc_comm *c, const kc_analyze_opts *opts, kc_analysis *out,
                             kc_err *err);

#endif
