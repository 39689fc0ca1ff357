/* One router of the router-pipeline loop in one cycle (pipeline.h): VC
 * allocation for the heads at the front of their input VCs, then switch
 * allocation and traversal, with the allocators the options name:
 *   fcfs         the seeds' order: heads by arrival (then input VC id) take
 *                the first free VC their routing lists; the switch goes to
 *                the oldest message (injection order) first;
 *   round-robin  separable input-first: each input picks one request by
 *                its round-robin pointer, each output one of those by its
 *                own; pointers move past a winner;
 *   islip        iSLIP, one iteration (BookSim2's default for both
 *                allocators): each output grants the requesting input
 *                next after its pointer, each input accepts the granting
 *                output next after its own; pointers move on an accept.
 * With shared input ports each input port first picks, per output, one
 * of its VCs round-robin (BookSim2's _sw_rr_offset), so it offers one flit
 * per output and sends at most one per cycle.
 * Stage timing (R, va_delay vd, S, W, credit delay C): a head whose
 * routing starts at cycle a may win a VC from a + R - vd and the switch
 * from a + R, and vd cycles after its VC; a flit that wins the switch at
 * s reaches the next buffer at s + S + W (its tail is delivered at
 * s + S + 1 from an ejection VC); its buffer slot is usable upstream from
 * s + C; a VC freed at s may be allocated from s + 1. */
#include "pipeline.h"

#include <string.h>

#include "core/grow.h"
#include "core/sort.h"

int kci_pfifo_push(kci_pfifo *f, uint32_t t, uint32_t ivc, uint32_t w, uint32_t idx)
{
    if (f->end == f->cap) {
        if (f->head > f->cap / 2) { /* slide the live part down rather than grow */
            memmove(f->a, f->a + f->head, (f->end - f->head) * sizeof *f->a);
            f->end -= f->head;
            f->head = 0;
        } else if (KCI_RESERVE(f->a, f->cap, f->end + 1, 1024)) {
            return -1;
        }
    }
    f->a[f->end++] = (kci_pflight){t, ivc, w, idx};
    return 0;
}

uint32_t kci_pipe_ivc_node(const kci_engine *e, uint32_t g)
{
    const kci_pipe *p = e->pipe;
    if (g < p->inj0)
        return e->net->next_node[g / p->vcs];
    return (g - p->inj0) / (p->ninjp * p->nivp);
}

uint32_t kci_pipe_ivc_local(const kci_engine *e, uint32_t g)
{
    const kci_pipe *p = e->pipe;
    if (g < p->inj0)
        return (g / p->vcs % p->ports) * p->vcs + g % p->vcs;
    return p->ports * p->vcs + (g - p->inj0) % (p->ninjp * p->nivp);
}


/* Router-local index of ovc o at the router it leaves. */
static uint32_t ovc_local(const kci_pipe *p, uint32_t o)
{
    if (o < p->inj0)
        return o % (p->ports * p->vcs);
    return p->ports * p->vcs + (o - p->ej0) % (p->nejp * p->nevp);
}

/* The switch input of local ivc l: its port's first ivc when input ports
 * are shared, else l itself; *size: the VCs of that input. */
static uint32_t in_unit(const kci_pipe *p, uint32_t l, uint32_t *size)
{
    uint32_t nv = p->ports * p->vcs;
    *size = 1;
    if (!p->shared_in)
        return l;
    *size = l < nv ? p->vcs : p->nivp;
    return l < nv ? l - l % p->vcs : nv + (l - nv) / p->nivp * p->nivp;
}

/* The switch output of local ovc lo: its port's first ovc, or lo when the
 * VCs of network links are independent. */
static uint32_t out_unit(const kci_pipe *p, uint32_t lo)
{
    uint32_t nv = p->ports * p->vcs;
    if (lo < nv)
        return p->independent ? lo : lo - lo % p->vcs;
    return nv + (lo - nv) / p->nevp * p->nevp;
}

static inline uint32_t rr_dist(uint32_t x, uint32_t ptr, uint32_t n) { return (x + n - ptr) % n; }

static inline int cmp_age(const void *ctx, const kci_preq *a, const kci_preq *b)
{
    (void)ctx;
    return a->age < b->age ? -1 : a->age > b->age;
}

KCI_MERGE_SORT_DEFINE(sort_by_age, kci_preq, cmp_age)

/* First come first served: by age (the toolbox's stable sort), each
 * request wins when its input and output are still unused. */
static uint32_t alloc_fcfs(kci_pipe *p, kci_preq *r, uint32_t n, uint32_t *win)
{
    sort_by_age(r, n, p->req_tmp, NULL);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (p->asel[r[i].in] < 0 && p->gsel[r[i].out] < 0) {
            p->asel[r[i].in] = p->gsel[r[i].out] = (int32_t)i;
            win[m++] = i;
        }
    return m;
}

/* iSLIP (islip 1) or separable input-first (0), one iteration, with the
 * pointers inp[in] (over outputs) and outp[out] (over inputs). */
