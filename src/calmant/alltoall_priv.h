/* Shared between the complete-exchange files of src/calmant (private). */
#ifndef KCUBE_SRC_CALMANT_ALLTOALL_PRIV_H
#define KCUBE_SRC_CALMANT_ALLTOALL_PRIV_H

#include <stdint.h>

#include "kcube/calmant_alltoall.h"
#include "kcube/calmant_cost.h"

/* calmant's best degree is searched in 1 .. min(N, this) (as `calmant cost`). */
#define KC_A2A_BEST_DEGREE_MAX 65536
/* The block run holds 2^(2d) slots of 12 bytes: 200 MB at d = 12. */
#define KC_A2A_RUN_MAX_D 12
/* Replays walk every message: the direct exchange has 2^(2d) of them. */
#define KC_A2A_REPLAY_MAX_D 12

kc_status kci_a2a_check(int d, int c, kc_a2a_method method, const kc_a2a_params *p, kc_err *err);
kc_status kci_a2a_calmant_time(int d, int c, int q, const kc_a2a_params *p, kc_calmant_time *t, kc_err *err);
uint64_t kci_a2a_direct_steps(int d, int c);

#endif
