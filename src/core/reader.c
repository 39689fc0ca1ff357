/* The strict, bounded token reader (kcube/reader.h) and the escaping of
 * echoed text. Lines are assembled in a growable buffer up to the line limit,
 * then tokenised, so every error knows its line and column. */
#include "kcube/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"

#define CHUNK ((size_t)1 << 16)

struct kc_reader {
    FILE *f;                  /* NULL for memory input */
    const unsigned char *mem; /* memory input, or the chunk buffer */
    size_t mem_len, mem_pos;
    unsigned char *chunk;
    size_t total; /* bytes consumed so far */
    int eof;
    kc_reader_limits lim;
    const char *param;
    char name[2 * KC_ESCAPE_SIZE + 32]; /* "mapping file 'x'" for messages */
    char *line;                         /* current line, NUL-terminated copy */
    size_t line_len, line_cap, pos;     /* pos: next byte of line to scan */
    long lineno;
    int have_line;
    const char *directive; /* kc_reader_directive's word, or NULL */
    char dir_arg[KC_READER_DIRECTIVE_MAX + 1];
    int quotes, strict; /* kc_reader_csv: quoted fields; commas delimit one by one */
    int need_field;     /* strict: a comma was just passed, a field must follow */
    int again;          /* kc_reader_unread: the next read_line gives the current line again */
};

size_t kc_utf8_char(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    if (len == 0)
        return 0;
    if (s[0] < 0x80)
        return 1;
    size_t n;
    uint32_t cp;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2, cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3, cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4, cp = s[0] & 0x07u;
    else
        return 0;
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    /* Overlong forms, surrogates and code points past U+10FFFF. */
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

const char *kc_escape(char *out, size_t size, const char *text, size_t len)
{
    size_t o = 0, keep = size - 4; /* room for "..." and the NUL */
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)text[i];
        char piece[8];
        size_t plen = 0, adv = 1;
        if (c == '\n' || c == '\t' || c == '\r' || c == '\\') {
            piece[0] = '\\';
            piece[1] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : '\\';
            plen = 2;
        } else if (c >= 0x20 && c < 0x7f) {
            piece[0] = (char)c;
            plen = 1;
        } else {
            size_t u = c >= 0x80 ? kc_utf8_char(text + i, len - i) : 0;
            /* Keep valid UTF-8 except the C1 controls (encoded c2 80..c2 9f). */
            if (u > 1 && !(u == 2 && c == 0xc2 && (unsigned char)text[i + 1] < 0xa0)) {
                memcpy(piece, text + i, u);
                plen = adv = u;
            } else {
                snprintf(piece, sizeof piece, "\\x%02x", c);
                plen = 4;
            }
        }
        if (o + plen > keep) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        memcpy(out + o, piece, plen);
        o += plen;
        i += adv;
    }
    out[o] = '\0';
    return out;
}

static kc_status alloc_reader(kc_reader **out, const char *param, const kc_reader_limits *limits, kc_err *err)
{
    kc_reader *r = calloc(1, sizeof *r);
    if (!r)
        return kc_fail_param(err, KC_ENOMEM, param, "out of memory");
    r->param = param;
    r->lim.max_line = limits && limits->max_line ? limits->max_line : KC_READER_MAX_LINE;
    r->lim.max_bytes = limits && limits->max_bytes ? limits->max_bytes : KC_READER_MAX_BYTES;
    *out = r;
    return KC_OK;
}

kc_status kc_open_failure_status(int e)
{
    /* A named input that cannot be opened is the user's input at fault (exit
     * 2), whatever the reason; only the process's own limits (descriptors,
     * memory) are the system's. */
    return e == EMFILE || e == ENFILE || e == ENOMEM ? KC_EIO : KC_EINVAL;
}

static const char *kind_name(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISBLK(m) ? "a block device"
                                                                                                       : "not a file";
}

/* One non-blocking read of a pipe or FIFO's first byte: 1 with the byte in
 * *first, or with *first = -1 when a writer is there but has written
 * nothing yet (EAGAIN) or came and went (EOF after a writer); 0 at EOF with
 * no writer; -1 on an error (errno). */
