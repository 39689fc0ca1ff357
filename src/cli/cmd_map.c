/* kcube map: the best reordering mapping for one or several LCCs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "torus_cli.h"
#include "kcube/contention.h"
#include "kcube/mapset.h"
#include "kcube/nodemap.h"
#include "kcube/reorder.h"

#define VERIFY_MAX_N 20   /* exact re-count of every mapped communication up to here */
#define NODEMAP_MAX_N 16  /* node arrays in JSON up to here */

static void help(FILE *out)
{
    fprintf(out,
            "usage: kcube map --n N (--pattern NAME | --matrix M [--vector V] [--scatter])...\n"
            "                 [--objective max|simultaneous|sum] [--method auto|optimizer|dp|exhaustive]\n"
            "                 [--no-verify] [--json | --csv | --emit-c]\n\n"
            "Finds a processor reordering mapping (a permutation of address bits) that\n"
            "minimises channel contention under e-cube routing.\n"
            "One communication: seed 000's O(n^3) optimiser (any n <= 64), then for a\n"
            "gather or scatter the least total among optimal orders (exact for n <= 24;\n"
            "above, the output says the total is not minimised). Several: exact\n"
            "dynamic programming over subsets of dimensions (n <= %d), objectives\n"
            "  max           the largest contention of any one communication\n"
            "  simultaneous  the largest, over dimensions, of the summed contention\n"
            "  sum           the sum over communications and dimensions\n"
            "(for max and simultaneous, ties are broken by the least total).\n\n"
            "  --scatter     the preceding --matrix is a scatter (y receives from Ay + b)\n"
            "  --method      optimizer: single communication only; dp: dynamic programme;\n"
            "                exhaustive: all n! orders (n <= %d); auto (default) picks\n"
            "  --no-verify   skip the exact re-count of the mapped communications\n"
            "                (done by default for n <= %d)\n"
            "  --emit-c      print the mapping as C arrays for an SPMD node program\n"
            "                (to_physical[], to_virtual[], n <= %d) instead of the table\n"
            "  --k K, --mesh k-ary n-cubes (tori, k = 4..256) and meshes: see\n"
            "                kcube map --k 4 --help (--k 2 is this binary n-cube)\n\n"
            "Output: the order R (new dimension t is old dimension R[t]), Q and Q^-1,\n"
            "each communication before and after (Q A Q^-1, Q b), and the node arrays\n"
            "to_physical / to_virtual (JSON, n <= %d).\n\n",
            KC_MAPSET_MAX_N, KC_EXHAUSTIVE_MAX_N, VERIFY_MAX_N, NODEMAP_MAX_N, NODEMAP_MAX_N);
    kc_cli_print_patterns(out);
}

typedef struct mapped {
    kc_lcc before, after;
    kc_contention cb, ca;
    int verified;
} mapped;

static cJSON *order_json(const kc_order *o)
{
    cJSON *a = cJSON_CreateArray();
    for (int t = 0; t < o->n; t++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(o->dim[t]));
    return a;
}

static uint64_t order_phys(const void *ctx, uint64_t v) { return kc_order_to_physical(ctx, v); }

