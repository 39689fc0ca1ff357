/* general.c - kcube/mapgeneral.h: the starts of a general mapping and the
 * search from the best of them. */
#include "kcube/mapgeneral.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "gmap_internal.h"
#include "kcube/plan.h"
#include "kcube/scotchmap.h"

void kc_mapgen_opts_default(kc_mapgen_opts *o)
{
    memset(o, 0, sizeof *o);
    kc_gmap_opts_default(&o->search);
    o->use_scotch = 1;
    o->cap_at_scotch = 1;
}

static uint32_t *start_slot(kc_mapgen_result *r, const char *name, uint64_t nodes)
{
    uint32_t *p = malloc(nodes * sizeof *p);
    if (!p)
        return NULL;
    r->start_name[r->nstarts] = name;
    r->start_map[r->nstarts++] = p;
    return p;
}

/* kc_map's mapping of one kind. A kind that does not apply to these
 * communications (an input error of kc_map) is simply not a start. */
static kc_status algebraic_start(const kc_topology *t, const kc_comm *comms, int ncomms, kc_map_kind kind,
                                 uint64_t seed, kc_mapgen_result *r, kc_err *err)
{
    kc_map_opts o;
    kc_map_opts_default(&o);
    o.kind = kind;
    o.seed = seed;
    o.exact = 0;
    kc_map_result m;
    kc_err local = {0};
    double t0 = kci_seconds();
    kc_status st = kc_map(t, comms, ncomms, &o, &m, &local);
    if (st == KC_OK) {
        uint32_t *p = start_slot(r, kind == KC_MAP_REORDER ? "reorder" : "linear", t->nodes);
        if (!p)
            st = kc_fail(err, KC_ENOMEM, "out of memory");
        for (uint64_t v = 0; p && v < t->nodes; v++)
            p[v] = (uint32_t)kc_map_to_physical(&m, v);
        if (p)
            r->start_seconds[r->nstarts - 1] = kci_seconds() - t0;
    } else if (kc_status_is_input(st)) {
        st = KC_OK;
    } else {
        *err = local;
    }
    kc_map_result_free(&m);
    return st;
}

/* "scotch:def": the mapping plain scotch_gmap computes (Scotch's default
 * mode, kc_scotch_map_tool), which often differs from the deterministic
 * mode's; the result is never worse than it. */
static kc_status tool_start(const kc_topology *t, const kc_traffic *tr, uint64_t seed, kc_mapgen_result *r,
                            kc_err *err)
{
    double t0 = kci_seconds();
    uint32_t *p = start_slot(r, "scotch:def", kc_topology_slots(t));
    kc_status st = p ? kc_scotch_map_tool(t, tr, seed, p, NULL, err) : kc_fail(err, KC_ENOMEM, "out of memory");
    r->start_seconds[r->nstarts - 1] = kci_seconds() - t0;
    return st;
}

