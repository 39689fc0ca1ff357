/* The LogGOPS model of a GOAL schedule (kcube/loggops.h, docs/loggops.md):
 * a discrete-event loop over one queue of operations and messages ordered
 * by (time, insertion number), with per-rank CPU and NIC clocks and MPI's
 * posted and unexpected queues. The order of events and charges follows
 * LogGOPSim's (spcl/LogGOPSim, src/LogGOPSim/LogGOPSim.cpp), so that the
 * makespans agree to the nanosecond; this is kcube's own code. An entry
 * that finds its CPU (or NIC) busy is taken again at the time it frees,
 * keeping its insertion number: that is what decides ties. LogGOPSim puts
 * it back into the queue, so k entries waiting on one CPU cost O(k^2)
 * events; here it waits in a list per CPU or NIC, ordered by insertion
 * number, of which only the first is in the queue (park(), promote()): the
 * same entries are taken at the same places, without the retries that
 * would fail anyway. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/loggops.h"
#include "replay_internal.h"
#include "core/bits.h"
#include "core/grow.h"
#include "core/heap.h"
#include "evq.h"
#include "core/sort.h"
#include "matchq.h"

enum { EV_SEND, EV_RECV, EV_CALC, EV_MSG };

typedef struct ev {
    uint64_t t, ts; /* time; insertion number (kept when re-inserted) */
    size_t op;      /* the operation; for EV_MSG the send */
    int type;
} ev;

/* An event as the queue holds it (kci_evq_ent, 16 bytes): the time, then
 * the insertion number above the operation and the type (ts < 2^32 and
 * op < 2^30, which run() checks), so that comparing k compares insertion
 * numbers. */
#define MAX_OPS ((size_t)1 << 30)

/* The event queue: buckets per time (kci_evq) while events share times
 * (a synchronous schedule: hundreds a time), else a 4-ary heap, which is
 * cheaper when times rarely repeat. Both give the events in (t, k) order,
 * so the switch, made once after SWITCH_AFTER events when they averaged
 * fewer than SWITCH_TIES a time, changes nothing but the cost
 * (kci_loggops_run_switch lets tests move it). */
#define SWITCH_AFTER 4096
#define SWITCH_TIES 4

typedef struct heap {
    kci_evq q;         /* while bucketed */
    kci_evq_ent *e;    /* the heap, after the switch */
    size_t n, cap;     /* events queued; room in e */
    size_t popped;     /* events taken while bucketed */
    size_t switch_after; /* SWITCH_AFTER (tests: any) */
    int bucketed;
    int failed;        /* out of memory */
} heap;

static int ent_less(const kci_evq_ent *a, const kci_evq_ent *b)
{
    return a->t < b->t || (a->t == b->t && a->k < b->k);
}

KCI_HEAP4_DEFINE(evh, kci_evq_ent, ent_less)

static void hpush(heap *h, ev x)
{
    kci_evq_ent q = {x.t, x.ts << 32 | (uint64_t)x.op << 2 | (uint64_t)x.type};
    if (h->bucketed ? kci_evq_push(&h->q, q) != 0
                    : h->n == h->cap && KCI_RESERVE(h->e, h->cap, h->n + 1, 1024) != 0) {
        h->failed = 1;
        return;
    }
    if (!h->bucketed)
        evh_push(h->e, &h->n, q);
    else
        h->n++;
}

/* Move the events from the buckets to the heap, in order (each push then
 * stays where it is put). -1 out of memory. */
static int to_heap(heap *h)
{
    if (KCI_RESERVE(h->e, h->cap, h->n, 1024))
        return -1;
    size_t n = 0;
    for (kci_evq_ent q; n < h->n && kci_evq_pop(&h->q, &q) == 1;)
        evh_push(h->e, &n, q);
    kci_evq_free(&h->q);
    h->bucketed = 0;
    return 0;
}

