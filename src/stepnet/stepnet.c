/* The synchronous step engine (kcube/stepnet.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/stepnet.h"

static const kc_name conflict_entries[] = {
    {KC_STEPNET_LINK_TWICE, "link", "two messages on one directed link"},
    {KC_STEPNET_SEND_TWICE, "send", "a node sent twice (one-port)"},
    {KC_STEPNET_RECV_TWICE, "receive", "a node received twice (one-port)"},
    {0, NULL, NULL},
};
const kc_names kc_stepnet_conflict_names = {"conflict", conflict_entries};

static uint64_t cube_neighbor(const void *ctx, uint64_t node, int port)
{
    (void)ctx;
    return node ^ (1ULL << port);
}

kc_status kc_stepnet_topo_cube(kc_stepnet_topo *t, int n, kc_err *err)
{
    if (n < 1 || n > 30)
        return kc_fail_param(err, KC_ERANGE, "n", "the step engine supports cubes of 1..30 dimensions, got %d", n);
    *t = (kc_stepnet_topo){.nodes = 1ULL << n, .ports = n, .neighbor = cube_neighbor, .ctx = NULL};
    return KC_OK;
}

static uint64_t torus_neighbor(const void *ctx, uint64_t node, int port)
{
    const kc_torus *t = ctx;
    int dim = port / 2, minus = port % 2;
    if (minus && t->k == 2)
        return KC_STEPNET_NO_LINK; /* one channel per dimension when k = 2 */
    unsigned d = kc_torus_digit(t, node, dim);
    if (t->mesh && ((!minus && d == (unsigned)t->k - 1) || (minus && d == 0)))
        return KC_STEPNET_NO_LINK;
    return kc_torus_link_to(t, (kc_link){.from = node, .dim = dim, .dir = minus ? -1 : 1});
}

kc_status kc_stepnet_topo_torus(kc_stepnet_topo *t, const kc_torus *tor, kc_err *err)
{
    if (tor->nodes > (1ULL << 30))
        return kc_fail_param(err, KC_ERANGE, "n", "the step engine supports at most 2^30 nodes");
    *t = (kc_stepnet_topo){.nodes = tor->nodes, .ports = 2 * tor->n, .neighbor = torus_neighbor, .ctx = tor};
    return KC_OK;
}

kc_status kc_stepnet_init(kc_stepnet *net, const kc_stepnet_topo *topo, kc_stepnet_mode mode, kc_err *err)
{
    memset(net, 0, sizeof *net);
    if (!topo->neighbor || topo->nodes == 0 || topo->ports < 1)
        return kc_fail(err, KC_EINVAL, "step engine: empty topology");
    net->topo = *topo;
    net->mode = mode;
    net->stamp = 1;
    net->link_stamp = calloc(topo->nodes * (uint64_t)topo->ports, sizeof *net->link_stamp);
    if (mode == KC_STEPNET_ONE_PORT) {
        net->send_stamp = calloc(topo->nodes, sizeof *net->send_stamp);
        net->recv_stamp = calloc(topo->nodes, sizeof *net->recv_stamp);
    }
    if (!net->link_stamp || (mode == KC_STEPNET_ONE_PORT && (!net->send_stamp || !net->recv_stamp))) {
        kc_stepnet_free(net);
        return kc_fail(err, KC_ENOMEM, "out of memory (step engine)");
    }
    return KC_OK;
}

void kc_stepnet_free(kc_stepnet *net)
{
    free(net->link_stamp);
    free(net->send_stamp);
    free(net->recv_stamp);
    net->link_stamp = net->send_stamp = net->recv_stamp = NULL;
}

static void conflict(kc_stepnet *net, kc_stepnet_conflict kind, uint64_t node, int port)
{
    if (net->st.conflicts++ == 0) {
        net->first_kind = kind;
        net->first_step = net->st.steps;
        net->first_node = node;
        net->first_port = port;
    }
    if (net->on_conflict)
        net->on_conflict(net->conflict_ctx, kind, net->st.steps, node, port);
}

/* Use the directed link (node, port) in this step; the node it leads to, or
 * KC_STEPNET_NO_LINK. */
