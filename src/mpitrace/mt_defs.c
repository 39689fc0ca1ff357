/* mpitrace/mt_defs.c - the archive's definitions, written at MPI_Finalize.
 *
 * Each rank's events name communicators and MPI_Pcontrol regions by local
 * ids (its own creation / first-use order). Here every rank sends rank 0
 * what those ids stand for: per communicator a 64-bit hash of its member
 * list (world ranks in communicator order), its size, its ordinal among
 * this rank's communicators with the same members, and the list itself
 * when this rank is the communicator's rank 0 (or met it first in use, so
 * no other rank may send it); per region its name; and the rank's host,
 * event count and first and last timestamps. Rank 0 gives each distinct
 * (members, ordinal) and each distinct region name a global id, sends each
 * rank its local -> global tables, which the rank writes as OTF2 mapping
 * tables (readers apply them to its events), and writes the global
 * definitions: clock, strings, regions, system tree (one node per distinct
 * MPI_Get_processor_name), location groups and locations (one per rank),
 * the MPI COMM_LOCATIONS group, and a COMM_GROUP group and a Comm per
 * communicator. Cost: O(sum over ranks of their communicators' sizes)
 * bytes at rank 0, not ranks x world size. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mt.h"

/* A byte buffer that only grows; `bad` once memory ran out. */
typedef struct mt_buf {
    unsigned char *p;
    size_t n, cap;
    int bad;
} mt_buf;

