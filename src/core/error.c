#include "kcube/error.h"

#include <stdio.h>

kc_status kc_fail(kc_err *err, kc_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
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
    }
    return "unknown error";
}
