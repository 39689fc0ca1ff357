/* Checked arithmetic on sizes and counts: products and sums that report
 * overflow instead of wrapping, and the clamp of a size estimate held in a
 * double to a uint64_t. With GCC or clang the overflow checks are the
 * compiler's builtins; other C11 compilers get the portable tests below,
 * which give the same answers. No state. */
#ifndef KCI_CORE_SIZE_H
#define KCI_CORE_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* *out = a + b; returns 1 (and *out wrapped) when the sum does not fit. */
static inline int kci_add_overflow_u64(uint64_t a, uint64_t b, uint64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_add_overflow(a, b, out);
#else
    *out = a + b;
    return *out < a;
#endif
}

/* *out = a * b; returns 1 (and *out wrapped) when the product does not fit. */
static inline int kci_mul_overflow_u64(uint64_t a, uint64_t b, uint64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_mul_overflow(a, b, out);
#else
    *out = a * b;
    return a != 0 && *out / a != b;
#endif
}

/* *out = a * b for sizes (an element count times an element size); returns
 * 1 when the product does not fit in a size_t. */
static inline int kci_mul_overflow_size(size_t a, size_t b, size_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_mul_overflow(a, b, out);
#else
    *out = a * b;
    return a != 0 && *out / a != b;
#endif
}

/* A byte (or other) count estimated in a double, as a uint64_t: UINT64_MAX
 * from 1.8e19 up (2^64 is about 1.845e19, so the conversion below never
 * overflows). Needs x >= 0 and not NaN. */
static inline uint64_t kci_clamp_u64(double x) { return x > 1.8e19 ? UINT64_MAX : (uint64_t)x; }

#endif
