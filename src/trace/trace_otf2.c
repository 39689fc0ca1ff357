/* trace_otf2.c - kc_trace_read_otf2: an OTF2 archive (Score-P's, or what
 * libkcube-trace.so writes) becomes a kc_trace. The global definitions
 * (trace_otf2_defs.c) give the world ranks, the communicators, the regions
 * and the hosts; then each rank's locations are read with OTF2's
 * per-location event readers, every MPI event translated to world ranks and
 * appended with kc_trace_append, and kc_trace_finish checks the whole (so the
 * checks live in one place). Timestamps are kept in the archive's ticks while
 * reading and turned into nanoseconds from the first one at the end.
 *
 * What is skipped (counted in t->skipped): events of locations that are not
 * MPI ranks or their threads, a thread's non-MPI events, intercommunicator
 * events, failed request tests, cancelled requests (the request and the
 * cancel), the communicator-management "collectives", and every event kind
 * the conversions do not use (RMA, I/O, OpenMP, metrics, non-blocking
 * collectives...). docs/traces.md "Reading OTF2". */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/size.h"
#include "core/sort.h"
#include "trace_internal.h"

#define PARAM "trace"
#define DROPPED 0xffu /* kind of a cancelled request's start, removed before finishing */

/* Each OTF2 communicator as the trace knows it. */
typedef struct comm_slot {
    uint32_t kc;       /* index in t->comm; KCI_OTF2_NONE: its events are skipped */
    uint8_t self;      /* MPI_COMM_SELF-like: one one-member communicator per rank, made on first use */
    uint8_t global;    /* events name world ranks already (OTF2_GROUP_FLAG_GLOBAL_MEMBERS) */
    uint32_t *self_kc; /* self: per rank, its communicator's index (KCI_OTF2_NONE: not made yet) */
} comm_slot;

typedef struct reader_ctx {
    kc_trace *t;
    const kci_otf2_defs *d;
    comm_slot *cs;       /* one per d->comm entry */
    uint32_t rank;       /* the location being read: its rank and whether it is the rank's own */
    int main;
    int in_coll;         /* between an MpiCollectiveBegin and its End */
    uint64_t coll_begin; /* ticks */
    size_t seg;          /* index of the current rank's first event */
    uint64_t used;       /* OTF2 events that became (or were merged into) trace events */
    uint64_t read;       /* OTF2 events read */
    uint64_t min_tick;
    size_t dropped;
    kc_status status;
    kc_err *err;
} reader_ctx;

static kc_status nomem(const reader_ctx *c)
{
    return kc_fail_param(c->err, KC_ENOMEM, PARAM, "out of memory reading %s", c->d->name);
}

static OTF2_CallbackCode fail(reader_ctx *c, kc_status s)
{
    if (c->status == KC_OK)
        c->status = s;
    return OTF2_CALLBACK_INTERRUPT;
}

/* ---- the trace's communicators, regions and nodes ---- */

/* Members of an MPI communicator group are indices into the MPI location
 * group, that is world ranks; the whole world in order is comm 0. */
static kc_status add_group_comm(reader_ctx *c, const kci_otf2_comm *oc, const kci_otf2_group *g, comm_slot *slot)
{
    kc_trace *t = c->t;
    int identity = g->n == t->ranks;
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->member[i] >= t->ranks)
            return kc_fail_param(c->err, KC_EINVAL, PARAM, "%s: communicator %u: member %llu is not a rank (0..%u)",
                                 t->name, oc->ref, (unsigned long long)g->member[i], t->ranks - 1);
        identity &= g->member[i] == i;
    }
    slot->global = (g->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS) != 0;
    if (identity) {
        slot->kc = 0;
        return KC_OK;
    }
    uint32_t *m = malloc((g->n ? g->n : 1) * sizeof *m);
    if (!m)
        return nomem(c);
    for (uint32_t i = 0; i < g->n; i++)
        m[i] = (uint32_t)g->member[i];
    const char *name = kci_otf2_str(c->d, oc->name);
    kc_status s = kc_trace_add_comm(t, g->n, m, *name ? name : NULL, &slot->kc, c->err);
    free(m);
    return s;
}

