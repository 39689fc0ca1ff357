/* slotgrid.c - the slots of a general network as a grid, for the moves of
 * the general mapper that need geometry (block reflections, a neighbour of
 * a node, a small box, the grid fold).
 *
 * Why: the mapper permutes slots (kcube/topology.h), not routers. With C
 * endpoints per router slot s = router * C + e, so the slots of the whole
 * network are the router grid with one more axis of side C, innermost; an
 * allocation that is a box in router order (axis 0 fastest, no wrap-around)
 * is that box's grid, and any other allocation is one line in file order
 * (Slurm lists routers in an order that keeps neighbours near). The grid
 * only guides which candidates the search tries; every candidate is counted
 * exactly on the real network, so a poor grid costs time, never
 * correctness. The grid is a kc_topology built by hand: its line may be
 * longer than KC_TOPO_MAX_SIDE, so it is never validated, only walked with
 * kc_topology_coord and kc_topology_link_to. */
#include <string.h>

#include "gmap_internal.h"

/* 1 when alloc lists, in order, every router of a box (axis 0 fastest);
 * lo[] and len[] get its corner and sides. O(count n). */
static int alloc_box(const kc_topology *t, unsigned *lo, unsigned *len)
{
    unsigned hi[KC_TOPO_MAX_DIMS];
    for (int i = 0; i < t->n; i++) {
        lo[i] = (unsigned)t->side[i];
        hi[i] = 0;
    }
    for (uint32_t j = 0; j < t->alloc_count; j++)
        for (int i = 0; i < t->n; i++) {
            unsigned c = kc_topology_coord(t, t->alloc[j], i);
            lo[i] = c < lo[i] ? c : lo[i];
            hi[i] = c > hi[i] ? c : hi[i];
        }
    uint64_t size = 1;
    for (int i = 0; i < t->n; i++) {
        len[i] = hi[i] - lo[i] + 1;
        size *= len[i];
    }
    if (size != t->alloc_count)
        return 0;
    for (uint32_t j = 0; j < t->alloc_count; j++) {
        uint64_t rest = j, x = 0, st = 1;
        for (int i = 0; i < t->n; i++) {
            x += (lo[i] + rest % len[i]) * st;
            rest /= len[i];
            st *= (uint64_t)t->side[i];
        }
        if (x != t->alloc[j])
            return 0;
    }
    return 1;
}

static void add_axis(kc_topology *g, int side, int wraps)
{
    if (side < 2)
        return;
    g->side[g->n] = side;
    if (wraps)
        g->wrap |= (uint64_t)1 << g->n;
    g->nodes *= (uint64_t)side;
    g->n++;
}

void kci_slot_grid(const kc_topology *t, kc_topology *g)
{
    *g = *t;
    if (kc_topology_is_plain(t))
        return;
    g->n = 0;
    g->nodes = 1;
    g->wrap = 0;
    g->endpoints = 1;
    g->alloc = NULL;
    g->alloc_count = 0;
    add_axis(g, kc_topology_conc(t), 0);
    unsigned lo[KC_TOPO_MAX_DIMS], len[KC_TOPO_MAX_DIMS];
    if (!t->alloc) {
        for (int i = 0; i < t->n; i++)
            add_axis(g, t->side[i], kc_topology_wraps(t, i));
    } else if (alloc_box(t, lo, len)) {
        for (int i = 0; i < t->n; i++) /* a box spanning a whole ring keeps its wrap */
            add_axis(g, (int)len[i], kc_topology_wraps(t, i) && (int)len[i] == t->side[i]);
    } else if (t->alloc_count > 1) {
        add_axis(g, (int)t->alloc_count, 0);
    }
    g->k = g->n ? g->side[0] : 0;
    for (int i = 1; i < g->n; i++)
        g->k = g->side[i] == g->k ? g->k : 0;
    g->kind = g->wrap ? KC_TOPO_TORUS : KC_TOPO_MESH;
}
