/* scotchmap.c - Scotch's static mapping as a start and a baseline for the
 * general mapper (kcube/scotchmap.h; docs/traffic.md).
 *
 * Built with KC_HAVE_SCOTCH when CMake finds libscotch; without it the
 * functions below say so. Three points need care:
 *   - numbering: Scotch's terminal-domain numbers are converted to kcube
 *     node ids by kci_scotch_term_node, and every call checks, through
 *     SCOTCH_archDomDist, that kcube neighbours are at distance 1 in Scotch's
 *     target; a mismatch is KC_EINTERNAL, never a silently bad mapping;
 *   - determinism: libscotch keeps a process-wide random generator. The map
 *     runs in a Scotch context with a private clone of that generator,
 *     seeded with the caller's seed itself, in deterministic mode and one
 *     thread, so the global generator is neither used nor changed and the
 *     same seed gives the same mapping;
 *   - fidelity: with seed 1 (kcube's default, and the seed
 *     Scotch's own generator starts from) and the target classes that
 *     scotch_gmap builds from "hcub n", "torus2D/3D", "mesh2D/3D", the
 *     mapping is the one `scotch_gmap -Cd` writes for the same graph
 *     (tests/cli_scotch_gmap.sh);
 *   - printing: libscotch reports errors through SCOTCH_errorPrint(W),
 *     which libscotcherr implements by printing to stderr. libkcube never
 *     prints, so it links libscotch alone and defines both hooks here as
 *     silent functions; failures are reported through kc_err by the calling
 *     function's name. */
#include <stdlib.h>
#include <string.h>

#include "kcube/scotchmap.h"
#include "scotch_internal.h"

#define MAX_SCOTCH_AXES 5 /* Scotch's torusX / meshX limit (ARCHMESHDIMNMAX) */

kc_status kci_scotch_target(const kc_topology *t, kci_scotch_tgt *tg, kc_err *err)
{
    int binary = 1;
    for (int i = 0; i < t->n; i++) {
        binary &= t->side[i] == 2;
        tg->dims[i] = t->side[i];
    }
    if (binary) {
        tg->kind = KCI_SCOTCH_HCUB;
        tg->name = "hcub";
    } else if (t->kind == KC_TOPO_MESH) {
        tg->kind = KCI_SCOTCH_MESH;
        tg->name = t->n == 3 ? "mesh3D" : "mesh2D";
        if (t->n > 3)
            return kc_fail_param(err, KC_EINVAL, "scotch",
                                 "Scotch has no mesh target of %d axes (its meshXD measures distances around a "
                                 "torus)", t->n);
    } else {
        /* torus2D / torus3D, not torusXD, for 2 and 3 axes: the same network,
         * but Scotch bipartitions the two classes' domains differently and
         * gives different mappings; a user of scotch_gmap writes "torus3D 4
         * 4 4", so these are the classes to reproduce. */
        tg->kind = KCI_SCOTCH_TORUS;
        tg->name = t->n == 2 ? "torus2D" : t->n == 3 ? "torus3D" : "torusXD";
        if (t->n > MAX_SCOTCH_AXES)
            return kc_fail_param(err, KC_EINVAL, "scotch",
                                 "Scotch's torus target has at most %d axes, this torus has %d", MAX_SCOTCH_AXES,
                                 t->n);
    }
    return KC_OK;
}

uint64_t kci_scotch_term_node(const kc_topology *t, const int *dims, uint64_t term)
{
    uint64_t node = 0, stride = 1;
    for (int i = 0; i < t->n; i++) {
        uint64_t c = term % (uint64_t)dims[i]; /* Scotch: axis 0 fastest */
        term /= (uint64_t)dims[i];
        node += c * stride; /* kcube: x = x_0 + s_0 (x_1 + ...) */
        stride *= (uint64_t)t->side[i];
    }
    return node;
}

kc_status kc_scotch_map(const kc_topology *t, const kc_traffic *tr, uint64_t seed, uint32_t *to_physical,
                        kc_err *err)
{
    return kc_scotch_map_info(t, tr, seed, to_physical, NULL, err);
}

#ifndef KC_HAVE_SCOTCH

int kc_scotch_available(void) { return 0; }
const char *kc_scotch_version(void) { return NULL; }
int kc_scotch_graph_target(const kc_topology *t)
{
    (void)t;
    return 0;
}

