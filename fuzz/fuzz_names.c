/* Fuzz the parsers of named choices: the torus tie rule (kc_tie_parse), the
 * simulator's topology, routing and VC rule, and the mapping objective.
 * Byte 0 picks the parser. A name that parses must print back to a name that
 * parses to the same value. */
#include "fuzz_input.h"
#include "kcube/mapset.h"
#include "kcube/simnet.h"
#include "kcube/simroute.h"
#include "kcube/torus.h"

/* Parse text; on success print the value and parse that again. */
#define ROUND_TRIP(type, parse, name)                                                                      \
    do {                                                                                                   \
        type v1, v2;                                                                                       \
        kc_status s = parse(text, &v1, &err);                                                              \
        if (s == KC_OK)                                                                                    \
            KCF_CHECK(parse(name(v1), &v2, &err) == KC_OK && v1 == v2);                                    \
        else                                                                                               \
            kcf_check_failure(s, &err);                                                                    \
    } while (0)

static void kcf_run(kcf_input *in)
{
    unsigned which = kcf_byte(in) % 5;
    char *text = kcf_rest(in);
    kc_err err = {0};
    switch (which) {
    case 0: ROUND_TRIP(kc_tie, kc_tie_parse, kc_tie_name); break;
    case 1: ROUND_TRIP(kc_simtopo, kc_simtopo_parse, kc_simtopo_name); break;
    case 2: ROUND_TRIP(kc_simalgo, kc_simalgo_parse, kc_simalgo_name); break;
    case 3: ROUND_TRIP(kc_simvcrule, kc_simvcrule_parse, kc_simvcrule_name); break;
    default: ROUND_TRIP(kc_objective, kc_objective_parse, kc_objective_name); break;
    }
    free(text);
}
