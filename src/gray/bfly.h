/* Private: the butterfly emulation's plan (a list of data motions on an
 * affine placement) shared by the planner and the replay. */
#ifndef KCI_BFLY_H
#define KCI_BFLY_H

#include <stddef.h>
#include <stdint.h>

#include "kcube/butterfly.h"

/* A transformation of machine addresses (memory << n | processor). */
enum { KCI_XF_ROWOP, KCI_XF_SWAP, KCI_XF_DIAG, KCI_XF_SECT };
typedef struct kci_xform {
    uint8_t kind;
    uint8_t r, r2, r3; /* ROWOP: bit r; SWAP: bits r, r2; DIAG: dims r (high), r2, memory bit r3; SECT: r = n */
    uint8_t e;         /* ROWOP constant */
    uint64_t mask;     /* ROWOP: a_r ^= parity(a & mask) ^ e; SECT: the memory slot bits exchanged with the
                          processor bits (the u-th lowest with processor bit u) */
} kci_xform;

uint64_t kci_xf_apply(const kci_xform *t, uint64_t a);

/* A2A: the all-to-all personalized exchange in a 2-cube (two exchanges of
 * processor dims with local bits, t then t2) done in two steps that each use
 * both dims, the diagonal element forwarded (Figures 4-5). */
/* SECT: N-sectioning (Section 6, r = n): all processor bits exchanged with
 * n local bits at once by the all-to-all in the n-cube (kci_a2a_table). */
enum { KCI_OP_REMAP, KCI_OP_BFLY, KCI_OP_XC, KCI_OP_REPL, KCI_OP_A2A, KCI_OP_SECT };
typedef struct kci_bop {
    uint8_t kind;
    int8_t j;       /* row-index bit of the stage (BFLY, XC, REPL) */
    uint8_t keep;   /* XC: 1 = keep the partner's output; REPL: 1 = keep the output of the row received on dim k */
    uint8_t conv;   /* part of the output conversion */
    kci_xform t, t2; /* REMAP: t; A2A: t then t2 */
    uint64_t mm;    /* BFLY, XC: slot mask from an element to its partner */
    uint64_t pm;    /* XC: processor mask (hops in ascending dimension); REPL: dims k and k2 */
    uint64_t foot;  /* slot bits a piece of this op spans */
    uint32_t dims;  /* dimensions used by one piece (0: local) */
    uint8_t relabel; /* a local motion: only renames slots (no data moves, no piece) */
    uint8_t split;   /* pieces are split into two processor classes (half pieces) */
    uint64_t hmask;  /* split: the class of processor x is parity(x & hmask) */
    uint8_t picked;  /* split exchange: hmask settled by the scheduler */
    /* where the op finds its slots: logical machine address a (memory << n |
     * processor) is held in physical memory slot rc xor (xor of rcol[b] over
     * the bits b of a) of its processor */
    uint32_t rcol[KC_BFLY_MAX_P], rc;
} kci_bop;

typedef struct kci_plan {
    int n, p;
    uint64_t col[64], c; /* machine(i) = xor of col[b] over the bits b of i, xor c */
    kci_bop *ops;
    size_t nops, cap;
    uint64_t block; /* slot bits of one pipelined block */
    uint32_t rcol[KC_BFLY_MAX_P], rc; /* the slot renaming in force (see kci_bop) */
    int mu[64];     /* machine bits of the block's local memory bits */
    int has_xc, has_sect;
    int split; /* exchanges over one dimension may be split into processor halves */
    int out;   /* kc_bfly_out: the output encoding the moves into the processor field aim at */
    int paper_form; /* complete each conversion exchange into the paper's swap (kc_bfly_motions) */
} kci_plan;

/* N-sectioning's exchange (bfly_sect.c): the all-to-all personalized
 * exchange in an r-cube, all-port, one element per link and step, in
 * 2^(r-1) steps, the same for every processor. delta[t * r + k]: the
 * offset (destination xor source) whose hop over dimension k is at step
 * t; time[d * r + k]: that step, for each bit k of d. */
typedef struct kci_a2a_table {
    int r;
    uint32_t *delta, *time;
} kci_a2a_table;

kc_status kci_a2a_table_build(kci_a2a_table *t, int r, kc_err *err);
void kci_a2a_table_free(kci_a2a_table *t);

/* Check o's sizes and method (kc_bfly_run's input errors). */
kc_status kci_bfly_validate(const kc_bfly_opts *o, kc_err *err);

/* Build the plan for o (validated). paper_form: see kci_plan. */
kc_status kci_bfly_plan(const kc_bfly_opts *o, int paper_form, kci_plan *pl, kc_err *err);
void kci_plan_free(kci_plan *pl);

/* The processor field's encoding under the plan's current map; bit_of
 * (or NULL): the row bit each processor bit holds when binary, else -1. */
kc_bfly_enc kci_proc_encoding(const kci_plan *pl, int *bit_of);

/* Schedule and replay the plan; see kc_bfly_run. */
kc_status kci_bfly_replay(const kci_plan *pl, double _Complex *data, kc_bfly_result *res, kc_err *err);

#endif
