/* trace_goal.c - a traced run as a GOAL schedule, for the replays. Each
 * rank's events become operations in program order, tied by the
 * dependencies MPI's semantics give:
 *   - the "point": the last blocking operation (a send, a receive, a calc);
 *     every later operation requires it;
 *   - a non-blocking send or receive requires the point but is not one: the
 *     program goes on; its completion (a wait) puts it in "pending", which
 *     the next point requires (each pending operation once, so the
 *     dependencies stay linear; a non-blocking operation started while some
 *     are pending first gets a zero calc that absorbs them);
 *   - the send and receive of an MPI_Sendrecv (events inside a region of
 *     that name) both start at the point and both are pending after it: a
 *     ring of sendrecvs must not be serialised into a deadlock;
 *   - a collective's messages (trace_coll.c, one algorithm and block per
 *     call) step by step: the operations of step s require those of the
 *     step before;
 *   - compute: the time between communication events outside MPI calls
 *     (regions named MPI_*), times compute_scale, as a calc before the next
 *     operation.
 * Tags: GOAL matches by (source, tag) alone, so messages off the world get
 * a tag per (communicator, tag) above the world's, and collective messages
 * one per call above those. O(events log + expanded messages). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/sort.h"
#include "kcube/goal.h"
#include "trace_conv.h"

#define PARAM "trace"

enum { REGION_MPI = 1, REGION_SENDRECV = 2 };

typedef struct cmsg {
    uint32_t step, peer; /* peer: communicator rank */
    uint64_t bytes;
    uint8_t kind;        /* KC_GOAL_SEND or KC_GOAL_RECV */
} cmsg;

typedef struct list {
    size_t *v;
    size_t n, cap;
} list;

typedef struct builder {
    const kc_trace *t;
    const kci_trace_calls *calls;
    kc_goal *g;
    kc_trace_summary *sum;
    kc_err *err;
    double scale;
    int64_t tag_base;           /* collective tags: tag_base + call */
    uint64_t *other;            /* sorted (comm << 32 | tag) of point-to-point messages off the world */
    size_t nother;
    int64_t other_base;         /* their tags: other_base + index in `other` */
    unsigned char *rflag;       /* per region: REGION_* bits */
    unsigned char *seen;        /* per call: counted in the summary */
    /* Per rank. */
    uint32_t rank;
    size_t point;               /* KC_GOAL_NONE before the first */
    list pending, group;
    uint32_t sr_depth, mpi_depth;
    double acc;                 /* compute not yet emitted, ns */
    uint64_t last;
    size_t *start_op;           /* event index within the rank -> its goal op */
    cmsg *cm;                   /* one collective's messages */
    size_t ncm, cap_cm;
} builder;

static kc_status nomem(builder *b) { return kc_fail_param(b->err, KC_ENOMEM, PARAM, "out of memory for the schedule"); }

static kc_status push(builder *b, list *l, size_t op)
{
    if (KCI_RESERVE(l->v, l->cap, l->n + 1, 16))
        return nomem(b);
    l->v[l->n++] = op;
    return KC_OK;
}

static kc_status add(builder *b, kc_goal_kind kind, int64_t peer, int64_t tag, uint64_t amount, size_t *idx)
{
    kc_status s = kc_goal_add(b->g, kind, b->rank, peer, tag, amount, NULL, 0, idx, b->err);
    if (!s && b->point != KC_GOAL_NONE)
        s = kc_goal_depend(b->g, *idx, b->point, 0, 0, b->err);
    return s;
}

/* A blocking operation: requires the point and everything pending. */
static kc_status make_point(builder *b, kc_goal_kind kind, int64_t peer, int64_t tag, uint64_t amount)
{
    size_t op;
    kc_status s = add(b, kind, peer, tag, amount, &op);
    for (size_t i = 0; !s && i < b->pending.n; i++)
        s = kc_goal_depend(b->g, op, b->pending.v[i], 0, 0, b->err);
    b->pending.n = 0;
    b->point = op;
    return s;
}

/* The compute accumulated since the last operation, as a calc. */
static kc_status flush_calc(builder *b)
{
    double ns = b->acc * b->scale;
    b->acc = 0;
    if (!(ns >= 0.5))
        return KC_OK;
    return make_point(b, KC_GOAL_CALC, 0, 0, ns >= 9.2e18 ? (uint64_t)9.2e18 : (uint64_t)llround(ns));
}

/* An operation the program does not wait for here: after any compute and a
 * zero calc absorbing what is pending, it requires the point. */