kc_status kc_scotch_map_info(const kc_topology *t, const kc_traffic *tr, uint64_t seed, uint32_t *to_physical,
                             kc_scotch_info *info, kc_err *err)
{
    return kc_fail_param(err, KC_EINVAL, "scotch", "this kcube was built without Scotch (libscotch-dev)");
}

kc_status kc_scotch_map_tool(const kc_topology *t, const kc_traffic *tr, uint64_t seed, uint32_t *to_physical,
                             kc_scotch_info *info, kc_err *err)
{
    return kc_scotch_map_info(t, tr, seed, to_physical, info, err);
}

#else


/* The error hooks libscotch calls (see the top of this file): silent. */
void SCOTCH_errorPrint(const char *const fmt, ...) { (void)fmt; }
void SCOTCH_errorPrintW(const char *const fmt, ...) { (void)fmt; }

int kc_scotch_available(void) { return 1; }

const char *kc_scotch_version(void)
{
#define KC_STR2(x) #x
#define KC_STR(x) KC_STR2(x)
    return KC_STR(SCOTCH_VERSION) "." KC_STR(SCOTCH_RELEASE) "." KC_STR(SCOTCH_PATCHLEVEL);
}

kc_status kci_scotch_arch(const kc_topology *t, const kci_scotch_tgt *tg, SCOTCH_Arch *arch, kc_err *err)
{
    if (SCOTCH_archInit(arch))
        return kc_fail_param(err, KC_EINTERNAL, "scotch", "SCOTCH_archInit failed");
    SCOTCH_Num d[MAX_SCOTCH_AXES] = {1, 1, 1, 1, 1};
    for (int i = 0; i < t->n && i < MAX_SCOTCH_AXES; i++)
        d[i] = tg->dims[i];
    int bad = tg->kind == KCI_SCOTCH_HCUB    ? SCOTCH_archHcub(arch, t->n)
              : tg->kind == KCI_SCOTCH_TORUS ? (t->n == 2   ? SCOTCH_archTorus2(arch, d[0], d[1])
                                                : t->n == 3 ? SCOTCH_archTorus3(arch, d[0], d[1], d[2])
                                                            : SCOTCH_archTorusX(arch, t->n, d))
              : t->n == 3                    ? SCOTCH_archMesh3(arch, d[0], d[1], d[2])
                                             : SCOTCH_archMesh2(arch, d[0], d[1]);
    if (bad) {
        SCOTCH_archExit(arch);
        return kc_fail_param(err, KC_EINVAL, "scotch", "Scotch cannot build its %s target for %d axes", tg->name,
                             t->n);
    }
    return KC_OK;
}

/* Scotch's distance between the terminals of nodes x and y. */
static SCOTCH_Num term_dist(SCOTCH_Arch *arch, SCOTCH_ArchDom *da, SCOTCH_ArchDom *db, const uint32_t *node_term,
                            uint64_t x, uint64_t y)
{
    SCOTCH_archDomTerm(arch, da, (SCOTCH_Num)node_term[x]);
    SCOTCH_archDomTerm(arch, db, (SCOTCH_Num)node_term[y]);
    return SCOTCH_archDomDist(arch, da, db);
}

/* term_node[] for every terminal, checked: a bijection; every kcube link
 * joins terminals at Scotch distance 1; the two ends of each axis are as far
 * apart as in kcube (side - 1 on a line, 1 around a ring). O(P n). */