static uint32_t alloc_rr(kci_pipe *p, const kci_preq *r, uint32_t n, int islip, uint16_t *inp, uint16_t *outp,
                         uint32_t *win)
{
    uint32_t ni = p->nin, no = p->nout, m = 0;
    int32_t *first = islip ? p->gsel : p->asel, *second = islip ? p->asel : p->gsel;
    for (uint32_t i = 0; i < n; i++) { /* grants (iSLIP) or input choices (separable) */
        uint32_t key = islip ? r[i].out : r[i].in;
        int32_t b = first[key];
        if (b < 0 || (islip ? rr_dist(r[i].in, outp[key], ni) < rr_dist(r[b].in, outp[key], ni)
                            : rr_dist(r[i].out, inp[key], no) < rr_dist(r[b].out, inp[key], no)))
            first[key] = (int32_t)i;
    }
    for (uint32_t i = 0; i < n; i++) { /* accepts, or output choices */
        uint32_t key = islip ? r[i].out : r[i].in, key2 = islip ? r[i].in : r[i].out;
        if (first[key] != (int32_t)i)
            continue;
        int32_t b = second[key2];
        if (b < 0 || (islip ? rr_dist(r[i].out, inp[key2], no) < rr_dist(r[b].out, inp[key2], no)
                            : rr_dist(r[i].in, outp[key2], ni) < rr_dist(r[b].in, outp[key2], ni)))
            second[key2] = (int32_t)i;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t key2 = islip ? r[i].in : r[i].out;
        if (second[key2] == (int32_t)i) {
            win[m++] = i;
            inp[r[i].in] = (uint16_t)((r[i].out + 1) % no);
            outp[r[i].out] = (uint16_t)((r[i].in + 1) % ni);
        }
    }
    return m;
}

/* Runs the configured allocator on r[0..n) and leaves the scratch clean;
 * the winners' indices into win, their count returned. */
static uint32_t allocate(kci_pipe *p, kci_preq *r, uint32_t n, uint16_t *inp, uint16_t *outp, uint32_t *win)
{
    uint32_t m = p->arb == KC_ARB_FCFS ? alloc_fcfs(p, r, n, win)
                                       : alloc_rr(p, r, n, p->arb == KC_ARB_ISLIP, inp, outp, win);
    for (uint32_t i = 0; i < n; i++)
        p->asel[r[i].in] = p->gsel[r[i].out] = -1;
    return m;
}

/* The ovcs a head of worm w in ivc g at router v may take (routing, or
 * every ejection VC at its destination) into cand; their count. */
static int head_candidates(const kci_engine *e, const kci_pipe *p, uint32_t v, uint32_t g, uint32_t w,
                           uint32_t *cand)
{
    const kci_worm *wm = &p->worms[w];
    if (wm->dst == v) {
        uint32_t ne = p->nejp * p->nevp;
        for (uint32_t k = 0; k < ne; k++)
            cand[k] = p->ej0 + v * ne + k;
        return (int)ne;
    }
    uint32_t in = g < p->inj0 ? g : kc_simnet_injch(e->net, v, 0);
    return kc_simroute_candidates_ties(e->route, e->net, v, wm->dst, in, p->ties[w], cand);
}

/* VC allocation at router v: heads at the front of their ivc, routed, ask
 * for the free ovcs their routing lists. */
static void vc_allocate(kci_engine *e, kci_pipe *p, uint32_t v)
{
    uint32_t cand[KC_SIMROUTE_MAX], *win = p->win, n = 0;
    uint32_t now = e->now;
    for (uint32_t l = 0; l < p->nin; l++) {
        if (l < 64 && !(p->occ[v] >> l & 1))
            continue; /* empty */
        uint32_t g = p->rivc[(size_t)v * p->nin + l];
        if (g == KC_SIM_NONE)
            continue;
        kci_pivc *b = &p->ivc[g];
        size_t slot = (size_t)g * p->depth + b->head;
        if (!b->cnt || b->out >= 0 || p->bi[slot] != 0 || now + p->va_delay < b->ready + p->route_delay)
            continue;
        int nc = head_candidates(e, p, v, g, p->bw[slot], cand);
        for (int k = 0; k < nc; k++) {
            kci_povc *o = &p->ovc[cand[k]];
            if (o->owner < 0 && o->avail <= now)
                p->req[n++] = (kci_preq){l, ovc_local(p, cand[k]), g, cand[k], (uint64_t)b->ready << 32 | g};
        }
    }
    if (!n)
        return;
    uint32_t m = allocate(p, p->req, n, &p->va_in_ptr[(size_t)v * p->nin], &p->va_out_ptr[(size_t)v * p->nout], win);
    for (uint32_t i = 0; i < m; i++) {
        const kci_preq *r = &p->req[win[i]];
        kci_pivc *b = &p->ivc[r->ivc];
        b->out = (int32_t)r->ovc;
        b->sa_from = now + p->va_delay;
        p->rva[v]--;
        p->ovc[r->ovc].owner = (int32_t)p->bw[(size_t)r->ivc * p->depth + b->head];
    }
}

/* The flit leaving into an ejection VC: delivered; the tail finishes its
 * worm. */
