/* kcube hl: self-routing of a permutation by algorithm HL (seed 004). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "budget.h"
#include "budget_rates.h"
#include "options.h"
#include "kcube/reader.h"
#include "kcube/topology.h"
#include "kcube/hl.h"
#include "kcube/hl_class.h"
#include "kcube/hl_mesh.h"

#define TRACE_MAX_N 6    /* --trace prints every processor */
#define DETAIL_MAX_N 16  /* circuit paths and the e-cube comparison up to here */

static void bits(char *buf, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = (char)('0' + ((v >> (n - 1 - i)) & 1)); /* most significant first, as in Figure 2 */
    buf[n] = '\0';
}

typedef struct trace_ctx {
    int json;
    cJSON *steps; /* JSON: array of steps */
} trace_ctx;

static cJSON *tags_json(const kc_hl_engine *e)
{
    cJSON *a = cJSON_CreateArray();
    for (uint64_t x = 0; x < e->count_procs; x++) {
        const uint32_t *t;
        int c = kc_hl_tags(e, x, &t);
        cJSON *p = cJSON_CreateArray();
        for (int i = 0; i < c; i++)
            cJSON_AddItemToArray(p, cli_json_u64(t[i]));
        cJSON_AddItemToArray(a, p);
    }
    return a;
}

static void print_tags(const kc_hl_engine *e)
{
    char b[32];
    for (uint64_t x = 0; x < e->count_procs; x++) {
        const uint32_t *t;
        int c = kc_hl_tags(e, x, &t);
        bits(b, x, e->n);
        printf("  %s(", b);
        for (int i = 0; i < c; i++) {
            char tb[32];
            bits(tb, t[i], e->n);
            printf("%s%s", i ? "," : "", tb);
        }
        printf(")");
        if (x % 8 == 7 || x + 1 == e->count_procs)
            putchar('\n');
    }
}

static void on_step(void *vctx, const kc_hl_engine *e, int step, int dim, char state)
{
    trace_ctx *tc = vctx;
    if (tc->json) {
        cJSON *s = cJSON_CreateObject();
        cli_json_add_int(s, "step", step + 1);
        cJSON_AddStringToObject(s, "state_before", (char[]){state, 0});
        cli_json_add_int(s, "dim", dim);
        cJSON_AddItemToObject(s, "tags", tags_json(e));
        cJSON_AddItemToArray(tc->steps, s);
        return;
    }
    printf("after step %d (state %c before, bit %d corrected), state %c:\n", step + 1, state, dim, kc_hl_state(e));
    print_tags(e);
}

static void census_row(void *ctx, const uint32_t *dst, unsigned k)
{
    int len = *(const int *)ctx;
    putchar('"');
    for (int i = 0; i < len; i++)
        printf("%s%u", i ? " " : "", dst[i]);
    printf("\",%d,%d,%d,%d,%d,%d,%d,%d,%d\n", !!(k & KC_HL_IS_LC), !!(k & KC_HL_IS_PLC), !!(k & KC_HL_ROUTES_SIMD),
           !!(k & KC_HL_ROUTES_SIMD_MSB), !!(k & KC_HL_ROUTES_MSIMD), !!(k & KC_HL_ROUTES_MIMD_GREEDY),
           !!(k & KC_HL_ROUTES_MIMD_ANY), !!(k & KC_HL_ROUTES_MIMD_CIRCUIT), !!(k & KC_HL_ROUTES_MSIMD_SPLIT));
}

