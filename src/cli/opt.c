/* The declarative option layer (opt.h): one parser, generated help, typed
 * values checked once against the option's definition. */
#include "opt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/grow.h"
#include "core/near.h"
#include "options.h"
#include "seeds.h"
#include "text.h"

static const cli_use *find_use(const cli_command *cmd, const char *name, size_t len)
{
    for (const cli_use *u = cmd->opts; u && u->opt; u++)
        if (strlen(u->opt->name) == len && strncmp(u->opt->name, name, len) == 0)
            return u;
    return NULL;
}

static const cli_alias *find_alias(const cli_command *cmd, const char *name, size_t len)
{
    for (const cli_alias *al = cmd->aliases; al && al->name; al++)
        if (strlen(al->name) == len && strncmp(al->name, name, len) == 0)
            return al;
    return NULL;
}

static const cli_opt *find_shared(const char *name, size_t len)
{
    for (size_t i = 0; cli_shared_options[i]; i++)
        if (strlen(cli_shared_options[i]->name) == len && strncmp(cli_shared_options[i]->name, name, len) == 0)
            return cli_shared_options[i];
    return NULL;
}

static int bad(const cli_opt *o, const char *fmt, const char *text)
{
    cli_quoted q;
    char what[96];
    snprintf(what, sizeof what, "--%s: ", o->name);
    fprintf(stderr, "kcube: %s", what);
    fprintf(stderr, fmt, cli_quote(&q, text));
    fputc('\n', stderr);
    return 2;
}

static int out_of_range(const cli_opt *o, const char *text, const char *range)
{
    cli_quoted q;
    fprintf(stderr, "kcube: --%s: %s is out of range %s\n", o->name, cli_quote(&q, text), range);
    return 2;
}

/* strtod with the whole text consumed, no leading space, finite. */
static int parse_real(const char *text, double *out)
{
    char *end;
    if (!*text || *text == ' ' || *text == '\t')
        return -1;
    errno = 0;
    double v = strtod(text, &end);
    if (*end != '\0' || !isfinite(v) || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* One rule for every whole number: decimal digits, a leading '-' only where
 * the value may be negative; no '+', no spaces, no base prefix. */
static int all_digits(const char *s, int allow_minus)
{
    if (allow_minus && *s == '-')
        s++;
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static int parse_int(const cli_opt *o, const char *text, cli_value *out)
{
    if (!all_digits(text, 1))
        return bad(o, "'%s' is not a whole number", text);
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno == ERANGE || v < o->lo || v > o->hi) {
        char range[64];
        snprintf(range, sizeof range, "%lld..%lld", o->lo, o->hi);
        return out_of_range(o, text, range);
    }
    out->v.i = v;
    return 0;
}

static int parse_u64(const cli_opt *o, const char *text, cli_value *out)
{
    if (text[0] == '-' && all_digits(text + 1, 0))
        return bad(o, "%s is negative: give 0..18446744073709551615", text);
    if (!all_digits(text, 0))
        return bad(o, "'%s' is not a whole number", text);
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE)
        return bad(o, "%s is too large: give 0..18446744073709551615", text);
    out->v.u = v;
    return 0;
}

static int parse_choice(const cli_opt *o, const char *text, cli_value *out)
{
    if (kc_names_parse(o->choices, text, &out->v.choice) == 0)
        return 0;
    char list[512];
    cli_quoted q;
    const char *near = kci_near_name(o->choices, text);
    fprintf(stderr, "kcube: --%s: unknown %s '%s'%s%s%s (one of %s)\n", o->name, o->choices->what,
            cli_quote(&q, text), near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "",
            kc_names_join(o->choices, list, sizeof list));
    return 2;
}

static int parse_range(const cli_opt *o, const char *text, cli_value *out)
{
    const char *c1 = strchr(text, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || strchr(c2 + 1, ':'))
        return bad(o, "'%s' is not FROM:TO:STEP", text);
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy) {
        fprintf(stderr, "kcube: out of memory\n");
        return 1;
    }
    memcpy(copy, text, len + 1);
    copy[c1 - text] = '\0';
    copy[c2 - text] = '\0';
    double from, to, step;
    int ok = parse_real(copy, &from) == 0 && parse_real(copy + (c1 - text) + 1, &to) == 0 &&
             parse_real(copy + (c2 - text) + 1, &step) == 0;
    free(copy);
    if (!ok)
        return bad(o, "'%s' is not FROM:TO:STEP with three finite numbers", text);
    if (!(step > 0) || from > to)
        return bad(o, "'%s' needs FROM <= TO and STEP > 0", text);
    if (from < o->rlo || to > o->rhi) {
        cli_quoted q;
        fprintf(stderr, "kcube: --%s: %s leaves the range %g..%g\n", o->name, cli_quote(&q, text), o->rlo, o->rhi);
        return 2;
    }
    /* Counted in double: a huge quotient must not reach an int conversion. */
    double points = floor((to - from) / step * (1 + 1e-12)) + 1;
    if (!(points <= CLI_RANGE_MAX)) {
        cli_quoted q;
        fprintf(stderr, "kcube: --%s: %s asks for %.4g points; at most %d\n", o->name, cli_quote(&q, text),
                points, CLI_RANGE_MAX);
        return 2;
    }
    out->v.range.from = from;
    out->v.range.to = to;
    out->v.range.step = step;
    out->v.range.count = (long long)points;
    return 0;
}

