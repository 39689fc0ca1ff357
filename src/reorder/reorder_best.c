/* The best reordering for one communication on both counts: the closed-form
 * order (optimal for the largest contention, Theorem 4 of seed 000), then
 * the subset programme of kcube/mapset.h to also minimise the total. It sits
 * above both, so reorder.c and mapset.c need not know each other. */
#include "kcube/reorder.h"

#include "kcube/mapset.h"

kc_status kc_reorder_best(const kc_lcc *c, kc_reorder_result *out, const kc_progress *progress, kc_err *err)
{
    kc_status st = kc_reorder_optimal(c, &out->order, err);
    if (st)
        return st;
    out->value = kc_objective_value(c, 1, KC_OBJ_MAX, &out->order, &out->total);
    /* T_i >= 1 on every dimension with traffic, and a permutation's optimal
     * order reaches 1 everywhere: nothing is left to minimise. */
    out->total_minimised = c->kind == KC_LCC_PERMUTATION;
    if (out->total_minimised || c->a.n > KC_MAPSET_AUTO_N)
        return KC_OK;
    /* The closed form's order is optimal for the maximum but not always for
     * the total (Theorem 4 says nothing about the other dimensions); the
     * dynamic programme's second pass is exact for both. */
    kc_mapset_result r;
    if ((st = kc_mapset_optimal(c, 1, KC_OBJ_MAX, &r, progress, err)))
        return st;
    if (r.value != out->value || r.total > out->total)
        return kc_fail(err, KC_EINTERNAL,
                       "internal: the subset programme (max %llu, total %llu) disagrees with the optimiser (max %llu, "
                       "total %llu)",
                       (unsigned long long)r.value, (unsigned long long)r.total, (unsigned long long)out->value,
                       (unsigned long long)out->total);
    out->order = r.order;
    out->total = r.total;
    out->total_minimised = 1;
    return KC_OK;
}
