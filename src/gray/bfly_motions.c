/* The butterfly plan's data motions one by one in the paper's form
 * (kcube/butterfly.h, kc_bfly_motions): what Tables 2 and 3 show, checked
 * against the plan kc_bfly_run executes. */
#include <stdlib.h>
#include <string.h>

#include "bfly.h"
#include "core/bits.h"

typedef struct view {
    int n, p;
    uint64_t col[64], c; /* machine(i) = xor of col[b] over the bits b of i, xor c */
} view;

static void view_xf(view *v, const kci_xform *t)
{
    uint64_t t0 = kci_xf_apply(t, 0);
    for (int b = 0; b < v->p; b++)
        v->col[b] = kci_xf_apply(t, v->col[b]) ^ t0;
    v->c = kci_xf_apply(t, v->c);
}

/* Apply op to the map, as the planner did. */
static void view_op(view *v, const kci_bop *op)
{
    switch (op->kind) {
    case KCI_OP_REMAP:
    case KCI_OP_SECT: view_xf(v, &op->t); break;
    case KCI_OP_A2A:
        view_xf(v, &op->t);
        view_xf(v, &op->t2);
        break;
    case KCI_OP_XC:
        if (op->keep)
            v->c ^= v->col[op->j];
        break;
    case KCI_OP_REPL: {
        int k = 63 - kci_clz64(op->pm), k2 = kci_ctz64(op->pm);
        v->c ^= op->keep ? 1ULL << k : 1ULL << k2;
        break;
    }
    default: break;
    }
}

static int moves_data(const kci_bop *op)
{
    return op->kind != KCI_OP_BFLY && !op->relabel;
}

/* The processor of every row, as a map: the processor part of each column. */
static int same_processors(const view *a, const view *b)
{
    uint64_t pm = (1ULL << a->n) - 1;
    for (int q = 0; q < a->p; q++)
        if ((a->col[q] ^ b->col[q]) & pm)
            return 0;
    return ((a->c ^ b->c) & pm) == 0;
}

/* Whether the executed plan and the paper's form move the same elements:
 * walk both, data motion by data motion. */
static int same_motions(const kc_bfly_opts *o, const kci_plan *paper, const kci_plan *run)
{
    view a = {.n = paper->n, .p = paper->p}, b = a;
    kc_scheme_columns(&o->scheme, a.col);
    memcpy(b.col, a.col, sizeof a.col);
    size_t i = 0, k = 0;
    for (;;) {
        while (i < paper->nops && !moves_data(&paper->ops[i]))
            view_op(&a, &paper->ops[i++]);
        while (k < run->nops && !moves_data(&run->ops[k]))
            view_op(&b, &run->ops[k++]);
        if (i == paper->nops || k == run->nops)
            break;
        if (paper->ops[i].kind != run->ops[k].kind)
            break;
        view_op(&a, &paper->ops[i++]);
        view_op(&b, &run->ops[k++]);
        if (!same_processors(&a, &b))
            return 0;
    }
    return i == paper->nops && k == run->nops;
}

typedef struct emitter {
    view v;
    uint32_t *tag;
    uint64_t N, S;
    kc_bfly_motion_fn fn;
    void *ctx;
    int stages, paper_form;
} emitter;

static void emit(emitter *e, kc_bfly_motion m)
{
    uint64_t P = e->N * e->S;
    for (uint64_t i = 0; i < P; i++) {
        uint64_t a = e->v.c;
        for (uint64_t r = i; r; r &= r - 1)
            a ^= e->v.col[kci_ctz64(r)];
        e->tag[(a >> e->v.n) * e->N + (a & (e->N - 1))] = (uint32_t)i;
    }
    m.stages_done = e->stages;
    m.paper_form = e->paper_form;
    m.tag = e->tag;
    e->fn(e->ctx, &m, e->N, e->S);
}

/* A local reordering mu ^= a_k, the slots with mu = 1 crossing k, and the
 * same reordering again: the paper's swap of k and mu. */
static int is_swap(const kci_plan *pl, size_t i)
{
    if (i + 2 >= pl->nops)
        return 0;
    const kci_bop *l = &pl->ops[i], *x = &pl->ops[i + 1], *l2 = &pl->ops[i + 2];
    if (l->kind != KCI_OP_REMAP || x->kind != KCI_OP_REMAP || l2->kind != KCI_OP_REMAP)
        return 0;
    if (l->t.kind != KCI_XF_ROWOP || x->t.kind != KCI_XF_ROWOP || l2->t.kind != KCI_XF_ROWOP)
        return 0;
    return l->relabel && !x->relabel && l2->relabel && l->t.e == 0 && x->t.e == 0 && l2->t.e == 0 &&
           l->t.mask == 1ULL << x->t.r && x->t.mask == 1ULL << l->t.r && l2->t.r == l->t.r && l2->t.mask == l->t.mask;
}

