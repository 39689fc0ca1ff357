/* Sorting for the library's hot loops, written once:
 *
 * - kci_sort_u32 / kci_sort_u64: ascending sort of plain keys, a
 *   least-significant-digit radix sort (11-bit digits, only as many passes
 *   as the largest key needs) with insertion sort for short arrays.
 * - KCI_RADIX_SORT_DEFINE(name, type, key, small): the same radix sort for
 *   records, ordered by a uint64_t key computed from each record (and a
 *   caller's context); stable.
 * - KCI_MERGE_SORT_DEFINE(name, type, cmp): a stable merge sort (insertion
 *   sort up to 32 elements) for records under any comparison with context.
 *
 * The record sorts are macros so that the key or comparison inlines (these
 * sorts run once per simulated cycle or event). All are stable: equal keys
 * keep their order, so the result does not depend on the method. Each needs
 * a scratch array of n elements from the caller and allocates nothing. */
#ifndef KCI_CORE_SORT_H
#define KCI_CORE_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Digits of the radix sorts: 11 bits (2048 counters on the stack), so up to
 * 2^22 distinct keys take two passes. */
#define KCI_RADIX_BITS 11
#define KCI_RADIX_SIZE (1u << KCI_RADIX_BITS)

/* Sort a[0..n) ascending; every a[i] <= max (max bounds the passes: one per
 * 11 bits of max). scratch has room for n entries. O(n) per pass. */
void kci_sort_u32(uint32_t *a, size_t n, uint32_t *scratch, uint32_t max);

/* The same for 64-bit keys. */
void kci_sort_u64(uint64_t *a, size_t n, uint64_t *scratch, uint64_t max);

/* Defines static void name(type *a, size_t n, type *scratch, uint64_t top,
 * const void *ctx): a stable ascending sort of a[0..n) by key(&a[i], ctx)
 * (a uint64_t expression or inline function), where every key is < top
 * (or top = UINT64_MAX). Up to `small` elements: insertion sort; more: LSD
 * radix passes through scratch (n entries). */
#define KCI_RADIX_SORT_DEFINE(name, type, key, small)                                                         \
    static void name(type *a, size_t n, type *scratch, uint64_t top, const void *ctx)                         \
    {                                                                                                         \
        (void)ctx;                                                                                            \
        if (n <= (small)) {                                                                                   \
            for (size_t i = 1; i < n; i++) {                                                                  \
                type v = a[i];                                                                                \
                uint64_t kv = key(&v, ctx);                                                                   \
                size_t j = i;                                                                                 \
                while (j > 0 && key(&a[j - 1], ctx) > kv) {                                                   \
                    a[j] = a[j - 1];                                                                          \
                    j--;                                                                                      \
                }                                                                                             \
                a[j] = v;                                                                                     \
            }                                                                                                 \
            return;                                                                                           \
        }                                                                                                     \
        type *src = a, *dst = scratch;                                                                        \
        uint32_t count[KCI_RADIX_SIZE];                                                                       \
        for (unsigned shift = 0; shift < 64 && (top - 1) >> shift; shift += KCI_RADIX_BITS) {                  \
            memset(count, 0, sizeof count);                                                                   \
            for (size_t i = 0; i < n; i++)                                                                    \
                count[(key(&src[i], ctx) >> shift) & (KCI_RADIX_SIZE - 1)]++;                                 \
            uint32_t sum = 0;                                                                                 \
            for (unsigned d = 0; d < KCI_RADIX_SIZE; d++) {                                                   \
                uint32_t c = count[d];                                                                        \
                count[d] = sum;                                                                               \
                sum += c;                                                                                     \
            }                                                                                                 \
            for (size_t i = 0; i < n; i++)                                                                    \
                dst[count[(key(&src[i], ctx) >> shift) & (KCI_RADIX_SIZE - 1)]++] = src[i];                   \
            type *t = src;                                                                                    \
            src = dst;                                                                                        \
            dst = t;                                                                                          \
        }                                                                                                     \
        if (src != a)                                                                                         \
            memcpy(a, src, n * sizeof *a);                                                                    \
    }

/* Defines static void name(type *a, size_t n, type *scratch, const void
 * *ctx): a stable sort of a[0..n) under cmp(ctx, &x, &y) (negative, zero or
 * positive as x sorts before, with or after y). Insertion sort up to 32
 * elements, else bottom-up merging through scratch (n entries); O(n log n)
 * comparisons. */
#define KCI_MERGE_SORT_DEFINE(name, type, cmp)                                                                \
    static void name(type *a, size_t n, type *scratch, const void *ctx)                                       \
    {                                                                                                         \
        if (n <= 32) {                                                                                        \
            for (size_t i = 1; i < n; i++) {                                                                  \
                type x = a[i];                                                                                \
                size_t j = i;                                                                                 \
                while (j > 0 && cmp(ctx, &a[j - 1], &x) > 0) {                                                \
                    a[j] = a[j - 1];                                                                          \
                    j--;                                                                                      \
                }                                                                                             \
                a[j] = x;                                                                                     \
            }                                                                                                 \
            return;                                                                                           \
        }                                                                                                     \
        type *src = a, *dst = scratch;                                                                        \
        for (size_t w = 1; w < n; w *= 2) {                                                                   \
            for (size_t lo = 0; lo < n; lo += 2 * w) {                                                        \
                size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;                   \
                size_t i = lo, j = mid, k = lo;                                                               \
                while (i < mid && j < hi)                                                                     \
                    dst[k++] = cmp(ctx, &src[j], &src[i]) < 0 ? src[j++] : src[i++];                          \
                while (i < mid)                                                                               \
                    dst[k++] = src[i++];                                                                      \
                while (j < hi)                                                                                \
                    dst[k++] = src[j++];                                                                      \
            }                                                                                                 \
            type *t = src;                                                                                    \
            src = dst;                                                                                        \
            dst = t;                                                                                          \
        }                                                                                                     \
        if (src != a)                                                                                         \
            memcpy(a, src, n * sizeof *a);                                                                    \
    }

#endif
