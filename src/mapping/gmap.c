/* gmap.c - the general mapper of kcube/gmap.h: evaluate the starts, then
 * descent, annealing and a final descent over exactly evaluated swaps. */
#include "kcube/gmap.h"
#include "kcube/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOT_CAP 4096        /* most pairs kept on the hot list */
#define STALL_PER_NODE 40   /* a descent gives up after 40 N + 1000 failures in a row */
#define PHASE0_END 0.30
#define PHASE1_END 0.40
#define PHASE2_END 0.85
#define T_END_RATIO 1e-3
#define MAX_WEIGHT 4.0      /* annealing energy: sumsq + 4 max^2 (tried 0, 4, N: 4 best) */
#define BLOCK_NODES 4096    /* most nodes a block move reflects */

typedef struct search {
    kc_chanload *cl;
    const kc_topology *t;
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
    int blocks; /* block moves allowed (descents only: annealing at high
                 * temperature would take them as large random jumps) */
} search;

void kc_gmap_opts_default(kc_gmap_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->budget_seconds = 1.0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
    if (!s->work_limit && !s->iter_limit)
        return 1;
    if (used(s) >= upto)
        return 1;
    if ((s->iters & 255) == 0) {
        kc_progress_report(s->progress, used(s), 1.0);
        if (s->wall_cap > 0 && now() - s->t_start > s->wall_cap)
            s->stopped_by_wall = 1;
    }
    return s->stopped_by_wall;
}

