/* Partitioned linear-complement permutations (seed 004 Section 3.3.1):
 * random members, and |PLC_n| by recurrence (3) and by enumeration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "core/grow.h"
#include "kcube/hl_class.h"
#include "kcube/perm.h"

kc_status kc_hl_random_plc(int n, kc_rng *r, uint32_t *dst)
{
    uint64_t np = 1ULL << n;
    /* a plain LC permutation at this level one time in three (always for
     * n <= 2, where PLC_n = LC_n) */
    if (n <= 2 || kc_rng_below(r, 3) == 0) {
        kc_bitmat a;
        uint64_t b;
        kc_hl_random_lc(n, r, &a, &b);
        uint64_t col[64];
        for (int j = 0; j < n; j++)
            col[j] = kc_bitmat_col(&a, j);
        dst[0] = (uint32_t)b;
        for (uint64_t x = 1; x < np; x++)
            dst[x] = dst[x & (x - 1)] ^ (uint32_t)col[kci_ctz64(x)];
        return KC_OK;
    }
    int k = 1 + (int)kc_rng_below(r, (uint64_t)n - 1), low = n - k;
    uint64_t nh = 1ULL << k, nl = 1ULL << low;
    /* sigma first into the top slots, then each tau_h in place */
    uint32_t *sigma = malloc(nh * sizeof *sigma);
    kc_status st = sigma ? kc_hl_random_plc(k, r, sigma) : KC_ENOMEM;
    for (uint64_t h = 0; h < nh && !st; h++) {
        uint32_t *row = dst + h * nl;
        st = kc_hl_random_plc(low, r, row);
        for (uint64_t l = 0; l < nl && !st; l++)
            row[l] |= sigma[h] << low;
    }
    free(sigma);
    return st;
}

/* ---- |LC'_k| ------------------------------------------------------------- */

/* |GL(k,2)|, exact for k <= 8 only (64 bits). */
static uint64_t gl_count(int k)
{
    uint64_t g = 1;
    for (int i = 0; i < k; i++)
        g *= (1ULL << k) - (1ULL << i);
    return g;
}

/* Sum over compositions c_1 + ... + c_m = k of (-1)^{m-1} prod |GL(c_i)|
 * (times 2^{sum_{i<j} c_i c_j} for block-triangular): the matrices with no
 * split, by inclusion-exclusion over the set of split points. In 128 bits,
 * for kc_hl_lc_prime's k <= 6 only (gl_count wraps from k = 9 on, and
 * |GL(12,2)| is near 2^144): the recurrence uses lc_prime_big below. */
static __int128 indecomposable(int k, int variant)
{
    __int128 total = 0;
    for (uint64_t cuts = 0; cuts < (1ULL << (k - 1)); cuts++) {
        /* bit i of cuts: a split after position i + 1 */
        __int128 term = 1;
        int start = 0, m = 0, sizes[64];
        for (int i = 0; i < k; i++)
            if (i == k - 1 || ((cuts >> i) & 1)) {
                sizes[m++] = i + 1 - start;
                start = i + 1;
            }
        int off = 0;
        for (int a = 0; a < m; a++) {
            term *= (__int128)gl_count(sizes[a]);
            for (int b = a + 1; b < m && variant; b++)
                off += sizes[a] * sizes[b];
        }
        term <<= off;
        total += (m & 1) ? term : -term;
    }
    return total;
}

uint64_t kc_hl_lc_prime(int k, int variant)
{
    if (k < 1 || k > 6)
        return 0; /* 2^k |GL(k,2)| overflows 64 bits from k = 7 on */
    return (uint64_t)(indecomposable(k, variant) << k);
}

/* Does A split at j (top j rows / columns)? */
static int splits(const kc_bitmat *a, int k, int j, int variant)
{
    uint64_t lowcols = kc_mask(k - j), highcols = kc_mask(k) & ~lowcols;
    for (int i = k - j; i < k; i++) /* top rows must not see low columns */
        if (a->row[i] & lowcols)
            return 0;
    if (variant == 0)
        for (int i = 0; i < k - j; i++) /* low rows must not see top columns */
            if (a->row[i] & highcols)
                return 0;
    return 1;
}

