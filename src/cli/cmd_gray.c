/* kcube gray: the binary-reflected Gray code table (seed 001, Figure 1) and
 * the four code conversions as data motion on a cube (Figure 2). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "options.h"
#include "kcube/gray.h"

#define TABLE_MAX_N 16     /* the whole table up to here */
#define WINDOW_MAX 65536   /* rows in one --first/--count window */
#define CONVERT_MAX_N 8    /* the step table of a conversion */

/* Once spelled --from, now a trace's time window (kept as an old spelling). */
static const cli_opt OPT_FIRST = {.name = "first", .type = CLI_U64, .meta = "I",
                                 .help = "first integer of a window of the table (any n up to 64)"};
static const cli_opt OPT_COUNT = {.name = "count", .type = CLI_INT, .meta = "C", .lo = 1, .hi = WINDOW_MAX,
                                  .def = "16", .help = "rows in the window"};
static const cli_opt OPT_CONVERT = {.name = "convert", .type = CLI_CHOICE, .choices = &kc_gray_conv_names,
                                    .help = "run a conversion on the n-cube and print each step (n <= 8)"};

static const cli_use gray_opts[] = {
    {&OPT_N, "code width in bits, 1..64", NULL},
    {&OPT_FIRST, NULL, NULL},
    {&OPT_COUNT, NULL, NULL},
    {&OPT_CONVERT, NULL, NULL},
    {&OPT_JSON, NULL, NULL},
    {&OPT_CSV, NULL, NULL},
    {NULL, NULL, NULL},
};

static const cli_alias gray_aliases[] = {
    {"from", &OPT_FIRST, NULL, NULL, "old spelling of --first"},
    {NULL, NULL, NULL, NULL, NULL},
};

typedef struct gray_job {
    int n, conv;
    uint64_t from, count;
    cli_fmt fmt;
} gray_job;

/* ---- resolve ------------------------------------------------------------ */

static int resolve(const cli_args *a, gray_job *j)
{
    int r = cli_format(a, &j->fmt);
    if (r)
        return r;
    j->n = (int)cli_int(a, &OPT_N, 0);
    if (!j->n)
        return cli_error("gray needs --n N");
    j->conv = cli_choice(a, &OPT_CONVERT, -1);
    uint64_t size = kc_gray_mask(j->n);
    if (j->conv >= 0) {
        if (j->n > CONVERT_MAX_N)
            return cli_error("--convert prints every processor: it supports n <= %d, got %d", CONVERT_MAX_N, j->n);
        if (cli_given(a, &OPT_FIRST) || cli_given(a, &OPT_COUNT))
            return cli_error("--first/--count select rows of the table, not of --convert");
        return 0;
    }
    int window = cli_given(a, &OPT_FIRST) || cli_given(a, &OPT_COUNT);
    if (!window && j->n > TABLE_MAX_N)
        return cli_error("the whole table is printed for n <= %d; give --first I --count C for n = %d", TABLE_MAX_N,
                            j->n);
    j->from = window ? cli_u64(a, &OPT_FIRST, 0) : 0;
    j->count = window ? (uint64_t)cli_int(a, &OPT_COUNT, 0) : size + 1;
    if (j->from > size)
        return cli_error("--first %llu is not an %d-bit integer", (unsigned long long)j->from, j->n);
    if (j->count - 1 > size - j->from)
        j->count = size - j->from + 1; /* the window stops at 2^n - 1 */
    return 0;
}

/* ---- render ------------------------------------------------------------- */

static void bits(char *buf, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = (char)('0' + ((v >> (n - 1 - i)) & 1));
    buf[n] = '\0';
}

static int render_table(const gray_job *j)
{
    char b[65], g[65];
    cJSON *rows = j->fmt == CLI_FMT_JSON ? cJSON_CreateArray() : NULL;
    if (j->fmt == CLI_FMT_CSV)
        puts("integer,binary,gray");
    else if (j->fmt == CLI_FMT_TEXT)
        printf("%-20s  %-*s  %s\n", "integer", j->n, "binary", "gray");
    for (uint64_t k = 0; k < j->count && !ferror(stdout); k++) { /* stop once a reader has gone */
        uint64_t i = j->from + k;
        bits(b, i, j->n);
        bits(g, kc_gray(i), j->n);
        if (rows) {
            cJSON *r = cJSON_CreateObject();
            cJSON_AddItemToObject(r, "integer", cli_json_u64(i));
            cJSON_AddStringToObject(r, "binary", b);
            cJSON_AddStringToObject(r, "gray", g);
            cJSON_AddItemToArray(rows, r);
        } else if (j->fmt == CLI_FMT_CSV) {
            printf("%llu,%s,%s\n", (unsigned long long)i, b, g);
        } else {
            printf("%-20llu  %s  %s\n", (unsigned long long)i, b, g);
        }
    }
    if (!rows)
        return CLI_EXIT_OK;
    cJSON *o = cJSON_CreateObject();
    cli_json_add_int(o, "n", j->n);
    cJSON_AddItemToObject(o, "rows", rows);
    return cli_print_json(o);
}