static void eject_flit(kci_engine *e, kci_pipe *p, uint32_t o, uint32_t w, int tail)
{
    kci_worm *wm = &p->worms[w];
    kci_count_delivered(e, wm->src, 1, e->in_window);
    if (!tail)
        return;
    kci_pipe_release(p, o, e->now);
    kci_engine_finish(e, wm, e->now + p->ej_delay);
    p->free_w[p->nfree++] = w;
    e->nactive--;
}

/* The front flit of ivc g at router v won the switch: it leaves for its
 * ovc; the slot's credit goes upstream; a tail frees what it holds. */
static void depart(kci_engine *e, kci_pipe *p, uint32_t v, uint32_t g)
{
    kci_pivc *b = &p->ivc[g];
    size_t slot = (size_t)g * p->depth + b->head;
    uint32_t w = p->bw[slot], idx = p->bi[slot], o = (uint32_t)b->out, now = e->now;
    int tail = idx + 1 == p->worms[w].len;
    b->head = (uint16_t)((b->head + 1u) % p->depth);
    if (!--b->cnt && p->nin <= 64)
        p->occ[v] &= ~(UINT64_C(1) << kci_pipe_ivc_local(e, g));
    p->rbuf[v]--;
    e->progress = 1;
    if (!p->credit_delay)
        p->ovc[g].credits++;
    else if (kci_pfifo_push(&p->credit, now + p->credit_delay, g, 0, 0))
        e->nomem = 1;
    if (tail && !p->tail_in)
        kci_pipe_release(p, g, now);
    if (o >= p->ej0) {
        eject_flit(e, p, o, w, tail);
    } else {
        p->ovc[o].credits--;
        kci_count_link(e, o / p->vcs, 1, e->in_window);
        if (kci_pfifo_push(&p->link, now + p->net_delay, o, w, idx))
            e->nomem = 1;
        if (tail && p->tail_in)
            kci_pipe_release(p, o, now);
    }
    if (tail) {
        b->out = -1;
        if (b->cnt) { /* a head behind the tail starts routing the next cycle */
            uint32_t a = p->ba[(size_t)g * p->depth + b->head];
            b->ready = a > now + 1 ? a : now + 1;
            p->rva[v]++;
        }
    }
}

/* Local ivc l asks for the switch when its front flit may leave: it has
 * an ovc, a head has waited its cycles, and the ovc has a credit. Adds the
 * request unless its input already asks for that output (shared ports:
 * the first VC after the port's pointer wins); returns the new count. */
static uint32_t sa_request(kci_engine *e, kci_pipe *p, uint32_t v, uint32_t l, uint32_t n)
{
    uint32_t g = p->rivc[(size_t)v * p->nin + l];
    if (g == KC_SIM_NONE)
        return n;
    const kci_pivc *b = &p->ivc[g];
    size_t slot = (size_t)g * p->depth + b->head;
    if (!b->cnt || b->out < 0 || (p->bi[slot] == 0 && e->now < b->sa_from))
        return n;
    uint32_t o = (uint32_t)b->out, size, iu = in_unit(p, l, &size), ou = out_unit(p, ovc_local(p, o));
    if (o < p->ej0 && !p->ovc[o].credits)
        return n;
    if (p->arb != KC_ARB_FCFS)
        for (uint32_t k = n; k > 0 && p->req[k - 1].in == iu; k--)
            if (p->req[k - 1].out == ou)
                return n;
    p->req[n] = (kci_preq){iu, ou, g, o, p->worms[p->bw[slot]].seq};
    return n + 1;
}

/* Switch allocation and traversal at router v. */
static void sw_allocate(kci_engine *e, kci_pipe *p, uint32_t v)
{
    uint32_t *win = p->win, n = 0;
    const uint16_t *off = &p->rr_off[(size_t)v * p->nin];
    for (uint32_t u = 0; u < p->nin;) {
        uint32_t size;
        in_unit(p, u, &size);
        uint64_t bits = size < 64 ? (UINT64_C(1) << size) - 1 : ~UINT64_C(0);
        if (u >= 64 || p->occ[v] >> u & bits) /* some VC of this input holds flits */
            for (uint32_t k = 0; k < size; k++)
                n = sa_request(e, p, v, u + (off[u] + k) % size, n);
        u += size;
    }
    if (!n)
        return;
    uint32_t m = allocate(p, p->req, n, &p->in_ptr[(size_t)v * p->nin], &p->out_ptr[(size_t)v * p->nout], win);
    for (uint32_t i = 0; i < m; i++) {
        const kci_preq *r = &p->req[win[i]];
        uint32_t size, l = kci_pipe_ivc_local(e, r->ivc), iu = in_unit(p, l, &size);
        p->rr_off[(size_t)v * p->nin + iu] = (uint16_t)((l - iu + 1) % size);
        depart(e, p, v, r->ivc);
    }
}

void kci_pipe_router(kci_engine *e, uint32_t v)
{
    if (e->pipe->rva[v])
        vc_allocate(e, e->pipe, v);
    sw_allocate(e, e->pipe, v);
}
