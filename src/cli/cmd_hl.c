/* kcube hl: self-routing of a permutation by algorithm HL (seed 004). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"
#include "kcube/hl.h"
#include "kcube/hl_class.h"
#include "kcube/hl_mesh.h"

#define TRACE_MAX_N 6    /* --trace prints every processor */
#define DETAIL_MAX_N 16  /* circuit paths and the e-cube comparison up to here */

static void help(FILE *out)
{
    fprintf(out,
            "usage: kcube hl --n N (--pattern NAME | --matrix M [--vector V] | --perm LIST)\n"
            "                [--msb-first] [--mode simd|msimd|mimd] [--mesh SIDES] [--trace]\n"
            "                [--json]\n"
            "       kcube hl --verify --n N [--count C] [--seed S] [--msb-first]\n"
            "                                    (all LC permutations for N <= 4, else C random)\n"
            "       kcube hl --census N [--csv]  (N = 1..3: every permutation of Q_N;\n"
            "                                    --csv: one row per permutation)\n"
            "       kcube hl --plc-count N       (|PLC_N| by recurrence (3), N <= %d)\n\n"
            "Routes the permutation x -> y = Ax + b (or an explicit one) with algorithm HL:\n"
            "in state A (one tag per processor) every processor corrects the least\n"
            "significant bit not used yet; in state B (two tags on half the processors)\n"
            "each two-tag processor corrects the least significant bit in which its tags\n"
            "differ. Linear-complement permutations finish in n steps, one tag moved per\n"
            "processor per step; the run checks Lemma 4 (states, moves, affine tag map),\n"
            "Lemma 5 (circuit switching) and compares store-and-forward e-cube routing\n"
            "(both for n <= %d).\n\n"
            "  --n N          cube dimension, 1..%d\n"
            "  --pattern P    a built-in pattern (below)\n"
            "  --matrix M     rows separated by ';', row 0 (y_0) first, column 0 first;\n"
            "                 must be nonsingular\n"
            "  --vector V     b as n digits 0/1, b_0 first (default all 0)\n"
            "  --perm LIST    any permutation: 2^n destinations, comma separated, of\n"
            "                 processors 0, 1, ... in order\n"
            "  --msb-first    correct the most significant bit whenever there is a choice\n"
            "  --mode M       simd (default); msimd: subcubes cut along the top bits choose\n"
            "                 their own bits (Lemma 7); mimd: every processor applies HL's\n"
            "                 rules alone (n <= %d)\n"
            "  --mesh SIDES   also route on a mesh, sides most significant axis first,\n"
            "                 e.g. 4x4 or 2x8 (powers of two multiplying to 2^n; n <= %d)\n"
            "  --trace        the tags of every processor before and after each step\n"
            "                 (n <= %d)\n"
            "  --verify       check Theorem 1 and Lemma 4 on many LC permutations:\n"
            "                 --count C random ones (default 10) from --seed S (default 1);\n"
            "                 all 2^N |GL(N,2)| of them when N <= 4\n"
            "  --json         machine-readable output\n\n"
            "Exit status 0 when every tag arrived, 1 when HL could not route it, 2 on bad\n"
            "input.\n\npatterns:\n",
            KC_HL_CLASS_MAX_N, DETAIL_MAX_N, KC_HL_MAX_N, KC_HL_CLASS_MAX_N, KC_HL_MESH_MAX_N, TRACE_MAX_N);
    kc_cli_print_patterns(out);
}

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
            cJSON_AddItemToArray(p, cJSON_CreateNumber(t[i]));
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
        cJSON_AddNumberToObject(s, "step", step + 1);
        cJSON_AddStringToObject(s, "state_before", (char[]){state, 0});
        cJSON_AddNumberToObject(s, "dim", dim);
        cJSON_AddItemToObject(s, "tags", tags_json(e));
        cJSON_AddItemToArray(tc->steps, s);
        return;
    }
    printf("after step %d (state %c before, bit %d corrected), state %c:\n", step + 1, state, dim, kc_hl_state(e));
    print_tags(e);
}

