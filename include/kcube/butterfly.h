/* kcube/butterfly.h - butterfly network emulation on Gray-coded data in a
 * Boolean n-cube (seed 001, Johnsson & Ho, YALEU/DCS/TR-764, Sections 3-6),
 * with real data: a radix-2 decimation-in-frequency FFT of complex doubles.
 *
 * The butterfly on P = 2^p rows: stage s (s = 0..p-1) pairs row i with row
 * i xor 2^(p-1-s) (upper: that bit 0). The data flow computed is the DIF
 * FFT: u' = u + l, l' = (u - l) W^k with W = exp(-2 pi i / 2^(b+1)),
 * b = p-1-s and k = i mod 2^b; after the last stage row i holds X[rev_p(i)]
 * (natural-order input, bit-reversed output). Placement is by row index.
 *
 * An emulation starts from one of the schemes of kcube/gray_alloc.h and is
 * planned as a sequence of data motions that keep the placement an affine
 * map over GF(2) (machine address = A i xor c): exchanges of a processor
 * dimension with a local memory dimension, conditional exchanges (code
 * conversion), copies for exchange-and-compute, and the one-point-per-
 * processor replication of Section 5. The motions are split into
 * independent pieces (pairs of memory slots), scheduled as soon as their
 * data and links allow (list scheduling, at most one element per directed
 * link per step), and replayed on the step engine (kcube/stepnet.h) with
 * the real elements: every butterfly is computed in the processor that
 * holds both inputs (or an input and a copy of its partner), and each
 * element's row index travels with it so that every step is checked.
 *
 * Methods (the paper's bounds, where it gives one, in kc_bfly_bounds):
 *   direct            straightforward: copies travel the two hops of Lemma 1
 *   convert           Gray -> binary conversion, then the binary emulation
 *   bisect-local      bi-sectioning with code conversion in local memory
 *   bisect-interproc  bi-sectioning with code conversion by exchanges
 *   one-per-proc      Section 5 (Theorem 5): copies to both neighbours
 *   multisect         2^r-sectioning (r local memory dimensions per block);
 *                     r = n is N-sectioning: one all-to-all in the n-cube
 *                     per block of N slots, P/2N transfers (the lower bound)
 *
 * Local motions (reorderings of a processor's memory under control of its
 * address) move no data: they only rename slots. Exchanges of single slots
 * in bisect-local and multisect are split into two processor classes (half
 * sequences, class = parity of some processor bits, one mask per
 * dimension, settled on the first block from when each slot is ready),
 * each with its own lane. A requested binary or Gray output is prepared by
 * such renamings before each move into the processor field, at no cost
 * where that succeeds (cyclic bi-sectioning with local conversion); else
 * conversion exchanges follow the emulation (kc_bfly_result.conv_transfers).
 *
 * Cost: planning O(p^2) per motion (N-sectioning also builds its
 * all-to-all table, an edge colouring, 0.23 s at n = 14); O(p P/N) pieces, each scheduled and
 * replayed in O(N) (dependencies are tracked exactly per processor and
 * physical slot), so O(P p) time in all; memory about 25 bytes per element
 * (value, row index, stage, schedule stamp), plus two copy buffers with
 * their stamps for the copy-based methods (direct, convert). */
#ifndef KCUBE_BUTTERFLY_H
#define KCUBE_BUTTERFLY_H

/* The data are C's double complex; from C++ the same layout is
 * std::complex<double> (both are two doubles, real part first). */
#ifdef __cplusplus
extern "C++" {
#include <complex>
}
#define KC_DOUBLE_COMPLEX std::complex<double>
#else
#include <complex.h>
#define KC_DOUBLE_COMPLEX double complex
#endif
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/gray_alloc.h"
#include "kcube/names.h"
#include "kcube/stepnet.h"

typedef enum kc_bfly_method {
    KC_BFLY_DIRECT,
    KC_BFLY_CONVERT,
    KC_BFLY_BISECT_LOCAL,
    KC_BFLY_BISECT_INTERPROC,
    KC_BFLY_ONE_PER_PROC,
    KC_BFLY_MULTISECT
} kc_bfly_method;

typedef enum kc_bfly_out { KC_BFLY_OUT_NATIVE, KC_BFLY_OUT_BINARY, KC_BFLY_OUT_GRAY } kc_bfly_out;

extern const kc_names kc_bfly_method_names, kc_bfly_out_names;

#define KC_BFLY_MAX_N 20
#define KC_BFLY_MAX_P 30

/* Called with the placement before the first step (step 0) and after each
 * step: tag[s * N + x] is the row index held in slot s of processor x. */
typedef void (*kc_bfly_step_fn)(void *ctx, uint64_t step, const uint32_t *tag, uint64_t N, uint64_t S);

typedef struct kc_bfly_opts {
    kc_scheme scheme;
    kc_bfly_method method;
    kc_bfly_out out; /* NATIVE: leave the processor field as the method ends */
    int r;           /* multisect: 2^r slots per block, 1 <= r <= p - n */
    kc_bfly_step_fn on_step; /* or NULL */
    void *ctx;
} kc_bfly_opts;

