#include "kcube/lcc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/near.h"

static const kc_name lcc_kind_entries[] = {
    {KC_LCC_PERMUTATION, "permutation", "A nonsingular: every node sends and receives once"},
    {KC_LCC_GATHER, "gather", "A singular: y = Ax + b, several sources per destination"},
    {KC_LCC_SCATTER, "scatter", "A singular: y receives from Ay + b, several destinations per source"},
    {0, NULL, NULL},
};
const kc_names kc_lcc_kind_names = {"communication kind", lcc_kind_entries};

const char *kc_lcc_kind_name(kc_lcc_kind kind) { return kc_names_name(&kc_lcc_kind_names, (int)kind); }

kc_status kc_lcc_init(kc_lcc *c, const kc_bitmat *a, uint64_t b, int scatter, kc_err *err)
{
    int n = a->n;
    if (n < 1 || n > KC_BITMAT_MAX)
        return kc_fail(err, KC_ERANGE, "n = %d is out of range 1..%d", n, KC_BITMAT_MAX);
    int rank = kc_bitmat_rank(a);
    if (scatter && rank == n)
        return kc_fail_param(err, KC_EINVAL, "scatter",
                             "a scatter needs a singular matrix (rank < n), but this one has rank %d = n: it is a "
                             "permutation",
                             rank);
    memset(c, 0, sizeof *c);
    c->a = *a;
    c->b = b & kc_mask(n);
    c->rank = rank;
    c->kind = rank == n ? KC_LCC_PERMUTATION : scatter ? KC_LCC_SCATTER : KC_LCC_GATHER;
    snprintf(c->name, sizeof c->name, "matrix");
    return KC_OK;
}

uint64_t kc_lcc_idle_dims(const kc_lcc *c)
{
    uint64_t idle = 0;
    for (int i = 0; i < c->a.n; i++)
        if (c->a.row[i] == (1ULL << i) && !((c->b >> i) & 1))
            idle |= 1ULL << i;
    return idle;
}

void kc_lcc_reorder(kc_lcc *out, const kc_lcc *in, const int *order)
{
    kc_lcc r = *in;
    kc_bitmat_conjugate(&r.a, &in->a, order);
    r.b = kc_vec_permute(in->b, order, in->a.n);
    *out = r;
}

/* ---- built-in patterns ---------------------------------------------------
 * Each builder fills a matrix by "y_i = x_{src[i]}" (a bit permutation) or
 * directly; image operations follow seed 000 Example 5: a 2^h x 2^h image,
 * n = 2h, pixel (px, py) on node py * 2^h + px, so x_0..x_{h-1} hold px. */

static void bit_perm(kc_bitmat *a, int n, const int *src)
{
    kc_bitmat_zero(a, n);
    for (int i = 0; i < n; i++)
        a->row[i] = 1ULL << src[i];
}

typedef struct builder {
    kc_pattern_info info;
    int needs_even; /* n must be even (transpose, image operations) */
    int has_arg;    /* takes ":i", 0 <= i < n */
    int scatter;
    void (*build)(kc_bitmat *a, uint64_t *b, int n, int arg);
} builder;

static void b_transpose(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    int src[64];
    for (int i = 0; i < n; i++)
        src[i] = (i + n / 2) % n;
    bit_perm(a, n, src);
    *b = 0;
}

static void b_bit_reverse(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    int src[64];
    for (int i = 0; i < n; i++)
        src[i] = n - 1 - i;
    bit_perm(a, n, src);
    *b = 0;
}

static void b_reverse_flip(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    b_bit_reverse(a, b, n, arg);
    *b = kc_mask(n);
}

static void b_shuffle(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    /* Perfect shuffle: rotate the address left by one, y_i = x_{i-1}. */
    int src[64];
    for (int i = 0; i < n; i++)
        src[i] = (i + n - 1) % n;
    bit_perm(a, n, src);
    *b = 0;
}

static void b_unshuffle(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    int src[64];
    for (int i = 0; i < n; i++)
        src[i] = (i + 1) % n;
    bit_perm(a, n, src);
    *b = 0;
}

