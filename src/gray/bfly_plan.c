/* Planning the butterfly emulations as data motions on an affine placement
 * (kcube/butterfly.h). The planner never touches data: it keeps the map
 * machine(i) = A i xor c up to date as it appends motions, so each stage
 * knows where the two rows of a pair are (col[j] = where they differ). */
#include <stdlib.h>
#include <string.h>

#include "bfly.h"
#include "core/bits.h"
#include "core/grow.h"

uint64_t kci_xf_apply(const kci_xform *t, uint64_t a)
{
    switch (t->kind) {
    case KCI_XF_ROWOP:
        return a ^ ((uint64_t)((kci_parity64(a & t->mask) ^ t->e) & 1) << t->r);
    case KCI_XF_SWAP: {
        uint64_t b1 = a >> t->r & 1, b2 = a >> t->r2 & 1;
        return b1 == b2 ? a : a ^ (1ULL << t->r) ^ (1ULL << t->r2);
    }
    case KCI_XF_SECT: { /* processor bit u <-> the u-th memory slot bit of mask */
        uint64_t x = a & ((1ULL << t->r) - 1), out = a & ~((1ULL << t->r) - 1);
        int u = 0;
        for (uint64_t m = t->mask; m; m &= m - 1, u++) {
            int b = t->r + kci_ctz64(m);
            out = (out & ~(1ULL << b)) | (x >> u & 1) << b;
            out |= (a >> b & 1) << u;
        }
        return out;
    }
    default: { /* DIAG: the slot with m = x_k goes over dim k, the other over r2; both land as a pair */
        uint64_t m = a >> t->r3 & 1, xk = a >> t->r & 1;
        uint64_t nk = 1 ^ m, nk2 = (a >> t->r2 & 1) ^ m ^ xk, nm = m ^ xk;
        a &= ~((1ULL << t->r) | (1ULL << t->r2) | (1ULL << t->r3));
        return a | nk << t->r | nk2 << t->r2 | nm << t->r3;
    }
    }
}

static uint32_t relabel_of(const kci_plan *pl, uint64_t a)
{
    uint32_t v = pl->rc;
    for (; a; a &= a - 1)
        v ^= pl->rcol[kci_ctz64(a)];
    return v;
}

/* A local motion t renames slots instead of moving data: the element at
 * logical address a is now called t(a) and stays where it was, so the new
 * renaming is the old one composed with t^-1 = t (every local motion here
 * is an involution). */
static void compose_relabel(kci_plan *pl, const kci_xform *t)
{
    uint32_t col[KC_BFLY_MAX_P], c = relabel_of(pl, kci_xf_apply(t, 0));
    for (int b = 0; b < pl->p; b++)
        col[b] = relabel_of(pl, kci_xf_apply(t, 1ULL << b)) ^ c;
    memcpy(pl->rcol, col, sizeof col);
    pl->rc = c;
}

static kc_status push(kci_plan *pl, kci_bop *op, kc_err *err)
{
    memcpy(op->rcol, pl->rcol, sizeof op->rcol);
    op->rc = pl->rc;
    if (KCI_RESERVE(pl->ops, pl->cap, pl->nops + 1, 256))
        return kc_fail(err, KC_ENOMEM, "out of memory (butterfly schedule)");
    pl->ops[pl->nops++] = *op;
    return KC_OK;
}

/* Append a remap and update the map. */
static kc_status remap(kci_plan *pl, kci_xform t, int conv, kc_err *err)
{
    int n = pl->n;
    uint64_t pmask = (1ULL << n) - 1, t0 = kci_xf_apply(&t, 0), moved = 0;
    for (int b = 0; b < pl->p; b++) {
        uint64_t nc = kci_xf_apply(&t, pl->col[b]) ^ t0;
        moved |= nc ^ pl->col[b];
        pl->col[b] = nc;
    }
    uint64_t nc = kci_xf_apply(&t, pl->c);
    moved |= nc ^ pl->c;
    pl->c = nc;
    kci_bop op = {.kind = KCI_OP_REMAP, .j = -1, .conv = (uint8_t)conv, .t = t};
    uint64_t touched = t.kind == KCI_XF_ROWOP ? 1ULL << t.r
                     : t.kind == KCI_XF_SWAP  ? (1ULL << t.r) | (1ULL << t.r2)
                                              : (1ULL << t.r) | (1ULL << t.r2) | (1ULL << t.r3);
    (void)moved;
    op.foot = (touched & ~pmask) >> n;
    op.dims = (uint32_t)(touched & pmask);
    if (!op.dims) {
        op.relabel = 1;
        compose_relabel(pl, &t);
    }
    return push(pl, &op, err);
}

