#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

int cli_writes_output(const cli_args *a) { return !a->host || !a->host->helper; }

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

void cli_emit(const char *msg)
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

int cli_error(const char *fmt, ...)
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
    cli_emit(msg ? msg : small);
    if (msg != small)
        free(msg);
    return CLI_EXIT_USAGE;
}


int cli_print_json(cJSON *root)
{
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    /* cJSON copies bytes >= 0x80 as they are: make the document valid UTF-8. */
    char *fixed = text ? cli_utf8_fix(text, strlen(text)) : NULL;
    free(text);
    if (!fixed) {
        cli_error("out of memory while writing JSON");
        return CLI_EXIT_FAIL;
    }
    /* Errors are sticky on stdout; cli_finish() reports them once, at the end. */
    fputs(fixed, stdout);
    fputc('\n', stdout);
    free(fixed);
    return CLI_EXIT_OK;
}

/* cJSON keeps every number as a double, exact only up to 2^53 and printed
 * with 15 significant digits: integers go in as their own decimal text. */
cJSON *cli_json_u64(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return cJSON_CreateRaw(buf);
}

cJSON *cli_json_i64(int64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return cJSON_CreateRaw(buf);
}

void cli_json_add_u64(cJSON *obj, const char *name, uint64_t v)
{
    cJSON_AddItemToObject(obj, name, cli_json_u64(v));
}

void cli_json_add_int(cJSON *obj, const char *name, int64_t v)
{
    cJSON_AddItemToObject(obj, name, cli_json_i64(v));
}

cJSON *cli_json_u64_array(const uint64_t *v, int count)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < count; i++)
        cJSON_AddItemToArray(a, cli_json_u64(v[i]));
    return a;
}

void cli_progress_init(cli_progress_bar *p, const char *label)
{
    p->label = label;
    p->active = isatty(STDERR_FILENO);
    p->last_percent = -1;
}

void cli_progress_cb(void *ctx, double done, double total)
{
    cli_progress_bar *p = ctx;
    if (!p->active || total <= 0)
        return;
    int pct = (int)(100.0 * done / total);
    if (pct == p->last_percent)
        return;
    p->last_percent = pct;
    fprintf(stderr, "\r%s: %3d%%", p->label, pct);
    fflush(stderr);
}

void cli_progress_done(cli_progress_bar *p)
{
    if (p->active && p->last_percent >= 0)
        fprintf(stderr, "\r%*s\r", (int)strlen(p->label) + 8, "");
    p->last_percent = -1;
}

void cli_comms_init(cli_comms *l, const char *command, int single, int allow_scatter)
{
    l->command = command;
    l->single = single;
    l->allow_scatter = allow_scatter;
    l->count = 0;
    l->single_scatter = 0;
    l->scatter[0] = 0;
}

kc_status cli_build_lcc(const cli_comm_spec *spec, int n, int scatter, kc_lcc *out, kc_err *err)
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

void cli_print_patterns(FILE *out)
{
    const kc_pattern_info *p;
    fputs("patterns:\n", out);
    for (size_t i = 0; (p = kc_lcc_pattern(i)); i++)
        fprintf(out, "  %-22s %s\n", p->name, p->summary);
}
