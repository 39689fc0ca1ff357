/* kcube/stepnet.h - a synchronous step engine for store-and-forward data
 * motion on a network of processors (used by the Gray-code butterfly
 * emulation of seed 001 and meant for the CALMANT mesh schedules).
 *
 * The network is any set of nodes with numbered ports (a neighbour
 * function): for the Boolean n-cube port d is dimension d; for a k-ary
 * torus or mesh (kcube/torus.h) port 2d is the + link and port 2d+1 the -
 * link of dimension d. Time advances in steps. In a step a node sends
 * messages of one or more elements on its ports:
 *   all-port mode: at most one message per directed link per step (every
 *                  node may use all its ports at once, and receive on all);
 *   one-port mode: in addition at most one send and one receive per node.
 * Breaking a rule is a conflict: counted, the first described, never fatal,
 * and passed to an optional hook as it is found, so a schedule verifier can
 * report every one.
 *
 * Measures (seed 001's): start-ups = steps in which something was sent;
 * element transfers in sequence = sum over steps of the largest message of
 * the step (equal to the start-ups when every message is one element);
 * elements moved = sum of all message sizes.
 *
 * The engine keeps no data: callers move their own elements and tell the
 * engine what they sent. Messages of several hops (a DOR path held for a
 * whole step, CALMANT's model) go through kc_stepnet_send_path.
 * Cost: kc_stepnet_send is O(1); memory is one
 * 32-bit stamp per directed link (and two per node in one-port mode). */
#ifndef KCUBE_STEPNET_H
#define KCUBE_STEPNET_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/torus.h"

#define KC_STEPNET_NO_LINK UINT64_MAX

/* The node reached from `node` through `port`, or KC_STEPNET_NO_LINK. */
typedef uint64_t (*kc_stepnet_neighbor_fn)(const void *ctx, uint64_t node, int port);

typedef struct kc_stepnet_topo {
    uint64_t nodes;
    int ports;
    kc_stepnet_neighbor_fn neighbor;
    const void *ctx; /* for neighbor; must outlive the engine */
} kc_stepnet_topo;

/* The Boolean n-cube (1 <= n <= 30): port d joins x and x ^ 2^d. */
kc_status kc_stepnet_topo_cube(kc_stepnet_topo *t, int n, kc_err *err);
/* A torus or mesh: ports 2d (+) and 2d+1 (-); on a k = 2 torus the -
 * port does not exist (the + link is the channel), on a mesh the ends of a
 * line have no outward link. The torus must outlive the topology. */
kc_status kc_stepnet_topo_torus(kc_stepnet_topo *t, const kc_torus *tor, kc_err *err);

typedef enum kc_stepnet_mode { KC_STEPNET_ALL_PORT, KC_STEPNET_ONE_PORT } kc_stepnet_mode;

typedef enum kc_stepnet_conflict {
    KC_STEPNET_LINK_TWICE = 1, /* two messages on one directed link in one step */
    KC_STEPNET_SEND_TWICE,     /* one-port: a node sent twice in one step */
    KC_STEPNET_RECV_TWICE      /* one-port: a node received twice in one step */
} kc_stepnet_conflict;
/* "link", "send", "receive"; the help text is the description. */
extern const kc_names kc_stepnet_conflict_names;

/* The conflict hook: kind, 0-based step, the node and port where it was
 * found (a link: the node it leaves and its port; a second send: the
 * sender and the message's first port; a second receive: the receiver and
 * the message's first port). */
typedef void (*kc_stepnet_conflict_fn)(void *ctx, kc_stepnet_conflict kind, uint64_t step, uint64_t node, int port);

typedef struct kc_stepnet_stats {
    uint64_t steps;     /* steps ended, including empty ones */
    uint64_t startups;  /* steps with at least one message */
    uint64_t transfers; /* element transfers in sequence */
    uint64_t elements;  /* elements moved in total */
    uint64_t messages;
    uint64_t conflicts;
    uint64_t max_message;
} kc_stepnet_stats;

typedef struct kc_stepnet {
    kc_stepnet_topo topo;
    kc_stepnet_mode mode;
    uint32_t stamp;        /* current step + 1 */
    uint32_t *link_stamp;  /* per directed link: stamp of its last use */
    uint32_t *send_stamp, *recv_stamp; /* one-port only */
    uint64_t step_max;     /* largest message of the current step */
    uint64_t step_msgs;
    kc_stepnet_stats st;
    /* the first conflict, for reports */
    kc_stepnet_conflict first_kind;
    uint64_t first_step, first_node;
    int first_port;
    kc_stepnet_conflict_fn on_conflict; /* NULL: none (kc_stepnet_init) */
    void *conflict_ctx;
} kc_stepnet;

kc_status kc_stepnet_init(kc_stepnet *net, const kc_stepnet_topo *topo, kc_stepnet_mode mode, kc_err *err);
void kc_stepnet_free(kc_stepnet *net);

/* Call fn(ctx, ...) for every conflict from now on (fn NULL: stop). */
static inline void kc_stepnet_on_conflict(kc_stepnet *net, kc_stepnet_conflict_fn fn, void *ctx)
{
    net->on_conflict = fn;
    net->conflict_ctx = ctx;
}

/* Send one message of `count` >= 1 elements from node on port in the
 * current step. KC_EINVAL for a node or port outside the network or a port
 * without a link; conflicts are recorded, not errors. O(1). */
kc_status kc_stepnet_send(kc_stepnet *net, uint64_t node, int port, uint64_t count, kc_err *err);

/* A run of hops through one port number: `hops` >= 1 links leaving the
 * current node on `port`, then the node reached, on the same port again. */
typedef struct kc_stepnet_leg {
    int port;
    uint64_t hops;
} kc_stepnet_leg;

/* Send one message of `count` elements from node along a multi-hop path
 * (wormhole/DOR style: the whole path is held in this step): the legs are
 * walked in order, every directed link on the path is used once in this
 * step, and in one-port mode only the source sends and only the last node
 * receives. Zero legs is an error. KC_EINVAL for a hop without a link
 * (the links walked before it stay used in this step).
 * O(total hops). */
kc_status kc_stepnet_send_path(kc_stepnet *net, uint64_t node, const kc_stepnet_leg *legs, int nlegs, uint64_t count,
                               kc_err *err);

/* Close the current step (an empty step still counts in steps). O(1). */
void kc_stepnet_end_step(kc_stepnet *net);

static inline const kc_stepnet_stats *kc_stepnet_get_stats(const kc_stepnet *net)
{
    return &net->st;
}

/* One line describing the first conflict ("" when there was none). */
const char *kc_stepnet_conflict_text(const kc_stepnet *net, char *buf, int size);

#endif
