/* otf2_gen.c - kc_test_otf2_write (otf2_gen.h): one rank's events at a time
 * through OTF2's event writer (flushed to disk chunk by chunk, so the size
 * of the archive does not bound memory), then the global definitions. */
#include <stdio.h>
#include <stdlib.h>

#include <otf2/otf2.h>

#include "otf2_gen.h"

enum { STR_EMPTY, STR_WORLD, STR_EVEN, STR_ODD, STR_ITER, STR_THREAD, STR_MACHINE, STR_NODE, STR_HOST0, STR_HOST1,
       STR_RANK, STR_MACHINE_CLASS, STR_COUNT };
enum { COMM_WORLD, COMM_EVEN, COMM_ODD };
enum { GROUP_LOCATIONS, GROUP_WORLD, GROUP_EVEN, GROUP_ODD };

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)ud, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

/* The communicator of rank r's parity and r's rank in it (the odd ranks in reverse order). */
static void parity_comm(uint32_t ranks, uint32_t r, uint32_t *comm, uint32_t *rank_in, uint32_t *size)
{
    uint32_t odd_n = ranks / 2, even_n = ranks - odd_n;
    if (r % 2 == 0) {
        *comm = COMM_EVEN, *rank_in = r / 2, *size = even_n;
    } else {
        *comm = COMM_ODD, *rank_in = odd_n - 1 - r / 2, *size = odd_n;
    }
}

/* One iteration of rank r from tick *t. */
static void iteration(OTF2_EvtWriter *w, uint32_t ranks, uint32_t r, uint64_t i, uint64_t *t)
{
    uint32_t right = (r + 1) % ranks, left = (r + ranks - 1) % ranks, comm, me, size;
    uint64_t req = 2 * i;
    OTF2_EvtWriter_Enter(w, NULL, (*t)++, 0);
    OTF2_EvtWriter_MpiIsend(w, NULL, (*t)++, right, COMM_WORLD, 1, 1024 + r, req);
    OTF2_EvtWriter_MpiIrecvRequest(w, NULL, (*t)++, req + 1);
    OTF2_EvtWriter_MpiIrecv(w, NULL, (*t)++, left, COMM_WORLD, 1, 1024 + left, req + 1);
    OTF2_EvtWriter_MpiIsendComplete(w, NULL, (*t)++, req);
    parity_comm(ranks, r, &comm, &me, &size);
    uint32_t partner = me ^ 1u;
    if (partner < size) { /* a lone last member sends to itself */
        OTF2_EvtWriter_MpiSend(w, NULL, (*t)++, partner, comm, 2, 64);
        OTF2_EvtWriter_MpiRecv(w, NULL, (*t)++, partner, comm, 2, 64);
    } else {
        OTF2_EvtWriter_MpiSend(w, NULL, (*t)++, me, comm, 2, 64);
        OTF2_EvtWriter_MpiRecv(w, NULL, (*t)++, me, comm, 2, 64);
    }
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, (*t)++);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, (*t)++, OTF2_COLLECTIVE_OP_ALLREDUCE, COMM_WORLD, OTF2_UNDEFINED_UINT32,
                                    8, 8);
    OTF2_EvtWriter_Enter(w, NULL, (*t)++, 1);
    OTF2_EvtWriter_Leave(w, NULL, (*t)++, 1);
    OTF2_EvtWriter_Leave(w, NULL, (*t)++, 0);
}

static void write_strings(OTF2_GlobalDefWriter *g)
{
    static const char *const text[STR_COUNT] = {"", "MPI_COMM_WORLD", "even ranks", "odd ranks", "iteration",
                                                "Master thread", "cluster", "node", "host0", "host1", "MPI Rank",
                                                "machine"};
    for (uint32_t s = 0; s < STR_COUNT; s++)
        OTF2_GlobalDefWriter_WriteString(g, s, text[s]);
    OTF2_GlobalDefWriter_WriteString(g, STR_COUNT, "MPI_Allreduce");
}

