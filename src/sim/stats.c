/* Latency samples: mean and exact quantiles (a radix sort: the sort was a
 * tenth of a fast simulation's time). */
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

/* Sort in place: least-significant-digit radix on 11-bit digits (as many as
 * the largest value needs) for large samples, qsort for small ones or when
 * the scratch array cannot be had. Same order either way. */
static void sort_values(uint32_t *v, size_t n)
{
    uint32_t *tmp = n > 256 ? malloc(n * sizeof *tmp) : NULL;
    if (!tmp) {
        qsort(v, n, sizeof *v, cmp_u32);
        return;
    }
    uint32_t max = 0;
    for (size_t i = 0; i < n; i++)
        max = v[i] > max ? v[i] : max;
    uint32_t *src = v, *dst = tmp;
    size_t count[2048];
    for (int shift = 0; shift < 32 && (max >> shift); shift += 11) {
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[src[i] >> shift & 2047]++;
        size_t sum = 0;
        for (int d = 0; d < 2048; d++) {
            size_t t = count[d];
            count[d] = sum;
            sum += t;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[src[i] >> shift & 2047]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    free(tmp);
}

uint32_t kc_simsample_quantile(kc_simsample *s, double q)
{
    if (!s->count)
        return 0;
    sort_values(s->v, s->count);
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
