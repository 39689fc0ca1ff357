/* Scheduling and replaying a butterfly plan with real data on the step
 * engine (kcube/butterfly.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bfly.h"
#include "core/bits.h"
#include "core/grow.h"

/* ---- renaming of slots -------------------------------------------------- */

/* Local motions only rename slots (kci_bop.rcol): an op finds logical slot
 * s of processor x in physical slot slot_part(s) xor fx[x]. */
typedef struct relab {
    const kci_bop *op;
    uint64_t *fx; /* [N] */
    int n;
} relab;

static void relab_use(relab *r, const kci_bop *op, uint64_t N)
{
    if (r->op == op)
        return;
    r->op = op;
    r->fx[0] = 0;
    for (uint64_t x = 1; x < N; x++)
        r->fx[x] = r->fx[x & (x - 1)] ^ op->rcol[kci_ctz64(x)];
}

static uint64_t slot_part(const relab *r, uint64_t s)
{
    uint64_t v = r->op->rc;
    for (; s; s &= s - 1)
        v ^= r->op->rcol[r->n + kci_ctz64(s)];
    return v;
}

/* ---- pieces and list scheduling ----------------------------------------- */

/* The processor class of a split op (kci_bop.hmask). */
static int cls_of(const kci_bop *op, uint64_t x)
{
    return kci_parity64(x & op->hmask);
}

enum { SUB_COMP = 0xffff };

typedef struct piece {
    uint32_t op, slot;
    uint32_t step;
    uint16_t sub; /* XC: hop number, or SUB_COMP; A2A: phase */
    uint8_t comm;
    int8_t cls;   /* -1: every processor; 0/1: only those with bit dim-1 equal to it (a half piece) */
} piece;

typedef struct sched {
    kci_plan *pl; /* the classes of split exchanges are settled while scheduling */
    uint64_t N, S;
    piece *pc;
    size_t np, cap;
    uint32_t *mem_last;   /* per (physical slot, processor): step of the last piece touching it */
    uint32_t *cb_last[2]; /* per (logical slot, processor) of the copy buffers */
    relab rl;
    uint64_t dmask[64];   /* per dimension: the class mask its split exchanges use (lanes must agree) */
    uint64_t dset;        /* dimensions whose class mask is settled */
    uint32_t **uf;        /* per lane (dimension d, half c: 2d + c): union-find over steps, uf[l][t] = t when free */
    uint64_t tcap;
    uint32_t maxstep;
    uint32_t min_step;    /* a lower bound for the next piece (the steps of an N-sectioning in order) */
} sched;

static kc_status grow_steps(sched *s, uint64_t need, kc_err *err)
{
    uint64_t cap = s->tcap ? s->tcap : 1024;
    while (cap <= need)
        cap *= 2;
    for (int d = 0; d < 2 * s->pl->n; d++) {
        if (KCI_RESIZE(s->uf[d], (size_t)cap))
            return kc_fail(err, KC_ENOMEM, "out of memory (schedule)");
        for (uint64_t t = s->tcap; t < cap; t++)
            s->uf[d][t] = (uint32_t)t;
    }
    s->tcap = cap;
    return KC_OK;
}

static uint32_t uf_find(uint32_t *u, uint32_t t)
{
    uint32_t r = t;
    while (u[r] != r)
        r = u[r];
    while (u[t] != r) {
        uint32_t nx = u[t];
        u[t] = r;
        t = nx;
    }
    return r;
}

/* Earliest step >= lb where every lane is free. A lane is one dimension's
 * links from the processors whose bit below it is 0 (or 1): half pieces
 * of the same dimension share a step when they use different halves. */
static kc_status find_step(sched *s, uint64_t lanes, uint32_t lb, uint32_t *out, kc_err *err)
{
    uint32_t t = lb;
    for (;;) {
        if (t + 2 >= s->tcap) {
            kc_status st = grow_steps(s, (uint64_t)t + 2, err);
            if (st)
                return st;
        }
        int moved = 0;
        for (uint64_t m = lanes; m; m &= m - 1) {
            uint32_t f = uf_find(s->uf[kci_ctz64(m)], t);
            if (f != t) {
                t = f;
                moved = 1;
            }
        }
        if (!moved)
            break;
    }
    for (uint64_t m = lanes; m; m &= m - 1)
        s->uf[kci_ctz64(m)][t] = t + 1;
    *out = t;
    return KC_OK;
}

static void visit(uint32_t *a, uint64_t i, int store, uint32_t step, uint32_t *mx)
{
    if (store)
        a[i] = step;
    else if (a[i] > *mx)
        *mx = a[i];
}

/* The logical memory slots a piece works on (1, 2 or 4); 0 for copy hops. */
static int piece_slots(const kci_bop *op, const piece *pc, uint64_t *sl)
{
    uint64_t lowf = op->foot & (0 - op->foot);
    sl[0] = pc->slot;
    switch (op->kind) {
    case KCI_OP_REMAP: sl[1] = pc->slot | op->foot; return op->foot ? 2 : 1;
    case KCI_OP_BFLY: sl[1] = pc->slot ^ op->mm; return 2;
    case KCI_OP_REPL: return 1;
    case KCI_OP_A2A:
        sl[1] = pc->slot | lowf;
        sl[2] = pc->slot | (op->foot ^ lowf);
        sl[3] = pc->slot | op->foot;
        return 4;
    default: return pc->sub == SUB_COMP || pc->sub == 0 ? 1 : 0; /* XC: memory read by hop 0 and the compute */
    }
}