static kc_status rowop(kci_plan *pl, int r, uint64_t mask, int conv, kc_err *err)
{
    return remap(pl, (kci_xform){.kind = KCI_XF_ROWOP, .r = (uint8_t)r, .mask = mask}, conv, err);
}

static kc_status bfly(kci_plan *pl, int j, kc_err *err)
{
    kci_bop op = {.kind = KCI_OP_BFLY, .j = (int8_t)j, .mm = pl->col[j] >> pl->n};
    op.foot = op.mm;
    return push(pl, &op, err);
}

static kc_status xc(kci_plan *pl, int j, int keep, kc_err *err)
{
    uint64_t pmask = (1ULL << pl->n) - 1;
    kci_bop op = {.kind = KCI_OP_XC, .j = (int8_t)j, .keep = (uint8_t)keep, .mm = pl->col[j] >> pl->n,
                  .pm = pl->col[j] & pmask};
    op.foot = op.mm;
    op.dims = (uint32_t)op.pm; /* one hop per piece; the replay splits the dims */
    if (keep)
        pl->c ^= pl->col[j];
    pl->has_xc = 1;
    return push(pl, &op, err);
}

/* The row (as a mask of row-index bits) held by machine bit q. */
static uint64_t row_of(const kci_plan *pl, int q)
{
    uint64_t r = 0;
    for (int b = 0; b < pl->p; b++)
        r |= (pl->col[b] >> q & 1) << b;
    return r;
}

/* The machine bits T whose rows add up to the row-bit vector v:
 * parity(col[b] & T) = v_b for every row bit b (the placement is
 * invertible, so T is unique). Gaussian elimination over GF(2). */
static uint64_t rows_to_cols(const uint64_t *col, int p, uint64_t v)
{
    uint64_t eq[64];
    for (int b = 0; b < p; b++)
        eq[b] = col[b] | (v >> b & 1) << 63;
    int r = 0;
    for (int q = 0; q < p && r < p; q++) {
        int piv = -1;
        for (int b = r; b < p && piv < 0; b++)
            if (eq[b] >> q & 1)
                piv = b;
        if (piv < 0)
            continue;
        uint64_t t = eq[piv];
        eq[piv] = eq[r];
        eq[r] = t;
        for (int b = 0; b < p; b++)
            if (b != r && (eq[b] >> q & 1))
                eq[b] ^= t;
        r++;
    }
    uint64_t T = 0;
    for (int b = 0; b < p; b++) /* reduced: each equation is one machine bit = its right-hand side */
        if (eq[b] >> 63)
            T |= eq[b] & ~(1ULL << 63);
    return T;
}

static uint64_t rows_to(const kci_plan *pl, uint64_t v)
{
    return rows_to_cols(pl->col, pl->p, v);
}

/* The xor of the rows of the processor bits above k (the Gray code of
 * the output is built from the top down). */
static uint64_t acc_above(const kci_plan *pl, int k)
{
    uint64_t a = 0;
    for (int q = k + 1; q < pl->n; q++)
        a ^= row_of(pl, q);
    return a;
}

/* Output encoding for free (Theorem 1: "either binary, or binary-reflected
 * Gray code"): just before the row of local bit mu moves into processor
 * bit k, a local reordering (a renaming, no data moves) turns it into the
 * row the output wants there: one finished row bit for binary output, that
 * bit xor the rows above k (`above`) for Gray, with no complement. Only
 * finished rows (bits above the stage j) are involved, so the stages still
 * to come see the same pairs. Leaves the row alone when no such reordering
 * exists. */
static kc_status shape_row(kci_plan *pl, int mu, int j, uint64_t above, int cwant, kc_err *err)
{
    uint64_t done = ((1ULL << pl->p) - 1) & ~((2ULL << j) - 1), r = row_of(pl, mu);
    if (pl->out == KC_BFLY_OUT_BINARY)
        above = 0;
    if (pl->out == KC_BFLY_OUT_NATIVE || (r & ~done) || (above & ~done) || (above & (above - 1)))
        return KC_OK; /* Gray: the rows above must be a Gray code prefix */
    int w = kci_popcount64(r ^ above);
    if (w == 1 && (int)(pl->c >> mu & 1) == cwant)
        return KC_OK; /* already the wanted row */
    for (int h = pl->p - 1; h > j; h--) {
        uint64_t want = (1ULL << h) ^ above, T = rows_to(pl, want ^ r);
        if (!(want & ~done) && !(T >> mu & 1) && kci_popcount64(want) == (above ? 2 : 1)) {
            uint8_t e = (uint8_t)((kci_parity64(pl->c & T) ^ (pl->c >> mu) ^ (uint64_t)cwant) & 1);
            if (!T && !e)
                return KC_OK;
            return remap(pl, (kci_xform){.kind = KCI_XF_ROWOP, .r = (uint8_t)mu, .mask = T, .e = e}, 0, err);
        }
    }
    return KC_OK;
}

