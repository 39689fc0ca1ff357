/* The general network of kcube replay and kcube fft-study: where
 * each rank goes on it (slots, or a mapping file of endpoint numbers), and
 * how the reports name it. Plain runs (--n, --k, --topology alone) keep
 * their own path and output. */
#ifndef KC_CLI_REPLAY_NETWORK_H
#define KC_CLI_REPLAY_NETWORK_H

#include <stdint.h>

#include "cli.h"
#include "network_cli.h"
#include "kcube/topology.h"

/* Each rank's endpoint (whole-network number) on t: ranks rR..rR+R-1 on
 * slot r (kc_topology_slot_endpoint), or with `mapping` (a file path, or
 * NULL) on the endpoint on line r of that file: endpoint numbers, each on
 * a router of the allocation, none twice, at least ceil(ranks / R) and at
 * most slots of them. *node_of gets `ranks` entries (free it). More ranks
 * than slots x R is one line and exit 2. O(ranks + slots + file). Returns
 * 0 or an exit status after one line. */
int cli_replay_place(const cli_args *a, const kc_topology *t, uint32_t ranks, uint32_t R, const char *mapping,
                     uint32_t **node_of);

/* kc_topology_format's text and the slots: "torus 4x3x2 (wrap 0,2), 2
 * endpoints per router, 5 routers allocated: 10 slots". Returns buf. */
char *cli_replay_network_text(const kc_topology *t, char *buf, size_t size);

/* "none" (path NULL) or "file PATH", a path too long for buf shortened
 * and ending in "...". Returns buf. */
char *cli_replay_mapping_desc(const char *path, char *buf, size_t size);

#endif