static int parse_bytes(const cli_opt *o, const char *text, cli_value *out)
{
    size_t digits = strspn(text, "0123456789");
    const char *suffix = text + digits;
    int shift = 0;
    if (*suffix) {
        const char *units = "KMGT";
        const char *u = strchr(units, suffix[0]);
        if (!u || !suffix[0])
            return bad(o, "'%s' is not a size (a whole number of bytes, optionally with K, M, G or T)", text);
        shift = 10 * (int)(u - units + 1);
        const char *rest = suffix + 1;
        if (strcmp(rest, "") != 0 && strcmp(rest, "B") != 0 && strcmp(rest, "iB") != 0)
            return bad(o, "'%s' is not a size (a whole number of bytes, optionally with K, M, G or T)", text);
    }
    if (digits == 0)
        return bad(o, "'%s' is not a size (a whole number of bytes, optionally with K, M, G or T)", text);
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || (shift && v > (UINT64_MAX >> shift)))
        return bad(o, "%s is too large", text);
    out->v.bytes = (uint64_t)v << shift;
    return 0;
}

int cli_parse_value(const cli_opt *o, const char *text, cli_value *out)
{
    out->opt = o;
    out->text = text;
    switch (o->type) {
    case CLI_FLAG:
        return 0;
    case CLI_INT:
        return parse_int(o, text, out);
    case CLI_U64:
        return parse_u64(o, text, out);
    case CLI_REAL: {
        double v;
        if (parse_real(text, &v))
            return bad(o, "'%s' is not a finite number", text);
        if (v < o->rlo || v > o->rhi) {
            char range[64];
            snprintf(range, sizeof range, "%g..%g", o->rlo, o->rhi);
            return out_of_range(o, text, range);
        }
        out->v.r = v;
        return 0;
    }
    case CLI_TEXT:
        if (!*text)
            return bad(o, "needs a value%s", "");
        return 0;
    case CLI_CHOICE:
        return parse_choice(o, text, out);
    case CLI_RANGE:
        return parse_range(o, text, out);
    case CLI_BYTES:
        return parse_bytes(o, text, out);
    }
    return 1;
}

/* ---- parsing ---------------------------------------------------------- */

typedef struct parser {
    cli_args *a;
    size_t cap;
} parser;

static int push(parser *p, const cli_opt *o, const char *text, int from_user)
{
    if (from_user && !(o->flags & CLI_REPEAT) && cli_given(p->a, o)) {
        fprintf(stderr, "kcube: --%s is given twice (give it once)\n", o->name);
        return 2;
    }
    if (KCI_RESERVE(p->a->vals, p->cap, p->a->nvals + 1, 16)) {
        fprintf(stderr, "kcube: out of memory\n");
        return 1;
    }
    cli_value *v = &p->a->vals[p->a->nvals];
    memset(v, 0, sizeof *v);
    int r = cli_parse_value(o, text ? text : "", v);
    if (r)
        return r;
    v->from_user = from_user;
    p->a->nvals++;
    if (from_user)
        p->a->nuser = p->a->nvals;
    return 0;
}

