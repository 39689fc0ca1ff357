/* Fast evaluation of a linear communication y = Ax + b over GF(k) on packed
 * node ids (tables per column block), and the endpoint lists it yields:
 * the comm values' own arithmetic, shared by the contention counters and
 * the mappings above. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/torus.h"
#include "teval.h"

/* ---- evaluator ----------------------------------------------------------- */

static uint64_t *column_table(const kc_tcomm *c, int first, int count, uint64_t base)
{
    int m = c->f.m, n = c->a.n;
    uint64_t size = 1ULL << (count * m);
    uint64_t *t = malloc(size * sizeof *t);
    if (!t)
        return NULL;
    /* prod[j][d] = d * column (first + j), packed. */
    t[0] = base;
    for (uint64_t v = 1; v < size; v++) {
        int j = kci_ctz64(v) / m; /* lowest nonzero digit */
        unsigned d = (unsigned)(v >> (j * m)) & (unsigned)(c->f.k - 1);
        uint64_t rest = v ^ ((uint64_t)d << (j * m));
        uint64_t col = 0;
        for (int i = n - 1; i >= 0; i--)
            col = (col << m) | kc_gf_mul(&c->f, d, c->a.e[i][first + j]);
        t[v] = t[rest] ^ col;
    }
    return t;
}

kc_status kci_teval_init(kci_teval *ev, const kc_tcomm *c, kc_err *err)
{
    int n = c->a.n, m = c->f.m;
    memset(ev, 0, sizeof *ev);
    int low_digits = n / 2;
    ev->low_bits = low_digits * m;
    ev->low_mask = (1ULL << ev->low_bits) - 1;
    uint8_t bz[KC_GFMAT_MAX] = {0};
    memcpy(bz, c->b, (size_t)n);
    ev->lo = column_table(c, 0, low_digits, kc_gfvec_pack(bz, n, m));
    ev->hi = column_table(c, low_digits, n - low_digits, 0);
    if (!ev->lo || !ev->hi) {
        kci_teval_free(ev);
        return kc_fail(err, KC_ENOMEM, "out of memory for evaluation tables");
    }
    return KC_OK;
}

void kci_teval_free(kci_teval *ev)
{
    free(ev->lo);
    free(ev->hi);
    ev->lo = ev->hi = NULL;
}

kc_status kc_tcomm_endpoints(const kc_tcomm *c, uint32_t *src, uint32_t *dst, kc_rng *rng, kc_err *err)
{
    int bits = c->a.n * c->f.m;
    if (bits > 32)
        return kc_fail(err, KC_ERANGE, "endpoint tables need N <= 2^32, got %d bits", bits);
    uint64_t count = 1ULL << bits;
    if (c->kind == KC_TCOMM_UNIFORM) {
        if (!rng)
            return kc_fail(err, KC_EINVAL, "the uniform pattern needs a random stream");
        for (uint64_t x = 0; x < count; x++) {
            uint64_t d = kc_rng_below(rng, count);
            if (src)
                src[x] = (uint32_t)x;
            if (dst)
                dst[x] = (uint32_t)d;
        }
        return KC_OK;
    }
    kci_teval ev;
    kc_status s = kci_teval_init(&ev, c, err);
    if (s)
        return s;
    int scatter = c->kind == KC_TCOMM_SCATTER;
    for (uint64_t x = 0; x < count; x++) {
        uint32_t other = (uint32_t)kci_teval_apply(&ev, x);
        if (src)
            src[x] = scatter ? other : (uint32_t)x;
        if (dst)
            dst[x] = scatter ? (uint32_t)x : other;
    }
    kci_teval_free(&ev);
    return KC_OK;
}

