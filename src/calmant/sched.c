/* CALMANT schedules and their verifier (kcube/calmant_sched.h). */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "kcube/calmant_cost.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"

#include "calmant_internal.h"

void kc_calmant_sched_free(kc_calmant_sched *s)
{
    free(s->msg);
    memset(s, 0, sizeof *s);
}

kc_status kc_calmant_sched_add(kc_calmant_sched *s, uint32_t step, uint32_t src, uint32_t dst, kc_err *err)
{
    if (KCI_RESERVE(s->msg, s->cap, s->count + 1, 1024))
        return kc_fail(err, KC_ENOMEM, "out of memory (schedule)");
    s->msg[s->count++] = (kc_calmant_msg){step, src, dst};
    if (step + 1 > s->steps)
        s->steps = step + 1;
    return KC_OK;
}

static kc_status check_sched_input(const kc_calmant *g, kc_calmant_task t, int line, kc_err *err)
{
    if (g->emb != KC_CALMANT_STANDARD)
        return kc_fail_param(err, KC_EINVAL, "embedding", "the schedules assume the standard embedding");
    if (line && g->c != 1)
        return kc_fail_param(err, KC_EINVAL, "c", "this schedule is for lines (c = 1), not c = %d", g->c);
    return kc_calmant_task_check(t, g->d, err);
}

/* Fig. 3: a node's group starts at step 2 (m mod 2^i); which of its two
 * dimensions comes first depends on whether bits i and i+1 agree. */
kc_status kc_calmant_sched_line2(const kc_calmant *g, int i, uint32_t base, kc_calmant_sched *s, kc_err *err)
{
    kc_status st = check_sched_input(g, (kc_calmant_task){i, 2}, 1, err);
    for (uint64_t m = 0; !st && m < g->nodes; m++) {
        uint32_t s0 = base + 2 * (uint32_t)(m & ((1ULL << i) - 1));
        int same = ((m >> i) & 1) == ((m >> (i + 1)) & 1);
        uint32_t up = (uint32_t)(m ^ (2ULL << i)), low = (uint32_t)(m ^ (1ULL << i));
        st = kc_calmant_sched_add(s, s0, (uint32_t)m, same ? up : low, err);
        if (!st)
            st = kc_calmant_sched_add(s, s0 + 1, (uint32_t)m, same ? low : up, err);
    }
    if (!st && s->steps < base + (2u << i))
        s->steps = base + (2u << i);
    return st;
}

/* Section 3.2.2 (reconstructed): the 2^i groups m mod 2^i take one step each. */
kc_status kc_calmant_sched_line1(const kc_calmant *g, int i, uint32_t base, kc_calmant_sched *s, kc_err *err)
{
    kc_status st = check_sched_input(g, (kc_calmant_task){i, 1}, 1, err);
    for (uint64_t m = 0; !st && m < g->nodes; m++)
        st = kc_calmant_sched_add(s, base + (uint32_t)(m & ((1ULL << i) - 1)), (uint32_t)m,
                                  (uint32_t)(m ^ (1ULL << i)), err);
    if (!st && s->steps < base + (1u << i))
        s->steps = base + (1u << i);
    return st;
}

static int floor_div(int a, int c)
{
    return a >= 0 ? a / c : -((-a + c - 1) / c);
}

/* Group of node m on the axis of dimension k: its coordinate mod 2^floor(k/c)
 * (0 for a dimension below 0, which only the c < x < 2c case names). */
static uint64_t group_of(const kc_calmant *g, uint64_t m, int k)
{
    int beta = floor_div(k, g->c), a = ((k % g->c) + g->c) % g->c;
    return beta < 0 ? 0 : kc_calmant_coord(g, m, a) & ((1ULL << beta) - 1);
}

/* <i,4>_3 with LB 4 (i <= 5), where Property 3's windows do not fit: axis
 * P = i mod 3 carries dimensions i and i+3 (Fig. 3 in two steps), axes A, B
 * one dimension each (i+1, i+2). With the groups p, a, b of the three axes
 * (coordinate mod 2^floor(k/3): p < 2, a, b < 4) and o = p + a + b, a node
 * uses A in step o, B in o+2 and P in o+1 (first) and o+3 (second), mod 4.
 * Nodes of one A line differ only in a, so their A steps differ (likewise
 * B); the two P groups of a P line take the odd and the even offsets. */
