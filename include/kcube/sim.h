/* kcube/sim.h - the flit-level wormhole router engine and one simulation run.
 *
 * Model (defaults are the seeds' model):
 *  - a message is msg_flits flits, the first the header; a flit crosses a
 *    channel in one cycle; each channel buffers `depth` flits; a header that
 *    cannot get an output waits in its buffer and its worm stays in place;
 *  - among headers waiting for the same free output, the one that arrived at
 *    the router first wins; ties go to the lower input channel id;
 *  - a physical link carries one flit per cycle, shared by its VCs (the
 *    oldest message first); with vc_independent every VC carries one flit
 *    per cycle (one reading of seed 002's model);
 *  - messages are generated with exponential gaps (Poisson) or by a Bernoulli
 *    trial per cycle, at `load` flits per node per cycle, and wait in a FIFO
 *    source queue for an injection channel.
 * Timing knobs: routing delay R (a header waits R cycles in each router
 * before it can take an output), switch delay S and link latency W (a flit
 * leaving a router's input buffer reaches the next buffer S + W cycles
 * later). Injection takes I = 1 cycle (inject_latency), ejection S + 1. Buffer space is reserved
 * when a flit departs, so a worm streams at full rate when depth >= S + W.
 * Zero-load latency of an H-hop message of L flits (from generation to the
 * arrival of the tail, depth >= S + W):
 *      T0 = H (R + S + W) + R + S + L + I
 * which is H + L + 1 with the defaults R = S = 0, W = 1, I = 1.
 *
 * Every run checks: flit conservation (generated = delivered + queued + in
 * the network), no buffer overflow, and a deadlock watchdog (no flit moved
 * for `watchdog` cycles while worms are in the network), which reports the
 * cycle of blocked channels. Runs are reproducible from `seed`.
 *
 * Sustained load (Dally and Towles: a load is sustained only if every
 * source's accepted traffic keeps up with what it offers). Over the
 * measurement window each source x counts the flits it generates, g(x), and
 * the flits of its messages delivered, a(x) (accepted); g(x) - a(x) is
 * exactly how much x's backlog (flits generated and not yet delivered: in
 * its source queue or on their way) grew over the window. A source that
 * generates nothing in the window (a fixed point of a permutation, an idle
 * node) is not judged. A source falls behind when both
 *   (1) a(x) < 0.97 g(x) - KC_SIM_SOURCE_SLACK msg_flits: it accepted less
 *       than 97 % of its traffic, beyond a few messages that may still be
 *       queued or on their way when the window ends, and
 *   (2) its source queue is not bounded: in the last half of the window it
 *       never once came back down to its length at the window's start.
 * A stable queue, however busy, keeps returning to its usual length, while
 * a source that offers more than its paths carry only grows; (2) keeps the
 * normal ups and downs of a busy queue from counting as (1). A run with a
 * load is sustainable when no judged source falls behind, the aggregate
 * throughput is >= 0.97 x generated, every message generated in the window
 * arrives within the drain, and the source queues stay under
 * queue_cap messages per node on average (past it the run gives up). */
#ifndef KCUBE_SIM_H
#define KCUBE_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/simnet.h"
#include "kcube/simroute.h"
#include "kcube/simtraffic.h"

/* How sources make messages. KC_INJECT_BERNOULLI_GAPS is the Bernoulli
 * process of KC_INJECT_BERNOULLI (a message each cycle with probability
 * load / msg_flits) drawn as geometric gaps between a source's messages: the
 * same process in distribution, one draw per message rather than one per
 * source and cycle, so another random stream and other sample figures. */
typedef enum kc_siminject { KC_INJECT_POISSON, KC_INJECT_BERNOULLI, KC_INJECT_BERNOULLI_GAPS } kc_siminject;
/* "poisson", "bernoulli", "bernoulli-gaps". */
extern const kc_names kc_siminject_names;
/* How the VCs of a link share it (kc_simconfig.vc_independent): "shared" (0),
 * "independent" (1). */
extern const kc_names kc_simvclink_names;

