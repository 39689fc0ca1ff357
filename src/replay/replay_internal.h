/* Private to src/replay: the processor model of a GOAL schedule and the
 * LogGOPS charge order, shared by the contention-free times (loggp.c,
 * loggops.c), the timelines (timeline.c) and the flit-level replays
 * (appsim.c, appsim_fixed.c). The schedule itself comes through the public
 * kcube/goal.h only. */
#ifndef KCI_REPLAY_INTERNAL_H
#define KCI_REPLAY_INTERNAL_H

#include "kcube/goal.h"
#include "kcube/loggp.h"
#include "kcube/loggops.h"
#include "matchq.h"

/* The processors of a schedule as an event-driven list schedule, shared by
 * the contention-free time (kc_goal_loggp) and the flit-level replay
 * (kcube/appsim.h), so both apply the same rules (docs/goal.md): a send or
 * calc keeps its rank's processor busy (start-up, or its time), one at a
 * time in the order they become ready; a recv costs no processor time and
 * ends when it has started and its data has arrived. The network is the
 * caller's: kci_proc_step returns the send whose start-up ended at
 * kci_proc_time (its message leaves then), and the caller reports
 * the arrival of its data with kci_proc_arrive, at that time or later.
 *
 * The CPU and NIC charges are LogGOPS's
 * (kcube/loggops.h), the network standing for L and G (docs/appsim.md): a
 * send's CPU time is start-up + o + s1 O and its message leaves after
 * start-up + o; a message's receiver CPU takes it (o + s1 O) once its tail
 * has arrived and the CPU is free; with g > 0 each rank's NIC is modelled as
 * LogGOPS's (a send or a message intake waits for it; it stays busy g +
 * s1 x byte time, and the receiver's CPU copies the bytes as they come:
 * o + max(s1 O, s1 x byte time) from the first byte's arrival); a send above
 * S ends, and holds its CPU and NIC, until its receive is matched. With
 * o = g = O = 0 and S infinite (or no parameters) nothing changes. */
typedef struct kci_proc_ev {
    double t;
    /* ties at t: type << 61, then (the NIC model's ready events) the op's
     * first readiness, so waiting operations keep their order, else op */
    uint64_t key;
    size_t op;
} kci_proc_ev;
typedef struct kci_proc_heap {
    kci_proc_ev *e;
    size_t n;
} kci_proc_heap;
typedef struct kci_proc_op {
    double ready, start, end, arrival; /* start: when the op began (a send's or calc's processor time) */
    /* a recv: arrival = when its receiver CPU was done with the message,
     * take = when that CPU began; a send: arrival = when its CPU time ends */
    double take;
    double head, tail, done_min; /* a recv with the NIC model: first byte, tail, o + copy from take */
    double got; /* a send: when its receiver's CPU was done with its message (the receive's arrival) */
    /* a send above S whose rank's CPU hold_cpu was free before the match:
     * held from hold_from until the match at hold_to (the timeline's hold; none while
     * hold_from >= hold_to) */
    double hold_from, hold_to;
    uint32_t seq;     /* the NIC model's readiness number (from 1) */
    uint32_t waiting; /* unresolved dependencies (fewer than 2^32 ops and deps: kci_proc_init checks) */
    unsigned char headed, tailed, started, arrived, ended;
    unsigned char istart;   /* some op `irequires` this one: its start is an event */
    unsigned char hold_cpu; /* see hold_from */
} kci_proc_op;
typedef struct kci_proc {
    const kc_goal *g;
    const kc_goal_match *m;
    double startup_us;
    double o, O, gap, bt;  /* µs, µs/byte, µs, byte time µs/byte (LogGOPS's charges) */
    uint64_t S;            /* rendezvous above S bytes */
    int nic, cpu_recv;     /* gap > 0: the NIC model; the receiver CPU is charged */
    int cpus;              /* the ops' cpu numbers were honoured (kci_fixed): slices carry them */
    double *nics, *nicr;   /* [num_ranks]: NIC free for sending, for receiving (nic only) */
    /* nic only: a rank's CPU taken by a message whose tail has not arrived
     * (cpu = INFINITY) defers the events that need it, in a list per rank */
    size_t *pnext, *phead, *ptail;
    unsigned char *ptype;
    uint64_t nseq;
    kci_proc_op *st; /* [nops] */
    double *cpu;          /* [num_ranks]: processor busy until */
    double *finish;       /* [num_ranks]: last end */
    double total;
    size_t *dfirst, *dlist, ended; /* dlist[dfirst[op]..dfirst[op+1]): op's dependents, dependent * 2 + (irequires) */
    kci_proc_heap h;
    /* The matching, made at run time as MPI does: a message reaching its
     * receiver takes the first posted receive that fits, a receive being
     * posted the first unexpected message that fits. mate[op] is a send's
     * receive and a receive's send (KC_GOAL_NONE until matched); rt's
     * send_of and recv_of are both mate, and m points at rt unless the
     * caller replaces it (appsim_fixed.c: LogGOPS's matching). With a
     * static matching (fixed, kc_goal_loggp's) a message and a receive meet
     * as that matching says, at the same two moments. A message's
     * state at its receiver lives on its send (head, tail, take, done_min,
     * got) and is copied to the receive when the receive ends. q holds the
     * posted receives and unexpected messages in MPI's order (matchq.h,
     * the LogGOPS model's queues); oom: q could not grow. */
    size_t *mate;
    kci_matchq q;
    int oom;
    kc_goal_match rt;
    const kc_goal_match *fixed; /* a static matching to follow, or NULL */
} kci_proc;
/* lp (may be NULL: o = g = O = 0, S infinite; L and G unused) in ns as
 * kcube/loggops.h; byte_time_us is the network's G for the NIC model.
 * Every send's message leaves; the matching is made at run time (p->rt),
 * or follows fixed (may be NULL; kept, must match every send). */
