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
 * With the argument "more" (MPI_Init_thread, MPI_THREAD_MULTIPLE asked) it
 * then also runs the calls of more(): the other completions (Waitany,
 * Waitsome, Test, Testall, Testany, Testsome), Issend, Ssend,
 * Sendrecv_replace, a send to MPI_PROC_NULL, MPI_Request_free, every other
 * collective with counts that differ by rank and MPI_IN_PLACE, a
 * communicator from MPI_Comm_dup and one from MPI_Cart_create and
 * MPI_Cart_sub, a mismatched MPI_Pcontrol(-1, ...) and a region left open.
 * Rank 0 prints one line (a checksum of what it received), the same with or
 * without the tracer. Usage: mpirun -np P trace_prog [more] (P >= 2). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* more(): each non-blocking pair (receive from r-1, send to r+1, tag `tag`)
 * is completed by two different calls, one request at a time, so that the
 * order of the events is fixed. */
static long completions(int r, int p)
{
    int prev = (r + p - 1) % p, next = (r + 1) % p, idx[2], out = 0, flag = 0;
    char in[32] = {0}, msg[32] = {(char)r};
    MPI_Request q[2];
    MPI_Status st[2];
    MPI_Irecv(in, 32, MPI_BYTE, prev, 60, MPI_COMM_WORLD, &q[0]);
    MPI_Issend(msg, 8, MPI_BYTE, next, 60, MPI_COMM_WORLD, &q[1]);
    MPI_Waitany(1, &q[0], &idx[0], &st[0]);
    MPI_Waitsome(2, q, &out, idx, st);
    MPI_Irecv(in, 32, MPI_BYTE, prev, 61, MPI_COMM_WORLD, &q[0]);
    MPI_Isend(msg, 16, MPI_BYTE, next, 61, MPI_COMM_WORLD, &q[1]);
    for (flag = 0; !flag;)
        MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
    for (flag = 0; !flag;)
        MPI_Testall(1, &q[1], &flag, MPI_STATUSES_IGNORE);
    MPI_Irecv(in, 32, MPI_BYTE, prev, 62, MPI_COMM_WORLD, &q[0]);
    MPI_Isend(msg, 24, MPI_BYTE, next, 62, MPI_COMM_WORLD, &q[1]);
    for (flag = 0; !flag;)
        MPI_Testany(1, &q[0], &idx[0], &flag, MPI_STATUS_IGNORE);
    for (out = 0; out == 0;)
        MPI_Testsome(1, &q[1], &out, idx, MPI_STATUSES_IGNORE);
    return in[0];
}

/* more(): blocking variants, MPI_PROC_NULL, a freed request. */
static long blocking(int r, int p)
{
    int prev = (r + p - 1) % p, next = (r + 1) % p, v[2] = {r, r};
    char b = (char)r, c = 0;
    MPI_Request q;
    MPI_Sendrecv_replace(v, 2, MPI_INT, next, 63, prev, 63, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&b, 1, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Isend(v, 1, MPI_INT, next, 64, MPI_COMM_WORLD, &q);
    MPI_Request_free(&q);
    MPI_Recv(&v[1], 1, MPI_INT, prev, 64, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (r == 0) {
        MPI_Ssend(&b, 1, MPI_BYTE, next, 65, MPI_COMM_WORLD);
        MPI_Recv(&c, 1, MPI_BYTE, prev, 65, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&c, 1, MPI_BYTE, prev, 65, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ssend(&b, 1, MPI_BYTE, next, 65, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the freed send has been received everywhere */
    return v[0] + v[1] + c;
}

/* more(): every other collective; counts[i] = i + 1 where a v-variant allows it. */
static long collectives(int r, int p)
{
    int n = p * (p + 1) / 2, *cnt = malloc((size_t)p * sizeof *cnt), *dsp = malloc((size_t)p * sizeof *dsp);
    int *one = malloc((size_t)p * sizeof *one), *a = calloc((size_t)n * 2, sizeof *a), *b = calloc((size_t)n * 2, sizeof *b);
    MPI_Datatype *types = malloc((size_t)p * sizeof *types);
    double x = r, y = 0, z = r;
    if (!cnt || !dsp || !one || !a || !b || !types)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0, at = 0; i < p; at += i + 1, i++)
        cnt[i] = i + 1, dsp[i] = at, one[i] = 1, types[i] = MPI_INT, a[i] = r;
    int *onedsp = dsp; /* for one int per rank the displacements are 0, 1, 2, ... */
    for (int i = 0; i < p; i++)
        onedsp[i] = i;
    MPI_Gather(a, 2, MPI_INT, b, 2, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0, at = 0; i < p; at += i + 1, i++)
        dsp[i] = at;
    MPI_Gatherv(a, r + 1, MPI_INT, b, cnt, dsp, MPI_INT, p - 1, MPI_COMM_WORLD);
    MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Scatterv(a, cnt, dsp, MPI_INT, b, r + 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgatherv(a, r + 1, MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < p; i++)
        onedsp[i] = i;
    MPI_Alltoallv(a, one, onedsp, MPI_INT, b, one, onedsp, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < p; i++)
        onedsp[i] = i * (int)sizeof(int); /* alltoallw's displacements are in bytes */
    MPI_Alltoallw(a, one, onedsp, types, b, one, onedsp, types, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &z, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    long sum = b[0] + (long)z;
    free(cnt), free(dsp), free(one), free(a), free(b), free(types);
    return sum;
}

/* more(): a duplicate of the world with a ring on it, a periodic line
 * (MPI_Cart_create, no reordering) and its MPI_Cart_sub with a bcast. */
static long communicators(int r, int p)
{
    MPI_Comm dup, cart, line;
    int dims[1] = {p}, periods[1] = {1}, remain[1] = {1}, v = r;
    char in[12] = {0}, out[12] = {(char)r};
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (r == 0) {
        MPI_Send(out, 12, MPI_BYTE, 1, 70, dup);
        MPI_Recv(in, 12, MPI_BYTE, p - 1, 70, dup, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, 12, MPI_BYTE, r - 1, 70, dup, MPI_STATUS_IGNORE);
        MPI_Send(out, 12, MPI_BYTE, (r + 1) % p, 70, dup);
    }
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, remain, &line);
    MPI_Bcast(&v, 1, MPI_INT, 0, line);
    MPI_Comm_free(&line);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&dup);
    MPI_Pcontrol(-1, "nothing"); /* no such region open: the tracer says so and goes on */
    MPI_Pcontrol(1, "open");     /* left open: closed at MPI_Finalize */
    return in[0] + v;
}

static long more(int r, int p)
{
    return completions(r, p) + blocking(r, p) + collectives(r, p) + communicators(r, p);
}

int main(int argc, char **argv)
{
    int r, p, provided, extra = argc > 1 && !strcmp(argv[1], "more");
    MPI_Comm sub;
    if (extra)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
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
    if (extra)
        all += more(r, p);
    if (r == 0)
        printf("trace_prog: %d ranks, checksum %ld\n", p, all);
    MPI_Finalize();
    return 0;
}