static kc_status free_op(builder *b, kc_goal_kind kind, int64_t peer, int64_t tag, uint64_t amount, size_t *op)
{
    kc_status s = flush_calc(b);
    if (!s && b->pending.n)
        s = make_point(b, KC_GOAL_CALC, 0, 0, 0);
    return s ? s : add(b, kind, peer, tag, amount, op);
}

static kc_status blocking(builder *b, kc_goal_kind kind, int64_t peer, int64_t tag, uint64_t amount)
{
    if (b->sr_depth) { /* inside MPI_Sendrecv: concurrent with its partner operation */
        size_t op;
        kc_status s = free_op(b, kind, peer, tag, amount, &op);
        return s ? s : push(b, &b->group, op);
    }
    kc_status s = flush_calc(b);
    return s ? s : make_point(b, kind, peer, tag, amount);
}

/* ---- Collectives ---- */
static int take(builder *b, uint32_t step, uint32_t peer, uint64_t bytes, uint8_t kind)
{
    if (KCI_RESERVE(b->cm, b->cap_cm, b->ncm + 1, 64))
        return 1;
    b->cm[b->ncm++] = (cmsg){step, peer, bytes, kind};
    return 0;
}
static int take_send(void *ctx, uint32_t step, uint32_t peer, uint64_t bytes)
{
    return take(ctx, step, peer, bytes, KC_GOAL_SEND);
}
static int take_recv(void *ctx, uint32_t step, uint32_t peer, uint64_t bytes)
{
    return take(ctx, step, peer, bytes, KC_GOAL_RECV);
}

/* The rank's messages by step (stable: the algorithm's order within a step). */
static int cmp_step(const void *ctx, const cmsg *a, const cmsg *c)
{
    (void)ctx;
    return a->step < c->step ? -1 : a->step > c->step;
}
KCI_MERGE_SORT_DEFINE(sort_by_step, cmsg, cmp_step)

/* One step's operations [lo, hi): one alone is a point; several start
 * together at the point and are pending after it. */
static kc_status step_ops(builder *b, const uint32_t *member, int64_t tag, size_t lo, size_t hi)
{
    if (hi - lo == 1)
        return make_point(b, (kc_goal_kind)b->cm[lo].kind, member[b->cm[lo].peer], tag, b->cm[lo].bytes);
    kc_status s = KC_OK;
    size_t first = b->g->nops;
    for (size_t i = lo; !s && i < hi; i++) {
        size_t op;
        s = free_op(b, (kc_goal_kind)b->cm[i].kind, member[b->cm[i].peer], tag, b->cm[i].bytes, &op);
    }
    for (size_t op = first; !s && op < b->g->nops; op++)
        if (b->g->op[op].kind != KC_GOAL_CALC)
            s = push(b, &b->pending, op);
    return s;
}

static kc_status collective(builder *b, size_t i)
{
    const kc_trace_event *e = &b->t->ev[i];
    size_t k = (size_t)b->calls->call_of[i];
    const kci_trace_call *call = &b->calls->call[k];
    const kc_trace_comm *cm = &b->t->comm[e->comm];
    uint32_t root = call->root == KC_TRACE_NO_RANK ? 0 : call->root, me = b->calls->me_of[i];
    uint64_t sent, received;
    kci_trace_coll_totals((kc_trace_coll)call->op, cm->size, root, me, call->block, &sent, &received);
    b->ncm = 0;
    if (kc_trace_coll_messages((kc_trace_coll)call->op, (kc_trace_alg)call->alg, cm->size, root, me, sent, received,
                               take_send, take_recv, b))
        return nomem(b);
    cmsg *tmp = malloc((b->ncm ? b->ncm : 1) * sizeof *tmp);
    if (!tmp)
        return nomem(b);
    sort_by_step(b->cm, b->ncm, tmp, NULL);
    free(tmp);
    if (!b->seen[k]) {
        b->seen[k] = 1;
        b->sum->coll_calls[call->op]++;
        b->sum->coll_algs[call->op] |= 1u << call->alg;
    }
    kc_status s = flush_calc(b);
    for (size_t lo = 0, hi; !s && lo < b->ncm; lo = hi) {
        for (hi = lo + 1; hi < b->ncm && b->cm[hi].step == b->cm[lo].step; hi++)
            ;
        s = step_ops(b, cm->member, b->tag_base + (int64_t)k, lo, hi);
    }
    for (size_t j = 0; j < b->ncm; j++)
        if (b->cm[j].kind == KC_GOAL_SEND) {
            b->sum->coll_messages++;
            b->sum->coll_bytes += b->cm[j].bytes;
        }
    return s;
}

