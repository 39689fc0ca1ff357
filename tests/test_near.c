/* "Did you mean" (core/near.h): the edit distance counts a swap of two
 * neighbours as one edit, the reach is 1 for short words and 2 otherwise,
 * exact matches and ties give no suggestion, and a name table is searched
 * by kci_near_name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/near.h"

/* The suggestion for word among the NULL-terminated cands, or NULL. */
static const char *nearest(const char *word, const char *const *cands)
{
    static char out[80];
    kci_near n;
    kci_near_init(&n, word, strlen(word));
    for (size_t i = 0; cands[i]; i++)
        kci_near_offer(&n, cands[i], strlen(cands[i]));
    size_t len;
    const char *best = kci_near_best(&n, &len);
    if (!best)
        return NULL;
    memcpy(out, best, len);
    out[len] = '\0';
    return out;
}

static void edits(void **state)
{
    (void)state;
    static const char *const cmds[] = {"analyze", "simulate", "map", "replay", "export", NULL};
    assert_string_equal(nearest("analyse", cmds), "analyze");   /* one substitution */
    assert_string_equal(nearest("anlayze", cmds), "analyze");   /* one swap */
    assert_string_equal(nearest("simulat", cmds), "simulate");  /* one deletion */
    assert_string_equal(nearest("simmulatte", cmds), "simulate"); /* two insertions */
    assert_null(nearest("simuXXXte", cmds));                    /* three edits: too far */
    assert_null(nearest("map", cmds));                          /* known: nothing to suggest */
    assert_string_equal(nearest("mop", cmds), "map");           /* short words: one edit */
    assert_null(nearest("mxx", cmds));                          /* ... not two */
}

static void ties_and_limits(void **state)
{
    (void)state;
    static const char *const two[] = {"cat", "car", NULL};
    assert_null(nearest("caX", two)); /* two candidates as near: no guess */
    static const char *const same[] = {"cat", "cat", NULL};
    assert_string_equal(nearest("caX", same), "cat"); /* the same name twice is one */
    char long_word[100];
    memset(long_word, 'a', sizeof long_word - 1);
    long_word[sizeof long_word - 1] = '\0';
    static const char *const as[] = {"aaaa", NULL};
    assert_null(nearest(long_word, as));
}

static void name_tables(void **state)
{
    (void)state;
    static const kc_name entries[] = {{0, "hypercube", NULL}, {1, "torus", NULL}, {2, "mesh", NULL}, {0, NULL, NULL}};
    static const kc_names t = {"topology", entries};
    assert_string_equal(kci_near_name(&t, "toru"), "torus");
    assert_string_equal(kci_near_name(&t, "hypercub"), "hypercube");
    assert_null(kci_near_name(&t, "ring"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edits),
        cmocka_unit_test(ties_and_limits),
        cmocka_unit_test(name_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
