/* CALMANT schedules (seed 003, Sections 3.2 and 4.2) replayed by the
 * verifier on the step engine: Figs. 4, 5, 7, decompositions, all tasks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/calmant_cost.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_sched.h"
#include "kcube/rng.h"

static void geom(kc_calmant *g, int d, int c, int torus, kc_tie tie)
{
    assert_int_equal(kc_calmant_init(g, d, c, torus, tie, KC_CALMANT_STANDARD, NULL), KC_OK);
}

static void verify_clean(const kc_calmant *g, kc_calmant_task t, const kc_calmant_sched *s, kc_calmant_verdict *v)
{
    kc_err err = {0};
    assert_int_equal(kc_calmant_verify(g, t, s, v, &err), KC_OK);
    if (v->conflicts || v->missing || v->unexpected)
        fail_msg("d=%d c=%d torus=%d <%d,%d>: %llu conflicts (%s), %llu missing, %llu unexpected", g->d, g->c,
                 g->torus, t.i, t.m, (unsigned long long)v->conflicts, v->first_conflict,
                 (unsigned long long)v->missing, (unsigned long long)v->unexpected);
}

/* Schedule the whole task t on g, verify it clean; its step count. */
static uint64_t task_steps(const kc_calmant *g, kc_calmant_task t)
{
    kc_calmant_sched s = {0};
    kc_calmant_verdict v;
    assert_int_equal(kc_calmant_sched_task(g, t, &s, NULL), KC_OK);
    verify_clean(g, t, &s, &v);
    kc_calmant_sched_free(&s);
    return v.steps;
}

/* Build the d-cube on a c-mesh, schedule subtask t, verify it, and check
 * that it takes exactly LB steps. */
static void subtask_at_lb(kc_calmant *g, kc_calmant_sched *s, int d, int c, kc_calmant_task t)
{
    kc_calmant_verdict v;
    geom(g, d, c, 0, KC_TIE_PLUS);
    assert_int_equal(kc_calmant_sched_subtask(g, t, 0, s, NULL), KC_OK);
    verify_clean(g, t, s, &v);
    assert_int_equal(v.steps, kc_calmant_lower_bound(t.i, t.m, c));
}

/* Fig. 4: <1,2>_1 on 16 nodes, white group (even nodes) in steps 0-1, gray
 * (odd) in 2-3; dimension 2 goes first where bits 1 and 2 agree. */
static void test_fig4(void **state)
{
    kc_calmant g;
    kc_calmant_sched s = {0};
    subtask_at_lb(&g, &s, 4, 1, (kc_calmant_task){1, 2}); /* kc_calmant_sched_line2 */
    assert_int_equal(s.steps, 4);
    for (size_t j = 0; j < s.count; j++) {
        uint32_t m = s.msg[j].src;
        assert_true(s.msg[j].step / 2 == (m & 1));
        int same = ((m >> 1) & 1) == ((m >> 2) & 1), first = s.msg[j].step % 2 == 0;
        assert_int_equal(s.msg[j].dst, m ^ ((same == first) ? 4u : 2u));
    }
    kc_calmant_sched_free(&s);
}

/* Fig. 5: <2,1>_1 on 16 nodes: four groups m mod 4, one step each. */
static void test_fig5(void **state)
{
    kc_calmant g;
    kc_calmant_sched s = {0};
    subtask_at_lb(&g, &s, 4, 1, (kc_calmant_task){2, 1}); /* kc_calmant_sched_line1 */
    assert_int_equal(s.steps, 4);
    for (size_t j = 0; j < s.count; j++)
        assert_int_equal(s.msg[j].step, s.msg[j].src % 4);
    kc_calmant_sched_free(&s);
}

/* Figs. 6-7: <3,4>_2 on a 16x16 mesh takes LB = 8 steps; the node in group
 * 2 of axis 0 and group 0 of axis 1 uses axis 1 in steps 2-3, axis 0 in 4-5. */
static void test_fig7(void **state)
{
    kc_calmant g;
    kc_calmant_sched s = {0};
    subtask_at_lb(&g, &s, 8, 2, (kc_calmant_task){3, 4});
    assert_int_equal(s.steps, 8);
    uint64_t node = 2 | (0ULL << 4) | (6ULL << 4); /* m0 = 2 (group 2), m1 = 6 (group 0) */
    uint32_t n = (uint32_t)kc_calmant_to_virtual(&g, node);
    int got = 0;
    for (size_t j = 0; j < s.count; j++)
        if (s.msg[j].src == n) {
            uint32_t k = (uint32_t)kci_ctz32(s.msg[j].src ^ s.msg[j].dst);
            if (kc_calmant_axis(&g, (int)k) == 1)
                assert_true(s.msg[j].step == 2 || s.msg[j].step == 3);
            else
                assert_true(s.msg[j].step == 4 || s.msg[j].step == 5);
            got++;
        }
    assert_int_equal(got, 4);
    kc_calmant_sched_free(&s);
}

