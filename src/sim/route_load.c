/* The degree of contention of a traffic table under a simulator routing:
 * every route walked on its first candidate, loads counted per physical
 * link (VCs share the link's bandwidth). */
#include "kcube/simtraffic.h"

#include <stdlib.h>

#include "kcube/simnet.h"
#include "kcube/simroute.h"

kc_status kc_simtraffic_contention(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *t,
                                   long long *out, kc_err *err)
{
    *out = -1;
    if (t->uniform)
        return KC_OK;
    uint32_t *load = calloc(net->channels, sizeof *load);
    if (!load)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    uint32_t cand[KC_SIMROUTE_MAX], best = 0;
    for (uint32_t s = 0; s < net->nodes; s++)
        for (uint32_t j = t->start[s]; j < t->start[s + 1]; j++) {
            uint32_t node = s, in = kc_simnet_injch(net, s, 0), dst = t->dest[j];
            while (node != dst) {
                kc_simroute_candidates(route, net, node, dst, in, cand);
                in = cand[0];
                /* count per physical link: VCs share the link's bandwidth */
                uint32_t link = in / (uint32_t)net->vcs;
                if (++load[link] > best)
                    best = load[link];
                node = net->next_node[link];
            }
        }
    free(load);
    *out = best;
    return KC_OK;
}
