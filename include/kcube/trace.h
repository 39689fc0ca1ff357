/* kcube/trace.h - MPI traces: what one run of a program communicated, read
 * from an OTF2 archive (Score-P, Vampir's and Scalasca's format, and what
 * kcube's own tracer libkcube-trace.so writes), and what kcube makes of it:
 * traffic for the mappers (bytes per sender and receiver, kcube/traffic.h)
 * and a GOAL schedule for the replays (kcube/goal.h). docs/traces.md.
 *
 * A trace is a list of events per world rank, in program order. Events come
 * from the archive (kc_trace_read_otf2) or are built by the caller
 * (kc_trace_init, kc_trace_add_comm, kc_trace_add_region, kc_trace_append,
 * then kc_trace_finish): both paths end in kc_trace_finish, which checks
 * the trace and links each request's completion to the call that started
 * it. Times are nanoseconds from the trace's first timestamp.
 *
 * Costs: reading O(events + definitions) time and 64 bytes per event;
 * finishing O(events) (requests are found through a hash per rank);
 * converting O(events + expanded collective messages). Library code: never
 * prints; every error names the archive (param "trace"). */
#ifndef KCUBE_TRACE_H
#define KCUBE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"

struct kc_traffic;
struct kc_goal;

#define KC_TRACE_NONE UINT64_MAX     /* no event / request */
#define KC_TRACE_NO_RANK UINT32_MAX  /* no peer (a collective without root) */
#define KC_TRACE_MAX_RANKS ((uint32_t)1 << 24)

typedef enum kc_trace_kind {
    KC_TRACE_SEND,     /* blocking send: peer, tag, bytes, comm */
    KC_TRACE_ISEND,    /* non-blocking send started: peer, tag, bytes, comm, request */
    KC_TRACE_RECV,     /* blocking receive, at its end: peer (the source), tag, bytes, comm */
    KC_TRACE_IRECV,    /* non-blocking receive posted: request; peer, tag, bytes and comm are
                        * those of its completion (kc_trace_finish copies them here; a
                        * request never completed keeps peer KC_TRACE_NO_RANK) */
    KC_TRACE_COMPLETE, /* a request ends (a wait, or a test that succeeded): request; `op`
                        * is the index, within its rank, of the ISEND or IRECV it ends. When
                        * built, an IRECV's completion carries peer, tag, bytes, comm. */
    KC_TRACE_COLL,     /* one collective call: time = its begin, end = its end; coll, comm,
                        * peer = the root's world rank (KC_TRACE_NO_RANK: none), bytes = sent
                        * by this rank, received = received by this rank */
    KC_TRACE_ENTER,    /* a code region entered: comm holds the region index */
    KC_TRACE_LEAVE     /* a code region left: comm holds the region index */
} kc_trace_kind;
extern const kc_names kc_trace_kind_names;

/* The collective operations, in OTF2's order (OTF2_CollectiveOp 0..16). */
typedef enum kc_trace_coll {
    KC_COLL_BARRIER,
    KC_COLL_BCAST,
    KC_COLL_GATHER,
    KC_COLL_GATHERV,
    KC_COLL_SCATTER,
    KC_COLL_SCATTERV,
    KC_COLL_ALLGATHER,
    KC_COLL_ALLGATHERV,
    KC_COLL_ALLTOALL,
    KC_COLL_ALLTOALLV,
    KC_COLL_ALLTOALLW,
    KC_COLL_ALLREDUCE,
    KC_COLL_REDUCE,
    KC_COLL_REDUCE_SCATTER,
    KC_COLL_SCAN,
    KC_COLL_EXSCAN,
    KC_COLL_REDUCE_SCATTER_BLOCK,
    KC_COLL_COUNT
} kc_trace_coll;
extern const kc_names kc_trace_coll_names; /* "barrier", "bcast", ..., "reduce-scatter-block" */

/* How a collective becomes point-to-point messages (docs/traces.md gives
 * each algorithm's messages per collective). KC_ALG_AUTO: the algorithm
 * Open MPI's tuned module picks for the operation, communicator size and
 * message size (kc_trace_coll_auto). */
typedef enum kc_trace_alg {
    KC_ALG_AUTO,
    KC_ALG_BINOMIAL,
    KC_ALG_RING,
    KC_ALG_LINEAR,
    KC_ALG_RECURSIVE_DOUBLING,
    KC_ALG_COUNT
} kc_trace_alg;
extern const kc_names kc_trace_alg_names; /* "auto", "binomial", "ring", "linear", "recursive-doubling" */