static kc_status add_comms(reader_ctx *c)
{
    const kci_otf2_defs *d = c->d;
    if (!(c->cs = calloc(d->ncomm ? d->ncomm : 1, sizeof *c->cs)))
        return nomem(c);
    for (size_t i = 0; i < d->ncomm; i++) {
        comm_slot *slot = &c->cs[i];
        slot->kc = KCI_OTF2_NONE;
        if (d->comm[i].inter)
            continue;
        const kci_otf2_group *g = &d->group[kci_refmap_find(&d->group_map, d->comm[i].group)];
        if (g->paradigm != OTF2_PARADIGM_MPI)
            continue; /* another paradigm's communicator: not MPI events */
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
            slot->self = 1;
        } else if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
            slot->kc = 0;
        } else if (g->type == OTF2_GROUP_TYPE_COMM_GROUP) {
            kc_status s = add_group_comm(c, &d->comm[i], g, slot);
            if (s)
                return s;
        }
    }
    return KC_OK;
}

/* Regions in definition order: the trace's region index is the row. */
static kc_status add_regions(reader_ctx *c)
{
    for (size_t i = 0; i < c->d->nregion; i++) {
        kc_status s = kc_trace_add_region(c->t, kci_otf2_str(c->d, c->d->region[i].name), NULL, c->err);
        if (s)
            return s;
    }
    return KC_OK;
}

/* The host a system tree node lies on: the nearest ancestor (itself
 * included) of class "node", else the node itself; KCI_OTF2_NONE when the
 * node is not defined. The walk is bounded (a parent cycle ends it). */
static uint32_t host_of(const kci_otf2_defs *d, uint32_t ref)
{
    uint32_t first = kci_refmap_find(&d->node_map, ref), i = first;
    for (size_t steps = 0; i != KCI_OTF2_NONE && steps <= d->nnode; steps++) {
        if (strcmp(kci_otf2_str(d, d->node[i].klass), "node") == 0)
            return i;
        i = kci_refmap_find(&d->node_map, d->node[i].parent);
    }
    return first;
}

/* t->node_of: hosts numbered in the order rank 0, 1, ... first meets them.
 * Any rank without a host leaves the whole unknown (nodes 0). */
static kc_status set_nodes(reader_ctx *c)
{
    const kci_otf2_defs *d = c->d;
    kc_trace *t = c->t;
    uint32_t *number = malloc((d->nnode ? d->nnode : 1) * sizeof *number);
    uint32_t *count = calloc(t->ranks, sizeof *count);
    t->node_of = malloc((size_t)t->ranks * sizeof *t->node_of);
    if (!number || !count || !t->node_of) {
        free(number);
        free(count);
        return nomem(c);
    }
    memset(number, 0xff, (d->nnode ? d->nnode : 1) * sizeof *number);
    const kci_otf2_group *w = &d->group[d->world];
    uint32_t nodes = 0, most = 0;
    for (uint32_t r = 0; r < t->ranks && t->node_of; r++) {
        const kci_otf2_loc *l = kci_otf2_loc_find(d, w->member[r]);
        uint32_t g = kci_refmap_find(&d->lgroup_map, l->group);
        uint32_t h = g == KCI_OTF2_NONE ? KCI_OTF2_NONE : host_of(d, d->lgroup[g].node);
        if (h == KCI_OTF2_NONE) {
            free(t->node_of);
            t->node_of = NULL;
            nodes = most = 0;
            break;
        }
        if (number[h] == KCI_OTF2_NONE)
            number[h] = nodes++;
        t->node_of[r] = number[h];
        most = ++count[number[h]] > most ? count[number[h]] : most;
    }
    t->nodes = nodes;
    t->ranks_per_node = most;
    free(number);
    free(count);
    return KC_OK;
}

/* ---- events ---- */

