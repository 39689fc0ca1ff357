/* src/mpi/mpi_lcc.c - seed 000's linear-complement communications (y = Ax + b
 * over GF(2): permutation, gather, scatter; kcube/lcc.h) among real MPI
 * processes (kcube/mpi.h, docs/mpi.md).
 *
 * Each process finds its partners by walking the 2^n messages of the LCC
 * (kc_lcc_message), posts every receive, then every send, then waits:
 * nothing blocks before all receives exist, so no order of (A, b) can
 * deadlock, whatever buffering MPI provides. */
#include "mpi/mpi_internal.h"

#include <stdlib.h>
#include <string.h>

kc_status kc_mpi_lcc(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, const kc_lcc *lcc,
                     MPI_Comm comm, kc_err *err)
{
    kc_err e = {0};
    int size, rank, cube;
    kc_status st = kci_mpi_comm_cube(comm, &size, &rank, &cube, &e);
    if (st)
        return kci_mpi_out(st, &e, err);
    MPI_Aint lb = 0, extent = 0;
    if (!lcc)
        st = kc_fail_param(&e, KC_EINVAL, "lcc", "no communication given");
    else if (lcc->a.n < 0 || lcc->a.n > 30 || cube != lcc->a.n)
        st = kc_fail_param(&e, KC_EINVAL, "lcc", "a communication on the %d-cube needs 2^%d processes, not %d",
                           lcc->a.n, lcc->a.n, size);
    else if (count < 0)
        st = kc_fail_param(&e, KC_EINVAL, "count", "count %d is negative", count);
    else
        st = kci_mpi_check(MPI_Type_get_extent(datatype, &lb, &extent), "MPI_Type_get_extent", &e);
    /* The partners: sources of this rank's receives, destinations of its
     * sends, each in increasing order (the slot order of the layout). */
    int nrecv = 0, nsend = 0, *from = NULL, *to = NULL;
    int slots = 1;
    if (!st && lcc->kind != KC_LCC_PERMUTATION)
        slots = 1 << (lcc->a.n - lcc->rank); /* messages per destination (gather) or source (scatter) */
    if (!st && (!(from = malloc((size_t)slots * sizeof *from)) || !(to = malloc((size_t)slots * sizeof *to))))
        st = kc_fail(&e, KC_ENOMEM, "out of memory");
    for (uint64_t msg = 0; !st && msg < (uint64_t)size; msg++) {
        uint64_t src, dst;
        kc_lcc_message(lcc, msg, &src, &dst);
        if (dst == (uint64_t)rank) {
            if (nrecv == slots)
                st = kc_fail(&e, KC_EINTERNAL, "rank %d receives more than %d messages", rank, slots);
            else
                from[nrecv++] = (int)src;
        }
        if (src == (uint64_t)rank && !st) {
            if (nsend == slots)
                st = kc_fail(&e, KC_EINTERNAL, "rank %d sends more than %d messages", rank, slots);
            else
                to[nsend++] = (int)dst;
        }
    }
    /* Messages are in increasing order of the message number, which is the
     * source for gathers and the destination for scatters: slot order. */
    MPI_Request *req = NULL;
    if (!st && !(req = malloc((size_t)(nrecv + nsend + 1) * sizeof *req)))
        st = kc_fail(&e, KC_ENOMEM, "out of memory");
    if ((st = kci_mpi_agree(comm, st, &e))) {
        free(from);
        free(to);
        free(req);
        return kci_mpi_out(st, &e, err);
    }
    MPI_Aint step = (MPI_Aint)count * extent;
    int nreq = 0;
    for (int i = 0; i < nrecv && !st; i++)
        if (!(st = kci_mpi_check(MPI_Irecv((char *)recvbuf + (MPI_Aint)i * step, count, datatype, from[i], KC_MPI_TAG,
                                           comm, &req[nreq]),
                                 "MPI_Irecv", &e)))
            nreq++;
    for (int i = 0; i < nsend && !st; i++)
        if (!(st = kci_mpi_check(MPI_Isend((const char *)sendbuf + (lcc->kind == KC_LCC_SCATTER ? (MPI_Aint)i * step : 0),
                                           count, datatype, to[i], KC_MPI_TAG, comm, &req[nreq]),
                                 "MPI_Isend", &e)))
            nreq++;
    /* Wait even after a failed post, so no request outlives its buffers. */
    kc_status wst = kci_mpi_check(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE), "MPI_Waitall", st ? NULL : &e);
    if (!st)
        st = wst;
    free(from);
    free(to);
    free(req);
    return kci_mpi_out(st, &e, err);
}