static int run_census(long n, cli_fmt fmt)
{
    kc_hl_census c;
    kc_err err = {0};
    int len = 1 << n;
    if (fmt == CLI_FMT_CSV)
        puts("perm,lc,plc,simd,simd_msb_first,msimd,mimd_greedy,mimd_any,mimd_circuit,msimd_split");
    if (kc_hl_census_run((int)n, &c, fmt == CLI_FMT_CSV ? census_row : NULL, &len, &err))
        return cli_report(NULL, &err);
    if (fmt == CLI_FMT_CSV)
        return CLI_EXIT_OK;
    if (fmt == CLI_FMT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cli_json_add_int(o, "n", n);
        cJSON_AddItemToObject(o, "permutations", cli_json_u64(c.total));
        cJSON_AddItemToObject(o, "lc", cli_json_u64(c.lc));
        cJSON_AddItemToObject(o, "plc", cli_json_u64(c.plc));
        cJSON_AddItemToObject(o, "simd", cli_json_u64(c.simd));
        cJSON_AddItemToObject(o, "simd_msb_first", cli_json_u64(c.simd_msb));
        cJSON_AddItemToObject(o, "msimd", cli_json_u64(c.msimd));
        cJSON_AddItemToObject(o, "msimd_split", cli_json_u64(c.msimd_split));
        cJSON_AddItemToObject(o, "msimd_either", cli_json_u64(c.msimd_either));
        cJSON_AddItemToObject(o, "mimd_greedy", cli_json_u64(c.mimd_greedy));
        cJSON_AddItemToObject(o, "mimd_any_schedule", cli_json_u64(c.mimd_any));
        cJSON_AddItemToObject(o, "mimd_circuit_schedule", cli_json_u64(c.mimd_circuit));
        cJSON_AddBoolToObject(o, "all_lc_routed_simd", c.lc_in_simd);
        cJSON_AddBoolToObject(o, "simd_within_msimd", c.simd_in_msimd);
        cJSON_AddBoolToObject(o, "all_plc_routed_msimd", c.plc_in_msimd);
        cJSON_AddBoolToObject(o, "simd_within_msimd_split", c.simd_in_split);
        cJSON_AddBoolToObject(o, "all_plc_routed_msimd_split", c.plc_in_split);
        return cli_print_json(o);
    }
    printf("all %llu permutations of Q_%ld\n", (unsigned long long)c.total, n);
    printf("  %-44s %8llu\n", "linear-complement (LC)", (unsigned long long)c.lc);
    printf("  %-44s %8llu\n", "partitioned LC (PLC, Definition 3)", (unsigned long long)c.plc);
    printf("  %-44s %8llu\n", "routed by HL, SIMD, LSB-first", (unsigned long long)c.simd);
    printf("  %-44s %8llu\n", "routed by HL, SIMD, MSB-first", (unsigned long long)c.simd_msb);
    printf("  %-44s %8llu\n", "routed by HL, M-SIMD cut (Lemmas 6, 7)", (unsigned long long)c.msimd);
    printf("  %-44s %8llu\n", "routed by HL, M-SIMD split (per subcube)", (unsigned long long)c.msimd_split);
    printf("  %-44s %8llu\n", "routed by HL, M-SIMD cut or split", (unsigned long long)c.msimd_either);
    printf("  %-44s %8llu\n", "routed by greedy per-processor HL (MIMD)", (unsigned long long)c.mimd_greedy);
    printf("  %-44s %8llu\n", "some MIMD schedule (n steps, 1 sent, 2 held)", (unsigned long long)c.mimd_any);
    printf("  %-44s %8llu\n", "... also each directed link on one path only", (unsigned long long)c.mimd_circuit);
    printf("claims: every LC routed in SIMD: %s; SIMD within M-SIMD: %s, M-SIMD larger: %s; every PLC routed "
           "in M-SIMD: %s\n",
           c.lc_in_simd ? "yes" : "NO", c.simd_in_msimd ? "yes" : "NO", c.msimd > c.simd ? "yes" : "no",
           c.plc_in_msimd ? "yes" : "NO");
    printf("split reading: SIMD within it: %s; every PLC routed: %s (see docs/hl.md)\n",
           c.simd_in_split ? "yes" : "no", c.plc_in_split ? "yes" : "no");
    return CLI_EXIT_OK;
}

/* Room for |PLC_n| in decimal: the counts grow like 2^(n^2), n <= 12. */
#define PLC_DIGITS 200000

static int run_plc_count_into(long n, cli_fmt fmt, char *paper, char *unique)
{
    kc_err err = {0};
    if (!paper || !unique)
        return cli_error("out of memory");
    if (kc_hl_plc_count((int)n, 0, paper, PLC_DIGITS, &err) || kc_hl_plc_count((int)n, 1, unique, PLC_DIGITS, &err))
        return cli_report(NULL, &err);
    uint64_t enumerated = 0;
    int have_enum = n <= 4;
    if (have_enum && kc_hl_plc_enumerate((int)n, &enumerated, &err))
        return cli_report(NULL, &err);
    if (fmt == CLI_FMT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cli_json_add_int(o, "n", n);
        cJSON_AddStringToObject(o, "recurrence_block_triangular", unique);
        cJSON_AddStringToObject(o, "recurrence_block_diagonal", paper);
        if (have_enum)
            cJSON_AddItemToObject(o, "enumerated", cli_json_u64(enumerated));
        else
            cJSON_AddNullToObject(o, "enumerated");
        return cli_print_json(o);
    }
    printf("|PLC_%ld| by recurrence (3):\n", n);
    printf("  LC'_k without block-triangular matrices (exact): %s\n", unique);
    printf("  LC'_k without block-diagonal ones (as printed):  %s\n", paper);
    if (have_enum)
        printf("  by enumeration:                                  %llu\n", (unsigned long long)enumerated);
    return CLI_EXIT_OK;
}

static int run_plc_count(long n, cli_fmt fmt)
{
    char *paper = malloc(PLC_DIGITS), *unique = malloc(PLC_DIGITS);
    int rc = run_plc_count_into(n, fmt, paper, unique);
    free(paper);
    free(unique);
    return rc;
}