struct kc_loggops_params;
kc_status kci_proc_init(kci_proc *p, const kc_goal *g, const kc_goal_match *fixed, double startup_us,
                        const struct kc_loggops_params *lp, double byte_time_us, kc_err *err);
/* A send's CPU time (start-up + o + s1 O). */
double kci_proc_send_cpu(const kci_proc *p, size_t send);
void kci_proc_free(kci_proc *p);
/* Free what only p's own list schedule uses (its event heap, matching
 * queues and deferral lists) when another driver (kci_fixed) fills st,
 * finish and total instead, with p->m pointing at its matching: kci_proc_step
 * and kci_proc_arrive must not be called after. */
void kci_proc_shed(kci_proc *p);
static inline int kci_proc_pending(const kci_proc *p) { return p->h.n > 0; }
static inline double kci_proc_time(const kci_proc *p) { return p->h.e[0].t; } /* next event */
/* Take the next event; the send op whose message leaves now (its start-up
 * and o ended), or KC_GOAL_NONE. */
size_t kci_proc_step(kci_proc *p);
/* send's message: its tail arrived at its receiver at t, its first byte at
 * first (<= t). Without the NIC model it is matched then. */
void kci_proc_arrive(kci_proc *p, size_t send, double t, double first);
/* With the NIC model (p->nic): send's first byte reaches its receiver's
 * node at t (at or after now, before or at its tail): its CPU and NIC start
 * on it, and it is matched. */
void kci_proc_head(kci_proc *p, size_t send, double t);
/* KC_EINVAL unless every operation ended (a deadlock: the first receive
 * never matched is named). */
kc_status kci_proc_check(const kci_proc *p, kc_err *err);
/* Receive op recv said for a report: "rank R's receive from rank S, tag T,
 * line N" (any rank, any tag for wildcards), into buf. */
void kci_recv_text(const kc_goal *g, size_t recv, char *buf, size_t size);
/* Send op send said as a rendezvous: "rank R's rendezvous send of B bytes
 * > S to rank D, line N", into buf. */
void kci_rndv_text(const kc_goal *g, size_t send, char *buf, size_t size);
/* Does send op i go between two ranks of one node (node_of may be NULL:
 * one rank a node)? A message from a rank to itself does not count: it
 * keeps the cost it always had (through the network interface). */
