/* kcube/calmant_alltoall.h - the complete exchange (all-to-all personalized
 * communication) of seed 003's Section 5 on a c-dimensional mesh of side
 * s = 2^(d/c), and the other all-to-all methods it is compared with, each
 * as a cost formula and as a schedule replayed on the step engine.
 *
 * Complete exchange. 2^d processes; process n holds blocks (n, j) of B
 * bytes for every j and must deliver block (n, j) to process j.
 *
 * CALMANT's CC-cube algorithm (Section 5.1, Fig. 8, after Johnsson and Ho):
 * node n keeps a vector M of 2^d block slots; a first permutation puts block
 * (n, j) in slot n xor j; in CC-cube iteration i the slots whose bit i is set
 * (2^(d-1) blocks) go to the neighbour through dimension i and the blocks
 * received take the same slots; a final permutation (the same one) leaves
 * block (m, n) in slot m of node n. Every iteration sends N = 2^(d-1) B
 * bytes, so the pipelined CC-cube of kcube/calmant_task.h applies; the
 * paper's "reverse order" (a message lists its slots from the highest down)
 * is what makes that legal: every block of packet p of dimension i (sent in
 * iteration p + i) has crossed its lower dimensions in earlier iterations
 * (the paper states it without proof; with ascending lists it fails).
 * kc_a2a_exchange_run executes the exchange on real block ids through the
 * generated schedules of every pipelined iteration and counts illegal sends
 * (a block sent before it has arrived).
 *
 * Methods (names in kc_a2a_method_names; docs/calmant.md cites sources):
 *   calmant    pipelined CC-cube, degree Q (best one by default): the cost
 *              model of kcube/calmant_cost.h with N = 2^(d-1) B, barriers
 *              included (d+Q-1 of them).
 *   cc-cube    the unpipelined CC-cube (Q = 1), the paper's baseline:
 *              c (2^(d/c) - 1) steps of N bytes (+ d barriers); on a square
 *              mesh 2 (2^(d/2) - 1)(beta + N tau).
 *   recursive  recursive (binary) exchange on the row-major numbering (node
 *              id = process id), top bit first: step k exchanges 2^(d-1)
 *              blocks with node x xor 2^k, run as 2^(k mod (d/c))
 *              contention-free sub-steps: the same c (2^(d/c) - 1) steps of
 *              N bytes as the baseline, without barriers.
 *   pairwise   direct pairwise exchange (not Scott's direct exchange):
 *              phase k = 1 .. 2^d - 1 exchanges one block with node
 *              x xor k; phase k is split into
 *              max_j w(k_j) contention-free sub-steps, k_j the axis-j part of
 *              k and w(v) the highest power of two <= v (w(0) = 0). Steps:
 *              (2^c - 1)(2^((c+1) d/c) - 1) / (2^(c+1) - 1).
 * Each step costs beta + (largest message of the step) tau. A replay is
 * lockstep, as the paper's model: a phase (one pipelined iteration, one
 * exchange x <-> x xor k) of P steps costs P (beta + L tau), L its largest
 * message, even when the schedule leaves a step empty (the Property 3
 * windows do: the replay counts such steps in empty_steps). Within a phase
 * every message here has the same size.
 *
 * Bisection bound: s^(c+1) B tau / 4 (half the nodes send s^c/2 blocks each
 * across the s^(c-1) links of the middle cut, one way).
 *
 * Cost: kc_a2a_cost_of O(d^2 / c) (calmant with the best degree
 * O(qmax d^2 / c)); kc_a2a_replay O(total path length of the messages)
 * time, O(2^d c) memory plus one phase's messages (the kernel iterations
 * of the pipelined CC-cube are identical and replayed once, counted
 * Q-d+1 times); kc_a2a_exchange_run O(d 2^(2d)) time, O(2^(2d)) memory. */
#ifndef KCUBE_CALMANT_ALLTOALL_H
#define KCUBE_CALMANT_ALLTOALL_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"

