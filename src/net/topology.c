/* The planner's network value (kcube/topology.h): the routers' grid with its
 * sides and wraps, endpoints per router, an optional allocation; and the one
 * dimension-ordered route every counter and router of kcube follows. */
#include "kcube/topology.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/gfk.h"
#include "kcube/reader.h"

static const kc_name kind_entries[] = {
    {KC_TOPO_HYPERCUBE, "hypercube", "the binary n-cube (seed 000)"},
    {KC_TOPO_TORUS, "torus", "the k-ary n-cube: every axis a ring of k nodes (seed 002)"},
    {KC_TOPO_MESH, "mesh", "every axis a line of k nodes"},
    {0, NULL, NULL},
};
const kc_names kc_topo_kind_names = {"topology", kind_entries};

static uint64_t all_axes(int n) { return n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1; }

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
    t->wrap = t->kind == KC_TOPO_MESH ? 0 : all_axes(count);
    t->endpoints = 1;
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

kc_status kc_topology_shape(kc_topology *t, kc_topo_kind kind, const int *sides, int count, kc_tie tie,
                            kc_err *err)
{
    memset(t, 0, sizeof *t);
    if (kind != KC_TOPO_HYPERCUBE && kind != KC_TOPO_TORUS && kind != KC_TOPO_MESH)
        return kc_fail_param(err, KC_EINVAL, "topology", "unknown topology kind %d", (int)kind);
    t->kind = kind;
    t->tie = kind == KC_TOPO_TORUS ? tie : KC_TIE_PLUS;
    kc_status s = set_sides(t, sides, count, err);
    if (!s && kind == KC_TOPO_HYPERCUBE && t->k != 2)
        s = kc_fail_param(err, KC_EINVAL, "shape", "a hypercube has every side 2 (a torus or mesh has any sides)");
    return s;
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
    if (t->kind == KC_TOPO_HYPERCUBE && t->k != 2)
        return kc_fail_param(err, KC_EINVAL, "k", "a hypercube has k = 2, got k = %d", t->k);
    if (t->n < 64 && (t->wrap >> t->n))
        return kc_fail_param(err, KC_EINVAL, "wrap", "the wrap mask names an axis beyond the %d axes", t->n);
    if ((t->kind == KC_TOPO_MESH) != (t->wrap == 0))
        return kc_fail_param(err, KC_EINVAL, "wrap", "a %s must have %s", t->kind == KC_TOPO_MESH ? "mesh" : "torus",
                             t->kind == KC_TOPO_MESH ? "no axis that wraps" : "an axis that wraps");
    if (t->endpoints < 0 || t->endpoints > KC_TOPO_MAX_ENDPOINTS)
        return kc_fail_param(err, KC_ERANGE, "endpoints", "endpoints per router %d out of range 1..%d", t->endpoints,
                             KC_TOPO_MAX_ENDPOINTS);
    if ((t->alloc == NULL) != (t->alloc_count == 0))
        return kc_fail_param(err, KC_EINVAL, "nodes_file", "inconsistent allocation (list and count disagree)");
    for (uint32_t i = 0; i < t->alloc_count; i++)
        if (t->alloc[i] >= t->nodes)
            return kc_fail_param(err, KC_EINVAL, "nodes_file", "allocated router %u is outside the network",
                                 t->alloc[i]);
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

/* The sides as "16x12x16"; returns the characters written (as snprintf). */
static int format_sides(const kc_topology *t, char *buf, size_t size)
{
    int w = 0;
    for (int i = 0; i < t->n && w >= 0 && (size_t)w < size; i++)
        w += snprintf(buf + w, size - (size_t)w, "%s%d", i ? "x" : "", t->side[i]);
    return w;
}

/* Some axes wrap and some do not. */
static int partial_wrap(const kc_topology *t) { return t->wrap != 0 && t->wrap != all_axes(t->n); }

/* " (wrap 0,1,2,4)" when some but not all axes wrap. */
static int format_wrap(const kc_topology *t, char *buf, size_t size)
{
    if (!partial_wrap(t))
        return 0;
    int w = snprintf(buf, size, " (wrap ");
    const char *sep = "";
    for (int i = 0; i < t->n && w >= 0 && (size_t)w < size; i++)
        if (kc_topology_wraps(t, i)) {
            w += snprintf(buf + w, size - (size_t)w, "%s%d", sep, i);
            sep = ",";
        }
    if (w >= 0 && (size_t)w < size)
        w += snprintf(buf + w, size - (size_t)w, ")");
    return w;
}

char *kc_topology_format(const kc_topology *t, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    int w;
    if (t->kind == KC_TOPO_HYPERCUBE)
        w = snprintf(buf, size, "%d-cube", t->n);
    else if (t->k && !partial_wrap(t))
        w = snprintf(buf, size, "%d-ary %d-%s", t->k, t->n, t->kind == KC_TOPO_MESH ? "mesh" : "cube");
    else {
        w = snprintf(buf, size, "%s ", t->kind == KC_TOPO_MESH ? "mesh" : "torus");
        if (w >= 0 && (size_t)w < size)
            w += format_sides(t, buf + w, size - (size_t)w);
        if (w >= 0 && (size_t)w < size)
            w += format_wrap(t, buf + w, size - (size_t)w);
    }
    if (w >= 0 && (size_t)w < size && kc_topology_conc(t) > 1)
        w += snprintf(buf + w, size - (size_t)w, ", %d endpoints per router", kc_topology_conc(t));
    if (w >= 0 && (size_t)w < size && t->alloc)
        w += snprintf(buf + w, size - (size_t)w, ", %u routers allocated", t->alloc_count);
    size_t used = w < 0 ? 0 : (size_t)w;
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
    char nb[96];
    if (kc_topology_conc(t) > 1 || t->alloc || partial_wrap(t))
        return kc_fail_param(err, KC_EINVAL, kc_topology_conc(t) > 1 ? "endpoints" : t->alloc ? "nodes_file" : "wrap",
                             "%s needs one endpoint per router, the whole network and every axis wrapping or none; "
                             "the %s is not so", feature, kc_topology_format(t, nb, sizeof nb));
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
    s = kc_torus_init(out, t->k, t->n, t->wrap == 0, t->tie, err);
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
    if (!kc_topology_wraps(t, l.dim) && ((l.dir > 0 && c + 1 == s) || (l.dir < 0 && c == 0)))
        return UINT64_MAX;
    return l.from - (uint64_t)c * st + (uint64_t)d * st;
}

/* ---- the general network ------------------------------------------------ */

kc_status kc_topology_parse_wrap(const char *text, int n, uint64_t *mask, kc_err *err)
{
    if (!strcmp(text, "all") || !strcmp(text, "none")) {
        *mask = text[0] == 'a' ? all_axes(n) : 0;
        return KC_OK;
    }
    uint64_t m = 0;
    const char *p = text;
    for (;;) {
        char *end = NULL;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || *p == '-' || *p == '+' || errno || (*end && *end != ','))
            return kc_fail_param(err, KC_EINVAL, "wrap", "wrap list '%s' is not 'all', 'none' or axis numbers such as "
                                 "0,1,2,4", text);
        if (v >= n)
            return kc_fail_param(err, KC_EINVAL, "wrap", "wrap list '%s' names axis %ld, but the network has axes "
                                 "0..%d", text, v, n - 1);
        if (m >> v & 1)
            return kc_fail_param(err, KC_EINVAL, "wrap", "wrap list '%s' names axis %ld twice", text, v);
        m |= (uint64_t)1 << v;
        if (!*end)
            break;
        p = end + 1;
    }
    *mask = m;
    return KC_OK;
}

