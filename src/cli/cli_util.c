#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

/* One line on stderr whatever the message holds: control bytes (say, a
 * newline inside an echoed argument) are escaped like cli_quote does, but
 * nothing is cut. */
static int needs_escape(const char *msg, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)msg[i];
        size_t u = kc_utf8_char(msg + i, len - i);
        if (c < 0x20 || c == 0x7f || !u)
            return 1;
        i += u;
    }
    return 0;
}

void kc_cli_emit(const char *msg)
{
    /* Text already quoted by cli_quote has no control bytes: print it as is
     * (escaping again would double its backslashes). */
    size_t len = strlen(msg), size = 4 * len + 8;
    char *esc = needs_escape(msg, len) ? malloc(size) : NULL;
    fputs("kcube: ", stderr);
    fputs(esc ? kc_escape(esc, size, msg, len) : msg, stderr);
    fputc('\n', stderr);
    free(esc);
}

int kc_cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[512], *msg = small;
    int need = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (need >= (int)sizeof small && (msg = malloc((size_t)need + 1))) {
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)need + 1, fmt, ap);
        va_end(ap);
    }
    kc_cli_emit(msg ? msg : small);
    if (msg != small)
        free(msg);
    return KC_EXIT_USAGE;
}

int kc_cli_report(const kc_err *err) { return cli_report(NULL, err); }

int kc_cli_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *val = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        kc_cli_error("option %s needs a value", name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int kc_cli_flag(const char *arg, const char *name) { return strcmp(arg, name) == 0; }

int kc_cli_is_help(const char *arg) { return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0; }

int kc_cli_int(const char *text, long lo, long hi, const char *what, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    cli_quoted q;
    if (end == text || *end != '\0')
        return kc_cli_error("%s must be a whole number, got '%s'", what, cli_quote(&q, text)), -1;
    /* Out-of-range values are echoed as given, not as strtol clamped them. */
    if (errno == ERANGE || v < lo || v > hi)
        return kc_cli_error("%s = %s is out of range %ld..%ld", what, cli_quote(&q, text), lo, hi), -1;
    *out = v;
    return 0;
}

int kc_cli_double(const char *text, double lo, double hi, const char *what, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    cli_quoted q;
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
        return kc_cli_error("%s must be a number, got '%s'", what, cli_quote(&q, text)), -1;
    if (v < lo || v > hi)
        return kc_cli_error("%s = %s is out of range %g..%g", what, cli_quote(&q, text), lo, hi), -1;
    *out = v;
    return 0;
}

int kc_cli_format_flag(const char *arg, kc_format *fmt)
{
    if (strcmp(arg, "--json") == 0) {
        *fmt = KC_FMT_JSON;
        return 1;
    }
    if (strcmp(arg, "--csv") == 0) {
        *fmt = KC_FMT_CSV;
        return 1;
    }
    return 0;
}

int kc_cli_print_json(cJSON *root)
{
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    /* cJSON copies bytes >= 0x80 as they are: make the document valid UTF-8. */
    char *fixed = text ? cli_utf8_fix(text, strlen(text)) : NULL;
    free(text);
    if (!fixed) {
        kc_cli_error("out of memory while writing JSON");
        return KC_EXIT_FAIL;
    }
    /* Errors are sticky on stdout; cli_finish() reports them once, at the end. */
    fputs(fixed, stdout);
    fputc('\n', stdout);
    free(fixed);
    return KC_EXIT_OK;
}

cJSON *kc_cli_json_u64(uint64_t v)
{
    if (v <= (1ULL << 53))
        return cJSON_CreateNumber((double)v);
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return cJSON_CreateString(buf);
}

cJSON *kc_cli_json_u64_array(const uint64_t *v, int count)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < count; i++)
        cJSON_AddItemToArray(a, kc_cli_json_u64(v[i]));
    return a;
}

void kc_cli_progress_init(kc_cli_progress *p, const char *label)
{
    p->label = label;
    p->active = isatty(STDERR_FILENO);
    p->last_percent = -1;
}