static void note_best(search *s)
{
    kc_cost c = kc_chanload_cost(s->cl);
    if (kc_cost_cmp(&c, &s->best) < 0) {
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
 * in order: the ranks on the two nodes trade places. */
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

/* Carry a pair whole onto a random link: its ends (on nodes p, q) go to
 * node x and a neighbour y of x, whose ranks go to p and q. */
static void pair_move(search *s, uint32_t p, uint32_t q)
{
    uint32_t x = (uint32_t)kc_rng_below(&s->rng, s->nodes), y = neighbour(s, x, &s->rng);
    if (x == p || x == q || y == p || y == q) {
        random_two(s);
        return;
    }
    add_swap(s, p, x);
    add_swap(s, q, y);
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
    return s->t->kind == KC_TOPO_MESH || s->t->side[i] == 2 ? 1 : s->t->side[i];
}

static int centre(const search *s, int i, int k) { return centres(s, i) == 1 ? s->t->side[i] - 1 : k; }

/* A random block reflection: conditions on random axes, added until the
 * block has at most BLOCK_NODES nodes, then each further one by a coin. */
static void block_move(search *s)
{
    int n = s->t->n, i = (int)kc_rng_below(&s->rng, (uint64_t)n);
    int r = centre(s, i, (int)kc_rng_below(&s->rng, (uint64_t)centres(s, i)));
    int fixed[KC_TOPO_MAX_DIMS] = {0};
    uint64_t size = s->nodes, base = 0;
    for (int j = 0; j < n; j++) {
        int a = (int)kc_rng_below(&s->rng, (uint64_t)n);
        if (a == i || fixed[a] || (size <= BLOCK_NODES && kc_rng_below(&s->rng, 2)))
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
    int from_hot = s->nhot > 0 && kind <= 7; /* kinds 1-7: pairs on the busiest channel */
    size_t j = from_hot ? s->hot[kc_rng_below(&s->rng, s->nhot)] : (size_t)kc_rng_below(&s->rng, s->pairs);
    uint32_t src, dst;
    uint64_t bytes;
    kc_chanload_pair(s->cl, j, &src, &dst, &bytes);
    const uint32_t *tophys = kc_chanload_to_physical(s->cl);
    uint32_t p = tophys[src], q = tophys[dst];
    if (kind == 8) {
        pair_move(s, p, q);
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

static void apply(search *s)
{
    const uint32_t *tovirt = kc_chanload_to_virtual(s->cl);
    for (size_t k = 0; k < s->nt; k++)
        s->work += kc_chanload_swap(s->cl, tovirt[s->tx[k]], tovirt[s->ty[k]]);
    s->iters++;
}

/* Undo the last transposition from the counter's log, the others by doing
 * them again in reverse order (exact: loads are integers). */
static void revert(search *s)
{
    kc_chanload_undo(s->cl);
    const uint32_t *tovirt = kc_chanload_to_virtual(s->cl);
    for (size_t k = s->nt - 1; k-- > 0;)
        s->work += kc_chanload_swap(s->cl, tovirt[s->tx[k]], tovirt[s->ty[k]]);
}

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
        if (kc_cost_cmp(&c, &cur) < 0) {
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

/* Block reflections of axis i with q = 0, 1 or 2 conditions (all values)
 * whose block fits BLOCK_NODES, each kept if lexicographically better.
 * Returns how many were kept, or -1 when the budget ran out. */
static int sweep_axis(search *s, int i, int q, double upto, kc_cost *cur)
{
    int n = s->t->n, kept = 0;
    for (int code = 0; code < (n + 1) * (n + 1); code++) {
        int j1 = code / (n + 1) - 1, j2 = code % (n + 1) - 1;
        if (j1 == i || j2 == i || (j1 < 0 && j2 >= 0) || (j2 >= 0 && j2 <= j1) || (j1 >= 0) + (j2 >= 0) != q)
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
                if (kc_cost_cmp(&c, cur) < 0) {
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
        for (int q = 0; q <= 2 && kept >= 0; q++)
            for (int i = 0; i < s->t->n && kept >= 0; i++) {
                int k = sweep_axis(s, i, q, upto, &cur);
                kept = k < 0 ? -1 : kept + k;
            }
    }
}

static double energy(const search *s, const kc_cost *c)
{
    double mx = (double)c->max;
    return (kc_cost_sumsq_double(c) + MAX_WEIGHT * mx * mx) / s->unit2;
}

/* The starting temperature: the mean energy rise of 64 seeded random
 * moves, each undone. */
static double first_temperature(search *s, double upto)
{
    kc_cost c0 = kc_chanload_cost(s->cl);
    double e0 = energy(s, &c0), sum = 0;
    int ups = 0;
    for (int i = 0; i < 64 && !over(s, upto); i++) {
        gen_move(s);
        apply(s);
        kc_cost c = kc_chanload_cost(s->cl);
        double de = energy(s, &c) - e0;
        if (de > 0) {
            sum += de;
            ups++;
        }
        revert(s);
    }
    return ups ? sum / ups : 1.0;
}

static void anneal(search *s, double upto)
{
    double from = used(s), span = upto - from;
    if (span <= 0)
        return;
    double t0 = first_temperature(s, upto);
    kc_cost cur = kc_chanload_cost(s->cl);
    double e = energy(s, &cur);
    while (!over(s, upto)) {
        if ((s->iters & 63) == 0)
            refresh_hot(s);
        double temp = t0 * pow(T_END_RATIO, (used(s) - from) / span);
        gen_move(s);
        apply(s);
        kc_cost c = kc_chanload_cost(s->cl);
        double de = energy(s, &c) - e;
        if (de <= 0 || kc_rng_unit(&s->rng) < exp(-de / temp)) {
            e += de;
            s->accepted++;
            note_best(s);
        } else
            revert(s);
    }
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
        if (res->best_start < 0 || kc_cost_cmp(&res->start_cost[i], &res->start_cost[res->best_start]) < 0)
            res->best_start = i;
    }
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
                  : o->budget_seconds > 0 ? 10.0 * o->budget_seconds + 5.0
                                          : 0;
    s->t_start = now();
    s->hot_channel = SIZE_MAX;
    kc_rng_seed(&s->rng, o->seed);
    double total = 0;
    for (size_t j = 0; j < s->pairs; j++) {
        uint32_t a, b;
        uint64_t w;
        kc_chanload_pair(s->cl, j, &a, &b, &w);
        total += (double)w;
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
    anneal(s, PHASE2_END);
    s->blocks = 1;
    if (s->stopped_by_wall || (!s->work_limit && !s->iter_limit))
        return;
    if (kc_chanload_set(s->cl, s->best_map, NULL) == KC_OK) { /* a permutation: cannot fail */
        s->work += (uint64_t)s->pairs * 4;
        descent(s, 1.0);
    }
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
    s.t = t;
    s.progress = &opts->progress;
    kc_status st = opts->separate && opts->groups
                       ? kc_chanload_new_layered(&s.cl, t, tr, opts->group, opts->groups, err)
                       : kc_chanload_new(&s.cl, t, tr, err);
    if (st)
        return st;
    s.nodes = (uint32_t)t->nodes;
    s.pairs = kc_chanload_pairs(s.cl);
    s.best_map = malloc((size_t)s.nodes * sizeof *s.best_map);
    s.hot = malloc(HOT_CAP * sizeof *s.hot);
    s.tx = malloc(BLOCK_NODES * sizeof *s.tx);
    s.ty = malloc(BLOCK_NODES * sizeof *s.ty);
    for (int i = 0; i < t->n; i++)
        s.stride[i] = i ? s.stride[i - 1] * (uint64_t)t->side[i - 1] : 1;
    st = (!s.best_map || !s.hot || !s.tx || !s.ty) ? kc_fail(err, KC_ENOMEM, "out of memory for the mapper") : KC_OK;
    if (!st)
        st = alloc_result(res, t->nodes, nstarts, opts->groups, err);
    if (!st)
        st = eval_starts(&s, tr, starts, nstarts, opts, res, err);
    if (!st) {
        setup_budget(&s, opts);
        if (s.nodes > 1)
            improve(&s);
        st = kc_chanload_set(s.cl, s.best_map, err);
    }
    if (!st && opts->groups)
        st = kc_chanload_group_max(s.cl, tr, opts->group, opts->groups, res->group_max, err);
    if (!st) {
        res->cost = kc_chanload_cost(s.cl);
        if (kc_cost_cmp(&res->cost, &s.best) != 0)
            st = kc_fail(err, KC_EINTERNAL, "the recounted best mapping differs from its tracked cost");
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