/* An N-sectioning's step: the first and the last of the block's steps
 * touch every slot of the block (the elements in flight in between are
 * the exchange's own). */
static uint32_t sect_touch(sched *s, const kci_bop *op, const piece *pc, int store, uint32_t step)
{
    uint32_t mx = 0, last = (uint32_t)(s->N / 2 - 1);
    if (pc->sub != 0 && pc->sub != last)
        return 0;
    uint64_t sub = 0;
    do {
        uint64_t part = slot_part(&s->rl, pc->slot | sub);
        for (uint64_t x = 0; x < s->N; x++)
            visit(s->mem_last, (part ^ s->rl.fx[x]) * s->N + x, store, step, &mx);
        sub = (sub - op->foot) & op->foot;
    } while (sub);
    return mx;
}

/* The latest step among everything the piece touches (store = 0), or mark
 * it all with `step` (store = 1). Exact per processor, so a piece waits
 * only for what its own processors hold. */
static uint32_t touch(sched *s, const piece *pc, int store, uint32_t step)
{
    const kci_bop *op = &s->pl->ops[pc->op];
    uint64_t N = s->N, sl[4];
    uint32_t mx = 0;
    relab_use(&s->rl, op, N);
    if (op->kind == KCI_OP_SECT) /* the first step reads the whole block, the last one writes it */
        return sect_touch(s, op, pc, store, step);
    int ns = piece_slots(op, pc, sl);
    for (int a = 0; a < ns; a++) {
        uint64_t part = slot_part(&s->rl, sl[a]);
        for (uint64_t x = 0; x < N; x++)
            if (pc->cls < 0 || cls_of(op, x) == pc->cls)
                visit(s->mem_last, (part ^ s->rl.fx[x]) * N + x, store, step, &mx);
    }
    if (op->kind == KCI_OP_XC) {
        int hops = kci_popcount64(op->pm);
        uint64_t base = pc->slot * N;
        if (pc->sub == SUB_COMP)
            base = (pc->slot ^ op->mm) * N;
        int bufs[2] = {pc->sub == SUB_COMP ? (hops - 1) & 1 : pc->sub & 1, pc->sub == SUB_COMP || !pc->sub ? -1 : (pc->sub - 1) & 1};
        for (int i = 0; i < 2; i++)
            for (uint64_t x = 0; bufs[i] >= 0 && x < N; x++)
                visit(s->cb_last[bufs[i]], base + x, store, step, &mx);
    }
    return mx;
}

/* Append a piece and schedule it as early as its data and dimensions allow. */
static kc_status add_piece(sched *s, piece p, uint32_t dims, kc_err *err)
{
    if (KCI_RESERVE(s->pc, s->cap, s->np + 1, 256))
        return kc_fail(err, KC_ENOMEM, "out of memory (butterfly schedule)");
    p.comm = dims != 0;
    uint32_t lb = touch(s, &p, 0, 0) + (dims ? 1 : 0);
    if (lb < s->min_step)
        lb = s->min_step;
    p.step = lb;
    uint64_t lanes = 0;
    for (uint32_t m = dims; m; m &= m - 1)
        lanes |= (p.cls < 0 ? 3ULL : 1ULL << p.cls) << (2 * kci_ctz32(m));
    if (dims) {
        kc_status st = find_step(s, lanes, lb, &p.step, err);
        if (st)
            return st;
    }
    if (p.step > s->maxstep)
        s->maxstep = p.step;
    touch(s, &p, 1, p.step);
    s->pc[s->np++] = p;
    return KC_OK;
}

/* The step at which logical slot sl of every processor is ready for an
 * exchange over dimension d: the later of the two ends of its link. */
static void ready_of(sched *s, const kci_bop *op, uint64_t sl, uint32_t *r)
{
    uint64_t N = s->N, part = slot_part(&s->rl, sl), d = op->dims;
    for (uint64_t x = 0; x < N; x++)
        r[x] = s->mem_last[(part ^ s->rl.fx[x]) * N + x];
    for (uint64_t x = 0; x < N; x++)
        if (x < (x ^ d) && r[x ^ d] != r[x])
            r[x] = r[x ^ d] = r[x] > r[x ^ d] ? r[x] : r[x ^ d];
}

/* Misfits of class mask m: processors where the slot that class sends
 * first (class 0: s0, class 1: s1) is ready strictly later than the other. */
static uint64_t misfits(uint64_t N, uint64_t m, const uint32_t *r0, const uint32_t *r1)
{
    uint64_t bad = 0;
    for (uint64_t x = 0; x < N; x++)
        bad += kci_parity64(x & m) ? r1[x] > r0[x] : r0[x] > r1[x];
    return bad;
}

/* Give split exchange oi and the butterflies after it the class mask m,
 * for every block, and make it the mask of its dimension. */
static void set_class(sched *s, uint32_t oi, uint64_t m)
{
    s->pl->ops[oi].picked = 1;
    s->dmask[kci_ctz32(s->pl->ops[oi].dims)] = m;
    s->dset |= s->pl->ops[oi].dims;
    for (uint32_t i = oi; i < s->pl->nops; i++) {
        kci_bop *q = &s->pl->ops[i];
        if (i > oi && (!q->split || q->kind != KCI_OP_BFLY))
            break;
        q->hmask = m;
    }
}

