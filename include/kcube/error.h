/* kcube/error.h - status codes and error messages shared by every module.
 *
 * Library functions return a kc_status and, when given a non-NULL kc_err,
 * fill it with one line saying what was wrong. They never print. */
#ifndef KCUBE_ERROR_H
#define KCUBE_ERROR_H

#include <stdarg.h>

typedef enum kc_status {
    KC_OK = 0,
    KC_EINVAL,    /* malformed or inconsistent input */
    KC_ERANGE,    /* a size outside what the function supports */
    KC_ESINGULAR, /* a nonsingular matrix was required */
    KC_ENOMEM,    /* allocation failed */
    KC_EIO        /* reading or writing a file failed */
} kc_status;

typedef struct kc_err {
    kc_status status;
    char msg[256];
} kc_err;

/* Record an error (printf-style) in err, if err is not NULL; returns status. */
kc_status kc_fail(kc_err *err, kc_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A short name for a status ("invalid input", "singular matrix", ...). */
const char *kc_status_name(kc_status status);

/* Progress callback for long computations: done out of total units. */
typedef void (*kc_progress_fn)(void *ctx, double done, double total);

typedef struct kc_progress {
    kc_progress_fn fn; /* NULL: no reports */
    void *ctx;
} kc_progress;

static inline void kc_progress_report(const kc_progress *p, double done, double total)
{
    if (p && p->fn)
        p->fn(p->ctx, done, total);
}

#endif
