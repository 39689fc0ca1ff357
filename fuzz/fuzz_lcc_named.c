/* Fuzz kc_lcc_named: built-in hypercube pattern names ("transpose",
 * "butterfly:3"). Byte 0: n (-3..67). An accepted pattern must be a
 * consistent LCC: re-classifying its (A, b) gives the same kind and rank. */
#include "fuzz_input.h"
#include "kcube/lcc.h"

static void kcf_run(kcf_input *in)
{
    int n = kcf_int(in, -3, 67);
    char *name = kcf_rest(in);
    kc_lcc c, again;
    kc_err err = {0};
    kc_status s = kc_lcc_named(&c, name, n, &err);
    if (s == KC_OK) {
        KCF_CHECK(c.a.n == n && !(c.b & ~kc_mask(n)) && memchr(c.name, '\0', sizeof c.name));
        KCF_CHECK(c.rank == kc_bitmat_rank(&c.a));
        KCF_CHECK(kc_lcc_init(&again, &c.a, c.b, c.kind == KC_LCC_SCATTER, &err) == KC_OK);
        KCF_CHECK(again.kind == c.kind && again.rank == c.rank);
    } else {
        kcf_check_failure(s, &err);
    }
    free(name);
}
