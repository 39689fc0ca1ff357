/* The strict, bounded reader (kcube/reader.h) and the two readers built on
 * it: mapping files (node lists) and pairs files:
 * every bad token names its line and column, long lines do not split, endless
 * inputs fail fast; random lists and pairs round-trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kcube/reader.h"
#include "kcube/rng.h"
#include "kcube/simtraffic.h"

/* Read a node list of `count` entries from memory; returns the status and
 * leaves the message in err. */
static kc_status nodelist(const char *text, size_t len, uint32_t count, uint32_t *out, kc_err *err)
{
    kc_reader *r;
    kc_status s = kc_reader_open_mem(&r, text, len, "test list", "mapping_file", NULL, err);
    if (s)
        return s;
    s = kc_read_nodelist(r, out, count, 0, err);
    kc_reader_close(r);
    return s;
}

/* The 16-entry list with `bad` in place of entry 4 (line 1, column 9). */
static void expect_bad(const char *bad, const char *msg)
{
    char text[256];
    snprintf(text, sizeof text, "0 1 2 3 %s 5 6 7 8 9 10 11 12 13 14 15\n", bad);
    uint32_t out[16];
    kc_err err = {0};
    assert_int_equal(nodelist(text, strlen(text), 16, out, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping_file");
    if (!strstr(err.msg, msg))
        fail_msg("for '%s': got '%s', expected '%s'", bad, err.msg, msg);
}

static void test_bad_tokens(void **state)
{
    (void)state;
    expect_bad("14.15", "test list, line 1, column 9: '14.15' is not a whole number");
    expect_bad("14x15", "column 9: '14x15' is not a whole number");
    expect_bad("14;15", "column 9: '14;15' is not a whole number");
    expect_bad("0-1", "column 9: '0-1' is not a whole number");
    expect_bad("15a", "column 9: '15a' is not a whole number");
    expect_bad("+4", "'+4' is not a whole number");
    expect_bad("-", "'-' is not a whole number");
    expect_bad("99999999999999999999999", "column 9: '99999999999999999999999' is too large");
    expect_bad("-7", "column 9: '-7' is not a node (0..15)");
    expect_bad("16", "'16' is not a node (0..15)");
    expect_bad("4294967296", "'4294967296' is not a node (0..15)");
    expect_bad("\xc3\xa9", "column 9: byte '\\xc3' is not printable ASCII");
    expect_bad("4\x01", "column 10: byte '\\x01' is not printable ASCII");
}

static void test_nul_and_binary(void **state)
{
    (void)state;
    static const char text[] = "0 1\n2 3\0 4\n";
    uint32_t out[5];
    kc_err err = {0};
    assert_int_equal(nodelist(text, sizeof text - 1, 5, out, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 2, column 4: NUL byte"));
    /* A NUL inside a comment is still a binary file. */
    static const char c[] = "0 1 # a\0b\n";
    assert_int_equal(nodelist(c, sizeof c - 1, 2, out, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 1, column 8: NUL byte"));
}

static void test_comments_and_separators(void **state)
{
    (void)state;
    const char *text = "# a permutation\r\n3,2 , 1\t# caf\xc3\xa9 \xff comments hold any bytes\n\n0#tail\n";
    uint32_t out[4];
    kc_err err = {0};
    assert_int_equal(nodelist(text, strlen(text), 4, out, &err), KC_OK);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 1);
    assert_int_equal(out[3], 0);
    /* Too few and too many entries. */
    assert_int_equal(nodelist("0 1 2", 5, 4, out, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "has 3 entries, expected 4"));
    assert_int_equal(nodelist("0 1 2 3\n0", 9, 4, out, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 2, column 1: '0' is one entry too many"));
    /* An empty file. */
    assert_int_equal(nodelist("", 0, 4, out, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "has 0 entries"));
}

static void test_distinct(void **state)
{
    (void)state;
    kc_reader *r;
    kc_err err = {0};
    uint32_t out[4];
    assert_int_equal(kc_reader_open_mem(&r, "0 1\n1 3", 7, "perm", "perm", NULL, &err), KC_OK);
    assert_int_equal(kc_read_nodelist(r, out, 4, 1, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 2, column 1: '1' appears twice"));
    kc_reader_close(r);
}

static void test_line_and_column_after_long_lines(void **state)
{
    (void)state;
    size_t n = 100000;
    char *text = malloc(n + 64);
    memset(text, ' ', n);
    text[0] = '#';
    strcpy(text + n, "\n1 2\n\n  3 x4\n");
    uint32_t out[8];
    kc_err err = {0};
    kc_reader_limits lim = {.max_line = 200000};
    kc_reader *r;
    assert_int_equal(kc_reader_open_mem(&r, text, strlen(text), "f", "mapping_file", &lim, &err), KC_OK);
    assert_int_equal(kc_read_nodelist(r, out, 8, 0, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 4, column 5: 'x4'"));
    kc_reader_close(r);
    /* Over the line limit: named, not split. */
    lim.max_line = 1000;
    assert_int_equal(kc_reader_open_mem(&r, text, strlen(text), "f", "mapping_file", &lim, &err), KC_OK);
    assert_int_equal(kc_read_nodelist(r, out, 8, 0, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 1 longer than 1000 bytes"));
    kc_reader_close(r);
    /* The whole-input limit. */
    kc_reader_limits small = {.max_bytes = 50};
    assert_int_equal(kc_reader_open_mem(&r, "1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1",
                                        51, "f", "x", &small, &err),
                     KC_OK);
    kc_token t;
    int have, tokens = 0;
    kc_status s;
    while (!(s = kc_reader_next(r, &t, &have, &err)) && have)
        tokens++;
    assert_int_equal(s, KC_EINVAL);
    assert_int_equal(tokens, 25); /* 25 lines are 50 bytes; the 26th passes the limit */
    assert_non_null(strstr(err.msg, "f: file larger than 50 bytes"));
    kc_reader_close(r);
    free(text);
}

/* A 511-character comment line followed by " 1 2" used to
 * become the pair (1, 2) with a 512-byte fgets. */
static void test_pairs_long_comment(void **state)
{
    (void)state;
    char text[700];
    memset(text, 'c', 511);
    text[0] = '#';
    strcpy(text + 511, " 1 2\n3 4\n");
    kc_reader *r;
    kc_err err = {0};
    assert_int_equal(kc_reader_open_mem(&r, text, strlen(text), "pairs", "pairs_file", NULL, &err), KC_OK);
    kc_token t[2];
    int have;
    assert_int_equal(kc_reader_record(r, t, 2, "source destination", &have, &err), KC_OK);
    assert_int_equal(have, 1);
    assert_int_equal(t[0].value, 3);
    assert_int_equal(t[1].value, 4);
    assert_int_equal(t[0].line, 2);
    assert_int_equal(kc_reader_record(r, t, 2, "source destination", &have, &err), KC_OK);
    assert_int_equal(have, 0);
    kc_reader_close(r);
}

static void test_records(void **state)
{
    (void)state;
    const char *text = "0 1\n\n# c\n2 3 4\n";
    kc_reader *r;
    kc_err err = {0};
    kc_token t[2];
    int have;
    assert_int_equal(kc_reader_open_mem(&r, text, strlen(text), "p", "pairs_file", NULL, &err), KC_OK);
    assert_int_equal(kc_reader_record(r, t, 2, "source destination", &have, &err), KC_OK);
    assert_int_equal(kc_reader_record(r, t, 2, "source destination", &have, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 4: expected 2 numbers (source destination), found more"));
    kc_reader_close(r);
    assert_int_equal(kc_reader_open_mem(&r, "5\n", 2, "p", "pairs_file", NULL, &err), KC_OK);
    assert_int_equal(kc_reader_record(r, t, 2, "source destination", &have, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 1: expected 2 numbers (source destination), found fewer"));
    kc_reader_close(r);
}

static char *write_temp(const char *text, size_t len)
{
    char *path = strdup("/tmp/kc_test_reader_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

/* Through the simulator's pairs reader (today's kc_simtraffic_read). */
static void test_simtraffic_pairs_file(void **state)
{
    (void)state;
    kc_simtraffic t;
    kc_err err = {0};
    char text[700];
    memset(text, 'c', 511);
    text[0] = '#';
    strcpy(text + 511, " 1 2\n0 9\n");
    char *path = write_temp(text, strlen(text));
    assert_int_equal(kc_simtraffic_read(&t, 8, path, NULL, &err), KC_EINVAL);
    assert_string_equal(err.param, "pairs_file");
    assert_non_null(strstr(err.msg, "line 2, column 3: '9' is not a node (0..7)"));
    unlink(path);
    free(path);
    path = write_temp("0 1\n2 14.15\n", 12);
    assert_int_equal(kc_simtraffic_read(&t, 16, path, NULL, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 2, column 3: '14.15' is not a whole number"));
    unlink(path);
    free(path);
}

static void test_directory_and_missing(void **state)
{
    (void)state;
    kc_reader *r;
    kc_err err = {0};
    assert_int_equal(kc_reader_open(&r, "/tmp", "mapping file", "mapping_file", NULL, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "mapping file '/tmp' is a directory, not a regular file"));
    assert_null(r);
    /* A missing file is the user's input at fault (exit 2), not an i/o failure. */
    assert_int_equal(kc_reader_open(&r, "/nonexistent/x", "mapping file", "mapping_file", NULL, &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping_file");
    /* The path is echoed escaped. */
    assert_int_equal(kc_reader_open(&r, "/nonexistent/a\nb", "mapping file", "mapping_file", NULL, &err), KC_EINVAL);
    /* Only the process's own limits are failures (exit 1); the rest is the input (exit 2). */
    assert_int_equal(kc_open_failure_status(EMFILE), KC_EIO);
    assert_int_equal(kc_open_failure_status(EIO), KC_EINVAL);
    assert_int_equal(kc_open_failure_status(EACCES), KC_EINVAL);
    assert_non_null(strstr(err.msg, "'/nonexistent/a\\nb'"));
}

/* /dev/zero must fail after reading about one line limit, not hang. */
static void test_dev_zero_bounded(void **state)
{
    (void)state;
    kc_reader *r;
    kc_err err = {0};
    uint32_t out[16];
    clock_t t0 = clock();
    assert_int_equal(kc_reader_open(&r, "/dev/zero", "pairs file", "pairs_file", NULL, &err), KC_OK);
    assert_int_equal(kc_read_nodelist(r, out, 16, 0, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 1 longer than 65536 bytes"));
    kc_reader_close(r);
    kc_token t[2];
    int have;
    assert_int_equal(kc_reader_open(&r, "/dev/zero", "pairs file", "pairs_file", NULL, &err), KC_OK);
    assert_int_equal(kc_reader_record(r, t, 2, "source destination", &have, &err), KC_EINVAL);
    kc_reader_close(r);
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
}

/* Seeded random lists written with random separators, comments and line
 * breaks read back as written, through memory and through a file. */
static void test_random_round_trips(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 8);
    static const char *const seps[] = {" ", ",", "\t", " , ", "\n", "\r\n", "  # note 1 2 3\n", ",\n"};
    for (int trial = 0; trial < 200; trial++) {
        uint32_t n = 1 + (uint32_t)kc_rng_below(&rng, 300);
        uint32_t *perm = malloc(n * sizeof *perm), *got = malloc(n * sizeof *got);
        for (uint32_t i = 0; i < n; i++)
            perm[i] = i;
        for (uint32_t i = n - 1; i > 0; i--) {
            uint32_t j = (uint32_t)kc_rng_below(&rng, i + 1), x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        size_t cap = 32 * (size_t)n + 4096, len = 0;
        char *text = malloc(cap);
        if (kc_rng_below(&rng, 2))
            len += (size_t)sprintf(text, "# header\n");
        for (uint32_t i = 0; i < n; i++)
            len += (size_t)sprintf(text + len, "%s%u", i ? seps[kc_rng_below(&rng, 8)] : "", perm[i]);
        if (kc_rng_below(&rng, 2))
            len += (size_t)sprintf(text + len, "\n");
        kc_err err = {0};
        kc_reader *r;
        assert_int_equal(kc_reader_open_mem(&r, text, len, "rand", "mapping_file", NULL, &err), KC_OK);
        kc_status s = kc_read_nodelist(r, got, n, 1, &err);
        if (s)
            fail_msg("trial %d: %s", trial, err.msg);
        kc_reader_close(r);
        assert_memory_equal(got, perm, n * sizeof *got);
        if (trial % 20 == 0) {
            char *path = write_temp(text, len);
            assert_int_equal(kc_reader_open(&r, path, "f", "mapping_file", NULL, &err), KC_OK);
            assert_int_equal(kc_read_nodelist(r, got, n, 1, &err), KC_OK);
            kc_reader_close(r);
            assert_memory_equal(got, perm, n * sizeof *got);
            unlink(path);
            free(path);
        }
        /* Random pairs, one per line, with random blank and comment lines. */
        len = 0;
        uint32_t pairs = 1 + (uint32_t)kc_rng_below(&rng, 50);
        uint64_t *want = malloc(2 * pairs * sizeof *want);
        for (uint32_t i = 0; i < pairs; i++) {
            want[2 * i] = kc_rng_next(&rng) >> (kc_rng_below(&rng, 64));
            want[2 * i + 1] = kc_rng_below(&rng, 1000);
            if (kc_rng_below(&rng, 4) == 0)
                len += (size_t)sprintf(text + len, "# 5 5\n\n");
            len += (size_t)sprintf(text + len, "%llu%s%llu\n", (unsigned long long)want[2 * i],
                                   seps[kc_rng_below(&rng, 4)], (unsigned long long)want[2 * i + 1]);
        }
        assert_int_equal(kc_reader_open_mem(&r, text, len, "pairs", "pairs_file", NULL, &err), KC_OK);
        kc_token t[2];
        int have;
        for (uint32_t i = 0; i < pairs; i++) {
            assert_int_equal(kc_reader_record(r, t, 2, "source destination", &have, &err), KC_OK);
            assert_int_equal(have, 1);
            assert_true(t[0].value == want[2 * i]);
            assert_true(t[1].value == want[2 * i + 1]);
        }
        assert_int_equal(kc_reader_record(r, t, 2, "source destination", &have, &err), KC_OK);
        assert_int_equal(have, 0);
        kc_reader_close(r);
        free(want);
        free(text);
        free(perm);
        free(got);
    }
}

/* A file much larger than the 64 KiB read buffer: lines cross its borders. */
static void test_large_file(void **state)
{
    (void)state;
    uint32_t n = 60000;
    size_t cap = 16 * (size_t)n, len = 0;
    char *text = malloc(cap);
    for (uint32_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%u%s", n - 1 - i, i % 7 == 6 ? "\n" : i % 5 ? ", " : " # c\n");
    char *path = write_temp(text, len);
    uint32_t *got = malloc(n * sizeof *got);
    kc_reader *r;
    kc_err err = {0};
    assert_int_equal(kc_reader_open(&r, path, "f", "mapping_file", NULL, &err), KC_OK);
    kc_status s = kc_read_nodelist(r, got, n, 1, &err);
    if (s)
        fail_msg("%s", err.msg);
    kc_reader_close(r);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(got[i], n - 1 - i);
    unlink(path);
    free(path);
    free(got);
    free(text);
}

/* Random bytes never crash the reader and every error names a line. */
static void test_random_garbage(void **state)
{
    (void)state;
    kc_rng rng;
    kc_rng_seed(&rng, 9);
    static const char alphabet[] = "0123456789 ,#\n\r\t-x.;\xc3\x00";
    for (int trial = 0; trial < 2000; trial++) {
        char text[64];
        size_t len = (size_t)kc_rng_below(&rng, sizeof text);
        for (size_t i = 0; i < len; i++)
            text[i] = alphabet[kc_rng_below(&rng, sizeof alphabet - 1)];
        uint32_t out[6];
        kc_err err = {0};
        kc_status s = nodelist(text, len, 6, out, &err);
        if (s) {
            assert_int_equal(s, KC_EINVAL);
            assert_non_null(strstr(err.msg, "test list"));
            assert_null(strchr(err.msg, '\n'));
        } else {
            for (int i = 0; i < 6; i++)
                assert_true(out[i] < 6);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_tokens),
        cmocka_unit_test(test_nul_and_binary),
        cmocka_unit_test(test_comments_and_separators),
        cmocka_unit_test(test_distinct),
        cmocka_unit_test(test_line_and_column_after_long_lines),
        cmocka_unit_test(test_pairs_long_comment),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_simtraffic_pairs_file),
        cmocka_unit_test(test_directory_and_missing),
        cmocka_unit_test(test_dev_zero_bounded),
        cmocka_unit_test(test_random_round_trips),
        cmocka_unit_test(test_large_file),
        cmocka_unit_test(test_random_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
