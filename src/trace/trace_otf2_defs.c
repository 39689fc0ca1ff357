/* trace_otf2_defs.c - an OTF2 archive's global definitions, the part of an
 * archive that says who is who: the strings, the system tree (hosts), the
 * processes and threads (location groups, locations), the code regions, the
 * groups and the communicators, and the clock. Read once through OTF2's
 * global definition reader into plain tables, then indexed by reference, so
 * that the sizes (kc_trace_size_otf2) need nothing more and the event reader
 * (trace_otf2.c) finds a communicator or a region per event in O(1).
 *
 * Also here: finding the anchor file (kc_trace_is_otf2) and opening the
 * archive with OTF2's error printing silenced (library code never prints). */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/grow.h"
#include "core/size.h"
#include "core/sort.h"
#include "trace_internal.h"

#define PARAM "trace"

static kc_status nomem(const kci_otf2_defs *d, kc_err *err)
{
    return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory reading the definitions of %s", d->name);
}

/* ---- the anchor file ---- */

static int ends_with_otf2(const char *s)
{
    size_t n = strlen(s);
    return n > 5 && strcmp(s + n - 5, ".otf2") == 0;
}

static int is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join(const char *dir, const char *file)
{
    size_t a = strlen(dir), b = strlen(file);
    while (a > 1 && dir[a - 1] == '/')
        a--; /* "dir/" and "x.otf2" make "dir/x.otf2" */
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, file, b + 1);
    }
    return p;
}

/* The one *.otf2 regular file at the top of directory `dir`: 1 and
 * *anchor, 0 (none or several), -1 out of memory. */
static int dir_anchor(const char *dir, char **anchor)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    int found = 0, oom = 0;
    char *first = NULL;
    struct dirent *de;
    while (!oom && found < 2 && (de = readdir(dp)) != NULL) {
        if (!ends_with_otf2(de->d_name))
            continue;
        char *p = join(dir, de->d_name);
        if (!p)
            oom = 1;
        else if (is_regular(p) && ++found == 1)
            first = p;
        else
            free(p);
    }
    closedir(dp);
    if (oom || found != 1) {
        free(first);
        return oom ? -1 : 0;
    }
    *anchor = first;
    return 1;
}

/* kc_trace_is_otf2 with out-of-memory told apart (-1). */
static int find_anchor(const char *path, char **anchor)
{
    struct stat st;
    *anchor = NULL;
    if (!path || stat(path, &st) != 0)
        return 0;
    if (S_ISREG(st.st_mode)) {
        if (!ends_with_otf2(path))
            return 0;
        return (*anchor = strdup(path)) ? 1 : -1;
    }
    return S_ISDIR(st.st_mode) ? dir_anchor(path, anchor) : 0;
}

int kc_trace_is_otf2(const char *path, char **anchor)
{
    char *a = NULL;
    int yes = find_anchor(path, &a) == 1;
    if (anchor)
        *anchor = a;
    else
        free(a);
    return yes;
}

/* OTF2 reports errors through one process-wide handler that prints by
 * default; this one keeps quiet (the caller turns the returned code into a
 * kc_err). Registering the same function again is harmless, so there is no
 * state of kcube's own. */
static OTF2_ErrorCode silent(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                             const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)fn, (void)fmt, (void)va;
    return code;
}

/* Does the anchor file start as OTF2's do (the word "OTF2" in its first
 * bytes, after the header's length and byte-order marks)? OTF2_Reader_Open
 * on anything else fails, and leaks its partly opened archive. */
static int anchor_looks_right(const char *anchor)
{
    unsigned char head[16];
    FILE *f = fopen(anchor, "rb");
    if (!f)
        return 0;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(head + i, "OTF2", 4) == 0)
            return 1;
    return 0;
}

kc_status kci_otf2_open(const char *path, char **anchor, char **name, OTF2_Reader **reader, kc_err *err)
{
    *anchor = *name = NULL;
    *reader = NULL;
    int found = find_anchor(path, anchor);
    if (found <= 0)
        return found < 0 ? kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory opening a trace")
                         : kc_fail_param(err, KC_EINVAL, PARAM,
                                         "'%s' is not an OTF2 archive (an anchor file *.otf2, or a directory "
                                         "holding exactly one)",
                                         path ? path : "");
    size_t n = strlen(*anchor) + 16;
    if (!(*name = malloc(n))) {
        free(*anchor);
        *anchor = NULL;
        return kc_fail_param(err, KC_ENOMEM, PARAM, "out of memory opening a trace");
    }
    snprintf(*name, n, "trace '%s'", *anchor);
    OTF2_Error_RegisterCallback(silent, NULL);
    *reader = anchor_looks_right(*anchor) ? OTF2_Reader_Open(*anchor) : NULL;
    if (!*reader || OTF2_Reader_SetSerialCollectiveCallbacks(*reader) != OTF2_SUCCESS) {
        kc_fail_param(err, KC_EINVAL, PARAM, "%s: cannot be opened as an OTF2 archive", *name);
        if (*reader)
            OTF2_Reader_Close(*reader);
        *reader = NULL;
        free(*anchor);
        free(*name);
        *anchor = *name = NULL;
        return KC_EINVAL;
    }
    return KC_OK;
}

