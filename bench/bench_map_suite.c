/* bench_map_suite: issue 13's benchmark suite for general mappings. For
 * each case (the four 8-cube sets, 2-D and 3-D halo exchanges from a process
 * grid onto a network of another shape, with and without periodic
 * boundaries, a random sparse graph, all-to-all) it reports identity,
 * Scotch's mapping and kcube's final mapping under kcube's exact counter
 * (max channel load, bytes x hops, sum of squared loads) and the time each
 * mapper took, as a Markdown table.
 *
 *   bench_map_suite [BUDGET_SECONDS [SEED]]     (default 2 s, seed 1)
 *
 * The four communication sets are phases: their channel loads are counted
 * per communication (the largest per-communication load is column max, the
 * per-communication maxima are listed); the other cases are one traffic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kcube/chanload.h"
#include "kcube/comm.h"
#include "kcube/mapgeneral.h"
#include "kcube/scotchmap.h"
#include "kcube/traffic_gen.h"

typedef enum { SRC_SET, SRC_HALO, SRC_RANDOM, SRC_ALL } src_kind;

typedef struct bench_case {
    const char *name;
    kc_topo_kind kind;
    int k, n;
    const char *shape; /* meshes: "16x16" */
    src_kind src;
    kc_traffic_set set;
    int grid[3], dims, periodic;
    int deg;
} bench_case;

static const bench_case CASES[] = {
    {"transpose (8-cube)", KC_TOPO_HYPERCUBE, 2, 8, NULL, SRC_SET, KC_TSET_TRANSPOSE, {0}, 0, 0, 0},
    {"transpose + bit-reverse", KC_TOPO_HYPERCUBE, 2, 8, NULL, SRC_SET, KC_TSET_TRANSPOSE_BITREV, {0}, 0, 0, 0},
    {"+ reverse-flip", KC_TOPO_HYPERCUBE, 2, 8, NULL, SRC_SET, KC_TSET_TRANSPOSE_BITREV_RFLIP, {0}, 0, 0, 0},
    {"FFT: bit-reverse + 8 exchanges", KC_TOPO_HYPERCUBE, 2, 8, NULL, SRC_SET, KC_TSET_FFT, {0}, 0, 0, 0},
    {"5-pt 16x16 periodic -> 4-ary 4-cube", KC_TOPO_TORUS, 4, 4, NULL, SRC_HALO, 0, {16, 16}, 2, 1, 0},
    {"5-pt 16x16 open -> 4-ary 4-cube", KC_TOPO_TORUS, 4, 4, NULL, SRC_HALO, 0, {16, 16}, 2, 0, 0},
    {"5-pt 64x64 periodic -> 12-cube", KC_TOPO_HYPERCUBE, 2, 12, NULL, SRC_HALO, 0, {64, 64}, 2, 1, 0},
    {"5-pt 64x64 open -> 12-cube", KC_TOPO_HYPERCUBE, 2, 12, NULL, SRC_HALO, 0, {64, 64}, 2, 0, 0},
    {"5-pt 12x18 periodic -> 6-ary 3-cube", KC_TOPO_TORUS, 6, 3, NULL, SRC_HALO, 0, {12, 18}, 2, 1, 0},
    {"7-pt 8x8x8 periodic -> 9-cube", KC_TOPO_HYPERCUBE, 2, 9, NULL, SRC_HALO, 0, {8, 8, 8}, 3, 1, 0},
    {"7-pt 16x16x16 periodic -> 8-ary 4-cube", KC_TOPO_TORUS, 8, 4, NULL, SRC_HALO, 0, {16, 16, 16}, 3, 1, 0},
    {"7-pt 16x16x16 open -> 8-ary 4-cube", KC_TOPO_TORUS, 8, 4, NULL, SRC_HALO, 0, {16, 16, 16}, 3, 0, 0},
    {"7-pt 8x8x8 open -> 32x16 mesh", KC_TOPO_MESH, 0, 0, "32x16", SRC_HALO, 0, {8, 8, 8}, 3, 0, 0},
    {"random, 6 partners (8-cube)", KC_TOPO_HYPERCUBE, 2, 8, NULL, SRC_RANDOM, 0, {0}, 0, 0, 6},
    {"random, 6 partners (16x16 mesh)", KC_TOPO_MESH, 0, 0, "16x16", SRC_RANDOM, 0, {0}, 0, 0, 6},
    {"all-to-all (6-cube)", KC_TOPO_HYPERCUBE, 2, 6, NULL, SRC_ALL, 0, {0}, 0, 0, 0},
    {"all-to-all (8-cube)", KC_TOPO_HYPERCUBE, 2, 8, NULL, SRC_ALL, 0, {0}, 0, 0, 0},
};

static void die(const char *what, const kc_err *err)
{
    fprintf(stderr, "bench_map_suite: %s: %s\n", what, err->msg);
    exit(1);
}

static void topology_of(const bench_case *c, kc_topology *t)
{
    kc_err err = {0};
    kc_status s;
    if (c->shape) {
        int sides[KC_TOPO_MAX_DIMS], count;
        s = kc_topology_parse_shape(c->shape, sides, &count, &err);
        if (!s)
            s = kc_topology_mesh_shape(t, sides, count, &err);
    } else {
        s = kc_topology_init(t, c->kind, c->k, c->n, KC_TIE_PLUS, &err);
    }
    if (s)
        die(c->name, &err);
}

