/* kcube/hl_class.h - which permutations algorithm HL routes beyond the
 * linear-complement class (seed 004 Section 3.3): SIMD, M-SIMD and MIMD
 * operation, and the partitioned linear-complement permutations PLC.
 *
 * SIMD    HL exactly as in kcube/hl.h: one dimension per step for everyone.
 * M-SIMD  subcubes may choose different dimensions. Section 3.3 allows two
 *         readings, both implemented (kc_hl_msimd_reading, docs/hl.md):
 *   cut   (the lemmas' schedule) the cube is cut along its most significant
 *         bits, as in Lemmas 6 and 7: if the top k bits of the destination depend only
 *         on the top k bits of the source (a permutation sigma of the 2^k
 *         partitions, and inside partition h a permutation tau_h of the low
 *         n - k bits), every partition first runs HL on tau_h over the low
 *         bits, each subcube choosing its own dimension, then every subcube
 *         of fixed low bits runs HL on sigma over the top bits; recursively
 *         for sigma and each tau_h. A permutation is M-SIMD routable if some
 *         such recursive cut ends in pieces that SIMD HL routes.
 *   split (the mode as the section's opening describes it) HL starts on the
 *         whole cube; a step that corrects bit d splits every subcube in two
 *         along d (no tag crosses again), and from then on each half runs HL
 *         alone: its own state A or B, its own least uncorrected bit in state
 *         A, its own agreement on the least differing bit in state B. No
 *         plan is chosen in advance.
 * MIMD    every processor decides alone. Two rules are offered: the greedy
 *         one (HL's rules applied per processor, a tag remembering which
 *         bits it has had corrected), and an exhaustive search for any
 *         schedule of n steps in which every processor sends at most one
 *         tag per step over a bit the tag has wrong (so paths stay minimal)
 *         and holds at most `cap` tags.
 *
 * PLC_n (Definition 3): LC_n for n <= 2; for n >= 3, LC_n or a cut as above
 * with sigma in PLC_k and every tau_h in PLC_{n-k}, 1 <= k < n. */
#ifndef KCUBE_HL_CLASS_H
#define KCUBE_HL_CLASS_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/hl.h"
#include "kcube/names.h"
#include "kcube/rng.h"

#define KC_HL_CLASS_MAX_N 12 /* the recursive deciders */

typedef enum kc_hl_msimd_reading {
    KC_HL_MSIMD_CUT,  /* recursive cuts along the top bits (Lemmas 6, 7) */
    KC_HL_MSIMD_SPLIT /* subcubes split along each corrected bit, then alone */
} kc_hl_msimd_reading;
extern const kc_names kc_hl_msimd_names; /* "cut", "split" */

/* M-SIMD under either reading: run the schedule step by step on the engine
 * (per-processor dimensions, at most 2 tags per processor; Lemma 4(a) and
 * the subcube states checked). res->states has 'A' or 'B' when every
 * subcube is in that state, 'M' when subcubes differ; res->dims[t] is -1
 * when subcubes chose different bits. A permutation the reading cannot route
 * is not an error: res->routed = 0 and res->why says where it stopped.
 * n <= KC_HL_CLASS_MAX_N; O(n 2^n) for split, plus the cut search for cut. */
kc_status kc_hl_msimd_route(kc_hl_msimd_reading reading, int n, const uint32_t *dst, kc_hl_result *res,
                            kc_err *err);
/* The cut reading: decide only (no run; 1 or 0, -1 when out of memory),
 * and decide-and-run. */
int kc_hl_msimd_routable(int n, const uint32_t *dst);
kc_status kc_hl_msimd_run(int n, const uint32_t *dst, kc_hl_result *res, kc_err *err);