/* ---- the callbacks: one row per definition ---- */

/* Record the first error; OTF2 stops reading when a callback interrupts. */
static OTF2_CallbackCode stop(kci_otf2_defs *d, kc_status s)
{
    if (d->status == KC_OK)
        d->status = s;
    return OTF2_CALLBACK_INTERRUPT;
}

#define ROW(d, table, n, cap, first)                                                                          \
    do {                                                                                                      \
        if (KCI_RESERVE((d)->table, (d)->cap, (d)->n + 1, (first)))                                           \
            return stop((d), nomem((d), (d)->err));                                                           \
    } while (0)

static OTF2_CallbackCode on_clock(void *ud, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
    kci_otf2_defs *d = ud;
    (void)length, (void)realtime;
    d->resolution = resolution;
    d->offset = offset;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    kci_otf2_defs *d = ud;
    ROW(d, str, nstr, cap_str, 64);
    char *copy = strdup(s ? s : "");
    if (!copy)
        return stop(d, nomem(d, d->err));
    d->str[d->nstr++] = (kci_otf2_string){self, copy};
    d->string_bytes += strlen(copy) + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_node(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef klass,
                                 OTF2_SystemTreeNodeRef parent)
{
    kci_otf2_defs *d = ud;
    ROW(d, node, nnode, cap_node, 16);
    d->node[d->nnode++] = (kci_otf2_node){self, name, klass, parent};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_lgroup(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                   OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                   OTF2_LocationGroupRef creator)
{
    kci_otf2_defs *d = ud;
    (void)creator;
    ROW(d, lgroup, nlgroup, cap_lgroup, 16);
    d->lgroup[d->nlgroup++] = (kci_otf2_lgroup){self, name, parent, type};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    kci_otf2_defs *d = ud;
    ROW(d, loc, nloc, cap_loc, 16);
    d->loc[d->nloc++] = (kci_otf2_loc){self, events, name, group, KC_TRACE_NO_RANK, 0, type};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                   OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    kci_otf2_defs *d = ud;
    (void)canonical, (void)description, (void)role, (void)paradigm, (void)flags, (void)file, (void)begin, (void)end;
    ROW(d, region, nregion, cap_region, 64);
    d->region[d->nregion++] = (kci_otf2_region){self, name};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                  OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    kci_otf2_defs *d = ud;
    ROW(d, group, ngroup, cap_group, 16);
    uint64_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy)
        return stop(d, nomem(d, d->err));
    if (n)
        memcpy(copy, members, n * sizeof *copy);
    d->group[d->ngroup++] = (kci_otf2_group){self, name, n, flags, type, paradigm, copy};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                 OTF2_CommRef parent, OTF2_CommFlag flags)
{
    kci_otf2_defs *d = ud;
    (void)parent, (void)flags;
    ROW(d, comm, ncomm, cap_comm, 16);
    d->comm[d->ncomm++] = (kci_otf2_comm){self, name, group, 0};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_intercomm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef a,
                                      OTF2_GroupRef b, OTF2_CommRef common, OTF2_CommFlag flags)
{
    kci_otf2_defs *d = ud;
    (void)a, (void)b, (void)common, (void)flags;
    ROW(d, comm, ncomm, cap_comm, 16);
    d->comm[d->ncomm++] = (kci_otf2_comm){self, name, KCI_OTF2_NONE, 1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_GlobalDefReaderCallbacks *def_callbacks(void)
{
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, on_intercomm);
    return cb;
}

/* ---- maps by reference ---- */

uint32_t kci_refmap_find(const kci_refmap *m, uint32_t ref)
{
    if (m->slot)
        return ref < m->size ? m->slot[ref] : KCI_OTF2_NONE;
    size_t lo = 0, hi = m->size;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t r = (uint32_t)(m->keys[mid] >> 32);
        if (r == ref)
            return (uint32_t)m->keys[mid];
        if (r < ref)
            lo = mid + 1;
        else
            hi = mid;
    }
    return KCI_OTF2_NONE;
}

/* The reference of entry i of a table whose rows start with a uint32_t ref. */
static uint32_t ref_at(const void *base, size_t stride, size_t i)
{
    uint32_t r;
    memcpy(&r, (const unsigned char *)base + i * stride, sizeof r);
    return r;
}

static kc_status dense_map(kci_refmap *m, const void *base, size_t n, size_t stride, uint32_t top, const char *what,
                           kci_otf2_defs *d, kc_err *err)
{
    m->size = (size_t)top + 1;
    if (!(m->slot = malloc(m->size * sizeof *m->slot)))
        return nomem(d, err);
    memset(m->slot, 0xff, m->size * sizeof *m->slot);
    for (size_t i = 0; i < n; i++) {
        uint32_t r = ref_at(base, stride, i);
        if (m->slot[r] != KCI_OTF2_NONE)
            return kc_fail_param(err, KC_EINVAL, PARAM, "%s: %s %u is defined twice", d->name, what, r);
        m->slot[r] = (uint32_t)i;
    }
    return KC_OK;
}

static kc_status sparse_map(kci_refmap *m, const void *base, size_t n, size_t stride, const char *what,
                            kci_otf2_defs *d, kc_err *err)
{
    uint64_t *scratch = malloc(n * sizeof *scratch);
    m->keys = malloc(n * sizeof *m->keys);
    m->size = n;
    if (!scratch || !m->keys) {
        free(scratch);
        return nomem(d, err);
    }
    for (size_t i = 0; i < n; i++)
        m->keys[i] = (uint64_t)ref_at(base, stride, i) << 32 | i;
    kci_sort_u64(m->keys, n, scratch, UINT64_MAX);
    free(scratch);
    for (size_t i = 1; i < n; i++)
        if (m->keys[i] >> 32 == m->keys[i - 1] >> 32)
            return kc_fail_param(err, KC_EINVAL, PARAM, "%s: %s %u is defined twice", d->name, what,
                                 (unsigned)(m->keys[i] >> 32));
    return KC_OK;
}

/* Dense when the largest reference is below 4 entries per row (+4096). */
static kc_status build_map(kci_refmap *m, const void *base, size_t n, size_t stride, const char *what,
                           kci_otf2_defs *d, kc_err *err)
{
    uint32_t top = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = ref_at(base, stride, i);
        top = r > top ? r : top;
    }
    if ((uint64_t)top < 4 * (uint64_t)n + 4096)
        return dense_map(m, base, n, stride, top, what, d, err);
    return sparse_map(m, base, n, stride, what, d, err);
}