static int output_json(const kc_order *o, const char *method, kc_objective obj, uint64_t value, uint64_t total,
                       int total_minimised, const mapped *mp, int m)
{
    int n = o->n;
    char buf[64 * 65 + 1], vbuf[65];
    kc_bitmat q, qi;
    kc_bitmat_from_order(&q, o->dim, n);
    kc_bitmat_inverse(&qi, &q, NULL);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "n", n);
    cJSON_AddStringToObject(root, "objective", kc_objective_name(obj));
    cJSON_AddStringToObject(root, "method", method);
    cJSON_AddItemToObject(root, "value", kc_cli_json_u64(value));
    cJSON_AddItemToObject(root, "total", kc_cli_json_u64(total));
    cJSON_AddBoolToObject(root, "total_minimised", total_minimised);
    cJSON_AddItemToObject(root, "order", order_json(o));
    cJSON_AddStringToObject(root, "Q", kc_bitmat_format(&q, buf, sizeof buf));
    cJSON_AddStringToObject(root, "Q_inverse", kc_bitmat_format(&qi, buf, sizeof buf));
    if (n <= NODEMAP_MAX_N) {
        kc_nodemap nm;
        if (kc_nodemap_build(&nm, 1ULL << n, order_phys, o, NULL) == KC_OK) {
            cJSON *tp = cJSON_CreateArray(), *tv = cJSON_CreateArray();
            for (uint64_t v = 0; v < nm.count; v++) {
                cJSON_AddItemToArray(tp, cJSON_CreateNumber(nm.to_physical[v]));
                cJSON_AddItemToArray(tv, cJSON_CreateNumber(nm.to_virtual[v]));
            }
            cJSON_AddItemToObject(root, "to_physical", tp);
            cJSON_AddItemToObject(root, "to_virtual", tv);
            kc_nodemap_free(&nm);
        }
    }
    cJSON *pats = cJSON_AddArrayToObject(root, "patterns");
    for (int r = 0; r < m; r++) {
        const mapped *x = &mp[r];
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", x->before.name);
        cJSON_AddStringToObject(p, "kind", kc_lcc_kind_name(x->before.kind));
        cJSON_AddStringToObject(p, "matrix", kc_bitmat_format(&x->before.a, buf, sizeof buf));
        cJSON_AddStringToObject(p, "vector", kc_vec_format(x->before.b, n, vbuf, sizeof vbuf));
        cJSON_AddStringToObject(p, "matrix_after", kc_bitmat_format(&x->after.a, buf, sizeof buf));
        cJSON_AddStringToObject(p, "vector_after", kc_vec_format(x->after.b, n, vbuf, sizeof vbuf));
        cJSON_AddItemToObject(p, "contention_before", kc_cli_json_u64(x->cb.max));
        cJSON_AddItemToObject(p, "contention_after", kc_cli_json_u64(x->ca.max));
        cJSON_AddItemToObject(p, "per_dim_before", kc_cli_json_u64_array(x->cb.per_dim, n));
        cJSON_AddItemToObject(p, "per_dim_after", kc_cli_json_u64_array(x->ca.per_dim, n));
        cJSON_AddBoolToObject(p, "verified_exact", x->verified);
        cJSON_AddItemToArray(pats, p);
    }
    return kc_cli_print_json(root);
}

static void print_dims(const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        printf("%s%llu", i ? " " : "", (unsigned long long)v[i]);
}

static int output_text(const kc_order *o, const char *method, kc_objective obj, uint64_t value, uint64_t total,
                       int total_minimised, const mapped *mp, int m)
{
    int n = o->n;
    printf("%d communication%s on the %d-cube, objective %s (%s): value %llu, total %llu%s\n", m, m > 1 ? "s" : "", n,
           kc_objective_name(obj), method, (unsigned long long)value, (unsigned long long)total,
           total_minimised ? "" : " (total not minimised among optimal orders)");
    printf("order R (new dimension t is old dimension R[t]): ");
    for (int t = 0; t < n; t++)
        printf("%s%d", t ? " " : "", o->dim[t]);
    printf("\n%-22s %-12s %7s %7s  %s\n", "communication", "kind", "before", "after", "T_i after (dim 0 first)");
    for (int r = 0; r < m; r++) {
        const mapped *x = &mp[r];
        printf("%-22s %-12s %7llu %7llu  ", x->before.name, kc_lcc_kind_name(x->before.kind),
               (unsigned long long)x->cb.max, (unsigned long long)x->ca.max);
        print_dims(x->ca.per_dim, n);
        puts(x->verified ? "" : "  (formula)");
    }
    if (n <= 4) {
        printf("to_physical:");
        for (uint64_t v = 0; v < (1ULL << n); v++)
            printf(" %llu", (unsigned long long)kc_order_to_physical(o, v));
        printf("\nto_virtual: ");
        for (uint64_t p = 0; p < (1ULL << n); p++)
            printf(" %llu", (unsigned long long)kc_order_to_virtual(o, p));
        putchar('\n');
    } else {
        puts("(node arrays to_physical / to_virtual: use --json)");
    }
    return KC_EXIT_OK;
}

/* The compiler's view (seed 000 Fig. 1d): the node program indexes these
 * arrays instead of calling the mapping. */
