/* trace_finish.c - kc_trace_finish: the one place a trace is checked. The
 * events are put rank by rank (a stable counting sort keeps each rank's
 * program order), then each rank is walked once: fields in range, times not
 * decreasing, regions nested, and every request completion tied to the call
 * that started it through a small open-addressing table of live requests. */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "kcube/trace.h"

#define PARAM "trace"

typedef struct live_table {
    uint64_t *key;   /* request ids; KC_TRACE_NONE: empty slot */
    size_t *index;   /* event index within the rank */
    size_t mask;     /* capacity - 1 (a power of two) */
    size_t count;
} live_table;

static size_t slot_of(const live_table *lt, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 17) & lt->mask;
    while (lt->key[i] != KC_TRACE_NONE && lt->key[i] != key)
        i = (i + 1) & lt->mask;
    return i;
}

/* Remove slot i, moving later entries of its cluster back (linear probing). */
static void slot_remove(live_table *lt, size_t i)
{
    size_t j = i;
    for (;;) {
        j = (j + 1) & lt->mask;
        if (lt->key[j] == KC_TRACE_NONE)
            break;
        size_t home = (size_t)((lt->key[j] * 0x9E3779B97F4A7C15ull) >> 17) & lt->mask;
        /* Move j into the hole at i unless its home lies cyclically in (i, j]. */
        if ((i < j) ? (home <= i || home > j) : (home <= i && home > j)) {
            lt->key[i] = lt->key[j];
            lt->index[i] = lt->index[j];
            i = j;
        }
    }
    lt->key[i] = KC_TRACE_NONE;
    lt->count--;
}

/* Stable counting sort of the events by rank; fills t->first. Events
 * already rank by rank (as the OTF2 reader appends them) stay where they
 * are: no second array, half the peak memory. */
static kc_status order_by_rank(kc_trace *t, kc_err *err)
{
    size_t *first = calloc((size_t)t->ranks + 1, sizeof *first);
    if (!first)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory ordering %zu trace events", t->nev);
    int sorted = 1;
    for (size_t i = 0; i < t->nev; i++) {
        first[t->rank_of[i] + 1]++;
        sorted &= i == 0 || t->rank_of[i] >= t->rank_of[i - 1];
    }
    for (uint32_t r = 0; r < t->ranks; r++)
        first[r + 1] += first[r];
    kc_trace_event *ev = sorted ? t->ev : malloc((t->nev ? t->nev : 1) * sizeof *ev);
    if (!sorted && !ev) {
        free(first);
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory ordering %zu trace events", t->nev);
    }
    if (!sorted) {
        /* first[r] is used as the write cursor, then restored. */
        for (size_t i = 0; i < t->nev; i++)
            ev[first[t->rank_of[i]]++] = t->ev[i];
        for (uint32_t r = t->ranks; r > 0; r--)
            first[r] = first[r - 1];
        first[0] = 0;
        free(t->ev);
        t->ev = ev;
        t->cap_ev = t->nev ? t->nev : 1;
    }
    free(t->rank_of);
    t->rank_of = NULL;
    t->first = first;
    return KC_OK;
}

static kc_status bad(const kc_trace *t, uint32_t rank, size_t k, const char *what, kc_err *err)
{
    return kc_fail_param(err, KC_EINVAL, PARAM, "%s: rank %u, event %zu (%s): %s", t->name, rank, k,
                         kc_names_name(&kc_trace_kind_names, t->ev[t->first[rank] + k].kind), what);
}

static int is_member(const kc_trace_comm *c, uint32_t world)
{
    if (world < c->size && c->member[world] == world)
        return 1; /* at once for MPI_COMM_WORLD, where most events are */
    for (uint32_t i = 0; i < c->size; i++)
        if (c->member[i] == world)
            return 1;
    return 0;
}

/* Fields of one event that do not depend on the rank's other events. */
static const char *event_fields(const kc_trace *t, uint32_t rank, const kc_trace_event *e)
{
    if (e->kind > KC_TRACE_LEAVE)
        return "unknown event kind";
    if (e->kind == KC_TRACE_ENTER || e->kind == KC_TRACE_LEAVE)
        return e->comm < t->nregions ? NULL : "unknown region";
    if (e->kind == KC_TRACE_COMPLETE && e->peer == KC_TRACE_NO_RANK)
        return NULL; /* a send's completion names nobody */
    if (e->kind == KC_TRACE_IRECV)
        return NULL; /* checked at its completion */
    if (e->comm >= t->ncomms)
        return "unknown communicator";
    const kc_trace_comm *c = &t->comm[e->comm];
    if (!is_member(c, rank))
        return "the rank is not a member of the event's communicator";
    if (e->kind == KC_TRACE_COLL) {
        if (e->coll >= KC_COLL_COUNT)
            return "unknown collective operation";
        if (e->peer != KC_TRACE_NO_RANK && !is_member(c, e->peer))
            return "the root is not a member of the communicator";
        return e->end < e->time ? "the collective ends before it begins" : NULL;
    }
    if (e->peer >= t->ranks || !is_member(c, e->peer))
        return "the peer is not a member of the communicator";
    return NULL;
}

