/* kcube/mpi.h - libkcube-mpi: kcube's mappings and seed 000's communications
 * on real MPI processes (docs/mpi.md).
 *
 * A separate library (libkcube-mpi, kcube-mpi.pc, CMake kcube::kcube_mpi),
 * built only when MPI is installed; libkcube itself never needs MPI.
 *
 * Where each process runs. A kc_mpi_machine couples the network topology
 * (kcube/topology.h) with its machine description (kcube/machine.h: the
 * host and slot of every node). A process's node is found from its host,
 * MPI_Get_processor_name (matched exactly, else by the part before the
 * first '.' on either side), and its local rank L, its place in
 * MPI_COMM_WORLD rank order among the processes of the communicator on the
 * same shared-memory host (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED,
 * keys the world ranks, so a process keeps its node in every communicator
 * derived from the first): the node of that host with the L-th smallest
 * slot. A job started with the default placement (ranks fill slots 0, 1,
 * ... of each host) is thus read correctly; one started from a rankfile
 * already has its placement, which this reading does not see (use one
 * route or the other, docs/mpi.md). On one machine a description with one
 * host and N slots stands for N nodes. The mapping functions need the
 * communicator to fill the machine: one process on every node (size ==
 * topology nodes).
 *
 * Ranks and mappings. A mapping to_physical[v] is the node of virtual rank v
 * (the convention of every kcube mapping and exporter). The functions that
 * map return a communicator in which rank v is the process on node
 * to_physical[v]: they split the old communicator with key v (MPI_Comm_split),
 * so the caller's data must follow the new rank (as after any reordering
 * MPI_Cart_create or MPI_Dist_graph_create_adjacent may do).
 *
 * Errors. Every function returns a kc_status and fills err (may be NULL).
 * Argument and mapping errors are agreed on: every process of the
 * communicator returns the same status and message (the lowest failing
 * rank's), so no process is left waiting in a collective; a failure of the
 * messages themselves (kc_mpi_lcc, kc_mpi_fft) is reported where MPI
 * reports it. MPI failures become KC_ENOMEM (MPI_ERR_NO_MEM), KC_EINVAL
 * (argument classes) or KC_EIO (any other: the run failed), naming the MPI
 * call; they reach kcube only when the communicator's error handler
 * returns them (MPI_ERRORS_RETURN; under the default MPI_ERRORS_ARE_FATAL
 * MPI aborts the job first). Communicators kcube creates inherit the old
 * one's error handler (as MPI's own do).
 * Point-to-point traffic uses tags KC_MPI_TAG and KC_MPI_TAG + 1: while a
 * function runs, no receive with MPI_ANY_TAG may be pending on its
 * communicator. Library code never prints. */
#ifndef KCUBE_MPI_H
#define KCUBE_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/lcc.h"
#include "kcube/machine.h"
#include "kcube/mapgeneral.h"
#include "kcube/topology.h"

#define KC_MPI_TAG 0x6b63 /* "kc": the tags of kcube's point-to-point messages */

typedef struct kc_mpi_machine {
    const kc_topology *topo;   /* the network (at most KC_CHANLOAD_MAX_NODES nodes) */
    const kc_machine *hosts;   /* host and slot of each node; hosts->nodes == topo->nodes */
    const kc_mapgen_opts *map; /* the mapper's options; NULL: kc_mapgen_opts_default (seed 1, 1 s budget) */
} kc_mpi_machine;

/* ---- Where processes run ---- */

/* The node of the calling process (above). Collective over comm. Cost: one
 * MPI_Comm_split_type, O(N) scan of the description. KC_EINVAL (param
 * "machine") when the host is not described or runs more processes of comm
 * than it has nodes. */
kc_status kc_mpi_node(MPI_Comm comm, const kc_mpi_machine *m, uint32_t *node, kc_err *err);

/* node_of_rank[r] = the node of rank r of comm, for every rank (size
 * entries, on every process); KC_EINVAL when two processes claim one node.
 * Collective. Cost: kc_mpi_node plus one MPI_Allgather of 4 bytes a rank. */
kc_status kc_mpi_placement(MPI_Comm comm, const kc_mpi_machine *m, uint32_t *node_of_rank, kc_err *err);

/* ---- Communicators placed by a mapping ---- */

/* A mapping computed offline (kcube map --out): *newcomm is comm with its
 * processes renumbered so that rank v is the process on node to_physical[v].
 * to_physical (topo->nodes entries, a permutation) is read on rank 0 and
 * broadcast; other ranks may pass NULL. comm must fill the machine.
 * Collective. Cost: kc_mpi_placement, one MPI_Bcast of 4N bytes, O(N)
 * per process, one MPI_Comm_split. */
kc_status kc_mpi_comm_remap(MPI_Comm comm, const kc_mpi_machine *m, const uint32_t *to_physical, MPI_Comm *newcomm,
                            kc_err *err);

