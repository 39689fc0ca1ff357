/* kcube/calmant_sched.h - CALMANT message schedules for tasks <i, M>_c and
 * their verifier (seed 003, Sections 3.2 and 4.2, Figs. 3-7).
 *
 * A schedule lists messages (process src -> process dst, step s); a step is
 * one message time beta + L tau. The verifier replays it on the mesh or
 * torus of kcube/calmant_embed.h through the synchronous step engine
 * (kcube/stepnet.h) in one-port mode, each message on its whole DOR path in
 * its step, and reports conflicts (a directed link twice in a step, a node
 * sending or receiving twice in a step), the step count, and whether the
 * schedule is exactly the task (every process once to its neighbour in each
 * dimension i .. i+M-1, nothing else).
 *
 * Generators (standard embedding):
 *   line <i,2>_1  Fig. 3: group g = m mod 2^i starts at step 2g; in its
 *                 first step a node whose bits i and i+1 are equal sends
 *                 through i+1 (and receives through i), otherwise through i;
 *                 the other dimension in the second step. 2^(i+1) steps.
 *   line <i,1>_1  group m mod 2^i (2^i groups, see docs/calmant.md: the text
 *                 says 2^(i+1)) exchanges in step m mod 2^i. 2^i steps.
 *   <i,M>_1       Section 3.2's decomposition run subtask after subtask;
 *                 LB<i,M>_1 steps (Theorem 2).
 *   mesh          Section 4.2's decomposition with <i,2c>_c (Property 1),
 *                 <i,x>_c for x <= c (Property 2) and c < x < 2c
 *                 (Property 3); every axis run as a line. Steps: the
 *                 subtasks' LB, plus 1 for a c < x < 2c subtask with odd
 *                 LB; <i,4>_3 with LB 4 (i <= 5), where the paper's windows
 *                 do not fit, takes kcube's 4-step schedule (docs/calmant.md);
 *                 kc_calmant_steps (kcube/calmant_cost.h) gives the count.
 * These schedules are built for meshes; on a torus they hold only for
 * tasks without a top dimension (distance side/2): see kc_calmant_sched_torus.
 *
 * Cost: generation O(M 2^d); verification O(2^d M log(messages per step))
 * for a conflict-free schedule (plus the path lengths of the steps that
 * conflict or whose paths are short) and O(2^d (M + 2c)) memory; torus
 * schedules add the exact load and, above LB, compaction rounds of
 * O(2^d M (path length + 2) steps / 64) each. */
#ifndef KCUBE_CALMANT_SCHED_H
#define KCUBE_CALMANT_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/calmant_embed.h"
#include "kcube/calmant_task.h"
#include "kcube/error.h"
#include "kcube/stepnet.h"

typedef struct kc_calmant_msg {
    uint32_t step;
    uint32_t src, dst; /* processes */
} kc_calmant_msg;

typedef struct kc_calmant_sched {
    kc_calmant_msg *msg;
    size_t count, cap;
    uint32_t steps; /* steps the schedule takes (its last used step + 1 at least) */
} kc_calmant_sched;

void kc_calmant_sched_free(kc_calmant_sched *s);

/* Append one message (grows the array). */
kc_status kc_calmant_sched_add(kc_calmant_sched *s, uint32_t step, uint32_t src, uint32_t dst, kc_err *err);

/* Schedules appended to s, starting at step `base`; s->steps grows to cover
 * them. Standard embedding only (KC_EINVAL, parameter "embedding").
 * The line subtasks need c = 1 and a valid task. */
kc_status kc_calmant_sched_line2(const kc_calmant *g, int i, uint32_t base, kc_calmant_sched *s, kc_err *err);
kc_status kc_calmant_sched_line1(const kc_calmant *g, int i, uint32_t base, kc_calmant_sched *s, kc_err *err);
/* One subtask <i, x>_c with 1 <= x <= 2c by Section 4.2 (c >= 1); on a line
 * the two line generators above. */
kc_status kc_calmant_sched_subtask(const kc_calmant *g, kc_calmant_task t, uint32_t base, kc_calmant_sched *s,
                                   kc_err *err);
