/* Fuzz machine preset files (kcube/netpreset.h): the whole input is a
 * preset, read with small reader limits. A preset that is accepted must be
 * within the format's bounds (a name, 1..63 named axes, sides 2..256, wraps
 * on existing axes, 1..256 endpoints) and, when its topology builds, give
 * a network of exactly those sides, wraps and endpoints. */
#include <stdio.h>

#include "fuzz_input.h"
#include "kcube/netpreset.h"

static void check_preset(const kc_netpreset *p)
{
    KCF_CHECK(p->name[0] >= 'a' && p->name[0] <= 'z');
    KCF_CHECK(p->n >= 1 && p->n < KC_TOPO_MAX_DIMS);
    KCF_CHECK(p->n == 64 || (p->wrap >> p->n) == 0);
    KCF_CHECK(p->endpoints >= 1 && p->endpoints <= KC_TOPO_MAX_ENDPOINTS);
    KCF_CHECK(p->nsources >= 0 && p->nsources <= KC_PRESET_SOURCES);
    for (int i = 0; i < p->n; i++)
        KCF_CHECK(p->side[i] >= 2 && p->side[i] <= KC_TOPO_MAX_SIDE && p->axis[i][0] != '\0');
    kc_topology t;
    kc_err err = {0};
    kc_status s = kc_netpreset_topology(p, &t, &err);
    if (s != KC_OK) {
        kcf_check_failure(s, &err);
        return;
    }
    KCF_CHECK(t.n == p->n && t.wrap == p->wrap && kc_topology_conc(&t) == p->endpoints);
    for (int i = 0; i < p->n; i++)
        KCF_CHECK(t.side[i] == p->side[i]);
}

static void kcf_run(kcf_input *in)
{
    kc_reader_limits lim = {128, 8192};
    kc_reader *r = NULL;
    kc_err err = {0};
    kc_netpreset p;
    kc_status s = kc_reader_open_mem(&r, in->data, in->size, "network", "network", &lim, &err);
    if (s == KC_OK)
        s = kc_netpreset_read(&p, r, &err);
    kc_reader_close(r);
    if (s != KC_OK) {
        kcf_check_failure(s, &err);
        return;
    }
    check_preset(&p);
}
