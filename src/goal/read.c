/* The strict, bounded GOAL reader (kcube/goal.h, docs/goal.md).
 *
 * kc_reader (kcube/reader.h) reads integer tokens and knows no words, so GOAL
 * gets its own word-level lexer here; it keeps kc_reader's rules: the same
 * limits (bytes per line, bytes in all), lines assembled in a growable buffer,
 * NUL, control and non-ASCII bytes refused outside comments with their line
 * and column, echoed tokens escaped with kc_escape, directories refused.
 * A statement is one line (as in LogGOPSim); '{' and '}' may share a line
 * with statements. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/grow.h"
#include "goal_internal.h"

#define CHUNK ((size_t)1 << 16)
#define MAX_TOKENS 32 /* the longest statement has 12 */

typedef enum { T_WORD, T_NUM, T_PUNCT } tok_kind;

typedef struct tok {
    tok_kind kind;
    const char *text;
    size_t len;
    long col;
    uint64_t value; /* T_NUM: magnitude */
    int negative;
    int overflow;
} tok;

/* A dependency waiting for the end of its rank block (labels may be used
 * before they are defined). */
typedef struct pending {
    size_t a, b; /* label offsets in the block's scratch pool rd.names */
    int start;
    long line;
} pending;

typedef struct rd {
    kc_goal *g;
    kc_err *err;
    FILE *f;
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    unsigned char *chunk;
    size_t total;
    kc_reader_limits lim;
    uint32_t max_ranks;
    char name[2 * KC_ESCAPE_SIZE + 32];
    char *line;
    size_t line_len, line_cap;
    long lineno;
    int in_block_comment;
    long comment_line;
    tok t[MAX_TOKENS];
    int nt;
    /* parser state */
    int have_num_ranks;
    long rank; /* open block's rank, -1 outside */
    long rank_line;
    unsigned char *rank_seen;
    /* labels of the open block: open addressing table of op indices */
    size_t *slot;
    size_t nslots, nlabels;
    size_t block_first_op;
    pending *pend;
    size_t npend, cap_pend;
    /* The pending dependencies' label names, emptied when the block closes:
     * kept out of g->text, which would otherwise hold two names per
     * dependency for the schedule's life. */
    char *names;
    size_t names_len, names_cap;
    long first_suffix_line;
} rd;

static kc_status fail(rd *r, kc_status s, const char *fmt, ...) KC_PRINTF(3, 4);
static kc_status fail(rd *r, kc_status s, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kc_fail_param(r->err, s, "schedule", "%s, %s", r->name, msg);
}

static kc_status fail_tok(rd *r, const tok *t, const char *what)
{
    char q[KC_ESCAPE_SIZE];
    kc_escape(q, sizeof q, t->text, t->len);
    return fail(r, KC_EINVAL, "line %ld, column %ld: '%s' %s", r->lineno, t->col, q, what);
}

/* ---- Lines ---- */

static kc_status refill(rd *r, int *more)
{
    *more = 0;
    if (r->mem_pos < r->mem_len) {
        *more = 1;
        return KC_OK;
    }
    if (!r->f)
        return KC_OK;
    size_t got = fread(r->chunk, 1, CHUNK, r->f);
    if (got == 0) {
        if (ferror(r->f))
            return fail(r, KC_EINVAL, "cannot read: %s", strerror(errno)); /* unreadable input: exit 2 */
        return KC_OK;
    }
    r->mem = r->chunk;
    r->mem_len = got;
    r->mem_pos = 0;
    *more = 1;
    return KC_OK;
}

/* The next line without its '\n' into r->line; *have = 0 at the end. NUL
 * bytes fail at once, so an endless stream of them costs one byte. */
