/* gridfold.c - the "fold" start of a general mapping (docs/plan.md): when the
 * traffic is a halo exchange on a process grid, embed the grid in the
 * network by splitting every side into prime factors and matching them.
 *
 * Why: Scotch and the swap search only find the structured embeddings that
 * take a grid of one shape onto a network of another (a periodic 8x8 halo
 * on a 4x4x4 torus with every message one hop, a 16x16x16 grid on an
 * 8-ary 4-cube with a few two-hop folds) by luck. The construction is the
 * textbook one: each grid axis of side g is given network "slots" (the
 * prime factors of the network's sides) whose product is g; its coordinate
 * becomes the slots' digits in reflected mixed-radix Gray order, so that
 * neighbours on the grid differ by one in one digit; each network axis
 * reads its slots' digits back as a position by the same reflected order.
 * Where a grid axis owns a whole network axis the step is one hop; a digit
 * of a shared axis may cost more. Which grid axis claims which slots is a
 * choice, so several claims are counted exactly and the best is the start.
 *
 * On general networks the grid is folded into the slots' grid
 * (kci_slot_grid): C endpoints of a router are an innermost axis of side
 * C, so a 2 x ... process grid folds its factor 2 onto the two endpoints of
 * a router, and an allocation that is a box folds as that box.
 *
 * Detection: every ordered factorisation of the node count into 1 to 4
 * sides >= 2 is a candidate grid (axis 0 fastest); it fits when at least
 * 90 % of the messages go to a grid neighbour (each coordinate changed by
 * at most one, wrapping); among fitting grids the one whose messages change
 * the fewest coordinates is the process grid (a factorisation that splits
 * a true axis makes its wrap steps change two).
 *
 * Costs: detection O(F M) with F the ordered factorisations into at most
 * three sides (at most 231 below 2^20 nodes), and into four (at most a
 * few thousand for powers of two, more for many distinct primes) only
 * when none of those fits (early exit once a
 * candidate misses 10 %); each claim counted costs one exact recount,
 * O(E D + n N) (kcube/chanload.h); at most FOLD_MAX_TRIES claims, fewer on
 * big traffics (FOLD_WORK_CAP). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmap_internal.h"
#include "kcube/chanload.h"

#define FOLD_MAX_DIMS 4
#define FOLD_MAX_SLOTS 64         /* prime factors of the node count (<= 2^32 nodes: 32) */
#define FOLD_MAX_TRIES 576        /* claims counted at most */
#define FOLD_WORK_CAP 400000000.0 /* channel-hop updates for all recounts together */

typedef struct fold_grid {
    int dims;
    uint64_t side[FOLD_MAX_DIMS];
} fold_grid;

/* Network slots: slot s is a prime factor `radix` of axis `axis`. */
typedef struct fold_slots {
    int count;
    int axis[FOLD_MAX_SLOTS];
    int radix[FOLD_MAX_SLOTS];
    int first[KC_TOPO_MAX_DIMS], nslots[KC_TOPO_MAX_DIMS]; /* each axis's slots, ascending */
} fold_slots;

/* One claim: grid axis i owns slots list[i][0..len[i]), lowest digit first. */
typedef struct fold_claim {
    int len[FOLD_MAX_DIMS];
    int list[FOLD_MAX_DIMS][FOLD_MAX_SLOTS];
} fold_claim;

static void network_slots(const kc_topology *t, fold_slots *s)
{
    s->count = 0;
    for (int j = 0; j < t->n; j++) {
        s->first[j] = s->count;
        int v = t->side[j];
        for (int p = 2; v > 1; p++)
            while (v % p == 0) {
                s->axis[s->count] = j;
                s->radix[s->count++] = p;
                v /= p;
            }
        s->nslots[j] = s->count - s->first[j];
    }
}

/* Does grid g fit the traffic? *changed gets the coordinates its messages
 * change (summed); returns 0 when more than 10 % of the messages miss. */
