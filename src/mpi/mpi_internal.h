/* src/mpi/mpi_internal.h - helpers shared by the files of libkcube-mpi
 * (kcube/mpi.h): MPI return codes turned into kc_status, and the agreement
 * that makes every process of a collective return the same status. */
#ifndef KC_MPI_INTERNAL_H
#define KC_MPI_INTERNAL_H

#include "kcube/mpi.h"

/* rc (an MPI return code) as a kc_status in err, naming the MPI call:
 * KC_OK for MPI_SUCCESS. */
kc_status kci_mpi_check(int rc, const char *call, kc_err *err);

/* Collective over comm: every process passes its own status (and err, which
 * must not be NULL); all return the status and message of the lowest rank
 * that failed, or KC_OK when none did. One MPI_Allreduce, plus one
 * MPI_Bcast of the message when some rank failed. */
kc_status kci_mpi_agree(MPI_Comm comm, kc_status st, kc_err *err);

/* The size of comm and this process's rank in it; *cube is n when the
 * size is 2^n (n <= 30), -1 otherwise (the LCC and the FFT run on cubes).
 * Fails only when MPI_Comm_size does. */
kc_status kci_mpi_comm_cube(MPI_Comm comm, int *size, int *rank, int *cube, kc_err *err);

/* Copy the local error to the caller's err (may be NULL); returns st. */
kc_status kci_mpi_out(kc_status st, const kc_err *local, kc_err *err);

#endif