static kc_status build_starts(const kc_topology *t, const kc_traffic *tr, const kc_comm *comms, int ncomms,
                              const kc_mapgen_opts *o, kc_mapgen_result *r, kc_err *err)
{
    double t0 = kci_seconds();
    uint64_t slots = kc_topology_slots(t);
    uint32_t *id = start_slot(r, "identity", slots);
    if (!id)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint64_t v = 0; v < slots; v++)
        id[v] = (uint32_t)v;
    r->start_seconds[0] = kci_seconds() - t0;
    kc_status st = KC_OK;
    if (o->file_map) {
        uint32_t *p = start_slot(r, "file", slots);
        if (!p)
            return kc_fail(err, KC_ENOMEM, "out of memory");
        memcpy(p, o->file_map, slots * sizeof *p);
    }
    kc_err ignored = {0};
    if (ncomms > 0 && kc_topology_need_gf(t, "an algebraic start", &ignored) == KC_OK &&
        !(st = algebraic_start(t, comms, ncomms, KC_MAP_REORDER, o->search.seed, r, err)))
        st = algebraic_start(t, comms, ncomms, KC_MAP_LINEAR, o->search.seed, r, err);
    r->scotch_skipped = o->use_scotch && kc_scotch_available() && kc_scotch_graph_target(t) &&
                        t->nodes > KC_SCOTCH_GRAPH_TARGET_MAX;
    if (!st && o->use_scotch && kc_scotch_available() && !r->scotch_skipped) {
        t0 = kci_seconds();
        uint32_t *p = start_slot(r, "scotch", slots);
        r->scotch = r->nstarts - 1;
        st = p ? kc_scotch_map(t, tr, o->search.seed, p, err) : kc_fail(err, KC_ENOMEM, "out of memory");
        r->start_seconds[r->nstarts - 1] = kci_seconds() - t0;
        /* More Scotch seeds: Scotch's result varies much with its
         * seed, and on small networks a run costs little. */
        int runs = o->scotch_seeds > 0 ? o->scotch_seeds : slots <= 4096 ? KC_MAPGEN_SCOTCH_SEEDS : 1;
        for (int i = 1; !st && i < runs && i < KC_MAPGEN_SCOTCH_SEEDS; i++) {
            uint64_t seed = o->search.seed + 2 * (uint64_t)i;
            snprintf(r->scotch_name[i], sizeof r->scotch_name[i], "scotch:s%llu", (unsigned long long)seed);
            t0 = kci_seconds();
            p = start_slot(r, r->scotch_name[i], slots);
            st = p ? kc_scotch_map(t, tr, seed, p, err) : kc_fail(err, KC_ENOMEM, "out of memory");
            r->start_seconds[r->nstarts - 1] = kci_seconds() - t0;
        }
        if (!st)
            st = tool_start(t, tr, o->search.seed, r, err);
    }
    return st;
}

/* The reflected k-ary Gray code of the f-digit value u (digit 0 least
 * significant): digit i runs backwards while the value of the digits above
 * it is odd, so consecutive values differ in one digit by one. */
static uint64_t gray_field(uint64_t u, int k, int f)
{
    uint64_t g = 0, place = 1, above = u;
    for (int i = 0; i < f; i++) {
        uint64_t d = above % (uint64_t)k;
        above /= (uint64_t)k;
        g += ((above & 1) ? (uint64_t)k - 1 - d : d) * place;
        place *= (uint64_t)k;
    }
    return g;
}

/* "gray:f" for every f > 1 dividing n (equal sides, every axis a ring, one
 * endpoint per router and no allocation: hypercubes and tori). */
static kc_status gray_starts(const kc_topology *t, kc_mapgen_result *r, kc_err *err)
{
    if (t->kind == KC_TOPO_MESH || t->k < 2 || !kc_topology_is_plain(t))
        return KC_OK;
    for (int f = 2; f <= t->n; f++) {
        if (t->n % f)
            continue;
        double t0 = kci_seconds();
        snprintf(r->gray_name[f - 1], sizeof r->gray_name[f - 1], "gray:%d", f);
        uint32_t *p = start_slot(r, r->gray_name[f - 1], t->nodes);
        if (!p)
            return kc_fail(err, KC_ENOMEM, "out of memory");
        uint64_t field = 1;
        for (int i = 0; i < f; i++)
            field *= (uint64_t)t->k;
        for (uint64_t v = 0; v < t->nodes; v++) {
            uint64_t rest = v, node = 0, place = 1;
            for (int j = 0; j < t->n / f; j++, rest /= field, place *= field)
                node += gray_field(rest % field, t->k, f) * place;
            p[v] = (uint32_t)node;
        }
        r->start_seconds[r->nstarts - 1] = kci_seconds() - t0;
    }
    return KC_OK;
}

/* "fold:AxB[xC]" when the traffic is a grid halo (gridfold.c). */
static kc_status fold_start(const kc_topology *t, const kc_traffic *tr, const kc_mapgen_opts *o, kc_mapgen_result *r,
                            kc_err *err)
{
    double t0 = kci_seconds();
    kc_topology grid;
    kci_slot_grid(t, &grid);
    uint32_t *p = start_slot(r, r->fold_name, grid.nodes);
    if (!p)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    int found = 0;
    kc_status st = kci_fold_start(t, &grid, tr, o->search.group, o->search.groups, o->search.separate, p, r->fold_name,
                                  sizeof r->fold_name, &found, err);
    if (st || !found) {
        free(p);
        r->nstarts--;
        return st;
    }
    r->start_seconds[r->nstarts - 1] = kci_seconds() - t0;
    return KC_OK;
}

