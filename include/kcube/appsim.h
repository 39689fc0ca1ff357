/* kcube/appsim.h - application-level simulation: a GOAL schedule replayed on
 * the flit-level wormhole engine (docs/appsim.md; seed 000
 * Section 6.2 studies its parallel FFT this way on an nCUBE 2 model).
 *
 * Machine model (docs/appsim.md): rank r runs on node r (or R ranks a
 * node, see kc_appsim_place), one processor per rank doing its own
 * start-ups (startup_us per message, charged to the sender before
 * injection) and calc operations one at a time, with the same
 * list-scheduling rules as the contention-free time kc_goal_loggp (the two
 * share one implementation). When a send's start-up ends, its message of
 * ceil(bytes / bytes_per_flit) flits (at least one; no extra header flit)
 * joins the source queue of its node at the first flit-cycle boundary at or
 * after that time, in the engine of kcube/sim.h (kc_simdrive); the matched
 * receive's data has arrived when the tail flit arrives. One flit-cycle is
 * bytes_per_flit x byte_time_us microseconds.
 *
 * Alone in the network (no contention), a message whose start-up ends at a
 * cycle boundary t arrives at t + (L + H (R + S + W) + R + S + 1) cycles,
 * with L flits and H hops: the LogGP time L x cycle plus the wormhole
 * pipeline latency (H + 1 cycles with the default R = S = 0, W = 1).
 *
 * Results: makespan, per-rank finish times, per-phase times (each µs of a
 * node attributed to computing or to the phase of the message it sends or
 * waits for; a phase's time is the largest over nodes), messages delivered
 * (each exactly once, checked), link utilisation and the contention-free
 * LogGP time of the same schedule. Costs: O((ops + deps) log ops) for the
 * processors plus one engine step per flit-cycle while messages are in
 * flight (O(active worms + waiting headers + nodes) each); idle cycles are
 * skipped. Library code: never prints. */
#ifndef KCUBE_APPSIM_H
#define KCUBE_APPSIM_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/goal.h"
#include "kcube/loggp.h"
#include "kcube/sim.h"

struct kc_loggops_params;
typedef struct kc_appsim_opts {
    double startup_us;   /* per message, on the sender's processor (164, nCUBE 2) */
    double byte_time_us; /* channel time per byte (0.57) */
    int bytes_per_flit;  /* 1: one flit-cycle = byte_time_us */
    /* LogGOPS's CPU and NIC (o, g, O, S in ns as
     * kcube/loggops.h; L and G are ignored: the network stands for them);
     * NULL: o = g = O = 0, S infinite, the nCUBE 2 model above. A send
     * costs its CPU start-up + o + (s-1) O and its message leaves after
     * start-up + o; the receiver's CPU spends o + (s-1) O on a message once
     * its tail has arrived; g > 0 adds LogGOPS's NIC (g + (s-1) byte times
     * per message at each end, the CPU copying bytes as they arrive); a
     * message above S bytes holds its sender until its receive is matched
     * (docs/appsim.md). */
    const struct kc_loggops_params *loggops;
} kc_appsim_opts;

/* Placement: ranks_per_node R (0 or 1: one rank a node)
 * ranks share each node, rank r on node node_of[r] (NULL: r / R). Ranks of
 * one node share its injection and ejection channels; a message between
 * two of them never enters the network: it arrives when its start-up ends
 * (the LogGP figure counts it so too; a message from a rank to itself is
 * not one of them and costs what it always did). num_ranks must be a multiple of R
 * and at most nodes x R, and no node may hold more than R ranks.
 * topo (NULL: the nodes are net's routers) makes the nodes the endpoints
 * of a network of net's routers (kcube/topology.h, endpoint e on router
 * e / C): ranks of two endpoints of one router share its injection and
 * ejection channels and their messages go injection -> ejection with no
 * network hop; every zero-load latency counts kc_topology_route's hops.
 * With topo and node_of, num_ranks need not be a multiple of R. */
