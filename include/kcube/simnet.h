/* kcube/simnet.h - the simulated network: topology, channels and buffers.
 *
 * A router per node, two unidirectional links between neighbours, each link
 * split into `vcs` virtual channels; every (virtual) channel has an input
 * buffer of `depth` flits at its downstream router. The processor talks to its
 * router through `inj` injection and `ej` ejection channels.
 *
 * Channel ids are dense:
 *   network    ((node * ports) + port) * vcs + vc           [0, net_channels)
 *   injection  net_channels + node * inj + i
 *   ejection   net_channels + nodes * inj + node * ej + e
 * Ports: on the binary n-cube port d is dimension d; on tori and meshes port
 * 2d goes in the + direction of dimension d and port 2d+1 in the - direction.
 * A 2-ary torus is the binary n-cube (one link per neighbour pair). */
#ifndef KCUBE_SIMNET_H
#define KCUBE_SIMNET_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"

#define KC_SIMNET_MAX_NODES (1u << 24)
#define KC_SIMNET_MAX_N 24
#define KC_SIMNET_MAX_VCS 8
#define KC_SIMNET_MAX_DEPTH 64
#define KC_SIM_NONE UINT32_MAX

typedef enum kc_simtopo {
    KC_SIM_TOPO_AUTO = -1, /* unset in a kc_simspec: kc_simspec_resolve picks it from k */
    KC_SIM_HYPERCUBE,
    KC_SIM_TORUS,
    KC_SIM_MESH
} kc_simtopo;

typedef struct kc_simnet {
    kc_simtopo topo;
    int k, n;
    uint32_t nodes;
    int ports;             /* network ports per router */
    int vcs, inj, ej;      /* virtual channels per link; processor channels */
    int depth;             /* buffer depth of network and injection channels */
    uint32_t net_channels; /* nodes * ports * vcs */
    uint32_t channels;     /* every channel, network + injection + ejection */
    uint32_t *next_node;   /* [nodes * ports]: neighbour through a port, or KC_SIM_NONE (mesh edge) */
    uint8_t *digit;        /* [nodes * n]: digit d of node x */
    int max_hops;          /* longest minimal route */
} kc_simnet;

/* Build a network. k = 2 with KC_SIM_TORUS is taken as the hypercube. */
kc_status kc_simnet_init(kc_simnet *net, kc_simtopo topo, int k, int n, int vcs, int inj, int ej, int depth,
                         kc_err *err);
void kc_simnet_free(kc_simnet *net);

/* Names: "hypercube" (alias "cube"), "torus", "mesh". */
extern const kc_names kc_simtopo_names;
/* Thin wrappers over the table; a parse failure names the parameter "topology". */
kc_status kc_simtopo_parse(const char *text, kc_simtopo *topo, kc_err *err);
const char *kc_simtopo_name(kc_simtopo topo);

/* Minimal hop count between two nodes (shortest ring paths on tori). */
int kc_simnet_distance(const kc_simnet *net, uint32_t a, uint32_t b);

/* What a channel is. */
typedef enum kc_simchan_kind { KC_CH_NETWORK, KC_CH_INJECTION, KC_CH_EJECTION } kc_simchan_kind;
typedef struct kc_simchan {
    kc_simchan_kind kind;
    uint32_t node;  /* the upstream router (network), or the processor's node */
    int port, vc;   /* network channels only */
    int index;      /* injection/ejection channel number */
} kc_simchan;
void kc_simnet_channel(const kc_simnet *net, uint32_t c, kc_simchan *out);
/* A readable name: "5>d2+ vc1" (node 5, dimension 2, + direction), "inj 5.0", "ej 5.0". */
char *kc_simnet_channel_name(const kc_simnet *net, uint32_t c, char *buf, size_t size);

static inline uint32_t kc_simnet_netch(const kc_simnet *net, uint32_t node, int port, int vc)
{
    return ((node * (uint32_t)net->ports) + (uint32_t)port) * (uint32_t)net->vcs + (uint32_t)vc;
}
static inline uint32_t kc_simnet_injch(const kc_simnet *net, uint32_t node, int i)
{
    return net->net_channels + node * (uint32_t)net->inj + (uint32_t)i;
}
static inline uint32_t kc_simnet_ejch(const kc_simnet *net, uint32_t node, int e)
{
    return net->net_channels + net->nodes * (uint32_t)net->inj + node * (uint32_t)net->ej + (uint32_t)e;
}

#endif