static kc_status numbering(const kc_topology *t, const kci_scotch_tgt *tg, SCOTCH_Arch *arch, uint32_t *term_node,
                           kc_err *err)
{
    const int *dims = tg->dims;
    kci_scotch_kind kind = tg->kind;
    const char *name = tg->name;
    kc_status s = KC_OK;
    uint64_t P = t->nodes;
    uint32_t *node_term = malloc(P * sizeof *node_term);
    SCOTCH_ArchDom *dom = malloc(2 * (size_t)SCOTCH_archDomSizeof());
    if (!node_term || !dom) {
        free(node_term);
        free(dom);
        return kc_fail(err, KC_ENOMEM, "out of memory for %llu terminals", (unsigned long long)P);
    }
    SCOTCH_ArchDom *da = dom, *db = (SCOTCH_ArchDom *)((char *)dom + SCOTCH_archDomSizeof());
    memset(node_term, 0xff, P * sizeof *node_term);
    for (uint64_t a = 0; a < P && !s; a++) {
        term_node[a] = (uint32_t)kci_scotch_term_node(t, dims, a);
        if (term_node[a] >= P || node_term[term_node[a]] != UINT32_MAX)
            s = kc_fail(err, KC_EINTERNAL, "Scotch terminal %llu has no node of its own", (unsigned long long)a);
        else
            node_term[term_node[a]] = (uint32_t)a;
    }
    uint64_t stride = 1;
    for (int i = 0; i < t->n && !s; i++) {
        uint64_t far = (uint64_t)(t->side[i] - 1);
        SCOTCH_Num want = kind == KCI_SCOTCH_MESH ? (SCOTCH_Num)far : 1;
        if (term_dist(arch, da, db, node_term, 0, far * stride) != want)
            s = kc_fail(err, KC_EINTERNAL, "Scotch's %s target measures axis %d unlike kcube", name, i);
        stride *= (uint64_t)t->side[i];
    }
    for (uint64_t x = 0; x < P && !s; x++)
        for (int i = 0; i < t->n && !s; i++) {
            uint64_t y = kc_topology_link_to(t, (kc_link){x, i, +1});
            if (y != UINT64_MAX && y != x && term_dist(arch, da, db, node_term, x, y) != 1)
                s = kc_fail(err, KC_EINTERNAL, "Scotch's %s target does not join nodes %llu and %llu", name,
                            (unsigned long long)x, (unsigned long long)y);
        }
    free(node_term);
    free(dom);
    return s;
}

/* The source graph, CSR with base 0: both directions of each pair. */
typedef struct csr {
    SCOTCH_Num *vert, *edge, *load;
    SCOTCH_Num arcs;
} csr;

typedef struct pairw {
    uint32_t u, v;
    uint64_t w;
} pairw;