/* Make every machine row a single row-index bit (a binary placement) by
 * Gauss-Jordan elimination over GF(2), row-index bits from the top: the
 * pivot is the lightest row holding the bit; adding it to a memory row is a
 * free local move, to a processor row one conditional exchange. */
static kc_status binarize(kci_plan *pl, int conv, kc_err *err)
{
    int p = pl->p;
    uint64_t pivoted = 0;
    for (int b = p - 1; b >= 0; b--) {
        int piv = -1, w = 65;
        for (int q = 0; q < p; q++) {
            uint64_t r = row_of(pl, q);
            int wq = kci_popcount64(r);
            if (!(pivoted >> q & 1) && (r >> b & 1) && (wq < w || (wq == w && q > piv))) {
                piv = q;
                w = wq;
            }
        }
        if (piv < 0)
            return kc_fail(err, KC_EINTERNAL, "butterfly plan: the placement is not invertible");
        pivoted |= 1ULL << piv;
        for (int q = 0; q < p; q++) {
            if (q == piv || !(row_of(pl, q) >> b & 1))
                continue;
            kc_status s = rowop(pl, q, 1ULL << piv, conv, err);
            if (s)
                return s;
        }
    }
    /* a complemented row: every element crosses that dimension (or moves locally) */
    for (int q = 0; q < p; q++)
        if (pl->c >> q & 1) {
            kc_status s = remap(pl, (kci_xform){.kind = KCI_XF_ROWOP, .r = (uint8_t)q, .e = 1}, conv, err);
            if (s)
                return s;
        }
    return KC_OK;
}

/* Move the processor bits of col[j] into local memory bits (the first
 * `nmu` slot bits) by exchanges, after a free local reduction. */
static kc_status bring_local(kci_plan *pl, int j, int nmu, kc_err *err)
{
    int n = pl->n;
    uint64_t pmask = (1ULL << n) - 1;
    kc_status s;
    /* local reduction: a memory bit of the pair mask is cleared by xoring
     * in a processor bit of it (a local exchange under processor control) */
    while ((pl->col[j] & pmask) && (pl->col[j] >> n)) {
        int mu = n + kci_ctz64(pl->col[j] >> n), k = 63 - kci_clz64(pl->col[j] & pmask);
        if ((s = rowop(pl, mu, 1ULL << k, 0, err)))
            return s;
    }
    uint64_t pm = pl->col[j] & pmask;
    while (pm && nmu > 0) {
        int k = 63 - kci_clz64(pm);
        /* the local bit whose row is most finished (its lowest row bit highest) */
        int best = -1, score = -1;
        for (int u = 0; u < nmu; u++) {
            if (pl->col[j] >> pl->mu[u] & 1)
                continue;
            uint64_t r = row_of(pl, pl->mu[u]);
            int sc = r ? kci_ctz64(r) : 64;
            if (sc > score) {
                score = sc;
                best = u;
            }
        }
        if (best < 0)
            break;
        if ((s = shape_row(pl, pl->mu[best], j, acc_above(pl, k), 0, err)))
            return s;
        if ((s = remap(pl, (kci_xform){.kind = KCI_XF_SWAP, .r = (uint8_t)k, .r2 = (uint8_t)pl->mu[best]}, 0, err)))
            return s;
        pm = pl->col[j] & pmask;
    }
    /* leftovers: clear processor bits against a memory bit of the pair */
    while ((pl->col[j] & pmask) && (pl->col[j] >> n)) {
        int mu = n + kci_ctz64(pl->col[j] >> n), k = kci_ctz64(pl->col[j] & pmask);
        if ((s = rowop(pl, k, 1ULL << mu, 0, err)))
            return s;
    }
    if (pl->col[j] & pmask) { /* no local bit at all: exchange with slot bit 0 first */
        int k = 63 - kci_clz64(pl->col[j] & pmask);
        if ((s = remap(pl, (kci_xform){.kind = KCI_XF_SWAP, .r = (uint8_t)k, .r2 = (uint8_t)pl->mu[0]}, 0, err)))
            return s;
        return bring_local(pl, j, 0, err);
    }
    return KC_OK;
}

