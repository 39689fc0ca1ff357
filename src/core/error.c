#include "kcube/error.h"
#include "kcube/names.h"

#include <stdio.h>
#include <string.h>

static void record(kc_err *err, kc_status status, const char *param, const char *fmt, va_list ap)
{
    int need = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    /* A message longer than the buffer says so visibly rather than stopping mid-word. */
    if (need >= (int)sizeof err->msg)
        memcpy(err->msg + sizeof err->msg - 4, "...", 4);
    err->status = status;
    err->param = param;
}

kc_status kc_fail(kc_err *err, kc_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        record(err, status, NULL, fmt, ap);
        va_end(ap);
    }
    return status;
}

kc_status kc_fail_param(kc_err *err, kc_status status, const char *param, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        record(err, status, param, fmt, ap);
        va_end(ap);
    }
    return status;
}

static const kc_name status_entries[] = {
    {KC_OK, "ok", NULL},
    {KC_EINVAL, "invalid input", "malformed or inconsistent input"},
    {KC_ERANGE, "out of range", "a size outside what the function supports"},
    {KC_ESINGULAR, "singular matrix", "a nonsingular matrix was required"},
    {KC_ENOMEM, "out of memory", NULL},
    {KC_EIO, "i/o error", "reading or writing a file failed"},
    {KC_EINTERNAL, "internal error", "a broken invariant inside kcube"},
    {0, NULL, NULL},
};
const kc_names kc_status_names = {"status", status_entries};

const char *kc_status_name(kc_status status)
{
    for (const kc_name *e = status_entries; e->name; e++)
        if (e->value == (int)status)
            return e->name;
    return "unknown error";
}
