/* kcube analyze / map on k-ary n-cubes and meshes (seed 002). */
#include "torus_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kcube/torus.h"
#include "kcube/torusmap.h"

#define AUTO_EXACT_BITS 24   /* exact counts by default up to N = 2^24 */
#define EXACT_MAX_BITS 30    /* and on request up to 2^30 */
#define NODEMAP_MAX_BITS 16  /* node arrays in JSON up to N = 65536 */
#define MAX_COMMS 64

int kc_torus_cli_wanted(int argc, char **argv)
{
    static const char *const torus_only[] = {"--mesh", "--tie", "--mapping", "--search", "--fallback", "--q"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--k") == 0) {
            if (i + 1 >= argc || strcmp(argv[i + 1], "2") != 0)
                return 1;
            i++;
            continue;
        }
        if (strncmp(a, "--k=", 4) == 0 && strcmp(a + 4, "2") != 0)
            return 1;
        for (size_t j = 0; j < sizeof torus_only / sizeof torus_only[0]; j++) {
            size_t len = strlen(torus_only[j]);
            if (strncmp(a, torus_only[j], len) == 0 && (a[len] == '\0' || a[len] == '='))
                return 1;
        }
    }
    return 0;
}

int kc_torus_cli_strip_k2(int argc, char **argv)
{
    int out = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--k") == 0 && i + 1 < argc && strcmp(argv[i + 1], "2") == 0) {
            i++;
            continue;
        }
        if (strcmp(argv[i], "--k=2") == 0)
            continue;
        argv[out++] = argv[i];
    }
    return out;
}

/* ---- shared option handling ---------------------------------------------- */

typedef struct topts {
    long k, n;
    int mesh;
    kc_tie tie;
    int exact; /* -1 automatic */
    uint64_t seed;
    kc_format fmt;
} topts;

/* Common options; returns 1 if argv[*i] was one, 0 if not, -1 on error
 * (printed). */
static int common_opt(int argc, char **argv, int *i, topts *o)
{
    const char *v;
    int r;
    kc_err err = {0};
    if ((r = kc_cli_opt(argc, argv, i, "--k", &v))) {
        if (r < 0)
            return -1;
        long k;
        if (kc_cli_int(v, 2, 1L << 20, "k", &k))
            return -1;
        if (kc_gf_polynomial((int)k) == 0) {
            kc_cli_error("k = %ld must be a power of two in 2..256 (GF(k) arithmetic)", k);
            return -1;
        }
        o->k = k;
        return 1;
    }
    if ((r = kc_cli_opt(argc, argv, i, "--n", &v))) {
        if (r < 0 || kc_cli_int(v, 1, KC_GFMAT_MAX, "n", &o->n))
            return -1;
        return 1;
    }
    if ((r = kc_cli_opt(argc, argv, i, "--tie", &v))) {
        if (r < 0)
            return -1;
        if (kc_tie_parse(v, &o->tie, &err)) {
            kc_cli_report(&err);
            return -1;
        }
        return 1;
    }
    if ((r = kc_cli_opt(argc, argv, i, "--seed", &v))) {
        long s;
        if (r < 0 || kc_cli_int(v, 0, 2147483647L, "seed", &s))
            return -1;
        o->seed = (uint64_t)s;
        return 1;
    }
    if (kc_cli_flag(argv[*i], "--mesh")) {
        o->mesh = 1;
        return 1;
    }
    if (kc_cli_flag(argv[*i], "--exact")) {
        o->exact = 1;
        return 1;
    }
    if (kc_cli_flag(argv[*i], "--no-exact")) {
        o->exact = 0;
        return 1;
    }
    return kc_cli_format_flag(argv[*i], &o->fmt);
}

static int check_sizes(topts *o, kc_torus *t)
{
    kc_err err = {0};
    if (o->n < 0)
        return kc_cli_error("needs --n N (the number of dimensions)");
    if (kc_torus_init(t, (int)o->k, (int)o->n, o->mesh, o->tie, &err))
        return kc_cli_report(&err);
    int bits = t->n * t->m;
    if (o->exact == 1 && bits > EXACT_MAX_BITS)
        return kc_cli_error("exact counting supports N <= 2^%d nodes, the %ld-ary %ld-cube has 2^%d", EXACT_MAX_BITS,
                            o->k, o->n, bits);
    if (o->exact < 0)
        o->exact = bits <= AUTO_EXACT_BITS;
    return KC_EXIT_OK;
}

