/* trace.c - the in-memory MPI trace of kcube/trace.h: building it event by
 * event (the OTF2 reader and the tests both do), then kc_trace_finish,
 * which orders the events rank by rank and checks them once, so every
 * converter can trust ranks, communicators, regions and requests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "kcube/trace.h"

#define PARAM "trace"

static const kc_name kind_entries[] = {
    {KC_TRACE_SEND, "send", "blocking send"},
    {KC_TRACE_ISEND, "isend", "non-blocking send started"},
    {KC_TRACE_RECV, "recv", "blocking receive"},
    {KC_TRACE_IRECV, "irecv", "non-blocking receive posted"},
    {KC_TRACE_COMPLETE, "complete", "a request ends"},
    {KC_TRACE_COLL, "collective", "one collective call"},
    {KC_TRACE_ENTER, "enter", "a code region entered"},
    {KC_TRACE_LEAVE, "leave", "a code region left"},
    {0, NULL, NULL},
};
const kc_names kc_trace_kind_names = {"trace event", kind_entries};

static const kc_name coll_entries[] = {
    {KC_COLL_BARRIER, "barrier", NULL},
    {KC_COLL_BCAST, "bcast", NULL},
    {KC_COLL_GATHER, "gather", NULL},
    {KC_COLL_GATHERV, "gatherv", NULL},
    {KC_COLL_SCATTER, "scatter", NULL},
    {KC_COLL_SCATTERV, "scatterv", NULL},
    {KC_COLL_ALLGATHER, "allgather", NULL},
    {KC_COLL_ALLGATHERV, "allgatherv", NULL},
    {KC_COLL_ALLTOALL, "alltoall", NULL},
    {KC_COLL_ALLTOALLV, "alltoallv", NULL},
    {KC_COLL_ALLTOALLW, "alltoallw", NULL},
    {KC_COLL_ALLREDUCE, "allreduce", NULL},
    {KC_COLL_REDUCE, "reduce", NULL},
    {KC_COLL_REDUCE_SCATTER, "reduce-scatter", NULL},
    {KC_COLL_SCAN, "scan", NULL},
    {KC_COLL_EXSCAN, "exscan", NULL},
    {KC_COLL_REDUCE_SCATTER_BLOCK, "reduce-scatter-block", NULL},
    {0, NULL, NULL},
};
const kc_names kc_trace_coll_names = {"collective", coll_entries};

static const kc_name alg_entries[] = {
    {KC_ALG_AUTO, "auto", "what Open MPI's tuned module picks for the operation and size"},
    {KC_ALG_BINOMIAL, "binomial", "binomial trees (rooted operations; gather then broadcast otherwise)"},
    {KC_ALG_RING, "ring", "neighbour to neighbour around the communicator"},
    {KC_ALG_LINEAR, "linear", "every rank to every rank (or to and from the root) directly"},
    {KC_ALG_RECURSIVE_DOUBLING, "recursive-doubling", "partners at distance 1, 2, 4, ..."},
    {0, NULL, NULL},
};
const kc_names kc_trace_alg_names = {"collective algorithm", alg_entries};

static kc_status nomem(kc_err *err) { return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory for the trace"); }

kc_status kc_trace_init(kc_trace *t, uint32_t ranks, const char *name, kc_err *err)
{
    memset(t, 0, sizeof *t);
    if (ranks == 0 || ranks > KC_TRACE_MAX_RANKS)
        return kc_fail_param(err, KC_ERANGE, PARAM, "a trace has 1..%u ranks, not %u", KC_TRACE_MAX_RANKS, ranks);
    t->ranks = ranks;
    t->name = strdup(name ? name : "trace");
    uint32_t *world = malloc((size_t)ranks * sizeof *world);
    kc_status s = t->name && world ? KC_OK : nomem(err);
    for (uint32_t r = 0; s == KC_OK && r < ranks; r++)
        world[r] = r;
    if (s == KC_OK)
        s = kc_trace_add_comm(t, ranks, world, "MPI_COMM_WORLD", NULL, err);
    free(world);
    if (s)
        kc_trace_free(t);
    return s;
}

void kc_trace_free(kc_trace *t)
{
    for (uint32_t c = 0; c < t->ncomms; c++) {
        free(t->comm[c].member);
        free(t->comm[c].name);
    }
    for (uint32_t r = 0; r < t->nregions; r++)
        free(t->region[r]);
    free(t->comm);
    free(t->region);
    free(t->first);
    free(t->ev);
    free(t->node_of);
    free(t->rank_of);
    free(t->name);
    memset(t, 0, sizeof *t);
}

/* Members must be distinct world ranks: a bitmap over the world. */
static kc_status check_members(const kc_trace *t, uint32_t size, const uint32_t *member, kc_err *err)
{
    if (size == 0 || size > t->ranks)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s: a communicator of %u members in a world of %u ranks",
                             t->name, size, t->ranks);
    unsigned char *seen = calloc(t->ranks, 1);
    if (!seen)
        return nomem(err);
    kc_status s = KC_OK;
    for (uint32_t i = 0; i < size && s == KC_OK; i++) {
        if (member[i] >= t->ranks)
            s = kc_fail_param(err, KC_EINVAL, PARAM, "%s: communicator member %u is not a world rank (0..%u)",
                              t->name, member[i], t->ranks - 1);
        else if (seen[member[i]]++)
            s = kc_fail_param(err, KC_EINVAL, PARAM, "%s: world rank %u is twice in one communicator", t->name,
                              member[i]);
    }
    free(seen);
    return s;
}

