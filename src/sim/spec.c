/* A simulation's description before anything is built (kcube/simspec.h):
 * the one place where defaults that depend on the topology are decided, and
 * the vocabulary of named configurations (M-S, M-G, routings, ROUTING@MAP).
 * Building the mappings and traffic it names is src/scenario's. */
#include "kcube/simspec.h"

#include <stdio.h>

#include "core/bits.h"
#include <stdlib.h>
#include <string.h>

void kc_simspec_default(kc_simspec *s)
{
    memset(s, 0, sizeof *s);
    s->topo = KC_SIM_TOPO_AUTO;
    s->inj = 1;
    s->ej = 1;
    s->depth = 1;
    s->route.algo = KC_ROUTE_AUTO;
    s->route.vcrule = KC_VC_AUTO;
    s->route.tie = KC_SIM_TIE_AUTO;
}

static kc_status resolve_routing(kc_simspec *s, kc_simconfig *cfg);

/* topo, k and n of a general network (kc_simnet_from_topology's rule). */
static void network_shape(kc_simspec *s)
{
    const kc_topology *t = s->network;
    int all2 = 1, equal = 1;
    for (int d = 0; d < t->n; d++) {
        all2 &= t->side[d] == 2;
        equal &= t->side[d] == t->side[0];
    }
    uint64_t wrap = t->n < 64 ? t->wrap & ((UINT64_C(1) << t->n) - 1) : t->wrap;
    s->topo = all2 && wrap ? KC_SIM_HYPERCUBE : wrap ? KC_SIM_TORUS : KC_SIM_MESH;
    s->k = equal ? t->side[0] : 0;
    s->n = t->n;
}

kc_status kc_simspec_resolve(kc_simspec *s, kc_simconfig *cfg, kc_err *err)
{
    if (s->network) {
        network_shape(s);
        if (s->n < 1 || s->n > KC_SIMNET_MAX_N)
            return kc_fail_param(err, KC_ERANGE, "n", "the simulator takes 1..%d axes, got %d", KC_SIMNET_MAX_N, s->n);
        return resolve_routing(s, cfg);
    }
    if (s->topo == KC_SIM_TOPO_AUTO)
        s->topo = s->k == 0 || s->k == 2 ? KC_SIM_HYPERCUBE : KC_SIM_TORUS;
    if ((int)s->topo < KC_SIM_HYPERCUBE || s->topo > KC_SIM_MESH)
        return kc_fail_param(err, KC_EINVAL, "topology", "unknown topology %d", (int)s->topo);
    /* a 2-ary torus is the binary n-cube (one link per neighbour pair) */
    if (s->topo == KC_SIM_TORUS && s->k == 2)
        s->topo = KC_SIM_HYPERCUBE;
    if (s->topo == KC_SIM_HYPERCUBE) {
        if (s->k == 0)
            s->k = 2;
        else if (s->k != 2)
            return kc_fail_param(err, KC_EINVAL, "k", "the hypercube has k = 2 (got k = %d)", s->k);
    } else if (s->k == 0) {
        return kc_fail_param(err, KC_EINVAL, "k", "a %s needs the radix k", kc_simtopo_name(s->topo));
    }
    if (s->k < 2 || s->k > 256)
        return kc_fail_param(err, KC_ERANGE, "k", "radix k must be 2..256, got %d", s->k);
    if (s->n == 0)
        return kc_fail_param(err, KC_EINVAL, "n", "the dimension n is not set");
    if (s->n < 1 || s->n > KC_SIMNET_MAX_N)
        return kc_fail_param(err, KC_ERANGE, "n", "dimension n must be 1..%d, got %d", KC_SIMNET_MAX_N, s->n);
    return resolve_routing(s, cfg);
}

