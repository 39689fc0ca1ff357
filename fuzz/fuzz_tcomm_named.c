/* Fuzz kc_tcomm_named: built-in patterns on the k-ary n-cube ("transpose",
 * "digit-swap:2", "uniform"). Byte 0: k (a power of two 2..256 when its top
 * bit is clear, any value 0..127 otherwise); byte 1: n (-3..67). An accepted
 * linear pattern has entries below k and a rank that matches its kind. */
#include "fuzz_input.h"
#include "kcube/torus.h"

static void kcf_run(kcf_input *in)
{
    int k = kcf_field_size(in);
    int n = kcf_int(in, -3, 67);
    char *name = kcf_rest(in);
    static kc_tcomm c; /* about 4 KB: keep it off the stack */
    kc_err err = {0};
    kc_status s = kc_tcomm_named(&c, k, n, name, &err);
    if (s == KC_OK) {
        KCF_CHECK(c.f.k == k && memchr(c.name, '\0', sizeof c.name));
        if (c.kind != KC_TCOMM_UNIFORM) {
            KCF_CHECK(c.a.n == n);
            for (int i = 0; i < n; i++) {
                KCF_CHECK(c.b[i] < k);
                for (int j = 0; j < n; j++)
                    KCF_CHECK(c.a.e[i][j] < k);
            }
            KCF_CHECK(c.rank == kc_gfmat_rank(&c.f, &c.a));
            KCF_CHECK((c.kind == KC_TCOMM_PERMUTATION) == (c.rank == n));
        }
    } else {
        kcf_check_failure(s, &err);
    }
    free(name);
}
