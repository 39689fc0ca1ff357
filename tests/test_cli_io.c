/* The command line's safety pieces: escaped echoes (text.h), UTF-8 repair of
 * JSON, atomic output files and output checks (out.h), safe charts (plot.h).
 * Also: signals remove temporaries, the temporary name is short, FIFOs are
 * written in place (and one no process reads is refused, not waited on),
 * CSV fields are quoted as RFC 4180 says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "out.h"
#include "plot.h"
#include "text.h"

/* ---- stderr capture: the messages must be one line each ---- */
typedef struct capture {
    int saved;
    char path[64];
} capture;

static void capture_begin(capture *c)
{
    fflush(stderr);
    strcpy(c->path, "/tmp/kc_test_cli_err_XXXXXX");
    int fd = mkstemp(c->path);
    assert_true(fd >= 0);
    c->saved = dup(2);
    dup2(fd, 2);
    close(fd);
}

/* The captured text (static buffer of the test, not of the code under test). */
static const char *capture_end(capture *c)
{
    static char text[4096];
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    FILE *f = fopen(c->path, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    unlink(c->path);
    return text;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static char *temp_dir(void)
{
    char *d = strdup("/tmp/kc_test_cli_io_XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static void remove_dir(char *d)
{
    DIR *dir = opendir(d);
    struct dirent *e;
    char p[512];
    while ((e = readdir(dir)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", d, e->d_name);
            unlink(p);
        }
    closedir(dir);
    rmdir(d);
    free(d);
}

static void test_quote(void **state)
{
    (void)state;
    cli_quoted q;
    assert_string_equal(cli_quote(&q, "plain.txt"), "plain.txt");
    assert_string_equal(cli_quote(&q, "4\nx4"), "4\\nx4");
    assert_string_equal(cli_quote(&q, "a\tb\rc\\d"), "a\\tb\\rc\\\\d");
    assert_string_equal(cli_quote(&q, "\x01\x7f\x1b[31m"), "\\x01\\x7f\\x1b[31m");
    /* Valid UTF-8 stays readable; invalid bytes and C1 controls are escaped. */
    assert_string_equal(cli_quote(&q, "caf\xc3\xa9"), "caf\xc3\xa9");
    assert_string_equal(cli_quote(&q, "bad\xff\xc3"), "bad\\xff\\xc3");
    assert_string_equal(cli_quote(&q, "\xc2\x85"), "\\xc2\\x85");
    assert_string_equal(cli_quote(&q, "\xed\xa0\x80"), "\\xed\\xa0\\x80"); /* a surrogate */
    assert_string_equal(cli_quote(&q, "\xc0\xaf"), "\\xc0\\xaf");          /* overlong '/' */
    assert_string_equal(cli_quote(&q, NULL), "(null)");
    /* Over 64 escaped bytes: cut visibly, never inside an escape. */
    char longer[200];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    const char *s = cli_quote(&q, longer);
    assert_int_equal(strlen(s), KC_ESCAPE_MAX + 3);
    assert_string_equal(s + KC_ESCAPE_MAX, "...");
    memset(longer, '\n', sizeof longer - 1);
    s = cli_quote(&q, longer);
    assert_int_equal(strlen(s), KC_ESCAPE_MAX + 3);
    assert_int_equal(s[KC_ESCAPE_MAX - 2], '\\');
    /* Exactly 64 bytes fit without a cut. */
    longer[64] = '\0';
    memset(longer, 'b', 64);
    assert_string_equal(cli_quote(&q, longer), longer);
}

static void test_utf8_fix(void **state)
{
    (void)state;
    char *s = cli_utf8_fix("ok \xc3\xa9 \xf0\x9f\x98\x80", 10);
    assert_string_equal(s, "ok \xc3\xa9 \xf0\x9f\x98\x80");
    free(s);
    s = cli_utf8_fix("a\xffz\xc3", 4);
    assert_string_equal(s, "a\xef\xbf\xbdz\xef\xbf\xbd");
    free(s);
    s = cli_utf8_fix("\xed\xa0\x80\xf4\x90\x80\x80", 7); /* surrogate, beyond U+10FFFF */
    for (const char *p = s; *p; p += 3)
        assert_memory_equal(p, "\xef\xbf\xbd", 3);
    assert_int_equal(strlen(s), 21);
    free(s);
}

/* cli_print_json: a non-UTF-8 string in the tree comes out as U+FFFD. */
static void test_print_json_utf8(void **state)
{
    (void)state;
    char path[] = "/tmp/kc_test_cli_json_XXXXXX";
    int fd = mkstemp(path);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "pairs", "/tmp/p\xff.txt");
    assert_int_equal(cli_print_json(o), CLI_EXIT_OK);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    char text[256] = {0};
    assert_true(pread(fd, text, sizeof text - 1, 0) > 0);
    close(fd);
    unlink(path);
    assert_non_null(strstr(text, "/tmp/p\xef\xbf\xbd.txt"));
}

static void test_cli_int_messages(void **state)
{
    (void)state;
    static const cli_opt rate = {.name = "rate", .type = CLI_REAL, .rlo = 0, .rhi = 1};
    cli_value v;
    capture c;
    capture_begin(&c);
    assert_int_equal(cli_parse_value(&OPT_N, "4\nx", &v), 2);
    const char *e = capture_end(&c);
    assert_int_equal(lines(e), 1);
    assert_non_null(strstr(e, "'4\\nx'"));
    capture_begin(&c);
    assert_int_equal(cli_parse_value(&OPT_N, "99999999999999999999999", &v), 2);
    e = capture_end(&c);
    assert_non_null(strstr(e, "99999999999999999999999 is out of range"));
    capture_begin(&c);
    assert_int_equal(cli_parse_value(&OPT_N, "-7", &v), 2);
    e = capture_end(&c);
    assert_non_null(strstr(e, "-7 is out of range"));
    capture_begin(&c);
    assert_int_equal(cli_parse_value(&rate, "0.1\x1b", &v), 2);
    e = capture_end(&c);
    assert_int_equal(lines(e), 1);
    assert_non_null(strstr(e, "0.1\\x1b"));
    /* Any message with a raw newline still makes one line. */
    capture_begin(&c);
    cli_error("unknown option '%s'", "a\nb");
    e = capture_end(&c);
    assert_string_equal(e, "kcube: unknown option 'a\\nb'\n");
}

static void test_atomic_writer(void **state)
{
    (void)state;
    char *d = temp_dir();
    char path[256];
    snprintf(path, sizeof path, "%s/out.csv", d);
    assert_int_equal(cli_write_file(path, "a,b\n", 4), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 4);
    assert_int_equal(st.st_mode & 0600, 0600);
    assert_int_equal(dir_entries(d), 1);
    /* Replacing keeps the old file until the new one is complete. */
    assert_int_equal(cli_write_file(path, "new\n", 4), 0);
    assert_int_equal(dir_entries(d), 1);
    /* Abort leaves nothing. */
    cli_atomic a;
    char other[256];
    snprintf(other, sizeof other, "%s/other.txt", d);
    assert_int_equal(cli_atomic_open(&a, other), 0);
    fputs("partial", a.f);
    cli_atomic_abort(&a);
    assert_int_equal(dir_entries(d), 1);
    remove_dir(d);
}

/* A file size limit makes writes fail half-way, as a full disk would;
 * SIGXFSZ is ignored so the write returns EFBIG instead of killing us. */
typedef struct fsize_limit {
    struct rlimit old;
    void (*prev)(int);
} fsize_limit;

static void fsize_limit_set(fsize_limit *l, rlim_t bytes)
{
    getrlimit(RLIMIT_FSIZE, &l->old);
    struct rlimit lim = l->old;
    lim.rlim_cur = bytes;
    l->prev = signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &lim);
}

static void fsize_limit_end(fsize_limit *l)
{
    setrlimit(RLIMIT_FSIZE, &l->old);
    signal(SIGXFSZ, l->prev);
}

/* A write that fails half-way (file size limit, as a full disk would) leaves
 * neither the temporary nor a partial target, and prints one line. */
static void test_atomic_failure_leaves_nothing(void **state)
{
    (void)state;
    char *d = temp_dir();
    char path[256];
    snprintf(path, sizeof path, "%s/big.csv", d);
    size_t n = 1 << 20;
    char *data = malloc(n);
    memset(data, 'x', n);
    fsize_limit l;
    fsize_limit_set(&l, 4096);
    capture c;
    capture_begin(&c);
    int rc = cli_write_file(path, data, n);
    const char *e = capture_end(&c);
    fsize_limit_end(&l);
    assert_int_equal(rc, CLI_EXIT_FAIL);
    assert_int_equal(lines(e), 1);
    assert_non_null(strstr(e, "kcube: cannot write "));
    if (!strstr(e, "big.csv: File too large"))
        fail_msg("got: %s", e);
    assert_int_equal(dir_entries(d), 0);
    free(data);
    /* A missing directory, a path that is a directory. */
    capture_begin(&c);
    assert_int_equal(cli_write_file("/nonexistent/dir/x.csv", "a", 1), CLI_EXIT_FAIL);
    e = capture_end(&c);
    assert_string_equal(e, "kcube: cannot write /nonexistent/dir/x.csv: No such file or directory\n");
    capture_begin(&c);
    assert_int_equal(cli_check_output(d), CLI_EXIT_FAIL);
    e = capture_end(&c);
    assert_non_null(strstr(e, "Is a directory"));
    capture_begin(&c);
    assert_int_equal(cli_check_output("/nonexistent/\n/x.png"), CLI_EXIT_FAIL);
    e = capture_end(&c);
    assert_int_equal(lines(e), 1);
    assert_non_null(strstr(e, "/nonexistent/\\n/x.png"));
    snprintf(path, sizeof path, "%s/ok.png", d);
    assert_int_equal(cli_check_output(path), 0);
    assert_int_equal(dir_entries(d), 0);
    remove_dir(d);
}

static int have_gnuplot(void) { return system("gnuplot --version > /dev/null 2>&1") == 0; }

/* Hostile labels are drawn literally: no shell, no backquote substitution,
 * no enhanced-text operators; a bad name or a failed draw leaves nothing. */
static void test_plot(void **state)
{
    (void)state;
    char *d = temp_dir();
    char path[256], cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(d), 0);
    double x[3] = {0.1, 0.2, 0.3}, y[3] = {10, 12, 500};
    cli_plot_series s[2] = {{"it's `touch PWNED1`", 3, x, y}, {"my_map@x\n$(touch PWNED2)'", 3, x, y}};
    cli_plot p;
    cli_plot_init(&p);
    p.title = "title ' `touch PWNED3` \\";
    p.xlabel = "x_1";
    p.ylabel = "y^2";
    p.logy = 1;
    p.series = s;
    p.nseries = 2;
    assert_true(isnan(p.ymax));
    assert_true(fabs(cli_plot_ycap(&p, 12) - 120) < 1e-9);
    if (have_gnuplot()) {
        snprintf(path, sizeof path, "%s/p`touch PWNED4`.svg", d);
        assert_int_equal(cli_plot_write(&p, path), 0);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char *svg = calloc(1, 1 << 20);
        assert_true(fread(svg, 1, (1 << 20) - 1, f) > 0);
        fclose(f);
        assert_non_null(strstr(svg, "it&apos;s `touch PWNED1`") ? svg : strstr(svg, "it's `touch PWNED1`"));
        assert_non_null(strstr(svg, "my_map@x\\n$(touch PWNED2)"));
        free(svg);
        snprintf(path, sizeof path, "%s/p.png", d);
        assert_int_equal(cli_plot_write(&p, path), 0);
        assert_int_equal(dir_entries(d), 2);
    }
    assert_int_equal(access("PWNED1", F_OK), -1);
    assert_int_equal(access("PWNED2", F_OK), -1);
    assert_int_equal(access("PWNED3", F_OK), -1);
    assert_int_equal(access("PWNED4", F_OK), -1);
    int before = dir_entries(d);
    capture c;
    capture_begin(&c);
    snprintf(path, sizeof path, "%s/bad\n.png", d);
    assert_int_equal(cli_plot_write(&p, path), CLI_EXIT_USAGE);
    snprintf(path, sizeof path, "%s/x.gif", d);
    assert_int_equal(cli_plot_check(path), CLI_EXIT_USAGE);
    assert_int_equal(cli_plot_check("/nonexistent/x.png"), CLI_EXIT_FAIL);
    const char *e = capture_end(&c);
    assert_int_equal(lines(e), 3);
    assert_int_equal(dir_entries(d), before);
    /* gnuplot killed half-way (file size limit): nothing left, one line. */
    if (have_gnuplot()) {
        fsize_limit l;
        fsize_limit_set(&l, 1024);
        snprintf(path, sizeof path, "%s/big.png", d);
        capture_begin(&c);
        int rc = cli_plot_write(&p, path);
        e = capture_end(&c);
        fsize_limit_end(&l);
        assert_int_equal(rc, CLI_EXIT_FAIL);
        assert_int_equal(lines(e), 1);
        assert_non_null(strstr(e, "big.png"));
        assert_int_equal(dir_entries(d), before);
    }
    assert_int_equal(chdir(cwd), 0);
    remove_dir(d);
}

/* A fatal signal while an output file is open removes its
 * temporary and still ends the process with that signal. */
static void test_signal_removes_temporary(void **state)
{
    (void)state;
    const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        char *d = temp_dir();
        char path[256];
        snprintf(path, sizeof path, "%s/out.csv", d);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            cli_signals_init();
            cli_atomic a;
            if (cli_atomic_open(&a, path) != 0)
                _exit(3);
            fputs("partial", a.f);
            fflush(a.f);
            if (dir_entries(d) != 1)
                _exit(4); /* the temporary exists */
            raise(sigs[i]);
            _exit(5); /* not reached: the signal ends the process */
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFSIGNALED(status))
            fail_msg("child exited %d", WEXITSTATUS(status));
        assert_int_equal(WTERMSIG(status), sigs[i]);
        assert_int_equal(dir_entries(d), 0);
        remove_dir(d);
    }
}

