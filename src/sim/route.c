/* Routing functions: e-cube, dimension-ordered with VC rules, P-cube, Duato. */
#include "kcube/simroute.h"

#include <string.h>

kc_status kc_simalgo_parse(const char *text, kc_simalgo *algo, kc_err *err)
{
    if (!strcmp(text, "ecube") || !strcmp(text, "e-cube"))
        *algo = KC_ROUTE_ECUBE;
    else if (!strcmp(text, "dor"))
        *algo = KC_ROUTE_DOR;
    else if (!strcmp(text, "pcube") || !strcmp(text, "p-cube"))
        *algo = KC_ROUTE_PCUBE;
    else if (!strcmp(text, "duato"))
        *algo = KC_ROUTE_DUATO;
    else if (!strcmp(text, "min") || !strcmp(text, "chiu") || !strcmp(text, "mixab3") || !strcmp(text, "mixbb3"))
        return kc_fail(err, KC_EINVAL,
                       "routing '%s' is not implemented: its rules could not be established from a "
                       "published description (see docs/sim.md)", text);
    else
        return kc_fail(err, KC_EINVAL, "unknown routing '%s' (ecube, dor, pcube, duato)", text);
    return KC_OK;
}

const char *kc_simalgo_name(kc_simalgo algo)
{
    switch (algo) {
    case KC_ROUTE_ECUBE: return "ecube";
    case KC_ROUTE_DOR: return "dor";
    case KC_ROUTE_PCUBE: return "pcube";
    case KC_ROUTE_DUATO: return "duato";
    }
    return "?";
}

kc_status kc_simvcrule_parse(const char *text, kc_simvcrule *rule, kc_err *err)
{
    if (!strcmp(text, "highlow"))
        *rule = KC_VC_HIGHLOW;
    else if (!strcmp(text, "dateline"))
        *rule = KC_VC_DATELINE;
    else if (!strcmp(text, "none"))
        *rule = KC_VC_NONE;
    else
        return kc_fail(err, KC_EINVAL, "unknown VC rule '%s' (highlow, dateline, none)", text);
    return KC_OK;
}

const char *kc_simvcrule_name(kc_simvcrule rule)
{
    switch (rule) {
    case KC_VC_HIGHLOW: return "highlow";
    case KC_VC_DATELINE: return "dateline";
    case KC_VC_NONE: return "none";
    }
    return "?";
}

kc_status kc_simroute_check(const kc_simroute *r, const kc_simnet *net, kc_err *err)
{
    switch (r->algo) {
    case KC_ROUTE_ECUBE:
        if (net->topo != KC_SIM_HYPERCUBE)
            return kc_fail(err, KC_EINVAL, "ecube routing is for the binary n-cube; use dor on %ss",
                           kc_simtopo_name(net->topo));
        break;
    case KC_ROUTE_DOR:
        if (net->topo == KC_SIM_TORUS && r->vcrule != KC_VC_NONE && net->vcs != 2)
            return kc_fail(err, KC_EINVAL, "the %s rule needs exactly 2 virtual channels per link (got %d)",
                           kc_simvcrule_name(r->vcrule), net->vcs);
        break;
    case KC_ROUTE_PCUBE:
        if (net->topo != KC_SIM_HYPERCUBE)
            return kc_fail(err, KC_EINVAL, "pcube routing is for the binary n-cube");
        break;
    case KC_ROUTE_DUATO:
        if (net->topo != KC_SIM_HYPERCUBE)
            return kc_fail(err, KC_EINVAL, "duato routing is implemented for the binary n-cube");
        if (net->vcs < 2)
            return kc_fail(err, KC_EINVAL, "duato routing needs at least 2 virtual channels per link");
        break;
    }
    return KC_OK;
}

/* Every VC of one port, lowest first. */
static int all_vcs(const kc_simnet *net, uint32_t node, int port, uint32_t *out)
{
    for (int v = 0; v < net->vcs; v++)
        out[v] = kc_simnet_netch(net, node, port, v);
    return net->vcs;
}

static int cube_candidates(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t *out)
{
    uint32_t diff = node ^ dst;
    int m = 0;
    switch (r->algo) {
    case KC_ROUTE_ECUBE:
    case KC_ROUTE_DOR:
        return all_vcs(net, node, __builtin_ctz(diff), out);
    case KC_ROUTE_PCUBE: {
        /* Phase one: 1 -> 0 dimensions in any order; phase two: 0 -> 1. */
        uint32_t down = diff & node;
        uint32_t set = down ? down : diff;
        for (int d = 0; d < net->n; d++)
            if (set >> d & 1)
                m += all_vcs(net, node, d, out + m);
        return m;
    }
    case KC_ROUTE_DUATO:
        for (int d = 0; d < net->n; d++)
            if (diff >> d & 1)
                for (int v = 1; v < net->vcs; v++)
                    out[m++] = kc_simnet_netch(net, node, d, v);
        out[m++] = kc_simnet_netch(net, node, __builtin_ctz(diff), 0);
        return m;
    }
    return 0;
}

static int grid_candidates(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t in,
                           uint32_t *out)
{
    int n = net->n, k = net->k;
    const uint8_t *cd = &net->digit[(size_t)node * n], *td = &net->digit[(size_t)dst * n];
    int d = 0;
    while (cd[d] == td[d])
        d++;
    int c = cd[d], t = td[d], port;
    if (net->topo == KC_SIM_MESH) {
        port = t > c ? 2 * d : 2 * d + 1;
        return all_vcs(net, node, port, out);
    }
    int fwd = (t - c + k) % k;
    int plus = fwd < k - fwd;
    if (fwd == k - fwd) /* a tie: the tie rule decides (the coordinate here is the one the ring was entered at) */
        plus = r->tie == KC_TIE_PLUS || (r->tie == KC_TIE_SPLIT && c % 2 == 0);
    port = plus ? 2 * d : 2 * d + 1;
    if (r->vcrule == KC_VC_NONE)
        return all_vcs(net, node, port, out);
    /* Was the previous hop in this dimension? Then the VC class carries on. */
    int vc;
    if (in < net->net_channels && (int)(in / (uint32_t)net->vcs % (uint32_t)net->ports) / 2 == d) {
        uint32_t link = in / (uint32_t)net->vcs;
        int in_vc = (int)(in % (uint32_t)net->vcs);
        if (r->vcrule == KC_VC_HIGHLOW) {
            vc = in_vc;
        } else {
            uint32_t from = link / (uint32_t)net->ports;
            int in_port = (int)(link % (uint32_t)net->ports);
            int fd = net->digit[(size_t)from * n + d];
            int wrapped = in_port % 2 == 0 ? fd == k - 1 : fd == 0;
            vc = in_vc == 1 || wrapped ? 1 : 0;
        }
    } else if (r->vcrule == KC_VC_HIGHLOW) {
        int wraps = plus ? t < c : t > c;
        vc = wraps ? 0 : 1;
    } else {
        vc = 0;
    }
    out[0] = kc_simnet_netch(net, node, port, vc);
    return 1;
}

int kc_simroute_candidates(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t in,
                           uint32_t *out)
{
    if (node == dst) {
        for (int e = 0; e < net->ej; e++)
            out[e] = kc_simnet_ejch(net, node, e);
        return net->ej;
    }
    if (net->topo == KC_SIM_HYPERCUBE)
        return cube_candidates(r, net, node, dst, out);
    return grid_candidates(r, net, node, dst, in, out);
}
