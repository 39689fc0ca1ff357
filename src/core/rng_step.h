/* The xoshiro256** step inline, for loops that draw once per element and
 * cannot afford a call per draw (the simulator's Bernoulli sources draw
 * every source every cycle). kc_rng_next is this same step, so a stream
 * advanced here or through the library gives the same values. */
#ifndef KCI_CORE_RNG_STEP_H
#define KCI_CORE_RNG_STEP_H

#include <math.h>
#include <stdint.h>

#include "kcube/rng.h"

static inline uint64_t kci_rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* Next 64 bits of r (the value kc_rng_next returns). O(1). */
static inline uint64_t kci_rng_step(kc_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = kci_rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = kci_rotl64(s[3], 45);
    return result;
}

/* The integer form of "kc_rng_unit(r) < q": kc_rng_unit is (x >> 11) * 2^-53,
 * so it is below q exactly when x >> 11 is below ceil(q * 2^53) (scaling by a
 * power of two is exact). For q in [0, 1]; q >= 1 always succeeds. */
static inline uint64_t kci_rng_unit_threshold(double q)
{
    if (!(q > 0))
        return 0;
    if (q >= 1)
        return UINT64_C(1) << 53;
    return (uint64_t)ceil(q * 0x1.0p53);
}

#endif
