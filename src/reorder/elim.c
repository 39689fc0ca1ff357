#include "elim.h"

#include <string.h>

#include "core/bits.h"

void kci_elim_reset(kci_elim *e)
{
    e->set = 0;
    e->pivrows = 0;
    e->npiv = e->nnull = 0;
    e->grow = e->dep = 0;
}

void kci_elim_copy(kci_elim *dst, const kci_elim *src)
{
    dst->set = src->set;
    dst->pivrows = src->pivrows;
    dst->npiv = src->npiv;
    dst->nnull = src->nnull;
    dst->grow = src->grow;
    dst->dep = src->dep;
    size_t np = (size_t)src->npiv, nn = (size_t)src->nnull;
    memcpy(dst->pval, src->pval, np * sizeof(uint64_t));
    memcpy(dst->phist, src->phist, np * sizeof(uint64_t));
    memcpy(dst->nval, src->nval, nn * sizeof(uint64_t));
    memcpy(dst->nhist, src->nhist, nn * sizeof(uint64_t));
    memcpy(dst->pidx, src->pidx, sizeof dst->pidx);
}

/* Add a pivot that is 0 on every existing pivot row, after clearing its
 * row from the existing pivots (branch-free: the loop vectorises). */
static void add_pivot(kci_elim *e, uint64_t v, uint64_t h, int row)
{
    for (int i = 0; i < e->npiv; i++) {
        uint64_t sel = -((e->pval[i] >> row) & 1);
        e->pval[i] ^= v & sel;
        e->phist[i] ^= h & sel;
    }
    e->pval[e->npiv] = v;
    e->phist[e->npiv] = h;
    e->pidx[row] = (uint8_t)e->npiv;
    e->pivrows |= 1ULL << row;
    e->npiv++;
}

void kci_elim_add(kci_elim *e, int m, uint64_t col_m)
{
    uint64_t bit = 1ULL << m;
    e->set |= bit;

    /* Row m joins S: null columns must vanish on it. If one does not, it
     * becomes the pivot of row m (it is 0 on every other row of S). */
    int k = -1;
    for (int i = 0; i < e->nnull; i++)
        if (e->nval[i] & bit) {
            k = i;
            break;
        }
    if (k >= 0) {
        uint64_t v = e->nval[k], h = e->nhist[k];
        e->nnull--;
        e->nval[k] = e->nval[e->nnull];
        e->nhist[k] = e->nhist[e->nnull];
        for (int i = 0; i < e->nnull; i++) {
            uint64_t sel = -((e->nval[i] >> m) & 1);
            e->nval[i] ^= v & sel;
            e->nhist[i] ^= h & sel;
        }
        add_pivot(e, v, h, m);
    }

    /* Column m joins. Pivots are fully reduced, so the pivots to subtract
     * are read off the column's bits on pivot rows, all at once. What is
     * left on S makes a new pivot, otherwise a null column. */
    uint64_t v = col_m, h = bit;
    for (uint64_t sel = v & e->pivrows; sel; sel &= sel - 1) {
        int i = e->pidx[kci_ctz64(sel)];
        v ^= e->pval[i];
        h ^= e->phist[i];
    }
    uint64_t w = v & e->set;
    if (w) {
        add_pivot(e, v, h, kci_ctz64(w));
    } else {
        e->nval[e->nnull] = v;
        e->nhist[e->nnull] = h;
        e->nnull++;
    }

    uint64_t grow = 0, dep = 0;
    for (int i = 0; i < e->nnull; i++) {
        grow |= e->nval[i];
        dep |= e->nhist[i];
    }
    e->grow = grow & ~e->set;
    e->dep = dep;
}

void kci_elim_walk_init(kci_elim_walk *w, const uint64_t *cols, int n)
{
    w->n = n;
    w->depth = 0;
    memcpy(w->col, cols, (size_t)n * sizeof(uint64_t));
    kci_elim_reset(&w->frame[0]);
}

const kci_elim *kci_elim_walk_goto(kci_elim_walk *w, uint64_t target)
{
    uint64_t cur = w->frame[w->depth].set;
    if (cur == target)
        return &w->frame[w->depth];
    int h = 63 - kci_clz64(cur ^ target);
    /* Elements above h are shared; keep the frames that hold only them. */
    w->depth = h == 63 ? 0 : kci_popcount64(cur >> (h + 1));
    uint64_t rest = target & (h == 63 ? ~0ULL : ((1ULL << (h + 1)) - 1));
    while (rest) {
        int m = 63 - kci_clz64(rest);
        rest ^= 1ULL << m;
        kci_elim_copy(&w->frame[w->depth + 1], &w->frame[w->depth]);
        w->depth++;
        kci_elim_add(&w->frame[w->depth], m, w->col[m]);
    }
    return &w->frame[w->depth];
}
