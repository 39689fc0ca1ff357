/* tests/mpi/trace_prog.c - the program tests/mpi/cli_trace_tracer.sh traces
 * with libkcube-trace.so (preloaded: this program is plain MPI and never
 * linked with the tracer). Every message it sends is fixed by the rank
 * count p, so tests/mpi/trace_check.py can list them all and compare them
 * with the archive:
 *   1. a blocking ring: r sends (r+1)*8 bytes, tag 10, to r+1 (rank 0 sends
 *      first, the others receive first);
 *   2. non-blocking: r sends 64 bytes, tag 20, to r+2 and receives from
 *      r-2 (Isend, Irecv, Waitall with statuses ignored);
 *   3. a wildcard gather: every r > 0 sends 4*r bytes, tag 30+r, to rank 0,
 *      which receives them with MPI_ANY_SOURCE, MPI_ANY_TAG;
 *   4. a sub-communicator: MPI_Comm_split by r % 2 with the order reversed
 *      (key -r): its rank 0 sends 40 bytes, tag 40, to its rank 1 (when it
 *      has two ranks), then
 *      MPI_Bcast of 2 ints from its rank 0;
 *   5. region "solver" (MPI_Pcontrol(1, "solver") ... (-1, "solver")) with
 *      region "halo" inside it around an MPI_Sendrecv ring (8 bytes, tag 50,
 *      to r+1), then MPI_Bcast of 3 doubles from rank 1, MPI_Allreduce of 2
 *      doubles, MPI_Alltoall of 1 int per rank;
 *   6. MPI_Barrier, MPI_Comm_free; 7. MPI_Reduce of one long to rank 0.
 * Rank 0 prints one line (a checksum of what it received), the same with or
 * without the tracer. Usage: mpirun -np P trace_prog (P >= 2). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long ring(int r, int p)
{
    char out[64] = {0}, in[64] = {0};
    int next = (r + 1) % p, prev = (r + p - 1) % p;
    out[0] = (char)r;
    if (r == 0) {
        MPI_Send(out, (r + 1) * 8, MPI_BYTE, next, 10, MPI_COMM_WORLD);
        MPI_Recv(in, (prev + 1) * 8, MPI_BYTE, prev, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, (prev + 1) * 8, MPI_BYTE, prev, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, (r + 1) * 8, MPI_BYTE, next, 10, MPI_COMM_WORLD);
    }
    return in[0];
}

static long nonblocking(int r, int p)
{
    int out[16] = {r}, in[16] = {0};
    MPI_Request req[2];
    MPI_Irecv(in, 16, MPI_INT, (r + p - 2) % p, 20, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(out, 16, MPI_INT, (r + 2) % p, 20, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    return in[0];
}

static long wildcard(int r, int p)
{
    int buf[64] = {0};
    long sum = 0;
    if (r > 0) {
        buf[0] = r;
        MPI_Send(buf, r, MPI_INT, 0, 30 + r, MPI_COMM_WORLD);
        return 0;
    }
    for (int i = 1; i < p; i++) {
        MPI_Status st;
        MPI_Recv(buf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        sum += buf[0] * 100 + st.MPI_TAG;
    }
    return sum;
}

static long subcomm(int r, MPI_Comm *sub)
{
    int me, n, v[2] = {0, 0};
    char msg[40] = {0};
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, sub);
    MPI_Comm_rank(*sub, &me);
    MPI_Comm_size(*sub, &n);
    if (me == 0 && n > 1) {
        msg[0] = (char)r;
        v[0] = r, v[1] = 7;
        MPI_Send(msg, 40, MPI_BYTE, 1, 40, *sub);
    } else if (me == 1) {
        MPI_Recv(msg, 40, MPI_BYTE, 0, 40, *sub, MPI_STATUS_IGNORE);
    }
    MPI_Bcast(v, 2, MPI_INT, 0, *sub);
    return msg[0] + v[0] + v[1];
}

static long solver(int r, int p)
{
    double x = r, y = 0, b[3] = {r, 1, 2}, s[2] = {r, 1}, t[2];
    int *a = calloc((size_t)p, sizeof *a), *c = calloc((size_t)p, sizeof *c);
    long sum = 0;
    if (!a || !c)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < p; i++)
        a[i] = r * p + i;
    MPI_Pcontrol(1, "solver");
    MPI_Pcontrol(1, "halo");
    MPI_Sendrecv(&x, 1, MPI_DOUBLE, (r + 1) % p, 50, &y, 1, MPI_DOUBLE, (r + p - 1) % p, 50, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Pcontrol(-1, "halo");
    MPI_Bcast(b, 3, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    MPI_Allreduce(s, t, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Alltoall(a, 1, MPI_INT, c, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Pcontrol(-1, "solver");
    for (int i = 0; i < p; i++)
        sum += c[i];
    free(a);
    free(c);
    return (long)(y + b[0] + t[0]) + sum;
}

int main(int argc, char **argv)
{
    int r, p;
    MPI_Comm sub;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p < 2) {
        if (r == 0)
            fprintf(stderr, "trace_prog: needs 2 or more ranks\n");
        MPI_Finalize();
        return 2;
    }
    long mine = ring(r, p) + nonblocking(r, p) + wildcard(r, p) + subcomm(r, &sub) + solver(r, p), all = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&sub);
    /* 7. the checksum: MPI_Reduce of one long to rank 0. */
    MPI_Reduce(&mine, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0)
        printf("trace_prog: %d ranks, checksum %ld\n", p, all);
    MPI_Finalize();
    return 0;
}
