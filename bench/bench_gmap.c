/* Benchmarks for the general mapper: exact incremental swap
 * evaluation against a full recount, the work-unit rate behind
 * KC_GMAP_WORK_PER_SECOND, and the time the search takes to bring the
 * 8-cube transpose and a grid halo to their lower bounds. Times are this
 * process's CPU seconds, not wall time: the machine is shared, and the
 * work-unit constant is about CPU speed. Usage: bench_gmap [--quick]
 * [--networks]: with --networks, only the swap rate on a plain 16x16x16
 * torus against Titan's 25x16x24 torus with 2 endpoints per router, the
 * median of 3 runs each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "kcube/chanload.h"
#include "kcube/gmap.h"
#include "kcube/perm.h"
#include "kcube/rng.h"
#include "kcube/traffic_gen.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void transpose8(kc_traffic *tr)
{
    kc_traffic_init(tr, 256, NULL);
    for (uint32_t x = 0; x < 256; x++)
        kc_traffic_add(tr, x, ((x & 15) << 4) | (x >> 4), 1, NULL);
}

/* Each rank sends `deg` messages of 1..1000 bytes to random others. */
static void sparse(kc_traffic *tr, uint64_t nodes, int deg, uint64_t seed)
{
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    kc_traffic_init(tr, nodes, NULL);
    for (uint64_t v = 0; v < nodes; v++)
        for (int j = 0; j < deg; j++)
            kc_traffic_add(tr, v, kc_rng_below(&rng, nodes), 1 + kc_rng_below(&rng, 1000), NULL);
}

/* Random swaps of two of the `slots` ranks, each undone (the common case:
 * a rejected candidate), for `seconds` of CPU; *moves and *work get the
 * counts. Returns the seconds taken. */
static double swap_rate(kc_chanload *cl, uint64_t slots, double seconds, uint64_t seed, uint64_t *moves,
                        uint64_t *work)
{
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    *moves = *work = 0;
    double t0 = cpu_now();
    while (cpu_now() - t0 < seconds)
        for (int i = 0; i < 256; i++, (*moves)++) {
            uint32_t a = (uint32_t)kc_rng_below(&rng, slots), b = (uint32_t)kc_rng_below(&rng, slots - 1);
            *work += kc_chanload_swap(cl, a, b >= a ? b + 1 : b);
            kc_chanload_undo(cl);
        }
    return cpu_now() - t0;
}

static void swap_case(const char *name, const kc_topology *t, const kc_traffic *tr, double seconds)
{
    kc_chanload *cl;
    kc_err err = {0};
    double t0 = cpu_now();
    if (kc_chanload_new(&cl, t, tr, &err)) {
        printf("  %s\n", err.msg);
        return;
    }
    double build = cpu_now() - t0;
    uint64_t moves, work, slots = kc_topology_slots(t);
    double inc = swap_rate(cl, slots, seconds, 1, &moves, &work);
    kc_rng rng;
    kc_rng_seed(&rng, 2);
    uint32_t *p = malloc(slots * sizeof *p);
    kc_perm_identity(p, slots);
    uint64_t full = 0;
    t0 = cpu_now();
    while (cpu_now() - t0 < seconds) {
        uint32_t a = (uint32_t)kc_rng_below(&rng, slots), b = (uint32_t)kc_rng_below(&rng, slots);
        uint32_t x = p[a];
        p[a] = p[b];
        p[b] = x;
        kc_chanload_set(cl, p, NULL);
        full++;
    }
    double rec = cpu_now() - t0;
    double ips = (double)moves / inc, fps = (double)full / rec;
    printf("  %-34s pairs %8zu  build %6.3f s  swap+undo %9.0f /s (%5.1f M work/s)  recount %8.1f /s  x%.0f\n",
           name, kc_chanload_pairs(cl), build, ips, (double)work / inc / 1e6, fps, ips / fps);
    free(p);
    kc_chanload_free(cl);
}

/* 5-point halo of a side x side grid without wraparound. */
static void halo(kc_traffic *tr, uint32_t side)
{
    kc_traffic_init(tr, (uint64_t)side * side, NULL);
    for (uint32_t v = 0; v < side * side; v++) {
        uint32_t x = v % side, y = v / side;
        if (x > 0)
            kc_traffic_add(tr, v, v - 1, 1, NULL);
        if (x < side - 1)
            kc_traffic_add(tr, v, v + 1, 1, NULL);
        if (y > 0)
            kc_traffic_add(tr, v, v - side, 1, NULL);
        if (y < side - 1)
            kc_traffic_add(tr, v, v + side, 1, NULL);
    }
}

/* Budgets doubling until the search reaches the lower bound (max 1,
 * `hops` bytes x hops). */
