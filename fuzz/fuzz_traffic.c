/* Fuzz the traffic readers of the general mapper (kcube/traffic.h, issue
 * 13): traffic files and Scotch source graphs. Byte 0: bit 0 picks the
 * reader (0 traffic file, 1 .grf); byte 1: the ranks 1..256. Small limits
 * (line 128 bytes, input 4 KiB) so the limit paths are reached. The rest is
 * the file's contents. Checked: a failure says why; on success every
 * message is in range, and its group (a traffic file's '# phase' lines)
 * is one of the groups begun; a .grf has none. */
#include "fuzz_input.h"
#include "kcube/traffic.h"

static void kcf_run(kcf_input *in)
{
    unsigned mode = kcf_byte(in);
    uint64_t ranks = 1 + kcf_byte(in);
    kc_reader_limits lim = {128, 4096};
    kc_reader *r = NULL;
    kc_traffic t;
    kc_err err = {0};
    KCF_CHECK(kc_traffic_init(&t, ranks, &err) == KC_OK);
    kc_status s = kc_reader_open_mem(&r, in->data, in->size, "input", "traffic_file", &lim, &err);
    if (s == KC_OK)
        s = (mode & 1) ? kc_traffic_read_grf(&t, r, &err) : kc_traffic_read(&t, r, &err);
    if (s != KC_OK) {
        kcf_check_failure(s, &err);
    } else {
        KCF_CHECK(t.count > 0 || (mode & 1));
        for (size_t m = 0; m < t.count; m++)
            KCF_CHECK(t.src[m] < ranks && t.dst[m] < ranks);
        KCF_CHECK(t.group == NULL ? t.groups == 0 : !(mode & 1) && t.groups > 0);
        for (size_t m = 0; t.group && m < t.count; m++)
            KCF_CHECK(t.group[m] < t.groups);
    }
    kc_reader_close(r);
    kc_traffic_free(&t);
}
