/* mpitrace/mt_state.c - the tracer's state (mt.h): the regions' names and
 * roles, the clock, region events, the communicators a rank has seen, the
 * handle maps and the error line. Everything here runs inside a wrapper,
 * between the program's call and PMPI, so it stays small: no MPI calls but
 * local queries (group translation when a communicator is first seen). */
#define _GNU_SOURCE
#include "mt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

mt_state kci_mt = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const char *const region_names[MT_NREGIONS] = {
    "MPI_Init", "MPI_Init_thread", "MPI_Finalize",
    "MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend",
    "MPI_Recv", "MPI_Irecv", "MPI_Sendrecv", "MPI_Sendrecv_replace",
    "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test", "MPI_Testall", "MPI_Testany",
    "MPI_Testsome", "MPI_Request_free",
    "MPI_Barrier", "MPI_Bcast", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather",
    "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Allreduce", "MPI_Reduce",
    "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan",
    "MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create", "MPI_Cart_create", "MPI_Cart_sub",
    "MPI_Comm_split_type", "MPI_Comm_create_group", "MPI_Graph_create", "MPI_Dist_graph_create",
    "MPI_Dist_graph_create_adjacent", "MPI_Comm_free",
};

const char *kci_mt_region_name(uint32_t r)
{
    if (r < MT_NREGIONS)
        return region_names[r];
    return kci_mt.uregion[r - MT_NREGIONS];
}

OTF2_RegionRole kci_mt_region_role(uint32_t r)
{
    if (r >= MT_NREGIONS)
        return OTF2_REGION_ROLE_CODE;
    if (r >= MT_SEND && r <= MT_REQUEST_FREE)
        return OTF2_REGION_ROLE_POINT2POINT;
    switch (r) {
    case MT_BARRIER: return OTF2_REGION_ROLE_BARRIER;
    case MT_BCAST: case MT_SCATTER: case MT_SCATTERV: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case MT_GATHER: case MT_GATHERV: case MT_REDUCE: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case MT_ALLGATHER: case MT_ALLGATHERV: case MT_ALLTOALL: case MT_ALLTOALLV: case MT_ALLTOALLW:
    case MT_ALLREDUCE: case MT_REDUCE_SCATTER: case MT_REDUCE_SCATTER_BLOCK:
        return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case MT_SCAN: case MT_EXSCAN: return OTF2_REGION_ROLE_COLL_OTHER;
    default: return OTF2_REGION_ROLE_FUNCTION;
    }
}

void kci_mt_warn(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One write per line, so that the ranks' lines do not interleave. */
    fprintf(stderr, "kcube-trace: rank %d: %s\n", kci_mt.rank, line);
}

void kci_mt_lock(void)
{
    if (kci_mt.threads)
        pthread_mutex_lock(&kci_mt.lock);
}

void kci_mt_unlock(void)
{
    if (kci_mt.threads)
        pthread_mutex_unlock(&kci_mt.lock);
}

uint64_t kci_mt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + kci_mt.offset;
    uint64_t u = t > 0 ? (uint64_t)t : 0;
    if (u < kci_mt.last)
        u = kci_mt.last;
    kci_mt.last = u;
    return u;
}

void kci_mt_check(OTF2_ErrorCode rc, const char *what)
{
    if (rc != OTF2_SUCCESS && !kci_mt.failed) {
        kci_mt_warn("%s: %s (the trace will be incomplete)", what, OTF2_Error_GetDescription(rc));
        kci_mt.failed = 1;
    }
}

void kci_mt_stamp(void)
{
    kci_mt.cur = kci_mt_now();
    kci_mt.fresh = 1;
}

void kci_mt_enter(uint32_t r)
{
    kci_mt_lock();
    kci_mt.cur = kci_mt_now();
    kci_mt.fresh = 0;
    kci_mt_check(OTF2_EvtWriter_Enter(kci_mt.evt, NULL, kci_mt.cur, r), "writing an event");
    kci_mt_unlock();
}

void kci_mt_leave(uint32_t r)
{
    kci_mt_lock();
    uint64_t t = kci_mt.fresh ? kci_mt.cur : kci_mt_now();
    kci_mt.fresh = 0;
    kci_mt_check(OTF2_EvtWriter_Leave(kci_mt.evt, NULL, t, r), "writing an event");
    kci_mt_unlock();
}