static kc_trace_event event_at(OTF2_TimeStamp time, unsigned kind)
{
    kc_trace_event e;
    memset(&e, 0, sizeof e);
    e.time = e.end = time;
    e.request = KC_TRACE_NONE;
    e.op = KC_TRACE_NONE;
    e.peer = KC_TRACE_NO_RANK;
    e.kind = (uint8_t)kind;
    return e;
}

/* Append e (its times still in ticks) to the current rank; `merged` OTF2
 * events became it. */
static OTF2_CallbackCode put(reader_ctx *c, const kc_trace_event *e, unsigned merged)
{
    kc_status s = kc_trace_append(c->t, c->rank, e, c->err);
    if (s)
        return fail(c, s);
    c->min_tick = e->time < c->min_tick ? e->time : c->min_tick;
    c->used += merged;
    return OTF2_CALLBACK_SUCCESS;
}

/* The rank's own communicator for MPI_COMM_SELF-like groups. */
static kc_status self_comm(reader_ctx *c, comm_slot *slot, uint32_t *kc)
{
    if (!slot->self_kc) {
        if (!(slot->self_kc = malloc((size_t)c->t->ranks * sizeof *slot->self_kc)))
            return nomem(c);
        memset(slot->self_kc, 0xff, (size_t)c->t->ranks * sizeof *slot->self_kc);
    }
    if (slot->self_kc[c->rank] == KCI_OTF2_NONE) {
        kc_status s = kc_trace_add_comm(c->t, 1, &c->rank, "MPI_COMM_SELF", &slot->self_kc[c->rank], c->err);
        if (s)
            return s;
    }
    *kc = slot->self_kc[c->rank];
    return KC_OK;
}

/* The trace's communicator for OTF2 communicator `ref` and `peer` (a rank of
 * it, or OTF2_UNDEFINED_UINT32) as a world rank: 1, 0 when the event is to
 * be skipped, -1 on error (c->status set). A peer outside the communicator
 * becomes t->ranks, which kc_trace_finish refuses with the event's place. */
static int resolve(reader_ctx *c, OTF2_CommRef ref, uint32_t peer, uint32_t *kc, uint32_t *world, const char *what)
{
    uint32_t i = kci_refmap_find(&c->d->comm_map, ref);
    if (i == KCI_OTF2_NONE) {
        fail(c, kc_fail_param(c->err, KC_EINVAL, PARAM, "%s: rank %u: %s on communicator %u, which has no definition",
                              c->d->name, c->rank, what, ref));
        return -1;
    }
    comm_slot *slot = &c->cs[i];
    if (slot->self) {
        kc_status s = self_comm(c, slot, kc);
        if (s) {
            fail(c, s);
            return -1;
        }
        *world = peer == OTF2_UNDEFINED_UINT32 ? KC_TRACE_NO_RANK : peer == 0 ? c->rank : c->t->ranks;
        return 1;
    }
    if (slot->kc == KCI_OTF2_NONE)
        return 0;
    *kc = slot->kc;
    const kc_trace_comm *cm = &c->t->comm[slot->kc];
    if (peer == OTF2_UNDEFINED_UINT32)
        *world = KC_TRACE_NO_RANK;
    else if (slot->global)
        *world = peer;
    else
        *world = peer < cm->size ? cm->member[peer] : c->t->ranks;
    return 1;
}

/* Point-to-point events with a peer: SEND, ISEND, RECV and an IRECV's completion. */
static OTF2_CallbackCode p2p(reader_ctx *c, OTF2_TimeStamp time, unsigned kind, uint32_t peer, OTF2_CommRef comm,
                             uint32_t tag, uint64_t bytes, uint64_t request)
{
    kc_trace_event e = event_at(time, kind);
    int r = resolve(c, comm, peer, &e.comm, &e.peer, "a point-to-point event");
    if (r <= 0)
        return r < 0 ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
    e.peer = e.peer == KC_TRACE_NO_RANK ? c->t->ranks : e.peer; /* a message always has a peer */
    e.tag = tag;
    e.bytes = bytes;
    e.request = request;
    return put(c, &e, 1);
}

