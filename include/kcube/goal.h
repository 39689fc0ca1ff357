/* kcube/goal.h - application schedules in GOAL, the text format of LogGOPSim.
 *
 * A schedule is a set of ranks, each with operations (send, recv, calc) and
 * dependency edges between its own operations (`requires`: starts after the
 * other ends; `irequires`: starts after the other starts). Phases are named by
 * `// kcube-phase NAME` comment lines, which LogGOPSim reads as comments.
 * Format and rules: docs/goal.md; seed 000
 * Section 6.2 (the parallel FFT generator, kc_goal_gen_fft).
 *
 * Reading: strict and bounded (same limits as kcube/reader.h), every error
 * names its line (and column for bad bytes and tokens). Validation
 * (kc_goal_validate): peers in range, acyclic dependencies, MPI-style matching
 * (FIFO per (source, tag) in file order; wildcards matched at run time), no
 * deadlock across ranks through dependencies and matching. Generators write into a kc_goal; the
 * writer prints it back in the same format, num_ranks included.
 * Costs: reading O(bytes + ops log ops); validation O((ops + deps) log ops)
 * plus O(queue length) per wildcard or tag-specific search; the timing model
 * O((ops + deps) log ops). Library code: never prints. */
#ifndef KCUBE_GOAL_H
#define KCUBE_GOAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kcube/error.h"
#include "kcube/lcc.h"
#include "kcube/names.h"
#include "kcube/reader.h"

typedef enum kc_goal_kind {
    KC_GOAL_SEND,
    KC_GOAL_RECV,
    KC_GOAL_CALC
} kc_goal_kind;
extern const kc_names kc_goal_kind_names; /* "send", "recv", "calc" */

#define KC_GOAL_ANY (-1) /* recv: any source / any tag */
#define KC_GOAL_NONE ((size_t)-1)

typedef struct kc_goal_op {
    uint64_t amount;  /* bytes (send, recv) or nanoseconds (calc) */
    int64_t peer;     /* send: destination; recv: source or KC_GOAL_ANY; calc: 0 */
    int64_t tag;      /* recv may use KC_GOAL_ANY; calc: 0 */
    uint32_t rank;
    uint32_t phase;   /* index into kc_goal.phase; 0 is the unnamed phase "" */
    size_t label;     /* offset of the label in kc_goal.text, or KC_GOAL_NONE */
    long line;        /* source line, 0 for generated operations */
    uint8_t kind;     /* kc_goal_kind */
    uint8_t cpu, nic; /* the `cpu N` / `nic N` suffixes (0 when absent); only kcube/loggops.h uses them */
} kc_goal_op;

typedef struct kc_goal_dep {
    size_t op;     /* this operation ... */
    size_t on;     /* ... waits for this one (same rank) */
    int start;     /* 1: irequires (on's start), 0: requires (on's end) */
    long line;
} kc_goal_dep;

typedef struct kc_goal {
    uint32_t num_ranks;
    long num_ranks_line; /* where num_ranks was read, 0 if built */
    kc_goal_op *op;
    size_t nops, cap_ops;
    kc_goal_dep *dep;
    size_t ndeps, cap_deps;
    size_t *phase; /* offsets of phase names in text; phase[0] is "" */
    size_t nphases, cap_phases;
    uint32_t cur_phase; /* phase given to operations added next */
    char *text;         /* label and phase names, NUL-terminated */
    size_t text_len, text_cap;
    int warnings;       /* number of warnings (cpu/nic suffixes ignored) */
    char warning[320];  /* the first warning */
} kc_goal;

/* ---- Building ---- */
/* An empty schedule of num_ranks ranks. KC_ENOMEM, and then g holds
 * nothing to free. */
kc_status kc_goal_init(kc_goal *g, uint32_t num_ranks, kc_err *err);
void kc_goal_free(kc_goal *g);
/* Append an operation of `rank` in the current phase; *index (may be NULL)
 * receives its index. label may be NULL. No range checks here: the
 * validator does them (so a reader can report them with their lines). */
kc_status kc_goal_add(kc_goal *g, kc_goal_kind kind, uint32_t rank, int64_t peer, int64_t tag, uint64_t amount,
                      const char *label, long line, size_t *index, kc_err *err);