static kc_status sched_c3x4(const kc_calmant *g, int i, uint32_t base, kc_calmant_sched *s, kc_err *err)
{
    int ap = i % 3, bp = i / 3;
    kc_status st = KC_OK;
    for (uint64_t n = 0; !st && n < g->nodes; n++) {
        uint64_t m = kc_calmant_to_physical(g, n), cp = kc_calmant_coord(g, m, ap);
        uint64_t o = group_of(g, m, i) + group_of(g, m, i + 1) + group_of(g, m, i + 2);
        int same = ((cp >> bp) & 1) == ((cp >> (bp + 1)) & 1);
        uint32_t lo = (uint32_t)(n ^ (1ULL << i)), up = (uint32_t)(n ^ (8ULL << i));
        st = kc_calmant_sched_add(s, base + (uint32_t)(o % 4), (uint32_t)n, (uint32_t)(n ^ (2ULL << i)), err);
        if (!st)
            st = kc_calmant_sched_add(s, base + (uint32_t)((o + 2) % 4), (uint32_t)n, (uint32_t)(n ^ (4ULL << i)), err);
        if (!st)
            st = kc_calmant_sched_add(s, base + (uint32_t)((o + 1) % 4), (uint32_t)n, same ? up : lo, err);
        if (!st)
            st = kc_calmant_sched_add(s, base + (uint32_t)((o + 3) % 4), (uint32_t)n, same ? lo : up, err);
    }
    if (!st && s->steps < base + 4)
        s->steps = base + 4;
    return st;
}

/* Section 4.2: x <= c one step per axis (Property 2); x = 2c and c < x < 2c
 * two steps per axis, run on the axis as a line (Properties 1 and 3). */
static kc_status sched_mesh_subtask(const kc_calmant *g, kc_calmant_task t, uint32_t base, kc_calmant_sched *s,
                                    kc_err *err)
{
    int c = g->c, x = t.m;
    uint64_t lb = kc_calmant_lower_bound(t.i, x, c);
    if (c == 3 && x == 4 && lb == 4)
        return sched_c3x4(g, t.i, base, s, err);
    int klo = x <= c ? t.i : t.i + x - 2 * c, khi = x <= c ? t.i + x - 1 : t.i + x - c - 1;
    uint64_t period = x <= c ? lb : (x == 2 * c ? lb / 2 : (lb + 1) / 2);
    /* A node needs one two-step window per axis: ceil(LB/2) >= c windows
     * everywhere but <i,4>_3 with LB 4, built above. */
    uint32_t used = x <= c ? (uint32_t)lb : 2 * (uint32_t)period;
    kc_status st = KC_OK;
    for (uint64_t n = 0; !st && n < g->nodes; n++) {
        uint64_t m = kc_calmant_to_physical(g, n), sum = 0;
        for (int k = klo; k <= khi; k++)
            sum += group_of(g, m, k);
        for (int k = klo; !st && k <= khi; k++) {
            /* the paper's (sum + k) mod period; k may be negative (c < x < 2c) */
            int64_t p = (int64_t)period, key = (((int64_t)sum + k) % p + p) % p;
            if (x <= c) {
                st = kc_calmant_sched_add(s, base + (uint32_t)key, (uint32_t)n, (uint32_t)(n ^ (1ULL << k)), err);
                continue;
            }
            uint32_t s0 = base + 2 * (uint32_t)key;
            int beta = floor_div(k, c), a = ((k % c) + c) % c;
            uint64_t coord = kc_calmant_coord(g, m, a);
            uint32_t up = (uint32_t)(n ^ (1ULL << (k + c)));
            if (k >= t.i) { /* dimensions k and k + c: Fig. 3 on the axis */
                int same = ((coord >> beta) & 1) == ((coord >> (beta + 1)) & 1);
                uint32_t low = (uint32_t)(n ^ (1ULL << k));
                st = kc_calmant_sched_add(s, s0, (uint32_t)n, same ? up : low, err);
                if (!st)
                    st = kc_calmant_sched_add(s, s0 + 1, (uint32_t)n, same ? low : up, err);
            } else /* only k + c: <beta+1, 1> on the axis inside the group */
                st = kc_calmant_sched_add(s, s0 + (beta < 0 ? 0 : (uint32_t)((coord >> beta) & 1)), (uint32_t)n,
                                          up, err);
        }
    }
    if (!st && s->steps < base + used)
        s->steps = base + used;
    return st;
}

kc_status kc_calmant_sched_subtask(const kc_calmant *g, kc_calmant_task t, uint32_t base, kc_calmant_sched *s,
                                   kc_err *err)
{
    kc_status st = check_sched_input(g, t, 0, err);
    if (st)
        return st;
    if (t.m > 2 * g->c)
        return kc_fail_param(err, KC_EINVAL, "task", "a subtask has at most 2c = %d dimensions, not %d", 2 * g->c,
                             t.m);
    if (g->c == 1)
        return t.m == 2 ? kc_calmant_sched_line2(g, t.i, base, s, err) : kc_calmant_sched_line1(g, t.i, base, s, err);
    return sched_mesh_subtask(g, t, base, s, err);
}

