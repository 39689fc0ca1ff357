/* Fuzz the simulator's pairs-file reader (kc_simtraffic_read_from, the core
 * of `simulate --pairs FILE`, kcube/simtraffic.h) from memory. Byte 0: the
 * nodes 1..256; byte 1: bit 0 maps the nodes through the reversal v ->
 * nodes - 1 - v. Small reader limits (line 128 bytes, input 4 KiB) reach
 * the limit paths. The rest is the file. Checked: a failure says why; on
 * success every destination is a node, no node sends to itself (such
 * entries are dropped) and the table's offsets rise. */
#include "fuzz_input.h"
#include "kcube/simtraffic.h"

static void check_table(const kc_simtraffic *t, uint32_t nodes)
{
    KCF_CHECK(t->nodes == nodes && !t->uniform && t->start[0] == 0);
    for (uint32_t s = 0; s < nodes; s++) {
        KCF_CHECK(t->start[s] <= t->start[s + 1]);
        for (uint32_t i = t->start[s]; i < t->start[s + 1]; i++)
            KCF_CHECK(t->dest[i] < nodes && t->dest[i] != s);
    }
}

static void kcf_run(kcf_input *in)
{
    uint32_t nodes = 1 + kcf_byte(in);
    int mapped = kcf_byte(in) & 1;
    uint32_t rev[256];
    for (uint32_t v = 0; v < nodes; v++)
        rev[v] = nodes - 1 - v;
    kc_nodemap map = {nodes, rev, rev};
    kc_reader_limits lim = {128, 4096};
    kc_reader *r = NULL;
    kc_simtraffic t = {0};
    kc_err err = {0};
    kc_status s = kc_reader_open_mem(&r, in->data, in->size, "input", "pairs_file", &lim, &err);
    if (s == KC_OK)
        s = kc_simtraffic_read_from(&t, nodes, r, mapped ? &map : NULL, &err);
    if (s != KC_OK)
        kcf_check_failure(s, &err);
    else
        check_table(&t, nodes);
    kc_reader_close(r);
    kc_simtraffic_free(&t);
}