/* The memory field in binary code by free local reorderings (consecutive
 * allocation, where the memory stages come last): memory row q becomes the
 * unit row e_h by adding the rows of other machine bits (memory or
 * processor), a renaming controlled by them; no data moves. Row bit h is
 * taken from the top down; q must be in e_h's (unique) expression in the
 * machine rows, which always holds for some unassigned memory bit since
 * the processor rows and the memory rows assigned so far span only higher
 * row bits. */
static kc_status memory_binary(kci_plan *pl, kc_err *err)
{
    int n = pl->n, m = pl->p - n;
    uint64_t assigned = 0;
    for (int h = m - 1; h >= 0; h--) {
        uint64_t ex = rows_to(pl, 1ULL << h) >> n & ~assigned;
        if (!ex)
            return kc_fail(err, KC_EINTERNAL, "butterfly plan: memory field cannot be made binary");
        int q = n + 63 - kci_clz64(ex);
        assigned |= 1ULL << (q - n);
        uint64_t T = rows_to(pl, (1ULL << h) ^ row_of(pl, q));
        if (T) {
            kc_status s = rowop(pl, q, T, 0, err);
            if (s)
                return s;
        }
    }
    return KC_OK;
}

/* Both processor bits of the pair mask into the two local bits at once,
 * by an all-to-all exchange in the 2-cube of dims k1 and k2. */
static kc_status a2a(kci_plan *pl, int k1, int k2, int j, kc_err *err)
{
    int n = pl->n;
    kc_status s = shape_row(pl, pl->mu[0], j, acc_above(pl, k1), 0, err);
    if (!s) /* k2 = k1 - 1 lands below the row mu[0] brings to k1 */
        s = shape_row(pl, pl->mu[1], j, acc_above(pl, k1) ^ row_of(pl, pl->mu[0]), 0, err);
    if (s)
        return s;
    kci_xform t = {.kind = KCI_XF_SWAP, .r = (uint8_t)k1, .r2 = (uint8_t)pl->mu[0]};
    kci_xform t2 = {.kind = KCI_XF_SWAP, .r = (uint8_t)k2, .r2 = (uint8_t)pl->mu[1]};
    for (int b = 0; b < pl->p; b++)
        pl->col[b] = kci_xf_apply(&t2, kci_xf_apply(&t, pl->col[b]));
    pl->c = kci_xf_apply(&t2, kci_xf_apply(&t, pl->c));
    kci_bop op = {.kind = KCI_OP_A2A, .j = -1, .t = t, .t2 = t2,
                  .foot = (1ULL << (pl->mu[0] - n)) | (1ULL << (pl->mu[1] - n)),
                  .dims = (uint32_t)((1u << k1) | (1u << k2))};
    return push(pl, &op, err);
}

/* The machine bits T (without `skip`) whose rows' parts in `part` add up
 * to v's, or UINT64_MAX when there are none (Gaussian elimination over
 * GF(2), each basis vector carrying the machine bits that make it). */
static uint64_t solve_part(const uint64_t *col, int p, uint64_t part, uint64_t v, int skip)
{
    uint64_t vec[64], who[64];
    int nb = 0;
    for (int q = 0; q < p; q++) {
        if (q == skip)
            continue;
        uint64_t r = 0;
        for (int b = 0; b < p; b++)
            r |= (col[b] >> q & 1) << b;
        r &= part;
        uint64_t w = 1ULL << q;
        for (int i = 0; i < nb; i++)
            if (r & (1ULL << (63 - kci_clz64(vec[i])))) {
                r ^= vec[i];
                w ^= who[i];
            }
        if (r) {
            vec[nb] = r;
            who[nb++] = w;
        }
    }
    uint64_t T = 0;
    v &= part;
    for (int i = 0; i < nb; i++)
        if (v & (1ULL << (63 - kci_clz64(vec[i])))) {
            v ^= vec[i];
            T ^= who[i];
        }
    return v ? UINT64_MAX : T;
}

/* Local reordering on a column array: a_q ^= parity(a & T), recorded in
 * the plan when pl is given. */
