/* Latency samples: mean and exact quantiles. */
#include "kcube/simstats.h"

#include <stdlib.h>
#include <string.h>

void kc_simsample_init(kc_simsample *s) { memset(s, 0, sizeof *s); }

kc_status kc_simsample_add(kc_simsample *s, uint32_t value)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        uint32_t *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return KC_ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->count++] = value;
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
    qsort(s->v, s->count, sizeof *s->v, cmp_u32);
    size_t rank = (size_t)(q * (double)s->count + 0.999999999); /* ceil(q * count) */
    if (rank < 1)
        rank = 1;
    if (rank > s->count)
        rank = s->count;
    return s->v[rank - 1];
}

void kc_simsample_free(kc_simsample *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
