/* The LogGOPS model's result does not depend on its event queue: seeded
 * random schedules (messages between random ranks, some above S, calcs,
 * per-rank chains with now and then an `irequires`, several CPUs and NICs)
 * run with the queue's buckets kept throughout, replaced by the heap from
 * the start, and switched after a few events give the same makespan, every
 * rank's finish, and the same counts of events, messages and rendezvous.
 * Synchronous rounds (every rank sends at once) make many events share a
 * time; random gaps make few. Nor on the lists in which entries wait for a
 * busy CPU or NIC: the same schedules, and looser ones where many
 * operations are ready at once, run with every busy entry put back into
 * the queue (LogGOPSim's way) give the same result, the same slices in the
 * same order and the same recorded charge order, in no more events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "kcube/goal.h"
#include "kcube/loggops.h"
#include "kcube/rng.h"
#include "core/grow.h"
#include "replay/replay_internal.h"

/* Append op on rank r after the rank's last (irequires with probability
 * 1/8); *last tracks each rank's last op. A loose schedule leaves one op
 * in three without the dependency (many ready at once). */
static void chain(kc_goal *g, kc_rng *rng, size_t *last, uint32_t r, size_t op, int loose)
{
    kc_err err = {0};
    if (last[r] != KC_GOAL_NONE && (!loose || kc_rng_below(rng, 3) != 0))
        assert_int_equal(kc_goal_depend(g, op, last[r], kc_rng_below(rng, 8) == 0, 0, &err), KC_OK);
    last[r] = op;
}

/* A random schedule of R ranks: `steps` messages or calcs, or synchronous
 * rounds when sync (each rank sends to rank + 1 and receives from rank - 1).
 * No rank sends to itself: its rendezvous send would wait for a receive
 * that waits for it. */
static void build(kc_goal *g, kc_rng *rng, uint32_t R, size_t steps, int sync, int loose)
{
    kc_err err = {0};
    assert_int_equal(kc_goal_init(g, R, &err), KC_OK);
    size_t *last = malloc(R * sizeof *last), op;
    assert_non_null(last);
    for (uint32_t r = 0; r < R; r++)
        last[r] = KC_GOAL_NONE;
    for (size_t s = 0; s < steps; s++) {
        uint32_t a = (uint32_t)kc_rng_below(rng, R), b = (a + 1 + (uint32_t)kc_rng_below(rng, R - 1)) % R;
        uint64_t bytes = 1 + kc_rng_below(rng, 4096);
        if (sync) {
            a = (uint32_t)(s % R), b = (a + 1) % R, bytes = 512;
        } else if (kc_rng_below(rng, 4) == 0) {
            assert_int_equal(kc_goal_add(g, KC_GOAL_CALC, a, 0, 0, kc_rng_below(rng, 5000), NULL, 0, &op, &err), KC_OK);
            g->op[op].cpu = (uint8_t)kc_rng_below(rng, 2);
            chain(g, rng, last, a, op, loose);
            continue;
        }
        assert_int_equal(kc_goal_add(g, KC_GOAL_SEND, a, b, 0, bytes, NULL, 0, &op, &err), KC_OK);
        g->op[op].nic = (uint8_t)kc_rng_below(rng, 2);
        g->op[op].cpu = (uint8_t)(loose ? kc_rng_below(rng, 2) : 0);
        chain(g, rng, last, a, op, loose);
        assert_int_equal(kc_goal_add(g, KC_GOAL_RECV, b, a, 0, bytes, NULL, 0, &op, &err), KC_OK);
        chain(g, rng, last, b, op, loose);
    }
    free(last);
}

static void same_result(const kc_goal *g, const kc_loggops_params *p)
{
    kc_err err = {0};
    kc_loggops_result r[3];
    size_t after[3] = {SIZE_MAX, 0, 7};
    for (int i = 0; i < 3; i++)
        assert_int_equal(kci_loggops_run_switch(g, p, after[i], &r[i], &err), KC_OK);
    for (int i = 1; i < 3; i++) {
        assert_true(r[i].makespan_ns == r[0].makespan_ns);
        assert_true(r[i].events == r[0].events && r[i].messages == r[0].messages);
        assert_true(r[i].rendezvous == r[0].rendezvous);
        for (uint32_t k = 0; k < g->num_ranks; k++)
            assert_true(r[i].finish_ns[k] == r[0].finish_ns[k]);
    }
    for (int i = 0; i < 3; i++)
        kc_loggops_result_free(&r[i]);
}

static void test_queue_does_not_matter(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 5150);
    const kc_loggops_params ps[] = {KC_LOGGOPS_PARAMS_DEFAULT,
                                    {1000, 200, 300, 2, 1, 256},
                                    {100, 0, 0, 0, 0, KC_LOGGOPS_S_INF}};
    for (int round = 0; round < 24; round++) {
        kc_goal g;
        build(&g, &rng, 2 + (uint32_t)kc_rng_below(&rng, 30), 200 + kc_rng_below(&rng, 3000), round % 3 == 0, 0);
        for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
            same_result(&g, &ps[i]);
        kc_goal_free(&g);
    }
}