static void put(mt_buf *b, const void *d, size_t n)
{
    if (b->bad || kci_mt_reserve(&b->p, &b->cap, b->n + n, 1)) {
        b->bad = 1;
        return;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put64(mt_buf *b, uint64_t v) { put(b, &v, sizeof v); }

/* Reading a received record; reads past its end give zeros. */
typedef struct mt_rd {
    const unsigned char *p;
    size_t n, at;
} mt_rd;

static uint64_t get64(mt_rd *r)
{
    uint64_t v = 0;
    if (r->at + sizeof v <= r->n)
        memcpy(&v, r->p + r->at, sizeof v);
    r->at += sizeof v;
    return v;
}

static uint64_t hash_members(const mt_comm *c)
{
    uint64_t h = 1469598103934665603ULL ^ c->size; /* FNV-1a over the member list */
    for (uint32_t i = 0; i < c->size; i++) {
        h ^= c->member[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* How many of this rank's communicators before `i` have comm i's members. */
static uint64_t ordinal(size_t i)
{
    const mt_comm *c = &kci_mt.comm[i];
    uint64_t k = 0;
    for (size_t j = 0; j < i; j++)
        k += kci_mt.comm[j].size == c->size && !memcmp(kci_mt.comm[j].member, c->member, c->size * sizeof *c->member);
    return k;
}

/* This rank's record for rank 0 (layout: see read_record). */
static void build_record(mt_buf *b, uint64_t nev)
{
    char host[MPI_MAX_PROCESSOR_NAME + 1] = {0};
    int len = 0;
    if (PMPI_Get_processor_name(host, &len) != MPI_SUCCESS || len <= 0)
        len = (int)strlen(strcpy(host, "unknown"));
    put64(b, nev), put64(b, kci_mt.start), put64(b, kci_mt.stop);
    put64(b, (uint64_t)len), put(b, host, (size_t)len);
    put64(b, kci_mt.ncomm);
    for (size_t i = 0; i < kci_mt.ncomm; i++) {
        const mt_comm *c = &kci_mt.comm[i];
        int list = c->kind == 3 || c->member[0] == (uint32_t)kci_mt.rank;
        put64(b, hash_members(c)), put64(b, c->size), put64(b, ordinal(i)), put64(b, c->kind);
        put64(b, (uint64_t)list);
        if (list)
            put(b, c->member, c->size * sizeof *c->member);
    }
    put64(b, kci_mt.nuregion);
    for (size_t i = 0; i < kci_mt.nuregion; i++) {
        size_t n = strlen(kci_mt.uregion[i]);
        put64(b, n), put(b, kci_mt.uregion[i], n);
    }
}

/* ---- rank 0: the global tables ---- */

typedef struct g_comm {
    uint64_t hash, ordinal;
    uint32_t size, kind;
    uint32_t *member; /* NULL until some rank sends the list */
} g_comm;

typedef struct g_rank {
    uint64_t nev, start, stop;
    uint32_t node;
} g_rank;

typedef struct g_defs {
    g_comm *comm;
    size_t ncomm, capcomm;
    mt_map comm_of; /* (hash, size, ordinal) -> a: index in comm */
    char **region;  /* MPI_Pcontrol names; global region MT_NREGIONS + i */
    size_t nregion, capregion;
    char **node;    /* distinct host names */
    size_t nnode, capnode;
    g_rank *rank;
    uint32_t *map;  /* every rank's mappings, rank by rank: comms, then its Pcontrol regions */
    size_t nmap, capmap;
    int bad;
} g_defs;

static uint64_t comm_key(uint64_t hash, uint64_t size, uint64_t ord)
{
    uint64_t k = hash ^ (size * 0x9e3779b97f4a7c15ULL) ^ (ord * 0xc2b2ae3d27d4eb4fULL);
    return k ? k : 1;
}

/* The global id of one communicator of a record; members copied when sent. */
static uint32_t global_comm(g_defs *g, mt_rd *r)
{
    uint64_t hash = get64(r), size = get64(r), ord = get64(r), kind = get64(r), list = get64(r);
    const unsigned char *m = r->p + r->at;
    if (list)
        r->at += size * sizeof(uint32_t);
    if (r->at > r->n || size == 0 || size > (uint64_t)kci_mt.size) {
        g->bad = 1;
        return 0;
    }
    mt_slot *s = kci_mt_map_put(&g->comm_of, comm_key(hash, size, ord));
    if (!s || (!s->b && kci_mt_reserve(&g->comm, &g->capcomm, g->ncomm + 1, sizeof *g->comm))) {
        g->bad = 1;
        return 0;
    }
    if (!s->b) { /* b: 1 + index, so that a fresh slot (b = 0) is told apart */
        g->comm[g->ncomm] = (g_comm){.hash = hash, .ordinal = ord, .size = (uint32_t)size, .kind = (uint32_t)kind};
        s->b = (uint32_t)++g->ncomm;
    }
    g_comm *c = &g->comm[s->b - 1];
    if (list && !c->member) {
        c->member = malloc(size * sizeof *c->member);
        if (c->member)
            memcpy(c->member, m, size * sizeof *c->member);
        else
            g->bad = 1;
    }
    return s->b - 1;
}

/* The index of `name` (n bytes) in the list, added when new; -1 on memory failure. */
static long intern(char ***list, size_t *n, size_t *cap, const void *name, size_t len)
{
    for (size_t i = 0; i < *n; i++)
        if (strlen((*list)[i]) == len && !memcmp((*list)[i], name, len))
            return (long)i;
    char *s = malloc(len + 1);
    if (!s || kci_mt_reserve(list, cap, *n + 1, sizeof(char *))) {
        free(s);
        return -1;
    }
    memcpy(s, name, len);
    s[len] = 0;
    (*list)[*n] = s;
    return (long)(*n)++;
}

static void push_map(g_defs *g, uint32_t v)
{
    if (kci_mt_reserve(&g->map, &g->capmap, g->nmap + 1, sizeof *g->map))
        g->bad = 1;
    else
        g->map[g->nmap++] = v;
}

/* Record layout: nev, start, stop, host length, host; communicators
 * (count, then per communicator hash, size, ordinal, kind, has-list, the
 * list); Pcontrol regions (count, then length and bytes each). */
static void read_record(g_defs *g, int rank, mt_rd *r)
{
    g_rank *gr = &g->rank[rank];
    gr->nev = get64(r), gr->start = get64(r), gr->stop = get64(r);
    uint64_t len = get64(r);
    long node = r->at + len <= r->n ? intern(&g->node, &g->nnode, &g->capnode, r->p + r->at, len) : -1;
    r->at += len;
    if (node < 0)
        g->bad = 1;
    gr->node = node < 0 ? 0 : (uint32_t)node;
    uint64_t nc = get64(r);
    for (uint64_t i = 0; i < nc && !g->bad; i++)
        push_map(g, global_comm(g, r));
    uint64_t nr = get64(r);
    for (uint64_t i = 0; i < nr && !g->bad; i++) {
        len = get64(r);
        long k = r->at + len <= r->n ? intern(&g->region, &g->nregion, &g->capregion, r->p + r->at, len) : -1;
        r->at += len;
        if (k < 0)
            g->bad = 1;
        push_map(g, MT_NREGIONS + (uint32_t)(k < 0 ? 0 : k));
    }
}

static void free_defs(g_defs *g)
{
    for (size_t i = 0; i < g->ncomm; i++)
        free(g->comm[i].member);
    for (size_t i = 0; i < g->nregion; i++)
        free(g->region[i]);
    for (size_t i = 0; i < g->nnode; i++)
        free(g->node[i]);
    free(g->comm), free(g->region), free(g->node), free(g->rank), free(g->map);
    kci_mt_map_free(&g->comm_of);
}

/* ---- rank 0: writing the global definitions ---- */

typedef struct g_writer {
    OTF2_GlobalDefWriter *w;
    uint32_t nstr;
    OTF2_ErrorCode rc;
} g_writer;

static OTF2_StringRef str(g_writer *w, const char *s)
{
    if (w->rc == OTF2_SUCCESS)
        w->rc = OTF2_GlobalDefWriter_WriteString(w->w, w->nstr, s);
    return w->nstr++;
}

static void write_regions(g_writer *w, const g_defs *g)
{
    OTF2_StringRef empty = str(w, "");
    for (uint32_t r = 0; r < MT_NREGIONS + g->nregion && w->rc == OTF2_SUCCESS; r++) {
        const char *name = r < MT_NREGIONS ? kci_mt_region_name(r) : g->region[r - MT_NREGIONS];
        OTF2_StringRef s = str(w, name);
        w->rc = OTF2_GlobalDefWriter_WriteRegion(w->w, r, s, s, empty, kci_mt_region_role(r),
                                                 r < MT_NREGIONS ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                                 OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
}

/* System tree (machine -> nodes), one location group and one location per rank. */
static void write_locations(g_writer *w, const g_defs *g)
{
    OTF2_StringRef machine = str(w, "machine"), node_class = str(w, "node");
    if (w->rc == OTF2_SUCCESS)
        w->rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(w->w, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (size_t i = 0; i < g->nnode && w->rc == OTF2_SUCCESS; i++)
        w->rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(w->w, (uint32_t)i + 1, str(w, g->node[i]), node_class, 0);
    OTF2_StringRef thread = str(w, "Master thread");
    char name[64];
    for (int r = 0; r < kci_mt.size && w->rc == OTF2_SUCCESS; r++) {
        snprintf(name, sizeof name, "MPI Rank %d", r);
        w->rc = OTF2_GlobalDefWriter_WriteLocationGroup(w->w, (uint32_t)r, str(w, name),
                                                        OTF2_LOCATION_GROUP_TYPE_PROCESS, g->rank[r].node + 1,
                                                        OTF2_UNDEFINED_LOCATION_GROUP);
        if (w->rc == OTF2_SUCCESS)
            w->rc = OTF2_GlobalDefWriter_WriteLocation(w->w, (uint64_t)r, thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                       g->rank[r].nev, (uint32_t)r);
    }
}

/* Group 0: the MPI locations (world rank i = location i); group 1 + c and
 * Comm c per communicator. */
static void write_comms(g_writer *w, const g_defs *g)
{
    size_t p = (size_t)kci_mt.size, most = p;
    uint64_t *m = malloc(most * sizeof *m);
    if (!m) {
        w->rc = OTF2_ERROR_MEM_ALLOC_FAILED;
        return;
    }
    for (size_t i = 0; i < p; i++)
        m[i] = i;
    OTF2_StringRef empty = str(w, "");
    if (w->rc == OTF2_SUCCESS)
        w->rc = OTF2_GlobalDefWriter_WriteGroup(w->w, 0, str(w, "MPI"), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                                OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)p, m);
    char name[64];
    for (size_t c = 0; c < g->ncomm && w->rc == OTF2_SUCCESS; c++) {
        const g_comm *gc = &g->comm[c];
        for (uint32_t i = 0; i < gc->size; i++)
            m[i] = gc->member ? gc->member[i] : i; /* always sent: see build_record */
        if (gc->kind == 0 || gc->kind == 1)
            snprintf(name, sizeof name, "%s", gc->kind ? "MPI_COMM_SELF" : "MPI_COMM_WORLD");
        else
            snprintf(name, sizeof name, "comm %zu", c);
        w->rc = OTF2_GlobalDefWriter_WriteGroup(w->w, (uint32_t)c + 1, empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, gc->size, m);
        if (w->rc == OTF2_SUCCESS)
            w->rc = OTF2_GlobalDefWriter_WriteComm(w->w, (uint32_t)c, str(w, name), (uint32_t)c + 1,
                                                   OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    }
    free(m);
}

static void write_global(const g_defs *g)
{
    g_writer w = {.w = OTF2_Archive_GetGlobalDefWriter(kci_mt.archive)};
    if (!w.w) {
        kci_mt_check(OTF2_ERROR_MEM_ALLOC_FAILED, "opening the global definitions");
        return;
    }
    uint64_t first = UINT64_MAX, last = 0;
    for (int r = 0; r < kci_mt.size; r++) {
        first = g->rank[r].start < first ? g->rank[r].start : first;
        last = g->rank[r].stop > last ? g->rank[r].stop : last;
    }
    /* The wall-clock time of `first`: rank 0's clock is the trace's clock. */
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    uint64_t now = kci_mt_now(), real = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
    w.rc = OTF2_GlobalDefWriter_WriteClockProperties(w.w, 1000000000u, first, last - first, real - (now - first));
    write_regions(&w, g);
    write_locations(&w, g);
    write_comms(&w, g);
    kci_mt_check(w.rc, "writing the global definitions");
    kci_mt_check(OTF2_Archive_CloseGlobalDefWriter(kci_mt.archive, w.w), "closing the global definitions");
}

/* ---- every rank ---- */

/* Rank 0 reads every record; *out receives the mapping counts and displacements. */
static int unify(g_defs *g, const unsigned char *all, const int *len, const int *at, int *cnt, int *dsp)
{
    g->rank = calloc((size_t)kci_mt.size, sizeof *g->rank);
    if (!g->rank)
        return -1;
    for (int r = 0; r < kci_mt.size && !g->bad; r++) {
        mt_rd rd = {all + at[r], (size_t)len[r], 0};
        size_t before = g->nmap;
        if (!len[r]) /* a rank that could not build its record */
            g->bad = 1;
        read_record(g, r, &rd);
        if (rd.at > rd.n || g->nmap - before > INT_MAX || before > INT_MAX)
            g->bad = 1;
        cnt[r] = (int)(g->nmap - before);
        dsp[r] = (int)before;
    }
    return g->bad ? -1 : 0;
}

/* Gather the records at rank 0 and unify them (ok agreed by broadcast);
 * each rank's mappings land in mine (ncomm + nuregion entries). */
static int exchange(const mt_buf *b, uint32_t *mine, int nmine, g_defs *g)
{
    int p = kci_mt.size, me = kci_mt.rank, len = (int)b->n, ok = 1;
    int *lens = NULL, *at = NULL, *cnt = NULL, *dsp = NULL;
    unsigned char *all = NULL;
    if (me == 0) {
        lens = calloc((size_t)p, sizeof *lens), at = calloc((size_t)p, sizeof *at);
        cnt = calloc((size_t)p, sizeof *cnt), dsp = calloc((size_t)p, sizeof *dsp);
        ok = lens && at && cnt && dsp;
    }
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, kci_mt.tcomm);
    size_t total = 0;
    for (int r = 0; me == 0 && ok && r < p; r++) {
        at[r] = (int)total;
        total += (size_t)lens[r];
        ok = total <= INT_MAX;
    }
    if (me == 0 && ok)
        ok = (all = malloc(total ? total : 1)) != NULL;
    PMPI_Bcast(&ok, 1, MPI_INT, 0, kci_mt.tcomm);
    if (ok) {
        PMPI_Gatherv(b->p, len, MPI_BYTE, all, lens, at, MPI_BYTE, 0, kci_mt.tcomm);
        if (me == 0)
            ok = unify(g, all, lens, at, cnt, dsp) == 0;
        PMPI_Bcast(&ok, 1, MPI_INT, 0, kci_mt.tcomm);
    }
    if (ok)
        PMPI_Scatterv(g->map, cnt, dsp, MPI_UINT32_T, mine, nmine, MPI_UINT32_T, 0, kci_mt.tcomm);
    free(lens), free(at), free(cnt), free(dsp), free(all);
    return ok ? 0 : -1;
}

/* One mapping table local id i -> v[i] (none when it is the identity). */
static void write_table(OTF2_DefWriter *dw, OTF2_MappingType type, const uint64_t *v, size_t n)
{
    size_t moved = 0;
    for (size_t i = 0; i < n; i++)
        moved += v[i] != i;
    if (!moved)
        return;
    OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array(n, v, true);
    kci_mt_check(m ? OTF2_DefWriter_WriteMappingTable(dw, type, m) : OTF2_ERROR_MEM_ALLOC_FAILED,
                 "writing a mapping table");
    if (m)
        OTF2_IdMap_Free(m);
}

/* This rank's mapping tables (communicators, regions) into its local definitions. */
static void write_mappings(const uint32_t *mine)
{
    size_t nc = kci_mt.ncomm, nr = MT_NREGIONS + kci_mt.nuregion;
    uint64_t *v = malloc((nc > nr ? nc : nr) * sizeof *v);
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(kci_mt.archive, (OTF2_LocationRef)kci_mt.rank);
    if (!v || !dw) {
        kci_mt_check(OTF2_ERROR_MEM_ALLOC_FAILED, "writing the mapping tables");
    } else {
        for (size_t i = 0; i < nc; i++)
            v[i] = mine[i];
        write_table(dw, OTF2_MAPPING_COMM, v, nc);
        for (size_t i = 0; i < nr; i++)
            v[i] = i < MT_NREGIONS ? i : mine[nc + i - MT_NREGIONS];
        write_table(dw, OTF2_MAPPING_REGION, v, nr);
    }
    if (dw)
        kci_mt_check(OTF2_Archive_CloseDefWriter(kci_mt.archive, dw), "closing the local definitions");
    free(v);
}

void kci_mt_write_defs(uint64_t nevents)
{
    mt_buf b = {0};
    build_record(&b, nevents);
    size_t nmine = kci_mt.ncomm + kci_mt.nuregion;
    uint32_t *mine = calloc(nmine ? nmine : 1, sizeof *mine);
    if (b.bad || !mine) {
        kci_mt_warn("out of memory preparing the definitions");
        kci_mt.failed = 1;
        b.n = 0; /* an empty record: rank 0 refuses it and every rank skips the mappings */
    }
    g_defs g = {0};
    int ok = exchange(&b, mine, (int)nmine, &g) == 0;
    if (!ok && kci_mt.rank == 0)
        kci_mt_warn("cannot unify the ranks' definitions (memory): communicators and regions are wrong");
    if (!ok)
        kci_mt.failed = 1;
    kci_mt_check(OTF2_Archive_OpenDefFiles(kci_mt.archive), "opening the definition files");
    if (ok)
        write_mappings(mine);
    kci_mt_check(OTF2_Archive_CloseDefFiles(kci_mt.archive), "closing the definition files");
    if (kci_mt.rank == 0 && ok)
        write_global(&g);
    free_defs(&g);
    free(mine);
    free(b.p);
}
