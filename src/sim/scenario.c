/* Scenarios: network + routing + pattern + mapping from their names. */
#include "kcube/simscenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/lcc.h"
#include "kcube/mapset.h"
#include "kcube/reader.h"
#include "kcube/reorder.h"
#include "kcube/torus.h"
#include "kcube/torusmap.h"

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

static int power_of_two(int k) { return k >= 2 && (k & (k - 1)) == 0; }

kc_status kc_simspec_resolve(kc_simspec *s, kc_simconfig *cfg, kc_err *err)
{
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
        s->vcs = (torus && s->route.vcrule != KC_VC_NONE) || s->route.algo == KC_ROUTE_DUATO ? 2 : 1;
    if (cfg && cfg->vc_independent < 0)
        cfg->vc_independent = kc_sim_vc_link_default(s->topo, s->k);
    return KC_OK;
}

const char *kc_simspec_compare_configs(const kc_simspec *s)
{
    if (s->topo == KC_SIM_HYPERCUBE)
        return "ecube,M-S,M-G,pcube,duato";
    return s->topo == KC_SIM_TORUS && power_of_two(s->k) ? "dor,M-S,M-G" : "dor";
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

void kc_simscenario_free(kc_simscenario *sc)
{
    kc_simnet_free(&sc->net);
    kc_simtraffic_free(&sc->traffic);
    if (sc->map.count)
        kc_nodemap_free(&sc->map);
    memset(sc, 0, sizeof *sc);
}

static uint64_t order_phys(const void *ctx, uint64_t v) { return kc_order_to_physical(ctx, v); }

static kc_status read_map(kc_nodemap *m, uint32_t nodes, const char *path, kc_err *err)
{
    kc_reader *r;
    kc_status st = kc_reader_open(&r, path, "mapping file", "mapping_file", NULL, err);
    if (st)
        return st;
    uint32_t *a = malloc((size_t)nodes * sizeof *a);
    if (!a)
        st = kc_fail_param(err, KC_ENOMEM, "mapping_file", "out of memory");
    if (st == KC_OK)
        st = kc_read_nodelist(r, a, nodes, 1, err);
    kc_reader_close(r);
    if (st == KC_OK)
        st = kc_nodemap_from_array(m, a, nodes, err);
    free(a);
    return st;
}

static kc_status hypercube_lcc(const kc_simspec *s, kc_lcc *c, kc_err *err)
{
    if (s->matrix) {
        kc_bitmat a;
        uint64_t b = 0;
        kc_status st = kc_bitmat_parse(&a, s->matrix, s->n, err);
        if (st == KC_OK && s->vector)
            st = kc_vec_parse(&b, s->vector, s->n, err);
        return st ? st : kc_lcc_init(c, &a, b, s->scatter, err);
    }
    const char *name = s->pattern;
    if (!strcmp(name, "digit-reverse"))
        name = "bit-reverse";
    else if (!strcmp(name, "digit-complement"))
        name = "complement";
    return kc_lcc_named(c, name, s->n, err);
}

/* A linear-constant communication over GF(k) on the k-ary n-cube. */
static kc_status torus_comm(const kc_simspec *s, int k, kc_tcomm *c, kc_err *err)
{
    if (s->matrix) {
        kc_gf f;
        kc_gfmat a;
        uint8_t b[KC_GFMAT_MAX] = {0};
        kc_status st = kc_gf_init(&f, k, err);
        if (st == KC_OK)
            st = kc_gfmat_parse(&f, &a, s->matrix, s->n, err);
        if (st == KC_OK && s->vector)
            st = kc_gfvec_parse(&f, b, s->vector, s->n, err);
        return st ? st : kc_tcomm_init(c, &f, &a, b, s->scatter, err);
    }
    return kc_tcomm_named(c, k, s->n, s->pattern, err);
}

#define SET_MAX 16

/* The patterns of a mapping set "P1,P2,..." (the text after "set:"), as
 * hypercube LCCs (lccs) or GF(k) communications (tcomms, k > 2): the one
 * reader of that list, of any length. */
static kc_status set_patterns(const char *list, const kc_simspec *s, int k, kc_lcc *lccs, kc_tcomm *tcomms,
                              int *cnt, kc_err *err)
{
    *cnt = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len) {
            if (*cnt == SET_MAX)
                return kc_fail_param(err, KC_ERANGE, "mapping", "at most %d patterns in a mapping set", SET_MAX);
            char *name = malloc(len + 1);
            if (!name)
                return kc_fail(err, KC_ENOMEM, "out of memory");
            memcpy(name, p, len);
            name[len] = '\0';
            kc_simspec one = *s;
            one.pattern = name;
            one.matrix = NULL;
            kc_status st = lccs ? hypercube_lcc(&one, &lccs[*cnt], err) : torus_comm(&one, k, &tcomms[*cnt], err);
            free(name);
            if (st)
                return st;
            ++*cnt;
        }
        p += len + (p[len] == ',');
    }
    if (!*cnt)
        return kc_fail_param(err, KC_EINVAL, "mapping", "a mapping set (set:P1,P2,...) needs at least one pattern");
    return KC_OK;
}