static int cmp_pair(const void *a, const void *b)
{
    const pairw *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Unordered pairs with their summed bytes (self and empty messages dropped),
 * sorted; *count gets their number. */
static kc_status merged_pairs(const kc_traffic *tr, pairw **out, size_t *count, kc_err *err)
{
    pairw *p = malloc((tr->count ? tr->count : 1) * sizeof *p);
    if (!p)
        return kc_fail(err, KC_ENOMEM, "out of memory for %zu messages", tr->count);
    size_t n = 0;
    for (size_t m = 0; m < tr->count; m++) {
        uint32_t a = tr->src[m], b = tr->dst[m];
        if (a != b && tr->bytes[m])
            p[n++] = (pairw){a < b ? a : b, a < b ? b : a, tr->bytes[m]};
    }
    qsort(p, n, sizeof *p, cmp_pair);
    size_t k = 0;
    for (size_t m = 0; m < n; m++) {
        if (k && p[k - 1].u == p[m].u && p[k - 1].v == p[m].v)
            p[k - 1].w = p[k - 1].w > UINT64_MAX - p[m].w ? UINT64_MAX : p[k - 1].w + p[m].w;
        else
            p[k++] = p[m];
    }
    *out = p;
    *count = k;
    return KC_OK;
}

/* SCOTCH_Num is 32 bits in Debian's build and Scotch adds edge weights up
 * internally: when the weights of all arcs add up to more than 2^30 they are
 * scaled down in proportion (each kept >= 1). Only the start is affected:
 * kcube evaluates every mapping with its own exact counter. */
#define WEIGHT_BUDGET 1073741824.0L

static kc_status build_csr(const kc_traffic *tr, uint64_t P, csr *g, kc_err *err)
{
    pairw *p = NULL;
    size_t E = 0;
    kc_status s = merged_pairs(tr, &p, &E, err);
    if (s)
        return s;
    if (E > (size_t)SCOTCH_NUMMAX / 2) {
        free(p);
        return kc_fail_param(err, KC_ERANGE, "traffic", "%zu communicating pairs: more than Scotch's %d arcs", E,
                             SCOTCH_NUMMAX);
    }
    long double total = 0;
    for (size_t e = 0; e < E; e++)
        total += 2.0L * (long double)p[e].w;
    long double scale = total > WEIGHT_BUDGET ? WEIGHT_BUDGET / total : 1.0L;
    g->arcs = (SCOTCH_Num)(2 * E);
    g->vert = calloc(P + 1, sizeof *g->vert);
    g->edge = malloc((2 * E + 1) * sizeof *g->edge);
    g->load = malloc((2 * E + 1) * sizeof *g->load);
    SCOTCH_Num *fill = malloc((P + 1) * sizeof *fill);
    if (!g->vert || !g->edge || !g->load || !fill) {
        free(p);
        free(fill);
        return kc_fail(err, KC_ENOMEM, "out of memory for Scotch's graph (%zu pairs)", E);
    }
    for (size_t e = 0; e < E; e++) {
        g->vert[p[e].u + 1]++;
        g->vert[p[e].v + 1]++;
    }
    for (uint64_t v = 0; v < P; v++)
        g->vert[v + 1] += g->vert[v];
    memcpy(fill, g->vert, (P + 1) * sizeof *fill);
    for (size_t e = 0; e < E; e++) {
        long double w = (long double)p[e].w * scale;
        SCOTCH_Num load = w < 1.0L ? 1 : (SCOTCH_Num)w;
        g->edge[fill[p[e].u]] = (SCOTCH_Num)p[e].v;
        g->load[fill[p[e].u]++] = load;
        g->edge[fill[p[e].v]] = (SCOTCH_Num)p[e].u;
        g->load[fill[p[e].v]++] = load;
    }
    free(p);
    free(fill);
    return KC_OK;
}

/* SCOTCH_graphMap in a private context: cloned random generator seeded
 * from `seed`, one thread (see the top of the file), in Scotch's
 * deterministic mode or, deterministic = 0, in the mode scotch_gmap runs
 * in by default (the two modes take different paths in Scotch and give
 * different mappings; with one thread both are repeatable). */
static kc_status run_map(SCOTCH_Graph *graph, SCOTCH_Arch *arch, uint64_t seed, int deterministic, SCOTCH_Num *part,
                         kc_err *err)
{
    SCOTCH_Context ctx;
    SCOTCH_Graph bound;
    SCOTCH_Strat strat;
    const char *failed = NULL;
    if (SCOTCH_contextInit(&ctx))
        return kc_fail_param(err, KC_EINTERNAL, "scotch", "SCOTCH_contextInit failed");
    if (SCOTCH_contextRandomClone(&ctx))
        failed = "SCOTCH_contextRandomClone";
    else if (SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, deterministic) ||
             SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1))
        failed = "SCOTCH_contextOptionSetNum";
    else if (SCOTCH_contextThreadSpawn(&ctx, 1, NULL))
        failed = "SCOTCH_contextThreadSpawn";
    if (!failed) {
        SCOTCH_contextRandomSeed(&ctx, (SCOTCH_Num)(seed & (uint64_t)SCOTCH_NUMMAX));
        if (SCOTCH_contextBindGraph(&ctx, graph, &bound))
            failed = "SCOTCH_contextBindGraph";
    }
    if (!failed) {
        SCOTCH_stratInit(&strat);
        if (SCOTCH_graphMap(&bound, arch, &strat, part))
            failed = "SCOTCH_graphMap";
        SCOTCH_stratExit(&strat);
        SCOTCH_graphExit(&bound);
    }
    SCOTCH_contextExit(&ctx);
    if (failed)
        return kc_fail_param(err, KC_EINTERNAL, "scotch", "%s failed", failed);
    return KC_OK;
}

/* Hops between nodes a and b on t (rings the short way, lines straight). */
static uint64_t node_hops(const kc_topology *t, uint64_t a, uint64_t b)
{
    uint64_t h = 0;
    for (int i = 0; i < t->n; i++) {
        unsigned ca = kc_topology_coord(t, a, i), cb = kc_topology_coord(t, b, i);
        unsigned d = ca > cb ? ca - cb : cb - ca, k = (unsigned)t->side[i];
        h += !kc_topology_wraps(t, i) || 2 * d <= k ? d : k - d;
    }
    return h;
}

#define REPAIR_NEAREST_MAX ((uint64_t)1 << 26) /* displaced x free pairs priced */

/* The untaken entry of free_nodes[0..nfree) nearest to node `want` (ties:
 * the first), or the first untaken one when want is UINT64_MAX or the
 * pairs are not priced. */
