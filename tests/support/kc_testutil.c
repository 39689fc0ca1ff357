#include "kc_testutil.h"

void kc_test_random_order(int *order, int n, kc_rng *rng)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)kc_rng_below(rng, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

void kc_test_random_lcc(kc_lcc *c, int n, kc_lcc_kind kind, kc_rng *rng)
{
    for (;;) {
        kc_bitmat a;
        if (kind == KC_LCC_PERMUTATION)
            kc_bitmat_random_nonsingular(&a, n, rng);
        else
            kc_bitmat_random_rank(&a, n, n == 1 ? 0 : (int)kc_rng_below(rng, (uint64_t)n), rng);
        uint64_t b = kc_rng_next(rng) & kc_mask(n);
        if (kc_rng_below(rng, 3) == 0) {
            uint64_t idle = kc_rng_next(rng) & kc_rng_next(rng) & kc_mask(n);
            for (int i = 0; i < n; i++)
                if ((idle >> i) & 1) {
                    a.row[i] = 1ULL << i;
                    b &= ~(1ULL << i);
                }
        }
        int rank = kc_bitmat_rank(&a);
        /* Idle rows can change the rank; keep only matrices of the kind asked. */
        if ((kind == KC_LCC_PERMUTATION) != (rank == n))
            continue;
        if (kc_lcc_init(c, &a, b, kind == KC_LCC_SCATTER, NULL) == KC_OK)
            return;
    }
}
