/* bench_gmap_scotch.c - kcube's general mapper against plain `scotch_gmap`
 * (Scotch's own command, default strategy and options) on a seeded random
 * suite: random permutations (1-byte and random-size messages), unions of
 * two permutations and random multi-message traffics, on hypercubes, tori
 * with each tie rule and meshes with unequal sides.
 *
 * For every case the same graph is written as a Scotch .grf (one edge per
 * communicating pair, weight the bytes of both directions: the graph
 * libkcube gives libscotch) and the target as the line scotch_gmap reads
 * ("hcub n", "torus3D a b c", "mesh2D a b", ...); scotch_gmap runs as an
 * external program (no shell) and its mapping is counted by kcube's exact
 * counter on the traffic renamed through it (two ranks on one terminal then
 * simply share a node). kcube's side is kc_mapgen_run with its defaults
 * (seed 1, one second of budget). A case is a win, a tie or a loss in the
 * lexicographic order (max channel load, then bytes x hops).
 *
 * Usage: bench_gmap_scotch [--cases N] [--first I] [--scotch-gmap PATH]
 *                          [--scotch-opt OPT] [--budget SECONDS]
 *                          [--fail-on-loss] [--verbose]
 * --scotch-opt passes one more option to scotch_gmap (e.g. -Cd, Scotch's
 * deterministic mode: plain scotch_gmap draws a new random seed each run, so
 * a test that must repeat compares with the deterministic run).
 * Prints one row per case and the totals; with --fail-on-loss exits 1 when
 * any case is a loss, 77 when scotch_gmap or kcube's Scotch is missing. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "kcube/chanload.h"
#include "kcube/mapgeneral.h"
#include "kcube/rng.h"
#include "kcube/scotchmap.h"

extern char **environ;

/* The networks of the suite: kcube's topology and Scotch's target line. */
typedef struct net {
    const char *name;
    kc_topo_kind kind;
    int k, n;
    kc_tie tie;
    int sides[3], nsides; /* meshes of unequal sides */
    const char *target;
} net;

static const net NETS[] = {
    {"6-cube", KC_TOPO_HYPERCUBE, 2, 6, KC_TIE_PLUS, {0}, 0, "hcub 6"},
    {"8-cube", KC_TOPO_HYPERCUBE, 2, 8, KC_TIE_PLUS, {0}, 0, "hcub 8"},
    {"10-cube", KC_TOPO_HYPERCUBE, 2, 10, KC_TIE_PLUS, {0}, 0, "hcub 10"},
    {"8-ary 3-cube split", KC_TOPO_TORUS, 8, 3, KC_TIE_SPLIT, {0}, 0, "torus3D 8 8 8"},
    {"8-ary 3-cube plus", KC_TOPO_TORUS, 8, 3, KC_TIE_PLUS, {0}, 0, "torus3D 8 8 8"},
    {"8-ary 3-cube minus", KC_TOPO_TORUS, 8, 3, KC_TIE_MINUS, {0}, 0, "torus3D 8 8 8"},
    {"4-ary 3-cube split", KC_TOPO_TORUS, 4, 3, KC_TIE_SPLIT, {0}, 0, "torus3D 4 4 4"},
    {"4-ary 4-cube plus", KC_TOPO_TORUS, 4, 4, KC_TIE_PLUS, {0}, 0, "torusXD 4 4 4 4 4"},
    {"16-ary 2-cube minus", KC_TOPO_TORUS, 16, 2, KC_TIE_MINUS, {0}, 0, "torus2D 16 16"},
    {"8-ary 2-cube split", KC_TOPO_TORUS, 8, 2, KC_TIE_SPLIT, {0}, 0, "torus2D 8 8"},
    {"mesh 32x16", KC_TOPO_MESH, 0, 2, KC_TIE_PLUS, {32, 16}, 2, "mesh2D 32 16"},
    {"mesh 16x8", KC_TOPO_MESH, 0, 2, KC_TIE_PLUS, {16, 8}, 2, "mesh2D 16 8"},
    {"mesh 8x4x2", KC_TOPO_MESH, 0, 3, KC_TIE_PLUS, {8, 4, 2}, 3, "mesh3D 8 4 2"},
    {"mesh 16x4", KC_TOPO_MESH, 0, 2, KC_TIE_PLUS, {16, 4}, 2, "mesh2D 16 4"},
};
#define NNETS (int)(sizeof NETS / sizeof NETS[0])

