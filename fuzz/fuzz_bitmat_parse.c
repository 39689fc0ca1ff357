/* Fuzz kc_bitmat_parse: the GF(2) matrix text form ("0010;0001;1000;0100").
 * Byte 0: the expected size n (-3..67, so the range checks are hit too).
 * Accepted matrices must keep entries outside the n x n corner zero and
 * survive format -> parse unchanged. */
#include "fuzz_input.h"
#include "kcube/bitmat.h"

static void kcf_run(kcf_input *in)
{
    int n = kcf_int(in, -3, 67);
    char *text = kcf_rest(in);
    kc_bitmat a;
    kc_err err = {0};
    kc_status s = kc_bitmat_parse(&a, text, n, &err);
    if (s == KC_OK) {
        KCF_CHECK(n >= 1 && n <= KC_BITMAT_MAX && a.n == n);
        for (int i = 0; i < KC_BITMAT_MAX; i++)
            KCF_CHECK(i < n ? !(a.row[i] & ~kc_mask(n)) : !a.row[i]);
        static char buf[KC_BITMAT_MAX * (KC_BITMAT_MAX + 1) + 1];
        kc_bitmat b;
        kc_bitmat_format(&a, buf, sizeof buf);
        KCF_CHECK(kc_bitmat_parse(&b, buf, n, &err) == KC_OK && kc_bitmat_equal(&a, &b));
    } else {
        kcf_check_failure(s, &err);
    }
    free(text);
}
