/* mpitrace/mt_coll_all.c - the rootless collectives (allgather(v),
 * alltoall(v, w), allreduce, reduce-scatter(-block), scan, exscan): the
 * same events as mt_coll.c's, sizes by the convention written there. */
#include "mt.h"

static void coll_check(OTF2_ErrorCode rc) { kci_mt_check(rc, "writing an event"); }

static uint32_t begin(uint32_t region, MPI_Comm comm, int *me, uint64_t *p)
{
    kci_mt_enter(region);
    kci_mt_lock();
    uint32_t c = kci_mt_comm_id(comm);
    if (c != MT_NONE)
        coll_check(OTF2_EvtWriter_MpiCollectiveBegin(kci_mt.evt, NULL, kci_mt.cur));
    kci_mt_unlock();
    int size = 0;
    *me = 0;
    if (c != MT_NONE) {
        PMPI_Comm_rank(comm, me);
        PMPI_Comm_size(comm, &size);
    }
    *p = size > 0 ? (uint64_t)size : 0;
    return c;
}

static void end(uint32_t region, uint32_t c, OTF2_CollectiveOp op, uint64_t sent, uint64_t recvd)
{
    if (c != MT_NONE) {
        kci_mt_lock();
        kci_mt_stamp();
        coll_check(OTF2_EvtWriter_MpiCollectiveEnd(kci_mt.evt, NULL, kci_mt.cur, op, c, OTF2_UNDEFINED_UINT32,
                                                   sent, recvd));
        kci_mt_unlock();
    }
    kci_mt_leave(region);
}

static uint64_t sum_bytes(const int *counts, uint64_t p, MPI_Datatype type)
{
    uint64_t s = 0;
    for (uint64_t i = 0; i < p; i++)
        s += kci_mt_bytes(counts[i], type);
    return s;
}

/* Everyone to everyone, block m_send out and m_recv in per peer; in place: the own block left out. */
static void all_all(uint64_t p, uint64_t m_send, uint64_t m_recv, int inplace, uint64_t *sent, uint64_t *recvd)
{
    *recvd = (inplace ? p - 1 : p) * m_recv;
    *sent = inplace ? *recvd : p * m_send;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    int me;
    uint64_t p, sent, recvd;
    uint32_t c = begin(MT_ALLGATHER, comm, &me, &p);
    int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    all_all(p, kci_mt_bytes(scount, stype), kci_mt_bytes(rcount, rtype), sbuf == MPI_IN_PLACE, &sent, &recvd);
    end(MT_ALLGATHER, c, OTF2_COLLECTIVE_OP_ALLGATHER, sent, recvd);
    return rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    int me;
    uint64_t p, sent, recvd;
    uint32_t c = begin(MT_ALLTOALL, comm, &me, &p);
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    all_all(p, kci_mt_bytes(scount, stype), kci_mt_bytes(rcount, rtype), sbuf == MPI_IN_PLACE, &sent, &recvd);
    end(MT_ALLTOALL, c, OTF2_COLLECTIVE_OP_ALLTOALL, sent, recvd);
    return rc;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    int me;
    uint64_t p, sent, recvd, m = kci_mt_bytes(count, type);
    uint32_t c = begin(MT_ALLREDUCE, comm, &me, &p);
    int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    all_all(p, m, m, sbuf == MPI_IN_PLACE, &sent, &recvd);
    end(MT_ALLREDUCE, c, OTF2_COLLECTIVE_OP_ALLREDUCE, sent, recvd);
    return rc;
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    int me;
    uint64_t p, sent = 0, recvd = 0;
    uint32_t c = begin(MT_ALLGATHERV, comm, &me, &p);
    int rc = PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    if (c != MT_NONE) {
        recvd = sum_bytes(rcounts, p, rtype);
        if (sbuf == MPI_IN_PLACE) {
            uint64_t own = kci_mt_bytes(rcounts[me], rtype);
            recvd -= own;
            sent = (p - 1) * own;
        } else {
            sent = p * kci_mt_bytes(scount, stype);
        }
    }
    end(MT_ALLGATHERV, c, OTF2_COLLECTIVE_OP_ALLGATHERV, sent, recvd);
    return rc;
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
                  const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    int me;
    uint64_t p, sent = 0, recvd = 0;
    uint32_t c = begin(MT_ALLTOALLV, comm, &me, &p);
    int rc = PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    if (c != MT_NONE) {
        recvd = sum_bytes(rcounts, p, rtype);
        if (sbuf == MPI_IN_PLACE)
            sent = recvd -= kci_mt_bytes(rcounts[me], rtype);
        else
            sent = sum_bytes(scounts, p, stype);
    }
    end(MT_ALLTOALLV, c, OTF2_COLLECTIVE_OP_ALLTOALLV, sent, recvd);
    return rc;
}

