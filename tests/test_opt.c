/* The declarative option layer: parsing, defaults, errors, aliases, nested
 * subcommands and generated help. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static const cli_opt OPT_COUNT = {.name = "count", .type = CLI_INT, .meta = "C", .help = "a count", .def = "3",
                                  .lo = 1, .hi = 10};
static const cli_opt OPT_RATE = {.name = "rate", .type = CLI_REAL, .meta = "R", .help = "a rate", .rlo = 0,
                                 .rhi = 1};

static const cli_use demo_opts[] = {
    {&OPT_N, NULL, "8"}, {&OPT_K, NULL, NULL}, {&OPT_TOPOLOGY, NULL, NULL}, {&OPT_SHAPE, NULL, NULL},
    {&OPT_SEED, NULL, NULL}, {&OPT_PATTERN, NULL, NULL}, {&OPT_MATRIX, NULL, NULL}, {&OPT_VECTOR, NULL, NULL},
    {&OPT_SCATTER, NULL, NULL}, {&OPT_JSON, NULL, NULL}, {&OPT_CSV, NULL, NULL}, {&OPT_SWEEP, NULL, NULL},
    {&OPT_MAX_MEMORY, NULL, NULL}, {&OPT_KIND, NULL, NULL}, {&OPT_COUNT, NULL, NULL}, {&OPT_RATE, NULL, NULL},
    {NULL, NULL, NULL},
};
static const cli_alias demo_aliases[] = {
    {"mesh", &OPT_TOPOLOGY, "mesh", &OPT_SHAPE, "old spelling of --topology mesh [--shape AxB]"},
    {"family", &OPT_KIND, NULL, NULL, "old spelling of --kind"},
    {NULL, NULL, NULL, NULL, NULL},
};
static const cli_command demo_cmd = {.name = "demo", .summary = "test command", .opts = demo_opts,
                                     .aliases = demo_aliases, .max_pos = 1, .positional = "FILE"};

/* The same options, --topology narrowed and --mapping shown narrower. */
static const cli_use narrow_opts[] = {{&OPT_TOPOLOGY, NULL, NULL}, {&OPT_SHAPE, NULL, NULL},
                                      {&OPT_MAPPING, NULL, NULL}, {NULL, NULL, NULL}};
static const cli_narrow narrow_list[] = {{&OPT_TOPOLOGY, "hypercube|mesh", NULL}, {&OPT_MAPPING, NULL, "none|FILE"},
                                         {NULL, NULL, NULL}};
static const cli_alias narrow_aliases[] = {{"mesh", &OPT_TOPOLOGY, "mesh", &OPT_SHAPE, "old spelling"},
                                           {NULL, NULL, NULL, NULL, NULL}};
static const cli_command narrow_cmd = {.name = "narrow", .summary = "narrowed", .opts = narrow_opts,
                                       .aliases = narrow_aliases, .narrow = narrow_list};

static const cli_use leaf_opts[] = {{&OPT_N, NULL, NULL}, {NULL, NULL, NULL}};
static const cli_command leaf_cmd = {.name = "load", .summary = "a nested subcommand", .opts = leaf_opts};
static const cli_command *const group_subs[] = {&leaf_cmd, NULL};
static const cli_command group_cmd = {.name = "group", .summary = "a group", .subs = group_subs};

/* Parse a space-separated command line; stderr is silenced. */
static int parse_line(const cli_command *cmd, const char *line, cli_args *a)
{
    static char buf[1024];
    static char *argv[64];
    snprintf(buf, sizeof buf, "%s", line);
    int argc = 0;
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " "))
        argv[argc++] = t;
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    FILE *help = fopen("/dev/null", "w");
    int r = cli_parse(cmd, argc, argv, a, help);
    fclose(help);
    fclose(stderr);
    stderr = saved;
    return r;
}

static void test_values_and_defaults(void **state)
{
    cli_args a;
    assert_int_equal(parse_line(&demo_cmd, "demo --k=4 --seed 18446744073709551615 --rate 0.5 --json", &a), 0);
    assert_int_equal(cli_int(&a, &OPT_N, -1), 8); /* this command's default */
    assert_int_equal(cli_int(&a, &OPT_K, -1), 4);
    assert_true(cli_u64(&a, &OPT_SEED, 0) == UINT64_MAX);
    assert_true(cli_real(&a, &OPT_RATE, 0) == 0.5);
    assert_int_equal(cli_int(&a, &OPT_COUNT, -1), 3);
    assert_true(cli_flag(&a, &OPT_JSON));
    assert_false(cli_flag(&a, &OPT_CSV));
    assert_false(cli_given(&a, &OPT_N));
    assert_true(cli_given(&a, &OPT_K));
    cli_fmt fmt;
    assert_int_equal(cli_format(&a, &fmt), 0);
    assert_int_equal(fmt, CLI_FMT_JSON);
    cli_args_free(&a);
}

