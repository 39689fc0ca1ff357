/* mpitrace/mt.h - the tracer's private state and helpers, shared by the
 * files of libkcube-trace.so (docs/traces.md, "kcube's tracer").
 *
 * libkcube-trace.so defines MPI_* functions that record each call and then
 * call the PMPI_* entry points. A wrapper has no context argument, so the
 * tracer keeps its state in one process-wide object (kci_mt, mt_state.c):
 * the one exception to the library's no-global-state rule, forced by the
 * PMPI interface. Every wrapper starts with kci_mt_on(): before MPI_Init,
 * after MPI_Finalize, or once the tracer gave up (an OTF2 error), the call
 * goes straight to PMPI.
 *
 * Identifiers in the events are local to the rank (communicators in
 * creation order, regions: the MPI functions' table then MPI_Pcontrol's
 * names in first use); MPI_Finalize unifies them over the ranks and writes
 * each rank's mapping tables and rank 0's global definitions (mt_defs.c). */
#ifndef KCI_MPITRACE_MT_H
#define KCI_MPITRACE_MT_H

#include <mpi.h>
#include <otf2/otf2.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define MT_NONE UINT32_MAX /* no communicator: an intercommunicator or MPI_COMM_NULL */

/* The MPI functions traced, one region each; kci_mt_region_name gives the
 * names, kci_mt_region_role the OTF2 roles. */
typedef enum mt_region {
    MT_INIT, MT_INIT_THREAD, MT_FINALIZE,
    MT_SEND, MT_BSEND, MT_SSEND, MT_RSEND, MT_ISEND, MT_IBSEND, MT_ISSEND, MT_IRSEND,
    MT_RECV, MT_IRECV, MT_SENDRECV, MT_SENDRECV_REPLACE,
    MT_WAIT, MT_WAITALL, MT_WAITANY, MT_WAITSOME, MT_TEST, MT_TESTALL, MT_TESTANY, MT_TESTSOME,
    MT_REQUEST_FREE,
    MT_BARRIER, MT_BCAST, MT_GATHER, MT_GATHERV, MT_SCATTER, MT_SCATTERV, MT_ALLGATHER, MT_ALLGATHERV,
    MT_ALLTOALL, MT_ALLTOALLV, MT_ALLTOALLW, MT_ALLREDUCE, MT_REDUCE, MT_REDUCE_SCATTER,
    MT_REDUCE_SCATTER_BLOCK, MT_SCAN, MT_EXSCAN,
    MT_COMM_DUP, MT_COMM_SPLIT, MT_COMM_CREATE, MT_CART_CREATE, MT_CART_SUB, MT_COMM_SPLIT_TYPE,
    MT_COMM_CREATE_GROUP, MT_GRAPH_CREATE, MT_DIST_GRAPH_CREATE, MT_DIST_GRAPH_CREATE_ADJACENT,
    MT_COMM_FREE,
    MT_NREGIONS
} mt_region;

/* One communicator this rank has seen. */
typedef struct mt_comm {
    uint32_t size;
    uint32_t *member; /* communicator rank -> world rank */
    uint8_t kind;     /* 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, 2 created by a traced call, 3 met first in use */
} mt_comm;

/* An open-addressing map from a handle's bits to two values (linear
 * probing, deletion by backward shift: no tombstones). */
typedef struct mt_slot {
    uint64_t key; /* 0: empty (no live MPI handle is all zero bits: MPI_REQUEST_NULL and
                   * MPI_COMM_NULL are never stored) */
    uint64_t a;
    uint32_t b, c;
} mt_slot;
typedef struct mt_map {
    mt_slot *slot;
    size_t cap, n; /* cap a power of two, or 0 */
} mt_map;

typedef struct mt_state {
    int on;        /* tracing on this rank */
    int failed;    /* an OTF2 or memory error: the trace will be incomplete */
    int threads;   /* MPI_THREAD_MULTIPLE: the lock guards the state */
    int rank, size;
    MPI_Comm tcomm; /* the tracer's own duplicate of MPI_COMM_WORLD */
    OTF2_Archive *archive;
    OTF2_EvtWriter *evt;
    int64_t offset;  /* ns added to CLOCK_MONOTONIC: rank 0's clock after the barrier in MPI_Init */
    uint64_t last;   /* the last timestamp handed out (timestamps never decrease) */
    uint64_t cur;    /* the time of the current call's events (kci_mt_enter, kci_mt_stamp) */
    int fresh;       /* cur was taken after the PMPI call: its leave uses it too */
    uint64_t start, stop;
    uint64_t init_enter; /* local clock at the entry to MPI_Init */
    mt_comm *comm;
    size_t ncomm, capcomm;
    mt_map comms;    /* live communicator handle -> a: index in comm */
    mt_map reqs;     /* live request handle -> a: request id, b: comm, c: 1 send, 2 receive */
    uint64_t next_req;
    char **uregion;  /* MPI_Pcontrol regions: region MT_NREGIONS + i */
    size_t nuregion, capuregion;
    uint32_t *open;  /* MPI_Pcontrol regions entered and not left, innermost last */
    size_t nopen, capopen;
    pthread_mutex_t lock;
} mt_state;