/* Settle the classes of a split exchange on its first block: keep the
 * planned mask (kci_bop.hmask) unless the data as scheduled so far say
 * another linear class fits better (a free reordering for the output
 * encoding, or a renaming, can change which slot of a processor is ready
 * first). A dimension keeps one mask, so that its two lanes stay disjoint.
 * O(N n). */
static kc_status pick_class(sched *s, uint32_t oi, const uint64_t *list, int nl, kc_err *err)
{
    kci_bop *op = &s->pl->ops[oi];
    uint64_t N = s->N, d = op->dims, best = op->hmask, fit = 0;
    if (s->dset & d) {
        set_class(s, oi, s->dmask[kci_ctz64(d)]);
        return KC_OK;
    }
    uint32_t *r = nl == 2 ? malloc(2 * N * sizeof *r) : NULL;
    if (nl == 2 && !r)
        return kc_fail(err, KC_ENOMEM, "out of memory (schedule)");
    if (r) {
        relab_use(&s->rl, op, N);
        ready_of(s, op, list[0], r);
        ready_of(s, op, list[1], r + N);
        for (int b = 0; b < s->pl->n; b++) /* class 1 where slot s1 is ready first, read on the unit vectors */
            if ((1ULL << b) != d && r[N + (1ULL << b)] < r[1ULL << b])
                fit |= 1ULL << b;
        if (misfits(N, fit, r, r + N) < misfits(N, best, r, r + N))
            best = fit;
        free(r);
    }
    set_class(s, oi, best);
    return KC_OK;
}

/* N-sectioning on one block: N/2 pieces, each one step of the all-to-all
 * on every link, in order. */
static kc_status sect_pieces(sched *s, uint32_t oi, uint64_t base, kc_err *err)
{
    kc_status st = KC_OK;
    for (uint32_t t = 0; !st && t < s->N / 2; t++) {
        st = add_piece(s, (piece){.op = oi, .slot = (uint32_t)base, .sub = (uint16_t)t, .cls = -1}, s->pl->ops[oi].dims,
                       err);
        s->min_step = st ? 0 : s->pc[s->np - 1].step + 1;
    }
    s->min_step = 0;
    return st;
}

/* The pieces of op `oi` within the slots of one block (base | sub-slots of
 * the block mask). */
static kc_status op_pieces(sched *s, uint32_t oi, uint64_t base, uint64_t bmask, kc_err *err)
{
    const kci_bop *op = &s->pl->ops[oi];
    uint64_t lowf = op->foot & (0 - op->foot);
    kc_status st = KC_OK;
    if (op->relabel)
        return KC_OK;
    if (op->kind == KCI_OP_SECT)
        return sect_pieces(s, oi, base, err);
    /* enumerate the slots of the block: sub runs over the subsets of bmask */
    uint64_t sub = 0;
    if (op->kind == KCI_OP_XC) {
        int hops = kci_popcount64(op->pm);
        do {
            uint32_t dm = (uint32_t)op->pm;
            for (int h = 0; !st && h < hops; h++, dm &= dm - 1)
                st = add_piece(s, (piece){.op = oi, .slot = (uint32_t)(base | sub), .sub = (uint16_t)h, .cls = -1}, dm & (0 - dm),
                               err);
            sub = (sub - bmask) & bmask;
        } while (!st && sub);
        if (st) /* the loop below would run once and overwrite it */
            return st;
        do {
            st = add_piece(s, (piece){.op = oi, .slot = (uint32_t)(base | sub), .sub = SUB_COMP, .cls = -1}, 0, err);
            sub = (sub - bmask) & bmask;
        } while (!st && sub);
        return st;
    }
    int n = s->pl->n;
    /* an exchange controlled by memory bits only leaves some slots alone */
    int slot_ctl = op->kind == KCI_OP_REMAP && op->t.kind == KCI_XF_ROWOP && op->t.r < n &&
                   !(op->t.mask & ((1ULL << n) - 1));
    /* half pieces: an exchange of single slots over one dimension d >= 1,
     * split by processor bit d-1, half 0 of each slot paired with half 1 of
     * the next so that both halves of a step serve different successors */
    int split = op->split;
    uint64_t list[64];
    int nl = 0;
    do {
        uint64_t sl = base | sub;
        int skip = (slot_ctl && !((kci_parity64(sl & (op->t.mask >> n)) ^ op->t.e) & 1)) || (sl & lowf);
        if (op->kind == KCI_OP_A2A)
            skip = (sl & op->foot) != 0;
        if (!skip && split && nl < 64) {
            list[nl++] = sl; /* paired below */
        } else if (!skip && split) {
            for (int8_t c = 0; !st && c < 2; c++)
                st = add_piece(s, (piece){.op = oi, .slot = (uint32_t)sl, .cls = c}, op->dims, err);
        } else if (!skip) {
            for (uint16_t ph = 0; !st && ph < (op->kind == KCI_OP_A2A ? 2 : 1); ph++)
                st = add_piece(s, (piece){.op = oi, .slot = (uint32_t)sl, .sub = ph, .cls = -1}, op->dims, err);
        }
        sub = (sub - bmask) & bmask;
    } while (!st && sub);
    for (int i = 0; !st && op->kind == KCI_OP_BFLY && i < nl; i++)
        for (int8_t c = 0; !st && c < 2; c++)
            st = add_piece(s, (piece){.op = oi, .slot = (uint32_t)list[i], .cls = c}, 0, err);
    if (!st && split && op->kind != KCI_OP_BFLY && !op->picked)
        st = pick_class(s, oi, list, nl, err);
    for (int i = 0; !st && op->kind != KCI_OP_BFLY && i < nl; i++) {
        int8_t c = 0;
        st = add_piece(s, (piece){.op = oi, .slot = (uint32_t)list[i], .cls = c}, op->dims, err);
        if (!st)
            st = add_piece(s, (piece){.op = oi, .slot = (uint32_t)list[(i + 1) % nl], .cls = (int8_t)(1 - c)}, op->dims,
                           err);
    }
    return st;
}