static void test_bad_values(void **state)
{
    cli_args a;
    const char *bad[] = {
        "demo --k 1",          "demo --k 257",         "demo --k 4x",        "demo --seed -7",
        "demo --seed 18446744073709551616", "demo --rate nan", "demo --rate inf", "demo --rate 2",
        "demo --n",            "demo --kind best",     "demo --json=1",      "demo --nope",
        "demo --plot x.png",   "demo -x",              "demo a b",           "demo --k 2 --k 4",
        "demo --sweep 0.1:1e300:1e-300", "demo --sweep 1e-9:1e6:1e-9", "demo --sweep 0.1:0.3",
        "demo --sweep 0.3:0.1:0.1", "demo --sweep 0.1:0.3:0", "demo --max-memory 12Q",
        "demo --max-memory 99999999999T", "demo --count 99999999999999999999999",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int r = parse_line(&demo_cmd, bad[i], &a);
        if (r != 2)
            fail_msg("'%s' gave %d", bad[i], r);
    }
}

static void test_ranges_and_sizes(void **state)
{
    cli_args a;
    assert_int_equal(parse_line(&demo_cmd, "demo --sweep 0.02:1:0.02 --max-memory 64M", &a), 0);
    const cli_value *v = cli_get(&a, &OPT_SWEEP);
    assert_non_null(v);
    assert_int_equal(v->v.range.count, 50);
    assert_true(cli_u64(&a, &OPT_MAX_MEMORY, 0) == 64ull << 20);
    cli_args_free(&a);
}

static void test_order_and_aliases(void **state)
{
    cli_args a;
    assert_int_equal(parse_line(&demo_cmd, "demo --matrix 01;10 --vector 11 --pattern transpose --mesh 16x8 "
                                           "--family linear FILE",
                                &a),
                     0);
    cli_comms l;
    cli_comms_init(&l, "demo", 0, 1);
    assert_int_equal(cli_comm_list(&a, &l), 0);
    assert_int_equal(l.count, 2);
    assert_string_equal(l.spec[0].matrix, "01;10");
    assert_string_equal(l.spec[0].vector, "11");
    assert_string_equal(l.spec[1].pattern, "transpose");
    assert_string_equal(cli_text(&a, &OPT_SHAPE, NULL), "16x8");
    assert_int_equal(cli_choice(&a, &OPT_TOPOLOGY, -1), 2);
    assert_int_equal(cli_choice(&a, &OPT_KIND, -1), 2);
    assert_int_equal((int)a.npos, 1);
    assert_string_equal(a.pos[0], "FILE");
    cli_args_free(&a);
    /* --mesh as a flag: the next option is not a shape. */
    assert_int_equal(parse_line(&demo_cmd, "demo --mesh --k 4", &a), 0);
    assert_int_equal(cli_choice(&a, &OPT_TOPOLOGY, -1), 2);
    assert_false(cli_given(&a, &OPT_SHAPE));
    cli_args_free(&a);
    /* A vector with no matrix before it. */
    assert_int_equal(parse_line(&demo_cmd, "demo --vector 11", &a), 0);
    cli_comms_init(&l, "demo", 0, 1);
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    assert_int_equal(cli_comm_list(&a, &l), 2);
    fclose(stderr);
    stderr = saved;
    cli_args_free(&a);
}

static void test_subcommands_and_help(void **state)
{
    cli_args a;
    assert_int_equal(parse_line(&group_cmd, "group load --n 3", &a), 0);
    assert_ptr_equal(a.cmd, &leaf_cmd);
    assert_string_equal(a.path, "group load");
    assert_int_equal(cli_int(&a, &OPT_N, -1), 3);
    cli_args_free(&a);
    assert_int_equal(parse_line(&group_cmd, "group", &a), 2);
    assert_int_equal(parse_line(&group_cmd, "group unload", &a), 2);
    assert_int_equal(parse_line(&group_cmd, "group load --help", &a), 1);
    assert_int_equal(parse_line(&demo_cmd, "demo --k 4 --help", &a), 1);

    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cli_help(&demo_cmd, "demo", mem);
    fclose(mem);
    assert_non_null(strstr(text, "--kind auto|reorder|linear"));
    assert_non_null(strstr(text, "(default 8)"));
    assert_non_null(strstr(text, "--mesh"));
    free(text);
}