typedef struct conv_out {
    const gray_job *j;
    cJSON *steps;
} conv_out;

static void print_row(const conv_out *c, const char *label, int dim, const uint64_t *data)
{
    uint64_t N = 1ULL << c->j->n;
    if (c->steps) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "step", label);
        if (dim >= 0)
            cli_json_add_int(s, "dim", dim);
        cJSON_AddItemToObject(s, "held", cli_json_u64_array(data, (int)N));
        cJSON_AddItemToArray(c->steps, s);
        return;
    }
    printf(c->j->fmt == CLI_FMT_CSV ? "%s" : "%-8s", label);
    for (uint64_t x = 0; x < N; x++) { /* columns in Gray order of the processor address, as in Figure 2 */
        unsigned long long v = data[kc_gray(x)];
        if (c->j->fmt == CLI_FMT_CSV)
            printf(",%llu", v);
        else
            printf(" %*llu", c->j->n, v);
    }
    putchar('\n');
}

static void on_step(void *ctx, int step, int dim, const uint64_t *data)
{
    char label[32];
    snprintf(label, sizeof label, "step %d", step);
    print_row(ctx, label, dim, data);
}

static int run_convert(const gray_job *j)
{
    uint64_t N = 1ULL << j->n;
    uint64_t *data = malloc(N * sizeof *data);
    if (!data)
        return cli_error("out of memory");
    int to_bin = kc_gray_conv_to_binary((kc_gray_conv)j->conv);
    for (uint64_t i = 0; i < N; i++)
        data[to_bin ? kc_gray(i) : i] = i;
    conv_out c = {.j = j, .steps = j->fmt == CLI_FMT_JSON ? cJSON_CreateArray() : NULL};
    char b[65];
    if (j->fmt != CLI_FMT_JSON) {
        printf(j->fmt == CLI_FMT_CSV ? "paddr" : "%-8s", "paddr");
        for (uint64_t x = 0; x < N; x++) {
            bits(b, kc_gray(x), j->n);
            printf(j->fmt == CLI_FMT_CSV ? ",%s" : " %s", b);
        }
        putchar('\n');
    }
    print_row(&c, "initial", -1, data);
    kc_stepnet_topo t;
    kc_stepnet net;
    kc_err err = {0};
    kc_status s = kc_stepnet_topo_cube(&t, j->n, &err);
    if (!s)
        s = kc_stepnet_init(&net, &t, KC_STEPNET_ALL_PORT, &err);
    if (!s) {
        s = kc_gray_convert(j->n, (kc_gray_conv)j->conv, data, &net, on_step, &c, &err);
        kc_stepnet_free(&net);
    }
    free(data);
    if (s) {
        cJSON_Delete(c.steps);
        return cli_report(NULL, &err);
    }
    if (!c.steps) {
        if (j->fmt == CLI_FMT_TEXT)
            printf("%d steps, %llu element transfers in sequence, no link used twice in a step: %s\n", j->n - 1,
                   (unsigned long long)net.st.transfers, net.st.conflicts ? "NO" : "yes");
        return CLI_EXIT_OK;
    }
    cJSON *o = cJSON_CreateObject();
    cli_json_add_int(o, "n", j->n);
    cJSON_AddStringToObject(o, "conversion", kc_names_name(&kc_gray_conv_names, j->conv));
    cJSON_AddStringToObject(o, "columns", "processors in Gray order: column c is processor G(c)");
    cJSON_AddItemToObject(o, "steps", c.steps);
    cJSON_AddItemToObject(o, "transfers", cli_json_u64(net.st.transfers));
    cJSON_AddItemToObject(o, "conflicts", cli_json_u64(net.st.conflicts));
    return cli_print_json(o);
}

/* ---- the command -------------------------------------------------------- */

static int check(const cli_args *a)
{
    gray_job j;
    return resolve(a, &j);
}

static int run(const cli_args *a)
{
    gray_job j;
    int r = resolve(a, &j);
    if (r)
        return r;
    return j.conv >= 0 ? run_convert(&j) : render_table(&j);
}

const cli_command kc_command_gray = {
    .name = "gray",
    .summary = "binary-reflected Gray code table and code conversions on a cube (seed 001)",
    .order = 60,
    .description = "Prints integer, binary and Gray code G_n(i) = i xor (i >> 1) for every n-bit i (n <= 16, as in\n"
                   "Figure 1) or a window of it (--first/--count, n <= 64). With --convert the conversion runs as\n"
                   "data motion on the n-cube: each row shows which element every processor holds (columns are\n"
                   "processors G(0), G(1), ..., as in Figure 2).",
    .opts = gray_opts,
    .aliases = gray_aliases,
    .check = check,
    .run = run,
    .epilog = "examples:\n"
              "  kcube gray --n 4\n"
              "  kcube gray --n 4 --convert gray-to-binary-msb\n"
              "  kcube gray --n 64 --first 18446744073709551600 --count 16",
};
