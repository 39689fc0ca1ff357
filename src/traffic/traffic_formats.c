/* traffic_formats.c - the traffic inputs people already have, beside the
 * plain list (kcube/traffic.h, docs/traffic.md): CSV with a header line and
 * quoted fields, P x P communication matrices (whitespace or commas), and
 * the choice of a format by a file's name or its first data line, so that
 * one `--traffic FILE` takes each of them and says how many ranks it names.
 * Every input goes through the strict bounded reader (kcube/reader.h):
 * bad fields keep their line and column. O(input) time; memory the
 * messages plus the longest line's fields. */
#include <stdlib.h>
#include <string.h>

#include "kcube/traffic.h"
#include "traffic_internal.h"

#define PARAM "traffic_file"

static const kc_name format_entries[] = {
    {KC_TRAFFIC_AUTO, "auto", "by the file's name, then by its first data line (docs/traffic.md)"},
    {KC_TRAFFIC_LIST, "list", "'src dst [bytes]' a line, blanks or commas"},
    {KC_TRAFFIC_CSV, "csv", "a header line naming src, dst [, bytes] in any order, then a message a line"},
    {KC_TRAFFIC_MATRIX, "matrix", "P lines of P entries: the bytes row rank i sends to column rank j"},
    {KC_TRAFFIC_GRF, "grf", "a Scotch source graph"},
    {KC_TRAFFIC_GOAL, "goal", "the sends of a GOAL schedule"},
    {0, NULL, NULL},
};
const kc_names kc_traffic_format_names = {"traffic format", format_entries};

/* One line's fields (kc_reader_fields). */
typedef struct fields {
    kc_token *tok;
    size_t cap, n;
    int directive;
} fields;

static kc_status next_fields(kc_reader *r, fields *f, kc_err *err)
{
    return kc_reader_fields(r, &f->tok, &f->cap, &f->n, &f->directive, err);
}

/* Is the token the word `name` (ASCII, any case)? */
static int same_word(const kc_token *t, const char *name)
{
    size_t n = strlen(name);
    if (t->len != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = t->text[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != name[i])
            return 0;
    }
    return 1;
}

static int begins_with_letter(const kc_token *t)
{
    char c = t->len ? (char)(t->text[0] | 0x20) : 0;
    return c >= 'a' && c <= 'z';
}

static uint64_t highest_rank(const kc_traffic *t, size_t from)
{
    uint64_t hi = 0;
    for (size_t m = from; m < t->count; m++) {
        hi = t->src[m] > hi ? t->src[m] : hi;
        hi = t->dst[m] > hi ? t->dst[m] : hi;
    }
    return hi;
}

static kc_status no_messages(const kc_reader *r, const char *why, kc_err *err)
{
    return kc_fail_param(err, KC_EINVAL, PARAM, "%s has no messages%s", kc_reader_name(r), why);
}

/* ---- CSV: a header line, then a message a line ---- */

enum { COL_SRC, COL_DST, COL_BYTES, COLS };
static const char *const col_names[COLS][6] = {
    {"src", "source", "sender", "from", NULL},
    {"dst", "dest", "destination", "receiver", "to", NULL},
    {"bytes", "size", "weight", "volume", NULL},
};

typedef struct csv_cols {
    int at[COLS]; /* the field of each column, -1 when absent */
    size_t count; /* fields a line */
    long line;    /* the header's */
} csv_cols;

static int column_of(const kc_token *t)
{
    for (int c = 0; c < COLS; c++)
        for (int i = 0; col_names[c][i]; i++)
            if (same_word(t, col_names[c][i]))
                return c;
    return -1;
}

/* Were the line's fields separated by commas? (the bytes between them) */
static int has_commas(const fields *f)
{
    for (size_t i = 0; i + 1 < f->n; i++) {
        const char *end = f->tok[i].text + f->tok[i].len;
        if (memchr(end, ',', (size_t)(f->tok[i + 1].text - end)))
            return 1;
    }
    return 0;
}

/* The header line (phase lines before it apply): which field is which. */
static kc_status csv_header(kc_traffic *t, kc_reader *r, fields *f, csv_cols *c, kc_err *err)
{
    kc_status s;
    while (!(s = next_fields(r, f, err)) && f->directive)
        if ((s = kc_traffic_set_phase(t, kc_reader_directive_arg(r), err)))
            return s;
    if (s)
        return s;
    if (f->n == 0)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s has no header line (src,dst[,bytes])", kc_reader_name(r));
    if (has_commas(f)) { /* CSV proper: read the header again, commas delimiting one by one */
        kc_reader_csv(r, 1);
        kc_reader_unread(r);
        if ((s = next_fields(r, f, err)))
            return s;
    }
    c->count = f->n;
    c->line = f->tok[0].line;
    for (int k = 0; k < COLS; k++)
        c->at[k] = -1;
    for (size_t i = 0; i < f->n; i++) {
        int k = column_of(&f->tok[i]);
        if (k < 0)
            return kc_reader_fail_token(r, &f->tok[i], KC_EINVAL, err,
                                        "is not a column kcube reads (src, dst, bytes or a synonym: docs/traffic.md)");
        if (c->at[k] >= 0)
            return kc_reader_fail_token(r, &f->tok[i], KC_EINVAL, err, "names a column a second time");
        c->at[k] = (int)i;
    }
    if (c->at[COL_SRC] < 0 || c->at[COL_DST] < 0)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s, line %ld: the header names no %s column", kc_reader_name(r),
                             c->line, c->at[COL_SRC] < 0 ? "source (src)" : "destination (dst)");
    return KC_OK;
}