/* Op e uses the same two dimensions at once as an earlier op of the run
 * i..e-1 (consecutive allocation: the two top processor dimensions are
 * used twice, Section 3.2). It then starts a run of its own, so the first
 * use of every block fills the first steps of those dimensions and the
 * second uses follow without leaving holes. */
static int second_use(const kci_plan *pl, size_t i, size_t e)
{
    uint32_t d = pl->ops[e].dims;
    if (kci_popcount32(d) != 2)
        return 0;
    for (size_t k = i; k < e; k++)
        if (pl->ops[k].dims == d)
            return 1;
    return 0;
}

/* Emit every op: runs of ops that stay inside the block mask are emitted
 * block by block (so later blocks fill the pipeline), others op by op over
 * the whole memory. */
static kc_status build_schedule(sched *s, kc_err *err)
{
    const kci_plan *pl = s->pl;
    uint64_t all = s->S - 1, bm = pl->block & all;
    size_t i = 0;
    kc_status st = KC_OK;
    /* the output conversion, if any, is a run of its own after the emulation */
    while (!st && i < pl->nops) {
        if ((pl->ops[i].foot & ~bm) != 0) {
            st = op_pieces(s, (uint32_t)i, 0, all, err);
            i++;
            continue;
        }
        size_t e = i;
        while (e < pl->nops && (pl->ops[e].foot & ~bm) == 0 && pl->ops[e].conv == pl->ops[i].conv &&
               !second_use(pl, i, e))
            e++;
        uint64_t outer = all & ~bm, base = 0;
        do {
            for (size_t k = i; !st && k < e; k++)
                st = op_pieces(s, (uint32_t)k, base, bm, err);
            base = (base - outer) & outer;
        } while (!st && base);
        i = e;
    }
    return st;
}

/* ---- replay ------------------------------------------------------------- */

typedef struct machine {
    const kci_plan *pl;
    uint64_t N, S;
    double _Complex *val;    /* [s * N + x], NULL: row indices only */
    uint32_t *tag;
    uint8_t *stg;
    double _Complex *cval[2];
    uint32_t *ctag[2];
    uint8_t *cstg[2];
    double _Complex *tval;   /* scratch for one piece: 4N */
    uint32_t *ttag;
    uint8_t *tstg;
    double _Complex *tw_lo, *tw_hi;
    int tw_bits;
    relab rl;
    kc_stepnet net;
    kc_err *err;
    kci_a2a_table a2a;       /* N-sectioning: the all-to-all's steps */
    double _Complex *sval;   /* N-sectioning: one block, N * N */
    uint32_t *stag;
    uint8_t *sstg;
} machine;

static double _Complex twiddle(const machine *m, uint64_t e)
{
    return m->tw_hi[e >> m->tw_bits] * m->tw_lo[e & ((1ULL << m->tw_bits) - 1)];
}

/* DIF butterfly of the pair (u upper, l lower) at row bit j. */
static void dif(const machine *m, int j, uint32_t utag, double _Complex *u, double _Complex *l)
{
    uint64_t k = utag & ((1ULL << j) - 1);
    double _Complex a = *u, b = *l;
    *u = a + b;
    *l = (a - b) * twiddle(m, k << (m->pl->p - 1 - j));
}

static kc_status bad(machine *m, const char *what, uint64_t x, uint64_t s)
{
    return kc_fail(m->err, KC_EINTERNAL, "butterfly replay: %s at processor %llu slot %llu", what,
                   (unsigned long long)x, (unsigned long long)s);
}

static int pair_ok(const machine *m, int j, uint32_t t1, uint8_t s1, uint32_t t2, uint8_t s2)
{
    int want = m->pl->p - 1 - j;
    return (t1 ^ t2) == (1u << j) && s1 == want && s2 == want;
}

/* Scratch slot `dst` (0..4N) takes the element at `from`. */
static void to_scratch(machine *m, uint64_t dst, uint64_t from)
{
    if (m->val)
        m->tval[dst] = m->val[from];
    m->ttag[dst] = m->tag[from];
    m->tstg[dst] = m->stg[from];
}

/* Physical index of logical slot s in processor x for the op in m->rl. */
static uint64_t at(const machine *m, uint64_t part, uint64_t x)
{
    return (part ^ m->rl.fx[x]) * m->N + x;
}

/* The logical slots sl[0..count) of every processor take scratch blocks
 * 0..count (N elements each, by processor). */
static void from_scratch(machine *m, const uint64_t *sl, int count, int cls, const kci_bop *op)
{
    for (int a = 0; a < count; a++) {
        uint64_t part = slot_part(&m->rl, sl[a]);
        for (uint64_t x = 0; x < m->N; x++) {
            if (cls >= 0 && cls_of(op, x) != cls)
                continue; /* a half piece leaves the other half alone */
            uint64_t i = at(m, part, x), t = (uint64_t)a * m->N + x;
            if (m->val)
                m->val[i] = m->tval[t];
            m->tag[i] = m->ttag[t];
            m->stg[i] = m->tstg[t];
        }
    }
}

