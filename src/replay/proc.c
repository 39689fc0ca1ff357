/* The processors of a validated GOAL schedule as an event-driven list
 * schedule (kci_proc), shared by the contention-free time (loggp.c)
 * and the flit-level replays (appsim.c, appsim_fixed.c; docs/goal.md).
 * Events of equal time are taken starts and ends first, then arrivals, then
 * ready operations in file order, so the result does not depend on the
 * heap's tie-breaking. Receives are matched at run time, as MPI and
 * LogGOPSim do (docs/appsim.md "Matching and the order"): a message is
 * matched when it reaches its receiver (its first byte with the NIC model,
 * else its tail), a receive when it is posted (when it becomes ready); the
 * contention-free time follows the static matching instead. A start is an
 * event only for an operation something `irequires` (nothing else waits for
 * it), so most operations cost three events or four: ready, end, and a
 * message's leaving or arrival. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"
#include "core/heap.h"
#include "kcube/loggops.h"

/* EV_LEAVE after EV_END: with o = O = 0 a message leaves when its send
 * ends, and the sends of one instant still leave in file order. */
enum { EV_START, EV_END, EV_LEAVE, EV_HEAD, EV_ARRIVE, EV_READY };

/* An event's order among those of its time: type, then the NIC model's
 * readiness number (unique to an op, from 1) or else the op, in one word
 * (both stay below 2^61: each counts operations held in memory). */
#define EV_TYPE_SHIFT 61
static int ev_type(const kci_proc_ev *e) { return (int)(e->key >> EV_TYPE_SHIFT); }

static int ev_less(const kci_proc_ev *a, const kci_proc_ev *b)
{
    return a->t < b->t || (a->t == b->t && a->key < b->key);
}

KCI_HEAP_DEFINE(evq, kci_proc_ev, ev_less)

static void push_seq(kci_proc_heap *h, double t, int type, uint64_t seq, size_t op)
{
    uint64_t key = ((uint64_t)type << EV_TYPE_SHIFT) | (seq ? seq : (uint64_t)op);
    evq_push(h->e, &h->n, (kci_proc_ev){t, key, op});
}

static void push(kci_proc_heap *h, double t, int type, size_t op) { push_seq(h, t, type, 0, op); }

/* An operation becomes ready: with the NIC model it keeps the number of
 * its first readiness when it has to wait (LogGOPS keeps its order too). */
static void ready(kci_proc *p, double t, size_t op, int first)
{
    if (p->nic && first)
        p->st[op].seq = (uint32_t)++p->nseq; /* one first readiness an op: below 2^32 */
    push_seq(&p->h, t, EV_READY, p->nic ? p->st[op].seq : 0, op);
}

static kci_proc_ev pop(kci_proc_heap *h) { return evq_pop(h->e, &h->n); }

void kci_proc_free(kci_proc *p)
{
    free(p->st), free(p->cpu), free(p->dfirst), free(p->dlist), free(p->h.e), free(p->finish);
    free(p->nics), free(p->nicr), free(p->pnext), free(p->phead), free(p->ptail), free(p->ptype);
    free(p->mate);
    kci_mq_free(&p->q);
    memset(p, 0, sizeof *p);
}

void kci_proc_shed(kci_proc *p)
{
    free(p->h.e), free(p->pnext), free(p->phead), free(p->ptail), free(p->ptype);
    free(p->mate);
    kci_mq_free(&p->q);
    p->h = (kci_proc_heap){0};
    p->pnext = p->phead = p->ptail = p->mate = NULL;
    p->ptype = NULL;
    p->rt = (kc_goal_match){0};
}

/* The matching's arrays (kci_proc's mate, queues; rt and m), empty. 0 or
 * -1 when out of memory. */
static int match_init(kci_proc *p)
{
    const kc_goal *g = p->g;
    size_t n = g->nops;
    kc_err err;
    p->mate = malloc((n ? n : 1) * sizeof *p->mate);
    if (!p->mate || kci_mq_init(&p->q, n, g->num_ranks, kc_goal_has_wildcards(g), &err))
        return -1;
    for (size_t i = 0; i < n; i++)
        p->mate[i] = KC_GOAL_NONE;
    p->rt = (kc_goal_match){p->mate, p->mate, 0, 0, 1};
    p->m = &p->rt;
    return 0;
}

