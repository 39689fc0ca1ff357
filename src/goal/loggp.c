/* The processors of a validated GOAL schedule as an event-driven list
 * schedule (kci_goal_proc, shared with the flit-level replay in src/app) and
 * the contention-free LogGP-style time built on it (kcube/goal.h,
 * docs/goal.md). Events of equal time are taken starts and ends first, then
 * arrivals, then ready operations in file order, so the result does not
 * depend on the heap's tie-breaking. */
#include <stdlib.h>
#include <string.h>

#include "goal_internal.h"
#include "kcube/timeline.h"

enum { EV_START, EV_END, EV_ARRIVE, EV_READY };

static int ev_less(const kci_goal_ev *a, const kci_goal_ev *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->type != b->type)
        return a->type < b->type;
    return a->op < b->op;
}

static void push(kci_goal_heap *h, double t, int type, size_t op)
{
    size_t i = h->n++;
    h->e[i] = (kci_goal_ev){t, type, op};
    while (i > 0 && ev_less(&h->e[i], &h->e[(i - 1) / 2])) {
        kci_goal_ev x = h->e[i];
        h->e[i] = h->e[(i - 1) / 2];
        h->e[(i - 1) / 2] = x;
        i = (i - 1) / 2;
    }
}

static kci_goal_ev pop(kci_goal_heap *h)
{
    kci_goal_ev top = h->e[0];
    h->e[0] = h->e[--h->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && ev_less(&h->e[l], &h->e[m]))
            m = l;
        if (r < h->n && ev_less(&h->e[r], &h->e[m]))
            m = r;
        if (m == i)
            break;
        kci_goal_ev x = h->e[i];
        h->e[i] = h->e[m];
        h->e[m] = x;
        i = m;
    }
    return top;
}

void kci_goal_proc_free(kci_goal_proc *p)
{
    free(p->st), free(p->cpu), free(p->dfirst), free(p->dlist), free(p->h.e), free(p->finish);
    memset(p, 0, sizeof *p);
}

kc_status kci_goal_proc_init(kci_goal_proc *p, const kc_goal *g, const kc_goal_match *m, double startup_us,
                             kc_err *err)
{
    memset(p, 0, sizeof *p);
    if (!(startup_us >= 0))
        return kc_fail_param(err, KC_EINVAL, "timing", "start-up and byte time must be non-negative numbers");
    size_t n = g->nops;
    p->g = g;
    p->m = m;
    p->startup_us = startup_us;
    p->st = calloc(n ? n : 1, sizeof *p->st);
    p->cpu = calloc((size_t)g->num_ranks + 1, sizeof *p->cpu);
    p->finish = calloc((size_t)g->num_ranks + 1, sizeof *p->finish);
    p->dfirst = calloc(n + 2, sizeof *p->dfirst);
    p->dlist = malloc((g->ndeps ? g->ndeps : 1) * sizeof *p->dlist);
    p->h.e = malloc((4 * n + 1) * sizeof *p->h.e);
    if (!p->st || !p->cpu || !p->finish || !p->dfirst || !p->dlist || !p->h.e) {
        kci_goal_proc_free(p);
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    }
    /* Dependents of each operation: dlist[dfirst[on]..dfirst[on+1]) are deps. */
    for (size_t i = 0; i < g->ndeps; i++) {
        p->dfirst[g->dep[i].on + 2]++;
        p->st[g->dep[i].op].waiting++;
    }
    for (size_t i = 0; i < n; i++)
        p->dfirst[i + 2] += p->dfirst[i + 1];
    for (size_t i = 0; i < g->ndeps; i++)
        p->dlist[p->dfirst[g->dep[i].on + 1]++] = i;
    for (size_t i = 0; i < n; i++)
        if (!p->st[i].waiting)
            push(&p->h, 0, EV_READY, i);
    return KC_OK;
}

void kci_goal_proc_arrive(kci_goal_proc *p, size_t recv, double t) { push(&p->h, t, EV_ARRIVE, recv); }

