/* The simulated network: router digits, neighbours and channel ids, on
 * the general network of kcube/topology.h (sides and wraps per axis,
 * endpoints per router, an allocation); kc_simnet_init builds today's
 * equal-sided special cases through it. */
#include "kcube/simnet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

static const kc_name topo_entries[] = {
    {KC_SIM_HYPERCUBE, "hypercube", "binary n-cube (k = 2)"},
    {KC_SIM_TORUS, "torus", "k-ary n-cube with wraparound links"},
    {KC_SIM_MESH, "mesh", "k-ary n-cube without wraparound links"},
    {KC_SIM_HYPERCUBE, "cube", NULL}, /* alias */
    {0, NULL, NULL},
};
const kc_names kc_simtopo_names = {"topology", topo_entries};

kc_status kc_simtopo_parse(const char *text, kc_simtopo *topo, kc_err *err)
{
    int v;
    if (kc_names_parse(&kc_simtopo_names, text, &v))
        return kc_fail_param(err, KC_EINVAL, "topology", "unknown topology '%s' (hypercube, torus, mesh)", text);
    *topo = (kc_simtopo)v;
    return KC_OK;
}

const char *kc_simtopo_name(kc_simtopo topo) { return kc_names_name(&kc_simtopo_names, (int)topo); }

/* The checks of the per-router channel counts and the buffer depth. */
static kc_status check_channels(int vcs, int inj, int ej, int depth, kc_err *err)
{
    if (vcs < 1 || vcs > KC_SIMNET_MAX_VCS)
        return kc_fail_param(err, KC_ERANGE, "vcs", "virtual channels per link must be 1..%d", KC_SIMNET_MAX_VCS);
    if (inj < 1 || inj > 8)
        return kc_fail_param(err, KC_ERANGE, "inj", "injection channels per node must be 1..8, got %d", inj);
    if (ej < 1 || ej > 8)
        return kc_fail_param(err, KC_ERANGE, "ej", "ejection channels per node must be 1..8, got %d", ej);
    if (depth < 1 || depth > KC_SIMNET_MAX_DEPTH)
        return kc_fail_param(err, KC_ERANGE, "depth", "buffer depth must be 1..%d flits", KC_SIMNET_MAX_DEPTH);
    return KC_OK;
}

kc_status kc_simnet_init(kc_simnet *net, kc_simtopo topo, int k, int n, int vcs, int inj, int ej, int depth,
                         kc_err *err)
{
    memset(net, 0, sizeof *net);
    if (topo == KC_SIM_TORUS && k == 2)
        topo = KC_SIM_HYPERCUBE;
    if (topo == KC_SIM_HYPERCUBE)
        k = 2;
    if (k < 2 || k > 256)
        return kc_fail_param(err, KC_ERANGE, "k", "radix k must be 2..256, got %d", k);
    if (n < 1 || n > KC_SIMNET_MAX_N)
        return kc_fail_param(err, KC_ERANGE, "n", "dimension n must be 1..%d, got %d", KC_SIMNET_MAX_N, n);
    uint64_t nodes = 1;
    for (int i = 0; i < n; i++) {
        nodes *= (uint64_t)k;
        if (nodes > KC_SIMNET_MAX_NODES)
            return kc_fail_param(err, KC_ERANGE, "n", "network too large: at most %u nodes", KC_SIMNET_MAX_NODES);
    }
    kc_status st = check_channels(vcs, inj, ej, depth, err);
    if (st)
        return st;
    kc_topology t;
    kc_topo_kind kind = topo == KC_SIM_HYPERCUBE ? KC_TOPO_HYPERCUBE : topo == KC_SIM_TORUS ? KC_TOPO_TORUS : KC_TOPO_MESH;
    if ((st = kc_topology_init(&t, kind, k, n, KC_TIE_PLUS, err)))
        return st;
    return kc_simnet_from_topology(net, &t, vcs, inj, ej, depth, err);
}

/* The sizes of t: topo, k, sides, wraps, ports, max_hops, channel counts;
 * refuses networks beyond the simulator's limits. */
static kc_status net_shape(kc_simnet *net, const kc_topology *t, int vcs, int inj, int ej, int depth, kc_err *err)
{
    if (t->n < 1 || t->n > KC_SIMNET_MAX_N)
        return kc_fail_param(err, KC_ERANGE, "n", "dimension n must be 1..%d, got %d", KC_SIMNET_MAX_N, t->n);
    if (t->nodes > KC_SIMNET_MAX_NODES)
        return kc_fail_param(err, KC_ERANGE, "n", "network too large: at most %u nodes", KC_SIMNET_MAX_NODES);
    int all2 = 1, equal = 1;
    for (int d = 0; d < t->n; d++) {
        net->side[d] = t->side[d];
        all2 &= t->side[d] == 2;
        equal &= t->side[d] == t->side[0];
    }
    net->wrap = (uint32_t)(t->wrap & ((UINT64_C(1) << t->n) - 1));
    net->topo = all2 && net->wrap ? KC_SIM_HYPERCUBE : net->wrap ? KC_SIM_TORUS : KC_SIM_MESH;
    net->k = equal ? t->side[0] : 0;
    net->n = t->n;
    net->nodes = (uint32_t)t->nodes;
    net->conc = kc_topology_conc(t);
    net->ports = net->topo == KC_SIM_HYPERCUBE ? t->n : 2 * t->n;
    net->vcs = vcs;
    net->inj = inj;
    net->ej = ej;
    net->depth = depth;
    uint64_t netch = t->nodes * (uint64_t)net->ports * (uint64_t)vcs;
    uint64_t all = netch + t->nodes * (uint64_t)(inj + ej);
    if (all > UINT32_MAX / 2)
        return kc_fail(err, KC_ERANGE, "too many channels");
    net->net_channels = (uint32_t)netch;
    net->channels = (uint32_t)all;
    net->max_hops = net->topo == KC_SIM_HYPERCUBE ? t->n : kc_topology_diameter(t);
    return KC_OK;
}

