/* The planner's topology value: hypercube, torus or mesh (kcube/topology.h). */
#include "kcube/topology.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/gfk.h"

static const kc_name kind_entries[] = {
    {KC_TOPO_HYPERCUBE, "hypercube", "the binary n-cube (seed 000)"},
    {KC_TOPO_TORUS, "torus", "the k-ary n-cube: every axis a ring of k nodes (seed 002)"},
    {KC_TOPO_MESH, "mesh", "every axis a line of k nodes"},
    {0, NULL, NULL},
};
const kc_names kc_topo_kind_names = {"topology", kind_entries};

/* Fill sides and nodes; checks the sizes. */
static kc_status set_sides(kc_topology *t, const int *sides, int count, kc_err *err)
{
    if (count < 1 || count > KC_TOPO_MAX_DIMS)
        return kc_fail_param(err, KC_ERANGE, "n", "n = %d is out of range 1..%d", count, KC_TOPO_MAX_DIMS);
    uint64_t nodes = 1;
    int equal = 1;
    for (int i = 0; i < count; i++) {
        if (sides[i] < 2 || sides[i] > KC_TOPO_MAX_SIDE)
            return kc_fail_param(err, KC_ERANGE, count > 1 && t->kind == KC_TOPO_MESH && !t->k ? "shape" : "k",
                                 "side %d of axis %d is out of range 2..%d", sides[i], i, KC_TOPO_MAX_SIDE);
        /* nodes stays a power of two times the earlier sides; 2^64 exactly
         * (the 64-cube, or 4-ary 32-cube) saturates to UINT64_MAX */
        unsigned __int128 next = (unsigned __int128)nodes * (unsigned)sides[i];
        if (next > ((unsigned __int128)1 << KC_TOPO_MAX_BITS))
            return kc_fail_param(err, KC_ERANGE, "n", "the network is too large: more than 2^%d nodes",
                                 KC_TOPO_MAX_BITS);
        nodes = next > UINT64_MAX ? UINT64_MAX : (uint64_t)next;
        t->side[i] = sides[i];
        equal &= sides[i] == sides[0];
    }
    for (int i = count; i < KC_TOPO_MAX_DIMS; i++)
        t->side[i] = 0;
    t->n = count;
    t->k = equal ? sides[0] : 0;
    t->nodes = nodes;
    return KC_OK;
}

static kc_status uniform(kc_topology *t, kc_topo_kind kind, int k, int n, kc_tie tie, kc_err *err)
{
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->tie = tie;
    if (k < 2 || k > KC_TOPO_MAX_SIDE)
        return kc_fail_param(err, KC_ERANGE, "k", "k = %d is out of range 2..%d", k, KC_TOPO_MAX_SIDE);
    if (n < 1 || n > KC_TOPO_MAX_DIMS)
        return kc_fail_param(err, KC_ERANGE, "n", "n = %d is out of range 1..%d", n, KC_TOPO_MAX_DIMS);
    int sides[KC_TOPO_MAX_DIMS];
    for (int i = 0; i < n; i++)
        sides[i] = k;
    t->k = k;
    return set_sides(t, sides, n, err);
}

kc_status kc_topology_hypercube(kc_topology *t, int n, kc_err *err)
{
    return uniform(t, KC_TOPO_HYPERCUBE, 2, n, KC_TIE_PLUS, err);
}

kc_status kc_topology_torus(kc_topology *t, int k, int n, kc_tie tie, kc_err *err)
{
    return uniform(t, KC_TOPO_TORUS, k, n, tie, err);
}

kc_status kc_topology_mesh(kc_topology *t, int k, int n, kc_err *err)
{
    return uniform(t, KC_TOPO_MESH, k, n, KC_TIE_PLUS, err);
}

kc_status kc_topology_mesh_shape(kc_topology *t, const int *sides, int count, kc_err *err)
{
    memset(t, 0, sizeof *t);
    t->kind = KC_TOPO_MESH;
    t->tie = KC_TIE_PLUS;
    return set_sides(t, sides, count, err);
}

kc_status kc_topology_init(kc_topology *t, kc_topo_kind kind, int k, int n, kc_tie tie, kc_err *err)
{
    switch (kind) {
    case KC_TOPO_HYPERCUBE:
        if (k != 2) {
            memset(t, 0, sizeof *t);
            return kc_fail_param(err, KC_EINVAL, "k", "a hypercube has k = 2, got k = %d (a torus has any k)", k);
        }
        return kc_topology_hypercube(t, n, err);
    case KC_TOPO_TORUS: return kc_topology_torus(t, k, n, tie, err);
    case KC_TOPO_MESH: return kc_topology_mesh(t, k, n, err);
    }
    memset(t, 0, sizeof *t);
    return kc_fail_param(err, KC_EINVAL, "topology", "unknown topology kind %d", (int)kind);
}

kc_status kc_topology_parse_shape(const char *text, int *sides, int *count, kc_err *err)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end = NULL;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || *p == '-' || *p == '+' || errno)
            return kc_fail_param(err, KC_EINVAL, "shape", "shape '%s' is not of the form AxBx... (axis 0 first)",
                                 text);
        if (v < 2 || v > KC_TOPO_MAX_SIDE)
            return kc_fail_param(err, KC_ERANGE, "shape", "side %ld of axis %d in shape '%s' is out of range 2..%d",
                                 v, n, text, KC_TOPO_MAX_SIDE);
        if (n == KC_TOPO_MAX_DIMS)
            return kc_fail_param(err, KC_ERANGE, "shape", "shape '%s' has more than %d axes", text,
                                 KC_TOPO_MAX_DIMS);
        sides[n++] = (int)v;
        if (*end == '\0')
            break;
        if (*end != 'x')
            return kc_fail_param(err, KC_EINVAL, "shape", "shape '%s' is not of the form AxBx... (axis 0 first)",
                                 text);
        p = end + 1;
    }
    *count = n;
    return KC_OK;
}

