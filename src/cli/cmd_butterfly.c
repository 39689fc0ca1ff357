/* kcube butterfly: butterfly emulation on Gray-coded data in a Boolean cube
 * with a real FFT through it (seed 001). */
#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "budget_rates.h"
#include "cli.h"
#include "core/bits.h"
#include "options.h"
#include "plot.h"
#include "seeds.h"
#include "kcube/butterfly.h"
#include "kcube/rng.h"

#define MAX_P 26        /* about 1.5 GB with --fft */
#define TRACE_MAX_P 6   /* --trace prints every element after every step */
#define DFT_MAX_P 10    /* the direct DFT check up to here */

/* ---- options ------------------------------------------------------------ */

static const cli_opt OPT_P = {.name = "p", .type = CLI_INT, .meta = "P", .lo = 1, .hi = MAX_P, .param = "p",
                              .help = "log2 of the number of elements (rows of the butterfly), n <= P <= 26"};
static const cli_opt OPT_ALLOC = {.name = "alloc", .type = CLI_CHOICE, .choices = &kc_alloc_names, .def = "cyclic",
                                  .help = "how elements are spread over the processors"};
static const cli_opt OPT_ENCODING = {.name = "encoding", .type = CLI_CHOICE, .choices = &kc_encoding_names,
                                     .def = "binary-gray", .help = "encoding of the address fields (Table 1)"};
static const cli_opt OPT_METHOD = {.name = "method", .type = CLI_CHOICE, .choices = &kc_bfly_method_names,
                                   .param = "method",
                                   .help = "which emulation algorithm (as --method in `kcube map` picks the "
                                           "algorithm)"};
static const cli_opt OPT_OUTPUT_ENC = {.name = "output-encoding", .type = CLI_CHOICE, .choices = &kc_bfly_out_names,
                                       .def = "native", .help = "encoding of the processor field on completion"};
static const cli_opt OPT_FFT = {.name = "fft", .type = CLI_FLAG,
                                .help = "carry complex data and compare the result with FFTW (and a direct DFT "
                                        "for P <= 10)"};
static const cli_opt OPT_R = {.name = "r", .type = CLI_INT, .meta = "R", .lo = 1, .hi = 16, .param = "r",
                              .help = "multisect: 2^R local memory slots per block (R = n: N-sectioning)"};
static const cli_opt OPT_TRACE = {.name = "trace", .type = CLI_FLAG,
                                  .help = "the row index in every slot of every processor after each step (P <= 6)"};

static const cli_opt OPT_MOTIONS = {.name = "motions", .type = CLI_FLAG,
                                    .help = "the placement after each data motion of the plan, in the paper's form "
                                            "(Tables 2-3; P <= 6)"};

static const cli_use bfly_opts[] = {
    {&OPT_N, "log2 of the number of processors, 1..20", NULL},
    {&OPT_P, NULL, NULL},
    {&OPT_ALLOC, NULL, NULL},
    {&OPT_ENCODING, NULL, NULL},
    {&OPT_METHOD, NULL, NULL},
    {&OPT_OUTPUT_ENC, NULL, NULL},
    {&OPT_R, NULL, NULL},
    {&OPT_FFT, NULL, NULL},
    {&OPT_SEED, "seed of the random FFT input", NULL},
    {&OPT_TRACE, NULL, NULL},
    {&OPT_MOTIONS, NULL, NULL},
    {&OPT_PLOT, "chart of element transfers against P/N, every method and the paper's counts, p from n to P "
                "(.png, .svg, .pdf or .eps; multisect with r = n where P/N >= N, else r = 2)", NULL},
    {&OPT_SIZE, NULL, NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_CSV, NULL, NULL},
    {&OPT_MAX_TIME, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL},
    {NULL, NULL, NULL},
};

/* ---- resolve ------------------------------------------------------------ */

typedef struct bfly_job {
    kc_bfly_opts o;
    cli_fmt fmt;
    int fft, trace, motions;
    const char *plot, *size; /* --plot FILE and its --size, or NULL */
    uint64_t seed;
} bfly_job;

