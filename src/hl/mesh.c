/* HL on a q-mesh: each SIMD step is replayed as a phase of mesh hops. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "kcube/hl_mesh.h"

kc_status kc_hl_mesh_parse(kc_hl_mesh_shape *shape, const char *text, int n, kc_err *err)
{
    memset(shape, 0, sizeof *shape);
    int logs[KC_HL_MESH_MAX_Q], q = 0, total = 0;
    const char *p = text;
    if (!*p)
        return kc_fail(err, KC_EINVAL, "empty mesh shape (write sides like 4x4 or 2x8)");
    for (;;) {
        if (!isdigit((unsigned char)*p))
            return kc_fail(err, KC_EINVAL, "mesh shape '%s': expected sides like 4x4 or 2x8x4", text);
        char *end;
        unsigned long long side = strtoull(p, &end, 10);
        if (side < 2 || side > (1ULL << KC_HL_MESH_MAX_N) || (side & (side - 1)))
            return kc_fail(err, KC_EINVAL, "mesh shape '%s': side %llu is not a power of two >= 2", text, side);
        if (q == KC_HL_MESH_MAX_Q)
            return kc_fail(err, KC_EINVAL, "mesh shape '%s': more than %d sides", text, KC_HL_MESH_MAX_Q);
        logs[q] = kci_ctz64(side);
        total += logs[q++];
        p = end;
        if (!*p)
            break;
        if (*p != 'x' && *p != 'X' && *p != ',')
            return kc_fail(err, KC_EINVAL, "mesh shape '%s': sides are separated by 'x'", text);
        p++;
    }
    if (total != n)
        return kc_fail(err, KC_EINVAL, "mesh shape '%s' has 2^%d nodes, but the %d-cube has 2^%d: the sides must "
                       "multiply to 2^%d", text, total, n, n, n);
    shape->q = q;
    for (int a = 0; a < q; a++) /* written most significant axis first */
        shape->side_log[a] = logs[q - 1 - a];
    return KC_OK;
}

char *kc_hl_mesh_format(const kc_hl_mesh_shape *shape, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int a = shape->q - 1; a >= 0 && used < size; a--)
        used += (size_t)snprintf(buf + used, size - used, "%s%llu", a == shape->q - 1 ? "" : "x",
                                 1ULL << shape->side_log[a]);
    return buf;
}

uint64_t kc_hl_mesh_bound(const kc_hl_mesh_shape *shape)
{
    uint64_t s = 0;
    for (int a = 0; a < shape->q; a++)
        s += (1ULL << shape->side_log[a]) - 1;
    return s;
}

typedef struct msg {
    uint32_t at, to;
} msg;

/* One phase: every message walks along one axis (stride = node-index step
 * of one mesh hop) to its target. Returns the mesh steps taken. */
static uint64_t run_phase(msg *m, uint64_t count, uint64_t stride, uint32_t *link_stamp, uint32_t *link_req,
                          uint32_t *stamp, kc_hl_mesh_result *out)
{
    uint64_t steps = 0, left = count;
    while (left) {
        ++*stamp;
        steps++;
        uint64_t k = 0;
        for (uint64_t i = 0; i < left; i++) {
            msg *g = &m[i];
            int up = g->to > g->at;
            size_t link = (size_t)g->at * 2 + (size_t)up; /* directed link leaving g->at */
            if (link_stamp[link] == *stamp) { /* taken this step: wait */
                if ((int)++link_req[link] > out->max_link_load)
                    out->max_link_load = (int)link_req[link];
                out->waits++;
                m[k++] = *g;
                continue;
            }
            link_stamp[link] = *stamp;
            link_req[link] = 1;
            if (out->max_link_load < 1)
                out->max_link_load = 1;
            g->at = up ? (uint32_t)(g->at + stride) : (uint32_t)(g->at - stride);
            out->hops++;
            if (g->at != g->to)
                m[k++] = *g;
        }
        left = k;
    }
    return steps;
}

kc_status kc_hl_mesh_route(const kc_hl_mesh_shape *shape, const uint32_t *dst, const kc_hl_opts *opts,
                           kc_hl_result *hl, kc_hl_mesh_result *out, kc_err *err)
{
    int n = 0, off[KC_HL_MESH_MAX_Q + 1];
    for (int a = 0; a < shape->q; a++) {
        off[a] = n;
        n += shape->side_log[a];
    }
    if (n < 1 || n > KC_HL_MESH_MAX_N)
        return kc_fail(err, KC_ERANGE, "mesh simulation supports 2..2^%d nodes, got 2^%d", KC_HL_MESH_MAX_N, n);
    memset(out, 0, sizeof *out);
    out->bound = kc_hl_mesh_bound(shape);
    kc_hl_engine e;
    kc_status s = kc_hl_engine_init(&e, n, dst, 2, 1, err);
    if (s)
        return s;
    kc_hl_result res;
    s = kc_hl_run(&e, opts, &res, err);
    if (s) {
        kc_hl_engine_free(&e);
        return s;
    }
    const uint64_t np = 1ULL << n;
    msg *m = malloc(np * sizeof *m);
    uint32_t *link_stamp = calloc(np * 2, sizeof *link_stamp), *link_req = calloc(np * 2, sizeof *link_req);
    if (!m || !link_stamp || !link_req) {
        free(m);
        free(link_stamp);
        free(link_req);
        kc_hl_engine_free(&e);
        return kc_fail(err, KC_ENOMEM, "out of memory for the mesh simulation");
    }
    uint32_t stamp = 0;
    out->phases = res.steps;
    for (int t = 0; t < res.steps; t++) {
        int d = res.dims[t], a = 0;
        while (a + 1 < shape->q && off[a + 1] <= d)
            a++;
        uint64_t stride = 1ULL << off[a]; /* index step of one hop along axis a */
        uint64_t count = 0;
        for (uint64_t x = 0; x < np; x++) {
            size_t at = (size_t)t * np + x;
            if (e.sent_tag[at] == KC_HL_NONE)
                continue;
            m[count].at = (uint32_t)x;
            m[count].to = (uint32_t)(x ^ (1ULL << e.sent_dim[at]));
            count++;
        }
        out->phase_dim[t] = d;
        out->messages += count;
        out->phase_steps[t] = count ? run_phase(m, count, stride, link_stamp, link_req, &stamp, out) : 0;
        out->mesh_steps += out->phase_steps[t];
    }
    out->routed = res.routed;
    if (hl)
        *hl = res;
    free(m);
    free(link_stamp);
    free(link_req);
    kc_hl_engine_free(&e);
    return KC_OK;
}
