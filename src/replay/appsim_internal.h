/* Private to src/replay: the network replay's CPUs and NICs in LogGOPS's order
 * (so that the replay is never below LogGOPS: docs/appsim.md "Why the
 * network is never below LogGOPS").
 *
 * kci_fixed runs the LogGOPS CPU and NIC of kcube/appsim.h with every
 * resource (each CPU, each sending and each receiving NIC) taking its work
 * in the order a LogGOPS run with the network's zero-load numbers took it
 * (kci_loggops_order). Every charge starts at the max of what LogGOPS's
 * start waits for (the resources' previous charges, the op's dependencies,
 * a message's first byte, a rendezvous match) and lasts at least as long,
 * so by induction over that order no time is earlier than LogGOPS's: the
 * makespan is bounded by construction. The times form a max-plus system
 * evaluated as soon as its inputs are known; the only inputs from outside
 * are the messages' tails (and predicted heads), from the flit-level
 * network, so the caller interleaves: kci_fixed_step hands out the sends
 * whose message leaves, in time order, and kci_fixed_head/kci_fixed_tail
 * report the network's answer. */
#ifndef KCUBE_APPSIM_INTERNAL_H
#define KCUBE_APPSIM_INTERNAL_H

#include "replay_internal.h"

/* The replay's charge and operation numbers are 32-bit (half the memory of
 * its per-charge lists): kci_fixed_init refuses a schedule with
 * KCI_FX_MAX operations or charges or more; KCI_FX_NONE is "none". */
#define KCI_FX_NONE UINT32_MAX
#define KCI_FX_MAX UINT32_MAX
typedef struct kci_fixed {
    const kc_goal *g;
    const kc_goal_match *m;
    const kci_loggops_order *ord;
    kci_proc *p;      /* st[], finish, total: filled for the timeline and the accounting */
    double su, o, O, gap, bt;
    size_t *rfirst, *rpos;         /* [nres] where each resource's charges start in rlist; taken */
    uint32_t *rlist;               /* each resource's charges in order */
    double *rfree;                 /* [nres] end of the last charge taken */
    size_t *rlast;                 /* [nres] that charge (KCI_LG_NONE) */
    unsigned char *rknown;         /* [nres] rfree known (a message's CPU waits for its tail) */
    double *cstart, *ccpu, *cnic;  /* [charges] start, end on its CPU, end on its NIC */
    unsigned char *cstate;         /* 0 waiting, 1 taken, 2 its CPU end known */
    uint32_t *task_of, *msg_of, *hold_of; /* op -> its CALC/SEND charge; send -> MSG, HOLD charge */
    uint32_t *cprev_cpu, *cprev_nic; /* [charges] the charge before on its CPU, its NIC (KCI_FX_NONE) */
    unsigned char *rdy;            /* [nops] ready known */
    uint32_t *pwait;               /* [charges] recvs waiting for a charge's CPU end (linked by pnext) */
    uint32_t *pnext;
    /* a send's message's first byte and tail at its receiver: p->st's head,
     * tail, headed, tailed (the list schedule's own, unused here) */
    double *match;                 /* [nops] of a send: when its receive was matched */
    unsigned char *matched;
    size_t *work, nwork, capwork;  /* things to try (a stack that grows) */
    int oom;                       /* the stack could not grow: kci_fixed_check says so */
    kci_proc_ev *h;                /* leaving messages by time */
    size_t hn;
    uint64_t seq;
} kci_fixed;

/* p: initialised by kci_proc_init with lp (its heap is not used).
 * O(ops + charges). */
kc_status kci_fixed_init(kci_fixed *f, kci_proc *p, const kc_goal *g, const kc_goal_match *m,
                         const kci_loggops_order *ord, double startup_us, const kc_loggops_params *lp,
                         double byte_time_us, kc_err *err);
void kci_fixed_free(kci_fixed *f);
static inline int kci_fixed_pending(const kci_fixed *f) { return f->hn > 0; }
static inline double kci_fixed_time(const kci_fixed *f) { return f->h[0].t; }
/* The send whose message leaves at kci_fixed_time. */
size_t kci_fixed_step(kci_fixed *f);
/* The message of `send`: its first byte at t (known now), its tail at t. */
void kci_fixed_head(kci_fixed *f, size_t send, double t);
void kci_fixed_tail(kci_fixed *f, size_t send, double t);
/* Every charge taken and every op ended (else KC_EINTERNAL). */
kc_status kci_fixed_check(const kci_fixed *f, kc_err *err);
/* After the run and its check: free what only the run uses (the queues,
 * the per-resource lists, the states), keeping what the critical path
 * reads (cstart, ccpu, cnic, cprev_cpu, cprev_nic, task_of, msg_of, match,
 * the scalars). Then only kci_fixed_free may follow. */
void kci_fixed_shed(kci_fixed *f);

#endif
