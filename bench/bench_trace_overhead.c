/* The cost of libkcube-trace.so per MPI call: four loops timed in one MPI
 * program, run once plainly and once with the tracer preloaded
 * (bench/trace_overhead.sh runs both and subtracts). Plain MPI: never linked
 * with kcube or the tracer. Usage:
 *     mpirun -np 2 bench_trace_overhead [ITERATIONS [REPETITIONS]]
 * Loops (rank 0's time; ITERATIONS per repetition, default 20000; the
 * median of REPETITIONS, default 9, is printed):
 *   self      MPI_Irecv + MPI_Isend to itself + MPI_Waitall: 3 calls that
 *             never wait for another process (the tracer's cost shows best);
 *   pingpong  8 bytes there and back between ranks 0 and 1 (MPI_Send,
 *             MPI_Recv): 2 calls per iteration on each side;
 *   isend     MPI_Irecv + MPI_Isend + MPI_Waitall exchanging 8 bytes between
 *             ranks 0 and 1: 3 calls;
 *   allreduce MPI_Allreduce of one double over every rank: 1 call.
 * Output, rank 0: "loop calls ns_per_iteration ns_per_call cpu_ns_per_call",
 * the last from rank 0's CPU time (CLOCK_PROCESS_CPUTIME_ID), which on a
 * busy machine measures the self loop's work where the wall clock measures
 * the scheduler too (the other loops spin while they wait: their CPU time
 * is their wall time). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef double (*loop_fn)(int rank, long n);

static double self_loop(int rank, long n)
{
    double out = rank, in = 0;
    MPI_Request r[2];
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        MPI_Irecv(&in, 1, MPI_DOUBLE, rank, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&out, 1, MPI_DOUBLE, rank, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    return MPI_Wtime() - t;
}

static double pingpong_loop(int rank, long n)
{
    double x = 0;
    double t = MPI_Wtime();
    for (long i = 0; i < n && rank < 2; i++) {
        if (rank == 0) {
            MPI_Send(&x, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t;
}

static double isend_loop(int rank, long n)
{
    double out = rank, in = 0;
    MPI_Request r[2];
    int peer = rank ^ 1;
    double t = MPI_Wtime();
    for (long i = 0; i < n && rank < 2; i++) {
        MPI_Irecv(&in, 1, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&out, 1, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    return MPI_Wtime() - t;
}

static double allreduce_loop(int rank, long n)
{
    double x = rank, y = 0;
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return MPI_Wtime() - t;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 20000;
    int reps = argc > 2 ? atoi(argv[2]) : 9;
    if (size < 2 || n < 1 || reps < 1 || reps > 99) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np 2 bench_trace_overhead [ITERATIONS [REPETITIONS <= 99]]\n");
        MPI_Finalize();
        return 2;
    }
    static const struct {
        const char *name;
        loop_fn fn;
        int calls;
    } loops[] = {{"self", self_loop, 3}, {"pingpong", pingpong_loop, 2}, {"isend", isend_loop, 3},
                 {"allreduce", allreduce_loop, 1}};
    for (size_t l = 0; l < sizeof loops / sizeof loops[0]; l++) {
        double t[99], cpu[99];
        loops[l].fn(rank, n / 10 + 1); /* warm-up */
        for (int k = 0; k < reps; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double c0 = cpu_seconds();
            t[k] = loops[l].fn(rank, n);
            cpu[k] = cpu_seconds() - c0;
        }
        qsort(t, (size_t)reps, sizeof t[0], cmp_double);
        qsort(cpu, (size_t)reps, sizeof cpu[0], cmp_double);
        double per = t[reps / 2] / (double)n * 1e9, cpu_per = cpu[reps / 2] / (double)n * 1e9;
        if (rank == 0)
            printf("%-10s %d %10.1f %10.1f %10.1f\n", loops[l].name, loops[l].calls, per, per / loops[l].calls,
                   cpu_per / loops[l].calls);
    }
    MPI_Finalize();
    return 0;
}
