/* kcube/hl_mesh.h - algorithm HL on a q-dimensional mesh (seed 004 Section
 * 3.1): each hypercube dimension is simulated over mesh links.
 *
 * Mesh of sides N_{q-1} x ... x N_0, N_a = 2^{n_a}, sum n_a = n. Node
 * (x_{q-1}, ..., x_0) has index sum_a x_a * N_{a-1} * ... * N_0, so axis a owns
 * address bits off_a .. off_a + n_a - 1 (axis 0 the lowest) and the node index
 * is the hypercube address. Hypercube dimension off_a + j joins nodes 2^j
 * apart along axis a. One HL step over that dimension becomes a phase in
 * which every moving tag walks 2^j mesh hops; the simulation moves messages
 * hop by hop, one message per directed link per mesh step, and counts the
 * mesh steps until the phase has delivered everything. */
#ifndef KCUBE_HL_MESH_H
#define KCUBE_HL_MESH_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/hl.h"

#define KC_HL_MESH_MAX_Q 24
#define KC_HL_MESH_MAX_N 20

typedef struct kc_hl_mesh_shape {
    int q;                        /* axes */
    int side_log[KC_HL_MESH_MAX_Q]; /* n_a; axis 0 first */
} kc_hl_mesh_shape;

/* Sides as written in the paper, most significant axis first: "4x4",
 * "2x8x4", or one number for a linear array. Every side a power of two >= 2,
 * product 2^n. */
kc_status kc_hl_mesh_parse(kc_hl_mesh_shape *shape, const char *text, int n, kc_err *err);
/* "16x16" (most significant axis first) into buf. */
char *kc_hl_mesh_format(const kc_hl_mesh_shape *shape, char *buf, size_t size);
/* sum_a (2^{n_a} - 1): the paper's optimal step count. */
uint64_t kc_hl_mesh_bound(const kc_hl_mesh_shape *shape);

typedef struct kc_hl_mesh_result {
    uint64_t mesh_steps;      /* simulated mesh steps over all phases */
    uint64_t bound;           /* sum_a (2^{n_a} - 1) */
    int phases;               /* HL steps */
    int phase_dim[64];        /* hypercube dimension of each phase */
    uint64_t phase_steps[64]; /* mesh steps of each phase (0 if nothing moved) */
    uint64_t messages;        /* tag moves simulated */
    uint64_t hops;            /* mesh hops */
    int max_link_load;        /* messages on one directed link in one mesh step */
    uint64_t waits;           /* message-steps spent waiting for a busy link */
    int routed;
} kc_hl_mesh_result;

/* Route dst with HL (opts as for kc_hl_run) and simulate every step on the
 * mesh. hl (optional) receives the hypercube-level result. */
kc_status kc_hl_mesh_route(const kc_hl_mesh_shape *shape, const uint32_t *dst, const kc_hl_opts *opts,
                           kc_hl_result *hl, kc_hl_mesh_result *out, kc_err *err);

#endif