static kc_status build_comm(const kc_comm_spec *spec, const kc_torus *t, int scatter, kc_tcomm *out, kc_err *err)
{
    if (spec->pattern) {
        kc_status s = kc_tcomm_named(out, t->k, t->n, spec->pattern, err);
        if (s)
            return s;
        if (scatter)
            return kc_fail(err, KC_EINVAL, "--scatter does not apply to pattern %s", spec->pattern);
        return KC_OK;
    }
    kc_gf f;
    kc_gfmat a;
    uint8_t b[KC_GFMAT_MAX] = {0};
    kc_status s = kc_gf_init(&f, t->k, err);
    if (!s)
        s = kc_gfmat_parse(&f, &a, spec->matrix, t->n, err);
    if (!s && spec->vector)
        s = kc_gfvec_parse(&f, b, spec->vector, t->n, err);
    if (!s)
        s = kc_tcomm_init(out, &f, &a, b, scatter, err);
    return s;
}

static cJSON *matrix_json(const kc_gfmat *a)
{
    cJSON *rows = cJSON_CreateArray();
    for (int i = 0; i < a->n; i++) {
        cJSON *row = cJSON_CreateArray();
        for (int j = 0; j < a->n; j++)
            cJSON_AddItemToArray(row, cJSON_CreateNumber(a->e[i][j]));
        cJSON_AddItemToArray(rows, row);
    }
    return rows;
}

static cJSON *vector_json(const uint8_t *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static cJSON *link_json(const kc_torus *t, kc_link l)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "dim", l.dim);
    cJSON_AddNumberToObject(c, "dir", l.dir);
    cJSON_AddItemToObject(c, "from", kc_cli_json_u64(l.from));
    cJSON_AddItemToObject(c, "to", kc_cli_json_u64(kc_torus_link_to(t, l)));
    return c;
}

static void add_topology(cJSON *o, const kc_torus *t)
{
    cJSON_AddNumberToObject(o, "k", t->k);
    cJSON_AddNumberToObject(o, "n", t->n);
    cJSON_AddItemToObject(o, "nodes", kc_cli_json_u64(t->nodes));
    cJSON_AddStringToObject(o, "topology", t->mesh ? "mesh" : "torus");
    cJSON_AddStringToObject(o, "tie", kc_tie_name(t->tie));
    cJSON_AddNumberToObject(o, "polynomial", kc_gf_polynomial(t->k));
}

static cJSON *cases_json(const kc_tcontention *f)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < f->n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(kc_tcase_name(f->tcase[i])));
    return a;
}

/* Where the paper's Theorem 1 gives only a bound (case 4b): 1..(k/2) k^e. */
static cJSON *bounded_json(const kc_tcontention *f)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < f->n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateBool(f->tcase[i] == KC_TCASE_4B || !f->exact_dim[i]));
    return a;
}

static cJSON *paper_range_json(const kc_torus *t, const kc_tcontention *f)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < f->n; i++) {
        if (f->tcase[i] != KC_TCASE_4B) {
            cJSON_AddItemToArray(a, cJSON_CreateNull());
            continue;
        }
        uint64_t ke = 1;
        for (int e = 0; e < f->exponent[i]; e++)
            ke *= (uint64_t)t->k;
        uint64_t r[2] = {ke, (uint64_t)t->k / 2 * ke};
        cJSON_AddItemToArray(a, kc_cli_json_u64_array(r, 2));
    }
    return a;
}

static void describe(const kc_torus *t, char *buf, size_t size)
{
    snprintf(buf, size, "%d-ary %d-%s (%llu nodes, %s ties)", t->k, t->n, t->mesh ? "mesh" : "cube",
             (unsigned long long)t->nodes, kc_tie_name(t->tie));
}

static void print_dims(const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        printf("%s%llu", i ? " " : "", (unsigned long long)v[i]);
}

/* ---- analyze ------------------------------------------------------------- */

static void analyze_help(FILE *out)
{
    fprintf(out,
            "usage: kcube analyze --k K --n N (--pattern NAME | --matrix M [--vector V]) [--scatter]\n"
            "                     [--mesh] [--tie plus|minus|split] [--seed S]\n"
            "                     [--exact | --no-exact] [--json | --csv]\n\n"
            "Link contention of a linear-constant communication y = Ax + b over GF(k) on\n"
            "the k-ary n-cube (torus; --mesh: no wraparound) under dimension-ordered\n"
            "routing (dimension 0 first, shortest way round each ring). T_i per dimension\n"
            "from seed 002 Theorem 1 (its cases 1-4; case 4b only bounds, and so do cases\n"
            "2-3 on meshes), and the exact count from routing every message (by default\n"
            "up to N = 2^%d nodes, with --exact up to 2^%d).\n\n"
            "  --k K         radix, a power of two 2..256 (GF(k) under the polynomials\n"
            "                7, 11, 19, 37, 67, 137, 285 for k = 4..256); k = 2 without\n"
            "                --mesh is the hypercube command\n"
            "  --n N         dimensions (N = k^n nodes, n*log2(k) <= 63)\n"
            "  --matrix M    rows separated by ';', row 0 (y_0) first; entries 0..k-1\n"
            "                separated by spaces or commas, column 0 (x_0) first,\n"
            "                e.g. \"1 0 1 0;0 1 0 1;0 0 1 0;0 0 0 1\"\n"
            "  --vector V    b, entries as in one row (default all 0)\n"
            "  --scatter     read a singular A as a scatter: y receives from Ay + b\n"
            "  --tie RULE    a move of exactly k/2 goes + (plus, default), - (minus), or +\n"
            "                from even and - from odd coordinates (split)\n"
            "  --seed S      random stream for the uniform pattern (default 1)\n\n"
            "patterns:\n",
            AUTO_EXACT_BITS, EXACT_MAX_BITS);
    const kc_tpattern_info *p;
    for (size_t i = 0; (p = kc_tcomm_pattern(i)); i++)
        fprintf(out, "  %-18s %s\n", p->name, p->summary);
}