/* A new temporary directory (returned) with a FIFO named path in it. */
static char *fifo_in_temp_dir(char *path, size_t size)
{
    char *d = temp_dir();
    snprintf(path, size, "%s/fifo", d);
    assert_int_equal(mkfifo(path, 0600), 0);
    return d;
}

/* A FIFO is written in place (never replaced), and
 * a target name of 250 bytes works (the temporary name is short). */
static void test_fifo_and_long_name(void **state)
{
    (void)state;
    char path[512];
    char *d = fifo_in_temp_dir(path, sizeof path);
    int rd = open(path, O_RDONLY | O_NONBLOCK); /* a reader, so the writer's open does not wait */
    assert_true(rd >= 0);
    assert_int_equal(cli_write_file(path, "abc\n", 4), 0);
    char got[8] = {0};
    assert_int_equal(read(rd, got, sizeof got), 4);
    assert_string_equal(got, "abc\n");
    close(rd);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    unlink(path);
    int n = snprintf(path, sizeof path, "%s/", d);
    memset(path + n, 'x', 250);
    path[n + 250] = '\0';
    assert_int_equal(cli_write_file(path, "a\n", 2), 0);
    assert_int_equal(dir_entries(d), 1);
    remove_dir(d);
}

/* A FIFO that no process reads: refused in one line (after a short grace
 * for a reader starting at the same moment), not waited on forever; the
 * FIFO stays a FIFO. */