static int parse_perm(const char *text, int n, uint32_t *dst)
{
    uint64_t np = 1ULL << n, k = 0;
    const char *p = text;
    while (*p) {
        char *end;
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        cli_quoted q;
        if (end == p)
            return kc_cli_error("--perm: '%s' is not a list of node numbers", cli_quote(&q, text));
        if (k == np)
            return kc_cli_error("--perm has more than 2^%d = %llu entries", n, (unsigned long long)np);
        /* strtoul accepts "-7" (as 2^64 - 7): echo the entry as written. */
        if (v >= np || errno == ERANGE || *p == '-') {
            kc_escape(q.s, sizeof q.s, p, (size_t)(end - p));
            return kc_cli_error("--perm: %s is not a node of the %d-cube", q.s, n);
        }
        dst[k++] = (uint32_t)v;
        p = end;
    }
    if (k != np)
        return kc_cli_error("--perm needs 2^%d = %llu entries, got %llu", n, (unsigned long long)np,
                            (unsigned long long)k);
    return 0;
}

static void census_row(void *ctx, const uint32_t *dst, unsigned k)
{
    int len = *(const int *)ctx;
    putchar('"');
    for (int i = 0; i < len; i++)
        printf("%s%u", i ? " " : "", dst[i]);
    printf("\",%d,%d,%d,%d,%d,%d,%d,%d\n", !!(k & KC_HL_IS_LC), !!(k & KC_HL_IS_PLC), !!(k & KC_HL_ROUTES_SIMD),
           !!(k & KC_HL_ROUTES_SIMD_MSB), !!(k & KC_HL_ROUTES_MSIMD), !!(k & KC_HL_ROUTES_MIMD_GREEDY),
           !!(k & KC_HL_ROUTES_MIMD_ANY), !!(k & KC_HL_ROUTES_MIMD_CIRCUIT));
}

static int run_census(long n, kc_format fmt)
{
    kc_hl_census c;
    kc_err err = {0};
    int len = 1 << n;
    if (fmt == KC_FMT_CSV)
        puts("perm,lc,plc,simd,simd_msb_first,msimd,mimd_greedy,mimd_any,mimd_circuit");
    if (kc_hl_census_run((int)n, &c, fmt == KC_FMT_CSV ? census_row : NULL, &len, &err))
        return kc_cli_report(&err);
    if (fmt == KC_FMT_CSV)
        return KC_EXIT_OK;
    if (fmt == KC_FMT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "n", (double)n);
        cJSON_AddItemToObject(o, "permutations", kc_cli_json_u64(c.total));
        cJSON_AddItemToObject(o, "lc", kc_cli_json_u64(c.lc));
        cJSON_AddItemToObject(o, "plc", kc_cli_json_u64(c.plc));
        cJSON_AddItemToObject(o, "simd", kc_cli_json_u64(c.simd));
        cJSON_AddItemToObject(o, "simd_msb_first", kc_cli_json_u64(c.simd_msb));
        cJSON_AddItemToObject(o, "msimd", kc_cli_json_u64(c.msimd));
        cJSON_AddItemToObject(o, "mimd_greedy", kc_cli_json_u64(c.mimd_greedy));
        cJSON_AddItemToObject(o, "mimd_any_schedule", kc_cli_json_u64(c.mimd_any));
        cJSON_AddItemToObject(o, "mimd_circuit_schedule", kc_cli_json_u64(c.mimd_circuit));
        cJSON_AddBoolToObject(o, "all_lc_routed_simd", c.lc_in_simd);
        cJSON_AddBoolToObject(o, "simd_within_msimd", c.simd_in_msimd);
        cJSON_AddBoolToObject(o, "all_plc_routed_msimd", c.plc_in_msimd);
        return kc_cli_print_json(o);
    }
    printf("all %llu permutations of Q_%ld\n", (unsigned long long)c.total, n);
    printf("  %-44s %8llu\n", "linear-complement (LC)", (unsigned long long)c.lc);
    printf("  %-44s %8llu\n", "partitioned LC (PLC, Definition 3)", (unsigned long long)c.plc);
    printf("  %-44s %8llu\n", "routed by HL, SIMD, LSB-first", (unsigned long long)c.simd);
    printf("  %-44s %8llu\n", "routed by HL, SIMD, MSB-first", (unsigned long long)c.simd_msb);
    printf("  %-44s %8llu\n", "routed by HL, M-SIMD (cuts along top bits)", (unsigned long long)c.msimd);
    printf("  %-44s %8llu\n", "routed by greedy per-processor HL (MIMD)", (unsigned long long)c.mimd_greedy);
    printf("  %-44s %8llu\n", "some MIMD schedule (n steps, 1 sent, 2 held)", (unsigned long long)c.mimd_any);
    printf("  %-44s %8llu\n", "... also each directed link on one path only", (unsigned long long)c.mimd_circuit);
    printf("claims: every LC routed in SIMD: %s; SIMD within M-SIMD: %s, M-SIMD larger: %s; every PLC routed "
           "in M-SIMD: %s\n",
           c.lc_in_simd ? "yes" : "NO", c.simd_in_msimd ? "yes" : "NO", c.msimd > c.simd ? "yes" : "no",
           c.plc_in_msimd ? "yes" : "NO");
    return KC_EXIT_OK;
}

