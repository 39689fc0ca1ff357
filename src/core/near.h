/* "Did you mean": the known word nearest to one nobody knows, for the one
 * line that refuses an unknown command, option, pattern or name.
 *
 * Candidates are offered one at a time (from whatever table holds them);
 * the nearest by edit distance (insertions, deletions, substitutions and
 * swaps of two neighbours, each 1) wins when it is within reach (1 for a
 * word of up to 3 characters, 2 otherwise) and no other candidate is as
 * near, so a suggestion is never a guess between two. Case matters. */
#ifndef KCI_CORE_NEAR_H
#define KCI_CORE_NEAR_H

#include <stddef.h>

#include "kcube/names.h"

typedef struct kci_near {
    const char *word; /* the unknown word (its part before ':' for patterns: see len) */
    size_t len;
    const char *best; /* the nearest candidate so far, or NULL */
    size_t best_len;
    int dist;         /* its distance */
    int ties;         /* other candidates at that distance */
} kci_near;

/* Start a search for word[0..len). */
void kci_near_init(kci_near *n, const char *word, size_t len);
/* Offer cand[0..len) (kept by pointer: it must outlive the search).
 * O(len x the word's length), words longer than 64 bytes never match. */
void kci_near_offer(kci_near *n, const char *cand, size_t len);
/* The suggestion (*len bytes at the result), or NULL when there is none. */
const char *kci_near_best(const kci_near *n, size_t *len);
/* The name of table t nearest to text, as above (NUL-terminated), or NULL. */
const char *kci_near_name(const kc_names *t, const char *text);

#endif
