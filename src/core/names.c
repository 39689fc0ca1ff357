/* Name tables: the single place an enum's spellings live (kcube/names.h). */
#include "kcube/names.h"

#include <string.h>

#include "core/near.h"

int kc_names_parse(const kc_names *t, const char *text, int *value)
{
    for (const kc_name *e = t->entries; e->name; e++)
        if (strcmp(e->name, text) == 0) {
            *value = e->value;
            return 0;
        }
    return -1;
}

kc_status kc_names_lookup(const kc_names *t, const char *text, int *value, const char *param, kc_err *err)
{
    if (kc_names_parse(t, text, value) == 0)
        return KC_OK;
    char list[256];
    const char *near = kci_near_name(t, text);
    return kc_fail_param(err, KC_EINVAL, param, "unknown %s '%s'%s%s%s (use %s)", t->what, text,
                         near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "",
                         kc_names_join(t, list, sizeof list));
}

const char *kc_names_name(const kc_names *t, int value)
{
    for (const kc_name *e = t->entries; e->name; e++)
        if (e->value == value)
            return e->name;
    return "?";
}

size_t kc_names_count(const kc_names *t)
{
    size_t n = 0;
    while (t->entries[n].name)
        n++;
    return n;
}

char *kc_names_join(const kc_names *t, char *buf, size_t size)
{
    size_t used = 0;
    if (size == 0)
        return buf;
    buf[0] = '\0';
    for (const kc_name *e = t->entries; e->name; e++) {
        size_t len = strlen(e->name) + (used ? 1 : 0);
        if (used + len + 4 > size) {
            if (used + 4 <= size)
                memcpy(buf + used, "...", 4);
            return buf;
        }
        if (used)
            buf[used++] = '|';
        memcpy(buf + used, e->name, strlen(e->name) + 1);
        used += strlen(e->name);
    }
    return buf;
}
