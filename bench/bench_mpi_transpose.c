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

int main(int argc, char **argv)
{
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) {
        printf("bench_mpi_transpose: run it under MPI, e.g. mpirun --oversubscribe -np 16 %s\n", argv[0]);
        return 0;
    }
    MPI_Init(&argc, &argv);
    int reps = argc > 1 ? atoi(argv[1]) : 31, p = 0, me = 0, n = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    while ((1 << n) < p)
        n++;
    if ((1 << n) != p || n % 2 || n == 0 || reps < 1) {
        if (me == 0)
            fprintf(stderr, "bench_mpi_transpose: needs 4^k processes (4, 16, 64), not %d, and REPS >= 1\n", p);
        MPI_Finalize();
        return 2;
    }
    kc_err err = {0};
    kc_topology t;
    kc_machine hosts;
    kc_lcc c;
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    name[len] = '\0';
    if (kc_topology_hypercube(&t, n, &err) || kc_lcc_named(&c, "transpose", n, &err) ||
        kc_machine_rule(&hosts, &t, name, (uint32_t)p, 0, KC_FILL_FIRST_AXIS, &err)) {
        fprintf(stderr, "bench_mpi_transpose: %s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The mapping of the transpose's traffic (blocks of 8 count bytes). */
    int count = ELEMENTS / p;
    kc_traffic tr;
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    o.search.budget_seconds = 0.1;
    uint32_t *tp = malloc((size_t)p * sizeof *tp), *id = malloc((size_t)p * sizeof *id);
    kc_cost mapped_cost = {0}, ident_cost = {0};
    uint64_t cross = 0;
    if (kc_traffic_init(&tr, (uint64_t)p, &err)) {
        fprintf(stderr, "bench_mpi_transpose: %s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (uint64_t x = 0; x < (uint64_t)p; x++) {
        uint64_t s, d;
        kc_lcc_message(&c, x, &s, &d);
        kc_traffic_add(&tr, s, d, (uint64_t)count * sizeof(double), NULL);
        cross += s != d ? (uint64_t)count * sizeof(double) : 0;
    }
    for (int i = 0; i < p; i++)
        id[i] = (uint32_t)i;
    if (me == 0) {
        kc_mapgen_result res;
        if (kc_mapgen_run(&t, &tr, NULL, 0, &o, &res, &err)) {
            fprintf(stderr, "bench_mpi_transpose: %s\n", err.msg);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memcpy(tp, res.search.to_physical, (size_t)p * sizeof *tp);
        mapped_cost = res.search.cost;
        kc_mapgen_result_free(&res);
        kc_chanload_eval(&t, &tr, id, &ident_cost, NULL);
    }
    kc_traffic_free(&tr);
    kc_mpi_machine m = {&t, &hosts, NULL};
    MPI_Comm mapped;
    if (kc_mpi_comm_remap(MPI_COMM_WORLD, &m, tp, &mapped, &err)) {
        fprintf(stderr, "bench_mpi_transpose: %s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double *send = malloc((size_t)count * sizeof *send), *recv = malloc((size_t)count * sizeof *recv);
    double *ti = malloc((size_t)reps * sizeof *ti), *tm = malloc((size_t)reps * sizeof *tm);
    MPI_Comm comms[2] = {MPI_COMM_WORLD, mapped};
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        int r = 0;
        MPI_Comm_rank(comms[k], &r);
        for (int i = 0; i < count; i++)
            send[i] = (double)r * ELEMENTS + i;
        timed(&c, send, recv, count, comms[k]); /* warm-up: connections, pages */
        ok &= check(&c, recv, count, comms[k]);
    }
    for (int rep = 0; rep < reps; rep++)
        for (int k = 0; k < 2; k++) {
            int r = 0;
            MPI_Comm_rank(comms[k], &r);
            for (int i = 0; i < count; i++)
                send[i] = (double)r * ELEMENTS + i;
            (k ? tm : ti)[rep] = timed(&c, send, recv, count, comms[k]);
        }
    if (me == 0) {
        double a = bench_median(ti, reps), b = bench_median(tm, reps);
        char load[64] = "?";
        FILE *f = fopen("/proc/loadavg", "r");
        if (f) {
            if (!fgets(load, sizeof load, f))
                strcpy(load, "?");
            fclose(f);
            load[strcspn(load, "\n")] = '\0';
        }
        printf("transpose of %d doubles among %d processes on host %s (the %d-cube's nodes: its slots)\n", ELEMENTS,
               p, name, n);
        printf("blocks of %d doubles (%d KiB); %.1f MiB cross between distinct ranks; %d repetitions each, "
               "medians; load %s\n",
               count, count * 8 / 1024, (double)cross / 1048576.0, reps, load);
        printf("%-9s %12s %14s %22s\n", "placement", "time (ms)", "MB/s (cross)", "max channel load (B)");
        printf("%-9s %12.3f %14.1f %22llu\n", "identity", 1e3 * a, (double)cross / a / 1e6,
               (unsigned long long)ident_cost.max);
        printf("%-9s %12.3f %14.1f %22llu\n", "mapped", 1e3 * b, (double)cross / b / 1e6,
               (unsigned long long)mapped_cost.max);
        printf("delivery checked: %s\n", ok ? "every element at the right rank" : "WRONG");
    }
    MPI_Comm_free(&mapped);
    free(send);
    free(recv);
    free(ti);
    free(tm);
    free(tp);
    free(id);
    kc_machine_free(&hosts);
    MPI_Finalize();
    return ok ? 0 : 1;
}