static int first_byte(int fd, int *first)
{
    unsigned char c;
    ssize_t n;
    while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
        ;
    *first = n == 1 ? c : -1;
    if (n == 1 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
        return 1;
    return n == 0 ? 0 : -1;
}

/* Is someone writing to the pipe or FIFO fd (opened O_NONBLOCK)? A pipe of
 * `<(...)` or `|` has its writer already; a named FIFO's writer may be
 * just opening it, so one with none gets KC_FIFO_WAIT_MS to appear (poll
 * wakes when it writes or leaves). 1 (*first as first_byte says), 0: no
 * writer, -1: an error (errno). */
static int fifo_writer(int fd, int *first)
{
    int r = first_byte(fd, first);
    if (r != 0)
        return r;
    struct pollfd p = {fd, POLLIN, 0};
    int ready;
    while ((ready = poll(&p, 1, KC_FIFO_WAIT_MS)) < 0 && errno == EINTR)
        ;
    if (ready <= 0)
        return ready;
    r = first_byte(fd, first);
    return r == 0 ? 1 : r; /* EOF now: a writer came and left, an empty input */
}

kc_status kc_input_open(FILE **out, const char *path, const char *what, const char *param, kc_err *err)
{
    *out = NULL;
    char q[KC_ESCAPE_SIZE];
    kc_escape(q, sizeof q, path, strlen(path));
    /* O_NONBLOCK: opening a FIFO with no writer must not hang; O_NOCTTY: a
     * terminal named here must not become our controlling terminal. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return kc_fail_param(err, kc_open_failure_status(e), param, "cannot open %s '%s': %s", what, q, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return kc_fail_param(err, KC_EINVAL, param, "cannot read %s '%s': %s", what, q, strerror(e));
    }
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        close(fd);
        return kc_fail_param(err, KC_EINVAL, param, "%s '%s' is %s, not a regular file", what, q,
                             kind_name(st.st_mode));
    }
    int first = -1, writer = S_ISFIFO(st.st_mode) ? fifo_writer(fd, &first) : 1;
    if (writer == 0) {
        close(fd);
        return kc_fail_param(err, KC_EINVAL, param, "%s '%s' is a FIFO no one writes to (waited %d ms)", what, q,
                             KC_FIFO_WAIT_MS);
    }
    /* Back to blocking reads: a character device (a terminal) or a pipe is
     * read as usual (the readers' limits bound them). */
    int fl = writer < 0 ? -1 : fcntl(fd, F_GETFL);
    FILE *f = NULL;
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 || !(f = fdopen(fd, "rb"))) {
        int e = errno;
        close(fd);
        return kc_fail_param(err, kc_open_failure_status(e), param, "cannot read %s '%s': %s", what, q,
                             strerror(e));
    }
    if (first >= 0)
        ungetc(first, f); /* the byte read to find the writer */
    *out = f;
    return KC_OK;
}

kc_status kc_reader_open(kc_reader **out, const char *path, const char *what, const char *param,
                         const kc_reader_limits *limits, kc_err *err)
{
    *out = NULL;
    char q[KC_ESCAPE_SIZE];
    kc_escape(q, sizeof q, path, strlen(path));
    FILE *f;
    kc_status s = kc_input_open(&f, path, what, param, err);
    if (s)
        return s;
    kc_reader *r = NULL;
    s = alloc_reader(&r, param, limits, err);
    if (s) {
        fclose(f);
        return s;
    }
    if (!(r->chunk = malloc(CHUNK))) {
        fclose(f);
        free(r);
        return kc_fail_param(err, KC_ENOMEM, param, "out of memory");
    }
    r->f = f;
    r->mem = r->chunk;
    snprintf(r->name, sizeof r->name, "%s '%s'", what, q);
    *out = r;
    return KC_OK;
}

kc_status kc_reader_open_mem(kc_reader **out, const void *data, size_t len, const char *name, const char *param,
                             const kc_reader_limits *limits, kc_err *err)
{
    *out = NULL;
    kc_reader *r = NULL;
    kc_status s = alloc_reader(&r, param, limits, err);
    if (s)
        return s;
    r->mem = data;
    r->mem_len = len;
    snprintf(r->name, sizeof r->name, "%s", name);
    *out = r;
    return KC_OK;
}

void kc_reader_close(kc_reader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    free(r->chunk);
    free(r->line);
    free(r);
}

const char *kc_reader_name(const kc_reader *r) { return r->name; }

