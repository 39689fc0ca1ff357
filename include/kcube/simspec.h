/* kcube/simspec.h - a simulation described by text, before anything is
 * built: network, routing, pattern and mapping by name (kc_simspec), the
 * defaults that depend on the topology, decided in one place by
 * kc_simspec_resolve (O(1); kc_simspec_default leaves them unset), and the
 * named configurations of a comparison. kcube/simscenario.h builds what a
 * spec names; the memory and work estimates (kcube/simmem.h) read a
 * resolved spec. */
#ifndef KCUBE_SIMSPEC_H
#define KCUBE_SIMSPEC_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/names.h"
#include "kcube/sim.h"
#include "kcube/simnet.h"
#include "kcube/simroute.h"
#include "kcube/topology.h"

/* An unset tie rule in a kc_simspec (kc_tie is the torus module's enum). */
#define KC_SIM_TIE_AUTO ((kc_tie)-1)

typedef struct kc_simspec {
    const kc_topology *network; /* borrowed, or NULL: the network of topo, k and n. When set it gives
                               them (resolve: topo from its sides and wraps, k its common side or 0,
                               n) and the endpoints and allocation (kc_simnet_from_topology) */
    kc_simtopo topo;        /* KC_SIM_TOPO_AUTO: the hypercube when k is unset or 2, else the torus */
    int k, n;               /* 0: unset (k: 2 on the hypercube, required on tori and meshes; n: required) */
    int vcs;                /* 0: unset (2 on tori with a VC rule and for duato, else 1) */
    int inj, ej, depth;     /* 1, 1, 1 */
    kc_simroute route;      /* algo KC_ROUTE_AUTO (ecube on the hypercube, dor elsewhere), vcrule
                               KC_VC_AUTO (highlow on tori, none elsewhere), tie KC_SIM_TIE_AUTO (plus) */
    const char *pattern;    /* a pattern name or "uniform" (NULL with matrix or pairs) */
    const char *matrix;     /* binary n-cube: rows of A, row 0 first */
    const char *vector;     /* b */
    int scatter;
    const char *pairs;      /* file of (source, destination) lines; with pair_src set, only the
                               pairs' name (e.g. the trace they came from), no file is read */
    const uint32_t *pair_src, *pair_dst; /* NULL, or npairs (source, destination) rank pairs, borrowed */
    size_t npairs;
    const char *mapping;    /* NULL, "none", "optimal", "set:...", or a file */
    int self_traffic;       /* 1: a permutation pattern keeps its fixed points (kc_simtraffic_keep_fixed) */
} kc_simspec;

/* Everything topology-dependent unset (see the fields), inj = ej = depth = 1. */
void kc_simspec_default(kc_simspec *s);

/* Fill every unset field by the one rule per topology; explicit values are
 * kept. With cfg (may be NULL) also cfg->vc_independent = -1 becomes
 * kc_sim_vc_link_default(topo, k). Idempotent. Fails (KC_EINVAL/KC_ERANGE,
 * param "k", "n", "topology") on a hypercube with k != 2, a torus or mesh
 * without k, or no n. Resolution table (docs/sim.md):
 *                 topology   routing  vc rule   vcs             tie   vc link
 *   hypercube     k unset/2  ecube    none      2 duato, else 1 plus  shared
 *   torus (k > 2) k > 2      dor      highlow   2 (1 rule none) plus  independent
 *   mesh          -          dor      none      1 (2 duato)     plus  k > 2
 * duato on a torus takes 3 VCs (two escape). A general network (network
 * set) is a hypercube when every side is 2 and some axis wraps, a torus
 * when some axis wraps, else a mesh; VC rules apply on its rings only;
 * unequal sides (k = 0) share no VC link. */
kc_status kc_simspec_resolve(kc_simspec *s, kc_simconfig *cfg, kc_err *err);

/* Compare-mode defaults of a resolved spec: the configurations
 * ("ecube,M-S,M-G,pcube,duato" on the hypercube, "dor,M-S,M-G" on tori with
 * k a power of two, else "dor") and the M-G pattern set
 * ("transpose,bit-reverse,reverse-flip" on the hypercube, else
 * "transpose,digit-reverse"). A general network that is not one of these
 * has no linear mappings: "ecube,pcube,duato" on the cube's layout, else
 * "dor,duato". */
const char *kc_simspec_compare_configs(const kc_simspec *resolved);
const char *kc_simspec_mapping_set(const kc_simspec *resolved);

/* Configurations of a comparison, by name (kcube simulate --compare
 * --configs, kcube figures). One table gives every named configuration its
 * spellings and what it runs, and parsing, help and the figures command all
 * read it, so a name cannot run anything but its entry:
 *   M-S (ms, Map-S)  the topology's deterministic routing (ecube on the
 *                    hypercube, dor elsewhere) with the mapping "optimal"
 *   M-G (mg, Map-G)  the same routing with "set:" + the M-G pattern set
 * Every routing name of kc_simalgo_names (aliases included) is a
 * configuration too: that routing with the run's own mapping, or with
 * MAPPING when written ROUTING@MAPPING. */
typedef enum kc_simconf_map {
    KC_SIMCONF_MAP_GIVEN,   /* the text after '@', else the run's mapping */
    KC_SIMCONF_MAP_OPTIMAL, /* "optimal" (M-S) */
    KC_SIMCONF_MAP_SET,     /* "set:" and the pattern set (M-G) */
} kc_simconf_map;

typedef struct kc_simconf_def {
    const char *name;       /* canonical spelling */
    const char *aliases[3]; /* the other spellings, NULL-terminated */
    kc_simalgo algo;        /* KC_ROUTE_AUTO: the topology's deterministic routing */
    kc_simconf_map map;
    const char *help;       /* one line for help listings */
} kc_simconf_def;

/* The named configurations; an entry with name NULL ends the table. */
extern const kc_simconf_def kc_simconf_defs[];

/* The entry spelled `name` (canonical or alias, exact), or NULL. */
const kc_simconf_def *kc_simconf_find(const char *name);

/* What a configuration token runs: a name of kc_simconf_defs, a routing
 * name, or ROUTING@MAPPING. Sets *algo (KC_ROUTE_AUTO for M-S and M-G: the
 * resolved spec decides) and *mapping, newly allocated (free it): "optimal",
 * "set:" + set, the text after '@', else run_mapping or "none". Fails with
 * param "configs" on an unknown name (KC_EINVAL, the routing module's
 * message) or a mapping after '@' on a configuration that names its own. */
kc_status kc_simconf_parse(const char *token, const char *set, const char *run_mapping, kc_simalgo *algo,
                           char **mapping, kc_err *err);

#endif