static void free_map(kci_refmap *m)
{
    free(m->slot);
    free(m->keys);
    memset(m, 0, sizeof *m);
}

static inline uint64_t loc_key(const kci_otf2_loc *l, const void *ctx)
{
    (void)ctx;
    return l->id;
}

KCI_RADIX_SORT_DEFINE(sort_locs, kci_otf2_loc, loc_key, 32)

const kci_otf2_loc *kci_otf2_loc_find(const kci_otf2_defs *d, uint64_t id)
{
    size_t lo = 0, hi = d->nloc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->loc[mid].id == id)
            return &d->loc[mid];
        if (d->loc[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *kci_otf2_str(const kci_otf2_defs *d, uint32_t ref)
{
    uint32_t i = kci_refmap_find(&d->str_map, ref);
    return i == KCI_OTF2_NONE ? "" : d->str[i].s;
}

static kc_status build_maps(kci_otf2_defs *d, kc_err *err)
{
    kc_status s = build_map(&d->str_map, d->str, d->nstr, sizeof *d->str, "string", d, err);
    if (!s)
        s = build_map(&d->group_map, d->group, d->ngroup, sizeof *d->group, "group", d, err);
    if (!s)
        s = build_map(&d->comm_map, d->comm, d->ncomm, sizeof *d->comm, "communicator", d, err);
    if (!s)
        s = build_map(&d->node_map, d->node, d->nnode, sizeof *d->node, "system tree node", d, err);
    if (!s)
        s = build_map(&d->lgroup_map, d->lgroup, d->nlgroup, sizeof *d->lgroup, "location group", d, err);
    if (!s)
        s = build_map(&d->region_map, d->region, d->nregion, sizeof *d->region, "region", d, err);
    if (s || d->nloc < 2)
        return s;
    kci_otf2_loc *scratch = malloc(d->nloc * sizeof *scratch);
    if (!scratch)
        return nomem(d, err);
    sort_locs(d->loc, d->nloc, scratch, UINT64_MAX, NULL);
    free(scratch);
    for (size_t i = 1; i < d->nloc; i++)
        if (d->loc[i].id == d->loc[i - 1].id)
            return kc_fail_param(err, KC_EINVAL, PARAM, "%s: location %llu is defined twice", d->name,
                                 (unsigned long long)d->loc[i].id);
    return KC_OK;
}

/* ---- ranks ---- */

/* The MPI paradigm's group of locations: member i is world rank i. */
static kc_status find_world(kci_otf2_defs *d, kc_err *err)
{
    d->world = KCI_OTF2_NONE;
    for (size_t g = 0; g < d->ngroup && d->world == KCI_OTF2_NONE; g++)
        if (d->group[g].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && d->group[g].paradigm == OTF2_PARADIGM_MPI)
            d->world = (uint32_t)g;
    if (d->world == KCI_OTF2_NONE || d->group[d->world].n == 0)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s: no MPI ranks (no group of the MPI paradigm's locations)",
                             d->name);
    d->ranks = d->group[d->world].n;
    const kci_otf2_group *w = &d->group[d->world];
    for (uint32_t r = 0; r < w->n; r++) {
        kci_otf2_loc *l = (kci_otf2_loc *)kci_otf2_loc_find(d, w->member[r]);
        if (!l)
            return kc_fail_param(err, KC_EINVAL, PARAM, "%s: rank %u's location %llu has no definition", d->name,
                                 r, (unsigned long long)w->member[r]);
        if (l->rank != KC_TRACE_NO_RANK)
            return kc_fail_param(err, KC_EINVAL, PARAM, "%s: location %llu is both rank %u and rank %u", d->name,
                                 (unsigned long long)l->id, l->rank, r);
        l->rank = r;
        l->main = 1;
    }
    return KC_OK;
}

/* Other locations of a rank's process (its threads) carry that rank. */
static kc_status assign_threads(kci_otf2_defs *d, kc_err *err)
{
    uint32_t *rank_of_group = malloc((d->nlgroup ? d->nlgroup : 1) * sizeof *rank_of_group);
    if (!rank_of_group)
        return nomem(d, err);
    memset(rank_of_group, 0xff, (d->nlgroup ? d->nlgroup : 1) * sizeof *rank_of_group);
    for (size_t i = 0; i < d->nloc; i++) {
        uint32_t g = kci_refmap_find(&d->lgroup_map, d->loc[i].group);
        if (d->loc[i].main && g != KCI_OTF2_NONE && rank_of_group[g] == KCI_OTF2_NONE)
            rank_of_group[g] = d->loc[i].rank;
    }
    d->rank_events = d->other_events = 0;
    for (size_t i = 0; i < d->nloc; i++) {
        kci_otf2_loc *l = &d->loc[i];
        uint32_t g = kci_refmap_find(&d->lgroup_map, l->group);
        if (!l->main && g != KCI_OTF2_NONE && d->lgroup[g].type == OTF2_LOCATION_GROUP_TYPE_PROCESS &&
            l->type == OTF2_LOCATION_TYPE_CPU_THREAD)
            l->rank = rank_of_group[g];
        uint64_t *sum = l->rank != KC_TRACE_NO_RANK ? &d->rank_events : &d->other_events;
        *sum = kci_add_overflow_u64(*sum, l->events, sum) ? UINT64_MAX : *sum;
    }
    free(rank_of_group);
    return KC_OK;
}

/* Every communicator's group is defined. */
static kc_status check_comms(kci_otf2_defs *d, kc_err *err)
{
    for (size_t c = 0; c < d->ncomm; c++)
        if (!d->comm[c].inter && kci_refmap_find(&d->group_map, d->comm[c].group) == KCI_OTF2_NONE)
            return kc_fail_param(err, KC_EINVAL, PARAM, "%s: communicator %u's group %u has no definition", d->name,
                                 d->comm[c].ref, d->comm[c].group);
    return KC_OK;
}

static kc_status read_global(OTF2_Reader *reader, kci_otf2_defs *d, kc_err *err)
{
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(reader);
    if (!gd)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s: no global definitions (a missing or cut .def file)",
                             d->name);
    OTF2_GlobalDefReaderCallbacks *cb = def_callbacks();
    if (!cb) {
        OTF2_Reader_CloseGlobalDefReader(reader, gd);
        return nomem(d, err);
    }
    OTF2_ErrorCode e = OTF2_Reader_RegisterGlobalDefCallbacks(reader, gd, cb, d);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllGlobalDefinitions(reader, gd, &n);
    OTF2_Reader_CloseGlobalDefReader(reader, gd);
    if (d->status)
        return d->status;
    if (e != OTF2_SUCCESS)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s: the global definitions cannot be read (%s)", d->name,
                             OTF2_Error_GetDescription(e));
    return KC_OK;
}

