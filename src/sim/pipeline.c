/* The router-pipeline loop: BookSim2's input-queued VC router as options
 * of the seeds' model (pipeline.h names its parts). This file holds its
 * state (set up from the network and the options, freed, counted for the
 * conservation check), the flits and credits in flight, and the sources:
 * each injection port writes one flit per cycle of its message into an
 * injection VC it took round-robin among the free ones with credit. The
 * engine's generation, source queues and statistics are shared with the
 * other loops (calendar.c, deliver.c), so the results read alike.
 * Cost per cycle: O(nodes x injection ports) for the sources plus, per
 * router holding flits, O(its VCs x candidates). */
#include "pipeline.h"

#include <stdlib.h>

#include "core/grow.h"

/* The sizes and timing of the pipe from the network and cfg. */
static void pipe_shape(kci_pipe *p, const kc_simnet *net, const kc_simconfig *c, int independent)
{
    p->ports = (uint32_t)net->ports;
    p->vcs = (uint32_t)net->vcs;
    p->nivp = c->inj_vcs ? (uint32_t)c->inj_vcs : 1;
    p->ninjp = c->inj_vcs ? 1 : (uint32_t)net->inj;
    p->nevp = c->ej_vcs ? (uint32_t)c->ej_vcs : 1;
    p->nejp = c->ej_vcs ? 1 : (uint32_t)net->ej;
    p->nin = p->ports * p->vcs + p->ninjp * p->nivp;
    p->nout = p->ports * p->vcs + p->nejp * p->nevp;
    p->inj0 = net->net_channels;
    p->nivc = p->inj0 + net->nodes * p->ninjp * p->nivp;
    p->ej0 = p->nivc;
    p->novc = p->ej0 + net->nodes * p->nejp * p->nevp;
    p->depth = (uint32_t)net->depth;
    p->net_delay = (uint32_t)(c->switch_delay + c->link_latency);
    p->ej_delay = (uint32_t)(c->switch_delay + 1);
    p->inj_delay = (uint32_t)kc_simconfig_inject_latency(c);
    p->credit_delay = (uint32_t)c->credit_delay;
    p->route_delay = (uint32_t)c->route_delay;
    p->va_delay = (uint32_t)c->va_delay;
    p->tail_in = c->vc_release == KC_VCREL_TAIL_IN;
    p->shared_in = c->input_port == KC_INPORT_SHARED;
    p->independent = independent;
    p->arb = c->arbitration;
}

/* The arrays of the pipe; 0 when out of memory. */
static int pipe_alloc(kci_pipe *p, uint32_t nodes)
{
    size_t slots = (size_t)p->nivc * p->depth, rn = (size_t)nodes * p->nin, ro = (size_t)nodes * p->nout;
    p->rivc = malloc(rn * sizeof *p->rivc);
    p->bw = malloc(slots * sizeof *p->bw);
    p->bi = malloc(slots * sizeof *p->bi);
    p->ba = malloc(slots * sizeof *p->ba);
    p->ivc = calloc(p->nivc, sizeof *p->ivc);
    p->ovc = calloc(p->novc, sizeof *p->ovc);
    p->src = calloc((size_t)nodes * p->ninjp, sizeof *p->src);
    p->rbuf = calloc(nodes, sizeof *p->rbuf);
    p->rva = calloc(nodes, sizeof *p->rva);
    p->occ = calloc(nodes, sizeof *p->occ);
    p->in_ptr = calloc(rn, sizeof *p->in_ptr);
    p->va_in_ptr = calloc(rn, sizeof *p->va_in_ptr);
    p->rr_off = calloc(rn, sizeof *p->rr_off);
    p->out_ptr = calloc(ro, sizeof *p->out_ptr);
    p->va_out_ptr = calloc(ro, sizeof *p->va_out_ptr);
    p->req = malloc((size_t)p->nin * (p->nout + KC_SIMROUTE_MAX) * sizeof *p->req);
    p->req_tmp = malloc((size_t)p->nin * (p->nout + KC_SIMROUTE_MAX) * sizeof *p->req_tmp);
    p->win = malloc((size_t)p->nin * (p->nout + KC_SIMROUTE_MAX) * sizeof *p->win);
    p->gsel = malloc(p->nout * sizeof *p->gsel);
    p->asel = malloc(p->nin * sizeof *p->asel);
    return p->rivc && p->bw && p->bi && p->ba && p->ivc && p->ovc && p->src && p->rbuf && p->rva && p->occ && p->in_ptr &&
           p->va_in_ptr && p->rr_off && p->out_ptr && p->va_out_ptr && p->req && p->req_tmp && p->win && p->gsel && p->asel;
}

