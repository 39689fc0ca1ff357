/* The traffic formats beside the plain list (kcube/traffic.h): seeded
 * random message lists written as a list (blanks, commas, CRLF, comments),
 * as CSV with a header (columns in any order and case, synonyms, quoted
 * fields) and as P x P matrices (blanks or commas) must read back as the
 * same traffic, by auto detection and by name; the ranks each input names;
 * the square list a small matrix would be too (read as a list, flagged);
 * the reader's quoted fields and strict commas; and every refusal with its
 * line and column (bad headers, empty fields, short rows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcube/reader.h"
#include "kcube/rng.h"
#include "kcube/traffic.h"

#define MAX_P 20
#define TEXT_MAX (1 << 16)

/* A growing text. */
typedef struct text {
    char buf[TEXT_MAX];
    size_t len;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && t->len + (size_t)n < sizeof t->buf);
    t->len += (size_t)n;
}

/* Read `s` in `format` over `ranks` ranks into *t. */
static kc_status read_as(const char *s, kc_traffic_format format, uint64_t ranks, kc_traffic *t,
                         kc_traffic_source *src, kc_err *err)
{
    kc_reader *r;
    assert_int_equal(kc_traffic_init(t, ranks, err), KC_OK);
    assert_int_equal(kc_reader_open_mem(&r, s, strlen(s), "test input", "traffic_file", NULL, err), KC_OK);
    kc_status st = kc_traffic_read_as(t, r, format, src, err);
    kc_reader_close(r);
    return st;
}

static void expect_fail(const char *s, kc_traffic_format format, const char *msg)
{
    kc_traffic t;
    kc_err err = {0};
    assert_int_equal(read_as(s, format, 1u << 16, &t, NULL, &err), KC_EINVAL);
    if (!strstr(err.msg, msg))
        fail_msg("for '%s': got '%s', expected '%s'", s, err.msg, msg);
    kc_traffic_free(&t);
}

/* Bytes per (src, dst), zero-byte messages left out: what a matrix holds. */
static void sums(const kc_traffic *t, uint64_t *sum)
{
    memset(sum, 0, MAX_P * MAX_P * sizeof *sum);
    for (size_t m = 0; m < t->count; m++)
        sum[t->src[m] * MAX_P + t->dst[m]] += t->bytes[m];
}

typedef struct msgs {
    uint32_t p, count;
    uint32_t src[64], dst[64];
    uint64_t bytes[64];
} msgs;

/* 4..64 messages over P = 4..MAX_P ranks, one of them from rank P - 1 with
 * bytes, some of 0 bytes and of 1 (written without the byte count). */
static void random_msgs(kc_rng *g, msgs *m)
{
    m->p = 4 + (uint32_t)kc_rng_below(g, MAX_P - 3);
    m->count = 4 + (uint32_t)kc_rng_below(g, 61);
    for (uint32_t i = 0; i < m->count; i++) {
        m->src[i] = (uint32_t)kc_rng_below(g, m->p);
        m->dst[i] = (uint32_t)kc_rng_below(g, m->p);
        uint64_t kind = kc_rng_below(g, 6);
        m->bytes[i] = kind == 0 ? 0 : kind == 1 ? 1 : kc_rng_below(g, 100000);
    }
    uint32_t last = (uint32_t)kc_rng_below(g, m->count);
    m->src[last] = m->p - 1;
    m->bytes[last] = 7 + kc_rng_below(g, 1000);
}

static const char *eol(kc_rng *g) { return kc_rng_below(g, 3) ? "\n" : "\r\n"; }

static void write_list(kc_rng *g, const msgs *m, text *t)
{
    static const char *const sep[] = {" ", "\t", ",", " , ", "  "};
    put(t, "# a list%s", eol(g));
    for (uint32_t i = 0; i < m->count; i++) {
        const char *a = sep[kc_rng_below(g, 5)], *b = sep[kc_rng_below(g, 5)];
        if (m->bytes[i] == 1 && kc_rng_below(g, 2))
            put(t, "%u%s%u", m->src[i], a, m->dst[i]);
        else
            put(t, "%u%s%u%s%llu", m->src[i], a, m->dst[i], b, (unsigned long long)m->bytes[i]);
        put(t, "%s%s", kc_rng_below(g, 4) ? "" : "  # a comment", eol(g));
    }
}

