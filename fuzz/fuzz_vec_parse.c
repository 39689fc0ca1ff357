/* Fuzz kc_vec_parse: a GF(2) vector as n characters 0/1, component 0 first.
 * Byte 0: n (-3..67). Accepted vectors have no bit at or above n and survive
 * format -> parse unchanged. */
#include "fuzz_input.h"
#include "kcube/bitmat.h"

static void kcf_run(kcf_input *in)
{
    int n = kcf_int(in, -3, 67);
    char *text = kcf_rest(in);
    uint64_t v = 0, w = 0;
    kc_err err = {0};
    kc_status s = kc_vec_parse(&v, text, n, &err);
    if (s == KC_OK) {
        KCF_CHECK(n >= 1 && n <= KC_BITMAT_MAX && !(v & ~kc_mask(n)));
        char buf[KC_BITMAT_MAX + 1];
        kc_vec_format(v, n, buf, sizeof buf);
        KCF_CHECK(kc_vec_parse(&w, buf, n, &err) == KC_OK && v == w);
    } else {
        kcf_check_failure(s, &err);
    }
    free(text);
}
