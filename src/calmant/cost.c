/* CALMANT cost model (kcube/calmant_cost.h). */
#include <string.h>

#include "kcube/calmant_cost.h"
#include "kcube/calmant_embed.h"
#include "kcube/calmant_load.h"
#include "kcube/calmant_task.h"

/* The generator's rule per subtask (src/calmant/sched.c): x <= c, x = 2c
 * and <i,4>_3 with LB 4 take LB; the other c < x < 2c take two steps per
 * window, ceil(LB/2) windows (>= c there). */
uint64_t kc_calmant_steps(int i, int m, int c)
{
    kc_calmant_task parts[KC_CALMANT_MAX_D + 1];
    size_t n = kc_calmant_decompose((kc_calmant_task){i, m}, c, parts);
    uint64_t s = 0;
    for (size_t j = 0; j < n; j++) {
        int x = parts[j].m;
        uint64_t lb = kc_calmant_lower_bound(parts[j].i, x, c);
        if (c == 1 || x <= c || x == 2 * c || (c == 3 && x == 4 && lb == 4))
            s += lb;
        else
            s += 2 * ((lb + 1) / 2); /* ceil(LB/2) two-step windows */
    }
    return s;
}

static void add_task(kc_calmant_time *out, kc_calmant_task t, int c, uint64_t times)
{
    out->steps += times * kc_calmant_steps(t.i, t.m, c);
    out->lb_steps += times * kc_calmant_lower_bound(t.i, t.m, c);
    out->rho_steps += times * kc_calmant_load_mesh(t.i, t.m, c);
}

kc_status kc_calmant_time_of(int d, int c, int q, const kc_calmant_cost_params *p, kc_calmant_time *out,
                             kc_err *err)
{
    memset(out, 0, sizeof *out);
    kc_calmant g;
    kc_status s = kc_calmant_init(&g, d, c, 0, KC_TIE_PLUS, KC_CALMANT_STANDARD, err);
    if (s)
        return s;
    if (q < 1)
        return kc_fail_param(err, KC_EINVAL, "degree", "the pipelining degree must be at least 1, got %d", q);
    if (p->bytes == 0)
        return kc_fail_param(err, KC_EINVAL, "bytes", "every node sends at least one byte per iteration");
    if (!(p->beta >= 0))
        return kc_fail_param(err, KC_EINVAL, "startup", "the start-up time must be >= 0");
    if (!(p->tau >= 0))
        return kc_fail_param(err, KC_EINVAL, "byte_time", "the time per byte must be >= 0");
    if (!(p->barrier >= 0))
        return kc_fail_param(err, KC_EINVAL, "barrier", "the barrier cost must be >= 0");
    out->degree = q;
    out->packet = (p->bytes + (uint64_t)q - 1) / (uint64_t)q;
    out->iterations = (uint64_t)d + (uint64_t)q - 1;
    /* the iterations of kc_calmant_iterations, kernel counted once */
    int edge = (q < d ? q : d) - 1;
    for (int k = 1; k <= edge; k++) {
        add_task(out, (kc_calmant_task){0, k}, c, 1);
        add_task(out, q < d ? (kc_calmant_task){d - q + k, q - k} : (kc_calmant_task){k, d - k}, c, 1);
    }
    if (q < d)
        for (int k = 1; k <= d - q + 1; k++)
            add_task(out, (kc_calmant_task){k - 1, q}, c, 1);
    else
        add_task(out, (kc_calmant_task){0, d}, c, (uint64_t)(q - d + 1));
    double step = p->beta + (double)out->packet * p->tau, bar = (double)out->iterations * p->barrier;
    out->time = (double)out->steps * step + bar;
    out->time_lb = (double)out->lb_steps * step + bar;
    return KC_OK;
}

/* Appendix A.3 with every minus sign restored (the extraction's 'ÿ'). */
uint64_t kc_calmant_closed_load(int d, int c, int q)
{
    if (q < 1 || q > (1 << 20))
        return UINT64_MAX;
    int64_t b = d / c, num;
    if (q < d) {
        int64_t cq = (q + c - 1) / c, r = (q - 1) % c;
        int64_t f = cq % 2 == 0 ? -(c + 3 * r) * (INT64_C(1) << (b - cq + 2)) - 9 * c * cq
                                : (2 * c - 3 * r) * (INT64_C(1) << (b - cq + 1)) - 9 * c * (cq + 1);
        num = (c + 3 * c * cq + 3 * r) * (INT64_C(1) << (b + 2)) + f;
    } else {
        int64_t f = b % 2 == 0 ? 3 * d - 12 * q - 16 * c + 12 : -3 * d - 6 * q - 11 * c + 6;
        num = (3 * (int64_t)q + 4 * c - 3) * (INT64_C(1) << (b + 2)) + f;
    }
    return (uint64_t)(num / 18);
}

kc_status kc_calmant_best_degree(int d, int c, const kc_calmant_cost_params *p, int qmax, kc_calmant_time *out,
                                 kc_err *err)
{
    if (qmax < 0)
        return kc_fail_param(err, KC_EINVAL, "degree", "the largest degree must be >= 0, got %d", qmax);
    if (qmax == 0)
        qmax = p->bytes > (uint64_t)INT32_MAX ? INT32_MAX : (int)p->bytes;
    kc_status s = kc_calmant_time_of(d, c, 1, p, out, err);
    for (int q = 2; !s && q <= qmax; q++) {
        kc_calmant_time t;
        s = kc_calmant_time_of(d, c, q, p, &t, err);
        if (!s && t.time < out->time)
            *out = t;
    }
    return s;
}
