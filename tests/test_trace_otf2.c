/* The OTF2 reader against archives written by python3-otf2: the writer
 * (tests/support/otf2_write.py, run once into a temporary directory by
 * /usr/bin/python3 with fixed arguments) also computes, from each scenario
 * alone, what reading must give: every event of every rank (kind, times in
 * ns, peers translated to world ranks through the sub-communicators, tags,
 * bytes, requests linked, regions), the traffic of the point-to-point sends,
 * the hosts and ranks per host, the count of skipped events; and for the
 * broken archives the error. A hand-made scenario covers each feature once,
 * a seeded random one the translation and linking at volume. Exits 77
 * (skipped) when /usr/bin/python3 cannot import otf2. */
/* nftw (removing the archives' directory) is an XSI interface. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "kcube/trace.h"

#ifndef KC_OTF2_WRITER
#error "KC_OTF2_WRITER: the path of tests/support/otf2_write.py (tests/CMakeLists.txt)"
#endif

static char dir[] = "/tmp/kc_otf2_test_XXXXXX";

static char *path_of(const char *name, const char *suffix)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s%s", dir, name, suffix);
    return buf;
}

static cJSON *expected(const char *name)
{
    FILE *f = fopen(path_of(name, ".json"), "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* -1 in the expectations stands for KC_TRACE_NONE. */
static uint64_t u64(const cJSON *v)
{
    return v->valuedouble < 0 ? KC_TRACE_NONE : (uint64_t)v->valuedouble;
}

/* The event's communicator members or region name, as expected. */
static void check_where(const kc_trace *t, const kc_trace_event *e, const cJSON *where)
{
    if (cJSON_IsString(where)) {
        assert_true(e->comm < t->nregions);
        assert_string_equal(t->region[e->comm], where->valuestring);
    } else if (cJSON_IsArray(where)) {
        assert_true(e->comm < t->ncomms);
        const kc_trace_comm *c = &t->comm[e->comm];
        assert_int_equal(c->size, cJSON_GetArraySize(where));
        for (uint32_t i = 0; i < c->size; i++)
            assert_int_equal(c->member[i], (uint32_t)cJSON_GetArrayItem(where, (int)i)->valuedouble);
    }
}

static void check_event(const kc_trace *t, const kc_trace_event *e, const cJSON *x)
{
    assert_int_equal(cJSON_GetArraySize(x), 11);
    const cJSON *f[11];
    for (int i = 0; i < 11; i++)
        f[i] = cJSON_GetArrayItem(x, i);
    assert_string_equal(kc_names_name(&kc_trace_kind_names, e->kind), f[0]->valuestring);
    assert_int_equal(e->time, u64(f[1]));
    assert_int_equal(e->end, u64(f[2]));
    assert_int_equal(e->peer, (uint32_t)f[3]->valuedouble);
    assert_int_equal(e->tag, (uint32_t)f[4]->valuedouble);
    assert_int_equal(e->bytes, u64(f[5]));
    assert_int_equal(e->received, u64(f[6]));
    assert_int_equal(e->request, u64(f[7]));
    assert_int_equal(e->op, u64(f[8]));
    if (e->kind == KC_TRACE_COLL)
        assert_int_equal(e->coll, (int)f[9]->valuedouble);
    check_where(t, e, f[10]);
}

/* Bytes per (sender, receiver) of the sends kept, from the trace. */
static void check_traffic(const kc_trace *t, const cJSON *traffic)
{
    uint64_t *m = calloc((size_t)t->ranks * t->ranks, sizeof *m);
    assert_non_null(m);
    for (uint32_t r = 0; r < t->ranks; r++)
        for (size_t i = t->first[r]; i < t->first[r + 1]; i++)
            if (t->ev[i].kind == KC_TRACE_SEND || t->ev[i].kind == KC_TRACE_ISEND)
                m[(size_t)r * t->ranks + t->ev[i].peer] += t->ev[i].bytes;
    uint64_t total = 0;
    for (uint32_t s = 0; s < t->ranks; s++)
        for (uint32_t d = 0; d < t->ranks; d++) {
            uint64_t want = (uint64_t)cJSON_GetArrayItem(cJSON_GetArrayItem(traffic, (int)s), (int)d)->valuedouble;
            assert_int_equal(m[(size_t)s * t->ranks + d], want);
            total += want;
        }
    assert_true(total > 0);
    free(m);
}

