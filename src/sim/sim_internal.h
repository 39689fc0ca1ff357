/* Private to src/sim: sizes shared by the engine and the memory estimate. */
#ifndef KCI_SIM_INTERNAL_H
#define KCI_SIM_INTERNAL_H

#include <stdint.h>

/* The shape of a network, enough to size the engine without building it. */
typedef struct kci_simshape {
    uint64_t nodes;
    int n, ports, vcs, inj, ej, depth, max_hops;
} kci_simshape;

/* Bytes of the engine's fixed arrays (kc_sim_run's engine_init). */
uint64_t kci_sim_fixed_bytes(const kci_simshape *s, int vc_independent);
/* Bytes per worm slot (worm record, path, index lists, waiting lists). */
uint64_t kci_sim_worm_bytes(const kci_simshape *s);
/* Bytes per source-queue entry. */
uint64_t kci_sim_queue_entry_bytes(void);

#endif