/* Room for |PLC_n| in decimal: the counts grow like 2^(n^2), n <= 12. */
#define PLC_DIGITS 200000

static int run_plc_count_into(long n, kc_format fmt, char *paper, char *unique)
{
    kc_err err = {0};
    if (!paper || !unique)
        return kc_cli_error("out of memory");
    if (kc_hl_plc_count((int)n, 0, paper, PLC_DIGITS, &err) || kc_hl_plc_count((int)n, 1, unique, PLC_DIGITS, &err))
        return kc_cli_report(&err);
    uint64_t enumerated = 0;
    int have_enum = n <= 4;
    if (have_enum && kc_hl_plc_enumerate((int)n, &enumerated, &err))
        return kc_cli_report(&err);
    if (fmt == KC_FMT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "n", (double)n);
        cJSON_AddStringToObject(o, "recurrence_block_triangular", unique);
        cJSON_AddStringToObject(o, "recurrence_block_diagonal", paper);
        if (have_enum)
            cJSON_AddItemToObject(o, "enumerated", kc_cli_json_u64(enumerated));
        else
            cJSON_AddNullToObject(o, "enumerated");
        return kc_cli_print_json(o);
    }
    printf("|PLC_%ld| by recurrence (3):\n", n);
    printf("  LC'_k without block-triangular matrices (exact): %s\n", unique);
    printf("  LC'_k without block-diagonal ones (as printed):  %s\n", paper);
    if (have_enum)
        printf("  by enumeration:                                  %llu\n", (unsigned long long)enumerated);
    return KC_EXIT_OK;
}

static int run_plc_count(long n, kc_format fmt)
{
    char *paper = malloc(PLC_DIGITS), *unique = malloc(PLC_DIGITS);
    int rc = run_plc_count_into(n, fmt, paper, unique);
    free(paper);
    free(unique);
    return rc;
}

