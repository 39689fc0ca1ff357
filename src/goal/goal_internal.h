/* Private to src/goal: shared helpers of the GOAL reader, validator,
 * timing model and generators. */
#ifndef KCUBE_GOAL_INTERNAL_H
#define KCUBE_GOAL_INTERNAL_H

#include "kcube/goal.h"

/* The operations of each rank in index order: ord[first[r]..first[r+1]). */
kc_status kci_goal_by_rank(const kc_goal *g, size_t **first, size_t **ord, kc_err *err);

/* The processors of a schedule as an event-driven list schedule, shared by
 * the contention-free time (kc_goal_loggp) and the flit-level replay
 * (kcube/appsim.h), so both apply the same rules (docs/goal.md): a send or
 * calc keeps its rank's processor busy (start-up, or its time), one at a
 * time in the order they become ready; a recv costs no processor time and
 * ends when it has started and its data has arrived. The network is the
 * caller's: kci_goal_proc_step returns the send whose start-up ended at
 * kci_goal_proc_time (its message leaves then), and the caller reports
 * the arrival of its data with kci_goal_proc_arrive, at that time or later. */
typedef struct kci_goal_ev {
    double t;
    int type;
    size_t op;
} kci_goal_ev;
typedef struct kci_goal_heap {
    kci_goal_ev *e;
    size_t n;
} kci_goal_heap;
typedef struct kci_goal_opstate {
    double ready, start, end, arrival; /* start: when the op began (a send's or calc's processor time) */
    size_t waiting; /* unresolved dependencies */
    unsigned char started, arrived, ended;
} kci_goal_opstate;
typedef struct kci_goal_proc {
    const kc_goal *g;
    const kc_goal_match *m;
    double startup_us;
    kci_goal_opstate *st; /* [nops] */
    double *cpu;          /* [num_ranks]: processor busy until */
    double *finish;       /* [num_ranks]: last end */
    double total;
    size_t *dfirst, *dlist, ended;
    kci_goal_heap h;
} kci_goal_proc;
kc_status kci_goal_proc_init(kci_goal_proc *p, const kc_goal *g, const kc_goal_match *m, double startup_us,
                             kc_err *err);
void kci_goal_proc_free(kci_goal_proc *p);
static inline int kci_goal_proc_pending(const kci_goal_proc *p) { return p->h.n > 0; }
static inline double kci_goal_proc_time(const kci_goal_proc *p) { return p->h.e[0].t; } /* next event */
/* Take the next event; the send op whose start-up just ended, or KC_GOAL_NONE. */
size_t kci_goal_proc_step(kci_goal_proc *p);
void kci_goal_proc_arrive(kci_goal_proc *p, size_t recv, double t);
/* KC_EINVAL unless every operation ended (a schedule not validated). */
kc_status kci_goal_proc_check(const kci_goal_proc *p, kc_err *err);
/* Does send op i go between two ranks of one node (node_of may be NULL:
 * one rank a node)? A message from a rank to itself does not count: it
 * keeps the cost it always had (through the network interface). */
static inline int kci_goal_local(const kc_goal *g, const uint32_t *node_of, size_t i)
{
    const kc_goal_op *o = &g->op[i];
    return node_of && (int64_t)o->rank != o->peer && node_of[o->rank] == node_of[o->peer];
}
/* After a run: every operation that ended as a slice of tl, every message
 * between two of them as a flow (src/goal/timeline.c; kcube/timeline.h
 * says what a slice is). O(ops). */
struct kc_timeline;
kc_status kci_goal_proc_record(const kci_goal_proc *p, struct kc_timeline *tl, kc_err *err);

#endif