uint64_t kc_hl_lc_prime_enumerate(int k, int variant)
{
    if (k < 1 || k > 4)
        return 0;
    uint64_t count = 0;
    for (uint64_t bits = 0; bits < (1ULL << (k * k)); bits++) {
        kc_bitmat a;
        kc_bitmat_zero(&a, k);
        for (int i = 0; i < k; i++)
            a.row[i] = (bits >> (i * k)) & kc_mask(k);
        if (kc_bitmat_rank(&a) != k)
            continue;
        int any = 0;
        for (int j = 1; j < k && !any; j++)
            any = splits(&a, k, j, variant);
        count += !any;
    }
    return count << k;
}

/* ---- big numbers for recurrence (3): base 10^9 limbs, least first ------- */

typedef struct big {
    int len;
    uint32_t *d;
} big;

#define BIG_BASE 1000000000u

static int big_set(big *b, uint64_t v)
{
    b->d = malloc(3 * sizeof *b->d);
    if (!b->d)
        return -1;
    b->len = 0;
    do {
        b->d[b->len++] = (uint32_t)(v % BIG_BASE);
        v /= BIG_BASE;
    } while (v);
    return 0;
}

static int big_mul(big *out, const big *a, const big *b)
{
    int len = a->len + b->len;
    uint64_t *acc = calloc((size_t)len + 1, sizeof *acc);
    uint32_t *d = malloc(((size_t)len + 1) * sizeof *d);
    if (!acc || !d) {
        free(acc);
        free(d);
        return -1;
    }
    for (int i = 0; i < a->len; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < b->len; j++) {
            uint64_t cur = acc[i + j] + (uint64_t)a->d[i] * b->d[j] + carry;
            acc[i + j] = cur % BIG_BASE;
            carry = cur / BIG_BASE;
        }
        for (int j = i + b->len; carry; j++) {
            uint64_t cur = acc[j] + carry;
            acc[j] = cur % BIG_BASE;
            carry = cur / BIG_BASE;
        }
    }
    while (len > 1 && acc[len - 1] == 0)
        len--;
    for (int i = 0; i < len; i++)
        d[i] = (uint32_t)acc[i];
    free(acc);
    free(out->d);
    out->d = d;
    out->len = len;
    return 0;
}

static int big_add(big *out, const big *a)
{
    int len = (out->len > a->len ? out->len : a->len) + 1;
    uint32_t *d = calloc((size_t)len, sizeof *d);
    if (!d)
        return -1;
    uint64_t carry = 0;
    for (int i = 0; i < len; i++) {
        uint64_t cur = carry + (i < out->len ? out->d[i] : 0) + (i < a->len ? a->d[i] : 0);
        d[i] = (uint32_t)(cur % BIG_BASE);
        carry = cur / BIG_BASE;
    }
    while (len > 1 && d[len - 1] == 0)
        len--;
    free(out->d);
    out->d = d;
    out->len = len;
    return 0;
}

/* b *= m in place (m < 2^32: a limb times m stays below 2^64). */
static int big_mul_u32(big *b, uint32_t m)
{
    if (KCI_RESIZE(b->d, (size_t)b->len + 2))
        return -1;
    uint32_t *d = b->d;
    uint64_t carry = 0;
    for (int i = 0; i < b->len; i++) {
        uint64_t cur = (uint64_t)d[i] * m + carry;
        d[i] = (uint32_t)(cur % BIG_BASE);
        carry = cur / BIG_BASE;
    }
    while (carry) {
        d[b->len++] = (uint32_t)(carry % BIG_BASE);
        carry /= BIG_BASE;
    }
    while (b->len > 1 && d[b->len - 1] == 0)
        b->len--;
    return 0;
}

/* b *= 2^e. */
static int big_shift(big *b, int e)
{
    int fail = 0;
    for (; e > 0 && !fail; e -= 30)
        fail = big_mul_u32(b, 1u << (e < 30 ? e : 30));
    return fail;
}

/* out -= a, for out >= a. */
static void big_sub(big *out, const big *a)
{
    int64_t borrow = 0;
    for (int i = 0; i < out->len; i++) {
        int64_t cur = (int64_t)out->d[i] - borrow - (i < a->len ? a->d[i] : 0);
        borrow = cur < 0;
        out->d[i] = (uint32_t)(cur + (borrow ? BIG_BASE : 0));
    }
    while (out->len > 1 && out->d[out->len - 1] == 0)
        out->len--;
}