uint64_t kci_mt_bytes(MPI_Count count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* ---- communicators ---- */

/* The world ranks of comm's members in communicator rank order (malloc'd;
 * NULL when memory runs out or MPI refuses). */
static uint32_t *members(MPI_Comm comm, int size)
{
    MPI_Group g, w;
    int *in = malloc((size_t)size * sizeof *in), *out = malloc((size_t)size * sizeof *out);
    uint32_t *m = malloc((size_t)size * sizeof *m);
    int ok = in && out && m && PMPI_Comm_group(comm, &g) == MPI_SUCCESS;
    if (ok) {
        ok = PMPI_Comm_group(MPI_COMM_WORLD, &w) == MPI_SUCCESS;
        for (int i = 0; ok && i < size; i++)
            in[i] = i;
        ok = ok && PMPI_Group_translate_ranks(g, size, in, w, out) == MPI_SUCCESS;
        for (int i = 0; ok && i < size; i++) {
            ok = out[i] >= 0;
            m[i] = (uint32_t)out[i];
        }
        PMPI_Group_free(&w);
        PMPI_Group_free(&g);
    }
    free(in);
    free(out);
    if (!ok) {
        free(m);
        return NULL;
    }
    return m;
}

/* Register comm with the given kind; its id, or MT_NONE. */
static uint32_t add_comm(MPI_Comm comm, uint8_t kind)
{
    int inter = 0, size = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter || PMPI_Comm_size(comm, &size) != MPI_SUCCESS
        || size < 1)
        return MT_NONE;
    uint32_t *m = members(comm, size);
    mt_slot *s = m ? kci_mt_map_put(&kci_mt.comms, kci_mt_key(&comm, sizeof comm)) : NULL;
    if (!s || kci_mt_reserve(&kci_mt.comm, &kci_mt.capcomm, kci_mt.ncomm + 1, sizeof *kci_mt.comm)) {
        free(m);
        if (s)
            kci_mt_map_del(&kci_mt.comms, kci_mt_key(&comm, sizeof comm));
        kci_mt_warn("out of memory registering a communicator (the trace will be incomplete)");
        kci_mt.failed = 1;
        return MT_NONE;
    }
    uint32_t id = (uint32_t)kci_mt.ncomm++;
    kci_mt.comm[id] = (mt_comm){.size = (uint32_t)size, .member = m, .kind = kind};
    s->a = id;
    return id;
}

uint32_t kci_mt_comm_id(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return 0;
    if (comm == MPI_COMM_NULL)
        return MT_NONE;
    const mt_slot *s = kci_mt_map_get(&kci_mt.comms, kci_mt_key(&comm, sizeof comm));
    if (s)
        return (uint32_t)s->a;
    return add_comm(comm, comm == MPI_COMM_SELF ? 1 : 3);
}

void kci_mt_comm_new(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return;
    /* A handle MPI reuses after MPI_Comm_free names the new communicator. */
    kci_mt_map_del(&kci_mt.comms, kci_mt_key(&comm, sizeof comm));
    add_comm(comm, comm == MPI_COMM_WORLD ? 0 : 2);
}

void kci_mt_comm_forget(MPI_Comm comm)
{
    if (comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF)
        kci_mt_map_del(&kci_mt.comms, kci_mt_key(&comm, sizeof comm));
}

/* ---- the handle map ---- */

uint64_t kci_mt_key(const void *handle, size_t size)
{
    uint64_t k = 0;
    memcpy(&k, handle, size < sizeof k ? size : sizeof k);
    return k;
}

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33; /* handles are aligned pointers or small ints: mix the bits */
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

mt_slot *kci_mt_map_get(const mt_map *m, uint64_t key)
{
    if (!m->cap || !key)
        return NULL;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->slot[i].key == key)
            return &m->slot[i];
        if (!m->slot[i].key)
            return NULL;
    }
}

/* Double the table (keeps the load at most one half). 0, or -1. */
static int grow(mt_map *m)
{
    size_t cap = m->cap ? 2 * m->cap : 64;
    mt_slot *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i].key) {
            size_t j = slot_of(m->slot[i].key, cap);
            while (s[j].key)
                j = (j + 1) & (cap - 1);
            s[j] = m->slot[i];
        }
    free(m->slot);
    m->slot = s;
    m->cap = cap;
    return 0;
}

mt_slot *kci_mt_map_put(mt_map *m, uint64_t key)
{
    if (!key)
        return NULL;
    mt_slot *old = kci_mt_map_get(m, key);
    if (old)
        return old;
    if (2 * (m->n + 1) > m->cap && grow(m))
        return NULL;
    size_t i = slot_of(key, m->cap);
    while (m->slot[i].key)
        i = (i + 1) & (m->cap - 1);
    m->slot[i] = (mt_slot){.key = key};
    m->n++;
    return &m->slot[i];
}

void kci_mt_map_del(mt_map *m, uint64_t key)
{
    mt_slot *s = kci_mt_map_get(m, key);
    if (!s)
        return;
    size_t i = (size_t)(s - m->slot), mask = m->cap - 1;
    /* Backward shift: pull later entries of the run into the hole when their home allows. */
    for (size_t j = (i + 1) & mask; m->slot[j].key; j = (j + 1) & mask) {
        size_t home = slot_of(m->slot[j].key, m->cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slot[i] = m->slot[j];
            i = j;
        }
    }
    m->slot[i].key = 0;
    m->n--;
}

void kci_mt_map_free(mt_map *m)
{
    free(m->slot);
    *m = (mt_map){0};
}

int kci_mt_reserve(void *pp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    if (c > SIZE_MAX / elem)
        return -1;
    void *p;
    memcpy(&p, pp, sizeof p);
    void *q = realloc(p, c * elem);
    if (!q)
        return -1;
    memcpy(pp, &q, sizeof q);
    *cap = c;
    return 0;
}