static kc_status next_line(rd *r, int *have)
{
    r->line_len = 0;
    *have = 0;
    int started = 0;
    for (;;) {
        int more;
        kc_status s = refill(r, &more);
        if (s)
            return s;
        if (!more)
            break;
        if (!started) {
            started = 1;
            r->lineno++;
        }
        const unsigned char *p = r->mem + r->mem_pos;
        size_t avail = r->mem_len - r->mem_pos;
        const unsigned char *nl = memchr(p, '\n', avail);
        size_t take = nl ? (size_t)(nl - p) : avail;
        const unsigned char *z = memchr(p, '\0', take);
        if (z)
            return fail(r, KC_EINVAL, "line %ld, column %zu: NUL byte", r->lineno,
                        r->line_len + (size_t)(z - p) + 1);
        if (r->line_len + take > r->lim.max_line)
            return fail(r, KC_EINVAL, "line %ld is longer than %zu bytes", r->lineno, r->lim.max_line);
        if (r->total + take + (nl ? 1 : 0) > r->lim.max_bytes)
            return fail(r, KC_EINVAL, "the input is longer than %zu bytes", r->lim.max_bytes);
        if (KCI_RESERVE(r->line, r->line_cap, r->line_len + take + 1, 256))
            return fail(r, KC_ENOMEM, "out of memory");
        memcpy(r->line + r->line_len, p, take);
        r->line_len += take;
        r->total += take + (nl ? 1 : 0);
        r->mem_pos += take + (nl ? 1 : 0);
        if (nl)
            break;
    }
    if (started) {
        if (!r->line) { /* an empty last line never grew the buffer */
            if (!(r->line = malloc(1)))
                return fail(r, KC_ENOMEM, "out of memory");
            r->line_cap = 1;
        }
        r->line[r->line_len] = '\0';
        *have = 1;
    }
    return KC_OK;
}

/* ---- Tokens ---- */

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Comment text at s[0..len): tabs and printable bytes, valid UTF-8. */
static kc_status check_comment(rd *r, size_t from, size_t to)
{
    for (size_t i = from; i < to;) {
        unsigned char c = (unsigned char)r->line[i];
        size_t u = 1;
        if (c >= 0x80)
            u = kc_utf8_char(r->line + i, to - i);
        else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
            u = 0;
        if (u == 0)
            return fail(r, KC_EINVAL, "line %ld, column %zu: byte 0x%02x is not allowed in a comment", r->lineno,
                        i + 1, c);
        i += u;
    }
    return KC_OK;
}

static kc_status phase_comment(rd *r, size_t from, size_t to);

/* Split the line into tokens, skipping comments (a block comment may go on
 * over several lines). */
static kc_status lex(rd *r)
{
    r->nt = 0;
    const char *s = r->line;
    size_t n = r->line_len, i = 0;
    while (i < n) {
        if (r->in_block_comment) {
            const char *end = NULL;
            for (size_t j = i; j + 1 < n; j++)
                if (s[j] == '*' && s[j + 1] == '/') {
                    end = s + j;
                    break;
                }
            size_t stop = end ? (size_t)(end - s) : n;
            kc_status st = check_comment(r, i, stop);
            if (st)
                return st;
            if (!end)
                return KC_OK;
            r->in_block_comment = 0;
            i = stop + 2;
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            kc_status st = check_comment(r, i + 2, n);
            return st ? st : phase_comment(r, i + 2, n);
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            r->in_block_comment = 1;
            r->comment_line = r->lineno;
            i += 2;
            continue;
        }
        if (r->nt == MAX_TOKENS)
            return fail(r, KC_EINVAL, "line %ld, column %zu: too many words on one line", r->lineno, i + 1);
        tok *t = &r->t[r->nt];
        memset(t, 0, sizeof *t);
        t->text = s + i;
        t->col = (long)i + 1;
        size_t j = i;
        if (is_alpha(c)) {
            t->kind = T_WORD;
            while (j < n && (is_alpha(s[j]) || is_digit(s[j]) || s[j] == '_'))
                j++;
        } else if (is_digit(c) || (c == '-' && i + 1 < n && is_digit(s[i + 1]))) {
            t->kind = T_NUM;
            t->negative = c == '-';
            j += (size_t)t->negative;
            while (j < n && is_digit(s[j])) {
                unsigned d = (unsigned)(s[j] - '0');
                if (t->value > (UINT64_MAX - d) / 10)
                    t->overflow = 1;
                else
                    t->value = t->value * 10 + d;
                j++;
            }
        } else if (c == ':' || c == '{' || c == '}') {
            t->kind = T_PUNCT;
            j++;
        } else if (c >= 0x20 && c < 0x7f) {
            return fail(r, KC_EINVAL, "line %ld, column %zu: unexpected character '%c'", r->lineno, i + 1, c);
        } else {
            return fail(r, KC_EINVAL, "line %ld, column %zu: byte 0x%02x is not allowed outside comments",
                        r->lineno, i + 1, c);
        }
        t->len = j - i;
        r->nt++;
        i = j;
    }
    return KC_OK;
}

