/* The shared vocabulary: permutations (kcube/perm.h), seed derivation
 * (kc_seed_derive) and the exported name tables (kcube/names.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kcube/error.h"
#include "kcube/hl_class.h"
#include "kcube/lcc.h"
#include "kcube/mapset.h"
#include "kcube/names.h"
#include "kcube/perm.h"
#include "kcube/rng.h"
#include "kcube/tcontention.h"
#include "kcube/torusmap.h"

/* 1 if a comes before b in lexicographic order */
static int lex_less(const uint32_t *a, const uint32_t *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

static void test_perm_next_enumerates(void **state)
{
    (void)state;
    static const uint64_t fact[8] = {1, 1, 2, 6, 24, 120, 720, 5040};
    for (size_t len = 0; len <= 7; len++) {
        uint32_t p[7], prev[7], inv[7];
        kc_perm_identity(p, len);
        uint64_t count = 0;
        int more;
        do {
            count++;
            assert_int_equal(kc_perm_invert(p, inv, len, NULL, NULL), KC_OK);
            for (size_t i = 0; i < len; i++)
                assert_int_equal(inv[p[i]], i);
            memcpy(prev, p, sizeof p);
            more = kc_perm_next(p, len);
            if (more)
                assert_true(lex_less(prev, p, len)); /* strictly increasing: no repeats */
            else
                assert_memory_equal(prev, p, len * sizeof *p);
        } while (more);
        assert_int_equal(count, fact[len]);
        /* the last one is the reversed identity */
        for (size_t i = 0; i < len; i++)
            assert_int_equal(p[i], len - 1 - i);
    }
    /* orders step the same way */
    int o[5] = {0, 1, 2, 3, 4}, inv[5];
    uint32_t q[5] = {0, 1, 2, 3, 4};
    int steps = 0;
    do {
        assert_true(kc_order_valid(o, 5));
        kc_order_invert(o, inv, 5);
        for (int t = 0; t < 5; t++) {
            assert_int_equal(inv[o[t]], t);
            assert_int_equal((uint32_t)o[t], q[t]);
        }
        steps++;
        int a = kc_order_next(o, 5), b = kc_perm_next(q, 5);
        assert_int_equal(a, b);
        if (!a)
            break;
    } while (1);
    assert_int_equal(steps, 120);
}

static void test_perm_invalid(void **state)
{
    (void)state;
    uint32_t inv[4];
    kc_err err;
    const uint32_t twice[4] = {0, 2, 2, 1}, out[4] = {0, 1, 4, 2};
    assert_int_equal(kc_perm_invert(twice, inv, 4, "mapping", &err), KC_EINVAL);
    assert_string_equal(err.param, "mapping");
    assert_non_null(strstr(err.msg, "2 appears twice"));
    assert_int_equal(kc_perm_invert(out, inv, 4, NULL, &err), KC_EINVAL);
    assert_string_equal(err.param, "perm");
    const int bad_order[3] = {0, 0, 1}, neg[2] = {-1, 0};
    assert_false(kc_order_valid(bad_order, 3));
    assert_false(kc_order_valid(neg, 2));
}

/* splitmix64 as published, stepped by hand: the i-th output from seed s is
 * kc_seed_derive(s, i). */
static void test_seed_derive(void **state)
{
    (void)state;
    const uint64_t seeds[3] = {0, 1, 0xdeadbeefcafef00dULL};
    for (int k = 0; k < 3; k++) {
        uint64_t x = seeds[k];
        for (uint64_t i = 1; i <= 6; i++) {
            x += 0x9e3779b97f4a7c15ULL;
            uint64_t z = x;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            z ^= z >> 31;
            assert_true(kc_seed_derive(seeds[k], i) == z);
        }
        kc_rng r;
        kc_rng_seed(&r, seeds[k]);
        for (int i = 0; i < 4; i++)
            assert_true(r.s[i] == kc_seed_derive(seeds[k], (uint64_t)i + 1));
    }
}

static void check_table(const kc_names *t, size_t expect)
{
    assert_int_equal(kc_names_count(t), expect);
    for (const kc_name *e = t->entries; e->name; e++) {
        int v = -1;
        assert_int_equal(kc_names_parse(t, e->name, &v), 0);
        assert_int_equal(v, e->value);
        assert_string_equal(kc_names_name(t, e->value), e->name);
        for (const kc_name *f = e + 1; f->name; f++) /* values and names unique */
            assert_true(f->value != e->value && strcmp(f->name, e->name) != 0);
    }
}

static void test_name_tables(void **state)
{
    (void)state;
    check_table(&kc_status_names, 7);
    check_table(&kc_lcc_kind_names, 3);
    check_table(&kc_objective_names, 3);
    check_table(&kc_tie_names, 3);
    check_table(&kc_tcomm_kind_names, 4);
    check_table(&kc_tcase_names, 6);
    check_table(&kc_tmap_kind_names, 2);
    check_table(&kc_hl_msimd_names, 2);
    /* the wrappers read the tables */
    assert_string_equal(kc_status_name(KC_EINTERNAL), "internal error");
    assert_string_equal(kc_status_name((kc_status)99), "unknown error");
    assert_string_equal(kc_lcc_kind_name(KC_LCC_SCATTER), "scatter");
    assert_string_equal(kc_tcase_name(KC_TCASE_4A), "4a");
    assert_string_equal(kc_tmap_kind_name(KC_TMAP_REORDER), "reorder");
    kc_tie tie;
    kc_objective obj;
    kc_err err;
    assert_int_equal(kc_tie_parse("split", &tie, NULL), KC_OK);
    assert_int_equal(tie, KC_TIE_SPLIT);
    assert_int_equal(kc_tie_parse("left", &tie, &err), KC_EINVAL);
    assert_string_equal(err.param, "tie");
    assert_string_equal(err.msg, "unknown tie rule 'left' (use plus|minus|split)");
    assert_int_equal(kc_objective_parse("sum", &obj, NULL), KC_OK);
    assert_int_equal(obj, KC_OBJ_SUM);
    assert_int_equal(kc_objective_parse("best", &obj, &err), KC_EINVAL);
    assert_string_equal(err.param, "objective");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perm_next_enumerates),
        cmocka_unit_test(test_perm_invalid),
        cmocka_unit_test(test_seed_derive),
        cmocka_unit_test(test_name_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
