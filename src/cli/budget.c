/* The work-and-memory gate (budget.h). */
#include "budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "text.h"
#include "kcube/simmem.h"

/* A decimal number as every real option takes it: digits with an optional
 * fraction and exponent ("90", "0.5", "1e3"); no sign, no blank, no
 * hexadecimal, nothing after it. 0 when it is one, with *out set. */
static int decimal(const char *t, double *out)
{
    const char *p = t;
    size_t whole = strspn(p, "0123456789"), frac = 0;
    p += whole;
    if (*p == '.') {
        frac = strspn(p + 1, "0123456789");
        p += 1 + frac;
    }
    if (!whole && !frac)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        size_t exp = strspn(p, "0123456789");
        if (!exp)
            return -1;
        p += exp;
    }
    if (*p)
        return -1;
    *out = strtod(t, NULL);
    return isfinite(*out) ? 0 : -1;
}

double cli_budget_seconds(const cli_args *a)
{
    const char *t = cli_text(a, &OPT_MAX_TIME, CLI_MAX_TIME_DEFAULT);
    if (!strcmp(t, "inf") || !strcmp(t, "none"))
        return INFINITY;
    double s;
    if (decimal(t, &s)) {
        cli_quoted q;
        cli_error("--max-time: '%s' is not a number of seconds such as 90, 0.5 or 1e3 (0, inf or none: no limit)",
                  cli_quote(&q, t));
        return -1;
    }
    return s == 0 ? INFINITY : s;
}

uint64_t cli_budget_bytes(const cli_args *a)
{
    if (!cli_given(a, &OPT_MAX_MEMORY))
        return kc_simmem_available();
    uint64_t b = cli_u64(a, &OPT_MAX_MEMORY, 0);
    return b ? b : UINT64_MAX; /* 0: no limit, as for --max-time */
}

/* Seconds as people read them, two figures at least: "0.042 s", "5.3 s",
 * "53 s", "3.0e+06 s". */
static const char *fmt_seconds(double s, char *buf, size_t size)
{
    if (s < 10)
        snprintf(buf, size, "%.2g s", s);
    else if (s < 1e6)
        snprintf(buf, size, "%.0f s", ceil(s));
    else
        snprintf(buf, size, "%.1e s", s);
    return buf;
}

/* A round value above x for the override: two significant digits, rounded up. */
static double round_up(double x)
{
    double p = pow(10, floor(log10(x)) - 1);
    return ceil(x / p) * p;
}

const char *cli_budget_bytes_option(uint64_t bytes, char *buf, size_t size)
{
    double g = (double)bytes / (1024.0 * 1024 * 1024), m = (double)bytes / (1024.0 * 1024);
    if (g >= 1)
        snprintf(buf, size, "%.0fG", ceil(g * 1.05));
    else
        snprintf(buf, size, "%.0fM", ceil(m * 1.05) < 1 ? 1 : ceil(m * 1.05));
    return buf;
}

const char *cli_budget_count(double v, char *buf, size_t size)
{
    int e;
    if (v >= 1024 && frexp(v, &e) == 0.5)
        snprintf(buf, size, "2^%d", e - 1);
    else
        snprintf(buf, size, "%.0f", v);
    return buf;
}

static int check(const cli_args *a, const char *what, double seconds, uint64_t bytes, int memory)
{
    double limit = cli_budget_seconds(a);
    if (limit < 0)
        return CLI_EXIT_USAGE; /* --max-time itself is bad input */
    uint64_t mem = cli_budget_bytes(a);
    int slow = seconds > limit, big = memory && bytes > mem;
    if (!slow && !big)
        return 0;
    char est_t[32], est_b[32], lim_t[32], lim_b[32], opt_t[32], opt_b[32];
    fmt_seconds(seconds, est_t, sizeof est_t);
    kc_simmem_format(bytes, est_b, sizeof est_b);
    fmt_seconds(limit, lim_t, sizeof lim_t);
    kc_simmem_format(mem, lim_b, sizeof lim_b);
    /* a tenth more than the estimate, rounded up; 0 (no limit) past any sensible number */
    double over = !isfinite(seconds) || seconds >= 1e15 ? 0.0 : seconds < 0.9 ? 1.0 : round_up(seconds * 1.1);
    snprintf(opt_t, sizeof opt_t, "%g", over); /* round_up keeps two digits: 1.4, 17, 230 */
    cli_budget_bytes_option(bytes, opt_b, sizeof opt_b);
    const char *mem_whose = cli_given(a, &OPT_MAX_MEMORY) ? "--max-memory" : "available";
    if (slow && big)
        cli_error("%s needs about %s and %s (limits %s and %s %s; --max-time %s --max-memory %s runs it)", what,
                  est_t, est_b, lim_t, lim_b, mem_whose, opt_t, opt_b);
    else if (slow)
        cli_error("%s needs about %s and %s (limit %s; --max-time %s runs it)", what, est_t, est_b, lim_t, opt_t);
    else
        cli_error("%s needs about %s and %s (more than the %s %s; --max-memory %s runs it)", what, est_t, est_b,
                  lim_b, mem_whose, opt_b);
    return CLI_EXIT_OVER_BUDGET;
}

int cli_budget_check(const cli_args *a, const char *what, double seconds, uint64_t bytes)
{
    return check(a, what, seconds, bytes, 1);
}

int cli_budget_check_time(const cli_args *a, const char *what, double seconds, uint64_t bytes)
{
    return check(a, what, seconds, bytes, 0);
}
