/* The network replay's CPUs and NICs in LogGOPS's order (appsim_internal.h).
 *
 * Mirrors src/replay/loggops.c charge by charge, LogGOPS's order given
 * (kci_loggops_order): a calc or send starts when its dependencies are
 * done and its CPU (and a send's NIC) has finished the charge before it; a
 * message's intake when its first byte is there and the receiver's CPU and
 * NIC are done with theirs; a rendezvous send's hold when its receive is
 * matched; a receive is posted when its dependencies are done and its CPU
 * has finished the charge LogGOPS had made last when the receive became
 * ready (LogGOPS posts it then). Durations are LogGOPS's with the start-up
 * added to a send's CPU time and G the byte time; an intake's CPU time
 * lasts at least until the tail has arrived. Everything is evaluated as
 * soon as its inputs are known, from a work stack (no recursion: chains of
 * a million operations). */
#include "appsim_internal.h"
#include "core/grow.h"
#include "core/heap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { W_CHARGE, W_READY, W_POST, W_MATCH, W_RECV_END, W_CPU_END };

static double maxd(double a, double b) { return a > b ? a : b; }
/* A charge number (below KCI_FX_MAX: kci_fixed_init checks) or KCI_LG_NONE, in 32 bits. */
static uint32_t narrow(size_t c) { return c == KCI_LG_NONE ? KCI_FX_NONE : (uint32_t)c; }
static uint64_t s1(const kc_goal_op *o) { return o->amount ? o->amount - 1 : 0; }

void kci_fixed_free(kci_fixed *f)
{
    free(f->rfirst), free(f->rlist), free(f->rpos), free(f->rfree), free(f->rlast), free(f->rknown);
    free(f->cstart), free(f->ccpu), free(f->cnic), free(f->cstate), free(f->task_of), free(f->msg_of);
    free(f->hold_of), free(f->rdy), free(f->pwait), free(f->pnext);
    free(f->match), free(f->matched), free(f->work), free(f->h);
    free(f->cprev_cpu), free(f->cprev_nic);
    memset(f, 0, sizeof *f);
}

void kci_fixed_shed(kci_fixed *f)
{
    free(f->rfirst), free(f->rlist), free(f->rpos), free(f->rfree), free(f->rlast), free(f->rknown);
    free(f->cstate), free(f->hold_of), free(f->rdy), free(f->pwait), free(f->pnext), free(f->matched);
    free(f->work), free(f->h);
    f->rfirst = f->rpos = f->rlast = NULL;
    f->rlist = f->hold_of = f->pwait = f->pnext = NULL;
    f->rfree = NULL;
    f->rknown = f->cstate = f->rdy = f->matched = NULL;
    f->work = NULL;
    f->h = NULL;
    f->nwork = f->capwork = f->hn = 0;
}

/* The work stack holds (kind, id) pairs packed as id * 8 + kind. */
static void work(kci_fixed *f, int kind, size_t id)
{
    /* once memory has run out, nothing more is tried */
    if (f->nwork == f->capwork && (f->oom || KCI_RESERVE(f->work, f->capwork, f->nwork + 1, 1024))) {
        f->oom = 1;
        return;
    }
    f->work[f->nwork++] = id * 8 + (size_t)kind;
}

/* Leaving messages by time, then operation number (entries that tie are
 * equal in every field, so their order is never seen). */
static int leave_less(const kci_proc_ev *a, const kci_proc_ev *b)
{
    return a->t < b->t || (a->t == b->t && a->op < b->op);
}

KCI_HEAP_DEFINE(leaveq, kci_proc_ev, leave_less)

static void hpush(kci_fixed *f, double t, size_t op) { leaveq_push(f->h, &f->hn, (kci_proc_ev){t, op, op}); }

size_t kci_fixed_step(kci_fixed *f) { return leaveq_pop(f->h, &f->hn).op; }

/* op started (start = 1) or ended at t: its dependents may become ready. */
static void op_time(kci_fixed *f, size_t op, int start, double t)
{
    kci_proc *p = f->p;
    for (size_t k = p->dfirst[op]; k < p->dfirst[op + 1]; k++) {
        size_t v = p->dlist[k], dop = v >> 1; /* packed as op * 2 + start (replay_internal.h) */
        if ((int)(v & 1) != start)
            continue;
        kci_proc_op *w = &p->st[dop];
        w->ready = maxd(w->ready, t);
        if (--w->waiting == 0)
            work(f, W_READY, dop);
    }
}