kc_status kc_calmant_sched_task(const kc_calmant *g, kc_calmant_task t, kc_calmant_sched *s, kc_err *err)
{
    kc_status st = check_sched_input(g, t, 0, err);
    kc_calmant_task parts[KC_CALMANT_MAX_D + 1];
    size_t n = st ? 0 : kc_calmant_decompose(t, g->c, parts);
    for (size_t j = 0; !st && j < n; j++)
        st = kc_calmant_sched_subtask(g, parts[j], s->steps, s, err);
    return st;
}

/* ---- tori ---------------------------------------------------------------- */

/* Steps the top dimension of one ring of side k needs: the two messages of
 * a pair (x, x + k/2) go the same way round (ties) and fill that direction
 * of the ring, so one pair per step when ties all go one way (k/2 steps);
 * with split ties an even pair (+) and an odd pair (-) share a step (k/4). */
static uint64_t top_groups(const kc_calmant *g)
{
    return g->tie == KC_TIE_SPLIT ? g->side / 4 : g->side / 2;
}

/* The group of coordinate x for the top dimension's ring schedule. */
static uint64_t top_group(const kc_calmant *g, uint64_t x)
{
    uint64_t half = x % (g->side / 2);
    return g->tie == KC_TIE_SPLIT ? half / 2 : half;
}

/* A dimension's ring groups on a torus: one step each in its own ring
 * schedule (the top dimension's pairs, or <floor(k/c), 1>'s groups). */
static uint64_t torus_groups(const kc_calmant *g, int k)
{
    return k / g->c == g->b - 1 ? top_groups(g) : 1ULL << (k / g->c);
}

static uint64_t torus_group(const kc_calmant *g, uint64_t m, int k)
{
    return k / g->c == g->b - 1 ? top_group(g, kc_calmant_coord(g, m, k % g->c)) : group_of(g, m, k);
}

/* Dimensions k0 .. k0+n-1, n <= c, each on its own axis, Property 2's way
 * with each dimension's ring groups: node m uses dimension k in step
 * (sum of its groups + k) mod max(largest group count, n), which is LB
 * (the groups count the dimension's load on its axis). */
static kc_status sched_torus_single(const kc_calmant *g, int k0, int n, uint32_t base, kc_calmant_sched *s,
                                    kc_err *err)
{
    uint64_t period = (uint64_t)n;
    for (int k = k0; k < k0 + n; k++)
        period = torus_groups(g, k) > period ? torus_groups(g, k) : period;
    kc_status st = KC_OK;
    for (uint64_t p = 0; !st && p < g->nodes; p++) {
        uint64_t m = kc_calmant_to_physical(g, p), sum = 0;
        for (int k = k0; k < k0 + n; k++)
            sum += torus_group(g, m, k);
        for (int k = k0; !st && k < k0 + n; k++)
            st = kc_calmant_sched_add(s, base + (uint32_t)((sum + (uint64_t)k) % period), (uint32_t)p,
                                      (uint32_t)(p ^ (1ULL << k)), err);
    }
    if (!st && s->steps < base + period)
        s->steps = base + (uint32_t)period;
    return st;
}

/* Forward compaction passes alternate with passes on the time-mirrored
 * schedule (pulling messages late, which frees early steps for the next
 * forward pass) while the step count falls and stays above lb. */
static kc_status compact_both_ways(const kc_calmant *g, kc_calmant_sched *s, uint64_t lb, kc_err *err)
{
    kc_status st = KC_OK;
    for (int round = 0; !st && s->steps > lb && round < 8; round++) {
        uint32_t before = s->steps;
        for (int pass = 0; !st && pass < 2; pass++) {
            for (size_t j = 0; j < s->count; j++)
                s->msg[j].step = s->steps - 1 - s->msg[j].step;
            st = kc_calmant_sched_compact(g, s, err);
        }
        if (s->steps == before)
            break;
    }
    return st;
}

/* The lower dimensions' mesh schedule and the top dimensions' ring pairs,
 * one after the other (top_first: the top dimensions first). */
static kc_status sched_torus_parts(const kc_calmant *g, kc_calmant_task t, int top_first, kc_calmant_sched *s,
                                   kc_err *err)
{
    int t0 = t.i > g->d - g->c ? t.i : g->d - g->c, nt = t.i + t.m - t0;
    kc_status st = KC_OK;
    if (t.m <= g->c) /* every dimension on its own axis: LB steps */
        return sched_torus_single(g, t.i, t.m, 0, s, err);
    if (nt > 0 && top_first)
        st = sched_torus_single(g, t0, nt, 0, s, err);
    if (!st && t0 > t.i)
        st = kc_calmant_sched_task(g, (kc_calmant_task){t.i, (nt > 0 ? t0 : t.i + t.m) - t.i}, s, err);
    if (!st && nt > 0 && !top_first)
        st = sched_torus_single(g, t0, nt, s->steps, s, err);
    return st;
}

