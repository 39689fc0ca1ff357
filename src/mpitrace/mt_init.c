/* mpitrace/mt_init.c - the tracer's life: MPI_Init / MPI_Init_thread open
 * the OTF2 archive (directory $KCUBE_TRACE, default ./kcube-trace, anchor
 * traces.otf2) and put every rank on rank 0's clock; MPI_Finalize closes
 * the events, writes the definitions (mt_defs.c) and the archive; and
 * MPI_Pcontrol's regions (level 1 with a name enters region "name", level
 * -1 with a name leaves it: IPM's convention).
 *
 * The tracer never stops the program: when the archive cannot be opened on
 * some rank, every rank agrees (one allreduce) to trace nothing; an error
 * later leaves the trace incomplete and says so on stderr. OTF2's own
 * messages go through the same "kcube-trace:" line. */
#define _GNU_SOURCE
#include "mt.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

/* OTF2's reference collectives over MPI, through PMPI so that they are not traced. */
#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)user, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH; /* full buffers go to disk: memory stays one chunk per writer */
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)type, (void)loc;
    return kci_mt_now();
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

/* OTF2's error messages: one "kcube-trace:" line each instead of its own format. */
static OTF2_ErrorCode otf2_error(void *user, const char *file, uint64_t line, const char *function,
                                 OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user, (void)file, (void)line, (void)function;
    char msg[384];
    vsnprintf(msg, sizeof msg, fmt, va);
    kci_mt_warn("OTF2: %s: %s", OTF2_Error_GetName(code), msg);
    return code;
}

const char *kci_mt_dir(void)
{
    const char *d = getenv("KCUBE_TRACE");
    return d && *d ? d : "kcube-trace";
}

/* Open the archive and this rank's event writer. 0, or -1 (said on stderr). */
static int open_archive(void)
{
    const char *dir = kci_mt_dir();
    kci_mt.archive = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                       OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!kci_mt.archive) {
        kci_mt_warn("cannot open an OTF2 archive in '%s': nothing is traced", dir);
        return -1;
    }
    OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(kci_mt.archive, &flush_callbacks, NULL);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_MPI_Archive_SetCollectiveCallbacks(kci_mt.archive, kci_mt.tcomm, MPI_COMM_NULL);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetCreator(kci_mt.archive, "kcube-trace (libkcube-trace.so)");
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_OpenEvtFiles(kci_mt.archive);
    if (rc == OTF2_SUCCESS) {
        kci_mt.evt = OTF2_Archive_GetEvtWriter(kci_mt.archive, (OTF2_LocationRef)kci_mt.rank);
        if (!kci_mt.evt)
            rc = OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    if (rc != OTF2_SUCCESS) {
        kci_mt_warn("cannot write the OTF2 archive in '%s' (%s): nothing is traced", dir,
                    OTF2_Error_GetDescription(rc));
        return -1;
    }
    return 0;
}

/* Remove the files a previous run's archive left in the directory (the
 * anchor, the global definitions and the traces/ folder of per-rank files
 * "N.evt", "N.def") so that OTF2 can write a new one; nothing else is
 * touched. Rank 0 only. */
static void clear_old_archive(const char *dir)
{
    char path[4096];
    static const char *const files[] = {"traces.otf2", "traces.def"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (unlink(path) && errno != ENOENT)
            kci_mt_warn("cannot remove the old '%s': %s", path, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/traces", dir);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t digits = strspn(e->d_name, "0123456789");
        const char *ext = e->d_name + digits;
        if (digits && (!strcmp(ext, ".evt") || !strcmp(ext, ".def"))) {
            char file[4096 + 300];
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            unlink(file);
        }
    }
    if (d)
        closedir(d);
    rmdir(path);
}

/* Put this rank on rank 0's clock: after a barrier every rank reads its
 * clock and takes rank 0's reading as the same instant (error: the
 * barrier's exit skew, microseconds on one host). */
static void sync_clock(void)
{
    PMPI_Barrier(kci_mt.tcomm);
    uint64_t mine = mono(), zero = mine;
    PMPI_Bcast(&zero, 1, MPI_UINT64_T, 0, kci_mt.tcomm);
    kci_mt.offset = (int64_t)(zero - mine);
}

void kci_mt_start(int region, uint64_t entered, int provided)
{
    kci_mt.threads = provided == MPI_THREAD_MULTIPLE;
    PMPI_Comm_rank(MPI_COMM_WORLD, &kci_mt.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &kci_mt.size);
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &kci_mt.tcomm) != MPI_SUCCESS) {
        kci_mt_warn("cannot duplicate MPI_COMM_WORLD: nothing is traced");
        return; /* every rank fails the same collective call */
    }
    OTF2_Error_RegisterCallback(otf2_error, NULL);
    if (kci_mt.rank == 0) {
        mkdir(kci_mt_dir(), 0777);
        clear_old_archive(kci_mt_dir());
    }
    PMPI_Barrier(kci_mt.tcomm);
    int ok = open_archive() == 0, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, kci_mt.tcomm);
    if (!all) {
        /* The archive is left open: closing it is collective and some rank has none. */
        if (ok && kci_mt.rank == 0)
            kci_mt_warn("another rank could not open the archive: nothing is traced");
        return;
    }
    sync_clock();
    kci_mt.start = (uint64_t)((int64_t)entered + kci_mt.offset);
    kci_mt.last = kci_mt.start;
    kci_mt_comm_new(MPI_COMM_WORLD);
    kci_mt.on = 1;
    kci_mt_check(OTF2_EvtWriter_Enter(kci_mt.evt, NULL, kci_mt.start, (OTF2_RegionRef)region), "writing an event");
    kci_mt_leave((uint32_t)region);
}

