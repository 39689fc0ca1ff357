/* The LogGOPS model of a GOAL schedule (kcube/loggops.h, docs/loggops.md):
 * a discrete-event loop over one queue of operations and messages ordered
 * by (time, insertion number), with per-rank CPU and NIC clocks and MPI's
 * posted and unexpected queues. The order of events and charges follows
 * LogGOPSim's (spcl/LogGOPSim, src/LogGOPSim/LogGOPSim.cpp), so that the
 * makespans agree to the nanosecond; this is kcube's own code. An entry
 * that finds its CPU (or NIC) busy goes back into the queue at the time it
 * frees, keeping its insertion number: that is what decides ties. */
#include <stdlib.h>
#include <string.h>

#include "kcube/loggops.h"
#include "replay_internal.h"
#include "core/grow.h"
#include "core/heap.h"
#include "core/sort.h"

enum { EV_SEND, EV_RECV, EV_CALC, EV_MSG };

typedef struct ev {
    uint64_t t, ts; /* time; insertion number (kept when re-inserted) */
    size_t op;      /* the operation; for EV_MSG the send */
    int type;
} ev;

typedef struct heap {
    ev *e;
    size_t n;
} heap;

static int ev_less(const ev *a, const ev *b) { return a->t != b->t ? a->t < b->t : a->ts < b->ts; }

KCI_HEAP_DEFINE(evq, ev, ev_less)

static void hpush(heap *h, ev x) { evq_push(h->e, &h->n, x); }

static ev hpop(heap *h) { return evq_pop(h->e, &h->n); }

/* ---- parameters -------------------------------------------------------------- */

/* One value of key `key` at *s (a whole number, or S's "inf"); *s moves past
 * it. */
static kc_status parse_value(const char **s, char key, uint64_t *out, kc_err *err)
{
    uint64_t v = 0;
    if (key == 'S' && !strncmp(*s, "inf", 3)) {
        *s += 3;
        *out = KC_LOGGOPS_S_INF;
        return KC_OK;
    }
    if (**s < '0' || **s > '9')
        return kc_fail_param(err, KC_EINVAL, "loggops", "%c needs a whole number%s", key,
                             key == 'S' ? " of bytes or inf" : " of nanoseconds");
    for (; **s >= '0' && **s <= '9'; (*s)++) {
        v = v * 10 + (uint64_t)(**s - '0');
        if (v > KC_LOGGOPS_PARAM_MAX)
            return kc_fail_param(err, KC_EINVAL, "loggops", "%c is above %llu", key,
                                 (unsigned long long)KC_LOGGOPS_PARAM_MAX);
    }
    *out = v;
    return KC_OK;
}

static void set_param(kc_loggops_params *p, char key, uint64_t v)
{
    switch (key) {
    case 'L': p->L = v; break;
    case 'o': p->o = v; break;
    case 'g': p->g = v; break;
    case 'G': p->G = v; break;
    case 'O': p->O = v; break;
    default: p->S = v; break;
    }
}

/* "L,o,g,G,O,S": all six values in LogGOPSim's order, nothing else. */
static kc_status parse_positional(const char *s, kc_loggops_params *p, kc_err *err)
{
    static const char keys[] = "LogGOS";
    kc_loggops_params q = *p;
    for (int i = 0; i < 6; i++) {
        uint64_t v;
        kc_status st = parse_value(&s, keys[i], &v, err);
        if (st)
            return st;
        set_param(&q, keys[i], v);
        if (i < 5 && *s != ',')
            return kc_fail_param(err, KC_EINVAL, "loggops",
                                 "the positional form L,o,g,G,O,S takes six values; %s after %c's",
                                 *s ? "unexpected text" : "it ends", keys[i]);
        s += i < 5;
    }
    if (*s)
        return kc_fail_param(err, KC_EINVAL, "loggops",
                             "the positional form L,o,g,G,O,S takes six values; unexpected '%.20s' after S's", s);
    *p = q;
    return KC_OK;
}

