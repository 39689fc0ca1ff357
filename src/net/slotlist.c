/* Where ranks run, read from a file (kcube/topology.h): the one reader of
 * the node lists of endpoint numbers that map writes and simulate, replay
 * and map read back, so every command checks them by the same rules and
 * says the same things about a bad entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/reader.h"
#include "kcube/topology.h"

/* endpoint -> slot + 1 (0: not a slot of the job), over the whole network. */
static uint32_t *slot_table(const kc_topology *t, uint64_t endpoints, kc_err *err)
{
    uint32_t *slot_of = calloc((size_t)endpoints, sizeof *slot_of);
    if (!slot_of) {
        kc_fail(err, KC_ENOMEM, "out of memory for the endpoint table");
        return NULL;
    }
    uint64_t slots = kc_topology_slots(t);
    for (uint64_t s = 0; s < slots; s++)
        slot_of[kc_topology_slot_endpoint(t, s)] = (uint32_t)(s + 1);
    return slot_of;
}

/* One entry: an endpoint of the job, not taken before, within max. */
static kc_status take(kc_reader *r, const kc_token *tok, uint64_t endpoints, uint32_t *slot_of, uint64_t max,
                      uint32_t *slot, uint64_t *count, kc_err *err)
{
    kc_status st = kc_reader_check(r, tok, endpoints - 1, "network endpoint", err);
    if (st)
        return st;
    uint32_t s = slot_of[tok->value];
    if (s == 0)
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "is on a router outside the allocation");
    if (s == UINT32_MAX)
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "appears twice (each endpoint runs one rank)");
    if (*count == max)
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "is one entry too many (%llu ranks)",
                                    (unsigned long long)max);
    slot[(*count)++] = s - 1;
    slot_of[tok->value] = UINT32_MAX; /* taken */
    return KC_OK;
}

kc_status kc_topology_read_slots(kc_reader *r, const kc_topology *t, uint64_t min, uint64_t max, uint32_t *slot,
                                 uint64_t *count, kc_err *err)
{
    uint64_t endpoints = kc_topology_endpoint_count(t);
    *count = 0;
    if (endpoints > UINT32_MAX || endpoints == 0)
        return kc_fail(err, KC_ERANGE, "a list of endpoints needs a network of at most 2^32 - 1 endpoints");
    if (max > kc_topology_slots(t))
        max = kc_topology_slots(t);
    uint32_t *slot_of = slot_table(t, endpoints, err);
    if (!slot_of)
        return KC_ENOMEM;
    kc_status st = KC_OK;
    for (int have = 1; !st && have;) {
        kc_token tok;
        if (!(st = kc_reader_next(r, &tok, &have, err)) && have)
            st = take(r, &tok, endpoints, slot_of, max, slot, count, err);
    }
    free(slot_of);
    if (!st && *count < min)
        st = kc_fail_param(err, KC_EINVAL, kc_reader_param(r), "%s has %llu entries, expected %s%llu (one endpoint per rank)",
                     kc_reader_name(r), (unsigned long long)*count, min == max ? "" : "at least ",
                     (unsigned long long)min);
    return st;
}
