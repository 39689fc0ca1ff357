/* kcube/traffic.h - a communication graph: who sends how many bytes to whom,
 * for mapping programs whose communication is not a linear-complement
 * communication (docs/traffic.md).
 *
 * A traffic value is a list of messages (src, dst, bytes) over virtual ranks
 * 0..ranks-1, ranks = the number of nodes of the topology it is mapped on.
 * A rank that never appears simply sends nothing. Messages with src == dst
 * cost nothing on the network and are kept only for the totals.
 *
 * Sources (formats with examples: docs/traffic.md): a plain traffic file
 * ("src dst bytes" per line, commas or blanks, '#' comments), a Scotch
 * source graph (.grf), the message list of a GOAL schedule, and the union of
 * linear communications (src/traffic/traffic_read.c); the generators of
 * kcube/traffic_gen.h. Readers are strict and bounded (kcube/reader.h): a
 * bad token, an id out of range, or negative or overflowing bytes is
 * KC_EINVAL naming the input, line and column. Appending is amortised O(1);
 * the readers are O(file size), a set of communications O(sum of N n).
 *
 * Groups: messages may carry the index of the communication they belong to
 * (group[], for per-communication figures). group is NULL until
 * kc_traffic_begin_group is first called; kc_traffic_add_comm and the
 * pattern generators call it, and the readers do for phases: a traffic
 * file's "# phase NAME" lines and a GOAL schedule's "// kcube-phase NAME"
 * lines make each phase a group with that name (group_name); traffic
 * without phases has no groups. */
#ifndef KCUBE_TRAFFIC_H
#define KCUBE_TRAFFIC_H
#include <stddef.h>
#include <stdint.h>
#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/reader.h"
#include "kcube/rng.h"

struct kc_comm;
struct kc_goal;

#define KC_TRAFFIC_MAX_MESSAGES 100000000u /* 10^8: ten times the 10^7 */

typedef struct kc_traffic {
    uint64_t ranks;  /* virtual ranks 0..ranks-1 */
    size_t count;    /* messages */
    size_t cap;
    uint32_t *src;   /* count entries each */
    uint32_t *dst;
    uint64_t *bytes;
    uint32_t *group; /* NULL, or count entries: group of each message */
    uint32_t groups; /* groups begun (0 while group is NULL) */
    uint32_t current; /* group of the messages added next (groups - 1 after begin_group) */
    char **group_name; /* NULL, or `named` entries: a phase's name per group (NULL: unnamed) */
    uint32_t named;
} kc_traffic;

/* Phases per input at most (each phase is a group; counted apart, a group
 * costs a layer of channel loads). */
#define KC_TRAFFIC_MAX_PHASES 4096u

/* An empty traffic over `ranks` ranks (1..2^32). */
kc_status kc_traffic_init(kc_traffic *t, uint64_t ranks, kc_err *err);
void kc_traffic_free(kc_traffic *t);
/* Append one message; src/dst < ranks (KC_ERANGE naming "traffic"). */
kc_status kc_traffic_add(kc_traffic *t, uint64_t src, uint64_t dst, uint64_t bytes, kc_err *err);
/* Messages added from now on form a new group, numbered t->groups - 1
 * after the call. On the first call, messages already present form group 0
 * and the new group is 1. O(count) on the first call, O(1) after. */
kc_status kc_traffic_begin_group(kc_traffic *t, kc_err *err);
/* Messages added from now on belong to the phase `name` (a non-empty
 * word): the group of that name when one exists (phases may be resumed),
 * else a new group (kc_traffic_begin_group) with that name. More than
 * KC_TRAFFIC_MAX_PHASES named groups is KC_EINVAL (param "traffic").
 * O(groups) per call. */
kc_status kc_traffic_set_phase(kc_traffic *t, const char *name, kc_err *err);
/* The name of group g, or NULL when it has none (messages before the first
 * phase line, groups of communications). */
const char *kc_traffic_group_name(const kc_traffic *t, uint32_t g);
/* Forget the groups: every message is counted together (--phases
 * together). O(groups). */
void kc_traffic_ungroup(kc_traffic *t);

/* ---- Readers (append to t, whose ranks bound every id) ----
 * Traffic file: one message per non-empty line, "src dst [bytes]", fields
 * separated by blanks and/or commas, '#' comments. A comment line
 * "# phase NAME" puts the messages after it in phase NAME
 * (kc_traffic_set_phase); messages before the first such line form an
 * unnamed group of their own. src, dst < t->ranks;
 * bytes 0..2^64-1, 1 when left out (loads then count messages). The same
 * format as the simulator's pairs file (kcube/simtraffic.h). A file with no
 * message is an error. Param "traffic_file". */
kc_status kc_traffic_read(kc_traffic *t, kc_reader *r, kc_err *err);
/* Scotch source graph (.grf), as Scotch documents it: "0" (version),
 * "vertnbr edgenbr", "baseval flags" (flags: three digits 0/1 for vertex
 * labels, edge weights, vertex weights), then per vertex: [label] [vertex
 * weight] degree, then per neighbour [edge weight] neighbour (a label when
 * labels are present). Tokens may be spread over lines freely, as Scotch
 * reads them. Every listed arc u -> v becomes one message from rank u to
 * rank v of its edge weight in bytes (1 without edge weights), so an edge
 * listed both ways (as Scotch requires) gives one message each way. A
 * vertex's rank is its label - baseval (labels must then be a permutation
 * of baseval..baseval+vertnbr-1), else its position. Checked: version 0,
 * vertnbr <= t->ranks, baseval 0 or 1, flag digits 0/1, neighbours in range,
 * edgenbr = the sum of the degrees, nothing after the last vertex. Vertex
 * weights are read and ignored. Param "traffic_file". */