kc_status kci_proc_init(kci_proc *p, const kc_goal *g, const kc_goal_match *fixed, double startup_us,
                        const kc_loggops_params *lp, double byte_time_us, kc_err *err)
{
    memset(p, 0, sizeof *p);
    if (!(startup_us >= 0) || !(byte_time_us >= 0))
        return kc_fail_param(err, KC_EINVAL, "timing", "start-up and byte time must be non-negative numbers");
    size_t n = g->nops;
    if (n >= UINT32_MAX || g->ndeps >= UINT32_MAX)
        return kc_fail_param(err, KC_ERANGE, "schedule",
                             "%zu operations and %zu dependencies: the processor model counts them in 32 bits", n,
                             g->ndeps);
    p->g = g;
    p->fixed = fixed;
    p->startup_us = startup_us;
    p->S = KC_LOGGOPS_S_INF;
    if (lp) {
        p->o = (double)lp->o / 1000.0;
        p->O = (double)lp->O / 1000.0;
        p->gap = (double)lp->g / 1000.0;
        p->S = lp->S;
        p->bt = byte_time_us;
        p->nic = lp->g > 0;
        p->cpu_recv = lp->o > 0 || lp->O > 0 || p->nic;
    }
    p->st = calloc(n ? n : 1, sizeof *p->st);
    p->cpu = calloc((size_t)g->num_ranks + 1, sizeof *p->cpu);
    p->finish = calloc((size_t)g->num_ranks + 1, sizeof *p->finish);
    p->dfirst = calloc(n + 2, sizeof *p->dfirst);
    p->dlist = malloc((g->ndeps ? g->ndeps : 1) * sizeof *p->dlist);
    p->h.e = malloc((5 * n + 1) * sizeof *p->h.e);
    p->nics = calloc((size_t)g->num_ranks + 1, sizeof *p->nics);
    p->nicr = calloc((size_t)g->num_ranks + 1, sizeof *p->nicr);
    p->pnext = malloc((n ? n : 1) * sizeof *p->pnext);
    p->ptype = malloc(n ? n : 1);
    p->phead = malloc(((size_t)g->num_ranks + 1) * sizeof *p->phead);
    p->ptail = malloc(((size_t)g->num_ranks + 1) * sizeof *p->ptail);
    if (!p->st || !p->cpu || !p->finish || !p->dfirst || !p->dlist || !p->h.e || !p->nics || !p->nicr || !p->pnext ||
        !p->ptype || !p->phead || !p->ptail || match_init(p)) {
        kci_proc_free(p);
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    }
    /* Dependents of each operation: dlist[dfirst[on]..dfirst[on+1]) are its
     * dependents as op * 2 + start (1: irequires), in dependency order; kept
     * packed so that releasing them does not go through g->dep. */
    for (size_t i = 0; i < g->ndeps; i++) {
        p->dfirst[g->dep[i].on + 2]++;
        p->st[g->dep[i].op].waiting++;
        p->st[g->dep[i].on].istart |= (unsigned char)(g->dep[i].start != 0);
    }
    for (size_t i = 0; i < n; i++)
        p->dfirst[i + 2] += p->dfirst[i + 1];
    for (size_t i = 0; i < g->ndeps; i++)
        p->dlist[p->dfirst[g->dep[i].on + 1]++] = g->dep[i].op * 2 + (g->dep[i].start != 0);
    for (size_t r = 0; r <= g->num_ranks; r++)
        p->phead[r] = p->ptail[r] = KC_GOAL_NONE;
    for (size_t i = 0; i < n; i++)
        if (!p->st[i].waiting)
            ready(p, 0, i, 1);
    return KC_OK;
}

void kci_proc_arrive(kci_proc *p, size_t send, double t, double first)
{
    p->st[send].head = first; /* for the record: the models time from the tail or a head event */
    push(&p->h, t, EV_ARRIVE, send);
}

static double maxd(double a, double b) { return a > b ? a : b; }

void kci_proc_head(kci_proc *p, size_t send, double t) { push(&p->h, t, EV_HEAD, send); }

/* send and recv met in the queues (found: the one taken; KCI_MQ_NONE when
 * none was there and the other joined the queues, queued < 0 if it could
 * not): they become mates. 1 when they met. */
static int pair(kci_proc *p, uint32_t found, int queued, size_t send, size_t recv)
{
    if (found == KCI_MQ_NONE) {
        p->oom |= queued != 0;
        return 0;
    }
    p->mate[send] = recv, p->mate[recv] = send;
    p->rt.messages++;
    return 1;
}

