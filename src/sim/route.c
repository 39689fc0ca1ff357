/* Routing functions: e-cube, dimension-ordered with VC rules, P-cube, Duato,
 * li-min (a reconstruction of Li's minimal restriction). */
#include "kcube/simroute.h"

#include <string.h>

#include "core/bits.h"
#include "core/near.h"

static const kc_name algo_entries[] = {
    {KC_ROUTE_ECUBE, "ecube", "binary n-cube: lowest dimension still to correct"},
    {KC_ROUTE_DOR, "dor", "tori and meshes: dimension-ordered, shortest ring path"},
    {KC_ROUTE_PCUBE, "pcube", "binary n-cube: P-cube (turn model), adaptive"},
    {KC_ROUTE_DUATO, "duato", "fully adaptive, dor as escape (VC 0; VCs 0-1 with rings; >= 2 VCs, >= 3 with rings)"},
    {KC_ROUTE_LIMIN, "li-min",
     "binary n-cube: Li's minimal restriction as reconstructed here (not the paper's text; docs/sim.md), adaptive"},
    {KC_ROUTE_ECUBE, "e-cube", NULL}, /* aliases */
    {KC_ROUTE_PCUBE, "p-cube", NULL},
    {0, NULL, NULL},
};
const kc_names kc_simalgo_names = {"routing", algo_entries};

/* Cited by seed 000 but not implemented (docs/sim.md says why). "min" is
 * Li's routing: only a reconstruction exists (li-min), so the seed's name is
 * not taken as an alias for it. */
static const kc_name missing_entries[] = {
    {0, "min", NULL}, {0, "chiu", NULL}, {0, "mixab3", NULL}, {0, "mixbb3", NULL}, {0, NULL, NULL},
};
static const kc_names missing_algos = {"routing", missing_entries};

static const kc_name vcrule_entries[] = {
    {KC_VC_HIGHLOW, "highlow", "seed 002 (Cray T3D): wrapping paths on VC 0, the others on VC 1"},
    {KC_VC_DATELINE, "dateline", "VC 0 until the wraparound link, VC 1 after it"},
    {KC_VC_NONE, "none", "any VC (one VC deadlocks on rings)"},
    {0, NULL, NULL},
};
const kc_names kc_simvcrule_names = {"VC rule", vcrule_entries};

static const kc_name simtie_entries[] = {
    {KC_TIE_PLUS, "plus", "+ direction"},
    {KC_TIE_MINUS, "minus", "- direction"},
    {KC_TIE_SPLIT, "split", "+ from an even coordinate, - from an odd one"},
    {(int)KC_SIM_TIE_RANDOM, "random", "a seeded draw per message and dimension (BookSim2: a draw per packet)"},
    {0, NULL, NULL},
};
const kc_names kc_simtie_names = {"tie rule", simtie_entries};

kc_status kc_simalgo_parse(const char *text, kc_simalgo *algo, kc_err *err)
{
    int v;
    if (!kc_names_parse(&kc_simalgo_names, text, &v)) {
        *algo = (kc_simalgo)v;
        return KC_OK;
    }
    if (!strcmp(text, "min"))
        return kc_fail_param(err, KC_EINVAL, "routing",
                             "routing 'min' (Li's) is not implemented as published: its rule could not be "
                             "established; 'li-min' is a reconstruction consistent with seed 000 (see docs/sim.md)");
    if (!kc_names_parse(&missing_algos, text, &v))
        return kc_fail_param(err, KC_EINVAL, "routing",
                             "routing '%s' is not implemented: its rules could not be established from a "
                             "published description (see docs/sim.md)", text);
    char list[128];
    const char *near = kci_near_name(&kc_simalgo_names, text);
    return kc_fail_param(err, KC_EINVAL, "routing", "unknown routing '%s'%s%s%s (%s)", text,
                         near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "",
                         kc_names_join(&kc_simalgo_names, list, sizeof list));
}

const char *kc_simalgo_name(kc_simalgo algo) { return kc_names_name(&kc_simalgo_names, (int)algo); }

kc_status kc_simvcrule_parse(const char *text, kc_simvcrule *rule, kc_err *err)
{
    int v;
    if (kc_names_parse(&kc_simvcrule_names, text, &v))
        return kc_fail_param(err, KC_EINVAL, "vc_rule", "unknown VC rule '%s' (highlow, dateline, none)", text);
    *rule = (kc_simvcrule)v;
    return KC_OK;
}

const char *kc_simvcrule_name(kc_simvcrule rule) { return kc_names_name(&kc_simvcrule_names, (int)rule); }

