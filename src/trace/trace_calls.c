/* trace_calls.c - the calls table: which events of which ranks are one
 * collective call. MPI has every member of a communicator make its
 * collectives on it in the same order, so the k-th collective event on
 * communicator c at each member is call k of c. One call gets one
 * algorithm and one block (the root's, or the members' mean), so all its
 * members expand it alike even when their totals differ (the v-variants)
 * and Open MPI's size-dependent choice is made once per call. */
#include <stdlib.h>
#include <string.h>

#include "trace_conv.h"

#define PARAM "trace"

/* Every rank's communicators with its rank in each, sorted by communicator
 * (communicators are visited in index order). */
typedef struct membership {
    size_t *first;   /* ranks + 1 */
    uint32_t *comm;  /* per membership */
    uint32_t *crank;
} membership;

static void membership_free(membership *m)
{
    free(m->first);
    free(m->comm);
    free(m->crank);
}

static kc_status membership_build(const kc_trace *t, membership *m, kc_err *err)
{
    size_t total = 0;
    for (uint32_t c = 0; c < t->ncomms; c++)
        total += t->comm[c].size;
    m->first = calloc((size_t)t->ranks + 1, sizeof *m->first);
    m->comm = malloc((total ? total : 1) * sizeof *m->comm);
    m->crank = malloc((total ? total : 1) * sizeof *m->crank);
    if (!m->first || !m->comm || !m->crank)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for %zu communicator memberships", total);
    for (uint32_t c = 0; c < t->ncomms; c++)
        for (uint32_t i = 0; i < t->comm[c].size; i++)
            m->first[t->comm[c].member[i] + 1]++;
    for (uint32_t r = 0; r < t->ranks; r++)
        m->first[r + 1] += m->first[r];
    for (uint32_t c = 0; c < t->ncomms; c++)
        for (uint32_t i = 0; i < t->comm[c].size; i++) {
            size_t at = m->first[t->comm[c].member[i]]++;
            m->comm[at] = c;
            m->crank[at] = i;
        }
    for (uint32_t r = t->ranks; r > 0; r--)
        m->first[r] = m->first[r - 1];
    m->first[0] = 0;
    return KC_OK;
}