/* One CSV field, quoted or not. */
static void field(kc_rng *g, text *t, unsigned long long v, int commas)
{
    const char *pad = commas && kc_rng_below(g, 3) == 0 ? " " : "";
    put(t, kc_rng_below(g, 2) ? "%s\"%llu\"%s" : "%s%llu%s", pad, v, pad);
}

static const char *const names[3][3] = {{"src", "Source", "SENDER"}, {"dst", "Destination", "receiver"},
                                        {"bytes", "Size", "WEIGHT"}};

static void write_csv(kc_rng *g, const msgs *m, text *t, int commas)
{
    uint32_t order[3] = {0, 1, 2};
    kc_rng_perm(g, order, 3);
    const char *sep = commas ? "," : " ";
    for (int c = 0; c < 3; c++)
        put(t, kc_rng_below(g, 2) ? "%s\"%s\"" : "%s%s", c ? sep : "", names[order[c]][kc_rng_below(g, 3)]);
    put(t, "%s", eol(g));
    for (uint32_t i = 0; i < m->count; i++) {
        for (int c = 0; c < 3; c++) {
            unsigned long long v = order[c] == 0 ? m->src[i] : order[c] == 1 ? m->dst[i] : m->bytes[i];
            put(t, "%s", c ? sep : "");
            field(g, t, v, commas);
        }
        put(t, "%s", eol(g));
    }
}

static void write_matrix(kc_rng *g, const msgs *m, text *t, int commas)
{
    uint64_t sum[MAX_P * MAX_P] = {0};
    for (uint32_t i = 0; i < m->count; i++)
        sum[m->src[i] * MAX_P + m->dst[i]] += m->bytes[i];
    for (uint32_t r = 0; r < m->p; r++) {
        for (uint32_t c = 0; c < m->p; c++) {
            put(t, "%s", c ? (commas ? "," : " ") : "");
            if (commas)
                field(g, t, (unsigned long long)sum[r * MAX_P + c], 0);
            else
                put(t, "%llu", (unsigned long long)sum[r * MAX_P + c]);
        }
        put(t, "%s", eol(g));
    }
}

static void expect_same_list(const kc_traffic *t, const msgs *m)
{
    assert_int_equal(t->count, m->count);
    for (uint32_t i = 0; i < m->count; i++) {
        assert_int_equal(t->src[i], m->src[i]);
        assert_int_equal(t->dst[i], m->dst[i]);
        assert_int_equal(t->bytes[i], m->bytes[i]);
    }
}

/* One random traffic in five spellings, each read by auto detection and
 * by its name: the same messages (lists, CSV) or the same sums (matrices). */
static void check_one(kc_rng *g, const msgs *m)
{
    static text t;
    static const kc_traffic_format want[5] = {KC_TRAFFIC_LIST, KC_TRAFFIC_CSV, KC_TRAFFIC_CSV, KC_TRAFFIC_MATRIX,
                                              KC_TRAFFIC_MATRIX};
    uint64_t expect[MAX_P * MAX_P], got[MAX_P * MAX_P];
    kc_traffic ref = {0};
    ref.count = m->count;
    ref.src = (uint32_t *)m->src;
    ref.dst = (uint32_t *)m->dst;
    ref.bytes = (uint64_t *)m->bytes;
    sums(&ref, expect);
    for (int f = 0; f < 5; f++) {
        t.len = 0;
        if (f == 0)
            write_list(g, m, &t);
        else if (f <= 2)
            write_csv(g, m, &t, f == 1);
        else
            write_matrix(g, m, &t, f == 4);
        for (int named = 0; named < 2; named++) {
            kc_traffic tr;
            kc_err err = {0};
            kc_traffic_source src;
            if (read_as(t.buf, named ? want[f] : KC_TRAFFIC_AUTO, (uint64_t)1 << 32, &tr, &src, &err))
                fail_msg("spelling %d (%s): %s\n%s", f, named ? "named" : "auto", err.msg, t.buf);
            assert_int_equal(src.format, want[f]);
            assert_int_equal(src.ranks, m->p); /* rank P - 1 sends, with bytes: every spelling names P */
            if (want[f] != KC_TRAFFIC_MATRIX)
                expect_same_list(&tr, m);
            sums(&tr, got);
            assert_memory_equal(got, expect, sizeof got);
            kc_traffic_free(&tr);
        }
    }
}

static void test_same_traffic(void **state)
{
    (void)state;
    kc_rng g;
    kc_rng_seed(&g, 33);
    msgs m;
    for (int trial = 0; trial < 300; trial++) {
        random_msgs(&g, &m);
        check_one(&g, &m);
    }
}

