/* The timeline recorder (kcube/timeline.h), the recording of a list
 * schedule that has run (kci_proc_record, replay_internal.h), and of a
 * LogGOPS run (kc_timeline_loggops). After a replay every operation's
 * start and end (and a rendezvous send's hold) are in its state, so it is
 * recorded in one pass at the end and the models' loops stay as they are;
 * the LogGOPS model hands its slices to a callback as it decides them. */
#include "kcube/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"
#include "core/grow.h"

static const kc_name kind_entries[] = {
    {KC_TL_CALC, "calc", "computation on the rank's processor"},
    {KC_TL_SEND, "send", "the sender's processor time of a message"},
    {KC_TL_RECV, "recv", "the receiver's processor time of a message"},
    {KC_TL_HOLD, "hold", "a rendezvous send's processor held until its receive is matched"},
    {KC_TL_WAIT, "wait", "a posted receive waiting for its match (no processor time)"},
    {0, NULL, NULL},
};
const kc_names kc_tl_kind_names = {"timeline slice kind", kind_entries};

kc_status kc_timeline_init(kc_timeline *t, uint32_t num_ranks, kc_err *err)
{
    memset(t, 0, sizeof *t);
    t->num_ranks = num_ranks;
    if (!(t->node_of = malloc(((size_t)num_ranks + 1) * sizeof *t->node_of)))
        return kc_fail_param(err, KC_ENOMEM, "timeline", "out of memory");
    for (uint32_t r = 0; r < num_ranks; r++)
        t->node_of[r] = r;
    return KC_OK;
}

void kc_timeline_free(kc_timeline *t)
{
    free(t->node_of), free(t->slice), free(t->flow);
    memset(t, 0, sizeof *t);
}

static int good_time(double x) { return x >= 0 && isfinite(x); }

kc_status kc_timeline_add_slice(kc_timeline *t, const kc_tl_slice *s, size_t *index, kc_err *err)
{
    if (s->rank >= t->num_ranks)
        return kc_fail_param(err, KC_EINVAL, "timeline", "slice of rank %u: the timeline has %u ranks", s->rank,
                             t->num_ranks);
    if (s->kind > KC_TL_WAIT || !good_time(s->start_us) || !good_time(s->dur_us) || !good_time(s->posted_us))
        return kc_fail_param(err, KC_EINVAL, "timeline", "slice of rank %u: bad kind or time", s->rank);
    if (t->max_slices && t->nslices >= t->max_slices)
        return kc_fail_param(err, KC_ERANGE, "timeline", "more than %zu slices", t->max_slices);
    if (KCI_RESERVE(t->slice, t->cap_slices, t->nslices + 1, 256))
        return kc_fail_param(err, KC_ENOMEM, "timeline", "out of memory");
    if (index)
        *index = t->nslices;
    t->slice[t->nslices++] = *s;
    return KC_OK;
}

kc_status kc_timeline_add_flow(kc_timeline *t, size_t from, size_t to, kc_err *err)
{
    if (from >= t->nslices || to >= t->nslices || t->slice[from].kind != KC_TL_SEND ||
        t->slice[to].kind != KC_TL_RECV)
        return kc_fail_param(err, KC_EINVAL, "timeline", "a flow goes from a send's slice to a recv's");
    if (KCI_RESERVE(t->flow, t->cap_flows, t->nflows + 1, 256))
        return kc_fail_param(err, KC_ENOMEM, "timeline", "out of memory");
    t->flow[t->nflows++] = (kc_tl_flow){from, to};
    return KC_OK;
}

void kc_timeline_busy(const kc_timeline *t, double *busy_us)
{
    for (uint32_t r = 0; r < t->num_ranks; r++)
        busy_us[r] = 0;
    for (size_t i = 0; i < t->nslices; i++)
        if (t->slice[i].kind != KC_TL_WAIT)
            busy_us[t->slice[i].rank] += t->slice[i].dur_us;
}

double kc_timeline_end(const kc_timeline *t)
{
    double end = 0;
    for (size_t i = 0; i < t->nslices; i++)
        if (t->slice[i].start_us + t->slice[i].dur_us > end)
            end = t->slice[i].start_us + t->slice[i].dur_us;
    return end;
}

/* ---- a list schedule that has run (kci_proc) ------------------------------------ */