/* A value given under an old spelling (a renamed option's alias): checked
 * and kept as o's, but every message about it names the spelling used. */
static int push_spelled(parser *p, const cli_opt *o, const char *text, const char *spelled)
{
    if (!(o->flags & CLI_REPEAT) && cli_given(p->a, o)) {
        fprintf(stderr, "kcube: --%s is given twice (--%s is its old spelling; give it once)\n", o->name, spelled);
        return 2;
    }
    cli_opt as_spelled = *o;
    as_spelled.name = spelled;
    int r = push(p, &as_spelled, text, 1);
    if (!r) {
        p->a->vals[p->a->nvals - 1].opt = o;
        p->a->vals[p->a->nvals - 1].spelled = spelled;
    }
    return r;
}

/* Does this argument look like a mesh shape (16x16, 4x2x8, 2,32, 64)? */
static int looks_like_shape(const char *s)
{
    if (!(*s >= '0' && *s <= '9'))
        return 0;
    return strspn(s, "0123456789xX,") == strlen(s);
}

static int is_help(const char *arg) { return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0; }

const cli_narrow *cli_narrowed(const cli_command *cmd, const cli_opt *o)
{
    for (const cli_narrow *n = cmd->narrow; n && n->opt; n++)
        if (n->opt == o)
            return n;
    return NULL;
}

int cli_allows(const cli_command *cmd, const cli_opt *o, const char *name)
{
    const cli_narrow *nw = cli_narrowed(cmd, o);
    if (!nw || !nw->only)
        return 1;
    size_t len = strlen(name);
    for (const char *s = nw->only; *s;) {
        size_t word = strcspn(s, "|");
        if (word == len && strncmp(s, name, len) == 0)
            return 1;
        s += word;
        if (*s == '|')
            s++;
    }
    return 0;
}

/* A choice this command narrowed (cli_narrow.only) refuses the other names,
 * however they were given (also through an alias such as --mesh). */
static int check_only(const cli_command *cmd, const cli_args *a)
{
    for (size_t i = 0; i < a->nuser; i++) {
        const cli_value *v = &a->vals[i];
        if (v->opt->type != CLI_CHOICE)
            continue;
        const char *name = kc_names_name(v->opt->choices, v->v.choice);
        if (!cli_allows(cmd, v->opt, name)) {
            fprintf(stderr, "kcube: --%s: %s takes %s, not %s\n", v->opt->name, a->path,
                    cli_narrowed(cmd, v->opt)->only, name);
            return 2;
        }
    }
    return 0;
}

static const cli_command *find_sub(const cli_command *cmd, const char *name)
{
    for (size_t i = 0; cmd->subs && cmd->subs[i]; i++)
        if (strcmp(cmd->subs[i]->name, name) == 0)
            return cmd->subs[i];
    return NULL;
}

static char *join_path(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    s[la] = ' ';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}

/* One line for --name that cmd does not know, naming the option or old
 * spelling it nearly is. */
static void unknown_option(const cli_command *cmd, const char *path, const char *shown, const char *name, size_t len)
{
    kci_near near;
    kci_near_init(&near, name, len);
    for (const cli_use *u = cmd->opts; u && u->opt; u++)
        kci_near_offer(&near, u->opt->name, strlen(u->opt->name));
    for (const cli_alias *al = cmd->aliases; al && al->name; al++)
        kci_near_offer(&near, al->name, strlen(al->name));
    size_t blen;
    const char *best = kci_near_best(&near, &blen);
    cli_quoted q;
    if (best)
        fprintf(stderr, "kcube: unknown option '%s' for %s; did you mean --%.*s? (kcube %s --help lists its options)\n",
                cli_quote(&q, shown), path, (int)blen, best, path);
    else
        fprintf(stderr, "kcube: unknown option '%s' for %s (kcube %s --help lists its options)\n",
                cli_quote(&q, shown), path, path);
}