static OTF2_CallbackCode on_send(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                 OTF2_AttributeList *al, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)al;
    return p2p(ud, time, KC_TRACE_SEND, to, comm, tag, len, KC_TRACE_NONE);
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                                  uint64_t request)
{
    (void)loc, (void)pos, (void)al;
    return p2p(ud, time, KC_TRACE_ISEND, to, comm, tag, len, request);
}

static OTF2_CallbackCode on_recv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                 OTF2_AttributeList *al, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)al;
    return p2p(ud, time, KC_TRACE_RECV, from, comm, tag, len, KC_TRACE_NONE);
}

/* An MpiIrecv is the receive's completion: it carries the source. */
static OTF2_CallbackCode on_irecv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                                  uint64_t request)
{
    (void)loc, (void)pos, (void)al;
    return p2p(ud, time, KC_TRACE_COMPLETE, from, comm, tag, len, request);
}

static OTF2_CallbackCode request_event(reader_ctx *c, OTF2_TimeStamp time, unsigned kind, uint64_t request)
{
    kc_trace_event e = event_at(time, kind);
    e.request = request;
    return put(c, &e, 1);
}

static OTF2_CallbackCode on_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                          OTF2_AttributeList *al, uint64_t request)
{
    (void)loc, (void)pos, (void)al;
    return request_event(ud, time, KC_TRACE_IRECV, request);
}

static OTF2_CallbackCode on_isend_complete(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                           OTF2_AttributeList *al, uint64_t request)
{
    (void)loc, (void)pos, (void)al;
    return request_event(ud, time, KC_TRACE_COMPLETE, request);
}

/* A cancelled request never happened: its start (the latest ISEND or IRECV
 * of the rank with that id, not completed since) is dropped. Cost: the
 * rank's events since the start. */
static OTF2_CallbackCode on_cancelled(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                      OTF2_AttributeList *al, uint64_t request)
{
    reader_ctx *c = ud;
    (void)loc, (void)time, (void)pos, (void)al;
    for (size_t i = c->t->nev; i > c->seg; i--) {
        kc_trace_event *e = &c->t->ev[i - 1];
        if (e->request != request || e->kind == DROPPED)
            continue;
        if (e->kind == KC_TRACE_ISEND || e->kind == KC_TRACE_IRECV) {
            e->kind = DROPPED;
            c->dropped++;
            c->used--; /* the start is skipped after all */
        }
        break;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    reader_ctx *c = ud;
    (void)loc, (void)pos, (void)al;
    if (!c->main)
        return OTF2_CALLBACK_SUCCESS; /* a thread's regions would not nest with the rank's */
    kc_trace_event e = event_at(time, KC_TRACE_ENTER);
    e.comm = kci_refmap_find(&c->d->region_map, region); /* undefined: kc_trace_finish says so */
    return put(c, &e, 1);
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    reader_ctx *c = ud;
    (void)loc, (void)pos, (void)al;
    if (!c->main)
        return OTF2_CALLBACK_SUCCESS;
    kc_trace_event e = event_at(time, KC_TRACE_LEAVE);
    e.comm = kci_refmap_find(&c->d->region_map, region);
    return put(c, &e, 1);
}

static OTF2_CallbackCode on_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                       OTF2_AttributeList *al)
{
    reader_ctx *c = ud;
    (void)loc, (void)pos, (void)al;
    c->in_coll = 1;
    c->coll_begin = time;
    return OTF2_CALLBACK_SUCCESS;
}

/* One KC_TRACE_COLL per Begin/End pair, at the begin's time. */
static OTF2_CallbackCode on_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                     OTF2_AttributeList *al, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                     uint64_t sent, uint64_t received)
{
    reader_ctx *c = ud;
    (void)loc, (void)pos, (void)al;
    kc_trace_event e = event_at(c->in_coll ? c->coll_begin : time, KC_TRACE_COLL);
    unsigned merged = c->in_coll ? 2 : 1;
    c->in_coll = 0;
    if (op >= KC_COLL_COUNT)
        return OTF2_CALLBACK_SUCCESS; /* communicator and window management */
    int r = resolve(c, comm, root, &e.comm, &e.peer, "a collective");
    if (r <= 0)
        return r < 0 ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
    e.end = time;
    e.coll = (uint8_t)op;
    e.bytes = sent;
    e.received = received;
    return put(c, &e, merged);
}