kc_status kc_calmant_sched_torus(const kc_calmant *g, kc_calmant_task t, kc_calmant_sched *s, kc_err *err)
{
    kc_status st = check_sched_input(g, t, 0, err);
    kc_calmant_load L;
    kc_calmant_sched other = {0};
    int t0 = t.i > g->d - g->c ? t.i : g->d - g->c;
    int orders = t.m > g->c && t.i + t.m > t0 && t0 > t.i ? 2 : 1;
    if (!st)
        st = kc_calmant_load_exact(g, t, &L, err);
    /* each order compacted; the shorter kept */
    for (int k = 0; !st && k < orders; k++) {
        kc_calmant_sched *to = k ? &other : s;
        st = sched_torus_parts(g, t, k, to, err);
        if (!st)
            st = compact_both_ways(g, to, L.lower_bound, err);
        if (!st && k && other.steps < s->steps) {
            kc_calmant_sched tmp = *s;
            *s = other;
            other = tmp;
        }
        if (s->steps <= L.lower_bound)
            break;
    }
    kc_calmant_sched_free(&other);
    return st;
}

/* ---- greedy compaction ---------------------------------------------------- */

typedef struct busy_map {
    uint64_t words; /* per resource: one bit per step */
    uint64_t *link, *send, *recv;
} busy_map;

/* One resource's bits: OR them into acc, or (acc NULL) mark step q busy. */
static void busy_visit(uint64_t *bits, uint64_t words, uint64_t *acc, uint64_t q)
{
    if (!acc)
        bits[q / 64] |= 1ULL << (q % 64);
    else
        for (uint64_t k = 0; k < words; k++)
            acc[k] |= bits[k];
}

/* Visit the resources of the message from -> to (nodes): its sender, its
 * receiver and every directed link of its DOR route. */
static void busy_touch(const kc_calmant *g, busy_map *b, uint64_t from, uint64_t to, uint64_t *acc, uint64_t q)
{
    kc_calmant_leg legs[KC_CALMANT_MAX_C];
    int nl = kc_calmant_route(g, from, to, legs);
    uint64_t at = from, ports = 2 * (uint64_t)g->c, w = b->words;
    busy_visit(&b->send[from * w], w, acc, q);
    busy_visit(&b->recv[to * w], w, acc, q);
    for (int l = 0; l < nl; l++) {
        kci_calmant_span sp[2];
        int ns = kci_calmant_leg_spans(g, at, &legs[l], sp, &at);
        uint64_t stride = 1ULL << (legs[l].axis * g->b);
        for (int j = 0; j < ns; j++)
            for (uint64_t x = sp[j].lo; x < sp[j].hi; x++)
                busy_visit(&b->link[((sp[j].base + x * stride) * ports + (uint64_t)sp[j].port) * w], w, acc, q);
    }
}

/* Largest busy table (words) compaction allocates: 256 MB. */
#define COMPACT_MAX_WORDS (1ULL << 25)

kc_status kc_calmant_sched_compact(const kc_calmant *g, kc_calmant_sched *s, kc_err *err)
{
    busy_map b = {.words = (s->steps + 63) / 64};
    uint64_t links = g->nodes * 2 * (uint64_t)g->c;
    if (!s->count || (links + 2 * g->nodes) * b.words > COMPACT_MAX_WORDS)
        return KC_OK; /* nothing to do, or too large to try */
    size_t *start = NULL, *order = NULL;
    uint64_t *acc = malloc(b.words * sizeof *acc);
    b.link = calloc(links * b.words, sizeof *b.link);
    b.send = calloc(g->nodes * b.words, sizeof *b.send);
    b.recv = calloc(g->nodes * b.words, sizeof *b.recv);
    kc_status st = acc && b.link && b.send && b.recv ? kci_calmant_by_step(s, s->steps, &start, &order, err)
                                                     : kc_fail(err, KC_ENOMEM, "out of memory (compaction)");
    uint32_t last = 0;
    for (size_t j = 0; !st && j < s->count; j++) {
        kc_calmant_msg *m = &s->msg[order[j]];
        uint64_t from = kc_calmant_to_physical(g, m->src), to = kc_calmant_to_physical(g, m->dst), q = 0;
        memset(acc, 0, b.words * sizeof *acc);
        busy_touch(g, &b, from, to, acc, 0);
        while (q < m->step && (acc[q / 64] >> (q % 64) & 1))
            q++; /* the message's own step is free at the latest (see the header) */
        busy_touch(g, &b, from, to, NULL, q);
        m->step = (uint32_t)q;
        last = m->step + 1 > last ? m->step + 1 : last;
    }
    if (!st)
        s->steps = last;
    free(start);
    free(order);
    free(acc);
    free(b.link);
    free(b.send);
    free(b.recv);
    return st;
}