kc_status kc_goal_depend(kc_goal *g, size_t op, size_t on, int start, long line, kc_err *err);
/* Make `name` the current phase (created on first use). */
kc_status kc_goal_set_phase(kc_goal *g, const char *name, kc_err *err);
static inline const char *kc_goal_phase_name(const kc_goal *g, uint32_t phase) { return g->text + g->phase[phase]; }
static inline const char *kc_goal_label(const kc_goal *g, size_t op)
{
    return g->op[op].label == KC_GOAL_NONE ? NULL : g->text + g->op[op].label;
}
/* Does g have a receive from any source or with any tag (matched at run
 * time, docs/goal.md "Wildcards")? O(ops). */
static inline int kc_goal_has_wildcards(const kc_goal *g)
{
    for (size_t i = 0; i < g->nops; i++)
        if (g->op[i].kind == KC_GOAL_RECV && (g->op[i].peer == KC_GOAL_ANY || g->op[i].tag == KC_GOAL_ANY))
            return 1;
    return 0;
}
/* Move rank r to rank to_rank[r] (peers follow): a schedule written for
 * virtual processors run under a mapping (to_rank = to_physical). to_rank
 * must be a permutation of 0..num_ranks-1 (checked). */
kc_status kc_goal_remap(kc_goal *g, const uint32_t *to_rank, kc_err *err);

/* ---- Reading (param "schedule" in every error) ----
 * Grammar and rules: docs/goal.md. max_ranks bounds num_ranks before any
 * per-rank memory is taken (0: KC_GOAL_MAX_RANKS). Labels are local to their
 * rank block and may be used before they are defined in it; a rank block
 * starts in the unnamed phase. On error g is freed. */
#define KC_GOAL_MAX_RANKS ((uint32_t)1 << 24)
kc_status kc_goal_read_file(kc_goal *g, const char *path, const kc_reader_limits *limits, uint32_t max_ranks,
                            kc_err *err);
kc_status kc_goal_read_mem(kc_goal *g, const void *data, size_t len, const char *name,
                           const kc_reader_limits *limits, uint32_t max_ranks, kc_err *err);

/* ---- Writing ---- */
/* Rank blocks in rank order, operations in index order, labels as read (or
 * l1, l2, ... for a rank with an unlabelled operation), phase comments where
 * the phase changes. KC_EIO on a write error. */
kc_status kc_goal_write(const kc_goal *g, FILE *out, kc_err *err);

/* ---- Validation ---- */
/* The matching: recv_of[send op] = its recv, send_of[recv op] = its send;
 * KC_GOAL_NONE for other operations.
 *
 * Without wildcard receives (run_time == 0) it is the run's matching: FIFO
 * per (source, tag) in file order. With wildcards, which send a wildcard
 * receive takes is decided at run time (kc_loggops_run matches as
 * LogGOPSim does), so for the run_time receives named below the arrays
 * hold only a hint: the file-order matching (receives in op order, or, when
 * that leaves one unmatched, those naming source and tag first, then one
 * wildcard, then both), KC_GOAL_NONE where that finds no send. A model that
 * needs the real matching takes it from the run. */
typedef struct kc_goal_match {
    size_t *send_of;
    size_t *recv_of;
    size_t messages; /* sends (each is received once in a run that completes) */
    size_t run_time; /* receives matched at run time: wildcards, and receives naming a source and tag
                        whose sends a wildcard of their rank could also take; 0 without wildcards */
    int hint_ok;     /* 1: send_of/recv_of pair every message and close no deadlock across ranks (always
                        when run_time is 0), so a static replay can use them; 0: the hint is incomplete
                        or cyclic */
} kc_goal_match;
void kc_goal_match_free(kc_goal_match *m);