/* Operation i's slice as the model charged it: a calc or send holds the
 * processor from its start to its end; a recv costs none in kcube's
 * models (a slice at its end, duration 0) and the intake's CPU time with
 * a receiver CPU (p->cpu_recv); posted at its start. */
static kc_tl_slice op_slice(const kci_proc *p, size_t i)
{
    const kc_goal *g = p->g;
    const kc_goal_op *o = &g->op[i];
    const kci_proc_op *s = &p->st[i];
    kc_tl_slice sl = {.start_us = s->start, .dur_us = s->end - s->start, .posted_us = s->start,
                      .amount = o->amount, .peer = -1, .tag = -1, .rank = o->rank, .op = i};
    /* A processor's time as the model charged it (end - start may
     * differ from it in the last bit). */
    sl.cpu = p->cpus ? o->cpu : 0;
    if (o->kind == KC_GOAL_CALC) {
        sl.kind = KC_TL_CALC;
        sl.dur_us = (double)o->amount / 1000.0;
    } else if (o->kind == KC_GOAL_SEND) {
        sl.kind = KC_TL_SEND;
        sl.dur_us = kci_proc_send_cpu(p, i);
        sl.peer = o->peer;
        sl.tag = o->tag;
    } else {
        size_t from = p->m->send_of[i];
        sl.kind = KC_TL_RECV;
        sl.start_us = s->end;
        sl.dur_us = 0;
        if (p->cpu_recv) { /* the receiver's CPU time: o + its bytes (replay_internal.h) */
            sl.start_us = s->take;
            sl.dur_us = s->arrival - s->take;
        }
        sl.peer = from == KC_GOAL_NONE ? o->peer : (int64_t)g->op[from].rank;
        if (p->cpus && from != KC_GOAL_NONE) /* taken by the CPU numbered like the send's */
            sl.cpu = g->op[from].cpu;
        sl.tag = from == KC_GOAL_NONE ? o->tag : g->op[from].tag;
    }
    return sl;
}

/* The waits beside op i's slice *sl: a rendezvous send's hold, a receive's
 * wait from its posting to its match (with a receiver CPU: the intake's
 * start, or the posting when the message came first; else its data's
 * arrival, its end); each only when longer than 0. */
static kc_status op_waits(const kci_proc *p, size_t i, const kc_tl_slice *sl, kc_timeline *tl, kc_err *err)
{
    const kci_proc_op *s = &p->st[i];
    kc_tl_slice w = *sl;
    w.op = i;
    if (sl->kind == KC_TL_SEND && s->hold_from < s->hold_to) {
        w.kind = KC_TL_HOLD;
        w.start_us = w.posted_us = s->hold_from;
        w.dur_us = s->hold_to - s->hold_from;
        w.cpu = p->cpus ? s->hold_cpu : 0;
        return kc_timeline_add_slice(tl, &w, NULL, err);
    }
    if (sl->kind != KC_TL_RECV)
        return KC_OK;
    double match = p->cpu_recv ? (s->take > s->start ? s->take : s->start) : s->end;
    if (!(match > s->start))
        return KC_OK;
    w.kind = KC_TL_WAIT;
    w.start_us = s->start;
    w.dur_us = match - s->start;
    w.cpu = p->cpus ? p->g->op[i].cpu : 0;
    return kc_timeline_add_slice(tl, &w, NULL, err);
}

kc_status kci_proc_record(const kci_proc *p, kc_timeline *tl, kc_err *err)
{
    const kc_goal *g = p->g;
    const kc_goal_match *m = p->m;
    size_t n = g->nops;
    size_t *slice_of = malloc((n ? n : 1) * sizeof *slice_of);
    if (!slice_of)
        return kc_fail_param(err, KC_ENOMEM, "timeline", "out of memory");
    kc_status st = KC_OK;
    for (size_t i = 0; i < n && !st; i++) {
        slice_of[i] = SIZE_MAX;
        if (!p->st[i].ended)
            continue; /* a deadlocked network: what was reached */
        kc_tl_slice sl = op_slice(p, i);
        st = kc_timeline_add_slice(tl, &sl, &slice_of[i], err);
        if (!st)
            st = op_waits(p, i, &sl, tl, err);
    }
    /* Flows after all slices: a receive may come before its send in the file. */
    for (size_t i = 0; i < n && !st; i++)
        if (g->op[i].kind == KC_GOAL_SEND && m->recv_of[i] != KC_GOAL_NONE && slice_of[i] != SIZE_MAX &&
            slice_of[m->recv_of[i]] != SIZE_MAX)
            st = kc_timeline_add_flow(tl, slice_of[i], slice_of[m->recv_of[i]], err);
    free(slice_of);
    return st;
}

