/* kcube/contention.h - channel contention of an LCC under e-cube routing.
 *
 * E-cube routing corrects dimension 0 first, then 1, ...; the channel of
 * dimension i out of node z goes to z + e_i. T_i is the largest number of
 * messages whose paths use one channel of dimension i; the degree of
 * contention is the largest T_i.
 *
 * Two independent ways to get T_i:
 *  - kc_contention_formula: seed 000 Theorem 1 for permutations and gathers,
 *    T_i = 2^(i - rank A[0..i, 0..i-1]) unless dimension i is idle, and the
 *    mirror image for scatters, T_i = 2^((n-1-i) - rank A[i..n-1, i+1..n-1]);
 *    O(n^3), any n <= 64.
 *  - kc_contention_exact: routes every message and counts messages per
 *    directed channel, one dimension at a time, in windows of counters
 *    (memory at most 4 x 2^n bytes per thread, no table of messages), the
 *    dimensions shared among threads; n <= KC_EXACT_MAX_N. */
#ifndef KCUBE_CONTENTION_H
#define KCUBE_CONTENTION_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/lcc.h"

#define KC_EXACT_MAX_N 32
#define KC_EXACT_MAX_THREADS 8
/* seconds per (message, dimension) on one core, rounded up (bench_reorder_scale) */
#define KC_EXACT_SECONDS_PER_MESSAGE_DIM 4e-9

typedef struct kc_contention {
    int n;
    uint64_t per_dim[KC_BITMAT_MAX]; /* T_i */
    uint64_t witness[KC_BITMAT_MAX]; /* a node z whose channel z -> z+e_i carries T_i messages (when T_i > 0) */
    uint64_t max;                    /* max_i T_i */
    int max_dim;                     /* lowest i with T_i = max, or -1 when there is no traffic */
} kc_contention;

/* T_i by the closed forms. */
void kc_contention_formula(const kc_lcc *c, kc_contention *out);
/* T_i by the closed form, one dimension. */
uint64_t kc_contention_formula_dim(const kc_lcc *c, int i);

typedef struct kc_exact_opts {
    int threads; /* default 2; the counts do not depend on it */
} kc_exact_opts;

void kc_exact_opts_default(kc_exact_opts *o);

/* T_i by routing every message (d = A m + b along a Gray code) and counting
 * per channel in windows: 2^i counters for dimension i of a permutation or
 * gather, 2^(n-i) for a scatter, read and cleared per group of messages.
 * Witness: the lowest channel with T_i. Time O(n 2^n) / threads; n <=
 * KC_EXACT_MAX_N (memory: kc_contention_exact_estimate). */
kc_status kc_contention_exact_ex(const kc_lcc *c, const kc_exact_opts *opts, kc_contention *out,
                                 const kc_progress *progress, kc_err *err);

/* kc_contention_exact_ex with the default options. */
kc_status kc_contention_exact(const kc_lcc *c, kc_contention *out, const kc_progress *progress, kc_err *err);

/* Peak bytes and wall seconds of kc_contention_exact_ex for an n-cube LCC of
 * the given kind (kc_lcc_kind) with that many threads. O(1). */
void kc_contention_exact_estimate(int n, int kind, int threads, uint64_t *bytes, double *seconds);

/* Reference count that walks every path hop by hop into one counter per
 * directed channel (memory O(n 2^n)); n <= 16. For tests and benchmarks. */
kc_status kc_contention_paths(const kc_lcc *c, kc_contention *out, kc_err *err);

/* Channel used by the message src -> dst in dimension i (src and dst differ
 * in bit i): the message has already corrected bits 0..i-1. */
static inline uint64_t kc_ecube_channel(uint64_t src, uint64_t dst, int i)
{
    uint64_t low = (1ULL << i) - 1;
    return (dst & low) | (src & ~low);
}

#endif
