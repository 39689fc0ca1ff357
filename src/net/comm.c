/* One communication descriptor over GF(2) or GF(k) (kcube/comm.h). */
#include "kcube/comm.h"

#include <stdio.h>
#include <string.h>

#include "core/near.h"

#include "kcube/gfk.h"

#define FEATURE "a linear communication"

/* GF(2) engine value -> GF(k) engine value with k = 2, and back. */
static kc_status lcc_to_tcomm(const kc_lcc *l, kc_tcomm *out, kc_err *err)
{
    kc_gf f;
    kc_gfmat a;
    uint8_t b[KC_GFMAT_MAX] = {0};
    int n = l->a.n;
    kc_status s = kc_gf_init(&f, 2, err);
    if (s)
        return s;
    kc_gfmat_zero(&a, n);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            a.e[i][j] = (uint8_t)kc_bitmat_get(&l->a, i, j);
        b[i] = (uint8_t)((l->b >> i) & 1);
    }
    if ((s = kc_tcomm_init(out, &f, &a, b, l->kind == KC_LCC_SCATTER, err)))
        return s;
    snprintf(out->name, sizeof out->name, "%s", l->name);
    return KC_OK;
}

static kc_status tcomm_to_lcc(const kc_tcomm *tc, kc_lcc *out, kc_err *err)
{
    kc_bitmat a;
    uint64_t b = 0;
    int n = tc->a.n;
    kc_bitmat_zero(&a, n);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            kc_bitmat_set(&a, i, j, tc->a.e[i][j]);
        b |= (uint64_t)(tc->b[i] & 1) << i;
    }
    kc_status s = kc_lcc_init(out, &a, b, tc->kind == KC_TCOMM_SCATTER, err);
    if (!s)
        snprintf(out->name, sizeof out->name, "%s", tc->name);
    return s;
}

static kc_status check_topology(const kc_topology *t, kc_err *err)
{
    kc_status s = kc_topology_validate(t, err);
    if (!s)
        s = kc_topology_need_gf(t, FEATURE, err);
    if (!s && t->n > KC_GFMAT_MAX)
        s = kc_fail_param(err, KC_ERANGE, "n", "%s supports n <= %d, got n = %d", FEATURE, KC_GFMAT_MAX, t->n);
    return s;
}

kc_status kc_comm_from_tcomm(kc_comm *c, const kc_topology *t, const kc_tcomm *tc, kc_err *err)
{
    kc_status s = check_topology(t, err);
    if (s)
        return s;
    if (tc->f.k != t->k || tc->a.n != t->n)
        return kc_fail_param(err, KC_EINVAL, "n", "communication over GF(%d)^%d does not fit the topology (k = %d, n = %d)",
                             tc->f.k, tc->a.n, t->k, t->n);
    kc_tcomm copy = *tc;
    memset(c, 0, sizeof *c);
    c->k = t->k;
    c->n = t->n;
    c->t = copy;
    c->linear = copy.kind != KC_TCOMM_UNIFORM;
    snprintf(c->name, sizeof c->name, "%s", copy.name);
    if (c->k == 2 && c->linear) {
        if ((s = tcomm_to_lcc(&c->t, &c->lcc, err)))
            return s;
        c->has_lcc = 1;
    }
    return KC_OK;
}

kc_status kc_comm_from_lcc(kc_comm *c, const kc_topology *t, const kc_lcc *l, kc_err *err)
{
    kc_status s = check_topology(t, err);
    if (s)
        return s;
    if (t->k != 2 || l->a.n != t->n)
        return kc_fail_param(err, KC_EINVAL, "n", "a GF(2) communication on %d dimensions does not fit k = %d, n = %d",
                             l->a.n, t->k, t->n);
    kc_tcomm tc;
    if ((s = lcc_to_tcomm(l, &tc, err)))
        return s;
    return kc_comm_from_tcomm(c, t, &tc, err);
}

