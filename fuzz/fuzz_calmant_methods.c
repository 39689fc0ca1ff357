/* Fuzz kc_a2a_methods_parse (the --methods LIST of kcube calmant alltoall).
 * The whole input is the text. An accepted list is a non-empty set of known
 * methods whose names, joined by commas, parse back to the same set. */
#include <string.h>

#include "fuzz_input.h"
#include "kcube/calmant_alltoall.h"

static void kcf_run(kcf_input *in)
{
    char *text = kcf_rest(in);
    kc_err err = {0};
    unsigned mask = 0xdeadu;
    kc_status s = kc_a2a_methods_parse(text, &mask, &err);
    if (s == KC_OK) {
        KCF_CHECK(mask != 0 && mask < (1u << KC_A2A_NMETHODS));
        char buf[256] = "";
        for (int m = 0; m < KC_A2A_NMETHODS; m++)
            if (mask & (1u << m)) {
                if (buf[0])
                    strcat(buf, ",");
                strcat(buf, kc_names_name(&kc_a2a_method_names, m));
            }
        unsigned back = 0;
        KCF_CHECK(kc_a2a_methods_parse(buf, &back, NULL) == KC_OK && back == mask);
    } else {
        kcf_check_failure(s, &err);
        KCF_CHECK(mask == 0);
    }
    free(text);
}
