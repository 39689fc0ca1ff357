/* The toolbox's threads (core/pool.h): the barrier keeps threads in step
 * over many generations (each round's writes seen by all after it), the
 * persistent pool runs every worker once per run and its barrier works
 * inside a job, the one-shot run finishes counter-driven work, a
 * background job and the caller pass values through a ring on progress
 * marks, and the range split covers every item once. Checked against
 * plain sums and the values sent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/pool.h"
#include "kcube/rng.h"

enum { ROUNDS = 2000, MAXW = 4 };

/* Barrier rounds: in round r worker w writes cell[w] = r * 10 + w; after
 * the barrier every worker checks every cell, then a second barrier keeps
 * the next round's writes from racing the checks. */
typedef struct rounds {
    kci_barrier b;
    unsigned n;
    int cell[MAXW];
    atomic_int bad;
} rounds;

static void rounds_job(void *ctx, unsigned w)
{
    rounds *r = ctx;
    for (int k = 0; k < ROUNDS; k++) {
        r->cell[w] = k * 10 + (int)w;
        kci_barrier_wait(&r->b);
        for (unsigned v = 0; v < r->n; v++)
            if (r->cell[v] != k * 10 + (int)v)
                atomic_fetch_add(&r->bad, 1);
        kci_barrier_wait(&r->b);
    }
}

static void test_barrier_rounds(void **state)
{
    (void)state;
    for (unsigned n = 1; n <= MAXW; n++) {
        for (unsigned spin = 0; spin <= KCI_BARRIER_SPIN; spin += KCI_BARRIER_SPIN) {
            rounds r;
            memset(&r, 0, sizeof r);
            r.n = n;
            atomic_init(&r.bad, 0);
            assert_int_equal(kci_barrier_init(&r.b, n), 0);
            if (!spin) /* every waiter sleeps: the condition variable path */
                r.b.spin = r.b.yields = 0;
            assert_int_equal(kci_run_threads(n, rounds_job, &r), n);
            assert_int_equal(atomic_load(&r.bad), 0);
            kci_barrier_destroy(&r.b);
        }
    }
}

/* A pool job: worker w adds its part of v[] into part[w]; a mid-job barrier
 * then lets worker 0 total the parts. */
typedef struct sumjob {
    kci_pool *pool;
    const uint64_t *v;
    size_t n;
    uint64_t part[MAXW], total;
    unsigned runs[MAXW];
} sumjob;

static void sum_job(void *ctx, unsigned w)
{
    sumjob *s = ctx;
    size_t lo, hi;
    kci_range_part(s->n, kci_pool_size(s->pool), w, &lo, &hi);
    uint64_t t = 0;
    for (size_t i = lo; i < hi; i++)
        t += s->v[i];
    s->part[w] = t;
    s->runs[w]++;
    kci_barrier_wait(kci_pool_barrier(s->pool));
    if (w == 0) {
        s->total = 0;
        for (unsigned u = 0; u < kci_pool_size(s->pool); u++)
            s->total += s->part[u];
    }
}

static void test_pool_sums(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 20261128);
    for (unsigned n = 1; n <= MAXW; n++) {
        sumjob s;
        memset(&s, 0, sizeof s);
        s.pool = kci_pool_new(n);
        assert_non_null(s.pool);
        assert_int_equal(kci_pool_size(s.pool), n);
        for (int run = 0; run < 300; run++) {
            size_t len = (size_t)kc_rng_below(&rng, 1000);
            uint64_t *v = malloc((len + 1) * sizeof *v), naive = 0;
            assert_non_null(v);
            for (size_t i = 0; i < len; i++)
                naive += v[i] = kc_rng_below(&rng, 1u << 20);
            s.v = v;
            s.n = len;
            kci_pool_run(s.pool, sum_job, &s);
            assert_true(s.total == naive);
            free(v);
        }
        for (unsigned w = 0; w < n; w++)
            assert_int_equal(s.runs[w], 300);
        kci_pool_free(s.pool);
    }
    kci_pool_free(NULL);
}