static kc_status csv_row(kc_traffic *t, kc_reader *r, fields *f, const csv_cols *c, kc_err *err)
{
    if (f->n != c->count)
        return kc_fail_param(err, KC_EINVAL, PARAM, "%s, line %ld: %zu fields, the header (line %ld) names %zu",
                             kc_reader_name(r), f->tok[0].line, f->n, c->line, c->count);
    kc_token *src = &f->tok[c->at[COL_SRC]], *dst = &f->tok[c->at[COL_DST]];
    kc_token *bytes = c->at[COL_BYTES] >= 0 ? &f->tok[c->at[COL_BYTES]] : NULL;
    kc_status s;
    if ((s = kc_reader_word_number(r, src, t->ranks - 1, "rank", err)) ||
        (s = kc_reader_word_number(r, dst, t->ranks - 1, "rank", err)) ||
        (bytes && (s = kc_reader_word_number(r, bytes, UINT64_MAX, "byte count", err))))
        return s;
    return kc_traffic_add(t, src->value, dst->value, bytes ? bytes->value : 1, err);
}

kc_status kc_traffic_read_csv(kc_traffic *t, kc_reader *r, kc_err *err)
{
    fields f = {0};
    csv_cols c = {{-1, -1, -1}, 0, 0};
    size_t before = t->count;
    kc_reader_csv(r, 0);
    kc_reader_directive(r, "phase");
    kc_status s = csv_header(t, r, &f, &c, err);
    while (!s && !(s = next_fields(r, &f, err)) && f.n)
        s = f.directive ? kc_traffic_set_phase(t, kc_reader_directive_arg(r), err) : csv_row(t, r, &f, &c, err);
    free(f.tok);
    return !s && t->count == before ? no_messages(r, "", err) : s;
}

/* ---- P x P matrices ---- */

static kc_status matrix_row(kc_traffic *t, kc_reader *r, fields *f, uint64_t size, uint64_t row, kc_err *err)
{
    if (f->n != size)
        return kc_fail_param(err, KC_EINVAL, PARAM,
                             "%s, line %ld: row %llu has %zu entries, the first row %llu (a P x P matrix)",
                             kc_reader_name(r), f->tok[0].line, (unsigned long long)row + 1, f->n,
                             (unsigned long long)size);
    for (size_t j = 0; j < f->n; j++) {
        kc_status s = kc_reader_word_number(r, &f->tok[j], UINT64_MAX, "byte count", err);
        if (!s && f->tok[j].value) /* 0: no message */
            s = kc_traffic_add(t, row, j, f->tok[j].value, err);
        if (s)
            return s;
    }
    return KC_OK;
}

/* A matrix line: the first fixes the size (at most t->ranks); a full
 * matrix takes no more rows before a phase line. */
static kc_status matrix_line(kc_traffic *t, kc_reader *r, fields *f, uint64_t *size, uint64_t *rows, kc_err *err)
{
    if (*size == 0) {
        *size = f->n;
        if (*size > t->ranks)
            return kc_fail_param(err, KC_EINVAL, PARAM, "%s, line %ld: a %zu x %zu matrix names more ranks than %llu",
                                 kc_reader_name(r), f->tok[0].line, f->n, f->n, (unsigned long long)t->ranks);
    }
    if (*rows == *size)
        return kc_fail_param(err, KC_EINVAL, PARAM,
                             "%s, line %ld: row %llu of a %llu x %llu matrix (a further matrix follows a "
                             "'# phase NAME' line)", kc_reader_name(r), f->tok[0].line, (unsigned long long)*size + 1,
                             (unsigned long long)*size, (unsigned long long)*size);
    kc_status s = matrix_row(t, r, f, *size, *rows, err);
    (*rows)++;
    return s;
}

kc_status kc_traffic_read_matrix(kc_traffic *t, kc_reader *r, uint64_t *size, kc_err *err)
{
    fields f = {0};
    uint64_t rows = 0;
    size_t before = t->count;
    kc_status s;
    *size = 0;
    kc_reader_csv(r, 0);
    kc_reader_directive(r, "phase");
    while (!(s = next_fields(r, &f, err)) && f.n) {
        if (!f.directive) {
            if ((s = matrix_line(t, r, &f, size, &rows, err)))
                break;
            continue;
        }
        if (rows != *size) /* also a phase line before the first row: 0 of 0 */
            s = kc_fail_param(err, KC_EINVAL, PARAM, "%s: a phase begins after %llu of the %llu rows of a matrix",
                              kc_reader_name(r), (unsigned long long)rows, (unsigned long long)*size);
        if (s || (s = kc_traffic_set_phase(t, kc_reader_directive_arg(r), err)))
            break;
        rows = 0;
    }
    free(f.tok);
    if (!s && (*size == 0 || rows != *size))
        s = kc_fail_param(err, KC_EINVAL, PARAM, "%s ends after %llu of the %llu rows of a matrix", kc_reader_name(r),
                          (unsigned long long)rows, (unsigned long long)*size);
    return !s && t->count == before ? no_messages(r, " (every entry is 0)", err) : s;
}