extern mt_state kci_mt;

/* ---- mt_state.c ---- */
/* Is tracing on (MPI initialised, not finalised, no fatal error)? */
static inline int kci_mt_on(void) { return kci_mt.on; }
const char *kci_mt_region_name(uint32_t r);
OTF2_RegionRole kci_mt_region_role(uint32_t r);
/* One line on stderr, "kcube-trace: rank R: ..." (printf format: the
 * tracer's own texts only). Never stops the program. */
void kci_mt_warn(const char *fmt, ...);
void kci_mt_lock(void);
void kci_mt_unlock(void);
/* A timestamp on rank 0's timeline, never below the previous one. Lock held. */
uint64_t kci_mt_now(void);
/* An OTF2 call's result: a failure is reported once and marks the trace incomplete. */
void kci_mt_check(OTF2_ErrorCode rc, const char *what);
/* Reading the clock is the tracer's main cost (tens of ns in a VM), so a
 * call reads it twice: at its entry (the Enter and the events before the
 * PMPI call share that time, kci_mt.cur) and after the PMPI call
 * (kci_mt_stamp: the events after it and the Leave share that one). Lock
 * held for kci_mt_stamp. */
void kci_mt_stamp(void);
/* Enter / leave a region (an mt_region or an MPI_Pcontrol region); they
 * take the lock. */
void kci_mt_enter(uint32_t r);
void kci_mt_leave(uint32_t r);
/* The communicator's local id, registering a communicator not seen before
 * (MPI_COMM_SELF, or one made by an untraced call); MT_NONE for an
 * intercommunicator or MPI_COMM_NULL. Lock held. */
uint32_t kci_mt_comm_id(MPI_Comm comm);
/* A communicator just made by a traced call (NULL ignored). Lock held. */
void kci_mt_comm_new(MPI_Comm comm);
/* MPI_Comm_free: the handle is forgotten (its id stays in the events). Lock held. */
void kci_mt_comm_forget(MPI_Comm comm);
/* Bytes of `count` elements of `type` (0 when MPI cannot say). */
uint64_t kci_mt_bytes(MPI_Count count, MPI_Datatype type);

/* The map (mt_state.c). get: the slot or NULL; put: a new or the existing
 * slot for key (NULL when memory runs out); del: remove key if present. */
mt_slot *kci_mt_map_get(const mt_map *m, uint64_t key);
mt_slot *kci_mt_map_put(mt_map *m, uint64_t key);
void kci_mt_map_del(mt_map *m, uint64_t key);
void kci_mt_map_free(mt_map *m);
/* A handle's bits as a map key (handles are pointers or ints). */
uint64_t kci_mt_key(const void *handle, size_t size);

/* Grow the array at *pp (elements of elem bytes, capacity *cap) to hold
 * need; 0, or -1 when memory runs out (the array unchanged). */
int kci_mt_reserve(void *pp, size_t *cap, size_t need, size_t elem);

/* ---- mt_req.c: point-to-point events and request completion ---- */
/* A non-blocking operation started on comm: the request joins the table
 * (kind 1 send, 2 receive) and its event is written (MpiIsend,
 * MpiIrecvRequest). Lock taken inside. */
void kci_mt_started(MPI_Request req, int kind, MPI_Comm comm, int peer, int tag, uint64_t bytes);
/* `count` requests completed: the k-th had handle before[idx ? idx[k] : k]
 * (its value before the completing call) and status st[k]. Writes
 * MpiIsendComplete, MpiIrecv (the status's source, tag and size) or
 * MpiRequestCancelled for those the table holds and drops them. Lock taken inside. */
void kci_mt_completed(const MPI_Request *before, const int *idx, int count, const MPI_Status *st);

/* ---- mt_coll.c: collectives ---- */
/* Enter `region` and, on an intracommunicator, write MpiCollectiveBegin;
 * the communicator's id (MT_NONE: no collective recorded). */
uint32_t kci_mt_coll_begin(uint32_t region, MPI_Comm comm);
/* MpiCollectiveEnd (unless c is MT_NONE; root < 0: none), then leave. */
void kci_mt_coll_end(uint32_t region, uint32_t c, OTF2_CollectiveOp op, int root, uint64_t sent, uint64_t recvd);
/* Bytes of counts[0..p) elements of `type`. */
uint64_t kci_mt_sum_bytes(const int *counts, uint64_t p, MPI_Datatype type);

/* ---- mt_init.c / mt_defs.c ---- */
/* Start tracing after PMPI_Init (collective over MPI_COMM_WORLD): the
 * archive, the clock, region `region` (MPI_Init or MPI_Init_thread)
 * entered at local time `entered`. */
void kci_mt_start(int region, uint64_t entered, int provided);
/* The archive's directory: $KCUBE_TRACE, or "kcube-trace". */
const char *kci_mt_dir(void);
/* Stop tracing and write the archive (collective), before PMPI_Finalize. */
void kci_mt_finish(void);
/* Unify the ranks' communicators and regions, write the definitions. */
void kci_mt_write_defs(uint64_t nevents);

#endif