static OTF2_EvtReaderCallbacks *event_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
    return cb;
}

/* ---- reading the locations ---- */

static inline uint64_t read_key(const uint32_t *i, const void *ctx)
{
    const kci_otf2_loc *l = &((const kci_otf2_defs *)ctx)->loc[*i];
    return (uint64_t)l->rank * 2 + !l->main;
}

KCI_RADIX_SORT_DEFINE(sort_read_order, uint32_t, read_key, 32)

/* The locations that carry ranks' events, rank by rank, each rank's own
 * location first, then its threads by id (the defs are sorted by id and the
 * sort is stable). */
static kc_status read_order(reader_ctx *c, uint32_t **order, size_t *n)
{
    const kci_otf2_defs *d = c->d;
    uint32_t *o = malloc((d->nloc ? d->nloc : 1) * sizeof *o), *scratch = malloc((d->nloc ? d->nloc : 1) * sizeof *o);
    if (!o || !scratch) {
        free(o);
        free(scratch);
        return nomem(c);
    }
    size_t k = 0;
    for (size_t i = 0; i < d->nloc; i++)
        if (d->loc[i].rank != KC_TRACE_NO_RANK)
            o[k++] = (uint32_t)i;
    sort_read_order(o, k, scratch, (uint64_t)d->ranks * 2, d);
    free(scratch);
    *order = o;
    *n = k;
    return KC_OK;
}

/* Every events file "N.evt" beside the definitions names a defined
 * location: an archive whose definitions lost some is refused. Archives
 * not stored as plain files (no such directory) are not checked. */
static kc_status check_event_files(reader_ctx *c, const char *anchor)
{
    size_t n = strlen(anchor);
    char *dir = malloc(n + 1);
    if (!dir)
        return nomem(c);
    memcpy(dir, anchor, n + 1);
    dir[n - 5] = '\0'; /* "dir/traces.otf2" -> "dir/traces" */
    DIR *dp = opendir(dir);
    free(dir);
    if (!dp)
        return KC_OK;
    kc_status s = KC_OK;
    struct dirent *de;
    while (s == KC_OK && (de = readdir(dp)) != NULL) {
        char *end;
        unsigned long long id = strtoull(de->d_name, &end, 10);
        if (end == de->d_name || strcmp(end, ".evt") != 0 || de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        if (!kci_otf2_loc_find(c->d, id))
            s = kc_fail_param(c->err, KC_EINVAL, PARAM, "%s: events for location %llu, which has no definition",
                              c->d->name, id);
    }
    closedir(dp);
    return s;
}

/* Local definitions hold the id mappings OTF2 applies to a location's events. */
static kc_status read_local_defs(reader_ctx *c, OTF2_Reader *reader, const uint32_t *order, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (OTF2_Reader_SelectLocation(reader, c->d->loc[order[k]].id) != OTF2_SUCCESS)
            return nomem(c);
    if (OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS)
        return KC_OK; /* no local definitions stored */
    kc_status s = KC_OK;
    for (size_t k = 0; k < n && s == KC_OK; k++) {
        const kci_otf2_loc *l = &c->d->loc[order[k]];
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(reader, l->id);
        if (!dr)
            continue;
        uint64_t defs = 0;
        OTF2_ErrorCode e = OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &defs);
        if (e != OTF2_SUCCESS)
            s = kc_fail_param(c->err, KC_EINVAL, PARAM, "%s: location %llu's definitions cannot be read (%s)",
                              c->d->name, (unsigned long long)l->id, OTF2_Error_GetDescription(e));
        OTF2_Reader_CloseDefReader(reader, dr);
    }
    OTF2_Reader_CloseDefFiles(reader);
    return s;
}

