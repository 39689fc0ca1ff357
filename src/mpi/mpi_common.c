/* src/mpi/mpi_common.c - MPI return codes as kc_status, and the agreement
 * on one status across a communicator (src/mpi/mpi_internal.h). */
#include "mpi/mpi_internal.h"

#include <string.h>

kc_status kci_mpi_check(int rc, const char *call, kc_err *err)
{
    if (rc == MPI_SUCCESS)
        return KC_OK;
    int cls = MPI_ERR_OTHER, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        strcpy(text, "unknown MPI error");
    kc_status st = KC_EIO;
    if (cls == MPI_ERR_NO_MEM)
        st = KC_ENOMEM;
    else if (cls == MPI_ERR_ARG || cls == MPI_ERR_COUNT || cls == MPI_ERR_TYPE || cls == MPI_ERR_RANK ||
             cls == MPI_ERR_COMM || cls == MPI_ERR_DIMS || cls == MPI_ERR_TOPOLOGY || cls == MPI_ERR_BUFFER)
        st = KC_EINVAL;
    return kc_fail(err, st, "%s failed: %s", call, text);
}

/* Parameter ids the library uses: a message crossing processes carries the
 * id as text and gets the constant back (kc_err.param must be one). */
static const char *const known_params[] = {"machine", "mapping", "lcc", "comm", "graph", "dims", "count", "d", "sign",
                                           "traffic"};

kc_status kci_mpi_agree(MPI_Comm comm, kc_status st, kc_err *err)
{
    int rank = 0, size = 1, first = 0;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return kc_fail(err, KC_EINVAL, "not a valid communicator");
    int mine = st ? rank : size;
    int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return kci_mpi_check(rc, "MPI_Allreduce", err);
    if (first == size)
        return KC_OK;
    /* The first failing rank's status, parameter id and message. */
    struct {
        int status;
        char param[16];
        char msg[sizeof err->msg];
    } wire;
    memset(&wire, 0, sizeof wire);
    if (rank == first) {
        wire.status = (int)st;
        if (err->param)
            strncpy(wire.param, err->param, sizeof wire.param - 1);
        memcpy(wire.msg, err->msg, sizeof wire.msg);
    }
    rc = MPI_Bcast(&wire, (int)sizeof wire, MPI_BYTE, first, comm);
    if (rc != MPI_SUCCESS)
        return kci_mpi_check(rc, "MPI_Bcast", err);
    if (rank == first)
        return st;
    err->status = (kc_status)wire.status;
    err->param = NULL;
    for (size_t i = 0; i < sizeof known_params / sizeof *known_params; i++)
        if (strcmp(wire.param, known_params[i]) == 0)
            err->param = known_params[i];
    wire.msg[sizeof wire.msg - 1] = '\0';
    memcpy(err->msg, wire.msg, sizeof err->msg);
    return err->status;
}

kc_status kci_mpi_out(kc_status st, const kc_err *local, kc_err *err)
{
    if (st && err)
        *err = *local;
    return st;
}

kc_status kci_mpi_comm_cube(MPI_Comm comm, int *size, int *rank, int *cube, kc_err *err)
{
    *size = *rank = 0;
    *cube = -1;
    kc_status st = kci_mpi_check(MPI_Comm_size(comm, size), "MPI_Comm_size", err);
    if (st)
        return st;
    MPI_Comm_rank(comm, rank);
    for (int n = 0; n <= 30; n++)
        if (*size == 1 << n)
            *cube = n;
    return KC_OK;
}
