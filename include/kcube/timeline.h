/* kcube/timeline.h - what each rank of a replayed schedule did, and when
 * (docs/appsim.md): a recorder that any timing model fills, and that the
 * command line writes as Chrome trace events (Perfetto, chrome://tracing)
 * or draws as a Gantt chart (docs/appsim.md, "Timelines").
 *
 * A timeline holds slices and flows. A slice is one operation's time on its
 * rank's processor: a calc for its time, a send for the processor time it
 * costs its sender (the start-up in kcube's models; o + (bytes - 1) O in a
 * LogGOPS model), a recv for the processor time it costs its receiver (none
 * in kcube's models: a slice of duration 0 at the moment it completes; o +
 * (bytes - 1) O in a LogGOPS model), with the moment it was posted kept
 * beside (posted_us). Two kinds draw the waits: a hold is a rendezvous
 * send's processor kept from when it was free until its receive was
 * matched (processor time: LogGOPS counts it in the finish), a wait is a
 * posted receive waiting until it is matched or, when later, its message's
 * intake starts (in kcube's models without a receiver CPU: until its data
 * is there), so max(0, start_us - posted_us) of its recv, drawn only when
 * longer than 0; a wait holds
 * no processor, so waits may overlap each other and the busy slices. A
 * flow is one message, from its send's slice to its receive's. The busy
 * slices (all but waits) of one processor never overlap (a zero-length
 * slice may sit inside another) and add up to the rank's busy time
 * (kc_timeline_busy); a rank's last slice ends at its finish time.
 *
 * A model records with kc_timeline_add_slice and kc_timeline_add_flow, in
 * any order; times are microseconds (doubles), from 0 at the start of the
 * replay. Each rank belongs to a node (node_of, identity after init; the
 * caller sets it when ranks share nodes), the process its track is drawn
 * in. Costs: O(1) amortised a slice or flow, 64 + 16 bytes each; memory
 * grows with the schedule (a bound on slices, max_slices, turns a runaway
 * into KC_ERANGE). Library code: never prints. */
#ifndef KCUBE_TIMELINE_H
#define KCUBE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/goal.h"
#include "kcube/loggops.h"
#include "kcube/names.h"

typedef enum kc_tl_kind {
    KC_TL_CALC,
    KC_TL_SEND,
    KC_TL_RECV,
    KC_TL_HOLD, /* a rendezvous send's processor held until its receive is matched (op: the send) */
    KC_TL_WAIT  /* a posted receive waiting for its match, no processor time (op: the receive) */
} kc_tl_kind;
extern const kc_names kc_tl_kind_names; /* "calc", "send", "recv", "hold", "wait" */

typedef struct kc_tl_slice {
    double start_us, dur_us; /* the processor time the operation takes */
    double posted_us;        /* recv, wait: when the receive was posted (its wait: max(0, start_us -
                                posted_us) for a recv); else start_us */
    uint64_t amount;         /* send, recv: bytes; calc: nanoseconds as in the schedule */
    int64_t peer, tag;       /* send, hold: destination; recv, wait: the matched sender; calc: -1, -1 */
    uint32_t rank;
    uint8_t kind;            /* kc_tl_kind */
    uint8_t cpu;             /* the rank's CPU that did it (GOAL's `cpu N`; 0 when the model has one) */
    size_t op;               /* the operation's index in its schedule, or SIZE_MAX */
} kc_tl_slice;

typedef struct kc_tl_flow {
    size_t from, to; /* slice indices: the send's, the matched receive's */
} kc_tl_flow;

typedef struct kc_timeline {
    uint32_t num_ranks;
    uint32_t *node_of; /* [num_ranks]: the node each rank ran on (rank r: node r after init) */
    kc_tl_slice *slice;
    size_t nslices, cap_slices;
    kc_tl_flow *flow;
    size_t nflows, cap_flows;
    size_t max_slices; /* 0: no bound */
} kc_timeline;

/* An empty timeline of num_ranks ranks, rank r on node r. KC_ENOMEM. */
kc_status kc_timeline_init(kc_timeline *t, uint32_t num_ranks, kc_err *err);
void kc_timeline_free(kc_timeline *t);

/* Append a copy of *s; *index (may be NULL) receives its index, for flows.
 * KC_EINVAL (param "timeline") for a rank out of range, a kind not in
 * kc_tl_kind, a negative, infinite or NaN time; KC_ERANGE beyond
 * max_slices; KC_ENOMEM. O(1) amortised. */
kc_status kc_timeline_add_slice(kc_timeline *t, const kc_tl_slice *s, size_t *index, kc_err *err);
/* Append the flow from slice `from` (a send) to slice `to` (a recv).
 * KC_EINVAL for an index out of range or slices of other kinds; KC_ENOMEM.
 * O(1) amortised. */
kc_status kc_timeline_add_flow(kc_timeline *t, size_t from, size_t to, kc_err *err);

/* busy_us[r] = the sum of rank r's slice durations but its waits (its
 * processor's busy time, holds included), for r < num_ranks. O(slices +
 * ranks). */
void kc_timeline_busy(const kc_timeline *t, double *busy_us);
/* The latest slice end (0 for an empty timeline). O(slices). */
double kc_timeline_end(const kc_timeline *t);

/* The LogGOPS run of g (kc_loggops_run; p NULL: LogGOPSim's defaults)
 * recorded in t (g's num_ranks, empty): every CPU charge as a slice (a
 * calc; a send's o + s1 O; a message's intake as its receive's slice,
 * posted_us the receive's posting; a rendezvous hold), a wait per receive
 * whose match or intake came after its posting (KC_LOGGOPS_WAIT), a flow
 * per message; microseconds = the
 * model's ns / 1000, so a rank's last slice ends at finish_ns / 1000. The
 * errors of kc_loggops_run and of the recorder; *out as kc_loggops_run
 * leaves it (nothing to free on error); t keeps what was recorded (free it
 * in any case). Cost: kc_loggops_run's plus O(ops) time and memory. */
kc_status kc_timeline_loggops(const kc_goal *g, const kc_loggops_params *p, kc_timeline *t, kc_loggops_result *out,
                              kc_err *err);

#endif
