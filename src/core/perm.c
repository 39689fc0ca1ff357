/* Permutations (kcube/perm.h): one body for node permutations and orders. */
#include "kcube/perm.h"

/* Narayana's step: find the longest non-increasing suffix, swap its left
 * neighbour with the least larger element of it, reverse the suffix. */
#define PERM_NEXT_BODY(T, p, len)                                                                                     \
    do {                                                                                                              \
        if ((len) < 2)                                                                                                \
            return 0;                                                                                                 \
        size_t i_ = (len)-1;                                                                                          \
        while (i_ > 0 && (p)[i_ - 1] >= (p)[i_])                                                                      \
            i_--;                                                                                                     \
        if (i_ == 0)                                                                                                  \
            return 0;                                                                                                 \
        size_t j_ = (len)-1;                                                                                          \
        while ((p)[j_] <= (p)[i_ - 1])                                                                                \
            j_--;                                                                                                     \
        T t_ = (p)[i_ - 1];                                                                                           \
        (p)[i_ - 1] = (p)[j_];                                                                                        \
        (p)[j_] = t_;                                                                                                 \
        for (size_t a_ = i_, b_ = (len)-1; a_ < b_; a_++, b_--) {                                                     \
            t_ = (p)[a_];                                                                                             \
            (p)[a_] = (p)[b_];                                                                                        \
            (p)[b_] = t_;                                                                                             \
        }                                                                                                             \
        return 1;                                                                                                     \
    } while (0)

void kc_perm_identity(uint32_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        p[i] = (uint32_t)i;
}

int kc_perm_next(uint32_t *p, size_t len) { PERM_NEXT_BODY(uint32_t, p, len); }

int kc_order_next(int *order, int n)
{
    size_t len = n > 0 ? (size_t)n : 0;
    PERM_NEXT_BODY(int, order, len);
}

kc_status kc_perm_invert(const uint32_t *p, uint32_t *inv, size_t len, const char *what, kc_err *err)
{
    if (!what)
        what = "perm";
    for (size_t i = 0; i < len; i++)
        inv[i] = UINT32_MAX;
    for (size_t i = 0; i < len; i++) {
        if (p[i] >= len)
            return kc_fail_param(err, KC_EINVAL, what, "entry %zu is %lu, outside 0..%zu: not a permutation", i,
                                 (unsigned long)p[i], len - 1);
        if (inv[p[i]] != UINT32_MAX)
            return kc_fail_param(err, KC_EINVAL, what, "%lu appears twice (entries %lu and %zu): not a permutation",
                                 (unsigned long)p[i], (unsigned long)inv[p[i]], i);
        inv[p[i]] = (uint32_t)i;
    }
    return KC_OK;
}

int kc_order_valid(const int *order, int n)
{
    uint64_t seen = 0;
    if (n < 0 || n > 64)
        return 0;
    for (int t = 0; t < n; t++) {
        if (order[t] < 0 || order[t] >= n || ((seen >> order[t]) & 1))
            return 0;
        seen |= 1ULL << order[t];
    }
    return 1;
}

void kc_order_invert(const int *order, int *inv, int n)
{
    for (int t = 0; t < n; t++)
        inv[order[t]] = t;
}