const char *kc_reader_param(const kc_reader *r) { return r->param; }

/* Make more input available in mem[mem_pos..mem_len). 0 at the end. */
static kc_status refill(kc_reader *r, int *more, kc_err *err)
{
    *more = 0;
    if (r->mem_pos < r->mem_len) {
        *more = 1;
        return KC_OK;
    }
    if (!r->f || r->eof)
        return KC_OK;
    size_t got = fread(r->chunk, 1, CHUNK, r->f);
    if (got == 0) {
        if (ferror(r->f))
            return kc_fail_param(err, KC_EINVAL, r->param, "cannot read %s: %s", r->name, strerror(errno));
        r->eof = 1;
        return KC_OK;
    }
    r->mem_len = got;
    r->mem_pos = 0;
    *more = 1;
    return KC_OK;
}

/* Read the next line (without its '\n') into r->line. have_line = 0 at end. */
static kc_status read_line(kc_reader *r, kc_err *err)
{
    r->need_field = 0;
    if (r->again) { /* the line is still in the buffer, its number counted */
        r->again = 0;
        r->pos = 0;
        r->have_line = 1;
        return KC_OK;
    }
    r->line_len = r->pos = 0;
    r->have_line = 0;
    int started = 0;
    for (;;) {
        int more;
        kc_status s = refill(r, &more, err);
        if (s)
            return s;
        if (!more)
            break;
        const unsigned char *p = r->mem + r->mem_pos;
        size_t avail = r->mem_len - r->mem_pos;
        const unsigned char *nl = memchr(p, '\n', avail);
        size_t take = nl ? (size_t)(nl - p) : avail;
        started = 1;
        if (r->total + take + (nl != NULL) > r->lim.max_bytes)
            return kc_fail_param(err, KC_EINVAL, r->param, "%s: file larger than %zu bytes", r->name,
                                 r->lim.max_bytes);
        if (r->line_len + take > r->lim.max_line)
            return kc_fail_param(err, KC_EINVAL, r->param, "%s: line %ld longer than %zu bytes", r->name,
                                 r->lineno + 1, r->lim.max_line);
        if (KCI_RESERVE(r->line, r->line_cap, r->line_len + take + 1, 256))
            return kc_fail_param(err, KC_ENOMEM, r->param, "out of memory reading %s", r->name);
        memcpy(r->line + r->line_len, p, take);
        r->line_len += take;
        r->total += take + (nl != NULL);
        r->mem_pos += take + (nl != NULL);
        if (nl)
            break;
    }
    if (!started)
        return KC_OK;
    r->line[r->line_len] = '\0';
    r->lineno++;
    r->have_line = 1;
    return KC_OK;
}

static kc_status fail_at(const kc_reader *r, long column, kc_err *err, const char *fmt, ...)
    KC_PRINTF(4, 5);
