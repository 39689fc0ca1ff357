/* Growing arrays (core/grow.h): capacity doubling and exact resizing with
 * overflow checks, for every dynamic array of the library. The array
 * pointer is read and written through memcpy so that one function serves
 * pointers to any object type (they share void *'s representation on every
 * platform kcube supports: POSIX requires it). */
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/size.h"

int kci_resize(void *pp, size_t n, size_t elem)
{
    size_t bytes;
    if (kci_mul_overflow_size(n, elem, &bytes))
        return -1;
    void *old;
    memcpy(&old, pp, sizeof old);
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p)
        return -1;
    memcpy(pp, &p, sizeof p);
    return 0;
}

int kci_reserve(void *pp, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : first ? first : 1;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return -1;
        c *= 2;
    }
    if (kci_resize(pp, c, elem))
        return -1;
    *cap = c;
    return 0;
}
