/* Bit operations on 32- and 64-bit words (population count, trailing and
 * leading zeros, parity) and memory prefetching, for every file of the
 * library. With GCC or clang they are the compiler's builtins (one
 * instruction on current CPUs); any other C11 compiler gets the portable
 * fallbacks below, which compute the same values. Nothing here has state.
 *
 * KCI_CACHE_LINE is the line size prefetch distances and blocked layouts are
 * measured in (64 bytes on x86-64 and most ARM cores; a build for a machine
 * with other lines may define it on the command line). */
#ifndef KCI_CORE_BITS_H
#define KCI_CORE_BITS_H

#include <stdint.h>

#ifndef KCI_CACHE_LINE
#define KCI_CACHE_LINE 64
#endif

#if (defined(__GNUC__) || defined(__clang__)) && !defined(KCI_BITS_PORTABLE)
#define KCI_BITS_BUILTIN 1
#else
#define KCI_BITS_BUILTIN 0
#endif

/* Portable fallbacks: always compiled (the unit test compares them with the
 * builtins); constant time except kci_fb_clz64's six halving steps. */
static inline int kci_fb_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* Needs x != 0. */
static inline int kci_fb_ctz64(uint64_t x)
{
    /* the lowest set bit isolated, then its index: popcount of the ones below it */
    return kci_fb_popcount64((x & (0 - x)) - 1);
}

/* Needs x != 0. */
static inline int kci_fb_clz64(uint64_t x)
{
    int n = 0;
    for (int s = 32; s > 0; s >>= 1)
        if (!(x >> (64 - s))) {
            n += s;
            x <<= s;
        }
    return n;
}

static inline int kci_fb_parity64(uint64_t x)
{
    x ^= x >> 32;
    x ^= x >> 16;
    x ^= x >> 8;
    x ^= x >> 4;
    x ^= x >> 2;
    x ^= x >> 1;
    return (int)(x & 1);
}

/* Number of set bits of x (0..64). */
static inline int kci_popcount64(uint64_t x)
{
#if KCI_BITS_BUILTIN
    return __builtin_popcountll(x);
#else
    return kci_fb_popcount64(x);
#endif
}

/* Number of set bits of x (0..32). */
static inline int kci_popcount32(uint32_t x) { return kci_popcount64(x); }

/* Index of the lowest set bit of x; x must not be 0 (undefined, as the
 * builtin is). */
static inline int kci_ctz64(uint64_t x)
{
#if KCI_BITS_BUILTIN
    return __builtin_ctzll(x);
#else
    return kci_fb_ctz64(x);
#endif
}

/* The same for a 32-bit word; x must not be 0. */
static inline int kci_ctz32(uint32_t x) { return kci_ctz64(x); }

/* Number of zero bits above the highest set bit of x; x must not be 0. */
static inline int kci_clz64(uint64_t x)
{
#if KCI_BITS_BUILTIN
    return __builtin_clzll(x);
#else
    return kci_fb_clz64(x);
#endif
}

/* The same for a 32-bit word (0..31); x must not be 0. */
static inline int kci_clz32(uint32_t x) { return kci_clz64(x) - 32; }

/* Index of the highest set bit of x (floor(log2 x)); x must not be 0. */
static inline int kci_log2_64(uint64_t x) { return 63 - kci_clz64(x); }

/* 1 when x is a power of two (1, 2, 4, ...), else 0 (0 included). */
static inline int kci_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* Parity of x: 1 when it has an odd number of set bits. */
static inline int kci_parity64(uint64_t x)
{
#if KCI_BITS_BUILTIN
    return __builtin_parityll(x);
#else
    return kci_fb_parity64(x);
#endif
}

/* A hint that *p will be read soon (kept in every cache level). No visible
 * effect: a compiler without the builtin drops it. */
static inline void kci_prefetch(const void *p)
{
#if KCI_BITS_BUILTIN
    __builtin_prefetch(p, 0, 3);
#else
    (void)p;
#endif
}

/* A hint that *p will be written soon. */
static inline void kci_prefetch_w(const void *p)
{
#if KCI_BITS_BUILTIN
    __builtin_prefetch(p, 1, 3);
#else
    (void)p;
#endif
}

#endif
