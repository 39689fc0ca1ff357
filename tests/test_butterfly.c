/* Butterfly emulation on Gray-coded data (seed 001): real FFTs through every
 * method and scheme against a direct DFT and FFTW, placements, Theorem 5,
 * Table 2's allocation, the paper's values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/butterfly.h"
#include "kcube/gray.h"
#include "kcube/rng.h"

static void random_input(double complex *x, uint64_t P, uint64_t seed)
{
    kc_rng r;
    kc_rng_seed(&r, seed);
    for (uint64_t i = 0; i < P; i++) {
        double a = (double)(kc_rng_next(&r) >> 11) / 9007199254740992.0 - 0.5;
        double b = (double)(kc_rng_next(&r) >> 11) / 9007199254740992.0 - 0.5;
        x[i] = a + I * b;
    }
}

/* max |x[i] - X[rev(i)]| / max |X| with X the DFT of in, computed directly. */
static double error_vs_dft(const double complex *in, const double complex *rows, int p)
{
    uint64_t P = 1ULL << p;
    double num = 0, den = 0;
    for (uint64_t k = 0; k < P; k++) {
        long double complex acc = 0;
        for (uint64_t t = 0; t < P; t++) {
            long double ang = -2.0L * 3.14159265358979323846264338327950288L * (long double)((k * t) % P) / (long double)P;
            acc += in[t] * (cosl(ang) + I * sinl(ang));
        }
        double complex X = (double complex)acc;
        double d = cabs(rows[kc_bfly_bitrev(k, p)] - X);
        num = d > num ? d : num;
        den = cabs(X) > den ? cabs(X) : den;
    }
    return num / den;
}