/* <i,4>_3 with LB 4 (i = 0..5) in 4 steps, conflict-free on 3-D meshes of
 * side 4 to 32 (every node sends once per step). */
static void test_c3x4(void **state)
{
    for (int d = 6; d <= 15; d += 3)
        for (int i = 0; i <= 5 && i + 4 <= d; i++) {
            kc_calmant g;
            kc_calmant_sched s = {0};
            assert_int_equal(kc_calmant_lower_bound(i, 4, 3), 4);
            subtask_at_lb(&g, &s, d, 3, (kc_calmant_task){i, 4});
            assert_int_equal(s.steps, 4);
            kc_calmant_sched_free(&s);
        }
}

/* The verifier sees faults: a dropped message, a repeated one, a conflict. */
static void test_verifier_faults(void **state)
{
    kc_calmant g;
    kc_calmant_sched s = {0};
    kc_calmant_verdict v;
    geom(&g, 4, 1, 0, KC_TIE_PLUS);
    assert_int_equal(kc_calmant_sched_line1(&g, 2, 0, &s, NULL), KC_OK);
    s.msg[0].step = 1; /* 0 -> 4 moved into group 1's step: 1 -> 5 shares the links 1 -> 2 -> 3 -> 4 */
    assert_int_equal(kc_calmant_verify(&g, (kc_calmant_task){2, 1}, &s, &v, NULL), KC_OK);
    assert_true(v.conflicts > 0);
    assert_int_equal(v.missing, 0);
    s.msg[1].dst = 0; /* 1 -> 0 is dimension 0: outside the task */
    assert_int_equal(kc_calmant_verify(&g, (kc_calmant_task){2, 1}, &s, &v, NULL), KC_OK);
    assert_int_equal(v.unexpected, 1);
    assert_int_equal(v.missing, 1);
    s.msg[1].dst = 99;
    kc_err err = {0};
    assert_int_equal(kc_calmant_verify(&g, (kc_calmant_task){2, 1}, &s, &v, &err), KC_EINVAL);
    kc_calmant_sched_free(&s);
}

/* kcube's torus schedules, every task up to d = 9 (c = 1..3) and every tie
 * rule: conflict-free and complete on the torus, never below the counter's
 * LB, exactly LB on rings (the lower dimensions' line schedule, then the top
 * dimension's ring pairs: both loads add up) and for M <= c (one dimension
 * per axis, Property 2 with ring groups), and never above the mesh
 * schedule of the lower dimensions plus max(G, top dimensions), G = side/2
 * (side/4 with split ties). Tasks without a top dimension also verify with
 * the mesh's own schedule. */
static void test_torus_schedules(void **state)
{
    static const kc_tie ties[] = {KC_TIE_PLUS, KC_TIE_MINUS, KC_TIE_SPLIT};
    for (int ti = 0; ti < 3; ti++)
        for (int c = 1; c <= 3; c++)
            for (int d = 2 * c; d <= 9; d += c) {
                kc_calmant g;
                geom(&g, d, c, 1, ties[ti]);
                uint64_t top = ties[ti] == KC_TIE_SPLIT ? g.side / 4 : g.side / 2;
                for (int i = 0; i < d; i++)
                    for (int m = 1; i + m <= d; m++) {
                        kc_calmant_task t = {i, m};
                        kc_calmant_sched s = {0};
                        kc_calmant_verdict v;
                        kc_calmant_load L;
                        assert_int_equal(kc_calmant_sched_torus(&g, t, &s, NULL), KC_OK);
                        verify_clean(&g, t, &s, &v);
                        assert_int_equal(kc_calmant_load_exact(&g, t, &L, NULL), KC_OK);
                        assert_true(v.steps >= L.lower_bound);
                        int t0 = i > d - c ? i : d - c, nt = i + m - t0;
                        if (nt <= 0) /* no top dimension: the mesh schedule holds on the torus */
                            assert_int_equal(task_steps(&g, t), kc_calmant_steps(i, m, c));
                        uint64_t bound = nt <= 0 ? kc_calmant_steps(i, m, c)
                                                 : (t0 > i ? kc_calmant_steps(i, t0 - i, c) : 0) +
                                                       (top > (uint64_t)nt ? top : (uint64_t)nt);
                        assert_true(v.steps <= bound);
                        if (c == 1 || m <= c)
                            assert_int_equal(v.steps, L.lower_bound);
                        kc_calmant_sched_free(&s);
                    }
            }
}