static size_t nearest_free(const kc_topology *t, const uint32_t *free_nodes, const unsigned char *taken, size_t nfree,
                           uint64_t want, int price)
{
    size_t best = 0;
    uint64_t best_h = UINT64_MAX;
    for (size_t f = 0; f < nfree; f++) {
        if (taken[f])
            continue;
        uint64_t h = want == UINT64_MAX || !price ? 0 : node_hops(t, want, free_nodes[f]);
        if (h < best_h) {
            best = f;
            best_h = h;
            if (h == 0)
                break;
        }
    }
    return best;
}

kc_status kci_scotch_to_nodes(const kc_topology *t, const SCOTCH_Num *part, const uint32_t *term_node,
                              uint32_t *to_physical, uint64_t *repaired, kc_err *err)
{
    uint64_t P = t->nodes;
    unsigned char *used = calloc(P, 1), *taken = calloc(P, 1);
    uint32_t *free_nodes = malloc(P * sizeof *free_nodes);
    if (!used || !taken || !free_nodes) {
        free(used);
        free(taken);
        free(free_nodes);
        return kc_fail(err, KC_ENOMEM, "out of memory for %llu nodes", (unsigned long long)P);
    }
    uint64_t displaced = 0;
    for (uint64_t v = 0; v < P; v++) {
        int valid = part[v] >= 0 && (uint64_t)part[v] < P;
        if (valid && !used[part[v]]) {
            used[part[v]] = 1;
            to_physical[v] = term_node[part[v]];
        } else {
            to_physical[v] = valid ? UINT32_MAX - 1 : UINT32_MAX; /* placed below */
            displaced++;
        }
    }
    size_t nfree = 0;
    for (uint64_t x = 0; x < P; x++)
        if (!used[x])
            free_nodes[nfree++] = term_node[x];
    int price = displaced * nfree <= REPAIR_NEAREST_MAX;
    for (uint64_t v = 0; v < P && displaced; v++) {
        if (to_physical[v] < UINT32_MAX - 1)
            continue;
        uint64_t want = to_physical[v] == UINT32_MAX ? UINT64_MAX : term_node[part[v]];
        size_t f = nearest_free(t, free_nodes, taken, nfree, want, price);
        taken[f] = 1;
        to_physical[v] = free_nodes[f];
    }
    *repaired = displaced;
    free(used);
    free(taken);
    free(free_nodes);
    return KC_OK;
}


/* ---- general networks: routers first, then their endpoints ---------------- */

/* The Scotch target of a general network's routers and how its terminals
 * number slot blocks (block b = slots b C .. b C + C - 1, on router
 * kc_topology_slot_router(t, b C)). base is the class target a sub-target
 * points into (kept alive while arch is used); router is the router graph
 * a decomposition-defined target is built from. */
typedef struct gen_target {
    SCOTCH_Arch base, arch;
    int has_base, has_arch, has_graph;
    SCOTCH_Graph router;
    csr rg;
    uint32_t *block; /* block[term] */
    uint64_t terms;
    const char *name;
} gen_target;

/* The routers as a network Scotch has a class for: C = 1, no allocation,
 * side-2 axes taken as rings or lines as the longer ones are (their one
 * channel each way is the same network either way). 0 when the longer
 * axes mix rings and lines. */
static int router_grid(const kc_topology *t, kc_topology *r)
{
    *r = *t;
    r->endpoints = 1;
    r->alloc = NULL;
    r->alloc_count = 0;
    int ring = -1;
    for (int i = 0; i < t->n; i++)
        if (t->side[i] > 2) {
            if (ring >= 0 && ring != kc_topology_wraps(t, i))
                return 0;
            ring = kc_topology_wraps(t, i);
        }
    uint64_t all = t->n >= 64 ? UINT64_MAX : ((uint64_t)1 << t->n) - 1;
    return kc_topology_set_wrap(r, ring == 0 ? 0 : all, NULL) == KC_OK;
}

/* A class target (torus, mesh, hcub) of the routers; with an allocation,
 * Scotch's sub-target of its routers (terminal j = allocation entry j). */
