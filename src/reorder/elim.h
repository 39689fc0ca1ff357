/* Incremental column elimination over a growing set of dimensions.
 *
 * For a set S of dimensions the frame holds the columns of A with index in S
 * (each as a mask over all n rows), transformed by column operations so that
 *   - pivot columns have distinct pivot rows in S, a 1 on their own pivot row
 *     and 0 on every other pivot row (fully reduced);
 *   - the remaining ("null") columns are 0 on every row of S.
 * Then rank A[S,S] = npiv, and each column carries its history: the set of
 * original columns it is the sum of. Two facts follow, for j not in S:
 *   rank A[S+j, S] = rank A[S,S] + 1   iff  j is in grow = OR of null columns;
 *   the null histories span the kernel of A[S,S], so column j of A[S,S] is a
 *   combination of the others iff j is in dep = OR of null histories.
 * Adding one dimension costs O(|S|) word operations. */
#ifndef KC_MAPPING_ELIM_H
#define KC_MAPPING_ELIM_H

#include <stdint.h>

typedef struct kci_elim {
    uint64_t set;
    uint64_t pivrows; /* the pivot rows */
    int npiv, nnull;
    uint64_t pval[64], phist[64];
    uint8_t pidx[64]; /* pivot row -> index into pval */
    uint64_t nval[64], nhist[64];
    uint64_t grow; /* OR of null column values, rows outside S only */
    uint64_t dep;  /* OR of null column histories */
} kci_elim;

void kci_elim_reset(kci_elim *e);
/* Add dimension m (not yet in the set); col_m is column m of A as a row mask. */
void kci_elim_add(kci_elim *e, int m, uint64_t col_m);
/* Copy only the live part of a frame (frames are large, mostly unused). */
void kci_elim_copy(kci_elim *dst, const kci_elim *src);

/* A stack of frames that moves between sets cheaply when the sets are visited
 * in increasing or decreasing numeric order: frame k holds the k highest
 * elements of the current set, so a step re-adds only the low elements that
 * changed (amortised O(1) additions per visited set). */
typedef struct kci_elim_walk {
    int n, depth;
    uint64_t col[64];
    kci_elim frame[65];
} kci_elim_walk;

void kci_elim_walk_init(kci_elim_walk *w, const uint64_t *cols, int n);
/* Make the top frame describe `target`; returns it. */
const kci_elim *kci_elim_walk_goto(kci_elim_walk *w, uint64_t target);

#endif