static kc_status fail_at(const kc_reader *r, long column, kc_err *err, const char *fmt, ...)
{
    char what[2 * KC_ESCAPE_SIZE + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return kc_fail_param(err, KC_EINVAL, r->param, "%s, line %ld, column %ld: %s", r->name, r->lineno, column, what);
}

kc_status kc_reader_fail_token(const kc_reader *r, const kc_token *tok, kc_status status, kc_err *err,
                               const char *fmt, ...)
{
    char what[160], q[KC_ESCAPE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    kc_escape(q, sizeof q, tok->text, tok->len);
    return kc_fail_param(err, status, r->param, "%s, line %ld, column %ld: '%s' %s", r->name, tok->line,
                         tok->column, q, what);
}

static int separator(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == ','; }

static int blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }

static kc_status token_number(const kc_reader *r, kc_token *tok, kc_err *err);

/* The closing quote of the quoted field opening at `open` ("" inside is one
 * quote): its index in *close, or an error naming the opening quote. */
static kc_status quoted_end(const kc_reader *r, size_t open, size_t *close, kc_err *err)
{
    const unsigned char *l = (const unsigned char *)r->line;
    for (size_t j = open + 1; j < r->line_len; j++) {
        if (l[j] != '"')
            continue;
        if (j + 1 < r->line_len && l[j + 1] == '"') {
            j++;
            continue;
        }
        *close = j;
        return KC_OK;
    }
    return fail_at(r, (long)open + 1, err, "a quoted field does not end on its line");
}

/* The field at l[i] (not a blank, '#' or, strict, a comma): its text in
 * [*start, *end), the index after it in *next. */
static kc_status field_at(kc_reader *r, size_t i, size_t *start, size_t *end, size_t *next, kc_err *err)
{
    const unsigned char *l = (const unsigned char *)r->line;
    size_t n = r->line_len, j = i;
    if (r->quotes && l[i] == '"') {
        kc_status s = quoted_end(r, i, &j, err);
        if (s)
            return s;
        *start = i + 1;
        *end = j++;
        size_t k = j;
        while (k < n && blank(l[k]))
            k++;
        if (!(k == n || l[k] == ',' || l[k] == '#' || (!r->strict && k > j)))
            return fail_at(r, (long)k + 1, err, "text after a closing quote (a quote inside quotes is written \"\")");
        *next = k;
        return KC_OK;
    }
    while (j < n && l[j] != '#' && (r->strict ? l[j] != ',' : !separator(l[j])))
        j++;
    *start = i;
    *end = *next = j;
    while (r->strict && *end > *start && blank(l[*end - 1]))
        (*end)--;
    return KC_OK;
}

/* Where the next field of the current line lies (field_at), *found = 0 at
 * the end of the line; r->pos moves past it (and past its comma when
 * strict, where an empty field is an error naming its column). */
static kc_status find_field(kc_reader *r, size_t *start, size_t *end, long *column, int *found, kc_err *err)
{
    const unsigned char *l = (const unsigned char *)r->line;
    size_t i = r->pos, n = r->line_len;
    *found = 0;
    while (i < n && (r->strict ? blank(l[i]) : separator(l[i])))
        i++;
    if (i < n && l[i] == '#') {
        /* Comments may hold text in any encoding, but not NUL bytes. */
        const unsigned char *z = memchr(l + i, '\0', n - i);
        if (z)
            return fail_at(r, (long)(z - l) + 1, err, "NUL byte (a binary file?)");
    }
    if (i == n || l[i] == '#') {
        r->pos = n;
        return r->need_field ? fail_at(r, (long)i + 1, err, "a field is missing after the last comma") : KC_OK;
    }
    if (r->strict && l[i] == ',')
        return fail_at(r, (long)i + 1, err, "a field is missing before this comma (an empty field)");
    size_t j = n;
    kc_status s = field_at(r, i, start, end, &j, err);
    if (s)
        return s;
    r->need_field = 0;
    if (r->strict && j < n && l[j] == ',') {
        j++;
        r->need_field = 1;
    }
    r->pos = j;
    *column = (long)i + 1;
    *found = 1;
    return KC_OK;
}

/* The next token on the current line; *have = 0 at the end of the line.
 * A word (kc_reader_words) is any printable ASCII; otherwise a number. */
static kc_status scan_token(kc_reader *r, kc_token *tok, int *have, int word, kc_err *err)
{
    *have = 0;
    const unsigned char *l = (const unsigned char *)r->line;
    size_t start = 0, end = 0;
    long column = 0;
    int found;
    kc_status s = find_field(r, &start, &end, &column, &found, err);
    if (s || !found)
        return s;
    for (size_t j = start; j < end; j++) {
        char q[8];
        if (l[j] == 0)
            return fail_at(r, (long)j + 1, err, "NUL byte (a binary file?)");
        if (l[j] < 0x20 || l[j] >= 0x7f)
            return fail_at(r, (long)j + 1, err, "byte '%s' is not printable ASCII",
                           kc_escape(q, sizeof q, (const char *)l + j, 1));
    }
    tok->text = r->line + start;
    tok->len = end - start;
    tok->line = r->lineno;
    tok->column = column;
    tok->negative = 0;
    tok->value = 0;
    s = word ? KC_OK : token_number(r, tok, err);
    *have = !s;
    return s;
}

static kc_status scan_line(kc_reader *r, kc_token *tok, int *have, kc_err *err)
{
    return scan_token(r, tok, have, 0, err);
}

/* tok's text as a decimal number (an optional '-' kept in negative). */
static kc_status token_number(const kc_reader *r, kc_token *tok, kc_err *err)
{
    const unsigned char *l = (const unsigned char *)tok->text;
    size_t i = tok->len;
    tok->negative = i > 0 && l[0] == '-';
    size_t d = (size_t)tok->negative;
    if (d == i)
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "is not a whole number");
    uint64_t v = 0;
    int over = 0;
    for (size_t j = d; j < i; j++) {
        if (l[j] < '0' || l[j] > '9')
            return kc_reader_fail_token(r, tok, KC_EINVAL, err, "is not a whole number");
        unsigned dig = (unsigned)(l[j] - '0');
        if (v > (UINT64_MAX - dig) / 10)
            over = 1;
        else
            v = v * 10 + dig;
    }
    if (over)
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "is too large");
    tok->value = v;
    return KC_OK;
}