/* Check g for a machine of `nodes` nodes (0: do not check the node count)
 * and fill m (may be NULL). KC_EINVAL with the line on: num_ranks > nodes,
 * an operation's rank or peer out of range, a negative send peer or tag,
 * a dependency cycle, a send or recv with no partner, a size mismatch, a
 * deadlock across ranks.
 *
 * With wildcard receives only what no run can do is refused (docs/goal.md,
 * "Wildcards"): per receiver, as many receives as sends; no more receives
 * naming a (source, tag), a source or a tag than sends that carry it; a
 * class of sends no wildcard could take received by its own receives.
 * Sizes and deadlocks are checked on those forced receives' matches only;
 * the rest is the run's (kc_loggops_run reports a run-time deadlock or an
 * unmatched message). */
kc_status kc_goal_validate(const kc_goal *g, uint64_t nodes, kc_goal_match *m, kc_err *err);

/* ---- Generators (append to g; the new operations of each rank wait for
 * that rank's operations that nothing waited for yet) ---- */
/* Seed 000 Section 6.2's parallel FFT on the n-cube, m = 2^(n+2d) points
 * of 16 bytes (d >= 1, n + 2d <= 40): phases "bit-reverse", "compute"
 * (local stages, 2^(2d-1) butterflies each), "neighbour" (n exchanges of
 * whole blocks, then 2^(2d) half butterflies). g must be new with
 * num_ranks 2^n. Times in ns: butterfly_ns (5120), half_ns (4470). */
kc_status kc_goal_gen_fft(kc_goal *g, int n, int d, uint64_t butterfly_ns, uint64_t half_ns, kc_err *err);
/* Part of that schedule: the bit-reverse alone, the rest alone (local
 * stages and exchanges, as after a barrier), or both (kc_goal_gen_fft).
 * Replaying the parts one after the other is the programme with a barrier
 * after the bit-reverse, the reading under which seed 000's Table 2 figures
 * are reproduced (docs/appsim.md). */
enum { KC_GOAL_FFT_BITREV = 1, KC_GOAL_FFT_REST = 2, KC_GOAL_FFT_ALL = 3 };
kc_status kc_goal_gen_fft_parts(kc_goal *g, int n, int d, uint64_t butterfly_ns, uint64_t half_ns, unsigned parts,
                                kc_err *err);

typedef enum kc_goal_cx {
    KC_GOAL_CX_PAIRWISE, /* 2^n - 1 steps, step j exchanges one block with x ^ j */
    KC_GOAL_CX_RECURSIVE /* n steps, step i exchanges 2^(n-1) blocks with x ^ 2^i */
} kc_goal_cx;
extern const kc_names kc_goal_cx_names; /* "pairwise", "recursive" */

/* A complete exchange of `block` bytes between every pair of the 2^n ranks
 * (g->num_ranks must be 2^n), in phase `phase`, tags tag0, tag0 + 1, ... */
kc_status kc_goal_gen_complete_exchange(kc_goal *g, int n, uint64_t block, kc_goal_cx method, const char *phase,
                                        int64_t tag0, kc_err *err);
/* The pipelined CC-cube complete exchange of seed 003 Section 5 with degree
 * q (kcube/calmant_alltoall.h): each rank sends N = 2^(n-1) block bytes per
 * dimension, cut into q packets (N mod q of them one byte longer, so
 * 1 <= q <= N); in iteration t = 0 .. n+q-2 rank x exchanges packet t-k
 * with x ^ 2^k for every dimension k in max(0, t-q+1) .. min(n-1, t), tag
 * tag0 + t. Every operation of iteration t waits for all of the rank's
 * operations of iteration t-1 (the per-rank form of the paper's barrier:
 * packet t-k may carry blocks that arrived in iteration t-1). Ranks are
 * CC-cube processes: kc_goal_remap places them (e.g. the standard
 * embedding). KC_EINVAL ("degree") for q outside 1..N, KC_ERANGE ("block",
 * "tag") when N or the tags overflow. */
kc_status kc_goal_gen_complete_exchange_pipelined(kc_goal *g, int n, uint64_t block, int q, const char *phase,
                                                  int64_t tag0, kc_err *err);
/* One phase of an LCC: every message (src != dst) of c carries `bytes`. */
kc_status kc_goal_gen_lcc(kc_goal *g, const kc_lcc *c, uint64_t bytes, const char *phase, int64_t tag,
                          kc_err *err);

#endif
