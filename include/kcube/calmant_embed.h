/* kcube/calmant_embed.h - CALMANT's geometry: a d-dimensional CC-cube (2^d
 * processes talking along hypercube dimensions) placed on a c-dimensional
 * mesh or torus of side 2^(d/c) (seed 003, Diaz de Cerio et al., "Hypercube
 * algorithms on mesh connected multicomputers", Sections 2.1 and 2.3).
 *
 * Nodes. c in 1..3, d a multiple of c with d/c >= 2, d <= 30. Node m has c
 * coordinates m_0..m_{c-1} of b = d/c bits each; its id is the integer whose
 * bits j*b .. j*b+b-1 hold m_j (the layout of kcube/torus.h), so axis j is
 * torus dimension j.
 *
 * Embeddings (process n, bits n_0..n_{d-1}, to node m):
 *   standard  bit l of m_j is n_{j + l c}: dimension i lies on axis i mod c
 *             at distance D_i = 2^floor(i/c) (equation (2));
 *   matic     bit l of m_j is n_{(d/c) j + l} (Matic's original, the node id
 *             equals the process id): dimension i lies on axis floor(i/b) at
 *             distance 2^(i mod b).
 * Both have constant dilation; the paper's schedules assume the standard one.
 *
 * Routing. Dimension-ordered (axis 0 first). On a mesh an axis is a line; on
 * a torus a ring, the shorter way round, a tie (distance side/2: the top
 * dimensions under the standard embedding) broken by kc_tie as in
 * kcube/torus.h (split: + from an even coordinate, - from an odd one). This
 * geometry is separate from kc_torus because a line of 2^d nodes has side up
 * to 2^30, beyond kc_torus's k <= 256; where both apply they route alike.
 *
 * Cost: to_physical / to_virtual O(d); kc_calmant_check_dim O(2^d d). */
#ifndef KCUBE_CALMANT_EMBED_H
#define KCUBE_CALMANT_EMBED_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/torus.h"

typedef enum kc_calmant_embedding { KC_CALMANT_STANDARD, KC_CALMANT_MATIC } kc_calmant_embedding;
extern const kc_names kc_calmant_embedding_names; /* "standard", "matic" */

#define KC_CALMANT_MAX_D 30
#define KC_CALMANT_MAX_C 3

typedef struct kc_calmant {
    int d, c, b;      /* b = d / c bits per axis */
    int torus;        /* 1: wraparound on every axis */
    kc_tie tie;       /* torus ties */
    kc_calmant_embedding emb;
    uint64_t side;    /* 2^b */
    uint64_t nodes;   /* 2^d */
} kc_calmant;

/* Bad d or c: KC_EINVAL (parameter "d" or "c"). */
kc_status kc_calmant_init(kc_calmant *g, int d, int c, int torus, kc_tie tie, kc_calmant_embedding emb,
                          kc_err *err);

uint64_t kc_calmant_to_physical(const kc_calmant *g, uint64_t process);
uint64_t kc_calmant_to_virtual(const kc_calmant *g, uint64_t node);

static inline uint64_t kc_calmant_coord(const kc_calmant *g, uint64_t node, int axis)
{
    return (node >> (axis * g->b)) & (g->side - 1);
}

/* The axis dimension i uses and its dilation, by the embedding's formula. */
int kc_calmant_axis(const kc_calmant *g, int dim);
uint64_t kc_calmant_dilation(const kc_calmant *g, int dim);

/* One axis of a DOR route: `hops` links in direction dir (+1 / -1). */
typedef struct kc_calmant_leg {
    int axis, dir;
    uint64_t hops;
} kc_calmant_leg;

/* The DOR route between two nodes: its legs (at most c, axes ascending,
 * none of 0 hops) into legs[KC_CALMANT_MAX_C]; returns the number of legs. */
int kc_calmant_route(const kc_calmant *g, uint64_t src, uint64_t dst, kc_calmant_leg *legs);

/* The move along one axis from coordinate s to t: +h or -h (0 if s == t). */
int64_t kc_calmant_axis_move(const kc_calmant *g, uint64_t s, uint64_t t);

/* Brute force over all 2^d processes for dimension dim: the route length
 * from every process to its neighbour (*dilation when constant), whether
 * it is constant (*constant) and the set of axes any of the routes use
 * (*axes, bit j for axis j). O(2^d d). */
void kc_calmant_check_dim(const kc_calmant *g, int dim, uint64_t *dilation, int *constant, unsigned *axes);

/* The machine as a step-engine network (kcube/stepnet.h): node ids as
 * above, port 2j the + link and 2j+1 the - link of axis j. g must outlive
 * the topology. */
struct kc_stepnet_topo;
void kc_calmant_stepnet_topo(const kc_calmant *g, struct kc_stepnet_topo *t);

#endif
