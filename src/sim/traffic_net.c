/* Traffic on general networks (kcube/simtraffic.h): ranks placed on the
 * endpoints of an allocation, several endpoints per router. The engine
 * stays a router-level machine - one FIFO source queue per router, routes
 * between routers - so this file turns rank traffic into router tables:
 * the router of every destination, and per router how many of its
 * endpoints send (the factor its generation rate gets). */
#include "kcube/simtraffic.h"

#include <stdlib.h>
#include <string.h>

#include "kcube/reader.h"

#include "sim_internal.h"

kc_status kc_simnet_rank_endpoints(const kc_simnet *net, const uint32_t *place, uint32_t **out, kc_err *err)
{
    uint64_t S = kc_simnet_slots(net), C = (uint64_t)(net->conc > 1 ? net->conc : 1);
    uint64_t E = (uint64_t)net->nodes * C;
    *out = NULL;
    uint32_t *ep = malloc((S ? S : 1) * sizeof *ep);
    uint8_t *seen = calloc(E ? E : 1, 1), *job = net->alloc ? calloc(net->nodes, 1) : NULL;
    kc_status st = KC_OK;
    if (!ep || !seen || (net->alloc && !job))
        st = kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint32_t i = 0; st == KC_OK && job && i < net->alloc_count; i++)
        job[net->alloc[i]] = 1;
    for (uint64_t v = 0; st == KC_OK && v < S; v++) {
        uint64_t r = v / C;
        uint64_t e = place ? place[v] : (net->alloc ? net->alloc[r] : r) * C + v % C;
        if (e >= E || (job && !job[e / C]))
            st = kc_fail_param(err, KC_EINVAL, "mapping", "rank %llu is placed on endpoint %llu, not one of the job's",
                               (unsigned long long)v, (unsigned long long)e);
        else if (seen[e]++)
            st = kc_fail_param(err, KC_EINVAL, "mapping", "endpoint %llu holds two ranks", (unsigned long long)e);
        else
            ep[v] = (uint32_t)e;
    }
    free(seen);
    free(job);
    if (st)
        free(ep);
    else
        *out = ep;
    return st;
}

/* t's weights: sends[v] says whether rank v sends; a router's weight is
 * the count of its sending ranks. */
static kc_status set_weights(kc_simtraffic *t, const kc_simnet *net, const uint32_t *ep, const uint8_t *sends,
                             uint32_t S, kc_err *err)
{
    uint32_t C = (uint32_t)(net->conc > 1 ? net->conc : 1);
    t->weight = calloc(net->nodes, sizeof *t->weight);
    if (!t->weight)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint32_t v = 0; v < S; v++)
        if (!sends || sends[v]) {
            uint32_t w = ++t->weight[ep[v] / C];
            if (w > t->weight_max)
                t->weight_max = w;
        }
    return KC_OK;
}

kc_status kc_simtraffic_uniform_net(kc_simtraffic *t, const kc_simnet *net, const uint32_t *place, kc_err *err)
{
    memset(t, 0, sizeof *t);
    uint64_t S = kc_simnet_slots(net);
    if (S < 2)
        return kc_fail_param(err, KC_EINVAL, "n", "uniform traffic needs at least 2 endpoints");
    if (S > UINT32_MAX)
        return kc_fail_param(err, KC_ERANGE, "endpoints", "too many endpoints for the simulator");
    uint32_t *ep;
    kc_status st = kc_simnet_rank_endpoints(net, place, &ep, err);
    if (st)
        return st;
    uint32_t C = (uint32_t)(net->conc > 1 ? net->conc : 1);
    t->nodes = net->nodes;
    t->uniform = 1;
    t->draw = (uint32_t)S;
    t->to_phys = malloc(S * sizeof *t->to_phys);
    t->to_virt = calloc(net->nodes, sizeof *t->to_virt);
    if (!t->to_phys || !t->to_virt)
        st = kc_fail(err, KC_ENOMEM, "out of memory");
    /* a draw at router x skips one rank on x: every rank there is the
     * sender equally often, so the router's messages go to the other ranks
     * in the proportions its endpoints' own draws would give */
    for (uint32_t v = 0; st == KC_OK && v < (uint32_t)S; v++) {
        t->to_phys[v] = ep[v] / C;
        t->to_virt[ep[v] / C] = v;
    }
    if (st == KC_OK)
        st = set_weights(t, net, ep, NULL, (uint32_t)S, err);
    free(ep);
    if (st)
        kc_simtraffic_free(t);
    return st;
}

kc_status kc_simtraffic_pairs_net(kc_simtraffic *t, const kc_simnet *net, const uint32_t *src, const uint32_t *dst,
                                  size_t count, const uint32_t *place, kc_err *err)
{
    memset(t, 0, sizeof *t);
    uint64_t S = kc_simnet_slots(net);
    for (size_t i = 0; i < count; i++)
        if (src[i] >= S || dst[i] >= S)
            return kc_fail(err, KC_EINVAL, "pair %zu (%u, %u) names a rank outside 0..%llu", i + 1, src[i], dst[i],
                           (unsigned long long)S - 1);
    uint32_t *ep;
    kc_status st = kc_simnet_rank_endpoints(net, place, &ep, err);
    if (st)
        return st;
    uint32_t C = (uint32_t)(net->conc > 1 ? net->conc : 1);
    uint32_t *rs = malloc((count ? count : 1) * sizeof *rs), *rd = malloc((count ? count : 1) * sizeof *rd);
    uint8_t *sends = calloc(S ? S : 1, 1);
    size_t m = 0;
    if (!rs || !rd || !sends)
        st = kc_fail(err, KC_ENOMEM, "out of memory for the traffic table");
    for (size_t i = 0; st == KC_OK && i < count; i++)
        if (ep[src[i]] != ep[dst[i]]) { /* an endpoint's message to itself never leaves it */
            rs[m] = ep[src[i]] / C;
            rd[m++] = ep[dst[i]] / C;
            sends[src[i]] = 1;
        }
    /* the router table keeps messages within a router (injection to ejection) */
    if (st == KC_OK)
        st = kci_simtraffic_build(t, net->nodes, rs, rd, m, NULL, 1, err);
    if (st == KC_OK)
        st = set_weights(t, net, ep, sends, (uint32_t)S, err);
    free(rs);
    free(rd);
    free(sends);
    free(ep);
    if (st)
        kc_simtraffic_free(t);
    return st;
}

kc_status kc_simtraffic_read_net(kc_simtraffic *t, const kc_simnet *net, const char *path, const uint32_t *place,
                                 kc_err *err)
{
    memset(t, 0, sizeof *t);
    uint64_t S = kc_simnet_slots(net);
    if (S > UINT32_MAX)
        return kc_fail_param(err, KC_ERANGE, "endpoints", "too many endpoints for the simulator");
    kc_reader *r;
    kc_status st = kc_reader_open(&r, path, "pairs file", "pairs_file", NULL, err);
    if (st)
        return st;
    uint32_t *src, *dst;
    size_t count;
    st = kci_simtraffic_read_pairs(r, (uint32_t)S, &src, &dst, &count, err);
    kc_reader_close(r);
    if (st == KC_OK)
        st = kc_simtraffic_pairs_net(t, net, src, dst, count, place, err);
    free(src);
    free(dst);
    return st;
}
