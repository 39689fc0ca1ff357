/* mpitrace/mt_comm.c - the communicator makers and MPI_Comm_free: each
 * records its region and registers the new communicator (its members in
 * world ranks, its place in this rank's creation order) so that later
 * events can name it; MPI_COMM_NULL results are ignored. Communicators
 * made otherwise (MPI_Comm_idup, MPI_Intercomm_merge, ...) are registered
 * when first used (mt_state.c). */
#include "mt.h"

/* After a maker returned: register *out (when it succeeded) and leave the region. */
static int made(uint32_t region, int rc, const MPI_Comm *out)
{
    if (rc == MPI_SUCCESS) {
        kci_mt_lock();
        kci_mt_comm_new(*out);
        kci_mt_unlock();
    }
    kci_mt_leave(region);
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Comm_dup(comm, out);
    kci_mt_enter(MT_COMM_DUP);
    return made(MT_COMM_DUP, PMPI_Comm_dup(comm, out), out);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Comm_split(comm, color, key, out);
    kci_mt_enter(MT_COMM_SPLIT);
    return made(MT_COMM_SPLIT, PMPI_Comm_split(comm, color, key, out), out);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Comm_create(comm, group, out);
    kci_mt_enter(MT_COMM_CREATE);
    return made(MT_COMM_CREATE, PMPI_Comm_create(comm, group, out), out);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Comm_create_group(comm, group, tag, out);
    kci_mt_enter(MT_COMM_CREATE_GROUP);
    return made(MT_COMM_CREATE_GROUP, PMPI_Comm_create_group(comm, group, tag, out), out);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Comm_split_type(comm, type, key, info, out);
    kci_mt_enter(MT_COMM_SPLIT_TYPE);
    return made(MT_COMM_SPLIT_TYPE, PMPI_Comm_split_type(comm, type, key, info, out), out);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Cart_create(comm, ndims, dims, periods, reorder, out);
    kci_mt_enter(MT_CART_CREATE);
    return made(MT_CART_CREATE, PMPI_Cart_create(comm, ndims, dims, periods, reorder, out), out);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Cart_sub(comm, remain, out);
    kci_mt_enter(MT_CART_SUB);
    return made(MT_CART_SUB, PMPI_Cart_sub(comm, remain, out), out);
}

int MPI_Graph_create(MPI_Comm comm, int n, const int index[], const int edges[], int reorder, MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Graph_create(comm, n, index, edges, reorder, out);
    kci_mt_enter(MT_GRAPH_CREATE);
    return made(MT_GRAPH_CREATE, PMPI_Graph_create(comm, n, index, edges, reorder, out), out);
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[], const int dest[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Dist_graph_create(comm, n, sources, degrees, dest, weights, info, reorder, out);
    kci_mt_enter(MT_DIST_GRAPH_CREATE);
    return made(MT_DIST_GRAPH_CREATE,
                PMPI_Dist_graph_create(comm, n, sources, degrees, dest, weights, info, reorder, out), out);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indeg, const int sources[], const int sweights[], int outdeg,
                                   const int dest[], const int dweights[], MPI_Info info, int reorder,
                                   MPI_Comm *out)
{
    if (!kci_mt_on())
        return PMPI_Dist_graph_create_adjacent(comm, indeg, sources, sweights, outdeg, dest, dweights, info,
                                               reorder, out);
    kci_mt_enter(MT_DIST_GRAPH_CREATE_ADJACENT);
    return made(MT_DIST_GRAPH_CREATE_ADJACENT,
                PMPI_Dist_graph_create_adjacent(comm, indeg, sources, sweights, outdeg, dest, dweights, info,
                                                reorder, out),
                out);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (!kci_mt_on())
        return PMPI_Comm_free(comm);
    kci_mt_enter(MT_COMM_FREE);
    kci_mt_lock();
    kci_mt_comm_forget(*comm);
    kci_mt_unlock();
    int rc = PMPI_Comm_free(comm);
    kci_mt_leave(MT_COMM_FREE);
    return rc;
}