/* Initial state: empty buffers with depth credits, free VCs, the table of
 * each router's ivcs (a mesh edge has none on its missing port). */
static void pipe_reset(kci_engine *e, kci_pipe *p)
{
    const kc_simnet *net = e->net;
    for (size_t i = 0; i < (size_t)net->nodes * p->nin; i++)
        p->rivc[i] = KC_SIM_NONE;
    for (uint32_t link = 0; link < net->nodes * p->ports; link++) {
        uint32_t v = net->next_node[link];
        for (uint32_t vc = 0; v != KC_SIM_NONE && vc < p->vcs; vc++)
            p->rivc[(size_t)v * p->nin + (link % p->ports) * p->vcs + vc] = link * p->vcs + vc;
    }
    for (uint32_t g = p->inj0; g < p->nivc; g++)
        p->rivc[(size_t)kci_pipe_ivc_node(e, g) * p->nin + kci_pipe_ivc_local(e, g)] = g;
    for (uint32_t g = 0; g < p->nivc; g++)
        p->ivc[g].out = -1;
    for (uint32_t v = 0; p->nin > 64 && v < net->nodes; v++)
        p->occ[v] = ~UINT64_C(0);
    for (uint32_t o = 0; o < p->novc; o++)
        p->ovc[o] = (kci_povc){-1, 0, o < p->ej0 ? p->depth : UINT32_MAX};
    for (size_t i = 0; i < (size_t)net->nodes * p->ninjp; i++)
        p->src[i].w = -1;
    for (uint32_t i = 0; i < p->nout; i++)
        p->gsel[i] = -1;
    for (uint32_t i = 0; i < p->nin; i++)
        p->asel[i] = -1;
}

kc_status kci_pipe_init(kci_engine *e, kc_err *err)
{
    kci_pipe *p = calloc(1, sizeof *p);
    e->pipe = p;
    if (!p)
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    pipe_shape(p, e->net, e->cfg, e->vc_independent);
    if (!pipe_alloc(p, e->net->nodes))
        return kc_fail(err, KC_ENOMEM, "out of memory for the simulation");
    pipe_reset(e, p);
    return KC_OK;
}

void kci_pipe_free(kci_engine *e)
{
    kci_pipe *p = e->pipe;
    if (!p)
        return;
    void *arrays[] = {p->rivc,   p->bw,        p->bi,         p->ba,      p->ivc,    p->ovc,   p->src,
                      p->rbuf,   p->rva,       p->occ,       p->in_ptr,    p->va_in_ptr,  p->rr_off,  p->out_ptr, p->va_out_ptr,
                      p->req,    p->req_tmp, p->win,       p->gsel,      p->asel,       p->ties,    p->link.a, p->inj.a, p->credit.a,
                      p->worms,  p->free_w};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    free(p);
    e->pipe = NULL;
}

/* Flit (w, idx) enters ivc g now. A head reaching the front of an empty
 * buffer starts routing in this cycle. */
static void buffer_in(kci_engine *e, kci_pipe *p, uint32_t g, uint32_t w, uint32_t idx)
{
    kci_pivc *b = &p->ivc[g];
    if (b->cnt >= p->depth) {
        e->overflow = 1;
        return;
    }
    size_t slot = (size_t)g * p->depth + (b->head + b->cnt) % p->depth;
    p->bw[slot] = w;
    p->bi[slot] = idx;
    p->ba[slot] = e->now;
    uint32_t v = kci_pipe_ivc_node(e, g);
    if (!b->cnt && p->nin <= 64)
        p->occ[v] |= UINT64_C(1) << kci_pipe_ivc_local(e, g);
    if (!b->cnt++ && idx == 0) { /* an empty buffer has no ovc: this head waits for one */
        b->ready = e->now;
        p->rva[v]++;
    }
    p->rbuf[v]++;
}

/* What is due this cycle: credits, then flits from links and sources. */
static void arrivals(kci_engine *e, kci_pipe *p)
{
    kci_pfifo *f = &p->credit;
    for (; f->head < f->end && f->a[f->head].t <= e->now; f->head++)
        p->ovc[f->a[f->head].ivc].credits++;
    kci_pfifo *fl[2] = {&p->link, &p->inj};
    for (int k = 0; k < 2; k++)
        for (f = fl[k]; f->head < f->end && f->a[f->head].t <= e->now; f->head++)
            buffer_in(e, p, f->a[f->head].ivc, f->a[f->head].w, f->a[f->head].idx);
}

/* A free worm slot (doubling the slots when none is left); -1 when out
 * of memory. */