/* MIMD, greedy per-processor HL (tags may pile up to n + 1 per processor). */
kc_status kc_hl_mimd_greedy(int n, const uint32_t *dst, kc_hl_result *res, int *max_held, kc_err *err);
/* MIMD, any schedule (n <= 4): 1 and fills dims[t * 2^n + x] (-1 idle) when
 * one exists with at most cap tags per processor. circuit: also no directed
 * link on two paths (so the paths can be held as circuits, Section 3.2). */
int kc_hl_mimd_search(int n, const uint32_t *dst, int cap, int circuit, int8_t *dims);

/* PLC membership (n <= KC_HL_CLASS_MAX_N; 1 or 0, -1 when out of memory)
 * and a random PLC permutation (KC_ENOMEM, dst then unspecified). */
int kc_hl_is_plc(int n, const uint32_t *dst);
kc_status kc_hl_random_plc(int n, kc_rng *r, uint32_t *dst);

/* |PLC_n| by recurrence (3), sum_k |LC'_k| |PLC_{n-k}|^{2^k}, as a decimal
 * string (n <= 12). variant 0 reads LC'_k as the paper states it (LC_k
 * without the block-diagonal matrices); variant 1 as LC_k without the
 * block-triangular ones (no top j < k bits of y depending only on the top j
 * bits of x), which makes the cut unique. */
kc_status kc_hl_plc_count(int n, int variant, char *buf, size_t size, kc_err *err);
/* |LC'_k| for either variant by inclusion-exclusion (k <= 6, where it fits
 * 64 bits; 0 beyond: kc_hl_plc_count carries it exactly for any k it
 * needs); and by enumerating matrices (k <= 4). */
uint64_t kc_hl_lc_prime(int k, int variant);
uint64_t kc_hl_lc_prime_enumerate(int k, int variant);
/* |PLC_n| by enumeration: n <= 3 tests all (2^n)! permutations, n = 4
 * builds the set and removes duplicates (about 15 M permutations, seconds). */
kc_status kc_hl_plc_enumerate(int n, uint64_t *count, kc_err *err);

/* The Q_n census (n <= 3): every permutation of 2^n nodes. */
typedef struct kc_hl_census {
    int n;
    uint64_t total;       /* (2^n)! */
    uint64_t lc;          /* linear-complement */
    uint64_t plc;         /* partitioned linear-complement */
    uint64_t simd;        /* HL routes in SIMD mode (LSB-first) */
    uint64_t simd_msb;    /* ... MSB-first */
    uint64_t msimd;       /* in M-SIMD mode, cut reading */
    uint64_t msimd_split; /* in M-SIMD mode, split reading */
    uint64_t msimd_either; /* by at least one of the two readings */
    uint64_t mimd_greedy; /* greedy per-processor HL */
    uint64_t mimd_any;    /* some MIMD schedule, <= 1 tag sent per step, <= 2 held */
    uint64_t mimd_any3;   /* ... <= 3 held */
    uint64_t mimd_circuit; /* ... <= 2 held and every directed link on at most one path */
    int mimd_greedy_max_held;
    /* claims */
    int lc_in_simd, simd_in_msimd, plc_in_msimd;
    int simd_in_split, plc_in_split; /* the same claims for the split reading */
} kc_hl_census;
/* Per-permutation classes handed to the optional callback of the census. */
enum {
    KC_HL_IS_LC = 1,
    KC_HL_IS_PLC = 2,
    KC_HL_ROUTES_SIMD = 4,
    KC_HL_ROUTES_SIMD_MSB = 8,
    KC_HL_ROUTES_MSIMD = 16,
    KC_HL_ROUTES_MIMD_GREEDY = 32,
    KC_HL_ROUTES_MIMD_ANY = 64,
    KC_HL_ROUTES_MIMD_CIRCUIT = 128,
    KC_HL_ROUTES_MSIMD_SPLIT = 256
};
typedef void (*kc_hl_census_fn)(void *ctx, const uint32_t *dst, unsigned classes);
kc_status kc_hl_census_run(int n, kc_hl_census *c, kc_hl_census_fn each, void *ctx, kc_err *err);

#endif