void kc_cli_progress_cb(void *ctx, double done, double total)
{
    kc_cli_progress *p = ctx;
    if (!p->active || total <= 0)
        return;
    int pct = (int)(100.0 * done / total);
    if (pct == p->last_percent)
        return;
    p->last_percent = pct;
    fprintf(stderr, "\r%s: %3d%%", p->label, pct);
    fflush(stderr);
}

void kc_cli_progress_done(kc_cli_progress *p)
{
    if (p->active && p->last_percent >= 0)
        fprintf(stderr, "\r%*s\r", (int)strlen(p->label) + 8, "");
    p->last_percent = -1;
}

void kc_comm_list_init(kc_comm_list *l, const char *command, int single, int allow_scatter)
{
    l->command = command;
    l->single = single;
    l->allow_scatter = allow_scatter;
    l->count = 0;
    l->single_scatter = 0;
    l->scatter[0] = 0;
}

static int add_spec(kc_comm_list *l, const char *pattern, const char *matrix)
{
    if (l->single && l->count == 1) {
        kc_cli_error("%s takes one communication: give --pattern or --matrix once", l->command);
        return -1;
    }
    if (l->count == KC_CLI_MAX_COMMS) {
        kc_cli_error("at most %d communications", KC_CLI_MAX_COMMS);
        return -1;
    }
    if (!l->single || l->count == 0) {
        l->spec[l->count] = (kc_comm_spec){pattern, matrix, NULL};
        if (!l->single)
            l->scatter[l->count] = 0;
    }
    l->count++;
    return 1;
}

int kc_cli_comm_opt(int argc, char **argv, int *i, kc_comm_list *l)
{
    const char *v;
    int r;
    if ((r = kc_cli_opt(argc, argv, i, "--pattern", &v)))
        return r < 0 ? -1 : add_spec(l, v, NULL);
    if ((r = kc_cli_opt(argc, argv, i, "--matrix", &v)))
        return r < 0 ? -1 : add_spec(l, NULL, v);
    if ((r = kc_cli_opt(argc, argv, i, "--vector", &v))) {
        if (r < 0)
            return -1;
        kc_comm_spec *last = l->count ? &l->spec[l->count - 1] : NULL;
        if (!last || !last->matrix || last->vector) {
            kc_cli_error("--vector must follow a --matrix");
            return -1;
        }
        last->vector = v;
        return 1;
    }
    if (l->allow_scatter && kc_cli_flag(argv[*i], "--scatter")) {
        /* A single communication takes --scatter anywhere on the line. */
        if (l->single) {
            l->scatter[0] = 1;
            return 1;
        }
        if (!l->count || !l->spec[l->count - 1].matrix) {
            kc_cli_error("--scatter must follow a --matrix");
            return -1;
        }
        l->scatter[l->count - 1] = 1;
        return 1;
    }
    return 0;
}

kc_status kc_cli_build_lcc(const kc_comm_spec *spec, int n, int scatter, kc_lcc *out, kc_err *err)
{
    if (spec->pattern) {
        kc_status s = kc_lcc_named(out, spec->pattern, n, err);
        if (s)
            return s;
        if (scatter && out->kind != KC_LCC_SCATTER)
            return kc_fail(err, KC_EINVAL, "--scatter does not apply to pattern %s (a %s)", spec->pattern,
                           kc_lcc_kind_name(out->kind));
        return KC_OK;
    }
    kc_bitmat a;
    uint64_t b = 0;
    kc_status s = kc_bitmat_parse(&a, spec->matrix, n, err);
    if (s)
        return s;
    if (spec->vector && (s = kc_vec_parse(&b, spec->vector, n, err)))
        return s;
    return kc_lcc_init(out, &a, b, scatter, err);
}

void kc_cli_print_patterns(FILE *out)
{
    const kc_pattern_info *p;
    fputs("patterns:\n", out);
    for (size_t i = 0; (p = kc_lcc_pattern(i)); i++)
        fprintf(out, "  %-22s %s\n", p->name, p->summary);
}