static int run_verify(long n, int msb, long count, uint64_t seed, cli_fmt fmt)
{
    kc_hl_verify_report rep;
    kc_err err = {0};
    cli_progress_bar prog;
    cli_progress_init(&prog, "verifying");
    kc_progress p = {cli_progress_cb, &prog};
    kc_status s = kc_hl_verify((int)n, msb, (uint64_t)count, (uint64_t)seed, &rep, &p, &err);
    cli_progress_done(&prog);
    if (s)
        return cli_report(NULL, &err);
    char mb[64 * 65 + 1] = "", vb[65] = "";
    if (rep.failures) {
        kc_bitmat_format(&rep.a, mb, sizeof mb);
        kc_vec_format(rep.b, (int)n, vb, sizeof vb);
    }
    if (fmt == CLI_FMT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cli_json_add_int(o, "n", n);
        cJSON_AddStringToObject(o, "variant", msb ? "msb-first" : "lsb-first");
        cJSON_AddBoolToObject(o, "exhaustive", rep.exhaustive);
        if (!rep.exhaustive)
            cJSON_AddItemToObject(o, "seed", cli_json_u64(seed));
        cJSON_AddItemToObject(o, "checked", cli_json_u64(rep.checked));
        cJSON_AddItemToObject(o, "failures", cli_json_u64(rep.failures));
        if (rep.failures) {
            cJSON *f = cJSON_AddObjectToObject(o, "first_failure");
            cJSON_AddStringToObject(f, "matrix", mb);
            cJSON_AddStringToObject(f, "vector", vb);
            cJSON_AddStringToObject(f, "why", rep.why);
        }
        int rc = cli_print_json(o);
        return rc ? rc : rep.failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    }
    printf("%s %llu linear-complement permutations of Q_%ld (%s HL)", rep.exhaustive ? "all" : "random:",
           (unsigned long long)rep.checked, n, msb ? "MSB-first" : "LSB-first");
    if (!rep.exhaustive)
        printf(", seed %llu", (unsigned long long)seed);
    printf(": %llu failures\n", (unsigned long long)rep.failures);
    if (rep.failures)
        printf("first failure: --matrix \"%s\" --vector %s: %s\n", mb, vb, rep.why);
    else
        printf("every one routed in %ld steps, states A/B only, at most one tag sent per processor per step, "
               "tag map affine after every step\n", n);
    return rep.failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* ---- options ------------------------------------------------------------ */

enum { MODE_SIMD, MODE_MSIMD, MODE_MSIMD_SPLIT, MODE_MIMD };
static const kc_name mode_entries[] = {
    {MODE_SIMD, "simd", "every processor corrects the same bit (the paper's algorithm)"},
    {MODE_MSIMD, "msimd", "M-SIMD, cut reading: subcubes cut along the top bits run HL alone (Lemma 7)"},
    {MODE_MSIMD_SPLIT, "msimd-split",
     "M-SIMD, split reading: after each step the subcubes split along the corrected bits"},
    {MODE_MIMD, "mimd", "every processor applies HL's rules alone (n <= 12)"},
    {0, NULL, NULL},
};
static const kc_names mode_names = {"mode", mode_entries};

static const cli_opt OPT_PERM = {.name = "perm", .type = CLI_TEXT, .meta = "LIST",
                                 .help = "any permutation: the 2^n destinations of processors 0, 1, ... "
                                         "(comma or space separated)",
                                 .param = "perm"};
static const cli_opt OPT_MSB = {.name = "msb-first", .type = CLI_FLAG,
                                .help = "correct the most significant bit whenever there is a choice"};
static const cli_opt OPT_MODE = {.name = "mode", .type = CLI_CHOICE, .choices = &mode_names, .def = "simd",
                                 .help = "how processors choose their bits"};
static const cli_opt OPT_TRACE = {.name = "trace", .type = CLI_FLAG,
                                  .help = "the tags of every processor before and after each step (n <= 6)"};
static const cli_opt OPT_VERIFY = {.name = "verify", .type = CLI_FLAG,
                                   .help = "check Theorem 1 and Lemma 4 on all LC permutations (n <= 4) or "
                                           "--samples random ones"};
/* Not --count: gray's --count is the rows of its table. */
static const cli_opt OPT_SAMPLES = {.name = "samples", .type = CLI_INT, .meta = "C",
                                    .help = "random permutations for --verify", .def = "10", .lo = 1,
                                    .hi = 1000000000LL};
static const cli_opt OPT_CENSUS = {.name = "census", .type = CLI_INT, .meta = "N",
                                   .help = "classify every permutation of Q_N (N = 1..3; --csv: a row each)",
                                   .lo = 1, .hi = 3};
static const cli_opt OPT_PLC_COUNT = {.name = "plc-count", .type = CLI_INT, .meta = "N",
                                      .help = "|PLC_N| by recurrence (3), both readings (N <= 12)", .lo = 0,
                                      .hi = KC_HL_CLASS_MAX_N};

static const cli_use hl_opts[] = {
    {&OPT_N, "cube dimension, 1..24", NULL},
    {&OPT_PATTERN, NULL, NULL},
    {&OPT_MATRIX, "y = Ax + b, A nonsingular, row 0 first, rows separated by ';'", NULL},
    {&OPT_VECTOR, NULL, NULL},
    {&OPT_PERM, NULL, NULL},
    {&OPT_MSB, NULL, NULL},
    {&OPT_MODE, NULL, NULL},
    {&OPT_TOPOLOGY, "also route on a mesh (--topology mesh --shape AxB..)", NULL},
    {&OPT_SHAPE, "mesh sides, axis 0 first, powers of two multiplying to 2^n (n <= 20)", NULL},
    {&OPT_TRACE, NULL, NULL},
    {&OPT_VERIFY, NULL, NULL},
    {&OPT_SAMPLES, NULL, NULL},
    {&OPT_SEED, NULL, NULL},
    {&OPT_CENSUS, NULL, NULL},
    {&OPT_PLC_COUNT, NULL, NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_CSV, "one row per permutation (with --census only)", NULL},
    {&OPT_MAX_TIME, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL},
    {NULL, NULL, NULL},
};

/* HL routes on the hypercube, and also on a mesh: never a torus. */
static const cli_narrow hl_narrow[] = {{&OPT_TOPOLOGY, "hypercube|mesh", NULL}, {NULL, NULL, NULL}};

/* The old spelling takes its sides as --shape does, axis 0 first (once it
 * took them most significant axis first: one order for every shape). */
static const cli_alias hl_aliases[] = {
    {"mesh", &OPT_TOPOLOGY, "mesh", &OPT_SHAPE, "AxB..: old spelling of --topology mesh --shape AxB.. (axis 0 first)"},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- resolve ------------------------------------------------------------ */

enum { ACT_ROUTE, ACT_VERIFY, ACT_CENSUS, ACT_PLC_COUNT };

typedef struct hl_job {
    int action, n, msb, mode, trace, is_lc, mesh;
    cli_fmt fmt;
    kc_hl_mesh_shape shape;
    uint32_t *dst; /* [2^n] for ACT_ROUTE */
    char name[64], mbuf[64 * 65 + 1], vbuf[65];
} hl_job;

/* "AxBxC" with axis 0 first into the paper's order (most significant first). */
static char *reverse_sides(const char *text)
{
    size_t len = strlen(text);
    char *out = malloc(len + 1), *o = out;
    if (!out)
        return NULL;
    const char *end = text + len;
    while (end > text) {
        const char *x = end;
        while (x > text && !strchr("xX,", x[-1]))
            x--;
        memcpy(o, x, (size_t)(end - x));
        o += end - x;
        if (x > text)
            *o++ = 'x';
        end = x > text ? x - 1 : text;
    }
    *o = '\0';
    return out;
}

/* The sides as kcube writes shapes everywhere else: axis 0 first (the
 * library's kc_hl_mesh_format keeps the paper's order, most significant
 * axis first). */
static const char *sides_axis0_first(const kc_hl_mesh_shape *shape, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int a = 0; a < shape->q && used < size; a++)
        used += (size_t)snprintf(buf + used, size - used, "%s%llu", a ? "x" : "", 1ULL << shape->side_log[a]);
    return buf;
}

static int resolve_mesh(const cli_args *a, hl_job *j)
{
    const char *shape = cli_text(a, &OPT_SHAPE, NULL);
    int topo = cli_choice(a, &OPT_TOPOLOGY, 0); /* hypercube or mesh: the table refuses torus */
    j->mesh = topo == KC_TOPO_MESH || shape;
    if (!j->mesh)
        return 0;
    if (!shape)
        return cli_error("a mesh needs its sides: --shape AxB.. (axis 0 first)");
    if (j->n > KC_HL_MESH_MAX_N)
        return cli_error("the mesh simulation supports n <= %d, got n = %d", KC_HL_MESH_MAX_N, j->n);
    char *text = reverse_sides(shape);
    if (!text)
        return cli_error("out of memory");
    kc_err err = {0};
    kc_status s = kc_hl_mesh_parse(&j->shape, text, j->n, &err);
    free(text);
    return s ? cli_report(a, &err) : 0;
}

static int resolve_perm(const cli_args *a, const char *text, hl_job *j)
{
    kc_err err = {0};
    kc_reader *r = NULL;
    kc_status s = kc_reader_open_mem(&r, text, strlen(text), "the list", "perm", NULL, &err);
    if (!s)
        s = kc_read_nodelist(r, j->dst, (uint32_t)(1u << j->n), 1, &err);
    kc_reader_close(r);
    if (s)
        return cli_report(a, &err);
    kc_bitmat m;
    uint64_t b;
    if ((j->is_lc = kc_hl_is_lc(j->n, j->dst, &m, &b))) {
        kc_bitmat_format(&m, j->mbuf, sizeof j->mbuf);
        kc_vec_format(b, j->n, j->vbuf, sizeof j->vbuf);
    }
    snprintf(j->name, sizeof j->name, "perm");
    return 0;
}

static int resolve_permutation(const cli_args *a, hl_job *j)
{
    cli_comms comms;
    cli_comms_init(&comms, "hl", 1, 0);
    int r = cli_comm_list(a, &comms);
    if (r)
        return r;
    const char *perm = cli_text(a, &OPT_PERM, NULL);
    if (comms.count + (perm != NULL) != 1)
        return cli_error("hl routes one permutation: give --pattern NAME, --matrix M or --perm LIST once");
    j->dst = malloc(sizeof *j->dst << j->n);
    if (!j->dst)
        return cli_error("out of memory");
    if (perm)
        return resolve_perm(a, perm, j);
    kc_lcc c;
    kc_err err = {0};
    if (cli_build_lcc(&comms.spec[0], j->n, 0, &c, &err) || kc_hl_perm_from_lcc(&c, j->dst, &err))
        return cli_report(a, &err);
    snprintf(j->name, sizeof j->name, "%s", c.name);
    kc_bitmat_format(&c.a, j->mbuf, sizeof j->mbuf);
    kc_vec_format(c.b, j->n, j->vbuf, sizeof j->vbuf);
    j->is_lc = 1;
    return 0;
}

static int resolve_route(const cli_args *a, hl_job *j)
{
    j->msb = cli_flag(a, &OPT_MSB);
    j->mode = cli_choice(a, &OPT_MODE, MODE_SIMD);
    j->trace = cli_flag(a, &OPT_TRACE);
    if (j->trace && j->n > TRACE_MAX_N)
        return cli_error("--trace prints every processor; it supports n <= %d, got n = %d", TRACE_MAX_N, j->n);
    int r = resolve_mesh(a, j);
    if (r)
        return r;
    if (j->mode != MODE_SIMD && (j->trace || j->mesh || j->msb))
        return cli_error("--trace, a mesh and --msb-first go with --mode simd");
    if (j->mode != MODE_SIMD && j->n > KC_HL_CLASS_MAX_N)
        return cli_error("--mode %s supports n <= %d, got n = %d", kc_names_name(&mode_names, j->mode),
                            KC_HL_CLASS_MAX_N, j->n);
    return resolve_permutation(a, j);
}

static int resolve(const cli_args *a, hl_job *j)
{
    memset(j, 0, sizeof *j);
    int r = cli_format(a, &j->fmt);
    if (r)
        return r;
    j->n = (int)cli_int(a, &OPT_N, -1);
    if (cli_given(a, &OPT_CENSUS)) {
        j->action = ACT_CENSUS;
        j->n = (int)cli_int(a, &OPT_CENSUS, 0);
        return 0;
    }
    if (j->fmt == CLI_FMT_CSV)
        return cli_error("hl has CSV output only for --census (one row per permutation); use --json");
    if (cli_given(a, &OPT_PLC_COUNT)) {
        j->action = ACT_PLC_COUNT;
        j->n = (int)cli_int(a, &OPT_PLC_COUNT, 0);
        return 0;
    }
    if (j->n < 0)
        return cli_error("hl needs --n N");
    if (j->n > KC_HL_MAX_N)
        return cli_error("--n: hl supports n <= %d, got %d", KC_HL_MAX_N, j->n);
    if (cli_flag(a, &OPT_VERIFY)) {
        j->action = ACT_VERIFY;
        j->msb = cli_flag(a, &OPT_MSB);
        return 0;
    }
    j->action = ACT_ROUTE;
    return resolve_route(a, j);
}

/* ---- compute ------------------------------------------------------------ */

typedef struct hl_out {
    kc_hl_result res;
    kc_hl_circuit circ;
    kc_hl_ecube ec;
    kc_hl_mesh_result mr;
    int detail, have_circ, have_ec, max_held;
    trace_ctx tc;
    cJSON *initial;
} hl_out;

static kc_status route_simd(const hl_job *j, hl_out *o, kc_err *err)
{
    kc_hl_engine e;
    kc_hl_opts opts = {.msb_first = j->msb, .check_affine = j->is_lc, .require_lemma3 = 0};
    if (j->trace) {
        opts.on_step = on_step;
        opts.ctx = &o->tc;
    }
    kc_status s = kc_hl_engine_init(&e, j->n, j->dst, 2, o->detail, err);
    if (s)
        return s;
    if (j->trace && o->tc.json) {
        o->initial = tags_json(&e);
    } else if (j->trace) {
        printf("before routing, state %c:\n", kc_hl_state(&e));
        print_tags(&e);
    }
    s = kc_hl_run(&e, &opts, &o->res, err);
    if (!s && o->detail && o->res.routed) {
        s = kc_hl_circuit_check(&e, &o->circ, NULL, NULL, err);
        o->have_circ = !s;
    }
    kc_hl_engine_free(&e);
    kc_hl_opts mesh_opts = {.msb_first = j->msb}; /* no trace the second time */
    if (!s && j->mesh)
        s = kc_hl_mesh_route(&j->shape, j->dst, &mesh_opts, NULL, &o->mr, err);
    return s;
}

static kc_status compute(const hl_job *j, hl_out *o, kc_err *err)
{
    memset(o, 0, sizeof *o);
    o->detail = j->n <= DETAIL_MAX_N;
    o->tc.json = j->fmt == CLI_FMT_JSON;
    if (j->trace && o->tc.json && !(o->tc.steps = cJSON_CreateArray()))
        return kc_fail(err, KC_ENOMEM, "out of memory");
    kc_status s;
    if (j->mode == MODE_SIMD)
        s = route_simd(j, o, err);
    else if (j->mode == MODE_MSIMD || j->mode == MODE_MSIMD_SPLIT)
        s = kc_hl_msimd_route(j->mode == MODE_MSIMD ? KC_HL_MSIMD_CUT : KC_HL_MSIMD_SPLIT, j->n, j->dst, &o->res, err);
    else
        s = kc_hl_mimd_greedy(j->n, j->dst, &o->res, &o->max_held, err);
    if (!s && o->detail) {
        s = kc_hl_ecube_simulate(j->n, j->dst, &o->ec, err);
        o->have_ec = !s;
    }
    return s;
}

/* ---- render ------------------------------------------------------------- */

static void json_circuit_and_ecube(cJSON *o, const hl_out *r)
{
    if (r->have_circ) {
        cJSON *c = cJSON_AddObjectToObject(o, "circuit");
        cJSON_AddItemToObject(c, "paths", cli_json_u64(r->circ.paths));
        cJSON_AddItemToObject(c, "hops", cli_json_u64(r->circ.hops));
        cJSON_AddBoolToObject(c, "all_minimal", r->circ.all_minimal);
        cli_json_add_int(c, "max_paths_per_directed_link", r->circ.max_paths_per_link);
        cli_json_add_int(c, "max_steps_per_neighbour_pair", r->circ.max_steps_per_pair);
        cJSON_AddBoolToObject(c, "lemma5", r->circ.max_paths_per_link <= 1 && r->circ.max_steps_per_pair <= 1);
    }
    if (r->have_ec) {
        cJSON *c = cJSON_AddObjectToObject(o, "ecube");
        cli_json_add_int(c, "steps", r->ec.steps);
        cli_json_add_int(c, "max_queue", r->ec.max_queue);
        cJSON_AddItemToObject(c, "max_links_busy_per_step", cli_json_u64(r->ec.max_links_busy));
        cJSON_AddItemToObject(c, "hops", cli_json_u64(r->ec.hops));
    }
}

static void json_mesh(cJSON *o, const hl_job *j, const hl_out *r)
{
    char sb[128];
    cJSON_AddItemToObject(o, "mesh_steps", cli_json_u64(r->mr.mesh_steps));
    cJSON *m = cJSON_AddObjectToObject(o, "mesh");
    cJSON_AddStringToObject(m, "sides", sides_axis0_first(&j->shape, sb, sizeof sb));
    cJSON_AddItemToObject(m, "steps", cli_json_u64(r->mr.mesh_steps));
    cJSON_AddItemToObject(m, "bound", cli_json_u64(r->mr.bound));
    cJSON_AddItemToObject(m, "phase_steps", cli_json_u64_array(r->mr.phase_steps, r->mr.phases));
    cli_json_add_int(m, "max_messages_per_link_per_step", r->mr.max_link_load);
    cJSON_AddItemToObject(m, "waits", cli_json_u64(r->mr.waits));
}

static int render_json(const hl_job *j, hl_out *r)
{
    const kc_hl_result *res = &r->res;
    cJSON *o = cJSON_CreateObject();
    cli_json_add_int(o, "n", j->n);
    cJSON_AddStringToObject(o, "pattern", j->name);
    cJSON_AddBoolToObject(o, "linear_complement", j->is_lc);
    if (j->is_lc) {
        cJSON_AddStringToObject(o, "matrix", j->mbuf);
        cJSON_AddStringToObject(o, "vector", j->vbuf);
    }
    cJSON_AddStringToObject(o, "mode", kc_names_name(&mode_names, j->mode));
    cJSON_AddStringToObject(o, "variant", j->msb ? "msb-first" : "lsb-first");
    cJSON_AddBoolToObject(o, "routed", res->routed);
    cli_json_add_int(o, "steps", res->steps);
    cJSON_AddStringToObject(o, "states", res->states);
    cJSON_AddStringToObject(o, "final_state", (char[]){res->final_state, 0});
    cJSON *dims = cJSON_AddArrayToObject(o, "dims"), *moved = cJSON_AddArrayToObject(o, "tags_moved_per_step");
    for (int t = 0; t < res->steps; t++) {
        cJSON_AddItemToArray(dims, cli_json_i64(res->dims[t]));
        cJSON_AddItemToArray(moved, cli_json_u64(res->moved[t]));
    }
    cJSON_AddItemToObject(o, "two_tag_processors_per_step", cli_json_u64_array(res->twos, res->steps));
    cli_json_add_int(o, "max_tags_moved_per_processor", res->max_moved);
    if (j->mode == MODE_SIMD && j->is_lc)
        cJSON_AddBoolToObject(o, "affine_after_every_step", res->affine_ok);
    if (j->mode == MODE_MIMD)
        cli_json_add_int(o, "max_tags_held", r->max_held);
    if (!res->routed)
        cJSON_AddStringToObject(o, "why", res->why);
    json_circuit_and_ecube(o, r);
    if (j->mesh)
        json_mesh(o, j, r);
    if (j->trace) {
        cJSON *t = cJSON_AddObjectToObject(o, "trace");
        cJSON_AddItemToObject(t, "initial", r->initial);
        cJSON_AddItemToObject(t, "steps", r->tc.steps);
        r->initial = r->tc.steps = NULL; /* now owned by o */
    }
    return cli_print_json(o);
}

static void text_steps(const hl_job *j, const kc_hl_result *res)
{
    printf("HL (%s, %s) on the %d-cube: %s", kc_names_name(&mode_names, j->mode), j->msb ? "MSB-first" : "LSB-first",
           j->n, j->name);
    if (j->is_lc && j->n <= 8)
        printf(", y = Ax + b with A = %s, b = %s", j->mbuf, j->vbuf);
    else if (j->is_lc)
        printf(" (linear-complement; A and b with --json)");
    putchar('\n');
    if (res->routed)
        printf("routed in %d steps; states %s\n", res->steps, res->states);
    else
        printf("NOT routed: %s (states %s)\n", res->why, res->states);
    printf("bits corrected:");
    for (int t = 0; t < res->steps; t++)
        printf(res->dims[t] >= 0 ? " %d" : " mixed", res->dims[t]);
    printf("\ntags moved per step:");
    for (int t = 0; t < res->steps; t++)
        printf(" %llu", (unsigned long long)res->moved[t]);
    printf("\nmost tags moved by one processor in one step: %d (Lemma 4a: at most 1)\n", res->max_moved);
}

static void text_comparisons(const hl_job *j, const hl_out *r)
{
    const kc_hl_result *res = &r->res;
    if (r->have_circ)
        printf("circuit switching: %llu paths, %llu hops, %s; at most %d path per directed link, neighbours "
               "talk in at most %d step (Lemma 5 %s)\n",
               (unsigned long long)r->circ.paths, (unsigned long long)r->circ.hops,
               r->circ.all_minimal ? "all minimal" : "NOT all minimal", r->circ.max_paths_per_link,
               r->circ.max_steps_per_pair,
               r->circ.max_paths_per_link <= 1 && r->circ.max_steps_per_pair <= 1 ? "holds" : "FAILS");
    if (r->have_ec) {
        uint64_t hl_busy = 0;
        for (int t = 0; t < res->steps; t++)
            hl_busy = res->moved[t] > hl_busy ? res->moved[t] : hl_busy;
        printf("store-and-forward e-cube: %d steps, longest queue %d, at most %llu links busy in a step",
               r->ec.steps, r->ec.max_queue, (unsigned long long)r->ec.max_links_busy);
        if (res->routed)
            printf(" (HL: %d steps, no queues, at most %llu)", res->steps, (unsigned long long)hl_busy);
        putchar('\n');
    } else if (!r->detail) {
        printf("(circuit paths and the e-cube comparison are done for n <= %d)\n", DETAIL_MAX_N);
    }
    if (j->mesh) {
        char sb[128];
        printf("mesh %s: %llu mesh steps (sum_a (2^n_a - 1) = %llu), phases:",
               sides_axis0_first(&j->shape, sb, sizeof sb), (unsigned long long)r->mr.mesh_steps,
               (unsigned long long)r->mr.bound);
        for (int t = 0; t < r->mr.phases; t++)
            printf(" %llu", (unsigned long long)r->mr.phase_steps[t]);
        printf("; at most %d message per link per step\n", r->mr.max_link_load);
    }
}

static void render_text(const hl_job *j, const hl_out *r)
{
    text_steps(j, &r->res);
    if (j->mode == MODE_SIMD && j->is_lc)
        printf("tag -> processor map affine after every step (Lemma 4b): %s\n", r->res.affine_ok ? "yes" : "NO");
    if (j->mode == MODE_MIMD)
        printf("most tags held by one processor: %d\n", r->max_held);
    text_comparisons(j, r);
}

/* ---- the gate ----------------------------------------------------------- */

/* Time and memory before work (budget.h), measured on the development
 * machine (x86-64) and rounded up: routing 60 ns per processor and step
 * (2^n n; the e-cube comparison of n <= 16 included), the mesh's routing
 * 20 ns per processor and mesh step (2^n sum of the sides), --verify 40 ns
 * per processor and step of each permutation. Memory 32 bytes a processor
 * (160 with a mesh) plus 16 MB. --census and --plc-count are bounded by
 * their small ranges. */
static int gate(const cli_args *a, const hl_job *j)
{
    if (j->action != ACT_ROUTE && j->action != ACT_VERIFY)
        return 0;
    double P = ldexp(1, j->n), sec, bytes = CLI_BASE_BYTES + P * (j->mesh ? 160 : 32);
    char what[96];
    if (j->action == ACT_VERIFY) {
        double count = (double)cli_int(a, &OPT_SAMPLES, 10);
        sec = CLI_RATE_HL_VERIFY * count * P * j->n;
        snprintf(what, sizeof what, "%s --verify of %.0f permutations of n = %d", a->path, count, j->n);
    } else {
        sec = CLI_RATE_HL_ROUTE * P * j->n;
        if (j->mesh) {
            double steps = 0;
            for (int i = 0; i < j->shape.q; i++)
                steps += ldexp(1, j->shape.side_log[i]);
            sec += CLI_RATE_HL_MESH * P * steps;
        }
        snprintf(what, sizeof what, "%s on 2^%d processors%s", a->path, j->n, j->mesh ? " (mesh)" : "");
    }
    return cli_budget_check(a, what, sec, (uint64_t)bytes);
}

/* ---- the command -------------------------------------------------------- */

static int route(const cli_args *a, const hl_job *j)
{
    hl_out o;
    kc_err err = {0};
    kc_status s = compute(j, &o, &err);
    int rc;
    if (s)
        rc = cli_report(a, &err);
    else if (j->fmt == CLI_FMT_JSON)
        rc = render_json(j, &o);
    else {
        render_text(j, &o);
        rc = CLI_EXIT_OK;
    }
    cJSON_Delete(o.tc.steps);
    cJSON_Delete(o.initial);
    /* Exit 1 when HL could not route the permutation. */
    return rc ? rc : o.res.routed ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

static int check(const cli_args *a)
{
    hl_job j;
    int r = resolve(a, &j);
    free(j.dst);
    return r;
}

static int run(const cli_args *a)
{
    hl_job j;
    int r = resolve(a, &j);
    if (!r)
        r = gate(a, &j);
    if (!r) {
        switch (j.action) {
        case ACT_CENSUS: r = run_census(j.n, j.fmt); break;
        case ACT_PLC_COUNT: r = run_plc_count(j.n, j.fmt); break;
        case ACT_VERIFY: r = run_verify(j.n, j.msb, cli_int(a, &OPT_SAMPLES, 10), cli_u64(a, &OPT_SEED, 1), j.fmt); break;
        default: r = route(a, &j); break;
        }
    }
    free(j.dst);
    return r;
}

const cli_command kc_command_hl = {
    .name = "hl",
    .summary = "self-routing of permutations by algorithm HL (seed 004)",
    .order = 50,
    .description =
        "Routes the permutation x -> y = Ax + b (or any --perm) with algorithm HL: in state A (one tag per\n"
        "processor) every processor corrects the least significant bit not used yet; in state B (two tags on\n"
        "half the processors) each two-tag processor corrects the least significant bit in which its tags\n"
        "differ. Linear-complement permutations finish in n steps, one tag moved per processor per step; the\n"
        "run checks Lemma 4 (states, moves, affine tag map), Lemma 5 (circuit switching) and compares\n"
        "store-and-forward e-cube routing (both for n <= 16).\n"
        "Other actions: --verify (many LC permutations), --census N (every permutation of Q_N), --plc-count N.\n"
        "Exit status 0 when every tag arrived, 1 when HL could not route it, 2 on bad input.",
    .opts = hl_opts,
    .aliases = hl_aliases,
    .narrow = hl_narrow,
    .check = check,
    .run = run,
    .more_help = cli_print_patterns,
    .epilog = "examples:\n"
              "  kcube hl --n 3 --matrix \"010;101;110\" --vector 110 --trace\n"
              "  kcube hl --n 16 --pattern transpose --topology mesh --shape 256x256 --json\n"
              "  kcube hl --census 3",
};
