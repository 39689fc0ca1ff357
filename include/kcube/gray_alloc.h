/* kcube/gray_alloc.h - the eight allocation/encoding schemes of seed 001's
 * Table 1: P = 2^p elements on N = 2^n processors, P/N per local memory.
 *
 * A machine address is p bits: the low n bits are the processor address,
 * the high p - n bits the local memory address (the paper puts the memory
 * field on the high side). Allocation:
 *   cyclic       the n low bits of index i choose the processor,
 *   consecutive  the n high bits of i choose the processor;
 * encoding of the two fields:
 *   binary       both fields binary,
 *   binary-gray  processor field Gray coded, memory field binary,
 *   gray-gray    both fields Gray coded separately,
 *   gray         the entire address G_p(i), split into its two fields.
 * Table 1 lost its complement bars in extraction; they are reconstructed
 * here from the entire-address definition: where the table says the field
 * is G(x) "if |G(y)| is odd" it means G of the complement of x, which is
 * G(x) with its top bit flipped (kc_scheme_table1 evaluates the table as
 * printed with the bars restored, for the tests).
 *
 * Every scheme is linear over GF(2): machine(i xor j) = machine(i) xor
 * machine(j). Cost O(1) per address (O(log p) for the Gray inverse). */
#ifndef KCUBE_GRAY_ALLOC_H
#define KCUBE_GRAY_ALLOC_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"

typedef enum kc_alloc { KC_ALLOC_CYCLIC, KC_ALLOC_CONSECUTIVE } kc_alloc;
typedef enum kc_encoding { KC_ENC_GRAY, KC_ENC_GRAY_GRAY, KC_ENC_BINARY_GRAY, KC_ENC_BINARY } kc_encoding;

extern const kc_names kc_alloc_names, kc_encoding_names;

#define KC_SCHEME_MAX_P 62

typedef struct kc_scheme {
    kc_alloc alloc;
    kc_encoding enc;
    int n, p; /* 0 <= n <= p <= KC_SCHEME_MAX_P */
} kc_scheme;

kc_status kc_scheme_init(kc_scheme *s, kc_alloc alloc, kc_encoding enc, int n, int p, kc_err *err);

/* Machine address (memory << n | processor) of element i, and back. */
uint64_t kc_scheme_machine(const kc_scheme *s, uint64_t i);
uint64_t kc_scheme_index(const kc_scheme *s, uint64_t machine);

static inline uint64_t kc_scheme_proc(const kc_scheme *s, uint64_t machine)
{
    return machine & ((1ULL << s->n) - 1);
}
static inline uint64_t kc_scheme_mem(const kc_scheme *s, uint64_t machine)
{
    return machine >> s->n;
}

/* Table 1 as printed (bars restored): processor and memory address of i. */
void kc_scheme_table1(const kc_scheme *s, uint64_t i, uint64_t *proc, uint64_t *mem);

/* The linear map as columns: col[b] = machine(2^b) for b < p. */
void kc_scheme_columns(const kc_scheme *s, uint64_t *col);

#endif