typedef enum kc_a2a_method {
    KC_A2A_CALMANT,
    KC_A2A_CCCUBE,
    KC_A2A_RECURSIVE,
    KC_A2A_PAIRWISE,
    KC_A2A_NMETHODS
} kc_a2a_method;
extern const kc_names kc_a2a_method_names; /* "calmant", "cc-cube", "recursive", "pairwise" */

/* "all" or a comma-separated list of method names (no spaces, no empty
 * item, no repeats) into a bit mask (bit m for method m). KC_EINVAL,
 * parameter "methods", otherwise, with *mask = 0. */
kc_status kc_a2a_methods_parse(const char *text, unsigned *mask, kc_err *err);

typedef struct kc_a2a_params {
    double beta, tau; /* start-up per message, time per byte */
    double barrier;   /* b after each CC-cube iteration (calmant, cc-cube) */
    uint64_t block;   /* B bytes per block, >= 1 */
    int degree;       /* calmant's Q; 0: the best in 1 .. min(N, 65536) */
} kc_a2a_params;

typedef struct kc_a2a_cost {
    int method;
    int degree;            /* Q (calmant; 1 for cc-cube; 0 otherwise) */
    uint64_t steps;        /* communication steps */
    uint64_t message;      /* bytes of every message */
    uint64_t iterations;   /* barriers paid (calmant, cc-cube) */
    double time;           /* steps (beta + message tau) + iterations b */
    double barrier_time;   /* iterations b */
    double bisection;      /* s^(c+1) B tau / 4 */
} kc_a2a_cost;

/* The formula of one method. KC_EINVAL: bad d, c ("d", "c"), block 0
 * ("block"), negative times ("startup", "byte_time", "barrier"), bad method
 * ("methods"), degree < 0 ("degree"); KC_ERANGE when N = 2^(d-1) B
 * overflows ("block"). */
kc_status kc_a2a_cost_of(int d, int c, kc_a2a_method method, const kc_a2a_params *p, kc_a2a_cost *out, kc_err *err);

typedef struct kc_a2a_replay {
    uint64_t steps;          /* steps (lockstep slots) replayed */
    uint64_t empty_steps;    /* slots in which nothing was sent */
    uint64_t transfers;      /* bytes in sequence: per step its phase's largest message */
    uint64_t messages;
    uint64_t conflicts;      /* one-port and link conflicts (kcube/stepnet.h) */
    uint64_t max_link_bytes; /* bytes over the busiest directed link */
    uint64_t iterations;     /* barriers (from the method) */
    double time;             /* steps beta + transfers tau + iterations b */
    char first_conflict[160];
} kc_a2a_replay;

/* Replay the schedule of a method (degree as kc_a2a_cost_of chooses it) one-
 * port with DOR routing. d <= 16. Errors as kc_a2a_cost_of. */
kc_status kc_a2a_replay_method(int d, int c, kc_a2a_method method, const kc_a2a_params *p, kc_a2a_replay *out,
                               kc_err *err);

typedef enum kc_a2a_order { KC_A2A_ORDER_REVERSE, KC_A2A_ORDER_ASCENDING } kc_a2a_order;

/* Run the pipelined CC-cube complete exchange with degree q on real blocks.
 * mem has 2^d slots per process (process n's slot j at mem[n 2^d + j]) and
 * holds, on entry, any block ids; on return every block that was in slot j
 * of process n is in slot n of process j (if the run was legal). Packets
 * hold whole blocks: ceil(2^(d-1) / q) of them, the last ones fewer (or
 * none), so 1 <= q <= 2^(d-1). *illegal counts sends of a block that had not
 * yet arrived (or was sent through dimension i before a lower dimension it
 * still had to take): 0 with the paper's reverse order. d <= 12; KC_EINVAL
 * for bad d, c ("d", "c") or q ("degree"). */
kc_status kc_a2a_exchange_run(int d, int c, int q, kc_a2a_order order, uint32_t *mem, uint64_t *illegal,
                              kc_err *err);

#endif
