/* Fuzz kc_gfvec_parse: digit vectors over GF(k) in the syntax of one matrix
 * row. Byte 0: k (as in fuzz_gfmat_parse); byte 1: n (-3..67). Accepted
 * vectors have digits below k and survive format -> parse unchanged. */
#include "fuzz_input.h"
#include "kcube/gfk.h"

static void kcf_run(kcf_input *in)
{
    static kc_gf f;
    if (!kcf_field(in, &f))
        return;
    int k = f.k, n = kcf_int(in, -3, 67);
    kc_err err = {0};
    char *text = kcf_rest(in);
    uint8_t v[KC_GFMAT_MAX], w[KC_GFMAT_MAX];
    char buf[KC_GFMAT_MAX * 4 + 1];
    kc_status s = kc_gfvec_parse(&f, v, text, n, &err);
    if (s == KC_OK) {
        KCF_CHECK(n >= 1 && n <= KC_GFMAT_MAX);
        for (int i = 0; i < n; i++)
            KCF_CHECK(v[i] < k);
        kc_gfvec_format(v, n, buf, sizeof buf);
        KCF_CHECK(kc_gfvec_parse(&f, w, buf, n, &err) == KC_OK && !memcmp(v, w, (size_t)n));
    } else {
        kcf_check_failure(s, &err);
    }
    free(text);
}
