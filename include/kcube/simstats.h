/* kcube/simstats.h - latency statistics of a simulation run.
 *
 * Latencies are whole cycles; the sample keeps every value so that the p99
 * is exact (the smallest value with at least 99% of the sample at or below
 * it). */
#ifndef KCUBE_SIMSTATS_H
#define KCUBE_SIMSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"

typedef struct kc_simsample {
    uint32_t *v;
    size_t count, cap;
    double sum;
} kc_simsample;

void kc_simsample_init(kc_simsample *s);
kc_status kc_simsample_add(kc_simsample *s, uint32_t value);
double kc_simsample_mean(const kc_simsample *s);
/* Exact quantile q in (0, 1]; sorts the sample in place. 0 for an empty sample. */
uint32_t kc_simsample_quantile(kc_simsample *s, double q);
void kc_simsample_free(kc_simsample *s);

#endif
