/* Machine descriptions and exporters (kcube/machine.h): both file forms,
 * default and explicit slots, strict errors naming the line and column, the
 * --hosts rule in both fill orders with a printf-free pattern expander, and
 * every export format read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/machine.h"

static kc_status read_text(kc_machine *m, const char *text, const kc_topology *t, kc_err *err)
{
    kc_reader *r;
    kc_status s = kc_reader_open_mem(&r, text, strlen(text), "machine file 'm'", "machine", NULL, err);
    if (s)
        return s;
    s = kc_machine_read(m, r, t, err);
    kc_reader_close(r);
    return s;
}

static const char *host_of(const kc_machine *m, uint64_t x) { return m->host_name[m->host[x]]; }

static void test_node_lines(void **state)
{
    (void)state;
    kc_topology t;
    kc_machine m;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, 2, &err), KC_OK);
    /* Nodes out of order, a comment, default slots in file order, an explicit slot. */
    const char *text = "# two hosts\n3 beta\n0 alpha 1   # slot given\n1 alpha\n\n2,beta\n";
    assert_int_equal(read_text(&m, text, &t, &err), KC_OK);
    assert_int_equal(m.nhosts, 2);
    assert_string_equal(m.host_name[0], "beta"); /* first appearance order */
    assert_string_equal(host_of(&m, 0), "alpha");
    assert_int_equal(m.slot[0], 1);
    assert_int_equal(m.slot[1], 2); /* the next slot after the highest taken */
    assert_int_equal(m.slot[3], 0);
    assert_int_equal(m.slot[2], 1);
    kc_machine_free(&m);
}

static void test_coordinate_lines(void **state)
{
    (void)state;
    kc_topology t;
    kc_machine m;
    kc_err err = {0};
    assert_int_equal(kc_topology_torus(&t, 4, 2, KC_TIE_PLUS, &err), KC_OK);
    char text[1024] = "";
    /* HOST x0 x1: host h<x1> with x0 as the slot; mixed with a NODE line. */
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            char line[64];
            if (x == 3 && y == 2)
                snprintf(line, sizeof line, "%d h%d %d\n", x + 4 * y, y, x);
            else
                snprintf(line, sizeof line, "h%d %d %d %d\n", y, x, y, x);
            strcat(text, line);
        }
    assert_int_equal(read_text(&m, text, &t, &err), KC_OK);
    assert_int_equal(m.nhosts, 4);
    assert_string_equal(host_of(&m, 9), "h2"); /* x0 = 1, x1 = 2 */
    assert_int_equal(m.slot[9], 1);
    assert_int_equal(m.slot[11], 3);
    kc_machine_free(&m);
}

/* A bad description fails with a message holding `want`. */
static void expect_error(const kc_topology *t, const char *text, const char *want)
{
    kc_machine m;
    kc_err err = {0};
    assert_int_equal(read_text(&m, text, t, &err), KC_EINVAL);
    if (!strstr(err.msg, want))
        fail_msg("for %s expected '%s' in: %s", text, want, err.msg);
    assert_string_equal(err.param, "machine");
    assert_null(m.host);
    kc_machine_free(&m);
}

static void test_errors(void **state)
{
    (void)state;
    kc_topology t;
    kc_err err = {0};
    assert_int_equal(kc_topology_hypercube(&t, 2, &err), KC_OK);
    expect_error(&t, "0 a\n1 a\n2 a\n", "node 3 is missing");
    expect_error(&t, "0 a\n1 a\n  1 b\n3 a\n", "line 3, column 3: '1' node 1 is listed twice (first on line 2)");
    expect_error(&t, "0 a\n1 a\n2 a\n4 a\n", "line 4, column 1: '4' is not a node of the network (0..3)");
    expect_error(&t, "0 a 0\n1 a 0\n", "line 2, column 5: '0' gives node 1 slot 0 of host 'a', already");
    expect_error(&t, "0 a\n1 a 0\n", "line 2, column 5: '0' gives node 1 slot 0");
    expect_error(&t, "0 a=b\n", "line 1, column 3: 'a=b' is not a host name");
    expect_error(&t, "0 a 1 2\n", "line 1: a line starting with a node id is NODE HOST [SLOT]");
    expect_error(&t, "0 a x\n", "line 1, column 5: 'x' is not a whole number");
    expect_error(&t, "0 a -1\n", "line 1, column 5: '-1' is not a slot (0..65535)");
    expect_error(&t, "0 a 65536\n", "is not a slot (0..65535)");
    expect_error(&t, "a 0 2\n", "line 1, column 5: '2' is not a coordinate (0..1)");
    expect_error(&t, "a 0\n", "HOST and the 2 coordinates of a node of the 2-cube");
    expect_error(&t, "a 0 1 0 9\n", "line 1, column 9: '9' is one field too many (at most 4 on a line)");
    expect_error(&t, "0 a\x01\n", "line 1, column 4");
    expect_error(&t, "", "node 0 is missing");
}