/* ---- a LogGOPS run ---------------------------------------------------------------- */

typedef struct lg_fill {
    kc_timeline *tl;
    const kc_goal *g;
    size_t *send_slice; /* [nops]: the slice of each send, or SIZE_MAX */
    uint64_t *posted;   /* [nops]: a recv's posting (ns), from its WAIT, emitted before its RECV */
    kc_status st;
    kc_err err;
} lg_fill;

static double us(uint64_t ns) { return (double)ns / 1000.0; } /* correctly rounded: 208 ns is 0.208 */

/* One slice of the model (kc_loggops_trace_fn): the wire holds no CPU and
 * is not drawn; a wait only when longer than 0. */
static void lg_add(void *vctx, const kc_loggops_slice *s)
{
    lg_fill *c = vctx;
    if (c->st || s->kind == KC_LOGGOPS_WIRE)
        return;
    const kc_goal_op *op = &c->g->op[s->op];
    if (s->kind == KC_LOGGOPS_WAIT)
        c->posted[s->op] = s->start_ns;
    if (s->kind == KC_LOGGOPS_WAIT && s->end_ns == s->start_ns)
        return;
    static const uint8_t kinds[] = {KC_TL_CALC, KC_TL_SEND, KC_TL_RECV, KC_TL_WAIT, KC_TL_HOLD, KC_TL_WAIT};
    uint8_t kind = kinds[s->kind];
    int64_t peer = kind == KC_TL_CALC                                 ? -1
                   : kind == KC_TL_SEND || kind == KC_TL_HOLD         ? op->peer
                   : s->peer != KC_GOAL_NONE ? (int64_t)c->g->op[s->peer].rank
                                             : op->peer;
    kc_tl_slice t = {.start_us = us(s->start_ns),
                     .dur_us = us(s->end_ns - s->start_ns), /* start + dur: end to 1e-16 relative */
                     .posted_us = kind == KC_TL_RECV ? us(c->posted[s->op]) : us(s->start_ns),
                     .amount = op->amount,
                     .peer = peer,
                     .tag = kind == KC_TL_CALC ? -1 : op->tag,
                     .rank = s->rank,
                     .kind = kind,
                     .cpu = s->cpu,
                     .op = s->op};
    size_t idx = SIZE_MAX;
    if ((c->st = kc_timeline_add_slice(c->tl, &t, &idx, &c->err)))
        return;
    if (kind == KC_TL_SEND)
        c->send_slice[s->op] = idx;
    else if (kind == KC_TL_RECV && s->peer != KC_GOAL_NONE && c->send_slice[s->peer] != SIZE_MAX)
        c->st = kc_timeline_add_flow(c->tl, c->send_slice[s->peer], idx, &c->err);
}

kc_status kc_timeline_loggops(const kc_goal *g, const kc_loggops_params *p, kc_timeline *t, kc_loggops_result *out,
                              kc_err *err)
{
    memset(out, 0, sizeof *out);
    if (t->num_ranks != g->num_ranks)
        return kc_fail_param(err, KC_EINVAL, "timeline", "the timeline has %u ranks, the schedule %u", t->num_ranks,
                             g->num_ranks);
    size_t n1 = g->nops ? g->nops : 1;
    lg_fill c = {.tl = t, .g = g};
    c.send_slice = malloc(n1 * sizeof *c.send_slice);
    c.posted = calloc(n1, sizeof *c.posted);
    kc_status st = KC_OK;
    if (!c.send_slice || !c.posted)
        st = kc_fail_param(err, KC_ENOMEM, "timeline", "out of memory");
    for (size_t i = 0; !st && i < g->nops; i++)
        c.send_slice[i] = SIZE_MAX;
    if (!st)
        st = kc_loggops_run(g, p, lg_add, &c, out, err);
    if (!st && c.st) {
        st = c.st;
        *err = c.err;
        kc_loggops_result_free(out);
    }
    free(c.send_slice), free(c.posted);
    return st;
}