/* Exchanges (REMAP) and the all-to-all (A2A): every element of the piece's
 * slots goes to its new logical address; sends are reported per hop. For
 * the all-to-all, phase 0 sends the elements crossing only dim k1 and
 * starts the diagonal ones over k2, phase 1 sends those crossing only k2,
 * forwards the diagonal ones over k1 and moves the data. */
static kc_status run_move(machine *m, const kci_bop *op, const piece *pc)
{
    int n = m->pl->n, a2a = op->kind == KCI_OP_A2A;
    uint64_t N = m->N, sl[4], one = 1ULL << op->t.r, two = a2a ? 1ULL << op->t2.r : 0;
    int ns = piece_slots(op, pc, sl);
    for (int a = 0; a < ns; a++) {
        uint64_t part = slot_part(&m->rl, sl[a]);
        for (uint64_t x = 0; x < N; x++) {
            if (pc->cls >= 0 && cls_of(op, x) != pc->cls)
                continue;
            uint64_t to = kci_xf_apply(&op->t, sl[a] << n | x);
            if (a2a)
                to = kci_xf_apply(&op->t2, to);
            uint64_t x2 = to & (N - 1), s2 = to >> n, d = x ^ x2;
            int idx = -1;
            for (int q = 0; q < ns; q++)
                idx = sl[q] == s2 ? q : idx;
            if (idx < 0 || (!a2a && (d & (d - 1))) || (a2a && (d & ~(one | two))))
                return bad(m, "a motion left its slots or moved an element too far", x, sl[a]);
            kc_status st = KC_OK;
            if (!a2a && d)
                st = kc_stepnet_send(&m->net, x, kci_ctz64(d), 1, m->err);
            else if (a2a && pc->sub == 0 && (d == one || d == (one | two)))
                st = kc_stepnet_send(&m->net, x, d == one ? op->t.r : op->t2.r, 1, m->err);
            else if (a2a && pc->sub == 1 && (d == two || d == (one | two)))
                st = d == two ? kc_stepnet_send(&m->net, x, op->t2.r, 1, m->err)
                              : kc_stepnet_send(&m->net, x ^ two, op->t.r, 1, m->err); /* forwarded by the middle node */
            if (st)
                return st;
            if (!a2a || pc->sub == 1)
                to_scratch(m, (uint64_t)idx * N + x2, at(m, part, x));
        }
    }
    if (!a2a || pc->sub == 1)
        from_scratch(m, sl, ns, pc->cls, op);
    return KC_OK;
}

static kc_status run_bfly(machine *m, const kci_bop *op, uint64_t sl, int cls)
{
    uint64_t p1 = slot_part(&m->rl, sl), p2 = slot_part(&m->rl, sl ^ op->mm);
    for (uint64_t x = 0; x < m->N; x++) {
        if (cls >= 0 && cls_of(op, x) != cls)
            continue;
        uint64_t a = at(m, p1, x), b = at(m, p2, x);
        if (!pair_ok(m, op->j, m->tag[a], m->stg[a], m->tag[b], m->stg[b]))
            return bad(m, "a butterfly pair is not in one processor", x, sl);
        if (m->tag[a] >> op->j & 1) {
            uint64_t t = a;
            a = b;
            b = t;
        }
        if (m->val)
            dif(m, op->j, m->tag[a], &m->val[a], &m->val[b]);
        m->stg[a]++;
        m->stg[b]++;
    }
    return KC_OK;
}

/* Copies (indexed by logical slot) travel one hop per piece. */
static kc_status run_hop(machine *m, const kci_bop *op, uint64_t sl, int h)
{
    uint64_t N = m->N, pm = op->pm, part = slot_part(&m->rl, sl);
    for (int i = 0; i < h; i++)
        pm &= pm - 1;
    int d = kci_ctz64(pm);
    int src = (h - 1) & 1, dst = h & 1;
    for (uint64_t x = 0; x < N; x++) {
        kc_status st = kc_stepnet_send(&m->net, x, d, 1, m->err);
        if (st)
            return st;
        uint64_t from = h ? sl * N + x : at(m, part, x), to = sl * N + (x ^ (1ULL << d));
        if (m->val)
            m->cval[dst][to] = h ? m->cval[src][from] : m->val[from];
        m->ctag[dst][to] = h ? m->ctag[src][from] : m->tag[from];
        m->cstg[dst][to] = h ? m->cstg[src][from] : m->stg[from];
    }
    return KC_OK;
}

static kc_status run_xcomp(machine *m, const kci_bop *op, uint64_t sl)
{
    uint64_t N = m->N, part = slot_part(&m->rl, sl);
    int hops = kci_popcount64(op->pm), b = (hops - 1) & 1;
    for (uint64_t x = 0; x < N; x++) {
        uint64_t a = at(m, part, x), c = (sl ^ op->mm) * N + x;
        if (!pair_ok(m, op->j, m->tag[a], m->stg[a], m->ctag[b][c], m->cstg[b][c]))
            return bad(m, "a copy did not meet its partner", x, sl);
        int own_upper = !(m->tag[a] >> op->j & 1);
        if (m->val) {
            double _Complex u = own_upper ? m->val[a] : m->cval[b][c], l = own_upper ? m->cval[b][c] : m->val[a];
            dif(m, op->j, own_upper ? m->tag[a] : m->ctag[b][c], &u, &l);
            m->val[a] = (own_upper ^ op->keep) ? u : l;
        }
        if (op->keep)
            m->tag[a] = m->ctag[b][c];
        m->stg[a]++;
    }
    return KC_OK;
}