/* ---- Tags ---- */
static int is_p2p(const kc_trace_event *e) { return e->kind <= KC_TRACE_IRECV && e->peer != KC_TRACE_NO_RANK; }

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;
    return a < c ? -1 : a > c;
}

/* GOAL matches by (source, tag) alone. World messages keep their tags;
 * each (communicator, tag) used off the world gets a tag of its own above
 * them, and the collectives' tags (one per call) come after those. When
 * that would pass 2^31 - 1 (what GOAL readers take), the tags added start
 * at 2^32 instead. */
static kc_status plan_tags(builder *b, kc_err *err)
{
    const kc_trace *t = b->t;
    int64_t most = -1;
    size_t n = 0;
    for (size_t i = 0; i < t->nev; i++)
        if (is_p2p(&t->ev[i])) {
            most = t->ev[i].comm == 0 && (int64_t)t->ev[i].tag > most ? t->ev[i].tag : most;
            n += t->ev[i].comm != 0;
        }
    b->other = malloc((n ? n : 1) * sizeof *b->other);
    if (!b->other)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for the schedule's tags");
    for (size_t i = 0, k = 0; i < t->nev; i++)
        if (is_p2p(&t->ev[i]) && t->ev[i].comm != 0)
            b->other[k++] = (uint64_t)t->ev[i].comm << 32 | t->ev[i].tag;
    qsort(b->other, n, sizeof *b->other, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || b->other[u - 1] != b->other[i])
            b->other[u++] = b->other[i];
    b->nother = u;
    int64_t base = most + 1;
    if (base + (int64_t)u + (int64_t)b->calls->ncalls > INT32_MAX + (int64_t)1)
        base = (int64_t)1 << 32;
    b->other_base = base;
    b->tag_base = base + (int64_t)u;
    return KC_OK;
}

