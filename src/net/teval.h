/* Fast evaluation of y = Ax + b on packed node ids (private to src/net and the rooms above it).
 *
 * Because k = 2^m, adding digit vectors is XOR of node ids, so Ax is the XOR
 * over the digits of x of "digit times column". Splitting x into a low and a
 * high group of digits gives Ax + b = lo[x_low] ^ hi[x_high] with two tables
 * of about sqrt(N) entries each. */
#ifndef KC_TORUS_TEVAL_H
#define KC_TORUS_TEVAL_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/torus.h"

typedef struct kci_teval {
    int low_bits;
    uint64_t low_mask;
    uint64_t *lo; /* includes b */
    uint64_t *hi;
} kci_teval;

kc_status kci_teval_init(kci_teval *ev, const kc_tcomm *c, kc_err *err);
void kci_teval_free(kci_teval *ev);

static inline uint64_t kci_teval_apply(const kci_teval *ev, uint64_t x)
{
    return ev->lo[x & ev->low_mask] ^ ev->hi[x >> ev->low_bits];
}

#endif