static int grid_fits(const kc_traffic *tr, const fold_grid *g, uint64_t *changed)
{
    size_t miss = 0, allowed = tr->count / 10, real = 0;
    uint64_t ch = 0;
    for (size_t m = 0; m < tr->count; m++) {
        uint64_t a = tr->src[m], b = tr->dst[m];
        if (a == b)
            continue;
        real++;
        int ok = 1;
        for (int i = 0; i < g->dims; i++) {
            uint64_t x = a % g->side[i], y = b % g->side[i];
            a /= g->side[i];
            b /= g->side[i];
            if (x == y)
                continue;
            uint64_t d = x > y ? x - y : y - x;
            if (d != 1 && d != g->side[i] - 1) {
                ok = 0;
                break;
            }
            ch++;
        }
        if (!ok && ++miss > allowed)
            return 0;
    }
    *changed = ch;
    return real > 0;
}

/* Keep g when it fits and changes fewer coordinates than the best so far. */
static void try_grid(const kc_traffic *tr, const fold_grid *g, fold_grid *best, uint64_t *best_changed, int *have)
{
    uint64_t changed;
    if (grid_fits(tr, g, &changed) && changed < *best_changed) {
        *best = *g;
        *best_changed = changed;
        *have = 1;
    }
}

/* Every ordered factorisation of `rest` into `left` more sides >= 2
 * after the `g->dims` already chosen, each tried as a grid. */
static void try_factorisations(const kc_traffic *tr, fold_grid *g, uint64_t rest, int left, fold_grid *best,
                               uint64_t *best_changed, int *have)
{
    if (left == 1) {
        g->side[g->dims++] = rest;
        try_grid(tr, g, best, best_changed, have);
        g->dims--;
        return;
    }
    for (uint64_t a = 2; a <= rest / 2; a++)
        if (rest % a == 0) {
            g->side[g->dims++] = a;
            try_factorisations(tr, g, rest / a, left - 1, best, best_changed, have);
            g->dims--;
        }
}

/* The best fitting grid (fewest coordinates changed, then fewer axes). */
static int detect_grid(const kc_traffic *tr, uint64_t nodes, fold_grid *best)
{
    uint64_t best_changed = UINT64_MAX;
    int have = 0;
    /* four axes only when no grid of three or fewer fits: their
     * factorisations are many more, and a fitting smaller grid is kept */
    for (int dims = 1; dims <= FOLD_MAX_DIMS && !(have && dims == FOLD_MAX_DIMS); dims++) {
        fold_grid g = {.dims = 0};
        try_factorisations(tr, &g, nodes, dims, best, &best_changed, &have);
    }
    return have;
}

/* Claim slots for the grid axes taken in order `gorder`, network axes
 * scanned in order `norder`; whole_first: a grid axis first takes whole
 * free network axes whose side divides what it still needs. */
static int make_claim(const kc_topology *t, const fold_slots *s, const fold_grid *g, const int *gorder,
                      const int *norder, int whole_first, fold_claim *c)
{
    char used[FOLD_MAX_SLOTS] = {0};
    memset(c, 0, sizeof *c);
    for (int q = 0; q < g->dims; q++) {
        int i = gorder[q];
        uint64_t need = g->side[i];
        for (int pass = whole_first ? 0 : 1; pass < 2; pass++)
            for (int r = 0; r < t->n && need > 1; r++) {
                int j = norder[r], f = s->first[j], cnt = s->nslots[j];
                if (pass == 0) {
                    int freeall = 1;
                    for (int u = 0; u < cnt; u++)
                        freeall &= !used[f + u];
                    if (!freeall || need % (uint64_t)t->side[j])
                        continue;
                    for (int u = 0; u < cnt; u++) {
                        used[f + u] = 1;
                        c->list[i][c->len[i]++] = f + u;
                    }
                    need /= (uint64_t)t->side[j];
                } else {
                    for (int u = 0; u < cnt && need > 1; u++)
                        if (!used[f + u] && need % (uint64_t)s->radix[f + u] == 0) {
                            used[f + u] = 1;
                            c->list[i][c->len[i]++] = f + u;
                            need /= (uint64_t)s->radix[f + u];
                        }
                }
            }
        if (need != 1)
            return 0;
    }
    return 1;
}