/* Read one location's events; its events count must be the declared one
 * (a cut file ends early). */
static kc_status read_location(reader_ctx *c, OTF2_Reader *reader, const OTF2_EvtReaderCallbacks *cb,
                               const kci_otf2_loc *l)
{
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(reader, l->id);
    if (!er)
        return kc_fail_param(c->err, KC_EINVAL, PARAM, "%s: the events of location %llu cannot be opened",
                             c->d->name, (unsigned long long)l->id);
    c->rank = l->rank;
    c->main = l->main;
    c->in_coll = 0;
    uint64_t n = 0;
    OTF2_ErrorCode e = OTF2_Reader_RegisterEvtCallbacks(reader, er, cb, c);
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllLocalEvents(reader, er, &n);
    OTF2_Reader_CloseEvtReader(reader, er);
    c->read += n;
    if (c->status)
        return c->status;
    if (e != OTF2_SUCCESS)
        return kc_fail_param(c->err, KC_EINVAL, PARAM, "%s: the events of location %llu cannot be read (%s)",
                             c->d->name, (unsigned long long)l->id, OTF2_Error_GetDescription(e));
    if (n != l->events)
        return kc_fail_param(c->err, KC_EINVAL, PARAM,
                             "%s: location %llu declares %llu events and holds %llu (a cut archive?)", c->d->name,
                             (unsigned long long)l->id, (unsigned long long)l->events, (unsigned long long)n);
    return KC_OK; /* a collective begun and never ended: its begin stays unused (skipped) */
}

static inline uint64_t time_key(const kc_trace_event *e, const void *ctx)
{
    (void)ctx;
    return e->time;
}

KCI_RADIX_SORT_DEFINE(sort_by_time, kc_trace_event, time_key, 32)

/* A rank whose threads added MPI events: its events merged in time order
 * (stable, so each location's own order stays). */
static kc_status merge_rank(reader_ctx *c)
{
    size_t n = c->t->nev - c->seg;
    kc_trace_event *scratch = malloc((n ? n : 1) * sizeof *scratch);
    if (!scratch)
        return nomem(c);
    sort_by_time(c->t->ev + c->seg, n, scratch, UINT64_MAX, NULL);
    free(scratch);
    return KC_OK;
}

static kc_status read_events(reader_ctx *c, OTF2_Reader *reader, const uint32_t *order, size_t n)
{
    OTF2_EvtReaderCallbacks *cb = event_callbacks();
    if (!cb)
        return nomem(c);
    kc_status s = OTF2_Reader_OpenEvtFiles(reader) == OTF2_SUCCESS
                      ? KC_OK
                      : kc_fail_param(c->err, KC_EINVAL, PARAM, "%s: the events cannot be opened", c->d->name);
    for (size_t k = 0; k < n && s == KC_OK;) {
        uint32_t rank = c->d->loc[order[k]].rank;
        int filled = 0; /* locations of this rank that added events */
        c->seg = c->t->nev;
        for (; k < n && c->d->loc[order[k]].rank == rank && s == KC_OK; k++) {
            size_t before = c->t->nev;
            if (c->d->loc[order[k]].events)
                s = read_location(c, reader, cb, &c->d->loc[order[k]]);
            filled += c->t->nev > before;
        }
        if (s == KC_OK && filled > 1)
            s = merge_rank(c);
    }
    OTF2_Reader_CloseEvtFiles(reader);
    OTF2_EvtReaderCallbacks_Delete(cb);
    return s;
}

/* ---- after reading ---- */

/* Remove the cancelled requests' starts (one pass). */
static void compact(kc_trace *t)
{
    size_t k = 0;
    for (size_t i = 0; i < t->nev; i++)
        if (t->ev[i].kind != DROPPED) {
            t->ev[k] = t->ev[i];
            t->rank_of[k++] = t->rank_of[i];
        }
    t->nev = k;
}