/* Router x's digits and neighbours (weight: the id step of each axis). */
static void net_router(kc_simnet *net, uint32_t x)
{
    uint32_t rest = x, weight = 1;
    int n = net->n;
    uint32_t *nx = &net->next_node[(size_t)x * net->ports];
    for (int d = 0; d < n; d++) {
        int k = net->side[d], dig = (int)(rest % (uint32_t)k);
        rest /= (uint32_t)k;
        net->digit[(size_t)x * n + d] = (uint8_t)dig;
        if (net->topo == KC_SIM_HYPERCUBE) {
            nx[d] = x ^ weight;
        } else {
            int up = dig + 1, down = dig - 1;
            if (kc_simnet_wraps(net, d)) {
                up %= k;
                /* a side-2 ring has one channel each way: its + port */
                down = k == 2 ? -1 : (down + k) % k;
            }
            nx[2 * d] = up < k ? x - (uint32_t)dig * weight + (uint32_t)up * weight : KC_SIM_NONE;
            nx[2 * d + 1] = down >= 0 ? x - (uint32_t)dig * weight + (uint32_t)down * weight : KC_SIM_NONE;
        }
        weight *= (uint32_t)k;
    }
}

kc_status kc_simnet_from_topology(kc_simnet *net, const kc_topology *t, int vcs, int inj, int ej, int depth,
                                  kc_err *err)
{
    memset(net, 0, sizeof *net);
    kc_status st = check_channels(vcs, inj, ej, depth, err);
    if (st || (st = net_shape(net, t, vcs, inj, ej, depth, err))) {
        memset(net, 0, sizeof *net);
        return st;
    }
    size_t nodes = net->nodes;
    net->next_node = malloc(nodes * (size_t)net->ports * sizeof *net->next_node);
    net->digit = malloc(nodes * (size_t)net->n);
    if (t->alloc && t->alloc_count) {
        net->alloc = malloc((size_t)t->alloc_count * sizeof *net->alloc);
        net->alloc_count = t->alloc_count;
    }
    if (!net->next_node || !net->digit || (t->alloc && t->alloc_count && !net->alloc)) {
        kc_simnet_free(net);
        return kc_fail(err, KC_ENOMEM, "out of memory for the network");
    }
    if (net->alloc)
        memcpy(net->alloc, t->alloc, (size_t)t->alloc_count * sizeof *net->alloc);
    kci_sim_huge(net->next_node, nodes * (size_t)net->ports * sizeof *net->next_node);
    kci_sim_huge(net->digit, nodes * (size_t)net->n);
    for (uint32_t x = 0; x < net->nodes; x++)
        net_router(net, x);
    return KC_OK;
}

void kc_simnet_free(kc_simnet *net)
{
    free(net->next_node);
    free(net->digit);
    free(net->alloc);
    net->next_node = NULL;
    net->digit = NULL;
    net->alloc = NULL;
    net->alloc_count = 0;
}

int kc_simnet_distance(const kc_simnet *net, uint32_t a, uint32_t b)
{
    int h = 0;
    for (int d = 0; d < net->n; d++) {
        int da = net->digit[(size_t)a * net->n + d], db = net->digit[(size_t)b * net->n + d];
        int diff = da > db ? da - db : db - da;
        if (net->topo == KC_SIM_TORUS && kc_simnet_wraps(net, d) && net->side[d] - diff < diff)
            diff = net->side[d] - diff;
        h += diff;
    }
    return h;
}

void kc_simnet_channel(const kc_simnet *net, uint32_t c, kc_simchan *out)
{
    memset(out, 0, sizeof *out);
    if (c < net->net_channels) {
        out->kind = KC_CH_NETWORK;
        out->vc = (int)(c % (uint32_t)net->vcs);
        uint32_t link = c / (uint32_t)net->vcs;
        out->port = (int)(link % (uint32_t)net->ports);
        out->node = link / (uint32_t)net->ports;
        return;
    }
    c -= net->net_channels;
    if (c < net->nodes * (uint32_t)net->inj) {
        out->kind = KC_CH_INJECTION;
        out->node = c / (uint32_t)net->inj;
        out->index = (int)(c % (uint32_t)net->inj);
        return;
    }
    c -= net->nodes * (uint32_t)net->inj;
    out->kind = KC_CH_EJECTION;
    out->node = c / (uint32_t)net->ej;
    out->index = (int)(c % (uint32_t)net->ej);
}

char *kc_simnet_channel_name(const kc_simnet *net, uint32_t c, char *buf, size_t size)
{
    kc_simchan ch;
    kc_simnet_channel(net, c, &ch);
    if (ch.kind == KC_CH_INJECTION)
        snprintf(buf, size, "inj %u.%d", ch.node, ch.index);
    else if (ch.kind == KC_CH_EJECTION)
        snprintf(buf, size, "ej %u.%d", ch.node, ch.index);
    else if (net->topo == KC_SIM_HYPERCUBE)
        snprintf(buf, size, "%u>d%d vc%d", ch.node, ch.port, ch.vc);
    else
        snprintf(buf, size, "%u>d%d%c vc%d", ch.node, ch.port / 2, ch.port % 2 ? '-' : '+', ch.vc);
    return buf;
}