static void b_butterfly(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    kc_bitmat_identity(a, n);
    *b = 1ULL << arg;
}

static void b_bit_swap(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    int src[64];
    for (int i = 0; i < n; i++)
        src[i] = i;
    src[0] = arg;
    src[arg] = 0;
    bit_perm(a, n, src);
    *b = 0;
}

static void b_complement(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    kc_bitmat_identity(a, n);
    *b = kc_mask(n);
}

/* Image operations: the lower half of the address is px, the upper half py. */
static uint64_t low_half(int n) { return kc_mask(n / 2); }
static uint64_t high_half(int n) { return kc_mask(n) & ~kc_mask(n / 2); }

static void b_reflect_antidiagonal(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    b_transpose(a, b, n, arg);
    *b = kc_mask(n);
}

static void b_rotate_cw(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    b_transpose(a, b, n, arg);
    *b = low_half(n); /* seed 000: y = A1 x + (11110000)^t, b_0 first */
}

static void b_rotate_ccw(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    b_transpose(a, b, n, arg);
    *b = high_half(n);
}

static void b_reflect_vertical(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    kc_bitmat_identity(a, n);
    *b = low_half(n);
}

static void b_reflect_horizontal(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    kc_bitmat_identity(a, n);
    *b = high_half(n);
}

static void b_scale_2x(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    /* Scatter x = Ay: pixel (px, py) of the lower-left quarter feeds the four
     * pixels (2px + e, 2py + f), so x_i = y_{i+1} inside each half and the top
     * bit of each half of x is 0. */
    int h = n / 2;
    kc_bitmat_zero(a, n);
    for (int half = 0; half < 2; half++)
        for (int i = 0; i + 1 < h; i++)
            a->row[half * h + i] = 1ULL << (half * h + i + 1);
    *b = 0;
}

static void b_row_bit_reverse(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    int src[64], h = n / 2;
    for (int i = 0; i < n; i++)
        src[i] = i < h ? h - 1 - i : i;
    bit_perm(a, n, src);
    *b = 0;
}

static void b_col_bit_reverse(kc_bitmat *a, uint64_t *b, int n, int arg)
{
    int src[64], h = n / 2;
    for (int i = 0; i < n; i++)
        src[i] = i < h ? i : n - 1 - (i - h);
    bit_perm(a, n, src);
    *b = 0;
}

static const builder builders[] = {
    {{"transpose", "y = x with its two halves swapped (n even): matrix transpose"}, 1, 0, 0, b_transpose},
    {{"bit-reverse", "y_i = x_{n-1-i}"}, 0, 0, 0, b_bit_reverse},
    {{"reverse-flip", "bit-reverse, then complement every bit"}, 0, 0, 0, b_reverse_flip},
    {{"shuffle", "perfect shuffle: address rotated left, y_i = x_{i-1 mod n}"}, 0, 0, 0, b_shuffle},
    {{"unshuffle", "inverse shuffle: address rotated right, y_i = x_{i+1 mod n}"}, 0, 0, 0, b_unshuffle},
    {{"butterfly:i", "exchange across dimension i: y = x + e_i (neighbour in dimension i)"}, 0, 1, 0, b_butterfly},
    {{"bit-swap:i", "swap address bits 0 and i (the classic butterfly permutation)"}, 0, 1, 0, b_bit_swap},
    {{"complement", "y = x + 11...1 (antipodal node)"}, 0, 0, 0, b_complement},
    {{"reflect-diagonal", "image: (px,py) -> (py,px); same as transpose"}, 1, 0, 0, b_transpose},
    {{"reflect-antidiagonal", "image: reflect on py = 2^h-1-px (transpose + 11..1)"}, 1, 0, 0, b_reflect_antidiagonal},
    {{"rotate-cw", "image: rotate 90 degrees clockwise (transpose + 1..10..0)"}, 1, 0, 0, b_rotate_cw},
    {{"rotate-ccw", "image: rotate 90 degrees counterclockwise (transpose + 0..01..1)"}, 1, 0, 0, b_rotate_ccw},
    {{"reflect-vertical", "image: (px,py) -> (2^h-1-px, py)"}, 1, 0, 0, b_reflect_vertical},
    {{"reflect-horizontal", "image: (px,py) -> (px, 2^h-1-py)"}, 1, 0, 0, b_reflect_horizontal},
    {{"rotate-180", "image: rotate 180 degrees (complement)"}, 1, 0, 0, b_complement},
    {{"scale-2x", "image: scale the lower-left quarter by 2 (a scatter)"}, 1, 0, 1, b_scale_2x},
    {{"row-bit-reverse", "image: bit-reverse inside every row (2D FFT, rows)"}, 1, 0, 0, b_row_bit_reverse},
    {{"col-bit-reverse", "image: bit-reverse inside every column (2D FFT, columns)"}, 1, 0, 0, b_col_bit_reverse},
};

