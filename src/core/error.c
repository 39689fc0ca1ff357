#include "kcube/error.h"

#include <stdio.h>

static void record(kc_err *err, kc_status status, const char *param, const char *fmt, va_list ap)
{
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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

const char *kc_status_name(kc_status status)
{
    switch (status) {
    case KC_OK: return "ok";
    case KC_EINVAL: return "invalid input";
    case KC_ERANGE: return "out of range";
    case KC_ESINGULAR: return "singular matrix";
    case KC_ENOMEM: return "out of memory";
    case KC_EIO: return "i/o error";
    case KC_EINTERNAL: return "internal error";
    }
    return "unknown error";
}
