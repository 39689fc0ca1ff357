/* gmap.c - the general mapper of kcube/gmap.h: evaluate the starts, then
 * a sweep of block reflections, descent, annealing and a final descent,
 * every candidate one exactly evaluated counter move. */
#include "kcube/gmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "gmap_internal.h"
#include "kcube/rng.h"

#define HOT_CAP 4096        /* most pairs kept on the hot list */
#define STALL_PER_NODE 40   /* a descent gives up after 40 N + 1000 failures in a row */
#define PHASE0_END 0.30
#define PHASE1_END 0.40
#define PHASE2_END 0.65
#define PHASE3_END 0.97
#define T_END_RATIO 1e-3
#define CAP_WEIGHT 16.0     /* annealing energy per byte-hop above the hops cap */
#define MAX_WEIGHT 4.0      /* annealing energy: sumsq + 4 max^2 (tried 0, 4, N: 4 best) */
#define HOPS_MAX_PENALTY 8.0 /* hops phase: energy per byte of max load above the best's, in byte-hops */
#define HOPS_T0_FRACTION 0.02 /* hops phase: first temperature / mean rise (tried 1, 0.1, 0.02, 0.005) */
#define BLOCK_NODES 4096    /* most nodes a block move reflects */

typedef struct search {
    kc_chanload *cl;
    const kc_topology *t;   /* the slots as a grid (kci_slot_grid): geometry of the moves */
    const kc_topology *net; /* the network counted (hops of a pair) */
    kc_topology grid;
    kc_rng rng;
    uint32_t nodes;
    size_t pairs;
    uint64_t work, iters, accepted, work_limit, iter_limit;
    double wall_cap, t_start;
    int stopped_by_wall;
    kc_cost best;
    uint32_t *best_map;
    double unit2; /* squared mean pair weight: normalises the energy */
    uint32_t *hot;
    size_t nhot;
    size_t hot_channel;
    uint64_t hot_work;
    const kc_progress *progress;
    uint64_t stride[KC_TOPO_MAX_DIMS];
    uint32_t *tx, *ty; /* the candidate move's node transpositions */
    size_t nt;
    kc_status status; /* a failure inside the search (KC_ENOMEM) */
    kc_err err;
    int hops_moves; /* the hops phase: no hot-list candidates; pairs drawn by bytes x hops */
    int blocks; /* block moves allowed (descents only: annealing at high
                 * temperature would take them as large random jumps) */
    uint64_t hops_cap; /* the hops of opts.hops_cap_start's start; 0 none */
    uint64_t max_bound; /* with a cap: the least max load of any start */
    uint64_t max_floor; /* a lower bound of the max load: the heaviest ordered pair (0: none known) */
    kc_cost seen;       /* with a cap: the best visited by the plain objective */
} search;

void kc_gmap_opts_default(kc_gmap_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->budget_seconds = 1.0;
    o->hops_cap_start = -1;
}

/* Fraction of the budget used: the larger of the two kinds. */
static double used(const search *s)
{
    double f = 0;
    if (s->work_limit)
        f = (double)s->work / (double)s->work_limit;
    if (s->iter_limit && (double)s->iters / (double)s->iter_limit > f)
        f = (double)s->iters / (double)s->iter_limit;
    return f;
}

/* Checked every 256 iterations: the budget, then the wall-clock cap. */
static int over(search *s, double upto)
{
    if ((!s->work_limit && !s->iter_limit) || s->status)
        return 1;
    if (used(s) >= upto)
        return 1;
    if ((s->iters & 255) == 0) {
        kc_progress_report(s->progress, used(s), 1.0);
        if (s->wall_cap > 0 && kci_seconds() - s->t_start > s->wall_cap)
            s->stopped_by_wall = 1;
    }
    return s->stopped_by_wall;
}

/* The search's order: with a hops cap, a mapping whose max load is above
 * every start's comes last (a cap must never make the answer worse than a
 * start on the first key), then a mapping within the cap comes before any
 * mapping above it; then the lexicographic objective. */