/* The first event into *e: 0 when out of memory. */
static int hpop(heap *h, ev *e)
{
    kci_evq_ent q;
    if (h->bucketed && h->popped == h->switch_after && (!h->popped || h->popped < SWITCH_TIES * h->q.times) &&
        to_heap(h))
        return h->failed = 1, 0;
    if (h->bucketed) {
        if (kci_evq_pop(&h->q, &q) != 1)
            return h->failed = 1, 0;
        h->popped++;
    } else {
        q = evh_pop(h->e, &h->n);
        h->n++;
    }
    h->n--;
    *e = (ev){q.t, q.k >> 32, (size_t)(q.k >> 2 & (MAX_OPS - 1)), (int)(q.k & 3)};
    return 1;
}

/* The operation of the event that hpop will give next, when it is at hand
 * (the current bucket's next, or the heap's root), else MAX_OPS: for a
 * prefetch, as the operations are visited in no order on large schedules. */
static size_t hpeek_op(const heap *h)
{
    if (!h->n)
        return MAX_OPS;
    if (!h->bucketed)
        return (size_t)(h->e[0].k >> 2 & (MAX_OPS - 1));
    const kci_evq *q = &h->q;
    const kci_evq_bucket *u = q->cur == SIZE_MAX || q->npast ? NULL : &q->b[q->cur];
    return u && u->at < u->n ? (size_t)(u->e[u->at].k >> 2 & (MAX_OPS - 1)) : MAX_OPS;
}

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

/* An operation as the loop reads it: the schedule's fields it needs and
 * its link in a wait list, 32 bytes (kc_goal_op is 56 and holds what only
 * messages need: line, label, phase). Its count of unresolved dependencies
 * is apart (model.nwait): a release touches 4 bytes of each dependent, not
 * a line of 64. */
typedef struct lgop {
    uint64_t amount;
    int64_t tag;
    uint32_t rank;
    int32_t peer;     /* ranks below 2^31 (run() checks) */
    uint32_t wnext;   /* while it waits for a CPU or NIC: the next in its list */
    uint8_t kind, cpu, nic, pad;
} lgop;

/* Where an operation's dependents are in the model's dlist: those waiting
 * on its start at [s, e), on its end at [e, the next operation's s). */
typedef struct lgdeps {
    uint32_t s, e;
} lgdeps;

/* The entries waiting on one CPU or NIC (park()): a list linked through
 * the operations' wnext, ordered by insertion number, and the insertion number
 * of the one in the queue for them (WAIT_NONE: none; all in the list come
 * after it). */
typedef struct waitres {
    uint32_t head, tail, fly;
} waitres;
#define WAIT_NONE UINT32_MAX
#define NO_RES SIZE_MAX

