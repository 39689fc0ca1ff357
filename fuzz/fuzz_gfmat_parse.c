/* Fuzz kc_gfmat_parse: matrices over GF(k) ("1 0 2;0 1 3" or, for k <= 10,
 * "102;013"). Byte 0: k (kcf_field: a power of two 2..256, or any value 0..127
 * when the top bit is set, which only tests kc_gf_init's check); byte 1: n
 * (-3..67). Accepted matrices have entries below k, zero outside the n x n
 * corner, and survive format -> parse unchanged. */
#include "fuzz_input.h"
#include "kcube/gfk.h"

static void kcf_run(kcf_input *in)
{
    static kc_gf f;
    if (!kcf_field(in, &f))
        return;
    int k = f.k, n = kcf_int(in, -3, 67);
    static kc_gfmat a, b;
    static char buf[KC_GFMAT_MAX * KC_GFMAT_MAX * 4 + 1];
    kc_err err = {0};
    char *text = kcf_rest(in);
    kc_status s = kc_gfmat_parse(&f, &a, text, n, &err);
    if (s == KC_OK) {
        KCF_CHECK(n >= 1 && n <= KC_GFMAT_MAX && a.n == n);
        for (int i = 0; i < KC_GFMAT_MAX; i++)
            for (int j = 0; j < KC_GFMAT_MAX; j++)
                KCF_CHECK(i < n && j < n ? a.e[i][j] < k : a.e[i][j] == 0);
        kc_gfmat_format(&a, buf, sizeof buf);
        KCF_CHECK(kc_gfmat_parse(&f, &b, buf, n, &err) == KC_OK && kc_gfmat_equal(&a, &b));
    } else {
        kcf_check_failure(s, &err);
    }
    free(text);
}