/* The schedule's tag of a point-to-point event. O(log). */
static int64_t p2p_tag(const builder *b, const kc_trace_event *e)
{
    if (e->comm == 0)
        return e->tag;
    uint64_t key = (uint64_t)e->comm << 32 | e->tag;
    size_t lo = 0, hi = b->nother;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->other[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return b->other_base + (int64_t)lo;
}

/* ---- Events ---- */
static kc_status region_event(builder *b, const kc_trace_event *e)
{
    unsigned char f = b->rflag[e->comm];
    int enter = e->kind == KC_TRACE_ENTER;
    if (f & REGION_MPI)
        b->mpi_depth = enter ? b->mpi_depth + 1 : b->mpi_depth - 1;
    if (!(f & REGION_SENDRECV))
        return KC_OK;
    if (enter) {
        b->sr_depth++;
        return KC_OK;
    }
    if (--b->sr_depth)
        return KC_OK;
    kc_status s = KC_OK; /* both halves of the sendrecv are pending now */
    for (size_t i = 0; !s && i < b->group.n; i++)
        s = push(b, &b->pending, b->group.v[i]);
    b->group.n = 0;
    return s;
}

static kc_status event(builder *b, size_t i, size_t k)
{
    const kc_trace_event *e = &b->t->ev[i];
    if (b->mpi_depth == 0 && e->time > b->last)
        b->acc += (double)(e->time - b->last);
    b->last = e->end > b->last ? e->end : b->last;
    b->start_op[k] = KC_GOAL_NONE;
    switch (e->kind) {
    case KC_TRACE_SEND:
    case KC_TRACE_RECV:
        if (e->kind == KC_TRACE_SEND)
            b->sum->p2p_messages++, b->sum->p2p_bytes += e->bytes;
        return blocking(b, e->kind == KC_TRACE_SEND ? KC_GOAL_SEND : KC_GOAL_RECV, e->peer, p2p_tag(b, e), e->bytes);
    case KC_TRACE_ISEND:
    case KC_TRACE_IRECV:
        if (e->peer == KC_TRACE_NO_RANK) { /* a receive never completed: nothing to match */
            b->sum->dropped++;
            return KC_OK;
        }
        if (e->kind == KC_TRACE_ISEND)
            b->sum->p2p_messages++, b->sum->p2p_bytes += e->bytes;
        return free_op(b, e->kind == KC_TRACE_ISEND ? KC_GOAL_SEND : KC_GOAL_RECV, e->peer, p2p_tag(b, e),
                       e->bytes, &b->start_op[k]);
    case KC_TRACE_COMPLETE:
        return b->start_op[e->op] == KC_GOAL_NONE ? KC_OK : push(b, &b->pending, b->start_op[e->op]);
    case KC_TRACE_COLL:
        return collective(b, i);
    default:
        return region_event(b, e);
    }
}

static kc_status rank_ops(builder *b, uint32_t r)
{
    const kc_trace *t = b->t;
    b->rank = r;
    b->point = KC_GOAL_NONE;
    b->pending.n = b->group.n = 0;
    b->sr_depth = b->mpi_depth = 0;
    b->acc = 0;
    b->last = t->first[r] < t->first[r + 1] ? t->ev[t->first[r]].time : 0;
    kc_status s = KC_OK;
    for (size_t i = t->first[r]; !s && i < t->first[r + 1]; i++)
        s = event(b, i, i - t->first[r]);
    return s ? s : flush_calc(b); /* compute after the last communication */
}

/* Every call must be made by all members of its communicator with one
 * operation and one root, or the schedule cannot match its messages. */
static kc_status check_calls(const kc_trace *t, const kci_trace_calls *c, kc_err *err)
{
    for (size_t k = 0; k < c->ncalls; k++) {
        const kci_trace_call *call = &c->call[k];
        const kc_trace_comm *cm = &t->comm[call->comm];
        if (call->members != cm->size)
            return kc_fail_param(err, KC_EINVAL, PARAM,
                                 "%s: a collective call on %s is made by %u of its %u members (the trace is cut?)",
                                 t->name, cm->name, call->members, cm->size);
        if (call->mixed)
            return kc_fail_param(err, KC_EINVAL, PARAM,
                                 "%s: the members of %s disagree on the operation or root of a %s", t->name, cm->name,
                                 kc_names_name(&kc_trace_coll_names, call->op));
    }
    return KC_OK;
}

static kc_status builder_init(builder *b, const kc_trace *t, kc_err *err)
{
    size_t most = 0;
    for (uint32_t r = 0; r < t->ranks; r++)
        most = t->first[r + 1] - t->first[r] > most ? t->first[r + 1] - t->first[r] : most;
    b->start_op = malloc((most ? most : 1) * sizeof *b->start_op);
    b->rflag = calloc(t->nregions ? t->nregions : 1, 1);
    b->seen = calloc(b->calls->ncalls ? b->calls->ncalls : 1, 1);
    if (!b->start_op || !b->rflag || !b->seen)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for the schedule");
    for (uint32_t r = 0; r < t->nregions; r++) {
        const char *n = t->region[r];
        b->rflag[r] = (unsigned char)((strncmp(n, "MPI_", 4) == 0 ? REGION_MPI : 0) |
                                      (strcmp(n, "MPI_Sendrecv") == 0 || strcmp(n, "MPI_Sendrecv_replace") == 0
                                           ? REGION_SENDRECV
                                           : 0));
    }
    return plan_tags(b, err);
}

static void builder_free(builder *b)
{
    free(b->start_op);
    free(b->rflag);
    free(b->seen);
    free(b->pending.v);
    free(b->group.v);
    free(b->cm);
    free(b->other);
}

kc_status kc_trace_goal(const kc_trace *t, const kc_trace_goal_opts *o, kc_goal *out, kc_trace_summary *sum,
                        kc_err *err)
{
    kc_trace_goal_opts dflt = {1.0, KC_ALG_AUTO};
    kc_trace_summary local;
    o = o ? o : &dflt;
    sum = sum ? sum : &local;
    memset(sum, 0, sizeof *sum);
    memset(out, 0, sizeof *out);
    if (!t->finished)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s is not finished (kc_trace_finish)", t->name);
    if (!(o->compute_scale >= 0) || !isfinite(o->compute_scale) || o->alg >= KC_ALG_COUNT)
        return kc_fail_param(err, KC_EINVAL, PARAM, "a compute scale >= 0 and a known algorithm, not %g and %d",
                             o->compute_scale, (int)o->alg);
    kci_trace_calls calls;
    kc_status s = kci_trace_calls_build(t, o->alg, &calls, err);
    if (s)
        return s;
    builder b = {0};
    b.t = t;
    b.calls = &calls;
    b.g = out;
    b.sum = sum;
    b.err = err;
    b.scale = o->compute_scale;
    s = check_calls(t, &calls, err);
    if (!s)
        s = builder_init(&b, t, err);
    if (!s)
        s = kc_goal_init(out, t->ranks, err);
    for (uint32_t r = 0; !s && r < t->ranks; r++)
        s = rank_ops(&b, r);
    builder_free(&b);
    kci_trace_calls_free(&calls);
    if (s)
        kc_goal_free(out);
    return s;
}
