/* Theorem 1 checked on many LC permutations: all of them for n <= 4,
 * seeded random ones beyond. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/hl.h"

/* One run with every check; returns 1 if fine, else fills why. */
static int check_one(kc_hl_engine *e, int msb, char *why, size_t size)
{
    kc_hl_opts o = {.msb_first = msb, .check_affine = 1, .require_lemma3 = 1};
    kc_hl_result res;
    kc_hl_run(e, &o, &res, NULL);
    const int n = e->n;
    uint64_t seen = 0;
    for (int t = 0; t < res.steps; t++)
        seen |= 1ULL << res.dims[t];
    if (!res.routed)
        snprintf(why, size, "not routed: %.140s", res.why);
    else if (res.steps != n || seen != kc_mask(n))
        snprintf(why, size, "took %d steps / did not use every bit once", res.steps);
    else if (strspn(res.states, "AB") != (size_t)n)
        snprintf(why, size, "states %s", res.states);
    else if (res.max_moved > 1)
        snprintf(why, size, "a processor sent %d tags in one step", res.max_moved);
    else if (!res.affine_ok)
        snprintf(why, size, "tag map not affine after some step");
    else if (!res.lemma3_ok)
        snprintf(why, size, "in some state B the tag pairs differed in different bits");
    else
        return 1;
    return 0;
}

static kc_status verify_perm(kc_hl_verify_report *rep, const kc_bitmat *a, uint64_t b, uint32_t *dst, kc_err *err)
{
    kc_lcc c;
    kc_status s = kc_lcc_init(&c, a, b, 0, err);
    if (!s)
        s = kc_hl_perm_from_lcc(&c, dst, err);
    kc_hl_engine e;
    if (!s)
        s = kc_hl_engine_init(&e, a->n, dst, 2, 0, err);
    if (s)
        return s;
    char why[160];
    if (!check_one(&e, rep->msb_first, why, sizeof why)) {
        if (rep->failures++ == 0) {
            rep->a = *a;
            rep->b = b;
            snprintf(rep->why, sizeof rep->why, "%s", why);
        }
    }
    rep->checked++;
    kc_hl_engine_free(&e);
    return KC_OK;
}

kc_status kc_hl_verify(int n, int msb_first, uint64_t count, uint64_t seed, kc_hl_verify_report *rep,
                       const kc_progress *progress, kc_err *err)
{
    if (n < 1 || n > KC_HL_MAX_N)
        return kc_fail(err, KC_ERANGE, "n = %d is out of range 1..%d for tag routing", n, KC_HL_MAX_N);
    memset(rep, 0, sizeof *rep);
    rep->n = n;
    rep->msb_first = msb_first;
    rep->exhaustive = n <= 4;
    uint32_t *dst = malloc(sizeof *dst << n);
    if (!dst)
        return kc_fail(err, KC_ENOMEM, "out of memory");
    kc_status s = KC_OK;
    if (rep->exhaustive) {
        uint64_t total = 1ULL << (n * n);
        for (uint64_t bits = 0; bits < total && !s; bits++) {
            kc_bitmat a;
            kc_bitmat_zero(&a, n);
            for (int i = 0; i < n; i++)
                a.row[i] = (bits >> (i * n)) & kc_mask(n);
            if (kc_bitmat_rank(&a) != n)
                continue;
            for (uint64_t b = 0; b < (1ULL << n) && !s; b++)
                s = verify_perm(rep, &a, b, dst, err);
            if ((bits & 1023) == 0)
                kc_progress_report(progress, (double)bits, (double)total);
        }
    } else {
        kc_rng r;
        kc_rng_seed(&r, seed);
        for (uint64_t k = 0; k < count && !s; k++) {
            kc_bitmat a;
            uint64_t b;
            kc_hl_random_lc(n, &r, &a, &b);
            s = verify_perm(rep, &a, b, dst, err);
            kc_progress_report(progress, (double)(k + 1), (double)count);
        }
    }
    free(dst);
    return s;
}
