/* Machine preset files (kcube/netpreset.h): a full file read into its
 * fields and topology, every kind of bad word refused with its line and
 * column, and every preset shipped in data/networks loading with the size
 * its sources document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcube/machine.h"
#include "kcube/netpreset.h"

static kc_status read_text(kc_netpreset *p, const char *text, kc_err *err)
{
    kc_reader *r;
    kc_status s = kc_reader_open_mem(&r, text, strlen(text), "network file 'n'", "network", NULL, err);
    if (s)
        return s;
    s = kc_netpreset_read(p, r, err);
    kc_reader_close(r);
    return s;
}

static void test_good_file(void **state)
{
    (void)state;
    kc_netpreset p;
    kc_err err = {0};
    const char *text = "# Tofu-like\nname tofu-small  # comment\ntitle A small Tofu, 2 racks\naxes X Y Z a b c\n"
                       "sides 4,3,2 2 3 2\nwrap X Y Z b\nendpoints 2\ntie split\nsource Paper one, 2009\n"
                       "source Paper two\n";
    assert_int_equal(read_text(&p, text, &err), KC_OK);
    assert_string_equal(p.name, "tofu-small");
    assert_string_equal(p.title, "A small Tofu, 2 racks");
    assert_int_equal(p.n, 6);
    assert_string_equal(p.axis[3], "a");
    assert_int_equal(p.side[0], 4);
    assert_int_equal(p.side[4], 3);
    assert_int_equal(p.wrap, 0x17);
    assert_int_equal(p.endpoints, 2);
    assert_int_equal(p.tie, KC_TIE_SPLIT);
    assert_int_equal(p.nsources, 2);
    assert_string_equal(p.source[0], "Paper one, 2009");
    char shape[64];
    assert_string_equal(kc_netpreset_shape(&p, shape, sizeof shape), "4x3x2x2x3x2");
    kc_topology t;
    assert_int_equal(kc_netpreset_topology(&p, &t, &err), KC_OK);
    assert_int_equal(t.nodes, 4 * 3 * 2 * 12);
    assert_int_equal(t.wrap, 0x17);
    assert_int_equal(kc_topology_conc(&t), 2);
    assert_int_equal(t.tie, KC_TIE_SPLIT);
    /* Defaults: every axis wraps, one endpoint, wrap by axis number, none. */
    assert_int_equal(read_text(&p, "name m\naxes A B\nsides 2 5\n", &err), KC_OK);
    assert_int_equal(p.wrap, 3);
    assert_int_equal(p.endpoints, 1);
    assert_int_equal(read_text(&p, "name m\naxes A B\nsides 2 5\nwrap 1\n", &err), KC_OK);
    assert_int_equal(p.wrap, 2);
    assert_int_equal(read_text(&p, "name m\naxes A B\nsides 2 5\nwrap none\n", &err), KC_OK);
    assert_int_equal(p.wrap, 0);
    assert_int_equal(kc_netpreset_topology(&p, &t, &err), KC_OK);
    assert_int_equal(t.kind, KC_TOPO_MESH);
}

/* Each bad file, and where its error must point. */
static const struct {
    const char *text;
    const char *where;
} bad[] = {
    {"name m\naxes A B\nsides 4 1\n", "line 3, column 9"},
    {"name m\naxes A B\nsides 4 257\n", "line 3, column 9"},
    {"name m\naxes A B\nsides 4 x\n", "line 3, column 9"},
    {"name m\naxes A B\nsides 4 -3\n", "line 3, column 9"},
    {"name m\naxes A B\nsides 4 4 4\n", "line 3, column 11"},
    {"name m\naxes A B\nsides 4\n", "line 3, column 1"},
    {"name m\nsides 4 4\naxes A B\n", "line 2, column 1"},
    {"name m\naxes A A\n", "line 2, column 8"},
    {"name m\naxes A B-1\n", "line 2, column 8"},
    {"name m\naxes A TOOLONGNAME\n", "line 2, column 8"},
    {"name M\n", "line 1, column 6"},
    {"name 1m\n", "line 1, column 6"},
    {"name m n\n", "line 1, column 8"},
    {"name m\nname m\n", "line 2, column 1"},
    {"name m\ncolour blue\n", "line 2, column 1"},
    {"name m\naxes A B\nsides 4 4\nwrap A C\n", "line 4, column 8"},
    {"name m\naxes A B\nsides 4 4\nwrap A A\n", "line 4, column 8"},
    {"name m\naxes A B\nsides 4 4\nwrap 2\n", "line 4, column 6"},
    {"name m\naxes A B\nsides 4 4\nwrap all A\n", "line 4, column 10"},
    {"name m\naxes A B\nsides 4 4\nendpoints 0\n", "line 4, column 11"},
    {"name m\naxes A B\nsides 4 4\nendpoints 257\n", "line 4, column 11"},
    {"name m\naxes A B\nsides 4 4\ntie up\n", "line 4, column 5"},
    {"name m\ntitle\n", "line 2, column 1"},
    {"name m\naxes A B\nsides 4 4\nsource \x01\n", "line 4, column 8"},
    {"axes A B\nsides 4 4\n", "no 'name' line"},
    {"name m\naxes A B\n", "no 'sides' line"},
    {"name m\n", "no 'axes' line"},
};