/* A matrix names P ranks even when its last rank sends and receives
 * nothing; phases of matrices; its refusals. */
static void test_matrix(void **state)
{
    (void)state;
    kc_traffic t;
    kc_err err = {0};
    kc_traffic_source src;
    assert_int_equal(read_as("0 5 0 0 0\n1 0 0 0 0\n0 0 0 0 0\n0 0 0 3 0\n0 0 0 0 0\n", KC_TRAFFIC_AUTO, 1u << 16, &t,
                             &src, &err), KC_OK);
    assert_int_equal(src.format, KC_TRAFFIC_MATRIX);
    assert_int_equal(src.ranks, 5);
    assert_int_equal(t.count, 3); /* 0 -> 1, 1 -> 0 and the kept diagonal 3 -> 3 */
    assert_int_equal(t.src[2], 3);
    assert_int_equal(t.dst[2], 3);
    kc_traffic_free(&t);
    assert_int_equal(read_as("# phase a\n0 1 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n# phase b\n0 0 0 0\n0 0 0 0\n0 0 0 0\n"
                             "2 0 0 0\n", KC_TRAFFIC_AUTO, 1u << 16, &t, &src, &err), KC_OK);
    assert_int_equal(t.count, 2);
    assert_int_equal(t.groups, 2);
    assert_string_equal(kc_traffic_group_name(&t, t.group[0]), "a");
    assert_string_equal(kc_traffic_group_name(&t, t.group[1]), "b");
    kc_traffic_free(&t);
    expect_fail("0 1 2 3\n1 0 2\n", KC_TRAFFIC_AUTO, "line 2: row 2 has 3 entries, the first row 4");
    expect_fail("0 1 2 3\n", KC_TRAFFIC_AUTO, "ends after 1 of the 4 rows");
    expect_fail("0 1 2 3\n0 1 2 3\n0 1 2 3\n0 1 2 3\n0 1 2 3\n", KC_TRAFFIC_AUTO, "line 5: row 5 of a 4 x 4 matrix");
    expect_fail("0 0 0 0\n0 0 0 0\n0 0 x 0\n0 0 0 0\n", KC_TRAFFIC_AUTO, "line 3, column 5: 'x' is not a whole number");
    expect_fail("0 0 0 0\n0 0 -1 0\n0 0 0 0\n0 0 0 0\n", KC_TRAFFIC_AUTO, "line 2, column 5: '-1' is not a byte count");
    expect_fail("0 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n", KC_TRAFFIC_AUTO, "has no messages (every entry is 0)");
    expect_fail("0 1 0 0\n0 0 0 0\n# phase b\n0 0 0 0\n", KC_TRAFFIC_AUTO, "a phase begins after 2 of the 4 rows");
    /* More ranks than the traffic holds: refused at the first row. */
    assert_int_equal(read_as("0 1 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n", KC_TRAFFIC_MATRIX, 3, &t, NULL, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 1: a 4 x 4 matrix names more ranks than 3"));
    kc_traffic_free(&t);
}

/* Three lines of three numbers (or two of two) are a list and a matrix
 * alike: auto reads a list, as such files always were, and flags it; a
 * named format reads either. */
static void expect_square(const char *s, int square)
{
    kc_traffic t;
    kc_err err = {0};
    kc_traffic_source src;
    if (read_as(s, KC_TRAFFIC_AUTO, 16, &t, &src, &err))
        fail_msg("'%s': %s", s, err.msg);
    assert_int_equal(src.format, KC_TRAFFIC_LIST);
    assert_int_equal(src.square, square);
    kc_traffic_free(&t);
}

static void test_square(void **state)
{
    (void)state;
    const char *sq = "0 1 5\n1 2 5\n2 0 5\n";
    expect_square(sq, 3);
    expect_square("0 1\n1 0\n", 2);
    expect_square("# phase a\n0 1 5\n1 2 5\n2 0 5\n# phase b\n0 1 5\n1 2 5\n2 0 5\n", 3);
    /* Not square: lists, unflagged. */
    expect_square("0 1 5\n1 2 5\n", 0);
    expect_square("0 1 5\n1 2\n2 0 5\n", 0);
    expect_square("0 1 5\n1 2 5\n2 0 5\n3 0 5\n", 0);
    expect_square("# phase a\n0 1 5\n1 2 5\n2 0 5\n# phase b\n0 1 5\n", 0);
    kc_traffic t;
    kc_err err = {0};
    kc_traffic_source src;
    assert_int_equal(read_as(sq, KC_TRAFFIC_LIST, 16, &t, &src, &err), KC_OK);
    assert_int_equal(t.count, 3);
    assert_int_equal(src.ranks, 3);
    assert_int_equal(src.square, 0); /* named: nothing to flag */
    kc_traffic_free(&t);
    assert_int_equal(read_as(sq, KC_TRAFFIC_MATRIX, 16, &t, &src, &err), KC_OK);
    assert_int_equal(t.count, 7); /* the nonzero entries, the diagonal 2 among them */
    assert_int_equal(src.ranks, 3);
    kc_traffic_free(&t);
}

static void test_csv_refusals(void **state)
{
    (void)state;
    expect_fail("src,dst,bytes\n1,,3\n", KC_TRAFFIC_AUTO, "line 2, column 3: a field is missing before this comma");
    expect_fail("src,dst,bytes\n1,2,\n", KC_TRAFFIC_AUTO, "line 2, column 5: a field is missing after the last comma");
    expect_fail("src,dst\n\"1,2\n", KC_TRAFFIC_AUTO, "line 2, column 1: a quoted field does not end on its line");
    expect_fail("src,dst\n\"1\"x,2\n", KC_TRAFFIC_AUTO, "line 2, column 4: text after a closing quote");
    expect_fail("src,dst,bytes\n1,2,x\n", KC_TRAFFIC_AUTO, "line 2, column 5: 'x' is not a whole number");
    expect_fail("src,dst,bytes\r\n1,2,\"1,000\"\r\n", KC_TRAFFIC_AUTO, "line 2, column 5: '1,000' is not a whole number");
    expect_fail("src, dst ,bytes\n1 ,2 3, 4\n", KC_TRAFFIC_AUTO, "line 2, column 4: '2 3' is not a whole number");
    expect_fail("src,dest,bogus\n", KC_TRAFFIC_AUTO, "line 1, column 10: 'bogus' is not a column kcube reads");
    expect_fail("src,SRC\n", KC_TRAFFIC_AUTO, "line 1, column 5: 'SRC' names a column a second time");
    expect_fail("Source,Bytes\n0,1\n", KC_TRAFFIC_AUTO, "line 1: the header names no destination (dst) column");
    expect_fail("src,dst\n1,2,3\n", KC_TRAFFIC_AUTO, "line 2: 3 fields, the header (line 1) names 2");
    expect_fail("src dst\n1 99999\n", KC_TRAFFIC_AUTO, "line 2, column 3: '99999' is not a rank (0..65535)");
    expect_fail("src,dst\n", KC_TRAFFIC_AUTO, "has no messages");
    expect_fail("1,2,3\n2,3,4\n", KC_TRAFFIC_CSV, "line 1, column 1: '1' is not a column kcube reads");
    /* Phases, an empty quoted name and quoted header names with blanks. */
    kc_traffic t;
    kc_err err = {0};
    kc_traffic_source src;
    assert_int_equal(read_as("# phase one\n\"To\" , \"From\"\n1,0\n# phase two\n\"2\",\"3\"\n", KC_TRAFFIC_AUTO, 16, &t,
                             &src, &err), KC_OK);
    assert_int_equal(src.format, KC_TRAFFIC_CSV);
    assert_int_equal(src.ranks, 4);
    assert_int_equal(t.count, 2);
    assert_int_equal(t.src[0], 0);
    assert_int_equal(t.dst[0], 1);
    assert_int_equal(t.bytes[0], 1);
    assert_int_equal(t.src[1], 3);
    assert_int_equal(t.groups, 2);
    kc_traffic_free(&t);
}

/* The other formats by content, and inputs that name their ranks. */
static void test_sniff_others(void **state)
{
    (void)state;
    kc_traffic t;
    kc_err err = {0};
    kc_traffic_source src;
    assert_int_equal(read_as("0\n3 2\n0 000\n1 1\n1 0\n0\n", KC_TRAFFIC_AUTO, 16, &t, &src, &err), KC_OK);
    assert_int_equal(src.format, KC_TRAFFIC_GRF);
    assert_int_equal(src.ranks, 3);
    kc_traffic_free(&t);
    expect_fail("num_ranks 2\nrank 0 {\n}\n", KC_TRAFFIC_AUTO, "is a GOAL schedule");
    /* "0 1 2 3" is four fields: a matrix row, then too few rows. */
    expect_fail("0 1 2 3\n", KC_TRAFFIC_AUTO, "rows of a matrix");
    /* A list's quoted fields, and its ranks. */
    assert_int_equal(read_as("\"0\" \"9\" \"4\"\n1,2\n3 4 5\n7 1 0\n", KC_TRAFFIC_AUTO, 16, &t, &src, &err), KC_OK);
    assert_int_equal(src.format, KC_TRAFFIC_LIST);
    assert_int_equal(src.ranks, 10);
    kc_traffic_free(&t);
    /* kc_traffic_set_ranks: every message inside. */
    assert_int_equal(kc_traffic_init(&t, (uint64_t)1 << 32, &err), KC_OK);
    assert_int_equal(kc_traffic_add(&t, 1, 5, 3, &err), KC_OK);
    assert_int_equal(kc_traffic_set_ranks(&t, 5, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "message 1, from rank 1 to 5, is outside 0..4"));
    assert_int_equal(kc_traffic_set_ranks(&t, 6, &err), KC_OK);
    assert_int_equal(t.ranks, 6);
    kc_traffic_free(&t);
}

/* The square of test_square as dir/name, its path in path. */
static void write_square(char *path, size_t size, const char *dir, const char *name)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("0 1 5\n1 2 5\n2 0 5\n", f);
    fclose(f);
}

/* By the file's name: a 3 x 3 matrix named .mat is no ambiguity. */
static void test_by_name(void **state)
{
    (void)state;
    char dir[] = "/tmp/kc_formats_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    write_square(path, sizeof path, dir, "m.mat");
    kc_traffic t;
    kc_err err = {0};
    kc_traffic_source src;
    assert_int_equal(kc_traffic_init(&t, 16, &err), KC_OK);
    assert_int_equal(kc_traffic_read_file(&t, path, KC_TRAFFIC_AUTO, NULL, &src, &err), KC_OK);
    assert_int_equal(src.format, KC_TRAFFIC_MATRIX);
    assert_int_equal(t.count, 7); /* the nonzero entries, the diagonal 2 among them */
    kc_traffic_free(&t);
    /* The same text as .txt: a list by its content, flagged. */
    write_square(path, sizeof path, dir, "m.txt");
    assert_int_equal(kc_traffic_init(&t, 16, &err), KC_OK);
    assert_int_equal(kc_traffic_read_file(&t, path, KC_TRAFFIC_AUTO, NULL, &src, &err), KC_OK);
    assert_int_equal(src.format, KC_TRAFFIC_LIST);
    assert_int_equal(src.square, 3);
    assert_int_equal(t.count, 3);
    kc_traffic_free(&t);
    unlink(path);
    snprintf(path, sizeof path, "%s/m.mat", dir);
    unlink(path);
    rmdir(dir);
}

/* The reader underneath: a line read again keeps its number; strict
 * commas and quotes through kc_reader_fields. */
static void test_reader_fields(void **state)
{
    (void)state;
    const char *s = "# c\n a , \"b \"\"q\"\"\" ,c\n\n1\n";
    kc_reader *r;
    kc_err err = {0};
    kc_token *tok = NULL;
    size_t cap = 0, n;
    int dir;
    assert_int_equal(kc_reader_open_mem(&r, s, strlen(s), "t", "p", NULL, &err), KC_OK);
    kc_reader_csv(r, 1);
    assert_int_equal(kc_reader_fields(r, &tok, &cap, &n, &dir, &err), KC_OK);
    assert_int_equal(n, 3);
    assert_int_equal(tok[1].line, 2);
    assert_int_equal(tok[1].column, 6);
    assert_int_equal(tok[1].len, 7); /* b ""q"" : the doubled quotes stay */
    kc_reader_unread(r);
    assert_int_equal(kc_reader_fields(r, &tok, &cap, &n, &dir, &err), KC_OK);
    assert_int_equal(n, 3);
    assert_int_equal(tok[2].line, 2);
    assert_int_equal(kc_reader_fields(r, &tok, &cap, &n, &dir, &err), KC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(tok[0].line, 4);
    assert_int_equal(kc_reader_fields(r, &tok, &cap, &n, &dir, &err), KC_OK);
    assert_int_equal(n, 0);
    kc_reader_close(r);
    free(tok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_traffic), cmocka_unit_test(test_matrix),      cmocka_unit_test(test_square),
        cmocka_unit_test(test_csv_refusals), cmocka_unit_test(test_sniff_others), cmocka_unit_test(test_by_name),
        cmocka_unit_test(test_reader_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