/* The i-th pattern name of a family (hypercube or GF(k)), NULL past the last. */
static const char *pattern_name(int binary, size_t i)
{
    if (binary) {
        const kc_pattern_info *info = kc_lcc_pattern(i);
        return info ? info->name : NULL;
    }
    const kc_tpattern_info *info = kc_tcomm_pattern(i);
    return info ? info->name : NULL;
}

/* Is `name` (its part before ':') listed by the family's pattern table? */
static int listed(const char *name, int binary)
{
    size_t base = strcspn(name, ":");
    const char *p;
    for (size_t i = 0; (p = pattern_name(binary, i)); i++)
        if (strcspn(p, ":") == base && strncmp(p, name, base) == 0)
            return 1;
    return 0;
}

/* "a, b, c" of the family's names into buf (cut with "..." if needed). */
static void family_list(int binary, char *buf, size_t size)
{
    size_t used = 0;
    const char *p;
    buf[0] = '\0';
    for (size_t i = 0; (p = pattern_name(binary, i)); i++) {
        int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", p);
        if (w < 0 || used + (size_t)w >= size) {
            if (size >= 4)
                memcpy(buf + size - 4, "...", 4);
            return;
        }
        used += (size_t)w;
    }
}

/* " (did you mean 'NAME'?)" for the pattern of the families in use (the
 * hypercube's too when binary) that name nearly is, or "". */
static void suggest(const char *name, int binary, char *buf, size_t size)
{
    kci_near near;
    kci_near_init(&near, name, strcspn(name, ":"));
    const char *p;
    for (int fam = binary; fam >= 0; fam--)
        for (size_t i = 0; (p = pattern_name(fam, i)); i++)
            kci_near_offer(&near, p, strcspn(p, ":"));
    size_t len;
    const char *best = kci_near_best(&near, &len);
    if (best)
        snprintf(buf, size, " (did you mean '%.*s'?)", (int)len, best);
    else
        buf[0] = '\0';
}

kc_status kc_comm_named(kc_comm *c, const kc_topology *t, const char *name, kc_err *err)
{
    kc_status s = check_topology(t, err);
    if (s)
        return s;
    /* On k = 2 the hypercube family comes first (seed 000's names). */
    if (t->k == 2 && listed(name, 1)) {
        kc_lcc l;
        if ((s = kc_lcc_named(&l, name, t->n, err)))
            return s;
        return kc_comm_from_lcc(c, t, &l, err);
    }
    kc_tcomm tc;
    kc_err quiet = {0};
    s = kc_tcomm_named(&tc, t->k, t->n, name, &quiet);
    if (s == KC_OK)
        return kc_comm_from_tcomm(c, t, &tc, err);
    if (listed(name, 0) || strncmp(name, "bit-", 4) == 0 || strcmp(name, "complement") == 0) {
        if (err)
            *err = quiet; /* a known name used wrongly (argument, odd n) */
        if (err)
            err->param = "pattern";
        return s;
    }
    char topo[64], list[200], hint[96];
    kc_topology_format(t, topo, sizeof topo);
    family_list(t->k == 2, list, sizeof list);
    suggest(name, t->k == 2, hint, sizeof hint);
    if (t->k == 2) {
        char more[200];
        family_list(0, more, sizeof more);
        return kc_fail_param(err, KC_EINVAL, "pattern", "unknown pattern '%s'%s; on the %s use one of: %s; or %s", name,
                             hint, topo, list, more);
    }
    if (listed(name, 1))
        return kc_fail_param(err, KC_EINVAL, "pattern", "%.*s is a hypercube pattern; on the %s use one of: %s",
                             (int)strcspn(name, ":"), name, topo, list);
    return kc_fail_param(err, KC_EINVAL, "pattern", "unknown pattern '%s'%s; on the %s use one of: %s", name, hint,
                         topo, list);
}

