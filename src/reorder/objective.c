/* The three objectives of a reordering for a set of communications (seed 000
 * Section 5): their names and their value for one dimension order, from the
 * closed-form contention of each reordered communication. */
#include "kcube/mapset.h"

#include "kcube/contention.h"
#include "objective.h"

static const kc_name objective_entries[] = {
    {KC_OBJ_MAX, "max", "the largest contention of any one communication"},
    {KC_OBJ_SIMULTANEOUS, "simultaneous", "the largest, over dimensions, of the summed contention"},
    {KC_OBJ_SUM, "sum", "the sum over communications and dimensions"},
    {0, NULL, NULL},
};
const kc_names kc_objective_names = {"objective", objective_entries};

const char *kc_objective_name(kc_objective obj) { return kc_names_name(&kc_objective_names, (int)obj); }

kc_status kc_objective_parse(const char *text, kc_objective *obj, kc_err *err)
{
    int v;
    kc_status s = kc_names_lookup(&kc_objective_names, text, &v, "objective", err);
    if (!s)
        *obj = (kc_objective)v;
    return s;
}

uint64_t kc_objective_value(const kc_lcc *comms, int m, kc_objective obj, const kc_order *o, uint64_t *total)
{
    int n = o->n;
    uint64_t step[KC_BITMAT_MAX] = {0}, tot = 0;
    for (int r = 0; r < m; r++) {
        kc_lcc x;
        kc_contention t;
        kc_lcc_reorder(&x, &comms[r], o->dim);
        kc_contention_formula(&x, &t);
        for (int i = 0; i < n; i++) {
            step[i] = kci_objective_step(obj, step[i], t.per_dim[i]);
            tot += t.per_dim[i];
        }
    }
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = kci_objective_path(obj, v, step[i]);
    if (total)
        *total = tot;
    return v;
}