typedef struct kc_simconfig {
    int msg_flits;          /* flits per message, header included (20) */
    double load;            /* offered flits per node per cycle (per endpoint of the job on a general
                               network: kcube/simtraffic.h) */
    kc_siminject process;
    uint64_t seed;
    int64_t warmup;         /* cycles before measuring (3000) */
    int64_t measure;        /* measurement window (10000) */
    int64_t drain;          /* at most this many cycles to deliver measured messages (20000) */
    int route_delay, switch_delay, link_latency; /* R, S, W (0, 0, 1) */
    int64_t watchdog;       /* deadlock after this many cycles without progress (1000) */
    int oneshot;            /* every table entry sends one message at cycle 0, no generation */
    int channel_util;       /* count flits per network link during the window */
    double queue_cap;       /* give up (unsustainable) past this many queued messages per node (64) */
    int vc_independent;     /* 1: every VC moves a flit per cycle (seed 002's tori); 0: the VCs
                               of a link share one flit per cycle; -1 (default): 1 on k-ary
                               n-cubes with k > 2, 0 on the binary cube */
    int threads;            /* threads for this one run (1): header arbitration split by node
                               range, results identical for every count; used by the
                               worm-level loop (and its moves) on networks of KC_SIM_PAR_NODES
                               nodes or more, the stream loop from KC_SIM_PAR_STREAM_NODES */
    /* The router-pipeline model (BookSim2's input-queued VC router, see
     * "The BookSim2 model" in docs/sim.md). Zero values are the seeds'
     * model; any other value runs the router-pipeline loop. */
    int inject_latency;     /* cycles from injection to the source router's buffer (0: the seeds' 1; BookSim2 2) */
    int credit_delay;       /* a freed buffer slot is usable upstream this many cycles later (0; BookSim2 2) */
    int vc_release;         /* kc_simvcrelease: a VC is free when its tail has left the buffer (0) or entered it */
    int va_delay;           /* cycles of R that are VC allocation: a freed VC is taken va_delay + 1 cycles later (0) */
    int inj_vcs, ej_vcs;    /* 0: inj / ej whole channels (the seeds'); V: one port of V VCs (BookSim2: vcs) */
    int input_port;         /* kc_siminport: an input link's VCs each send (0) or one flit per input port (1) */
    int arbitration;        /* kc_simarb: first come first served (0), round-robin (1), iSLIP (2) */
    int self_traffic;       /* 1: uniform draws include the source and permutations keep fixed points (0: dropped) */
} kc_simconfig;

typedef enum kc_simvcrelease { KC_VCREL_TAIL_OUT, KC_VCREL_TAIL_IN } kc_simvcrelease;
typedef enum kc_siminport { KC_INPORT_FREE, KC_INPORT_SHARED } kc_siminport;
typedef enum kc_simarb { KC_ARB_FCFS, KC_ARB_ROUND_ROBIN, KC_ARB_ISLIP } kc_simarb;
/* "tail-out", "tail-in"; "free", "shared"; "fcfs", "round-robin", "islip";
 * "drop", "send". */
extern const kc_names kc_simvcrelease_names;
extern const kc_names kc_siminport_names;
extern const kc_names kc_simarb_names;
extern const kc_names kc_simself_names;
/* BookSim2's router as the options above give it (the --booksim preset):
 * inject latency 2, credit delay 2, tail-in release, VA delay 1, vcs
 * injection and ejection VCs, shared input ports, iSLIP, self traffic sent.
 * Sets only those fields (R, S, W and the network's depth and VCs are the
 * caller's). */
void kc_simconfig_booksim(kc_simconfig *c, int vcs);
/* 1 when c (with the routing's tie rule) leaves the seeds' model, so the
 * router-pipeline loop runs the simulation. */
int kc_sim_pipeline(const kc_simconfig *c, const kc_simroute *route);

/* The smallest network a run splits among cfg.threads threads: below it a
 * cycle is too short for the barriers and the serial part to pay (on the
 * 2-core machine 2 threads ran 2^16-node networks at 0.66-0.83x, 2^18 and
 * 2^20 at 1.1-1.3x). The stream loop (deep buffers, delays, shared VC
 * links), which splits only its header allocation, from twice that: its
 * deep 2^18-node cube measured 0.56-1.14x (a median of 1.01x), 2^19
 * 1.06-1.23x, 2^20 1.04-1.63x (a median of 1.54x). */
#define KC_SIM_PAR_NODES 262144u
#define KC_SIM_PAR_STREAM_NODES (2u * KC_SIM_PAR_NODES)

void kc_simconfig_default(kc_simconfig *c);
/* The injection latency a run uses: inject_latency, with 0 (a zeroed
 * configuration) read as the seeds' 1 cycle. O(1). */
int kc_simconfig_inject_latency(const kc_simconfig *c);
/* The one rule for vc_independent = -1: 1 on k-ary n-cubes with k > 2 (tori
 * and meshes) and on networks of unequal sides (k = 0), 0 on the binary
 * cube. kc_simspec_resolve applies it. */
int kc_sim_vc_link_default(kc_simtopo topo, int k);
/* Whether the VCs of a link move a flit each per cycle (resolves -1). */
int kc_sim_vcs_independent(const kc_simnet *net, const kc_simconfig *c);

#define KC_SIM_CYCLE_MAX 64
/* The per-source rule above: the share of its traffic a source may fall
 * short by, and the whole messages on top of it. */
#define KC_SIM_SOURCE_SHARE 0.03
#define KC_SIM_SOURCE_SLACK 4

