/* Validation of schedules whose receives use wildcards (kcube/goal.h,
 * kc_goal_validate). Which send a wildcard receive takes is decided at run
 * time, by when the messages arrive, so the file-order matching is not the
 * run's; what is checked here holds for every run:
 *
 * - per receiver, as many receives as sends to it;
 * - per (receiver, source, tag) that a receive names, no more receives that
 *   need it than sends that carry it; likewise per (receiver, source) for the
 *   receives with a source and per (receiver, tag) for those with a tag;
 * - a class of sends (source, receiver, tag) that no wildcard receive of the
 *   receiver could take ("forced") is received by its own receives alone, so
 *   as many of those as sends.
 *
 * These are Hall's conditions on the receives' own classes: necessary for a
 * run that completes, sufficient except when receives from one source with
 * any tag and receives of one tag from any source compete for the same
 * sends; the run then reports what it could not match. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goal_internal.h"

/* A send or receive keyed by (receiver d, a, b): a and b are (source, tag)
 * or (tag, source); KC_GOAL_ANY where the receive has a wildcard. */
typedef struct wkey {
    uint32_t d;
    int64_t a, b;
    size_t op;
} wkey;

static int cmp_wkey(const void *x, const void *y)
{
    const wkey *p = x, *q = y;
    if (p->d != q->d)
        return p->d < q->d ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return p->op < q->op ? -1 : p->op > q->op;
}

/* The sorted key lists: sends by (d, source, tag) and (d, tag, source);
 * receives naming both by the same two keys; receives with a source and
 * any tag by (d, source); with any source and a tag by (d, tag). */
enum { W_SEND, W_SEND_T, W_RECV, W_RECV_T, W_RECV_S, W_RECV_TAG, W_LISTS };

typedef struct wlists {
    wkey *k[W_LISTS];
    size_t n[W_LISTS];
    size_t *anyany;            /* [rank]: receives from any source with any tag */
    size_t *nrecv, *nsend;     /* [rank]: receives posted, messages sent to it */
    size_t *last_recv, *last_send; /* [rank]: the last of each in the file */
} wlists;

static void wlists_free(wlists *w)
{
    for (int i = 0; i < W_LISTS; i++)
        free(w->k[i]);
    free(w->anyany), free(w->nrecv), free(w->nsend), free(w->last_recv), free(w->last_send);
}

static void wpush(wlists *w, int list, uint32_t d, int64_t a, int64_t b, size_t op)
{
    w->k[list][w->n[list]++] = (wkey){d, a, b, op};
}

/* Fills w from g (ranges already checked). KC_ENOMEM leaves w for
 * wlists_free. O(ops log ops). */
static kc_status wlists_build(const kc_goal *g, wlists *w, kc_err *err)
{
    memset(w, 0, sizeof *w);
    size_t n1 = g->nops ? g->nops : 1, r1 = g->num_ranks ? g->num_ranks : 1;
    for (int i = 0; i < W_LISTS; i++)
        if (!(w->k[i] = malloc(n1 * sizeof *w->k[i])))
            return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    w->anyany = calloc(r1, sizeof *w->anyany);
    w->nrecv = calloc(r1, sizeof *w->nrecv);
    w->nsend = calloc(r1, sizeof *w->nsend);
    w->last_recv = calloc(r1, sizeof *w->last_recv);
    w->last_send = calloc(r1, sizeof *w->last_send);
    if (!w->anyany || !w->nrecv || !w->nsend || !w->last_recv || !w->last_send)
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    for (size_t i = 0; i < g->nops; i++) {
        const kc_goal_op *o = &g->op[i];
        if (o->kind == KC_GOAL_SEND) {
            uint32_t d = (uint32_t)o->peer;
            wpush(w, W_SEND, d, o->rank, o->tag, i);
            wpush(w, W_SEND_T, d, o->tag, o->rank, i);
            w->nsend[d]++, w->last_send[d] = i;
        } else if (o->kind == KC_GOAL_RECV) {
            int anys = o->peer == KC_GOAL_ANY, anyt = o->tag == KC_GOAL_ANY;
            if (!anys && !anyt) {
                wpush(w, W_RECV, o->rank, o->peer, o->tag, i);
                wpush(w, W_RECV_T, o->rank, o->tag, o->peer, i);
            } else if (!anys) {
                wpush(w, W_RECV_S, o->rank, o->peer, KC_GOAL_ANY, i);
            } else if (!anyt) {
                wpush(w, W_RECV_TAG, o->rank, o->tag, KC_GOAL_ANY, i);
            } else {
                w->anyany[o->rank]++;
            }
            w->nrecv[o->rank]++, w->last_recv[o->rank] = i;
        }
    }
    for (int i = 0; i < W_LISTS; i++)
        qsort(w->k[i], w->n[i], sizeof *w->k[i], cmp_wkey);
    return KC_OK;
}

/* The first index of k[0..n) at or after (d, a, b) (b ignored when !use_b).
 * O(log n). */
static size_t wlower(const wkey *k, size_t n, uint32_t d, int64_t a, int64_t b, int use_b)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const wkey *x = &k[mid];
        int before = x->d != d ? x->d < d : x->a != a ? x->a < a : use_b && x->b < b;
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* How many entries of k[0..n) have (d, a) and, when use_b, b. O(log n). */
static size_t wcount(const wkey *k, size_t n, uint32_t d, int64_t a, int64_t b, int use_b)
{
    size_t lo = wlower(k, n, d, a, b, use_b);
    size_t hi = use_b ? wlower(k, n, d, a, b + 1, 1) : wlower(k, n, d, a + 1, INT64_MIN, 0);
    return hi - lo;
}

