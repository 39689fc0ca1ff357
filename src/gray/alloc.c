/* The allocation schemes of Table 1 (kcube/gray_alloc.h). */
#include "core/bits.h"
#include "kcube/gray.h"
#include "kcube/gray_alloc.h"

static const kc_name alloc_entries[] = {
    {KC_ALLOC_CYCLIC, "cyclic", "the low n bits of the index choose the processor"},
    {KC_ALLOC_CONSECUTIVE, "consecutive", "the high n bits of the index choose the processor"},
    {0, NULL, NULL},
};
const kc_names kc_alloc_names = {"allocation", alloc_entries};

static const kc_name enc_entries[] = {
    {KC_ENC_GRAY, "gray", "the entire address G_p(i), split into processor and memory fields"},
    {KC_ENC_GRAY_GRAY, "gray-gray", "processor and memory fields Gray coded separately"},
    {KC_ENC_BINARY_GRAY, "binary-gray", "memory field binary, processor field Gray coded"},
    {KC_ENC_BINARY, "binary", "both fields binary"},
    {0, NULL, NULL},
};
const kc_names kc_encoding_names = {"encoding", enc_entries};

kc_status kc_scheme_init(kc_scheme *s, kc_alloc alloc, kc_encoding enc, int n, int p, kc_err *err)
{
    if (p < 0 || p > KC_SCHEME_MAX_P)
        return kc_fail_param(err, KC_ERANGE, "p", "p must be 0..%d, got %d", KC_SCHEME_MAX_P, p);
    if (n < 0 || n > p)
        return kc_fail_param(err, KC_ERANGE, "n", "n must be 0..p = %d, got %d", p, n);
    *s = (kc_scheme){.alloc = alloc, .enc = enc, .n = n, .p = p};
    return KC_OK;
}

uint64_t kc_scheme_machine(const kc_scheme *s, uint64_t i)
{
    int n = s->n, m = s->p - n;
    uint64_t pmask = kc_gray_mask(n), mmask = kc_gray_mask(m);
    if (s->enc == KC_ENC_GRAY) {
        uint64_t g = kc_gray(i);
        if (s->alloc == KC_ALLOC_CYCLIC)
            return g;
        return ((g & mmask) << n) | (g >> m); /* processor field = top n bits of G_p(i) */
    }
    uint64_t pf, mf;
    if (s->alloc == KC_ALLOC_CYCLIC) {
        pf = i & pmask;
        mf = i >> n;
    } else {
        pf = i >> m;
        mf = i & mmask;
    }
    if (s->enc != KC_ENC_BINARY)
        pf = kc_gray(pf);
    if (s->enc == KC_ENC_GRAY_GRAY)
        mf = kc_gray(mf);
    return (mf << n) | pf;
}

uint64_t kc_scheme_index(const kc_scheme *s, uint64_t machine)
{
    int n = s->n, m = s->p - n;
    uint64_t pf = machine & kc_gray_mask(n), mf = machine >> n;
    if (s->enc == KC_ENC_GRAY) {
        uint64_t g = s->alloc == KC_ALLOC_CYCLIC ? machine : (pf << m) | mf;
        return kc_gray_inv(g);
    }
    if (s->enc != KC_ENC_BINARY)
        pf = kc_gray_inv(pf);
    if (s->enc == KC_ENC_GRAY_GRAY)
        mf = kc_gray_inv(mf);
    return s->alloc == KC_ALLOC_CYCLIC ? (mf << n) | pf : (pf << m) | mf;
}

void kc_scheme_table1(const kc_scheme *s, uint64_t i, uint64_t *proc, uint64_t *mem)
{
    int n = s->n, m = s->p - n;
    uint64_t N = 1ULL << n, PN = 1ULL << m;
    /* consecutive: floor(iN/P) = i / (P/N); cyclic: i mod N and floor(i/N) */
    uint64_t hi = s->alloc == KC_ALLOC_CYCLIC ? i / N : i / PN;   /* the field that is not the processor's ... */
    uint64_t lo = s->alloc == KC_ALLOC_CYCLIC ? i % N : i % PN;   /* ... and the other one */
    uint64_t pidx = s->alloc == KC_ALLOC_CYCLIC ? lo : hi, midx = s->alloc == KC_ALLOC_CYCLIC ? hi : lo;
    switch (s->enc) {
    case KC_ENC_BINARY: *proc = pidx; *mem = midx; break;
    case KC_ENC_BINARY_GRAY: *proc = kc_gray(pidx); *mem = midx; break;
    case KC_ENC_GRAY_GRAY: *proc = kc_gray(pidx); *mem = kc_gray(midx); break;
    case KC_ENC_GRAY:
        if (s->alloc == KC_ALLOC_CONSECUTIVE) {
            *proc = kc_gray(pidx);
            int odd = kci_popcount64(kc_gray(pidx)) & 1;
            *mem = kc_gray(odd ? ~midx & (PN - 1) : midx);
        } else {
            *mem = kc_gray(midx);
            int odd = kci_popcount64(kc_gray(midx)) & 1;
            *proc = kc_gray(odd ? ~pidx & (N - 1) : pidx);
        }
        break;
    }
}

void kc_scheme_columns(const kc_scheme *s, uint64_t *col)
{
    for (int b = 0; b < s->p; b++)
        col[b] = kc_scheme_machine(s, 1ULL << b);
}
