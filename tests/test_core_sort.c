/* The toolbox's sorts (core/sort.h): the radix sorts of plain keys, the
 * record radix sort and the merge sort against qsort (with the original
 * position as the last key, so that a stable sort has one right answer),
 * on seeded random arrays of every length around the insertion-sort
 * thresholds and of key ranges that take one to six radix passes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "kcube/rng.h"

typedef struct rec {
    uint64_t key;
    uint32_t pos; /* original position: stability */
} rec;

static int rec_cmp(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static inline uint64_t rec_key(const rec *r, const void *ctx)
{
    uint64_t base = *(const uint64_t *)ctx;
    return r->key - base; /* a key computed with the caller's context */
}

KCI_RADIX_SORT_DEFINE(rec_radix, rec, rec_key, 24)

static int rec_merge_cmp(const void *ctx, const rec *a, const rec *b)
{
    (void)ctx;
    return a->key != b->key ? (a->key < b->key ? -1 : 1) : 0; /* keys only: stability is the sort's */
}

KCI_MERGE_SORT_DEFINE(rec_merge, rec, rec_merge_cmp)

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A length: often near the thresholds (24, 32, 64), sometimes large. */
static size_t pick_len(kc_rng *rng)
{
    switch (kc_rng_below(rng, 3)) {
    case 0: return (size_t)kc_rng_below(rng, 80);
    case 1: return (size_t)kc_rng_below(rng, 3000);
    default: return (size_t)kc_rng_below(rng, 40000);
    }
}

static void test_sort_plain(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 2026);
    for (int t = 0; t < 300; t++) {
        size_t n = pick_len(&rng);
        int bits = 1 + (int)kc_rng_below(&rng, 64);
        uint64_t max = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        uint64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b), *s = malloc((n + 1) * sizeof *s);
        uint32_t *c = malloc((n + 1) * sizeof *c), *d = malloc((n + 1) * sizeof *d), *s32 = malloc((n + 1) * sizeof *s32);
        assert_true(a && b && s && c && d && s32);
        for (size_t i = 0; i < n; i++) {
            a[i] = b[i] = kc_rng_next(&rng) & max;
            c[i] = d[i] = (uint32_t)(a[i] & UINT32_MAX);
        }
        kci_sort_u64(a, n, s, max);
        qsort(b, n, sizeof *b, u64_cmp);
        assert_true(n == 0 || memcmp(a, b, n * sizeof *a) == 0);
        kci_sort_u32(c, n, s32, (uint32_t)(max & UINT32_MAX));
        qsort(d, n, sizeof *d, u32_cmp);
        assert_true(n == 0 || memcmp(c, d, n * sizeof *c) == 0);
        free(a), free(b), free(s), free(c), free(d), free(s32);
    }
}

static void test_sort_records(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 11);
    for (int t = 0; t < 300; t++) {
        size_t n = pick_len(&rng);
        uint64_t range = UINT64_C(1) << kc_rng_below(&rng, 50), base = kc_rng_below(&rng, 1000);
        rec *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b), *m = malloc((n + 1) * sizeof *m);
        rec *s = malloc((n + 1) * sizeof *s);
        assert_true(a && b && m && s);
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] = m[i] = (rec){base + kc_rng_below(&rng, range), (uint32_t)i}; /* repeats when range is small */
        rec_radix(a, n, s, range, &base);
        rec_merge(m, n, s, NULL);
        qsort(b, n, sizeof *b, rec_cmp);
        for (size_t i = 0; i < n; i++) {
            assert_true(a[i].key == b[i].key && a[i].pos == b[i].pos);
            assert_true(m[i].key == b[i].key && m[i].pos == b[i].pos);
        }
        free(a), free(b), free(m), free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_plain),
        cmocka_unit_test(test_sort_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
