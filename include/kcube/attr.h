/* kcube/attr.h - compiler attributes used by kcube's public headers.
 *
 * The installed headers must compile with any C11 compiler, not only GCC
 * and clang: every attribute goes through a macro here that expands to
 * nothing where the compiler does not know it. */
#ifndef KCUBE_ATTR_H
#define KCUBE_ATTR_H

/* KC_PRINTF(fmt, args): the function takes a printf format as its argument
 * number `fmt` and the values from argument number `args` on, so that
 * GCC and clang check calls as they check printf's. */
#if defined(__GNUC__) || defined(__clang__)
#define KC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define KC_PRINTF(fmt, args)
#endif

#endif
