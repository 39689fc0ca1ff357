/* examples/mpi_halo.c - a periodic 2-D halo on MPI processes placed by
 * kcube (libkcube-mpi, docs/mpi.md). The processes are the nodes of the
 * N-cube: this host's slots 0..2^N-1. With NODELIST (kcube map --out) rank
 * v goes to the node on line v (kc_mpi_comm_remap); without, kcube maps the
 * grid's halo itself (kc_mpi_cart_create, reorder 1). Each rank swaps its
 * rank with its right neighbour; rank 0 prints where the ranks run.
 * Build: mpicc mpi_halo.c $(pkg-config --cflags --libs kcube-mpi)
 * Run:   mpirun -np 16 ./mpi_halo 4 [NODELIST] */
#include <stdio.h>
#include <stdlib.h>

#include <kcube/mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 4, dims[2] = {0, 0}, periods[2] = {1, 1}, p, v, left, right, got;
    char host[MPI_MAX_PROCESSOR_NAME];
    kc_topology t;
    kc_machine hosts = {0};
    kc_err err = {0};
    uint32_t tp[4096], where[4096];
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Get_processor_name(host, &v);
    MPI_Comm mapped, grid;
    kc_status s = kc_topology_hypercube(&t, n, &err);
    if (!s)
        s = kc_machine_rule(&hosts, &t, host, (uint32_t)t.nodes, 0, KC_FILL_FIRST_AXIS, &err);
    kc_mpi_machine m = {&t, &hosts, NULL};
    MPI_Dims_create(p, 2, dims);
    if (!s && argc > 2 && p <= 4096) {
        kc_reader *r;
        if (!(s = kc_reader_open(&r, argv[2], "node list", "mapping", NULL, &err))) {
            s = kc_read_nodelist(r, tp, (uint32_t)p, 1, &err);
            kc_reader_close(r);
        }
        if (!(s = s ? s : kc_mpi_comm_remap(MPI_COMM_WORLD, &m, tp, &mapped, &err)))
            MPI_Cart_create(mapped, 2, dims, periods, 0, &grid);
    } else if (!s)
        s = kc_mpi_cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &m, &grid, &err);
    if (!s && !(s = kc_mpi_placement(grid, &m, where, &err))) {
        MPI_Comm_rank(grid, &v);
        MPI_Cart_shift(grid, 1, 1, &left, &right);
        MPI_Sendrecv(&v, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, grid, MPI_STATUS_IGNORE);
        s = got == left ? KC_OK : kc_fail(&err, KC_EIO, "rank %d got %d from its left neighbour %d", v, got, left);
        for (int r = 0; v == 0 && r < p; r++)
            printf("rank %2d: node %2u = %s slot %u%s", r, where[r], host, hosts.slot[where[r]],
                   r % 4 == 3 || r == p - 1 ? "\n" : "   ");
    }
    if (s)
        fprintf(stderr, "mpi_halo: %s\n", err.msg);
    kc_machine_free(&hosts);
    MPI_Finalize();
    return s ? 1 : 0;
}
