/* The toolbox's binary heap (core/heap.h): seeded random pushes and pops,
 * interleaved, come out in the order of a naive scan for the least element
 * (the first least one in insertion order, with an insertion number in the
 * key so that ties are decided), and with many equal keys the heap pops the
 * same sequence as a hand-written copy of the replays' former heap
 * (sift-down choosing left on less(left, x), right on less(right, best)).
 * The 4-ary heap, on keys made unique by the insertion number, pops what
 * the scan finds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "core/heap.h"
#include "kcube/rng.h"

typedef struct item {
    uint64_t t, seq; /* key; insertion number */
    int tag;         /* not compared: shows which of equal keys came out */
} item;

static int item_less(const item *a, const item *b) { return a->t != b->t ? a->t < b->t : a->seq < b->seq; }
static int t_less(const item *a, const item *b) { return a->t < b->t; }

KCI_HEAP_DEFINE(iq, item, item_less)
KCI_HEAP_DEFINE(tq, item, t_less)
KCI_HEAP4_DEFINE(q4, item, item_less)

/* The naive queue: the least (t, seq) by a scan. */
static item naive_pop(item *a, size_t *n)
{
    size_t m = 0;
    for (size_t i = 1; i < *n; i++)
        if (item_less(&a[i], &a[m]))
            m = i;
    item x = a[m];
    a[m] = a[--(*n)];
    return x;
}

/* Seeded random pushes and pops on the binary heap (four = 0) or the
 * 4-ary one, each pop checked against the scan. */
static void against_scan(uint64_t seed, int four)
{
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    enum { CAP = 4096 };
    item *h = malloc(CAP * sizeof *h), *s = malloc(CAP * sizeof *s);
    assert_non_null(h);
    assert_non_null(s);
    for (int t = 0; t < 50; t++) {
        size_t hn = 0, sn = 0;
        uint64_t seq = 0, range = 1 + kc_rng_below(&rng, 1000);
        for (int step = 0; step < 20000; step++) {
            if (hn < CAP && (hn == 0 || kc_rng_below(&rng, 100) < 55)) {
                item x = {kc_rng_below(&rng, range), seq++, step};
                (four ? q4_push : iq_push)(h, &hn, x);
                s[sn++] = x;
            } else {
                item a = (four ? q4_pop : iq_pop)(h, &hn), b = naive_pop(s, &sn);
                assert_true(a.t == b.t && a.seq == b.seq && a.tag == b.tag);
            }
            assert_true(hn == sn);
        }
    }
    free(h);
    free(s);
}

static void test_heap_against_scan(void **state)
{
    (void)state;
    against_scan(1234, 0);
}

static void test_heap4_against_scan(void **state)
{
    (void)state;
    against_scan(4444, 1);
}

/* The former hand-written heap of the LogGOPS replay, verbatim but for
 * names: the tie order the generic heap must keep. */
static void old_push(item *e, size_t *n, item x)
{
    size_t i = (*n)++;
    while (i > 0 && t_less(&x, &e[(i - 1) / 2])) {
        e[i] = e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e[i] = x;
}

static item old_pop(item *e, size_t *n)
{
    item top = e[0], x = e[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const item *best = &x;
        if (l < *n && t_less(&e[l], best))
            m = l, best = &e[l];
        if (l + 1 < *n && t_less(&e[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        e[i] = e[m];
        i = m;
    }
    if (*n)
        e[i] = x;
    return top;
}

static void test_heap_tie_order(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 77);
    enum { CAP = 2048 };
    item *h = malloc(CAP * sizeof *h), *o = malloc(CAP * sizeof *o);
    assert_non_null(h);
    assert_non_null(o);
    for (int t = 0; t < 50; t++) {
        size_t hn = 0, on = 0;
        for (int step = 0; step < 20000; step++) {
            if (hn < CAP && (hn == 0 || kc_rng_below(&rng, 2))) {
                item x = {kc_rng_below(&rng, 4), 0, step}; /* few keys: many ties */
                tq_push(h, &hn, x);
                old_push(o, &on, x);
            } else {
                item a = tq_pop(h, &hn), b = old_pop(o, &on);
                assert_true(a.t == b.t && a.tag == b.tag);
            }
        }
    }
    free(h);
    free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heap_against_scan),
        cmocka_unit_test(test_heap_tie_order),
        cmocka_unit_test(test_heap4_against_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