static kc_status run_repl(machine *m, const kci_bop *op, uint64_t sl)
{
    uint64_t N = m->N, part = slot_part(&m->rl, sl);
    int k = 63 - kci_clz64(op->pm), k2 = kci_ctz64(op->pm);
    for (uint64_t x = 0; x < N; x++) {
        kc_status st = kc_stepnet_send(&m->net, x, k, 1, m->err);
        if (!st)
            st = kc_stepnet_send(&m->net, x, k2, 1, m->err);
        if (st)
            return st;
    }
    for (uint64_t y = 0; y < N; y++) {
        uint64_t a = at(m, part, y ^ (1ULL << k)), b = at(m, part, y ^ (1ULL << k2));
        if (!pair_ok(m, op->j, m->tag[a], m->stg[a], m->tag[b], m->stg[b]))
            return bad(m, "the two copies received are not a butterfly pair", y, sl);
        uint64_t keep = op->keep ? a : b, up = (m->tag[a] >> op->j & 1) ? b : a, lo = up == a ? b : a;
        if (m->val) {
            double _Complex u = m->val[up], l = m->val[lo];
            dif(m, op->j, m->tag[up], &u, &l);
            m->tval[y] = keep == up ? u : l;
        }
        m->ttag[y] = m->tag[keep];
        m->tstg[y] = (uint8_t)(m->stg[keep] + 1);
    }
    from_scratch(m, &sl, 1, -1, op);
    return KC_OK;
}

/* The bits of slot s under mask foot, packed (the u-th bit of foot to bit u). */
static uint64_t block_index(uint64_t foot, uint64_t s)
{
    uint64_t b = 0;
    int u = 0;
    for (; foot; foot &= foot - 1, u++)
        b |= (s >> kci_ctz64(foot) & 1) << u;
    return b;
}

/* One step of an N-sectioning on one block: over each dimension k every
 * processor forwards the element whose offset the table gives for this
 * step and k (the element from origin x sits at x xor the hops it has
 * made). The last step moves the block's data to the new addresses. */
static kc_status run_sect(machine *m, const kci_bop *op, const piece *pc)
{
    int n = m->pl->n;
    uint64_t N = m->N, last = N / 2 - 1;
    for (int k = 0; k < n; k++) {
        uint32_t d = m->a2a.delta[(size_t)pc->sub * (size_t)n + (size_t)k], done = 0;
        for (uint32_t q = d; q; q &= q - 1)
            if (m->a2a.time[(size_t)d * (size_t)n + (size_t)kci_ctz32(q)] < pc->sub)
                done |= 1u << kci_ctz32(q);
        for (uint64_t x = 0; x < N; x++) {
            kc_status st = kc_stepnet_send(&m->net, x ^ done, k, 1, m->err);
            if (st)
                return st;
        }
    }
    if (pc->sub != last)
        return KC_OK;
    uint64_t sub = 0, foot = op->foot;
    do { /* to the block buffer, by (block index of the new slot, new processor) */
        uint64_t part = slot_part(&m->rl, pc->slot | sub);
        for (uint64_t x = 0; x < N; x++) {
            uint64_t to = kci_xf_apply(&op->t, (pc->slot | sub) << n | x), s2 = to >> n;
            /* the schedule sends one element from x to each processor: the one in block slot x2 */
            if ((s2 & ~foot) != pc->slot || (to & (N - 1)) != block_index(foot, sub))
                return bad(m, "an N-sectioning element is not where the all-to-all sends it", x, pc->slot | sub);
            uint64_t i = at(m, part, x), t = block_index(foot, s2) * N + (to & (N - 1));
            if (m->val)
                m->sval[t] = m->val[i];
            m->stag[t] = m->tag[i];
            m->sstg[t] = m->stg[i];
        }
        sub = (sub - foot) & foot;
    } while (sub);
    sub = 0;
    do { /* back into the block's slots */
        uint64_t part = slot_part(&m->rl, pc->slot | sub), b = block_index(foot, sub);
        for (uint64_t x = 0; x < N; x++) {
            uint64_t i = at(m, part, x), t = b * N + x;
            if (m->val)
                m->val[i] = m->sval[t];
            m->tag[i] = m->stag[t];
            m->stg[i] = m->sstg[t];
        }
        sub = (sub - foot) & foot;
    } while (sub);
    return KC_OK;
}

static kc_status run_piece(machine *m, const piece *pc)
{
    const kci_bop *op = &m->pl->ops[pc->op];
    relab_use(&m->rl, op, m->N);
    switch (op->kind) {
    case KCI_OP_REMAP:
    case KCI_OP_A2A: return run_move(m, op, pc);
    case KCI_OP_BFLY: return run_bfly(m, op, pc->slot, pc->cls);
    case KCI_OP_REPL: return run_repl(m, op, pc->slot);
    case KCI_OP_SECT: return run_sect(m, op, pc);
    default:
        if (pc->sub != SUB_COMP)
            return run_hop(m, op, pc->slot, pc->sub);
        return run_xcomp(m, op, pc->slot);
    }
}

/* Pieces in replay order: by step, the exchanges of a step before its local
 * work (which may use what arrived), then in planning order. */