/* The whole task: its decomposition, subtask after subtask. */
kc_status kc_calmant_sched_task(const kc_calmant *g, kc_calmant_task t, kc_calmant_sched *s, kc_err *err);

typedef struct kc_calmant_verdict {
    uint64_t steps;      /* steps of the replay */
    uint64_t messages;
    uint64_t conflicts;  /* link, send and receive conflicts (kcube/stepnet.h) */
    uint64_t missing;    /* task messages the schedule lacks */
    uint64_t unexpected; /* messages outside the task, or repeated */
    char first_conflict[160];
} kc_calmant_verdict;

/* Tori (any tie rule): only the top dimensions d-c .. d-1 (distance side/2)
 * route differently from the mesh. A task of M <= c dimensions (one per
 * axis) takes LB steps, Property 2's way with each dimension's ring groups.
 * Otherwise the task's lower dimensions <i, t0-i> (t0 = max(i, d-c)) take
 * the mesh schedule above, and the top ones, one per axis, take max(G,
 * number of them) steps, before or after (both are tried): on a ring of side k the two
 * messages of a pair (x, x+k/2) fill one direction of the ring, so G = k/2
 * with plus or minus ties (a pair per step) and G = k/4 with split ties (an
 * even pair + and an odd pair - per step); node m uses top dimension k in
 * step (sum of its groups + k) mod max(G, number of them), Property 2's way.
 * When that is more than LB (exact count on the torus), the schedule is
 * compacted (kc_calmant_sched_compact, forward and on the mirrored
 * schedule, while it shrinks) and the shorter of the two orders kept. */
kc_status kc_calmant_sched_torus(const kc_calmant *g, kc_calmant_task t, kc_calmant_sched *s, kc_err *err);

/* Greedy list scheduling over the fixed DOR paths: the messages, taken in
 * the order of their steps, each move to the earliest step where their
 * sender, receiver and links are still free. A message never moves later
 * (its own step holds only messages of that step, which did not conflict
 * with it), so a conflict-free schedule stays conflict-free and no longer.
 * Skipped (s unchanged) when its table of (links + 2 nodes) x steps bits
 * would pass 256 MB. O(messages (path length + 2) steps / 64). */
kc_status kc_calmant_sched_compact(const kc_calmant *g, kc_calmant_sched *s, kc_err *err);

/* One conflict as the replay finds it (the step engine's report, with the
 * message that ran into it). */
typedef struct kc_calmant_conflict {
    uint64_t step;            /* 0-based */
    kc_stepnet_conflict kind; /* link twice, sent twice, received twice */
    uint64_t node;            /* mesh node: the link's tail, the sender or the receiver */
    int axis, dir;            /* the link (or the message's first leg): axis, +1 / -1 */
    uint32_t src, dst;        /* processes of that message */
} kc_calmant_conflict;

typedef void (*kc_calmant_conflict_fn)(void *ctx, const kc_calmant_conflict *c);

typedef struct kc_calmant_verify_opts {
    kc_calmant_conflict_fn on_conflict; /* every conflict in replay order; NULL: none */
    void *ctx;
    /* 1: walk every hop of every step on the engine (the reference, slow);
     * 0: walk only the steps the interval check finds faulty (same verdict) */
    int walk;
} kc_calmant_verify_opts;

/* Replay s on g for task t. Bad input: KC_EINVAL (an endpoint outside the
 * machine); conflicts and coverage faults are reported in v, not errors.
 * Each step is checked by sorting its messages' link intervals per line
 * and direction and by per-node send/receive stamps; a faulty step is
 * replayed hop by hop on the step engine, which counts every conflict
 * (so the count equals a full hop-by-hop replay's). opts may be NULL. */
kc_status kc_calmant_verify_with(const kc_calmant *g, kc_calmant_task t, const kc_calmant_sched *s,
                                 const kc_calmant_verify_opts *opts, kc_calmant_verdict *v, kc_err *err);
kc_status kc_calmant_verify(const kc_calmant *g, kc_calmant_task t, const kc_calmant_sched *s, kc_calmant_verdict *v,
                            kc_err *err);

#endif
