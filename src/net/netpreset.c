/* Machine preset files (kcube/netpreset.h): a keyword per line read through
 * the shared word reader, so a preset has the same byte, comment and length
 * rules as every other kcube input, and each bad word is reported by line
 * and column. */
#include "kcube/netpreset.h"

#include <stdio.h>
#include <string.h>

#define PARAM "network"
#define MAX_WORDS 64

enum { K_NAME, K_TITLE, K_AXES, K_SIDES, K_WRAP, K_ENDPOINTS, K_TIE, K_SOURCE, K_COUNT };
static const char *const keywords[K_COUNT] = {"name", "title", "axes", "sides", "wrap", "endpoints", "tie", "source"};

/* The reading state: which keywords were seen, for "once" and "required". */
typedef struct preset_read {
    kc_reader *r;
    kc_netpreset *p;
    int seen[K_COUNT];
} preset_read;

static int word_is(const kc_token *t, const char *s) { return t->len == strlen(s) && !memcmp(t->text, s, t->len); }

static int lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
static int alnum(char c) { return lower_or_digit(c) || (c >= 'A' && c <= 'Z'); }

/* The rest of a line, from word 1 to the end of the last word, copied
 * as written (commas and spaces inside kept): title and source. */
static kc_status rest_of_line(const preset_read *s, const kc_token *toks, int got, char *out, kc_err *err)
{
    if (got < 2)
        return kc_reader_fail_token(s->r, &toks[0], KC_EINVAL, err, "needs text after it");
    size_t len = (size_t)(toks[got - 1].text + toks[got - 1].len - toks[1].text);
    if (len >= KC_PRESET_TEXT_MAX)
        return kc_reader_fail_token(s->r, &toks[1], KC_EINVAL, err, "starts a text of %zu bytes (at most %d)", len,
                                    KC_PRESET_TEXT_MAX - 1);
    memcpy(out, toks[1].text, len);
    out[len] = '\0';
    return KC_OK;
}

static kc_status read_name(preset_read *s, kc_token *toks, int got, kc_err *err)
{
    if (got != 2)
        return kc_reader_fail_token(s->r, &toks[got > 2 ? 2 : 0], KC_EINVAL, err,
                                    got > 2 ? "is one word too many: a name is one word" : "needs a name after it");
    const kc_token *t = &toks[1];
    int ok = t->len < KC_PRESET_NAME_MAX && t->text[0] >= 'a' && t->text[0] <= 'z';
    for (size_t i = 0; ok && i < t->len; i++)
        ok = lower_or_digit(t->text[i]) || t->text[i] == '-';
    if (!ok)
        return kc_reader_fail_token(s->r, t, KC_EINVAL, err, "is not a network name (a lower-case letter, then "
                                    "letters, digits or '-', at most %d bytes)", KC_PRESET_NAME_MAX - 1);
    memcpy(s->p->name, t->text, t->len);
    s->p->name[t->len] = '\0';
    return KC_OK;
}

static kc_status read_axes(preset_read *s, kc_token *toks, int got, kc_err *err)
{
    if (got < 2)
        return kc_reader_fail_token(s->r, &toks[0], KC_EINVAL, err, "needs one name per axis after it");
    for (int i = 1; i < got; i++) {
        const kc_token *t = &toks[i];
        int ok = t->len < KC_PRESET_AXIS_MAX;
        for (size_t c = 0; ok && c < t->len; c++)
            ok = alnum(t->text[c]);
        if (!ok)
            return kc_reader_fail_token(s->r, t, KC_EINVAL, err, "is not an axis name (letters and digits, at most "
                                        "%d bytes)", KC_PRESET_AXIS_MAX - 1);
        for (int j = 1; j < i; j++)
            if (toks[j].len == t->len && !memcmp(toks[j].text, t->text, t->len))
                return kc_reader_fail_token(s->r, t, KC_EINVAL, err, "names an axis twice");
        memcpy(s->p->axis[i - 1], t->text, t->len);
        s->p->axis[i - 1][t->len] = '\0';
    }
    s->p->n = got - 1;
    return KC_OK;
}

/* A whole number lo..hi written in decimal digits; one message for every
 * other word (a sign, letters, out of range), naming the range. */