/* Compaction on seeded random conflict-free schedules: the paper's mesh
 * schedules with their steps spread out (each step's messages moved to a
 * random later slot of their own): the result verifies, is complete and is
 * no longer than the input. */
static void test_compact(void **state)
{
    kc_rng rng;
    kc_rng_seed(&rng, 3);
    for (int round = 0; round < 30; round++) {
        int c = 1 + (int)kc_rng_below(&rng, 3), d = c * (2 + (int)kc_rng_below(&rng, c == 1 ? 6 : 2));
        int i = (int)kc_rng_below(&rng, (uint64_t)d);
        kc_calmant_task t = {i, 1 + (int)kc_rng_below(&rng, (uint64_t)(d - i))};
        kc_calmant g;
        kc_calmant_sched s = {0};
        kc_calmant_verdict v;
        geom(&g, d, c, 0, KC_TIE_PLUS);
        assert_int_equal(kc_calmant_sched_task(&g, t, &s, NULL), KC_OK);
        uint32_t spread = 1 + (uint32_t)kc_rng_below(&rng, 3), *slot = malloc(s.steps * sizeof *slot);
        for (uint32_t q = 0; q < s.steps; q++)
            slot[q] = q * spread + (uint32_t)kc_rng_below(&rng, spread);
        for (size_t j = 0; j < s.count; j++)
            s.msg[j].step = slot[s.msg[j].step];
        s.steps *= spread;
        free(slot);
        uint32_t before = s.steps;
        assert_int_equal(kc_calmant_sched_compact(&g, &s, NULL), KC_OK);
        verify_clean(&g, t, &s, &v);
        assert_true(s.steps <= before && v.steps <= before);
        kc_calmant_sched_free(&s);
    }
}

/* Collects the conflicts the verifier reports through its hook. */
typedef struct conflict_log {
    uint64_t n;
    kc_calmant_conflict first, last;
} conflict_log;

static void log_conflict(void *ctx, const kc_calmant_conflict *c)
{
    conflict_log *l = ctx;
    if (l->n++ == 0)
        l->first = *c;
    l->last = *c;
}

/* The interval check against the hop-by-hop walk of every step (the
 * reference) on seeded random schedules: generated ones with random
 * messages moved to random steps, on meshes and tori of every tie rule.
 * Same verdict, and the hook sees every conflict the count includes. */
static void test_verify_fast_equals_walk(void **state)
{
    static const kc_tie ties[] = {KC_TIE_PLUS, KC_TIE_MINUS, KC_TIE_SPLIT};
    kc_rng rng;
    kc_rng_seed(&rng, 11);
    for (int round = 0; round < 200; round++) {
        int c = 1 + (int)kc_rng_below(&rng, 3), b = 2 + (int)kc_rng_below(&rng, c == 1 ? 7 : 3), d = b * c;
        int torus = (int)kc_rng_below(&rng, 2), i = (int)kc_rng_below(&rng, (uint64_t)d);
        kc_calmant_task t = {i, 1 + (int)kc_rng_below(&rng, (uint64_t)(d - i))};
        kc_calmant g;
        kc_calmant_sched s = {0};
        geom(&g, d, c, torus, ties[kc_rng_below(&rng, 3)]);
        assert_int_equal(kc_calmant_sched_task(&g, t, &s, NULL), KC_OK);
        uint64_t moves = kc_rng_below(&rng, 4) * (1 + s.count / 64);
        for (uint64_t k = 0; k < moves; k++)
            s.msg[kc_rng_below(&rng, s.count)].step = (uint32_t)kc_rng_below(&rng, s.steps);
        kc_calmant_verdict fast, walk;
        conflict_log lf = {0}, lw = {0};
        kc_calmant_verify_opts of = {.on_conflict = log_conflict, .ctx = &lf};
        kc_calmant_verify_opts ow = {.on_conflict = log_conflict, .ctx = &lw, .walk = 1};
        assert_int_equal(kc_calmant_verify_with(&g, t, &s, &of, &fast, NULL), KC_OK);
        assert_int_equal(kc_calmant_verify_with(&g, t, &s, &ow, &walk, NULL), KC_OK);
        assert_int_equal(fast.conflicts, walk.conflicts);
        assert_int_equal(fast.steps, walk.steps);
        assert_int_equal(fast.missing, walk.missing);
        assert_int_equal(fast.unexpected, walk.unexpected);
        assert_string_equal(fast.first_conflict, walk.first_conflict);
        assert_int_equal(lf.n, fast.conflicts);
        assert_int_equal(lw.n, walk.conflicts);
        assert_true(lf.last.step == lw.last.step && lf.last.kind == lw.last.kind && lf.last.node == lw.last.node &&
                    lf.last.axis == lw.last.axis && lf.last.dir == lw.last.dir && lf.last.src == lw.last.src &&
                    lf.last.dst == lw.last.dst);
        kc_calmant_sched_free(&s);
    }
}

