#include "kcube/nodemap.h"
#include "kcube/perm.h"

#include <stdlib.h>
#include <string.h>

static kc_status fill_inverse(kc_nodemap *m, kc_err *err)
{
    kc_status s = kc_perm_invert(m->to_physical, m->to_virtual, m->count, "mapping", err);
    if (s)
        kc_nodemap_free(m);
    return s;
}

static kc_status alloc_map(kc_nodemap *m, uint64_t count, kc_err *err)
{
    memset(m, 0, sizeof *m);
    if (count == 0 || count > (1ULL << 32))
        return kc_fail(err, KC_ERANGE, "node count %llu out of range", (unsigned long long)count);
    m->count = count;
    m->to_physical = malloc(count * sizeof(uint32_t));
    m->to_virtual = malloc(count * sizeof(uint32_t));
    if (!m->to_physical || !m->to_virtual) {
        kc_nodemap_free(m);
        return kc_fail(err, KC_ENOMEM, "out of memory for a %llu-node mapping", (unsigned long long)count);
    }
    return KC_OK;
}

kc_status kc_nodemap_build(kc_nodemap *m, uint64_t count, uint64_t (*to_physical)(const void *ctx, uint64_t v),
                           const void *ctx, kc_err *err)
{
    kc_status s = alloc_map(m, count, err);
    if (s)
        return s;
    for (uint64_t v = 0; v < count; v++)
        m->to_physical[v] = (uint32_t)to_physical(ctx, v);
    return fill_inverse(m, err);
}

kc_status kc_nodemap_from_array(kc_nodemap *m, const uint32_t *to_physical, uint64_t count, kc_err *err)
{
    kc_status s = alloc_map(m, count, err);
    if (s)
        return s;
    memcpy(m->to_physical, to_physical, count * sizeof(uint32_t));
    return fill_inverse(m, err);
}

void kc_nodemap_free(kc_nodemap *m)
{
    free(m->to_physical);
    free(m->to_virtual);
    m->to_physical = m->to_virtual = NULL;
    m->count = 0;
}