static int cost_cmp(const search *s, const kc_cost *x, const kc_cost *y)
{
    if (s->hops_cap) {
        int bx = x->max > s->max_bound, by = y->max > s->max_bound;
        if (bx != by)
            return bx - by;
        int ox = x->hops > s->hops_cap, oy = y->hops > s->hops_cap;
        if (ox != oy)
            return ox - oy;
    }
    return kc_cost_cmp(x, y);
}

/* With a cap: remember the best candidate by the plain objective, so the
 * result can say what the cap cost. */
static void see(search *s, const kc_cost *c)
{
    if (s->hops_cap && kc_cost_cmp(c, &s->seen) < 0)
        s->seen = *c;
}

static void note_best(search *s)
{
    kc_cost c = kc_chanload_cost(s->cl);
    if (cost_cmp(s, &c, &s->best) < 0) {
        s->best = c;
        memcpy(s->best_map, kc_chanload_to_physical(s->cl), (size_t)s->nodes * sizeof *s->best_map);
        s->work += s->nodes / 8; /* the copy, in work units */
    }
}

/* The pairs whose routes cross the busiest channel (at most HOT_CAP, from
 * a random offset). Rebuilt when the busiest channel moved, as long as the
 * rebuilding costs at most a quarter of the work so far. */
static void refresh_hot(search *s)
{
    size_t c = kc_chanload_argmax(s->cl);
    if (c == s->hot_channel || s->pairs == 0 || c == SIZE_MAX)
        return;
    uint64_t cost = (uint64_t)s->pairs * (uint64_t)s->t->n / 4 + 1;
    if (s->hot_work + cost > s->work / 4 + 4096)
        return;
    s->hot_work += cost;
    s->work += cost;
    s->hot_channel = c;
    s->nhot = 0;
    size_t off = (size_t)kc_rng_below(&s->rng, s->pairs);
    for (size_t i = 0; i < s->pairs && s->nhot < HOT_CAP; i++) {
        size_t j = (off + i) % s->pairs;
        if (kc_chanload_pair_uses(s->cl, j, c))
            s->hot[s->nhot++] = (uint32_t)j;
    }
}

/* A random node next to node x (one hop along a random axis). */
static uint32_t neighbour(const search *s, uint32_t x, kc_rng *rng)
{
    int i = (int)kc_rng_below(rng, (uint64_t)s->t->n);
    kc_link l = {x, i, kc_rng_below(rng, 2) ? 1 : -1};
    uint64_t y = kc_topology_link_to(s->t, l);
    if (y == UINT64_MAX) { /* the end of a mesh line: go the other way */
        l.dir = -l.dir;
        y = kc_topology_link_to(s->t, l);
    }
    return (uint32_t)y;
}

/* A candidate move is a list of node transpositions (tx[i], ty[i]), done
 * in order: the ranks on the two nodes trade places (kc_chanload_swaps). */
static void add_swap(search *s, uint32_t x, uint32_t y)
{
    s->tx[s->nt] = x;
    s->ty[s->nt] = y;
    s->nt++;
}

static void random_two(search *s)
{
    uint32_t x = (uint32_t)kc_rng_below(&s->rng, s->nodes), y = (uint32_t)kc_rng_below(&s->rng, s->nodes - 1);
    add_swap(s, x, y >= x ? y + 1 : y);
}

/* The node reached from x by one + step on each axis of axes[] whose bit
 * is set in b (a - step at the end of a mesh line). */
static uint32_t corner(const search *s, uint32_t x, const int *axes, int d, uint32_t b)
{
    for (int k = 0; k < d; k++)
        if (b >> k & 1) {
            kc_link l = {x, axes[k], 1};
            uint64_t y = kc_topology_link_to(s->t, l);
            if (y == UINT64_MAX) {
                l.dir = -1;
                y = kc_topology_link_to(s->t, l);
            }
            x = (uint32_t)y;
        }
    return x;
}

/* Carry a cluster whole onto a small sub-box: the ranks reached from rank
 * v through its pairs, breadth first (at most 2^d of them, d = 1..3), go
 * to the corners of a random d-dimensional box of side 2 in binary order,
 * so v's first partners land next to v. For a pair this is "carry the
 * pair onto a link"; for the square orbits of two commuting involutions
 * (transpose and bit-reverse) it places each orbit on a face. */
