/* kcube/torus.h - k-ary n-cubes (tori) and meshes, linear-constant
 * communications over GF(k), and their link contention (seed 002).
 *
 * Topology. N = k^n nodes, k = 2^m; node x has digits x_0..x_{n-1}
 * (x = sum x_i k^i, digit i is bits i*m.. of the id). In a torus every
 * dimension is a ring of k nodes with wraparound; in a mesh it is a line.
 * Every node has a + link (w -> w+1) and a - link (w -> w-1) per dimension;
 * links are directed. When k = 2 the two links of a torus coincide (the
 * hypercube channel), and kcube counts them as one.
 *
 * Routing. Dimension-ordered: dimension 0 is corrected first, then 1, ...
 * Within a ring the shorter way round is taken; a tie (distance exactly k/2)
 * follows the tie rule: plus (+ direction, the default), minus, or split
 * (+ when the message's coordinate in that dimension is even, - when odd).
 * A mesh has one way only.
 *
 * Communication. A linear-constant communication is y = Ax + b over GF(k):
 *   permutation  rank A = n: each node x sends one message to Ax + b;
 *   gather       rank A < n: each node x sends to Ax + b;
 *   scatter      rank A < n: each node y receives one message from Ay + b.
 * Message number m (0 <= m < N) is (m, Am + b) for permutations and gathers
 * and (Am + b, m) for scatters. The non-linear `uniform` pattern sends one
 * message per node to a destination drawn uniformly from an explicit stream. */
#ifndef KCUBE_TORUS_H
#define KCUBE_TORUS_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/gfk.h"
#include "kcube/names.h"
#include "kcube/rng.h"

/* ---- topology and routing ------------------------------------------------ */

typedef enum kc_tie { KC_TIE_PLUS, KC_TIE_MINUS, KC_TIE_SPLIT } kc_tie;

extern const kc_names kc_tie_names; /* "plus", "minus", "split" */
const char *kc_tie_name(kc_tie tie);
/* KC_EINVAL (parameter "tie") for an unknown name. */
kc_status kc_tie_parse(const char *text, kc_tie *tie, kc_err *err);

typedef struct kc_torus {
    int k, m, n;    /* k = 2^m, n dimensions, n*m <= 63 */
    int mesh;       /* 1: no wraparound links */
    kc_tie tie;
    uint64_t nodes; /* N = k^n */
} kc_torus;

#define KC_TORUS_MAX_BITS 63 /* n * log2(k) */

kc_status kc_torus_init(kc_torus *t, int k, int n, int mesh, kc_tie tie, kc_err *err);

static inline unsigned kc_torus_digit(const kc_torus *t, uint64_t x, int i)
{
    return (unsigned)(x >> (i * t->m)) & (unsigned)(t->k - 1);
}
static inline uint64_t kc_torus_set_digit(const kc_torus *t, uint64_t x, int i, unsigned d)
{
    uint64_t mask = (uint64_t)(t->k - 1) << (i * t->m);
    return (x & ~mask) | ((uint64_t)d << (i * t->m));
}

/* The move in one dimension from coordinate s to d (0..k-1): +h or -h hops
 * (0 when s == d), by the shortest-path and tie rules. */
int kc_torus_ring_move(const kc_torus *t, unsigned s, unsigned d);

/* A directed link: the node it leaves, its dimension, and its direction
 * (+1 or -1; always +1 on a k = 2 torus). */
typedef struct kc_link {
    uint64_t from;
    int dim;
    int dir;
} kc_link;

/* The node a link leads to. */
uint64_t kc_torus_link_to(const kc_torus *t, kc_link l);

/* Walk the route src -> dst hop by hop: calls fn for each link in order and
 * returns the number of hops. fn may be NULL (just the length). */
int kc_torus_route(const kc_torus *t, uint64_t src, uint64_t dst, void (*fn)(void *ctx, kc_link l), void *ctx);

/* ---- linear-constant communications -------------------------------------- */

typedef enum kc_tcomm_kind {
    KC_TCOMM_PERMUTATION,
    KC_TCOMM_GATHER,
    KC_TCOMM_SCATTER,
    KC_TCOMM_UNIFORM /* not linear: A and b are unused */
} kc_tcomm_kind;

typedef struct kc_tcomm {
    kc_gf f;        /* the field, k = f.k */
    kc_gfmat a;     /* a.n = n */
    uint8_t b[KC_GFMAT_MAX];
    kc_tcomm_kind kind;
    int rank;
    char name[40];  /* the pattern's name, or "matrix" */
} kc_tcomm;

extern const kc_names kc_tcomm_kind_names; /* "permutation", "gather", "scatter", "uniform" */
const char *kc_tcomm_kind_name(kc_tcomm_kind kind);

/* Classify (A, b) over f: rank n is a permutation, rank < n a gather or, with
 * `scatter`, a scatter (a scatter flag on a nonsingular A is KC_EINVAL). */
kc_status kc_tcomm_init(kc_tcomm *c, const kc_gf *f, const kc_gfmat *a, const uint8_t *b, int scatter, kc_err *err);

/* Built-in patterns on the k-ary n-cube:
 *   transpose         n even: y = (x_{n/2..n-1}, x_{0..n/2-1})
 *   digit-reverse     y_i = x_{n-1-i}
 *   digit-complement  y_i = (k-1) - x_i, i.e. y = x + (k-1, ..., k-1)
 *   butterfly:i       y = x + e_i: the partner across dimension i (0 <= i < n),
 *                     as the hypercube module's butterfly:i
 *   digit-swap:i      y = x with digits 0 and i exchanged (1 <= i < n)
 *   uniform           random destinations (not linear)
 * (seed 000's hypercube names bit-reverse / complement are accepted as
 * aliases of digit-reverse / digit-complement.) */
kc_status kc_tcomm_named(kc_tcomm *c, int k, int n, const char *name, kc_err *err);

typedef struct kc_tpattern_info {
    const char *name;
    const char *summary;
} kc_tpattern_info;
/* The i-th built-in pattern (for help texts), or NULL past the last. */
const kc_tpattern_info *kc_tcomm_pattern(size_t i);

/* Message m's endpoints for a linear kind (not uniform). O(n). */
void kc_tcomm_message(const kc_tcomm *c, uint64_t m, uint64_t *src, uint64_t *dst);

/* Endpoint tables for all N messages (N <= 2^32): src[m], dst[m]. For
 * uniform, rng draws the destinations (it may be NULL for linear kinds).
 * Either array may be NULL. */
kc_status kc_tcomm_endpoints(const kc_tcomm *c, uint32_t *src, uint32_t *dst, kc_rng *rng, kc_err *err);

/* Dimensions with no traffic: row i of A is e_i and b_i = 0. */
uint64_t kc_tcomm_idle_dims(const kc_tcomm *c);

/* The communication seen after the linear mapping x' = Qx (Theorem 2):
 * (Q A Q^-1, Q b). KC_ESINGULAR if Q is singular. out may alias c. */
kc_status kc_tcomm_map(kc_tcomm *out, const kc_tcomm *c, const kc_gfmat *q, kc_err *err);

#endif