kc_status kc_traffic_read_grf(kc_traffic *t, kc_reader *r, kc_err *err);
/* Every send of a GOAL schedule (rank -> peer, its size in bytes), in
 * operation order. When the schedule has phases (g->nphases > 1), each send
 * goes to the group of its phase (kc_traffic_set_phase; sends in the
 * unnamed phase to a group named "-"), groups numbered in the schedule's
 * phase order (kc_goal.phase: first appearance in the file), phases without
 * a send left out. The schedule must satisfy kc_goal_validate for t->ranks
 * nodes (the file readers below check it); a send whose rank or peer is out
 * of range is KC_EINVAL naming its line (param "schedule"). */
kc_status kc_traffic_from_goal(kc_traffic *t, const struct kc_goal *g, kc_err *err);

/* ---- Formats, and inputs that say their ranks ----
 * list: the traffic file above (kc_traffic_read). csv: a header line
 * naming the columns, in any order and any case: src|source|sender|from,
 * dst|dest|destination|receiver|to and optionally bytes|size|weight|volume
 * (1 a message without it); then one message a line with exactly those
 * fields; fields may be quoted ("1", "" for a quote inside); a header with
 * commas makes commas delimit fields one by one (an empty field is an
 * error), a header without them blanks; "# phase NAME" lines as in a list.
 * matrix: P lines of P entries (blanks and/or commas), the entry of row i,
 * column j the bytes rank i sends to rank j, 0 for no message; the diagonal
 * is kept as messages to self (they cost nothing, as in a list); P x P
 * more lines after a "# phase NAME" line make a further phase. grf, goal:
 * kc_traffic_read_grf, kc_traffic_from_goal.
 * auto, in this order: a file named *.grf, *.goal, *.mat or *.matrix by its
 * name; else by its first data line (comments and phase lines skipped): a
 * field beginning with a letter makes it a header line (csv), or the
 * schedule's "num_ranks" (goal); one field, a graph (grf); more than
 * three, a matrix of that many ranks; two or three, a list, also when it
 * is exactly 2 lines of 2 fields or 3 of 3 (in every phase), which 2 x 2 or
 * 3 x 3 matrices would be too (kc_traffic_source.square says so: such a
 * matrix needs its format named). Quoted fields are read in every text
 * format. */
typedef enum kc_traffic_format {
    KC_TRAFFIC_AUTO,
    KC_TRAFFIC_LIST,
    KC_TRAFFIC_CSV,
    KC_TRAFFIC_MATRIX,
    KC_TRAFFIC_GRF,
    KC_TRAFFIC_GOAL
} kc_traffic_format;
extern const kc_names kc_traffic_format_names; /* auto list csv matrix grf goal */

/* What a read found: the format (never auto) and the ranks the input
 * names: a matrix's P, a graph's vertices, a schedule's num_ranks, a list's
 * highest rank + 1 (of the messages this read added). */
typedef struct kc_traffic_source {
    kc_traffic_format format;
    uint64_t ranks;
    int square; /* auto read a list that a 2 x 2 or 3 x 3 matrix would be too: 2 or 3, else 0 */
} kc_traffic_source;

/* A csv input (header first) and a matrix (*size: its P), appended to t;
 * ids beyond t->ranks, a row of another length, too few or too many rows
 * are KC_EINVAL naming the line (and the column of a bad field). */
kc_status kc_traffic_read_csv(kc_traffic *t, kc_reader *r, kc_err *err);
kc_status kc_traffic_read_matrix(kc_traffic *t, kc_reader *r, uint64_t *size, kc_err *err);
/* Read r in `format` (auto: by its first data line as above; goal is
 * read from a path only: KC_EINVAL here). src may be NULL. O(input). */
kc_status kc_traffic_read_as(kc_traffic *t, kc_reader *r, kc_traffic_format format, kc_traffic_source *src,
                             kc_err *err);
/* Open `path` and read it in `format` (auto: by name, then content).
 * limits may be NULL (kcube/reader.h defaults); src may be NULL. */
kc_status kc_traffic_read_file(kc_traffic *t, const char *path, kc_traffic_format format,
                               const kc_reader_limits *limits, kc_traffic_source *src, kc_err *err);
/* kc_traffic_read_file in auto. */
kc_status kc_traffic_read_path(kc_traffic *t, const char *path, const kc_reader_limits *limits, kc_err *err);
/* Bound the ranks anew (an input read with an open count, 2^32, then
 * placed on a network): every message's ranks must be below `ranks`
 * (1..2^32), else KC_EINVAL naming the first message outside. O(count). */
kc_status kc_traffic_set_ranks(kc_traffic *t, uint64_t ranks, kc_err *err);

/* Every message of communication c (built for a topology of t->ranks
 * nodes), `bytes` each, as a new group (kc_traffic_begin_group). The
 * non-linear `uniform` pattern draws from rng (NULL: KC_EINVAL). Messages
 * from a node to itself are kept (they cost nothing on the network). */
kc_status kc_traffic_add_comm(kc_traffic *t, const struct kc_comm *c, uint64_t bytes, kc_rng *rng, kc_err *err);

#endif
