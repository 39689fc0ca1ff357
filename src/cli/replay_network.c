/* Ranks onto the slots of a general network for kcube replay and kcube
 * fft-study (replay_network.h): the default order, a mapping file of
 * endpoint numbers checked against the allocation, and the network's name
 * in the reports. */
#include "replay_network.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "kcube/reader.h"

/* Slot of endpoint e on t, or UINT64_MAX when its router is not allocated.
 * pos: [nodes] the router's index in the allocation + 1 (0: not in it), or
 * NULL without an allocation. O(1). */
static uint64_t slot_of(const kc_topology *t, const uint32_t *pos, uint64_t e)
{
    uint64_t c = (uint64_t)kc_topology_conc(t), router = e / c;
    if (!pos)
        return e;
    return pos[router] ? (uint64_t)(pos[router] - 1) * c + e % c : UINT64_MAX;
}

/* One entry of a mapping file into slot_ep[*count], checked: an endpoint of
 * the network on an allocated router, not seen before. */
static kc_status take_entry(kc_reader *r, const kc_token *tok, const kc_topology *t, const uint32_t *pos,
                            unsigned char *seen, uint32_t *slot_ep, uint64_t *count, kc_err *err)
{
    uint64_t slots = kc_topology_slots(t), e = tok->value;
    kc_status st = kc_reader_check(r, tok, kc_topology_endpoint_count(t) - 1, "endpoint of the network", err);
    if (st)
        return st;
    uint64_t s = slot_of(t, pos, e);
    if (s == UINT64_MAX)
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "is on a router outside the allocation (--nodes)");
    if (seen[s])
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "is given twice");
    if (*count >= slots)
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "is more than the %llu slots",
                                    (unsigned long long)slots);
    seen[s] = 1;
    slot_ep[(*count)++] = (uint32_t)e;
    return KC_OK;
}

/* The endpoints of a mapping file, in file order, into slot_ep[slots];
 * *count of them. */
static kc_status read_endpoints(const char *path, const kc_topology *t, uint32_t *slot_ep, uint64_t *count,
                                kc_err *err)
{
    uint64_t slots = kc_topology_slots(t);
    unsigned char *seen = calloc(slots + 1, 1);
    uint32_t *pos = t->alloc ? calloc(t->nodes + 1, sizeof *pos) : NULL;
    if (!seen || (t->alloc && !pos)) {
        free(seen), free(pos);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; t->alloc && i < t->alloc_count; i++)
        pos[t->alloc[i]] = i + 1;
    kc_reader *r = NULL;
    kc_status st = kc_reader_open(&r, path, "mapping file", "mapping_file", NULL, err);
    *count = 0;
    for (int have = 1; !st && have;) {
        kc_token tok;
        if (!(st = kc_reader_next(r, &tok, &have, err)) && have)
            st = take_entry(r, &tok, t, pos, seen, slot_ep, count, err);
    }
    if (r)
        kc_reader_close(r);
    free(seen), free(pos);
    return st;
}

int cli_replay_place(const cli_args *a, const kc_topology *t, uint32_t ranks, uint32_t R, const char *mapping,
                     uint32_t **node_of)
{
    uint64_t slots = kc_topology_slots(t), need = ranks / R + (ranks % R != 0);
    *node_of = NULL;
    if (need > slots)
        return cli_error("%u ranks do not fit on the %llu slots (endpoints the job may use) of %u rank%s", ranks,
                         (unsigned long long)slots, R, R == 1 ? "" : "s");
    uint32_t *slot_ep = malloc((size_t)slots * sizeof *slot_ep);
    *node_of = malloc(((size_t)ranks + 1) * sizeof **node_of);
    if (!slot_ep || !*node_of) {
        free(slot_ep);
        return cli_error("out of memory");
    }
    uint64_t count = slots;
    kc_err err = {0};
    if (mapping) {
        if (read_endpoints(mapping, t, slot_ep, &count, &err)) {
            free(slot_ep);
            return cli_report(a, &err);
        }
    } else {
        for (uint64_t s = 0; s < slots; s++)
            slot_ep[s] = (uint32_t)kc_topology_slot_endpoint(t, s);
    }
    if (count < need) {
        free(slot_ep);
        return cli_error("--mapping: the file gives %llu endpoint%s for %u ranks, %u an endpoint (%llu needed)",
                         (unsigned long long)count, count == 1 ? "" : "s", ranks, R, (unsigned long long)need);
    }
    for (uint32_t r = 0; r < ranks; r++)
        (*node_of)[r] = slot_ep[r / R];
    free(slot_ep);
    return 0;
}

char *cli_replay_network_text(const kc_topology *t, char *buf, size_t size)
{
    char net[160];
    snprintf(buf, size, "%s: %llu slots", kc_topology_format(t, net, sizeof net),
             (unsigned long long)kc_topology_slots(t));
    return buf;
}

char *cli_replay_mapping_desc(const char *path, char *buf, size_t size)
{
    if (!path)
        snprintf(buf, size, "none");
    else if (strlen(path) + 6 > size) /* a long path is shortened visibly, as the simulator's scenarios do */
        snprintf(buf, size, "file %.*s...", (int)(size > 9 ? size - 9 : 0), path);
    else
        snprintf(buf, size, "file %s", path);
    return buf;
}