static void cluster_move(search *s, uint32_t v)
{
    int d = 1 + (int)kc_rng_below(&s->rng, 3), axes[3];
    if (d > s->t->n)
        d = s->t->n;
    for (int k = 0; k < d; k++) { /* d distinct random axes */
        axes[k] = (int)kc_rng_below(&s->rng, (uint64_t)(s->t->n - k));
        for (int j = 0; j < k; j++)
            if (axes[k] >= axes[j])
                axes[k]++;
    }
    uint32_t rank[8], pos[8], target[8];
    int size = 1;
    rank[0] = v;
    for (int head = 0; head < size && size < (1 << d); head++) {
        size_t cnt;
        const uint32_t *pl = kc_chanload_rank_pairs(s->cl, rank[head], &cnt);
        for (size_t j = 0; j < cnt && size < (1 << d); j++) {
            uint32_t src, dst, seen = 0;
            uint64_t bytes;
            kc_chanload_pair(s->cl, pl[j], &src, &dst, &bytes);
            uint32_t u = src == rank[head] ? dst : src;
            for (int k = 0; k < size; k++)
                seen |= rank[k] == u;
            if (!seen)
                rank[size++] = u;
        }
    }
    uint32_t x = (uint32_t)kc_rng_below(&s->rng, s->nodes);
    const uint32_t *tophys = kc_chanload_to_physical(s->cl);
    for (int k = 0; k < size; k++) {
        target[k] = corner(s, x, axes, d, (uint32_t)k);
        pos[k] = tophys[rank[k]];
        for (int j = 0; j < k; j++)
            if (target[j] == target[k]) { /* a box that folds onto itself (side 2 ring) */
                random_two(s);
                return;
            }
    }
    /* Place rank k on target k; whoever sat there goes to rank k's node
     * (tracked when it is a later cluster rank). */
    for (int k = 0; k < size; k++) {
        if (pos[k] == target[k])
            continue;
        for (int j = k + 1; j < size; j++)
            if (pos[j] == target[k])
                pos[j] = pos[k];
        add_swap(s, pos[k], target[k]);
        pos[k] = target[k];
    }
    if (s->nt == 0)
        random_two(s);
}

/* A mirror image inside a block: axis i is reflected, c -> (r - c) mod side
 * on a ring (any centre r), c -> side - 1 - c on a line, a bit flip for
 * side 2, on the nodes whose coordinates on the axes marked in fixed[]
 * equal those of node base (base has 0 on the other axes). For the
 * hypercube these are the conditional flips that build Gray codes; on grids
 * they fold lines into boustrophedons. Appends the transpositions. */
static void block_swaps(search *s, int i, int r, const int *fixed, uint64_t base)
{
    const kc_topology *t = s->t;
    int n = t->n, side = t->side[i];
    int digit[KC_TOPO_MAX_DIMS] = {0}; /* a mixed-radix counter over the free axes but i */
    for (;;) {
        uint64_t x0 = base;
        for (int a = 0; a < n; a++)
            if (!fixed[a] && a != i)
                x0 += (uint64_t)digit[a] * s->stride[a];
        for (int c = 0; c < side; c++) {
            int m = ((r - c) % side + side) % side;
            if (c < m)
                add_swap(s, (uint32_t)(x0 + (uint64_t)c * s->stride[i]), (uint32_t)(x0 + (uint64_t)m * s->stride[i]));
        }
        int a = 0;
        for (; a < n; a++) {
            if (fixed[a] || a == i)
                continue;
            if (++digit[a] < t->side[a])
                break;
            digit[a] = 0;
        }
        if (a == n)
            return;
    }
}

/* The centres of reflection axis i has: one on a line or a 2-ring. */
static int centres(const search *s, int i)
{
    return !kc_topology_wraps(s->t, i) || s->t->side[i] == 2 ? 1 : s->t->side[i];
}

static int centre(const search *s, int i, int k) { return centres(s, i) == 1 ? s->t->side[i] - 1 : k; }

/* A random block reflection: conditions on random axes, added until the
 * block has at most BLOCK_NODES nodes and is not the whole network (a
 * reflection of everything is a symmetry of the network), then each
 * further one by a coin. */
