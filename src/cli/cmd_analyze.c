/* kcube analyze: contention of one LCC under e-cube routing. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "torus_cli.h"
#include "kcube/contention.h"

static void help(FILE *out)
{
    fprintf(out,
            "usage: kcube analyze --n N (--pattern NAME | --matrix M [--vector V]) [--scatter]\n"
            "                     [--exact | --no-exact] [--json | --csv]\n\n"
            "Channel contention of a linear-complement communication y = Ax + b on the\n"
            "binary n-cube under e-cube routing (dimension 0 corrected first): T_i per\n"
            "dimension from seed 000 Theorem 1 (its mirror image for scatters) and, for\n"
            "n <= %d, the exact count from routing every message.\n\n"
            "  --n N         cube dimension, 1..64\n"
            "  --pattern P   a built-in pattern (below)\n"
            "  --matrix M    rows separated by ';', row 0 (y_0) first, each n digits 0/1,\n"
            "                column 0 (x_0) first; e.g. 0010;0001;1000;0100\n"
            "  --vector V    b as n digits 0/1, b_0 first (default all 0)\n"
            "  --scatter     read a singular A as a scatter: y receives from x = Ay + b\n"
            "  --exact       require the exact count (error when n > %d)\n"
            "  --no-exact    skip it (the default skips it only when n > %d)\n"
            "  --json, --csv machine-readable output\n"
            "  --k K, --mesh k-ary n-cubes (tori, k = 4..256) and meshes: see\n"
            "                kcube analyze --k 4 --help (--k 2 is this binary n-cube)\n\n",
            KC_EXACT_MAX_N, KC_EXACT_MAX_N, KC_EXACT_MAX_N);
    kc_cli_print_patterns(out);
}

static cJSON *channel_json(uint64_t from, int dim)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "dim", dim);
    cJSON_AddItemToObject(c, "from", kc_cli_json_u64(from));
    cJSON_AddItemToObject(c, "to", kc_cli_json_u64(from ^ (1ULL << dim)));
    return c;
}

static int run(int argc, char **argv)
{
    /* k-ary n-cubes and meshes live in torus_cli.c; --k 2 is the hypercube. */
    if (kc_torus_cli_wanted(argc, argv))
        return kc_torus_cli_analyze(argc, argv);
    argc = kc_torus_cli_strip_k2(argc, argv);
    long n = -1;
    kc_comm_list comms;
    kc_comm_list_init(&comms, "analyze", 1, 1);
    int exact = -1; /* -1: automatic */
    kc_format fmt = KC_FMT_TEXT;
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
        } else if (kc_cli_flag(argv[i], "--exact")) {
            exact = 1;
        } else if (kc_cli_flag(argv[i], "--no-exact")) {
            exact = 0;
        } else if (!kc_cli_format_flag(argv[i], &fmt)) {
            return kc_cli_error("unknown option '%s' for analyze (see kcube analyze --help)", argv[i]);
        }
    }
    if (n < 0)
        return kc_cli_error("analyze needs --n N");
    if (!comms.count)
        return kc_cli_error("analyze needs --pattern NAME or --matrix M");
    if (exact == 1 && n > KC_EXACT_MAX_N)
        return kc_cli_error("exact counting supports n <= %d, got n = %ld", KC_EXACT_MAX_N, n);
    if (exact < 0)
        exact = n <= KC_EXACT_MAX_N;

    kc_err err = {0};
    kc_lcc c;
    if (kc_cli_build_lcc(&comms.spec[0], (int)n, comms.scatter[0], &c, &err))
        return kc_cli_report(&err);

    kc_contention f, x;
    kc_contention_formula(&c, &f);
    if (exact) {
        kc_cli_progress prog;
        kc_cli_progress_init(&prog, "counting");
        kc_progress p = {n >= 20 ? kc_cli_progress_cb : NULL, &prog};
        kc_status s = kc_contention_exact(&c, &x, &p, &err);
        kc_cli_progress_done(&prog);
        if (s)
            return kc_cli_report(&err);
    }
    const kc_contention *best = exact ? &x : &f;
    char mbuf[64 * 65 + 1], vbuf[65];
    kc_bitmat_format(&c.a, mbuf, sizeof mbuf);
    kc_vec_format(c.b, c.a.n, vbuf, sizeof vbuf);

    if (fmt == KC_FMT_JSON) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "n", (double)n);
        cJSON_AddStringToObject(o, "pattern", c.name);
        cJSON_AddStringToObject(o, "kind", kc_lcc_kind_name(c.kind));
        cJSON_AddNumberToObject(o, "rank", c.rank);
        cJSON_AddStringToObject(o, "matrix", mbuf);
        cJSON_AddStringToObject(o, "vector", vbuf);
        cJSON_AddItemToObject(o, "per_dim", kc_cli_json_u64_array(f.per_dim, c.a.n));
        if (exact)
            cJSON_AddItemToObject(o, "per_dim_exact", kc_cli_json_u64_array(x.per_dim, c.a.n));
        else
            cJSON_AddNullToObject(o, "per_dim_exact");
        cJSON_AddBoolToObject(o, "exact", exact);
        cJSON_AddItemToObject(o, "contention", kc_cli_json_u64(best->max));
        cJSON_AddItemToObject(o, "contention_formula", kc_cli_json_u64(f.max));
        if (best->max_dim >= 0)
            cJSON_AddItemToObject(o, "worst_channel", channel_json(best->witness[best->max_dim], best->max_dim));
        else
            cJSON_AddNullToObject(o, "worst_channel");
        /* One channel per dimension that carries T_i (null where idle). */
        cJSON *wc = cJSON_AddArrayToObject(o, "worst_channels");
        for (int i = 0; i < c.a.n; i++)
            cJSON_AddItemToArray(wc, best->per_dim[i] ? channel_json(best->witness[i], i) : cJSON_CreateNull());
        return kc_cli_print_json(o);
    }
    if (fmt == KC_FMT_CSV) {
        puts("dim,formula,exact,worst_from,worst_to");
        for (int i = 0; i < c.a.n; i++) {
            printf("%d,%llu,", i, (unsigned long long)f.per_dim[i]);
            if (exact)
                printf("%llu", (unsigned long long)x.per_dim[i]);
            if (best->per_dim[i])
                printf(",%llu,%llu\n", (unsigned long long)best->witness[i],
                       (unsigned long long)(best->witness[i] ^ (1ULL << i)));
            else
                puts(",,");
        }
        return KC_EXIT_OK;
    }
    printf("%s on the %ld-cube: %s, rank %d\n", c.name, n, kc_lcc_kind_name(c.kind), c.rank);
    if (c.a.n <= 16)
        printf("A = %s   b = %s\n", mbuf, vbuf);
    printf("%4s  %12s  %12s  %s\n", "dim", "T_i formula", exact ? "T_i exact" : "", "a worst channel");
    for (int i = 0; i < c.a.n; i++) {
        printf("%4d  %12llu  ", i, (unsigned long long)f.per_dim[i]);
        if (exact)
            printf("%12llu  ", (unsigned long long)x.per_dim[i]);
        else
            printf("%12s  ", "");
        if (best->per_dim[i])
            printf("%llu -> %llu\n", (unsigned long long)best->witness[i],
                   (unsigned long long)(best->witness[i] ^ (1ULL << i)));
        else
            puts("(no traffic)");
    }
    printf("contention %llu", (unsigned long long)best->max);
    if (best->max_dim >= 0)
        printf(" (dimension %d)", best->max_dim);
    if (!exact)
        puts(", by formula");
    else if (memcmp(f.per_dim, x.per_dim, sizeof f.per_dim) == 0)
        puts(", formula and exact count agree");
    else
        puts(", formula and exact count DIFFER (please report)");
    return KC_EXIT_OK;
}

const cli_command kc_command_analyze = {.name = "analyze", .summary = "contention of one communication under e-cube routing", .order = 10, .run_argv = run};
