/* kcube/hl.h - self-routing of permutations on the binary n-cube by tags:
 * Boppana and Raghavendra's algorithm HL (seed 004).
 *
 * Model. Processor x holds tags (destination addresses). In a routing step
 * each processor picks one dimension d and sends every tag whose bit d
 * differs from its own bit d to its neighbour x ^ 2^d ("correcting bit d").
 * SIMD: every processor picks the same d. The machine is in state A when
 * every processor holds one tag, in state B when half the processors hold two
 * tags and the rest none; anything else is an error state.
 *
 * Algorithm HL: in state A correct the least significant bit not used yet;
 * in state B every two-tag processor corrects the least significant bit in
 * which its two tags differ. The MSB-first variant takes the most
 * significant bit in both rules. For linear-complement permutations HL
 * finishes in n steps, states A or B only, at most one tag moved per
 * processor per step, and the tag -> processor map affine after every step
 * (Lemma 4); the engine checks all of this while it runs.
 *
 * A permutation is given as dst[x] = destination of the tag that starts at
 * processor x, for x in 0..2^n - 1. */
#ifndef KCUBE_HL_H
#define KCUBE_HL_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/error.h"
#include "kcube/lcc.h"

#define KC_HL_MAX_N 24 /* 16 M processors; the engine needs about 22 bytes per processor */
#define KC_HL_NONE UINT32_MAX

/* ---- the tag-routing engine ---------------------------------------------- */

/* Kept up to date by every step: how many processors hold one / two tags,
 * and over two-tag processors the range of the least and most significant
 * bit in which their tags differ, and the OR / AND of those differences
 * (equal iff all pairs differ in the same bits, Lemma 3). */
typedef struct kc_hl_summary {
    uint64_t ones, twos;
    int lsb_min, lsb_max, msb_min, msb_max;
    uint32_t diff_or, diff_and;
} kc_hl_summary;

typedef struct kc_hl_engine {
    int n;
    uint64_t count_procs; /* 2^n */
    int cap;              /* tag slots per processor */
    uint32_t *slot, *next_slot;  /* cap tags per processor */
    uint8_t *count, *next_count; /* tags held */
    uint32_t *host;       /* scratch: tag -> processor (affine check, paths) */
    int steps_done;
    int max_moved;        /* most tags one processor sent in one step, so far */
    uint64_t moved_last;  /* tags moved in the last step */
    uint64_t overflow_at; /* processor that would exceed cap, or KC_HL_NONE */
    /* optional record of every move, for paths and Lemma 5: for step t and
     * processor x, the tag it sent (KC_HL_NONE if none) and over which dim. */
    int record;
    uint32_t *sent_tag; /* [n * 2^n] */
    int8_t *sent_dim;   /* [n * 2^n] */
    uint32_t *start;    /* start[x] = initial tag of x (for paths) */
    kc_hl_summary sum;
} kc_hl_engine;

/* Load a permutation (dst must be a permutation of 0..2^n-1). cap is the tag
 * capacity of a processor: 2 is all HL needs; a larger cap lets MIMD-style
 * experiments hold more. record keeps every move (n * 2^n * 5 bytes). */
kc_status kc_hl_engine_init(kc_hl_engine *e, int n, const uint32_t *dst, int cap, int record, kc_err *err);
void kc_hl_engine_free(kc_hl_engine *e);

/* One SIMD step correcting bit d everywhere (the rule of Claim 1). Returns
 * KC_OK, or KC_ERANGE when some processor would exceed its capacity
 * (e->overflow_at says which; the tags are then left as before the step). */
kc_status kc_hl_engine_step(kc_hl_engine *e, int d);
/* One step where processor x corrects bit dim[x] (-1: it sends nothing). */
kc_status kc_hl_engine_step_each(kc_hl_engine *e, const int8_t *dim);

/* The tags of processor x. */
static inline int kc_hl_tags(const kc_hl_engine *e, uint64_t x, const uint32_t **tags)
{
    *tags = e->slot + x * (uint64_t)e->cap;
    return e->count[x];
}

/* State of the whole machine: 'A', 'B' or 'E' (error). */
char kc_hl_state(const kc_hl_engine *e);
/* State of the subcube {x : x & ~free == base}: 'A', 'B' or 'E'. */
char kc_hl_state_sub(const kc_hl_engine *e, uint64_t base, uint64_t free);
/* Lemma 4(b): is the map tag -> host processor affine (x = T y + k)? Only
 * meaningful in states A and B (every tag held once). */
int kc_hl_affine(kc_hl_engine *e);
/* Every processor holds exactly its own address. */
int kc_hl_routed(const kc_hl_engine *e);

/* ---- algorithm HL ------------------------------------------------------ */

typedef struct kc_hl_opts {
    int msb_first;    /* the most-significant-first variant */
    int check_affine; /* check Lemma 4(b) after every step (O(2^n) each) */
    int require_lemma3; /* in state B, all two-tag processors' tags must differ
                         * in the same bits (true for LC permutations) */
    /* called after every step (for --trace); may be NULL */
    void (*on_step)(void *ctx, const kc_hl_engine *e, int step, int dim, char state_before);
    void *ctx;
} kc_hl_opts;