/* A static matching: send and recv meet now if the other one is there
 * (recv posted, send's message reached its receiver): mates, else NONE. */
static size_t meet(kci_proc *p, size_t send, size_t recv, size_t other)
{
    if (send == KC_GOAL_NONE || recv == KC_GOAL_NONE)
        return KC_GOAL_NONE; /* not in the matching: never taken (kci_proc_check says so) */
    const kci_proc_op *m = &p->st[send];
    if (!p->st[recv].started || !(p->nic ? m->headed : m->arrived))
        return KC_GOAL_NONE;
    p->mate[send] = recv, p->mate[recv] = send;
    p->rt.messages++;
    return other;
}

/* send's message reached its receiver: the first posted receive that fits
 * (now its mate), or KC_GOAL_NONE and the message waits unexpected. */
static size_t match_message(kci_proc *p, size_t send)
{
    if (p->fixed)
        return meet(p, send, p->fixed->recv_of[send], p->fixed->recv_of[send]);
    const kc_goal_op *o = &p->g->op[send];
    uint32_t r = (uint32_t)o->peer, recv = kci_mq_take_posted(&p->q, r, o->rank, o->tag);
    int queued = recv == KCI_MQ_NONE ? kci_mq_unexpected(&p->q, r, o->rank, o->tag, (uint32_t)send) : 0;
    return pair(p, recv, queued, send, recv) ? recv : KC_GOAL_NONE;
}

/* recv is posted: the first unexpected message that fits (its send, now
 * its mate), or KC_GOAL_NONE and recv waits posted. */
static size_t match_recv(kci_proc *p, size_t recv)
{
    if (p->fixed)
        return meet(p, p->fixed->send_of[recv], recv, p->fixed->send_of[recv]);
    const kc_goal_op *o = &p->g->op[recv];
    uint32_t send = kci_mq_take_unexpected(&p->q, o->rank, o->peer, o->tag);
    int queued = send == KCI_MQ_NONE ? kci_mq_post(&p->q, o->rank, o->peer, o->tag, (uint32_t)recv) : 0;
    return pair(p, send, queued, send, recv) ? send : KC_GOAL_NONE;
}

/* recv ends: its message's state, kept on the send, is copied to it (the
 * timelines and the critical path read a receive's take and arrival). */
static void settle(kci_proc *p, size_t recv)
{
    kci_proc_op *s = &p->st[recv];
    const kci_proc_op *m = &p->st[p->mate[recv]];
    s->take = m->take, s->head = m->head, s->tail = m->tail, s->done_min = m->done_min;
    s->headed = m->headed, s->tailed = m->tailed, s->arrived = m->arrived, s->arrival = m->got;
}

/* An event that needs rank r's CPU while a message holds it waits. */
static void defer(kci_proc *p, uint32_t r, size_t op, int type)
{
    p->pnext[op] = KC_GOAL_NONE;
    p->ptype[op] = (unsigned char)type;
    if (p->phead[r] == KC_GOAL_NONE)
        p->phead[r] = op;
    else
        p->pnext[p->ptail[r]] = op;
    p->ptail[r] = op;
}

static void matched(kci_proc *p, size_t recv, double t);

/* send's message is done (its tail arrived and its CPU time ran): its
 * receiver's CPU is free again and what waited for it is taken again, in
 * order; a matched receive ends. */
static void message_done(kci_proc *p, size_t send)
{
    kci_proc_op *s = &p->st[send];
    uint32_t r = (uint32_t)p->g->op[send].peer;
    double done = maxd(s->done_min, s->tail);
    p->cpu[r] = done;
    s->arrived = 1;
    s->got = done;
    size_t recv = p->mate[send];
    if (recv != KC_GOAL_NONE)
        push(&p->h, maxd(done, p->st[recv].start), EV_END, recv);
    for (size_t q = p->phead[r]; q != KC_GOAL_NONE; q = p->pnext[q])
        if (p->ptype[q] == EV_READY)
            ready(p, done, q, 0);
        else
            push(&p->h, done, p->ptype[q], q);
    p->phead[r] = p->ptail[r] = KC_GOAL_NONE;
}
static uint64_t s1(const kc_goal_op *o) { return o->amount ? o->amount - 1 : 0; }

double kci_proc_send_cpu(const kci_proc *p, size_t send)
{
    return p->startup_us + p->o + (double)s1(&p->g->op[send]) * p->O;
}

/* recv was matched at t: a send above S ends now (not before its CPU time)
 * and its CPU and NIC are held until then, as in LogGOPS. */
