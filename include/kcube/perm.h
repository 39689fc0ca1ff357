/* kcube/perm.h - permutations: lexicographic enumeration, validity, inverse.
 *
 * Two shapes share one implementation:
 *  - node permutations, uint32_t p[0..len-1] of 0..len-1 (a permutation of
 *    the 2^n nodes, a node map to_physical / to_virtual, HL's dst[]);
 *  - dimension orders, int order[0..n-1] of 0..n-1 with n <= 64 (a
 *    reordering mapping, kcube/reorder.h).
 * Enumerating every permutation is the reference of the brute-force tests
 * (all n! orders, all (2^n)! node permutations of Q_2 and Q_3).
 * Costs: next O(len) worst case, O(1) amortised; validity and inverse O(len). */
#ifndef KCUBE_PERM_H
#define KCUBE_PERM_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"

/* ---- node permutations -------------------------------------------------- */

/* p = 0, 1, ..., len-1. */
void kc_perm_identity(uint32_t *p, size_t len);
/* Step p to the next permutation in lexicographic order; 0 (p unchanged)
 * after the last one. */
int kc_perm_next(uint32_t *p, size_t len);
/* Check that p is a permutation of 0..len-1 and write its inverse
 * (inv[p[i]] = i; inv must not overlap p). KC_EINVAL names the first entry
 * that is out of range or repeated, under parameter id `what` (NULL: "perm");
 * inv is then unspecified. */
kc_status kc_perm_invert(const uint32_t *p, uint32_t *inv, size_t len, const char *what, kc_err *err);

/* ---- dimension orders ----------------------------------------------------- */

/* Step order to the next permutation in lexicographic order; 0 after the last. */
int kc_order_next(int *order, int n);
/* 1 if order is a permutation of 0..n-1 (n <= 64). */
int kc_order_valid(const int *order, int n);
/* inv[order[t]] = t; order must be valid. */
void kc_order_invert(const int *order, int *inv, int n);

#endif