size_t kci_goal_proc_step(kci_goal_proc *p)
{
    const kc_goal *g = p->g;
    kci_goal_ev e = pop(&p->h);
    const kc_goal_op *o = &g->op[e.op];
    kci_goal_opstate *s = &p->st[e.op];
    switch (e.type) {
    case EV_READY:
        if (o->kind == KC_GOAL_RECV) {
            s->started = 1;
            s->start = e.t;
            push(&p->h, e.t, EV_START, e.op);
            if (s->arrived)
                push(&p->h, e.t > s->arrival ? e.t : s->arrival, EV_END, e.op);
        } else {
            double begin = e.t > p->cpu[o->rank] ? e.t : p->cpu[o->rank];
            double dur = o->kind == KC_GOAL_SEND ? p->startup_us : (double)o->amount / 1000.0;
            p->cpu[o->rank] = begin + dur;
            s->start = begin;
            push(&p->h, begin, EV_START, e.op);
            push(&p->h, begin + dur, EV_END, e.op);
        }
        break;
    case EV_ARRIVE:
        s->arrived = 1;
        s->arrival = e.t;
        if (s->started)
            push(&p->h, e.t > s->start ? e.t : s->start, EV_END, e.op);
        break;
    case EV_START:
    case EV_END:
        if (e.type == EV_END) {
            s->ended = 1;
            s->end = e.t;
            p->ended++;
            if (e.t > p->finish[o->rank])
                p->finish[o->rank] = e.t;
            if (e.t > p->total)
                p->total = e.t;
        }
        for (size_t k = p->dfirst[e.op]; k < p->dfirst[e.op + 1]; k++) {
            const kc_goal_dep *d = &g->dep[p->dlist[k]];
            if (d->start != (e.type == EV_START))
                continue;
            kci_goal_opstate *w = &p->st[d->op];
            if (e.t > w->ready)
                w->ready = e.t;
            if (--w->waiting == 0)
                push(&p->h, w->ready, EV_READY, d->op);
        }
        if (e.type == EV_END && o->kind == KC_GOAL_SEND && p->m->recv_of[e.op] != KC_GOAL_NONE)
            return e.op;
        break;
    }
    return KC_GOAL_NONE;
}

kc_status kci_goal_proc_check(const kci_goal_proc *p, kc_err *err)
{
    size_t n = p->g->nops;
    if (p->ended != n)
        return kc_fail_param(err, KC_EINVAL, "schedule", "%zu of %zu operations never run: validate the schedule "
                             "first (a deadlock or a missing match)", n - p->ended, n);
    return KC_OK;
}

kc_status kc_goal_loggp(const kc_goal *g, const kc_goal_match *m, const kc_goal_timing *t, double *total_us,
                        double *finish_us, kc_err *err)
{
    return kc_goal_loggp_record(g, m, t, NULL, total_us, finish_us, NULL, err);
}

kc_status kc_goal_loggp_record(const kc_goal *g, const kc_goal_match *m, const kc_goal_timing *t,
                               const uint32_t *node_of, double *total_us, double *finish_us, kc_timeline *tl,
                               kc_err *err)
{
    kc_goal_timing def = KC_GOAL_TIMING_DEFAULT;
    if (!t)
        t = &def;
    if (!(t->byte_time_us >= 0))
        return kc_fail_param(err, KC_EINVAL, "timing", "start-up and byte time must be non-negative numbers");
    kci_goal_proc p;
    kc_status st = kci_goal_proc_init(&p, g, m, t->startup_us, err);
    if (st)
        return st;
    while (kci_goal_proc_pending(&p)) {
        double now = kci_goal_proc_time(&p);
        size_t send = kci_goal_proc_step(&p);
        if (send == KC_GOAL_NONE)
            continue;
        /* The data leaves when the start-up ends; within a node it is there. */
        const kc_goal_op *o = &g->op[send];
        int local = kci_goal_local(g, node_of, send);
        kci_goal_proc_arrive(&p, m->recv_of[send], now + (local ? 0 : (double)o->amount * t->byte_time_us));
    }
    if (!(st = kci_goal_proc_check(&p, err)) && (!tl || !(st = kci_goal_proc_record(&p, tl, err)))) {
        *total_us = p.total;
        if (finish_us)
            memcpy(finish_us, p.finish, g->num_ranks * sizeof *finish_us);
    }
    kci_goal_proc_free(&p);
    return st;
}
