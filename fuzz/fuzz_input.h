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
#include "kcube/gfk.h"

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

/* A field size k from the next byte: a power of two 2..256, or, when the
 * byte's top bit is set, any value 0..127 (so kc_gf_init's check is hit). */
static inline int kcf_field_size(kcf_input *in)
{
    unsigned b = kcf_byte(in);
    return (b & 0x80) ? (int)(b & 0x7f) : 1 << (1 + b % 8);
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

/* GF(k) for a k from kcf_field_size: 1 when it is set up, 0 (after checking
 * the failure) when k is not a field size. */
static inline int kcf_field(kcf_input *in, kc_gf *f)
{
    kc_err err = {0};
    kc_status s = kc_gf_init(f, kcf_field_size(in), &err);
    if (s != KC_OK)
        kcf_check_failure(s, &err);
    return s == KC_OK;
}

/* Each harness defines kcf_run(); this entry point drops inputs longer than
 * KCF_MAX_TEXT and hands the rest over. */
static void kcf_run(kcf_input *in);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size <= KCF_MAX_TEXT) {
        kcf_input in = {data, size};
        kcf_run(&in);
    }
    return 0;
}

#endif
