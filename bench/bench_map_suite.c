/* bench_map_suite: the benchmark suite for general mappings (docs/gmap.md). For
 * each case (the four 8-cube sets, 2-D and 3-D halo exchanges from a process
 * grid onto a network of another shape, with and without periodic
 * boundaries, a random sparse graph, all-to-all) it reports identity,
 * kcube's Scotch start (libscotch, seed 1: the mapping of `scotch_gmap -Cd`),
 * the mapping of Scotch's own command line `scotch_gmap` (default strategy,
 * no options: what a user of Debian's scotch package gets) and kcube's final
 * mapping, all under kcube's exact counter (max channel load, bytes x hops,
 * sum of squared loads), as a Markdown table; then a second table with the
 * wall seconds each start took to compute, the search, and scotch_gmap.
 *
 *   bench_map_suite [BUDGET [SEED]]     (default 2, seed 1)
 *
 * BUDGET is the search's work in nominal seconds: BUDGET x 40 million
 * channel-load updates, i.e. `kcube map --work 40xBUDGET` (2 = --work 80);
 * the CPU time it takes varies with the case.
 *
 * scotch_gmap is run with fork/exec (no shell) on the graph and target line
 * kcube hands libscotch, written to a temporary directory; terminal t of
 * its .map has coordinates t_i (Scotch's extents, axis 0 fastest) and
 * becomes the kcube node with the same coordinates. When it puts two ranks
 * on one terminal, the later ranks move to the nearest free node in hops
 * (as kcube does; the number moved is printed). Without scotch_gmap on the
 * PATH its cells say n/a.
 *
 * The four communication sets are phases: their channel loads are counted
 * per communication (the largest per-communication load is column max, the
 * per-communication maxima are listed); the other cases are one traffic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* ---- Scotch's command line ------------------------------------------------ */

typedef struct arc {
    uint32_t u, v;
    uint64_t w;
} arc;

static int arc_cmp(const void *x, const void *y)
{
    const arc *a = x, *b = y;
    return a->u != b->u ? (a->u > b->u) - (a->u < b->u) : (a->v > b->v) - (a->v < b->v);
}

/* The graph kcube hands libscotch, in Scotch's .grf format: one edge per
 * communicating pair, weighted by the bytes of both directions, each
 * vertex's neighbours in increasing order. 0 on success. (kcube scales
 * weights down above 2^30 in all; the suite's weights stay far below.) */
static int write_grf(const char *path, const kc_traffic *tr)
{
    arc *a = malloc((2 * tr->count + 1) * sizeof *a);
    if (!a)
        return -1;
    size_t n = 0, m = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < tr->count; i++) {
        if (tr->src[i] == tr->dst[i] || !tr->bytes[i])
            continue;
        a[n++] = (arc){tr->src[i], tr->dst[i], tr->bytes[i]};
        a[n++] = (arc){tr->dst[i], tr->src[i], tr->bytes[i]};
        total += tr->bytes[i];
    }
    qsort(a, n, sizeof *a, arc_cmp);
    for (size_t i = 0; i < n; i++) {
        if (m && a[m - 1].u == a[i].u && a[m - 1].v == a[i].v)
            a[m - 1].w += a[i].w;
        else
            a[m++] = a[i];
    }
    FILE *f = total < (1u << 30) ? fopen(path, "w") : NULL;
    if (!f) {
        free(a);
        return -1;
    }
    fprintf(f, "0\n%llu %zu\n0 010\n", (unsigned long long)tr->ranks, m);
    size_t i = 0;
    for (uint64_t v = 0; v < tr->ranks; v++) {
        size_t j = i;
        while (j < m && a[j].u == v)
            j++;
        fprintf(f, "%zu", j - i);
        for (; i < j; i++)
            fprintf(f, " %llu %u", (unsigned long long)a[i].w, a[i].v);
        fputc('\n', f);
    }
    free(a);
    return fclose(f) ? -1 : 0;
}

