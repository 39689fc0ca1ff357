/* Benchmarks for the general mapper: exact incremental swap
 * evaluation against a full recount, the work-unit rate behind
 * KC_GMAP_WORK_PER_SECOND, and the time the search takes to bring the
 * 8-cube transpose and a grid halo to their lower bounds. Times are this
 * process's CPU seconds, not wall time: the machine is shared, and the
 * work-unit constant is about CPU speed. Usage: bench_gmap [--quick] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "kcube/chanload.h"
#include "kcube/gmap.h"
#include "kcube/perm.h"
#include "kcube/rng.h"

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
    kc_rng rng;
    kc_rng_seed(&rng, 1);
    uint64_t moves = 0, work = 0;
    t0 = cpu_now();
    while (cpu_now() - t0 < seconds)
        for (int i = 0; i < 256; i++, moves++) {
            uint32_t a = (uint32_t)kc_rng_below(&rng, t->nodes), b = (uint32_t)kc_rng_below(&rng, t->nodes - 1);
            work += kc_chanload_swap(cl, a, b >= a ? b + 1 : b);
            kc_chanload_undo(cl); /* the common case: a rejected candidate */
        }
    double inc = cpu_now() - t0;
    uint32_t *p = malloc(t->nodes * sizeof *p);
    kc_perm_identity(p, t->nodes);
    uint64_t full = 0;
    t0 = cpu_now();
    while (cpu_now() - t0 < seconds) {
        uint32_t a = (uint32_t)kc_rng_below(&rng, t->nodes), b = (uint32_t)kc_rng_below(&rng, t->nodes);
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

int main(int argc, char **argv)
{
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