#define NBUILDERS (sizeof builders / sizeof builders[0])

const kc_pattern_info *kc_lcc_pattern(size_t i)
{
    return i < NBUILDERS ? &builders[i].info : NULL;
}

/* KC_EINVAL for a name no builder has, with the name it nearly is. */
static kc_status unknown_pattern(const char *name, size_t base_len, kc_err *err)
{
    kci_near near;
    kci_near_init(&near, name, base_len);
    for (size_t k = 0; k < NBUILDERS; k++)
        kci_near_offer(&near, builders[k].info.name, strcspn(builders[k].info.name, ":"));
    size_t blen;
    const char *best = kci_near_best(&near, &blen);
    if (best)
        return kc_fail_param(err, KC_EINVAL, "pattern",
                             "unknown pattern '%s'; did you mean '%.*s'? (the command's --help lists them)", name,
                             (int)blen, best);
    return kc_fail_param(err, KC_EINVAL, "pattern", "unknown pattern '%s' (the command's --help lists them)", name);
}

kc_status kc_lcc_named(kc_lcc *c, const char *name, int n, kc_err *err)
{
    if (n < 1 || n > KC_BITMAT_MAX)
        return kc_fail(err, KC_ERANGE, "n = %d is out of range 1..%d", n, KC_BITMAT_MAX);
    const char *colon = strchr(name, ':');
    size_t base_len = colon ? (size_t)(colon - name) : strlen(name);
    for (size_t k = 0; k < NBUILDERS; k++) {
        const builder *bd = &builders[k];
        size_t len = strcspn(bd->info.name, ":");
        if (len != base_len || strncmp(bd->info.name, name, len) != 0)
            continue;
        int arg = 0;
        if (bd->has_arg) {
            char *end = NULL;
            /* digits, '-' allowed (then out of range): no '+' or spaces */
            int digits = colon && ((colon[1] >= '0' && colon[1] <= '9') || colon[1] == '-');
            long v = digits ? strtol(colon + 1, &end, 10) : -1;
            if (!digits || end == colon + 1 || *end != '\0')
                return kc_fail(err, KC_EINVAL, "pattern %.*s needs a dimension, e.g. %.*s:0", (int)len, name,
                               (int)len, name);
            if (v < 0 || v >= n)
                return kc_fail(err, KC_EINVAL, "pattern %s: dimension %ld is out of range 0..%d", name, v, n - 1);
            if (strncmp(name, "bit-swap", len) == 0 && v == 0)
                return kc_fail(err, KC_EINVAL, "pattern bit-swap: dimension must be 1..%d", n - 1);
            arg = (int)v;
        } else if (colon) {
            return kc_fail(err, KC_EINVAL, "pattern %.*s takes no argument", (int)len, name);
        }
        if (bd->needs_even && n % 2)
            return kc_fail(err, KC_EINVAL, "pattern %s needs an even n, got n = %d", name, n);
        kc_bitmat a;
        uint64_t b;
        bd->build(&a, &b, n, arg);
        kc_status s = kc_lcc_init(c, &a, b, bd->scatter, err);
        if (s)
            return s;
        snprintf(c->name, sizeof c->name, "%s", name);
        return KC_OK;
    }
    return unknown_pattern(name, base_len, err);
}