kc_status kc_trace_add_comm(kc_trace *t, uint32_t size, const uint32_t *member, const char *name, uint32_t *index,
                            kc_err *err)
{
    kc_status s = check_members(t, size, member, err);
    if (s)
        return s;
    size_t cap = t->cap_comms;
    if (KCI_RESERVE(t->comm, cap, (size_t)t->ncomms + 1, 4))
        return nomem(err);
    t->cap_comms = (uint32_t)cap;
    kc_trace_comm *c = &t->comm[t->ncomms];
    c->size = size;
    c->member = malloc((size_t)size * sizeof *c->member);
    char buf[32];
    if (!name) {
        snprintf(buf, sizeof buf, "comm %u", t->ncomms);
        name = buf;
    }
    c->name = strdup(name);
    if (!c->member || !c->name) {
        free(c->member);
        free(c->name);
        return nomem(err);
    }
    memcpy(c->member, member, (size_t)size * sizeof *member);
    if (index)
        *index = t->ncomms;
    t->ncomms++;
    return KC_OK;
}

kc_status kc_trace_add_region(kc_trace *t, const char *name, uint32_t *index, kc_err *err)
{
    size_t cap = t->cap_regions;
    if (KCI_RESERVE(t->region, cap, (size_t)t->nregions + 1, 16))
        return nomem(err);
    t->cap_regions = (uint32_t)cap;
    if (!(t->region[t->nregions] = strdup(name ? name : "")))
        return nomem(err);
    if (index)
        *index = t->nregions;
    t->nregions++;
    return KC_OK;
}

kc_status kc_trace_append(kc_trace *t, uint32_t rank, const kc_trace_event *e, kc_err *err)
{
    if (t->finished)
        return kc_fail_param(err, KC_EINTERNAL, PARAM, "%s: event appended after kc_trace_finish", t->name);
    if (rank >= t->ranks)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s: an event of rank %u in a world of %u ranks", t->name, rank,
                             t->ranks);
    size_t cap = t->cap_ev;
    if (KCI_RESERVE(t->ev, cap, t->nev + 1, 1024))
        return nomem(err);
    if (kci_resize(&t->rank_of, cap, sizeof *t->rank_of)) /* same capacity as ev; cap_ev stays */
        return nomem(err);
    t->cap_ev = cap;
    t->ev[t->nev] = *e;
    t->ev[t->nev].op = KC_TRACE_NONE;
    t->rank_of[t->nev++] = rank;
    return KC_OK;
}

int kc_trace_region_find(const kc_trace *t, const char *name)
{
    for (uint32_t r = 0; r < t->nregions; r++)
        if (strcmp(t->region[r], name) == 0)
            return (int)r;
    return -1;
}

void kc_trace_filter_default(kc_trace_filter *f)
{
    memset(f, 0, sizeof *f);
    f->to = UINT64_MAX;
    f->alg = KC_ALG_AUTO;
}