static void block_move(search *s)
{
    int n = s->t->n, i = (int)kc_rng_below(&s->rng, (uint64_t)n);
    int r = centre(s, i, (int)kc_rng_below(&s->rng, (uint64_t)centres(s, i)));
    int fixed[KC_TOPO_MAX_DIMS] = {0};
    uint64_t size = s->nodes, base = 0;
    for (int j = 0; j < n; j++) {
        int a = (int)kc_rng_below(&s->rng, (uint64_t)n);
        if (a == i || fixed[a] || (size <= BLOCK_NODES && size < s->nodes && kc_rng_below(&s->rng, 2)))
            continue;
        fixed[a] = 1;
        size /= (uint64_t)s->t->side[a];
        base += kc_rng_below(&s->rng, (uint64_t)s->t->side[a]) * s->stride[a];
    }
    if (size <= BLOCK_NODES)
        block_swaps(s, i, r, fixed, base);
    if (s->nt == 0)
        random_two(s);
}

/* Hops between the routers of slots x and y (rings the short way, lines
 * straight; 0 on one router). */
static uint64_t node_hops(const kc_topology *t, uint32_t x, uint32_t y)
{
    uint64_t h = 0, p = kc_topology_slot_router(t, x), q = kc_topology_slot_router(t, y);
    for (int i = 0; i < t->n; i++) {
        unsigned a = kc_topology_coord(t, p, i), b = kc_topology_coord(t, q, i), k = (unsigned)t->side[i];
        unsigned d = a > b ? a - b : b - a;
        h += !kc_topology_wraps(t, i) || 2 * d <= k ? d : k - d;
    }
    return h;
}

/* Of pairs i and j, the one with more bytes x hops now (the hops phase's
 * candidates lean towards the pairs that cost most). */
static size_t heavier_pair(const search *s, size_t i, size_t j)
{
    const uint32_t *tophys = kc_chanload_to_physical(s->cl);
    uint32_t a, b;
    uint64_t wi, wj;
    kc_chanload_pair(s->cl, i, &a, &b, &wi);
    uint64_t ci = wi * node_hops(s->net, tophys[a], tophys[b]);
    kc_chanload_pair(s->cl, j, &a, &b, &wj);
    return wj * node_hops(s->net, tophys[a], tophys[b]) > ci ? j : i;
}

static void gen_move(search *s)
{
    s->nt = 0;
    uint64_t kind = kc_rng_below(&s->rng, 16);
    if (s->pairs == 0 || kind == 0) {
        random_two(s);
        return;
    }
    if (s->blocks && kind >= 14 && kc_rng_below(&s->rng, 8) == 0) { /* 1 in 64: they cost many swaps */
        block_move(s);
        return;
    }
    int from_hot = s->nhot > 0 && kind <= 7 && !s->hops_moves; /* kinds 1-7: pairs on the busiest channel */
    size_t j = from_hot ? s->hot[kc_rng_below(&s->rng, s->nhot)] : (size_t)kc_rng_below(&s->rng, s->pairs);
    if (s->hops_moves && !from_hot)
        j = heavier_pair(s, j, (size_t)kc_rng_below(&s->rng, s->pairs));
    uint32_t src, dst;
    uint64_t bytes;
    kc_chanload_pair(s->cl, j, &src, &dst, &bytes);
    const uint32_t *tophys = kc_chanload_to_physical(s->cl);
    uint32_t p = tophys[src], q = tophys[dst];
    if (kind == 8) {
        cluster_move(s, kc_rng_below(&s->rng, 2) ? src : dst);
        return;
    }
    if (kc_rng_below(&s->rng, 2)) { /* which end moves */
        uint32_t tmp = p;
        p = q;
        q = tmp;
    }
    uint32_t y = kind == 7 ? (uint32_t)kc_rng_below(&s->rng, s->nodes) /* a hot end against anyone */
                            : neighbour(s, q, &s->rng);                /* next to its partner */
    if (y == p)
        random_two(s);
    else
        add_swap(s, p, y);
}

/* Make the candidate as one counter move. On failure (memory for a large
 * move's undo log) nothing changes, the search stops and reports it. */
