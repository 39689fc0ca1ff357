/* kcube/gray.h - the binary-reflected Gray code and the four code
 * conversions as data motion on a Boolean cube (seed 001, Johnsson & Ho,
 * "Boolean cube emulation of butterfly networks encoded by Gray code",
 * Section 2: Definition 1, Corollaries 1-2, Lemma 1, Figures 1 and 2).
 *
 * G_n(i) = i xor (i >> 1) for every width n <= 64 (the code of an n-bit
 * number does not depend on n); its inverse is the prefix xor from the top
 * bit down. Lemma 1: G(i) xor G(i xor 2^j) = 2^j + 2^(j-1) for j > 0 (1 for
 * j = 0), so a butterfly pair on Gray-coded processors is two hops apart.
 *
 * Conversions. Gray -> binary starts with element i in processor G_n(i)
 * and ends with element i in processor i; binary -> Gray the reverse. Each
 * of the four algorithms (msb->lsb or lsb->msb) takes n - 1 steps; in step
 * k the processors whose control bits say so exchange their element with
 * the neighbour in dimension k. Cost O(n 2^n) time, O(2^n) memory. */
#ifndef KCUBE_GRAY_H
#define KCUBE_GRAY_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/stepnet.h"

static inline uint64_t kc_gray(uint64_t i)
{
    return i ^ (i >> 1);
}

/* G^-1: prefix xor over all 64 bits. O(log 64). */
static inline uint64_t kc_gray_inv(uint64_t g)
{
    for (int s = 1; s < 64; s <<= 1)
        g ^= g >> s;
    return g;
}

/* The n-bit mask 2^n - 1 (n = 64 included). */
static inline uint64_t kc_gray_mask(int n)
{
    return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

typedef enum kc_gray_conv {
    KC_GRAY_TO_BIN_MSB, /* for k = n-2 downto 0: if a_{k+1} = 1, exchange in dimension k */
    KC_GRAY_TO_BIN_LSB, /* for k = 0 to n-2: if a_{n-1} xor .. xor a_{k+1} = 1, exchange in k */
    KC_BIN_TO_GRAY_MSB, /* for k = n-2 downto 0: if a_{n-1} xor .. xor a_{k+1} = 1, exchange in k */
    KC_BIN_TO_GRAY_LSB  /* for k = 0 to n-2: if a_{k+1} = 1, exchange in k */
} kc_gray_conv;

extern const kc_names kc_gray_conv_names;

/* Is this a Gray -> binary conversion? */
static inline int kc_gray_conv_to_binary(kc_gray_conv c)
{
    return c == KC_GRAY_TO_BIN_MSB || c == KC_GRAY_TO_BIN_LSB;
}

/* Called after every step with the dimension used and data[x] = the element
 * in processor x. */
typedef void (*kc_gray_step_fn)(void *ctx, int step, int dim, const uint64_t *data);

/* Run conversion `alg` on the n-cube (1 <= n <= 24) as data motion through
 * the step engine `net` (an all-port n-cube engine). data[x] (2^n entries)
 * is the element in processor x; it is updated in place. Step counts and
 * conflicts are in the engine's statistics. */
kc_status kc_gray_convert(int n, kc_gray_conv alg, uint64_t *data, kc_stepnet *net, kc_gray_step_fn fn, void *ctx,
                          kc_err *err);

#endif