typedef struct kc_hl_result {
    int n;
    int routed;       /* every tag home after the steps taken */
    int steps;        /* steps taken (n when all went well) */
    char states[65];  /* state before each step, e.g. "ABA"; then '\0' */
    char final_state; /* state after the last step */
    int dims[64];     /* bit corrected in each step */
    uint64_t moved[64]; /* tags moved in each step */
    uint64_t twos[64];  /* processors holding two tags after each step */
    uint64_t others[64]; /* processors holding neither one nor two (0 only in state B) */
    int max_moved;    /* most tags any processor sent in one step (Lemma 4(a): <= 1) */
    int affine_ok;    /* Lemma 4(b) held after every step (when checked) */
    int lemma3_ok;    /* in every state B the two tags differed in the same bits */
    int failed_step;  /* -1, or the step where HL could not continue */
    char why[160];    /* reason when not routed */
} kc_hl_result;

/* Run HL in SIMD mode on a loaded engine (at most n steps). A permutation HL
 * cannot route is not an error: res->routed is 0 and res->why says what went
 * wrong (error state, SIMD conflict in state B, ...). */
kc_status kc_hl_run(kc_hl_engine *e, const kc_hl_opts *opts, kc_hl_result *res, kc_err *err);

/* Convenience: load dst and run. */
kc_status kc_hl_route(int n, const uint32_t *dst, const kc_hl_opts *opts, kc_hl_result *res, kc_err *err);

/* dst[x] = A x + b for an LCC permutation (rank n, n <= KC_HL_MAX_N). */
kc_status kc_hl_perm_from_lcc(const kc_lcc *c, uint32_t *dst, kc_err *err);
/* A uniformly random LC permutation (random nonsingular A, random b). */
void kc_hl_random_lc(int n, kc_rng *r, kc_bitmat *a, uint64_t *b);
/* A random permutation of the class HL routes "trivially" (seed 004,
 * conclusion): set the 2^{n-1} exchange switches of each dimension at random
 * and apply the dimensions in order, 0 first (msb_first = 0: the inverse
 * omega class, routed by LSB-first HL) or n-1 first (msb_first = 1: the
 * omega class, routed by MSB-first HL). HL stays in state A throughout.
 * KC_ENOMEM (dst then unspecified). */
kc_status kc_hl_random_dimension_order(int n, int msb_first, kc_rng *r, uint32_t *dst);
/* A uniformly random permutation of 0..2^n-1 (Fisher-Yates). */
void kc_hl_random_perm(int n, kc_rng *r, uint32_t *dst);
/* 1 if dst is a linear-complement permutation (y = Ax + b); fills A, b. */
int kc_hl_is_lc(int n, const uint32_t *dst, kc_bitmat *a, uint64_t *b);

/* ---- verification at scale ------------------------------------------------ */

typedef struct kc_hl_verify_report {
    int n, msb_first, exhaustive;
    uint64_t checked;  /* permutations routed */
    uint64_t failures; /* runs breaking Theorem 1 / Lemma 4 */
    kc_bitmat a;       /* the first failure, if any */
    uint64_t b;
    char why[160];
} kc_hl_verify_report;

/* Route LC permutations with every check on (n steps, each bit once, states
 * A/B, <= 1 tag sent per processor per step, affine map, Lemma 3): all
 * 2^n |GL(n,2)| of them when n <= 4, else `count` random ones from `seed`. */
kc_status kc_hl_verify(int n, int msb_first, uint64_t count, uint64_t seed, kc_hl_verify_report *rep,
                       const kc_progress *progress, kc_err *err);

/* ---- circuit switching (Section 3.2) ------------------------------------- */

typedef struct kc_hl_circuit {
    uint64_t paths;          /* messages (2^n) */
    uint64_t hops;           /* total path length */
    int all_minimal;         /* every path has length = Hamming distance */
    uint64_t links_used;     /* directed links on some path */
    int max_paths_per_link;  /* Lemma 5: <= 1 */
    int max_steps_per_pair;  /* distinct steps in which two neighbours talk: <= 1 */
} kc_hl_circuit;

/* From an engine run with record = 1: each message's path is its tag's
 * moves. path (optional, n + 1 entries per message, indexed by source) gets
 * the processors visited, padded with the destination; len (optional) the
 * hop counts. */
kc_status kc_hl_circuit_check(const kc_hl_engine *e, kc_hl_circuit *out, uint32_t *path, uint8_t *len,
                              kc_err *err);

/* ---- store-and-forward e-cube routing, for comparison -------------------- */

typedef struct kc_hl_ecube {
    int steps;           /* until the last message arrives */
    int max_queue;       /* longest queue at one output link */
    uint64_t max_links_busy; /* most directed links used in one step */
    uint64_t hops;
} kc_hl_ecube;

/* Every message takes the e-cube path (dimension 0 first); each directed link
 * forwards one message per step, the others wait in a FIFO queue at its
 * tail. n <= 20. */
kc_status kc_hl_ecube_simulate(int n, const uint32_t *dst, kc_hl_ecube *out, kc_err *err);

#endif