kc_status kc_mapgen_run(const kc_topology *t, const kc_traffic *tr, const kc_comm *comms, int ncomms,
                        const kc_mapgen_opts *opts, kc_mapgen_result *res, kc_err *err)
{
    memset(res, 0, sizeof *res);
    res->scotch = -1;
    kc_mapgen_opts def;
    if (!opts) {
        kc_mapgen_opts_default(&def);
        opts = &def;
    }
    if (tr->ranks > kc_topology_slots(t) || (kc_topology_is_plain(t) && tr->ranks != t->nodes))
        return kc_fail_param(err, KC_EINVAL, "traffic", "the traffic has %llu ranks, the network %llu %s",
                             (unsigned long long)tr->ranks, (unsigned long long)kc_topology_slots(t),
                             kc_topology_is_plain(t) ? "nodes" : "slots");
    kc_status st = build_starts(t, tr, comms, ncomms, opts, res, err);
    if (!st)
        st = gray_starts(t, res, err);
    if (!st)
        st = fold_start(t, tr, opts, res, err);
    if (st)
        return st;
    kc_gmap_opts search = opts->search;
    search.hops_cap_start = opts->cap_at_scotch ? res->scotch : -1;
    kc_gmap_start starts[KC_MAPGEN_MAX_STARTS];
    for (int i = 0; i < res->nstarts; i++)
        starts[i] = (kc_gmap_start){res->start_name[i], res->start_map[i]};
    double t0 = kci_seconds();
    st = kc_gmap_run(t, tr, starts, res->nstarts, &search, &res->search, err);
    res->search_seconds = kci_seconds() - t0;
    res->hops_cap = st ? 0 : res->search.hops_cap;
    return st;
}

/* ---- algebraic starts for any input ------------------------------------------ */

#define FIND_MAX_MESSAGES (1u << 24)

typedef struct dmsg {
    uint32_t d, idx; /* src ^ dst, message index */
} dmsg;

static int dmsg_cmp(const void *a, const void *b)
{
    const dmsg *x = a, *y = b;
    return x->d != y->d ? (x->d > y->d ? 1 : -1) : (x->idx > y->idx) - (x->idx < y->idx);
}

/* A (c e_j) packed (m bits a digit), for every digit value c of column j:
 * then A x + b is b XOR the table entries of x's digits, O(n) a rank. */
static void column_table(const kc_gf *f, const kc_gfmat *a, int n, int m, uint32_t *tab)
{
    int k = 1 << m;
    for (int j = 0; j < n; j++)
        for (int c = 0; c < k; c++) {
            uint32_t y = 0;
            for (int i = 0; i < n; i++)
                y |= (uint32_t)kc_gf_mul(f, a->e[i][j], (unsigned)c) << (m * i);
            tab[j * k + c] = y;
        }
}

/* The state of one find_in_set call: the set, its self-free messages sorted
 * by difference, and the scratch arrays over the ranks. */
typedef struct find_ctx {
    const kc_topology *t;
    const kc_gf *f;
    const kc_traffic *tr;
    const uint32_t *idx; /* the set: message indices into tr */
    size_t cnt;
    uint32_t nodes;
    int n, m;            /* digits, bits a digit */
    dmsg *dm;            /* the set's non-self messages, by difference */
    size_t nd;
    uint32_t *per;       /* messages of the current difference per rank */
    uint32_t *fx;        /* the residual function */
    uint8_t *used;       /* set members taken by a translation */
    kc_comm *out;
    int max_out, found;
} find_ctx;

/* Allocates the scratch arrays and sorts the set's non-self messages by
 * difference. Returns 0, or -1 on ENOMEM (find_teardown frees what was
 * allocated). O(cnt log cnt + nodes). */
static int find_setup(find_ctx *c)
{
    while ((1 << c->m) < c->t->k)
        c->m++;
    size_t cnt = c->cnt;
    c->dm = malloc((cnt ? cnt : 1) * sizeof *c->dm);
    c->per = calloc(c->nodes, sizeof *c->per);
    c->fx = malloc(c->nodes * sizeof *c->fx);
    c->used = calloc(cnt ? cnt : 1, 1);
    if (!c->dm || !c->per || !c->fx || !c->used)
        return -1;
    for (size_t i = 0; i < cnt; i++) {
        uint32_t s = c->tr->src[c->idx[i]], d = c->tr->dst[c->idx[i]];
        if (s != d)
            c->dm[c->nd++] = (dmsg){s ^ d, (uint32_t)i};
    }
    qsort(c->dm, c->nd, sizeof *c->dm, dmsg_cmp);
    return 0;
}

