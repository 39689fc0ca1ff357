/* The contention-free LogGP-style time of a validated GOAL schedule
 * (kcube/goal.h, docs/goal.md): an event-driven list schedule with one
 * processor per rank and no shared links. Events of equal time are taken
 * starts and ends first, then ready operations in file order, so the result
 * does not depend on the heap's tie-breaking. */
#include <stdlib.h>
#include <string.h>

#include "goal_internal.h"

enum { EV_START, EV_END, EV_ARRIVE, EV_READY };

typedef struct ev {
    double t;
    int type;
    size_t op;
} ev;

static int ev_less(const ev *a, const ev *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->type != b->type)
        return a->type < b->type;
    return a->op < b->op;
}

typedef struct heap {
    ev *e;
    size_t n;
} heap;

static void push(heap *h, double t, int type, size_t op)
{
    size_t i = h->n++;
    h->e[i] = (ev){t, type, op};
    while (i > 0 && ev_less(&h->e[i], &h->e[(i - 1) / 2])) {
        ev x = h->e[i];
        h->e[i] = h->e[(i - 1) / 2];
        h->e[(i - 1) / 2] = x;
        i = (i - 1) / 2;
    }
}

static ev pop(heap *h)
{
    ev top = h->e[0];
    h->e[0] = h->e[--h->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && ev_less(&h->e[l], &h->e[m]))
            m = l;
        if (r < h->n && ev_less(&h->e[r], &h->e[m]))
            m = r;
        if (m == i)
            break;
        ev x = h->e[i];
        h->e[i] = h->e[m];
        h->e[m] = x;
        i = m;
    }
    return top;
}

typedef struct opstate {
    double ready, start, arrival;
    size_t waiting; /* unresolved dependencies */
    unsigned char started, arrived, ended;
} opstate;

kc_status kc_goal_loggp(const kc_goal *g, const kc_goal_match *m, const kc_goal_timing *t, double *total_us,
                        double *finish_us, kc_err *err)
{
    kc_goal_timing def = KC_GOAL_TIMING_DEFAULT;
    if (!t)
        t = &def;
    if (!(t->startup_us >= 0) || !(t->byte_time_us >= 0))
        return kc_fail_param(err, KC_EINVAL, "timing", "start-up and byte time must be non-negative numbers");
    size_t n = g->nops;
    opstate *st = calloc(n ? n : 1, sizeof *st);
    double *cpu = calloc((size_t)g->num_ranks + 1, sizeof *cpu);
    size_t *dfirst = calloc(n + 2, sizeof *dfirst), *dlist = malloc((g->ndeps ? g->ndeps : 1) * sizeof *dlist);
    heap h = {malloc((4 * n + 1) * sizeof(ev)), 0};
    double *fin = finish_us ? finish_us : calloc((size_t)g->num_ranks + 1, sizeof *fin);
    if (!st || !cpu || !dfirst || !dlist || !h.e || !fin) {
        free(st), free(cpu), free(dfirst), free(dlist), free(h.e);
        if (!finish_us)
            free(fin);
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    }
    for (uint32_t r = 0; r < g->num_ranks; r++)
        fin[r] = 0;
    /* Dependents of each operation: dlist[dfirst[on]..dfirst[on+1]) are deps. */
    for (size_t i = 0; i < g->ndeps; i++) {
        dfirst[g->dep[i].on + 2]++;
        st[g->dep[i].op].waiting++;
    }
    for (size_t i = 0; i < n; i++)
        dfirst[i + 2] += dfirst[i + 1];
    for (size_t i = 0; i < g->ndeps; i++)
        dlist[dfirst[g->dep[i].on + 1]++] = i;
    for (size_t i = 0; i < n; i++)
        if (!st[i].waiting)
            push(&h, 0, EV_READY, i);
    size_t ended = 0;
    double total = 0;
    while (h.n) {
        ev e = pop(&h);
        const kc_goal_op *o = &g->op[e.op];
        opstate *s = &st[e.op];
        switch (e.type) {
        case EV_READY:
            if (o->kind == KC_GOAL_RECV) {
                s->started = 1;
                s->start = e.t;
                push(&h, e.t, EV_START, e.op);
                if (s->arrived)
                    push(&h, e.t > s->arrival ? e.t : s->arrival, EV_END, e.op);
            } else {
                double begin = e.t > cpu[o->rank] ? e.t : cpu[o->rank];
                double dur = o->kind == KC_GOAL_SEND ? t->startup_us : (double)o->amount / 1000.0;
                cpu[o->rank] = begin + dur;
                push(&h, begin, EV_START, e.op);
                push(&h, begin + dur, EV_END, e.op);
            }
            break;
        case EV_ARRIVE:
            s->arrived = 1;
            s->arrival = e.t;
            if (s->started)
                push(&h, e.t > s->start ? e.t : s->start, EV_END, e.op);
            break;
        case EV_START:
        case EV_END:
            if (e.type == EV_END) {
                s->ended = 1;
                ended++;
                if (e.t > fin[o->rank])
                    fin[o->rank] = e.t;
                if (e.t > total)
                    total = e.t;
                if (o->kind == KC_GOAL_SEND && m->recv_of[e.op] != KC_GOAL_NONE)
                    push(&h, e.t + (double)o->amount * t->byte_time_us, EV_ARRIVE, m->recv_of[e.op]);
            }
            for (size_t k = dfirst[e.op]; k < dfirst[e.op + 1]; k++) {
                const kc_goal_dep *d = &g->dep[dlist[k]];
                if (d->start != (e.type == EV_START))
                    continue;
                opstate *w = &st[d->op];
                if (e.t > w->ready)
                    w->ready = e.t;
                if (--w->waiting == 0)
                    push(&h, w->ready, EV_READY, d->op);
            }
            break;
        }
    }
    free(st), free(cpu), free(dfirst), free(dlist), free(h.e);
    if (!finish_us)
        free(fin);
    if (ended != n)
        return kc_fail_param(err, KC_EINVAL, "schedule", "%zu of %zu operations never run: validate the schedule "
                             "first (a deadlock or a missing match)", n - ended, n);
    *total_us = total;
    return KC_OK;
}
