/* kcube/loggops.h - the LogGOPS model of a GOAL schedule, in integer
 * nanoseconds, with LogGOPSim's semantics (docs/loggops.md).
 *
 * Parameters as LogGOPSim takes them: L latency (ns), o CPU overhead per
 * message (ns), g gap between messages at a NIC (ns), G time per byte at a
 * NIC (ns/byte), O CPU overhead per byte (ns/byte), S the largest eager
 * message (bytes; larger ones use rendezvous). With s bytes and
 * s1 = max(s - 1, 0):
 *
 *   send at t  (its CPU and NIC both free): CPU busy until t + o + s1 O, NIC
 *              until t + g + s1 G; the message reaches the receiver at
 *              t + o + L. An eager send (s <= S) satisfies `requires` now; a
 *              rendezvous send when its receive is matched.
 *   message at t (the receiver's CPU and NIC free, else it waits): CPU busy
 *              until t + o + max(s1 O, s1 G), NIC until t + g + s1 G; it
 *              matches the first posted receive that fits, or waits in the
 *              unexpected queue.
 *   recv       is posted when ready, without CPU time: it matches the first
 *              unexpected message that fits, or waits in the posted queue.
 *   calc T     runs when its CPU is free, for T ns.
 *
 * An operation made ready by an event starts when its own CPU is free (a
 * send: its CPU and its NIC); operations made ready together enter by
 * rank, then sends, receives, calcs, then in release order (`irequires`
 * dependents before `requires` ones, each in dependency-line order).
 * `irequires` is satisfied when the operation is taken (a recv: posted),
 * `requires` when it is done. Wildcard receives are matched at run time. A
 * rank's finish is the time its last CPU becomes free; the makespan is the
 * largest finish. This is LogGOPSim's event loop with three defects not
 * copied: ready operations keep the release order however many there are
 * (LogGOPSim sorts them with an unstable sort), a 0-byte message costs no G
 * and no O (LogGOPSim's (s - 1) wraps around), and the send's size decides
 * eager or rendezvous, so a send completes once (LogGOPSim uses the
 * receive's when the receive finds the message queued). Costs: O(ops +
 * deps) plus, per event, O(1) while events share times (else O(log events
 * queued)), O(1) expected per match (a wildcard receive: the unexpected
 * messages it passes); an operation that finds its CPU or NIC busy waits
 * in a list with those needing the same CPU and NIC, of which only the
 * first is retried when they free (LogGOPSim retries all k: O(k^2)
 * events; the result is the same). About 60 bytes an operation (76 with
 * a trace) and 4 a dependency. Library
 * code: never prints. */
#ifndef KCUBE_LOGGOPS_H
#define KCUBE_LOGGOPS_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/goal.h"

#define KC_LOGGOPS_S_INF UINT64_MAX /* no rendezvous */

typedef struct kc_loggops_params {
    uint64_t L, o, g, G, O, S;
} kc_loggops_params;
/* LogGOPSim's defaults. */
#define KC_LOGGOPS_PARAMS_DEFAULT {2500, 1500, 1000, 6, 0, 65535}
/* Each parameter's bound (a day in ns; S may also be KC_LOGGOPS_S_INF). */
#define KC_LOGGOPS_PARAM_MAX ((uint64_t)86400 * 1000000000)

/* Parse "L=2500,o=1500,g=1000,G=6,O=0,S=65535" (any subset, in any order,
 * each at most once; case matters: g and G, o and O; S=inf for no
 * rendezvous) over the values already in *p, or LogGOPSim's positional
 * "2500,1500,1000,6,0,65535" (all six, in the order L,o,g,G,O,S; *p is left
 * as it was when it fails). KC_EINVAL (param "loggops") naming the bad
 * item. O(length). */
kc_status kc_loggops_parse(const char *text, kc_loggops_params *p, kc_err *err);

/* The per-operation times, for timelines: an optional callback called once
 * per slice, in the order the model decides them (not sorted by time). */
typedef enum kc_loggops_slice_kind {
    KC_LOGGOPS_CALC, /* op = the calc; [start, end) of its CPU time */
    KC_LOGGOPS_SEND, /* op = the send; the sender's CPU: o + s1 O */
    KC_LOGGOPS_RECV, /* op = the recv, peer = its send; the receiver's CPU: o + max(s1 O, s1 G) */
    KC_LOGGOPS_WIRE, /* op = the send, peer = its recv, rank = the sender: from the end of the
                        sender's o to when the receiver's CPU takes the message */
    KC_LOGGOPS_RNDV, /* op = a send above S, peer = its recv, rank = the sender: its CPU held
                        from when it was free until the receive was matched (only when later) */
    KC_LOGGOPS_WAIT  /* op = a recv, peer = its send, rank = the receiver: from its posting to its
                        match or its message's intake, whichever is later; length 0 when the
                        message came first (an operation made ready is timed at its CPU's free
                        time, as in LogGOPSim, which may be earlier than the event that readied
                        it: a receive can be posted before its message's intake and still find
                        it, or after the time its message is taken at); just before its RECV */
} kc_loggops_slice_kind;
typedef struct kc_loggops_slice {
    size_t op, peer;     /* operation indices in the kc_goal; peer KC_GOAL_NONE when none */
    uint64_t start_ns, end_ns;
    uint32_t rank;
    uint8_t kind;        /* kc_loggops_slice_kind */
    uint8_t cpu;         /* the CPU charged (CALC, SEND, RECV, RNDV); WAIT: the recv's */
} kc_loggops_slice;
typedef void (*kc_loggops_trace_fn)(void *ctx, const kc_loggops_slice *s);

typedef struct kc_loggops_result {
    uint64_t makespan_ns;
    uint64_t *finish_ns;  /* [num_ranks]: each rank's CPUs free */
    uint64_t messages;    /* delivered */
    uint64_t rendezvous;  /* of them above S */
    uint64_t events;      /* taken from the event queue (retries of busy entries included) */
} kc_loggops_result;

/* Run the model on g (validated: kc_goal_validate). trace may be NULL.
 * KC_EINVAL (param "schedule") when operations never run or messages stay
 * unmatched (a schedule not validated, or one whose wildcards match
 * differently at run time), KC_ERANGE ("loggops") when a time passes
 * 2^64 - 1 ns (param "schedule": 2^30 operations or more, 2^32 - 1
 * dependencies or more, or 2^31 ranks or more), KC_ENOMEM. On error out holds nothing to free. */
kc_status kc_loggops_run(const kc_goal *g, const kc_loggops_params *p, kc_loggops_trace_fn trace, void *ctx,
                         kc_loggops_result *out, kc_err *err);
void kc_loggops_result_free(kc_loggops_result *r);

#endif