static void matched(kci_proc *p, size_t recv, double t)
{
    size_t send = p->mate[recv];
    if (send == KC_GOAL_NONE || p->S == KC_LOGGOPS_S_INF || p->g->op[send].amount <= p->S)
        return;
    uint32_t r = p->g->op[send].rank;
    if (p->cpu[r] < t) /* for the timeline: the hold of a free CPU */
        p->st[send].hold_from = p->cpu[r], p->st[send].hold_to = t;
    p->cpu[r] = maxd(p->cpu[r], t);
    if (p->nic)
        p->nics[r] = maxd(p->nics[r], t);
    push(&p->h, maxd(p->st[send].arrival, t), EV_END, send);
}

/* A recv became ready at t: it starts (is posted) at once, takes the first
 * unexpected message that fits, and ends when that message is there (now,
 * if it arrived before). */
static void ready_recv(kci_proc *p, kci_proc_ev e)
{
    kci_proc_op *s = &p->st[e.op];
    s->started = 1;
    s->start = e.t;
    if (s->istart)
        push(&p->h, e.t, EV_START, e.op);
    size_t send = match_recv(p, e.op);
    if (send == KC_GOAL_NONE)
        return;
    const kci_proc_op *m = &p->st[send];
    if (p->nic && m->headed && !m->arrived)
        matched(p, e.op, maxd(e.t, m->take)); /* taken, its tail still to come */
    if (m->arrived) {
        matched(p, e.op, maxd(e.t, m->take));
        push(&p->h, e.t > m->got ? e.t : m->got, EV_END, e.op);
    }
}

/* A send or calc became ready at t: it takes its rank's processor (and, a
 * send with the NIC model, its NIC) when free, or waits for them; a send's
 * message leaves after start-up + o. */
static void ready_work(kci_proc *p, kci_proc_ev e)
{
    const kc_goal_op *o = &p->g->op[e.op];
    kci_proc_op *s = &p->st[e.op];
    if (p->nic && p->cpu[o->rank] == INFINITY) {
        defer(p, o->rank, e.op, EV_READY);
        return;
    }
    double begin = e.t > p->cpu[o->rank] ? e.t : p->cpu[o->rank];
    int send = o->kind == KC_GOAL_SEND;
    if (p->nic && send)
        begin = maxd(begin, p->nics[o->rank]);
    if (p->nic && begin > e.t) { /* as LogGOPS: taken when free, not booked ahead */
        ready(p, begin, e.op, 0);
        return;
    }
    if (send && p->nic) {
        p->nics[o->rank] = begin + p->gap + (double)s1(o) * p->bt;
    }
    double dur = send ? kci_proc_send_cpu(p, e.op) : (double)o->amount / 1000.0;
    p->cpu[o->rank] = begin + dur;
    s->start = begin;
    s->arrival = begin + dur;
    if (s->istart)
        push(&p->h, begin, EV_START, e.op);
    if (send)
        push(&p->h, begin + p->startup_us + p->o, EV_LEAVE, e.op);
    if (!send || p->S == KC_LOGGOPS_S_INF || o->amount <= p->S)
        push(&p->h, begin + dur, EV_END, e.op);
}

/* The NIC model: a message's first byte at t (e.op its send). The
 * receiver's NIC and CPU start on the message (once free) and stay with it
 * until its tail; it is matched as they start. */
static void head_arrived(kci_proc *p, kci_proc_ev e)
{
    kci_proc_op *s = &p->st[e.op];
    uint32_t r = (uint32_t)p->g->op[e.op].peer;
    if (p->cpu[r] == INFINITY) {
        defer(p, r, e.op, EV_HEAD);
        return;
    }
    uint64_t b = s1(&p->g->op[e.op]);
    double begin = maxd(maxd(e.t, p->cpu[r]), p->nicr[r]);
    p->nicr[r] = begin + p->gap + (double)b * p->bt;
    s->headed = 1;
    s->take = begin;
    s->done_min = begin + p->o + maxd((double)b * p->O, (double)b * p->bt);
    p->cpu[r] = INFINITY;
    size_t recv = match_message(p, e.op);
    if (recv != KC_GOAL_NONE)
        matched(p, recv, maxd(p->st[recv].start, begin));
    if (s->tailed)
        message_done(p, e.op);
}

/* A message's tail at t (e.op its send): with the NIC model the message is
 * done once its head was taken; else the receiver's CPU takes it (when
 * charged), it is matched, and its receive, if posted, ends. */
