/* The per-channel loads of a mapping, written out (--loads FILE) and as
 * JSON ("channel_loads"): one writer for every command that counts them
 * (analyze, and map's final mapping), so the file has one format. */
#ifndef KCUBE_CLI_LOADS_CLI_H
#define KCUBE_CLI_LOADS_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "kcube/topology.h"

extern const cli_opt OPT_LOADS;

/* loads: channel id (router * n + axis) * 2 + (dir < 0), as
 * kcube/chanload.h numbers them; `count` a multiple of 2 n nodes (the
 * layers of a counter made of several communications are added up). */
typedef struct cli_loads {
    const kc_topology *topo;
    const uint64_t *loads;
    size_t count;
} cli_loads;

/* Write every loaded directed channel, one a line, "from_router to_router
 * axis dir load" (dir +1 or -1), after a header comment naming `what`,
 * atomically to path (out.h). 0, or CLI_EXIT_FAIL after one line.
 * O(count). */
int cli_loads_write(const char *path, const cli_loads *l, const char *what);

/* The loads of a mapping of tr (to_slot: rank -> slot, a permutation of
 * the slots, as the general mapper returns it), counted afresh by the
 * general counter and written as cli_loads_write does. 0, or an exit
 * status after one line. O(messages x diameter + n nodes). */
struct kc_traffic;
int cli_loads_write_mapping(const char *path, const kc_topology *t, const struct kc_traffic *tr,
                            const uint32_t *to_slot, const char *what);

/* The same channels as a JSON array of {"from", "to", "axis", "dir",
 * "load"}. NULL when out of memory. */
cJSON *cli_loads_json(const cli_loads *l);

#endif
