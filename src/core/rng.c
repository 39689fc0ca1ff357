#include "kcube/rng.h"

#include <math.h>

#include "rng_step.h"

uint64_t kc_seed_derive(uint64_t seed, uint64_t stream)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ULL * stream;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void kc_rng_seed(kc_rng *r, uint64_t seed)
{
    /* streams 1..4: the first four outputs of splitmix64 started at seed */
    for (int i = 0; i < 4; i++)
        r->s[i] = kc_seed_derive(seed, (uint64_t)i + 1);
}

uint64_t kc_rng_next(kc_rng *r) { return kci_rng_step(r); }

uint64_t kc_rng_below(kc_rng *r, uint64_t bound)
{
    /* Rejection keeps the result unbiased for any bound. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = kc_rng_next(r);
    while (x >= limit);
    return x % bound;
}

double kc_rng_unit(kc_rng *r)
{
    return (double)(kc_rng_next(r) >> 11) * 0x1.0p-53;
}

double kc_rng_exponential(kc_rng *r, double mean)
{
    return -mean * log(1.0 - kc_rng_unit(r));
}

void kc_rng_perm(kc_rng *r, uint32_t *p, uint64_t count)
{
    for (uint64_t i = 0; i < count; i++)
        p[i] = (uint32_t)i;
    for (uint64_t i = count; i-- > 1;) {
        uint64_t j = kc_rng_below(r, i + 1);
        uint32_t x = p[i];
        p[i] = p[j];
        p[j] = x;
    }
}