kc_status kc_topology_set_wrap(kc_topology *t, uint64_t mask, kc_err *err)
{
    if (mask & ~all_axes(t->n))
        return kc_fail_param(err, KC_EINVAL, "wrap", "the wrap mask names an axis beyond the %d axes", t->n);
    t->wrap = mask;
    if (!(t->kind == KC_TOPO_HYPERCUBE && mask == all_axes(t->n)))
        t->kind = mask ? KC_TOPO_TORUS : KC_TOPO_MESH;
    if (t->kind == KC_TOPO_MESH)
        t->tie = KC_TIE_PLUS;
    return KC_OK;
}

kc_status kc_topology_set_endpoints(kc_topology *t, int endpoints, kc_err *err)
{
    if (endpoints < 1 || endpoints > KC_TOPO_MAX_ENDPOINTS)
        return kc_fail_param(err, KC_ERANGE, "endpoints", "--endpoints %d is out of range 1..%d", endpoints,
                             KC_TOPO_MAX_ENDPOINTS);
    if (endpoints > 1 && (t->nodes == UINT64_MAX || t->nodes > UINT64_MAX / (uint64_t)endpoints))
        return kc_fail_param(err, KC_ERANGE, "endpoints", "the network is too large: 2^64 endpoints or more");
    t->endpoints = endpoints;
    return KC_OK;
}