/* ticks * 1e9 / resolution without overflowing on the way (quotient and
 * remainder apart); UINT64_MAX when the result does not fit. */
static uint64_t ticks_to_ns(uint64_t ticks, uint64_t resolution)
{
    const uint64_t giga = 1000000000u;
    if (resolution == giga)
        return ticks;
    uint64_t q = ticks / resolution, r = ticks % resolution, whole, part;
    if (kci_mul_overflow_u64(q, giga, &whole))
        return UINT64_MAX;
    if (r <= UINT64_MAX / giga)
        part = r * giga / resolution;
    else
        part = (uint64_t)((long double)r * (long double)giga / (long double)resolution);
    return kci_add_overflow_u64(whole, part, &whole) ? UINT64_MAX : whole;
}

/* Ticks become ns from the first timestamp: the global offset, or an
 * earlier event's time in an archive that has one. */
static void to_ns(reader_ctx *c)
{
    kc_trace *t = c->t;
    uint64_t origin = c->d->offset < c->min_tick ? c->d->offset : c->min_tick;
    for (size_t i = 0; i < t->nev; i++) {
        t->ev[i].time = ticks_to_ns(t->ev[i].time - origin, c->d->resolution);
        t->ev[i].end = ticks_to_ns(t->ev[i].end - origin, c->d->resolution);
    }
}

/* Room for the declared events up front (they are the events read, bar the
 * skipped), so appending never copies the array. */
static kc_status reserve_events(reader_ctx *c)
{
    size_t want = c->d->rank_events < (1u << 26) ? (size_t)c->d->rank_events : (size_t)1 << 26, cap = c->t->cap_ev;
    if (want == 0)
        return KC_OK;
    if (KCI_RESERVE(c->t->ev, cap, want, 1))
        return nomem(c);
    if (kci_resize(&c->t->rank_of, cap, sizeof *c->t->rank_of))
        return nomem(c);
    c->t->cap_ev = cap;
    return KC_OK;
}

static void free_slots(reader_ctx *c)
{
    for (size_t i = 0; c->cs && i < c->d->ncomm; i++)
        free(c->cs[i].self_kc);
    free(c->cs);
    c->cs = NULL;
}

/* The trace from the definitions, then the events, then the checks. */
static kc_status build(reader_ctx *c, OTF2_Reader *reader, const char *anchor)
{
    kc_status s = add_comms(c);
    if (!s)
        s = add_regions(c);
    if (!s)
        s = set_nodes(c);
    if (!s)
        s = check_event_files(c, anchor);
    uint32_t *order = NULL;
    size_t n = 0;
    if (!s)
        s = read_order(c, &order, &n);
    if (!s)
        s = reserve_events(c);
    if (!s)
        s = read_local_defs(c, reader, order, n);
    if (!s)
        s = read_events(c, reader, order, n);
    free(order);
    if (s)
        return s;
    compact(c->t);
    to_ns(c);
    c->t->skipped = (size_t)(c->read - c->used + c->d->other_events);
    return kc_trace_finish(c->t, c->err);
}

kc_status kc_trace_read_otf2(kc_trace *t, const char *path, const kc_trace_limits *limits, kc_err *err)
{
    memset(t, 0, sizeof *t);
    char *anchor, *name;
    OTF2_Reader *reader;
    kc_status s = kci_otf2_open(path, &anchor, &name, &reader, err);
    if (s)
        return s;
    kci_otf2_defs d;
    s = kci_otf2_read_defs(reader, &d, name, err);
    if (!s)
        s = kci_otf2_check_limits(&d, limits, err);
    if (!s)
        s = kc_trace_init(t, d.ranks, name, err);
    if (!s) {
        reader_ctx c = {.t = t, .d = &d, .min_tick = UINT64_MAX, .err = err};
        s = build(&c, reader, anchor);
        free_slots(&c);
        if (s)
            kc_trace_free(t);
    }
    kci_otf2_defs_free(&d);
    OTF2_Reader_Close(reader);
    free(anchor);
    free(name);
    return s;
}
