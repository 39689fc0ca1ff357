/* The binary min-heap of the library's event queues, written once and
 * instantiated per element type:
 *
 *     static int ev_less(const ev *a, const ev *b) { ... }
 *     KCI_HEAP_DEFINE(evq, ev, ev_less)
 *
 * defines static functions evq_push(e, &n, x) and evq_pop(e, &n) over an
 * array e of n elements that the caller owns and sizes (push needs room for
 * n + 1). Macro-generated so that the comparison inlines and elements move
 * by assignment, as hand-written heaps did.
 *
 * The order of equal elements is part of a replay's result, so the moves
 * are fixed: push sifts x up while less(x, parent); pop takes the last
 * element x to the root's place and sifts it down, at each level choosing
 * the left child when less(left, x), then the right child when
 * less(right, best so far). Any heap that compares the same way pops the
 * same sequence. Push and pop cost O(log n) comparisons. */
#ifndef KCI_CORE_HEAP_H
#define KCI_CORE_HEAP_H

#include <stddef.h>

#define KCI_HEAP_DEFINE(name, type, less)                                                                     \
    /* Add x to the heap e[0..*n) (room for one more needed). */                                              \
    static inline void name##_push(type *e, size_t *n, type x)                                                \
    {                                                                                                         \
        size_t i = (*n)++;                                                                                    \
        while (i > 0 && less(&x, &e[(i - 1) / 2])) {                                                          \
            e[i] = e[(i - 1) / 2];                                                                            \
            i = (i - 1) / 2;                                                                                  \
        }                                                                                                     \
        e[i] = x;                                                                                             \
    }                                                                                                         \
    /* Remove and return the least element of e[0..*n) (*n > 0 needed). */                                   \
    static inline type name##_pop(type *e, size_t *n)                                                         \
    {                                                                                                         \
        type top = e[0], x = e[--(*n)];                                                                       \
        size_t i = 0, cnt = *n;                                                                               \
        for (;;) {                                                                                            \
            size_t l = 2 * i + 1, m = i;                                                                      \
            const type *best = &x;                                                                            \
            if (l < cnt && less(&e[l], best))                                                                 \
                m = l, best = &e[l];                                                                          \
            if (l + 1 < cnt && less(&e[l + 1], best))                                                         \
                m = l + 1;                                                                                    \
            if (m == i)                                                                                       \
                break;                                                                                        \
            e[i] = e[m];                                                                                      \
            i = m;                                                                                            \
        }                                                                                                     \
        if (cnt)                                                                                              \
            e[i] = x;                                                                                         \
        return top;                                                                                           \
    }

/* The same interface over a 4-ary heap (children of i at 4i + 1 .. 4i + 4):
 * half the levels of the binary heap, and a node's four children are
 * adjacent (one or two cache lines for 16-byte elements), so a pop costs
 * fewer misses on large queues. Its moves differ from KCI_HEAP_DEFINE's,
 * so it pops the same sequence only when no two elements compare equal
 * (a key with a unique insertion number, as the event queues have). Push
 * and pop cost O(log4 n) levels, pop up to four comparisons a level. */
#define KCI_HEAP4_DEFINE(name, type, less)                                                                    \
    /* Add x to the heap e[0..*n) (room for one more needed). */                                              \
    static inline void name##_push(type *e, size_t *n, type x)                                                \
    {                                                                                                         \
        size_t i = (*n)++;                                                                                    \
        while (i > 0 && less(&x, &e[(i - 1) / 4])) {                                                          \
            e[i] = e[(i - 1) / 4];                                                                            \
            i = (i - 1) / 4;                                                                                  \
        }                                                                                                     \
        e[i] = x;                                                                                             \
    }                                                                                                         \
    /* Put x at the root of e[0..cnt) (cnt >= 1) and sift it down. */                                        \
    static inline void name##_sift(type *e, size_t cnt, type x)                                               \
    {                                                                                                         \
        size_t i = 0;                                                                                         \
        for (;;) {                                                                                            \
            size_t c = 4 * i + 1, end = c + 4 < cnt ? c + 4 : cnt, m = c;                                     \
            if (c >= cnt)                                                                                     \
                break;                                                                                        \
            for (size_t j = c + 1; j < end; j++)                                                              \
                m = less(&e[j], &e[m]) ? j : m;                                                               \
            if (!less(&e[m], &x))                                                                             \
                break;                                                                                        \
            e[i] = e[m];                                                                                      \
            i = m;                                                                                            \
        }                                                                                                     \
        e[i] = x;                                                                                             \
    }                                                                                                         \
    /* Remove and return the least element of e[0..*n) (*n > 0 needed). */                                   \
    static inline type name##_pop(type *e, size_t *n)                                                         \
    {                                                                                                         \
        type top = e[0];                                                                                      \
        if (--(*n))                                                                                           \
            name##_sift(e, *n, e[*n]);                                                                        \
        return top;                                                                                           \
    }

#endif