static int parse_option(parser *p, const cli_command *cmd, int argc, char **argv, int *i)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const cli_use *use = find_use(cmd, arg, len);
    const cli_alias *al = use ? NULL : find_alias(cmd, arg, len);
    const cli_opt *o = use ? use->opt : al ? al->target : NULL;
    cli_quoted q;
    if (!o) {
        const cli_opt *shared = find_shared(arg, len);
        char *name = strndup(argv[*i], eq ? (size_t)(eq - argv[*i]) : strlen(argv[*i]));
        if (!name)
            return 1;
        if (shared)
            fprintf(stderr, "kcube: %s does not apply to %s (kcube %s --help lists its options)\n",
                    cli_quote(&q, name), p->a->path, p->a->path);
        else
            unknown_option(cmd, p->a->path, name, arg, len);
        free(name);
        return 2;
    }
    if (al && al->value) {
        /* A flag alias: --mesh means --topology mesh (and maybe a shape). */
        if (eq && !al->shape_target) {
            fprintf(stderr, "kcube: --%s takes no value\n", al->name);
            return 2;
        }
        int r = push(p, o, al->value, 1);
        if (r)
            return r;
        if (al->shape_target) {
            if (eq)
                return push(p, al->shape_target, eq + 1, 1);
            if (*i + 1 < argc && looks_like_shape(argv[*i + 1]))
                return push(p, al->shape_target, argv[++*i], 1);
        }
        return 0;
    }
    if (o->type == CLI_FLAG) {
        if (eq) {
            fprintf(stderr, "kcube: --%s takes no value\n", o->name);
            return 2;
        }
        return push(p, o, NULL, 1);
    }
    const char *val;
    if (eq)
        val = eq + 1;
    else if (*i + 1 < argc)
        val = argv[++*i];
    else {
        fprintf(stderr, "kcube: --%s needs a value\n", al ? al->name : o->name);
        return 2;
    }
    return al ? push_spelled(p, o, val, al->name) : push(p, o, val, 1);
}

static int add_defaults(parser *p, const cli_command *cmd)
{
    for (const cli_use *u = cmd->opts; u && u->opt; u++) {
        const char *def = CLI_IS_REQUIRED(u) ? NULL : u->def ? u->def : u->opt->def;
        if (def && u->opt->type != CLI_FLAG && !cli_given(p->a, u->opt)) {
            int r = push(p, u->opt, def, 0);
            if (r) {
                fprintf(stderr, "kcube: internal error: bad default for --%s\n", u->opt->name);
                return 1;
            }
        }
    }
    return 0;
}

static int parse_cmd(const cli_command *cmd, char *path, int argc, char **argv, cli_args *out, FILE *help_out);

/* argv[0] names a subcommand of cmd: parse the rest for it. */
static int enter_sub(const cli_command *cmd, int argc, char **argv, cli_args *out, FILE *help_out)
{
    const cli_command *sub = find_sub(cmd, argv[0]);
    cli_quoted q;
    int r = 0;
    if (!sub) {
        fprintf(stderr, "kcube: unknown subcommand '%s' for %s (kcube %s --help lists them)\n",
                cli_quote(&q, argv[0]), out->path, out->path);
        r = 2;
    } else if (out->nuser) {
        fprintf(stderr, "kcube: options go after the subcommand: kcube %s %s ...\n", out->path, sub->name);
        r = 2;
    }
    char *sub_path = r ? NULL : join_path(out->path, sub->name);
    if (!r && !sub_path) {
        fprintf(stderr, "kcube: out of memory\n");
        r = 1;
    }
    cli_args_free(out);
    return r ? r : parse_cmd(sub, sub_path, argc, argv, out, help_out);
}

