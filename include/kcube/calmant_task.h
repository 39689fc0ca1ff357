/* kcube/calmant_task.h - communication tasks <i, M>_c and the iterations of
 * a pipelined CC-cube (seed 003, Sections 2.4, 2.5, 3.2 and 4.2).
 *
 * Task <i, M>: every process exchanges one message with its neighbour in
 * each of the M consecutive dimensions i .. i+M-1 (0 <= i, 1 <= M, i+M <= d).
 *
 * Pipelining (degree Q >= 1): packet p (0..Q-1) of dimension j is sent in
 * iteration p + j, so iteration t (0 .. d+Q-2) uses the dimensions
 * max(0, t-Q+1) .. min(d-1, t): d+Q-1 iterations,
 *   shallow (Q < d):  prologue Q-1 (<0,k>, k = 1..Q-1), kernel d-Q+1
 *                     (<k-1,Q>, k = 1..d-Q+1), epilogue Q-1 (<d-Q+k, Q-k>);
 *   deep (Q >= d):    prologue d-1 (<0,k>), kernel Q-d+1 (<0,d>),
 *                     epilogue d-1 (<k, d-k>, k = 1..d-1).
 *
 * Decomposition (Section 4.2; with c = 1 it is Section 3.2's):
 *   <i, M>_c = union_{k=1}^{floor(M/2c)} <i+M-2kc, 2c>_c  plus  <i, M mod 2c>_c
 * (the last part omitted when M mod 2c = 0); e.g. <0,6>_1 = <4,2> <2,2> <0,2>
 * and <0,10>_2 = <6,4> <2,4> <0,2>.
 *
 * Cost: kc_calmant_iterations O(d + Q); kc_calmant_decompose O(M / c);
 * kc_calmant_task_parse O(length of the text). */
#ifndef KCUBE_CALMANT_TASK_H
#define KCUBE_CALMANT_TASK_H

#include <stddef.h>

#include "kcube/error.h"
#include "kcube/names.h"

typedef struct kc_calmant_task {
    int i, m;
} kc_calmant_task;

/* KC_EINVAL (parameter "task") unless 0 <= i, 1 <= m, i + m <= d. */
kc_status kc_calmant_task_check(kc_calmant_task t, int d, kc_err *err);

/* Parse "I,M" (two decimal integers, an optional sign each, nothing else)
 * and, when d >= 1, check the task against d: KC_EINVAL (parameter "task")
 * for malformed text, I outside 0..d-1, M < 1 or I + M > d. */
kc_status kc_calmant_task_parse(const char *text, int d, kc_calmant_task *out, kc_err *err);

typedef enum kc_calmant_phase { KC_CALMANT_PROLOGUE, KC_CALMANT_KERNEL, KC_CALMANT_EPILOGUE } kc_calmant_phase;
extern const kc_names kc_calmant_phase_names; /* "prologue", "kernel", "epilogue" */

typedef struct kc_calmant_iter {
    kc_calmant_task task;
    kc_calmant_phase phase;
    int k; /* 1-based position inside its phase (the paper's k-th iteration) */
} kc_calmant_iter;

/* The d+Q-1 iterations of the pipelined CC-cube into out[0 .. cap-1];
 * *count = d+Q-1 (KC_ERANGE if cap is smaller). KC_EINVAL (parameter "d"
 * or "degree") for d < 1 or Q < 1. */
kc_status kc_calmant_iterations(int d, int q, kc_calmant_iter *out, size_t cap, size_t *count, kc_err *err);

/* Section 4.2's decomposition, subtasks in the paper's order (k = 1, 2, ...,
 * then the remainder); at most M/(2c) + 1 of them. c in 1..3. */
size_t kc_calmant_decompose(kc_calmant_task t, int c, kc_calmant_task *out);

#endif