static uint64_t use_link(kc_stepnet *net, uint64_t node, int port)
{
    uint64_t to = net->topo.neighbor(net->topo.ctx, node, port);
    if (to == KC_STEPNET_NO_LINK)
        return to;
    uint32_t *l = &net->link_stamp[node * (uint64_t)net->topo.ports + (uint64_t)port];
    if (*l == net->stamp)
        conflict(net, KC_STEPNET_LINK_TWICE, node, port);
    *l = net->stamp;
    return to;
}

/* One-port bookkeeping and the step's counters for a message from -> to. */
static void count_message(kc_stepnet *net, uint64_t from, uint64_t to, int port, uint64_t count)
{
    if (net->mode == KC_STEPNET_ONE_PORT) {
        if (net->send_stamp[from] == net->stamp)
            conflict(net, KC_STEPNET_SEND_TWICE, from, port);
        if (net->recv_stamp[to] == net->stamp)
            conflict(net, KC_STEPNET_RECV_TWICE, to, port);
        net->send_stamp[from] = net->recv_stamp[to] = net->stamp;
    }
    if (count > net->step_max)
        net->step_max = count;
    net->step_msgs++;
    net->st.messages++;
    net->st.elements += count;
}

kc_status kc_stepnet_send(kc_stepnet *net, uint64_t node, int port, uint64_t count, kc_err *err)
{
    if (node >= net->topo.nodes || port < 0 || port >= net->topo.ports || count == 0)
        return kc_fail(err, KC_EINVAL, "step engine: node %llu port %d count %llu is not a message of this network",
                       (unsigned long long)node, port, (unsigned long long)count);
    uint64_t to = use_link(net, node, port);
    if (to == KC_STEPNET_NO_LINK)
        return kc_fail(err, KC_EINVAL, "step engine: node %llu has no link on port %d", (unsigned long long)node,
                       port);
    count_message(net, node, to, port, count);
    return KC_OK;
}

kc_status kc_stepnet_send_path(kc_stepnet *net, uint64_t node, const kc_stepnet_leg *legs, int nlegs, uint64_t count,
                               kc_err *err)
{
    if (node >= net->topo.nodes || nlegs < 1 || count == 0)
        return kc_fail(err, KC_EINVAL, "step engine: a path from node %llu with %d legs and count %llu is not a message",
                       (unsigned long long)node, nlegs, (unsigned long long)count);
    for (int j = 0; j < nlegs; j++)
        if (legs[j].port < 0 || legs[j].port >= net->topo.ports || legs[j].hops == 0)
            return kc_fail(err, KC_EINVAL, "step engine: leg %d (port %d, %llu hops) is not a path", j, legs[j].port,
                           (unsigned long long)legs[j].hops);
    uint64_t at = node;
    for (int j = 0; j < nlegs; j++)
        for (uint64_t h = 0; h < legs[j].hops; h++) {
            uint64_t to = use_link(net, at, legs[j].port);
            if (to == KC_STEPNET_NO_LINK)
                return kc_fail(err, KC_EINVAL, "step engine: node %llu has no link on port %d",
                               (unsigned long long)at, legs[j].port);
            at = to;
        }
    count_message(net, node, at, legs[0].port, count);
    return KC_OK;
}

void kc_stepnet_end_step(kc_stepnet *net)
{
    net->st.steps++;
    if (net->step_msgs)
        net->st.startups++;
    net->st.transfers += net->step_max;
    if (net->step_max > net->st.max_message)
        net->st.max_message = net->step_max;
    net->step_max = net->step_msgs = 0;
    if (++net->stamp == 0) { /* after 2^32 - 1 steps: forget old stamps */
        uint64_t links = net->topo.nodes * (uint64_t)net->topo.ports;
        memset(net->link_stamp, 0, links * sizeof *net->link_stamp);
        if (net->send_stamp) {
            memset(net->send_stamp, 0, net->topo.nodes * sizeof *net->send_stamp);
            memset(net->recv_stamp, 0, net->topo.nodes * sizeof *net->recv_stamp);
        }
        net->stamp = 1;
    }
}

const char *kc_stepnet_conflict_text(const kc_stepnet *net, char *buf, int size)
{
    if (!net->st.conflicts)
        snprintf(buf, (size_t)size, "%s", "");
    else
        snprintf(buf, (size_t)size, "%llu conflicts; first in step %llu at node %llu port %d: %s",
                 (unsigned long long)net->st.conflicts, (unsigned long long)net->first_step + 1,
                 (unsigned long long)net->first_node, net->first_port, conflict_entries[net->first_kind - 1].help);
    return buf;
}