static kc_status class_target(const kc_topology *t, const kc_topology *r, const kci_scotch_tgt *tg, gen_target *g,
                              kc_err *err)
{
    uint64_t R = r->nodes;
    uint32_t *term_node = malloc(R * sizeof *term_node);
    if (!term_node)
        return kc_fail(err, KC_ENOMEM, "out of memory for %llu routers", (unsigned long long)R);
    kc_status s = kci_scotch_arch(r, tg, &g->base, err);
    g->has_base = !s;
    if (!s)
        s = numbering(r, tg, &g->base, term_node, err);
    if (s || !t->alloc) {
        g->block = term_node; /* without an allocation a router is its own block */
        g->terms = R;
        g->name = tg->name;
        return s;
    }
    SCOTCH_Num *list = malloc((size_t)t->alloc_count * sizeof *list);
    uint32_t *node_term = malloc(R * sizeof *node_term);
    g->block = malloc((size_t)t->alloc_count * sizeof *g->block);
    if (!list || !node_term || !g->block)
        s = kc_fail(err, KC_ENOMEM, "out of memory for the allocation's terminals");
    for (uint64_t a = 0; !s && a < R; a++)
        node_term[term_node[a]] = (uint32_t)a;
    for (uint32_t j = 0; !s && j < t->alloc_count; j++) {
        list[j] = (SCOTCH_Num)node_term[t->alloc[j]];
        g->block[j] = j;
    }
    if (!s && (SCOTCH_archInit(&g->arch) || SCOTCH_archSub(&g->arch, &g->base, (SCOTCH_Num)t->alloc_count, list)))
        s = kc_fail_param(err, KC_EINTERNAL, "scotch", "SCOTCH_archSub failed");
    g->has_arch = !s;
    g->terms = t->alloc_count;
    g->name = "sub";
    free(list);
    free(node_term);
    free(term_node);
    return s;
}

/* The router graph (links of t, each neighbour once) as a CSR. */
static kc_status router_csr(const kc_topology *t, csr *g, kc_err *err)
{
    uint64_t R = t->nodes;
    g->vert = malloc((R + 1) * sizeof *g->vert);
    g->edge = malloc((2 * (size_t)t->n * R + 1) * sizeof *g->edge);
    if (!g->vert || !g->edge)
        return kc_fail(err, KC_ENOMEM, "out of memory for the router graph");
    SCOTCH_Num e = 0;
    for (uint64_t x = 0; x < R; x++) {
        g->vert[x] = e;
        for (int i = 0; i < t->n; i++)
            for (int dir = 1; dir >= -1; dir -= 2) {
                uint64_t y = kc_topology_link_to(t, (kc_link){x, i, dir});
                if (y == UINT64_MAX || y == x || (dir < 0 && e > g->vert[x] && g->edge[e - 1] == (SCOTCH_Num)y))
                    continue;
                g->edge[e++] = (SCOTCH_Num)y;
            }
    }
    g->vert[R] = e;
    g->arcs = e;
    return KC_OK;
}

/* Any other network: Scotch's decomposition-defined target built from the
 * router graph, restricted to the allocation (terminal j = its entry j). */
static kc_status deco_target(const kc_topology *t, gen_target *g, kc_err *err)
{
    uint64_t R = t->nodes, count = t->alloc ? t->alloc_count : R;
    kc_topology r = *t;
    r.alloc = NULL;
    kc_status s = router_csr(&r, &g->rg, err);
    SCOTCH_Num *list = malloc(count * sizeof *list);
    g->block = malloc(count * sizeof *g->block);
    if (!s && (!list || !g->block))
        s = kc_fail(err, KC_ENOMEM, "out of memory for the target's terminals");
    for (uint64_t j = 0; !s && j < count; j++) {
        list[j] = (SCOTCH_Num)(t->alloc ? t->alloc[j] : j);
        g->block[j] = (uint32_t)j;
    }
    if (!s && (SCOTCH_graphInit(&g->router) ||
               (g->has_graph = 1, SCOTCH_graphBuild(&g->router, 0, (SCOTCH_Num)R, g->rg.vert, NULL, NULL, NULL,
                                                    g->rg.arcs, g->rg.edge, NULL))))
        s = kc_fail_param(err, KC_EINTERNAL, "scotch", "SCOTCH_graphBuild failed for the router graph");
    if (!s && (SCOTCH_archInit(&g->arch) || SCOTCH_archBuild2(&g->arch, &g->router, (SCOTCH_Num)count, list)))
        s = kc_fail_param(err, KC_EINTERNAL, "scotch", "SCOTCH_archBuild2 failed");
    g->has_arch = !s;
    g->terms = count;
    g->name = "deco";
    free(list);
    return s;
}

