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
 * A 2-ary torus is the binary n-cube (one link per neighbour pair).
 *
 * The general network (kc_simnet_from_topology, kcube/topology.h): sides per
 * axis, wraps per axis (a ring, or a line without a wraparound link), C
 * endpoints per router and an optional allocation. Every side 2 with some
 * axis wrapping is laid out as the binary cube; otherwise an axis has ports
 * 2d (+) and 2d+1 (-): a side-2 ring has only its + channel each way (as
 * the cube), a side-2 line + from 0 and - from 1. Endpoint e sits on router
 * e / C and shares that router's `inj` injection and `ej` ejection channels
 * with the other endpoints there; messages between two endpoints of one
 * router go from injection to ejection without a network hop. Only the
 * allocation's endpoints send and receive (the traffic builders of
 * kcube/simtraffic.h read it); every router forwards. kc_simnet_init is the
 * special case of equal sides, every axis wrapping or none, C = 1 and no
 * allocation, with the same channel ids as always. */
#ifndef KCUBE_SIMNET_H
#define KCUBE_SIMNET_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/topology.h"

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
    kc_simtopo topo;       /* hypercube (every side 2, some axis wraps), torus (some axis wraps), mesh */
    int k, n;              /* k: the common side, 0 when the sides differ */
    int side[KC_SIMNET_MAX_N]; /* side of axis d */
    uint32_t wrap;         /* bit d: axis d is a ring */
    int conc;              /* C: endpoints per router (1 on plain networks) */
    uint32_t *alloc;       /* the allocation's routers in the order given (owned), or NULL: every router */
    uint32_t alloc_count;  /* its entries (0: none) */
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
/* Build the general network t describes (sides, wraps, endpoints, a copy
 * of its allocation), at most KC_SIMNET_MAX_N axes and KC_SIMNET_MAX_NODES
 * routers. O(nodes x n) time and memory. */
kc_status kc_simnet_from_topology(kc_simnet *net, const kc_topology *t, int vcs, int inj, int ej, int depth,
                                  kc_err *err);
/* Endpoints that send and receive: (alloc_count or nodes) x C. */
static inline uint64_t kc_simnet_slots(const kc_simnet *net)
{
    return (uint64_t)(net->alloc ? net->alloc_count : net->nodes) * (uint64_t)(net->conc > 1 ? net->conc : 1);
}
/* 1 when axis d is a ring. */
static inline int kc_simnet_wraps(const kc_simnet *net, int d) { return (int)(net->wrap >> d & 1u); }
void kc_simnet_free(kc_simnet *net);

/* Names: "hypercube" (alias "cube"), "torus", "mesh". */
extern const kc_names kc_simtopo_names;
/* Thin wrappers over the table; a parse failure names the parameter "topology". */
kc_status kc_simtopo_parse(const char *text, kc_simtopo *topo, kc_err *err);
const char *kc_simtopo_name(kc_simtopo topo);

/* Minimal hop count between two routers (shortest ring paths on rings). */
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