static int64_t worm_slot(kci_pipe *p)
{
    if (!p->nfree) {
        uint32_t cap = p->wcap ? 2 * p->wcap : 256;
        if (KCI_RESIZE(p->worms, cap) || KCI_RESIZE(p->ties, cap) || KCI_RESIZE(p->free_w, cap))
            return -1;
        for (uint32_t i = cap; i > p->wcap; i--)
            p->free_w[p->nfree++] = i - 1;
        p->wcap = cap;
    }
    return p->free_w[--p->nfree];
}

/* The message at the head of x's queue becomes worm wi (kci_dequeue),
 * its tie bits taken out of the id field, its injection order given. */
static void take_message(kci_engine *e, kci_pipe *p, uint32_t x, uint32_t wi)
{
    kci_worm *w = &p->worms[wi];
    kci_dequeue(e, x, w);
    p->ties[wi] = w->id; /* the tie bits (calendar.c) */
    w->id = 0;
    w->seq = e->next_seq++;
    e->nactive++;
}

/* A free injection VC of port s (node x, port j) with credit, round robin
 * after the last one taken; KC_SIM_NONE when there is none. */
static uint32_t free_inj_vc(const kci_engine *e, const kci_pipe *p, const kci_psrc *s, uint32_t x, uint32_t j)
{
    uint32_t g0 = p->inj0 + (x * p->ninjp + j) * p->nivp;
    for (uint32_t k = 1; k <= p->nivp; k++) {
        uint32_t vc = (s->last + k) % p->nivp;
        const kci_povc *o = &p->ovc[g0 + vc];
        if (o->owner < 0 && o->avail <= e->now && o->credits)
            return g0 + vc;
    }
    return KC_SIM_NONE;
}

/* Port j of source x writes one flit, starting the next queued message
 * when it has none. */
static void source_port(kci_engine *e, kci_pipe *p, uint32_t x, uint32_t j)
{
    kci_psrc *s = &p->src[x * p->ninjp + j];
    if (s->w < 0) {
        uint32_t g;
        if (e->queue_head[x] < 0 || (g = free_inj_vc(e, p, s, x, j)) == KC_SIM_NONE)
            return;
        int64_t slot = worm_slot(p);
        if (slot < 0) {
            e->nomem = 1;
            return;
        }
        uint32_t wi = (uint32_t)slot;
        take_message(e, p, x, wi);
        *s = (kci_psrc){(int32_t)wi, 0, g, (g - p->inj0) % p->nivp};
        p->ovc[g].owner = (int32_t)wi;
    }
    kci_povc *o = &p->ovc[s->ivc];
    if (!o->credits)
        return;
    o->credits--;
    if (kci_pfifo_push(&p->inj, e->now + p->inj_delay, s->ivc, (uint32_t)s->w, s->written++))
        e->nomem = 1;
    kci_worm *w = &p->worms[s->w];
    w->src_left--;
    e->progress = 1;
    if (s->written == w->len) {
        if (p->tail_in)
            kci_pipe_release(p, s->ivc, e->now);
        s->w = -1;
    }
}

void kci_pipe_cycle(kci_engine *e)
{
    kci_pipe *p = e->pipe;
    e->nfresh_queues = 0; /* the sources are visited in node order below: no lists needed */
    arrivals(e, p);
    for (uint32_t v = 0; v < e->net->nodes; v++)
        if (p->rbuf[v])
            kci_pipe_router(e, v);
    /* after the routers: a slot freed at the source router this cycle is
     * written at once with credit delay 0 (as the seeds' injection
     * channel refills as it empties); what is written arrives I later */
    for (uint32_t x = 0; x < e->net->nodes; x++)
        for (uint32_t j = 0; j < p->ninjp; j++)
            if (e->queue_head[x] >= 0 || p->src[x * p->ninjp + j].w >= 0)
                source_port(e, p, x, j);
}

void kci_pipe_flits(const kci_engine *e, uint64_t *buffered, uint64_t *at_source)
{
    const kci_pipe *p = e->pipe;
    uint64_t b = 0, s = 0;
    for (uint32_t g = 0; g < p->nivc; g++) {
        b += p->ivc[g].cnt;
        if (p->ivc[g].cnt > p->depth)
            b += UINT32_MAX; /* cannot happen: buffer_in refuses; breaks the count if it did */
    }
    b += (p->link.end - p->link.head) + (p->inj.end - p->inj.head);
    for (size_t i = 0; i < (size_t)e->net->nodes * p->ninjp; i++)
        if (p->src[i].w >= 0)
            s += p->worms[p->src[i].w].src_left;
    *buffered = b;
    *at_source = e->queued_flits + s;
}
