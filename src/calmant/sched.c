/* CALMANT schedules and their verifier (kcube/calmant_sched.h). */
#include <stdlib.h>
#include <string.h>

#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"

void kc_calmant_sched_free(kc_calmant_sched *s)
{
    free(s->msg);
    memset(s, 0, sizeof *s);
}

kc_status kc_calmant_sched_add(kc_calmant_sched *s, uint32_t step, uint32_t src, uint32_t dst, kc_err *err)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        kc_calmant_msg *m = realloc(s->msg, cap * sizeof *m);
        if (!m)
            return kc_fail(err, KC_ENOMEM, "out of memory (schedule)");
        s->msg = m;
        s->cap = cap;
    }
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
