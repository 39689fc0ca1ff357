/* Fuzz the LogGOPS parameter parser (kc_loggops_parse, `replay --loggops`,
 * kcube/loggops.h): KEY=VALUE items and the positional L,o,g,G,O,S form.
 * The whole input is the text. Checked: a failure says why; an accepted
 * text sets every value to at most KC_LOGGOPS_PARAM_MAX (S may be inf),
 * and writing the values back as KEY=VALUE parses to the same values. */
#include <stdio.h>

#include "fuzz_input.h"
#include "kcube/loggops.h"

static int in_range(uint64_t v) { return v <= KC_LOGGOPS_PARAM_MAX; }

static void round_trip(const kc_loggops_params *p)
{
    char text[256], s[32];
    if (p->S == KC_LOGGOPS_S_INF)
        snprintf(s, sizeof s, "inf");
    else
        snprintf(s, sizeof s, "%llu", (unsigned long long)p->S);
    snprintf(text, sizeof text, "L=%llu,o=%llu,g=%llu,G=%llu,O=%llu,S=%s", (unsigned long long)p->L,
             (unsigned long long)p->o, (unsigned long long)p->g, (unsigned long long)p->G,
             (unsigned long long)p->O, s);
    kc_loggops_params q = {0, 0, 0, 0, 0, 0};
    kc_err err = {0};
    KCF_CHECK(kc_loggops_parse(text, &q, &err) == KC_OK);
    KCF_CHECK(!memcmp(&q, p, sizeof q));
}

static void kcf_run(kcf_input *in)
{
    char *text = kcf_rest(in);
    kc_loggops_params p = KC_LOGGOPS_PARAMS_DEFAULT;
    kc_err err = {0};
    kc_status s = kc_loggops_parse(text, &p, &err);
    if (s != KC_OK) {
        kcf_check_failure(s, &err);
    } else {
        KCF_CHECK(in_range(p.L) && in_range(p.o) && in_range(p.g) && in_range(p.G) && in_range(p.O));
        KCF_CHECK(in_range(p.S) || p.S == KC_LOGGOPS_S_INF);
        round_trip(&p);
    }
    free(text);
}