int kc_torus_cli_analyze(int argc, char **argv)
{
    topts o = {2, -1, 0, KC_TIE_PLUS, -1, 1, KC_FMT_TEXT};
    kc_comm_list comms;
    kc_comm_list_init(&comms, "analyze", 1, 1);
    for (int i = 1; i < argc; i++) {
        int r;
        if (kc_cli_is_help(argv[i])) {
            analyze_help(stdout);
            return KC_EXIT_OK;
        }
        if ((r = common_opt(argc, argv, &i, &o))) {
            if (r < 0)
                return KC_EXIT_USAGE;
        } else if ((r = kc_cli_comm_opt(argc, argv, &i, &comms))) {
            if (r < 0)
                return KC_EXIT_USAGE;
        } else {
            return kc_cli_error("unknown option '%s' for analyze --k (see kcube analyze --k 4 --help)", argv[i]);
        }
    }
    kc_torus t;
    int rc = check_sizes(&o, &t);
    if (rc)
        return rc;
    if (!comms.count)
        return kc_cli_error("analyze needs --pattern NAME or --matrix M");
    kc_err err = {0};
    kc_tcomm c;
    if (build_comm(&comms.spec[0], &t, comms.scatter[0], &c, &err))
        return kc_cli_report(&err);
    int uniform = c.kind == KC_TCOMM_UNIFORM;
    if (uniform && !o.exact)
        return kc_cli_error("the uniform pattern has no formula: it needs the exact count (N <= 2^%d)",
                            EXACT_MAX_BITS);

    kc_tcontention f, x;
    kc_tcontention_formula(&t, &c, &f);
    if (o.exact) {
        kc_cli_progress prog;
        kc_cli_progress_init(&prog, "counting");
        kc_progress p = {t.nodes >= (1ULL << 20) ? kc_cli_progress_cb : NULL, &prog};
        kc_rng rng;
        kc_rng_seed(&rng, o.seed);
        kc_status s = kc_tcontention_exact(&t, &c, &rng, &x, &p, &err);
        kc_cli_progress_done(&prog);
        if (s)
            return kc_cli_report(&err);
    }
    const kc_tcontention *best = o.exact ? &x : &f;
    int n = t.n;
    if (o.fmt == KC_FMT_JSON) {
        cJSON *j = cJSON_CreateObject();
        add_topology(j, &t);
        cJSON_AddStringToObject(j, "pattern", c.name);
        cJSON_AddStringToObject(j, "kind", kc_tcomm_kind_name(c.kind));
        if (uniform) {
            cJSON_AddNullToObject(j, "rank");
            cJSON_AddNullToObject(j, "matrix");
            cJSON_AddNullToObject(j, "vector");
            cJSON_AddNumberToObject(j, "seed", (double)o.seed);
            cJSON_AddNullToObject(j, "per_dim");
            cJSON_AddNullToObject(j, "per_dim_lower");
            cJSON_AddNullToObject(j, "per_dim_case");
            cJSON_AddNullToObject(j, "per_dim_bound");
            cJSON_AddNullToObject(j, "per_dim_paper_range");
        } else {
            cJSON_AddNumberToObject(j, "rank", c.rank);
            cJSON_AddItemToObject(j, "matrix", matrix_json(&c.a));
            cJSON_AddItemToObject(j, "vector", vector_json(c.b, n));
            cJSON_AddItemToObject(j, "per_dim", kc_cli_json_u64_array(f.per_dim, n));
            cJSON_AddItemToObject(j, "per_dim_lower", kc_cli_json_u64_array(f.lower, n));
            cJSON_AddItemToObject(j, "per_dim_case", cases_json(&f));
            cJSON_AddItemToObject(j, "per_dim_bound", bounded_json(&f));
            cJSON_AddItemToObject(j, "per_dim_paper_range", paper_range_json(&t, &f));
        }
        if (o.exact)
            cJSON_AddItemToObject(j, "per_dim_exact", kc_cli_json_u64_array(x.per_dim, n));
        else
            cJSON_AddNullToObject(j, "per_dim_exact");
        cJSON_AddBoolToObject(j, "exact", o.exact);
        cJSON_AddItemToObject(j, "contention", kc_cli_json_u64(best->max));
        if (uniform)
            cJSON_AddNullToObject(j, "contention_formula");
        else
            cJSON_AddItemToObject(j, "contention_formula", kc_cli_json_u64(f.max));
        cJSON_AddBoolToObject(j, "formula_exact", !uniform && f.exact);
        if (o.exact && x.max_dim >= 0)
            cJSON_AddItemToObject(j, "worst_link", link_json(&t, x.witness[x.max_dim]));
        else
            cJSON_AddNullToObject(j, "worst_link");
        return kc_cli_print_json(j);
    }
    if (o.fmt == KC_FMT_CSV) {
        puts("dim,case,formula_lower,formula,exact,worst_from,worst_to,worst_dir");
        for (int i = 0; i < n; i++) {
            if (uniform)
                printf("%d,,,,", i);
            else
                printf("%d,%s,%llu,%llu,", i, kc_tcase_name(f.tcase[i]), (unsigned long long)f.lower[i],
                       (unsigned long long)f.per_dim[i]);
            if (o.exact)
                printf("%llu", (unsigned long long)x.per_dim[i]);
            if (o.exact && x.per_dim[i])
                printf(",%llu,%llu,%d\n", (unsigned long long)x.witness[i].from,
                       (unsigned long long)kc_torus_link_to(&t, x.witness[i]), x.witness[i].dir);
            else
                puts(",,,");
        }
        return KC_EXIT_OK;
    }
    char topo[128];
    describe(&t, topo, sizeof topo);
    if (uniform)
        printf("%s on the %s: uniform random destinations (seed %llu)\n", c.name, topo, (unsigned long long)o.seed);
    else
        printf("%s on the %s: %s, rank %d, GF(%d) mod %u\n", c.name, topo, kc_tcomm_kind_name(c.kind), c.rank, t.k,
               kc_gf_polynomial(t.k));
    if (!uniform && n <= 8) {
        char buf[KC_GFMAT_MAX * KC_GFMAT_MAX * 4 + 1];
        printf("A = %s", kc_gfmat_format(&c.a, buf, sizeof buf));
        printf("   b = %s\n", kc_gfvec_format(c.b, n, buf, sizeof buf));
    }
    printf("%4s  %5s  %22s  %12s  %s\n", "dim", "case", "T_i Theorem 1", o.exact ? "T_i exact" : "",
           o.exact ? "a worst link" : "");
    for (int i = 0; i < n; i++) {
        char th[64] = "-";
        if (!uniform) {
            if (!f.exact_dim[i])
                snprintf(th, sizeof th, "%llu..%llu", (unsigned long long)f.lower[i], (unsigned long long)f.per_dim[i]);
            else if (f.tcase[i] == KC_TCASE_4B) {
                uint64_t ke = 1;
                for (int e = 0; e < f.exponent[i]; e++)
                    ke *= (uint64_t)t.k;
                snprintf(th, sizeof th, "%llu (paper %llu..%llu)", (unsigned long long)f.per_dim[i],
                         (unsigned long long)ke, (unsigned long long)((uint64_t)t.k / 2 * ke));
            }
            else
                snprintf(th, sizeof th, "%llu", (unsigned long long)f.per_dim[i]);
        }
        printf("%4d  %5s  %22s  ", i, uniform ? "-" : kc_tcase_name(f.tcase[i]), th);
        if (o.exact) {
            printf("%12llu  ", (unsigned long long)x.per_dim[i]);
            if (x.per_dim[i])
                printf("%llu -> %llu (%c)\n", (unsigned long long)x.witness[i].from,
                       (unsigned long long)kc_torus_link_to(&t, x.witness[i]), x.witness[i].dir > 0 ? '+' : '-');
            else
                puts("(no traffic)");
        } else {
            putchar('\n');
        }
    }
    printf("contention %llu", (unsigned long long)best->max);
    if (best->max_dim >= 0)
        printf(" (dimension %d)", best->max_dim);
    if (!o.exact)
        puts(f.exact ? ", by Theorem 1 (extended to exact values)" : ", an upper bound by Theorem 1 (use --exact)");
    else if (uniform)
        puts(", exact count");
    else
        puts(f.exact ? ", Theorem 1 and exact count agree" : ", exact count (Theorem 1 bounds some dimensions)");
    return KC_EXIT_OK;
}