static void test_bad_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kc_netpreset p;
        kc_err err = {0};
        kc_status s = read_text(&p, bad[i].text, &err);
        if (s != KC_EINVAL || !strstr(err.msg, bad[i].where) || strcmp(err.param, "network") != 0)
            fail_msg("case %zu: status %d, message '%s', expected '%s'", i, (int)s, err.msg, bad[i].where);
    }
}

/* Too many sources: the ninth line is refused. */
static void test_source_limit(void **state)
{
    (void)state;
    char text[1024] = "name m\naxes A\nsides 4\n";
    for (int i = 0; i <= KC_PRESET_SOURCES; i++)
        strcat(text, "source a paper\n");
    kc_netpreset p;
    kc_err err = {0};
    assert_int_equal(read_text(&p, text, &err), KC_EINVAL);
    assert_non_null(strstr(err.msg, "line 12, column 1"));
}

/* The shipped presets and the sizes their sources document. */
static const struct {
    const char *name;
    uint64_t routers;
    int axes, endpoints;
    uint64_t wrap;
} shipped[] = {
    {"bgq-midplane", 512, 5, 1, 0x1f},  {"bgq-rack", 1024, 5, 1, 0x1f},   {"mira", 49152, 5, 1, 0x1f},
    {"sequoia", 98304, 5, 1, 0x1f},     {"titan", 9600, 3, 2, 0x7},       {"k-computer", 88128, 6, 1, 0x17},
    {"fugaku", 158976, 6, 1, 0x17},     {"accel-torus-16", 4096, 3, 1, 0x7},
};

static void test_shipped_presets(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *slash = strrchr(dir, '/');
    assert_non_null(slash);
    *slash = '\0';
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/../data/networks/%s.net", dir, shipped[i].name);
        kc_netpreset p;
        kc_topology t;
        kc_err err = {0};
        if (kc_netpreset_read_path(&p, path, &err) || kc_netpreset_topology(&p, &t, &err))
            fail_msg("%s: %s", shipped[i].name, err.msg);
        assert_string_equal(p.name, shipped[i].name);
        assert_true(p.nsources >= 1);
        assert_true(p.title[0] != '\0');
        assert_int_equal(p.n, shipped[i].axes);
        assert_int_equal(t.nodes, shipped[i].routers);
        assert_int_equal(kc_topology_conc(&t), shipped[i].endpoints);
        assert_int_equal(t.wrap, shipped[i].wrap);
    }
}

/* The --hosts rule on endpoints: a router's endpoints stay together in
 * either fill order; and the coordinate exports with T. */
static void test_endpoint_rule_and_exports(void **state)
{
    (void)state;
    kc_topology t;
    kc_machine m;
    kc_err err = {0};
    int sides[2] = {3, 2};
    assert_int_equal(kc_topology_shape(&t, KC_TOPO_MESH, sides, 2, KC_TIE_PLUS, &err), KC_OK);
    assert_int_equal(kc_topology_set_endpoints(&t, 2, &err), KC_OK);
    assert_int_equal(kc_machine_rule(&m, &t, "h%d", 2, 0, KC_FILL_LAST_AXIS, &err), KC_OK);
    assert_int_equal(m.nodes, 12);
    /* Router 1 = (1,0): row-major position 2, endpoints 4, 5 -> host 2. */
    assert_int_equal(m.host[2], 2);
    assert_int_equal(m.host[3], 2);
    assert_int_equal(m.slot[3], 1);
    kc_machine_free(&m);
    uint32_t ranks[3] = {11, 0, 5};
    char buf[256] = {0};
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_int_equal(kc_export_write_net(f, KC_EXPORT_BGQ_MAPFILE, &t, ranks, 3, NULL, &err), KC_OK);
    fclose(f);
    assert_string_equal(buf, "2 1 1\n0 0 0\n2 0 1\n");
    f = fmemopen(buf, sizeof buf, "w");
    assert_int_equal(kc_export_write(f, KC_EXPORT_BGQ_MAPFILE, ranks, 3, NULL, &err), KC_EINVAL);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_source_limit),
        cmocka_unit_test(test_shipped_presets),
        cmocka_unit_test(test_endpoint_rule_and_exports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