typedef struct rank_walk {
    kc_trace *t;
    uint32_t rank;
    live_table *live;
    uint32_t *stack;  /* open regions */
    size_t depth, cap;
} rank_walk;

/* Requests: ISEND/IRECV enter the table, COMPLETE leaves it. */
static const char *request_step(rank_walk *w, size_t k)
{
    kc_trace_event *base = w->t->ev + w->t->first[w->rank], *e = base + k;
    live_table *lt = w->live;
    if (e->request == KC_TRACE_NONE)
        return "a request id that is the reserved value";
    size_t i = slot_of(lt, e->request);
    if (e->kind != KC_TRACE_COMPLETE) {
        if (lt->key[i] != KC_TRACE_NONE)
            return "a request started while one with the same id is live";
        lt->key[i] = e->request;
        lt->index[i] = k;
        lt->count++;
        return NULL;
    }
    if (lt->key[i] == KC_TRACE_NONE)
        return "a completion of a request never started (or already completed)";
    kc_trace_event *start = base + lt->index[i];
    e->op = lt->index[i];
    if (start->kind == KC_TRACE_IRECV) {
        if (e->peer == KC_TRACE_NO_RANK)
            return "a receive's completion without its source";
        start->peer = e->peer;
        start->tag = e->tag;
        start->bytes = e->bytes;
        start->comm = e->comm;
    }
    slot_remove(lt, i);
    return NULL;
}

/* The one failure of a walk that is not the trace's fault. */
static const char region_oom[] = "out of memory for the region stack";

static const char *region_step(rank_walk *w, const kc_trace_event *e)
{
    if (e->kind == KC_TRACE_ENTER) {
        if (KCI_RESERVE(w->stack, w->cap, w->depth + 1, 16))
            return region_oom;
        w->stack[w->depth++] = e->comm;
        return NULL;
    }
    if (w->depth == 0 || w->stack[w->depth - 1] != e->comm)
        return "a region left that is not the innermost one entered";
    w->depth--;
    return NULL;
}

static kc_status walk_rank(rank_walk *w, kc_err *err)
{
    kc_trace *t = w->t;
    size_t n = t->first[w->rank + 1] - t->first[w->rank];
    kc_trace_event *base = t->ev + t->first[w->rank];
    uint64_t last = 0;
    w->depth = 0;
    for (size_t k = 0; k < n; k++) {
        kc_trace_event *e = &base[k];
        const char *why = e->time < last ? "its time is before the previous event's" : NULL;
        if (!why && (e->kind == KC_TRACE_ISEND || e->kind == KC_TRACE_IRECV || e->kind == KC_TRACE_COMPLETE))
            why = request_step(w, k);
        if (!why && (e->kind == KC_TRACE_ENTER || e->kind == KC_TRACE_LEAVE))
            why = region_step(w, e);
        if (!why)
            why = event_fields(t, w->rank, e);
        if (why == region_oom)
            return kc_fail_param(err, KC_ENOMEM, PARAM, "%s: %s", t->name, why);
        if (why)
            return bad(t, w->rank, k, why, err);
        last = e->kind == KC_TRACE_COLL ? e->end : e->time;
        t->duration = last > t->duration ? last : t->duration;
        if (e->kind != KC_TRACE_COLL)
            e->end = e->time;
    }
    /* Requests never completed stay: a program may leave them (MPI_Request_free). */
    for (size_t i = 0; i <= w->live->mask; i++)
        w->live->key[i] = KC_TRACE_NONE;
    w->live->count = 0;
    return KC_OK;
}

/* The largest number of requests one rank starts bounds the table. */
static kc_status live_init(const kc_trace *t, live_table *lt, kc_err *err)
{
    size_t most = 0;
    for (uint32_t r = 0; r < t->ranks; r++) {
        size_t c = 0;
        for (size_t i = t->first[r]; i < t->first[r + 1]; i++)
            c += t->ev[i].kind == KC_TRACE_ISEND || t->ev[i].kind == KC_TRACE_IRECV;
        most = c > most ? c : most;
    }
    size_t cap = 16;
    while (cap < 2 * most + 2)
        cap *= 2;
    lt->key = malloc(cap * sizeof *lt->key);
    lt->index = malloc(cap * sizeof *lt->index);
    if (!lt->key || !lt->index)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for %zu requests", most);
    for (size_t i = 0; i < cap; i++)
        lt->key[i] = KC_TRACE_NONE;
    lt->mask = cap - 1;
    lt->count = 0;
    return KC_OK;
}

kc_status kc_trace_finish(kc_trace *t, kc_err *err)
{
    if (t->finished)
        return KC_OK;
    kc_status s = order_by_rank(t, err);
    if (s)
        return s;
    live_table lt = {0};
    rank_walk w = {t, 0, &lt, NULL, 0, 0};
    s = live_init(t, &lt, err);
    t->duration = 0;
    for (uint32_t r = 0; s == KC_OK && r < t->ranks; r++) {
        w.rank = r;
        s = walk_rank(&w, err);
    }
    free(lt.key);
    free(lt.index);
    free(w.stack);
    if (s == KC_OK)
        t->finished = 1;
    return s;
}