int kc_scotch_graph_target(const kc_topology *t)
{
    kc_topology r;
    kci_scotch_tgt tg;
    kc_err quiet = {0};
    return !(router_grid(t, &r) && kci_scotch_target(&r, &tg, &quiet) == KC_OK);
}

static void gen_target_free(gen_target *g)
{
    if (g->has_arch)
        SCOTCH_archExit(&g->arch);
    if (g->has_base)
        SCOTCH_archExit(&g->base);
    if (g->has_graph)
        SCOTCH_graphExit(&g->router);
    free(g->rg.vert);
    free(g->rg.edge);
    free(g->block);
}

static SCOTCH_Arch *gen_arch(gen_target *g) { return g->has_arch ? &g->arch : &g->base; }

/* Ranks onto slots: rank v takes the next free endpoint of the block
 * Scotch gave it; ranks of a full block (Scotch balances within about 1 %)
 * take a free slot whose router is nearest in hops, the first one when too
 * many would be priced; silent ranks fill what is left in order. */
static kc_status blocks_to_slots(const kc_topology *t, const gen_target *g, const SCOTCH_Num *part, uint64_t ranks,
                                 uint32_t *to_physical, uint64_t *repaired, kc_err *err)
{
    uint64_t C = (uint64_t)kc_topology_conc(t), S = kc_topology_slots(t);
    uint32_t *used = calloc(S / C, sizeof *used);
    unsigned char *taken = calloc(S, 1);
    if (!used || !taken) {
        free(used);
        free(taken);
        return kc_fail(err, KC_ENOMEM, "out of memory for %llu slots", (unsigned long long)S);
    }
    uint64_t displaced = 0, nfree = S;
    for (uint64_t v = 0; v < ranks; v++) {
        int valid = part[v] >= 0 && (uint64_t)part[v] < g->terms;
        uint32_t b = valid ? g->block[part[v]] : 0;
        if (valid && used[b] < C) {
            to_physical[v] = (uint32_t)(b * C + used[b]++);
            taken[to_physical[v]] = 1;
            nfree--;
        } else {
            to_physical[v] = UINT32_MAX;
            displaced++;
        }
    }
    int price = displaced * nfree <= REPAIR_NEAREST_MAX;
    for (uint64_t v = 0, next = 0; v < S; v++) {
        if (v < ranks && to_physical[v] != UINT32_MAX)
            continue;
        uint64_t best = UINT64_MAX, best_h = UINT64_MAX;
        int want = v < ranks && price && part[v] >= 0 && (uint64_t)part[v] < g->terms;
        uint64_t from = want ? kc_topology_slot_router(t, (uint64_t)g->block[part[v]] * C) : 0;
        for (uint64_t x = want ? 0 : next; x < S && best_h; x++)
            if (!taken[x]) {
                uint64_t h = want ? node_hops(t, from, kc_topology_slot_router(t, x)) : 0;
                if (h < best_h) {
                    best = x;
                    best_h = h;
                }
            }
        if (!want)
            next = best;
        taken[best] = 1;
        to_physical[v] = (uint32_t)best;
    }
    *repaired = displaced;
    free(used);
    free(taken);
    return KC_OK;
}

/* Scotch's part[v] (a terminal) for the P ranks of tr on arch: the source
 * graph built, mapped and freed. */
static kc_status map_ranks(const kc_traffic *tr, uint64_t P, SCOTCH_Arch *arch, uint64_t seed, int deterministic,
                           SCOTCH_Num *part, kc_err *err)
{
    csr g = {0};
    SCOTCH_Graph graph;
    int built = 0;
    kc_status s = build_csr(tr, P, &g, err);
    if (!s && (SCOTCH_graphInit(&graph) ||
               (built = 1, SCOTCH_graphBuild(&graph, 0, (SCOTCH_Num)P, g.vert, NULL, NULL, NULL, g.arcs, g.edge,
                                             g.load))))
        s = kc_fail_param(err, KC_EINTERNAL, "scotch", "SCOTCH_graphBuild failed");
    if (!s && P)
        s = run_map(&graph, arch, seed, deterministic, part, err);
    if (built)
        SCOTCH_graphExit(&graph);
    free(g.vert);
    free(g.edge);
    free(g.load);
    return s;
}

/* Scotch on a general network (kcube/scotchmap.h): map the ranks onto the
 * routers (C to a router), then onto their endpoints. */