kc_status kci_otf2_read_defs(OTF2_Reader *reader, kci_otf2_defs *d, const char *name, kc_err *err)
{
    memset(d, 0, sizeof *d);
    d->name = name;
    d->err = err;
    kc_status s = read_global(reader, d, err);
    if (!s)
        s = build_maps(d, err);
    if (!s)
        s = find_world(d, err);
    if (!s)
        s = assign_threads(d, err);
    if (!s)
        s = check_comms(d, err);
    if (!s && d->resolution == 0)
        s = kc_fail_param(err, KC_EINVAL, PARAM, "%s: no clock properties (timer resolution)", d->name);
    return s;
}

void kci_otf2_defs_free(kci_otf2_defs *d)
{
    for (size_t i = 0; i < d->nstr; i++)
        free(d->str[i].s);
    for (size_t i = 0; i < d->ngroup; i++)
        free(d->group[i].member);
    free(d->str);
    free(d->loc);
    free(d->group);
    free(d->comm);
    free(d->node);
    free(d->lgroup);
    free(d->region);
    free_map(&d->str_map);
    free_map(&d->group_map);
    free_map(&d->comm_map);
    free_map(&d->node_map);
    free_map(&d->lgroup_map);
    free_map(&d->region_map);
    memset(d, 0, sizeof *d);
}

