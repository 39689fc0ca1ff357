/* kcube/simstats.h - latency statistics of a simulation run.
 *
 * Latencies are whole cycles. The sample is exact (the p99 is the smallest
 * value with at least 99% of the sample at or below it) and compact: it
 * counts how many times each value occurs (a histogram up to
 * KC_SIMSAMPLE_HIST cycles, 8 bytes per value up to the largest seen) and
 * keeps the rare larger values themselves, so its memory depends on how
 * long latencies are, not on how many messages were measured (a
 * 2^20-node run measures about 10^8). */
#ifndef KCUBE_SIMSTATS_H
#define KCUBE_SIMSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"

#define KC_SIMSAMPLE_HIST (UINT32_C(1) << 20) /* values below this are counted in the histogram */

typedef struct kc_simsample {
    uint64_t *hist; /* hist[v]: how many values equal v, for v < hcap */
    size_t hcap;
    uint32_t *big; /* values of KC_SIMSAMPLE_HIST or more, as added */
    size_t nbig, bigcap;
    size_t count; /* values added */
    double sum;
} kc_simsample;

void kc_simsample_init(kc_simsample *s);
/* O(1) amortised; KC_ENOMEM leaves the sample as it was. */
kc_status kc_simsample_add(kc_simsample *s, uint32_t value);
double kc_simsample_mean(const kc_simsample *s);
/* Exact quantile q in (0, 1]: O(largest value below KC_SIMSAMPLE_HIST)
 * plus a sort of the larger values, if any. 0 for an empty sample. */
uint32_t kc_simsample_quantile(kc_simsample *s, double q);
/* Bytes a sample holds for `count` values all below `span` (an upper
 * bound of its peak, for memory estimates). */
uint64_t kc_simsample_bytes(uint64_t count, uint64_t span);
void kc_simsample_free(kc_simsample *s);

#endif
