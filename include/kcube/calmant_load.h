/* kcube/calmant_load.h - link loads of a CALMANT task <i, M>_c and its lower
 * bound on communication steps (seed 003, Sections 3.1 and 4.1, Appendix A).
 *
 * Load of a directed link: the number of the task's messages (every process
 * to its neighbour in each dimension i .. i+M-1, routed DOR on the mesh or
 * torus of kcube/calmant_embed.h) whose path uses it. max_load is the
 * largest over all links: rho_max<i, M>_c.
 *
 * Closed forms (standard embedding, mesh):
 *   Theorem 1 (line)  rho<i,M>_1 = (2^(i+M+1) - 2^(i+1)) / 3  for M even,
 *                                  (2^(i+M+1) - 2^i) / 3      for M odd;
 *   Theorem 3 (mesh)  rho<i,M>_c = rho<floor((i + (M-1) mod c)/c), ceil(M/c)>_1;
 *   Theorems 2, 4     LB<i,M>_c = max(rho<i,M>_c, M)  (a link carries one
 *                     message per step and direction, a node sends one).
 * Tori and Matic's embedding have no closed form here: their loads come
 * from the exact counter.
 *
 * Cost: kc_calmant_link_loads O(M 2^d c) time with difference arrays, 4 * 2c
 * * 2^d bytes (d <= 24); closed forms O(1). */
#ifndef KCUBE_CALMANT_LOAD_H
#define KCUBE_CALMANT_LOAD_H

#include <stdint.h>

#include "kcube/calmant_embed.h"
#include "kcube/calmant_task.h"
#include "kcube/error.h"

#define KC_CALMANT_LOAD_MAX_D 24

/* Index of the directed link leaving node along axis in direction dir: the
 * stepnet port numbering (2 axis for +, 2 axis + 1 for -). */
static inline uint64_t kc_calmant_link_index(const kc_calmant *g, uint64_t node, int axis, int dir)
{
    return node * 2 * (uint64_t)g->c + 2 * (uint64_t)axis + (dir < 0);
}

/* Per-link message counts of task t into load[0 .. 2c 2^d - 1] (links that
 * do not exist stay 0). KC_EINVAL for a bad task, KC_ERANGE for d > 24. */
kc_status kc_calmant_link_loads(const kc_calmant *g, kc_calmant_task t, uint32_t *load, kc_err *err);

typedef struct kc_calmant_load {
    uint64_t max_load;    /* rho_max */
    uint64_t lower_bound; /* max(max_load, M) */
    uint64_t node;        /* a most loaded link: its node, axis, direction */
    int axis, dir;
} kc_calmant_load;

/* Exact count (allocates the per-link table). */
kc_status kc_calmant_load_exact(const kc_calmant *g, kc_calmant_task t, kc_calmant_load *out, kc_err *err);

/* Theorem 1 on a line; Theorem 3 on a c-dimensional mesh; Theorem 4's LB.
 * The task must be valid (i + M <= 60). */
uint64_t kc_calmant_load_line(int i, int m);
uint64_t kc_calmant_load_mesh(int i, int m, int c);
uint64_t kc_calmant_lower_bound(int i, int m, int c);

#endif