typedef struct kc_trace_event {
    uint64_t time;     /* ns from the trace's first timestamp */
    uint64_t end;      /* KC_TRACE_COLL: ns at its end; other kinds: = time */
    uint64_t bytes;    /* point-to-point: the message's bytes; COLL: bytes this rank sent */
    uint64_t received; /* COLL: bytes this rank received; other kinds: 0 */
    uint64_t request;  /* ISEND, IRECV, COMPLETE: the request id (unique per rank while live) */
    uint64_t op;       /* COMPLETE: index within the rank of the ISEND/IRECV it ends (set by
                        * kc_trace_finish); other kinds: KC_TRACE_NONE */
    uint32_t peer;     /* point-to-point: the other side's world rank; COLL: the root's */
    uint32_t tag;      /* point-to-point: the MPI tag */
    uint32_t comm;     /* the communicator's index in kc_trace.comm; ENTER/LEAVE: region index */
    uint8_t kind;      /* kc_trace_kind */
    uint8_t coll;      /* COLL: kc_trace_coll */
    uint8_t pad[2];
} kc_trace_event;

typedef struct kc_trace_comm {
    uint32_t size;    /* members */
    uint32_t *member; /* size entries: communicator rank -> world rank */
    char *name;       /* "MPI_COMM_WORLD", "comm 3", ... */
} kc_trace_comm;

typedef struct kc_trace {
    uint32_t ranks;          /* world ranks 0..ranks-1 */
    size_t *first;           /* ranks + 1 entries: rank r's events are ev[first[r] .. first[r+1]) */
    kc_trace_event *ev;      /* every event, rank by rank, each rank's in program order */
    size_t nev, cap_ev;
    kc_trace_comm *comm;     /* comm[0] is MPI_COMM_WORLD (members 0..ranks-1) */
    uint32_t ncomms, cap_comms;
    char **region;           /* region names ("MPI_Send", "solver", ...) */
    uint32_t nregions, cap_regions;
    uint32_t nodes;          /* distinct nodes (hosts) the ranks ran on; 0 when the trace does not say */
    uint32_t *node_of;       /* NULL, or ranks entries: the node index of each rank */
    uint32_t ranks_per_node; /* the most ranks on one node; 0 when unknown */
    uint64_t duration;       /* ns from the first timestamp to the last */
    size_t skipped;          /* events the reader does not use (RMA, I/O, non-blocking collectives, ...) */
    char *name;              /* what messages call the trace: "trace 'dir/traces.otf2'" */
    /* Building state (kc_trace_append before kc_trace_finish): the rank of each event. */
    uint32_t *rank_of;
    int finished;
} kc_trace;

/* ---- Building (tests, readers) ---- */
/* An empty trace of `ranks` world ranks (1..KC_TRACE_MAX_RANKS) with
 * comm[0] = MPI_COMM_WORLD; `name` as in kc_trace.name (copied; NULL:
 * "trace"). On error t holds nothing to free. */
kc_status kc_trace_init(kc_trace *t, uint32_t ranks, const char *name, kc_err *err);
void kc_trace_free(kc_trace *t);
/* A communicator of `size` members (world ranks, each < ranks, no repeats;
 * checked); *index receives its index. name may be NULL ("comm N"). */
kc_status kc_trace_add_comm(kc_trace *t, uint32_t size, const uint32_t *member, const char *name, uint32_t *index,
                            kc_err *err);
/* A region name (copied); *index receives its index. */
kc_status kc_trace_add_region(kc_trace *t, const char *name, uint32_t *index, kc_err *err);
/* Append one event of world rank `rank`. Events of one rank must come in
 * program order; ranks may interleave. Fields are checked in
 * kc_trace_finish. */
kc_status kc_trace_append(kc_trace *t, uint32_t rank, const kc_trace_event *e, kc_err *err);
/* Order the events rank by rank (stable), then check them: peers and roots
 * in range and members of the event's communicator, comm and region
 * indices known, times not decreasing within a rank, ENTER/LEAVE nested,
 * every COMPLETE ending a live request of its rank (an ISEND or IRECV not
 * yet completed). Sets COMPLETE.op, copies an IRECV completion's peer, tag,
 * bytes and comm to the IRECV, and sets duration. KC_EINVAL names the rank
 * and the event's position. O(events). */
kc_status kc_trace_finish(kc_trace *t, kc_err *err);

/* ---- Reading ---- */
typedef struct kc_trace_limits {
    uint64_t max_events; /* refuse (KC_ERANGE) an archive declaring more events; 0: no bound */
    uint32_t max_ranks;  /* 0: KC_TRACE_MAX_RANKS */
} kc_trace_limits;

typedef struct kc_trace_size {
    uint32_t ranks;     /* MPI ranks (locations of the MPI paradigm) */
    uint64_t events;    /* events the archive's definitions declare */
    uint64_t bytes;     /* memory kc_trace_read_otf2 would take, estimated */
} kc_trace_size;

/* Is `path` an OTF2 archive: an anchor file (*.otf2), or a directory holding
 * exactly one? *anchor (may be NULL) receives the anchor's path (malloc'd,
 * the caller frees). 1 yes, 0 no. No errors: a path that is neither is 0. */
int kc_trace_is_otf2(const char *path, char **anchor);
/* The sizes of the archive at `path` (anchor file or its directory) from its
 * global definitions alone (no events read). */