static void apply(search *s)
{
    uint64_t w = 0;
    kc_status st = kc_chanload_swaps(s->cl, s->tx, s->ty, s->nt, &w, &s->err);
    if (st)
        s->status = st;
    s->work += w;
    s->iters++;
}

static void revert(search *s) { kc_chanload_undo(s->cl); }

static void descent(search *s, double upto)
{
    uint64_t stall = 0, stall_limit = (uint64_t)STALL_PER_NODE * s->nodes + 1000;
    kc_cost cur = kc_chanload_cost(s->cl);
    while (!over(s, upto) && stall < stall_limit) {
        if ((s->iters & 63) == 0)
            refresh_hot(s);
        gen_move(s);
        apply(s);
        kc_cost c = kc_chanload_cost(s->cl);
        see(s, &c);
        if (cost_cmp(s, &c, &cur) < 0) {
            cur = c;
            stall = 0;
            s->accepted++;
            note_best(s);
        } else {
            revert(s);
            stall++;
        }
    }
}

/* The code-th set of q = 1 or 2 condition axes for axis i (j2 = -1 for
 * one); 0 when code names no valid set. One condition: the axes nearest i
 * first (i+1, i-1, i+2, ...), since neighbouring digits of a rank are the
 * ones a fold ties together (Gray codes, boustrophedons). */
static int condition_axes(int i, int q, int code, int n, int *j1, int *j2)
{
    *j1 = *j2 = -1;
    if (q == 1) {
        int d = code / 2 + 1;
        *j1 = code % 2 ? i - d : i + d;
        return *j1 >= 0 && *j1 < n;
    }
    *j1 = code / n;
    *j2 = code % n;
    return *j1 < *j2 && *j1 != i && *j2 != i && *j2 < n;
}

/* Block reflections of axis i with q conditions (all values) whose block
 * fits BLOCK_NODES, each kept if lexicographically better. Returns how
 * many were kept, or -1 when the budget ran out. */
static int sweep_axis(search *s, int i, int q, double upto, kc_cost *cur)
{
    int n = s->t->n, kept = 0;
    for (int code = 0; code < (n + 1) * (n + 1); code++) {
        int j1, j2;
        if (!condition_axes(i, q, code, n, &j1, &j2))
            continue;
        uint64_t s1 = j1 < 0 ? 1 : (uint64_t)s->t->side[j1], s2 = j2 < 0 ? 1 : (uint64_t)s->t->side[j2];
        if (s->nodes / s1 / s2 > BLOCK_NODES)
            continue;
        int fixed[KC_TOPO_MAX_DIMS] = {0};
        if (j1 >= 0)
            fixed[j1] = 1;
        if (j2 >= 0)
            fixed[j2] = 1;
        for (uint64_t v = 0; v < s1 * s2; v++)
            for (int k = 0; k < centres(s, i); k++) {
                if (over(s, upto))
                    return -1;
                uint64_t base = (j1 < 0 ? 0 : (v % s1) * s->stride[j1]) + (j2 < 0 ? 0 : (v / s1) * s->stride[j2]);
                s->nt = 0;
                block_swaps(s, i, centre(s, i, k), fixed, base);
                if (s->nt == 0)
                    continue;
                apply(s);
                kc_cost c = kc_chanload_cost(s->cl);
                see(s, &c);
                if (cost_cmp(s, &c, cur) < 0) {
                    *cur = c;
                    s->accepted++;
                    note_best(s);
                    kept++;
                } else
                    revert(s);
            }
    }
    return kept;
}

/* Structured moves first, in a fixed order (larger blocks first): passes
 * over every axis repeat while one keeps a reflection. */
static void block_sweep(search *s, double upto)
{
    kc_cost cur = kc_chanload_cost(s->cl);
    for (int kept = 1; kept > 0;) {
        kept = 0;
        for (int q = 1; q <= 2 && kept >= 0; q++) /* q = 0 would be a symmetry of the network */
            for (int i = 0; i < s->t->n && kept >= 0; i++) {
                int k = sweep_axis(s, i, q, upto, &cur);
                kept = k < 0 ? -1 : kept + k;
            }
    }
}