static int resolve(const cli_args *a, bfly_job *j)
{
    memset(j, 0, sizeof *j);
    int r = cli_format(a, &j->fmt);
    if (r)
        return r;
    int n = (int)cli_int(a, &OPT_N, 0), p = (int)cli_int(a, &OPT_P, 0);
    if (!n || !p || !cli_given(a, &OPT_METHOD))
        return cli_error("butterfly needs --n N, --p P and --method NAME");
    if (n > KC_BFLY_MAX_N)
        return cli_error("--n: the emulation supports n <= %d, got %d", KC_BFLY_MAX_N, n);
    kc_err err = {0};
    if (kc_scheme_init(&j->o.scheme, (kc_alloc)cli_choice(a, &OPT_ALLOC, 0), (kc_encoding)cli_choice(a, &OPT_ENCODING, 0),
                       n, p, &err))
        return cli_report(a, &err);
    j->o.method = (kc_bfly_method)cli_choice(a, &OPT_METHOD, 0);
    j->o.out = (kc_bfly_out)cli_choice(a, &OPT_OUTPUT_ENC, 0);
    if (j->o.method == KC_BFLY_MULTISECT)
        j->o.r = (int)cli_int(a, &OPT_R, 2);
    else if ((r = cli_reject(a, &OPT_R, "to methods other than multisect")))
        return r;
    j->fft = cli_flag(a, &OPT_FFT);
    j->seed = cli_u64(a, &OPT_SEED, 1);
    j->trace = cli_flag(a, &OPT_TRACE);
    if (j->trace && p > TRACE_MAX_P)
        return cli_error("--trace prints every element; it supports p <= %d, got %d", TRACE_MAX_P, p);
    if (j->trace && j->fmt != CLI_FMT_TEXT)
        return cli_error("--trace is text output; leave out --json/--csv");
    j->motions = cli_flag(a, &OPT_MOTIONS);
    if (j->motions && p > TRACE_MAX_P)
        return cli_error("--motions prints every element; it supports p <= %d, got %d", TRACE_MAX_P, p);
    if (j->motions && j->fmt != CLI_FMT_TEXT)
        return cli_error("--motions is text output; leave out --json/--csv");
    j->plot = cli_text(a, &OPT_PLOT, NULL);
    j->size = cli_text(a, &OPT_SIZE, NULL);
    if (!j->plot)
        return cli_reject(a, &OPT_SIZE, "without --plot");
    return cli_plot_check_sized(j->plot, j->size);
}

/* ---- compute ------------------------------------------------------------ */

typedef struct bfly_out {
    kc_bfly_result res;
    kc_bfly_bounds b;
    double fftw_err, dft_err; /* < 0: not computed */
} bfly_out;

static void print_placement(int p, const uint32_t *tag, uint64_t N, uint64_t S)
{
    for (uint64_t s = 0; s < S; s++) {
        printf("  m%-3llu", (unsigned long long)s);
        for (uint64_t x = 0; x < N; x++) {
            char b[40];
            for (int i = 0; i < p; i++)
                b[i] = (char)('0' + ((tag[s * N + x] >> (p - 1 - i)) & 1));
            b[p] = '\0';
            printf(" %s", b);
        }
        putchar('\n');
    }
}

static void trace_step(void *ctx, uint64_t step, const uint32_t *tag, uint64_t N, uint64_t S)
{
    const bfly_job *j = ctx;
    printf(step ? "after step %llu:\n" : "initial placement (rows: memory slot, columns: processor 0..%llu):\n",
           step ? (unsigned long long)step : (unsigned long long)(N - 1));
    print_placement(j->o.scheme.p, tag, N, S);
}

/* Machine address bits as a list: "2", "1,2". */
static void print_bits(uint64_t m)
{
    for (const char *sep = ""; m; m &= m - 1, sep = ",")
        printf("%s%d", sep, kci_ctz64(m));
}

