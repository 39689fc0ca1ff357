/* Fuzz kc_hl_mesh_parse: mesh shapes for HL ("4x4", "2x8x4", "16"). Byte 0:
 * n (-3..40). An accepted shape has 1..KC_HL_MESH_MAX_Q sides, each a power
 * of two >= 2, whose logs add up to n, and survives format -> parse. */
#include "fuzz_input.h"
#include "kcube/hl_mesh.h"

static void kcf_run(kcf_input *in)
{
    int n = kcf_int(in, -3, 40);
    char *text = kcf_rest(in);
    kc_hl_mesh_shape shape, again;
    kc_err err = {0};
    kc_status s = kc_hl_mesh_parse(&shape, text, n, &err);
    if (s == KC_OK) {
        KCF_CHECK(shape.q >= 1 && shape.q <= KC_HL_MESH_MAX_Q);
        int total = 0;
        for (int a = 0; a < shape.q; a++) {
            KCF_CHECK(shape.side_log[a] >= 1 && shape.side_log[a] <= KC_HL_MESH_MAX_N);
            total += shape.side_log[a];
        }
        KCF_CHECK(total == n);
        char buf[KC_HL_MESH_MAX_Q * 9 + 1];
        kc_hl_mesh_format(&shape, buf, sizeof buf);
        KCF_CHECK(kc_hl_mesh_parse(&again, buf, n, &err) == KC_OK && !memcmp(&shape, &again, sizeof shape));
    } else {
        kcf_check_failure(s, &err);
    }
    free(text);
}