static void test_narrow_and_version(void **state)
{
    cli_args a;
    assert_int_equal(parse_line(&narrow_cmd, "narrow --topology mesh --shape 4x4", &a), 0);
    cli_args_free(&a);
    assert_int_equal(parse_line(&narrow_cmd, "narrow --mesh 4x4", &a), 0);
    cli_args_free(&a);
    assert_int_equal(parse_line(&narrow_cmd, "narrow --topology torus", &a), 2);
    assert_int_equal(parse_line(&narrow_cmd, "narrow --topology nope", &a), 2);
    assert_int_equal(parse_line(&narrow_cmd, "narrow --version", &a), 1);
    assert_int_equal(parse_line(&group_cmd, "group --version", &a), 1);
    assert_int_equal(parse_line(&group_cmd, "group load --n 3 --version", &a), 1);
    assert_true(cli_allows(&narrow_cmd, &OPT_TOPOLOGY, "hypercube"));
    assert_false(cli_allows(&narrow_cmd, &OPT_TOPOLOGY, "torus"));
    assert_false(cli_allows(&narrow_cmd, &OPT_TOPOLOGY, "hyper"));
    assert_true(cli_allows(&demo_cmd, &OPT_TOPOLOGY, "torus"));

    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cli_help(&narrow_cmd, "narrow", mem);
    fclose(mem);
    assert_non_null(strstr(text, "--topology hypercube|mesh "));
    assert_null(strstr(text, " torus        ")); /* no entry line for a refused choice */
    assert_non_null(strstr(text, "--mapping none|FILE "));
    assert_null(strstr(text, "optimal"));
    assert_non_null(strstr(text, "--version"));
    free(text);
}

/* Seeded random argument vectors never crash the parser and either parse
 * or fail with status 2. */
static void test_random_lines(void **state)
{
    const char *words[] = {"--n", "--k", "4", "-1", "--seed", "x", "--mesh", "8x8", "--pattern", "--json",
                           "--sweep", "0:1:0.5", "=", "--k=", "--", "--kind", "linear", "--vector", "101"};
    uint64_t s = 12345;
    for (int t = 0; t < 2000; t++) {
        char line[512] = "demo";
        for (int w = 0; w < 6; w++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            strcat(line, " ");
            strcat(line, words[(s >> 33) % (sizeof words / sizeof words[0])]);
        }
        cli_args a;
        int r = parse_line(&demo_cmd, line, &a);
        assert_true(r == 0 || r == 2);
        if (r == 0)
            cli_args_free(&a);
    }
}

/* A command that cannot run without --rate, and an option whose default is
 * rendered by a function (the code applies it when the option is absent). */
static void shown_seven(char *buf, size_t size) { snprintf(buf, size, "%d", 7); }
static const cli_opt OPT_SHOWN = {.name = "shown", .type = CLI_INT, .meta = "S", .help = "a shown default",
                                  .lo = 1, .hi = 10, .shown_def = shown_seven};
static const cli_use req_opts[] = {{&OPT_RATE, NULL, CLI_REQUIRED}, {&OPT_SHOWN, NULL, NULL}, {NULL, NULL, NULL}};
static const cli_command req_cmd = {.name = "req", .summary = "a required option", .opts = req_opts};

static void test_old_spellings_required_shown(void **state)
{
    (void)state;
    cli_args a;
    /* an old spelling of a renamed option: kept as the option, with the spelling used */
    assert_int_equal(parse_line(&demo_cmd, "demo --family linear", &a), 0);
    const cli_value *v = cli_get(&a, &OPT_KIND);
    assert_non_null(v);
    assert_ptr_equal(v->opt, &OPT_KIND);
    assert_string_equal(v->spelled, "family");
    cli_args_free(&a);
    assert_int_equal(parse_line(&demo_cmd, "demo --kind linear", &a), 0);
    assert_null(cli_get(&a, &OPT_KIND)->spelled);
    cli_args_free(&a);
    assert_int_equal(parse_line(&demo_cmd, "demo --family nosuch", &a), 2);
    assert_int_equal(parse_line(&demo_cmd, "demo --family linear --kind reorder", &a), 2);
    /* required: refused without it, no default added, help says so */
    assert_int_equal(parse_line(&req_cmd, "req", &a), 2);
    assert_int_equal(parse_line(&req_cmd, "req --rate 0.5", &a), 0);
    assert_false(cli_given(&a, &OPT_SHOWN));
    assert_null(cli_get(&a, &OPT_SHOWN)); /* a shown default is not parsed */
    cli_args_free(&a);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    cli_help(&req_cmd, "req", mem);
    fclose(mem);
    assert_non_null(strstr(text, "a rate (required)"));
    assert_non_null(strstr(text, "a shown default (default 7)"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_and_defaults), cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_ranges_and_sizes),    cmocka_unit_test(test_order_and_aliases),
        cmocka_unit_test(test_subcommands_and_help), cmocka_unit_test(test_random_lines),
        cmocka_unit_test(test_narrow_and_version),   cmocka_unit_test(test_old_spellings_required_shown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