/* ---- map ----------------------------------------------------------------- */

static void map_help(FILE *out)
{
    fprintf(out,
            "usage: kcube map --k K --n N (--pattern NAME | --matrix M [--vector V] [--scatter])...\n"
            "                 [--mapping linear|reorder | --q Q] [--search [--evals E] [--seed S]]\n"
            "                 [--fallback] [--mesh] [--tie plus|minus|split]\n"
            "                 [--exact | --no-exact] [--json | --csv]\n\n"
            "A processor mapping for linear-constant communications on the k-ary n-cube.\n"
            "  linear   (default) x' = Qx over GF(k): seed 002 Theorem 3 for one\n"
            "           communication, Theorem 4 for up to k-1 at once; every T_i gets the\n"
            "           least possible power of k (Corollaries 1 and 4)\n"
            "  reorder  the best permutation of dimensions (exact dynamic programme,\n"
            "           n <= %d); neighbours stay neighbours\n"
            "  --search improve the mapping by exact evaluation (every Q when GF(k)^(n x n)\n"
            "           is small, else local search over elementary operators; with\n"
            "           --mapping reorder only dimension orders); never worse than the\n"
            "           starting mapping; --evals caps the evaluations\n"
            "  --q Q    use this nonsingular mapping matrix (same syntax as --matrix) instead\n"
            "           of computing one, e.g. the Q of seed 002 Example 5\n"
            "  --fallback  with more than k-1 communications, try the construction anyway\n"
            "           and fall back to the best reordering if it fails\n"
            "The objective is the largest contention of any communication, ties broken\n"
            "by the sum of all T_i. Uniform patterns do not shape the mapping; their\n"
            "contention before/after is shown for one seeded sample.\n\n"
            "Output: Q and Q^-1 (rows, row 0 first), each communication before and after\n"
            "(Q A Q^-1, Q b), T_i before/after, and the node arrays to_physical /\n"
            "to_virtual (JSON, N <= 65536).\n",
            KC_TMAP_REORDER_MAX_N);
}

