/* Radix sorts of plain 32- and 64-bit keys (core/sort.h), instances of the
 * record radix sort with the key itself as the key. */
#include "core/sort.h"

static inline uint64_t key_u32(const uint32_t *x, const void *ctx)
{
    (void)ctx;
    return *x;
}

static inline uint64_t key_u64(const uint64_t *x, const void *ctx)
{
    (void)ctx;
    return *x;
}

KCI_RADIX_SORT_DEFINE(radix_u32, uint32_t, key_u32, 64)
KCI_RADIX_SORT_DEFINE(radix_u64, uint64_t, key_u64, 64)

void kci_sort_u32(uint32_t *a, size_t n, uint32_t *scratch, uint32_t max)
{
    radix_u32(a, n, scratch, (uint64_t)max + 1, NULL);
}

void kci_sort_u64(uint64_t *a, size_t n, uint64_t *scratch, uint64_t max)
{
    radix_u64(a, n, scratch, max == UINT64_MAX ? UINT64_MAX : max + 1, NULL);
}