/* Frees find_setup's arrays (those not allocated are NULL). */
static void find_teardown(find_ctx *c)
{
    free(c->dm);
    free(c->per);
    free(c->fx);
    free(c->used);
}

/* How many times every rank sends the difference of dm[lo..hi), and marks
 * that many messages of each rank used. Leaves per zeroed. O(hi-lo+nodes). */
static uint32_t translation_times(find_ctx *c, size_t lo, size_t hi)
{
    const kc_traffic *tr = c->tr;
    for (size_t q = lo; q < hi; q++)
        c->per[tr->src[c->idx[c->dm[q].idx]]]++;
    uint32_t times = UINT32_MAX;
    for (uint32_t v = 0; v < c->nodes; v++)
        times = c->per[v] < times ? c->per[v] : times;
    memset(c->per, 0, c->nodes * sizeof *c->per);
    if (times == 0)
        return 0;
    for (size_t q = lo; q < hi; q++) {
        uint32_t s = tr->src[c->idx[c->dm[q].idx]];
        if (c->per[s] < times) {
            c->per[s]++;
            c->used[c->dm[q].idx] = 1;
        }
    }
    memset(c->per, 0, c->nodes * sizeof *c->per);
    return times;
}

/* Writes the translation x -> x XOR d as the next communication. Returns 0,
 * or -2 when out is full or the communication cannot be built. */
static int emit_translation(find_ctx *c, uint32_t d)
{
    if (c->found >= c->max_out)
        return -2;
    kc_tcomm tc;
    kc_gfmat a;
    uint8_t b[KC_GFMAT_MAX] = {0};
    kc_gfmat_identity(&a, c->n);
    for (int i = 0; i < c->n; i++)
        b[i] = (uint8_t)((d >> (c->m * i)) & ((1u << c->m) - 1));
    kc_comm *o = &c->out[c->found];
    if (kc_tcomm_init(&tc, c->f, &a, b, 0, NULL) || kc_comm_from_tcomm(o, c->t, &tc, NULL))
        return -2;
    snprintf(o->name, sizeof o->name, "translation %u", d);
    c->found++;
    return 0;
}

/* Translations: a difference every rank sends, peeled min-count times.
 * Returns 0 or -2 (out full). */
static int peel_translations(find_ctx *c)
{
    for (size_t lo = 0, hi; lo < c->nd; lo = hi) {
        for (hi = lo; hi < c->nd && c->dm[hi].d == c->dm[lo].d; hi++)
            ;
        if (hi - lo < c->nodes)
            continue;
        uint32_t times = translation_times(c, lo, hi);
        for (uint32_t r = 0; r < times; r++)
            if (emit_translation(c, c->dm[lo].d))
                return -2;
    }
    return 0;
}

/* The messages left by the translations as one function fx of the source
 * (duplicates of a message allowed). Returns 1 when there are any, 0 when
 * none, -2 when a source sends to two destinations. */
static int residual_function(find_ctx *c)
{
    for (uint32_t v = 0; v < c->nodes; v++)
        c->fx[v] = v;
    memset(c->per, 0, c->nodes * sizeof *c->per);
    int rest = 0;
    for (size_t i = 0; i < c->cnt; i++) {
        uint32_t s = c->tr->src[c->idx[i]], d = c->tr->dst[c->idx[i]];
        if (c->used[i] || s == d)
            continue;
        if (c->per[s] && c->fx[s] != d)
            return -2;
        c->per[s] = 1;
        c->fx[s] = d;
        rest = 1;
    }
    return rest;
}

/* Whether A x + fx(0) equals fx(x) at every rank x. Returns 1 when it does,
 * 0 when not, -1 on ENOMEM. O(nodes n). */
static int affine_matches(const find_ctx *c, const kc_gfmat *a)
{
    int k = c->t->k, n = c->n, m = c->m;
    uint32_t mask = (1u << m) - 1;
    uint32_t *tab = malloc((size_t)n * (size_t)k * sizeof *tab);
    if (!tab)
        return -1;
    column_table(c->f, a, n, m, tab);
    uint32_t bad = 0;
    for (uint32_t v = 0; v < c->nodes && !bad; v++) {
        uint32_t y = c->fx[0];
        for (int j = 0; j < n; j++)
            y ^= tab[j * k + ((v >> (m * j)) & mask)];
        bad = y != c->fx[v];
    }
    free(tab);
    return !bad;
}