static int check_positionals(const cli_command *cmd, const cli_args *out)
{
    cli_quoted q;
    if (cmd->subs && !cmd->run && out->npos == 0)
        fprintf(stderr, "kcube: %s needs a subcommand (kcube %s --help lists them)\n", out->path, out->path);
    else if ((int)out->npos >= cmd->min_pos && (int)out->npos <= cmd->max_pos)
        return 0;
    else if (cmd->max_pos == 0)
        fprintf(stderr, "kcube: unexpected argument '%s' for %s\n", cli_quote(&q, out->pos[0]), out->path);
    else if ((int)out->npos < cmd->min_pos)
        fprintf(stderr, "kcube: %s needs %s\n", out->path, cmd->positional ? cmd->positional : "an argument");
    else
        fprintf(stderr, "kcube: %s takes at most %d %s\n", out->path, cmd->max_pos,
                cmd->max_pos == 1 ? "argument" : "arguments");
    return 2;
}

/* Every option the command cannot run without was given: 0, else 2 after
 * one line naming the first one missing. */
static int check_required(const cli_command *cmd, const cli_args *out)
{
    for (const cli_use *u = cmd->opts; u && u->opt; u++)
        if (CLI_IS_REQUIRED(u) && !cli_given(out, u->opt)) {
            char meta[256];
            cli_opt_meta(cmd, u->opt, meta, sizeof meta);
            fprintf(stderr, "kcube: %s needs --%s%s%s\n", out->path, u->opt->name, meta[0] ? " " : "", meta);
            return 2;
        }
    return 0;
}

/* Returns 0, 1 (help printed), 2 (bad input) or 1 (no memory); out is
 * freed on anything but 0. */
static int parse_cmd(const cli_command *cmd, char *path, int argc, char **argv, cli_args *out, FILE *help_out)
{
    parser p = {out, 0};
    memset(out, 0, sizeof *out);
    out->cmd = cmd;
    out->path = path;
    out->pos = calloc((size_t)argc + 1, sizeof *out->pos);
    if (!out->pos) {
        free(path);
        fprintf(stderr, "kcube: out of memory\n");
        return 1;
    }
    int only_pos = 0, r = 0;
    for (int i = 1; i < argc && !r; i++) {
        const char *arg = argv[i];
        if (only_pos) {
            out->pos[out->npos++] = arg;
        } else if (is_help(arg)) {
            cli_help(cmd, path, help_out);
            r = 1;
        } else if (strcmp(arg, "--version") == 0) {
            fprintf(help_out, "%s\n", CLI_VERSION_LINE);
            r = 1;
        } else if (strcmp(arg, "--") == 0) {
            only_pos = 1;
        } else if (cmd->subs && out->npos == 0 && arg[0] != '-') {
            return enter_sub(cmd, argc - i, argv + i, out, help_out);
        } else if (arg[0] == '-' && arg[1] == '-') {
            r = parse_option(&p, cmd, argc, argv, &i);
        } else if (arg[0] == '-' && arg[1] != '\0') {
            cli_quoted q;
            fprintf(stderr, "kcube: unknown option '%s' for %s (options are spelled --name)\n", cli_quote(&q, arg),
                    path);
            r = 2;
        } else {
            out->pos[out->npos++] = arg;
        }
    }
    if (!r)
        r = check_positionals(cmd, out);
    if (!r)
        r = check_required(cmd, out);
    if (!r)
        r = check_only(cmd, out);
    if (!r)
        r = add_defaults(&p, cmd);
    if (r)
        cli_args_free(out);
    return r;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out, FILE *help_out)
{
    char *path = strdup(cmd->name);
    if (!path) {
        fprintf(stderr, "kcube: out of memory\n");
        return 1;
    }
    return parse_cmd(cmd, path, argc, argv, out, help_out);
}

void cli_args_free(cli_args *a)
{
    free(a->vals);
    free(a->pos);
    free((char *)a->path);
    memset(a, 0, sizeof *a);
}

/* ---- lookup ----------------------------------------------------------- */

const cli_value *cli_get(const cli_args *a, const cli_opt *o)
{
    for (size_t i = a->nuser; i-- > 0;)
        if (a->vals[i].opt == o)
            return &a->vals[i];
    for (size_t i = a->nuser; i < a->nvals; i++)
        if (a->vals[i].opt == o)
            return &a->vals[i];
    return NULL;
}