/* ---- sizes ---- */

/* Bytes per event at the peak of a read: the event (64 B) and its rank
 * (4 B) while appending; the reader appends rank by rank, so
 * kc_trace_finish orders them in place (the array is reserved once, at
 * the declared count). */
#define BYTES_PER_EVENT ((uint64_t)(sizeof(kc_trace_event) + sizeof(uint32_t)))
/* Per rank: the first[] entry, the node, the rank's share of the tables. */
#define BYTES_PER_RANK 64u
/* Per definition kept: a table row and its map slot. */
#define BYTES_PER_DEF 48u

void kci_otf2_size(const kci_otf2_defs *d, kc_trace_size *size)
{
    size->ranks = d->ranks;
    size->events = d->rank_events;
    uint64_t members = 0, defs = d->nstr + d->nloc + d->ngroup + d->ncomm + d->nnode + d->nlgroup + d->nregion;
    for (size_t g = 0; g < d->ngroup; g++)
        members += d->group[g].n;
    uint64_t b = 0, fixed = (uint64_t)d->ranks * BYTES_PER_RANK + defs * BYTES_PER_DEF + members * 12 +
                            d->string_bytes;
    if (kci_mul_overflow_u64(d->rank_events, BYTES_PER_EVENT, &b) || kci_add_overflow_u64(b, fixed, &b))
        b = UINT64_MAX;
    size->bytes = b;
}

kc_status kci_otf2_check_limits(const kci_otf2_defs *d, const kc_trace_limits *limits, kc_err *err)
{
    kc_trace_size sz;
    kci_otf2_size(d, &sz);
    uint32_t max_ranks = limits && limits->max_ranks ? limits->max_ranks : KC_TRACE_MAX_RANKS;
    if (sz.ranks > max_ranks)
        return kc_fail_param(err, KC_ERANGE, PARAM, "%s has %u ranks, over the limit of %u", d->name, sz.ranks,
                             max_ranks);
    if (limits && limits->max_events && sz.events > limits->max_events)
        return kc_fail_param(err, KC_ERANGE, PARAM,
                             "%s declares %llu events (about %.1f MiB to read), over the limit of %llu events",
                             d->name, (unsigned long long)sz.events, (double)sz.bytes / (1024.0 * 1024.0),
                             (unsigned long long)limits->max_events);
    return KC_OK;
}

kc_status kc_trace_size_otf2(const char *path, kc_trace_size *size, kc_err *err)
{
    memset(size, 0, sizeof *size);
    char *anchor, *name;
    OTF2_Reader *reader;
    kc_status s = kci_otf2_open(path, &anchor, &name, &reader, err);
    if (s)
        return s;
    kci_otf2_defs d;
    s = kci_otf2_read_defs(reader, &d, name, err);
    if (!s)
        kci_otf2_size(&d, size);
    kci_otf2_defs_free(&d);
    OTF2_Reader_Close(reader);
    free(anchor);
    free(name);
    return s;
}
