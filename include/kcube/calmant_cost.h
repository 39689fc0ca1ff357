/* kcube/calmant_cost.h - communication time of a pipelined CC-cube under
 * CALMANT (seed 003, Sections 2.5, 3.3, 4.3 and Appendix A.3).
 *
 * A step costs beta + L tau (beta: start-up per message, tau: time per
 * byte); with N bytes per node and CC-cube iteration and degree Q, every
 * message carries L = ceil(N / Q) bytes (the paper assumes Q | N; rounding
 * up is the cost of the last, fuller packets). After each of the d+Q-1
 * iterations comes a barrier of cost b:
 *   T(d, Q) = sum over iterations of P<i,M>_c (beta + L tau) + (d+Q-1) b,
 * shallow (Q < d) and deep (Q >= d) alike, the iterations being those of
 * kc_calmant_iterations.
 *
 * Step counts: kc_calmant_steps is what kc_calmant_sched_task takes (the
 * decomposition's subtasks one after the other; equal to LB on lines).
 * kc_calmant_closed_load is the appendix's closed forms divided by
 * (beta + L tau): as the tests show they are the sum of rho_max over the
 * iterations, which is the time on lines but only a lower bound on meshes,
 * where LB = max(rho, M) and the schedules add Lemma 2's and Property 3's
 * steps (docs/calmant.md).
 *
 * Cost: kc_calmant_steps O(M / c); kc_calmant_time O(d (d + min(Q, d)) / c)
 * (the kernel's identical iterations are counted once); best degree
 * O(qmax d^2 / c). */
#ifndef KCUBE_CALMANT_COST_H
#define KCUBE_CALMANT_COST_H

#include <stdint.h>

#include "kcube/error.h"

/* Steps of the generated schedule of <i, M>_c (standard embedding, mesh). */
uint64_t kc_calmant_steps(int i, int m, int c);

typedef struct kc_calmant_cost_params {
    double beta;    /* start-up per message */
    double tau;     /* time per byte */
    double barrier; /* b, per iteration */
    uint64_t bytes; /* N, per node and CC-cube iteration (>= 1) */
} kc_calmant_cost_params;

typedef struct kc_calmant_time {
    int degree;           /* Q */
    uint64_t packet;      /* L = ceil(N / Q) */
    uint64_t iterations;  /* d + Q - 1 */
    uint64_t steps;       /* sum of kc_calmant_steps over the iterations */
    uint64_t lb_steps;    /* sum of LB<i,M>_c */
    uint64_t rho_steps;   /* sum of rho_max<i,M>_c */
    double time;          /* steps (beta + L tau) + iterations b */
    double time_lb;       /* the same with lb_steps */
} kc_calmant_time;

/* T(d, Q) on a c-dimensional mesh. KC_EINVAL: c outside 1..3 or d not a
 * multiple of c with d/c >= 2 (parameter "d" / "c"), Q < 1 ("degree"),
 * N = 0 ("bytes"), a negative beta, tau or b ("startup", "byte_time",
 * "barrier"). */
kc_status kc_calmant_time_of(int d, int c, int q, const kc_calmant_cost_params *p, kc_calmant_time *out,
                             kc_err *err);

/* Appendix A.3's closed forms (T_shallow for Q < d, T_deep for Q >= d) as
 * step counts: the numerator over 18, without barriers. For d, c valid and
 * 1 <= Q <= 2^20 (otherwise UINT64_MAX: the numerator could overflow). */
uint64_t kc_calmant_closed_load(int d, int c, int q);

/* The degree Q in 1 .. qmax (qmax = 0: up to N) with the least time; ties
 * go to the smaller Q. */
kc_status kc_calmant_best_degree(int d, int c, const kc_calmant_cost_params *p, int qmax, kc_calmant_time *out,
                                 kc_err *err);

#endif
