/* kcube/names.h - one table per enumeration: parse, print and list for help.
 *
 * Every enum that users name on the command line or see in output has one
 * const table of {value, name, help}; parsing, printing and help listings all
 * read the same table, so the spellings cannot drift apart. Every lookup is a
 * linear scan of the table, O(entries). */
#ifndef KCUBE_NAMES_H
#define KCUBE_NAMES_H

#include <stddef.h>

#include "kcube/error.h"

typedef struct kc_name {
    int value;
    const char *name; /* the spelling users type and see */
    const char *help; /* one line for help listings, or NULL */
} kc_name;

/* A table ends with an entry whose name is NULL. */
typedef struct kc_names {
    const char *what; /* "routing", "tie rule", ... for messages */
    const kc_name *entries;
} kc_names;

/* The value named `text` (exact match); 0 and *value set, or -1. */
int kc_names_parse(const kc_names *t, const char *text, int *value);
/* kc_names_parse that fails with KC_EINVAL "unknown <what> '<text>' (use
 * a|b|c)", naming the parameter id `param` (may be NULL). */
kc_status kc_names_lookup(const kc_names *t, const char *text, int *value, const char *param, kc_err *err);
/* The name of `value`, or "?" when the table has none. */
const char *kc_names_name(const kc_names *t, int value);
/* Number of entries. */
size_t kc_names_count(const kc_names *t);
/* "a|b|c" into buf (cut with "..." if it does not fit); returns buf. */
char *kc_names_join(const kc_names *t, char *buf, size_t size);

#endif