static void check_scenario(const char *name)
{
    cJSON *x = expected(name);
    kc_trace t;
    kc_err err = {0};
    if (kc_trace_read_otf2(&t, path_of(name, ""), NULL, &err) != KC_OK)
        fail_msg("%s: %s", name, err.msg);
    assert_int_equal(t.ranks, (uint32_t)num(x, "ranks"));
    assert_int_equal(t.nodes, (uint32_t)num(x, "nodes"));
    assert_int_equal(t.ranks_per_node, (uint32_t)num(x, "ranks_per_node"));
    assert_int_equal(t.skipped, (size_t)num(x, "skipped"));
    const cJSON *node_of = cJSON_GetObjectItemCaseSensitive(x, "node_of");
    for (uint32_t r = 0; r < t.ranks; r++)
        assert_int_equal(t.node_of[r], (uint32_t)cJSON_GetArrayItem(node_of, (int)r)->valuedouble);
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(x, "regions");
    assert_int_equal(t.nregions, cJSON_GetArraySize(regions));
    for (uint32_t i = 0; i < t.nregions; i++)
        assert_string_equal(t.region[i], cJSON_GetArrayItem(regions, (int)i)->valuestring);
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(x, "events");
    uint64_t last = 0;
    for (uint32_t r = 0; r < t.ranks; r++) {
        const cJSON *mine = cJSON_GetArrayItem(events, (int)r);
        assert_int_equal(t.first[r + 1] - t.first[r], (size_t)cJSON_GetArraySize(mine));
        for (size_t i = t.first[r]; i < t.first[r + 1]; i++) {
            check_event(&t, &t.ev[i], cJSON_GetArrayItem(mine, (int)(i - t.first[r])));
            last = t.ev[i].end > last ? t.ev[i].end : last;
        }
    }
    assert_int_equal(t.duration, last);
    check_traffic(&t, cJSON_GetObjectItemCaseSensitive(x, "traffic"));

    kc_trace_size sz;
    assert_int_equal(kc_trace_size_otf2(path_of(name, ""), &sz, &err), KC_OK);
    assert_int_equal(sz.ranks, t.ranks);
    assert_int_equal(sz.events, (uint64_t)num(x, "declared"));
    assert_true(sz.bytes >= t.nev * sizeof(kc_trace_event)); /* the estimate covers the events at least */
    kc_trace_free(&t);
    cJSON_Delete(x);
}

static void test_basic(void **state)
{
    (void)state;
    check_scenario("basic");
}

static void test_random(void **state)
{
    (void)state;
    check_scenario("random");
}

static void test_small_and_hostless(void **state)
{
    (void)state;
    check_scenario("small");
    check_scenario("hostless");
}

/* Every broken archive: the status and a piece of the one-line message,
 * nothing left to free, nothing printed (OTF2's own messages silenced). */
static void test_bad_archives(void **state)
{
    (void)state;
    static const char *const bad[] = {"bad_cut",     "bad_nodef",       "bad_undefloc",  "bad_comm",
                                      "bad_collcomm", "bad_noworld",    "bad_garbage",   "bad_anchor_only",
                                      "bad_no_anchor", "bad_two_anchors", "bad_cutdef"};
    char quiet[] = "/tmp/kc_otf2_stderr_XXXXXX";
    int fd = mkstemp(quiet), saved = dup(2);
    assert_true(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, 2);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *x = expected(bad[i]);
        const char *want = cJSON_GetObjectItemCaseSensitive(x, "error")->valuestring;
        kc_trace t;
        kc_err err = {0};
        kc_status s = kc_trace_read_otf2(&t, path_of(bad[i], ""), NULL, &err);
        dup2(saved, 2);
        if (s != KC_EINVAL || !strstr(err.msg, want) || strchr(err.msg, '\n'))
            fail_msg("%s: status %d, message \"%s\", wanted \"%s\"", bad[i], (int)s, err.msg, want);
        dup2(fd, 2);
        assert_null(t.ev);
        assert_null(t.comm);
        assert_int_equal(t.ranks, 0);
        cJSON_Delete(x);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t printed = lseek(fd, 0, SEEK_END);
    close(fd);
    unlink(quiet);
    assert_int_equal(printed, 0);
}

