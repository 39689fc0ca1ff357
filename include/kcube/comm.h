/* kcube/comm.h - one communication, for any topology the planner handles.
 *
 * A linear communication y = Ax + b over GF(k) (permutation, gather, or
 * scatter: seed 000 Section 2 for k = 2, seed 002 Section 2 for k = 2^m),
 * or the non-linear `uniform` traffic of seed 002 Fig. 6. On a binary
 * topology (kc_topology_is_binary, and any k = 2 mesh) the descriptor holds
 * the kc_lcc of the fast GF(2) engine (kcube/lcc.h, contention.h, reorder.h,
 * mapset.h) and the same communication as a kc_tcomm over GF(2); for k > 2
 * it holds the kc_tcomm of the GF(k) engine (kcube/torus.h, torusmap.h).
 *
 * Pattern names are resolved against the family of the topology: on k = 2
 * both the hypercube patterns (reverse-flip, shuffle, the image operations,
 * ...) and the GF(k) ones (digit-reverse, digit-swap:i, uniform, ...) exist;
 * on k > 2 only the GF(k) ones, and a hypercube-only name is answered with
 * the list that does apply. Building is O(n^2) (O(n^3) for the rank). */
#ifndef KCUBE_COMM_H
#define KCUBE_COMM_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/lcc.h"
#include "kcube/topology.h"
#include "kcube/torus.h"

typedef struct kc_comm {
    int k, n;      /* the field GF(k) and the number of digits */
    int linear;    /* 0 for uniform random traffic (no matrix) */
    int has_lcc;   /* 1 when lcc is valid (k = 2 and linear) */
    kc_lcc lcc;    /* GF(2) engine form */
    kc_tcomm t;    /* GF(k) engine form (always valid; kind KC_TCOMM_UNIFORM for uniform) */
    char name[40]; /* the pattern's name, or "matrix" */
} kc_comm;

/* A built-in pattern by name for the topology (see above for the family). */
kc_status kc_comm_named(kc_comm *c, const kc_topology *t, const char *name, kc_err *err);

/* A matrix and an optional vector (NULL: b = 0) in the text syntax of
 * kc_gfmat_parse (for k = 2 also the bit-string rows of kc_bitmat_parse);
 * `scatter` reads a singular A as a scatter. */
kc_status kc_comm_parse(kc_comm *c, const kc_topology *t, const char *matrix, const char *vector, int scatter,
                        kc_err *err);

/* From engine values (the topology must match their k and n). */
kc_status kc_comm_from_lcc(kc_comm *c, const kc_topology *t, const kc_lcc *l, kc_err *err);
kc_status kc_comm_from_tcomm(kc_comm *c, const kc_topology *t, const kc_tcomm *tc, kc_err *err);

/* The plain network a communication on t's ranks is written for. A linear
 * communication lives on the ranks, and rank r is placed on slot r
 * (kcube/topology.h): where t itself can carry GF(k) arithmetic
 * (kc_topology_need_gf) that is t; otherwise, when the slot count is k^m,
 * the k-ary m-cube (the m-cube for k = 2), with k the common side when it is
 * a power of two whose power the slots are, else 2. Slots that are no power
 * of two are KC_EINVAL (parameter "endpoints", "nodes_file" or "shape",
 * whichever makes the count) saying what would be needed. O(n). */
kc_status kc_comm_space(const kc_topology *t, kc_topology *space, kc_err *err);

/* "permutation", "gather", "scatter" or "uniform". */
const char *kc_comm_kind_name(const kc_comm *c);

/* Rank of A (0 for uniform). */
int kc_comm_rank(const kc_comm *c);

#endif