/* The communications of a set, for kcube's algebraic starts. */
static int set_comms(const bench_case *c, const kc_topology *t, kc_comm *comms)
{
    const char *names[3][3] = {{"transpose"}, {"transpose", "bit-reverse"},
                               {"transpose", "bit-reverse", "reverse-flip"}};
    kc_err err = {0};
    int count = 0;
    if (c->set == KC_TSET_FFT) {
        if (kc_comm_named(&comms[count++], t, "bit-reverse", &err))
            die(c->name, &err);
        for (int i = 0; i < t->n; i++) {
            char name[32];
            snprintf(name, sizeof name, "butterfly:%d", i);
            if (kc_comm_named(&comms[count++], t, name, &err))
                die(c->name, &err);
        }
        return count;
    }
    for (int i = 0; i < 3 && names[c->set][i]; i++)
        if (kc_comm_named(&comms[count++], t, names[c->set][i], &err))
            die(c->name, &err);
    return count;
}

static void traffic_of(const bench_case *c, const kc_topology *t, kc_traffic *tr, uint64_t seed)
{
    kc_err err = {0};
    kc_status s = kc_traffic_init(tr, t->nodes, &err);
    if (!s && c->src == SRC_SET)
        s = kc_traffic_gen_set(tr, t, c->set, 1, &err);
    else if (!s && c->src == SRC_HALO)
        s = kc_traffic_gen_halo(tr, c->grid, c->dims, c->periodic, 1, &err);
    else if (!s && c->src == SRC_RANDOM)
        s = kc_traffic_gen_random(tr, (uint64_t)c->deg, 1, seed, &err);
    else if (!s)
        s = kc_traffic_gen_all_to_all(tr, 1, &err);
    if (s)
        die(c->name, &err);
}

static void cost_cell(const kc_cost *x)
{
    char buf[48];
    printf(" %llu / %llu / %s |", (unsigned long long)x->max, (unsigned long long)x->hops,
           kc_cost_sumsq_format(x, buf, sizeof buf));
}

static void group_cell(const uint64_t *g, uint32_t groups)
{
    if (!groups)
        return;
    printf(" (");
    for (uint32_t i = 0; i < groups; i++)
        printf("%s%llu", i ? "," : "", (unsigned long long)g[i]);
    printf(")");
}

/* Scotch alone, timed, evaluated by kcube's counter. */
static double scotch_alone(const kc_topology *t, const kc_traffic *tr, uint64_t seed)
{
    uint32_t *p = malloc(t->nodes * sizeof *p);
    kc_err err = {0};
    double t0 = bench_now();
    if (!p || kc_scotch_map(t, tr, seed, p, &err))
        die("scotch", &err);
    double dt = bench_now() - t0;
    free(p);
    return dt;
}

static void run_case(const bench_case *c, double budget, uint64_t seed)
{
    kc_topology t;
    topology_of(c, &t);
    kc_traffic tr;
    traffic_of(c, &t, &tr, seed);
    kc_comm comms[KC_TOPO_MAX_DIMS + 1];
    int ncomms = c->src == SRC_SET ? set_comms(c, &t, comms) : 0;
    kc_mapgen_opts o;
    kc_mapgen_opts_default(&o);
    o.search.seed = seed;
    o.search.budget_seconds = budget;
    o.search.group = tr.group;
    o.search.groups = tr.groups;
    o.search.separate = tr.groups > 1;
    kc_mapgen_result r;
    kc_err err = {0};
    double t0 = bench_now();
    if (kc_mapgen_run(&t, &tr, comms, ncomms, &o, &r, &err))
        die(c->name, &err);
    double kt = bench_now() - t0;
    double st = r.scotch >= 0 ? scotch_alone(&t, &tr, seed) : 0;
    const kc_gmap_result *g = &r.search;
    printf("| %s | %zu |", c->name, tr.count);
    cost_cell(&g->start_cost[0]);
    if (r.scotch >= 0) {
        const kc_cost *sc = &g->start_cost[r.scotch];
        printf(" %llu / %llu / ", (unsigned long long)sc->max, (unsigned long long)sc->hops);
        char buf[48];
        printf("%s", kc_cost_sumsq_format(sc, buf, sizeof buf));
        group_cell(g->start_group_max ? g->start_group_max + (size_t)r.scotch * g->groups : NULL,
                   g->start_group_max ? g->groups : 0);
        printf(" |");
    } else {
        printf(" (no Scotch) |");
    }
    char buf[48];
    printf(" %llu / %llu / %s", (unsigned long long)g->cost.max, (unsigned long long)g->cost.hops,
           kc_cost_sumsq_format(&g->cost, buf, sizeof buf));
    group_cell(g->group_max, g->group_max ? g->groups : 0);
    const char *verdict = "-";
    if (r.scotch >= 0) {
        const kc_cost *sc = &g->start_cost[r.scotch];
        verdict = g->cost.max > sc->max || g->cost.hops > sc->hops ? "**worse**"
                  : g->cost.max < sc->max                          ? "lower max"
                  : g->cost.hops < sc->hops                        ? "fewer hops"
                                                                   : "equal";
    }
    printf(" | %s | %s | %.2f | %.2f |\n", r.start_name[g->best_start], verdict, st, kt);
    fflush(stdout);
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

int main(int argc, char **argv)
{
    double budget = argc > 1 ? atof(argv[1]) : 2.0;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    printf("general mapping suite: budget %g s per case, seed %llu, Scotch %s\n", budget, (unsigned long long)seed,
           kc_scotch_available() ? kc_scotch_version() : "not built in");
    printf("values: max channel load / bytes x hops / sum of squared loads (1 byte per message); "
           "(per-communication maxima) for sets\n\n");
    printf("| case | messages | identity | Scotch | kcube | kcube's start | kcube vs Scotch | Scotch s | kcube s |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        run_case(&CASES[i], budget, seed);
    return 0;
}