static double energy(const search *s, const kc_cost *c)
{
    double mx = (double)c->max;
    double e = (kc_cost_sumsq_double(c) + MAX_WEIGHT * mx * mx) / s->unit2;
    /* Above the hops cap every extra byte-hop costs like a squared load
     * of CAP_WEIGHT mean pairs, so annealing drifts back under the cap. */
    if (s->hops_cap && c->hops > s->hops_cap)
        e += CAP_WEIGHT * (double)(c->hops - s->hops_cap) / sqrt(s->unit2);
    return e;
}

typedef double (*energy_fn)(const search *s, const kc_cost *c);

/* The starting temperature: the mean rise of energy `en` over 64 seeded
 * random moves, each undone. */
static double first_temperature(search *s, double upto, energy_fn en)
{
    kc_cost c0 = kc_chanload_cost(s->cl);
    double e0 = en(s, &c0), sum = 0;
    int ups = 0;
    for (int i = 0; i < 64 && !over(s, upto); i++) {
        gen_move(s);
        apply(s);
        kc_cost c = kc_chanload_cost(s->cl);
        double de = en(s, &c) - e0;
        if (de > 0) {
            sum += de;
            ups++;
        }
        revert(s);
    }
    return ups ? sum / ups : 1.0;
}

/* Metropolis on energy `en` from the current mapping, from budget
 * fraction `from` to `upto`, the temperature falling geometrically from t0
 * to T_END_RATIO t0; the best mapping seen is kept (note_best). */
static void metropolis(search *s, double from, double upto, energy_fn en, double t0)
{
    double span = upto - from;
    kc_cost cur = kc_chanload_cost(s->cl);
    double e = en(s, &cur);
    while (!over(s, upto)) {
        if (!s->hops_moves && (s->iters & 63) == 0)
            refresh_hot(s);
        double temp = t0 * pow(T_END_RATIO, (used(s) - from) / span);
        gen_move(s);
        apply(s);
        kc_cost c = kc_chanload_cost(s->cl);
        see(s, &c);
        double de = en(s, &c) - e;
        if (de <= 0 || kc_rng_unit(&s->rng) < exp(-de / temp)) {
            e += de;
            s->accepted++;
            note_best(s);
        } else
            revert(s);
    }
}

static void anneal(search *s, double upto)
{
    double from = used(s);
    if (upto - from <= 0)
        return;
    double t0 = first_temperature(s, upto, energy);
    metropolis(s, from, upto, energy, t0);
}

/* The hops phase's energy: bytes x hops in mean pairs, so that one
 * temperature scale fits any byte sizes. */
static double hops_energy(const search *s, const kc_cost *c)
{
    double e = (double)c->hops, over_max = c->max > s->best.max ? (double)(c->max - s->best.max) : 0;
    return (e + HOPS_MAX_PENALTY * over_max) / sqrt(s->unit2);
}

/* Back to the best mapping seen (a permutation: only memory can fail,
 * which stops the search). Returns 0, or -1 on failure. */
static int back_to_best(search *s)
{
    kc_status st = kc_chanload_set(s->cl, s->best_map, &s->err);
    if (st) {
        s->status = st;
        return -1;
    }
    s->work += (uint64_t)s->pairs * 4;
    return 0;
}

/* Annealing on the second key at an equal first: Metropolis on bytes x
 * hops (hops_energy: a max load above the best's costs extra, so the walk
 * may pass through such mappings but comes back), from the best mapping
 * seen, the temperature falling geometrically from HOPS_T0_FRACTION of the
 * mean rise of 64 seeded sample moves to 1/1000 of that. It does for bytes
 * x hops what the scalar annealing does for the max: the mappings
 * scotch_gmap finds often tie with ours on the max and differ in hops. */
static void hops_anneal(search *s, double upto)
{
    double from = used(s);
    if (upto - from <= 0 || back_to_best(s))
        return;
    double t0 = first_temperature(s, upto, hops_energy) * HOPS_T0_FRACTION;
    metropolis(s, from, upto, hops_energy, t0);
}