static int write_groups(OTF2_GlobalDefWriter *g, uint32_t ranks)
{
    uint64_t *m = malloc((size_t)ranks * sizeof *m);
    if (!m)
        return -1;
    for (uint32_t r = 0; r < ranks; r++)
        m[r] = r;
    OTF2_GlobalDefWriter_WriteGroup(g, GROUP_LOCATIONS, STR_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, ranks, m);
    OTF2_GlobalDefWriter_WriteGroup(g, GROUP_WORLD, STR_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, ranks, m);
    uint32_t n = 0;
    for (uint32_t r = 0; r < ranks; r += 2)
        m[n++] = r;
    OTF2_GlobalDefWriter_WriteGroup(g, GROUP_EVEN, STR_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, n, m);
    n = 0;
    for (uint32_t r = ranks - 1 - (ranks % 2); r < ranks; r -= 2)
        m[n++] = r;
    OTF2_GlobalDefWriter_WriteGroup(g, GROUP_ODD, STR_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, n, m);
    free(m);
    OTF2_GlobalDefWriter_WriteComm(g, COMM_WORLD, STR_WORLD, GROUP_WORLD, OTF2_UNDEFINED_COMM, 0);
    OTF2_GlobalDefWriter_WriteComm(g, COMM_EVEN, STR_EVEN, GROUP_EVEN, COMM_WORLD, 0);
    OTF2_GlobalDefWriter_WriteComm(g, COMM_ODD, STR_ODD, GROUP_ODD, COMM_WORLD, 0);
    return 0;
}

static int write_definitions(OTF2_Archive *ar, uint32_t ranks, const uint64_t *events, uint64_t ticks)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!g)
        return -1;
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, ticks, OTF2_UNDEFINED_TIMESTAMP);
    write_strings(g);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, STR_MACHINE, STR_MACHINE_CLASS, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1, STR_HOST0, STR_NODE, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 2, STR_HOST1, STR_NODE, 0);
    for (uint32_t r = 0; r < ranks; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, STR_RANK, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                r < ranks / 2 ? 1 : 2, OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, STR_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, events[r], r);
    }
    OTF2_GlobalDefWriter_WriteRegion(g, 0, STR_ITER, STR_ITER, STR_EMPTY, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, STR_EMPTY, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, 1, STR_COUNT, STR_COUNT, STR_EMPTY, OTF2_REGION_ROLE_COLL_ALL2ALL,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, STR_EMPTY, 0, 0);
    return write_groups(g, ranks);
}

/* Every rank's events, rank by rank; the local definitions (empty). */
static int write_events(OTF2_Archive *ar, uint32_t ranks, uint64_t iters, uint64_t *events, uint64_t *ticks)
{
    if (OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS)
        return -1;
    for (uint32_t r = 0; r < ranks; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, r);
        if (!w)
            return -1;
        uint64_t t = r;
        for (uint64_t i = 0; i < iters; i++)
            iteration(w, ranks, r, i, &t);
        OTF2_EvtWriter_GetNumberOfEvents(w, &events[r]);
        *ticks = t > *ticks ? t : *ticks;
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    OTF2_Archive_CloseEvtFiles(ar);
    if (OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS)
        return -1;
    for (uint32_t r = 0; r < ranks; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, r);
        if (dw)
            OTF2_Archive_CloseDefWriter(ar, dw);
    }
    OTF2_Archive_CloseDefFiles(ar);
    return 0;
}

int kc_test_otf2_write(const char *dir, uint32_t ranks, uint64_t iters)
{
    if (ranks < 2)
        return -1;
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        return -1;
    static const OTF2_FlushCallbacks flush = {pre_flush, NULL};
    uint64_t *events = calloc(ranks, sizeof *events), ticks = 0;
    int rc = events && OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL) == OTF2_SUCCESS &&
                     OTF2_Archive_SetSerialCollectiveCallbacks(ar) == OTF2_SUCCESS
                 ? 0
                 : -1;
    if (rc == 0)
        rc = write_events(ar, ranks, iters, events, &ticks);
    if (rc == 0)
        rc = write_definitions(ar, ranks, events, ticks);
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS)
        rc = -1;
    free(events);
    return rc;
}