/* Fits x -> A x + b to the residual function (b = fx(0), column j of A from
 * the unit vector of digit j), checks it at every rank and writes it as the
 * communication "linear". Returns 0, -1 on ENOMEM, -2 when fx is not affine
 * or out is full. */
static int emit_linear(find_ctx *c)
{
    if (c->found >= c->max_out)
        return -2;
    int n = c->n, m = c->m;
    kc_gfmat a;
    uint8_t b[KC_GFMAT_MAX] = {0};
    kc_gfmat_zero(&a, n);
    uint32_t mask = (1u << m) - 1;
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)((c->fx[0] >> (m * i)) & mask);
    for (int j = 0; j < n; j++) {
        uint32_t col = c->fx[1u << (m * j)] ^ c->fx[0];
        for (int i = 0; i < n; i++)
            a.e[i][j] = (uint8_t)((col >> (m * i)) & mask);
    }
    int ok = affine_matches(c, &a);
    if (ok <= 0)
        return ok < 0 ? -1 : -2;
    kc_tcomm tc;
    kc_comm *o = &c->out[c->found];
    if (kc_tcomm_init(&tc, c->f, &a, b, 0, NULL) || kc_comm_from_tcomm(o, c->t, &tc, NULL))
        return -2;
    snprintf(o->name, sizeof o->name, "linear");
    c->found++;
    return 0;
}

/* One message set: the indices idx[0..cnt) of tr. Returns the number of
 * communications written to out (0: only self messages), -2 when the set
 * is not such a union (or needs more than max_out), -1 on ENOMEM. */
static int find_in_set(const kc_topology *t, const kc_gf *f, const kc_traffic *tr, const uint32_t *idx, size_t cnt,
                       kc_comm *out, int max_out)
{
    find_ctx c = {.t = t, .f = f, .tr = tr, .idx = idx, .cnt = cnt, .nodes = (uint32_t)t->nodes, .n = t->n,
                  .out = out, .max_out = max_out};
    int st = find_setup(&c);
    if (!st)
        st = peel_translations(&c);
    if (!st) {
        st = residual_function(&c);
        if (st == 1)
            st = emit_linear(&c);
    }
    find_teardown(&c);
    return st ? st : c.found;
}

kc_status kc_mapgen_find_lcc(const kc_topology *t, const kc_traffic *tr, size_t first, size_t count, kc_comm *out,
                             int max_out, int *found, kc_err *err)
{
    *found = 0;
    kc_err ignored = {0};
    kc_gf f;
    if (count == 0 || count > FIND_MAX_MESSAGES || first + count > tr->count || tr->ranks != t->nodes ||
        t->nodes > KC_CHANLOAD_MAX_NODES || kc_topology_need_gf(t, "an algebraic start", &ignored) ||
        kc_gf_init(&f, t->k, &ignored))
        return KC_OK;
    uint32_t *idx = malloc(count * sizeof *idx);
    if (!idx)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    uint32_t groups = tr->group ? tr->groups : 1;
    for (uint32_t g = 0; g < groups; g++) {
        size_t cnt = 0;
        for (size_t i = first; i < first + count; i++)
            if (!tr->group || tr->group[i] == g)
                idx[cnt++] = (uint32_t)i;
        if (!cnt)
            continue;
        int got = find_in_set(t, &f, tr, idx, cnt, out + *found, max_out - *found);
        if (got == -1) {
            free(idx);
            return kc_fail(err, KC_ENOMEM, "out of memory");
        }
        if (got == -2) { /* one set is not linear: the whole traffic is not such a union */
            *found = 0;
            break;
        }
        *found += got;
    }
    free(idx);
    return KC_OK;
}

void kc_mapgen_result_free(kc_mapgen_result *res)
{
    for (int i = 0; i < res->nstarts; i++)
        free(res->start_map[i]);
    kc_gmap_result_free(&res->search);
    memset(res, 0, sizeof *res);
    res->scotch = -1;
}
