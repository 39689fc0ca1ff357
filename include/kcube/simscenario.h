/* kcube/simscenario.h - a simulation set up from a textual description:
 * the network, the routing, the pattern and the processor mapping.
 *
 * Patterns: on the binary n-cube every kcube LCC pattern by name (see
 * kc_lcc_pattern) or a matrix; on k-ary n-cubes the digit permutations
 * transpose, digit-reverse, digit-complement; everywhere "uniform" and a file
 * of (source, destination) pairs.
 * Mappings: "none"; "optimal" (M-S: seed 000's optimal reordering for this
 * one pattern, binary n-cube); "set:P1,P2,..." (M-G: the reordering chosen by
 * the dynamic programme over those patterns with the max objective, binary
 * n-cube); or a file of N node ids, to_physical[v] for v = 0, 1, ...
 *
 * The description itself, its defaults and the configuration names are
 * kcube/simspec.h's (the simulator's room); this header builds what they
 * name (the scenario room, src/scenario). */
#ifndef KCUBE_SIMSCENARIO_H
#define KCUBE_SIMSCENARIO_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/nodemap.h"
#include "kcube/simnet.h"
#include "kcube/simroute.h"
#include "kcube/simspec.h"
#include "kcube/simtraffic.h"

typedef struct kc_simscenario {
    kc_simnet net;
    kc_simroute route;       /* resolved */
    kc_simtraffic traffic;
    kc_nodemap map;          /* count 0: no mapping */
    char mapping_desc[160];  /* e.g. "M-S order 4 5 6 7 0 1 2 3"; a file path over 140 bytes
                                is shown shortened, ending in "..." */
    long long contention;    /* analysed channel contention of the (mapped) pattern under the
                                deterministic routing, -1 when not defined (uniform, adaptive) */
} kc_simscenario;

/* Builds from a copy of spec resolved by kc_simspec_resolve (so unset fields
 * are allowed); sc->route is the resolved routing to give the engine. */
kc_status kc_simscenario_build(kc_simscenario *sc, const kc_simspec *spec, kc_err *err);
void kc_simscenario_free(kc_simscenario *sc);

#endif
