/* Tasks, pipelined iterations and decompositions (kcube/calmant_task.h). */
#include "kcube/calmant_task.h"

static const kc_name phase_entries[] = {
    {KC_CALMANT_PROLOGUE, "prologue", "the pipeline fills"},
    {KC_CALMANT_KERNEL, "kernel", "steady state"},
    {KC_CALMANT_EPILOGUE, "epilogue", "the pipeline drains"},
    {0, NULL, NULL},
};
const kc_names kc_calmant_phase_names = {"phase", phase_entries};

kc_status kc_calmant_task_check(kc_calmant_task t, int d, kc_err *err)
{
    if (t.i < 0 || t.m < 1 || t.i > d - t.m)
        return kc_fail_param(err, KC_EINVAL, "task", "task <%d,%d> needs 0 <= i, 1 <= M and i + M <= d = %d", t.i, t.m,
                             d);
    return KC_OK;
}

kc_status kc_calmant_iterations(int d, int q, kc_calmant_iter *out, size_t cap, size_t *count, kc_err *err)
{
    if (d < 1)
        return kc_fail_param(err, KC_EINVAL, "d", "the CC-cube dimension must be at least 1, got %d", d);
    if (q < 1)
        return kc_fail_param(err, KC_EINVAL, "degree", "the pipelining degree must be at least 1, got %d", q);
    size_t n = (size_t)d + (size_t)q - 1;
    *count = n;
    if (cap < n)
        return kc_fail(err, KC_ERANGE, "%zu iterations do not fit in %zu", n, cap);
    /* the fill and drain phases last min(d, Q) - 1 iterations each */
    int edge = (q < d ? q : d) - 1;
    size_t t = 0;
    for (int k = 1; k <= edge; k++)
        out[t++] = (kc_calmant_iter){{0, k}, KC_CALMANT_PROLOGUE, k};
    for (int k = 1; k <= (q < d ? d - q + 1 : q - d + 1); k++)
        out[t++] = (kc_calmant_iter){q < d ? (kc_calmant_task){k - 1, q} : (kc_calmant_task){0, d}, KC_CALMANT_KERNEL,
                                     k};
    for (int k = 1; k <= edge; k++)
        out[t++] = (kc_calmant_iter){q < d ? (kc_calmant_task){d - q + k, q - k} : (kc_calmant_task){k, d - k},
                                     KC_CALMANT_EPILOGUE, k};
    return KC_OK;
}

size_t kc_calmant_decompose(kc_calmant_task t, int c, kc_calmant_task *out)
{
    size_t n = 0;
    for (int k = 1; k <= t.m / (2 * c); k++)
        out[n++] = (kc_calmant_task){t.i + t.m - 2 * k * c, 2 * c};
    if (t.m % (2 * c))
        out[n++] = (kc_calmant_task){t.i, t.m % (2 * c)};
    return n;
}