static double error_vs_fftw(const double complex *in, const double complex *rows, int p)
{
    uint64_t P = 1ULL << p;
    fftw_complex *a = fftw_malloc(sizeof *a * P), *b = fftw_malloc(sizeof *b * P);
    memcpy(a, in, sizeof *a * P);
    fftw_plan pl = fftw_plan_dft_1d((int)P, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(pl);
    double num = 0, den = 0;
    for (uint64_t k = 0; k < P; k++) {
        double complex X = b[k]; /* complex.h first: fftw_complex is double complex */
        double d = cabs(rows[kc_bfly_bitrev(k, p)] - X);
        num = d > num ? d : num;
        den = cabs(X) > den ? cabs(X) : den;
    }
    fftw_destroy_plan(pl);
    fftw_free(a);
    fftw_free(b);
    return num / den;
}

static int method_min_p(kc_bfly_method m, int n)
{
    return m == KC_BFLY_BISECT_LOCAL ? n + 2 : m == KC_BFLY_BISECT_INTERPROC ? n + 1 : m == KC_BFLY_MULTISECT ? n + 2 : n;
}

/* Every method x allocation x encoding x output encoding on small cubes:
 * the FFT is right, every element ends where the final map says, no link
 * carries two messages in a step, and the asked output encoding holds. */
static void test_fft_every_method(void **state)
{
    for (int n = 1; n <= 4; n++)
        for (int m = 0; m < 6; m++)
            for (int p = method_min_p((kc_bfly_method)m, n); p <= n + 3; p++)
                for (int a = 0; a < 2; a++)
                    for (int e = 0; e < 4; e++)
                        for (int out = 0; out < 3; out++) {
                            kc_bfly_opts o = {.method = (kc_bfly_method)m, .out = (kc_bfly_out)out, .r = 2};
                            assert_int_equal(kc_scheme_init(&o.scheme, (kc_alloc)a, (kc_encoding)e, n, p, NULL), KC_OK);
                            uint64_t P = 1ULL << p;
                            double complex *in = malloc(sizeof *in * P), *x = malloc(sizeof *x * P);
                            random_input(in, P, (uint64_t)(n * 1000 + p * 100 + m * 10 + e));
                            memcpy(x, in, sizeof *x * P);
                            kc_bfly_result r;
                            kc_err err = {0};
                            kc_status s = kc_bfly_run(&o, x, &r, &err);
                            if (s)
                                fail_msg("n=%d p=%d m=%d a=%d e=%d: %s", n, p, m, a, e, err.msg);
                            assert_true(r.placement_ok);
                            assert_int_equal(r.net.conflicts, 0);
                            if ((out == KC_BFLY_OUT_BINARY && r.final_enc != KC_BFLY_ENC_BINARY) ||
                                (out == KC_BFLY_OUT_GRAY && n > 1 && r.final_enc != KC_BFLY_ENC_GRAY))
                                fail_msg("n=%d p=%d m=%d a=%d e=%d out=%d: encoding %d", n, p, m, a, e, out,
                                         (int)r.final_enc);
                            double ev = p <= 7 ? error_vs_dft(in, x, p) : error_vs_fftw(in, x, p);
                            if (ev > 1e-9)
                                fail_msg("n=%d p=%d m=%d a=%d e=%d: error %g", n, p, m, a, e, ev);
                            free(in);
                            free(x);
                        }
}

/* N-sectioning (multisect with r = n, Section 6: "the pipeline delay is
 * entirely avoided"): P/2N transfers in sequence, the lower bound, for
 * every Gray-coded cyclic scheme (entire-address Gray needs one memory bit
 * outside the block, p >= 2n + 1), binary or Gray output at no cost, the
 * FFT right. */
static void test_n_sectioning(void **state)
{
    for (int n = 1; n <= 6; n++)
        for (int p = 2 * n; p <= 2 * n + 2; p++)
            for (int e = 0; e < 4; e++)
                for (int out = 0; out < 3; out++) {
                    kc_bfly_opts o = {.method = KC_BFLY_MULTISECT, .out = (kc_bfly_out)out, .r = n};
                    assert_int_equal(kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, (kc_encoding)e, n, p, NULL), KC_OK);
                    uint64_t P = 1ULL << p;
                    double complex *in = malloc(sizeof *in * P), *x = malloc(sizeof *x * P);
                    random_input(in, P, (uint64_t)(n * 100 + p * 10 + e));
                    memcpy(x, in, sizeof *x * P);
                    kc_bfly_result r;
                    assert_int_equal(kc_bfly_run(&o, x, &r, NULL), KC_OK);
                    assert_true(r.placement_ok);
                    assert_int_equal(r.net.conflicts, 0);
                    if (e != KC_ENC_GRAY || p > 2 * n)
                        assert_int_equal(r.net.transfers, P >> (n + 1));
                    if (out != KC_BFLY_OUT_NATIVE && n > 1) {
                        assert_int_equal(r.conv_transfers, 0);
                        assert_int_equal(r.final_enc, out == KC_BFLY_OUT_BINARY ? KC_BFLY_ENC_BINARY : KC_BFLY_ENC_GRAY);
                    }
                    kc_bfly_bounds b;
                    kc_bfly_get_bounds(&o, &b);
                    if (e == KC_ENC_BINARY_GRAY)
                        assert_int_equal(b.theorem, (int64_t)(P >> (n + 1)));
                    double ev = p <= 7 ? error_vs_dft(in, x, p) : error_vs_fftw(in, x, p);
                    if (ev > 1e-9)
                        fail_msg("n=%d p=%d e=%d: error %g", n, p, e, ev);
                    free(in);
                    free(x);
                }
}