static void test_rule(void **state)
{
    (void)state;
    kc_topology t;
    kc_machine m;
    kc_err err = {0};
    assert_int_equal(kc_topology_mesh_shape(&t, (int[]){4, 3}, 2, &err), KC_OK);
    /* First axis fastest: node x on host x / 4. */
    assert_int_equal(kc_machine_rule(&m, &t, "nid%05d", 4, 1, KC_FILL_FIRST_AXIS, &err), KC_OK);
    assert_int_equal(m.nhosts, 3);
    assert_string_equal(host_of(&m, 0), "nid00001");
    assert_string_equal(host_of(&m, 5), "nid00002");
    assert_int_equal(m.slot[5], 1);
    kc_machine_free(&m);
    /* Last axis fastest: position p = x1 + 3 x0, so node (x0, x1) = (1, 2) (x = 9) has p = 5. */
    assert_int_equal(kc_machine_rule(&m, &t, "n%d.x", 4, 0, KC_FILL_LAST_AXIS, &err), KC_OK);
    assert_string_equal(host_of(&m, 9), "n1.x");
    assert_int_equal(m.host[9], 1);
    assert_int_equal(m.slot[9], 1);
    assert_string_equal(m.host_name[0], "n0.x");
    kc_machine_free(&m);
    /* One host named without %d is fine when every node fits on it. */
    assert_int_equal(kc_machine_rule(&m, &t, "localhost", 12, 0, KC_FILL_FIRST_AXIS, &err), KC_OK);
    assert_int_equal(m.nhosts, 1);
    assert_int_equal(m.slot[11], 11);
    kc_machine_free(&m);
    /* User text never reaches printf: bad conversions are refused. */
    const char *bad[] = {"n%s", "n%n%n%n", "%d%d", "a b", "n%5x", "n%", "nid%0d", "x%d%", "h%3d", "%d", "n%%d"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&err, 0, sizeof err);
        if (kc_machine_rule(&m, &t, bad[i], 4, 0, KC_FILL_FIRST_AXIS, &err) != KC_EINVAL)
            fail_msg("pattern '%s' accepted", bad[i]);
        assert_string_equal(err.param, "hosts");
        assert_null(m.host);
    }
    assert_int_equal(kc_machine_rule(&m, &t, "node", 4, 0, KC_FILL_FIRST_AXIS, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "put %d where the host number goes"));
    char name[KC_HOST_MAX + 1];
    assert_int_equal(kc_host_expand(name, sizeof name, "c%03d-n", 7, &err), KC_OK);
    assert_string_equal(name, "c007-n");
}

/* Export into memory. */
static char *export_text(kc_export_format f, const uint32_t *map, uint64_t n, const kc_machine *m, kc_status *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    kc_err err = {0};
    *s = kc_export_write(out, f, map, n, m, &err);
    fclose(out);
    return buf;
}

static void test_exporters(void **state)
{
    (void)state;
    kc_topology t;
    kc_machine m;
    kc_err err = {0};
    kc_status s;
    assert_int_equal(kc_topology_hypercube(&t, 3, &err), KC_OK);
    /* Hosts listed b first: placement order is b's slots, then a's. */
    assert_int_equal(read_text(&m, "4 b 0\n5 b 1\n6 b 2\n7 b 3\n0 a\n1 a\n2 a\n3 a\n", &t, &err), KC_OK);
    const uint32_t map[8] = {5, 0, 7, 2, 1, 6, 3, 4}; /* rank v on node map[v] */
    char *txt = export_text(KC_EXPORT_OMPI_RANKFILE, map, 8, &m, &s);
    assert_int_equal(s, KC_OK);
    char *line = txt;
    for (int v = 0; v < 8; v++) {
        char host[16];
        int rank, slot, used = 0;
        assert_int_equal(sscanf(line, "rank %d=%15[^ ] slot=%d\n%n", &rank, host, &slot, &used), 3);
        assert_int_equal(rank, v);
        assert_string_equal(host, host_of(&m, map[v]));
        assert_int_equal((uint32_t)slot, m.slot[map[v]]);
        line += used;
    }
    assert_int_equal(*line, '\0');
    free(txt);

    txt = export_text(KC_EXPORT_MPICH_RANK_ORDER, map, 8, &m, &s);
    assert_int_equal(s, KC_OK);
    /* The placement positions: b slot 0..3 = nodes 4..7, then a = nodes 0..3. */
    const uint32_t position_node[8] = {4, 5, 6, 7, 0, 1, 2, 3};
    int pos = 0, lines = 0;
    for (char *p = txt; *p;) {
        if (*p == '#') {
            p = strchr(p, '\n') + 1;
            continue;
        }
        char *end;
        long rank = strtol(p, &end, 10);
        assert_true(end > p && pos < 8);
        assert_int_equal(map[rank], position_node[pos]);
        pos++;
        lines += *end == '\n';
        p = end + 1;
    }
    assert_int_equal(pos, 8);
    assert_int_equal(lines, 2); /* one line per host */
    free(txt);

    txt = export_text(KC_EXPORT_SLURM_HOSTFILE, map, 8, &m, &s);
    assert_string_equal(txt, "b\na\nb\na\na\nb\na\nb\n");
    free(txt);
    txt = export_text(KC_EXPORT_SCOTCH_MAP, map, 8, NULL, &s);
    assert_string_equal(txt, "8\n0\t5\n1\t0\n2\t7\n3\t2\n4\t1\n5\t6\n6\t3\n7\t4\n");
    free(txt);
    txt = export_text(KC_EXPORT_NODELIST, map, 8, NULL, &s);
    assert_string_equal(txt, "5\n0\n7\n2\n1\n6\n3\n4\n");
    free(txt);

    /* Not a permutation; hosts needed but no machine; sizes that differ. */
    const uint32_t twice[8] = {0, 0, 1, 2, 3, 4, 5, 6};
    free(export_text(KC_EXPORT_NODELIST, twice, 8, NULL, &s));
    assert_int_equal(s, KC_EINVAL);
    free(export_text(KC_EXPORT_SLURM_HOSTFILE, map, 8, NULL, &s));
    assert_int_equal(s, KC_EINVAL);
    free(export_text(KC_EXPORT_SLURM_HOSTFILE, map, 4, &m, &s));
    assert_int_equal(s, KC_EINVAL);
    kc_machine_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_lines), cmocka_unit_test(test_coordinate_lines), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_rule),       cmocka_unit_test(test_exporters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