/* The end of the run of equal (d, a, b) (or (d, a)) that starts at i. */
static size_t wrun(const wkey *k, size_t n, size_t i, int use_b)
{
    size_t j = i + 1;
    while (j < n && k[j].d == k[i].d && k[j].a == k[i].a && (!use_b || k[j].b == k[i].b))
        j++;
    return j;
}

static void describe(char *buf, size_t size, const char *what, int64_t v)
{
    if (v == KC_GOAL_ANY)
        snprintf(buf, size, "any %s", what);
    else
        snprintf(buf, size, "%s %lld", what, (long long)v);
}

/* The receive op cannot have a send in any run: its rank posts `need`
 * receives that only `have` sends can satisfy. */
static kc_status no_send(const kc_goal *g, size_t op, size_t need, size_t have, kc_err *err)
{
    const kc_goal_op *o = &g->op[op];
    char from[40], tag[40];
    describe(from, sizeof from, "rank", o->peer);
    describe(tag, sizeof tag, "tag", o->tag);
    return kc_fail_param(err, KC_EINVAL, "schedule",
                         "line %ld: the recv of rank %u from %s with %s has no matching send (%zu receives of rank %u "
                         "can take only %zu sends)",
                         o->line, o->rank, o->peer == KC_GOAL_ANY ? "any rank" : from, tag, need, o->rank, have);
}

static kc_status never_received(const kc_goal *g, size_t op, size_t posted, size_t sent, kc_err *err)
{
    const kc_goal_op *o = &g->op[op];
    return kc_fail_param(err, KC_EINVAL, "schedule",
                         "line %ld: the send of rank %u to rank %lld with tag %lld is never received (rank %lld "
                         "posts %zu receives that can take the %zu sends)",
                         o->line, o->rank, (long long)o->peer, (long long)o->tag, (long long)o->peer, posted, sent);
}

/* Receives naming both source and tag: no more than the sends of their
 * class. */
static kc_status check_specific(const kc_goal *g, const wlists *w, kc_err *err)
{
    const wkey *r = w->k[W_RECV];
    for (size_t i = 0, j; i < w->n[W_RECV]; i = j) {
        j = wrun(r, w->n[W_RECV], i, 1);
        size_t c = wcount(w->k[W_SEND], w->n[W_SEND], r[i].d, r[i].a, r[i].b, 1);
        if (j - i > c)
            return no_send(g, r[i + c].op, j - i, c, err);
    }
    return KC_OK;
}

/* Receives with one wildcard (list `half`, keyed (d, x)) and the receives
 * naming both that share their x (list `full`): no more than the sends
 * with that x (list `sends`). */
static kc_status check_half(const kc_goal *g, const wlists *w, int half, int full, int sends, kc_err *err)
{
    const wkey *r = w->k[half];
    for (size_t i = 0, j; i < w->n[half]; i = j) {
        j = wrun(r, w->n[half], i, 0);
        size_t spec = wcount(w->k[full], w->n[full], r[i].d, r[i].a, 0, 0);
        size_t c = wcount(w->k[sends], w->n[sends], r[i].d, r[i].a, 0, 0);
        if (j - i + spec > c)
            return no_send(g, r[i + (c > spec ? c - spec : 0)].op, j - i + spec, c, err);
    }
    return KC_OK;
}

/* Whether no wildcard receive of rank d could take a send from s with tag t. */
static int is_forced(const wlists *w, uint32_t d, int64_t s, int64_t t)
{
    return !w->anyany[d] && !wcount(w->k[W_RECV_S], w->n[W_RECV_S], d, s, 0, 0) &&
           !wcount(w->k[W_RECV_TAG], w->n[W_RECV_TAG], d, t, 0, 0);
}

/* Forced classes: every send received by the receives naming it; then per
 * receiver, as many receives as sends. */
static kc_status check_totals(const kc_goal *g, const wlists *w, kc_err *err)
{
    const wkey *s = w->k[W_SEND];
    for (size_t i = 0, j; i < w->n[W_SEND]; i = j) {
        j = wrun(s, w->n[W_SEND], i, 1);
        if (!is_forced(w, s[i].d, s[i].a, s[i].b))
            continue;
        size_t r = wcount(w->k[W_RECV], w->n[W_RECV], s[i].d, s[i].a, s[i].b, 1);
        if (j - i > r)
            return never_received(g, s[i + r].op, r, j - i, err);
    }
    for (uint32_t d = 0; d < g->num_ranks; d++) {
        if (w->nsend[d] > w->nrecv[d])
            return never_received(g, w->last_send[d], w->nrecv[d], w->nsend[d], err);
        if (w->nrecv[d] > w->nsend[d])
            return no_send(g, w->last_recv[d], w->nrecv[d], w->nsend[d], err);
    }
    return KC_OK;
}

kc_status kci_goal_wild_check(const kc_goal *g, unsigned char *forced, kc_err *err)
{
    wlists w;
    kc_status s = wlists_build(g, &w, err);
    if (!s)
        s = check_specific(g, &w, err);
    if (!s)
        s = check_half(g, &w, W_RECV_S, W_RECV, W_SEND, err);
    if (!s)
        s = check_half(g, &w, W_RECV_TAG, W_RECV_T, W_SEND_T, err);
    if (!s)
        s = check_totals(g, &w, err);
    for (size_t i = 0; !s && i < g->nops; i++) {
        const kc_goal_op *o = &g->op[i];
        forced[i] = o->kind == KC_GOAL_RECV && o->peer != KC_GOAL_ANY && o->tag != KC_GOAL_ANY &&
                    is_forced(&w, o->rank, o->peer, o->tag);
    }
    wlists_free(&w);
    return s;
}