/* Larger sizes against FFTW, one per method. */
static void test_fft_fftw(void **state)
{
    for (int m = 0; m < 6; m++) {
        int n = 5, p = 12;
        kc_bfly_opts o = {.method = (kc_bfly_method)m, .out = KC_BFLY_OUT_NATIVE, .r = 3};
        assert_int_equal(kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, KC_ENC_BINARY_GRAY, n, p, NULL), KC_OK);
        uint64_t P = 1ULL << p;
        double complex *in = malloc(sizeof *in * P), *x = malloc(sizeof *x * P);
        random_input(in, P, 77);
        memcpy(x, in, sizeof *x * P);
        kc_bfly_result r;
        assert_int_equal(kc_bfly_run(&o, x, &r, NULL), KC_OK);
        assert_true(r.placement_ok);
        assert_true(error_vs_fftw(in, x, p) <= 1e-9);
        free(in);
        free(x);
    }
}

/* The 24 FFT configurations cli_butterfly.sh runs (n = 3, p = 7, cyclic,
 * native output, multisect with r = 2, the command line's input for seed 1),
 * value by value against FFTW: every output row within 1e-13 of FFTW's
 * value, relative to FFTW's largest |X| (a radix-2 FFT of 128 points in
 * double precision is off by about 1e-16 relative; 1e-13 leaves room for
 * another summation order, not for a wrong twiddle or a misplaced row, which
 * are off by about 1). */
static void test_cli_configurations_fftw(void **state)
{
    enum { N = 3, P_LOG = 7, P = 1 << P_LOG };
    for (int m = 0; m < 6; m++)
        for (int e = 0; e < 4; e++) {
            kc_bfly_opts o = {.method = (kc_bfly_method)m, .out = KC_BFLY_OUT_NATIVE, .r = 2};
            assert_int_equal(kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, (kc_encoding)e, N, P_LOG, NULL), KC_OK);
            double complex in[P], x[P];
            random_input(in, P, 1);
            memcpy(x, in, sizeof x);
            kc_bfly_result r;
            assert_int_equal(kc_bfly_run(&o, x, &r, NULL), KC_OK);
            double err = error_vs_fftw(in, x, P_LOG);
            if (!(err <= 1e-13))
                fail_msg("%s %s: max |x - FFTW| / max |FFTW| = %g", kc_names_name(&kc_bfly_method_names, m),
                         kc_names_name(&kc_encoding_names, e), err);
        }
}

/* Theorem 5: one point per processor, Gray-coded: n transfers in sequence,
 * output in Gray code, n = 2..12. */
static void test_theorem5(void **state)
{
    for (int n = 2; n <= 12; n++) {
        kc_bfly_opts o = {.method = KC_BFLY_ONE_PER_PROC, .out = KC_BFLY_OUT_NATIVE};
        assert_int_equal(kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, KC_ENC_BINARY_GRAY, n, n, NULL), KC_OK);
        kc_bfly_result r;
        assert_int_equal(kc_bfly_run(&o, NULL, &r, NULL), KC_OK);
        assert_true(r.placement_ok);
        assert_int_equal(r.net.transfers, (uint64_t)n);
        assert_int_equal(r.net.conflicts, 0);
        assert_int_equal(r.final_enc, KC_BFLY_ENC_GRAY);
        /* Gray encoding restored: the final map is the initial one */
        for (int b = 0; b < n; b++)
            assert_int_equal(r.final_col[b], kc_scheme_machine(&o.scheme, 1ULL << b));
        assert_int_equal(r.final_c, 0);
        kc_bfly_bounds bd;
        kc_bfly_get_bounds(&o, &bd);
        assert_int_equal(bd.theorem, n);
    }
}

/* Table 2 as printed: six blocks (initial; after the exchange of
 * dimensions 2 and 4; after the local conversion; after the exchange of 1
 * and 3; after the local conversion; after the exchange of 0 and 4), rows
 * memory slot m, column c = processor G(c). */