kc_status kc_loggops_parse(const char *text, kc_loggops_params *p, kc_err *err)
{
    static const char keys[] = "LogGOS";
    unsigned seen = 0;
    const char *s = text;
    if (!*s)
        return kc_fail_param(err, KC_EINVAL, "loggops",
                             "empty: give KEY=VALUE items, e.g. L=2500,o=1500,g=1000,G=6,O=0,S=65535, or L,o,g,G,O,S");
    if (*s >= '0' && *s <= '9')
        return parse_positional(s, p, err);
    for (;;) {
        const char *k = strchr(keys, *s);
        if (!*s || !k || s[1] != '=')
            return kc_fail_param(err, KC_EINVAL, "loggops", "expected KEY=VALUE with KEY one of L, o, g, G, O, S at '%.20s'",
                                 s);
        unsigned bit = 1u << (k - keys);
        if (seen & bit)
            return kc_fail_param(err, KC_EINVAL, "loggops", "%c is given twice", *s);
        seen |= bit;
        char key = *s;
        s += 2;
        uint64_t v;
        kc_status st = parse_value(&s, key, &v, err);
        if (st)
            return st;
        set_param(p, key, v);
        if (!*s)
            return KC_OK;
        if (*s != ',')
            return kc_fail_param(err, KC_EINVAL, "loggops", "unexpected '%c' after %c's value (items are separated by commas)",
                                 *s, key);
        s++;
    }
}

/* ---- the model --------------------------------------------------------------- */

typedef struct model {
    const kc_goal *g;
    kc_loggops_params p;
    kc_loggops_trace_fn trace;
    void *ctx;
    unsigned ncpu, nnic;
    uint64_t *nexto, *nextgs, *nextgr; /* [rank * ncpu + cpu], [rank * nnic + nic] */
    size_t *waiting;                   /* unresolved dependencies of each op */
    size_t *sfirst, *slist;            /* ops waiting on an op's start: slist[sfirst[op]..sfirst[op+1]) */
    size_t *efirst, *elist;            /* ... on its end */
    uint64_t *t_send;                  /* a send: when it was taken; a recv: when posted */
    uint64_t *t_msg;                   /* a send: when the receiver took its message */
    size_t *qnext;                     /* queue links (each op is in at most one queue) */
    size_t *rq_head, *rq_tail, *uq_head, *uq_tail; /* [rank] posted receives; unexpected messages (sends) */
    size_t *rel, nrel;                 /* ops made ready by the current event */
    size_t *scratch;                   /* for sorting rel */
    heap h;
    uint64_t ts, done;
    int overflow;           /* 1: past 2^64 - 1 ns; -1: out of memory recording the order */
    kci_loggops_order *ord; /* NULL unless recording (kci_loggops_run_order) */
} model;

/* Record a charge (kci_loggops_order); cpu and nic are resource numbers. */
static void charge(model *m, int type, size_t op, size_t cpu, size_t nic, uint64_t t, uint64_t cpu_end,
                   uint64_t nic_end)
{
    kci_loggops_order *r = m->ord;
    if (!r)
        return;
    /* grows: charges are calcs + sends + messages + holds */
    if (KCI_RESERVE(r->c, r->cap, r->n + 1, 1)) {
        m->overflow = -1; /* stops the run: out of memory */
        return;
    }
    r->last_cpu[cpu] = r->n;
    uint32_t nres = nic == KCI_LG_NONE ? KCI_LG_NORES : (uint32_t)nic; /* order_alloc: below 2^32 */
    r->c[r->n++] = (kci_lg_charge){(uint32_t)op, (uint32_t)cpu, nres, type, t, cpu_end, nic_end}; /* op < 2^32 */
}
static size_t res_cpu(const model *m, uint32_t rank, unsigned cpu) { return (size_t)rank * m->ncpu + cpu; }
static size_t res_nics(const model *m, uint32_t rank, unsigned nic)
{
    return (size_t)m->g->num_ranks * m->ncpu + (size_t)rank * m->nnic + nic;
}
static size_t res_nicr(const model *m, uint32_t rank, unsigned nic)
{
    return (size_t)m->g->num_ranks * (m->ncpu + m->nnic) + (size_t)rank * m->nnic + nic;
}

static uint64_t add(model *m, uint64_t a, uint64_t b)
{
    if (a > UINT64_MAX - b) {
        m->overflow = 1;
        return UINT64_MAX;
    }
    return a + b;
}