/* `// kcube-phase NAME`: NAME is one word of printable ASCII. */
static kc_status phase_comment(rd *r, size_t from, size_t to)
{
    static const char key[] = "kcube-phase";
    const char *s = r->line;
    while (from < to && (s[from] == ' ' || s[from] == '\t'))
        from++;
    while (to > from && (s[to - 1] == ' ' || s[to - 1] == '\t' || s[to - 1] == '\r'))
        to--;
    size_t kl = sizeof key - 1;
    if (to - from < kl || memcmp(s + from, key, kl) != 0 ||
        (to - from > kl && s[from + kl] != ' ' && s[from + kl] != '\t'))
        return KC_OK; /* an ordinary comment */
    size_t a = from + kl;
    while (a < to && (s[a] == ' ' || s[a] == '\t'))
        a++;
    for (size_t i = a; i < to; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return fail(r, KC_EINVAL, "line %ld, column %zu: a phase name is one word of printable ASCII",
                        r->lineno, i + 1);
    if (a == to)
        return fail(r, KC_EINVAL, "line %ld: 'kcube-phase' needs a name", r->lineno);
    char name[256];
    if (to - a >= sizeof name)
        return fail(r, KC_EINVAL, "line %ld: the phase name is longer than %zu bytes", r->lineno, sizeof name - 1);
    memcpy(name, s + a, to - a);
    name[to - a] = '\0';
    return kc_goal_set_phase(r->g, name, r->err);
}

/* ---- Statements ---- */

/* Byte by byte, not strlen and memcmp: every statement asks up to eight
 * of these, and the calls cost more than the few bytes compared. */
static int is_word(const tok *t, const char *w)
{
    if (t->kind != T_WORD)
        return 0;
    size_t i = 0;
    for (; i < t->len && w[i]; i++)
        if (t->text[i] != w[i])
            return 0;
    return i == t->len && !w[i];
}

/* Words that start a statement and so cannot be labels; as in LogGOPSim,
 * other words ("b", "tag", "requires", ...) can. */
static const char *const keywords[] = {"num_ranks", "rank", "send", "recv", "calc", NULL};

static int is_keyword(const tok *t)
{
    for (int i = 0; keywords[i]; i++)
        if (is_word(t, keywords[i]))
            return 1;
    return 0;
}

/* A number in lo..hi (-1 allowed when any_ok). */
static kc_status number(rd *r, int k, uint64_t hi, int any_ok, const char *what, int64_t *out)
{
    if (k >= r->nt)
        return fail(r, KC_EINVAL, "line %ld: the line ends where %s was expected", r->lineno, what);
    const tok *t = &r->t[k];
    if (t->kind != T_NUM) {
        char msg[96];
        snprintf(msg, sizeof msg, "is not %s", what);
        return fail_tok(r, t, msg);
    }
    if (t->negative && any_ok && t->value == 1 && !t->overflow) {
        *out = -1;
        return KC_OK;
    }
    if (t->negative || t->overflow || t->value > hi) {
        char msg[96];
        snprintf(msg, sizeof msg, "is not %s (0..%llu%s)", what, (unsigned long long)hi, any_ok ? " or -1" : "");
        return fail_tok(r, t, msg);
    }
    *out = (int64_t)t->value;
    return KC_OK;
}

static kc_status expect_word(rd *r, int k, const char *w)
{
    if (k >= r->nt)
        return fail(r, KC_EINVAL, "line %ld: the line ends where '%s' was expected", r->lineno, w);
    if (!is_word(&r->t[k], w)) {
        char msg[64];
        snprintf(msg, sizeof msg, "found where '%s' was expected", w);
        return fail_tok(r, &r->t[k], msg);
    }
    return KC_OK;
}

static kc_status expect_end(rd *r, int k)
{
    return k < r->nt ? fail_tok(r, &r->t[k], "is not expected here (the statement is complete)") : KC_OK;
}

static uint64_t hash_label(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Slot of label `s` in the open block's table (an empty slot if absent). */
static size_t *label_slot(rd *r, const char *s)
{
    size_t mask = r->nslots - 1;
    for (size_t i = (size_t)hash_label(s) & mask;; i = (i + 1) & mask) {
        size_t *p = &r->slot[i];
        if (*p == KC_GOAL_NONE || strcmp(kc_goal_label(r->g, *p), s) == 0)
            return p;
    }
}

static kc_status labels_grow(rd *r)
{
    if (2 * (r->nlabels + 1) <= r->nslots)
        return KC_OK;
    size_t n = r->nslots ? 2 * r->nslots : 64;
    size_t *old = r->slot, oldn = r->nslots;
    if (!(r->slot = malloc(n * sizeof *r->slot))) {
        r->slot = old;
        return fail(r, KC_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        r->slot[i] = KC_GOAL_NONE;
    r->nslots = n;
    for (size_t i = 0; i < oldn; i++)
        if (old[i] != KC_GOAL_NONE)
            *label_slot(r, kc_goal_label(r->g, old[i])) = old[i];
    free(old);
    return KC_OK;
}

static kc_status open_block(rd *r, int *k)
{
    int64_t v;
    if (!r->have_num_ranks)
        return fail(r, KC_EINVAL, "line %ld: a rank block comes before num_ranks", r->lineno);
    if (r->rank >= 0)
        return fail(r, KC_EINVAL, "line %ld: rank block inside the block of rank %ld (opened on line %ld)",
                    r->lineno, r->rank, r->rank_line);
    kc_status s = number(r, *k + 1, r->g->num_ranks - 1, 0, "a rank of this schedule", &v);
    if (s)
        return s;
    if (*k + 2 >= r->nt || !(r->t[*k + 2].kind == T_PUNCT && r->t[*k + 2].text[0] == '{'))
        return *k + 2 < r->nt ? fail_tok(r, &r->t[*k + 2], "found where '{' was expected")
                              : fail(r, KC_EINVAL, "line %ld: '{' expected after 'rank %lld'", r->lineno,
                                     (long long)v);
    if (r->rank_seen[v])
        return fail(r, KC_EINVAL, "line %ld: rank %lld has a second block", r->lineno, (long long)v);
    r->rank_seen[v] = 1;
    r->rank = (long)v;
    r->rank_line = r->lineno;
    r->block_first_op = r->g->nops;
    r->g->cur_phase = 0;
    *k += 3;
    return KC_OK;
}

/* Resolve the block's dependencies once all its labels are known. */
static kc_status close_block(rd *r)
{
    for (size_t i = 0; i < r->npend; i++) {
        pending *p = &r->pend[i];
        size_t op[2];
        size_t off[2] = {p->a, p->b};
        for (int j = 0; j < 2; j++) {
            const char *name = r->names + off[j];
            op[j] = r->nslots ? *label_slot(r, name) : KC_GOAL_NONE;
            if (op[j] == KC_GOAL_NONE) {
                char q[KC_ESCAPE_SIZE];
                kc_escape(q, sizeof q, name, strlen(name));
                return fail(r, KC_EINVAL, "line %ld: unknown label '%s' in rank %ld", p->line, q, r->rank);
            }
        }
        kc_status s = kc_goal_depend(r->g, op[0], op[1], p->start, p->line, r->err);
        if (s)
            return s;
    }
    r->npend = 0;
    r->names_len = 0;
    for (size_t i = 0; i < r->nslots; i++)
        r->slot[i] = KC_GOAL_NONE;
    r->nlabels = 0;
    r->rank = -1;
    return KC_OK;
}

static kc_status dependency(rd *r, int k)
{
    const tok *a = &r->t[k], *b = &r->t[k + 2];
    int start = is_word(&r->t[k + 1], "irequires");
    if (k + 2 >= r->nt)
        return fail(r, KC_EINVAL, "line %ld: a label is expected after '%s'", r->lineno,
                    start ? "irequires" : "requires");
    if (b->kind != T_WORD || is_keyword(b))
        return fail_tok(r, b, "is not a label");
    kc_status s = expect_end(r, k + 3);
    if (s)
        return s;
    if (KCI_RESERVE(r->pend, r->cap_pend, r->npend + 1, 64))
        return fail(r, KC_ENOMEM, "out of memory");
    /* The names wait in the block's pool (a dependency's labels may be defined later). */
    size_t offs[2];
    const tok *ts[2] = {a, b};
    for (int j = 0; j < 2; j++) {
        if (KCI_RESERVE(r->names, r->names_cap, r->names_len + ts[j]->len + 1, 256))
            return fail(r, KC_ENOMEM, "out of memory");
        memcpy(r->names + r->names_len, ts[j]->text, ts[j]->len);
        r->names[r->names_len + ts[j]->len] = '\0';
        offs[j] = r->names_len;
        r->names_len += ts[j]->len + 1;
    }
    r->pend[r->npend++] = (pending){offs[0], offs[1], start, r->lineno};
    return KC_OK;
}

/* `[label:] send|recv SIZE b to|from R [tag T] [cpu N] [nic N]` or
 * `[label:] calc T [cpu N]`. */
static kc_status operation(rd *r, int k, const tok *label)
{
    const tok *w = &r->t[k];
    int kind = -1;
    char word[8];
    if (w->kind == T_WORD && w->len < sizeof word) {
        memcpy(word, w->text, w->len);
        word[w->len] = '\0';
        kc_names_parse(&kc_goal_kind_names, word, &kind);
    }
    if (kind < 0)
        return fail_tok(r, w, "is not an operation (send, recv or calc)");
    int64_t amount, peer = 0, tag = 0, cpu = 0, nic = 0;
    const char *what = kind == KC_GOAL_CALC ? "a time in nanoseconds" : "a size in bytes";
    kc_status s = number(r, k + 1, (uint64_t)INT64_MAX, 0, what, &amount);
    if (s)
        return s;
    k += 2;
    if (kind != KC_GOAL_CALC) {
        int is_send = kind == KC_GOAL_SEND;
        if ((s = expect_word(r, k, "b")) || (s = expect_word(r, k + 1, is_send ? "to" : "from")) ||
            (s = number(r, k + 2, UINT32_MAX - 1u, !is_send, is_send ? "a destination rank" : "a source rank",
                        &peer)))
            return s;
        k += 3;
        if (k < r->nt && is_word(&r->t[k], "tag")) {
            if ((s = number(r, k + 1, INT32_MAX, !is_send, "a tag", &tag)))
                return s;
            k += 2;
        }
    }
    int suffix = 0;
    if (k < r->nt && is_word(&r->t[k], "cpu")) {
        if ((s = number(r, k + 1, 255, 0, "a cpu number", &cpu)))
            return s;
        k += 2;
        suffix = 1;
    }
    if (kind != KC_GOAL_CALC && k < r->nt && is_word(&r->t[k], "nic")) {
        if ((s = number(r, k + 1, 255, 0, "a nic number", &nic)))
            return s;
        k += 2;
        suffix = 1;
    }
    if ((s = expect_end(r, k)))
        return s;
    if (suffix && r->g->warnings++ == 0)
        r->first_suffix_line = r->lineno;
    char name[256];
    if (label) {
        if (label->len >= sizeof name)
            return fail(r, KC_EINVAL, "line %ld: a label is longer than %zu bytes", r->lineno, sizeof name - 1);
        memcpy(name, label->text, label->len);
        name[label->len] = '\0';
        if ((s = labels_grow(r)))
            return s;
        size_t *slot = label_slot(r, name);
        if (*slot != KC_GOAL_NONE) {
            char q[KC_ESCAPE_SIZE];
            kc_escape(q, sizeof q, name, label->len);
            return fail(r, KC_EINVAL, "line %ld: label '%s' is defined twice in rank %ld (first on line %ld)",
                        r->lineno, q, r->rank, r->g->op[*slot].line);
        }
        *slot = r->g->nops;
        r->nlabels++;
    }
    size_t idx;
    if ((s = kc_goal_add(r->g, (kc_goal_kind)kind, (uint32_t)r->rank, peer, tag, (uint64_t)amount,
                         label ? name : NULL, r->lineno, &idx, r->err)))
        return s;
    /* kept for the LogGOPS model (kcube/loggops.h); the network replay ignores them */
    r->g->op[idx].cpu = (uint8_t)cpu;
    r->g->op[idx].nic = (uint8_t)nic;
    return KC_OK;
}

static kc_status statement(rd *r)
{
    int k = 0;
    kc_status s;
    while (k < r->nt) {
        const tok *t = &r->t[k];
        if (t->kind == T_PUNCT && t->text[0] == '}') {
            if (r->rank < 0)
                return fail_tok(r, t, "closes no rank block");
            if ((s = close_block(r)))
                return s;
            k++;
            continue;
        }
        if (is_word(t, "rank")) {
            if ((s = open_block(r, &k)))
                return s;
            continue;
        }
        if (is_word(t, "num_ranks")) {
            int64_t v;
            if (r->have_num_ranks)
                return fail(r, KC_EINVAL, "line %ld: num_ranks is given twice", r->lineno);
            if ((s = number(r, k + 1, r->max_ranks, 0, "a number of ranks", &v)) || (s = expect_end(r, k + 2)))
                return s;
            if (v == 0)
                return fail(r, KC_EINVAL, "line %ld: num_ranks must be at least 1", r->lineno);
            r->g->num_ranks = (uint32_t)v;
            r->g->num_ranks_line = r->lineno;
            r->have_num_ranks = 1;
            if (!(r->rank_seen = calloc((size_t)v, 1)))
                return fail(r, KC_ENOMEM, "out of memory");
            return KC_OK;
        }
        if (r->rank < 0)
            return fail_tok(r, t, "is outside a rank block (expected num_ranks or 'rank R {')");
        if (t->kind == T_WORD && !is_keyword(t) && k + 1 < r->nt) {
            const tok *u = &r->t[k + 1];
            if (u->kind == T_PUNCT && u->text[0] == ':') {
                if (k + 2 >= r->nt)
                    return fail(r, KC_EINVAL, "line %ld: an operation is expected after the label", r->lineno);
                return operation(r, k + 2, t);
            }
            if (is_word(u, "requires") || is_word(u, "irequires"))
                return dependency(r, k);
        }
        if (t->kind == T_WORD && (is_word(t, "send") || is_word(t, "recv") || is_word(t, "calc")))
            return operation(r, k, NULL);
        return fail_tok(r, t, "does not start a statement (label, operation, dependency or '}')");
    }
    return KC_OK;
}

static kc_status run(rd *r)
{
    for (;;) {
        int have;
        kc_status s = next_line(r, &have);
        if (s)
            return s;
        if (!have)
            break;
        if ((s = lex(r)) || (s = statement(r)))
            return s;
    }
    if (r->in_block_comment)
        return fail(r, KC_EINVAL, "line %ld: the comment opened here is not closed", r->comment_line);
    if (r->rank >= 0)
        return fail(r, KC_EINVAL, "line %ld: the block of rank %ld is not closed", r->rank_line, r->rank);
    if (!r->have_num_ranks)
        return fail(r, KC_EINVAL, "no num_ranks line");
    if (r->g->warnings)
        snprintf(r->g->warning, sizeof r->g->warning,
                 "%.100s, line %ld: cpu and nic numbers are ignored (this replay gives each rank one "
                 "processor and one network interface; --model loggops and --loggops use them); %d operation%s "
                 "carry them",
                 r->name, r->first_suffix_line, r->g->warnings, r->g->warnings == 1 ? "" : "s");
    return KC_OK;
}

static kc_status read_common(rd *r, kc_goal *g, const kc_reader_limits *limits, uint32_t max_ranks, kc_err *err)
{
    r->g = g;
    r->err = err;
    r->rank = -1;
    r->lim.max_line = limits && limits->max_line ? limits->max_line : KC_READER_MAX_LINE;
    r->lim.max_bytes = limits && limits->max_bytes ? limits->max_bytes : KC_READER_MAX_BYTES;
    r->max_ranks = max_ranks ? max_ranks : KC_GOAL_MAX_RANKS;
    kc_status s = kc_goal_init(g, 0, err);
    if (!s)
        s = run(r);
    free(r->line);
    free(r->rank_seen);
    free(r->slot);
    free(r->pend);
    free(r->names);
    if (s)
        kc_goal_free(g);
    else
        g->cur_phase = 0;
    return s;
}

kc_status kc_goal_read_mem(kc_goal *g, const void *data, size_t len, const char *name,
                           const kc_reader_limits *limits, uint32_t max_ranks, kc_err *err)
{
    rd r;
    memset(&r, 0, sizeof r);
    r.mem = data;
    r.mem_len = len;
    snprintf(r.name, sizeof r.name, "%s", name);
    return read_common(&r, g, limits, max_ranks, err);
}

kc_status kc_goal_read_file(kc_goal *g, const char *path, const kc_reader_limits *limits, uint32_t max_ranks,
                            kc_err *err)
{
    memset(g, 0, sizeof *g);
    char q[KC_ESCAPE_SIZE];
    kc_escape(q, sizeof q, path, strlen(path));
    FILE *f;
    kc_status st = kc_input_open(&f, path, "schedule", "schedule", err);
    if (st)
        return st;
    rd r;
    memset(&r, 0, sizeof r);
    r.f = f;
    if (!(r.chunk = malloc(CHUNK))) {
        fclose(f);
        return kc_fail_param(err, KC_ENOMEM, "schedule", "out of memory");
    }
    snprintf(r.name, sizeof r.name, "schedule '%s'", q);
    kc_status s = read_common(&r, g, limits, max_ranks, err);
    free(r.chunk);
    fclose(f);
    return s;
}
