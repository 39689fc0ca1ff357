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
#define PHASE1_END 0.20
#define PHASE2_END 0.85
#define T_END_RATIO 1e-3

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

static void random_two(search *s, uint32_t *a, uint32_t *b)
{
    *a = (uint32_t)kc_rng_below(&s->rng, s->nodes);
    *b = (uint32_t)kc_rng_below(&s->rng, s->nodes - 1);
    if (*b >= *a)
        (*b)++;
}

static void gen_move(search *s, uint32_t *a, uint32_t *b)
{
    uint64_t kind = kc_rng_below(&s->rng, 8);
    if (s->pairs == 0 || kind == 0) {
        random_two(s, a, b);
        return;
    }
    int from_hot = s->nhot > 0 && kind <= 4;
    size_t j = from_hot ? s->hot[kc_rng_below(&s->rng, s->nhot)] : (size_t)kc_rng_below(&s->rng, s->pairs);
    uint32_t src, dst;
    uint64_t bytes;
    kc_chanload_pair(s->cl, j, &src, &dst, &bytes);
    int flip = (int)kc_rng_below(&s->rng, 2);
    uint32_t mover = flip ? dst : src, anchor = flip ? src : dst;
    if (from_hot && kind == 4) { /* a hot end against anyone */
        *a = mover;
        *b = (uint32_t)kc_rng_below(&s->rng, s->nodes - 1);
        if (*b >= *a)
            (*b)++;
        return;
    }
    const uint32_t *tophys = kc_chanload_to_physical(s->cl), *tovirt = kc_chanload_to_virtual(s->cl);
    *a = mover;
    *b = tovirt[neighbour(s, tophys[anchor], &s->rng)];
    if (*b == *a)
        random_two(s, a, b);
}

static void step(search *s, uint32_t a, uint32_t b)
{
    s->work += kc_chanload_swap(s->cl, a, b);
    s->iters++;
}

static void descent(search *s, double upto)
{
    uint64_t stall = 0, stall_limit = (uint64_t)STALL_PER_NODE * s->nodes + 1000;
    kc_cost cur = kc_chanload_cost(s->cl);
    while (!over(s, upto) && stall < stall_limit) {
        if ((s->iters & 63) == 0)
            refresh_hot(s);
        uint32_t a, b;
        gen_move(s, &a, &b);
        step(s, a, b);
        kc_cost c = kc_chanload_cost(s->cl);
        if (kc_cost_cmp(&c, &cur) < 0) {
            cur = c;
            stall = 0;
            s->accepted++;
            note_best(s);
        } else {
            kc_chanload_undo(s->cl);
            stall++;
        }
    }
}

static double energy(const search *s, const kc_cost *c)
{
    double mx = (double)c->max;
    return (kc_cost_sumsq_double(c) + (double)s->nodes * mx * mx) / s->unit2;
}

/* The starting temperature: the mean energy rise of 64 seeded random
 * moves, each undone. */
static double first_temperature(search *s, double upto)
{
    kc_cost c0 = kc_chanload_cost(s->cl);
    double e0 = energy(s, &c0), sum = 0;
    int ups = 0;
    for (int i = 0; i < 64 && !over(s, upto); i++) {
        uint32_t a, b;
        gen_move(s, &a, &b);
        step(s, a, b);
        kc_cost c = kc_chanload_cost(s->cl);
        double de = energy(s, &c) - e0;
        if (de > 0) {
            sum += de;
            ups++;
        }
        kc_chanload_undo(s->cl);
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
        uint32_t a, b;
        gen_move(s, &a, &b);
        step(s, a, b);
        kc_cost c = kc_chanload_cost(s->cl);
        double de = energy(s, &c) - e;
        if (de <= 0 || kc_rng_unit(&s->rng) < exp(-de / temp)) {
            e += de;
            s->accepted++;
            note_best(s);
        } else
            kc_chanload_undo(s->cl);
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
    descent(s, PHASE1_END);
    anneal(s, PHASE2_END);
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
    kc_status st = kc_chanload_new(&s.cl, t, tr, err);
    if (st)
        return st;
    s.nodes = (uint32_t)t->nodes;
    s.pairs = kc_chanload_pairs(s.cl);
    s.best_map = malloc((size_t)s.nodes * sizeof *s.best_map);
    s.hot = malloc(HOT_CAP * sizeof *s.hot);
    st = (!s.best_map || !s.hot) ? kc_fail(err, KC_ENOMEM, "out of memory for the mapper") : KC_OK;
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
