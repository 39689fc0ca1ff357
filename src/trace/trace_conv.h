/* trace_conv.h - what the trace converters (trace_traffic.c, trace_goal.c)
 * share: the byte convention of collectives (trace_coll.c) and the calls
 * table (trace_calls.c), which ties together the events of one collective
 * call on every member so that one algorithm and one block size serve the
 * whole call. Private to src/trace. */
#ifndef KCI_TRACE_CONV_H
#define KCI_TRACE_CONV_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/trace.h"

/* The block of a collective as kcube reads it from one rank's sent and
 * received totals (docs/traces.md, "The byte convention"): the message for
 * bcast, the per-rank block for scatter, gather, allgather and alltoall,
 * the vector for reduce, allreduce, scan and both reduce-scatters. Me and
 * root are communicator ranks. O(1). */
uint64_t kci_trace_coll_block(kc_trace_coll op, uint32_t size, uint32_t root, uint32_t me, uint64_t sent,
                              uint64_t received);
/* The totals a rank records for a call of block `block` (the inverse of
 * kci_trace_coll_block: Score-P's rule without MPI_IN_PLACE). O(1). */
void kci_trace_coll_totals(kc_trace_coll op, uint32_t size, uint32_t root, uint32_t me, uint64_t block,
                           uint64_t *sent, uint64_t *received);
/* The size Open MPI's decision looks at, from kcube's block (the same but
 * for reduce-scatter-block, decided on the per-rank share). */
uint64_t kci_trace_coll_decision_bytes(kc_trace_coll op, uint32_t size, uint64_t block);

/* One collective call: the k-th collective on a communicator, on every
 * member (MPI orders a communicator's collectives alike on all members). */
typedef struct kci_trace_call {
    uint32_t comm;
    uint32_t members;   /* members whose trace has this call */
    uint32_t root;      /* communicator rank of the root; KC_TRACE_NO_RANK: none */
    uint8_t op;         /* kc_trace_coll of the first member seen */
    uint8_t alg;        /* the algorithm the call is expanded with (never KC_ALG_AUTO) */
    uint8_t mixed;      /* 1: members disagree on the operation or the root */
    uint8_t pad;
    uint64_t block;     /* the call's block: the root's, or the members' mean */
} kci_trace_call;

typedef struct kci_trace_calls {
    kci_trace_call *call;
    size_t ncalls;
    uint64_t *call_of;  /* per event (t->nev): its call, or KC_TRACE_NONE for other kinds */
    uint32_t *me_of;    /* per event: the rank's communicator rank in a COLL event's communicator */
} kci_trace_calls;

/* Build the calls table of a finished trace, with `alg` for every call
 * (KC_ALG_AUTO: kc_trace_coll_auto on the call's size and block).
 * O(events + communicator memberships log). */
kc_status kci_trace_calls_build(const kc_trace *t, kc_trace_alg alg, kci_trace_calls *c, kc_err *err);
void kci_trace_calls_free(kci_trace_calls *c);

#endif