static void test_is_otf2(void **state)
{
    (void)state;
    char *anchor = NULL;
    char want[512];
    snprintf(want, sizeof want, "%s/basic/traces.otf2", dir);
    assert_int_equal(kc_trace_is_otf2(path_of("basic", ""), &anchor), 1);
    assert_string_equal(anchor, want);
    free(anchor);
    assert_int_equal(kc_trace_is_otf2(want, &anchor), 1);
    assert_string_equal(anchor, want);
    free(anchor);
    assert_int_equal(kc_trace_is_otf2(want, NULL), 1);
    assert_int_equal(kc_trace_is_otf2(path_of("basic.json", ""), &anchor), 0);
    assert_null(anchor);
    assert_int_equal(kc_trace_is_otf2(path_of("bad_no_anchor", ""), &anchor), 0);
    assert_int_equal(kc_trace_is_otf2(path_of("bad_two_anchors", ""), &anchor), 0);
    assert_int_equal(kc_trace_is_otf2(path_of("absent", ""), &anchor), 0);
    assert_int_equal(kc_trace_is_otf2(path_of("basic/traces", ""), &anchor), 0); /* the events' directory */
    assert_null(anchor);
    /* A garbage anchor is still an anchor: reading it says what is wrong. */
    assert_int_equal(kc_trace_is_otf2(path_of("bad_garbage", ""), NULL), 1);
}

static void test_limits(void **state)
{
    (void)state;
    kc_trace t;
    kc_err err = {0};
    kc_trace_size sz;
    assert_int_equal(kc_trace_size_otf2(path_of("basic", ""), &sz, &err), KC_OK);
    kc_trace_limits lim = {sz.events - 1, 0};
    assert_int_equal(kc_trace_read_otf2(&t, path_of("basic", ""), &lim, &err), KC_ERANGE);
    char want[64];
    snprintf(want, sizeof want, "declares %llu events", (unsigned long long)sz.events);
    assert_non_null(strstr(err.msg, want));
    assert_non_null(strstr(err.msg, "MiB"));
    assert_null(t.ev);
    lim.max_events = sz.events;
    assert_int_equal(kc_trace_read_otf2(&t, path_of("basic", ""), &lim, &err), KC_OK);
    kc_trace_free(&t);
    lim.max_ranks = 3;
    assert_int_equal(kc_trace_read_otf2(&t, path_of("basic", ""), &lim, &err), KC_ERANGE);
    assert_non_null(strstr(err.msg, "4 ranks"));
    assert_int_equal(kc_trace_size_otf2(path_of("bad_nodef", ""), &sz, &err), KC_EINVAL);
    assert_int_equal(sz.ranks, 0);
}

extern char **environ;

/* Run argv[0] with argv, no shell between (paths are data), its standard
 * error to /dev/null when quiet; 1 when it exits 0. */
static int run(char *const argv[], int quiet)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status = -1, ok = posix_spawn_file_actions_init(&fa) == 0;
    if (ok && quiet)
        ok = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0) == 0;
    ok = ok && posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) == 0 && waitpid(pid, &status, 0) == pid;
    posix_spawn_file_actions_destroy(&fa);
    return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(void)
{
    char python[] = "/usr/bin/python3", opt[] = "-c", import[] = "import otf2", writer[] = KC_OTF2_WRITER;
    char *probe[] = {python, opt, import, NULL}, *write[] = {python, writer, dir, NULL};
    if (access(python, X_OK) != 0 || !run(probe, 1)) {
        printf("skipped: /usr/bin/python3 cannot import otf2 (python3-otf2)\n");
        return 77;
    }
    if (!mkdtemp(dir))
        return 1;
    if (!run(write, 0)) {
        fprintf(stderr, "the archive writer failed: %s %s %s\n", python, writer, dir);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),        cmocka_unit_test(test_random),
        cmocka_unit_test(test_small_and_hostless), cmocka_unit_test(test_bad_archives),
        cmocka_unit_test(test_is_otf2),      cmocka_unit_test(test_limits),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return failed;
}