int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
                  void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
    int me;
    uint64_t p, sent = 0, recvd = 0;
    uint32_t c = begin(MT_ALLTOALLW, comm, &me, &p);
    int rc = PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
    for (uint64_t i = 0; c != MT_NONE && i < p; i++) {
        recvd += kci_mt_bytes(rcounts[i], rtypes[i]);
        sent += sbuf == MPI_IN_PLACE ? 0 : kci_mt_bytes(scounts[i], stypes[i]);
    }
    if (c != MT_NONE && sbuf == MPI_IN_PLACE)
        sent = recvd -= kci_mt_bytes(rcounts[me], rtypes[me]);
    end(MT_ALLTOALLW, c, OTF2_COLLECTIVE_OP_ALLTOALLW, sent, recvd);
    return rc;
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm);
    int me;
    uint64_t p, sent, recvd, m = kci_mt_bytes(rcount, type);
    uint32_t c = begin(MT_REDUCE_SCATTER_BLOCK, comm, &me, &p);
    int rc = PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm);
    all_all(p, m, m, sbuf == MPI_IN_PLACE, &sent, &recvd);
    end(MT_REDUCE_SCATTER_BLOCK, c, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, sent, recvd);
    return rc;
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);
    int me;
    uint64_t p, sent = 0, recvd = 0;
    uint32_t c = begin(MT_REDUCE_SCATTER, comm, &me, &p);
    int rc = PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);
    if (c != MT_NONE) {
        /* Each rank sends its whole vector and receives p contributions to its block. */
        uint64_t own = kci_mt_bytes(rcounts[me], type);
        int inplace = sbuf == MPI_IN_PLACE;
        sent = sum_bytes(rcounts, p, type) - (inplace ? own : 0);
        recvd = (inplace ? p - 1 : p) * own;
    }
    end(MT_REDUCE_SCATTER, c, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, sent, recvd);
    return rc;
}

/* Scan: rank i's block goes to ranks i..p-1 and it gets ranks 0..i's; exscan: without its own. */
static void scan_bytes(int me, uint64_t p, uint64_t m, int own, uint64_t *sent, uint64_t *recvd)
{
    uint64_t i = me > 0 ? (uint64_t)me : 0;
    *sent = (p - i - (own ? 0 : 1)) * m;
    *recvd = (i + (own ? 1 : 0)) * m;
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Scan(sbuf, rbuf, count, type, op, comm);
    int me;
    uint64_t p, sent = 0, recvd = 0;
    uint32_t c = begin(MT_SCAN, comm, &me, &p);
    int rc = PMPI_Scan(sbuf, rbuf, count, type, op, comm);
    if (c != MT_NONE)
        scan_bytes(me, p, kci_mt_bytes(count, type), sbuf != MPI_IN_PLACE, &sent, &recvd);
    end(MT_SCAN, c, OTF2_COLLECTIVE_OP_SCAN, sent, recvd);
    return rc;
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (!kci_mt_on())
        return PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
    int me;
    uint64_t p, sent = 0, recvd = 0;
    uint32_t c = begin(MT_EXSCAN, comm, &me, &p);
    int rc = PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
    if (c != MT_NONE)
        scan_bytes(me, p, kci_mt_bytes(count, type), 0, &sent, &recvd);
    end(MT_EXSCAN, c, OTF2_COLLECTIVE_OP_EXSCAN, sent, recvd);
    return rc;
}