typedef struct mapped {
    kc_tcomm before, after;
    kc_tcontention fb, fa; /* Theorem 1 */
    kc_tcontention xb, xa; /* exact */
} mapped;

/* Exact before/after for a uniform sample: the mapped messages are
 * (Q src, Q dst). */
static kc_status uniform_counts(const kc_torus *t, const kc_tmap *map, uint64_t seed, mapped *x, kc_err *err)
{
    uint64_t nodes = t->nodes;
    uint32_t *src = malloc(nodes * sizeof *src), *dst = malloc(nodes * sizeof *dst);
    kc_nodemap nm = {0};
    kc_status s = KC_OK;
    if (!src || !dst)
        s = kc_fail(err, KC_ENOMEM, "out of memory");
    kc_rng rng;
    kc_rng_seed(&rng, seed);
    if (!s)
        s = kc_tcomm_endpoints(&x->before, src, dst, &rng, err);
    if (!s)
        s = kc_tcontention_pairs(t, src, dst, nodes, &x->xb, err);
    if (!s)
        s = kc_tmap_nodemap(map, &nm, err);
    if (!s) {
        for (uint64_t j = 0; j < nodes; j++) {
            src[j] = nm.to_physical[src[j]];
            dst[j] = nm.to_physical[dst[j]];
        }
        s = kc_tcontention_pairs(t, src, dst, nodes, &x->xa, err);
    }
    kc_nodemap_free(&nm);
    free(src);
    free(dst);
    return s;
}

