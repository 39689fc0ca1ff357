/* Pieces shared between the files of src/torus (not public). */
#ifndef KC_TORUS_TINTERNAL_H
#define KC_TORUS_TINTERNAL_H

#include <stdint.h>

#include "kcube/tcontention.h"

/* Theorem 1 for the dimension j when the dimensions in `before` are routed
 * before it (in any order) and the rest after it: the case, the exponent e,
 * and bounds lower <= T <= upper (equal when the formula is exact). The
 * ranks of submatrices do not depend on the order of rows and columns, so
 * this prices dimension j of any dimension order. Linear kinds only. */
void kci_tformula_place(const kc_torus *t, const kc_tcomm *c, uint64_t before, int j, kc_tcase *tcase, int *exponent,
                       uint64_t *lower, uint64_t *upper);

#endif