typedef struct model {
    const kc_goal *g;
    kc_loggops_params p;
    kc_loggops_trace_fn trace;
    void *ctx;
    unsigned ncpu, nnic;
    uint64_t *nexto, *nextgs, *nextgr; /* [rank * ncpu + cpu], [rank * nnic + nic]: one block, the
                                          clocks of the resources res_cpu/res_nics/res_nicr number */
    waitres *wait;                     /* [resources] */
    uint32_t *nwait;                   /* [nops] unresolved dependencies */
    uint64_t *wkey;                    /* [nops] a waiting entry: insertion number << 2 | type */
    int park;                          /* 0: put busy entries back into the queue, as LogGOPSim (tests) */
    lgop *op;                          /* [nops] */
    lgdeps *dep;                       /* [nops + 1] */
    uint32_t *dlist;                   /* [ndeps] dependents, each op's in dependency-line order */
    uint64_t *t_send;                  /* a send: when it was taken; a recv: when posted (tracing only) */
    uint64_t *t_msg;                   /* a send: when the receiver took its message (tracing only) */
    kci_matchq q;                      /* posted receives; unexpected messages (sends) */
    size_t *rel, nrel;                 /* ops made ready by the current event */
    size_t *scratch;                   /* for sorting rel */
    size_t relcap;                     /* room in rel and scratch: the most one event can release */
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

/* ---- entries waiting for a busy CPU or NIC ------------------------------------ */

/* Why waiting lists give LogGOPSim's result: an entry found busy at t goes
 * back in at (c, its number), c the later of its clocks; there it is tried
 * again, so it is taken at the first (time, number) in the queue's order at
 * which its clocks are free, and every try before has no effect. Clocks
 * only grow, so a clock read now is never past that place: an entry may be
 * tried at any (clock, number) before it. Entries that need the same
 * clocks (a class: the calcs of one CPU, the sends of one CPU and NIC, the
 * messages into one CPU and NIC) are free at the same places, so the first
 * by number is taken first; the others cannot be taken before it. A
 * class's waiting entries form a list by number of which only the first is
 * in the queue, at the later clock; the next goes in when it is tried
 * (promote), at the clocks then. LogGOPSim tries all k each time the
 * resources change hands; this tries one. */

/* The wait class of an entry (see above) on CPU resource rc. */
static size_t wait_class(const model *m, int type, size_t rc, unsigned nic)
{
    return type == EV_CALC ? rc
                           : (size_t)m->g->num_ranks * m->ncpu + (rc * m->nnic + nic) * 2 + (type == EV_MSG);
}

/* Entry e found its class cls busy until c > e.t: in the queue at c if it
 * comes before the class's list (a previous first then stays in the queue:
 * one try more), else in the list, in number order (most come last: O(1);
 * else O(list)). */
static void park(model *m, ev e, size_t cls, uint64_t c)
{
    waitres *w = m->park ? &m->wait[cls] : NULL;
    uint32_t ts = (uint32_t)e.ts, op = (uint32_t)e.op;
    if (!w || w->fly == WAIT_NONE || ts < w->fly) {
        if (w)
            w->fly = ts;
        hpush(&m->h, (ev){c, e.ts, e.op, e.type});
        return;
    }
    m->wkey[op] = e.ts << 2 | (uint64_t)e.type;
    if (w->head == WAIT_NONE || m->wkey[w->tail] < m->wkey[op]) {
        m->op[op].wnext = WAIT_NONE;
        if (w->head == WAIT_NONE)
            w->head = op;
        else
            m->op[w->tail].wnext = op;
        w->tail = op;
        return;
    }
    uint32_t *at = &w->head;
    while (m->wkey[*at] < m->wkey[op])
        at = &m->op[*at].wnext;
    m->op[op].wnext = *at;
    *at = op;
}

/* 1 when e (of class cls) cannot be taken at e.t because resource a or b
 * (NO_RES: none) is busy; it then waits (park). */
static int blocked(model *m, ev e, size_t cls, size_t a, size_t b)
{
    uint64_t c = max64(m->nexto[a], b == NO_RES ? 0 : m->nexto[b]);
    if (c <= e.t)
        return 0;
    park(m, e, cls, c);
    return 1;
}

/* 1 when e is its class's entry in the queue (no longer so), else 0. */
static int unfly(model *m, ev e, size_t cls)
{
    if (m->wait[cls].fly != (uint32_t)e.ts)
        return 0;
    m->wait[cls].fly = WAIT_NONE;
    return 1;
}

/* After class cls's queued first (needing resources a and b) was tried at
 * t: the next of its list into the queue at the later clock (t if earlier:
 * it comes after in number), unless the one tried waits again. */
static void promote(model *m, size_t cls, size_t a, size_t b, uint64_t t)
{
    waitres *w = &m->wait[cls];
    if (w->fly != WAIT_NONE || w->head == WAIT_NONE)
        return;
    uint32_t op = w->head;
    uint64_t k = m->wkey[op], c = max64(m->nexto[a], b == NO_RES ? 0 : m->nexto[b]);
    w->head = m->op[op].wnext;
    w->fly = (uint32_t)(k >> 2);
    hpush(&m->h, (ev){max64(c, t), k >> 2, op, (int)(k & 3)});
}

/* s - 1 bytes are charged per byte; 0 bytes cost what 1 byte does. */
static uint64_t s1(const lgop *o) { return o->amount ? o->amount - 1 : 0; }

static void emit(model *m, kc_loggops_slice_kind kind, size_t op, size_t peer, uint32_t rank, unsigned cpu,
                 uint64_t a, uint64_t b)
{
    if (m->trace) {
        kc_loggops_slice s = {op, peer, a, b, rank, (uint8_t)kind, (uint8_t)cpu};
        m->trace(m->ctx, &s);
    }
}

static void release(model *m, uint32_t from, uint32_t to)
{
    for (uint32_t k = from; k < to; k++)
        if (--m->nwait[m->dlist[k]] == 0)
            m->rel[m->nrel++] = m->dlist[k];
}
static void started(model *m, size_t op) { release(m, m->dep[op].s, m->dep[op].e); }
static void finished(model *m, size_t op)
{
    m->done++;
    release(m, m->dep[op].e, m->dep[op + 1].s);
}

static int kind_rank(int kind) { return kind == KC_GOAL_SEND ? 0 : kind == KC_GOAL_RECV ? 1 : 2; }

/* Ready operations enter by rank, then sends, receives, calcs; equal keys
 * keep the order they were released in (the sort is stable), as LogGOPSim
 * built with a stable sort takes them: the dependents of an operation's
 * start (`irequires`) before those of its end, each in the order of the
 * dependency lines in the file, and the initial ones in program order. */
static int rel_cmp_g(const lgop *op, size_t a, size_t b)
{
    const lgop *x = &op[a], *y = &op[b];
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
static void sort_rel(model *m)
{
    if (m->nrel > 1) /* most events release none or one */
        sort_ops(m->rel, m->nrel, m->scratch, m->op);
}

/* Queue the ready operations, each at the time its CPU (and a send's NIC) frees. */
static void enqueue_released(model *m)
{
    sort_rel(m);
    for (size_t i = 0; i < m->nrel; i++) {
        size_t op = m->rel[i];
        const lgop *o = &m->op[op];
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

/* Post receive op at its rank (out of memory stops the run). */
static void q_post(model *m, const lgop *o, size_t op)
{
    if (kci_mq_post(&m->q, o->rank, o->peer, o->tag, (uint32_t)op))
        m->overflow = -1;
}

/* Queue the message of send op as unexpected at its receiver. */
static void q_unexpected(model *m, const lgop *o, size_t op)
{
    if (kci_mq_unexpected(&m->q, (uint32_t)o->peer, o->rank, o->tag, (uint32_t)op))
        m->overflow = -1;
}

/* The first unexpected message that receive o fits, removed, or KC_GOAL_NONE. */
static size_t q_take_unexpected(model *m, const lgop *o)
{
    uint32_t e = kci_mq_take_unexpected(&m->q, o->rank, o->peer, o->tag);
    return e == KCI_MQ_NONE ? KC_GOAL_NONE : e;
}

/* The first posted receive that the message of send o fits, removed, or
 * KC_GOAL_NONE. */
static size_t q_take_posted(model *m, const lgop *o)
{
    uint32_t e = kci_mq_take_posted(&m->q, (uint32_t)o->peer, o->rank, o->tag);
    return e == KCI_MQ_NONE ? KC_GOAL_NONE : e;
}

/* A rendezvous send is done when its receive is matched at t: its rank's
 * clocks (numbered cpu, nic, as LogGOPSim does) move to t at least. */
static void rendezvous_done(model *m, size_t send, size_t recv, unsigned cpu, unsigned nic, uint64_t t)
{
    uint32_t r = m->op[send].rank;
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
    const lgop *o = &m->op[e.op];
    size_t rc = (size_t)(cpu - m->nexto);
    if (blocked(m, e, rc, rc, NO_RES))
        return 0;
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
    const lgop *o = &m->op[e.op];
    uint64_t *gs = &m->nextgs[(size_t)o->rank * m->nnic + o->nic];
    size_t rc = (size_t)(cpu - m->nexto);
    if (blocked(m, e, wait_class(m, EV_SEND, rc, o->nic), rc, (size_t)(gs - m->nexto)))
        return 0;
    started(m, e.op);
    *cpu = add(m, add(m, e.t, p->o), mul(m, s1(o), p->O));
    *gs = add(m, add(m, e.t, p->g), mul(m, s1(o), p->G));
    emit(m, KC_LOGGOPS_SEND, e.op, KC_GOAL_NONE, o->rank, o->cpu, e.t, *cpu);
    if (m->trace)
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

/* The slices of receive e.op posted at e.t after the message of send
 * arrived (m->trace set). */
static void emit_recv_late(model *m, ev e, size_t send)
{
    const kc_loggops_params *p = &m->p;
    const lgop *o = &m->op[e.op], *so = &m->op[send];
    uint64_t tm = m->t_msg[send];
    emit(m, KC_LOGGOPS_WAIT, e.op, send, o->rank, o->cpu, e.t, max64(e.t, tm)); /* see kcube/loggops.h */
    emit(m, KC_LOGGOPS_RECV, e.op, send, o->rank, so->cpu, tm,
         add(m, add(m, tm, p->o), max64(mul(m, s1(so), p->O), mul(m, s1(so), p->G))));
    emit(m, KC_LOGGOPS_WIRE, send, e.op, so->rank, so->cpu, add(m, m->t_send[send], p->o), tm);
}

/* A receive posted at e.t: it matches the first unexpected message from its
 * peer (and ends) or joins the posted queue. Never requeued. */
static void step_recv(model *m, ev e)
{
    const kc_loggops_params *p = &m->p;
    const lgop *o = &m->op[e.op];
    if (m->ord)
        m->ord->post[e.op] = e.t;
    if (m->trace)
        m->t_send[e.op] = e.t;
    started(m, e.op);
    size_t send = q_take_unexpected(m, o);
    if (send == KC_GOAL_NONE) {
        q_post(m, o, e.op);
        return;
    }
    const lgop *so = &m->op[send];
    if (m->ord)
        m->ord->matched[e.op] = send, m->ord->match[send] = e.t;
    /* Eager or rendezvous is the send's choice, made when it left: a send
     * completes once (LogGOPSim decides here on the receive's size, so a
     * receive above S that meets an eager message completes its send a
     * second time; docs/loggops.md) */
    if (so->amount > p->S)
        rendezvous_done(m, send, e.op, o->cpu, o->nic, e.t);
    if (m->trace)
        emit_recv_late(m, e, send);
    finished(m, e.op);
}

/* The send e.op's message at its receiver at e.t, on the CPU *cpu and NIC
 * numbered like the send's: 0 if either is busy (requeued), else 1 after
 * charging them and matching a posted receive or queueing it as unexpected. */
static int step_msg(model *m, ev e, uint64_t *cpu, kc_loggops_result *res)
{
    const kc_loggops_params *p = &m->p;
    const lgop *o = &m->op[e.op];
    uint32_t dst = (uint32_t)o->peer;
    uint64_t *gr = &m->nextgr[(size_t)dst * m->nnic + o->nic];
    size_t rc = (size_t)(cpu - m->nexto);
    if (blocked(m, e, wait_class(m, EV_MSG, rc, o->nic), rc, (size_t)(gr - m->nexto)))
        return 0;
    uint64_t bytes = max64(mul(m, s1(o), p->O), mul(m, s1(o), p->G));
    *cpu = add(m, add(m, e.t, p->o), bytes);
    *gr = add(m, add(m, e.t, p->g), mul(m, s1(o), p->G));
    if (m->trace)
        m->t_msg[e.op] = e.t;
    charge(m, KCI_LG_MSG, e.op, res_cpu(m, dst, o->cpu), res_nicr(m, dst, o->nic), e.t, *cpu, *gr);
    res->messages++;
    if (o->amount > p->S)
        res->rendezvous++;
    size_t recv = q_take_posted(m, o);
    if (recv == KC_GOAL_NONE) {
        q_unexpected(m, o, e.op);
        return 1;
    }
    if (m->ord)
        m->ord->matched[recv] = e.op, m->ord->match[e.op] = e.t;
    if (o->amount > p->S)
        rendezvous_done(m, e.op, recv, o->cpu, o->nic, e.t);
    if (m->trace) {
        emit(m, KC_LOGGOPS_WAIT, recv, e.op, dst, m->op[recv].cpu, m->t_send[recv], max64(m->t_send[recv], e.t));
        emit(m, KC_LOGGOPS_RECV, recv, e.op, dst, o->cpu, e.t, *cpu);
        emit(m, KC_LOGGOPS_WIRE, e.op, recv, o->rank, o->cpu, add(m, m->t_send[e.op], p->o), e.t);
    }
    finished(m, recv);
    return 1;
}

/* One event: the operation or message it names, then the operations it made
 * ready enter the queue (not when it was only put back for a busy resource). */
static void step(model *m, ev e, kc_loggops_result *res)
{
    const lgop *o = &m->op[e.op];
    uint32_t at = e.type == EV_MSG ? (uint32_t)o->peer : o->rank;
    size_t rc = res_cpu(m, at, o->cpu), rn = NO_RES, cls = wait_class(m, e.type, rc, o->nic);
    if (e.type == EV_SEND || e.type == EV_MSG)
        rn = e.type == EV_SEND ? res_nics(m, at, o->nic) : res_nicr(m, at, o->nic);
    int flew = m->park && e.type != EV_RECV && unfly(m, e, cls);
    uint64_t *cpu = &m->nexto[rc];
    int taken = 1;
    switch (e.type) {
    case EV_CALC: taken = step_calc(m, e, cpu); break;
    case EV_SEND: taken = step_send(m, e, cpu); break;
    case EV_RECV: step_recv(m, e); break;
    default: taken = step_msg(m, e, cpu, res); break;
    }
    if (flew)
        promote(m, cls, rc, rn, e.t);
    if (taken)
        enqueue_released(m);
}

static void model_free(model *m)
{
    free(m->nexto), free(m->wait), free(m->nwait), free(m->wkey), free(m->op), free(m->dep), free(m->dlist);
    free(m->t_send), free(m->t_msg), free(m->rel), free(m->scratch);
    kci_evq_free(&m->h.q);
    free(m->h.e);
    kci_mq_free(&m->q);
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

/* The model's per-rank arrays and out->finish_ns, and the per-operation
 * arrays but for the ready list (sized by index_deps); on KC_ENOMEM all
 * are freed. */
static kc_status model_alloc(model *m, kc_loggops_result *out, kc_err *err)
{
    const kc_goal *g = m->g;
    size_t n = g->nops, R = g->num_ranks, R1 = R ? R : 1, n1 = n ? n : 1;
    size_t nres = R1 * (m->ncpu + 2 * (size_t)m->nnic), ncls = R1 * m->ncpu * (1 + 2 * (size_t)m->nnic);
    m->nexto = calloc(nres, sizeof *m->nexto); /* then nextgs, then nextgr */
    m->nextgs = m->nexto ? m->nexto + R1 * m->ncpu : NULL;
    m->nextgr = m->nexto ? m->nextgs + R1 * m->nnic : NULL;
    if (ncls > 4 * n1 + 4096) /* many CPUs and NICs, few operations: waiting lists cost more than they save */
        m->park = 0, ncls = 1;
    m->wait = malloc(ncls * sizeof *m->wait);
    m->nwait = calloc(n1, sizeof *m->nwait);
    m->wkey = malloc(n1 * sizeof *m->wkey);
    for (size_t i = 0; m->wait && i < ncls; i++)
        m->wait[i] = (waitres){WAIT_NONE, WAIT_NONE, WAIT_NONE};
    m->op = malloc(n1 * sizeof *m->op);
    m->dep = calloc(n + 1, sizeof *m->dep);
    m->dlist = malloc((g->ndeps ? g->ndeps : 1) * sizeof *m->dlist);
    m->t_send = m->trace ? calloc(n1, sizeof *m->t_send) : NULL; /* for slices only */
    m->t_msg = m->trace ? calloc(n1, sizeof *m->t_msg) : NULL;
    kci_evq_init(&m->h.q);
    m->h.bucketed = 1;
    out->finish_ns = calloc(R1, sizeof *out->finish_ns);
    kc_status st = m->nexto && m->wait && m->nwait && m->wkey && m->op && m->dep && m->dlist &&
                           (!m->trace || (m->t_send && m->t_msg)) &&
                           out->finish_ns
                       ? kci_mq_init(&m->q, n, (uint32_t)R, kc_goal_has_wildcards(g), err)
                       : kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    if (st) {
        model_free(m);
        kc_loggops_result_free(out);
    }
    return st;
}

/* The loop's copy of each operation (in no wait list). */
static void copy_ops(model *m)
{
    const kc_goal *g = m->g;
    for (size_t i = 0; i < g->nops; i++) {
        const kc_goal_op *o = &g->op[i];
        m->op[i] = (lgop){o->amount, o->tag, o->rank, (int32_t)o->peer, 0, o->kind, o->cpu, o->nic, 0};
    }
}

/* The dependents of each op in m->dlist, those on its start before those
 * on its end, each in dependency order; m->rel sized for the most that one
 * event releases (the ops with none to wait for, or the dependents of two
 * ops), and those ops in it. KC_EINVAL for a dependency out of range.
 * O(ops + deps). */
static kc_status index_deps(model *m, kc_err *err)
{
    const kc_goal *g = m->g;
    size_t n = g->nops;
    copy_ops(m);
    for (size_t i = 0; i < g->ndeps; i++) {
        const kc_goal_dep *d = &g->dep[i];
        if (d->op >= n || d->on >= n)
            return kc_fail_param(err, KC_EINVAL, "schedule", "line %ld: a dependency out of range", d->line);
        (d->start ? &m->dep[d->on].s : &m->dep[d->on].e)[0]++;
        m->nwait[d->op]++;
    }
    size_t most = 0, ready = 0;
    uint32_t at = 0;
    for (size_t i = 0; i < n; i++) { /* counts to offsets: s and e are where each part is filled from */
        uint32_t ns = m->dep[i].s, ne = m->dep[i].e;
        most = most > (size_t)ns + ne ? most : (size_t)ns + ne;
        ready += !m->nwait[i];
        m->dep[i] = (lgdeps){at, at + ns};
        at += ns + ne;
    }
    m->dep[n].s = at;
    for (size_t i = 0; i < g->ndeps; i++) {
        const kc_goal_dep *d = &g->dep[i];
        m->dlist[d->start ? m->dep[d->on].s++ : m->dep[d->on].e++] = (uint32_t)d->op;
    }
    for (size_t i = n; i-- > 0;) /* back from the fill ends to the starts */
        m->dep[i] = (lgdeps){i ? m->dep[i - 1].e : 0, m->dep[i].s};
    m->relcap = ready > 2 * most ? ready : 2 * most;
    m->rel = malloc((m->relcap ? m->relcap : 1) * sizeof *m->rel);
    m->scratch = malloc((m->relcap ? m->relcap : 1) * sizeof *m->scratch);
    if (!m->rel || !m->scratch)
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    for (size_t i = 0; i < n; i++)
        if (!m->nwait[i])
            m->rel[m->nrel++] = i;
    return KC_OK;
}

/* What a run that stopped with operations left waits for, into buf: the
 * first rendezvous send whose message no receive took, else the first
 * receive posted that no message reached, else an operation that never
 * became ready. O(queues + ops). */
static void stuck_text(const model *m, char *buf, size_t size)
{
    const kc_goal *g = m->g;
    uint32_t rank, op = kci_mq_first_left(&m->q, &rank);
    char what[160];
    int found = 1;
    if (op != KCI_MQ_NONE && g->op[op].amount > m->p.S)
        kci_rndv_text(g, op, what, sizeof what);
    else if ((op = kci_mq_first_in(&m->q, 0, &rank)) != KCI_MQ_NONE)
        kci_recv_text(g, op, what, sizeof what);
    else
        found = 0;
    if (found) {
        snprintf(buf, size, "%s, is never matched", what);
        return;
    }
    size_t i = 0;
    while (i < g->nops && !m->nwait[i])
        i++;
    if (i < g->nops)
        snprintf(buf, size, "rank %u's %s at line %ld never becomes ready", g->op[i].rank,
                 kc_names_name(&kc_goal_kind_names, g->op[i].kind), g->op[i].line);
    else
        snprintf(buf, size, "operations wait for each other");
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
    if (m->done != n) {
        char why[200];
        stuck_text(m, why, sizeof why);
        return kc_fail_param(err, KC_EINVAL, "schedule", "%llu of %zu operations never complete: a deadlock (%s)",
                             (unsigned long long)(n - m->done), n, why);
    }
    uint32_t left_rank;
    uint32_t left = kci_mq_first_left(&m->q, &left_rank);
    if (left != KCI_MQ_NONE)
        return kc_fail_param(err, KC_EINVAL, "schedule", "rank %zu ends with an unmatched message (line %ld)",
                             (size_t)left_rank, g->op[left].line);
    for (size_t r = 0; r < g->num_ranks; r++) {
        uint64_t f = 0;
        for (unsigned c = 0; c < m->ncpu; c++)
            f = max64(f, m->nexto[r * m->ncpu + c]);
        out->finish_ns[r] = f;
        out->makespan_ns = max64(out->makespan_ns, f);
    }
    return KC_OK;
}

/* How run_queue runs: the event queue switching to a heap after
 * switch_after events when they shared few times; busy entries waiting in
 * lists (park) or put back into the queue. */
typedef struct run_mode {
    size_t switch_after;
    int park;
} run_mode;

/* The LogGOPS run of g (p NULL: the defaults), calling trace for every
 * interval and recording the charge order in ord when not NULL, as mode
 * says. Costs: kcube/loggops.h. */
static kc_status run_queue(const kc_goal *g, const kc_loggops_params *p, kc_loggops_trace_fn trace, void *ctx,
                           kci_loggops_order *ord, run_mode mode, kc_loggops_result *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_loggops_params def = KC_LOGGOPS_PARAMS_DEFAULT;
    if (!p)
        p = &def;
    unsigned ncpu, nnic;
    kc_status st = check_params(p, err);
    if (!st)
        st = count_resources(g, &ncpu, &nnic, err);
    if (!st && (g->nops >= MAX_OPS || g->ndeps >= UINT32_MAX || g->num_ranks > INT32_MAX))
        st = kc_fail_param(err, KC_ERANGE, "schedule", "the LogGOPS model runs at most 2^30 - 1 operations, "
                           "2^32 - 2 dependencies and 2^31 - 1 ranks");
    if (!st && ord)
        st = order_alloc(ord, g, p->S, ncpu, nnic, err);
    if (st)
        return st;
    model m = {.g = g, .p = *p, .trace = trace, .ctx = ctx, .ncpu = ncpu, .nnic = nnic, .ord = ord,
               .park = mode.park};
    st = model_alloc(&m, out, err);
    if (st)
        return st;
    m.h.switch_after = mode.switch_after;
    st = index_deps(&m, err);
    if (!st) {
        enqueue_released(&m);
        ev e;
        while (m.h.n && !m.overflow && hpop(&m.h, &e)) {
            size_t next = hpeek_op(&m.h);
            if (next != MAX_OPS)
                kci_prefetch(&m.op[next]);
            out->events++;
            step(&m, e, out);
        }
        if (m.h.failed)
            m.overflow = -1; /* out of memory */
        st = finish(&m, out, err);
    }
    model_free(&m);
    if (st)
        kc_loggops_result_free(out);
    return st;
}

static kc_status run(const kc_goal *g, const kc_loggops_params *p, kc_loggops_trace_fn trace, void *ctx,
                     kci_loggops_order *ord, kc_loggops_result *out, kc_err *err)
{
    return run_queue(g, p, trace, ctx, ord, (run_mode){SWITCH_AFTER, 1}, out, err);
}

kc_status kci_loggops_run_switch(const kc_goal *g, const kc_loggops_params *p, size_t after, kc_loggops_result *out,
                                 kc_err *err)
{
    return run_queue(g, p, NULL, NULL, NULL, (run_mode){after, 1}, out, err);
}

kc_status kci_loggops_run_retry(const kc_goal *g, const kc_loggops_params *p, kc_loggops_trace_fn trace, void *ctx,
                                kci_loggops_order *ord, kc_loggops_result *out, kc_err *err)
{
    kc_loggops_params def = KC_LOGGOPS_PARAMS_DEFAULT;
    if (ord)
        memset(ord, 0, sizeof *ord);
    return run_queue(g, p ? p : &def, trace, ctx, ord, (run_mode){SWITCH_AFTER, 0}, out, err);
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