static kc_status map_general(const kc_topology *t, const kc_traffic *tr, uint64_t seed, int deterministic,
                             uint32_t *to_physical, kc_scotch_info *info, kc_err *err)
{
    uint64_t P = tr->ranks, S = kc_topology_slots(t);
    if (P > S)
        return kc_fail_param(err, KC_EINVAL, "traffic", "traffic has %llu ranks, the topology %llu slots",
                             (unsigned long long)P, (unsigned long long)S);
    if (S > (uint64_t)SCOTCH_NUMMAX || S > UINT32_MAX || t->nodes > (uint64_t)SCOTCH_NUMMAX)
        return kc_fail_param(err, KC_ERANGE, "scotch", "%llu slots: more than Scotch maps here",
                             (unsigned long long)S);
    gen_target g = {0};
    kc_topology r;
    kci_scotch_tgt tg;
    kc_err quiet = {0};
    kc_status s = router_grid(t, &r) && kci_scotch_target(&r, &tg, &quiet) == KC_OK ? class_target(t, &r, &tg, &g, err)
                                                                                   : deco_target(t, &g, err);
    SCOTCH_Num *part = malloc((P ? P : 1) * sizeof *part);
    uint64_t repaired = 0;
    if (!s && !part)
        s = kc_fail(err, KC_ENOMEM, "out of memory for %llu ranks", (unsigned long long)P);
    if (!s)
        s = map_ranks(tr, P, gen_arch(&g), seed, deterministic, part, err);
    if (!s)
        s = blocks_to_slots(t, &g, part, P, to_physical, &repaired, err);
    if (!s && info) {
        info->target = g.name;
        info->repaired = repaired;
    }
    gen_target_free(&g);
    free(part);
    return s;
}

/* kc_scotch_map_info (deterministic = 1) and kc_scotch_map_tool (0). */
static kc_status map_in_mode(const kc_topology *t, const kc_traffic *tr, uint64_t seed, int deterministic,
                             uint32_t *to_physical, kc_scotch_info *info, kc_err *err)
{
    uint64_t P = t->nodes;
    if (!kc_topology_is_plain(t))
        return map_general(t, tr, seed, deterministic, to_physical, info, err);
    if (tr->ranks != P)
        return kc_fail_param(err, KC_EINVAL, "traffic", "traffic has %llu ranks, the topology %llu nodes",
                             (unsigned long long)tr->ranks, (unsigned long long)P);
    if (P > (uint64_t)SCOTCH_NUMMAX || P > UINT32_MAX)
        return kc_fail_param(err, KC_ERANGE, "scotch", "%llu nodes: more than Scotch maps here",
                             (unsigned long long)P);
    SCOTCH_Arch arch;
    kci_scotch_tgt tg;
    kc_status s = kci_scotch_target(t, &tg, err);
    if (!s)
        s = kci_scotch_arch(t, &tg, &arch, err);
    if (s)
        return s;
    uint32_t *term_node = malloc(P * sizeof *term_node);
    SCOTCH_Num *part = malloc(P * sizeof *part);
    uint64_t repaired = 0;
    if (!term_node || !part)
        s = kc_fail(err, KC_ENOMEM, "out of memory for %llu nodes", (unsigned long long)P);
    if (!s)
        s = numbering(t, &tg, &arch, term_node, err);
    if (!s)
        s = map_ranks(tr, P, &arch, seed, deterministic, part, err);
    if (!s)
        s = kci_scotch_to_nodes(t, part, term_node, to_physical, &repaired, err);
    if (!s && info) {
        info->target = tg.name;
        info->repaired = repaired;
    }
    SCOTCH_archExit(&arch);
    free(term_node);
    free(part);
    return s;
}

kc_status kc_scotch_map_info(const kc_topology *t, const kc_traffic *tr, uint64_t seed, uint32_t *to_physical,
                             kc_scotch_info *info, kc_err *err)
{
    return map_in_mode(t, tr, seed, 1, to_physical, info, err);
}

kc_status kc_scotch_map_tool(const kc_topology *t, const kc_traffic *tr, uint64_t seed, uint32_t *to_physical,
                             kc_scotch_info *info, kc_err *err)
{
    return map_in_mode(t, tr, seed, 0, to_physical, info, err);
}
#endif