static uint64_t mul(model *m, uint64_t a, uint64_t b)
{
    if (b && a > UINT64_MAX / b) {
        m->overflow = 1;
        return UINT64_MAX;
    }
    return a * b;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* s - 1 bytes are charged per byte; 0 bytes cost what 1 byte does. */
static uint64_t s1(const kc_goal_op *o) { return o->amount ? o->amount - 1 : 0; }

static void emit(model *m, kc_loggops_slice_kind kind, size_t op, size_t peer, uint32_t rank, unsigned cpu,
                 uint64_t a, uint64_t b)
{
    if (m->trace) {
        kc_loggops_slice s = {op, peer, a, b, rank, (uint8_t)kind, (uint8_t)cpu};
        m->trace(m->ctx, &s);
    }
}

static void release(model *m, const size_t *first, const size_t *list, size_t op)
{
    for (size_t k = first[op]; k < first[op + 1]; k++)
        if (--m->waiting[list[k]] == 0)
            m->rel[m->nrel++] = list[k];
}
static void started(model *m, size_t op) { release(m, m->sfirst, m->slist, op); }
static void finished(model *m, size_t op)
{
    m->done++;
    release(m, m->efirst, m->elist, op);
}

static int kind_rank(int kind) { return kind == KC_GOAL_SEND ? 0 : kind == KC_GOAL_RECV ? 1 : 2; }

/* Ready operations enter by rank, then sends, receives, calcs; equal keys
 * keep the order they were released in (the sort is stable), as LogGOPSim
 * built with a stable sort takes them: the dependents of an operation's
 * start (`irequires`) before those of its end, each in the order of the
 * dependency lines in the file, and the initial ones in program order. */
static int rel_cmp_g(const kc_goal *g, size_t a, size_t b)
{
    const kc_goal_op *x = &g->op[a], *y = &g->op[b];
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    int kx = kind_rank(x->kind), ky = kind_rank(y->kind);
    return kx < ky ? -1 : kx > ky;
}

static int rel_cmp(const void *g, const size_t *a, const size_t *b) { return rel_cmp_g(g, *a, *b); }

KCI_MERGE_SORT_DEFINE(sort_ops, size_t, rel_cmp)

/* The operations an event made ready, in rank, kind and file order: few
 * usually (insertion), many for the initial set or a wide fan-out (merging
 * through m->scratch). */
static void sort_rel(model *m) { sort_ops(m->rel, m->nrel, m->scratch, m->g); }

/* Queue the ready operations, each at the time its CPU (and a send's NIC) frees. */
static void enqueue_released(model *m)
{
    sort_rel(m);
    for (size_t i = 0; i < m->nrel; i++) {
        size_t op = m->rel[i];
        const kc_goal_op *o = &m->g->op[op];
        uint64_t t = m->nexto[(size_t)o->rank * m->ncpu + o->cpu];
        int type = o->kind == KC_GOAL_SEND ? EV_SEND : o->kind == KC_GOAL_RECV ? EV_RECV : EV_CALC;
        if (type == EV_SEND)
            t = max64(t, m->nextgs[(size_t)o->rank * m->nnic + o->nic]);
        if (type == EV_RECV && m->ord)
            m->ord->post_after[op] = m->ord->last_cpu[res_cpu(m, o->rank, o->cpu)];
        hpush(&m->h, (ev){t, m->ts++, op, type});
    }
    m->nrel = 0;
}

static void q_append(model *m, size_t *head, size_t *tail, uint32_t rank, size_t op)
{
    m->qnext[op] = KC_GOAL_NONE;
    if (head[rank] == KC_GOAL_NONE)
        head[rank] = op;
    else
        m->qnext[tail[rank]] = op;
    tail[rank] = op;
}

/* Remove and return the first entry of the queue that fits. want_src and
 * want_tag may be KC_GOAL_ANY; so may an entry's (posted receives). */
static size_t q_match(model *m, size_t *head, size_t *tail, uint32_t rank, int64_t want_src, int64_t want_tag)
{
    size_t prev = KC_GOAL_NONE;
    for (size_t e = head[rank]; e != KC_GOAL_NONE; prev = e, e = m->qnext[e]) {
        const kc_goal_op *o = &m->g->op[e];
        int64_t src = o->kind == KC_GOAL_SEND ? (int64_t)o->rank : o->peer;
        if ((want_src == KC_GOAL_ANY || src == KC_GOAL_ANY || src == want_src) &&
            (want_tag == KC_GOAL_ANY || o->tag == KC_GOAL_ANY || o->tag == want_tag)) {
            if (prev == KC_GOAL_NONE)
                head[rank] = m->qnext[e];
            else
                m->qnext[prev] = m->qnext[e];
            if (tail[rank] == e)
                tail[rank] = prev;
            return e;
        }
    }
    return KC_GOAL_NONE;
}

/* A rendezvous send is done when its receive is matched at t: its rank's
 * clocks (numbered cpu, nic, as LogGOPSim does) move to t at least. */
static void rendezvous_done(model *m, size_t send, size_t recv, unsigned cpu, unsigned nic, uint64_t t)
{
    uint32_t r = m->g->op[send].rank;
    uint64_t *o = &m->nexto[(size_t)r * m->ncpu + cpu], *gs = &m->nextgs[(size_t)r * m->nnic + nic];
    if (*o < t)
        emit(m, KC_LOGGOPS_RNDV, send, recv, r, cpu, *o, t);
    *o = max64(*o, t);
    *gs = max64(*gs, t);
    charge(m, KCI_LG_HOLD, send, res_cpu(m, r, cpu), res_nics(m, r, nic), t, *o, *gs);
    finished(m, send);
}

/* A calc at e.t on its CPU *cpu: 0 if the CPU is busy (e goes back into the
 * queue at the time it frees), else 1 after charging it. */
static int step_calc(model *m, ev e, uint64_t *cpu)
{
    const kc_goal_op *o = &m->g->op[e.op];
    if (*cpu > e.t) {
        e.t = *cpu;
        hpush(&m->h, e);
        return 0;
    }
    *cpu = add(m, e.t, o->amount);
    charge(m, KCI_LG_CALC, e.op, res_cpu(m, o->rank, o->cpu), KCI_LG_NONE, e.t, *cpu, 0);
    emit(m, KC_LOGGOPS_CALC, e.op, KC_GOAL_NONE, o->rank, o->cpu, e.t, *cpu);
    started(m, e.op);
    finished(m, e.op);
    return 1;
}

/* A send at e.t: 0 if its CPU or sending NIC is busy (requeued), else 1
 * after charging both and queueing its message; an eager send ends here. */
static int step_send(model *m, ev e, uint64_t *cpu)
{
    const kc_loggops_params *p = &m->p;
    const kc_goal_op *o = &m->g->op[e.op];
    uint64_t *gs = &m->nextgs[(size_t)o->rank * m->nnic + o->nic];
    if (*cpu > e.t || *gs > e.t) {
        e.t = max64(*cpu, *gs);
        hpush(&m->h, e);
        return 0;
    }
    started(m, e.op);
    *cpu = add(m, add(m, e.t, p->o), mul(m, s1(o), p->O));
    *gs = add(m, add(m, e.t, p->g), mul(m, s1(o), p->G));
    emit(m, KC_LOGGOPS_SEND, e.op, KC_GOAL_NONE, o->rank, o->cpu, e.t, *cpu);
    m->t_send[e.op] = e.t;
    charge(m, KCI_LG_SEND, e.op, res_cpu(m, o->rank, o->cpu), res_nics(m, o->rank, o->nic), e.t, *cpu, *gs);
    if (m->ord)
        m->ord->post[e.op] = add(m, add(m, e.t, p->o), p->L);
    /* the message: its first byte reaches the receiver after o + L */
    hpush(&m->h, (ev){add(m, add(m, e.t, p->o), p->L), m->ts++, e.op, EV_MSG});
    if (o->amount <= p->S) {
        if (m->ord)
            m->ord->eager[e.op] = 1;
        finished(m, e.op);
    }
    return 1;
}

/* A receive posted at e.t: it matches the first unexpected message from its
 * peer (and ends) or joins the posted queue. Never requeued. */
static void step_recv(model *m, ev e)
{
    const kc_loggops_params *p = &m->p;
    const kc_goal_op *o = &m->g->op[e.op];
    if (m->ord)
        m->ord->post[e.op] = e.t;
    m->t_send[e.op] = e.t;
    started(m, e.op);
    size_t send = q_match(m, m->uq_head, m->uq_tail, o->rank, o->peer, o->tag);
    if (send == KC_GOAL_NONE) {
        q_append(m, m->rq_head, m->rq_tail, o->rank, e.op);
        return;
    }
    const kc_goal_op *so = &m->g->op[send];
    if (m->ord)
        m->ord->matched[e.op] = send, m->ord->match[send] = e.t;
    /* Eager or rendezvous is the send's choice, made when it left: a send
     * completes once (LogGOPSim decides here on the receive's size, so a
     * receive above S that meets an eager message completes its send a
     * second time; docs/loggops.md) */
    if (so->amount > p->S)
        rendezvous_done(m, send, e.op, o->cpu, o->nic, e.t);
    uint64_t tm = m->t_msg[send];
    emit(m, KC_LOGGOPS_WAIT, e.op, send, o->rank, o->cpu, e.t, max64(e.t, tm)); /* see kcube/loggops.h */
    emit(m, KC_LOGGOPS_RECV, e.op, send, o->rank, so->cpu, tm,
         add(m, add(m, tm, p->o), max64(mul(m, s1(so), p->O), mul(m, s1(so), p->G))));
    emit(m, KC_LOGGOPS_WIRE, send, e.op, so->rank, so->cpu, add(m, m->t_send[send], p->o), tm);
    finished(m, e.op);
}

/* The send e.op's message at its receiver at e.t, on the CPU *cpu and NIC
 * numbered like the send's: 0 if either is busy (requeued), else 1 after
 * charging them and matching a posted receive or queueing it as unexpected. */
static int step_msg(model *m, ev e, uint64_t *cpu, kc_loggops_result *res)
{
    const kc_loggops_params *p = &m->p;
    const kc_goal_op *o = &m->g->op[e.op];
    uint32_t dst = (uint32_t)o->peer;
    uint64_t *gr = &m->nextgr[(size_t)dst * m->nnic + o->nic];
    if (*cpu > e.t || *gr > e.t) {
        e.t = max64(*cpu, *gr);
        hpush(&m->h, e);
        return 0;
    }
    uint64_t bytes = max64(mul(m, s1(o), p->O), mul(m, s1(o), p->G));
    *cpu = add(m, add(m, e.t, p->o), bytes);
    *gr = add(m, add(m, e.t, p->g), mul(m, s1(o), p->G));
    m->t_msg[e.op] = e.t;
    charge(m, KCI_LG_MSG, e.op, res_cpu(m, dst, o->cpu), res_nicr(m, dst, o->nic), e.t, *cpu, *gr);
    res->messages++;
    if (o->amount > p->S)
        res->rendezvous++;
    size_t recv = q_match(m, m->rq_head, m->rq_tail, dst, (int64_t)o->rank, o->tag);
    if (recv == KC_GOAL_NONE) {
        q_append(m, m->uq_head, m->uq_tail, dst, e.op);
        return 1;
    }
    if (m->ord)
        m->ord->matched[recv] = e.op, m->ord->match[e.op] = e.t;
    if (o->amount > p->S)
        rendezvous_done(m, e.op, recv, o->cpu, o->nic, e.t);
    emit(m, KC_LOGGOPS_WAIT, recv, e.op, dst, m->g->op[recv].cpu, m->t_send[recv], max64(m->t_send[recv], e.t));
    emit(m, KC_LOGGOPS_RECV, recv, e.op, dst, o->cpu, e.t, *cpu);
    emit(m, KC_LOGGOPS_WIRE, e.op, recv, o->rank, o->cpu, add(m, m->t_send[e.op], p->o), e.t);
    finished(m, recv);
    return 1;
}

/* One event: the operation or message it names, then the operations it made
 * ready enter the queue (not when it was only put back for a busy resource). */
static void step(model *m, ev e, kc_loggops_result *res)
{
    const kc_goal_op *o = &m->g->op[e.op];
    uint64_t *cpu = &m->nexto[(size_t)(e.type == EV_MSG ? (uint32_t)o->peer : o->rank) * m->ncpu + o->cpu];
    int taken = 1;
    switch (e.type) {
    case EV_CALC: taken = step_calc(m, e, cpu); break;
    case EV_SEND: taken = step_send(m, e, cpu); break;
    case EV_RECV: step_recv(m, e); break;
    default: taken = step_msg(m, e, cpu, res); break;
    }
    if (taken)
        enqueue_released(m);
}

static void model_free(model *m)
{
    free(m->nexto), free(m->nextgs), free(m->nextgr), free(m->waiting), free(m->sfirst), free(m->slist);
    free(m->efirst), free(m->elist), free(m->t_send), free(m->t_msg), free(m->qnext), free(m->rq_head);
    free(m->rq_tail), free(m->uq_head), free(m->uq_tail), free(m->rel), free(m->scratch), free(m->h.e);
}

void kc_loggops_result_free(kc_loggops_result *r)
{
    free(r->finish_ns);
    memset(r, 0, sizeof *r);
}

/* KC_EINVAL unless every parameter is at most KC_LOGGOPS_PARAM_MAX (S may
 * also be infinite). */
static kc_status check_params(const kc_loggops_params *p, kc_err *err)
{
    if (p->L > KC_LOGGOPS_PARAM_MAX || p->o > KC_LOGGOPS_PARAM_MAX || p->g > KC_LOGGOPS_PARAM_MAX ||
        p->G > KC_LOGGOPS_PARAM_MAX || p->O > KC_LOGGOPS_PARAM_MAX ||
        (p->S > KC_LOGGOPS_PARAM_MAX && p->S != KC_LOGGOPS_S_INF))
        return kc_fail_param(err, KC_EINVAL, "loggops", "a parameter is above %llu",
                             (unsigned long long)KC_LOGGOPS_PARAM_MAX);
    return KC_OK;
}

/* KC_EINVAL if an operation names a rank out of range; else the CPUs and NICs
 * per rank (one more than the largest numbers used) in *ncpu, *nnic. O(ops). */
static kc_status count_resources(const kc_goal *g, unsigned *ncpu, unsigned *nnic, kc_err *err)
{
    size_t R = g->num_ranks;
    *ncpu = *nnic = 1;
    for (size_t i = 0; i < g->nops; i++) {
        const kc_goal_op *o = &g->op[i];
        if (o->rank >= R || (o->kind == KC_GOAL_SEND && (o->peer < 0 || o->peer >= (int64_t)R)) ||
            (o->kind == KC_GOAL_RECV && o->peer != KC_GOAL_ANY && (o->peer < 0 || o->peer >= (int64_t)R)))
            return kc_fail_param(err, KC_EINVAL, "schedule", "line %ld: a rank out of range: validate the "
                                 "schedule first", o->line);
        if (o->cpu >= *ncpu)
            *ncpu = o->cpu + 1u;
        if (o->nic >= *nnic)
            *nnic = o->nic + 1u;
    }
    return KC_OK;
}

/* The charges a run records at most: a calc or send taken, a message
 * taken, a rendezvous send's hold (above S bytes). Sizing the record so
 * spares it the doubling's copy and slack (the record is the largest
 * array the network replay keeps). O(ops). */
static size_t charges_bound(const kc_goal *g, uint64_t S)
{
    size_t k = 0;
    for (size_t i = 0; i < g->nops; i++) {
        const kc_goal_op *o = &g->op[i];
        k += o->kind == KC_GOAL_CALC ? 1 : o->kind == KC_GOAL_SEND ? 2 + (o->amount > S) : 0;
    }
    return k;
}

/* Set up the recording of the charge order for g's ops with rendezvous
 * above S bytes; KC_ENOMEM leaves what was made for kci_loggops_order_free. */
static kc_status order_alloc(kci_loggops_order *ord, const kc_goal *g, uint64_t S, unsigned ncpu, unsigned nnic,
                             kc_err *err)
{
    size_t n = g->nops, R = g->num_ranks;
    if (n >= UINT32_MAX)
        return kc_fail_param(err, KC_ERANGE, "schedule",
                             "%zu operations: too many to record LogGOPS's order (32-bit numbers)", n);
    ord->ncpu = ncpu;
    ord->nnic = nnic;
    ord->nres = R * (ncpu + 2 * (size_t)nnic);
    if (ord->nres >= KCI_LG_NORES)
        return kc_fail_param(err, KC_ERANGE, "schedule", "%zu CPUs and NICs: too many to record LogGOPS's order",
                             ord->nres);
    ord->cap = charges_bound(g, S);
    ord->cap += !ord->cap;
    ord->c = malloc(ord->cap * sizeof *ord->c);
    ord->post_after = malloc((n ? n : 1) * sizeof *ord->post_after);
    ord->matched = malloc((n ? n : 1) * sizeof *ord->matched);
    ord->eager = calloc(n ? n : 1, 1);
    ord->last_cpu = malloc((R * ncpu + 1) * sizeof *ord->last_cpu);
    ord->post = calloc(n ? n : 1, sizeof *ord->post);
    ord->match = calloc(n ? n : 1, sizeof *ord->match);
    if (!ord->c || !ord->post_after || !ord->matched || !ord->eager || !ord->last_cpu || !ord->post || !ord->match)
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    for (size_t i = 0; i < n; i++)
        ord->post_after[i] = KCI_LG_NONE, ord->matched[i] = KC_GOAL_NONE;
    for (size_t i = 0; i < R * ncpu; i++)
        ord->last_cpu[i] = KCI_LG_NONE;
    return KC_OK;
}

/* The model's arrays and out->finish_ns, queues empty; on KC_ENOMEM both are
 * freed. */
static kc_status model_alloc(model *m, kc_loggops_result *out, kc_err *err)
{
    const kc_goal *g = m->g;
    size_t n = g->nops, R = g->num_ranks, R1 = R ? R : 1, n1 = n ? n : 1;
    m->nexto = calloc(R1 * m->ncpu, sizeof *m->nexto);
    m->nextgs = calloc(R1 * m->nnic, sizeof *m->nextgs);
    m->nextgr = calloc(R1 * m->nnic, sizeof *m->nextgr);
    m->waiting = calloc(n1, sizeof *m->waiting);
    m->sfirst = calloc(n + 2, sizeof *m->sfirst);
    m->efirst = calloc(n + 2, sizeof *m->efirst);
    m->slist = malloc((g->ndeps ? g->ndeps : 1) * sizeof *m->slist);
    m->elist = malloc((g->ndeps ? g->ndeps : 1) * sizeof *m->elist);
    m->t_send = calloc(n1, sizeof *m->t_send);
    m->t_msg = calloc(n1, sizeof *m->t_msg);
    m->qnext = malloc(n1 * sizeof *m->qnext);
    m->rq_head = malloc(R1 * sizeof *m->rq_head);
    m->rq_tail = malloc(R1 * sizeof *m->rq_tail);
    m->uq_head = malloc(R1 * sizeof *m->uq_head);
    m->uq_tail = malloc(R1 * sizeof *m->uq_tail);
    m->rel = malloc(n1 * sizeof *m->rel);
    m->scratch = malloc(n1 * sizeof *m->scratch);
    /* at most one entry per op plus one message per send in the queue at once */
    m->h.e = malloc(2 * n1 * sizeof *m->h.e);
    out->finish_ns = calloc(R1, sizeof *out->finish_ns);
    if (!m->nexto || !m->nextgs || !m->nextgr || !m->waiting || !m->sfirst || !m->efirst || !m->slist ||
        !m->elist || !m->t_send || !m->t_msg || !m->qnext || !m->rq_head || !m->rq_tail || !m->uq_head ||
        !m->uq_tail || !m->rel || !m->scratch || !m->h.e || !out->finish_ns) {
        model_free(m);
        kc_loggops_result_free(out);
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    }
    for (size_t r = 0; r < R; r++)
        m->rq_head[r] = m->rq_tail[r] = m->uq_head[r] = m->uq_tail[r] = KC_GOAL_NONE;
    return KC_OK;
}

/* The dependents of each op, in dependency order, split by start and end;
 * the ops with none to wait for in m->rel. KC_EINVAL for a dependency out of
 * range. O(ops + deps). */
static kc_status index_deps(model *m, kc_err *err)
{
    const kc_goal *g = m->g;
    size_t n = g->nops;
    for (size_t i = 0; i < g->ndeps; i++) {
        const kc_goal_dep *d = &g->dep[i];
        if (d->op >= n || d->on >= n)
            return kc_fail_param(err, KC_EINVAL, "schedule", "line %ld: a dependency out of range", d->line);
        (d->start ? m->sfirst : m->efirst)[d->on + 2]++;
        m->waiting[d->op]++;
    }
    for (size_t i = 0; i < n; i++) {
        m->sfirst[i + 2] += m->sfirst[i + 1];
        m->efirst[i + 2] += m->efirst[i + 1];
    }
    for (size_t i = 0; i < g->ndeps; i++) {
        const kc_goal_dep *d = &g->dep[i];
        if (d->start)
            m->slist[m->sfirst[d->on + 1]++] = d->op;
        else
            m->elist[m->efirst[d->on + 1]++] = d->op;
    }
    for (size_t i = 0; i < n; i++)
        if (!m->waiting[i])
            m->rel[m->nrel++] = i;
    return KC_OK;
}

/* After the loop: why it stopped early (overflow, out of memory, a deadlock,
 * an unmatched message), or KC_OK with each rank's finish and the makespan. */
static kc_status finish(const model *m, kc_loggops_result *out, kc_err *err)
{
    const kc_goal *g = m->g;
    size_t n = g->nops;
    if (m->overflow < 0)
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    if (m->overflow)
        return kc_fail_param(err, KC_ERANGE, "loggops", "a time passes 2^64 - 1 ns");
    if (m->done != n)
        return kc_fail_param(err, KC_EINVAL, "schedule", "%llu of %zu operations never complete: a deadlock (a "
                             "send above S waits for its receive to be posted) or wildcards that match differently "
                             "at run time",
                             (unsigned long long)(n - m->done), n);
    for (size_t r = 0; r < g->num_ranks; r++) {
        if (m->uq_head[r] != KC_GOAL_NONE)
            return kc_fail_param(err, KC_EINVAL, "schedule", "rank %zu ends with an unmatched message (line %ld)",
                                 r, g->op[m->uq_head[r]].line);
        uint64_t f = 0;
        for (unsigned c = 0; c < m->ncpu; c++)
            f = max64(f, m->nexto[r * m->ncpu + c]);
        out->finish_ns[r] = f;
        out->makespan_ns = max64(out->makespan_ns, f);
    }
    return KC_OK;
}

/* The LogGOPS run of g (p NULL: the defaults), calling trace for every
 * interval and recording the charge order in ord when not NULL. O((ops +
 * deps) log ops) plus the queue scans of MPI matching. */
static kc_status run(const kc_goal *g, const kc_loggops_params *p, kc_loggops_trace_fn trace, void *ctx,
                     kci_loggops_order *ord, kc_loggops_result *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_loggops_params def = KC_LOGGOPS_PARAMS_DEFAULT;
    if (!p)
        p = &def;
    unsigned ncpu, nnic;
    kc_status st = check_params(p, err);
    if (!st)
        st = count_resources(g, &ncpu, &nnic, err);
    if (!st && ord)
        st = order_alloc(ord, g, p->S, ncpu, nnic, err);
    if (st)
        return st;
    model m = {.g = g, .p = *p, .trace = trace, .ctx = ctx, .ncpu = ncpu, .nnic = nnic, .ord = ord};
    st = model_alloc(&m, out, err);
    if (st)
        return st;
    st = index_deps(&m, err);
    if (!st) {
        enqueue_released(&m);
        while (m.h.n && !m.overflow) {
            out->events++;
            step(&m, hpop(&m.h), out);
        }
        st = finish(&m, out, err);
    }
    model_free(&m);
    if (st)
        kc_loggops_result_free(out);
    return st;
}

kc_status kc_loggops_run(const kc_goal *g, const kc_loggops_params *p, kc_loggops_trace_fn trace, void *ctx,
                         kc_loggops_result *out, kc_err *err)
{
    return run(g, p, trace, ctx, NULL, out, err);
}

kc_status kci_loggops_run_order(const kc_goal *g, const kc_loggops_params *p, kci_loggops_order *ord,
                                kc_loggops_result *out, kc_err *err)
{
    memset(ord, 0, sizeof *ord);
    kc_loggops_params def = KC_LOGGOPS_PARAMS_DEFAULT;
    return run(g, p ? p : &def, NULL, NULL, ord, out, err);
}

void kci_loggops_order_free(kci_loggops_order *ord)
{
    free(ord->c), free(ord->post_after), free(ord->matched), free(ord->eager), free(ord->last_cpu);
    free(ord->post), free(ord->match);
    memset(ord, 0, sizeof *ord);
}
