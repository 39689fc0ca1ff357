/* mpitrace/mt_coll.c - collective wrappers and the communicator makers.
 *
 * A collective call is its region with MpiCollectiveBegin after entering
 * and MpiCollectiveEnd before leaving: the OTF2 operation, the
 * communicator, the root (its communicator rank; none for rootless
 * operations) and the bytes this rank sent and received by Score-P's
 * convention (docs/traces.md): with m one block, bcast's root sends p*m
 * and everyone receives m; scatter's root sends p*m; gather's root
 * receives p*m; reduce: each sends m, the root receives p*m; allreduce,
 * allgather, alltoall: each sends and receives p*m; v- and w-variants the
 * sums of their counts; scan: rank i sends (p-i)*m and receives (i+1)*m;
 * MPI_IN_PLACE leaves out the rank's own block. Calls on an
 * intercommunicator keep their region and record no collective.
 *
 * Communicator makers (dup, split, create, cart create and sub, split type,
 * create group, graph and dist graph creates) record their region and
 * register the new communicator's members; MPI_Comm_free forgets the
 * handle. */
#include "mt.h"

static void coll_check(OTF2_ErrorCode rc) { kci_mt_check(rc, "writing an event"); }

uint32_t kci_mt_coll_begin(uint32_t region, MPI_Comm comm)
{
    kci_mt_enter(region);
    kci_mt_lock();
    uint32_t c = kci_mt_comm_id(comm);
    if (c != MT_NONE)
        coll_check(OTF2_EvtWriter_MpiCollectiveBegin(kci_mt.evt, NULL, kci_mt.cur));
    kci_mt_unlock();
    return c;
}

void kci_mt_coll_end(uint32_t region, uint32_t c, OTF2_CollectiveOp op, int root, uint64_t sent, uint64_t recvd)
{
    if (c != MT_NONE) {
        kci_mt_lock();
        kci_mt_stamp();
        coll_check(OTF2_EvtWriter_MpiCollectiveEnd(kci_mt.evt, NULL, kci_mt.cur, op, c,
                                                   root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root, sent, recvd));
        kci_mt_unlock();
    }
    kci_mt_leave(region);
}

/* This rank's place and the communicator's size. */
static void place(MPI_Comm comm, int *me, uint64_t *p)
{
    int size = 0;
    PMPI_Comm_rank(comm, me);
    PMPI_Comm_size(comm, &size);
    *p = size > 0 ? (uint64_t)size : 0;
}

uint64_t kci_mt_sum_bytes(const int *counts, uint64_t p, MPI_Datatype type)
{
    uint64_t s = 0;
    for (uint64_t i = 0; i < p; i++)
        s += kci_mt_bytes(counts[i], type);
    return s;
}

/* All-to-one at the root with block m_root: (m, p*m), in place (0, (p-1)*m); others (m_other, 0). */
static void to_one(int me, int root, uint64_t p, uint64_t m_other, uint64_t m_root, int inplace, uint64_t *sent,
                   uint64_t *recvd)
{
    if (me != root) {
        *sent = m_other, *recvd = 0;
    } else {
        *sent = inplace ? 0 : m_root;
        *recvd = (inplace ? p - 1 : p) * m_root;
    }
}

int MPI_Barrier(MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Barrier(comm);
    uint32_t c = kci_mt_coll_begin(MT_BARRIER, comm);
    int rc = PMPI_Barrier(comm);
    kci_mt_coll_end(MT_BARRIER, c, OTF2_COLLECTIVE_OP_BARRIER, -1, 0, 0);
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Bcast(buf, count, type, root, comm);
    uint32_t c = kci_mt_coll_begin(MT_BCAST, comm);
    int rc = PMPI_Bcast(buf, count, type, root, comm), me = 0;
    uint64_t p = 0, m = kci_mt_bytes(count, type), sent = 0, recvd = 0;
    if (c != MT_NONE) {
        place(comm, &me, &p);
        to_one(me, root, p, m, m, 0, &recvd, &sent); /* one-to-all: all-to-one with the directions swapped */
    }
    kci_mt_coll_end(MT_BCAST, c, OTF2_COLLECTIVE_OP_BCAST, root, sent, recvd);
    return rc;
}