static void test_fifo_without_reader(void **state)
{
    (void)state;
    char path[512];
    char *d = fifo_in_temp_dir(path, sizeof path);
    alarm(30); /* a hang ends the test instead of the suite */
    capture c;
    capture_begin(&c);
    int rc = cli_write_file(path, "abc\n", 4);
    const char *err = capture_end(&c);
    alarm(0);
    assert_int_equal(rc, CLI_EXIT_FAIL);
    assert_int_equal(lines(err), 1);
    assert_non_null(strstr(err, "no process reads"));
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(dir_entries(d), 1);
    unlink(path);
    remove_dir(d);
}

static const char *csv_of(const char *field)
{
    static char out[128];
    memset(out, 0, sizeof out);
    FILE *f = fmemopen(out, sizeof out, "w");
    cli_csv_field(f, field);
    fclose(f);
    return out;
}

/* RFC 4180 fields. */
static void test_csv_field(void **state)
{
    (void)state;
    assert_string_equal(csv_of("plain"), "plain");
    assert_string_equal(csv_of(""), "");
    assert_string_equal(csv_of("a,b"), "\"a,b\"");
    assert_string_equal(csv_of("phase:say\"hi\""), "\"phase:say\"\"hi\"\"\"");
    assert_string_equal(csv_of("two\nlines"), "\"two\nlines\"");
    assert_string_equal(csv_of("cr\r"), "\"cr\r\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_utf8_fix),
        cmocka_unit_test(test_print_json_utf8),
        cmocka_unit_test(test_cli_int_messages),
        cmocka_unit_test(test_atomic_writer),
        cmocka_unit_test(test_atomic_failure_leaves_nothing),
        cmocka_unit_test(test_plot),
        cmocka_unit_test(test_signal_removes_temporary),
        cmocka_unit_test(test_fifo_and_long_name),
        cmocka_unit_test(test_fifo_without_reader),
        cmocka_unit_test(test_csv_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
