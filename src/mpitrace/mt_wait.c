/* mpitrace/mt_wait.c - MPI_Wait, Waitall, Waitany, Waitsome, Test, Testall,
 * Testany, Testsome: each copies the request handles before the call (MPI
 * sets completed ones to MPI_REQUEST_NULL) and, when the program ignores
 * the statuses, gives MPI its own (the receive's source, tag and size are
 * in them); then every request that completed gets its event
 * (kci_mt_completed). Up to 32 requests use the stack; more, the heap;
 * when that fails the call is passed through untraced (and said once). */
#include <stdlib.h>
#include <string.h>

#include "mt.h"

#define MT_SMALL 32

typedef struct scratch {
    MPI_Request rq_small[MT_SMALL];
    MPI_Status st_small[MT_SMALL];
    MPI_Request *before; /* the handles before the call */
    MPI_Status *st;      /* the statuses MPI fills: the caller's or ours */
} scratch;

/* Copy n handles and pick the statuses; 0, or -1 when memory runs out. */
static int scratch_open(scratch *s, int n, const MPI_Request *reqs, MPI_Status *user)
{
    size_t m = n > 0 ? (size_t)n : 0;
    s->before = m <= MT_SMALL ? s->rq_small : malloc(m * sizeof *s->before);
    s->st = user != MPI_STATUSES_IGNORE ? user : m <= MT_SMALL ? s->st_small : malloc(m * sizeof *s->st);
    if (!s->before || !s->st) {
        if (!kci_mt.failed)
            kci_mt_warn("out of memory tracing a wait on %d requests (the trace will be incomplete)", n);
        kci_mt.failed = 1;
        return -1;
    }
    if (m)
        memcpy(s->before, reqs, m * sizeof *reqs);
    return 0;
}

static void scratch_close(scratch *s, const MPI_Status *user)
{
    if (s->before && s->before != s->rq_small)
        free(s->before);
    if (s->st && s->st != s->st_small && s->st != user)
        free(s->st);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    if (!kci_mt_on())
        return PMPI_Wait(req, status);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request before = *req;
    kci_mt_enter(MT_WAIT);
    int rc = PMPI_Wait(req, st);
    if (rc == MPI_SUCCESS)
        kci_mt_completed(&before, NULL, 1, st);
    kci_mt_leave(MT_WAIT);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (!kci_mt_on())
        return PMPI_Test(req, flag, status);
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request before = *req;
    kci_mt_enter(MT_TEST);
    int rc = PMPI_Test(req, flag, st);
    if (rc == MPI_SUCCESS && *flag)
        kci_mt_completed(&before, NULL, 1, st);
    kci_mt_leave(MT_TEST);
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    scratch s = {0};
    if (!kci_mt_on() || scratch_open(&s, n, reqs, statuses)) {
        scratch_close(&s, statuses);
        return PMPI_Waitall(n, reqs, statuses);
    }
    kci_mt_enter(MT_WAITALL);
    int rc = PMPI_Waitall(n, reqs, s.st);
    if (rc == MPI_SUCCESS)
        kci_mt_completed(s.before, NULL, n, s.st);
    kci_mt_leave(MT_WAITALL);
    scratch_close(&s, statuses);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    scratch s = {0};
    if (!kci_mt_on() || scratch_open(&s, n, reqs, statuses)) {
        scratch_close(&s, statuses);
        return PMPI_Testall(n, reqs, flag, statuses);
    }
    kci_mt_enter(MT_TESTALL);
    int rc = PMPI_Testall(n, reqs, flag, s.st);
    if (rc == MPI_SUCCESS && *flag)
        kci_mt_completed(s.before, NULL, n, s.st);
    kci_mt_leave(MT_TESTALL);
    scratch_close(&s, statuses);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    scratch s = {0};
    if (!kci_mt_on() || scratch_open(&s, n, reqs, s.st_small)) {
        scratch_close(&s, s.st_small);
        return PMPI_Waitany(n, reqs, index, status);
    }
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    kci_mt_enter(MT_WAITANY);
    int rc = PMPI_Waitany(n, reqs, index, st);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        kci_mt_completed(s.before, index, 1, st);
    kci_mt_leave(MT_WAITANY);
    scratch_close(&s, s.st_small);
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    scratch s = {0};
    if (!kci_mt_on() || scratch_open(&s, n, reqs, s.st_small)) {
        scratch_close(&s, s.st_small);
        return PMPI_Testany(n, reqs, index, flag, status);
    }
    MPI_Status own, *st = status == MPI_STATUS_IGNORE ? &own : status;
    kci_mt_enter(MT_TESTANY);
    int rc = PMPI_Testany(n, reqs, index, flag, st);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        kci_mt_completed(s.before, index, 1, st);
    kci_mt_leave(MT_TESTANY);
    scratch_close(&s, s.st_small);
    return rc;
}

typedef int (*some_fn)(int, MPI_Request[], int *, int[], MPI_Status[]);

/* MPI_Waitsome and MPI_Testsome: the requests named in indices[0..*outcount). */
static int some_call(uint32_t region, some_fn fn, int n, MPI_Request reqs[], int *outcount, int indices[],
                     MPI_Status statuses[])
{
    scratch s = {0};
    if (!kci_mt_on() || scratch_open(&s, n, reqs, statuses)) {
        scratch_close(&s, statuses);
        return fn(n, reqs, outcount, indices, statuses);
    }
    kci_mt_enter(region);
    int rc = fn(n, reqs, outcount, indices, s.st);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        kci_mt_completed(s.before, indices, *outcount, s.st);
    kci_mt_leave(region);
    scratch_close(&s, statuses);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    return some_call(MT_WAITSOME, PMPI_Waitsome, n, reqs, outcount, indices, statuses);
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    return some_call(MT_TESTSOME, PMPI_Testsome, n, reqs, outcount, indices, statuses);
}