typedef struct kc_simresult {
    double offered;             /* the configured load */
    double generated;           /* flits generated per node per cycle in the window */
    double throughput;          /* flits delivered per node per cycle in the window */
    double latency_avg;         /* generation to tail arrival, measured messages */
    double latency_p99;
    double network_latency_avg; /* leaving the source queue to tail arrival */
    uint64_t messages;          /* measured messages delivered */
    int64_t cycles;             /* simulated */
    uint64_t link_traversals;   /* flits that crossed a router-to-router channel */
    double wall_seconds;
    int sustainable;            /* see "Sustained load" above */
    double queue_avg;           /* mean source-queue length per node at the end of the window */
    /* per source, over the sources that generated traffic in the window
     * (runs with a load; 0 sources judged when the run is one-shot) */
    uint32_t sources_judged;
    uint32_t sources_behind;    /* judged sources that did not keep up */
    double source_ratio_min;    /* lowest accepted / generated flits of a source (1: none judged) */
    double source_throughput_min; /* lowest accepted flits per cycle of a source */
    double source_growth_max;   /* largest growth of a source's backlog over the window, flits */
    uint32_t source_worst;      /* the source with the lowest ratio (KC_SIM_NONE: none) */
    /* one-shot runs */
    int64_t completion;         /* cycle at which the last tail arrived */
    /* invariants */
    uint64_t flits_generated, flits_delivered, flits_queued, flits_in_network;
    int deadlock;               /* 1: the watchdog fired */
    int cycle_len;              /* blocked cycle of channels (head channels of the worms) */
    uint32_t cycle[KC_SIM_CYCLE_MAX];
    uint64_t *link_flits;       /* [net_channels / vcs] with channel_util: flits per link in the window */
} kc_simresult;

/* One run. Returns KC_OK also for a deadlock (result->deadlock says so);
 * KC_EINVAL / KC_ERANGE (with the parameter's id) for bad configurations,
 * KC_EINTERNAL for a violated invariant (conservation, buffer overflow: a bug). */
kc_status kc_sim_run(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *traffic,
                     const kc_simconfig *cfg, kc_simresult *out, kc_err *err);
void kc_simresult_free(kc_simresult *r);

/* Bytes of fixed engine state for a network (channels, links, nodes);
 * worms and source queues grow with the traffic on top of this (a whole-run
 * estimate, before anything is built: kcube/simmem.h). */
size_t kc_sim_memory(const kc_simnet *net, const kc_simconfig *cfg);

/* The zero-load latency formula above. */
int64_t kc_sim_zero_load(const kc_simconfig *cfg, int hops);

/* ---- Driven runs: the same engine, messages injected by a caller ----
 * For application-level simulation (kcube/appsim.h): the caller puts
 * messages of any length (1..KC_SIMDRIVE_MAX_FLITS flits, the first the
 * header, no extra header flit) into a node's FIFO source queue at the
 * current cycle, steps the engine one cycle at a time and learns the cycle
 * at which each tail arrives (the zero-load latency above with L = the
 * message's flits). While nothing is queued or in flight it may skip ahead.
 * cfg gives R, S, W, the watchdog and the VC link rule; msg_flits, load,
 * warm-up and windows are ignored. Flits per network link are counted over
 * the whole run. The invariants are those of kc_sim_run; a deadlock stops
 * the run (kc_simdrive_deadlock, and the blocked cycle in the result).
 * Costs: a step is O(moving worms + woken headers + nodes with queued
 * messages) with the worm-level loop (see docs/sim.md), O(active worms +
 * waiting headers + nodes with queued messages) with the flit loop. */
#define KC_SIMDRIVE_MAX_FLITS (UINT32_C(1) << 31)
#define KC_SIMDRIVE_MAX_CYCLE 2000000000LL
typedef struct kc_simdrive kc_simdrive;
typedef struct kc_simarrival {
    uint32_t id;   /* the caller's id of the message */
    int64_t cycle; /* cycle at which its tail arrived */
} kc_simarrival;
kc_status kc_simdrive_new(const kc_simnet *net, const kc_simroute *route, const kc_simconfig *cfg,
                          kc_simdrive **out, kc_err *err);
void kc_simdrive_free(kc_simdrive *d);
int64_t kc_simdrive_now(const kc_simdrive *d); /* the next cycle to simulate */
int kc_simdrive_busy(const kc_simdrive *d);    /* messages queued or in flight */
int kc_simdrive_deadlock(const kc_simdrive *d);
/* Move to a later cycle; only while not busy. */
kc_status kc_simdrive_skip(kc_simdrive *d, int64_t cycle, kc_err *err);
/* A message joins src's source queue at the current cycle. */
kc_status kc_simdrive_send(kc_simdrive *d, uint32_t src, uint32_t dst, uint32_t flits, uint32_t id, kc_err *err);
/* Simulate the current cycle; *arrivals (valid until the next step) lists
 * the messages whose tails arrive (at cycles after this one). */
kc_status kc_simdrive_step(kc_simdrive *d, const kc_simarrival **arrivals, size_t *count, kc_err *err);
/* Check the invariants and fill out (flit counts, cycles, completion,
 * messages, latency, link_flits over the run: free with kc_simresult_free). */
kc_status kc_simdrive_finish(kc_simdrive *d, kc_simresult *out, kc_err *err);

#endif