/* Final processor-field encoding: rows of the processor field as functions
 * of the row index bits. */
typedef enum kc_bfly_enc { KC_BFLY_ENC_BINARY, KC_BFLY_ENC_GRAY, KC_BFLY_ENC_OTHER } kc_bfly_enc;

typedef struct kc_bfly_result {
    kc_stepnet_stats net;   /* start-ups, transfers in sequence, elements moved, conflicts */
    uint64_t conv_transfers; /* part of net.transfers spent on the output conversion (0 when none) */
    uint64_t pieces;         /* scheduled pieces (pairs of slots) */
    int placement_ok;        /* every element ended where the final map says */
    kc_bfly_enc final_enc;
    uint64_t final_col[64]; /* final map: machine(i) = xor of final_col[b] over bits b of i, xor final_c */
    uint64_t final_c;
    int proc_bit_of[64];    /* processor dimension q holds row bit proc_bit_of[q] (binary output), else -1 */
} kc_bfly_result;

/* Run the emulation. data (P values, by row index, may be NULL for a run
 * that only moves row indices) is the input on entry and each row's final
 * value on exit. Input errors: KC_EINVAL / KC_ERANGE naming "n", "p",
 * "method", "r"; a failed check inside the replay is KC_EINTERNAL. */
kc_status kc_bfly_run(const kc_bfly_opts *o, KC_DOUBLE_COMPLEX *data, kc_bfly_result *res, kc_err *err);

/* The plan's data motions one by one, in the paper's form (Tables 2 and 3):
 * the placement before the first motion and after each one, by logical
 * slot. In this form each code conversion by exchange (a local reordering
 * mu ^= a_k, then the slots with mu = 1 crossing dimension k) is completed
 * by the same reordering again, which makes the three the paper's swap of
 * processor dimension k with address bit mu. The executed plan
 * (kc_bfly_run) leaves that last reordering out: it moves no data, only
 * renames slots, and the scheduler's classes are tuned to the plan without
 * it. kc_bfly_motions plans both forms and shows the paper's when they move
 * the same elements (after every data motion the processor of every row is
 * the same); where the completed swaps would lead the planner to other
 * motions (native output, some sizes), it shows the executed plan as it is
 * (kc_bfly_motion.paper_form = 0). Cost O(P p) per motion; meant for small P. */
typedef enum kc_bfly_motion_kind {
    KC_BFLY_M_START,       /* the initial placement */
    KC_BFLY_M_EXCHANGE,    /* swap of processor dimension dim with address bit `bit` */
    KC_BFLY_M_CONDITIONAL, /* the slots whose control parity is 1 cross dimension dim */
    KC_BFLY_M_LOCAL,       /* local reordering: address bit `bit` ^= parity of the control bits */
    KC_BFLY_M_ALL_TO_ALL,  /* all-to-all in the 2-cube of dims dim, dim2 */
    KC_BFLY_M_DIAGONAL,    /* diagonal bi-section over dims dim, dim2 */
    KC_BFLY_M_COPY,        /* a copy travels to the partner (exchange and compute) */
    KC_BFLY_M_REPLICATE,   /* Section 5: copies to both neighbours over dim, dim2 */
    KC_BFLY_M_SECTION      /* N-sectioning: every processor bit exchanged with a local bit at once */
} kc_bfly_motion_kind;

typedef struct kc_bfly_motion {
    kc_bfly_motion_kind kind;
    int dim, dim2, bit;  /* -1 where not used; bit is a machine address bit (memory bits are n..p-1) */
    uint64_t control;    /* CONDITIONAL, LOCAL: machine address bits whose parity controls it */
    int complement;      /* CONDITIONAL, LOCAL: the parity is complemented */
    int stages_done;     /* butterfly stages computed before this motion */
    int paper_form;      /* 1: the paper's form, 0: the executed plan as it is (see above) */
    const uint32_t *tag; /* tag[s * N + x]: the row in logical slot s of processor x */
} kc_bfly_motion;

extern const kc_names kc_bfly_motion_names;

typedef void (*kc_bfly_motion_fn)(void *ctx, const kc_bfly_motion *m, uint64_t N, uint64_t S);

kc_status kc_bfly_motions(const kc_bfly_opts *o, kc_bfly_motion_fn fn, void *ctx, kc_err *err);

/* The paper's values for this case: the theorem's bound and Table 4's
 * entry, or -1 where the paper gives none. *which names the source
 * ("Theorem 1", ...) or is "" . */
typedef struct kc_bfly_bounds {
    int64_t theorem;
    int64_t table4;
    const char *which;
} kc_bfly_bounds;

void kc_bfly_get_bounds(const kc_bfly_opts *o, kc_bfly_bounds *b);

/* Bit reversal of the low p bits. */
uint64_t kc_bfly_bitrev(uint64_t i, int p);

/* The DIF FFT sequentially, in place, rows in natural order (the reference
 * data flow): after it data[i] = X[rev_p(i)]. O(P log P). */
void kc_bfly_dif_serial(KC_DOUBLE_COMPLEX *data, int p);

#endif
