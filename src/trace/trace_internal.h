/* trace_internal.h - what the OTF2 reader's files share (kci_ names, private
 * to the trace room): the archive's global definitions as tables indexed by
 * OTF2 reference, opened and read once (trace_otf2_defs.c) and then used to
 * build the trace and read the events (trace_otf2.c). Nothing here prints;
 * every error names the archive ("trace 'dir/traces.otf2'"). */
#ifndef KCI_TRACE_INTERNAL_H
#define KCI_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "kcube/trace.h"

#define KCI_OTF2_NONE UINT32_MAX /* no index / reference not defined */

/* A map from 32-bit OTF2 references to table indices: a direct array when
 * the references are about as many as the entries (what writers produce),
 * else sorted (reference << 32 | index) keys searched by bisection. */
typedef struct kci_refmap {
    uint32_t *slot;  /* dense: slot[ref] = index or KCI_OTF2_NONE */
    uint64_t *keys;  /* sparse: sorted ref << 32 | index */
    size_t size;     /* entries of slot or keys */
} kci_refmap;

typedef struct kci_otf2_loc {
    uint64_t id;     /* OTF2 location reference */
    uint64_t events; /* events its definition declares */
    uint32_t name;   /* string reference */
    uint32_t group;  /* location group reference */
    uint32_t rank;   /* the world rank its MPI events belong to, or KC_TRACE_NO_RANK */
    uint8_t main;    /* 1: the rank's own location (in the MPI location group); 0: another thread */
    uint8_t type;    /* OTF2_LocationType */
} kci_otf2_loc;

typedef struct kci_otf2_group {
    uint32_t ref, name;
    uint32_t n;       /* members */
    uint32_t flags;   /* OTF2_GroupFlag */
    uint8_t type;     /* OTF2_GroupType */
    uint8_t paradigm; /* OTF2_Paradigm */
    uint64_t *member;
} kci_otf2_group;

typedef struct kci_otf2_comm {
    uint32_t ref, name, group; /* group: a reference (KCI_OTF2_NONE for an intercommunicator) */
    uint8_t inter;             /* an intercommunicator: its events are skipped */
} kci_otf2_comm;

typedef struct kci_otf2_node {
    uint32_t ref, name, klass, parent; /* references (parent: OTF2_UNDEFINED_SYSTEM_TREE_NODE at the root) */
} kci_otf2_node;

typedef struct kci_otf2_lgroup {
    uint32_t ref, name, node; /* node: the system tree parent's reference */
    uint8_t type;             /* OTF2_LocationGroupType */
} kci_otf2_lgroup;

typedef struct kci_otf2_region {
    uint32_t ref, name;
} kci_otf2_region;

typedef struct kci_otf2_string {
    uint32_t ref;
    char *s;
} kci_otf2_string;

/* The global definitions kcube uses, as read; maps by reference built after. */
typedef struct kci_otf2_defs {
    const char *name;          /* "trace 'dir/traces.otf2'", the caller's */
    uint64_t resolution;       /* timer ticks per second; 0: no ClockProperties */
    uint64_t offset;           /* the global offset (ticks) */
    kci_otf2_string *str;
    size_t nstr, cap_str;
    kci_otf2_loc *loc;         /* sorted by id once read */
    size_t nloc, cap_loc;
    kci_otf2_group *group;
    size_t ngroup, cap_group;
    kci_otf2_comm *comm;
    size_t ncomm, cap_comm;
    kci_otf2_node *node;
    size_t nnode, cap_node;
    kci_otf2_lgroup *lgroup;
    size_t nlgroup, cap_lgroup;
    kci_otf2_region *region;
    size_t nregion, cap_region;
    kci_refmap str_map, group_map, comm_map, node_map, lgroup_map, region_map;
    uint32_t world;            /* index in group[] of the MPI location group (rank i = member[i]) */
    uint32_t ranks;            /* its size */
    uint64_t rank_events;      /* declared events of the locations that carry MPI ranks' events */
    uint64_t other_events;     /* declared events of every other location (skipped unread) */
    uint64_t string_bytes;     /* total length of the strings, for the estimate */
    kc_status status;          /* the first error met inside a callback */
    kc_err *err;
} kci_otf2_defs;

/* Index of `ref` in the table m maps, or KCI_OTF2_NONE. O(1) dense, O(log n) sparse. */
uint32_t kci_refmap_find(const kci_refmap *m, uint32_t ref);

/* Open the archive at `path` (an anchor file or its directory; OTF2's own
 * error printing silenced): *anchor receives the anchor's path (malloc'd),
 * *name the trace's message name "trace 'ANCHOR'" (malloc'd), *reader the
 * open reader. On error nothing is left to free. */
kc_status kci_otf2_open(const char *path, char **anchor, char **name, OTF2_Reader **reader, kc_err *err);

/* Read the global definitions of an open reader into d (zeroed here; d->name
 * must outlive d), build the maps, find the MPI ranks and give every
 * location its rank. Refuses an archive without MPI locations, a group or
 * communicator naming something never defined. On error d still needs
 * kci_otf2_defs_free. O(definitions + members). */
kc_status kci_otf2_read_defs(OTF2_Reader *reader, kci_otf2_defs *d, const char *name, kc_err *err);
void kci_otf2_defs_free(kci_otf2_defs *d);

/* The string of reference ref, or "" when it is not defined. */
const char *kci_otf2_str(const kci_otf2_defs *d, uint32_t ref);
/* The location of id, or NULL. O(log locations). */
const kci_otf2_loc *kci_otf2_loc_find(const kci_otf2_defs *d, uint64_t id);

/* Sizes from the definitions: ranks, declared events, the memory estimate. */
void kci_otf2_size(const kci_otf2_defs *d, kc_trace_size *size);

/* Refuse sizes over the caller's limits (KC_ERANGE naming events and the
 * estimate). limits may be NULL. */
kc_status kci_otf2_check_limits(const kci_otf2_defs *d, const kc_trace_limits *limits, kc_err *err);

#endif