/* World rank w's rank in communicator c, or KC_TRACE_NO_RANK. O(log). */
static uint32_t crank_of(const membership *m, uint32_t w, uint32_t c)
{
    size_t lo = m->first[w], hi = m->first[w + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->comm[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->first[w + 1] && m->comm[lo] == c ? m->crank[lo] : KC_TRACE_NO_RANK;
}

/* Pass 1: each COLL event's position k among its rank's collectives on its
 * communicator (kept in call_of for now); ncalls[c] = the most any member made. */
static kc_status number_calls(const kc_trace *t, kci_trace_calls *c, uint64_t *ncalls, kc_err *err)
{
    uint64_t *count = calloc(t->ncomms ? t->ncomms : 1, sizeof *count);
    uint32_t *touched = malloc((t->ncomms ? t->ncomms : 1) * sizeof *touched);
    if (!count || !touched) {
        free(count);
        free(touched);
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory numbering collective calls");
    }
    for (uint32_t r = 0; r < t->ranks; r++) {
        uint32_t ntouched = 0;
        for (size_t i = t->first[r]; i < t->first[r + 1]; i++) {
            const kc_trace_event *e = &t->ev[i];
            c->call_of[i] = KC_TRACE_NONE;
            if (e->kind != KC_TRACE_COLL)
                continue;
            if (count[e->comm] == 0)
                touched[ntouched++] = e->comm;
            c->call_of[i] = count[e->comm]++;
        }
        for (uint32_t k = 0; k < ntouched; k++) {
            uint32_t cm = touched[k];
            ncalls[cm] = count[cm] > ncalls[cm] ? count[cm] : ncalls[cm];
            count[cm] = 0;
        }
    }
    free(count);
    free(touched);
    return KC_OK;
}

/* Pass 2 for one event: its call's operation, root and block. */
static void join_call(const kc_trace *t, const membership *mb, kci_trace_calls *c, uint64_t *sum, uint64_t *root_block,
                      uint32_t rank, size_t i)
{
    const kc_trace_event *e = &t->ev[i];
    kci_trace_call *call = &c->call[c->call_of[i]];
    uint32_t size = t->comm[e->comm].size;
    uint32_t me = crank_of(mb, rank, e->comm);
    uint32_t root = e->peer == KC_TRACE_NO_RANK ? KC_TRACE_NO_RANK : crank_of(mb, e->peer, e->comm);
    c->me_of[i] = me;
    if (call->members++ == 0) {
        call->comm = e->comm;
        call->op = e->coll;
        call->root = root;
    } else if (call->op != e->coll || call->root != root)
        call->mixed = 1;
    uint64_t b = kci_trace_coll_block((kc_trace_coll)e->coll, size, root == KC_TRACE_NO_RANK ? 0 : root, me,
                                      e->bytes, e->received);
    size_t k = (size_t)(call - c->call);
    sum[k] = sum[k] + b < sum[k] ? UINT64_MAX : sum[k] + b;
    if (me == root)
        root_block[k] = b;
}

static kc_status alloc_calls(const kc_trace *t, kci_trace_calls *c, kc_err *err)
{
    memset(c, 0, sizeof *c);
    c->call_of = malloc((t->nev ? t->nev : 1) * sizeof *c->call_of);
    c->me_of = malloc((t->nev ? t->nev : 1) * sizeof *c->me_of);
    if (!c->call_of || !c->me_of)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for %zu events' calls", t->nev);
    return KC_OK;
}

/* Offsets of each communicator's calls; allocates the calls and sums. */
static kc_status lay_out(const kc_trace *t, kci_trace_calls *c, uint64_t *ncalls, uint64_t **sum, uint64_t **rb,
                         kc_err *err)
{
    uint64_t total = 0;
    for (uint32_t cm = 0; cm < t->ncomms; cm++) {
        uint64_t n = ncalls[cm];
        ncalls[cm] = total; /* now the base */
        total += n;
    }
    c->ncalls = (size_t)total;
    c->call = calloc(total ? total : 1, sizeof *c->call);
    *sum = calloc(total ? total : 1, sizeof **sum);
    *rb = malloc((total ? total : 1) * sizeof **rb);
    if (!c->call || !*sum || !*rb)
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for %llu collective calls",
                             (unsigned long long)total);
    for (size_t k = 0; k < total; k++)
        (*rb)[k] = KC_TRACE_NONE;
    return KC_OK;
}

kc_status kci_trace_calls_build(const kc_trace *t, kc_trace_alg alg, kci_trace_calls *c, kc_err *err)
{
    membership mb = {0};
    uint64_t *ncalls = NULL, *sum = NULL, *root_block = NULL;
    kc_status s = alloc_calls(t, c, err);
    if (!s)
        s = membership_build(t, &mb, err);
    if (!s && !(ncalls = calloc(t->ncomms ? t->ncomms : 1, sizeof *ncalls)))
        s = kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory numbering collective calls");
    if (!s)
        s = number_calls(t, c, ncalls, err);
    if (!s)
        s = lay_out(t, c, ncalls, &sum, &root_block, err);
    for (uint32_t r = 0; !s && r < t->ranks; r++)
        for (size_t i = t->first[r]; i < t->first[r + 1]; i++)
            if (t->ev[i].kind == KC_TRACE_COLL) {
                c->call_of[i] += ncalls[t->ev[i].comm];
                join_call(t, &mb, c, sum, root_block, r, i);
            }
    for (size_t k = 0; !s && k < c->ncalls; k++) {
        kci_trace_call *call = &c->call[k];
        uint32_t size = t->comm[call->comm].size;
        call->block = root_block[k] != KC_TRACE_NONE ? root_block[k] : call->members ? sum[k] / call->members : 0;
        call->alg = (uint8_t)(alg != KC_ALG_AUTO ? alg
                                                 : kc_trace_coll_auto((kc_trace_coll)call->op, size,
                                                                      kci_trace_coll_decision_bytes(
                                                                          (kc_trace_coll)call->op, size, call->block)));
    }
    membership_free(&mb);
    free(ncalls);
    free(sum);
    free(root_block);
    if (s)
        kci_trace_calls_free(c);
    return s;
}

void kci_trace_calls_free(kci_trace_calls *c)
{
    free(c->call);
    free(c->call_of);
    free(c->me_of);
    memset(c, 0, sizeof *c);
}