/* The slices a run emits, in order. */
typedef struct slices {
    size_t n, cap;
    kc_loggops_slice *s;
} slices;

static void keep_slice(void *ctx, const kc_loggops_slice *s)
{
    slices *l = ctx;
    assert_int_equal(KCI_RESERVE(l->s, l->cap, l->n + 1, 256), 0);
    l->s[l->n++] = *s; /* the order is what is compared */
}

static void same_slices(const slices *a, const slices *b)
{
    assert_true(a->n == b->n);
    for (size_t i = 0; i < a->n; i++) {
        const kc_loggops_slice *x = &a->s[i], *y = &b->s[i];
        assert_true(x->op == y->op && x->peer == y->peer && x->start_ns == y->start_ns && x->end_ns == y->end_ns);
        assert_true(x->rank == y->rank && x->kind == y->kind && x->cpu == y->cpu);
    }
}

static void same_order(const kci_loggops_order *a, const kci_loggops_order *b, size_t nops)
{
    assert_true(a->n == b->n);
    for (size_t i = 0; i < a->n; i++) { /* field by field: the record has padding */
        const kci_lg_charge *x = &a->c[i], *y = &b->c[i];
        assert_true(x->op == y->op && x->cpu == y->cpu && x->nic == y->nic && x->type == y->type);
        assert_true(x->t == y->t && x->cpu_end == y->cpu_end && x->nic_end == y->nic_end);
    }
    assert_memory_equal(a->post_after, b->post_after, nops * sizeof *a->post_after);
    assert_memory_equal(a->matched, b->matched, nops * sizeof *a->matched);
    assert_memory_equal(a->eager, b->eager, nops);
    assert_memory_equal(a->post, b->post, nops * sizeof *a->post);
    assert_memory_equal(a->match, b->match, nops * sizeof *a->match);
}

/* Waiting lists against LogGOPSim's retries on g under p: the same
 * result, or the same error (a random schedule may deadlock). */
static void same_with_retries(const kc_goal *g, const kc_loggops_params *p)
{
    kc_err err[2] = {{0}, {0}};
    kc_loggops_result r[2];
    slices sl[2] = {{0}};
    kci_loggops_order ord[2];
    kc_status st = kc_loggops_run(g, p, keep_slice, &sl[0], &r[0], &err[0]);
    assert_int_equal(kci_loggops_run_retry(g, p, keep_slice, &sl[1], NULL, &r[1], &err[1]), st);
    same_slices(&sl[0], &sl[1]);
    free(sl[0].s), free(sl[1].s);
    if (st) {
        assert_string_equal(err[0].msg, err[1].msg);
        return;
    }
    assert_true(r[0].makespan_ns == r[1].makespan_ns && r[0].messages == r[1].messages);
    assert_true(r[0].rendezvous == r[1].rendezvous && r[0].events <= r[1].events);
    for (uint32_t k = 0; k < g->num_ranks; k++)
        assert_true(r[0].finish_ns[k] == r[1].finish_ns[k]);
    for (int i = 0; i < 2; i++)
        kc_loggops_result_free(&r[i]);
    assert_int_equal(kci_loggops_run_order(g, p, &ord[0], &r[0], &err[0]), KC_OK);
    assert_int_equal(kci_loggops_run_retry(g, p, NULL, NULL, &ord[1], &r[1], &err[1]), KC_OK);
    same_order(&ord[0], &ord[1], g->nops);
    for (int i = 0; i < 2; i++)
        kc_loggops_result_free(&r[i]), kci_loggops_order_free(&ord[i]);
}

static void test_waiting_lists_do_not_matter(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 6021);
    int ran = 0;
    const kc_loggops_params ps[] = {KC_LOGGOPS_PARAMS_DEFAULT,
                                    {1000, 200, 300, 2, 1, 256},
                                    {100, 0, 0, 0, 0, KC_LOGGOPS_S_INF},
                                    {250000, 1500, 0, 6, 3, 0},
                                    {10, 0, 0, 0, 0, 100}};
    for (int round = 0; round < 30; round++) {
        kc_goal g;
        build(&g, &rng, 2 + (uint32_t)kc_rng_below(&rng, 30), 200 + kc_rng_below(&rng, 2000), round % 3 == 0,
              round % 2);
        for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
            kc_err err = {0};
            kc_loggops_result r;
            if (!kc_loggops_run(&g, &ps[i], NULL, NULL, &r, &err))
                ran++, kc_loggops_result_free(&r);
            same_with_retries(&g, &ps[i]);
        }
        kc_goal_free(&g);
    }
    assert_true(ran >= 100); /* of 150 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_does_not_matter),
        cmocka_unit_test(test_waiting_lists_do_not_matter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
