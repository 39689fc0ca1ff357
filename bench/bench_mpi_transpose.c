/* A 2^20-element matrix transpose among 2^n local MPI processes, with and
 * without kcube's mapping. Usage:
 *     mpirun --oversubscribe -np 16 bench_mpi_transpose [REPS]
 * The 1024 x 1024 matrix of doubles is cut into a 2^(n/2) x 2^(n/2) grid of
 * blocks, block (i, j) on rank i 2^(n/2) + j; transposing sends block (i, j)
 * to rank (j, i): seed 000's matrix-transpose permutation on the n-cube,
 * run by kc_mpi_lcc (whole blocks; the local transpose of each block is not
 * timed). "mapped" runs it on the communicator kc_mpi_comm_remap builds
 * from the general mapper's mapping of that traffic onto the n-cube whose
 * nodes are this host's slots. Each repetition is timed from a barrier to
 * the slowest rank's end (MPI_Allreduce of the local times, MAX); the two
 * variants alternate, REPS (default 31) each; medians are printed with the
 * bytes that cross between distinct ranks per second.
 *
 * What it can show: the cost of the call on this machine and that the
 * mapping costs nothing at run time. What it cannot: every message here
 * goes through shared memory, with no network whose channels a mapping could
 * relieve, so the mapped and identity times differ only by noise and by
 * which processes share a core; the channel loads printed are the model's
 * figure for a real n-cube. Run without mpirun it says how to run it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kcube/chanload.h"
#include "kcube/mpi.h"
#include "kcube/traffic.h"

#define ELEMENTS (1 << 20)

/* One timed transpose on comm: the slowest rank's seconds (on every rank). */
static double timed(const kc_lcc *c, const double *send, double *recv, int count, MPI_Comm comm)
{
    kc_err err = {0};
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    if (kc_mpi_lcc(send, recv, count, MPI_DOUBLE, c, comm, &err)) {
        fprintf(stderr, "bench_mpi_transpose: %s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t = MPI_Wtime() - t0, worst = 0;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
    return worst;
}

/* Did this transpose deliver every element to the right rank? (all ranks) */
static int check(const kc_lcc *c, const double *recv, int count, MPI_Comm comm)
{
    int me = 0, ok = 1, all = 0;
    MPI_Comm_rank(comm, &me);
    uint64_t src = 0;
    for (uint64_t m = 0; m < (uint64_t)1 << c->a.n; m++) {
        uint64_t s, d;
        kc_lcc_message(c, m, &s, &d);
        if (d == (uint64_t)me)
            src = s;
    }
    for (int i = 0; i < count; i++)
        ok &= recv[i] == (double)src * ELEMENTS + i;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

/* What the steps share: the world, the n-cube and its transpose, the
 * mapping and its figures, the timings. */
typedef struct xrun {
    int reps, p, me, n, count; /* count: doubles per rank */
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    kc_topology t;
    kc_machine hosts;
    kc_lcc c;
    uint32_t *tp;                     /* the mapping (rank 0's) */
    kc_cost mapped_cost, ident_cost;  /* on rank 0 */
    uint64_t cross;                   /* bytes between distinct ranks */
    MPI_Comm mapped;
    double *ti, *tm; /* identity and mapped times, reps each */
    int ok;          /* every delivery checked right */
} xrun;

/* Says what went wrong and stops every rank. */
static void die(const kc_err *err)
{
    fprintf(stderr, "bench_mpi_transpose: %s\n", err->msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* REPS and the world's size: 0 when it is 4^k processes and REPS >= 1, else
 * (rank 0 says why) 2. */
static int check_world(int argc, char **argv, xrun *x)
{
    x->reps = argc > 1 ? atoi(argv[1]) : 31;
    MPI_Comm_size(MPI_COMM_WORLD, &x->p);
    MPI_Comm_rank(MPI_COMM_WORLD, &x->me);
    while ((1 << x->n) < x->p)
        x->n++;
    if ((1 << x->n) != x->p || x->n % 2 || x->n == 0 || x->reps < 1) {
        if (x->me == 0)
            fprintf(stderr, "bench_mpi_transpose: needs 4^k processes (4, 16, 64), not %d, and REPS >= 1\n", x->p);
        return 2;
    }
    return 0;
}

/* The n-cube, its transpose and this host's slots as its nodes. */
static void set_up_network(xrun *x)
{
    kc_err err = {0};
    int len = 0;
    MPI_Get_processor_name(x->name, &len);
    x->name[len] = '\0';
    if (kc_topology_hypercube(&x->t, x->n, &err) || kc_lcc_named(&x->c, "transpose", x->n, &err) ||
        kc_machine_rule(&x->hosts, &x->t, x->name, (uint32_t)x->p, 0, KC_FILL_FIRST_AXIS, &err))
        die(&err);
}

/* The transpose's traffic (blocks of 8 count bytes), its mapping and both
 * placements' channel loads on rank 0, and the communicator of the mapping. */
static void map_traffic(xrun *x)
{
    kc_err err = {0};
    int p = x->p;
    x->count = ELEMENTS / p;
    kc_traffic tr;
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    o.search.budget_seconds = 0.1;
    x->tp = malloc((size_t)p * sizeof *x->tp);
    uint32_t *id = malloc((size_t)p * sizeof *id);
    if (kc_traffic_init(&tr, (uint64_t)p, &err))
        die(&err);
    for (uint64_t m = 0; m < (uint64_t)p; m++) {
        uint64_t s, d;
        kc_lcc_message(&x->c, m, &s, &d);
        kc_traffic_add(&tr, s, d, (uint64_t)x->count * sizeof(double), NULL);
        x->cross += s != d ? (uint64_t)x->count * sizeof(double) : 0;
    }
    for (int i = 0; i < p; i++)
        id[i] = (uint32_t)i;
    if (x->me == 0) {
        kc_mapgen_result res;
        if (kc_mapgen_run(&x->t, &tr, NULL, 0, &o, &res, &err))
            die(&err);
        memcpy(x->tp, res.search.to_physical, (size_t)p * sizeof *x->tp);
        x->mapped_cost = res.search.cost;
        kc_mapgen_result_free(&res);
        kc_chanload_eval(&x->t, &tr, id, &x->ident_cost, NULL);
    }
    kc_traffic_free(&tr);
    free(id);
    kc_mpi_machine m = {&x->t, &x->hosts, NULL};
    if (kc_mpi_comm_remap(MPI_COMM_WORLD, &m, x->tp, &x->mapped, &err))
        die(&err);
}

/* Fills send with this rank's (in comm) elements. */
static void fill(double *send, int count, MPI_Comm comm)
{
    int r = 0;
    MPI_Comm_rank(comm, &r);
    for (int i = 0; i < count; i++)
        send[i] = (double)r * ELEMENTS + i;
}

/* A checked warm-up on each communicator, then reps timed transposes,
 * identity and mapped in turn, into x->ti and x->tm. */
static void measure(xrun *x)
{
    double *send = malloc((size_t)x->count * sizeof *send), *recv = malloc((size_t)x->count * sizeof *recv);
    x->ti = malloc((size_t)x->reps * sizeof *x->ti);
    x->tm = malloc((size_t)x->reps * sizeof *x->tm);
    MPI_Comm comms[2] = {MPI_COMM_WORLD, x->mapped};
    x->ok = 1;
    for (int k = 0; k < 2; k++) {
        fill(send, x->count, comms[k]);
        timed(&x->c, send, recv, x->count, comms[k]); /* warm-up: connections, pages */
        x->ok &= check(&x->c, recv, x->count, comms[k]);
    }
    for (int rep = 0; rep < x->reps; rep++)
        for (int k = 0; k < 2; k++) {
            fill(send, x->count, comms[k]);
            (k ? x->tm : x->ti)[rep] = timed(&x->c, send, recv, x->count, comms[k]);
        }
    free(send);
    free(recv);
}

/* The table (rank 0 only): medians, bytes per second, the model's channel loads. */
static void report(xrun *x)
{
    if (x->me != 0)
        return;
    double a = bench_median(x->ti, x->reps), b = bench_median(x->tm, x->reps);
    char load[64] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(load, sizeof load, f))
            strcpy(load, "?");
        fclose(f);
        load[strcspn(load, "\n")] = '\0';
    }
    printf("transpose of %d doubles among %d processes on host %s (the %d-cube's nodes: its slots)\n", ELEMENTS,
           x->p, x->name, x->n);
    printf("blocks of %d doubles (%d KiB); %.1f MiB cross between distinct ranks; %d repetitions each, "
           "medians; load %s\n",
           x->count, x->count * 8 / 1024, (double)x->cross / 1048576.0, x->reps, load);
    printf("%-9s %12s %14s %22s\n", "placement", "time (ms)", "MB/s (cross)", "max channel load (B)");
    printf("%-9s %12.3f %14.1f %22llu\n", "identity", 1e3 * a, (double)x->cross / a / 1e6,
           (unsigned long long)x->ident_cost.max);
    printf("%-9s %12.3f %14.1f %22llu\n", "mapped", 1e3 * b, (double)x->cross / b / 1e6,
           (unsigned long long)x->mapped_cost.max);
    printf("delivery checked: %s\n", x->ok ? "every element at the right rank" : "WRONG");
}

/* [REPS]: 0 when every delivery was right, 1 when not, 2 on a bad world;
 * without an MPI launcher, says how to run it. */
int main(int argc, char **argv)
{
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) {
        printf("bench_mpi_transpose: run it under MPI, e.g. mpirun --oversubscribe -np 16 %s\n", argv[0]);
        return 0;
    }
    MPI_Init(&argc, &argv);
    xrun x = {0};
    if (check_world(argc, argv, &x)) {
        MPI_Finalize();
        return 2;
    }
    set_up_network(&x);
    map_traffic(&x);
    measure(&x);
    report(&x);
    MPI_Comm_free(&x.mapped);
    free(x.ti);
    free(x.tm);
    free(x.tp);
    kc_machine_free(&x.hosts);
    MPI_Finalize();
    return x.ok ? 0 : 1;
}