kc_status kc_reader_words(kc_reader *r, kc_token *toks, int max, int *got, kc_err *err)
{
    *got = 0;
    for (;;) {
        kc_status s = read_line(r, err);
        if (s || !r->have_line)
            return s;
        int n = 0, one;
        kc_token extra;
        while (n < max && !(s = scan_token(r, &toks[n], &one, 1, err)) && one)
            n++;
        if (s)
            return s;
        if (n == 0)
            continue; /* blank or comment line */
        if (n == max && (s = scan_token(r, &extra, &one, 1, err)))
            return s;
        if (one)
            return kc_reader_fail_token(r, &extra, KC_EINVAL, err, "is one field too many (at most %d on a line)",
                                        max);
        r->have_line = 0;
        *got = n;
        return KC_OK;
    }
}

kc_status kc_reader_word_number(const kc_reader *r, kc_token *tok, uint64_t max, const char *what, kc_err *err)
{
    kc_status s = token_number(r, tok, err);
    return s ? s : kc_reader_check(r, tok, max, what, err);
}

kc_status kc_reader_next(kc_reader *r, kc_token *tok, int *have, kc_err *err)
{
    for (;;) {
        if (r->have_line) {
            kc_status s = scan_line(r, tok, have, err);
            if (s || *have)
                return s;
        }
        kc_status s = read_line(r, err);
        if (s)
            return s;
        if (!r->have_line) {
            *have = 0;
            return KC_OK;
        }
    }
}

void kc_reader_directive(kc_reader *r, const char *word) { r->directive = word; }

const char *kc_reader_directive_arg(const kc_reader *r) { return r->dir_arg; }

/* Is the current line "# WORD ARG"? 1 (ARG copied), 0 (another comment), or
 * an error for "# WORD" with no ARG, more than one, or a bad byte in it. */
static kc_status directive_line(kc_reader *r, int *is, kc_err *err)
{
    const unsigned char *l = (const unsigned char *)r->line;
    size_t i = 0, n = r->line_len, w = strlen(r->directive);
    *is = 0;
    while (i < n && blank(l[i]))
        i++;
    if (i == n || l[i] != '#')
        return KC_OK;
    i++;
    while (i < n && blank(l[i]))
        i++;
    if (n - i < w || memcmp(l + i, r->directive, w) != 0 || (i + w < n && !blank(l[i + w])))
        return KC_OK;
    i += w;
    while (i < n && blank(l[i]))
        i++;
    size_t start = i;
    while (i < n && !blank(l[i]))
        i++;
    size_t end = i;
    while (i < n && blank(l[i]))
        i++;
    if (start == end || i < n || end - start > KC_READER_DIRECTIVE_MAX)
        return fail_at(r, (long)start + 1, err, "a '# %s' line names one word of at most %d characters",
                       r->directive, KC_READER_DIRECTIVE_MAX);
    for (size_t j = start; j < end; j++)
        if (l[j] < 0x21 || l[j] >= 0x7f)
            return fail_at(r, (long)j + 1, err, "a '# %s' name is printable ASCII", r->directive);
    memcpy(r->dir_arg, l + start, end - start);
    r->dir_arg[end - start] = '\0';
    *is = 1;
    return KC_OK;
}