/* Spread claim: the grid axes (in order gorder) take one slot at a time in
 * turn, each from the next network axis round the order norder, so every
 * grid axis gets low digits on several network axes. only_first: the first
 * grid axis alone is spread and the others fill what is left in order (an
 * 8x8x8 grid on a 32x16 mesh: c's digits lowest on both sides, a and b
 * above them, so every message crosses 1, 2 or 4 channels). */
static int spread_claim(const kc_topology *t, const fold_slots *s, const fold_grid *g, const int *gorder,
                        const int *norder, int only_first, fold_claim *c)
{
    char used[FOLD_MAX_SLOTS] = {0};
    uint64_t need[FOLD_MAX_DIMS];
    memset(c, 0, sizeof *c);
    for (int i = 0; i < g->dims; i++)
        need[i] = g->side[i];
    for (int turn = 0, progress = 1; progress;) {
        progress = 0;
        for (int q = 0; q < (only_first ? 1 : g->dims); q++) {
            int i = gorder[q];
            for (int r = 0; r < t->n && need[i] > 1; r++) {
                int j = norder[(turn + r) % t->n], f = s->first[j], got = 0;
                for (int u = 0; u < s->nslots[j] && !got; u++)
                    if (!used[f + u] && need[i] % (uint64_t)s->radix[f + u] == 0) {
                        used[f + u] = 1;
                        c->list[i][c->len[i]++] = f + u;
                        need[i] /= (uint64_t)s->radix[f + u];
                        got = progress = 1;
                    }
                if (got)
                    break;
            }
            turn++;
        }
    }
    /* only_first: the others fill the free slots in order */
    for (int q = only_first; q < g->dims; q++) {
        int i = gorder[q];
        for (int r = 0; r < t->n && need[i] > 1; r++)
            for (int u = s->first[norder[r]]; u < s->first[norder[r]] + s->nslots[norder[r]] && need[i] > 1; u++)
                if (!used[u] && need[i] % (uint64_t)s->radix[u] == 0) {
                    used[u] = 1;
                    c->list[i][c->len[i]++] = u;
                    need[i] /= (uint64_t)s->radix[u];
                }
    }
    for (int i = 0; i < g->dims; i++)
        if (need[i] != 1)
            return 0;
    return 1;
}

/* to_physical of a claim: grid coordinate -> reflected digits -> each
 * network axis's position by the reflected order of its own slots. */
static void claim_map(const kc_topology *t, const fold_slots *s, const fold_grid *g, const fold_claim *c,
                      uint32_t *out)
{
    int digit[FOLD_MAX_SLOTS];
    for (uint64_t v = 0; v < t->nodes; v++) {
        uint64_t rest = v;
        for (int i = 0; i < g->dims; i++) {
            uint64_t x = rest % g->side[i];
            rest /= g->side[i];
            /* reflected encode: a digit runs backwards while the value above it is odd */
            uint64_t above = x;
            for (int u = 0; u < c->len[i]; u++) {
                int sl = c->list[i][u], r = s->radix[sl];
                uint64_t d = above % (uint64_t)r;
                above /= (uint64_t)r;
                digit[sl] = (int)((above & 1) ? (uint64_t)r - 1 - d : d);
            }
        }
        uint64_t node = 0, place = 1;
        for (int j = 0; j < t->n; j++) {
            /* reflected decode, most significant slot first */
            uint64_t pos = 0;
            for (int u = s->nslots[j] - 1; u >= 0; u--) {
                int sl = s->first[j] + u, r = s->radix[sl];
                int e = (pos & 1) ? r - 1 - digit[sl] : digit[sl];
                pos = pos * (uint64_t)r + (uint64_t)e;
            }
            node += pos * place;
            place *= (uint64_t)t->side[j];
        }
        out[v] = (uint32_t)node;
    }
}

