/* kcube/machine.h - which host and slot each node of a topology is, and the
 * files MPI launchers read to place ranks there (docs/export.md).
 *
 * A machine description names, for every physical node x of a topology, a
 * host (a name: labels of letters, digits, '-' and '_' joined by dots, no
 * label empty or starting or ending with '-', not all digits, at most
 * KC_HOST_MAX bytes) and a slot on that host (0..KC_SLOT_MAX: the core an
 * Open MPI rankfile binds to, the position on the node for MPICH). It comes
 * from a file or from a rule.
 *
 * The file (kc_machine_read): one node per line, in either form, mixed at
 * will; '#' starts a comment; blanks or commas separate fields:
 *     NODE HOST [SLOT]          node id 0..N-1 (axis 0 least significant)
 *     HOST x0 x1 .. x{n-1} [SLOT]   the node by its coordinates, axis 0 first
 * A line whose first field is a whole number is of the first form. Without
 * SLOT a node takes the slot after the highest its host has so far (0 for
 * a new host: 0, 1, 2, ... in file order when no line gives one).
 * Every node appears exactly once and no two nodes share a host and slot;
 * every error names the line and column (kcube/reader.h's bounded reader).
 * Hosts are numbered in the order they first appear.
 *
 * The rule (kc_machine_rule): R slots per host, hosts named by a pattern in
 * which "%d" (or "%Nd", "%0Nd": width N, zero-padded) stands for the host
 * number (nothing else: '%' is in no host name). Nodes fill slot 0..R-1 of host `first`, then of the
 * next host, in the order of their position p: with KC_FILL_FIRST_AXIS,
 * p = x (axis 0 varies fastest: nodes 0..R-1 share the first host); with
 * KC_FILL_LAST_AXIS, p counts with axis n-1 fastest (row-major order of the
 * coordinates x_0 .. x_{n-1}). The pattern is never given to printf.
 *
 * Exporters (kc_export_write) turn a mapping, rank v on physical node
 * to_physical[v], into a launcher's file:
 *   nodelist          line v: to_physical[v] (what kcube simulate --mapping reads)
 *   openmpi-rankfile  "rank v=HOST slot=S" (Open MPI 4.1 mpirun -rf FILE;
 *                     5.x --map-by rankfile:file=FILE)
 *   mpich-rank-order  the MPICH_RANK_ORDER file of HPE Cray MPICH, read with
 *                     MPICH_RANK_REORDER_METHOD=3: the ranks in the order of
 *                     the placement positions, hosts in description order,
 *                     slots ascending (one line of comma-separated ranks per host)
 *   slurm-hostfile    line v: the host of rank v (SLURM_HOSTFILE with
 *                     srun --distribution=arbitrary)
 *   scotch-map        Scotch's mapping file: the count, then "v to_physical[v]"
 *   bgq-mapfile       line v: "A B C D E T", the coordinates of rank v's
 *                     router, axis 0 first, then its endpoint index T
 *                     (Blue Gene/Q runjob --mapping FILE, RUNJOB_MAPPING)
 *   fujitsu-rankmap   line v: "(x,y,z)", rank v's router coordinates
 *                     (Fujitsu MPI's rank-map file; ranks sharing a node
 *                     repeat its line)
 * On a network with endpoints (C > 1) a description names every endpoint:
 * NODE is the endpoint number, the coordinate form adds T after the
 * coordinates, and the rule counts endpoints (a router's stay together).
 * Original to kcube (no seed paper). Costs: reading O(bytes + N) time,
 * O(N + host names) memory; a rule O(N); exporting O(N log N) (mpich) or O(N). */
#ifndef KCUBE_MACHINE_H
#define KCUBE_MACHINE_H

#include <stdint.h>
#include <stdio.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/reader.h"
#include "kcube/topology.h"