static void op_end(kci_fixed *f, size_t op, double t)
{
    kci_proc *p = f->p;
    kci_proc_op *s = &p->st[op];
    uint32_t r = f->g->op[op].rank;
    s->ended = 1;
    s->end = t;
    p->ended++;
    p->finish[r] = maxd(p->finish[r], t);
    p->total = maxd(p->total, t);
    op_time(f, op, 0, t);
}

/* 1 if charge c is not taken yet, is next on each of its resources (whose
 * clocks are known) and its input is known, with that input's time in *in
 * (the op ready, the message's first byte, the receive matched); else 0. */
static int charge_input(const kci_fixed *f, size_t c, double *in)
{
    if (f->cstate[c]) /* before the charge itself: one byte, often in cache */
        return 0;
    const kci_lg_charge *ch = &f->ord->c[c];
    size_t res[2] = {ch->cpu, ch->nic};
    int nres = ch->nic == KCI_LG_NORES ? 1 : 2;
    for (int k = 0; k < nres; k++) {
        size_t v = res[k], at = f->rfirst[v] + f->rpos[v];
        if (at >= f->rfirst[v + 1] || f->rlist[at] != c || !f->rknown[v])
            return 0;
    }
    size_t op = ch->op;
    switch (ch->type) {
    case KCI_LG_CALC:
    case KCI_LG_SEND:
        if (!f->rdy[op])
            return 0;
        *in = f->p->st[op].ready;
        return 1;
    case KCI_LG_MSG:
        if (!f->p->st[op].headed)
            return 0;
        *in = f->p->st[op].head;
        return 1;
    default:
        if (!f->matched[op])
            return 0;
        *in = f->match[op];
        return 1;
    }
}

/* Charge c taken at start (its input at in): its CPU's and NIC's ends and
 * what follows for its op (started, ended, its message leaving, the receive
 * matched). Returns 0 if the CPU's end waits for the message's tail. */
static int charge_apply(kci_fixed *f, size_t c, double start, double in)
{
    const kci_lg_charge *ch = &f->ord->c[c];
    size_t op = ch->op;
    const kc_goal_op *o = &f->g->op[op];
    double b = (double)s1(o);
    kci_proc_op *s = &f->p->st[op];
    switch (ch->type) {
    case KCI_LG_CALC:
        f->ccpu[c] = start + (double)o->amount / 1000.0;
        s->started = 1;
        s->start = start;
        s->arrival = f->ccpu[c];
        op_time(f, op, 1, start);
        op_end(f, op, f->ccpu[c]);
        return 1;
    case KCI_LG_SEND:
        f->ccpu[c] = start + kci_proc_send_cpu(f->p, op);
        f->cnic[c] = start + f->gap + b * f->bt;
        s->started = 1;
        s->start = start;
        s->arrival = f->ccpu[c];
        op_time(f, op, 1, start);
        hpush(f, start + f->su + f->o, op);
        if (f->ord->eager[op])
            op_end(f, op, f->ccpu[c]);
        return 1;
    case KCI_LG_MSG: {
        size_t recv = f->m->recv_of[op];
        int cpu_known = 1;
        f->cnic[c] = start + f->gap + b * f->bt;
        f->p->st[recv].take = start;
        if (f->p->st[op].tailed)
            f->ccpu[c] = maxd(start + f->o + maxd(b * f->O, b * f->bt), f->p->st[op].tail);
        else
            cpu_known = 0;
        work(f, W_MATCH, recv);
        return cpu_known;
    }
    default: /* LogGOPS moves each clock to the match at least */
        if (f->rfree[ch->cpu] < in) { /* for the timeline: the hold of a free CPU */
            s->hold_from = f->rfree[ch->cpu], s->hold_to = in;
            s->hold_cpu = (unsigned char)(ch->cpu % f->ord->ncpu);
        }
        f->ccpu[c] = maxd(f->rfree[ch->cpu], in);
        f->cnic[c] = maxd(f->rfree[ch->nic], in);
        return 1;
    }
}