static int run_verify(long n, int msb, long count, long seed, kc_format fmt)
{
    kc_hl_verify_report rep;
    kc_err err = {0};
    kc_cli_progress prog;
    kc_cli_progress_init(&prog, "verifying");
    kc_progress p = {kc_cli_progress_cb, &prog};
    kc_status s = kc_hl_verify((int)n, msb, (uint64_t)count, (uint64_t)seed, &rep, &p, &err);
    kc_cli_progress_done(&prog);
    if (s)
        return kc_cli_report(&err);
    char mb[64 * 65 + 1] = "", vb[65] = "";
    if (rep.failures) {
        kc_bitmat_format(&rep.a, mb, sizeof mb);
        kc_vec_format(rep.b, (int)n, vb, sizeof vb);
    }
    if (fmt == KC_FMT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "n", (double)n);
        cJSON_AddStringToObject(o, "variant", msb ? "msb-first" : "lsb-first");
        cJSON_AddBoolToObject(o, "exhaustive", rep.exhaustive);
        if (!rep.exhaustive)
            cJSON_AddNumberToObject(o, "seed", (double)seed);
        cJSON_AddItemToObject(o, "checked", kc_cli_json_u64(rep.checked));
        cJSON_AddItemToObject(o, "failures", kc_cli_json_u64(rep.failures));
        if (rep.failures) {
            cJSON *f = cJSON_AddObjectToObject(o, "first_failure");
            cJSON_AddStringToObject(f, "matrix", mb);
            cJSON_AddStringToObject(f, "vector", vb);
            cJSON_AddStringToObject(f, "why", rep.why);
        }
        int rc = kc_cli_print_json(o);
        return rc ? rc : rep.failures ? KC_EXIT_FAIL : KC_EXIT_OK;
    }
    printf("%s %llu linear-complement permutations of Q_%ld (%s HL)", rep.exhaustive ? "all" : "random:",
           (unsigned long long)rep.checked, n, msb ? "MSB-first" : "LSB-first");
    if (!rep.exhaustive)
        printf(", seed %ld", seed);
    printf(": %llu failures\n", (unsigned long long)rep.failures);
    if (rep.failures)
        printf("first failure: --matrix \"%s\" --vector %s: %s\n", mb, vb, rep.why);
    else
        printf("every one routed in %ld steps, states A/B only, at most one tag sent per processor per step, "
               "tag map affine after every step\n", n);
    return rep.failures ? KC_EXIT_FAIL : KC_EXIT_OK;
}