static kc_status torus_mapping(kc_simscenario *sc, const kc_simspec *s, const kc_tcomm *comm, kc_err *err)
{
    const char *m = s->mapping;
    kc_tcomm comms[SET_MAX];
    int cnt = 0;
    if (!strcmp(m, "optimal")) {
        if (!comm)
            return kc_fail_param(err, KC_EINVAL, "mapping",
                                 "the optimal mapping needs a linear pattern (not uniform or a pairs file)");
        comms[cnt++] = *comm;
    } else {
        kc_status st = set_patterns(m + 4, s, sc->net.k, NULL, comms, &cnt, err);
        if (st)
            return st;
    }
    kc_tmap map;
    kc_status st = kc_tmap_linear(comms, cnt, 0, &map, err);
    if (st)
        return st;
    char q[64 * 66];
    snprintf(sc->mapping_desc, sizeof sc->mapping_desc, "%s Q = %.120s", cnt == 1 && !strcmp(m, "optimal") ? "Map-S" : "Map-G",
             kc_gfmat_format(&map.q, q, sizeof q));
    return kc_tmap_nodemap(&map, &sc->map, err);
}

static kc_status set_mapping(kc_simscenario *sc, const kc_simspec *s, const kc_lcc *lcc, const kc_tcomm *tcomm,
                             kc_err *err)
{
    const char *m = s->mapping;
    kc_order order;
    if (sc->net.topo != KC_SIM_HYPERCUBE && (!strcmp(m, "optimal") || !strncmp(m, "set:", 4))) {
        if (!power_of_two(sc->net.k))
            return kc_fail_param(err, KC_EINVAL, "mapping", "linear mappings need k a power of two (GF(k)); give a mapping file");
        return torus_mapping(sc, s, tcomm, err);
    }
    if (!strcmp(m, "optimal")) {
        if (!lcc)
            return kc_fail_param(err, KC_EINVAL, "mapping",
                                 "the optimal mapping needs a linear pattern (not uniform or a pairs file)");
        kc_status st = kc_reorder_optimal(lcc, &order, err);
        if (st)
            return st;
        snprintf(sc->mapping_desc, sizeof sc->mapping_desc, "M-S order");
    } else if (!strncmp(m, "set:", 4)) {
        kc_lcc comms[SET_MAX];
        int cnt = 0;
        kc_status st = set_patterns(m + 4, s, 2, comms, NULL, &cnt, err);
        if (st)
            return st;
        kc_mapset_result r;
        st = kc_mapset_optimal(comms, cnt, KC_OBJ_MAX, &r, NULL, err);
        if (st)
            return st;
        order = r.order;
        snprintf(sc->mapping_desc, sizeof sc->mapping_desc, "M-G order");
    } else {
        kc_status st = read_map(&sc->map, sc->net.nodes, m, err);
        if (st)
            return st;
        /* a long path is shortened visibly (the file itself was read as given) */
        if (strlen(m) > 140)
            snprintf(sc->mapping_desc, sizeof sc->mapping_desc, "file %.137s...", m);
        else
            snprintf(sc->mapping_desc, sizeof sc->mapping_desc, "file %s", m);
        return KC_OK;
    }
    size_t len = strlen(sc->mapping_desc);
    for (int t = 0; t < order.n && len + 4 < sizeof sc->mapping_desc; t++)
        len += (size_t)snprintf(sc->mapping_desc + len, sizeof sc->mapping_desc - len, " %d", order.dim[t]);
    return kc_nodemap_build(&sc->map, sc->net.nodes, order_phys, &order, err);
}