kc_status kc_topology_set_alloc(kc_topology *t, const uint32_t *routers, uint32_t count, kc_err *err)
{
    if (!routers || !count) {
        t->alloc = NULL;
        t->alloc_count = 0;
        return KC_OK;
    }
    if (t->nodes > ((uint64_t)1 << 32))
        return kc_fail_param(err, KC_ERANGE, "nodes_file", "an allocation needs a network of at most 2^32 routers");
    uint8_t *seen = calloc((size_t)(t->nodes + 7) / 8, 1);
    if (!seen)
        return kc_fail(err, KC_ENOMEM, "out of memory for the allocation check");
    kc_status s = KC_OK;
    for (uint32_t i = 0; i < count && !s; i++) {
        uint32_t r = routers[i];
        if (r >= t->nodes)
            s = kc_fail_param(err, KC_EINVAL, "nodes_file", "allocated router %u is outside the network (0..%llu)", r,
                              (unsigned long long)(t->nodes - 1));
        else if (seen[r / 8] >> (r % 8) & 1)
            s = kc_fail_param(err, KC_EINVAL, "nodes_file", "router %u is allocated twice", r);
        else
            seen[r / 8] |= (uint8_t)(1u << (r % 8));
    }
    free(seen);
    if (!s) {
        t->alloc = routers;
        t->alloc_count = count;
    }
    return s;
}

int kc_topology_is_plain(const kc_topology *t)
{
    return kc_topology_conc(t) == 1 && !t->alloc && !partial_wrap(t);
}

uint64_t kc_topology_endpoint_count(const kc_topology *t)
{
    uint64_t c = (uint64_t)kc_topology_conc(t);
    if (t->nodes == UINT64_MAX || t->nodes > UINT64_MAX / c)
        return UINT64_MAX;
    return t->nodes * c;
}

uint64_t kc_topology_slots(const kc_topology *t)
{
    return t->alloc ? (uint64_t)t->alloc_count * (uint64_t)kc_topology_conc(t) : kc_topology_endpoint_count(t);
}

int kc_topology_ring_move(const kc_topology *t, int i, unsigned s, unsigned d)
{
    kc_torus view = {.k = t->side[i], .m = 0, .n = 1, .mesh = !kc_topology_wraps(t, i), .tie = t->tie,
                     .nodes = (uint64_t)t->side[i]};
    return kc_torus_ring_move(&view, s, d);
}

int kc_topology_route(const kc_topology *t, uint64_t src, uint64_t dst, void (*fn)(void *ctx, kc_link l), void *ctx)
{
    uint64_t at = src, st = 1;
    int hops = 0;
    for (int i = 0; i < t->n; i++) {
        unsigned side = (unsigned)t->side[i];
        unsigned s = (unsigned)((at / st) % side), d = (unsigned)((dst / st) % side);
        int mv = kc_topology_ring_move(t, i, s, d);
        int dir = mv > 0 ? 1 : -1, len = mv > 0 ? mv : -mv;
        for (int h = 0; h < len; h++) {
            kc_link l = {at, i, dir};
            if (fn)
                fn(ctx, l);
            unsigned c = (unsigned)((at / st) % side);
            unsigned next = dir > 0 ? (c + 1 == side ? 0 : c + 1) : (c == 0 ? side - 1 : c - 1);
            at = at - (uint64_t)c * st + (uint64_t)next * st;
            hops++;
        }
        st *= side;
    }
    return hops;
}