static int run(int argc, char **argv)
{
    long n = -1, census = -1, plc_count = -1;
    kc_comm_list comms;
    kc_comm_list_init(&comms, "hl", 1, 0);
    const char *perm = NULL, *mesh = NULL, *mode = "simd";
    int msb = 0, trace = 0, verify = 0;
    long count = 10, seed = 1;
    kc_format fmt = KC_FMT_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (kc_cli_is_help(argv[i])) {
            help(stdout);
            return KC_EXIT_OK;
        }
        if ((r = kc_cli_opt(argc, argv, &i, "--n", &v))) {
            if (r < 0 || kc_cli_int(v, 1, KC_HL_MAX_N, "n", &n))
                return KC_EXIT_USAGE;
        } else if ((r = kc_cli_comm_opt(argc, argv, &i, &comms))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            if (perm)
                return kc_cli_error("hl routes one permutation: give --pattern, --matrix or --perm once");
        } else if ((r = kc_cli_opt(argc, argv, &i, "--perm", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            if (comms.count || perm)
                return kc_cli_error("hl routes one permutation: give --pattern, --matrix or --perm once");
            perm = v;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--mesh", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            mesh = v;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--mode", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            if (strcmp(v, "simd") && strcmp(v, "msimd") && strcmp(v, "mimd"))
                return kc_cli_error("unknown mode '%s' (use simd, msimd or mimd)", v);
            mode = v;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--census", &v))) {
            if (r < 0 || kc_cli_int(v, 1, 3, "census size N", &census))
                return KC_EXIT_USAGE;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--plc-count", &v))) {
            if (r < 0 || kc_cli_int(v, 0, KC_HL_CLASS_MAX_N, "--plc-count N", &plc_count))
                return KC_EXIT_USAGE;
        } else if (kc_cli_flag(argv[i], "--verify")) {
            verify = 1;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--count", &v))) {
            if (r < 0 || kc_cli_int(v, 1, 1000000000L, "--count", &count))
                return KC_EXIT_USAGE;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--seed", &v))) {
            if (r < 0 || kc_cli_int(v, 0, 2147483647L, "--seed", &seed))
                return KC_EXIT_USAGE;
        } else if (kc_cli_flag(argv[i], "--msb-first")) {
            msb = 1;
        } else if (kc_cli_flag(argv[i], "--trace")) {
            trace = 1;
        } else if (!kc_cli_format_flag(argv[i], &fmt)) {
            return kc_cli_error("unknown option '%s' for hl (see kcube hl --help)", argv[i]);
        }
    }
    if (census >= 0)
        return run_census(census, fmt);
    if (fmt == KC_FMT_CSV)
        return kc_cli_error("hl has CSV output only for --census (one row per permutation); use --json");
    if (plc_count >= 0)
        return run_plc_count(plc_count, fmt);
    if (n < 0)
        return kc_cli_error("hl needs --n N");
    if (verify)
        return run_verify(n, msb, count, seed, fmt);
    if (!comms.count && !perm)
        return kc_cli_error("hl needs --pattern NAME, --matrix M or --perm LIST");
    int simd = strcmp(mode, "simd") == 0;
    if (trace && n > TRACE_MAX_N)
        return kc_cli_error("--trace prints every processor; it supports n <= %d, got n = %ld", TRACE_MAX_N, n);
    if (!simd && (trace || mesh || msb))
        return kc_cli_error("--trace, --mesh and --msb-first go with --mode simd");
    if (!simd && n > KC_HL_CLASS_MAX_N)
        return kc_cli_error("--mode %s supports n <= %d, got n = %ld", mode, KC_HL_CLASS_MAX_N, n);
    kc_hl_mesh_shape shape;
    kc_err err = {0};
    if (mesh) {
        if (kc_hl_mesh_parse(&shape, mesh, (int)n, &err))
            return kc_cli_report(&err);
        if (n > KC_HL_MESH_MAX_N)
            return kc_cli_error("the mesh simulation supports n <= %d, got n = %ld", KC_HL_MESH_MAX_N, n);
    }

    uint32_t *dst = malloc(sizeof *dst << n);
    if (!dst)
        return kc_cli_error("out of memory");
    char name[64] = "perm", mbuf[64 * 65 + 1] = "", vbuf[65] = "";
    int is_lc = 0;
    if (perm) {
        if (parse_perm(perm, (int)n, dst)) {
            free(dst);
            return KC_EXIT_USAGE;
        }
        uint8_t *seen = calloc((size_t)1 << n, 1);
        for (uint64_t x = 0; seen && x < (1ULL << n); x++) {
            if (seen[dst[x]]) {
                unsigned long twice = dst[x];
                free(seen);
                free(dst);
                return kc_cli_error("--perm is not a permutation: %lu appears twice", twice);
            }
            seen[dst[x]] = 1;
        }
        free(seen);
        kc_bitmat a;
        uint64_t b;
        if ((is_lc = kc_hl_is_lc((int)n, dst, &a, &b))) {
            kc_bitmat_format(&a, mbuf, sizeof mbuf);
            kc_vec_format(b, (int)n, vbuf, sizeof vbuf);
        }
    } else {
        kc_lcc c;
        if (kc_cli_build_lcc(&comms.spec[0], (int)n, 0, &c, &err) || kc_hl_perm_from_lcc(&c, dst, &err)) {
            free(dst);
            return kc_cli_report(&err);
        }
        snprintf(name, sizeof name, "%s", c.name);
        kc_bitmat_format(&c.a, mbuf, sizeof mbuf);
        kc_vec_format(c.b, (int)n, vbuf, sizeof vbuf);
        is_lc = 1;
    }

    /* the run */
    kc_hl_result res;
    kc_hl_circuit circ;
    kc_hl_ecube ec;
    kc_hl_mesh_result mr;
    int detail = n <= DETAIL_MAX_N, have_circ = 0, have_ec = 0, max_held = 0;
    trace_ctx tc = {fmt == KC_FMT_JSON, NULL};
    cJSON *initial = NULL;
    kc_status s = KC_OK;
    if (simd) {
        kc_hl_engine e;
        kc_hl_opts o = {.msb_first = msb, .check_affine = is_lc, .require_lemma3 = 0};
        if (trace) {
            o.on_step = on_step;
            o.ctx = &tc;
            if (tc.json)
                tc.steps = cJSON_CreateArray();
        }
        s = kc_hl_engine_init(&e, (int)n, dst, 2, detail, &err);
        if (!s && trace) {
            if (tc.json) {
                initial = tags_json(&e);
            } else {
                printf("before routing, state %c:\n", kc_hl_state(&e));
                print_tags(&e);
            }
        }
        if (!s)
            s = kc_hl_run(&e, &o, &res, &err);
        if (!s && detail && res.routed) {
            s = kc_hl_circuit_check(&e, &circ, NULL, NULL, &err);
            have_circ = !s;
        }
        if (e.slot)
            kc_hl_engine_free(&e);
        kc_hl_opts mo = {.msb_first = msb}; /* no trace callback the second time */
        if (!s && mesh)
            s = kc_hl_mesh_route(&shape, dst, &mo, NULL, &mr, &err);
    } else if (strcmp(mode, "msimd") == 0) {
        s = kc_hl_msimd_run((int)n, dst, &res, &err);
    } else {
        s = kc_hl_mimd_greedy((int)n, dst, &res, &max_held, &err);
    }
    if (!s && detail) {
        s = kc_hl_ecube_simulate((int)n, dst, &ec, &err);
        have_ec = !s;
    }
    free(dst);
    if (s) {
        cJSON_Delete(tc.steps);
        cJSON_Delete(initial);
        return kc_cli_report(&err);
    }

    int rc = res.routed ? KC_EXIT_OK : KC_EXIT_FAIL;
    if (fmt == KC_FMT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "n", (double)n);
        cJSON_AddStringToObject(o, "pattern", name);
        cJSON_AddBoolToObject(o, "linear_complement", is_lc);
        if (is_lc) {
            cJSON_AddStringToObject(o, "matrix", mbuf);
            cJSON_AddStringToObject(o, "vector", vbuf);
        }
        cJSON_AddStringToObject(o, "mode", mode);
        cJSON_AddStringToObject(o, "variant", msb ? "msb-first" : "lsb-first");
        cJSON_AddBoolToObject(o, "routed", res.routed);
        cJSON_AddNumberToObject(o, "steps", res.steps);
        cJSON_AddStringToObject(o, "states", res.states);
        cJSON_AddStringToObject(o, "final_state", (char[]){res.final_state, 0});
        cJSON *dims = cJSON_CreateArray(), *moved = cJSON_CreateArray();
        for (int t = 0; t < res.steps; t++) {
            cJSON_AddItemToArray(dims, cJSON_CreateNumber(res.dims[t]));
            cJSON_AddItemToArray(moved, cJSON_CreateNumber((double)res.moved[t]));
        }
        cJSON_AddItemToObject(o, "dims", dims);
        cJSON_AddItemToObject(o, "tags_moved_per_step", moved);
        cJSON_AddItemToObject(o, "two_tag_processors_per_step", kc_cli_json_u64_array(res.twos, res.steps));
        cJSON_AddNumberToObject(o, "max_tags_moved_per_processor", res.max_moved);
        if (simd && is_lc)
            cJSON_AddBoolToObject(o, "affine_after_every_step", res.affine_ok);
        if (!simd && strcmp(mode, "mimd") == 0)
            cJSON_AddNumberToObject(o, "max_tags_held", max_held);
        if (!res.routed)
            cJSON_AddStringToObject(o, "why", res.why);
        if (have_circ) {
            cJSON *c = cJSON_AddObjectToObject(o, "circuit");
            cJSON_AddItemToObject(c, "paths", kc_cli_json_u64(circ.paths));
            cJSON_AddItemToObject(c, "hops", kc_cli_json_u64(circ.hops));
            cJSON_AddBoolToObject(c, "all_minimal", circ.all_minimal);
            cJSON_AddNumberToObject(c, "max_paths_per_directed_link", circ.max_paths_per_link);
            cJSON_AddNumberToObject(c, "max_steps_per_neighbour_pair", circ.max_steps_per_pair);
            cJSON_AddBoolToObject(c, "lemma5", circ.max_paths_per_link <= 1 && circ.max_steps_per_pair <= 1);
        }
        if (have_ec) {
            cJSON *c = cJSON_AddObjectToObject(o, "ecube");
            cJSON_AddNumberToObject(c, "steps", ec.steps);
            cJSON_AddNumberToObject(c, "max_queue", ec.max_queue);
            cJSON_AddItemToObject(c, "max_links_busy_per_step", kc_cli_json_u64(ec.max_links_busy));
            cJSON_AddItemToObject(c, "hops", kc_cli_json_u64(ec.hops));
        }
        if (mesh) {
            char sb[128];
            cJSON_AddItemToObject(o, "mesh_steps", kc_cli_json_u64(mr.mesh_steps));
            cJSON *m = cJSON_AddObjectToObject(o, "mesh");
            cJSON_AddStringToObject(m, "sides", kc_hl_mesh_format(&shape, sb, sizeof sb));
            cJSON_AddItemToObject(m, "steps", kc_cli_json_u64(mr.mesh_steps));
            cJSON_AddItemToObject(m, "bound", kc_cli_json_u64(mr.bound));
            cJSON_AddItemToObject(m, "phase_steps", kc_cli_json_u64_array(mr.phase_steps, mr.phases));
            cJSON_AddNumberToObject(m, "max_messages_per_link_per_step", mr.max_link_load);
            cJSON_AddItemToObject(m, "waits", kc_cli_json_u64(mr.waits));
        }
        if (trace) {
            cJSON *t = cJSON_AddObjectToObject(o, "trace");
            cJSON_AddItemToObject(t, "initial", initial);
            cJSON_AddItemToObject(t, "steps", tc.steps);
        }
        int prc = kc_cli_print_json(o);
        return prc ? prc : rc;
    }

    printf("HL (%s, %s) on the %ld-cube: %s", mode, msb ? "MSB-first" : "LSB-first", n, name);
    if (is_lc && n <= 8)
        printf(", y = Ax + b with A = %s, b = %s", mbuf, vbuf);
    else if (is_lc)
        printf(" (linear-complement; A and b with --json)");
    putchar('\n');
    if (res.routed)
        printf("routed in %d steps; states %s\n", res.steps, res.states);
    else
        printf("NOT routed: %s (states %s)\n", res.why, res.states);
    printf("bits corrected:");
    for (int t = 0; t < res.steps; t++)
        printf(res.dims[t] >= 0 ? " %d" : " mixed", res.dims[t]);
    printf("\ntags moved per step:");
    for (int t = 0; t < res.steps; t++)
        printf(" %llu", (unsigned long long)res.moved[t]);
    printf("\nmost tags moved by one processor in one step: %d (Lemma 4a: at most 1)\n", res.max_moved);
    if (simd && is_lc)
        printf("tag -> processor map affine after every step (Lemma 4b): %s\n", res.affine_ok ? "yes" : "NO");
    if (!simd && strcmp(mode, "mimd") == 0)
        printf("most tags held by one processor: %d\n", max_held);
    if (have_circ)
        printf("circuit switching: %llu paths, %llu hops, %s; at most %d path per directed link, neighbours "
               "talk in at most %d step (Lemma 5 %s)\n",
               (unsigned long long)circ.paths, (unsigned long long)circ.hops,
               circ.all_minimal ? "all minimal" : "NOT all minimal", circ.max_paths_per_link,
               circ.max_steps_per_pair,
               circ.max_paths_per_link <= 1 && circ.max_steps_per_pair <= 1 ? "holds" : "FAILS");
    if (have_ec) {
        uint64_t hl_busy = 0;
        for (int t = 0; t < res.steps; t++)
            hl_busy = res.moved[t] > hl_busy ? res.moved[t] : hl_busy;
        printf("store-and-forward e-cube: %d steps, longest queue %d, at most %llu links busy in a step",
               ec.steps, ec.max_queue, (unsigned long long)ec.max_links_busy);
        if (res.routed)
            printf(" (HL: %d steps, no queues, at most %llu)", res.steps, (unsigned long long)hl_busy);
        putchar('\n');
    } else if (!detail) {
        printf("(circuit paths and the e-cube comparison are done for n <= %d)\n", DETAIL_MAX_N);
    }
    if (mesh) {
        char sb[128];
        printf("mesh %s: %llu mesh steps (sum_a (2^n_a - 1) = %llu), phases:", kc_hl_mesh_format(&shape, sb, sizeof sb),
               (unsigned long long)mr.mesh_steps, (unsigned long long)mr.bound);
        for (int t = 0; t < mr.phases; t++)
            printf(" %llu", (unsigned long long)mr.phase_steps[t]);
        printf("; at most %d message per link per step\n", mr.max_link_load);
    }
    return rc;
}

const struct kc_command kc_command_hl = {"hl", "self-routing of permutations by algorithm HL (seed 004)", 50, run};
