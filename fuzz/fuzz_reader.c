/* Fuzz the strict bounded reader (kcube/reader.h) the way its users drive it.
 * Byte 0: mode (bit 0: node list or records; bit 1: distinct entries; bits
 * 2-4: record width 1..8), byte 1: the list length 1..256. Small limits
 * (line 64 bytes, input 4 KiB) so the limit paths are reached. The rest is
 * the file's contents. */
#include "fuzz_input.h"
#include "kcube/reader.h"

static void check_nodelist(kc_reader *r, uint32_t count, int distinct)
{
    uint32_t out[256];
    kc_err err = {0};
    kc_status s = kc_read_nodelist(r, out, count, distinct, &err);
    if (s != KC_OK) {
        kcf_check_failure(s, &err);
        return;
    }
    uint8_t seen[256] = {0};
    for (uint32_t i = 0; i < count; i++) {
        KCF_CHECK(out[i] < count);
        KCF_CHECK(!distinct || !seen[out[i]]);
        seen[out[i]] = 1;
    }
}

static void check_records(kc_reader *r, int width)
{
    kc_token toks[8];
    for (int lines = 0; lines < 10000; lines++) {
        int have = 0;
        kc_err err = {0};
        kc_status s = kc_reader_record(r, toks, width, "fields", &have, &err);
        if (s != KC_OK) {
            kcf_check_failure(s, &err);
            return;
        }
        if (!have)
            return;
        for (int i = 0; i < width; i++) {
            KCF_CHECK(toks[i].line >= 1 && toks[i].column >= 1 && toks[i].len >= 1);
            if (kc_reader_check(r, &toks[i], 1000, "node", &err) != KC_OK)
                kcf_check_failure(KC_EINVAL, &err);
            memset(&err, 0, sizeof err);
        }
    }
}

static void kcf_run(kcf_input *in)
{
    unsigned mode = kcf_byte(in);
    uint32_t count = 1 + kcf_byte(in);
    kc_reader_limits lim = {64, 4096};
    kc_reader *r = NULL;
    kc_err err = {0};
    kc_status s = kc_reader_open_mem(&r, in->data, in->size, "input", "input", &lim, &err);
    if (s != KC_OK) {
        kcf_check_failure(s, &err);
        return;
    }
    if (mode & 1)
        check_records(r, 1 + (int)((mode >> 2) & 7));
    else
        check_nodelist(r, count, (mode >> 1) & 1);
    kc_reader_close(r);
}
