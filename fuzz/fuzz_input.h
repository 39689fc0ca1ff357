/* fuzz/fuzz_input.h - shared by the libFuzzer harnesses fuzz/fuzz_*.c.
 *
 * A harness reads its small parameters (n, k, which parser) from the first
 * bytes of the input and hands the rest to the parser as a C string. The
 * string is a heap copy of exactly the right length, so that AddressSanitizer
 * sees any read past its terminating NUL (a stack buffer would hide it).
 * Input longer than KCF_MAX_TEXT is ignored: the parsers are linear, and long
 * inputs only slow the search down. */
#ifndef KCUBE_FUZZ_INPUT_H
#define KCUBE_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/error.h"

#define KCF_MAX_TEXT 6000 /* room for a 64 x 64 matrix written with separators */

typedef struct kcf_input {
    const uint8_t *data;
    size_t size;
} kcf_input;

/* The next byte, or 0 once the input is used up. */
static inline unsigned kcf_byte(kcf_input *in)
{
    if (!in->size)
        return 0;
    in->size--;
    return *in->data++;
}

/* A parameter in lo..hi taken from the next byte. Ranges a little wider
 * than the valid one also exercise the range checks. */
static inline int kcf_int(kcf_input *in, int lo, int hi)
{
    return lo + (int)(kcf_byte(in) % (unsigned)(hi - lo + 1));
}

/* The bytes up to the first '\n' (or the end) as a new string; the input
 * moves past the '\n'. Lets one input carry several fields. */
static inline char *kcf_line(kcf_input *in)
{
    const uint8_t *nl = memchr(in->data, '\n', in->size);
    size_t len = nl ? (size_t)(nl - in->data) : in->size;
    char *s = malloc(len + 1);
    if (!s)
        abort();
    if (len)
        memcpy(s, in->data, len);
    s[len] = '\0';
    in->data += len + (nl ? 1 : 0);
    in->size -= len + (nl ? 1 : 0);
    return s;
}

/* The rest of the input as a new string (a NUL inside ends it early, as it
 * would in a command-line argument). */
static inline char *kcf_rest(kcf_input *in)
{
    char *s = malloc(in->size + 1);
    if (!s)
        abort();
    if (in->size)
        memcpy(s, in->data, in->size);
    s[in->size] = '\0';
    in->data += in->size;
    in->size = 0;
    return s;
}

/* A broken invariant found by a harness: abort, which libFuzzer records as a
 * crash together with the input. */
#define KCF_CHECK(cond)                                                                                    \
    do {                                                                                                   \
        if (!(cond))                                                                                       \
            __builtin_trap();                                                                              \
    } while (0)

/* A parser that fails must say why: err holds the same status and a
 * message (err must be zeroed before the call). */
static inline void kcf_check_failure(int status, const kc_err *err)
{
    KCF_CHECK(status != KC_OK && (int)err->status == status && err->msg[0] != '\0');
}

#endif
