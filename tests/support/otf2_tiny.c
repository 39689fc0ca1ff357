/* otf2_tiny.c - the smallest OTF2 archive worth reading (otf2_tiny.h),
 * written with the OTF2 writer API, for tests that need a trace without
 * python3-otf2. */
#include "otf2_tiny.h"

#include <otf2/otf2.h>

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *data, bool final)
{
    (void)user, (void)type, (void)loc, (void)data, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)type, (void)loc;
    return 0;
}

/* Rank r's events: the region "solver" around a send to the other rank
 * (rank 0) or the receive of it (rank 1), then an allreduce. */
static int events(OTF2_Archive *ar, uint64_t r)
{
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, r);
    if (!w)
        return -1;
    int bad = OTF2_EvtWriter_Enter(w, NULL, 100, 0) != OTF2_SUCCESS;
    if (r == 0)
        bad |= OTF2_EvtWriter_MpiSend(w, NULL, 200, 1, 0, 7, KC_TEST_OTF2_BYTES) != OTF2_SUCCESS;
    else
        bad |= OTF2_EvtWriter_MpiRecv(w, NULL, 300, 0, 0, 7, KC_TEST_OTF2_BYTES) != OTF2_SUCCESS;
    bad |= OTF2_EvtWriter_Leave(w, NULL, 400, 0) != OTF2_SUCCESS;
    bad |= OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 500) != OTF2_SUCCESS;
    bad |= OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 600, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, OTF2_UNDEFINED_UINT32, 16,
                                           16) != OTF2_SUCCESS;
    return OTF2_Archive_CloseEvtWriter(ar, w) != OTF2_SUCCESS || bad ? -1 : 0;
}

/* Strings 0..7, one host, two processes and threads, the MPI groups and
 * MPI_COMM_WORLD, the region "solver". */
static int definitions(OTF2_Archive *ar)
{
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(ar);
    static const char *const str[] = {"", "solver", "host0", "node", "MPI Rank 0", "MPI Rank 1", "thread", "MPI_COMM_WORLD"};
    const uint64_t members[2] = {0, 1};
    int bad = !d || OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, 0, 700, OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t s = 0; s < 8; s++)
        bad |= OTF2_GlobalDefWriter_WriteString(d, s, str[s]) != OTF2_SUCCESS;
    bad |= OTF2_GlobalDefWriter_WriteRegion(d, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                            OTF2_REGION_FLAG_NONE, 0, 0, 0) != OTF2_SUCCESS;
    bad |= OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 2, 3, OTF2_UNDEFINED_SYSTEM_TREE_NODE) != OTF2_SUCCESS;
    for (uint64_t r = 0; r < 2; r++) {
        bad |= OTF2_GlobalDefWriter_WriteLocationGroup(d, (uint32_t)r, 4 + (uint32_t)r, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                       0, OTF2_UNDEFINED_LOCATION_GROUP) != OTF2_SUCCESS;
        bad |= OTF2_GlobalDefWriter_WriteLocation(d, r, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 5, (uint32_t)r) != OTF2_SUCCESS;
    }
    bad |= OTF2_GlobalDefWriter_WriteGroup(d, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, 2, members) != OTF2_SUCCESS;
    bad |= OTF2_GlobalDefWriter_WriteGroup(d, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, 2, members) != OTF2_SUCCESS;
    bad |= OTF2_GlobalDefWriter_WriteComm(d, 0, 7, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE) != OTF2_SUCCESS;
    return bad ? -1 : 0;
}

int kc_test_otf2_tiny(const char *dir)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar)
        return -1;
    OTF2_FlushCallbacks flush = {pre_flush, post_flush};
    int bad = OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL) != OTF2_SUCCESS ||
              OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS ||
              OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS;
    for (uint64_t r = 0; r < 2 && !bad; r++)
        bad = events(ar, r);
    bad = bad || OTF2_Archive_CloseEvtFiles(ar) != OTF2_SUCCESS || OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS;
    for (uint64_t r = 0; r < 2 && !bad; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, r);
        bad = !dw || OTF2_Archive_CloseDefWriter(ar, dw) != OTF2_SUCCESS;
    }
    bad = bad || OTF2_Archive_CloseDefFiles(ar) != OTF2_SUCCESS || definitions(ar);
    return OTF2_Archive_Close(ar) != OTF2_SUCCESS || bad ? -1 : 0;
}