/* The routing, VC rule, tie, VC count and VC link rule per topology. */
static kc_status resolve_routing(kc_simspec *s, kc_simconfig *cfg)
{
    int torus = s->topo == KC_SIM_TORUS;
    if (s->route.algo == KC_ROUTE_AUTO)
        s->route.algo = s->topo == KC_SIM_HYPERCUBE ? KC_ROUTE_ECUBE : KC_ROUTE_DOR;
    /* VC rules only mean something on rings */
    if (s->route.vcrule == KC_VC_AUTO)
        s->route.vcrule = torus ? KC_VC_HIGHLOW : KC_VC_NONE;
    if (s->route.tie == KC_SIM_TIE_AUTO)
        s->route.tie = KC_TIE_PLUS;
    /* Two VCs where something needs them: a torus VC rule, Duato's escape channel. */
    if (s->vcs == 0)
        s->vcs = torus && s->route.algo == KC_ROUTE_DUATO ? 3 /* two escape VCs on rings */
                 : (torus && s->route.vcrule != KC_VC_NONE) || s->route.algo == KC_ROUTE_DUATO ? 2 : 1;
    if (cfg && cfg->vc_independent < 0)
        cfg->vc_independent = kc_sim_vc_link_default(s->topo, s->k);
    return KC_OK;
}

const char *kc_simspec_compare_configs(const kc_simspec *s)
{
    /* a general network has no linear mappings (M-S, M-G): its routings */
    if (s->network && !(kc_topology_is_plain(s->network) && s->k))
        return s->topo == KC_SIM_HYPERCUBE ? "ecube,pcube,duato" : "dor,duato";
    if (s->topo == KC_SIM_HYPERCUBE)
        return "ecube,M-S,M-G,pcube,duato";
    return s->topo == KC_SIM_TORUS && (s->k >= 2 && kci_is_pow2((uint64_t)s->k)) ? "dor,M-S,M-G" : "dor";
}

const char *kc_simspec_mapping_set(const kc_simspec *s)
{
    return s->topo == KC_SIM_HYPERCUBE ? "transpose,bit-reverse,reverse-flip" : "transpose,digit-reverse";
}

const kc_simconf_def kc_simconf_defs[] = {
    {"M-S", {"ms", "Map-S", NULL}, KC_ROUTE_AUTO, KC_SIMCONF_MAP_OPTIMAL,
     "deterministic routing (ecube, dor) with the optimal mapping for the pattern (--mapping optimal)"},
    {"M-G", {"mg", "Map-G", NULL}, KC_ROUTE_AUTO, KC_SIMCONF_MAP_SET,
     "deterministic routing (ecube, dor) with the mapping for the --set patterns (--mapping set:...)"},
    {NULL, {NULL}, KC_ROUTE_AUTO, KC_SIMCONF_MAP_GIVEN, NULL},
};

const kc_simconf_def *kc_simconf_find(const char *name)
{
    for (const kc_simconf_def *d = kc_simconf_defs; d->name; d++) {
        if (!strcmp(name, d->name))
            return d;
        for (int i = 0; d->aliases[i]; i++)
            if (!strcmp(name, d->aliases[i]))
                return d;
    }
    return NULL;
}

static char *dup_text(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

kc_status kc_simconf_parse(const char *token, const char *set, const char *run_mapping, kc_simalgo *algo,
                           char **mapping, kc_err *err)
{
    *mapping = NULL;
    const char *at = strchr(token, '@');
    size_t len = at ? (size_t)(at - token) : strlen(token);
    char *name = malloc(len + 1);
    if (!name)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    memcpy(name, token, len);
    name[len] = '\0';
    const kc_simconf_def *d = kc_simconf_find(name);
    kc_status st = KC_OK;
    if (d && at)
        st = kc_fail_param(err, KC_EINVAL, "configs",
                           "configuration '%s' runs its own mapping; ROUTING@MAPPING takes a routing (e.g. %s@FILE)",
                           name, d->algo == KC_ROUTE_AUTO ? "ecube" : kc_simalgo_name(d->algo));
    else if (d) {
        *algo = d->algo;
        *mapping = d->map == KC_SIMCONF_MAP_OPTIMAL ? dup_text("optimal", "")
                   : d->map == KC_SIMCONF_MAP_SET   ? dup_text("set:", set ? set : "")
                                                    : dup_text(run_mapping ? run_mapping : "none", "");
    } else if ((st = kc_simalgo_parse(name, algo, err)) == KC_OK) {
        *mapping = dup_text(at ? at + 1 : run_mapping ? run_mapping : "none", "");
    } else {
        err->param = "configs"; /* the name came from a configuration list */
    }
    free(name);
    if (st == KC_OK && !*mapping)
        st = kc_fail(err, KC_ENOMEM, "out of memory");
    return st;
}