kc_status kc_simscenario_build(kc_simscenario *sc, const kc_simspec *spec, kc_err *err)
{
    memset(sc, 0, sizeof *sc);
    sc->contention = -1;
    snprintf(sc->mapping_desc, sizeof sc->mapping_desc, "none");
    kc_simspec resolved = *spec;
    const kc_simspec *s = &resolved;
    kc_status st = kc_simspec_resolve(&resolved, NULL, err);
    if (st)
        return st;
    sc->route = s->route;
    if ((st = kc_simnet_init(&sc->net, s->topo, s->k, s->n, s->vcs, s->inj, s->ej, s->depth, err)))
        return st;
    if ((st = kc_simroute_check(&s->route, &sc->net, err)))
        goto fail;
    int sources = (s->pattern != NULL) + (s->matrix != NULL) + (s->pairs != NULL);
    if (sources != 1) {
        st = kc_fail_param(err, KC_EINVAL, "pattern", "give exactly one of a pattern, a matrix or a pairs file");
        goto fail;
    }
    int cube = sc->net.topo == KC_SIM_HYPERCUBE;
    int uniform = s->pattern && !strcmp(s->pattern, "uniform");
    kc_lcc lcc;
    kc_tcomm tcomm;
    int have_lcc = 0, have_tcomm = 0;
    if (cube && !uniform && !s->pairs) {
        if ((st = hypercube_lcc(s, &lcc, err)))
            goto fail;
        have_lcc = 1;
    } else if (!cube && !uniform && !s->pairs && power_of_two(sc->net.k)) {
        if ((st = torus_comm(s, sc->net.k, &tcomm, err)))
            goto fail;
        have_tcomm = 1;
    } else if (!cube && s->matrix) {
        st = kc_fail_param(err, KC_EINVAL, "matrix", "matrix patterns on k-ary n-cubes need k a power of two (GF(k))");
        goto fail;
    }
    const kc_nodemap *map = NULL;
    if (s->mapping && strcmp(s->mapping, "none")) {
        if ((st = set_mapping(sc, s, have_lcc ? &lcc : NULL, have_tcomm ? &tcomm : NULL, err)))
            goto fail;
        map = &sc->map;
    }
    if (uniform) {
        st = kc_simtraffic_uniform(&sc->traffic, sc->net.nodes, map, err);
    } else if (s->pairs) {
        st = kc_simtraffic_read(&sc->traffic, sc->net.nodes, s->pairs, map, err);
    } else if (have_lcc) {
        st = kc_simtraffic_lcc(&sc->traffic, &lcc, map, err);
    } else if (have_tcomm) {
        uint32_t *src = malloc(sc->net.nodes * sizeof *src), *dst = malloc(sc->net.nodes * sizeof *dst);
        if (!src || !dst)
            st = kc_fail(err, KC_ENOMEM, "out of memory");
        else if ((st = kc_tcomm_endpoints(&tcomm, src, dst, NULL, err)) == KC_OK)
            st = kc_simtraffic_pairs(&sc->traffic, sc->net.nodes, src, dst, sc->net.nodes, map, err);
        free(src);
        free(dst);
    } else {
        st = kc_simtraffic_digits(&sc->traffic, sc->net.k, sc->net.n, s->pattern, map, err);
    }
    if (st)
        goto fail;
    if (!uniform && (s->route.algo == KC_ROUTE_ECUBE || s->route.algo == KC_ROUTE_DOR))
        if ((st = kc_simtraffic_contention(&sc->net, &s->route, &sc->traffic, &sc->contention, err)))
            goto fail;
    return KC_OK;
fail:
    kc_simscenario_free(sc);
    return st;
}

kc_status kc_simtraffic_contention(const kc_simnet *net, const kc_simroute *route, const kc_simtraffic *t,
                                   long long *out, kc_err *err)
{
    *out = -1;
    if (t->uniform)
        return KC_OK;
    uint32_t *load = calloc(net->channels, sizeof *load);
    if (!load)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    uint32_t cand[KC_SIMROUTE_MAX], best = 0;
    for (uint32_t s = 0; s < net->nodes; s++)
        for (uint32_t j = t->start[s]; j < t->start[s + 1]; j++) {
            uint32_t node = s, in = kc_simnet_injch(net, s, 0), dst = t->dest[j];
            while (node != dst) {
                kc_simroute_candidates(route, net, node, dst, in, cand);
                in = cand[0];
                /* count per physical link: VCs share the link's bandwidth */
                uint32_t link = in / (uint32_t)net->vcs;
                if (++load[link] > best)
                    best = load[link];
                node = net->next_node[link];
            }
        }
    free(load);
    *out = best;
    return KC_OK;
}