/* ---- which format ---- */

/* The format by the first data line (phase lines before it apply); that
 * line is then read again by the format's reader. */
static kc_status sniff(kc_traffic *t, kc_reader *r, kc_traffic_format *format, kc_err *err)
{
    fields f = {0};
    kc_status s;
    kc_reader_csv(r, 0);
    kc_reader_directive(r, "phase");
    while (!(s = next_fields(r, &f, err)) && f.directive)
        if ((s = kc_traffic_set_phase(t, kc_reader_directive_arg(r), err)))
            break;
    int header = 0;
    for (size_t i = 0; !s && i < f.n; i++)
        header |= begins_with_letter(&f.tok[i]);
    *format = header ? (same_word(&f.tok[0], "num_ranks") ? KC_TRAFFIC_GOAL : KC_TRAFFIC_CSV)
              : f.n == 1 ? KC_TRAFFIC_GRF
              : f.n > 3  ? KC_TRAFFIC_MATRIX
                         : KC_TRAFFIC_LIST; /* an empty input too: the list says it has no messages */
    if (!s && f.n)
        kc_reader_unread(r);
    free(f.tok);
    return s;
}

/* Read r in got->format (auto: sniffed, into got->format); goal is left
 * to the caller, who has the path. got->ranks as kc_traffic_source says. */
static kc_status read_formats(kc_traffic *t, kc_reader *r, kc_traffic_source *got, kc_err *err)
{
    int sniffed = got->format == KC_TRAFFIC_AUTO;
    size_t before = t->count;
    uint64_t size = 0;
    kci_list_shape sh;
    kc_status s = sniffed ? sniff(t, r, &got->format, err) : KC_OK;
    if (s)
        return s;
    switch (got->format) {
    case KC_TRAFFIC_CSV:
        s = kc_traffic_read_csv(t, r, err);
        break;
    case KC_TRAFFIC_MATRIX:
        s = kc_traffic_read_matrix(t, r, &size, err);
        break;
    case KC_TRAFFIC_GRF:
        s = kci_traffic_read_grf(t, r, &size, err);
        break;
    case KC_TRAFFIC_GOAL:
        return KC_OK;
    default:
        kc_reader_csv(r, 0);
        /* 2 lines of 2 numbers or 3 of 3 (in every phase) read as 2 x 2 or
         * 3 x 3 matrices too: a list, as such files always were, flagged */
        if (!(s = kci_traffic_read_list(t, r, &sh, err)) && sniffed && sh.square)
            got->square = sh.fields;
        break;
    }
    got->ranks = size ? size : highest_rank(t, before) + 1;
    return s;
}

kc_status kc_traffic_read_as(kc_traffic *t, kc_reader *r, kc_traffic_format format, kc_traffic_source *src,
                             kc_err *err)
{
    kc_traffic_source got = {format, 0, 0};
    kc_status s = read_formats(t, r, &got, err);
    if (!s && got.format == KC_TRAFFIC_GOAL)
        s = kc_fail_param(err, KC_EINVAL, PARAM, "%s is a GOAL schedule: it is read from a file named with its format",
                          kc_reader_name(r));
    if (src)
        *src = got;
    return s;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static kc_traffic_format by_name(const char *path)
{
    return ends_with(path, ".grf")                                ? KC_TRAFFIC_GRF
           : ends_with(path, ".goal")                             ? KC_TRAFFIC_GOAL
           : ends_with(path, ".mat") || ends_with(path, ".matrix") ? KC_TRAFFIC_MATRIX
                                                                  : KC_TRAFFIC_AUTO;
}

kc_status kc_traffic_read_file(kc_traffic *t, const char *path, kc_traffic_format format,
                               const kc_reader_limits *limits, kc_traffic_source *src, kc_err *err)
{
    kc_traffic_source got = {format == KC_TRAFFIC_AUTO ? by_name(path) : format, 0, 0};
    kc_status s = KC_OK;
    if (got.format != KC_TRAFFIC_GOAL) {
        kc_reader *r;
        s = kc_reader_open(&r, path, got.format == KC_TRAFFIC_GRF ? "graph file" : "traffic file", PARAM, limits,
                           err);
        if (s)
            return s;
        s = read_formats(t, r, &got, err);
        kc_reader_close(r);
    }
    if (!s && got.format == KC_TRAFFIC_GOAL) /* by name, or by its num_ranks line */
        s = kci_traffic_read_goal_path(t, path, limits, &got.ranks, err);
    if (src)
        *src = got;
    return s;
}

kc_status kc_traffic_read_path(kc_traffic *t, const char *path, const kc_reader_limits *limits, kc_err *err)
{
    return kc_traffic_read_file(t, path, KC_TRAFFIC_AUTO, limits, NULL, err);
}