struct kc_topology;
typedef struct kc_appsim_place {
    uint32_t ranks_per_node;
    const uint32_t *node_of;
    const struct kc_topology *topo;
} kc_appsim_place;
#define KC_APPSIM_OPTS_DEFAULT {164.0, 0.57, 1, NULL}

typedef struct kc_appsim_result {
    double total_us;        /* makespan */
    double loggp_us;        /* kc_goal_loggp of the same schedule and timing */
    double cycle_us;        /* one flit-cycle */
    double *finish_us;      /* [num_ranks]: each rank's last end */
    double *phase_us;       /* [g->nphases]: the largest time a node spends on the phase's messages */
    double *phase_compute_us; /* [g->nphases]: the largest time a node spends on the phase's calcs */
    double compute_us;      /* the largest computing time of a node (its calcs, whatever their phase) */
    uint32_t nphases;
    uint64_t messages;      /* delivered (each exactly once) */
    uint64_t flits;         /* flits of all messages */
    double link_util_mean;  /* flits per link per cycle of the makespan, over existing links */
    double link_util_max;
    kc_simresult sim;       /* engine bookkeeping: cycles, invariants, deadlock and its cycle */
    /* The LogGOPS makespan (kc_loggops_run) with the
     * network's zero-load numbers: o, g, O, S as given, G the byte time and L
     * the start-up plus the smallest zero-load latency of a message's first
     * byte (both rounded down to whole ns; loggops_ref holds them), or -1
     * when that model cannot run the schedule (a rendezvous deadlock:
     * loggops_why says which). When fixed_order is set, total_us >=
     * loggops_us by construction (tested on random schedules). */
    double loggops_us;
    int fixed_order; /* 1: the CPUs and NICs took their work in LogGOPS's order (kc_appsim_run_order) */
    int order_reason; /* kc_appsim_reason: why that order */
    char loggops_why[256]; /* loggops_us < 0: why LogGOPS cannot run the schedule (one line, no period) */
    uint64_t loggops_ref[6]; /* L, o, g, G, O, S (ns; S may be KC_LOGGOPS_S_INF) */
    /* Where the network's time above that goes, summed over the messages
     * that entered it (µs): waiting for a busy channel (header blocked),
     * waiting for the node's injection port (behind the node's earlier
     * messages, one flit a cycle), pipeline latency (hops and router delays
     * beyond the smallest one), and waiting for a cycle boundary. */
    double wait_channel_us, wait_port_us, pipeline_us, boundary_us;
    /* total_us - loggops_us split along the network run's critical path
     * (fixed_order runs only; else ok = 0): walked back from the last end
     * through what decided each time, each step's growth less LogGOPS's
     * between the same two events goes to its kind, so the parts add up to
     * the difference (docs/appsim.md "Along the critical path"). */
    struct {
        int ok;
        double start_up;       /* a send's start-up on its CPU (LogGOPS has it in L) */
        double cpu, nic;       /* CPU and NIC charges (byte time against whole-ns G) */
        double cycle_boundary; /* a message waiting for the next flit-cycle */
        double injection_wait; /* behind its node's earlier messages at the port */
        double channel_wait;   /* a header blocked by a busy channel: contention */
        double pipeline;       /* hops and router delays beyond the smallest, which L holds */
        double other;          /* the rest of a message's time against o + L (+ (s-1) G to the tail):
                                  flits against bytes, L and G rounded to whole ns */
        double elsewhere;      /* where LogGOPS's own time at a step came from another path (<= 0
                                  mostly) and LogGOPS's end after the path's last event */
        uint64_t steps, messages; /* steps on the path; messages among them */
        /* The network's own makespan along the same path, by what each
         * step spent (µs): every part a duration >= 0, their sum total_us
         * (the walk runs from the last end back to time 0). */
        struct {
            double start_up;       /* a send's start-up on its CPU */
            double cpu, nic;       /* computing and the CPUs' and NICs' other charges */
            double transfer;       /* a message at zero load: start-up, latency and bytes (local ones whole) */
            double cycle_boundary, injection_wait, channel_wait, pipeline; /* its waits, as above */
            double waiting;        /* waiting for another rank: a posting, a match */
        } span;
    } path;
} kc_appsim_result;