static void tail_arrived(kci_proc *p, kci_proc_ev e)
{
    kci_proc_op *s = &p->st[e.op];
    if (p->nic) {
        s->tailed = 1;
        s->tail = e.t;
        if (s->headed)
            message_done(p, e.op);
        return;
    }
    s->arrived = 1;
    s->got = e.t;
    if (p->cpu_recv) {
        /* the receiver's CPU takes the message once its tail is there and it is free */
        uint32_t r = (uint32_t)p->g->op[e.op].peer;
        uint64_t b = s1(&p->g->op[e.op]);
        double begin = maxd(e.t, p->cpu[r]);
        s->take = begin;
        s->got = begin + p->o + (double)b * p->O;
        p->cpu[r] = s->got;
    } else {
        s->take = e.t;
    }
    size_t recv = match_message(p, e.op);
    if (recv == KC_GOAL_NONE)
        return;
    const kci_proc_op *w = &p->st[recv];
    matched(p, recv, maxd(w->start, s->take));
    push(&p->h, s->got > w->start ? s->got : w->start, EV_END, recv);
}

/* An op started or ended at t (an end is recorded): the ops depending on
 * that become ready once nothing else holds them. */
static void start_or_end(kci_proc *p, kci_proc_ev e)
{
    const kc_goal_op *o = &p->g->op[e.op];
    kci_proc_op *s = &p->st[e.op];
    if (ev_type(&e) == EV_END) {
        if (o->kind == KC_GOAL_RECV)
            settle(p, e.op);
        s->ended = 1;
        s->end = e.t;
        p->ended++;
        if (e.t > p->finish[o->rank])
            p->finish[o->rank] = e.t;
        if (e.t > p->total)
            p->total = e.t;
    }
    size_t want = ev_type(&e) == EV_START;
    for (size_t k = p->dfirst[e.op]; k < p->dfirst[e.op + 1]; k++) {
        size_t v = p->dlist[k], op = v >> 1;
        if ((v & 1) != want)
            continue;
        kci_proc_op *w = &p->st[op];
        if (e.t > w->ready)
            w->ready = e.t;
        if (--w->waiting == 0)
            ready(p, w->ready, op, 1);
    }
}

size_t kci_proc_step(kci_proc *p)
{
    kci_proc_ev e = pop(&p->h);
    switch (ev_type(&e)) {
    case EV_READY:
        if (p->g->op[e.op].kind == KC_GOAL_RECV)
            ready_recv(p, e);
        else
            ready_work(p, e);
        break;
    case EV_HEAD: head_arrived(p, e); break;
    case EV_ARRIVE: tail_arrived(p, e); break;
    case EV_LEAVE: return e.op;
    case EV_START:
    case EV_END: start_or_end(p, e); break;
    }
    return KC_GOAL_NONE;
}

void kci_recv_text(const kc_goal *g, size_t recv, char *buf, size_t size)
{
    const kc_goal_op *o = &g->op[recv];
    char from[32] = "any rank", tag[32] = "any tag";
    if (o->peer != KC_GOAL_ANY)
        snprintf(from, sizeof from, "rank %lld", (long long)o->peer);
    if (o->tag != KC_GOAL_ANY)
        snprintf(tag, sizeof tag, "tag %lld", (long long)o->tag);
    snprintf(buf, size, "rank %u's receive from %s, %s, line %ld", o->rank, from, tag, o->line);
}

void kci_rndv_text(const kc_goal *g, size_t send, char *buf, size_t size)
{
    const kc_goal_op *o = &g->op[send];
    snprintf(buf, size, "rank %u's rendezvous send of %llu bytes > S to rank %lld, line %ld", o->rank,
             (unsigned long long)o->amount, (long long)o->peer, o->line);
}

kc_status kci_proc_check(const kci_proc *p, kc_err *err)
{
    size_t n = p->g->nops, recv = 0;
    if (p->oom)
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    if (p->ended == n)
        return KC_OK;
    while (recv < n && !(p->g->op[recv].kind == KC_GOAL_RECV && !p->st[recv].ended))
        recv++;
    char what[160] = "";
    if (recv < n)
        kci_recv_text(p->g, recv, what, sizeof what);
    return kc_fail_param(err, KC_EINVAL, "schedule", "%zu of %zu operations never complete: a deadlock%s%s%s", n - p->ended,
                         n, recv < n ? " (" : "", what, recv < n ? ", is never matched)" : "");
}
