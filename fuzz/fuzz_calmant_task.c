/* Fuzz kc_calmant_task_parse (the --task I,M of kcube calmant). Byte 0
 * picks d in -2..33 (d < 1: syntax only); the rest is the text. An accepted
 * task is in range for d and prints back to itself. */
#include <stdio.h>

#include "fuzz_input.h"
#include "kcube/calmant_task.h"

static void kcf_run(kcf_input *in)
{
    int d = kcf_int(in, -2, 33);
    char *text = kcf_rest(in);
    kc_err err = {0};
    kc_calmant_task t = {-7, -7};
    kc_status s = kc_calmant_task_parse(text, d, &t, &err);
    if (s == KC_OK) {
        KCF_CHECK(t.m >= 1);
        if (d >= 1)
            KCF_CHECK(t.i >= 0 && t.i < d && t.m <= d - t.i && kc_calmant_task_check(t, d, NULL) == KC_OK);
        char buf[32];
        snprintf(buf, sizeof buf, "%d,%d", t.i, t.m);
        kc_calmant_task back = {0, 0};
        KCF_CHECK(kc_calmant_task_parse(buf, d, &back, NULL) == KC_OK && back.i == t.i && back.m == t.m);
    } else {
        kcf_check_failure(s, &err);
        KCF_CHECK(t.i == -7 && t.m == -7); /* untouched on failure */
    }
    free(text);
}