kc_status kc_trace_size_otf2(const char *path, kc_trace_size *size, kc_err *err);
/* Read an OTF2 archive: the MPI events of every rank (world ranks from the
 * archive's MPI location group; communicators translated to world ranks
 * through their groups), regions entered and left, the system tree's nodes
 * (ranks per node). Events the conversion does not use are counted in
 * `skipped`. Bad archives (not OTF2, truncated, events for a location with
 * no definition, a communicator never defined) are KC_EINVAL, one line.
 * limits may be NULL. On error t holds nothing to free. */
kc_status kc_trace_read_otf2(kc_trace *t, const char *path, const kc_trace_limits *limits, kc_err *err);

/* ---- Using ---- */
/* The index of the first region called `name`, or -1. */
int kc_trace_region_find(const kc_trace *t, const char *name);

/* What a conversion did, for its report ("allreduce: 12 calls, recursive-doubling"). */
typedef struct kc_trace_summary {
    uint64_t p2p_messages;                /* point-to-point messages kept */
    uint64_t p2p_bytes;
    uint64_t coll_calls[KC_COLL_COUNT];   /* collective calls kept (counted once per call, not per rank) */
    uint32_t coll_algs[KC_COLL_COUNT];    /* bit a set: some call was expanded with algorithm a */
    uint64_t coll_messages;               /* messages the collectives became */
    uint64_t coll_bytes;
    uint64_t dropped;                     /* events outside the window or the region */
} kc_trace_summary;

/* Filters and choices of the traffic conversion. */
typedef struct kc_trace_filter {
    uint64_t from, to;   /* keep events with from <= time < to (ns); to = UINT64_MAX: to the end */
    const char *region;  /* NULL, or keep only events while some region of this name is entered */
    kc_trace_alg alg;    /* collectives: KC_ALG_AUTO or one algorithm for all */
} kc_trace_filter;
/* Defaults: everything, KC_ALG_AUTO. */
void kc_trace_filter_default(kc_trace_filter *f);

/* Open MPI's choice (its tuned module's fixed decisions, Open MPI 4.1) for
 * a collective over `size` ranks moving `bytes` per rank, mapped to the
 * nearest algorithm kcube expands (docs/traces.md lists the mapping).
 * `bytes` is the size Open MPI decides on: the message (bcast), the
 * per-rank block (gather, scatter, allgather, alltoall, reduce-scatter-
 * block), the vector (reduce, allreduce, reduce-scatter). Commutative
 * operations; never KC_ALG_AUTO. O(1). */
kc_trace_alg kc_trace_coll_auto(kc_trace_coll op, uint32_t size, uint64_t bytes);

/* The messages of rank `me` (a communicator rank) in one collective call on
 * a communicator of `size` ranks with root `root` (communicator rank;
 * ignored by rootless operations), as (destination communicator rank,
 * bytes) pairs in the order the algorithm sends them, with the step each
 * belongs to (steps order a rank's sends and receives in the schedule).
 * `bytes` and `received` are this rank's sent and received totals as the
 * trace gives them (docs/traces.md: the convention, Score-P's). Calls
 * emit(ctx, step, to, bytes) per message it sends and
 * recv(ctx, step, from, bytes) per message it receives; either may be
 * NULL. A non-zero return from a callback stops and is returned. An
 * operation, algorithm or rank out of range lists nothing (returns 0); a
 * rooted operation with root >= size is read as rooted at 0. */
typedef int (*kc_trace_emit_fn)(void *ctx, uint32_t step, uint32_t peer, uint64_t bytes);
int kc_trace_coll_messages(kc_trace_coll op, kc_trace_alg alg, uint32_t size, uint32_t root, uint32_t me,
                           uint64_t bytes, uint64_t received, kc_trace_emit_fn emit, kc_trace_emit_fn recv,
                           void *ctx);

/* Bytes per (sender, receiver): every point-to-point send (blocking and
 * non-blocking) counted once at its sender, every collective call expanded
 * by its algorithm (f->alg) at each member. `out` must be initialised with
 * out->ranks >= t->ranks. f and sum may be NULL. A region filter naming no
 * region of the trace is KC_EINVAL. */
kc_status kc_trace_traffic(const kc_trace *t, const kc_trace_filter *f, struct kc_traffic *out,
                           kc_trace_summary *sum, kc_err *err);

/* The traced run as a GOAL schedule (docs/traces.md "As a schedule"): per
 * rank, its sends, receives and collectives' messages in program order, the
 * time between communication events as calc operations scaled by
 * compute_scale, non-blocking operations ending at their completion.
 * `out` is initialised here (num_ranks = t->ranks); on error it holds
 * nothing to free. o may be NULL (scale 1, KC_ALG_AUTO). A collective call
 * not made by every member of its communicator, or made with different
 * operations or roots, is KC_EINVAL. */
typedef struct kc_trace_goal_opts {
    double compute_scale; /* 1.0: compute as traced; 0: no calc operations */
    kc_trace_alg alg;
} kc_trace_goal_opts;
kc_status kc_trace_goal(const kc_trace *t, const kc_trace_goal_opts *o, struct kc_goal *out, kc_trace_summary *sum,
                        kc_err *err);

#endif