static kc_bfly_motion describe(const kci_bop *op, int n)
{
    kc_bfly_motion m = {.dim = -1, .dim2 = -1, .bit = -1};
    int hi = op->pm ? 63 - kci_clz64(op->pm) : -1, lo = op->pm ? kci_ctz64(op->pm) : -1;
    switch (op->kind) {
    case KCI_OP_A2A:
        m.kind = KC_BFLY_M_ALL_TO_ALL;
        m.dim = op->t.r;
        m.dim2 = op->t2.r;
        break;
    case KCI_OP_SECT:
        m.kind = KC_BFLY_M_SECTION;
        break;
    case KCI_OP_XC:
        m.kind = KC_BFLY_M_COPY;
        m.dim = hi;
        m.dim2 = hi != lo ? lo : -1;
        break;
    case KCI_OP_REPL:
        m.kind = KC_BFLY_M_REPLICATE;
        m.dim = hi;
        m.dim2 = lo;
        break;
    default:
        if (op->t.kind == KCI_XF_SWAP) {
            m.kind = KC_BFLY_M_EXCHANGE;
            m.dim = op->t.r < n ? op->t.r : op->t.r2;
            m.bit = op->t.r < n ? op->t.r2 : op->t.r;
        } else if (op->t.kind == KCI_XF_DIAG) {
            m.kind = KC_BFLY_M_DIAGONAL;
            m.dim = op->t.r;
            m.dim2 = op->t.r2;
            m.bit = op->t.r3;
        } else {
            m.kind = op->relabel ? KC_BFLY_M_LOCAL : KC_BFLY_M_CONDITIONAL;
            if (op->relabel)
                m.bit = op->t.r;
            else
                m.dim = op->t.r;
            m.control = op->t.mask;
            m.complement = op->t.e;
        }
    }
    return m;
}

static kc_status walk(const kc_bfly_opts *o, const kci_plan *pl, int paper_form, kc_bfly_motion_fn fn, void *ctx,
                      kc_err *err)
{
    emitter e = {.v = {.n = pl->n, .p = pl->p}, .N = 1ULL << pl->n, .S = 1ULL << (pl->p - pl->n), .fn = fn, .ctx = ctx,
                 .paper_form = paper_form};
    kc_scheme_columns(&o->scheme, e.v.col);
    e.tag = malloc(e.N * e.S * sizeof *e.tag);
    if (!e.tag)
        return kc_fail(err, KC_ENOMEM, "out of memory (butterfly motions)");
    emit(&e, (kc_bfly_motion){.kind = KC_BFLY_M_START, .dim = -1, .dim2 = -1, .bit = -1});
    for (size_t i = 0; i < pl->nops; i++) {
        const kci_bop *op = &pl->ops[i];
        if (op->kind == KCI_OP_BFLY) {
            e.stages++;
            continue;
        }
        if (is_swap(pl, i)) {
            for (int k = 0; k < 3; k++)
                view_op(&e.v, &pl->ops[i + (size_t)k]);
            emit(&e, (kc_bfly_motion){.kind = KC_BFLY_M_EXCHANGE, .dim = op[1].t.r, .dim2 = -1, .bit = op->t.r});
            i += 2;
            continue;
        }
        view_op(&e.v, op);
        if (op->kind == KCI_OP_REPL || op->kind == KCI_OP_XC)
            e.stages++; /* the copy's stage is computed with it */
        emit(&e, describe(op, pl->n));
    }
    free(e.tag);
    return KC_OK;
}

kc_status kc_bfly_motions(const kc_bfly_opts *o, kc_bfly_motion_fn fn, void *ctx, kc_err *err)
{
    kc_status st = kci_bfly_validate(o, err);
    if (st)
        return st;
    kci_plan paper, run;
    if ((st = kci_bfly_plan(o, 1, &paper, err)))
        return st;
    if ((st = kci_bfly_plan(o, 0, &run, err))) {
        kci_plan_free(&paper);
        return st;
    }
    /* where the completed swaps lead the planner to other motions (native
     * output of some cases), show the executed plan as it is */
    int same = same_motions(o, &paper, &run);
    st = walk(o, same ? &paper : &run, same, fn, ctx, err);
    kci_plan_free(&paper);
    kci_plan_free(&run);
    return st;
}
