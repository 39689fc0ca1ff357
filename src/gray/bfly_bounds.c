/* The paper's counts for each case, the names, and the serial reference
 * (kcube/butterfly.h). */
#include <complex.h>

#include "kcube/butterfly.h"

static const kc_name method_entries[] = {
    {KC_BFLY_DIRECT, "direct", "straightforward emulation on the Gray-coded data (copies travel 2 hops)"},
    {KC_BFLY_CONVERT, "convert", "convert the placement to binary, then emulate"},
    {KC_BFLY_BISECT_LOCAL, "bisect-local", "bi-sectioning with code conversion in local memory (p >= n+2)"},
    {KC_BFLY_BISECT_INTERPROC, "bisect-interproc", "bi-sectioning with inter-processor code conversion (p >= n+1)"},
    {KC_BFLY_ONE_PER_PROC, "one-per-proc", "Section 5: copies to both neighbours, one output kept"},
    {KC_BFLY_MULTISECT, "multisect", "2^r-sectioning: blocks of 2^r local slots (--r; r = n: N-sectioning)"},
    {0, NULL, NULL},
};
const kc_names kc_bfly_method_names = {"method", method_entries};

static const kc_name out_entries[] = {
    {KC_BFLY_OUT_NATIVE, "native", "leave the processor field as the method ends"},
    {KC_BFLY_OUT_BINARY, "binary", "processor field binary (a permutation of row bits)"},
    {KC_BFLY_OUT_GRAY, "gray", "processor field binary-reflected Gray code"},
    {0, NULL, NULL},
};
const kc_names kc_bfly_out_names = {"output encoding", out_entries};

static const kc_name motion_entries[] = {
    {KC_BFLY_M_START, "start", "the initial placement"},
    {KC_BFLY_M_EXCHANGE, "exchange", "swap of a processor dimension with an address bit"},
    {KC_BFLY_M_CONDITIONAL, "conditional", "the slots whose control parity is 1 cross a dimension"},
    {KC_BFLY_M_LOCAL, "local", "local reordering (a renaming of slots; no data moves)"},
    {KC_BFLY_M_ALL_TO_ALL, "all-to-all", "all-to-all personalized exchange in a 2-cube"},
    {KC_BFLY_M_DIAGONAL, "diagonal", "diagonal bi-section over two dimensions"},
    {KC_BFLY_M_COPY, "copy", "a copy travels to the butterfly partner"},
    {KC_BFLY_M_REPLICATE, "replicate", "copies to both neighbours, one output kept"},
    {KC_BFLY_M_SECTION, "n-sectioning", "all-to-all in the n-cube: every processor bit into a local bit"},
    {0, NULL, NULL},
};
const kc_names kc_bfly_motion_names = {"motion", motion_entries};

void kc_bfly_get_bounds(const kc_bfly_opts *o, kc_bfly_bounds *b)
{
    int n = o->scheme.n, p = o->scheme.p, cyc = o->scheme.alloc == KC_ALLOC_CYCLIC;
    kc_encoding e = o->scheme.enc;
    int64_t PN = p - n < 62 ? (int64_t)1 << (p - n) : 0, half = PN / 2;
    *b = (kc_bfly_bounds){.theorem = -1, .table4 = -1, .which = ""};
    if (e == KC_ENC_BINARY)
        return;
    int local = o->method == KC_BFLY_BISECT_LOCAL, inter = o->method == KC_BFLY_BISECT_INTERPROC;
    if (o->method == KC_BFLY_ONE_PER_PROC && p == n && e == KC_ENC_BINARY_GRAY) {
        b->theorem = n;
        b->which = "Theorem 5";
        return;
    }
    if (o->method == KC_BFLY_MULTISECT && cyc && e == KC_ENC_BINARY_GRAY && o->r <= n && n % o->r == 0) {
        /* r = n: "the pipeline delay is entirely avoided" (N-sectioning) */
        b->theorem = half + (int64_t)(n / o->r - 1) * ((int64_t)1 << o->r) / 2;
        b->which = o->r < n ? "Section 6 (2^r-sectioning)" : "Section 6 (N-sectioning, r = n)";
        return;
    }
    if (!local && !inter)
        return;
    if (!cyc) {
        int64_t v = half + (local ? (n > half ? n : half) : (n > PN ? n : PN));
        b->table4 = v;
        if (e == KC_ENC_BINARY_GRAY) {
            b->theorem = v;
            b->which = "Theorem 3";
        }
        return;
    }
    if (e == KC_ENC_GRAY) {
        b->theorem = b->table4 = local ? half + n - 1 : PN + n - 1;
        b->which = "Theorem 4";
        return;
    }
    b->table4 = local ? half + n - 1 : PN + n - 2;
    if (e == KC_ENC_BINARY_GRAY) {
        b->theorem = local ? half + n - 2 : PN + n - 2;
        b->which = local ? "Theorem 1" : "Theorem 2";
    }
}

uint64_t kc_bfly_bitrev(uint64_t i, int p)
{
    uint64_t r = 0;
    for (int b = 0; b < p; b++)
        r |= (i >> b & 1) << (p - 1 - b);
    return r;
}

void kc_bfly_dif_serial(double complex *x, int p)
{
    uint64_t P = 1ULL << p;
    for (int j = p - 1; j >= 0; j--) {
        uint64_t h = 1ULL << j;
        for (uint64_t i = 0; i < P; i++) {
            if (i & h)
                continue;
            double complex u = x[i], l = x[i + h];
            double ang = -2.0 * 3.14159265358979323846 * (double)(i & (h - 1)) / (double)(2 * h);
            x[i] = u + l;
            x[i + h] = (u - l) * cexp(I * ang);
        }
    }
}