kc_status kc_comm_parse(kc_comm *c, const kc_topology *t, const char *matrix, const char *vector, int scatter,
                        kc_err *err)
{
    kc_status s = check_topology(t, err);
    if (s)
        return s;
    kc_gf f;
    kc_gfmat a;
    uint8_t b[KC_GFMAT_MAX] = {0};
    if ((s = kc_gf_init(&f, t->k, err)))
        return s;
    if (t->k == 2) {
        /* The hypercube syntax: rows of n bits, or separated entries. */
        kc_bitmat bm;
        uint64_t bv = 0;
        if ((s = kc_bitmat_parse(&bm, matrix, t->n, err))) {
            if (err)
                err->param = "matrix";
            return s;
        }
        if (vector && (s = kc_vec_parse(&bv, vector, t->n, err))) {
            if (err)
                err->param = "vector";
            return s;
        }
        kc_gfmat_zero(&a, t->n);
        for (int i = 0; i < t->n; i++) {
            for (int j = 0; j < t->n; j++)
                a.e[i][j] = (uint8_t)kc_bitmat_get(&bm, i, j);
            b[i] = (uint8_t)((bv >> i) & 1);
        }
    } else {
        if ((s = kc_gfmat_parse(&f, &a, matrix, t->n, err))) {
            if (err)
                err->param = "matrix";
            return s;
        }
        if (vector && (s = kc_gfvec_parse(&f, b, vector, t->n, err))) {
            if (err)
                err->param = "vector";
            return s;
        }
    }
    int rank = kc_gfmat_rank(&f, &a);
    if (scatter && rank == t->n)
        return kc_fail_param(err, KC_EINVAL, "scatter",
                             "a scatter needs a singular matrix (rank < n), but this one has rank %d = n: it is a "
                             "permutation",
                             rank);
    kc_tcomm tc;
    if ((s = kc_tcomm_init(&tc, &f, &a, b, scatter, err)))
        return s;
    return kc_comm_from_tcomm(c, t, &tc, err);
}

const char *kc_comm_kind_name(const kc_comm *c) { return kc_tcomm_kind_name(c->t.kind); }

int kc_comm_rank(const kc_comm *c) { return c->linear ? c->t.rank : 0; }

/* m with k^m == v, or -1 when v is no power of k. */
static int power_of(uint64_t v, int k)
{
    int m = 0;
    while (v > 1 && v % (uint64_t)k == 0) {
        v /= (uint64_t)k;
        m++;
    }
    return v == 1 ? m : -1;
}

kc_status kc_comm_space(const kc_topology *t, kc_topology *space, kc_err *err)
{
    kc_status s = kc_topology_validate(t, err);
    if (s)
        return s;
    if (kc_topology_need_gf(t, FEATURE, NULL) == KC_OK) {
        *space = *t;
        return KC_OK;
    }
    uint64_t slots = kc_topology_slots(t);
    int k = t->k >= 2 && kc_gf_polynomial(t->k) && power_of(slots, t->k) > 0 ? t->k : 2;
    int m = power_of(slots, k);
    if ((m < 1 || m > KC_GFMAT_MAX) && kc_topology_is_plain(t))
        return kc_topology_need_gf(t, FEATURE, err); /* today's networks keep today's answer */
    if (m < 1 || m > KC_GFMAT_MAX) {
        char nb[96], parts[64] = "";
        const char *param = kc_topology_conc(t) > 1 ? "endpoints" : t->alloc ? "nodes_file" : "shape";
        if (kc_topology_conc(t) > 1 || t->alloc)
            snprintf(parts, sizeof parts, " (%llu routers x %d endpoints)",
                     (unsigned long long)(slots / (uint64_t)kc_topology_conc(t)), kc_topology_conc(t));
        return kc_fail_param(err, KC_EINVAL, param,
                             "a linear communication places rank r on slot r, so it needs 2^m slots (m <= %d); the "
                             "%s has %llu%s",
                             KC_GFMAT_MAX, kc_topology_format(t, nb, sizeof nb), (unsigned long long)slots, parts);
    }
    return k == 2 ? kc_topology_hypercube(space, m, err) : kc_topology_torus(space, k, m, KC_TIE_PLUS, err);
}