static kc_status eval_starts(search *s, const kc_traffic *tr, const kc_gmap_start *starts, int nstarts,
                             const kc_gmap_opts *o, kc_gmap_result *res, kc_err *err)
{
    res->best_start = -1;
    for (int i = 0; i < nstarts; i++) {
        kc_status st = kc_chanload_set(s->cl, starts[i].to_physical, err);
        if (st)
            return st;
        res->start_cost[i] = kc_chanload_cost(s->cl);
        if (o->groups) {
            st = kc_chanload_group_max(s->cl, tr, o->group, o->groups, &res->start_group_max[(size_t)i * o->groups],
                                       err);
            if (st)
                return st;
        }
    }
    /* The cap is known once its start is counted; only then the best. */
    if (o->hops_cap_start >= 0 && o->hops_cap_start < nstarts)
        s->hops_cap = res->hops_cap = res->start_cost[o->hops_cap_start].hops;
    /* The plain best start (first on ties) bounds the capped order's max. */
    res->plain_best_start = 0;
    for (int i = 1; i < nstarts; i++)
        if (kc_cost_cmp(&res->start_cost[i], &res->start_cost[res->plain_best_start]) < 0)
            res->plain_best_start = i;
    s->seen = res->start_cost[res->plain_best_start];
    s->max_bound = s->seen.max;
    for (int i = 0; i < nstarts; i++)
        if (res->best_start < 0 || cost_cmp(s, &res->start_cost[i], &res->start_cost[res->best_start]) < 0)
            res->best_start = i;
    s->best = res->start_cost[res->best_start];
    memcpy(s->best_map, starts[res->best_start].to_physical, (size_t)s->nodes * sizeof *s->best_map);
    return kc_chanload_set(s->cl, s->best_map, err);
}

static kc_status alloc_result(kc_gmap_result *res, uint64_t nodes, int nstarts, uint32_t groups, kc_err *err)
{
    memset(res, 0, sizeof *res);
    res->nstarts = nstarts;
    res->nodes = nodes;
    res->groups = groups;
    res->start_cost = calloc((size_t)nstarts, sizeof *res->start_cost);
    res->to_physical = malloc((size_t)nodes * sizeof *res->to_physical);
    res->to_virtual = malloc((size_t)nodes * sizeof *res->to_virtual);
    int bad = !res->start_cost || !res->to_physical || !res->to_virtual;
    if (groups) {
        res->start_group_max = calloc((size_t)nstarts * groups, sizeof *res->start_group_max);
        res->group_max = calloc(groups, sizeof *res->group_max);
        bad = bad || !res->start_group_max || !res->group_max;
    }
    return bad ? kc_fail(err, KC_ENOMEM, "out of memory for the mapping result") : KC_OK;
}

static void setup_budget(search *s, const kc_gmap_opts *o)
{
    s->iter_limit = o->iterations;
    s->work_limit = o->budget_seconds > 0 ? (uint64_t)(o->budget_seconds * KC_GMAP_WORK_PER_SECOND) + 1 : 0;
    s->wall_cap = o->wall_cap_seconds > 0 ? o->wall_cap_seconds
                  : o->budget_seconds > 0 ? 20.0 * o->budget_seconds + 10.0
                                          : 0;
    s->t_start = kci_seconds();
    s->hot_channel = SIZE_MAX;
    kc_rng_seed(&s->rng, o->seed);
    double total = 0;
    for (size_t j = 0; j < s->pairs; j++) {
        uint32_t a, b;
        uint64_t w;
        kc_chanload_pair(s->cl, j, &a, &b, &w);
        total += (double)w;
        /* A pair's bytes all take one route, so some channel carries them. */
        s->max_floor = w > s->max_floor ? w : s->max_floor;
    }
    double unit = s->pairs ? total / (double)s->pairs : 1.0;
    s->unit2 = unit * unit;
}

static void improve(search *s)
{
    s->blocks = 1;
    block_sweep(s, PHASE0_END);
    descent(s, PHASE1_END);
    s->blocks = 0;
    /* At the lower bound the max cannot improve: the budget goes to hops. */
    if (s->best.max > s->max_floor)
        anneal(s, PHASE2_END);
    if (s->stopped_by_wall || (!s->work_limit && !s->iter_limit))
        return;
    s->hops_moves = 1;
    hops_anneal(s, PHASE3_END);
    s->hops_moves = 0;
    s->blocks = 1;
    if (s->stopped_by_wall || back_to_best(s))
        return;
    descent(s, 1.0);
}

