/* Scenarios: the network, routing, traffic and processor mapping that a
 * resolved kc_simspec names, built (kcube/simscenario.h). */
#include "kcube/simscenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/comm.h"
#include "kcube/lcc.h"
#include "kcube/mapset.h"
#include "kcube/reader.h"
#include "kcube/reorder.h"
#include "kcube/torus.h"
#include "kcube/torusmap.h"

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
        if (!(sc->net.k >= 2 && kci_is_pow2((uint64_t)sc->net.k)))
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

/* ---- general networks: ranks on the endpoints of an allocation ---------- */

/* 1 when a general network is one of today's (equal sides, C = 1, no
 * allocation, every axis wrapping or none): the plain paths apply. */
static int network_plain(const kc_topology *t) { return kc_topology_is_plain(t) && t->k != 0; }

/* A mapping file on a general network: S endpoint numbers, rank v's first,
 * read by the one reader of such lists (kc_topology_read_slots) and handed
 * on as endpoints. */
static kc_status read_places(const kc_topology *t, const char *path, uint32_t **out, kc_err *err)
{
    uint64_t S = kc_topology_slots(t), got = 0;
    *out = NULL;
    kc_reader *r;
    kc_status st = kc_reader_open(&r, path, "mapping file", "mapping_file", NULL, err);
    if (st)
        return st;
    uint32_t *a = malloc(S * sizeof *a);
    if (!a)
        st = kc_fail_param(err, KC_ENOMEM, "mapping_file", "out of memory");
    else
        st = kc_topology_read_slots(r, t, S, S, a, &got, err);
    kc_reader_close(r);
    for (uint64_t i = 0; st == KC_OK && i < S; i++)
        a[i] = (uint32_t)kc_topology_slot_endpoint(t, a[i]);
    if (st)
        free(a);
    else
        *out = a;
    return st;
}

/* A linear communication (a name or a matrix) on the job's ranks, in the
 * rank space every command uses (kc_comm_space: GF(k) for the common side
 * k when the ranks number a power of it, else GF(2)), so a pattern means
 * the same messages here as in analyze and map. */
static kc_status general_lcc(kc_simscenario *sc, const kc_simspec *s, const uint32_t *place, kc_err *err)
{
    uint64_t S = kc_simnet_slots(&sc->net);
    kc_topology space;
    kc_comm c;
    kc_status st = kc_comm_space(s->network, &space, err);
    if (!st)
        st = s->matrix ? kc_comm_parse(&c, &space, s->matrix, s->vector, s->scatter, err)
                       : kc_comm_named(&c, &space, s->pattern, err);
    if (!st && !c.linear)
        st = kc_fail_param(err, KC_EINVAL, "pattern", "pattern '%s' is not a linear communication", s->pattern);
    if (st)
        return st;
    uint32_t *src = malloc(S * sizeof *src), *dst = malloc(S * sizeof *dst);
    if (!src || !dst)
        st = kc_fail(err, KC_ENOMEM, "out of memory");
    for (uint64_t i = 0; st == KC_OK && i < S; i++) {
        uint64_t x, y;
        kc_tcomm_message(&c.t, i, &x, &y);
        src[i] = (uint32_t)x;
        dst[i] = (uint32_t)y;
    }
    if (st == KC_OK)
        st = kc_simtraffic_pairs_net(&sc->traffic, &sc->net, src, dst, S, place, err);
    free(src);
    free(dst);
    return st;
}

/* Mapping and traffic on a general network: uniform, pairs (ranks) and
 * the binary LCCs on 2^m ranks; mappings are files of endpoint numbers. */
static kc_status general_traffic(kc_simscenario *sc, const kc_simspec *s, kc_err *err)
{
    const char *m = s->mapping;
    uint32_t *place = NULL;
    kc_status st = KC_OK;
    if (m && strcmp(m, "none")) {
        if (!strcmp(m, "optimal") || !strncmp(m, "set:", 4))
            return kc_fail_param(err, KC_EINVAL, "mapping",
                                 "linear mappings need equal power-of-two sides, one endpoint per router and no "
                                 "allocation; give a mapping file of endpoint numbers");
        if ((st = read_places(s->network, m, &place, err)))
            return st;
        if (strlen(m) > 140)
            snprintf(sc->mapping_desc, sizeof sc->mapping_desc, "file %.137s...", m);
        else
            snprintf(sc->mapping_desc, sizeof sc->mapping_desc, "file %s", m);
    }
    if (s->pattern && !strcmp(s->pattern, "uniform"))
        st = kc_simtraffic_uniform_net(&sc->traffic, &sc->net, place, err);
    else if (s->pairs && s->pair_src)
        st = kc_simtraffic_pairs_net(&sc->traffic, &sc->net, s->pair_src, s->pair_dst, s->npairs, place, err);
    else if (s->pairs)
        st = kc_simtraffic_read_net(&sc->traffic, &sc->net, s->pairs, place, err);
    else
        st = general_lcc(sc, s, place, err);
    free(place);
    return st;
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
    st = s->network ? kc_simnet_from_topology(&sc->net, s->network, s->vcs, s->inj, s->ej, s->depth, err)
                    : kc_simnet_init(&sc->net, s->topo, s->k, s->n, s->vcs, s->inj, s->ej, s->depth, err);
    if (st)
        return st;
    if ((st = kc_simroute_check(&s->route, &sc->net, err)))
        goto fail;
    int sources = (s->pattern != NULL) + (s->matrix != NULL) + (s->pairs != NULL);
    if (sources != 1) {
        st = kc_fail_param(err, KC_EINVAL, "pattern", "give exactly one of a pattern, a matrix or a pairs file");
        goto fail;
    }
    if (s->network && !network_plain(s->network)) {
        if ((st = general_traffic(sc, s, err)))
            goto fail;
        goto contention;
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
    } else if (!cube && !uniform && !s->pairs && (sc->net.k >= 2 && kci_is_pow2((uint64_t)sc->net.k))) {
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
    } else if (s->pairs && s->pair_src) {
        st = kc_simtraffic_pairs(&sc->traffic, sc->net.nodes, s->pair_src, s->pair_dst, s->npairs, map, err);
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
    if (st || (s->self_traffic && !s->pairs && (st = kc_simtraffic_keep_fixed(&sc->traffic, err))))
        goto fail;
contention:
    if (!sc->traffic.uniform && (s->route.algo == KC_ROUTE_ECUBE || s->route.algo == KC_ROUTE_DOR))
        if ((st = kc_simtraffic_contention(&sc->net, &s->route, &sc->traffic, &sc->contention, err)))
            goto fail;
    return KC_OK;
fail:
    kc_simscenario_free(sc);
    return st;
}