/* |LC'_k| exactly, any k <= 64: indecomposable()'s inclusion-exclusion with
 * the positive and negative terms summed apart, each term a product of
 * |GL(c,2)| = prod_{i<c} (2^c - 2^i) factor by factor (each below 2^32 for
 * c <= 32, which k <= KC_HL_CLASS_MAX_N keeps), then times 2^k (b). */
static int lc_prime_big(int k, int variant, big *out)
{
    big pos = {0, NULL}, neg = {0, NULL};
    int fail = big_set(&pos, 0) | big_set(out, 0);
    fail |= big_set(&neg, 0);
    for (uint64_t cuts = 0; cuts < (1ULL << (k - 1)) && !fail; cuts++) {
        big term = {0, NULL};
        fail |= big_set(&term, 1);
        int start = 0, m = 0, sizes[64], off = 0;
        for (int i = 0; i < k; i++)
            if (i == k - 1 || ((cuts >> i) & 1)) {
                sizes[m++] = i + 1 - start;
                start = i + 1;
            }
        for (int a = 0; a < m && !fail; a++) {
            for (int i = 0; i < sizes[a] && !fail; i++)
                fail |= big_mul_u32(&term, (uint32_t)((1ULL << sizes[a]) - (1ULL << i)));
            for (int b = a + 1; b < m && variant; b++)
                off += sizes[a] * sizes[b];
        }
        if (!fail)
            fail |= big_shift(&term, off);
        if (!fail)
            fail |= big_add((m & 1) ? &pos : &neg, &term);
        free(term.d);
    }
    if (!fail) {
        big_sub(&pos, &neg); /* the count of matrices: never negative */
        fail |= big_shift(&pos, k);
    }
    free(neg.d);
    free(out->d);
    *out = pos;
    return fail;
}

kc_status kc_hl_plc_count(int n, int variant, char *buf, size_t size, kc_err *err)
{
    if (n < 0 || n > KC_HL_CLASS_MAX_N)
        return kc_fail(err, KC_ERANGE, "|PLC_n| is computed for n = 0..%d, got %d", KC_HL_CLASS_MAX_N, n);
    big plc[KC_HL_CLASS_MAX_N + 1] = {{0, NULL}};
    int fail = 0;
    /* PLC_0 = 1, PLC_1 = LC_1 = 2, PLC_2 = LC_2 = 24 */
    fail |= big_set(&plc[0], 1);
    if (n >= 1)
        fail |= big_set(&plc[1], 2);
    if (n >= 2)
        fail |= big_set(&plc[2], 24);
    for (int m = 3; m <= n && !fail; m++) {
        fail |= big_set(&plc[m], 0);
        for (int k = 1; k <= m && !fail; k++) {
            big term = {0, NULL}, p = {0, NULL};
            fail |= lc_prime_big(k, variant, &p);
            /* times |PLC_{m-k}|^{2^k}: k squarings */
            big pw = {0, NULL};
            fail |= big_set(&pw, 1);
            if (!fail)
                fail |= big_mul(&pw, &pw, &plc[m - k]);
            for (int s = 0; s < k && !fail; s++)
                fail |= big_mul(&pw, &pw, &pw);
            if (!fail)
                fail |= big_mul(&term, &p, &pw);
            if (!fail)
                fail |= big_add(&plc[m], &term);
            free(term.d), free(p.d), free(pw.d);
        }
    }
    kc_status s = KC_OK;
    if (fail) {
        s = kc_fail(err, KC_ENOMEM, "out of memory counting PLC_%d", n);
    } else {
        const big *b = &plc[n];
        size_t need = (size_t)b->len * 9 + 1;
        if (size < need) {
            s = kc_fail(err, KC_ERANGE, "|PLC_%d| needs %zu characters", n, need);
        } else {
            int used = snprintf(buf, size, "%u", b->d[b->len - 1]);
            for (int i = b->len - 2; i >= 0; i--)
                used += snprintf(buf + used, size - (size_t)used, "%09u", b->d[i]);
        }
    }
    for (int m = 0; m <= n; m++)
        free(plc[m].d);
    return s;
}

/* ---- enumeration ------------------------------------------------------- */

/* Permutations of 16 nodes as 64-bit keys (4 bits per entry). */
typedef struct pset {
    uint64_t *slot;
    uint64_t mask, count;
} pset;

