/* The LogGOPS model's bucketed event queue (src/replay/evq.h) against a
 * plain heap on seeded random streams shaped like the model's: new events
 * with the next insertion number at the current time, later or (now and
 * then) earlier, and events put back later under the insertion number they
 * were popped with, over few distinct times (many ties, as in a halo
 * exchange) or many. Every pop gives the heap's least event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "core/heap.h"
#include "kcube/rng.h"
#include "replay/evq.h"

static int ent_less(const kci_evq_ent *a, const kci_evq_ent *b)
{
    return a->t < b->t || (a->t == b->t && a->k < b->k);
}
KCI_HEAP_DEFINE(refq, kci_evq_ent, ent_less)

/* One stream of `steps` operations, times spread over `spread` ns. */
static void stream(kc_rng *rng, uint64_t spread, unsigned past_pct, size_t steps)
{
    kci_evq q;
    kci_evq_init(&q);
    kci_evq_ent *ref = malloc((steps + 1) * sizeof *ref);
    assert_non_null(ref);
    size_t nref = 0;
    uint64_t seq = 0, now = 0;
    for (size_t s = 0; s < steps; s++) {
        unsigned what = (unsigned)kc_rng_below(rng, 100);
        if (nref && what < 45) {
            kci_evq_ent a, b = refq_pop(ref, &nref);
            assert_int_equal(kci_evq_pop(&q, &a), 1);
            assert_true(a.t == b.t && a.k == b.k);
            now = a.t;
            if (what < 20) { /* put back later under its number, as for a busy CPU */
                kci_evq_ent x = {a.t + 1 + kc_rng_below(rng, spread), a.k};
                assert_int_equal(kci_evq_push(&q, x), 0);
                refq_push(ref, &nref, x);
            }
            continue;
        }
        uint64_t t = now + kc_rng_below(rng, spread + 1);
        if (kc_rng_below(rng, 100) < past_pct && now)
            t = now - 1 - kc_rng_below(rng, now < spread ? now : spread);
        else if (what < 60)
            t = now;
        kci_evq_ent x = {t, seq++ << 32 | kc_rng_below(rng, 1u << 20)};
        assert_int_equal(kci_evq_push(&q, x), 0);
        refq_push(ref, &nref, x);
    }
    while (nref) {
        kci_evq_ent a, b = refq_pop(ref, &nref);
        assert_int_equal(kci_evq_pop(&q, &a), 1);
        assert_true(a.t == b.t && a.k == b.k);
    }
    kci_evq_ent a;
    assert_int_equal(kci_evq_pop(&q, &a), 0);
    kci_evq_free(&q);
    free(ref);
}

static void test_evq_against_heap(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 9090);
    for (int round = 0; round < 200; round++) {
        uint64_t spread = round % 3 == 0 ? 3 : round % 3 == 1 ? 50 : 100000;
        stream(&rng, spread, round % 4 == 0 ? 0 : (unsigned)kc_rng_below(&rng, 15), 200 + kc_rng_below(&rng, 3000));
    }
}

/* Long streams: buckets reused many times, large buckets sorted. */
static void test_evq_long(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 31);
    stream(&rng, 2, 0, 200000);
    stream(&rng, 1000, 5, 200000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_evq_against_heap),
        cmocka_unit_test(test_evq_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