static int output_c(const kc_order *o, const mapped *mp, int m)
{
    int n = o->n;
    uint64_t count = 1ULL << n;
    printf("/* kcube map: processor reordering for the %d-cube (%llu nodes).\n", n, (unsigned long long)count);
    for (int r = 0; r < m; r++)
        printf(" * %s: contention %llu -> %llu\n", mp[r].before.name, (unsigned long long)mp[r].cb.max,
               (unsigned long long)mp[r].ca.max);
    printf(" * order R (physical dimension t = virtual dimension R[t]):");
    for (int t = 0; t < n; t++)
        printf(" %d", o->dim[t]);
    printf("\n * Virtual processor v runs on physical node kc_to_physical[v]. */\n");
    for (int dir = 0; dir < 2; dir++) {
        printf("static const unsigned int kc_to_%s[%llu] = {", dir ? "virtual" : "physical", (unsigned long long)count);
        for (uint64_t v = 0; v < count; v++)
            printf("%s%s%llu", v ? "," : "", v % 16 ? " " : "\n    ",
                   (unsigned long long)(dir ? kc_order_to_virtual(o, v) : kc_order_to_physical(o, v)));
        printf("\n};\n");
    }
    return KC_EXIT_OK;
}

static int output_csv(const kc_order *o, const mapped *mp, int m)
{
    puts("communication,dim,order,before,after");
    for (int r = 0; r < m; r++)
        for (int i = 0; i < o->n; i++)
            printf("%s,%d,%d,%llu,%llu\n", mp[r].before.name, i, o->dim[i], (unsigned long long)mp[r].cb.per_dim[i],
                   (unsigned long long)mp[r].ca.per_dim[i]);
    return KC_EXIT_OK;
}