static const char *const table2_blocks[6][4][8] = {
    {{"00000", "00001", "00010", "00011", "00100", "00101", "00110", "00111"},
     {"01111", "01110", "01101", "01100", "01011", "01010", "01001", "01000"},
     {"11111", "11110", "11101", "11100", "11011", "11010", "11001", "11000"},
     {"10000", "10001", "10010", "10011", "10100", "10101", "10110", "10111"}},
    {{"00000", "00001", "00010", "00011", "11100", "11101", "11110", "11111"},
     {"01111", "01110", "01101", "01100", "10011", "10010", "10001", "10000"},
     {"00111", "00110", "00101", "00100", "11011", "11010", "11001", "11000"},
     {"01000", "01001", "01010", "01011", "10100", "10101", "10110", "10111"}},
    {{"00000", "00001", "00010", "00011", "10011", "10010", "10001", "10000"},
     {"01111", "01110", "01101", "01100", "11100", "11101", "11110", "11111"},
     {"00111", "00110", "00101", "00100", "10100", "10101", "10110", "10111"},
     {"01000", "01001", "01010", "01011", "11011", "11010", "11001", "11000"}},
    {{"00000", "00001", "01110", "01111", "11111", "11110", "10001", "10000"},
     {"00011", "00010", "01101", "01100", "11100", "11101", "10010", "10011"},
     {"00111", "00110", "01001", "01000", "11000", "11001", "10110", "10111"},
     {"00100", "00101", "01010", "01011", "11011", "11010", "10101", "10100"}},
    {{"00000", "00001", "01001", "01000", "11000", "11001", "10001", "10000"},
     {"00011", "00010", "01010", "01011", "11011", "11010", "10010", "10011"},
     {"00111", "00110", "01110", "01111", "11111", "11110", "10110", "10111"},
     {"00100", "00101", "01101", "01100", "11100", "11101", "10101", "10100"}},
    {{"00000", "00111", "01111", "01000", "11000", "11111", "10111", "10000"},
     {"00011", "00100", "01100", "01011", "11011", "11100", "10100", "10011"},
     {"00001", "00110", "01110", "01001", "11001", "11110", "10110", "10001"},
     {"00010", "00101", "01101", "01010", "11010", "11101", "10101", "10010"}},
};

typedef struct table2 {
    uint32_t initial[32], last[32];
    uint64_t steps;
    int ok;
} table2;

static void keep_initial(void *ctx, uint64_t step, const uint32_t *tag, uint64_t N, uint64_t S)
{
    table2 *t = ctx;
    if (step == 0)
        memcpy(t->initial, tag, sizeof t->initial);
    memcpy(t->last, tag, sizeof t->last);
    t->steps = step;
    /* every step: a permutation of the 32 rows */
    uint32_t seen = 0;
    for (uint64_t i = 0; i < N * S; i++)
        seen |= 1u << tag[i];
    t->ok &= seen == 0xffffffffu;
}

/* Table 2: 32 rows on a 3-cube, cyclic, entire address Gray coded. Its
 * initial block (memory row m, processor G(c) in column c) and a step by
 * step replay to a binary-coded processor field. */
static void test_table2(void **state)
{
    table2 t = {.ok = 1};
    kc_bfly_opts o = {.method = KC_BFLY_BISECT_LOCAL, .out = KC_BFLY_OUT_BINARY, .on_step = keep_initial, .ctx = &t};
    assert_int_equal(kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, KC_ENC_GRAY, 3, 5, NULL), KC_OK);
    kc_bfly_result r;
    assert_int_equal(kc_bfly_run(&o, NULL, &r, NULL), KC_OK);
    for (int m = 0; m < 4; m++)
        for (int c = 0; c < 8; c++)
            assert_int_equal(t.initial[m * 8 + kc_gray((uint64_t)c)], strtoul(table2_blocks[0][m][c], NULL, 2));
    /* Table 2's last block (after the exchange of dimensions 0 and 4): every
     * processor holds the same four rows as in the paper; the order inside a
     * processor differs, as the executed plan leaves out the renaming that
     * completes each swap (test_table2_motions shows the paper's form) */
    for (int c = 0; c < 8; c++) {
        uint32_t want = 0, got = 0;
        for (int m = 0; m < 4; m++) {
            want |= 1u << strtoul(table2_blocks[5][m][c], NULL, 2);
            got |= 1u << t.last[m * 8 + kc_gray((uint64_t)c)];
        }
        assert_int_equal(got, want);
    }
    assert_true(t.ok);
    assert_int_equal(t.steps, r.net.steps);
    assert_true(r.placement_ok);
    assert_int_equal(r.final_enc, KC_BFLY_ENC_BINARY);
}

