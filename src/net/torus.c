/* k-ary n-cubes as networks: tie rules, node digits, dimension-ordered
 * routing on shortest ring paths, link numbering (seed 002 Section 2). */
#include "kcube/torus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const kc_name tie_entries[] = {
    {KC_TIE_PLUS, "plus", "a move of exactly k/2 goes + (the convention of seed 002 Theorem 1)"},
    {KC_TIE_MINUS, "minus", "a move of exactly k/2 goes -"},
    {KC_TIE_SPLIT, "split", "+ from an even coordinate, - from an odd one"},
    {0, NULL, NULL},
};
const kc_names kc_tie_names = {"tie rule", tie_entries};

const char *kc_tie_name(kc_tie tie) { return kc_names_name(&kc_tie_names, (int)tie); }

kc_status kc_tie_parse(const char *text, kc_tie *tie, kc_err *err)
{
    int v;
    kc_status s = kc_names_lookup(&kc_tie_names, text, &v, "tie", err);
    if (!s)
        *tie = (kc_tie)v;
    return s;
}

kc_status kc_torus_init(kc_torus *t, int k, int n, int mesh, kc_tie tie, kc_err *err)
{
    if (kc_gf_polynomial(k) == 0)
        return kc_fail(err, KC_EINVAL, "k = %d must be a power of two in 2..256", k);
    int m = 0;
    while ((1 << m) < k)
        m++;
    if (n < 1 || n > KC_GFMAT_MAX || n * m > KC_TORUS_MAX_BITS)
        return kc_fail(err, KC_ERANGE, "the %d-ary %d-cube is too large (need 1 <= n and n*log2(k) <= %d)", k, n,
                       KC_TORUS_MAX_BITS);
    memset(t, 0, sizeof *t);
    t->k = k;
    t->m = m;
    t->n = n;
    t->mesh = mesh ? 1 : 0;
    t->tie = tie;
    t->nodes = 1ULL << (n * m);
    return KC_OK;
}

int kc_torus_ring_move(const kc_torus *t, unsigned s, unsigned d)
{
    int k = t->k;
    if (s == d)
        return 0;
    if (t->mesh)
        return (int)d - (int)s;
    int up = (int)((d + (unsigned)k - s) % (unsigned)k); /* hops going + */
    if (k == 2)
        return 1; /* the single link between the two nodes */
    if (2 * up < k)
        return up;
    if (2 * up > k)
        return up - k;
    switch (t->tie) {
    case KC_TIE_MINUS: return -up;
    case KC_TIE_SPLIT: return (s & 1) ? -up : up;
    default: return up;
    }
}

uint64_t kc_torus_link_to(const kc_torus *t, kc_link l)
{
    unsigned w = kc_torus_digit(t, l.from, l.dim);
    unsigned next = (w + (unsigned)t->k + (unsigned)l.dir) % (unsigned)t->k;
    return kc_torus_set_digit(t, l.from, l.dim, next);
}

int kc_torus_route(const kc_torus *t, uint64_t src, uint64_t dst, void (*fn)(void *ctx, kc_link l), void *ctx)
{
    uint64_t at = src;
    int hops = 0;
    for (int i = 0; i < t->n; i++) {
        unsigned s = kc_torus_digit(t, at, i), d = kc_torus_digit(t, dst, i);
        int mv = kc_torus_ring_move(t, s, d);
        int dir = mv > 0 ? 1 : -1, len = mv > 0 ? mv : -mv;
        for (int h = 0; h < len; h++) {
            kc_link l = {at, i, dir};
            if (fn)
                fn(ctx, l);
            at = kc_torus_link_to(t, l);
            hops++;
        }
    }
    return hops;
}