/* Counter-driven work: items taken from a shared counter, each counted. */
typedef struct counted {
    atomic_size_t next;
    size_t n;
    atomic_uint *hits;
} counted;

static void counted_job(void *ctx, unsigned w)
{
    (void)w;
    counted *c = ctx;
    for (;;) {
        size_t i = atomic_fetch_add(&c->next, 1);
        if (i >= c->n)
            return;
        atomic_fetch_add(&c->hits[i], 1);
    }
}

static void test_run_threads_counter(void **state)
{
    (void)state;
    /* up to 8 workers, and a request past KCI_RUN_THREADS_MAX (clamped) */
    const unsigned sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, KCI_RUN_THREADS_MAX + 36};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        unsigned n = sizes[t];
        counted c;
        c.n = 10000;
        atomic_init(&c.next, 0);
        c.hits = calloc(c.n, sizeof *c.hits);
        assert_non_null(c.hits);
        unsigned k = kci_run_threads(n, counted_job, &c);
        assert_true(k >= 1 && k <= n && k <= KCI_RUN_THREADS_MAX);
        for (size_t i = 0; i < c.n; i++)
            assert_int_equal(atomic_load(&c.hits[i]), 1);
        free(c.hits);
    }
}

/* Marks and a background job: a producer beside the caller writes 1 .. N
 * into an 8-slot ring, publishing each value's count on `written` and
 * waiting on `read` for room (its own sleep included: the caller pauses
 * now and then); the caller reads them in order, publishing `read`. Every
 * value arrives once, in order, and the job has returned after the join. */
enum { RING = 8, VALUES = 200000 };

typedef struct ringrun {
    kci_mark written, read;
    unsigned ring[RING];
    atomic_int done;
} ringrun;

static void ring_produce(void *ctx)
{
    ringrun *r = ctx;
    for (unsigned long long i = 0; i < VALUES; i++) {
        if (i >= RING)
            kci_mark_wait(&r->read, i - RING + 1);
        r->ring[i % RING] = (unsigned)i + 1;
        kci_mark_set(&r->written, i + 1);
    }
    atomic_store(&r->done, 1);
}

static void test_mark_ring(void **state)
{
    (void)state;
    ringrun r;
    memset(&r, 0, sizeof r);
    assert_int_equal(kci_mark_init(&r.written), 0);
    assert_int_equal(kci_mark_init(&r.read), 0);
    atomic_init(&r.done, 0);
    kci_bg bg;
    assert_int_equal(kci_bg_start(&bg, ring_produce, &r), 0);
    unsigned long long have = 0;
    int bad = 0;
    for (unsigned long long i = 0; i < VALUES; i++) {
        if (i == have)
            have = kci_mark_wait(&r.written, i + 1);
        bad += r.ring[i % RING] != (unsigned)i + 1;
        kci_mark_set(&r.read, i + 1);
        if (i % 50000 == 0) { /* let the producer fill the ring and sleep */
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    kci_bg_join(&bg);
    assert_int_equal(bad, 0);
    assert_int_equal(atomic_load(&r.done), 1);
    assert_int_equal(kci_mark_get(&r.written), VALUES);
    kci_mark_destroy(&r.written);
    kci_mark_destroy(&r.read);
}

static void test_range_part(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 7);
    for (int t = 0; t < 2000; t++) {
        size_t total = (size_t)kc_rng_below(&rng, 5000);
        unsigned n = 1 + (unsigned)kc_rng_below(&rng, 64);
        size_t expect = 0, smin = SIZE_MAX, smax = 0;
        for (unsigned w = 0; w < n; w++) {
            size_t lo, hi;
            kci_range_part(total, n, w, &lo, &hi);
            assert_true(lo == expect && hi >= lo);
            expect = hi;
            smin = hi - lo < smin ? hi - lo : smin;
            smax = hi - lo > smax ? hi - lo : smax;
        }
        assert_true(expect == total);
        assert_true(smax - smin <= 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_rounds),
        cmocka_unit_test(test_pool_sums),
        cmocka_unit_test(test_run_threads_counter),
        cmocka_unit_test(test_mark_ring),
        cmocka_unit_test(test_range_part),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
