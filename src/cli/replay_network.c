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

/* The endpoints of a mapping file, in file order, into slot_ep[slots]
 * (kc_topology_read_slots: at least `need` of them); *count of them. */
static kc_status read_endpoints(const char *path, const kc_topology *t, uint64_t need, uint32_t *slot_ep,
                                uint64_t *count, kc_err *err)
{
    kc_reader *r = NULL;
    kc_status st = kc_reader_open(&r, path, "mapping file", "mapping_file", NULL, err);
    *count = 0;
    if (!st)
        st = kc_topology_read_slots(r, t, need, kc_topology_slots(t), slot_ep, count, err);
    kc_reader_close(r);
    for (uint64_t i = 0; !st && i < *count; i++)
        slot_ep[i] = (uint32_t)kc_topology_slot_endpoint(t, slot_ep[i]);
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
        if (read_endpoints(mapping, t, need, slot_ep, &count, &err)) {
            free(slot_ep);
            return cli_report(a, &err);
        }
    } else {
        for (uint64_t s = 0; s < slots; s++)
            slot_ep[s] = (uint32_t)kc_topology_slot_endpoint(t, s);
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