/* The charge c, if it is next on its resources and its input is known. */
static void try_charge(kci_fixed *f, size_t c)
{
    const kci_lg_charge *ch = &f->ord->c[c];
    size_t res[2] = {ch->cpu, ch->nic};
    int nres = ch->nic == KCI_LG_NORES ? 1 : 2;
    double in;
    if (!charge_input(f, c, &in))
        return;
    double start = maxd(in, f->rfree[ch->cpu]);
    if (nres == 2 && ch->type != KCI_LG_HOLD)
        start = maxd(start, f->rfree[ch->nic]);
    f->cstate[c] = 1;
    f->cstart[c] = start;
    for (int k = 0; k < nres; k++) {
        f->rpos[res[k]]++;
        f->rlast[res[k]] = c;
    }
    int cpu_known = charge_apply(f, c, start, in);
    if (nres == 2) {
        f->rfree[ch->nic] = f->cnic[c];
        size_t at = f->rfirst[ch->nic] + f->rpos[ch->nic];
        if (at < f->rfirst[ch->nic + 1])
            work(f, W_CHARGE, f->rlist[at]);
    }
    if (cpu_known)
        work(f, W_CPU_END, c);
    else
        f->rknown[ch->cpu] = 0;
}

/* Charge c's CPU end is known: the CPU's next charge, the receives posted
 * after it, the receive of a message taken. */
static void cpu_end(kci_fixed *f, size_t c)
{
    const kci_lg_charge *ch = &f->ord->c[c];
    f->cstate[c] = 2;
    f->rknown[ch->cpu] = 1;
    f->rfree[ch->cpu] = f->ccpu[c];
    size_t at = f->rfirst[ch->cpu] + f->rpos[ch->cpu];
    if (at < f->rfirst[ch->cpu + 1])
        work(f, W_CHARGE, f->rlist[at]);
    for (uint32_t r = f->pwait[c]; r != KCI_FX_NONE; r = f->pnext[r])
        work(f, W_POST, r);
    f->pwait[c] = KCI_FX_NONE;
    if (ch->type == KCI_LG_MSG)
        work(f, W_RECV_END, f->m->recv_of[ch->op]);
}

/* A receive is posted when ready and once its CPU has finished the charge
 * LogGOPS had made last on it when the receive became ready. */
static void try_post(kci_fixed *f, size_t r)
{
    kci_proc_op *s = &f->p->st[r];
    if (s->started || !f->rdy[r])
        return;
    size_t k = f->ord->post_after[r];
    double t = s->ready;
    if (k != KCI_LG_NONE) {
        if (f->cstate[k] != 2) {
            f->pnext[r] = f->pwait[k];
            f->pwait[k] = (uint32_t)r;
            return;
        }
        t = maxd(t, f->ccpu[k]);
    }
    s->started = 1;
    s->start = t;
    op_time(f, r, 1, t);
    work(f, W_MATCH, r);
    work(f, W_RECV_END, r);
}

/* Posted and its message taken: matched; a rendezvous send ends then (not
 * before its CPU time) and its hold may go. */
static void try_match(kci_fixed *f, size_t r)
{
    size_t send = f->m->send_of[r], mc = f->msg_of[send];
    if (!f->p->st[r].started || !f->cstate[mc] || f->matched[send])
        return;
    f->matched[send] = 1;
    f->match[send] = maxd(f->p->st[r].start, f->cstart[mc]);
    if (!f->ord->eager[send])
        op_end(f, send, maxd(f->ccpu[f->task_of[send]], f->match[send]));
    if (f->hold_of[send] != KCI_FX_NONE)
        work(f, W_CHARGE, f->hold_of[send]);
}

static void try_recv_end(kci_fixed *f, size_t r)
{
    kci_proc_op *s = &f->p->st[r];
    size_t mc = f->msg_of[f->m->send_of[r]];
    if (s->ended || !s->started || f->cstate[mc] != 2)
        return;
    s->arrived = 1;
    s->arrival = f->ccpu[mc];
    op_end(f, r, maxd(s->start, f->ccpu[mc]));
}