static const char *const TRAFFICS[] = {"perm 1B", "perm rand", "2 perms", "random d4"};
#define NTRAFFICS 4

typedef struct run_opts {
    int cases, first, fail_on_loss, verbose;
    double budget;
    const char *tool;
    const char *tool_opt; /* one extra option for scotch_gmap, or NULL */
    char dir[64];
} run_opts;

typedef struct tally {
    int win, tie, loss;
    double t_kcube[1024], t_scotch[1024];
    int timed;
} tally;

static int make_topology(const net *w, kc_topology *t)
{
    if (w->nsides)
        return kc_topology_mesh_shape(t, w->sides, w->nsides, NULL) != KC_OK;
    return kc_topology_init(t, w->kind, w->k, w->n, w->tie, NULL) != KC_OK;
}

/* Traffic kind `kind` on P ranks, drawn from rng. Returns 0 or -1. */
static int make_traffic(int kind, uint64_t P, kc_rng *rng, kc_traffic *tr)
{
    uint32_t *p = malloc(P * sizeof *p);
    if (!p || kc_traffic_init(tr, P, NULL)) {
        free(p);
        return -1;
    }
    int bad = 0;
    for (int round = 0; round < (kind == 2 ? 2 : 1) && kind != 3; round++) {
        kc_rng_perm(rng, p, P);
        for (uint64_t v = 0; v < P; v++)
            bad |= kc_traffic_add(tr, v, p[v], kind == 0 ? 1 : 1 + kc_rng_below(rng, 1000), NULL) != KC_OK;
    }
    for (uint64_t v = 0; kind == 3 && v < P; v++)
        for (int d = 0; d < 4; d++) {
            uint64_t w = kc_rng_below(rng, P);
            if (w != v)
                bad |= kc_traffic_add(tr, v, w, 1 + kc_rng_below(rng, 5000), NULL) != KC_OK;
        }
    free(p);
    return bad ? -1 : 0;
}

/* The Scotch graph of tr: pairs with the bytes of both directions summed,
 * each vertex's neighbours in increasing order (as libkcube builds it). */
static int write_grf(const kc_traffic *tr, const char *path)
{
    uint64_t P = tr->ranks;
    uint64_t *w = calloc(P * P, sizeof *w);
    FILE *f = fopen(path, "w");
    if (!w || !f) {
        free(w);
        if (f)
            fclose(f);
        return -1;
    }
    for (size_t m = 0; m < tr->count; m++)
        if (tr->src[m] != tr->dst[m] && tr->bytes[m]) {
            w[(uint64_t)tr->src[m] * P + tr->dst[m]] += tr->bytes[m];
            w[(uint64_t)tr->dst[m] * P + tr->src[m]] += tr->bytes[m];
        }
    uint64_t arcs = 0;
    for (uint64_t i = 0; i < P * P; i++)
        arcs += w[i] != 0;
    fprintf(f, "0\n%llu %llu\n0 010\n", (unsigned long long)P, (unsigned long long)arcs);
    for (uint64_t u = 0; u < P; u++) {
        int deg = 0;
        for (uint64_t v = 0; v < P; v++)
            deg += w[u * P + v] != 0;
        fprintf(f, "%d", deg);
        for (uint64_t v = 0; v < P; v++)
            if (w[u * P + v])
                fprintf(f, " %llu %llu", (unsigned long long)w[u * P + v], (unsigned long long)v);
        fprintf(f, "\n");
    }
    free(w);
    return fclose(f) ? -1 : 0;
}