/* Section 3.2: every task on lines up to d = 12 verifies with exactly LB
 * steps, the decomposition example <0,6>_1 included. */
static void test_lines_all_tasks(void **state)
{
    for (int d = 2; d <= 12; d++) {
        kc_calmant g;
        geom(&g, d, 1, 0, KC_TIE_PLUS);
        for (int i = 0; i < d; i++)
            for (int m = 1; i + m <= d; m++) {
                assert_int_equal(task_steps(&g, (kc_calmant_task){i, m}), kc_calmant_lower_bound(i, m, 1));
            }
    }
    /* <0,6>_1 on 64 nodes: subtasks <4,2> <2,2> <0,2> take 32 + 8 + 2 = 42 = LB */
    kc_calmant g;
    geom(&g, 6, 1, 0, KC_TIE_PLUS);
    assert_int_equal(task_steps(&g, (kc_calmant_task){0, 6}), 42);
}

/* Lemma 2 as reconstructed: sum of the subtasks' LB minus LB. */
static uint64_t lemma2_bound(int i, int m, int c)
{
    if (c == 2 && m >= 7 && i <= 1)
        return 2;
    if (c == 3 && m >= 9 && i <= 4)
        return 4;
    return 0;
}

/* Section 4.2 on 2-D and 3-D meshes up to d = 12: every task verifies
 * conflict-free; its steps are the subtasks' LB plus the extra step r of
 * Property 3 (reconstructed rule: the remainder x = M mod 2c has c < x,
 * LB<i,x>_c odd); <i,4>_3 with LB 4 takes 4 steps (kcube's schedule, not
 * Property 3's windows); Lemma 2 bounds the subtasks' LB sum. */
static void test_meshes_all_tasks(void **state)
{
    for (int c = 2; c <= 3; c++)
        for (int d = 2 * c; d <= 12; d += c) {
            kc_calmant g;
            geom(&g, d, c, 0, KC_TIE_PLUS);
            for (int i = 0; i < d; i++)
                for (int m = 1; i + m <= d; m++) {
                    kc_calmant_task t = {i, m}, parts[KC_CALMANT_MAX_D + 1];
                    uint64_t steps = task_steps(&g, t);
                    size_t np = kc_calmant_decompose(t, c, parts);
                    uint64_t sum = 0, lb = kc_calmant_lower_bound(i, m, c), extra = 0;
                    for (size_t j = 0; j < np; j++)
                        sum += kc_calmant_lower_bound(parts[j].i, parts[j].m, c);
                    int x = m % (2 * c);
                    if (x > c) {
                        uint64_t lx = kc_calmant_lower_bound(i, x, c);
                        extra = lx % 2; /* <i,4>_3 with LB 4 is even: no extra step */
                    }
                    assert_true(sum - lb <= lemma2_bound(i, m, c));
                    assert_int_equal(steps, sum + extra);
                }
        }
    /* <0,10>_2 on a 32x32 mesh: <6,4> <2,4> <0,2> take 16 + 4 + 2 = 22, LB 21 */
    kc_calmant g;
    geom(&g, 10, 2, 0, KC_TIE_PLUS);
    assert_int_equal(task_steps(&g, (kc_calmant_task){0, 10}), 22);
    assert_int_equal(kc_calmant_lower_bound(0, 10, 2), 21);
}

/* Tori: <2,2>_1 on a 16-ring pairs the top dimension (distance side/2, the
 * only routes that change) with dimension 2: the mesh schedule conflicts
 * there (kc_calmant_sched_torus is built for such tasks). */
static void test_tori(void **state)
{
    kc_calmant g;
    kc_calmant_sched s = {0};
    kc_calmant_verdict v;
    geom(&g, 4, 1, 1, KC_TIE_PLUS);
    assert_int_equal(kc_calmant_sched_task(&g, (kc_calmant_task){2, 2}, &s, NULL), KC_OK);
    assert_int_equal(kc_calmant_verify(&g, (kc_calmant_task){2, 2}, &s, &v, NULL), KC_OK);
    assert_true(v.conflicts > 0);
    kc_calmant_sched_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig4),           cmocka_unit_test(test_fig5),
        cmocka_unit_test(test_fig7),           cmocka_unit_test(test_c3x4),           cmocka_unit_test(test_verifier_faults),
        cmocka_unit_test(test_lines_all_tasks), cmocka_unit_test(test_meshes_all_tasks),
        cmocka_unit_test(test_tori),           cmocka_unit_test(test_verify_fast_equals_walk),
        cmocka_unit_test(test_torus_schedules), cmocka_unit_test(test_compact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