/* Replay a validated schedule g on net (num_ranks <= nodes; m, its static
 * matching, is not used: receives are matched at run time, see
 * kc_appsim_run_order) with routing `route`; cfg supplies R, S, W, the
 * watchdog and the VC link rule (kc_simconfig_default for the seeds' model); o may be NULL for
 * the defaults. A deadlock of the network is not an error: out->sim.deadlock
 * is set and the times are those reached. KC_EINVAL / KC_ERANGE (param
 * "startup", "byte_time", "bytes_per_flit", "schedule") for bad input,
 * KC_EINTERNAL for a broken invariant (a message delivered twice, flits not
 * conserved, time not accounted). */
kc_status kc_appsim_run(const kc_goal *g, const kc_goal_match *m, const kc_simnet *net, const kc_simroute *route,
                        const kc_simconfig *cfg, const kc_appsim_opts *o, kc_appsim_result *out, kc_err *err);
/* kc_appsim_run with ranks placed (place may be NULL: rank r on node r) and
 * the replay recorded into tl (may be NULL; made by kc_timeline_init with
 * g->num_ranks ranks; its node_of is set to the placement): one slice per
 * operation that ended, one flow per message (kcube/timeline.h). KC_EINVAL
 * (param "ranks_per_node", "mapping", "schedule", "timeline") for a
 * placement that does not fit. Same cost, plus O(ranks + nodes) for the
 * placement and O(ops) for the timeline. */
struct kc_timeline;
kc_status kc_appsim_run_placed(const kc_goal *g, const kc_goal_match *m, const kc_simnet *net,
                               const kc_simroute *route, const kc_simconfig *cfg, const kc_appsim_opts *o,
                               const kc_appsim_place *place, struct kc_timeline *tl, kc_appsim_result *out,
                               kc_err *err);
/* The order in which each CPU and NIC takes its work when o, g,
 * O or S is set (docs/appsim.md "Why the network is never below LogGOPS").
 * KC_APPSIM_ORDER_LOGGOPS (kc_appsim_run_placed's): each in the order the
 * LogGOPS figure took it, so total_us >= loggops_us by construction
 * (fixed_order = 1), receives matched as LogGOPS matched them; when LogGOPS
 * cannot run the schedule, the greedy order and fixed_order = 0;
 * KC_APPSIM_ORDER_GREEDY: the list schedule of the network run's own events
 * (the reading before the bound: a later message can let a CPU finish
 * sooner), receives matched at run time as MPI does (a message reaching
 * its receiver takes the first posted receive that fits, a receive being
 * posted the first unexpected message that fits).
 * Without parameters both are the nCUBE 2 run. */
typedef enum kc_appsim_order { KC_APPSIM_ORDER_LOGGOPS, KC_APPSIM_ORDER_GREEDY } kc_appsim_order;
/* Why a run took its order (kc_appsim_result.order_reason; docs/appsim.md
 * "Matching and the order"): LogGOPS's order; the nCUBE 2 model (no o, g,
 * O or S: its order is the greedy one); the greedy order asked for; LogGOPS
 * cannot run the schedule (a deadlock), so it has no order to follow. */
typedef enum kc_appsim_reason {
    KC_APPSIM_REASON_LOGGOPS,
    KC_APPSIM_REASON_NCUBE2,
    KC_APPSIM_REASON_ASKED,
    KC_APPSIM_REASON_NO_LOGGOPS
} kc_appsim_reason;
/* kc_appsim_run_placed in a given order. Cost: the same, plus the LogGOPS
 * run's O(ops) record of its order. */
kc_status kc_appsim_run_order(const kc_goal *g, const kc_goal_match *m, const kc_simnet *net,
                              const kc_simroute *route, const kc_simconfig *cfg, const kc_appsim_opts *o,
                              const kc_appsim_place *place, struct kc_timeline *tl, kc_appsim_order order,
                              kc_appsim_result *out, kc_err *err);
void kc_appsim_result_free(kc_appsim_result *r);

#endif