/* Runs `tool grf tgt map` (no shell; its own output discarded). */
static int run_tool(const char *tool, const char *opt, const char *grf, const char *tgt, const char *map)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)tool, (char *)grf, (char *)tgt, (char *)map, (char *)opt, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, tool, &fa, NULL, argv, environ), status = 0;
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return -1;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* scotch_gmap's mapping (terminal numbers are kcube node ids here: Scotch
 * numbers the terminals of these targets axis 0 fastest, as kcube numbers
 * nodes, and hcub's bit i is coordinate i) counted exactly: tr renamed
 * through it, then the identity's cost. */
static int count_tool_map(const kc_topology *t, const kc_traffic *tr, const char *path, kc_cost *out)
{
    uint64_t P = tr->ranks;
    uint32_t *part = malloc(P * sizeof *part);
    FILE *f = fopen(path, "r");
    unsigned long long lines = 0, v, x;
    int bad = !part || !f || fscanf(f, "%llu", &lines) != 1 || lines != P;
    for (uint64_t i = 0; !bad && i < P; i++)
        bad = fscanf(f, "%llu %llu", &v, &x) != 2 || v >= P || x >= P || ((part[v] = (uint32_t)x), 0);
    if (f)
        fclose(f);
    kc_traffic rn;
    kc_chanload *cl = NULL;
    if (!bad && kc_traffic_init(&rn, P, NULL) == KC_OK) {
        for (size_t m = 0; m < tr->count && !bad; m++)
            bad = kc_traffic_add(&rn, part[tr->src[m]], part[tr->dst[m]], tr->bytes[m], NULL) != KC_OK;
        if (!bad && kc_chanload_new(&cl, t, &rn, NULL) == KC_OK)
            *out = kc_chanload_cost(cl);
        else
            bad = 1;
        kc_chanload_free(cl);
        kc_traffic_free(&rn);
    } else
        bad = 1;
    free(part);
    return bad ? -1 : 0;
}

static int lex(const kc_cost *a, const kc_cost *b)
{
    if (a->max != b->max)
        return a->max < b->max ? -1 : 1;
    return (a->hops > b->hops) - (a->hops < b->hops);
}

/* Writes the case's files, runs both mappers; fills the two costs and
 * times. Returns 0, or -1 when something failed (reported). */
static int run_case(const run_opts *o, const net *w, const kc_topology *t, const kc_traffic *tr, kc_cost *theirs,
                    kc_cost *ours, double *ts, double *tk)
{
    char grf[96], tgt[96], map[96];
    snprintf(grf, sizeof grf, "%s/case.grf", o->dir);
    snprintf(tgt, sizeof tgt, "%s/case.tgt", o->dir);
    snprintf(map, sizeof map, "%s/case.map", o->dir);
    FILE *f = fopen(tgt, "w");
    if (!f || fprintf(f, "%s\n", w->target) < 0 || fclose(f) || write_grf(tr, grf))
        return -1;
    double t0 = bench_now();
    if (run_tool(o->tool, o->tool_opt, grf, tgt, map) || count_tool_map(t, tr, map, theirs))
        return -1;
    *ts = bench_now() - t0;
    kc_mapgen_opts mo;
    kc_mapgen_opts_default(&mo);
    mo.search.budget_seconds = o->budget;
    kc_mapgen_result res;
    t0 = bench_now();
    kc_status st = kc_mapgen_run(t, tr, NULL, 0, &mo, &res, NULL);
    *tk = bench_now() - t0;
    if (!st)
        *ours = res.search.cost;
    for (int i = 0; !st && o->verbose && i < res.nstarts; i++)
        printf("      start %-12s %8llu %10llu%s\n", res.start_name[i], (unsigned long long)res.search.start_cost[i].max,
               (unsigned long long)res.search.start_cost[i].hops, i == res.search.best_start ? "  (searched from)" : "");
    kc_mapgen_result_free(&res);
    return st ? -1 : 0;
}

