/* kcube/error.h - status codes and error messages shared by every module.
 *
 * Library functions return a kc_status and, when given a non-NULL kc_err,
 * fill it with one line saying what was wrong. They never print. */
#ifndef KCUBE_ERROR_H
#define KCUBE_ERROR_H

#include <stdarg.h>

#include "kcube/attr.h"

typedef enum kc_status {
    KC_OK = 0,
    KC_EINVAL,    /* malformed or inconsistent input */
    KC_ERANGE,    /* a size outside what the function supports */
    KC_ESINGULAR, /* a nonsingular matrix was required */
    KC_ENOMEM,    /* allocation failed */
    KC_EIO,       /* reading or writing a file failed */
    KC_EINTERNAL  /* a broken invariant inside kcube: a bug, never the input's fault */
} kc_status;

/* msg is one line meant for people; param, when not NULL, is the stable id of
 * the parameter at fault (a string constant such as "k", "mapping_file",
 * "vcs"), which a front end turns into its own spelling (a command-line
 * option, a config key). Library messages never name front-end options. */
typedef struct kc_err {
    kc_status status;
    const char *param;
    char msg[256];
} kc_err;

/* Record an error (printf-style) in err, if err is not NULL; returns status. */
kc_status kc_fail(kc_err *err, kc_status status, const char *fmt, ...)
    KC_PRINTF(3, 4);

/* The same, naming the parameter at fault (a string constant, see kc_err). */
kc_status kc_fail_param(kc_err *err, kc_status status, const char *param, const char *fmt, ...)
    KC_PRINTF(4, 5);

/* Is this status the input's fault (exit 2 on the command line) rather than
 * a failure of the run (memory, i/o, internal: exit 1)? */
static inline int kc_status_is_input(kc_status s)
{
    return s == KC_EINVAL || s == KC_ERANGE || s == KC_ESINGULAR;
}

/* A short name for a status ("invalid input", "singular matrix", ...);
 * "unknown error" for a value outside the enum. The names live in the table
 * kc_status_names (kcube/names.h). */
const char *kc_status_name(kc_status status);
struct kc_names;
extern const struct kc_names kc_status_names;

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
