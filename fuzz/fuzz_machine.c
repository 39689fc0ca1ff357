/* Fuzz machine descriptions (kcube/machine.h): the file reader and the
 * --hosts rule. Byte 0 picks the topology (hypercube n = 1..4, the 3-ary
 * 2-cube, the 3 x 2 mesh), byte 1 the mode (bit 0: rule), the rule's slots
 * per host and fill order; for a rule the first line is the pattern. Small
 * reader limits reach the limit paths. A description that is accepted must
 * give every node a valid host and a slot no other node of its host has, and
 * export as a rankfile naming them. */
#include <stdio.h>

#include "fuzz_input.h"
#include "kcube/machine.h"

static void check_machine(const kc_machine *m, const kc_topology *t)
{
    KCF_CHECK(m->nodes == t->nodes && m->nhosts >= 1 && m->nhosts <= t->nodes);
    for (uint32_t h = 0; h < m->nhosts; h++)
        KCF_CHECK(kc_host_valid(m->host_name[h], strlen(m->host_name[h])));
    for (uint64_t x = 0; x < t->nodes; x++) {
        KCF_CHECK(m->host[x] < m->nhosts && m->slot[x] <= KC_SLOT_MAX);
        for (uint64_t y = 0; y < x; y++)
            KCF_CHECK(m->host[x] != m->host[y] || m->slot[x] != m->slot[y]);
    }
    uint32_t map[16];
    for (uint64_t v = 0; v < t->nodes; v++)
        map[v] = (uint32_t)(t->nodes - 1 - v);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    KCF_CHECK(out != NULL);
    kc_err err = {0};
    KCF_CHECK(kc_export_write(out, KC_EXPORT_OMPI_RANKFILE, map, t->nodes, m, &err) == KC_OK);
    fclose(out);
    KCF_CHECK(strncmp(buf, "rank 0=", 7) == 0);
    free(buf);
}

static void kcf_run(kcf_input *in)
{
    unsigned topo = kcf_byte(in) % 6, mode = kcf_byte(in);
    kc_topology t;
    kc_err err = {0};
    if (topo < 4)
        kc_topology_hypercube(&t, 1 + (int)topo, &err);
    else if (topo == 4)
        kc_topology_torus(&t, 3, 2, KC_TIE_PLUS, &err);
    else
        kc_topology_mesh_shape(&t, (int[]){3, 2}, 2, &err);
    kc_machine m;
    kc_status s;
    if (mode & 1) {
        char *pattern = kcf_line(in);
        s = kc_machine_rule(&m, &t, pattern, 1 + ((mode >> 1) & 7), kcf_byte(in), (mode >> 4) & 1 ? KC_FILL_LAST_AXIS
                                                                                                     : KC_FILL_FIRST_AXIS,
                            &err);
        free(pattern);
    } else {
        kc_reader_limits lim = {64, 4096};
        kc_reader *r = NULL;
        s = kc_reader_open_mem(&r, in->data, in->size, "machine", "machine", &lim, &err);
        if (s == KC_OK)
            s = kc_machine_read(&m, r, &t, &err);
        kc_reader_close(r);
    }
    if (s != KC_OK) {
        kcf_check_failure(s, &err);
        return;
    }
    check_machine(&m, &t);
    kc_machine_free(&m);
}
