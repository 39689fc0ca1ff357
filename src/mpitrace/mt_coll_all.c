/* mpitrace/mt_coll_all.c - the rootless collectives (allgather(v),
 * alltoall(v, w), allreduce, reduce-scatter(-block), scan, exscan): the
 * same events as mt_coll.c's, sizes by the convention written there. */
#include "mt.h"

/* Begin the collective (kci_mt_coll_begin) and find this rank's place. */
static uint32_t begin(uint32_t region, MPI_Comm comm, int *me, uint64_t *p)
{
    uint32_t c = kci_mt_coll_begin(region, comm);
    int size = 0;
    *me = 0;
    if (c != MT_NONE) {
        PMPI_Comm_rank(comm, me);
        PMPI_Comm_size(comm, &size);
    }
    *p = size > 0 ? (uint64_t)size : 0;
    return c;
}

/* Everyone to everyone, block m_send out and m_recv in per peer; in place: the own block left out. */
static void all_all(uint64_t p, uint64_t m_send, uint64_t m_recv, int inplace, uint64_t *sent, uint64_t *recvd)
{
    *recvd = (inplace ? p - 1 : p) * m_recv;
    *sent = inplace ? *recvd : p * m_send;
}

typedef int (*all_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);

/* MPI_Allgather and MPI_Alltoall: one block to and from every rank. */
static int all_call(uint32_t region, all_fn fn, OTF2_CollectiveOp op, const void *sbuf, int scount,
                    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!kci_mt_on())
        return fn(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    int me;
    uint64_t p, sent, recvd;
    uint32_t c = begin(region, comm, &me, &p);
    int rc = fn(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    all_all(p, kci_mt_bytes(scount, stype), kci_mt_bytes(rcount, rtype), sbuf == MPI_IN_PLACE, &sent, &recvd);
    kci_mt_coll_end(region, c, op, -1, sent, recvd);
    return rc;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    return all_call(MT_ALLGATHER, PMPI_Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, sbuf, scount, stype, rbuf, rcount,
                    rtype, comm);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
    return all_call(MT_ALLTOALL, PMPI_Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, sbuf, scount, stype, rbuf, rcount,
                    rtype, comm);
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
        recvd = kci_mt_sum_bytes(rcounts, p, rtype);
        if (sbuf == MPI_IN_PLACE) {
            uint64_t own = kci_mt_bytes(rcounts[me], rtype);
            recvd -= own;
            sent = (p - 1) * own;
        } else {
            sent = p * kci_mt_bytes(scount, stype);
        }
    }
    kci_mt_coll_end(MT_ALLGATHERV, c, OTF2_COLLECTIVE_OP_ALLGATHERV, -1, sent, recvd);
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
        recvd = kci_mt_sum_bytes(rcounts, p, rtype);
        if (sbuf == MPI_IN_PLACE)
            sent = recvd -= kci_mt_bytes(rcounts[me], rtype);
        else
            sent = kci_mt_sum_bytes(scounts, p, stype);
    }
    kci_mt_coll_end(MT_ALLTOALLV, c, OTF2_COLLECTIVE_OP_ALLTOALLV, -1, sent, recvd);
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
    kci_mt_coll_end(MT_ALLTOALLW, c, OTF2_COLLECTIVE_OP_ALLTOALLW, -1, sent, recvd);
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
        sent = kci_mt_sum_bytes(rcounts, p, type) - (inplace ? own : 0);
        recvd = (inplace ? p - 1 : p) * own;
    }
    kci_mt_coll_end(MT_REDUCE_SCATTER, c, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, -1, sent, recvd);
    return rc;
}

/* Scan: rank i's block goes to ranks i..p-1 and it gets ranks 0..i's; exscan: without its own. */
static void scan_bytes(int me, uint64_t p, uint64_t m, int own, uint64_t *sent, uint64_t *recvd)
{
    uint64_t i = me > 0 ? (uint64_t)me : 0;
    *sent = (p - i - (own ? 0 : 1)) * m;
    *recvd = (i + (own ? 1 : 0)) * m;
}

typedef int (*red_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
enum { ALL, SCAN, EXSCAN }; /* the byte rules of red_call */

/* MPI_Allreduce, MPI_Reduce_scatter_block (ALL: p blocks each way), MPI_Scan, MPI_Exscan. */
static int red_call(uint32_t region, red_fn fn, OTF2_CollectiveOp op, int rule, const void *sbuf, void *rbuf,
                    int count, MPI_Datatype type, MPI_Op mop, MPI_Comm comm)
{
    if (!kci_mt_on())
        return fn(sbuf, rbuf, count, type, mop, comm);
    int me;
    uint64_t p, sent = 0, recvd = 0, m = kci_mt_bytes(count, type);
    uint32_t c = begin(region, comm, &me, &p);
    int rc = fn(sbuf, rbuf, count, type, mop, comm);
    if (c != MT_NONE && rule == ALL)
        all_all(p, m, m, sbuf == MPI_IN_PLACE, &sent, &recvd);
    else if (c != MT_NONE)
        scan_bytes(me, p, m, rule == SCAN && sbuf != MPI_IN_PLACE, &sent, &recvd);
    kci_mt_coll_end(region, c, op, -1, sent, recvd);
    return rc;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return red_call(MT_ALLREDUCE, PMPI_Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, ALL, sbuf, rbuf, count, type, op,
                    comm);
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return red_call(MT_REDUCE_SCATTER_BLOCK, PMPI_Reduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
                    ALL, sbuf, rbuf, rcount, type, op, comm);
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return red_call(MT_SCAN, PMPI_Scan, OTF2_COLLECTIVE_OP_SCAN, SCAN, sbuf, rbuf, count, type, op, comm);
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return red_call(MT_EXSCAN, PMPI_Exscan, OTF2_COLLECTIVE_OP_EXSCAN, EXSCAN, sbuf, rbuf, count, type, op, comm);
}
