/* kcube/rng.h - explicit-seed pseudo-random streams (xoshiro256**).
 *
 * Every random stream in kcube is a kc_rng value seeded by the caller, so
 * runs are reproducible and there is no hidden global state. */
#ifndef KCUBE_RNG_H
#define KCUBE_RNG_H

#include <stdint.h>

typedef struct kc_rng {
    uint64_t s[4];
} kc_rng;

/* A 64-bit seed for sub-stream `stream` of `seed` (splitmix64: the seed
 * advanced by stream golden-ratio steps, then mixed). Every place that turns
 * one seed into several (the four words of a kc_rng, one seed per sweep
 * point) uses this, so equal (seed, stream) always give equal values. O(1). */
uint64_t kc_seed_derive(uint64_t seed, uint64_t stream);

/* Seed the stream; distinct seeds give independent-looking streams. */
void kc_rng_seed(kc_rng *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t kc_rng_next(kc_rng *r);

/* Uniform integer in [0, bound); bound > 0. Unbiased. */
uint64_t kc_rng_below(kc_rng *r, uint64_t bound);

/* p[0..count-1] a uniformly random permutation of 0..count-1 (Fisher-Yates
 * from the top, one kc_rng_below per element: equal seeds give equal
 * permutations); count <= 2^32. O(count). */
void kc_rng_perm(kc_rng *r, uint32_t *p, uint64_t count);

/* Uniform double in [0, 1). */
double kc_rng_unit(kc_rng *r);

/* Exponentially distributed value with the given mean. */
double kc_rng_exponential(kc_rng *r, double mean);

#endif