static kc_status col_rowop(kci_plan *pl, uint64_t *col, int p, int q, uint64_t T, kc_err *err)
{
    for (int b = 0; b < p; b++)
        col[b] ^= (uint64_t)(kci_parity64(col[b] & T) & 1) << q;
    return pl ? rowop(pl, q, T, 0, err) : KC_OK;
}

/* N-sectioning needs local bits whose rows are finished (above stage j).
 * A local bit mu holding an unfinished part is given a finished row by a
 * free reordering mu ^= (machine bits T whose rows cancel that part; T
 * without mu keeps it a bijection). When no such T exists, a memory bit
 * outside the block with a finished row first takes mu's row in (q ^= mu),
 * after which mu ^= q leaves mu with q's old row. Works on `col` (a copy,
 * or the plan's own when pl is given to record the reorderings). Returns
 * 0 when some local bit cannot be given a finished row. */
static int sect_reshape(const kci_plan *cfg, kci_plan *rec, uint64_t *col, int j, kc_status *st, kc_err *err)
{
    int n = cfg->n, p = cfg->p;
    uint64_t unfinished = (2ULL << j) - 1, block = cfg->block << n;
    for (int k = n - 1; k >= 0 && !*st; k--) {
        int mu = cfg->mu[k];
        uint64_t r = 0;
        for (int b = 0; b < p; b++)
            r |= (col[b] >> mu & 1) << b;
        if (!(r & unfinished))
            continue;
        uint64_t T = solve_part(col, p, unfinished, r, mu);
        if (T == UINT64_MAX) {
            int q = -1; /* a memory bit outside the block holding a finished row */
            for (int b = n; b < p && q < 0; b++) {
                uint64_t rq = 0;
                for (int c = 0; c < p; c++)
                    rq |= (col[c] >> b & 1) << c;
                q = (block >> b & 1) || (rq & unfinished) ? -1 : b;
            }
            if (q < 0)
                return 0;
            *st = col_rowop(rec, col, p, q, 1ULL << mu, err);
            T = 1ULL << q;
        }
        if (!*st)
            *st = col_rowop(rec, col, p, mu, T, err);
    }
    return 1;
}

/* N-sectioning fits stage j when the local bits can hold finished rows
 * and then, with every processor bit k exchanged with local bit mu[k], no
 * stage from j down needs a processor bit. */
static int sect_fits(const kci_plan *pl, int j)
{
    uint64_t col[64];
    kc_status st = KC_OK;
    memcpy(col, pl->col, sizeof col);
    if (!sect_reshape(pl, NULL, col, j, &st, NULL))
        return 0;
    kci_xform t = {.kind = KCI_XF_SECT, .r = (uint8_t)pl->n, .mask = pl->block};
    for (int b = 0; b <= j; b++)
        if (kci_xf_apply(&t, col[b]) & ((1ULL << pl->n) - 1))
            return 0;
    return 1;
}

/* N-sectioning (Section 6 with r = n): the local bits, shaped for the
 * output encoding from the top down (the rows above a processor bit are
 * the ones the higher local bits bring), go into the processor field all
 * at once by the all-to-all in the n-cube; every later stage is local. */
static kc_status sectioning(kci_plan *pl, int j, kc_err *err)
{
    uint64_t above = 0, pmask = (1ULL << pl->n) - 1;
    kc_status st = KC_OK;
    uint64_t col[64];
    memcpy(col, pl->col, sizeof col); /* the plan's map follows through rowop */
    sect_reshape(pl, pl, col, j, &st, err);
    if (st)
        return st;
    for (int k = pl->n - 1; k >= 0; k--) {
        kc_status s = shape_row(pl, pl->mu[k], j, above, 0, err);
        if (s)
            return s;
        above ^= row_of(pl, pl->mu[k]);
    }
    kci_xform t = {.kind = KCI_XF_SECT, .r = (uint8_t)pl->n, .mask = pl->block};
    for (int b = 0; b < pl->p; b++)
        pl->col[b] = kci_xf_apply(&t, pl->col[b]);
    pl->c = kci_xf_apply(&t, pl->c);
    kci_bop op = {.kind = KCI_OP_SECT, .j = -1, .t = t, .foot = pl->block, .dims = (uint32_t)pmask};
    pl->has_sect = 1;
    return push(pl, &op, err);
}

/* Stages j and j-1 each pair rows across one processor dimension (two
 * different ones) and the two local bits hold finished rows: one
 * all-to-all in the 2-cube of the two dimensions makes both stages local,
 * using both dimensions in each of its steps (consecutive allocation after
 * the first n stages, Section 3.2: the two top processor dimensions are
 * used twice). */
