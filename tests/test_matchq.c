/* The LogGOPS model's hashed matching queues (src/replay/matchq.h) against
 * the linear per-rank lists they replace: seeded random streams of posted
 * receives (with and without wildcard sources and tags), unexpected
 * messages and searches of both kinds, arbitrary and as the model issues
 * them (a message first searches the posted receives, a receive the
 * unexpected messages), give the same entry at every search and the same
 * message left over at the end. Wide tag ranges make many keys (the table
 * grows and deletes in long probe runs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "kcube/rng.h"
#include "replay/matchq.h"

/* The linear reference: per rank, entries in posting order. */
typedef struct lin_e {
    uint32_t op, rank;
    int64_t src, tag;
    int posted, live;
} lin_e;

typedef struct lin {
    lin_e *e;
    size_t n;
} lin;

static void lin_add(lin *l, int posted, uint32_t rank, int64_t src, int64_t tag, uint32_t op)
{
    l->e[l->n++] = (lin_e){op, rank, src, tag, posted, 1};
}

/* The first live entry of the kind on rank that fits (src, tag); wildcards
 * on either side. */
static uint32_t lin_take(lin *l, int posted, uint32_t rank, int64_t src, int64_t tag)
{
    for (size_t i = 0; i < l->n; i++) {
        lin_e *x = &l->e[i];
        if (!x->live || x->posted != posted || x->rank != rank)
            continue;
        if ((src == KCI_MQ_ANY || x->src == KCI_MQ_ANY || x->src == src) &&
            (tag == KCI_MQ_ANY || x->tag == KCI_MQ_ANY || x->tag == tag)) {
            x->live = 0;
            return x->op;
        }
    }
    return KCI_MQ_NONE;
}

static uint32_t lin_first_left(const lin *l, uint32_t *rank)
{
    uint32_t best = KCI_MQ_NONE, br = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].live && !l->e[i].posted && (best == KCI_MQ_NONE || l->e[i].rank < br))
            best = l->e[i].op, br = l->e[i].rank;
    *rank = br;
    return best;
}

/* One stream of n operations on R ranks with sources 0 .. R - 1, tags
 * 0 .. tags - 1 (scaled by a large factor when wide), wildcards on
 * receives with probability wild_pct %, as the model issues them when
 * model_like. */
static void stream(kc_rng *rng, uint32_t R, uint32_t tags, unsigned wild_pct, int wide, int model_like, size_t n)
{
    kci_matchq q;
    kc_err err = {0};
    assert_int_equal(kci_mq_init(&q, n, R, wild_pct > 0, &err), KC_OK);
    lin l = {malloc(n * sizeof(lin_e)), 0};
    assert_non_null(l.e);
    for (uint32_t op = 0; op < n; op++) {
        uint32_t rank = (uint32_t)kc_rng_below(rng, R), src = (uint32_t)kc_rng_below(rng, R);
        int64_t tag = (int64_t)kc_rng_below(rng, tags) * (wide ? 1000003 : 1);
        int is_recv = kc_rng_below(rng, 2) == 0;
        if (is_recv) {
            int64_t s = kc_rng_below(rng, 100) < wild_pct ? KCI_MQ_ANY : (int64_t)src;
            int64_t t = kc_rng_below(rng, 100) < wild_pct ? KCI_MQ_ANY : tag;
            uint32_t a = KCI_MQ_NONE, b = KCI_MQ_NONE;
            if (model_like || kc_rng_below(rng, 2)) {
                a = kci_mq_take_unexpected(&q, rank, s, t);
                b = lin_take(&l, 0, rank, s, t);
                assert_int_equal(a, b);
            }
            if (a == KCI_MQ_NONE && (model_like || kc_rng_below(rng, 2))) {
                assert_int_equal(kci_mq_post(&q, rank, s, t, op), 0);
                lin_add(&l, 1, rank, s, t, op);
            }
        } else {
            uint32_t a = KCI_MQ_NONE, b = KCI_MQ_NONE;
            if (model_like || kc_rng_below(rng, 2)) {
                a = kci_mq_take_posted(&q, rank, src, tag);
                b = lin_take(&l, 1, rank, src, tag);
                assert_int_equal(a, b);
            }
            if (a == KCI_MQ_NONE && (model_like || kc_rng_below(rng, 2))) {
                assert_int_equal(kci_mq_unexpected(&q, rank, src, tag, op), 0);
                lin_add(&l, 0, rank, src, tag, op);
            }
        }
    }
    uint32_t ra = 0, rb = 0;
    uint32_t a = kci_mq_first_left(&q, &ra), b = lin_first_left(&l, &rb);
    assert_int_equal(a, b);
    if (a != KCI_MQ_NONE)
        assert_int_equal(ra, rb);
    kci_mq_free(&q);
    free(l.e);
}

static void test_matchq_against_linear(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 20261128);
    for (int round = 0; round < 300; round++) {
        uint32_t R = 1 + (uint32_t)kc_rng_below(&rng, 5), tags = 1 + (uint32_t)kc_rng_below(&rng, 4);
        unsigned wild = round % 3 == 0 ? 0 : (unsigned)kc_rng_below(&rng, 60);
        stream(&rng, R, tags, wild, round % 4 == 1, round % 2, 50 + kc_rng_below(&rng, 400));
    }
}

/* Many keys at once: the table grows several times, and keys leave from
 * the middle of long probe runs. */
static void test_matchq_many_keys(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 77);
    for (int round = 0; round < 6; round++)
        stream(&rng, 64, 200, round < 3 ? 0 : 10, 1, round % 2, 20000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matchq_against_linear),
        cmocka_unit_test(test_matchq_many_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