static void print_motion(void *ctx, const kc_bfly_motion *m, uint64_t N, uint64_t S)
{
    const bfly_job *j = ctx;
    if (m->kind == KC_BFLY_M_START)
        printf("motions in %s (address bits: processor 0..%d, memory %d..%d)\ninitial placement (rows: memory "
               "slot, columns: processor 0..%llu):\n",
               m->paper_form ? "the paper's form" : "the executed form (the paper's would plan other motions here)",
               j->o.scheme.n - 1, j->o.scheme.n, j->o.scheme.p - 1, (unsigned long long)(N - 1));
    else {
        printf("after %s", kc_names_name(&kc_bfly_motion_names, (int)m->kind));
        if (m->dim >= 0)
            printf(", dim %d", m->dim);
        if (m->dim2 >= 0)
            printf(" and %d", m->dim2);
        if (m->bit >= 0)
            printf(m->dim >= 0 ? " with address bit %d" : ", address bit %d", m->bit);
        if (m->control) { /* a local reordering: bit ^= their parity; a conditional exchange: where it is 1 */
            printf(m->kind == KC_BFLY_M_LOCAL ? " ^= parity of bits " : ", the slots where the parity of bits ");
            print_bits(m->control);
            printf(m->kind == KC_BFLY_M_LOCAL ? (m->complement ? " xor 1" : "") : (m->complement ? " is 0" : " is 1"));
        }
        printf(" (%d stage%s done):\n", m->stages_done, m->stages_done == 1 ? "" : "s");
    }
    print_placement(j->o.scheme.p, m->tag, N, S);
}

/* max |row[rev(k)] - X[k]| / max |X| */
static double rel_error(const double complex *rows, const double complex *X, int p)
{
    double num = 0, den = 0;
    for (uint64_t k = 0; k < 1ULL << p; k++) {
        double d = cabs(rows[kc_bfly_bitrev(k, p)] - X[k]);
        num = d > num ? d : num;
        den = cabs(X[k]) > den ? cabs(X[k]) : den;
    }
    return den > 0 ? num / den : num;
}

static double dft_error(const double complex *in, const double complex *rows, int p)
{
    uint64_t P = 1ULL << p;
    double complex *X = malloc(P * sizeof *X);
    if (!X)
        return -1;
    for (uint64_t k = 0; k < P; k++) {
        long double re = 0, im = 0;
        for (uint64_t t = 0; t < P; t++) {
            long double ang = -2.0L * 3.141592653589793238462643383279503L * (long double)((k * t) % P) / (long double)P;
            re += creal(in[t]) * cosl(ang) - cimag(in[t]) * sinl(ang);
            im += creal(in[t]) * sinl(ang) + cimag(in[t]) * cosl(ang);
        }
        X[k] = (double)re + I * (double)im;
    }
    double e = rel_error(rows, X, p);
    free(X);
    return e;
}