static int run(int argc, char **argv)
{
    /* k-ary n-cubes and meshes live in torus_cli.c; --k 2 is the hypercube. */
    if (kc_torus_cli_wanted(argc, argv))
        return kc_torus_cli_map(argc, argv);
    argc = kc_torus_cli_strip_k2(argc, argv);
    long n = -1;
    kc_comm_list comms;
    kc_comm_list_init(&comms, "map", 0, 1);
    int verify = 1, emit_c = 0;
    const char *method = "auto";
    kc_objective obj = KC_OBJ_MAX;
    kc_format fmt = KC_FMT_TEXT;
    kc_err err = {0};
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (kc_cli_is_help(argv[i])) {
            help(stdout);
            return KC_EXIT_OK;
        }
        if ((r = kc_cli_opt(argc, argv, &i, "--n", &v))) {
            if (r < 0 || kc_cli_int(v, 1, 64, "n", &n))
                return KC_EXIT_USAGE;
        } else if ((r = kc_cli_comm_opt(argc, argv, &i, &comms))) {
            if (r < 0)
                return KC_EXIT_USAGE;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--objective", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            if (kc_objective_parse(v, &obj, &err))
                return kc_cli_report(&err);
        } else if ((r = kc_cli_opt(argc, argv, &i, "--method", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            if (strcmp(v, "auto") && strcmp(v, "optimizer") && strcmp(v, "dp") && strcmp(v, "exhaustive"))
                return kc_cli_error("unknown method '%s' (use auto, optimizer, dp or exhaustive)", v);
            method = v;
        } else if (kc_cli_flag(argv[i], "--no-verify")) {
            verify = 0;
        } else if (kc_cli_flag(argv[i], "--emit-c")) {
            emit_c = 1;
        } else if (!kc_cli_format_flag(argv[i], &fmt)) {
            return kc_cli_error("unknown option '%s' for map (see kcube map --help)", argv[i]);
        }
    }
    int m = comms.count;
    if (n < 0)
        return kc_cli_error("map needs --n N");
    if (m == 0)
        return kc_cli_error("map needs at least one --pattern or --matrix");
    if (emit_c && n > NODEMAP_MAX_N)
        return kc_cli_error("--emit-c writes node arrays for n <= %d, got n = %ld", NODEMAP_MAX_N, n);

    mapped *mp = calloc((size_t)m, sizeof *mp);
    kc_lcc *lccs = calloc((size_t)m, sizeof *lccs);
    if (!mp || !lccs) {
        free(mp);
        free(lccs);
        return kc_cli_error("out of memory");
    }
    int rc = KC_EXIT_OK;
    for (int r = 0; r < m && rc == KC_EXIT_OK; r++)
        if (kc_cli_build_lcc(&comms.spec[r], (int)n, comms.scatter[r], &lccs[r], &err))
            rc = kc_cli_report(&err);

    /* Pick the method: the O(n^3) optimiser is exact for one communication
     * under max/simultaneous, and for permutations under every objective. */
    int single_ok = m == 1 && (obj != KC_OBJ_SUM || lccs[0].kind == KC_LCC_PERMUTATION);
    if (rc == KC_EXIT_OK && strcmp(method, "auto") == 0)
        method = single_ok ? "optimizer" : "dp";
    if (rc == KC_EXIT_OK && strcmp(method, "optimizer") == 0 && !single_ok)
        rc = kc_cli_error(m > 1 ? "the optimizer maps one communication; use --method dp for a set"
                                : "the optimizer minimises the largest contention; objective sum on a gather or "
                                  "scatter needs --method dp");
    if (rc == KC_EXIT_OK && strcmp(method, "dp") == 0 && n > KC_MAPSET_MAX_N)
        rc = kc_cli_error("mapping a set of communications supports n <= %d, got n = %ld", KC_MAPSET_MAX_N, n);
    if (rc == KC_EXIT_OK && strcmp(method, "exhaustive") == 0 && n > KC_EXHAUSTIVE_MAX_N)
        rc = kc_cli_error("exhaustive search supports n <= %d, got n = %ld", KC_EXHAUSTIVE_MAX_N, n);

    kc_mapset_result res;
    int total_minimised = 1;
    if (rc == KC_EXIT_OK) {
        kc_status s;
        if (strcmp(method, "optimizer") == 0) {
            kc_reorder_result rb;
            s = kc_reorder_best(&lccs[0], &rb, NULL, &err);
            if (!s)
                res.value = kc_objective_value(lccs, m, obj, &rb.order, &res.total);
            res.order = rb.order;
            total_minimised = rb.total_minimised;
        } else if (strcmp(method, "dp") == 0) {
            kc_cli_progress prog;
            kc_cli_progress_init(&prog, "mapping");
            kc_progress p = {n >= 18 ? kc_cli_progress_cb : NULL, &prog};
            s = kc_mapset_optimal(lccs, m, obj, &res, &p, &err);
            kc_cli_progress_done(&prog);
        } else {
            s = kc_mapset_exhaustive(lccs, m, obj, &res, &err);
        }
        if (s)
            rc = kc_cli_report(&err);
    }
    for (int r = 0; r < m && rc == KC_EXIT_OK; r++) {
        mapped *x = &mp[r];
        x->before = lccs[r];
        kc_lcc_reorder(&x->after, &lccs[r], res.order.dim);
        kc_contention_formula(&x->before, &x->cb);
        kc_contention_formula(&x->after, &x->ca);
        if (verify && n <= VERIFY_MAX_N) {
            kc_contention ex;
            if (kc_contention_exact(&x->after, &ex, NULL, &err)) {
                rc = kc_cli_report(&err);
                break;
            }
            if (memcmp(ex.per_dim, x->ca.per_dim, sizeof ex.per_dim) != 0) {
                fprintf(stderr, "kcube: internal error: exact count of mapped %s differs from the formula\n",
                        x->before.name);
                rc = KC_EXIT_FAIL;
                break;
            }
            x->verified = 1;
        }
    }
    if (rc == KC_EXIT_OK) {
        if (emit_c)
            rc = output_c(&res.order, mp, m);
        else if (fmt == KC_FMT_JSON)
            rc = output_json(&res.order, method, obj, res.value, res.total, total_minimised, mp, m);
        else if (fmt == KC_FMT_CSV)
            rc = output_csv(&res.order, mp, m);
        else
            rc = output_text(&res.order, method, obj, res.value, res.total, total_minimised, mp, m);
    }
    free(mp);
    free(lccs);
    return rc;
}

const cli_command kc_command_map = {.name = "map", .summary = "optimal processor reordering for one or more communications", .order = 20, .run_argv = run};