static void drain(kci_fixed *f)
{
    while (f->nwork) {
        size_t w = f->work[--f->nwork], id = w / 8;
        switch ((int)(w % 8)) {
        case W_CHARGE: try_charge(f, id); break;
        case W_READY:
            f->rdy[id] = 1;
            if (f->g->op[id].kind == KC_GOAL_RECV)
                try_post(f, id);
            else
                try_charge(f, f->task_of[id]);
            break;
        case W_POST: try_post(f, id); break;
        case W_MATCH: try_match(f, id); break;
        case W_RECV_END: try_recv_end(f, id); break;
        default: cpu_end(f, id); break;
        }
    }
}

void kci_fixed_head(kci_fixed *f, size_t send, double t)
{
    f->p->st[send].head = t;
    f->p->st[send].headed = 1;
    work(f, W_CHARGE, f->msg_of[send]);
    drain(f);
}

void kci_fixed_tail(kci_fixed *f, size_t send, double t)
{
    size_t c = f->msg_of[send];
    f->p->st[send].tail = t;
    f->p->st[send].tailed = 1;
    if (f->cstate[c] == 1) {
        double b = (double)s1(&f->g->op[send]);
        f->ccpu[c] = maxd(f->cstart[c] + f->o + maxd(b * f->O, b * f->bt), t);
        work(f, W_CPU_END, c);
    }
    drain(f);
}

kc_status kci_fixed_check(const kci_fixed *f, kc_err *err)
{
    const kci_loggops_order *ord = f->ord;
    if (f->oom)
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    for (size_t c = 0; c < ord->n; c++)
        if (f->cstate[c] != 2)
            return kc_fail(err, KC_EINTERNAL, "charge %zu of %zu (op %zu) never taken in LogGOPS's order", c, ord->n,
                           (size_t)ord->c[c].op);
    return kci_proc_check(f->p, err);
}

/* The replay's arrays for n ops, nc charges and nr resources (plus one);
 * KC_ENOMEM leaves what was made for kci_fixed_free. */
static kc_status fixed_alloc(kci_fixed *f, size_t n1, size_t nc, size_t nr, kc_err *err)
{
    f->rfirst = calloc(nr + 1, sizeof *f->rfirst);
    f->rlist = malloc(2 * nc * sizeof *f->rlist);
    f->rpos = calloc(nr, sizeof *f->rpos);
    f->rfree = calloc(nr, sizeof *f->rfree);
    f->rlast = malloc(nr * sizeof *f->rlast);
    f->rknown = malloc(nr);
    f->cstart = calloc(nc, sizeof *f->cstart);
    f->ccpu = calloc(nc, sizeof *f->ccpu);
    f->cnic = calloc(nc, sizeof *f->cnic);
    f->cstate = calloc(nc, 1);
    f->pwait = malloc(nc * sizeof *f->pwait);
    f->task_of = malloc(n1 * sizeof *f->task_of);
    f->msg_of = malloc(n1 * sizeof *f->msg_of);
    f->hold_of = malloc(n1 * sizeof *f->hold_of);
    f->rdy = calloc(n1, 1);
    f->pnext = malloc(n1 * sizeof *f->pnext);
    f->match = calloc(n1, sizeof *f->match);
    f->matched = calloc(n1, 1);
    f->capwork = 1024;
    f->work = malloc(f->capwork * sizeof *f->work);
    f->h = malloc(n1 * sizeof *f->h);
    f->cprev_cpu = malloc(nc * sizeof *f->cprev_cpu);
    f->cprev_nic = malloc(nc * sizeof *f->cprev_nic);
    if (!f->cprev_cpu || !f->cprev_nic || !f->rfirst || !f->rlist || !f->rpos || !f->rfree || !f->rlast ||
        !f->rknown || !f->cstart || !f->ccpu || !f->cnic || !f->cstate || !f->pwait || !f->task_of ||
        !f->msg_of || !f->hold_of || !f->rdy || !f->pnext || !f->match ||
        !f->matched || !f->work || !f->h)
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    return KC_OK;
}

/* Each op's charges (task, message, hold) and each resource's charges in
 * LogGOPS's order (rfirst/rlist), with every charge's previous one on its
 * CPU and NIC; rlast is left cleared for the run. O(ops + charges). */
