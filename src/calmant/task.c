/* Tasks, pipelined iterations and decompositions (kcube/calmant_task.h). */
#include "kcube/calmant_task.h"

#include <limits.h>

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

/* One signed decimal integer at *p (no spaces); 0 when malformed or out of
 * int's range. */
static int parse_int(const char **p, int *out)
{
    const char *s = *p;
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (*s < '0' || *s > '9')
        return 0;
    long long v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        v = v * 10 + (*s - '0');
        if (v > (long long)INT_MAX + 1)
            return 0;
    }
    v = neg ? -v : v;
    if (v > INT_MAX || v < INT_MIN)
        return 0;
    *out = (int)v;
    *p = s;
    return 1;
}

kc_status kc_calmant_task_parse(const char *text, int d, kc_calmant_task *out, kc_err *err)
{
    const char *p = text;
    kc_calmant_task t;
    if (!parse_int(&p, &t.i) || *p++ != ',' || !parse_int(&p, &t.m) || *p != '\0')
        return kc_fail_param(err, KC_EINVAL, "task", "a task is written I,M (first dimension, number of dimensions), "
                             "e.g. 1,2");
    if (d >= 1 && (t.i < 0 || t.i >= d))
        return kc_fail_param(err, KC_EINVAL, "task", "the first dimension I = %d is outside 0..%d (d = %d)", t.i, d - 1,
                             d);
    if (t.m < 1)
        return kc_fail_param(err, KC_EINVAL, "task", "a task uses M >= 1 dimensions, got M = %d", t.m);
    if (d >= 1 && t.m > d - t.i)
        return kc_fail_param(err, KC_EINVAL, "task", "dimensions %d..%lld exceed d - 1 = %d", t.i,
                             (long long)t.i + t.m - 1, d - 1);
    *out = t;
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