typedef struct motions_seen {
    int count, kind[16], dim[16], bit[16], paper_form;
    uint32_t tag[16][32];
} motions_seen;

static void keep_motion(void *ctx, const kc_bfly_motion *m, uint64_t N, uint64_t S)
{
    motions_seen *t = ctx;
    if (t->count < 16 && N * S == 32) {
        t->kind[t->count] = (int)m->kind;
        t->dim[t->count] = m->dim;
        t->bit[t->count] = m->bit;
        memcpy(t->tag[t->count], m->tag, sizeof t->tag[0]);
    }
    t->paper_form = m->paper_form;
    t->count++;
}

/* Table 2 step by step: the plan's motions in the paper's form are Table
 * 3's sequence and give each of Table 2's blocks exactly; then two local
 * reorderings after the last stage. */
static void test_table2_motions(void **state)
{
    motions_seen t = {0};
    kc_bfly_opts o = {.method = KC_BFLY_BISECT_LOCAL, .out = KC_BFLY_OUT_BINARY};
    assert_int_equal(kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, KC_ENC_GRAY, 3, 5, NULL), KC_OK);
    assert_int_equal(kc_bfly_motions(&o, keep_motion, &t, NULL), KC_OK);
    assert_true(t.paper_form);
    assert_true(t.count >= 6);
    static const int kind[6] = {KC_BFLY_M_START, KC_BFLY_M_EXCHANGE, KC_BFLY_M_LOCAL,
                                KC_BFLY_M_EXCHANGE, KC_BFLY_M_LOCAL, KC_BFLY_M_EXCHANGE};
    static const int dim[6] = {-1, 2, -1, 1, -1, 0}, bit[6] = {-1, 4, 3, 3, 4, 4};
    for (int b = 0; b < 6; b++) {
        assert_int_equal(t.kind[b], kind[b]);
        assert_int_equal(t.dim[b], dim[b]);
        assert_int_equal(t.bit[b], bit[b]);
        for (int m = 0; m < 4; m++)
            for (int c = 0; c < 8; c++)
                assert_int_equal(t.tag[b][m * 8 + kc_gray((uint64_t)c)], strtoul(table2_blocks[b][m][c], NULL, 2));
    }
    for (int b = 6; b < t.count && b < 16; b++)
        assert_int_equal(t.kind[b], KC_BFLY_M_LOCAL);
}

static void count_motion(void *ctx, const kc_bfly_motion *m, uint64_t N, uint64_t S)
{
    motions_seen *t = ctx;
    t->paper_form = m->paper_form;
    t->count += m->tag != NULL && N * S > 0;
}

/* Every case shows its motions; cyclic bisect-local with binary or Gray
 * output always in the paper's form (the same elements move as in the
 * executed plan). */
static void test_motions_everywhere(void **state)
{
    for (int n = 1; n <= 6; n++)
        for (int p = n; p <= n + 4; p++)
            for (int m = 0; m < 6; m++)
                for (int a = 0; a < 2; a++)
                    for (int e = 0; e < 4; e++)
                        for (int out = 0; out < 3; out++) {
                            kc_bfly_opts o = {.method = (kc_bfly_method)m, .out = (kc_bfly_out)out, .r = 2};
                            assert_int_equal(kc_scheme_init(&o.scheme, (kc_alloc)a, (kc_encoding)e, n, p, NULL), KC_OK);
                            motions_seen t = {0};
                            kc_status s = kc_bfly_motions(&o, count_motion, &t, NULL);
                            assert_true(s == KC_OK || s == KC_EINVAL); /* EINVAL: p too small for the method */
                            if (s)
                                continue;
                            assert_true(t.count >= 1);
                            if (m == KC_BFLY_BISECT_LOCAL && a == KC_ALLOC_CYCLIC && out != KC_BFLY_OUT_NATIVE)
                                assert_true(t.paper_form);
                        }
}

