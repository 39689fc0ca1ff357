/* Link loads: exact counts and Theorems 1-4 (kcube/calmant_load.h). */
#include <stdlib.h>
#include <string.h>

#include "kcube/calmant_load.h"

#include "calmant_internal.h"

/* One message src -> dst: +1 at the start and -1 past the end of every
 * coordinate interval of links its DOR route uses. */
static void add_message(const kc_calmant *g, int32_t *diff, uint64_t src, uint64_t dst)
{
    kc_calmant_leg legs[KC_CALMANT_MAX_C];
    int nl = kc_calmant_route(g, src, dst, legs);
    uint64_t at = src, ports = 2 * (uint64_t)g->c;
    for (int j = 0; j < nl; j++) {
        kci_calmant_span sp[2];
        int ns = kci_calmant_leg_spans(g, at, &legs[j], sp, &at);
        uint64_t stride = 1ULL << (legs[j].axis * g->b);
        for (int q = 0; q < ns; q++) {
            diff[(sp[q].base + sp[q].lo * stride) * ports + (uint64_t)sp[q].port]++;
            if (sp[q].hi < g->side)
                diff[(sp[q].base + sp[q].hi * stride) * ports + (uint64_t)sp[q].port]--;
        }
    }
}

static kc_status check_input(const kc_calmant *g, kc_calmant_task t, kc_err *err)
{
    kc_status s = kc_calmant_task_check(t, g->d, err);
    if (!s && g->d > KC_CALMANT_LOAD_MAX_D)
        s = kc_fail_param(err, KC_ERANGE, "d", "exact link loads need d <= %d, got %d", KC_CALMANT_LOAD_MAX_D, g->d);
    return s;
}

kc_status kc_calmant_link_loads(const kc_calmant *g, kc_calmant_task t, uint32_t *load, kc_err *err)
{
    kc_status s = check_input(g, t, err);
    if (s)
        return s;
    uint64_t ports = 2 * (uint64_t)g->c, links = g->nodes * ports;
    int32_t *diff = (int32_t *)load; /* the table is reused in place */
    memset(diff, 0, links * sizeof *diff);
    for (uint64_t n = 0; n < g->nodes; n++) {
        uint64_t p = kc_calmant_to_physical(g, n);
        for (int k = t.i; k < t.i + t.m; k++)
            add_message(g, diff, p, kc_calmant_to_physical(g, n ^ (1ULL << k)));
    }
    /* prefix sums along every line of every axis, both directions */
    for (int a = 0; a < g->c; a++) {
        uint64_t stride = 1ULL << (a * g->b);
        for (uint64_t base = 0; base < g->nodes; base++) {
            if (kc_calmant_coord(g, base, a) != 0)
                continue;
            for (int m = 0; m < 2; m++) {
                uint64_t port = 2 * (uint64_t)a + (uint64_t)m;
                int32_t run = 0;
                for (uint64_t x = 0; x < g->side; x++) {
                    int32_t *c = &diff[(base + x * stride) * ports + port];
                    run += *c;
                    *c = run;
                }
            }
        }
    }
    return KC_OK;
}

kc_status kc_calmant_load_exact(const kc_calmant *g, kc_calmant_task t, kc_calmant_load *out, kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_status s = check_input(g, t, err);
    if (s)
        return s;
    uint64_t ports = 2 * (uint64_t)g->c, links = g->nodes * ports;
    uint32_t *load = malloc(links * sizeof *load);
    if (!load)
        return kc_fail(err, KC_ENOMEM, "out of memory (link loads)");
    s = kc_calmant_link_loads(g, t, load, err);
    if (!s) {
        for (uint64_t l = 0; l < links; l++)
            if (load[l] > out->max_load) {
                out->max_load = load[l];
                out->node = l / ports;
                out->axis = (int)(l % ports) / 2;
                out->dir = (l % 2) ? -1 : 1;
            }
        out->lower_bound = out->max_load > (uint64_t)t.m ? out->max_load : (uint64_t)t.m;
    }
    free(load);
    return s;
}

uint64_t kc_calmant_load_line(int i, int m)
{
    uint64_t top = 1ULL << (i + m + 1);
    return (m % 2 == 0 ? top - (2ULL << i) : top - (1ULL << i)) / 3;
}

uint64_t kc_calmant_load_mesh(int i, int m, int c)
{
    return kc_calmant_load_line((i + (m - 1) % c) / c, (m + c - 1) / c);
}

uint64_t kc_calmant_lower_bound(int i, int m, int c)
{
    uint64_t r = kc_calmant_load_mesh(i, m, c);
    return r > (uint64_t)m ? r : (uint64_t)m;
}