#define KC_MACHINE_MAX_NODES ((uint64_t)1 << 24) /* as node lists (kcube map --out) */
#define KC_HOST_MAX 255                         /* bytes in a host name */
#define KC_SLOT_MAX 65535                       /* largest slot */

typedef struct kc_machine {
    uint64_t nodes;   /* the topology's node count */
    uint32_t nhosts;
    char **host_name; /* nhosts names, numbered in first-appearance order */
    uint32_t *host;   /* nodes entries: the host of node x */
    uint32_t *slot;   /* nodes entries: its slot on that host */
    char *arena;      /* storage of the names */
} kc_machine;

/* Read a description of the nodes of t (errors name param "machine").
 * m is zeroed first and owns its arrays after KC_OK (kc_machine_free; also
 * safe after an error). */
kc_status kc_machine_read(kc_machine *m, kc_reader *r, const kc_topology *t, kc_err *err);
/* The same from a file ("machine file 'PATH'" in messages). */
kc_status kc_machine_read_path(kc_machine *m, const char *path, const kc_topology *t, kc_err *err);

typedef enum kc_machine_fill { KC_FILL_FIRST_AXIS, KC_FILL_LAST_AXIS } kc_machine_fill;
extern const kc_names kc_machine_fill_names; /* "first-axis", "last-axis" */

/* The rule above: per_host slots (1..KC_SLOT_MAX + 1) per host, host
 * numbers from `first`. KC_EINVAL (param "hosts") for a pattern with a
 * conversion other than %d / %Nd / %0Nd, more than one %d, a character
 * no host name has, no %d while the nodes need more than one host, or a name
 * longer than KC_HOST_MAX. */
kc_status kc_machine_rule(kc_machine *m, const kc_topology *t, const char *pattern, uint32_t per_host, uint64_t first,
                          kc_machine_fill fill, kc_err *err);
void kc_machine_free(kc_machine *m);

/* Host `index` by a pattern (rule above) into out[size]; the checks of
 * kc_machine_rule except the host count. O(length). */
kc_status kc_host_expand(char *out, size_t size, const char *pattern, uint64_t index, kc_err *err);
/* Is name[0..len) a host name kcube accepts (above)? */
int kc_host_valid(const char *name, size_t len);

typedef enum kc_export_format {
    KC_EXPORT_NODELIST,
    KC_EXPORT_OMPI_RANKFILE,
    KC_EXPORT_MPICH_RANK_ORDER,
    KC_EXPORT_SLURM_HOSTFILE,
    KC_EXPORT_SCOTCH_MAP,
    KC_EXPORT_BGQ_MAPFILE,
    KC_EXPORT_FUJITSU_RANKMAP
} kc_export_format;
extern const kc_names kc_export_format_names;
/* Does the format name hosts (needs a machine description)? */
int kc_export_needs_machine(kc_export_format f);
/* Does the format write coordinates (needs the network)? */
int kc_export_needs_topology(kc_export_format f);

/* Write the mapping (count ranks, to_physical a permutation of 0..count-1)
 * in format f to out. m may be NULL for formats that name no host; else
 * m->nodes == count. KC_EINVAL (param "mapping" or "machine") for a
 * mismatch, KC_ENOMEM, KC_EIO when writing fails. */
kc_status kc_export_write(FILE *out, kc_export_format f, const uint32_t *to_physical, uint64_t count,
                          const kc_machine *m, kc_err *err);
/* The same on a general network t (kcube/topology.h): to_physical[v] is
 * the endpoint of rank v in the whole network (distinct, < nodes x C, on a
 * router of t's allocation when it has one), count <= kc_topology_slots(t);
 * m, when given, describes every endpoint of t. The coordinate formats
 * (bgq-mapfile, fujitsu-rankmap) need t. O(count + endpoints) time. */
kc_status kc_export_write_net(FILE *out, kc_export_format f, const kc_topology *t, const uint32_t *to_physical,
                              uint64_t count, const kc_machine *m, kc_err *err);

#endif