static int parse(int argc, char **argv, run_opts *o)
{
    o->cases = 112;
    o->first = 0;
    o->budget = 1.0;
    o->tool = "/usr/bin/scotch_gmap";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fail-on-loss"))
            o->fail_on_loss = 1;
        else if (!strcmp(argv[i], "--verbose"))
            o->verbose = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--cases"))
            o->cases = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--first"))
            o->first = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--budget"))
            o->budget = atof(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--scotch-gmap"))
            o->tool = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--scotch-opt"))
            o->tool_opt = argv[++i];
        else {
            fprintf(stderr, "usage: bench_gmap_scotch [--cases N] [--first I] [--scotch-gmap PATH] "
                            "[--scotch-opt OPT] [--budget SECONDS] [--fail-on-loss] [--verbose]\n");
            return -1;
        }
    }
    if (o->cases < 1 || o->cases > 1024 || o->first < 0)
        return -1;
    return 0;
}

/* Case i: network i mod NNETS, traffic kind (i / NNETS) mod NTRAFFICS,
 * drawn with seed i + 1. Prints its row and counts it. Returns -1 on a
 * failure. */
static int one_case(const run_opts *o, int i, tally *ty)
{
    const net *w = &NETS[i % NNETS];
    int kind = (i / NNETS) % NTRAFFICS;
    kc_topology t;
    kc_traffic tr;
    kc_rng rng;
    kc_rng_seed(&rng, (uint64_t)i + 1);
    if (make_topology(w, &t) || make_traffic(kind, t.nodes, &rng, &tr))
        return -1;
    kc_cost theirs = {0}, ours = {0};
    double ts = 0, tk = 0;
    int rc = run_case(o, w, &t, &tr, &theirs, &ours, &ts, &tk);
    kc_traffic_free(&tr);
    if (rc) {
        printf("%4d  %-20s %-10s  failed\n", i, w->name, TRAFFICS[kind]);
        return -1;
    }
    int c = lex(&ours, &theirs);
    const char *verdict = c < 0 ? "win" : c > 0 ? "LOSS" : "tie";
    ty->win += c < 0;
    ty->tie += c == 0;
    ty->loss += c > 0;
    ty->t_scotch[ty->timed] = ts;
    ty->t_kcube[ty->timed++] = tk;
    printf("%4d  %-20s %-10s %8llu %10llu   %8llu %10llu   %-4s %6.2f %6.2f\n", i, w->name, TRAFFICS[kind],
           (unsigned long long)theirs.max, (unsigned long long)theirs.hops, (unsigned long long)ours.max,
           (unsigned long long)ours.hops, verdict, ts, tk);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    run_opts o = {0};
    if (parse(argc, argv, &o))
        return 2;
    if (access(o.tool, X_OK) || !kc_scotch_available()) {
        printf("skipped: %s\n", kc_scotch_available() ? "scotch_gmap not found" : "kcube built without Scotch");
        return 77;
    }
    snprintf(o.dir, sizeof o.dir, "/tmp/kc_gmap_scotch.XXXXXX");
    if (!mkdtemp(o.dir))
        return 1;
    static tally ty;
    int failed = 0;
    printf("case  network              traffic     scotch_gmap max/hops   kcube max/hops       result "
           "s_gmap kcube_s\n");
    for (int i = o.first; i < o.first + o.cases; i++)
        failed |= one_case(&o, i, &ty) != 0;
    char path[96];
    const char *names[] = {"case.grf", "case.tgt", "case.map"};
    for (int j = 0; j < 3; j++) {
        snprintf(path, sizeof path, "%s/%s", o.dir, names[j]);
        unlink(path);
    }
    rmdir(o.dir);
    int timed = ty.timed ? ty.timed : 1;
    printf("total: %d cases, %d wins, %d ties, %d losses; median seconds: scotch_gmap %.3f, kcube %.3f%s\n",
           ty.win + ty.tie + ty.loss, ty.win, ty.tie, ty.loss, bench_median(ty.t_scotch, timed),
           bench_median(ty.t_kcube, timed), failed ? " (some cases failed)" : "");
    return failed || (o.fail_on_loss && ty.loss) ? 1 : 0;
}