int MPI_Init(int *argc, char ***argv)
{
    uint64_t t = mono();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        kci_mt_start(MT_INIT, t, MPI_THREAD_SINGLE);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t = mono();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        kci_mt_start(MT_INIT_THREAD, t, *provided);
    return rc;
}

/* Leave the MPI_Pcontrol regions still open, innermost first. */
static void close_open_regions(void)
{
    if (kci_mt.nopen)
        kci_mt_warn("%zu MPI_Pcontrol region(s) still open at MPI_Finalize: left there", kci_mt.nopen);
    while (kci_mt.nopen)
        kci_mt_leave(MT_NREGIONS + kci_mt.open[--kci_mt.nopen]);
}

/* Free what the tracer holds (after the archive is closed). */
static void free_state(void)
{
    for (size_t i = 0; i < kci_mt.ncomm; i++)
        free(kci_mt.comm[i].member);
    free(kci_mt.comm);
    for (size_t i = 0; i < kci_mt.nuregion; i++)
        free(kci_mt.uregion[i]);
    free(kci_mt.uregion);
    free(kci_mt.open);
    kci_mt_map_free(&kci_mt.comms);
    kci_mt_map_free(&kci_mt.reqs);
    kci_mt.comm = NULL, kci_mt.uregion = NULL, kci_mt.open = NULL;
    kci_mt.ncomm = kci_mt.nuregion = kci_mt.nopen = 0;
}

void kci_mt_finish(void)
{
    close_open_regions();
    kci_mt_enter(MT_FINALIZE);
    kci_mt_leave(MT_FINALIZE);
    kci_mt.on = 0;
    kci_mt.stop = kci_mt.last;
    uint64_t nev = 0;
    kci_mt_check(OTF2_EvtWriter_GetNumberOfEvents(kci_mt.evt, &nev), "counting the events");
    kci_mt_check(OTF2_Archive_CloseEvtWriter(kci_mt.archive, kci_mt.evt), "closing the events");
    kci_mt_check(OTF2_Archive_CloseEvtFiles(kci_mt.archive), "closing the event files");
    kci_mt_write_defs(nev);
    kci_mt_check(OTF2_Archive_Close(kci_mt.archive), "closing the archive");
    int bad = kci_mt.failed, anybad = 0;
    PMPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, kci_mt.tcomm);
    if (kci_mt.rank == 0 && anybad)
        kci_mt_warn("the trace in '%s' is incomplete (see the messages above)", kci_mt_dir());
    PMPI_Comm_free(&kci_mt.tcomm);
    free_state();
}

int MPI_Finalize(void)
{
    if (kci_mt_on())
        kci_mt_finish();
    return PMPI_Finalize();
}

/* The index of MPI_Pcontrol region `name`, added on first use; -1 when memory runs out. */
static long user_region(const char *name)
{
    for (size_t i = 0; i < kci_mt.nuregion; i++)
        if (!strcmp(kci_mt.uregion[i], name))
            return (long)i;
    char *copy = strdup(name);
    if (!copy || kci_mt_reserve(&kci_mt.uregion, &kci_mt.capuregion, kci_mt.nuregion + 1, sizeof(char *))) {
        free(copy);
        return -1;
    }
    kci_mt.uregion[kci_mt.nuregion] = copy;
    return (long)kci_mt.nuregion++;
}

static void pcontrol_enter(const char *name)
{
    kci_mt_lock();
    long i = user_region(name);
    int ok = i >= 0 && !kci_mt_reserve(&kci_mt.open, &kci_mt.capopen, kci_mt.nopen + 1, sizeof *kci_mt.open);
    if (ok)
        kci_mt.open[kci_mt.nopen++] = (uint32_t)i;
    kci_mt_unlock();
    if (ok)
        kci_mt_enter(MT_NREGIONS + (uint32_t)i);
    else
        kci_mt_warn("out of memory recording region '%.100s': not recorded", name);
}

static void pcontrol_leave(const char *name)
{
    kci_mt_lock();
    int ok = kci_mt.nopen && !strcmp(kci_mt.uregion[kci_mt.open[kci_mt.nopen - 1]], name);
    uint32_t r = ok ? kci_mt.open[--kci_mt.nopen] : 0;
    kci_mt_unlock();
    if (ok)
        kci_mt_leave(MT_NREGIONS + r);
    else
        kci_mt_warn("MPI_Pcontrol(-1, \"%.100s\") does not leave the innermost region entered: ignored", name);
}

int MPI_Pcontrol(const int level, ...)
{
    if (kci_mt_on() && (level == 1 || level == -1)) {
        va_list ap;
        va_start(ap, level);
        const char *name = va_arg(ap, const char *);
        va_end(ap);
        if (name && level == 1)
            pcontrol_enter(name);
        else if (name)
            pcontrol_leave(name);
    }
    return PMPI_Pcontrol(level);
}
