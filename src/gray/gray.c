/* Gray-code conversions as data motion (kcube/gray.h). */
#include <stdlib.h>

#include "core/bits.h"
#include "kcube/gray.h"

static const kc_name conv_entries[] = {
    {KC_GRAY_TO_BIN_MSB, "gray-to-binary-msb", "Gray -> binary, most significant dimension first (Figure 2)"},
    {KC_GRAY_TO_BIN_LSB, "gray-to-binary-lsb", "Gray -> binary, least significant dimension first"},
    {KC_BIN_TO_GRAY_MSB, "binary-to-gray-msb", "binary -> Gray, most significant dimension first"},
    {KC_BIN_TO_GRAY_LSB, "binary-to-gray-lsb", "binary -> Gray, least significant dimension first"},
    {0, NULL, NULL},
};
const kc_names kc_gray_conv_names = {"conversion", conv_entries};

/* Does processor x take part in the exchange of dimension k? The control
 * bits lie above k, so both ends of a link agree. */
static int active(kc_gray_conv alg, int n, uint64_t x, int k)
{
    uint64_t above = (x & kc_gray_mask(n)) >> (k + 1);
    int prefix = kci_parity64(above);
    int next = (int)(above & 1);
    switch (alg) {
    case KC_GRAY_TO_BIN_MSB:
    case KC_BIN_TO_GRAY_LSB: return next;
    default: return prefix;
    }
}

kc_status kc_gray_convert(int n, kc_gray_conv alg, uint64_t *data, kc_stepnet *net, kc_gray_step_fn fn, void *ctx,
                          kc_err *err)
{
    if (n < 1 || n > 24)
        return kc_fail_param(err, KC_ERANGE, "n", "conversions run on 1..24-cubes, got n = %d", n);
    if ((uint64_t)net->topo.ports < (uint64_t)n || net->topo.nodes != 1ULL << n)
        return kc_fail(err, KC_EINVAL, "conversion: the engine is not an %d-cube", n);
    int msb_first = alg == KC_GRAY_TO_BIN_MSB || alg == KC_BIN_TO_GRAY_MSB;
    uint64_t procs = 1ULL << n;
    for (int s = 0; s < n - 1; s++) {
        int k = msb_first ? n - 2 - s : s;
        for (uint64_t x = 0; x < procs; x++) {
            if (!active(alg, n, x, k))
                continue;
            kc_status st = kc_stepnet_send(net, x, k, 1, err);
            if (st)
                return st;
            uint64_t y = x ^ (1ULL << k);
            if (x < y) { /* both ends send: swap once */
                uint64_t t = data[x];
                data[x] = data[y];
                data[y] = t;
            }
        }
        kc_stepnet_end_step(net);
        if (fn)
            fn(ctx, s + 1, k, data);
    }
    return KC_OK;
}