static void index_charges(kci_fixed *f, size_t n, size_t nr)
{
    const kci_loggops_order *ord = f->ord;
    memset(f->rknown, 1, nr);
    for (size_t v = 0; v < nr; v++)
        f->rlast[v] = KCI_LG_NONE;
    for (size_t i = 0; i < n; i++)
        f->task_of[i] = f->msg_of[i] = f->hold_of[i] = KCI_FX_NONE;
    for (size_t c = 0; c < ord->n; c++) {
        const kci_lg_charge *ch = &ord->c[c];
        f->pwait[c] = KCI_FX_NONE;
        f->rfirst[ch->cpu + 2]++;
        if (ch->nic != KCI_LG_NORES)
            f->rfirst[ch->nic + 2]++;
        uint32_t *slot = ch->type == KCI_LG_MSG ? f->msg_of : ch->type == KCI_LG_HOLD ? f->hold_of : f->task_of;
        slot[ch->op] = (uint32_t)c;
    }
    for (size_t v = 0; v + 1 < nr; v++)
        f->rfirst[v + 2] += f->rfirst[v + 1];
    for (size_t v = 0; v < nr; v++)
        f->rlast[v] = KCI_LG_NONE; /* here: the last charge placed */
    for (size_t c = 0; c < ord->n; c++) {
        const kci_lg_charge *ch = &ord->c[c];
        f->rlist[f->rfirst[ch->cpu + 1]++] = (uint32_t)c;
        f->cprev_cpu[c] = narrow(f->rlast[ch->cpu]);
        f->rlast[ch->cpu] = c;
        f->cprev_nic[c] = KCI_FX_NONE;
        if (ch->nic != KCI_LG_NORES) {
            f->rlist[f->rfirst[ch->nic + 1]++] = (uint32_t)c;
            f->cprev_nic[c] = narrow(f->rlast[ch->nic]);
            f->rlast[ch->nic] = c;
        }
    }
    for (size_t v = 0; v < nr; v++)
        f->rlast[v] = KCI_LG_NONE;
}

/* KC_EINTERNAL unless every send and calc has its charge, and every send a
 * receive and a message charge. */
static kc_status check_charges(const kci_fixed *f, kc_err *err)
{
    for (size_t i = 0; i < f->g->nops; i++) {
        const kc_goal_op *o = &f->g->op[i];
        if ((o->kind != KC_GOAL_RECV && f->task_of[i] == KCI_FX_NONE) ||
            (o->kind == KC_GOAL_SEND && (f->m->recv_of[i] == KC_GOAL_NONE || f->msg_of[i] == KCI_FX_NONE)))
            return kc_fail(err, KC_EINTERNAL, "op %zu has no charge in LogGOPS's order", i);
    }
    return KC_OK;
}

kc_status kci_fixed_init(kci_fixed *f, kci_proc *p, const kc_goal *g, const kc_goal_match *m,
                         const kci_loggops_order *ord, double startup_us, const kc_loggops_params *lp,
                         double byte_time_us, kc_err *err)
{
    memset(f, 0, sizeof *f);
    f->g = g, f->m = m, f->ord = ord, f->p = p;
    f->su = startup_us;
    f->o = (double)lp->o / 1000.0;
    f->O = (double)lp->O / 1000.0;
    f->gap = (double)lp->g / 1000.0;
    f->bt = byte_time_us;
    p->cpu_recv = 1; /* the timeline's receive slices: the intake's CPU time */
    p->cpus = 1;     /* ... on the CPU that did it */
    size_t n = g->nops, n1 = n ? n : 1, nc = ord->n ? ord->n : 1, nr = ord->nres + 1;
    if (n >= KCI_FX_MAX || ord->n >= KCI_FX_MAX)
        return kc_fail_param(err, KC_ERANGE, "schedule",
                             "the replay in LogGOPS's order numbers operations and charges in 32 bits: %zu "
                             "operations and %zu charges are too many (at most %u each)",
                             n, ord->n, KCI_FX_MAX - 1);
    kc_status s = fixed_alloc(f, n1, nc, nr, err);
    if (!s) {
        index_charges(f, n, nr);
        s = check_charges(f, err);
    }
    if (s) {
        kci_fixed_free(f);
        return s;
    }
    for (size_t i = 0; i < n; i++)
        if (!p->st[i].waiting)
            work(f, W_READY, i);
    drain(f);
    return KC_OK;
}