static int pair_of_single_bits(const kci_plan *pl, int j)
{
    uint64_t pmask = (1ULL << pl->n) - 1, a = pl->col[j], b = j > 0 ? pl->col[j - 1] : 0;
    if (!a || (a & ~pmask) || (a & (a - 1)) || !b || (b & ~pmask) || (b & (b - 1)) || a == b)
        return 0;
    for (int u = 0; u < 2; u++) {
        uint64_t r = row_of(pl, pl->mu[u]);
        if (!r || (r & ((2ULL << j) - 1)))
            return 0; /* a local bit still holds a row whose stage is to come */
    }
    return 1;
}

/* Local code conversion: a processor bit k of the pair mask is removed by
 * a local exchange under processor control (mu ^= a_k, free) followed by
 * one exchange in dimension k of the slots with mu = 1 (k ^= a_mu), where
 * mu is a local memory bit outside the pair mask. Every exchange moves the
 * same slots in every processor, so the pieces of different slots pipeline. */
static kc_status reduce_local(kci_plan *pl, int j, int nmu, kc_err *err)
{
    int n = pl->n;
    uint64_t pmask = (1ULL << n) - 1;
    kc_status s = KC_OK;
    uint64_t pm = pl->col[j] & pmask;
    if (nmu >= 2 && !(pl->col[j] >> n) && kci_popcount64(pm) == 2)
        return a2a(pl, 63 - kci_clz64(pm), kci_ctz64(pm), j, err);
    if (nmu >= 2 && pair_of_single_bits(pl, j))
        return a2a(pl, kci_ctz64(pm), kci_ctz64(pl->col[j - 1]), j, err);
    while (!s && (pl->col[j] & pmask)) {
        int k = 63 - kci_clz64(pl->col[j] & pmask), mu = -1;
        for (int u = 0; u < nmu && mu < 0; u++)
            if (!(pl->col[j] >> pl->mu[u] & 1))
                mu = pl->mu[u];
        if (mu < 0)
            return bring_local(pl, j, nmu, err);
        s = shape_row(pl, mu, j, acc_above(pl, k), 0, err);
        if (!s)
            s = rowop(pl, mu, 1ULL << k, 0, err);
        if (!s)
            s = rowop(pl, k, 1ULL << mu, 0, err);
        if (!s && pl->paper_form) /* the same reordering again: the two and the exchange are a swap */
            s = rowop(pl, mu, 1ULL << k, 0, err);
    }
    return s;
}

static kc_status stage_interproc(kci_plan *pl, int j, kc_err *err)
{
    int n = pl->n;
    uint64_t pmask = (1ULL << n) - 1, pm = pl->col[j] & pmask, mm = pl->col[j] >> n;
    kc_status s = KC_OK;
    /* a pair that differs in memory and in one or two processor bits: the
     * memory part is cleared by a free local reordering under control of a
     * processor bit of the pair, so one exchange or one diagonal bi-section
     * does (rather than one conditional exchange per processor bit, which
     * left a pipeline hole per block for n = 2, consecutive) */
    if (pm && mm && kci_popcount64(pm) <= 2) {
        int k = 63 - kci_clz64(pm);
        for (uint64_t q = mm; !s && q; q &= q - 1)
            s = rowop(pl, n + kci_ctz64(q), 1ULL << k, 0, err);
        if (s)
            return s;
        pm = pl->col[j] & pmask;
        mm = pl->col[j] >> n;
    }
    if (pm && !mm && kci_popcount64(pm) == 1) {
        s = shape_row(pl, pl->mu[0], j, acc_above(pl, kci_ctz64(pm)), 0, err);
        if (!s)
            s = remap(pl, (kci_xform){.kind = KCI_XF_SWAP, .r = (uint8_t)kci_ctz64(pm), .r2 = (uint8_t)pl->mu[0]}, 0, err);
    }
    else if (pm && !mm && kci_popcount64(pm) == 2) {
        int k = 63 - kci_clz64(pm), k2 = kci_ctz64(pm);
        /* the diagonal bi-section puts the complement of mu's row into k */
        s = shape_row(pl, pl->mu[0], j, acc_above(pl, k), 1, err);
        if (!s)
            s = remap(pl, (kci_xform){.kind = KCI_XF_DIAG, .r = (uint8_t)k, .r2 = (uint8_t)k2, .r3 = (uint8_t)pl->mu[0]}, 0, err);
    } else if (pm && mm) {
        /* the pair already differs in memory: exchange the slots whose memory
         * bit is 1 across each processor bit of the pair (Section 4.1's
         * exchange in dimension n-1 for the odd memory rows) */
        int mu = n + kci_ctz64(mm);
        for (uint64_t q = pm; !s && q; q &= q - 1)
            s = rowop(pl, kci_ctz64(q), 1ULL << mu, 0, err);
    } else if (pm)
        s = bring_local(pl, j, 0, err);
    return s ? s : bfly(pl, j, err);
}