static kc_status replay_order(const sched *s, uint32_t **order, kc_err *err)
{
    uint64_t keys = 2 * ((uint64_t)s->maxstep + 1);
    uint64_t *cnt = calloc(keys + 1, sizeof *cnt);
    *order = malloc((s->np ? s->np : 1) * sizeof **order);
    if (!cnt || !*order) {
        free(cnt);
        free(*order);
        *order = NULL;
        return kc_fail(err, KC_ENOMEM, "out of memory (replay order)");
    }
    for (size_t i = 0; i < s->np; i++)
        cnt[2 * (uint64_t)s->pc[i].step + !s->pc[i].comm + 1]++;
    for (uint64_t k = 0; k < keys; k++)
        cnt[k + 1] += cnt[k];
    for (size_t i = 0; i < s->np; i++)
        (*order)[cnt[2 * (uint64_t)s->pc[i].step + !s->pc[i].comm]++] = (uint32_t)i;
    free(cnt);
    return KC_OK;
}

static void close_step(machine *m, const kc_bfly_opts *o, uint32_t step)
{
    kc_stepnet_end_step(&m->net);
    if (o->on_step)
        o->on_step(o->ctx, step, m->tag, m->N, m->S);
}

static kc_status replay(machine *m, const sched *s, const kc_bfly_opts *o, uint64_t *emul_steps)
{
    uint32_t *order;
    kc_status st = replay_order(s, &order, m->err);
    uint32_t open = 1;
    int any = 0;
    *emul_steps = 0;
    if (o->on_step)
        o->on_step(o->ctx, 0, m->tag, m->N, m->S);
    for (size_t i = 0; !st && i < s->np; i++) {
        const piece *pc = &s->pc[order[i]];
        if (pc->comm) {
            for (; open < pc->step; open++)
                close_step(m, o, open);
            any = 1;
            if (!m->pl->ops[pc->op].conv && pc->step > *emul_steps)
                *emul_steps = pc->step;
        }
        st = run_piece(m, pc);
    }
    if (!st && any)
        close_step(m, o, open);
    free(order);
    return st;
}

static void machine_free(machine *m)
{
    free(m->val);
    free(m->tag);
    free(m->stg);
    for (int b = 0; b < 2; b++) {
        free(m->cval[b]);
        free(m->ctag[b]);
        free(m->cstg[b]);
    }
    free(m->tval);
    free(m->ttag);
    free(m->tstg);
    free(m->tw_lo);
    free(m->tw_hi);
    free(m->rl.fx);
    free(m->sval);
    free(m->stag);
    free(m->sstg);
    kci_a2a_table_free(&m->a2a);
    kc_stepnet_free(&m->net);
}

static kc_status machine_init(machine *m, const kci_plan *pl, int with_values, kc_err *err)
{
    memset(m, 0, sizeof *m);
    m->pl = pl;
    m->err = err;
    m->N = 1ULL << pl->n;
    m->S = 1ULL << (pl->p - pl->n);
    uint64_t P = m->N * m->S;
    int vals = with_values != 0, cb = pl->has_xc;
    m->tag = malloc(P * sizeof *m->tag);
    m->stg = calloc(P, 1);
    m->ttag = malloc(4 * m->N * sizeof *m->ttag);
    m->tstg = malloc(4 * m->N);
    m->rl.fx = malloc(m->N * sizeof *m->rl.fx);
    m->rl.n = pl->n;
    if (vals) {
        m->val = malloc(P * sizeof *m->val);
        m->tval = malloc(4 * m->N * sizeof *m->tval);
        m->tw_bits = pl->p / 2;
        m->tw_lo = malloc((1ULL << m->tw_bits) * sizeof *m->tw_lo);
        m->tw_hi = malloc(((P >> m->tw_bits) + 1) * sizeof *m->tw_hi);
    }
    for (int b = 0; cb && b < 2; b++) {
        m->ctag[b] = malloc(P * sizeof *m->ctag[b]);
        m->cstg[b] = malloc(P);
        if (vals)
            m->cval[b] = malloc(P * sizeof *m->cval[b]);
    }
    if (pl->has_sect) { /* one block of N slots on N processors */
        m->stag = malloc(m->N * m->N * sizeof *m->stag);
        m->sstg = malloc(m->N * m->N);
        if (vals)
            m->sval = malloc(m->N * m->N * sizeof *m->sval);
    }
    int bad_alloc = !m->tag || !m->stg || !m->ttag || !m->tstg || !m->rl.fx ||
                    (pl->has_sect && (!m->stag || !m->sstg || (vals && !m->sval))) ||
                    (vals && (!m->val || !m->tval || !m->tw_lo || !m->tw_hi)) ||
                    (cb && (!m->ctag[0] || !m->ctag[1] || !m->cstg[0] || !m->cstg[1] ||
                            (vals && (!m->cval[0] || !m->cval[1]))));
    if (bad_alloc) {
        machine_free(m);
        return kc_fail(err, KC_ENOMEM, "out of memory: %llu elements", (unsigned long long)P);
    }
    if (vals) {
        const double tau = -2.0 * 3.14159265358979323846 / (double)P;
        for (uint64_t t = 0; t < 1ULL << m->tw_bits; t++)
            m->tw_lo[t] = cexp(I * (tau * (double)t));
        for (uint64_t t = 0; t <= P >> m->tw_bits; t++)
            m->tw_hi[t] = cexp(I * (tau * (double)(t << m->tw_bits)));
    }
    kc_stepnet_topo topo;
    kc_status st = pl->has_sect ? kci_a2a_table_build(&m->a2a, pl->n, err) : KC_OK;
    if (!st)
        st = kc_stepnet_topo_cube(&topo, pl->n < 1 ? 1 : pl->n, err);
    if (!st)
        st = kc_stepnet_init(&m->net, &topo, KC_STEPNET_ALL_PORT, err);
    if (st)
        machine_free(m);
    return st;
}

