/* The nearest known word (core/near.h): optimal-string-alignment edit
 * distance over three rows, cut off above the reach. */
#include "core/near.h"

#include <string.h>

#define NEAR_MAX 64 /* longer words are not compared */

static int reach(size_t len) { return len <= 3 ? 1 : 2; }

static int min3(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

/* Edit distance of a[0..la) and b[0..lb), both at most NEAR_MAX long. */
static int distance(const char *a, size_t la, const char *b, size_t lb)
{
    int rows[3][NEAR_MAX + 1];
    int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
        int *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

void kci_near_init(kci_near *n, const char *word, size_t len)
{
    n->word = word;
    n->len = len;
    n->best = NULL;
    n->best_len = 0;
    n->dist = reach(len) + 1;
    n->ties = 0;
}

void kci_near_offer(kci_near *n, const char *cand, size_t len)
{
    if (!len || len > NEAR_MAX || n->len > NEAR_MAX)
        return;
    size_t gap = len > n->len ? len - n->len : n->len - len;
    if (gap > (size_t)reach(n->len))
        return;
    int d = distance(n->word, n->len, cand, len);
    if (d == 0 || d > reach(n->len))
        return;
    if (n->best && d == n->dist && (len != n->best_len || memcmp(cand, n->best, len)))
        n->ties++;
    else if (d < n->dist) {
        n->best = cand;
        n->best_len = len;
        n->dist = d;
        n->ties = 0;
    }
}

const char *kci_near_best(const kci_near *n, size_t *len)
{
    if (!n->best || n->ties)
        return NULL;
    *len = n->best_len;
    return n->best;
}

const char *kci_near_name(const kc_names *t, const char *text)
{
    kci_near n;
    kci_near_init(&n, text, strlen(text));
    for (const kc_name *e = t->entries; e->name; e++)
        kci_near_offer(&n, e->name, strlen(e->name));
    size_t len;
    return kci_near_best(&n, &len);
}