int cli_given(const cli_args *a, const cli_opt *o)
{
    for (size_t i = 0; i < a->nuser; i++)
        if (a->vals[i].opt == o)
            return 1;
    return 0;
}

int cli_flag(const cli_args *a, const cli_opt *o) { return cli_given(a, o); }

long long cli_int(const cli_args *a, const cli_opt *o, long long fallback)
{
    const cli_value *v = cli_get(a, o);
    return v ? v->v.i : fallback;
}

uint64_t cli_u64(const cli_args *a, const cli_opt *o, uint64_t fallback)
{
    const cli_value *v = cli_get(a, o);
    return v ? (o->type == CLI_BYTES ? v->v.bytes : v->v.u) : fallback;
}

double cli_real(const cli_args *a, const cli_opt *o, double fallback)
{
    const cli_value *v = cli_get(a, o);
    return v ? v->v.r : fallback;
}

int cli_choice(const cli_args *a, const cli_opt *o, int fallback)
{
    const cli_value *v = cli_get(a, o);
    return v ? v->v.choice : fallback;
}

const char *cli_text(const cli_args *a, const cli_opt *o, const char *fallback)
{
    const cli_value *v = cli_get(a, o);
    return v ? v->text : fallback;
}

int cli_reject(const cli_args *a, const cli_opt *o, const char *why)
{
    if (!cli_given(a, o))
        return 0;
    fprintf(stderr, "kcube: --%s does not apply %s\n", o->name, why);
    return 2;
}

/* The option the user described the network with, when the library
 * blames a part of the network (k, n, shape, topology) that came from
 * another one: `--network sequoia` or `--shape 6x6` is what to change,
 * not a --k the user never gave. */
static const cli_opt *network_option(const cli_args *a, const cli_opt *o)
{
    static const char *const parts[] = {"k", "n", "shape", "topology", NULL};
    const cli_value *given = o ? cli_get(a, o) : NULL;
    if (!o || !o->param || (given && given->from_user))
        return o;
    int part = 0;
    for (int i = 0; parts[i]; i++)
        part |= strcmp(o->param, parts[i]) == 0;
    for (const char *want = "network"; part && want; want = strcmp(want, "network") == 0 ? "shape" : NULL)
        for (const cli_use *u = a->cmd->opts; u && u->opt; u++) {
            const cli_value *v = strcmp(u->opt->name, want) == 0 ? cli_get(a, u->opt) : NULL;
            if (v && v->from_user)
                return u->opt;
        }
    return o;
}

int cli_report(const cli_args *a, const kc_err *err)
{
    const char *msg = err->msg[0] ? err->msg : kc_status_name(err->status);
    const cli_opt *o = NULL;
    if (err->param && a && a->cmd)
        for (const cli_use *u = a->cmd->opts; u && u->opt && !o; u++)
            if ((u->opt->param && strcmp(u->opt->param, err->param) == 0) || strcmp(u->opt->name, err->param) == 0)
                o = u->opt;
    /* A parameter the library names as an old spelling did (calmant's d):
     * the option that spelling now means. */
    if (err->param && a && a->cmd && !o)
        for (const cli_alias *al = a->cmd->aliases; al && al->name && !o; al++)
            if (!al->value && strcmp(al->name, err->param) == 0)
                o = al->target;
    o = network_option(a, o);
    /* Named as the user spelled it (an old spelling stays recognisable). */
    const cli_value *given = o ? cli_get(a, o) : NULL;
    const char *name = given && given->from_user && given->spelled ? given->spelled : o ? o->name : NULL;
    char line[sizeof err->msg + 128];
    if (err->status == KC_EINTERNAL)
        snprintf(line, sizeof line, "internal error (please report): %s", msg);
    else if (o)
        snprintf(line, sizeof line, "--%s: %s", name, msg);
    else
        snprintf(line, sizeof line, "%s", msg);
    cli_emit(line);
    return kc_status_is_input(err->status) ? 2 : 1;
}

/* ---- help ------------------------------------------------------------- */