kc_status kc_gmap_run(const kc_topology *t, const kc_traffic *tr, const kc_gmap_start *starts, int nstarts,
                      const kc_gmap_opts *opts, kc_gmap_result *res, kc_err *err)
{
    kc_gmap_opts def;
    if (!opts) {
        kc_gmap_opts_default(&def);
        opts = &def;
    }
    memset(res, 0, sizeof *res);
    if (nstarts < 1)
        return kc_fail_param(err, KC_EINVAL, "mapping", "the mapper needs at least one start mapping");
    if (opts->groups && !opts->group)
        return kc_fail_param(err, KC_EINVAL, "group", "%u groups but no group ids", opts->groups);
    search s = {0};
    s.net = t;
    kci_slot_grid(t, &s.grid);
    s.t = &s.grid;
    s.progress = &opts->progress;
    kc_status st = opts->separate && opts->groups
                       ? kc_chanload_new_layered(&s.cl, t, tr, opts->group, opts->groups, err)
                       : kc_chanload_new(&s.cl, t, tr, err);
    if (st)
        return st;
    s.nodes = (uint32_t)s.grid.nodes;
    s.pairs = kc_chanload_pairs(s.cl);
    s.best_map = malloc((size_t)s.nodes * sizeof *s.best_map);
    s.hot = malloc(HOT_CAP * sizeof *s.hot);
    s.tx = malloc(BLOCK_NODES * sizeof *s.tx);
    s.ty = malloc(BLOCK_NODES * sizeof *s.ty);
    for (int i = 0; i < s.t->n; i++)
        s.stride[i] = i ? s.stride[i - 1] * (uint64_t)s.t->side[i - 1] : 1;
    st = (!s.best_map || !s.hot || !s.tx || !s.ty) ? kc_fail(err, KC_ENOMEM, "out of memory for the mapper") : KC_OK;
    if (!st)
        st = alloc_result(res, s.nodes, nstarts, opts->groups, err);
    if (!st)
        st = eval_starts(&s, tr, starts, nstarts, opts, res, err);
    if (!st) {
        setup_budget(&s, opts);
        if (s.nodes > 1)
            improve(&s);
        st = s.status;
        if (st && err)
            *err = s.err;
        if (!st)
            st = kc_chanload_set(s.cl, s.best_map, err);
    }
    if (!st && opts->groups)
        st = kc_chanload_group_max(s.cl, tr, opts->group, opts->groups, res->group_max, err);
    if (!st) {
        res->cost = kc_chanload_cost(s.cl);
        res->uncapped_seen = s.hops_cap ? s.seen : res->cost;
        if (kc_cost_cmp(&res->cost, &s.best) != 0)
            st = kc_fail(err, KC_EINTERNAL, "the recounted best mapping differs from its tracked cost");
        /* The search's order puts the result before every start in the
         * plain objective too (docs/gmap.md, "A hops cap"): checked. */
        for (int i = 0; !st && i < nstarts; i++)
            if (kc_cost_cmp(&res->cost, &res->start_cost[i]) > 0)
                st = kc_fail(err, KC_EINTERNAL, "the result is worse than start %d (%s)", i,
                             starts[i].name ? starts[i].name : "unnamed");
        memcpy(res->to_physical, s.best_map, (size_t)s.nodes * sizeof *s.best_map);
        memcpy(res->to_virtual, kc_chanload_to_virtual(s.cl), (size_t)s.nodes * sizeof *s.best_map);
        res->iterations = s.iters;
        res->accepted = s.accepted;
        res->work = s.work;
        res->stopped_by_wall = s.stopped_by_wall;
        kc_progress_report(s.progress, 1.0, 1.0);
    }
    kc_chanload_free(s.cl);
    free(s.best_map);
    free(s.hot);
    free(s.tx);
    free(s.ty);
    if (st)
        kc_gmap_result_free(res);
    return st;
}

void kc_gmap_result_free(kc_gmap_result *res)
{
    free(res->start_cost);
    free(res->to_physical);
    free(res->to_virtual);
    free(res->start_group_max);
    free(res->group_max);
    memset(res, 0, sizeof *res);
}