static void search_case(const char *title, const kc_topology *t, kc_traffic *tr, uint64_t hops)
{
    uint32_t *id = malloc(t->nodes * sizeof *id);
    kc_perm_identity(id, t->nodes);
    kc_gmap_start start = {"identity", id};
    printf("%s from the identity (target: max 1, %llu hops):\n", title, (unsigned long long)hops);
    for (double b = 0.005; b <= 8.0; b *= 2) {
        kc_gmap_opts o;
        kc_gmap_opts_default(&o);
        o.budget_seconds = b;
        kc_gmap_result r;
        double t0 = cpu_now();
        if (kc_gmap_run(t, tr, &start, 1, &o, &r, NULL))
            break;
        double dt = cpu_now() - t0;
        int hit = r.cost.max == 1 && r.cost.hops == hops;
        printf("  budget %6.3f s: max %llu hops %4llu, %8llu candidates, %6.3f s%s\n", b, (unsigned long long)r.cost.max,
               (unsigned long long)r.cost.hops, (unsigned long long)r.iterations, dt, hit ? "  (lower bound)" : "");
        kc_gmap_result_free(&r);
        if (hit)
            break;
    }
    free(id);
    kc_traffic_free(tr);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The swap rate (swap + undo per CPU second), median of 3 runs of 1 s, for
 * a periodic 7-point stencil on a grid with one rank per slot. */
static void network_case(const char *name, const kc_topology *t, const int *grid)
{
    kc_traffic tr;
    kc_chanload *cl;
    kc_err err = {0};
    if (kc_traffic_init(&tr, kc_topology_slots(t), &err) ||
        kc_traffic_gen_stencil(&tr, KC_STENCIL_7PT, grid, 3, 1, KC_GRID_AXIS0_FASTEST, 1, &err) ||
        kc_chanload_new(&cl, t, &tr, &err)) {
        printf("  %s: %s\n", name, err.msg);
        kc_traffic_free(&tr);
        return;
    }
    double rate[3], wrate[3];
    for (int r = 0; r < 3; r++) {
        uint64_t moves, work;
        double sec = swap_rate(cl, kc_topology_slots(t), 1.0, 1 + (uint64_t)r, &moves, &work);
        rate[r] = (double)moves / sec;
        wrate[r] = (double)work / sec / 1e6;
    }
    qsort(rate, 3, sizeof *rate, cmp_double);
    qsort(wrate, 3, sizeof *wrate, cmp_double);
    printf("  %-44s slots %6llu  swap+undo %9.0f /s (median of 3; %5.1f M work/s)\n", name,
           (unsigned long long)kc_topology_slots(t), rate[1], wrate[1]);
    kc_chanload_free(cl);
    kc_traffic_free(&tr);
}

static int networks(void)
{
    kc_topology plain, titan;
    int cube[3] = {16, 16, 16}, sides[3] = {25, 16, 24}, grid[3] = {50, 16, 24};
    kc_topology_shape(&plain, KC_TOPO_TORUS, cube, 3, KC_TIE_PLUS, NULL);
    kc_topology_shape(&titan, KC_TOPO_TORUS, sides, 3, KC_TIE_PLUS, NULL);
    kc_topology_set_endpoints(&titan, 2, NULL);
    printf("swap rate, periodic 7-point stencil, one rank per slot:\n");
    network_case("16x16x16 torus (grid 16x16x16)", &plain, cube);
    network_case("25x16x24 torus, 2 endpoints (grid 50x16x24)", &titan, grid);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--networks") == 0)
        return networks();
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    double sec = quick ? 0.2 : 1.0;
    printf("incremental swap evaluation (swap + undo) against a full recount:\n");
    kc_topology h8, q44, h16;
    kc_topology_hypercube(&h8, 8, NULL);
    kc_topology_torus(&q44, 4, 4, KC_TIE_PLUS, NULL);
    kc_topology_hypercube(&h16, 16, NULL);
    kc_traffic tr;
    transpose8(&tr);
    swap_case("8-cube transpose", &h8, &tr, sec);
    kc_traffic_free(&tr);
    sparse(&tr, 256, 6, 1);
    swap_case("8-cube, 6 random partners", &h8, &tr, sec);
    swap_case("4-ary 4-cube, 6 random partners", &q44, &tr, sec);
    kc_traffic_free(&tr);
    sparse(&tr, 1u << 16, 6, 2);
    swap_case("16-cube, 6 random partners", &h16, &tr, sec);
    kc_traffic_free(&tr);
    if (!quick) {
        sparse(&tr, 1u << 16, 153, 3); /* 10^7 messages on 2^16 nodes */
        swap_case("16-cube, 10^7 messages", &h16, &tr, sec);
        kc_traffic_free(&tr);
    }
    transpose8(&tr);
    search_case("8-cube transpose", &h8, &tr, 240);
    halo(&tr, 16);
    search_case("16 x 16 grid halo on the 4-ary 4-cube", &q44, &tr, 960);
    if (!quick) {
        kc_topology h12;
        kc_topology_hypercube(&h12, 12, NULL);
        halo(&tr, 64);
        search_case("64 x 64 grid halo on the 12-cube", &h12, &tr, 16128);
    }
    return 0;
}
