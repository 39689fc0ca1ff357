/* trace_traffic.c - a trace as traffic for the mappers: bytes per (sender,
 * receiver) in world ranks. A point-to-point message is counted once, at
 * its sender (SEND, ISEND: the receive side would count it twice); a
 * collective call is expanded by its algorithm into the messages each
 * member sends (trace_coll.c), communicator ranks translated to world
 * ranks. Filters keep events by time (from <= time < to) and by region
 * (while a region of the given name is open on the rank). O(events +
 * expanded messages). */
#include <stdlib.h>
#include <string.h>

#include "kcube/traffic.h"
#include "trace_conv.h"

#define PARAM "trace"

typedef struct emit_ctx {
    kc_traffic *out;
    const uint32_t *member; /* communicator rank -> world rank */
    uint32_t world;         /* the sending rank */
    kc_trace_summary *sum;
    kc_err *err;
    kc_status status;
} emit_ctx;

static int add_message(void *ctx, uint32_t step, uint32_t peer, uint64_t bytes)
{
    (void)step;
    emit_ctx *x = ctx;
    x->status = kc_traffic_add(x->out, x->world, x->member[peer], bytes, x->err);
    x->sum->coll_messages++;
    x->sum->coll_bytes += bytes;
    return x->status != KC_OK;
}

/* Which region indices carry the filter's name (NULL when no filter). */
static kc_status region_marks(const kc_trace *t, const char *name, unsigned char **mark, kc_err *err)
{
    *mark = NULL;
    if (!name)
        return KC_OK;
    if (kc_trace_region_find(t, name) < 0)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s has no region called '%s'", t->name, name);
    *mark = calloc(t->nregions ? t->nregions : 1, 1);
    if (!*mark)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for the region filter");
    for (uint32_t r = 0; r < t->nregions; r++)
        (*mark)[r] = strcmp(t->region[r], name) == 0;
    return KC_OK;
}

typedef struct walk {
    const kc_trace *t;
    const kc_trace_filter *f;
    const kci_trace_calls *calls;
    const unsigned char *mark;
    unsigned char *seen; /* per call: counted in the summary */
    kc_traffic *out;
    kc_trace_summary *sum;
} walk;

static kc_status collective(walk *w, uint32_t rank, size_t i, kc_err *err)
{
    const kc_trace_event *e = &w->t->ev[i];
    size_t k = (size_t)w->calls->call_of[i];
    const kci_trace_call *call = &w->calls->call[k];
    const kc_trace_comm *cm = &w->t->comm[e->comm];
    if (!w->seen[k]) {
        w->seen[k] = 1;
        w->sum->coll_calls[e->coll]++;
        w->sum->coll_algs[e->coll] |= 1u << call->alg;
    }
    emit_ctx x = {w->out, cm->member, rank, w->sum, err, KC_OK};
    kc_trace_coll_messages((kc_trace_coll)e->coll, (kc_trace_alg)call->alg, cm->size, call->root,
                           w->calls->me_of[i], e->bytes, e->received, add_message, NULL, &x);
    return x.status;
}

static kc_status walk_rank(walk *w, uint32_t rank, kc_err *err)
{
    const kc_trace *t = w->t;
    uint64_t depth = 0;
    for (size_t i = t->first[rank]; i < t->first[rank + 1]; i++) {
        const kc_trace_event *e = &t->ev[i];
        if (e->kind == KC_TRACE_ENTER || e->kind == KC_TRACE_LEAVE) {
            if (w->mark && w->mark[e->comm])
                depth = e->kind == KC_TRACE_ENTER ? depth + 1 : depth - 1;
            continue;
        }
        if (e->kind != KC_TRACE_SEND && e->kind != KC_TRACE_ISEND && e->kind != KC_TRACE_COLL)
            continue;
        if (e->time < w->f->from || e->time >= w->f->to || (w->mark && depth == 0)) {
            w->sum->dropped++;
            continue;
        }
        kc_status s = KC_OK;
        if (e->kind == KC_TRACE_COLL)
            s = collective(w, rank, i, err);
        else {
            s = kc_traffic_add(w->out, rank, e->peer, e->bytes, err);
            w->sum->p2p_messages++;
            w->sum->p2p_bytes += e->bytes;
        }
        if (s)
            return s;
    }
    return KC_OK;
}

kc_status kc_trace_traffic(const kc_trace *t, const kc_trace_filter *f, kc_traffic *out, kc_trace_summary *sum,
                           kc_err *err)
{
    kc_trace_filter all;
    kc_trace_summary local;
    if (!f) {
        kc_trace_filter_default(&all);
        f = &all;
    }
    sum = sum ? sum : &local;
    memset(sum, 0, sizeof *sum);
    if (!t->finished)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s is not finished (kc_trace_finish)", t->name);
    if (out->ranks < t->ranks)
        return kc_fail_param(err, KC_ERANGE, PARAM, "%s has %u ranks; the traffic holds %llu", t->name, t->ranks,
                             (unsigned long long)out->ranks);
    if (f->alg >= KC_ALG_COUNT)
        return kc_fail_param(err, KC_EINVAL, PARAM, "unknown collective algorithm %d", (int)f->alg);
    kci_trace_calls calls;
    unsigned char *mark = NULL;
    kc_status s = region_marks(t, f->region, &mark, err);
    if (s)
        return s;
    if ((s = kci_trace_calls_build(t, f->alg, &calls, err))) {
        free(mark);
        return s;
    }
    walk w = {t, f, &calls, mark, calloc(calls.ncalls ? calls.ncalls : 1, 1), out, sum};
    if (!w.seen)
        s = kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for %zu collective calls", calls.ncalls);
    for (uint32_t r = 0; !s && r < t->ranks; r++)
        s = walk_rank(&w, r, err);
    free(w.seen);
    free(mark);
    kci_trace_calls_free(&calls);
    return s;
}