kc_status kc_reader_record_some(kc_reader *r, kc_token *toks, int min, int max, const char *fields, int *got,
                                kc_err *err)
{
    *got = 0;
    for (;;) {
        kc_status s = read_line(r, err);
        if (s || !r->have_line)
            return s;
        int n = 0, one;
        kc_token extra;
        while (n < max && !(s = scan_line(r, &toks[n], &one, err)) && one)
            n++;
        if (s)
            return s;
        if (n == 0 && r->directive) {
            int is;
            if ((s = directive_line(r, &is, err)))
                return s;
            if (is) {
                r->have_line = 0;
                *got = KC_READER_DIRECTIVE;
                return KC_OK;
            }
        }
        if (n == 0)
            continue; /* blank or comment line */
        if (n == max && (s = scan_line(r, &extra, &one, err)))
            return s;
        if (n < min || one) {
            char want[32];
            if (min == max)
                snprintf(want, sizeof want, "%d", min);
            else
                snprintf(want, sizeof want, "%d to %d", min, max);
            return kc_fail_param(err, KC_EINVAL, r->param, "%s, line %ld: expected %s numbers (%s), found %s",
                                 r->name, r->lineno, want, fields, n < min ? "fewer" : "more");
        }
        r->have_line = 0;
        *got = n;
        return KC_OK;
    }
}

void kc_reader_csv(kc_reader *r, int strict)
{
    r->quotes = 1;
    r->strict = strict != 0;
}

void kc_reader_unread(kc_reader *r)
{
    if (r->lineno > 0)
        r->again = 1;
}

/* Is the current line (no field on it) a directive? Returns it as *got. */
static kc_status fields_directive(kc_reader *r, size_t *got, int *directive, kc_err *err)
{
    int is = 0;
    kc_status s = r->directive ? directive_line(r, &is, err) : KC_OK;
    if (!s && is) {
        *directive = 1;
        *got = 1;
    }
    return s;
}

kc_status kc_reader_fields(kc_reader *r, kc_token **toks, size_t *cap, size_t *got, int *directive, kc_err *err)
{
    *got = 0;
    *directive = 0;
    for (;;) {
        kc_status s = read_line(r, err);
        if (s || !r->have_line)
            return s;
        size_t n = 0;
        int one = 1;
        while (one) {
            if (KCI_RESERVE(*toks, *cap, n + 1, 16))
                return kc_fail_param(err, KC_ENOMEM, r->param, "out of memory reading %s", r->name);
            if ((s = scan_token(r, &(*toks)[n], &one, 1, err)))
                return s;
            n += (size_t)one;
        }
        r->have_line = 0;
        if (n == 0 && ((s = fields_directive(r, got, directive, err)) || *directive))
            return s;
        if (n > 0) {
            *got = n;
            return KC_OK;
        }
    }
}

kc_status kc_reader_record(kc_reader *r, kc_token *toks, int count, const char *fields, int *have, kc_err *err)
{
    int got;
    kc_status s = kc_reader_record_some(r, toks, count, count, fields, &got, err);
    *have = got > 0;
    return s;
}

kc_status kc_reader_check(const kc_reader *r, const kc_token *tok, uint64_t max, const char *what, kc_err *err)
{
    if (tok->negative || tok->value > max)
        return kc_reader_fail_token(r, tok, KC_EINVAL, err, "is not a %s (0..%llu)", what, (unsigned long long)max);
    return KC_OK;
}

kc_status kc_read_nodelist(kc_reader *r, uint32_t *out, uint32_t count, int distinct, kc_err *err)
{
    if (count == 0)
        return kc_fail_param(err, KC_EINVAL, r->param, "%s: no nodes to list", r->name);
    unsigned char *seen = distinct ? calloc(count, 1) : NULL;
    if (distinct && !seen)
        return kc_fail_param(err, KC_ENOMEM, r->param, "out of memory");
    uint32_t got = 0;
    kc_status s;
    kc_token t;
    int have;
    while (!(s = kc_reader_next(r, &t, &have, err)) && have) {
        if ((s = kc_reader_check(r, &t, count - 1, "node", err)))
            break;
        if (got == count) {
            s = kc_reader_fail_token(r, &t, KC_EINVAL, err, "is one entry too many (%u nodes)", count);
            break;
        }
        if (distinct && seen[t.value]++) {
            s = kc_reader_fail_token(r, &t, KC_EINVAL, err, "appears twice (a permutation lists each node once)");
            break;
        }
        out[got++] = (uint32_t)t.value;
    }
    free(seen);
    if (s == KC_OK && got != count)
        s = kc_fail_param(err, KC_EINVAL, r->param, "%s has %u entries, expected %u (one per node)", r->name, got,
                          count);
    return s;
}
