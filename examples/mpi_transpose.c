/* examples/mpi_transpose.c - a plain MPI program (no kcube in it) whose
 * communication is worth mapping: the two exchanges of a distributed 2-D
 * FFT, to trace with kcube's tracer and map from the trace
 * (docs/traces.md). P = 2^d ranks form a grid of R = 2^floor(d/2) rows of
 * C = P / R ranks, row-major; every iteration
 *   1. transposes within each row: MPI_Alltoall on the row's communicator
 *      (MPI_Comm_split), BLOCK bytes to every member of the row;
 *   2. puts the rows' results in bit-reversed order across the grid: rank r
 *      and rank bitrev(r) (its d bits reversed) swap C x BLOCK bytes with
 *      MPI_Sendrecv; a rank that is its own reversal keeps its data (no
 *      message).
 * Step 2 runs inside the code region "bitrev" (MPI_Pcontrol(1, "bitrev")
 * enters it, MPI_Pcontrol(-1, "bitrev") leaves it: the tracer's
 * convention; without the tracer MPI_Pcontrol does nothing), so
 * `kcube map --traffic DIR --region bitrev` maps that exchange alone: its
 * traffic is C x BLOCK x ITERATIONS bytes from r to bitrev(r) for every r
 * that is not its own reversal. Every rank checks what it received; rank 0
 * prints one line.
 * Build: mpicc mpi_transpose.c -o mpi_transpose
 * Run:   mpirun -np 8 ./mpi_transpose [ITERATIONS [BLOCK]] */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

/* r's d low bits in reverse order. */
static int bitrev(int r, int d)
{
    int v = 0;
    for (int i = 0; i < d; i++)
        v |= ((r >> i) & 1) << (d - 1 - i);
    return v;
}

/* What rank `from` puts in byte i of what it sends rank `to` in iteration it. */
static unsigned char fill(int from, int to, int it, long i) { return (unsigned char)(from * 31 + to * 7 + it * 3 + i); }

/* Step 1 on the row communicator: every member sends BLOCK bytes to every
 * member; 0 when each received block is the one its sender filled. */
static int row_transpose(MPI_Comm row, int it, long block, unsigned char *out, unsigned char *in)
{
    int c, rr, bad = 0;
    MPI_Comm_size(row, &c);
    MPI_Comm_rank(row, &rr);
    for (int to = 0; to < c; to++)
        for (long i = 0; i < block; i++)
            out[to * block + i] = fill(rr, to, it, i);
    MPI_Alltoall(out, (int)block, MPI_BYTE, in, (int)block, MPI_BYTE, row);
    for (int from = 0; from < c; from++)
        for (long i = 0; i < block; i++)
            bad |= in[from * block + i] != fill(from, rr, it, i);
    return bad;
}

/* Step 2: swap `bytes` with the bit-reversed rank, in the region "bitrev". */
static int bitrev_exchange(int me, int d, int it, long bytes, unsigned char *out, unsigned char *in)
{
    int peer = bitrev(me, d), bad = 0;
    if (peer == me)
        return 0;
    for (long i = 0; i < bytes; i++)
        out[i] = fill(me, peer, it, i);
    MPI_Pcontrol(1, "bitrev");
    MPI_Sendrecv(out, (int)bytes, MPI_BYTE, peer, it, in, (int)bytes, MPI_BYTE, peer, it, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Pcontrol(-1, "bitrev");
    for (long i = 0; i < bytes; i++)
        bad |= in[i] != fill(peer, me, it, i);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me, d = 0, iters = argc > 1 ? atoi(argv[1]) : 3;
    long block = argc > 2 ? atol(argv[2]) : 1024;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    while ((1 << d) < p)
        d++;
    if ((1 << d) != p || iters < 1 || block < 1 || block > (1L << 20)) {
        if (me == 0)
            fprintf(stderr, "mpi_transpose: needs 2^d ranks, ITERATIONS >= 1 and 1 <= BLOCK <= 2^20\n");
        MPI_Finalize();
        return 1;
    }
    int rows = 1 << (d / 2), cols = p / rows;
    MPI_Comm row;
    MPI_Comm_split(MPI_COMM_WORLD, me / cols, me % cols, &row);
    unsigned char *out = malloc((size_t)(cols * block)), *in = malloc((size_t)(cols * block));
    int bad = !out || !in, all = 0;
    for (int it = 0; it < iters && !bad; it++) {
        bad |= row_transpose(row, it, block, out, in);
        bad |= bitrev_exchange(me, d, it, cols * block, out, in);
    }
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (me == 0)
        printf("mpi_transpose: %d ranks as %d x %d, %d iterations of %ld-byte blocks: %s\n", p, rows, cols, iters,
               block, all ? "WRONG DATA" : "ok");
    free(out);
    free(in);
    MPI_Comm_free(&row);
    MPI_Finalize();
    return all ? 1 : 0;
}