static uint64_t map_of(const uint64_t *col, uint64_t c, int p, uint64_t i)
{
    for (int b = 0; b < p; b++)
        if (i >> b & 1)
            c ^= col[b];
    return c;
}

kc_status kci_bfly_validate(const kc_bfly_opts *o, kc_err *err)
{
    int n = o->scheme.n, p = o->scheme.p;
    if (n < 1 || n > KC_BFLY_MAX_N)
        return kc_fail_param(err, KC_ERANGE, "n", "the emulation supports 1 <= n <= %d, got %d", KC_BFLY_MAX_N, n);
    if (p < n || p > KC_BFLY_MAX_P)
        return kc_fail_param(err, KC_ERANGE, "p", "the emulation needs n <= p <= %d, got p = %d", KC_BFLY_MAX_P, p);
    int need = o->method == KC_BFLY_BISECT_LOCAL ? n + 2 : o->method == KC_BFLY_BISECT_INTERPROC ? n + 1 : n;
    if (o->method == KC_BFLY_MULTISECT) {
        if (o->r < 1 || o->r > 16)
            return kc_fail_param(err, KC_ERANGE, "r", "multi-sectioning needs 1 <= r <= 16, got %d", o->r);
        need = n + o->r;
    }
    if (p < need)
        return kc_fail_param(err, KC_EINVAL, "p", "method %s needs p >= %d (n = %d), got p = %d",
                             kc_names_name(&kc_bfly_method_names, (int)o->method), need, n, p);
    return KC_OK;
}

/* Every element where the final map and renaming say, every stage done;
 * the values out by row. */
static int check_final(const kci_plan *pl, machine *m, double _Complex *data)
{
    int ok = 1;
    for (uint64_t ph = 0; ph < m->S; ph++)
        for (uint64_t x = 0; x < m->N; x++) {
            uint64_t i = ph * m->N + x, t = m->tag[i], a = map_of(pl->col, pl->c, pl->p, t);
            uint32_t want = pl->rc;
            for (uint64_t r = a; r; r &= r - 1)
                want ^= pl->rcol[kci_ctz64(r)];
            if ((a & (m->N - 1)) != x || want != ph || m->stg[i] != pl->p)
                ok = 0;
            if (data)
                data[t] = m->val[i];
        }
    return ok;
}

static void sched_free(sched *s)
{
    free(s->pc);
    free(s->mem_last);
    free(s->cb_last[0]);
    free(s->cb_last[1]);
    free(s->rl.fx);
    for (int d = 0; s->uf && d < 2 * s->pl->n; d++)
        free(s->uf[d]);
    free(s->uf);
}

static kc_status sched_init(sched *s, kci_plan *pl, uint64_t N, uint64_t S, kc_err *err)
{
    memset(s, 0, sizeof *s);
    s->pl = pl;
    s->N = N;
    s->S = S;
    s->rl.n = pl->n;
    s->rl.fx = malloc(N * sizeof *s->rl.fx);
    s->mem_last = calloc(N * S, sizeof *s->mem_last);
    s->uf = calloc(2 * (size_t)pl->n, sizeof *s->uf);
    for (int b = 0; pl->has_xc && b < 2; b++)
        s->cb_last[b] = calloc(N * S, sizeof *s->cb_last[b]);
    if (!s->rl.fx || !s->mem_last || !s->uf || (pl->has_xc && (!s->cb_last[0] || !s->cb_last[1]))) {
        sched_free(s);
        return kc_fail(err, KC_ENOMEM, "out of memory (schedule)");
    }
    return KC_OK;
}

kc_status kc_bfly_run(const kc_bfly_opts *o, double _Complex *data, kc_bfly_result *res, kc_err *err)
{
    memset(res, 0, sizeof *res);
    kci_plan pl;
    kc_status st = kci_bfly_validate(o, err);
    if (!st)
        st = kci_bfly_plan(o, 0, &pl, err);
    if (st)
        return st;
    machine m;
    sched s;
    if ((st = machine_init(&m, &pl, data != NULL, err))) {
        kci_plan_free(&pl);
        return st;
    }
    if ((st = sched_init(&s, &pl, m.N, m.S, err))) {
        machine_free(&m);
        kci_plan_free(&pl);
        return st;
    }
    /* place the elements by the scheme (no renaming yet) */
    for (uint64_t i = 0; i < m.N * m.S; i++) {
        uint64_t a = kc_scheme_machine(&o->scheme, i), ix = (a >> pl.n) * m.N + (a & (m.N - 1));
        m.tag[ix] = (uint32_t)i;
        if (data)
            m.val[ix] = data[i];
    }
    uint64_t emul = 0;
    st = build_schedule(&s, err);
    if (!st)
        st = replay(&m, &s, o, &emul);
    if (!st) {
        res->net = m.net.st;
        res->conv_transfers = res->net.transfers - emul;
        res->pieces = s.np;
        memcpy(res->final_col, pl.col, sizeof pl.col);
        res->final_c = pl.c;
        res->final_enc = kci_proc_encoding(&pl, res->proc_bit_of);
        res->placement_ok = check_final(&pl, &m, data);
    }
    sched_free(&s);
    machine_free(&m);
    kci_plan_free(&pl);
    return st;
}