kc_status kc_simroute_check(const kc_simroute *r, const kc_simnet *net, kc_err *err)
{
    if ((int)r->algo < 0 || (int)r->vcrule < 0)
        return kc_fail_param(err, KC_EINVAL, (int)r->algo < 0 ? "routing" : "vc_rule",
                             "the routing is not resolved (kc_simspec_resolve)");
    switch (r->algo) {
    case KC_ROUTE_AUTO:
        break;
    case KC_ROUTE_ECUBE:
        if (net->topo != KC_SIM_HYPERCUBE)
            return kc_fail_param(err, KC_EINVAL, "routing", "ecube routing is for the binary n-cube; use dor on %ss",
                           kc_simtopo_name(net->topo));
        break;
    case KC_ROUTE_DOR:
        if (net->topo == KC_SIM_TORUS && r->vcrule != KC_VC_NONE && net->vcs != 2)
            return kc_fail_param(err, KC_EINVAL, "vcs", "the %s rule needs exactly 2 virtual channels per link (got %d)",
                           kc_simvcrule_name(r->vcrule), net->vcs);
        break;
    case KC_ROUTE_PCUBE:
        if (net->topo != KC_SIM_HYPERCUBE)
            return kc_fail_param(err, KC_EINVAL, "routing", "pcube routing is for the binary n-cube");
        break;
    case KC_ROUTE_LIMIN:
        if (net->topo != KC_SIM_HYPERCUBE)
            return kc_fail_param(err, KC_EINVAL, "routing", "li-min routing is for the binary n-cube");
        break;
    case KC_ROUTE_DUATO:
        if (net->vcs < 2)
            return kc_fail_param(err, KC_EINVAL, "vcs", "duato routing needs at least 2 virtual channels per link");
        if (net->topo == KC_SIM_TORUS && net->vcs < 3)
            return kc_fail_param(err, KC_EINVAL, "vcs",
                                 "duato routing on rings needs at least 3 virtual channels per link (2 escape)");
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

/* li-min (reconstruction, docs/sim.md): a 0 -> 1 hop is always allowed; a
 * 1 -> 0 hop in dimension j only as the first hop (last < 0) or right after a
 * hop in a lower dimension; and a hop only if the rest can still be finished
 * under the rule. The rest can be finished from a state iff its lowest
 * dimension still to correct m is 0 -> 1 or was entered from below (last < m):
 * then increasing order works, and otherwise m, a 1 -> 0 hop, has no lower
 * dimension left to follow. After a hop in j the new lowest remaining
 * dimension m keeps its bit, so the test reads the current node. */
static int limin_candidates(const kc_simnet *net, uint32_t node, uint32_t dst, int last, uint32_t *out)
{
    uint32_t diff = node ^ dst;
    int m = 0;
    for (int j = 0; j < net->n; j++) {
        if (!(diff >> j & 1))
            continue;
        if ((node >> j & 1) && last >= j) /* 1 -> 0 not right after a lower dimension */
            continue;
        uint32_t rest = diff & ~(1u << j);
        if (rest && (node >> kci_ctz32(rest) & 1) && j > kci_ctz32(rest))
            continue; /* the lowest remaining 1 -> 0 hop could never be taken */
        m += all_vcs(net, node, j, out + m);
    }
    return m;
}

static int cube_candidates(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t in,
                           uint32_t *out)
{
    uint32_t diff = node ^ dst;
    int m = 0;
    switch (r->algo) {
    case KC_ROUTE_AUTO: /* refused by kc_simroute_check */
        break;
    case KC_ROUTE_ECUBE:
    case KC_ROUTE_DOR:
        return all_vcs(net, node, kci_ctz32(diff), out);
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
        out[m++] = kc_simnet_netch(net, node, kci_ctz32(diff), 0);
        return m;
    case KC_ROUTE_LIMIN: {
        /* the dimension of the previous hop; -1 from the injection channel */
        int last = in < net->net_channels ? (int)(in / (uint32_t)net->vcs % (uint32_t)net->ports) : -1;
        return limin_candidates(net, node, dst, last, out);
    }
    }
    return 0;
}

/* The port of a dimension-ordered hop on axis d from coordinate c toward
 * t (c != t): lines by sign, side-2 rings their one + channel, other rings
 * the shorter way, a tie (distance side/2) by the tie rule (the coordinate
 * here is the one the ring was entered at). *wraps gets whether the rest of
 * the ring path crosses the wraparound link. */
static int grid_port(const kc_simroute *r, const kc_simnet *net, int d, int c, int t, uint32_t ties, int *wraps)
{
    int k = net->side[d];
    *wraps = 0;
    if (!kc_simnet_wraps(net, d))
        return t > c ? 2 * d : 2 * d + 1;
    int fwd = (t - c + k) % k;
    int plus = k == 2 || fwd < k - fwd;
    if (k > 2 && fwd == k - fwd)
        plus = r->tie == KC_SIM_TIE_RANDOM ? (int)(ties >> d & 1u)
                                           : r->tie == KC_TIE_PLUS || (r->tie == KC_TIE_SPLIT && c % 2 == 0);
    *wraps = plus ? t < c : t > c;
    return plus ? 2 * d : 2 * d + 1;
}

/* The VC class of a dor hop on ring d leaving through `port`, given the
 * input channel `in` (the class carries on within a ring) and whether the
 * rest of the path wraps. */
static int grid_vc(const kc_simroute *r, const kc_simnet *net, int d, uint32_t in, int wraps)
{
    if (in < net->net_channels && (int)(in / (uint32_t)net->vcs % (uint32_t)net->ports) / 2 == d) {
        uint32_t link = in / (uint32_t)net->vcs;
        int in_vc = (int)(in % (uint32_t)net->vcs);
        if (r->vcrule == KC_VC_HIGHLOW)
            return in_vc;
        uint32_t from = link / (uint32_t)net->ports;
        int in_port = (int)(link % (uint32_t)net->ports), k = net->side[d];
        int fd = net->digit[(size_t)from * net->n + d];
        int wrapped = in_port % 2 == 0 ? fd == k - 1 : fd == 0;
        return in_vc == 1 || wrapped ? 1 : 0;
    }
    if (r->vcrule == KC_VC_HIGHLOW)
        return wraps ? 0 : 1;
    return 0;
}

static int grid_candidates(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t in,
                           uint32_t ties, uint32_t *out)
{
    int n = net->n;
    const uint8_t *cd = &net->digit[(size_t)node * n], *td = &net->digit[(size_t)dst * n];
    int d = 0;
    while (cd[d] == td[d])
        d++;
    int wraps, port = grid_port(r, net, d, cd[d], td[d], ties, &wraps);
    /* VC rules only on rings; a line (and a mesh) takes any VC */
    if (net->topo == KC_SIM_MESH || r->vcrule == KC_VC_NONE || !kc_simnet_wraps(net, d))
        return all_vcs(net, node, port, out);
    out[0] = kc_simnet_netch(net, node, port, grid_vc(r, net, d, in, wraps));
    return 1;
}

/* Duato's method on tori and meshes: every axis still to correct, in its
 * dimension-ordered direction, on the adaptive VCs (from `esc` up), then the
 * escape channel: dor on the lowest such axis, on VC 0 of a line and on the
 * ring's VC 0 (the rest of the path wraps) or 1 (it does not) - the class a
 * message's position gives, so the escape network is deadlock-free whatever
 * adaptive hops came before. esc: 2 with some ring, else 1. */
static int grid_duato(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t ties,
                      uint32_t *out)
{
    int n = net->n, m = 0, esc = net->wrap ? 2 : 1, first = -1, first_port = 0, first_wraps = 0;
    const uint8_t *cd = &net->digit[(size_t)node * n], *td = &net->digit[(size_t)dst * n];
    for (int d = 0; d < n; d++) {
        if (cd[d] == td[d])
            continue;
        int wraps, port = grid_port(r, net, d, cd[d], td[d], ties, &wraps);
        if (first < 0)
            first = d, first_port = port, first_wraps = wraps;
        for (int v = esc; v < net->vcs; v++)
            out[m++] = kc_simnet_netch(net, node, port, v);
    }
    int vc = kc_simnet_wraps(net, first) && !first_wraps && net->side[first] > 2 ? 1 : 0;
    out[m++] = kc_simnet_netch(net, node, first_port, vc);
    return m;
}

int kc_simroute_candidates(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t in,
                           uint32_t *out)
{
    return kc_simroute_candidates_ties(r, net, node, dst, in, 0, out);
}

int kc_simroute_candidates_ties(const kc_simroute *r, const kc_simnet *net, uint32_t node, uint32_t dst, uint32_t in,
                                uint32_t ties, uint32_t *out)
{
    if (node == dst) {
        for (int e = 0; e < net->ej; e++)
            out[e] = kc_simnet_ejch(net, node, e);
        return net->ej;
    }
    if (net->topo == KC_SIM_HYPERCUBE)
        return cube_candidates(r, net, node, dst, in, out);
    if (r->algo == KC_ROUTE_DUATO)
        return grid_duato(r, net, node, dst, ties, out);
    return grid_candidates(r, net, node, dst, in, ties, out);
}
