/* Latency samples: mean and exact quantiles from a histogram of the values
 * (latencies are small integers: a few thousand cycles), with the rare
 * values past KC_SIMSAMPLE_HIST kept aside and sorted when asked. Keeping
 * every value (4 bytes a message, and as much again to sort them) was most
 * of a million-node run's memory. */
#include "kcube/simstats.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void kc_simsample_init(kc_simsample *s) { memset(s, 0, sizeof *s); }

kc_status kc_simsample_add(kc_simsample *s, uint32_t value)
{
    if (value >= KC_SIMSAMPLE_HIST) {
        if (KCI_RESERVE(s->big, s->bigcap, s->nbig + 1, 64))
            return KC_ENOMEM;
        s->big[s->nbig++] = value;
    } else {
        if (value >= s->hcap) {
            size_t old = s->hcap;
            if (KCI_RESERVE(s->hist, s->hcap, (size_t)value + 1, 1024))
                return KC_ENOMEM;
            memset(s->hist + old, 0, (s->hcap - old) * sizeof *s->hist);
        }
        s->hist[value]++;
    }
    s->count++;
    s->sum += value;
    return KC_OK;
}

double kc_simsample_mean(const kc_simsample *s) { return s->count ? s->sum / (double)s->count : 0.0; }

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

uint32_t kc_simsample_quantile(kc_simsample *s, double q)
{
    if (!s->count)
        return 0;
    size_t rank = (size_t)(q * (double)s->count + 0.999999999); /* ceil(q * count) */
    if (rank < 1)
        rank = 1;
    if (rank > s->count)
        rank = s->count;
    uint64_t seen = 0;
    for (size_t v = 0; v < s->hcap; v++) {
        seen += s->hist[v];
        if (seen >= rank)
            return (uint32_t)v;
    }
    qsort(s->big, s->nbig, sizeof *s->big, cmp_u32);
    return s->big[rank - seen - 1];
}

uint64_t kc_simsample_bytes(uint64_t count, uint64_t span)
{
    uint64_t h = span < KC_SIMSAMPLE_HIST ? span : KC_SIMSAMPLE_HIST, cap = 1024;
    while (cap < h)
        cap *= 2;
    uint64_t b = cap * sizeof(uint64_t);
    if (span > KC_SIMSAMPLE_HIST) { /* values past the histogram, in a doubling array */
        uint64_t c = 64;
        while (c < count)
            c *= 2;
        b += c * sizeof(uint32_t);
    }
    return b;
}

void kc_simsample_free(kc_simsample *s)
{
    free(s->hist);
    free(s->big);
    memset(s, 0, sizeof *s);
}