/* Section 5: replicate to both neighbours, keep one output; the choice of
 * output alternates so that the Gray encoding is restored every two stages. */
static kc_status stage_one_per_proc(kci_plan *pl, int j, uint64_t *pending, kc_err *err)
{
    int n = pl->n;
    uint64_t pmask = (1ULL << n) - 1, pm = pl->col[j] & pmask, mm = pl->col[j] >> n;
    if (!pm)
        return bfly(pl, j, err);
    if (mm || kci_popcount64(pm) != 2) {
        int keep = (*pending & pm) && pm == *pending;
        if (keep)
            *pending = 0;
        return xc(pl, j, keep, err);
    }
    int k = 63 - kci_clz64(pm), k2 = kci_ctz64(pm);
    int keep_k = (*pending >> k) & 1;
    kci_bop op = {.kind = KCI_OP_REPL, .j = (int8_t)j, .keep = (uint8_t)keep_k, .pm = pm, .dims = (uint32_t)pm};
    uint64_t tr = keep_k ? 1ULL << k : 1ULL << k2;
    pl->c ^= tr;
    *pending ^= tr;
    return push(pl, &op, err);
}

kc_bfly_enc kci_proc_encoding(const kci_plan *pl, int *bit_of)
{
    int n = pl->n;
    uint64_t rows[64];
    for (int q = 0; q < n; q++) {
        rows[q] = 0;
        for (int b = 0; b < pl->p; b++)
            rows[q] |= (pl->col[b] >> q & 1) << b;
    }
    int unit = (pl->c & ((1ULL << n) - 1)) == 0;
    for (int q = 0; q < n; q++) {
        unit &= kci_popcount64(rows[q]) == 1;
        if (bit_of)
            bit_of[q] = kci_popcount64(rows[q]) == 1 ? kci_ctz64(rows[q]) : -1;
    }
    if (unit)
        return KC_BFLY_ENC_BINARY;
    int gray = (pl->c & ((1ULL << n) - 1)) == 0;
    uint64_t acc = 0;
    for (int q = n - 1; q >= 0; q--) {
        acc ^= rows[q];
        gray &= kci_popcount64(acc) == 1;
    }
    return gray ? KC_BFLY_ENC_GRAY : KC_BFLY_ENC_OTHER;
}

static kc_status output_encoding(const kc_bfly_opts *o, kci_plan *pl, kc_err *err)
{
    if (o->out == KC_BFLY_OUT_NATIVE || (o->out == KC_BFLY_OUT_GRAY && kci_proc_encoding(pl, NULL) == KC_BFLY_ENC_GRAY))
        return KC_OK;
    kc_status s = binarize(pl, 1, err);
    for (int q = 0; !s && o->out == KC_BFLY_OUT_GRAY && q < pl->n - 1; q++)
        s = rowop(pl, q, 1ULL << (q + 1), 1, err);
    return s;
}

/* Split an exchange of single slots over dimension d >= 1 into two
 * processor classes, and the butterflies after it likewise: processors of
 * class 0 send the first slot of the pair first, those of class 1 the
 * second, so every link of dimension d is busy in both steps while each
 * class waits only for its own processors' data.
 *
 * The class must not change across dimension d (both ends of a link send
 * in the same step) and, for the pipeline to advance one step per stage,
 * the element a processor can send first on the next dimension d-1 must be
 * the one its neighbour over d-1 sends first too. The parity of all
 * processor bits below d does both (found by an exhaustive search over all
 * class masks for n <= 5, then checked for n <= 10; docs/butterfly.md).
 * The earlier split by bit d-1 alone lost a step every other stage. */