static kc_status number_in(const preset_read *s, kc_token *t, uint64_t lo, uint64_t hi, const char *what, kc_err *err)
{
    uint64_t v = 0;
    int ok = t->len > 0 && t->len <= 4;
    for (size_t c = 0; ok && c < t->len; c++) {
        ok = t->text[c] >= '0' && t->text[c] <= '9';
        v = v * 10 + (uint64_t)(t->text[c] - '0');
    }
    if (!ok || v < lo || v > hi)
        return kc_reader_fail_token(s->r, t, KC_EINVAL, err, "is not %s (%llu..%llu)", what, (unsigned long long)lo,
                                    (unsigned long long)hi);
    t->value = v;
    return KC_OK;
}

/* sides and wrap need the axes first (their count, their names). */
static kc_status need_axes(const preset_read *s, const kc_token *kw, kc_err *err)
{
    if (!s->seen[K_AXES])
        return kc_reader_fail_token(s->r, kw, KC_EINVAL, err, "comes before the axes line (name the axes first)");
    return KC_OK;
}

static kc_status read_sides(preset_read *s, kc_token *toks, int got, kc_err *err)
{
    kc_status st = need_axes(s, &toks[0], err);
    if (st)
        return st;
    if (got - 1 != s->p->n)
        return kc_reader_fail_token(s->r, &toks[got - 1 > s->p->n ? s->p->n + 1 : 0], KC_EINVAL, err,
                                    got - 1 > s->p->n ? "is one side too many: the axes line names %d axes"
                                                      : "gives fewer sides than the %d axes", s->p->n);
    for (int i = 1; i < got; i++) {
        if ((st = number_in(s, &toks[i], 2, KC_TOPO_MAX_SIDE, "a side", err)))
            return st;
        s->p->side[i - 1] = (int)toks[i].value;
    }
    return KC_OK;
}

/* An axis by name, or by number when the word is all digits; -1 if none. */
static int axis_of(const kc_netpreset *p, const kc_token *t)
{
    for (int i = 0; i < p->n; i++)
        if (strlen(p->axis[i]) == t->len && !memcmp(p->axis[i], t->text, t->len))
            return i;
    int v = 0;
    for (size_t c = 0; c < t->len; c++) {
        if (t->text[c] < '0' || t->text[c] > '9' || v > p->n)
            return -1;
        v = v * 10 + (t->text[c] - '0');
    }
    return t->len && v < p->n ? v : -1;
}

static kc_status read_wrap(preset_read *s, kc_token *toks, int got, kc_err *err)
{
    kc_status st = need_axes(s, &toks[0], err);
    if (st)
        return st;
    if (got < 2)
        return kc_reader_fail_token(s->r, &toks[0], KC_EINVAL, err, "needs all, none or the axes that are rings");
    int all = word_is(&toks[1], "all"), none = word_is(&toks[1], "none");
    if ((all || none) && got > 2)
        return kc_reader_fail_token(s->r, &toks[2], KC_EINVAL, err, "follows '%s', which stands alone",
                                    all ? "all" : "none");
    if (all || none) {
        s->p->wrap = none ? 0 : s->p->n >= 64 ? UINT64_MAX : ((uint64_t)1 << s->p->n) - 1;
        return KC_OK;
    }
    uint64_t m = 0;
    for (int i = 1; i < got; i++) {
        int a = axis_of(s->p, &toks[i]);
        if (a < 0)
            return kc_reader_fail_token(s->r, &toks[i], KC_EINVAL, err, "is not an axis of this network");
        if (m >> a & 1)
            return kc_reader_fail_token(s->r, &toks[i], KC_EINVAL, err, "names axis %d twice", a);
        m |= (uint64_t)1 << a;
    }
    s->p->wrap = m;
    return KC_OK;
}

static kc_status read_endpoints(preset_read *s, kc_token *toks, int got, kc_err *err)
{
    if (got != 2)
        return kc_reader_fail_token(s->r, &toks[got > 2 ? 2 : 0], KC_EINVAL, err,
                                    got > 2 ? "is one word too many" : "needs the endpoints per router after it");
    kc_status st = number_in(s, &toks[1], 1, KC_TOPO_MAX_ENDPOINTS, "a number of endpoints", err);
    if (!st)
        s->p->endpoints = (int)toks[1].value;
    return st;
}