void cli_opt_meta(const cli_command *cmd, const cli_opt *o, char *buf, size_t size)
{
    const cli_narrow *nw = cli_narrowed(cmd, o);
    if (o->type == CLI_FLAG)
        buf[0] = '\0';
    else if (o->type == CLI_CHOICE && nw && nw->only)
        snprintf(buf, size, "%s", nw->only);
    else if (o->type == CLI_CHOICE)
        kc_names_join(o->choices, buf, size);
    else
        snprintf(buf, size, "%s", nw && nw->meta ? nw->meta : o->meta ? o->meta : "VALUE");
}

const char cli_required[] = "(required)";

const char *cli_shown_default(const cli_use *u, char *buf, size_t size)
{
    if (CLI_IS_REQUIRED(u))
        return NULL;
    if (u->def || u->opt->def)
        return u->def ? u->def : u->opt->def;
    if (!u->opt->shown_def || size == 0)
        return NULL;
    buf[0] = '\0';
    u->opt->shown_def(buf, size);
    return buf[0] ? buf : NULL;
}

/* The help text proper (cli_help adds the seed papers' key). */
static void help_text(const cli_command *cmd, const char *path, FILE *out)
{
    fprintf(out, "usage: kcube %s", path);
    if (cmd->subs)
        fputs(" SUBCOMMAND", out);
    if (cmd->opts && cmd->opts[0].opt)
        fputs(" [options]", out);
    if (cmd->positional)
        fprintf(out, " %s", cmd->positional);
    fprintf(out, "\n\n%s\n", cmd->summary);
    if (cmd->description)
        fprintf(out, "\n%s\n", cmd->description);
    if (cmd->subs) {
        fputs("\nsubcommands:\n", out);
        for (size_t i = 0; cmd->subs[i]; i++)
            fprintf(out, "  %-14s %s\n", cmd->subs[i]->name, cmd->subs[i]->summary);
    }
    if (cmd->opts && cmd->opts[0].opt) {
        fputs("\noptions:\n", out);
        for (const cli_use *u = cmd->opts; u->opt; u++) {
            char meta[256], head[320];
            cli_opt_meta(cmd, u->opt, meta, sizeof meta);
            snprintf(head, sizeof head, "--%s%s%s", u->opt->name, meta[0] ? " " : "", meta);
            char shown[64];
            const char *def = cli_shown_default(u, shown, sizeof shown);
            /* A long head gets its help on the next line. */
            if (strlen(head) > 26)
                fprintf(out, "  %s\n  %-26s %s", head, "", u->help ? u->help : u->opt->help);
            else
                fprintf(out, "  %-26s %s", head, u->help ? u->help : u->opt->help);
            if (CLI_IS_REQUIRED(u))
                fputs(" (required)", out);
            else if (def)
                fprintf(out, " (default %s)", def);
            fputc('\n', out);
            if (u->opt->type == CLI_CHOICE)
                for (const kc_name *e = u->opt->choices->entries; e->name; e++)
                    if (e->help && cli_allows(cmd, u->opt, e->name))
                        fprintf(out, "  %-26s   %-12s %s\n", "", e->name, e->help);
        }
        fputs("  --help                     this text\n", out);
    }
    fputs(cmd->opts && cmd->opts[0].opt ? "" : "\noptions:\n  --help                     this text\n", out);
    fputs("  --version                  the version of kcube\n", out);
    if (cmd->aliases && cmd->aliases[0].name) {
        fputs("\nold spellings (still accepted):\n", out);
        for (const cli_alias *al = cmd->aliases; al->name; al++)
            fprintf(out, "  --%-24s %s\n", al->name, al->note);
    }
    if (cmd->epilog)
        fprintf(out, "\n%s\n", cmd->epilog);
    if (cmd->more_help) {
        fputc('\n', out);
        cmd->more_help(out);
    }
}

/* Help, then a key to the seed papers its text cites by number. */
void cli_help(const cli_command *cmd, const char *path, FILE *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m)
        help_text(cmd, path, m);
    if (!m || fclose(m) != 0) {
        free(text);
        help_text(cmd, path, out); /* out of memory: the help without its key */
        return;
    }
    fputs(text, out);
    cli_seed_key(out, text);
    free(text);
}