int kc_topology_diameter(const kc_topology *t)
{
    int d = 0;
    for (int i = 0; i < t->n; i++)
        d += kc_topology_wraps(t, i) ? t->side[i] / 2 : t->side[i] - 1;
    return d;
}

/* ---- allocations from files ---------------------------------------------- */

/* One line's router: a number, or n coordinates axis 0 first. */
static kc_status alloc_router(kc_reader *r, const kc_topology *t, kc_token *tok, int got, uint64_t *out, kc_err *err)
{
    if (got == 1) {
        kc_status s = kc_reader_check(r, &tok[0], t->nodes - 1, "router of this network", err);
        *out = tok[0].value;
        return s;
    }
    if (got != t->n)
        return kc_reader_fail_token(r, &tok[0], KC_EINVAL, err,
                                    "starts a line of %d numbers: give a router number or its %d coordinates", got,
                                    t->n);
    uint64_t x = 0, st = 1;
    for (int i = 0; i < t->n; i++) {
        char what[48];
        snprintf(what, sizeof what, "coordinate on axis %d", i);
        kc_status s = kc_reader_check(r, &tok[i], (uint64_t)t->side[i] - 1, what, err);
        if (s)
            return s;
        x += tok[i].value * st;
        st *= (uint64_t)t->side[i];
    }
    *out = x;
    return KC_OK;
}

/* Append router x, refusing a repeat. */
static kc_status alloc_add(kc_allocation *a, kc_reader *r, const kc_token *tok, uint64_t x, uint8_t *seen, size_t *cap,
                           kc_err *err)
{
    if (seen[x / 8] >> (x % 8) & 1)
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "names router %llu a second time",
                                    (unsigned long long)x);
    seen[x / 8] |= (uint8_t)(1u << (x % 8));
    if (a->count == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        uint32_t *g = realloc(a->router, nc * sizeof *g);
        if (!g)
            return kc_fail(err, KC_ENOMEM, "out of memory for the allocation");
        a->router = g;
        *cap = nc;
    }
    a->router[a->count++] = (uint32_t)x;
    return KC_OK;
}

kc_status kc_alloc_read(kc_allocation *a, kc_reader *r, const kc_topology *t, kc_err *err)
{
    memset(a, 0, sizeof *a);
    if (t->nodes > ((uint64_t)1 << 32) || t->n > 64)
        return kc_fail_param(err, KC_ERANGE, "nodes_file", "an allocation needs a network of at most 2^32 routers");
    uint8_t *seen = calloc((size_t)(t->nodes + 7) / 8, 1);
    if (!seen)
        return kc_fail(err, KC_ENOMEM, "out of memory for the allocation");
    size_t cap = 0;
    kc_status s = KC_OK;
    for (;;) {
        kc_token tok[64];
        int got = 0;
        uint64_t x = 0;
        s = kc_reader_record_some(r, tok, 1, t->n > 1 ? t->n : 1, "router (a number, or coordinates axis 0 first)",
                                  &got, err);
        if (s || got == 0)
            break;
        if ((s = alloc_router(r, t, tok, got, &x, err)) || (s = alloc_add(a, r, &tok[0], x, seen, &cap, err)))
            break;
    }
    free(seen);
    if (!s && a->count == 0)
        s = kc_fail_param(err, KC_EINVAL, "nodes_file", "%s names no router", kc_reader_name(r));
    if (s)
        kc_alloc_free(a);
    return s;
}

kc_status kc_alloc_read_path(kc_allocation *a, const char *path, const kc_topology *t, kc_err *err)
{
    kc_reader *r = NULL;
    memset(a, 0, sizeof *a);
    kc_status s = kc_reader_open(&r, path, "allocation file", "nodes_file", NULL, err);
    if (s)
        return s;
    s = kc_alloc_read(a, r, t, err);
    kc_reader_close(r);
    return s;
}

void kc_alloc_free(kc_allocation *a)
{
    free(a->router);
    a->router = NULL;
    a->count = 0;
}