static double fftw_error(const double complex *in, const double complex *rows, int p)
{
    uint64_t P = 1ULL << p;
    fftw_complex *a = fftw_malloc(P * sizeof *a), *b = fftw_malloc(P * sizeof *b);
    if (!a || !b) {
        fftw_free(a);
        fftw_free(b);
        return -1;
    }
    fftw_plan pl = fftw_plan_dft_1d((int)P, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
    memcpy(a, in, P * sizeof *a);
    fftw_execute(pl);
    double e = rel_error(rows, b, p);
    fftw_destroy_plan(pl);
    fftw_free(a);
    fftw_free(b);
    return e;
}

static kc_status compute(bfly_job *j, bfly_out *o, kc_err *err)
{
    memset(o, 0, sizeof *o);
    o->fftw_err = o->dft_err = -1;
    kc_bfly_get_bounds(&j->o, &o->b);
    if (j->motions) {
        kc_status s = kc_bfly_motions(&j->o, print_motion, j, err);
        if (s)
            return s;
    }
    if (j->trace) {
        j->o.on_step = trace_step;
        j->o.ctx = j;
    }
    if (!j->fft)
        return kc_bfly_run(&j->o, NULL, &o->res, err);
    int p = j->o.scheme.p;
    uint64_t P = 1ULL << p;
    double complex *in = malloc(P * sizeof *in), *x = malloc(P * sizeof *x);
    if (!in || !x) {
        free(in);
        free(x);
        return kc_fail(err, KC_ENOMEM, "out of memory: %llu complex values", (unsigned long long)P);
    }
    kc_rng r;
    kc_rng_seed(&r, j->seed);
    for (uint64_t i = 0; i < P; i++) {
        double re = (double)(kc_rng_next(&r) >> 11) * 0x1p-53 - 0.5, im = (double)(kc_rng_next(&r) >> 11) * 0x1p-53 - 0.5;
        in[i] = x[i] = re + I * im;
    }
    kc_status s = kc_bfly_run(&j->o, x, &o->res, err);
    if (!s) {
        o->fftw_err = fftw_error(in, x, p);
        if (p <= DFT_MAX_P)
            o->dft_err = dft_error(in, x, p);
        if (o->fftw_err < 0)
            s = kc_fail(err, KC_ENOMEM, "out of memory (FFTW reference)");
    }
    free(in);
    free(x);
    return s;
}

/* ---- render ------------------------------------------------------------- */

static const char *enc_name(kc_bfly_enc e)
{
    return e == KC_BFLY_ENC_BINARY ? "binary" : e == KC_BFLY_ENC_GRAY ? "gray" : "other";
}

static cJSON *num_or_null(int64_t v)
{
    return v < 0 ? cJSON_CreateNull() : cli_json_i64(v);
}

static void json_scheme(cJSON *o, const bfly_job *j)
{
    cli_json_add_int(o, "n", j->o.scheme.n);
    cli_json_add_int(o, "p", j->o.scheme.p);
    cJSON_AddStringToObject(o, "alloc", kc_names_name(&kc_alloc_names, (int)j->o.scheme.alloc));
    cJSON_AddStringToObject(o, "encoding", kc_names_name(&kc_encoding_names, (int)j->o.scheme.enc));
    cJSON_AddStringToObject(o, "method", kc_names_name(&kc_bfly_method_names, (int)j->o.method));
    if (j->o.method == KC_BFLY_MULTISECT)
        cli_json_add_int(o, "r", j->o.r);
    cJSON_AddStringToObject(o, "output_encoding", kc_names_name(&kc_bfly_out_names, (int)j->o.out));
}

static int render_json(const bfly_job *j, const bfly_out *r)
{
    const kc_stepnet_stats *st = &r->res.net;
    cJSON *o = cJSON_CreateObject();
    json_scheme(o, j);
    cJSON_AddStringToObject(o, "final_encoding", enc_name(r->res.final_enc));
    cJSON_AddStringToObject(o, "placement_by", "row index (row i holds frequency bit-reverse(i))");
    cJSON_AddItemToObject(o, "transfers", cli_json_u64(st->transfers));
    cJSON_AddItemToObject(o, "startups", cli_json_u64(st->startups));
    cJSON_AddItemToObject(o, "steps", cli_json_u64(st->steps));
    cJSON_AddItemToObject(o, "elements_moved", cli_json_u64(st->elements));
    cJSON_AddItemToObject(o, "conflicts", cli_json_u64(st->conflicts));
    cJSON_AddItemToObject(o, "output_conversion_transfers", cli_json_u64(r->res.conv_transfers));
    cJSON_AddBoolToObject(o, "placement_ok", r->res.placement_ok);
    cJSON_AddItemToObject(o, "formula", num_or_null(r->b.theorem));
    cJSON_AddStringToObject(o, "formula_source", r->b.which);
    cJSON_AddItemToObject(o, "table4", num_or_null(r->b.table4));
    if (r->b.theorem >= 0)
        cJSON_AddBoolToObject(o, "within_formula", st->transfers <= (uint64_t)r->b.theorem);
    else
        cJSON_AddNullToObject(o, "within_formula");
    if (r->fftw_err >= 0)
        cJSON_AddNumberToObject(o, "fft_max_error", r->fftw_err);
    if (r->dft_err >= 0)
        cJSON_AddNumberToObject(o, "dft_max_error", r->dft_err);
    return cli_print_json(o);
}

static void render_csv(const bfly_job *j, const bfly_out *r)
{
    const kc_stepnet_stats *st = &r->res.net;
    puts("n,p,alloc,encoding,method,r,output_encoding,final_encoding,transfers,startups,elements_moved,conflicts,"
         "placement_ok,formula,table4,fft_max_error");
    printf("%d,%d,%s,%s,%s,%d,%s,%s,%llu,%llu,%llu,%llu,%d,", j->o.scheme.n, j->o.scheme.p,
           kc_names_name(&kc_alloc_names, (int)j->o.scheme.alloc),
           kc_names_name(&kc_encoding_names, (int)j->o.scheme.enc),
           kc_names_name(&kc_bfly_method_names, (int)j->o.method), j->o.r,
           kc_names_name(&kc_bfly_out_names, (int)j->o.out), enc_name(r->res.final_enc),
           (unsigned long long)st->transfers, (unsigned long long)st->startups, (unsigned long long)st->elements,
           (unsigned long long)st->conflicts, r->res.placement_ok);
    if (r->b.theorem >= 0)
        printf("%lld", (long long)r->b.theorem);
    putchar(',');
    if (r->b.table4 >= 0)
        printf("%lld", (long long)r->b.table4);
    putchar(',');
    if (r->fftw_err >= 0)
        printf("%.3g", r->fftw_err);
    putchar('\n');
}

static void render_text(const bfly_job *j, const bfly_out *r)
{
    const kc_stepnet_stats *st = &r->res.net;
    int n = j->o.scheme.n, p = j->o.scheme.p;
    printf("butterfly on 2^%d rows, %s allocation, %s encoding, on the %d-cube (%llu per processor), method %s\n", p,
           kc_names_name(&kc_alloc_names, (int)j->o.scheme.alloc),
           kc_names_name(&kc_encoding_names, (int)j->o.scheme.enc), n, 1ULL << (p - n),
           kc_names_name(&kc_bfly_method_names, (int)j->o.method));
    printf("element transfers in sequence %llu (output conversion %llu), start-ups %llu, elements moved %llu\n",
           (unsigned long long)st->transfers, (unsigned long long)r->res.conv_transfers,
           (unsigned long long)st->startups, (unsigned long long)st->elements);
    if (r->b.theorem >= 0)
        printf("paper (%s): at most %lld -> %s\n", r->b.which, (long long)r->b.theorem,
               st->transfers <= (uint64_t)r->b.theorem ? (st->transfers == (uint64_t)r->b.theorem ? "equal" : "within")
                                                       : "EXCEEDED");
    if (r->b.table4 >= 0)
        printf("Table 4: %lld\n", (long long)r->b.table4);
    if (r->b.theorem < 0 && r->b.table4 < 0)
        printf("paper: no count for this case\n");
    printf("processor field on completion: %s; every element where the final map says: %s; links used twice in a "
           "step: %llu\n",
           enc_name(r->res.final_enc), r->res.placement_ok ? "yes" : "NO", (unsigned long long)st->conflicts);
    if (r->fftw_err >= 0)
        printf("FFT: max |x - X| / max |X| = %.3g against FFTW", r->fftw_err);
    if (r->dft_err >= 0)
        printf(", %.3g against a direct DFT", r->dft_err);
    if (r->fftw_err >= 0)
        printf(" (row i holds frequency bit-reverse(i))\n");
}

/* ---- --plot: every method over p = n .. P -------------------------------- */

enum { NMETHODS = 6, SWEEP_MAX = KC_BFLY_MAX_P + 1 };

/* One line of the chart: a method's measured counts, the paper's count for
 * it, or Table 4's where it differs from the theorem's. */
typedef struct curve {
    char label[96];
    int n;
    double x[SWEEP_MAX], y[SWEEP_MAX];
} curve;

enum { CURVE_MEASURED, CURVE_PAPER, CURVE_TABLE4, NCURVES };

typedef struct sweep {
    curve c[NMETHODS][NCURVES];
} sweep;

static void curve_add(curve *c, double x, double y, const char *method, const char *source)
{
    if (!c->n)
        snprintf(c->label, sizeof c->label, source ? "%s: paper (%s)" : "%s", method, source);
    c->x[c->n] = x;
    c->y[c->n++] = y;
}

/* Each method at each p it accepts (multisect: N-sectioning where
 * P/N >= N, else r = 2), row indices only; the paper's count beside it,
 * and Table 4's too where the two disagree (Theorem 1 against Table 4). */
static kc_status sweep_methods(const bfly_job *j, sweep *sw, kc_err *err)
{
    int n = j->o.scheme.n, top = j->o.scheme.p;
    cli_progress_bar bar;
    cli_progress_init(&bar, "butterfly sweep");
    memset(sw, 0, sizeof *sw);
    for (int p = n; p <= top; p++) {
        for (int m = 0; m < NMETHODS; m++) {
            kc_bfly_opts o = {.method = (kc_bfly_method)m, .out = j->o.out, .r = p >= 2 * n ? n : 2};
            kc_bfly_result res;
            kc_bfly_bounds b;
            kc_status s = kc_scheme_init(&o.scheme, j->o.scheme.alloc, j->o.scheme.enc, n, p, err);
            if (!s)
                s = kc_bfly_run(&o, NULL, &res, err);
            if (s == KC_EINVAL || s == KC_ERANGE)
                continue; /* p too small for the method */
            if (s)
                return s;
            double M = (double)(1ULL << (p - n));
            const char *name = kc_names_name(&kc_bfly_method_names, m);
            curve_add(&sw->c[m][CURVE_MEASURED], M, (double)res.net.transfers, name, NULL);
            kc_bfly_get_bounds(&o, &b);
            if (b.theorem > 0)
                curve_add(&sw->c[m][CURVE_PAPER], M, (double)b.theorem, name,
                          m == KC_BFLY_MULTISECT ? "Section 6" : b.which);
            if (b.table4 > 0 && b.table4 != b.theorem)
                curve_add(&sw->c[m][b.theorem > 0 ? CURVE_TABLE4 : CURVE_PAPER], M, (double)b.table4, name, "Table 4");
        }
        cli_progress_cb(&bar, p - n + 1, top - n + 1);
    }
    cli_progress_done(&bar);
    return KC_OK;
}

/* The chart's series: each method's measured curve in a colour of its own
 * and keyed by the method's name, the paper's counts for it as open
 * markers of that colour (circles: the theorem or Section 6, squares:
 * Table 4), and two key entries saying what the markers are; so the key has
 * 8 entries, not 11, and a count equal to the measured one circles its
 * point instead of hiding it. Returns the number of series. */
static int chart_series(const sweep *sw, cli_plot_series *s, cli_plot_role *role)
{
    int ns = 0, table4 = 0;
    for (int m = 0; m < NMETHODS; m++) {
        int head = ns;
        for (int k = 0; k < NCURVES; k++) {
            const curve *c = &sw->c[m][k];
            if (!c->n)
                continue;
            int from_table4 = strstr(c->label, "(Table 4)") != NULL;
            table4 |= k != CURVE_MEASURED && from_table4;
            s[ns] = (cli_plot_series){k == CURVE_MEASURED ? c->label : NULL, c->n, c->x, c->y};
            role[ns++] = (cli_plot_role){k == CURVE_MEASURED ? 0 : head + 1,
                                         k == CURVE_MEASURED ? 0 : from_table4 ? 2 : 1};
        }
    }
    s[ns] = (cli_plot_series){"paper (theorem, Section 6)", 0, NULL, NULL};
    role[ns++] = (cli_plot_role){0, 1};
    if (table4) {
        s[ns] = (cli_plot_series){"paper (Table 4)", 0, NULL, NULL};
        role[ns++] = (cli_plot_role){0, 2};
    }
    return ns;
}

static int render_plot(const bfly_job *j, const sweep *sw)
{
    cli_plot_series s[NCURVES * NMETHODS + 2];
    cli_plot_role role[NCURVES * NMETHODS + 2];
    int ns = chart_series(sw, s, role), n = j->o.scheme.n;
    cli_plot pl;
    cli_plot_init(&pl);
    char title[200], sub[240], cite[160];
    snprintf(title, sizeof title,
             "butterfly (FFT) emulation on the %d-cube: %s allocation, %s encoding, P/N from 1 to 2^%d", n,
             kc_names_name(&kc_alloc_names, (int)j->o.scheme.alloc),
             kc_names_name(&kc_encoding_names, (int)j->o.scheme.enc), j->o.scheme.p - n);
    pl.title = title;
    snprintf(sub, sizeof sub, "%s: lines measured, open markers the paper's counts",
             cli_seed_cite(cite, sizeof cite, 1, ""));
    pl.subtitle = sub;
    pl.xlabel = "elements per processor P/N";
    pl.ylabel = "element transfers in sequence";
    pl.logx = pl.logy = 1;
    pl.series = s;
    pl.nseries = ns;
    pl.role = role;
    pl.size = j->size;
    return cli_plot_write(&pl, j->plot);
}

/* ---- the command -------------------------------------------------------- */

static int check(const cli_args *a)
{
    bfly_job j;
    return resolve(a, &j);
}

/* Time and memory before work (budget.h), fitted to the runs of
 * bench/estimates.tsv (n from 1 to 12, P up to 22): CLI_RATE_BFLY per element
 * and stage (2^P P), CLI_RATE_BFLY_FFT with --fft; --plot runs every method
 * at every size from n to P, about 16 times the work. Memory: 16 bytes an
 * element, 400 an element of one processor (2^(P - n)), 96 more an element
 * with --fft (the complex data, FFTW's copies and the reference), 12 MB
 * more with --plot (the sweep's curves). */
static int gate(const cli_args *a, const bfly_job *j)
{
    int p = j->o.scheme.p;
    double P = ldexp(1, p), units = P * p * (j->plot ? 16 : 1);
    double bytes = P * (16 + (j->fft ? 96 : 0)) + 400 * ldexp(1, p - j->o.scheme.n) + CLI_BASE_BYTES +
                   (j->plot ? 12e6 : 0);
    char what[96];
    snprintf(what, sizeof what, "%s --n %d --p %d%s%s", a->path, j->o.scheme.n, p, j->fft ? " --fft" : "",
             j->plot ? " --plot" : "");
    return cli_budget_check(a, what, (j->fft ? CLI_RATE_BFLY_FFT : CLI_RATE_BFLY) * units, (uint64_t)bytes);
}

/* The chart is drawn before the table is printed: a failure leaves no
 * partial output. */
static int run(const cli_args *a)
{
    bfly_job j;
    bfly_out o;
    kc_err err = {0};
    int rc = resolve(a, &j);
    if (rc || (rc = gate(a, &j)))
        return rc;
    if (compute(&j, &o, &err))
        return cli_report(a, &err);
    int broken = !o.res.placement_ok || o.res.net.conflicts || o.fftw_err > 1e-9 || o.dft_err > 1e-9;
    if (j.plot) {
        sweep *sw = malloc(sizeof *sw);
        if (!sw || sweep_methods(&j, sw, &err))
            rc = cli_report(a, sw ? &err : &(kc_err){.status = KC_ENOMEM, .msg = "out of memory (sweep)"});
        else
            rc = render_plot(&j, sw);
        free(sw);
        if (rc)
            return rc;
    }
    if (j.fmt == CLI_FMT_JSON)
        rc = render_json(&j, &o);
    else if (j.fmt == CLI_FMT_CSV)
        render_csv(&j, &o);
    else
        render_text(&j, &o);
    return rc ? rc : broken ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const cli_command kc_command_butterfly = {
    .name = "butterfly",
    .summary = "butterfly (FFT) emulation on Gray-coded data in a Boolean cube (seed 001)",
    .order = 61,
    .description =
        "Emulates the butterfly network on 2^P rows (stage s pairs rows i and i xor 2^(P-1-s)) on the\n"
        "N-cube, starting from one of Table 1's allocations, with the chosen algorithm. Every step is replayed\n"
        "on a synchronous all-port engine that moves the real elements, counts element transfers in sequence\n"
        "(the paper's measure), start-ups and elements moved, and checks that no link carries two messages in a\n"
        "step. --fft carries complex data through the emulation (a radix-2 decimation-in-frequency FFT: the\n"
        "butterfly of each stage is computed in the processor that holds its two inputs) and compares it with\n"
        "FFTW. The JSON gives the paper's bound for the case (\"formula\", null where it has none) and Table 4's\n"
        "value. Exit status 1 when a check fails (placement, conflict, FFT error above 1e-9), 2 on bad input.\n"
        "\n"
        "Reconstructed or corrected (docs/butterfly.md lists each with a command): Table 1's complement bars,\n"
        "lost in the paper's text, from the entire-address definition; Section 5's rule for the kept output;\n"
        "Theorem 1 (P/2N + n - 2) and Table 4 (P/2N + n - 1) disagree for cyclic Binary||Gray bisect-local:\n"
        "both are shown, the algorithm takes Table 4's value for n >= 3 (an exact search reaches Theorem 1's\n"
        "for small n by other schedules, scripts/bfly_sat.py); multisect with 1 < r < n does not reach\n"
        "Section 6's count, with r = n (N-sectioning) it reaches P/2N, the lower bound.",
    .opts = bfly_opts,
    .check = check,
    .run = run,
    .epilog = "examples:\n"
              "  kcube butterfly --n 3 --p 5 --encoding gray --method bisect-local --trace\n"
              "  kcube butterfly --n 3 --p 5 --encoding gray --method bisect-local --output-encoding binary "
              "--motions\n"
              "  kcube butterfly --n 4 --p 10 --method bisect-interproc --fft --json\n"
              "  kcube butterfly --n 10 --p 10 --method one-per-proc",
};