kc_status kc_topology_validate(const kc_topology *t, kc_err *err)
{
    if (t->kind != KC_TOPO_HYPERCUBE && t->kind != KC_TOPO_TORUS && t->kind != KC_TOPO_MESH)
        return kc_fail_param(err, KC_EINVAL, "topology", "unknown topology kind %d", (int)t->kind);
    if (t->tie != KC_TIE_PLUS && t->tie != KC_TIE_MINUS && t->tie != KC_TIE_SPLIT)
        return kc_fail_param(err, KC_EINVAL, "tie", "unknown tie rule %d", (int)t->tie);
    kc_topology copy = *t;
    kc_status s = set_sides(&copy, t->side, t->n, err);
    if (s)
        return s;
    if (copy.nodes != t->nodes || copy.k != t->k)
        return kc_fail_param(err, KC_EINVAL, "k", "inconsistent topology: k = %d and nodes = %llu do not match the "
                             "sides", t->k, (unsigned long long)t->nodes);
    if (t->kind != KC_TOPO_MESH && !t->k)
        return kc_fail_param(err, KC_EINVAL, "shape", "only a mesh may have unequal sides");
    if (t->kind == KC_TOPO_HYPERCUBE && t->k != 2)
        return kc_fail_param(err, KC_EINVAL, "k", "a hypercube has k = 2, got k = %d", t->k);
    return KC_OK;
}

const char *kc_topology_nodes_text(const kc_topology *t, char *buf, size_t size)
{
    if (t->nodes == UINT64_MAX)
        snprintf(buf, size, "18446744073709551616"); /* 2^64, the only saturated count */
    else
        snprintf(buf, size, "%llu", (unsigned long long)t->nodes);
    return buf;
}

char *kc_topology_format(const kc_topology *t, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    size_t used;
    int w;
    if (t->kind == KC_TOPO_HYPERCUBE)
        w = snprintf(buf, size, "%d-cube", t->n);
    else if (t->k)
        w = snprintf(buf, size, "%d-ary %d-%s", t->k, t->n, t->kind == KC_TOPO_MESH ? "mesh" : "cube");
    else {
        w = snprintf(buf, size, "mesh ");
        for (int i = 0; i < t->n && w >= 0 && (size_t)w < size; i++)
            w += snprintf(buf + w, size - (size_t)w, "%s%d", i ? "x" : "", t->side[i]);
    }
    used = w < 0 ? 0 : (size_t)w;
    if (used >= size && size >= 4) /* cut: say so */
        memcpy(buf + size - 4, "...", 4);
    return buf;
}

int kc_topology_is_binary(const kc_topology *t)
{
    return t->k == 2 && (t->kind == KC_TOPO_HYPERCUBE || t->kind == KC_TOPO_TORUS);
}

kc_status kc_topology_need_gf(const kc_topology *t, const char *feature, kc_err *err)
{
    if (!t->k) {
        char buf[64];
        return kc_fail_param(err, KC_EINVAL, "shape",
                             "%s needs equal sides (one field GF(k) for every axis); the %s has unequal sides",
                             feature, kc_topology_format(t, buf, sizeof buf));
    }
    if (kc_gf_polynomial(t->k) == 0)
        return kc_fail_param(err, KC_EINVAL, "k", "%s needs GF(k) arithmetic, so k must be a power of two; got k = %d",
                             feature, t->k);
    return KC_OK;
}

kc_status kc_topology_to_torus(const kc_topology *t, kc_torus *out, const char *feature, kc_err *err)
{
    kc_status s = kc_topology_need_gf(t, feature, err);
    if (s)
        return s;
    s = kc_torus_init(out, t->k, t->n, t->kind == KC_TOPO_MESH, t->tie, err);
    if (s && err)
        err->param = "n";
    return s;
}

/* Stride of axis i: the product of the sides below it. */
static uint64_t stride(const kc_topology *t, int i)
{
    uint64_t s = 1;
    for (int j = 0; j < i; j++)
        s *= (uint64_t)t->side[j];
    return s;
}

unsigned kc_topology_coord(const kc_topology *t, uint64_t x, int i)
{
    return (unsigned)((x / stride(t, i)) % (uint64_t)t->side[i]);
}

uint64_t kc_topology_link_to(const kc_topology *t, kc_link l)
{
    uint64_t st = stride(t, l.dim);
    unsigned s = (unsigned)t->side[l.dim], c = kc_topology_coord(t, l.from, l.dim);
    unsigned d;
    if (l.dir > 0)
        d = c + 1 < s ? c + 1 : 0;
    else
        d = c > 0 ? c - 1 : s - 1;
    if (t->kind == KC_TOPO_MESH && ((l.dir > 0 && c + 1 == s) || (l.dir < 0 && c == 0)))
        return UINT64_MAX;
    return l.from - (uint64_t)c * st + (uint64_t)d * st;
}
