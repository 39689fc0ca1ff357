/* mpitrace/mt_req.c - point-to-point wrappers: blocking sends (MpiSend at
 * the call's start) and receives (MpiRecv at its end, with the status's
 * source, tag and size: a wildcard receive records the actual sender),
 * MPI_Sendrecv(_replace) (MpiSend then MpiRecv inside its region), the
 * non-blocking starts (MpiIsend, MpiIrecvRequest) and every completion
 * (MpiIsendComplete, MpiIrecv, MpiRequestCancelled) in MPI_Wait*, MPI_Test*.
 * Peers are communicator ranks, as OTF2 wants; sizes are bytes. Messages
 * to or from MPI_PROC_NULL and calls on intercommunicators keep their
 * region but record no message. Requests the tracer did not start
 * (persistent ones, non-blocking collectives, I/O) are passed through. */
#include <stdlib.h>

#include "mt.h"

static void p2p_check(OTF2_ErrorCode rc) { kci_mt_check(rc, "writing an event"); }

/* The bytes a status says were received. */
static uint64_t status_bytes(const MPI_Status *st)
{
    MPI_Count n = 0;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
        return 0;
    return (uint64_t)n;
}

/* MpiSend of a blocking send (nothing for MPI_PROC_NULL or an intercommunicator). */
static void send_event(int dest, int tag, MPI_Comm comm, uint64_t bytes)
{
    kci_mt_lock();
    uint32_t c = kci_mt_comm_id(comm);
    if (c != MT_NONE && dest != MPI_PROC_NULL)
        p2p_check(OTF2_EvtWriter_MpiSend(kci_mt.evt, NULL, kci_mt.cur, (uint32_t)dest, c, (uint32_t)tag, bytes));
    kci_mt_unlock();
}

static void recv_event(const MPI_Status *st, MPI_Comm comm)
{
    kci_mt_lock();
    kci_mt_stamp();
    uint32_t c = kci_mt_comm_id(comm);
    if (c != MT_NONE && st->MPI_SOURCE != MPI_PROC_NULL)
        p2p_check(OTF2_EvtWriter_MpiRecv(kci_mt.evt, NULL, kci_mt.cur, (uint32_t)st->MPI_SOURCE, c,
                                         (uint32_t)st->MPI_TAG, status_bytes(st)));
    kci_mt_unlock();
}

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);

static int send_call(uint32_t region, send_fn fn, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm)
{
    if (!kci_mt_on())
        return fn(buf, count, type, dest, tag, comm);
    kci_mt_enter(region);
    send_event(dest, tag, comm, kci_mt_bytes(count, type));
    int rc = fn(buf, count, type, dest, tag, comm);
    kci_mt_leave(region);
    return rc;
}

int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
    return send_call(MT_SEND, PMPI_Send, b, n, t, d, tag, c);
}
int MPI_Bsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
    return send_call(MT_BSEND, PMPI_Bsend, b, n, t, d, tag, c);
}
int MPI_Ssend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
    return send_call(MT_SSEND, PMPI_Ssend, b, n, t, d, tag, c);
}
int MPI_Rsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
    return send_call(MT_RSEND, PMPI_Rsend, b, n, t, d, tag, c);
}

void kci_mt_started(MPI_Request req, int kind, MPI_Comm comm, int peer, int tag, uint64_t bytes)
{
    kci_mt_lock();
    uint32_t c = kci_mt_comm_id(comm);
    mt_slot *s = NULL;
    if (c != MT_NONE && peer != MPI_PROC_NULL && req != MPI_REQUEST_NULL) {
        s = kci_mt_map_put(&kci_mt.reqs, kci_mt_key(&req, sizeof req));
        if (!s && !kci_mt.failed) {
            kci_mt_warn("out of memory recording a request (the trace will be incomplete)");
            kci_mt.failed = 1;
        }
    }
    if (s) {
        *s = (mt_slot){.key = s->key, .a = ++kci_mt.next_req, .b = c, .c = (uint32_t)kind};
        kci_mt_stamp();
        uint64_t t = kci_mt.cur;
        if (kind == 1)
            p2p_check(OTF2_EvtWriter_MpiIsend(kci_mt.evt, NULL, t, (uint32_t)peer, c, (uint32_t)tag, bytes, s->a));
        else
            p2p_check(OTF2_EvtWriter_MpiIrecvRequest(kci_mt.evt, NULL, t, s->a));
    }
    kci_mt_unlock();
}

typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static int isend_call(uint32_t region, isend_fn fn, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, MPI_Request *req)
{
    if (!kci_mt_on())
        return fn(buf, count, type, dest, tag, comm, req);
    kci_mt_enter(region);
    int rc = fn(buf, count, type, dest, tag, comm, req);
    if (rc == MPI_SUCCESS)
        kci_mt_started(*req, 1, comm, dest, tag, kci_mt_bytes(count, type));
    kci_mt_leave(region);
    return rc;
}

int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{
    return isend_call(MT_ISEND, PMPI_Isend, b, n, t, d, tag, c, r);
}
int MPI_Ibsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{
    return isend_call(MT_IBSEND, PMPI_Ibsend, b, n, t, d, tag, c, r);
}
int MPI_Issend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{
    return isend_call(MT_ISSEND, PMPI_Issend, b, n, t, d, tag, c, r);
}
int MPI_Irsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{
    return isend_call(MT_IRSEND, PMPI_Irsend, b, n, t, d, tag, c, r);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    if (!kci_mt_on())
        return PMPI_Irecv(buf, count, type, source, tag, comm, req);
    kci_mt_enter(MT_IRECV);
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    if (rc == MPI_SUCCESS)
        kci_mt_started(*req, 2, comm, source, tag, 0);
    kci_mt_leave(MT_IRECV);
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!kci_mt_on())
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    kci_mt_enter(MT_RECV);
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    if (rc == MPI_SUCCESS)
        recv_event(st, comm);
    kci_mt_leave(MT_RECV);
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    if (!kci_mt_on())
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    kci_mt_enter(MT_SENDRECV);
    send_event(dest, stag, comm, kci_mt_bytes(scount, stype));
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st);
    if (rc == MPI_SUCCESS)
        recv_event(st, comm);
    kci_mt_leave(MT_SENDRECV);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag,
                         MPI_Comm comm, MPI_Status *status)
{
    if (!kci_mt_on())
        return PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    kci_mt_enter(MT_SENDRECV_REPLACE);
    send_event(dest, stag, comm, kci_mt_bytes(count, type));
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, st);
    if (rc == MPI_SUCCESS)
        recv_event(st, comm);
    kci_mt_leave(MT_SENDRECV_REPLACE);
    return rc;
}

/* One completed request's event; the entry leaves the table. Lock held. */
static void complete_one(MPI_Request before, const MPI_Status *st)
{
    uint64_t key = kci_mt_key(&before, sizeof before);
    mt_slot *s = before == MPI_REQUEST_NULL ? NULL : kci_mt_map_get(&kci_mt.reqs, key);
    if (!s)
        return;
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    uint64_t t = kci_mt.cur;
    if (cancelled)
        p2p_check(OTF2_EvtWriter_MpiRequestCancelled(kci_mt.evt, NULL, t, s->a));
    else if (s->c == 1)
        p2p_check(OTF2_EvtWriter_MpiIsendComplete(kci_mt.evt, NULL, t, s->a));
    else if (st->MPI_SOURCE == MPI_PROC_NULL) /* cannot happen: such receives are not recorded */
        p2p_check(OTF2_EvtWriter_MpiRequestCancelled(kci_mt.evt, NULL, t, s->a));
    else
        p2p_check(OTF2_EvtWriter_MpiIrecv(kci_mt.evt, NULL, t, (uint32_t)st->MPI_SOURCE, s->b,
                                          (uint32_t)st->MPI_TAG, status_bytes(st), s->a));
    kci_mt_map_del(&kci_mt.reqs, key);
}

void kci_mt_completed(const MPI_Request *before, const int *idx, int count, const MPI_Status *st)
{
    kci_mt_lock();
    kci_mt_stamp();
    for (int k = 0; k < count; k++)
        complete_one(before[idx ? idx[k] : k], &st[k]);
    kci_mt_unlock();
}

int MPI_Request_free(MPI_Request *req)
{
    if (!kci_mt_on())
        return PMPI_Request_free(req);
    kci_mt_enter(MT_REQUEST_FREE);
    /* The operation goes on unobserved: its completion is never recorded. */
    kci_mt_lock();
    kci_mt_map_del(&kci_mt.reqs, kci_mt_key(req, sizeof *req));
    kci_mt_unlock();
    int rc = PMPI_Request_free(req);
    kci_mt_leave(MT_REQUEST_FREE);
    return rc;
}