static void pset_add(pset *s, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    for (uint64_t i = h >> 20;; i++) {
        uint64_t *p = &s->slot[i & s->mask];
        if (*p == key)
            return;
        if (*p == 0) {
            *p = key;
            s->count++;
            return;
        }
    }
}

/* every permutation of 2^m nodes, m <= 3, passing kc_hl_is_plc */
static uint32_t *plc_list(int m, uint64_t *count)
{
    int len = 1 << m;
    uint64_t fact = 1;
    for (int i = 2; i <= len; i++)
        fact *= (uint64_t)i;
    uint32_t *list = malloc(fact * (size_t)len * sizeof *list);
    if (!list)
        return NULL;
    uint32_t p[8];
    kc_perm_identity(p, (size_t)len);
    *count = 0;
    for (;;) {
        int plc = kc_hl_is_plc(m, p);
        if (plc < 0) {
            free(list);
            return NULL;
        }
        if (plc)
            memcpy(list + (*count)++ * (uint64_t)len, p, (size_t)len * sizeof *p);
        if (!kc_perm_next(p, (size_t)len))
            break;
    }
    return list;
}

kc_status kc_hl_plc_enumerate(int n, uint64_t *count, kc_err *err)
{
    if (n < 0 || n > 4)
        return kc_fail(err, KC_ERANGE, "PLC_n is enumerated for n = 0..4, got %d", n);
    if (n <= 3) {
        if (n == 0) {
            *count = 1;
            return KC_OK;
        }
        uint32_t *l = plc_list(n, count);
        if (!l)
            return kc_fail(err, KC_ENOMEM, "out of memory");
        free(l);
        return KC_OK;
    }
    /* n = 4: build every cut (sigma in PLC_k, tau_h in PLC_{4-k}) and every
     * LC_4 permutation, and count the distinct results */
    uint64_t cnt[4];
    uint32_t *lists[4] = {NULL};
    for (int m = 1; m <= 3; m++)
        if (!(lists[m] = plc_list(m, &cnt[m]))) {
            for (int i = 1; i < m; i++)
                free(lists[i]);
            return kc_fail(err, KC_ENOMEM, "out of memory");
        }
    pset s = {calloc(1ULL << 26, sizeof(uint64_t)), (1ULL << 26) - 1, 0};
    if (!s.slot) {
        for (int i = 1; i <= 3; i++)
            free(lists[i]);
        return kc_fail(err, KC_ENOMEM, "out of memory for the PLC_4 set");
    }
    for (int k = 1; k <= 3; k++) {
        int low = 4 - k;
        uint64_t nh = 1ULL << k, nl = 1ULL << low, nsig = cnt[k], ntau = cnt[low];
        uint64_t idx[8] = {0};
        for (uint64_t sg = 0; sg < nsig; sg++) {
            const uint32_t *sigma = lists[k] + sg * nh;
            memset(idx, 0, sizeof idx);
            for (;;) {
                uint64_t key = 0;
                for (uint64_t h = 0; h < nh; h++) {
                    const uint32_t *tau = lists[low] + idx[h] * nl;
                    for (uint64_t l = 0; l < nl; l++)
                        key |= (uint64_t)((sigma[h] << low) | tau[l]) << (4 * ((h << low) | l));
                }
                pset_add(&s, key);
                /* odometer over (tau_0, ..., tau_{2^k - 1}) */
                uint64_t h = 0;
                while (h < nh && ++idx[h] == ntau)
                    idx[h++] = 0;
                if (h == nh)
                    break;
            }
        }
    }
    /* LC_4 */
    for (uint64_t bits = 0; bits < (1ULL << 16); bits++) {
        kc_bitmat a;
        kc_bitmat_zero(&a, 4);
        for (int i = 0; i < 4; i++)
            a.row[i] = (bits >> (i * 4)) & 15;
        if (kc_bitmat_rank(&a) != 4)
            continue;
        for (uint64_t b = 0; b < 16; b++) {
            uint64_t key = 0;
            for (uint64_t x = 0; x < 16; x++)
                key |= (kc_bitmat_mul_vec(&a, x) ^ b) << (4 * x);
            pset_add(&s, key);
        }
    }
    *count = s.count;
    free(s.slot);
    for (int i = 1; i <= 3; i++)
        free(lists[i]);
    return KC_OK;
}