int kc_torus_cli_map(int argc, char **argv)
{
    topts o = {2, -1, 0, KC_TIE_PLUS, -1, 1, KC_FMT_TEXT};
    kc_comm_list comms;
    kc_comm_list_init(&comms, "map", 0, 1);
    int search = 0, fallback = 0;
    long evals = 0;
    const char *given_q = NULL;
    kc_tmap_kind want = KC_TMAP_LINEAR;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (kc_cli_is_help(argv[i])) {
            map_help(stdout);
            return KC_EXIT_OK;
        }
        if ((r = common_opt(argc, argv, &i, &o))) {
            if (r < 0)
                return KC_EXIT_USAGE;
        } else if ((r = kc_cli_comm_opt(argc, argv, &i, &comms))) {
            if (r < 0)
                return KC_EXIT_USAGE;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--mapping", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            if (strcmp(v, "linear") == 0)
                want = KC_TMAP_LINEAR;
            else if (strcmp(v, "reorder") == 0)
                want = KC_TMAP_REORDER;
            else
                return kc_cli_error("unknown mapping '%s' (use linear or reorder)", v);
        } else if ((r = kc_cli_opt(argc, argv, &i, "--q", &v))) {
            if (r < 0)
                return KC_EXIT_USAGE;
            given_q = v;
        } else if ((r = kc_cli_opt(argc, argv, &i, "--evals", &v))) {
            if (r < 0 || kc_cli_int(v, 1, 100000000L, "evals", &evals))
                return KC_EXIT_USAGE;
        } else if (kc_cli_flag(argv[i], "--search")) {
            search = 1;
        } else if (kc_cli_flag(argv[i], "--fallback")) {
            fallback = 1;
        } else {
            return kc_cli_error("unknown option '%s' for map --k (see kcube map --k 4 --help)", argv[i]);
        }
    }
    kc_torus t;
    int rc = check_sizes(&o, &t);
    if (rc)
        return rc;
    int m = comms.count;
    if (m == 0)
        return kc_cli_error("map needs at least one --pattern or --matrix");
    if (m > MAX_COMMS)
        return kc_cli_error("at most %d communications on a k-ary n-cube", MAX_COMMS);
    int bits = t.n * t.m;

    kc_err err = {0};
    mapped *mp = calloc((size_t)m, sizeof *mp);
    kc_tcomm *lin = calloc((size_t)m, sizeof *lin);
    if (!mp || !lin) {
        free(mp);
        free(lin);
        return kc_cli_error("out of memory");
    }
    int nlin = 0;
    rc = KC_EXIT_OK;
    for (int r = 0; r < m && rc == KC_EXIT_OK; r++) {
        if (build_comm(&comms.spec[r], &t, comms.scatter[r], &mp[r].before, &err))
            rc = kc_cli_report(&err);
        else if (mp[r].before.kind != KC_TCOMM_UNIFORM)
            lin[nlin++] = mp[r].before;
    }
    if (rc == KC_EXIT_OK && nlin == 0)
        rc = kc_cli_error("map needs at least one linear communication (uniform alone has nothing to map for)");
    if (rc == KC_EXIT_OK && o.exact && bits > EXACT_MAX_BITS)
        rc = kc_cli_error("exact evaluation supports N <= 2^%d nodes", EXACT_MAX_BITS);

    kc_tmap map;
    const char *method = NULL;
    uint64_t value = 0, total = 0;
    int reorder_exact = 1;
    if (rc == KC_EXIT_OK && given_q) {
        kc_gfmat q;
        kc_status s = kc_gfmat_parse(&lin[0].f, &q, given_q, t.n, &err);
        if (!s)
            s = kc_tmap_from_matrix(&map, &lin[0].f, &q, &err);
        if (s)
            rc = kc_cli_report(&err);
        want = rc ? want : map.kind;
        method = "given";
    } else if (rc == KC_EXIT_OK && want == KC_TMAP_LINEAR) {
        kc_status s = kc_tmap_linear(lin, nlin, fallback, &map, &err);
        if (s == KC_ERANGE && !fallback) {
            fprintf(stderr, "kcube: %s; add --fallback to try anyway (falling back to the best reordering), or use "
                            "--mapping reorder\n",
                    err.msg);
            rc = KC_EXIT_USAGE;
        } else if (s && fallback) {
            want = KC_TMAP_REORDER;
            method = "fallback-reorder";
        } else if (s) {
            rc = kc_cli_report(&err);
        } else {
            method = nlin > t.k - 1 ? "theorem4-beyond-limit" : nlin == 1 ? "theorem3" : "theorem4";
        }
    }
    if (rc == KC_EXIT_OK && want == KC_TMAP_REORDER) {
        kc_cli_progress prog;
        kc_cli_progress_init(&prog, "reordering");
        kc_progress p = {kc_cli_progress_cb, &prog};
        kc_status s = kc_tmap_reorder(&t, lin, nlin, &map, &value, &total, &reorder_exact, &p, &err);
        kc_cli_progress_done(&prog);
        if (s)
            rc = kc_cli_report(&err);
        if (!method)
            method = reorder_exact ? "dp" : "dp-bounds";
    }
    kc_tsearch_stats stats;
    memset(&stats, 0, sizeof stats);
    if (rc == KC_EXIT_OK && search) {
        kc_cli_progress prog;
        kc_cli_progress_init(&prog, "searching");
        kc_progress p = {kc_cli_progress_cb, &prog};
        kc_tsearch_opts so = {o.seed, (uint64_t)evals, want == KC_TMAP_REORDER && !given_q};
        kc_tmap start = map;
        kc_status s = kc_tmap_search(&t, lin, nlin, &start, &so, &map, &stats, &p, &err);
        kc_cli_progress_done(&prog);
        if (s)
            rc = kc_cli_report(&err);
    }
    /* Before / after for every communication. */
    for (int r = 0; r < m && rc == KC_EXIT_OK; r++) {
        mapped *x = &mp[r];
        kc_status s = kc_tmap_apply(&map, &x->before, &x->after, &err);
        if (s) {
            rc = kc_cli_report(&err);
            break;
        }
        kc_tcontention_formula(&t, &x->before, &x->fb);
        kc_tcontention_formula(&t, &x->after, &x->fa);
        if (!o.exact)
            continue;
        if (x->before.kind == KC_TCOMM_UNIFORM)
            s = uniform_counts(&t, &map, o.seed, x, &err);
        else if (!(s = kc_tcontention_exact(&t, &x->before, NULL, &x->xb, NULL, &err)))
            s = kc_tcontention_exact(&t, &x->after, NULL, &x->xa, NULL, &err);
        if (s)
            rc = kc_cli_report(&err);
    }
    if (rc == KC_EXIT_OK) {
        value = total = 0;
        for (int r = 0; r < m; r++) {
            if (mp[r].before.kind == KC_TCOMM_UNIFORM)
                continue;
            const kc_tcontention *a = o.exact ? &mp[r].xa : &mp[r].fa;
            if (a->max > value)
                value = a->max;
            for (int i = 0; i < t.n; i++)
                total += a->per_dim[i];
        }
    }
    if (rc != KC_EXIT_OK) {
        free(mp);
        free(lin);
        return rc;
    }

    int n = t.n;
    if (o.fmt == KC_FMT_JSON) {
        cJSON *j = cJSON_CreateObject();
        add_topology(j, &t);
        cJSON_AddStringToObject(j, "mapping", kc_tmap_kind_name(want));
        cJSON_AddBoolToObject(j, "permutation_matrix", map.kind == KC_TMAP_REORDER);
        cJSON_AddStringToObject(j, "method", method);
        cJSON_AddItemToObject(j, "matrix", matrix_json(&map.q));
        cJSON_AddItemToObject(j, "matrix_inverse", matrix_json(&map.qinv));
        if (map.kind == KC_TMAP_REORDER) {
            cJSON *ord = cJSON_CreateArray();
            for (int i = 0; i < n; i++)
                cJSON_AddItemToArray(ord, cJSON_CreateNumber(map.order[i]));
            cJSON_AddItemToObject(j, "order", ord);
        } else {
            cJSON_AddNullToObject(j, "order");
        }
        cJSON_AddBoolToObject(j, "exact", o.exact);
        cJSON_AddItemToObject(j, "value", kc_cli_json_u64(value));
        cJSON_AddItemToObject(j, "total", kc_cli_json_u64(total));
        if (search) {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddItemToObject(s, "start_value", kc_cli_json_u64(stats.start_value));
            cJSON_AddItemToObject(s, "start_total", kc_cli_json_u64(stats.start_total));
            cJSON_AddItemToObject(s, "value", kc_cli_json_u64(stats.value));
            cJSON_AddItemToObject(s, "total", kc_cli_json_u64(stats.total));
            cJSON_AddItemToObject(s, "evaluations", kc_cli_json_u64(stats.evals));
            cJSON_AddBoolToObject(s, "exhaustive", stats.exhaustive);
            cJSON_AddItemToObject(j, "search", s);
        } else {
            cJSON_AddNullToObject(j, "search");
        }
        cJSON *pats = cJSON_AddArrayToObject(j, "patterns");
        for (int r = 0; r < m; r++) {
            const mapped *x = &mp[r];
            int uni = x->before.kind == KC_TCOMM_UNIFORM;
            cJSON *p = cJSON_CreateObject();
            cJSON_AddStringToObject(p, "name", x->before.name);
            cJSON_AddStringToObject(p, "kind", kc_tcomm_kind_name(x->before.kind));
            if (uni) {
                cJSON_AddNumberToObject(p, "seed", (double)o.seed);
            } else {
                cJSON_AddNumberToObject(p, "rank", x->before.rank);
                cJSON_AddItemToObject(p, "matrix", matrix_json(&x->before.a));
                cJSON_AddItemToObject(p, "vector", vector_json(x->before.b, n));
                cJSON_AddItemToObject(p, "matrix_after", matrix_json(&x->after.a));
                cJSON_AddItemToObject(p, "vector_after", vector_json(x->after.b, n));
            }
            const kc_tcontention *b = o.exact ? &x->xb : &x->fb, *a = o.exact ? &x->xa : &x->fa;
            if (uni && !o.exact) { /* random traffic has no formula */
                cJSON_AddNullToObject(p, "contention_before");
                cJSON_AddNullToObject(p, "contention_after");
                cJSON_AddNullToObject(p, "per_dim_before");
                cJSON_AddNullToObject(p, "per_dim_after");
            } else {
                cJSON_AddItemToObject(p, "contention_before", kc_cli_json_u64(b->max));
                cJSON_AddItemToObject(p, "contention_after", kc_cli_json_u64(a->max));
                cJSON_AddItemToObject(p, "per_dim_before", kc_cli_json_u64_array(b->per_dim, n));
                cJSON_AddItemToObject(p, "per_dim_after", kc_cli_json_u64_array(a->per_dim, n));
            }
            if (uni) {
                cJSON_AddNullToObject(p, "per_dim_after_formula");
                cJSON_AddNullToObject(p, "per_dim_after_case");
            } else {
                cJSON_AddItemToObject(p, "per_dim_after_formula", kc_cli_json_u64_array(x->fa.per_dim, n));
                cJSON_AddItemToObject(p, "per_dim_after_case", cases_json(&x->fa));
            }
            cJSON_AddBoolToObject(p, "exact", o.exact);
            cJSON_AddItemToArray(pats, p);
        }
        if (bits <= NODEMAP_MAX_BITS) {
            kc_nodemap nm;
            if (kc_tmap_nodemap(&map, &nm, &err) == KC_OK) {
                cJSON *tp = cJSON_CreateArray(), *tv = cJSON_CreateArray();
                for (uint64_t v = 0; v < nm.count; v++) {
                    cJSON_AddItemToArray(tp, cJSON_CreateNumber(nm.to_physical[v]));
                    cJSON_AddItemToArray(tv, cJSON_CreateNumber(nm.to_virtual[v]));
                }
                cJSON_AddItemToObject(j, "to_physical", tp);
                cJSON_AddItemToObject(j, "to_virtual", tv);
                kc_nodemap_free(&nm);
            }
        }
        free(mp);
        free(lin);
        return kc_cli_print_json(j);
    }
    if (o.fmt == KC_FMT_CSV) {
        puts("communication,dim,before,after,after_formula,after_case");
        for (int r = 0; r < m; r++) {
            const mapped *x = &mp[r];
            const kc_tcontention *b = o.exact ? &x->xb : &x->fb, *a = o.exact ? &x->xa : &x->fa;
            if (x->before.kind == KC_TCOMM_UNIFORM && !o.exact)
                continue;
            for (int i = 0; i < n; i++)
                printf("%s,%d,%llu,%llu,%llu,%s\n", x->before.name, i, (unsigned long long)b->per_dim[i],
                       (unsigned long long)a->per_dim[i], (unsigned long long)x->fa.per_dim[i],
                       x->before.kind == KC_TCOMM_UNIFORM ? "" : kc_tcase_name(x->fa.tcase[i]));
        }
        free(mp);
        free(lin);
        return KC_EXIT_OK;
    }
    char topo[128], buf[KC_GFMAT_MAX * KC_GFMAT_MAX * 4 + 1];
    describe(&t, topo, sizeof topo);
    printf("%s mapping (%s) for %d communication%s on the %s, GF(%d) mod %u\n", kc_tmap_kind_name(want), method,
           m, m > 1 ? "s" : "", topo, t.k, kc_gf_polynomial(t.k));
    if (map.kind == KC_TMAP_REORDER) {
        printf("order (new dimension t is old dimension order[t]):");
        for (int i = 0; i < n; i++)
            printf(" %d", map.order[i]);
        putchar('\n');
    }
    printf("Q    = %s\n", kc_gfmat_format(&map.q, buf, sizeof buf));
    printf("Q^-1 = %s\n", kc_gfmat_format(&map.qinv, buf, sizeof buf));
    if (search)
        printf("search: %llu -> %llu (total %llu -> %llu) in %llu exact evaluations%s\n",
               (unsigned long long)stats.start_value, (unsigned long long)stats.value,
               (unsigned long long)stats.start_total, (unsigned long long)stats.total,
               (unsigned long long)stats.evals, stats.exhaustive ? ", every Q tried" : "");
    printf("%-20s %-12s %7s %7s  %s\n", "communication", "kind", "before", "after",
           o.exact ? "T_i after, exact (dim 0 first)" : "T_i after, Theorem 1 (dim 0 first)");
    for (int r = 0; r < m; r++) {
        const mapped *x = &mp[r];
        const kc_tcontention *b = o.exact ? &x->xb : &x->fb, *a = o.exact ? &x->xa : &x->fa;
        if (x->before.kind == KC_TCOMM_UNIFORM && !o.exact) {
            printf("%-20s %-12s %7s %7s  (needs the exact count)\n", x->before.name, "uniform", "-", "-");
            continue;
        }
        printf("%-20s %-12s %7llu %7llu  ", x->before.name, kc_tcomm_kind_name(x->before.kind),
               (unsigned long long)b->max, (unsigned long long)a->max);
        print_dims(a->per_dim, n);
        putchar('\n');
        if (x->before.kind != KC_TCOMM_UNIFORM && n <= 8)
            printf("  after: A' = %s  b' = %s\n", kc_gfmat_format(&x->after.a, buf, sizeof buf),
                   kc_gfvec_format(x->after.b, n, buf + sizeof buf / 2, sizeof buf / 2));
    }
    if (bits <= 4) {
        printf("to_physical:");
        for (uint64_t v = 0; v < t.nodes; v++)
            printf(" %llu", (unsigned long long)kc_tmap_to_physical(&map, v));
        printf("\nto_virtual: ");
        for (uint64_t p = 0; p < t.nodes; p++)
            printf(" %llu", (unsigned long long)kc_tmap_to_virtual(&map, p));
        putchar('\n');
    } else {
        puts("(node arrays to_physical / to_virtual: use --json)");
    }
    free(mp);
    free(lin);
    return KC_EXIT_OK;
}
