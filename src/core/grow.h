/* Growing arrays: the one place where the library's dynamic arrays get
 * more room. kci_reserve doubles a capacity (from a first size the caller
 * chooses) until a needed count fits, checks the byte size for overflow and
 * leaves the array untouched when memory runs out; kci_resize sets an exact
 * size with the same checks. Both take the address of the array pointer, so
 * one call serves arrays of any element type:
 *
 *     if (KCI_RESERVE(list->item, list->cap, list->n + 1, 16))
 *         return kc_fail(err, KC_ENOMEM, "...");
 *     list->item[list->n++] = x;
 *
 * Doubling makes n appends cost O(n) copies in all. No state. */
#ifndef KCI_CORE_GROW_H
#define KCI_CORE_GROW_H

#include <stddef.h>

/* Make room for `need` elements of `elem` bytes in the array whose pointer
 * is at *pp (any object pointer type) and whose capacity is *cap. When need
 * > *cap, the capacity becomes the first of (*cap or, when *cap is 0,
 * first), doubled as often as needed, that is >= need; the array is
 * reallocated (its contents kept) and *pp and *cap updated. Returns 0, or -1
 * when the size overflows or memory runs out: *pp and *cap are then
 * unchanged (the array is still valid and still the caller's to free).
 * Needs elem > 0 (first 0 counts as 1). */
int kci_reserve(void *pp, size_t *cap, size_t need, size_t elem, size_t first);

/* Reallocate the array at *pp to exactly n elements of elem bytes (n = 0
 * gives a one-byte block, never NULL on success). Returns 0, or -1 on
 * overflow or when memory runs out (*pp unchanged). */
int kci_resize(void *pp, size_t n, size_t elem);

/* kci_reserve for an array variable `ptr` and its size_t capacity `cap`. */
#define KCI_RESERVE(ptr, cap, need, first) kci_reserve(&(ptr), &(cap), (need), sizeof *(ptr), (first))

/* kci_resize for an array variable `ptr`. */
#define KCI_RESIZE(ptr, n) kci_resize(&(ptr), (n), sizeof *(ptr))

#endif
