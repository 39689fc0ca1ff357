/* traffic.c - the message list behind kcube/traffic.h: init, append, groups,
 * free. The readers and generators live in their own files. */
#include "kcube/traffic.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

kc_status kc_traffic_init(kc_traffic *t, uint64_t ranks, kc_err *err)
{
    memset(t, 0, sizeof *t);
    if (ranks < 1 || ranks > ((uint64_t)1 << 32))
        return kc_fail_param(err, KC_ERANGE, "traffic", "traffic needs 1..2^32 ranks, not %llu",
                             (unsigned long long)ranks);
    t->ranks = ranks;
    return KC_OK;
}

kc_status kc_traffic_set_ranks(kc_traffic *t, uint64_t ranks, kc_err *err)
{
    if (ranks < 1 || ranks > ((uint64_t)1 << 32))
        return kc_fail_param(err, KC_ERANGE, "traffic", "traffic needs 1..2^32 ranks, not %llu",
                             (unsigned long long)ranks);
    for (size_t m = 0; m < t->count; m++)
        if (t->src[m] >= ranks || t->dst[m] >= ranks)
            return kc_fail_param(err, KC_EINVAL, "traffic", "message %zu, from rank %u to %u, is outside 0..%llu",
                                 m + 1, t->src[m], t->dst[m], (unsigned long long)(ranks - 1));
    t->ranks = ranks;
    return KC_OK;
}

void kc_traffic_free(kc_traffic *t)
{
    free(t->src);
    free(t->dst);
    free(t->bytes);
    free(t->group);
    for (uint32_t g = 0; g < t->named; g++)
        free(t->group_name[g]);
    free(t->group_name);
    memset(t, 0, sizeof *t);
}

/* Grow the arrays together so they never disagree on capacity. */
static kc_status traffic_grow(kc_traffic *t, kc_err *err)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    if (cap > KC_TRAFFIC_MAX_MESSAGES)
        cap = KC_TRAFFIC_MAX_MESSAGES;
    if (KCI_RESIZE(t->src, cap) || KCI_RESIZE(t->dst, cap) || KCI_RESIZE(t->bytes, cap) ||
        (t->group && KCI_RESIZE(t->group, cap)))
        return kc_fail(err, KC_ENOMEM, "out of memory for %zu messages", cap);
    t->cap = cap;
    return KC_OK;
}

kc_status kc_traffic_add(kc_traffic *t, uint64_t src, uint64_t dst, uint64_t bytes, kc_err *err)
{
    if (src >= t->ranks || dst >= t->ranks)
        return kc_fail_param(err, KC_ERANGE, "traffic", "rank %llu out of range 0..%llu",
                             (unsigned long long)(src >= t->ranks ? src : dst), (unsigned long long)(t->ranks - 1));
    if (t->count == t->cap) {
        if (t->count >= KC_TRAFFIC_MAX_MESSAGES)
            return kc_fail_param(err, KC_ERANGE, "traffic", "more than %u messages", KC_TRAFFIC_MAX_MESSAGES);
        kc_status s = traffic_grow(t, err);
        if (s != KC_OK)
            return s;
    }
    t->src[t->count] = (uint32_t)src;
    t->dst[t->count] = (uint32_t)dst;
    t->bytes[t->count] = bytes;
    if (t->group)
        t->group[t->count] = t->current;
    t->count++;
    return KC_OK;
}

kc_status kc_traffic_begin_group(kc_traffic *t, kc_err *err)
{
    if (t->groups == UINT32_MAX)
        return kc_fail_param(err, KC_ERANGE, "traffic", "more than %u groups", UINT32_MAX - 1);
    if (!t->group) {
        /* calloc(0) may return NULL: keep at least one slot. */
        t->group = calloc(t->cap ? t->cap : 1, sizeof *t->group);
        if (!t->group)
            return kc_fail(err, KC_ENOMEM, "out of memory for %zu message groups", t->cap);
        t->groups = t->count ? 1 : 0;
    }
    t->groups++;
    t->current = t->groups - 1;
    return KC_OK;
}

const char *kc_traffic_group_name(const kc_traffic *t, uint32_t g)
{
    return g < t->named ? t->group_name[g] : NULL;
}

kc_status kc_traffic_set_phase(kc_traffic *t, const char *name, kc_err *err)
{
    for (uint32_t g = 0; g < t->named; g++)
        if (t->group_name[g] && strcmp(t->group_name[g], name) == 0) {
            t->current = g;
            return KC_OK;
        }
    if (t->named >= KC_TRAFFIC_MAX_PHASES)
        return kc_fail_param(err, KC_EINVAL, "traffic", "more than %u phases", KC_TRAFFIC_MAX_PHASES);
    kc_status s = kc_traffic_begin_group(t, err);
    if (s)
        return s;
    if (KCI_RESIZE(t->group_name, t->groups))
        return kc_fail(err, KC_ENOMEM, "out of memory for %u phase names", t->groups);
    char **names = t->group_name;
    for (uint32_t g = t->named; g < t->groups; g++)
        names[g] = NULL;
    t->named = t->groups;
    if (!(names[t->current] = strdup(name)))
        return kc_fail(err, KC_ENOMEM, "out of memory for a phase name");
    return KC_OK;
}

void kc_traffic_ungroup(kc_traffic *t)
{
    for (uint32_t g = 0; g < t->named; g++)
        free(t->group_name[g]);
    free(t->group_name);
    free(t->group);
    t->group_name = NULL;
    t->group = NULL;
    t->named = t->groups = t->current = 0;
}