/* MPI_Dist_graph_create_adjacent with the same arguments and meaning (the
 * arrays declared as pointers, so passing MPI_UNWEIGHTED draws no
 * -Wstringop-overread from GCC, as it does for MPI's own prototype), and
 * reorder honoured: with reorder = 0 it is the MPI call (m may be
 * NULL). With reorder != 0 the out-edges of every rank (destinations,
 * destweights as bytes; 1 each with MPI_UNWEIGHTED) are gathered on rank 0
 * into a traffic (kcube/traffic.h) over the ranks of comm_old, mapped onto
 * m->topo by kcube's general mapper exactly as `kcube map --traffic` does
 * (kc_mapgen_find_lcc's algebraic starts, then kc_mapgen_run with m->map;
 * objective: the largest directed channel load, then bytes x hops), and the
 * mapping broadcast. The result is the communicator of
 * kc_mpi_comm_remap for that mapping carrying the graph: its rank v is
 * vertex v (the edges rank v of comm_old gave, passed to the new rank v and
 * created there by MPI_Dist_graph_create_adjacent with reorder 0) and runs on
 * node to_physical[v]. comm_old must fill the machine. Collective.
 * Cost: gathering the graph (O(E) words to rank 0), the mapper's on rank 0
 * (its budget, m->map), scattering each vertex's lists to its new owner,
 * then MPI's own graph creation. */
kc_status kc_mpi_dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int *sources,
                                            const int *sourceweights, int outdegree, const int *destinations,
                                            const int *destweights, MPI_Info info, int reorder,
                                            const kc_mpi_machine *m, MPI_Comm *comm_dist_graph, kc_err *err);

/* MPI_Cart_create likewise: with reorder != 0 the traffic is the grid's
 * halo (every grid rank sends one unit to each of its 2 ndims neighbours,
 * across the ends where periods[i] is set; MPI's row-major rank order, the
 * last dimension varying fastest), mapped as above, and the result is the
 * Cartesian communicator (MPI_Cart_create with reorder 0) on the remapped
 * processes. The grid must have exactly the machine's node count of points
 * and comm_old that many processes. Collective. Cost as above with
 * E = 2 ndims N. */
kc_status kc_mpi_cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                             const kc_mpi_machine *m, MPI_Comm *comm_cart, kc_err *err);

/* ---- Seed 000's communications on real processes ---- */

/* A linear-complement communication (kcube/lcc.h, seed 000: y = Ax + b over
 * GF(2)) among the 2^n ranks of comm (n = lcc->a.n), each message `count`
 * elements of `datatype`:
 *   permutation  rank x sends sendbuf to Ax + b; recvbuf gets the one
 *                message sent to it;
 *   gather       rank x sends sendbuf to Ax + b; a rank y in the image
 *                receives from each of its 2^(n - rank A) sources, in
 *                increasing source order, one count-element slot each of
 *                recvbuf; other ranks receive nothing;
 *   scatter      rank y receives into recvbuf from Ay + b; a source x sends
 *                slot j of sendbuf (count elements each) to its j-th
 *                destination, destinations in increasing order.
 * Buffers must not overlap. Every receive is posted before any send
 * (MPI_Irecv, MPI_Isend, MPI_Waitall), so it is deadlock-free for any
 * (A, b). Collective (every rank calls, with the same lcc). Cost per
 * process: O(2^n n / 64) to find its partners, one MPI_Allreduce to agree
 * on the arguments, then its messages; the network's share of the
 * contention is what kcube's mappings reduce (run it on a remapped
 * communicator). */
kc_status kc_mpi_lcc(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, const kc_lcc *lcc,
                     MPI_Comm comm, kc_err *err);

/* Seed 000 Section 6.2's parallel FFT on the 2^n ranks of comm: m =
 * 2^(n + 2d) complex points (0 <= d <= 13), 4^d on each rank as interleaved
 * (re, im) doubles, in place. Point i = hi 2^(n+d) + p 2^d + lo (lo, hi <
 * 2^d) is element hi 2^d + lo of rank p (the paper's block-cyclic
 * distribution: 2^d blocks of 2^d points per rank); the output X[k] is
 * distributed the same way. sign -1: X[k] = sum_i x[i] e^(-2 pi i ik/m)
 * (FFTW_FORWARD); +1 the unnormalised inverse. Steps: a bit-reverse
 * communication between ranks (kc_mpi_lcc, whole blocks) and a local
 * reordering, the d local butterfly stages, n neighbour exchanges (rank p
 * with p ^ 2^i, whole blocks, each rank then doing its half of the
 * butterflies), the last d local stages. Collective. Cost per rank:
 * O(4^d (n + 2d)) arithmetic, n + 1 messages of 16 4^d bytes, 16 4^d bytes
 * of scratch. */
kc_status kc_mpi_fft(double *data, int d, int sign, MPI_Comm comm, kc_err *err);

#endif
