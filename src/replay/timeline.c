/* The timeline recorder (kcube/timeline.h), and the recording of a list
 * schedule that has run (kci_proc_record, goal_internal.h): after the
 * run every operation's start and end are in its state, so a replay is
 * recorded in one pass at the end and the models' loops stay as they are. */
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
    if (s->kind > KC_TL_RECV || !good_time(s->start_us) || !good_time(s->dur_us) || !good_time(s->posted_us))
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

/* kcube's models (kci_proc): a calc or send holds the processor from
 * its start to its end; a recv costs none, so its slice sits at its end
 * with duration 0, posted at its start. */
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
        const kc_goal_op *o = &g->op[i];
        const kci_proc_op *s = &p->st[i];
        slice_of[i] = SIZE_MAX;
        if (!s->ended)
            continue; /* a deadlocked network: what was reached */
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
            size_t from = m->send_of[i];
            sl.kind = KC_TL_RECV;
            sl.start_us = s->end;
            sl.dur_us = 0;
            if (p->cpu_recv) { /* the receiver's CPU time: o + its bytes (goal_internal.h) */
                sl.start_us = s->take;
                sl.dur_us = s->arrival - s->take;
            }
            sl.peer = from == KC_GOAL_NONE ? o->peer : (int64_t)g->op[from].rank;
            if (p->cpus && from != KC_GOAL_NONE) /* taken by the CPU numbered like the send's */
                sl.cpu = g->op[from].cpu;
            sl.tag = from == KC_GOAL_NONE ? o->tag : g->op[from].tag;
        }
        st = kc_timeline_add_slice(tl, &sl, &slice_of[i], err);
    }
    /* Flows after all slices: a receive may come before its send in the file. */
    for (size_t i = 0; i < n && !st; i++)
        if (g->op[i].kind == KC_GOAL_SEND && m->recv_of[i] != KC_GOAL_NONE && slice_of[i] != SIZE_MAX &&
            slice_of[m->recv_of[i]] != SIZE_MAX)
            st = kc_timeline_add_flow(tl, slice_of[i], slice_of[m->recv_of[i]], err);
    free(slice_of);
    return st;
}