/* Next permutation in lexicographic order; 0 after the last. */
static int next_perm(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int tmp = a[i];
    a[i] = a[j];
    a[j] = tmp;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        tmp = a[l];
        a[l] = a[r];
        a[r] = tmp;
    }
    return 1;
}

kc_status kci_fold_start(const kc_topology *net, const kc_topology *grid, const kc_traffic *tr, const uint32_t *group,
                         uint32_t groups, int separate, uint32_t *out, char *name, size_t namesz, int *found,
                         kc_err *err)
{
    const kc_topology *t = grid; /* the geometry the grid is folded into; net counts */
    *found = 0;
    if (t->nodes > KC_CHANLOAD_MAX_NODES || t->nodes < 4 || tr->count == 0 || tr->ranks != t->nodes)
        return KC_OK;
    fold_grid g;
    if (!detect_grid(tr, t->nodes, &g))
        return KC_OK;
    fold_slots s;
    network_slots(t, &s);
    kc_chanload *cl = NULL;
    kc_status st = separate && group ? kc_chanload_new_layered(&cl, net, tr, group, groups, err)
                                     : kc_chanload_new(&cl, net, tr, err);
    if (st)
        return kc_status_is_input(st) ? (*err = (kc_err){0}, KC_OK) : st;
    uint32_t *cand = malloc(t->nodes * sizeof *cand);
    if (!cand) {
        kc_chanload_free(cl);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    /* Network axis orders: all of them when sides differ (a mesh), else the
     * one (equal sides are symmetric); at most 4! of them. */
    int equal = 1;
    for (int j = 1; j < t->n; j++)
        equal &= t->side[j] == t->side[0];
    double per = (double)kc_chanload_pairs(cl) * (double)(t->n * t->side[0]) + (double)t->n * (double)t->nodes;
    int tries_left = (int)(FOLD_WORK_CAP / (per > 1 ? per : 1));
    if (tries_left > FOLD_MAX_TRIES)
        tries_left = FOLD_MAX_TRIES;
    if (tries_left < 1)
        tries_left = 1;
    kc_cost best = {0};
    int norder[KC_TOPO_MAX_DIMS];
    for (int j = 0; j < t->n; j++)
        norder[j] = j;
    do {
        int gorder[FOLD_MAX_DIMS];
        for (int i = 0; i < g.dims; i++)
            gorder[i] = i;
        do {
            /* policies: whole axes first, plain fill, all spread, the first spread */
            for (int pol = 0; pol < 4 && tries_left > 0; pol++) {
                fold_claim c;
                if (!(pol >= 2 ? spread_claim(t, &s, &g, gorder, norder, pol == 3, &c)
                               : make_claim(t, &s, &g, gorder, norder, pol == 0, &c)))
                    continue;
                claim_map(t, &s, &g, &c, cand);
                tries_left--;
                if ((st = kc_chanload_set(cl, cand, err)))
                    goto done;
                kc_cost cost = kc_chanload_cost(cl);
                if (!*found || kc_cost_cmp(&cost, &best) < 0) {
                    best = cost;
                    memcpy(out, cand, t->nodes * sizeof *out);
                    *found = 1;
                }
            }
        } while (tries_left > 0 && next_perm(gorder, g.dims));
    } while (tries_left > 0 && !equal && t->n <= 4 && next_perm(norder, t->n));
    if (*found) {
        int len = snprintf(name, namesz, "fold:%llu", (unsigned long long)g.side[0]);
        for (int i = 1; i < g.dims && len > 0 && (size_t)len < namesz; i++)
            len += snprintf(name + len, namesz - (size_t)len, "x%llu", (unsigned long long)g.side[i]);
    }
done:
    free(cand);
    kc_chanload_free(cl);
    return st;
}