static inline int kci_proc_local(const kc_goal *g, const uint32_t *node_of, size_t i)
{
    const kc_goal_op *o = &g->op[i];
    return node_of && (int64_t)o->rank != o->peer && node_of[o->rank] == node_of[o->peer];
}
/* After a run: every operation that ended as a slice of tl, every message
 * between two of them as a flow (src/replay/timeline.c; kcube/timeline.h
 * says what a slice is). O(ops). */
struct kc_timeline;
kc_status kci_proc_record(const kci_proc *p, struct kc_timeline *tl, kc_err *err);

/* The order in which a LogGOPS run (kc_loggops_run) charged each
 * CPU and NIC, so that the network replay can process every resource's work
 * in the same order (src/replay/appsim_fixed.c: with every duration and
 * latency no shorter, every time is then no earlier; docs/appsim.md). A
 * charge is a calc or a send taken, a message taken by its receiver's CPU
 * and NIC, or a rendezvous send's rank held until its receive is matched;
 * resources are numbered CPUs rank x ncpu + cpu, then sending NICs
 * R ncpu + rank x nnic + nic, then receiving NICs after those. */
enum { KCI_LG_CALC, KCI_LG_SEND, KCI_LG_MSG, KCI_LG_HOLD };
#define KCI_LG_NONE SIZE_MAX
#define KCI_LG_NORES UINT32_MAX /* a calc's NIC */
typedef struct kci_lg_charge {
    uint32_t op;       /* the calc or send (MSG, HOLD: the send); fewer than 2^32 ops (order_alloc checks) */
    uint32_t cpu, nic; /* resources (nic KCI_LG_NORES for a calc); fewer than 2^32 (order_alloc checks) */
    int type;
    uint64_t t, cpu_end, nic_end; /* ns: when taken; its CPU's and NIC's clock after it */
} kci_lg_charge; /* 40 bytes: one a calc or send, one a message */
typedef struct kci_loggops_order {
    kci_lg_charge *c;
    size_t n, cap;
    unsigned ncpu, nnic;
    size_t nres;
    size_t *post_after;   /* [nops] a recv: the last charge of its CPU when it became ready (KCI_LG_NONE) */
    size_t *matched;      /* [nops] a recv: the send LogGOPS matched it with (KC_GOAL_NONE); a send:
                           * unused (the network replay puts its receive there: one array, both ways) */
    unsigned char *eager; /* [nops] a send that ended when it was taken (at most S bytes) */
    uint64_t *post;       /* [nops] ns: a recv: when posted; a send: when its first byte arrived (o + L) */
    uint64_t *match;      /* [nops] ns: a send: when its receive was matched */
    size_t *last_cpu;     /* [R ncpu] while running */
} kci_loggops_order;
/* kc_loggops_run recording ord (made here; free with kci_loggops_order_free,
 * also on error). Same cost, plus O(ops) memory. */
kc_status kci_loggops_run_order(const kc_goal *g, const struct kc_loggops_params *p, kci_loggops_order *ord,
                                kc_loggops_result *out, kc_err *err);
void kci_loggops_order_free(kci_loggops_order *ord);
/* kc_loggops_run (no trace) with its event queue moving from buckets to a
 * heap after `after` events (SIZE_MAX: never; 0: from the start) when they
 * shared few times: for tests, as the result must not depend on it. */
kc_status kci_loggops_run_switch(const kc_goal *g, const struct kc_loggops_params *p, size_t after,
                                 kc_loggops_result *out, kc_err *err);
/* kc_loggops_run (ord: kci_loggops_run_order's recording when not NULL)
 * with every entry that finds its CPU or NIC busy put back into the queue,
 * as LogGOPSim does, instead of waiting in a list: for tests, as the
 * result, the slices and the order must not depend on it (only the count
 * of events does). */
kc_status kci_loggops_run_retry(const kc_goal *g, const struct kc_loggops_params *p, kc_loggops_trace_fn trace,
                                void *ctx, kci_loggops_order *ord, kc_loggops_result *out, kc_err *err);

#endif