typedef int (*rooted_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);

/* MPI_Gather (out = 0) and MPI_Scatter (out = 1, the root's block goes out). */
static int rooted_call(uint32_t region, rooted_fn fn, OTF2_CollectiveOp op, int out, const void *sbuf, int scount,
                       MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!kci_mt_on())
        return fn(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    uint32_t c = kci_mt_coll_begin(region, comm);
    int rc = fn(sbuf, scount, stype, rbuf, rcount, rtype, root, comm), me = 0;
    uint64_t p = 0, sent = 0, recvd = 0, mine = kci_mt_bytes(scount, stype), theirs = kci_mt_bytes(rcount, rtype);
    if (c != MT_NONE) {
        place(comm, &me, &p);
        if (out) /* one-to-all: all-to-one with the directions swapped */
            to_one(me, root, p, theirs, me == root ? mine : 0, rbuf == MPI_IN_PLACE, &recvd, &sent);
        else
            to_one(me, root, p, mine, me == root ? theirs : 0, sbuf == MPI_IN_PLACE, &sent, &recvd);
    }
    kci_mt_coll_end(region, c, op, root, sent, recvd);
    return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
               int root, MPI_Comm comm)
{
    return rooted_call(MT_GATHER, PMPI_Gather, OTF2_COLLECTIVE_OP_GATHER, 0, sbuf, scount, stype, rbuf, rcount,
                       rtype, root, comm);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm)
{
    return rooted_call(MT_SCATTER, PMPI_Scatter, OTF2_COLLECTIVE_OP_SCATTER, 1, sbuf, scount, stype, rbuf, rcount,
                       rtype, root, comm);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    uint32_t c = kci_mt_coll_begin(MT_REDUCE, comm);
    int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm), me = 0;
    uint64_t p = 0, m = kci_mt_bytes(count, type), sent = 0, recvd = 0;
    if (c != MT_NONE) {
        place(comm, &me, &p);
        to_one(me, root, p, m, m, sbuf == MPI_IN_PLACE, &sent, &recvd);
    }
    kci_mt_coll_end(MT_REDUCE, c, OTF2_COLLECTIVE_OP_REDUCE, root, sent, recvd);
    return rc;
}

/* Gatherv's bytes (Scatterv's with sent and received swapped): the root
 * receives the sum of counts[] and keeps its own block (none in place);
 * the others send `other`. */
static void v_to_one(int me, int root, uint64_t p, const int *counts, MPI_Datatype type, uint64_t other,
                     int inplace, uint64_t *sent, uint64_t *recvd)
{
    if (me != root) {
        *sent = other, *recvd = 0;
        return;
    }
    uint64_t own = kci_mt_bytes(counts[me], type);
    *recvd = kci_mt_sum_bytes(counts, p, type) - (inplace ? own : 0);
    *sent = inplace ? 0 : own;
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    uint32_t c = kci_mt_coll_begin(MT_GATHERV, comm);
    int rc = PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm), me = 0;
    uint64_t p = 0, sent = 0, recvd = 0;
    if (c != MT_NONE) {
        place(comm, &me, &p);
        v_to_one(me, root, p, rcounts, rtype, kci_mt_bytes(scount, stype), sbuf == MPI_IN_PLACE, &sent, &recvd);
    }
    kci_mt_coll_end(MT_GATHERV, c, OTF2_COLLECTIVE_OP_GATHERV, root, sent, recvd);
    return rc;
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf,
                 int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    uint32_t c = kci_mt_coll_begin(MT_SCATTERV, comm);
    int rc = PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm), me = 0;
    uint64_t p = 0, sent = 0, recvd = 0;
    if (c != MT_NONE) {
        place(comm, &me, &p);
        v_to_one(me, root, p, scounts, stype, kci_mt_bytes(rcount, rtype), rbuf == MPI_IN_PLACE, &recvd, &sent);
    }
    kci_mt_coll_end(MT_SCATTERV, c, OTF2_COLLECTIVE_OP_SCATTERV, root, sent, recvd);
    return rc;
}