static void split_pieces(kci_plan *pl)
{
    int last = 0;
    uint64_t lastm = 0;
    for (size_t i = 0; i < pl->nops; i++) {
        kci_bop *op = &pl->ops[i];
        op->split = 0;
        if (!pl->split || op->relabel)
            continue;
        if (op->kind == KCI_OP_REMAP && !op->foot && kci_popcount32(op->dims) == 1) {
            op->hmask = lastm = ((uint64_t)op->dims - 1);
            op->split = 1;
            last = 1;
        } else if (op->kind == KCI_OP_BFLY) {
            op->split = (uint8_t)last;
            op->hmask = lastm;
        } else
            last = 0;
    }
}

/* The emulation's motions, the moves into the processor field shaped for
 * output encoding `shape` (kc_bfly_out). */
static kc_status plan_emulation(const kc_bfly_opts *o, int shape, int paper_form, kci_plan *pl, kc_err *err)
{
    memset(pl, 0, sizeof *pl);
    pl->paper_form = paper_form;
    pl->n = o->scheme.n;
    pl->p = o->scheme.p;
    pl->out = shape;
    kc_scheme_columns(&o->scheme, pl->col);
    for (int b = pl->n; b < pl->p; b++)
        pl->rcol[b] = 1u << (b - pl->n);
    int m = pl->p - pl->n, nmu = 0;
    switch (o->method) {
    case KC_BFLY_BISECT_LOCAL: nmu = m < 2 ? m : 2; break;
    case KC_BFLY_MULTISECT: nmu = o->r; break;
    case KC_BFLY_BISECT_INTERPROC: nmu = m < 1 ? 0 : 1; break;
    default: nmu = 0;
    }
    /* the local memory bits of a block: the low slot bits for cyclic
     * allocation (their rows' stages are done when the processor stages
     * come), the high ones for consecutive (their stages come next) */
    pl->block = 0;
    pl->split = o->method == KC_BFLY_BISECT_LOCAL || o->method == KC_BFLY_MULTISECT;
    for (int u = 0; u < nmu; u++) {
        int bit = o->scheme.alloc == KC_ALLOC_CYCLIC ? u : m - 1 - u;
        pl->mu[u] = pl->n + bit;
        pl->block |= 1ULL << bit;
    }
    if (!nmu)
        pl->mu[0] = pl->n; /* the fallback exchange partner (p > n) */
    kc_status s = KC_OK;
    if (o->method == KC_BFLY_CONVERT)
        s = binarize(pl, 0, err);
    else if (nmu && o->scheme.alloc == KC_ALLOC_CONSECUTIVE)
        s = memory_binary(pl, err);
    uint64_t pending = 0, pmask = (1ULL << pl->n) - 1;
    for (int j = pl->p - 1; !s && j >= 0; j--) {
        switch (o->method) {
        case KC_BFLY_DIRECT:
        case KC_BFLY_CONVERT: s = (pl->col[j] & pmask) ? xc(pl, j, 0, err) : bfly(pl, j, err); break;
        case KC_BFLY_ONE_PER_PROC: s = stage_one_per_proc(pl, j, &pending, err); break;
        case KC_BFLY_BISECT_INTERPROC: s = stage_interproc(pl, j, err); break;
        default:
            if ((pl->col[j] & pmask) && o->method == KC_BFLY_MULTISECT && nmu == pl->n &&
                o->scheme.alloc == KC_ALLOC_CYCLIC && sect_fits(pl, j))
                s = sectioning(pl, j, err);
            else if (pl->col[j] & pmask)
                s = reduce_local(pl, j, nmu, err);
            if (!s)
                s = bfly(pl, j, err);
        }
    }
    return s;
}

kc_status kci_bfly_plan(const kc_bfly_opts *o, int paper_form, kci_plan *pl, kc_err *err)
{
    kc_status s = plan_emulation(o, (int)o->out, paper_form, pl, err);
    /* A Gray output the renamings could not reach (consecutive allocation,
     * bisect-interproc): a binary field and n - 1 conversion exchanges
     * cost far less than converting what the Gray shaping left. */
    if (!s && o->out == KC_BFLY_OUT_GRAY && kci_proc_encoding(pl, NULL) != KC_BFLY_ENC_GRAY) {
        kci_plan_free(pl);
        s = plan_emulation(o, KC_BFLY_OUT_BINARY, paper_form, pl, err);
    }
    if (!s)
        s = output_encoding(o, pl, err);
    if (s) {
        kci_plan_free(pl);
        return s;
    }
    split_pieces(pl);
    return KC_OK;
}

void kci_plan_free(kci_plan *pl)
{
    free(pl->ops);
    pl->ops = NULL;
    pl->nops = pl->cap = 0;
}