static kc_status read_tie(preset_read *s, kc_token *toks, int got, kc_err *err)
{
    if (got != 2)
        return kc_reader_fail_token(s->r, &toks[got > 2 ? 2 : 0], KC_EINVAL, err,
                                    got > 2 ? "is one word too many" : "needs plus, minus or split after it");
    for (const kc_name *e = kc_tie_names.entries; e->name; e++)
        if (word_is(&toks[1], e->name)) {
            s->p->tie = (kc_tie)e->value;
            return KC_OK;
        }
    return kc_reader_fail_token(s->r, &toks[1], KC_EINVAL, err, "is not a tie rule (plus, minus or split)");
}

/* One line: its keyword, then the keyword's own reader. */
static kc_status read_line(preset_read *s, kc_token *toks, int got, kc_err *err)
{
    int k = 0;
    while (k < K_COUNT && !word_is(&toks[0], keywords[k]))
        k++;
    if (k == K_COUNT)
        return kc_reader_fail_token(s->r, &toks[0], KC_EINVAL, err, "is not a keyword (name, title, axes, sides, "
                                    "wrap, endpoints, tie, source)");
    if (s->seen[k] && k != K_SOURCE)
        return kc_reader_fail_token(s->r, &toks[0], KC_EINVAL, err, "is given twice");
    if (k == K_SOURCE && s->p->nsources == KC_PRESET_SOURCES)
        return kc_reader_fail_token(s->r, &toks[0], KC_EINVAL, err, "is one line too many (at most %d)",
                                    KC_PRESET_SOURCES);
    s->seen[k] = 1;
    switch (k) {
    case K_NAME: return read_name(s, toks, got, err);
    case K_TITLE: return rest_of_line(s, toks, got, s->p->title, err);
    case K_AXES: return read_axes(s, toks, got, err);
    case K_SIDES: return read_sides(s, toks, got, err);
    case K_WRAP: return read_wrap(s, toks, got, err);
    case K_ENDPOINTS: return read_endpoints(s, toks, got, err);
    case K_TIE: return read_tie(s, toks, got, err);
    default: return rest_of_line(s, toks, got, s->p->source[s->p->nsources++], err);
    }
}

kc_status kc_netpreset_read(kc_netpreset *p, kc_reader *r, kc_err *err)
{
    memset(p, 0, sizeof *p);
    p->endpoints = 1;
    preset_read s = {.r = r, .p = p};
    kc_token toks[MAX_WORDS];
    for (;;) {
        int got = 0;
        kc_status st = kc_reader_words(r, toks, MAX_WORDS, &got, err);
        if (st)
            return st;
        if (!got)
            break;
        if ((st = read_line(&s, toks, got, err)))
            return st;
    }
    static const int required[] = {K_NAME, K_AXES, K_SIDES};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!s.seen[required[i]])
            return kc_fail_param(err, KC_EINVAL, PARAM, "%s has no '%s' line", kc_reader_name(r),
                                 keywords[required[i]]);
    if (!s.seen[K_WRAP])
        p->wrap = p->n >= 64 ? UINT64_MAX : ((uint64_t)1 << p->n) - 1;
    return KC_OK;
}

kc_status kc_netpreset_read_path(kc_netpreset *p, const char *path, kc_err *err)
{
    kc_reader *r = NULL;
    kc_status s = kc_reader_open(&r, path, "network file", PARAM, NULL, err);
    if (!s)
        s = kc_netpreset_read(p, r, err);
    kc_reader_close(r);
    return s;
}

kc_status kc_netpreset_topology(const kc_netpreset *p, kc_topology *t, kc_err *err)
{
    kc_status s = kc_topology_shape(t, KC_TOPO_TORUS, p->side, p->n, p->tie, err);
    if (!s)
        s = kc_topology_set_wrap(t, p->wrap, err);
    if (!s)
        s = kc_topology_set_endpoints(t, p->endpoints, err);
    return s;
}

char *kc_netpreset_shape(const kc_netpreset *p, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->n && o < size; i++) {
        int w = snprintf(buf + o, size - o, i ? "x%d" : "%d", p->side[i]);
        if (w < 0)
            break;
        o += (size_t)w;
    }
    return buf;
}