/* The target line kcube's Scotch start uses for t (src/gmap/scotchmap.c). */
static int write_tgt(const char *path, const kc_topology *t)
{
    int binary = 1;
    for (int i = 0; i < t->n; i++)
        binary &= t->side[i] == 2;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    if (binary)
        fprintf(f, "hcub %d", t->n);
    else if (t->kind == KC_TOPO_MESH)
        fprintf(f, "%s", t->n == 3 ? "mesh3D" : "mesh2D");
    else if (t->n == 2 || t->n == 3)
        fprintf(f, "torus%dD", t->n);
    else
        fprintf(f, "torusXD %d", t->n);
    for (int i = 0; !binary && i < t->n; i++)
        fprintf(f, " %d", t->side[i]);
    fputc('\n', f);
    return fclose(f) ? -1 : 0;
}

/* Run `scotch_gmap GRF TGT MAP` (fork/exec, no shell; its output
 * discarded); *secs gets the wall time. Returns its exit status, 127 when it
 * could not be started, -1 on another failure. */
static int run_scotch_gmap(const char *grf, const char *tgt, const char *map, double *secs)
{
    char *argv[] = {"scotch_gmap", (char *)grf, (char *)tgt, (char *)map, NULL};
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    *secs = bench_now() - t0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* kcube's node with the coordinates of Scotch's terminal `term` (axis 0
 * fastest in both; kcube's node = x_0 + s_0 (x_1 + s_1 (...))). */
static uint32_t node_of_terminal(const kc_topology *t, uint64_t term)
{
    uint64_t node = 0, place = 1;
    for (int i = 0; i < t->n; i++) {
        node += term % (uint64_t)t->side[i] * place;
        term /= (uint64_t)t->side[i];
        place *= (uint64_t)t->side[i];
    }
    return (uint32_t)node;
}

static uint64_t hops(const kc_topology *t, uint64_t x, uint64_t y)
{
    uint64_t h = 0;
    for (int i = 0; i < t->n; i++) {
        unsigned a = kc_topology_coord(t, x, i), b = kc_topology_coord(t, y, i);
        unsigned d = a > b ? a - b : b - a;
        h += t->kind == KC_TOPO_MESH || 2 * d <= (unsigned)t->side[i] ? d : (unsigned)t->side[i] - d;
    }
    return h;
}

/* Read a .map into p (rank -> kcube node); a terminal used twice keeps its
 * lowest rank, later ranks take the free node nearest in hops (lowest id on
 * ties). Returns the ranks moved, or -1 on a bad file. */
static long read_map(const char *path, const kc_topology *t, uint32_t *p)
{
    FILE *f = fopen(path, "r");
    unsigned long long count, v, term;
    if (!f)
        return -1;
    unsigned char *used = calloc(t->nodes, 1), *seen = calloc(t->nodes, 1);
    long bad = !used || !seen || fscanf(f, "%llu", &count) != 1 || count != t->nodes;
    for (unsigned long long i = 0; !bad && i < count; i++) {
        bad = fscanf(f, "%llu %llu", &v, &term) != 2 || v >= t->nodes || term >= t->nodes || seen[v];
        if (!bad) {
            seen[v] = 1;
            p[v] = node_of_terminal(t, term);
        }
    }
    fclose(f);
    long moved = 0;
    for (uint64_t r = 0; !bad && r < t->nodes; r++) /* first owners, in rank order */
        if (!used[p[r]]) {
            used[p[r]] = 1;
            seen[r] = 2;
        }
    for (uint64_t r = 0; !bad && r < t->nodes; r++) {
        if (seen[r] == 2)
            continue;
        uint64_t best = UINT64_MAX, bh = UINT64_MAX;
        for (uint64_t x = 0; x < t->nodes; x++)
            if (!used[x] && hops(t, p[r], x) < bh) {
                bh = hops(t, p[r], x);
                best = x;
            }
        used[best] = 1;
        p[r] = (uint32_t)best;
        moved++;
    }
    free(used);
    free(seen);
    return bad ? -1 : moved;
}

/* kcube's exact count of mapping p, per communication when tr has groups
 * (as the search counts it); gmax gets the per-communication maxima. */
static void count_map(const kc_topology *t, const kc_traffic *tr, const uint32_t *p, kc_cost *c, uint64_t *gmax)
{
    kc_chanload *cl;
    kc_err err = {0};
    int layered = tr->groups > 1;
    if (kc_chanload_new_layered(&cl, t, tr, layered ? tr->group : NULL, layered ? tr->groups : 0, &err))
        die("counter", &err);
    if (kc_chanload_set(cl, p, &err))
        die("scotch_gmap's mapping", &err);
    *c = kc_chanload_cost(cl);
    if (layered && kc_chanload_group_max(cl, tr, tr->group, tr->groups, gmax, &err))
        die("counter", &err);
    if (tr->groups == 1)
        gmax[0] = c->max;
    kc_chanload_free(cl);
}

typedef struct cli_scotch {
    int ok;       /* 1: c holds the count of scotch_gmap's mapping */
    kc_cost c;
    uint64_t gmax[KC_TOPO_MAX_DIMS + 1];
    long moved;   /* ranks moved off a doubly used terminal */
    double secs;
} cli_scotch;

/* scotch_gmap (default strategy) on this case, in directory dir. */
static void scotch_cli(const char *dir, const kc_topology *t, const kc_traffic *tr, cli_scotch *out)
{
    char grf[4096], tgt[4096], map[4096];
    snprintf(grf, sizeof grf, "%s/case.grf", dir);
    snprintf(tgt, sizeof tgt, "%s/case.tgt", dir);
    snprintf(map, sizeof map, "%s/case.map", dir);
    memset(out, 0, sizeof *out);
    uint32_t *p = malloc(t->nodes * sizeof *p);
    remove(map);
    if (p && !write_grf(grf, tr) && !write_tgt(tgt, t) && run_scotch_gmap(grf, tgt, map, &out->secs) == 0 &&
        (out->moved = read_map(map, t, p)) >= 0) {
        count_map(t, tr, p, &out->c, out->gmax);
        out->ok = 1;
    }
    free(p);
    remove(grf);
    remove(tgt);
    remove(map);
}

/* ---- the tables ------------------------------------------------------------- */

#define NCASES (sizeof CASES / sizeof CASES[0])
#define MAX_COLS 32

/* Seconds per case and start, for the second table. */
typedef struct timings {
    int ncols;
    char col[MAX_COLS][32];
    double sec[NCASES][MAX_COLS]; /* < 0: no such start */
    double search[NCASES], total[NCASES], cli[NCASES];
    int cli_ok[NCASES];
} timings;

static void record(timings *tm, size_t ci, const char *name, double sec)
{
    int j = 0;
    while (j < tm->ncols && strcmp(tm->col[j], name))
        j++;
    if (j == tm->ncols) {
        if (j == MAX_COLS)
            return;
        snprintf(tm->col[j], sizeof tm->col[j], "%s", name);
        for (size_t i = 0; i < NCASES; i++)
            tm->sec[i][j] = -1;
        tm->ncols++;
    }
    tm->sec[ci][j] = sec;
}

/* (max, bytes x hops) lexicographically. */
static const char *lex_verdict(const kc_cost *k, const kc_cost *s)
{
    return k->max < s->max || (k->max == s->max && k->hops < s->hops)   ? "better"
           : k->max == s->max && k->hops == s->hops                       ? "equal"
                                                                            : "**worse**";
}

static void run_case(size_t ci, double budget, uint64_t seed, const char *dir, timings *tm)
{
    const bench_case *c = &CASES[ci];
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
    cli_scotch cs;
    if (dir)
        scotch_cli(dir, &t, &tr, &cs);
    else
        memset(&cs, 0, sizeof cs);
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
    if (cs.ok) {
        char buf[48];
        printf(" %llu / %llu / %s", (unsigned long long)cs.c.max, (unsigned long long)cs.c.hops,
               kc_cost_sumsq_format(&cs.c, buf, sizeof buf));
        group_cell(cs.gmax, tr.groups);
        if (cs.moved)
            printf(" [%ld moved]", cs.moved);
        printf(" |");
    } else {
        printf(" n/a |");
    }
    char buf[48];
    printf(" %llu / %llu / %s", (unsigned long long)g->cost.max, (unsigned long long)g->cost.hops,
           kc_cost_sumsq_format(&g->cost, buf, sizeof buf));
    group_cell(g->group_max, g->group_max ? g->groups : 0);
    const char *verdict = "-";
    if (r.scotch >= 0) {
        const kc_cost *sc = &g->start_cost[r.scotch];
        /* Both keys: a lower max load may be bought with more hops (the
         * cap gives way to the best start's max load). */
        verdict = g->cost.max < sc->max    ? (g->cost.hops > sc->hops ? "lower max, more hops" : "lower max")
                  : g->cost.max > sc->max  ? "**worse**"
                  : g->cost.hops > sc->hops ? "**worse**"
                  : g->cost.hops < sc->hops ? "fewer hops"
                                            : "equal";
    }
    printf(" | %s | %s | %s |\n", r.start_name[g->best_start], verdict, cs.ok ? lex_verdict(&g->cost, &cs.c) : "n/a");
    fflush(stdout);
    for (int i = 0; i < r.nstarts; i++)
        record(tm, ci, r.start_name[i], r.start_seconds[i]);
    tm->search[ci] = r.search_seconds;
    tm->total[ci] = kt;
    tm->cli[ci] = cs.secs;
    tm->cli_ok[ci] = cs.ok;
    kc_mapgen_result_free(&r);
    kc_traffic_free(&tr);
}

static void print_timings(const timings *tm)
{
    printf("\nwall seconds: each start's computation, kcube's search (counting the starts, searching, "
           "recounting), kcube in all, and one scotch_gmap process (fork to exit)\n\n| case |");
    for (int j = 0; j < tm->ncols; j++)
        printf(" %s |", tm->col[j]);
    printf(" search | kcube total | scotch_gmap |\n|---|");
    for (int j = 0; j < tm->ncols + 3; j++)
        printf("---|");
    printf("\n");
    for (size_t i = 0; i < NCASES; i++) {
        printf("| %s |", CASES[i].name);
        for (int j = 0; j < tm->ncols; j++)
            if (tm->sec[i][j] < 0)
                printf(" - |");
            else
                printf(" %.3f |", tm->sec[i][j]);
        printf(" %.2f | %.2f |", tm->search[i], tm->total[i]);
        if (tm->cli_ok[i])
            printf(" %.3f |\n", tm->cli[i]);
        else
            printf(" n/a |\n");
    }
}

int main(int argc, char **argv)
{
    double budget = argc > 1 ? atof(argv[1]) : 2.0;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    char dir[] = "/tmp/bench_map_suite.XXXXXX";
    const char *tmp = mkdtemp(dir);
    static timings tm;
    printf("general mapping suite: budget %g (kcube map --work %g) per case, seed %llu, Scotch %s\n", budget,
           budget * KC_GMAP_WORK_PER_SECOND / 1e6, (unsigned long long)seed,
           kc_scotch_available() ? kc_scotch_version() : "not built in");
    printf("values: max channel load / bytes x hops / sum of squared loads (1 byte per message); "
           "(per-communication maxima) for sets; Scotch start = kcube's libscotch start (scotch_gmap -Cd); "
           "scotch_gmap = Scotch's command line, default strategy; last column (max, bytes x hops) "
           "lexicographically\n\n");
    printf("| case | messages | identity | Scotch start | scotch_gmap | kcube | kcube's start | kcube vs Scotch start "
           "| kcube vs scotch_gmap |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < NCASES; i++)
        run_case(i, budget, seed, tmp, &tm);
    print_timings(&tm);
    if (tmp)
        rmdir(tmp);
    return 0;
}