/* The paper's values as functions (Theorems 1-5, Table 4, Section 6). */
static void test_bounds(void **state)
{
    kc_bfly_opts o = {.method = KC_BFLY_BISECT_LOCAL};
    kc_bfly_bounds b;
    kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, KC_ENC_BINARY_GRAY, 4, 10, NULL); /* P/N = 64 */
    kc_bfly_get_bounds(&o, &b);
    assert_int_equal(b.theorem, 32 + 4 - 2);
    assert_int_equal(b.table4, 32 + 4 - 1);
    o.method = KC_BFLY_BISECT_INTERPROC;
    kc_bfly_get_bounds(&o, &b);
    assert_int_equal(b.theorem, 64 + 2);
    assert_int_equal(b.table4, 64 + 2);
    o.scheme.enc = KC_ENC_GRAY;
    kc_bfly_get_bounds(&o, &b);
    assert_int_equal(b.theorem, 64 + 3);
    o.scheme.alloc = KC_ALLOC_CONSECUTIVE;
    o.scheme.enc = KC_ENC_BINARY_GRAY;
    kc_bfly_get_bounds(&o, &b);
    assert_int_equal(b.theorem, 32 + 64);
    o.method = KC_BFLY_BISECT_LOCAL;
    kc_bfly_get_bounds(&o, &b);
    assert_int_equal(b.theorem, 32 + 32);
    o.method = KC_BFLY_DIRECT;
    kc_bfly_get_bounds(&o, &b);
    assert_int_equal(b.theorem, -1);
    assert_int_equal(b.table4, -1);
    o.method = KC_BFLY_MULTISECT;
    o.r = 2;
    o.scheme.alloc = KC_ALLOC_CYCLIC;
    kc_bfly_get_bounds(&o, &b);
    assert_int_equal(b.theorem, 32 + (4 / 2 - 1) * 2);
    o.r = 4; /* N-sectioning: no pipeline delay */
    kc_bfly_get_bounds(&o, &b);
    assert_int_equal(b.theorem, 32);
    o.r = 3; /* r must divide n */
    kc_bfly_get_bounds(&o, &b);
    assert_int_equal(b.theorem, -1);
}

/* Bad input: too few elements for a method, r out of range. */
static void test_bad_input(void **state)
{
    kc_bfly_opts o = {.method = KC_BFLY_BISECT_LOCAL};
    kc_bfly_result r;
    kc_err err = {0};
    kc_scheme_init(&o.scheme, KC_ALLOC_CYCLIC, KC_ENC_BINARY_GRAY, 4, 5, NULL);
    assert_int_equal(kc_bfly_run(&o, NULL, &r, &err), KC_EINVAL);
    assert_string_equal(err.param, "p");
    o.method = KC_BFLY_MULTISECT;
    o.r = 0;
    assert_int_equal(kc_bfly_run(&o, NULL, &r, &err), KC_ERANGE);
    assert_string_equal(err.param, "r");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fft_every_method), cmocka_unit_test(test_fft_fftw), cmocka_unit_test(test_theorem5),
        cmocka_unit_test(test_cli_configurations_fftw),
        cmocka_unit_test(test_table2),           cmocka_unit_test(test_table2_motions),
        cmocka_unit_test(test_motions_everywhere), cmocka_unit_test(test_n_sectioning),
        cmocka_unit_test(test_bounds),           cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
