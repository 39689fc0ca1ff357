/* Checked standard output, output files and the signal cleanup list (out.h). */
/* realpath() is XSI, not in _POSIX_C_SOURCE alone. */
#define _XOPEN_SOURCE 700
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "opt.h"
#include "text.h"

void cli_std_open(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        /* Read-only even for 1 and 2: writes keep failing, visibly. The
         * lowest free descriptor is fd itself, since the lower ones are open. */
        int got = open("/dev/null", O_RDONLY);
        if (got != fd && got >= 0)
            close(got);
    }
}

/* Set by every line that says an output failed (see cli_outputs_end). */
static void output_failed(void);

int cli_write_error(const char *path, int errnum)
{
    cli_quoted q;
    output_failed();
    fprintf(stderr, "kcube: cannot write %s: %s\n", cli_is_stdout(path) ? "standard output" : cli_quote(&q, path),
            strerror(errnum));
    return CLI_EXIT_FAIL;
}

/* Flush f and say whether every write reached it: 0, or the reason. An
 * earlier write that failed left no errno; the output is lost already, so
 * one more byte is tried to learn the reason again (EIO when it cannot). */
static int flush_error(FILE *f)
{
    errno = 0;
    if (fflush(f) != 0)
        return errno ? errno : EIO;
    if (!ferror(f))
        return 0;
    clearerr(f);
    errno = 0;
    int e = fputc('\n', f) == EOF || fflush(f) != 0 ? errno : 0;
    return e ? e : EIO;
}

int cli_finish(int rc)
{
    int e = flush_error(stdout);
    errno = 0;
    if (fclose(stdout) != 0 && !e)
        e = errno ? errno : EIO;
    /* A reader that went away (kcube ... | head) wanted no more: not a failure. */
    if (!e || e == EPIPE)
        return rc;
    fprintf(stderr, "kcube: cannot write standard output: %s\n", strerror(e));
    return rc ? rc : CLI_EXIT_FAIL;
}

/* ---- signals and the cleanup list ------------------------------------------
 * The one piece of global mutable state in the command line: what a signal
 * handler must undo. Slots are set before the temporary can exist (signals
 * blocked around mkstemp) and cleared before its name is freed. */
#define CLEANUP_SLOTS 8
static const char *volatile cleanup_tmp[CLEANUP_SLOTS];
static volatile pid_t cleanup_pid;
static volatile pid_t cleanup_owner; /* a forked child must not clean up for us */

static void on_fatal_signal(int sig)
{
    int saved = errno;
    if (getpid() == cleanup_owner) {
        pid_t child = cleanup_pid;
        if (child > 0)
            kill(-child, SIGKILL), kill(child, SIGKILL); /* gnuplot leads a process group (plot.c) */
        for (int i = 0; i < CLEANUP_SLOTS; i++) {
            const char *t = cleanup_tmp[i];
            if (t)
                unlink(t);
        }
    }
    errno = saved;
    /* SA_RESETHAND | SA_NODEFER: the default action is back and unblocked, so
     * this ends the process with the signal's own status. */
    raise(sig);
}

void cli_signals_init(void)
{
    cleanup_owner = getpid();
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    static const int fatal[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++) {
        struct sigaction old, sa;
        /* A signal ignored by whoever started us (nohup, background jobs) stays ignored. */
        if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(fatal[i], &sa, NULL);
    }
}

int cli_cleanup_add(const char *tmp)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (!cleanup_tmp[i]) {
            cleanup_tmp[i] = tmp;
            return 0;
        }
    return -1;
}

void cli_cleanup_remove(const char *tmp)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup_tmp[i] == tmp)
            cleanup_tmp[i] = NULL;
}

void cli_cleanup_child(pid_t pid) { cleanup_pid = pid; }

/* ---- who writes standard output -------------------------------------------
 * Descriptor 1 is one per process, so what it carries is process state too:
 * the second piece of global mutable state, set by cli_outputs_begin() and
 * undone by cli_outputs_end() around one command. */
static struct {
    int active;        /* inside cli_outputs_begin .. cli_outputs_end */
    const char *owner; /* the output that took standard output ("out" for --out -), or NULL */
    FILE *owned;       /* that output's stream: descriptor 1 as the command found it */
    int saved;         /* descriptor 1 as found, while 1 points elsewhere; -1 when not */
    FILE *held;        /* the report held back until the outputs are written (1 points here) */
    int failed;        /* an output could not be written: the held report is dropped */
} so = {0, NULL, NULL, -1, NULL, 0};

static void output_failed(void) { so.failed = 1; }

/* Descriptor 1 as found, kept aside (close-on-exec: gnuplot gets none). */
static int save_stdout(void)
{
    if (so.saved < 0)
        so.saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    return so.saved;
}

/* From here to cli_outputs_end the report goes to a temporary file, so a
 * command that fails writing its output has printed nothing. Without a
 * temporary file (none can be made) the report goes out as it is written. */
static void hold_report(void)
{
    if (!so.active || so.held)
        return;
    fflush(stdout);
    FILE *t = tmpfile();
    if (!t)
        return;
    if (save_stdout() < 0 || dup2(fileno(t), STDOUT_FILENO) < 0) {
        fclose(t);
        return;
    }
    so.held = t;
}

/* The output named owner ("out", "plot", ...) takes standard output; the
 * report goes to standard error from here on. Once per command: a second
 * output on '-', or a report that is itself machine-readable, is refused. */
static int take_stdout(const cli_args *a, const char *owner)
{
    if (so.owner)
        return strcmp(so.owner, owner) == 0
                   ? 0
                   : cli_error("--%s and --%s both write to '-' (standard output): give one of them a file",
                               so.owner, owner);
    for (size_t i = 0; a && i < a->nuser; i++) {
        const char *n = a->vals[i].opt->name;
        if (!strcmp(n, "json") || !strcmp(n, "csv") || !strcmp(n, "emit-c"))
            return cli_error("--%s writes to standard output and so does --%s -: give --%s a file", n, owner,
                             owner);
    }
    fflush(stdout);
    int fd = save_stdout() < 0 ? -1 : fcntl(so.saved, F_DUPFD_CLOEXEC, 3);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (f)
        hold_report(); /* the report, for standard error at the end */
    if (!f || (!so.held && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)) {
        int e = errno;
        if (f)
            fclose(f);
        else if (fd >= 0)
            close(fd);
        return cli_write_error("-", e);
    }
    so.owned = f;
    so.owner = owner;
    return 0;
}

int cli_stdout_take(const cli_args *a, const char *owner) { return so.active ? take_stdout(a, owner) : 0; }

/* Options that name an output file; every other file option is an input. */
static int is_output_opt(const cli_opt *o)
{
    static const char *const names[] = {"out",      "plot",  "plot-barrier", "emit-goal", "emit-traffic",
                                        "timeline", "loads", NULL};
    for (int i = 0; names[i]; i++)
        if (!strcmp(o->name, names[i]))
            return 1;
    return 0;
}

static int is_input_opt(const cli_opt *o)
{
    return o->type == CLI_TEXT && !is_output_opt(o) && o->meta && (strstr(o->meta, "FILE") || strstr(o->meta, "PATH"));
}

/* A regular file at path: its identity in *st. */
static int regular_at(const char *path, struct stat *st) { return stat(path, st) == 0 && S_ISREG(st->st_mode); }

/* Refuse an output that is one of the command's inputs (the same file, by
 * device and inode, so links and other spellings count): writing it would
 * destroy what the command reads. 0, or CLI_EXIT_USAGE after one line. */
static int output_not_input(const cli_args *a, const cli_value *out)
{
    struct stat so_st, in_st;
    if (!regular_at(out->text, &so_st))
        return 0;
    cli_quoted q;
    for (size_t i = 0; i < a->nuser + a->npos; i++) {
        const cli_value *v = i < a->nuser ? &a->vals[i] : NULL;
        if (v && !is_input_opt(v->opt))
            continue;
        const char *in = v ? v->text : a->pos[i - a->nuser];
        if (regular_at(in, &in_st) && in_st.st_dev == so_st.st_dev && in_st.st_ino == so_st.st_ino)
            return cli_error("--%s '%s' is also an input of this command (%s%s); write it elsewhere", out->opt->name,
                             cli_quote(&q, out->text), v ? "--" : "the file argument", v ? v->opt->name : "");
    }
    return 0;
}

/* Two outputs on one file: the second would silently replace the first.
 * The same name, or the same regular file under two names. */
static int outputs_apart(const cli_args *a, size_t i)
{
    const cli_value *v = &a->vals[i];
    struct stat st, other;
    int there = regular_at(v->text, &st);
    cli_quoted q;
    for (size_t k = 0; k < i; k++) {
        const cli_value *w = &a->vals[k];
        if (!is_output_opt(w->opt) || !w->text || w->opt == v->opt || cli_is_stdout(w->text))
            continue;
        if (!strcmp(w->text, v->text) ||
            (there && regular_at(w->text, &other) && other.st_dev == st.st_dev && other.st_ino == st.st_ino))
            return cli_error("--%s and --%s both write '%s': give each its own file", w->opt->name, v->opt->name,
                             cli_quote(&q, v->text));
    }
    return 0;
}

/* Standard input is read once: two inputs given as '-' (an option or the
 * file argument) cannot both have it. 0, or CLI_EXIT_USAGE after one line. */
static int one_stdin_reader(const cli_args *a)
{
    const char *first = NULL;
    for (size_t i = 0; i < a->nuser + a->npos; i++) {
        const cli_value *v = i < a->nuser ? &a->vals[i] : NULL;
        if ((v && !is_input_opt(v->opt)) || strcmp(v ? v->text : a->pos[i - a->nuser], "-"))
            continue;
        const char *name = v ? v->opt->name : "the file argument";
        if (first)
            return cli_error("%s%s and %s%s both read standard input ('-'): give one of them a file",
                             strcmp(first, "the file argument") ? "--" : "", first, v ? "--" : "", name);
        first = name;
    }
    return 0;
}

int cli_outputs_begin(const cli_args *a)
{
    so.active = 1;
    so.failed = 0;
    int r = one_stdin_reader(a);
    for (size_t i = 0; i < a->nvals && !r; i++) {
        const cli_value *v = &a->vals[i];
        if (!is_output_opt(v->opt) || !v->text)
            continue;
        if (cli_is_stdout(v->text))
            r = take_stdout(a, v->opt->name);
        else if (i < a->nuser && !(r = output_not_input(a, v)) && !(r = outputs_apart(a, i)))
            hold_report();
    }
    return r;
}

/* The held report, to where the report goes now. */
static void release_report(int drop)
{
    fflush(stdout);
    if (so.saved >= 0) {
        dup2(so.saved, STDOUT_FILENO);
        close(so.saved);
        so.saved = -1;
    }
    if (!so.held)
        return;
    FILE *to = so.owner ? stderr : stdout;
    char buf[8192];
    size_t n;
    rewind(so.held);
    while (!drop && (n = fread(buf, 1, sizeof buf, so.held)) > 0)
        fwrite(buf, 1, n, to); /* errors on stdout surface in cli_finish */
    fclose(so.held);
    so.held = NULL;
}

int cli_outputs_end(int rc)
{
    if (so.owned && fclose(so.owned) != 0 && errno != EPIPE && !rc)
        rc = cli_write_error("-", errno);
    release_report(rc && so.failed);
    so.owned = NULL;
    so.owner = NULL;
    so.active = so.failed = 0;
    return rc;
}

/* ---- output files ---------------------------------------------------------- */

int cli_is_stdout(const char *path) { return path && !strcmp(path, "-"); }

static int write_refused(const char *path, const char *why)
{
    cli_quoted q;
    output_failed();
    fprintf(stderr, "kcube: cannot write %s: %s\n", cli_quote(&q, path), why);
    return CLI_EXIT_FAIL;
}

static const char *kind_refused(mode_t m)
{
    return S_ISSOCK(m) ? "it is a socket" : S_ISBLK(m) ? "it is a block device" : "it is not a regular file";
}

/* What is at path (through links): *st filled and 1 when something is
 * there, 0 for a new file, -1 with errno on failure. *target is the file to
 * replace (malloc'ed): the link's target for a symbolic link, else path. */
static int examine(const char *path, struct stat *st, char **target)
{
    *target = NULL;
    if (lstat(path, st) != 0) {
        if (errno != ENOENT)
            return -1;
        return (*target = strdup(path)) ? 0 : (errno = ENOMEM, -1);
    }
    if (S_ISLNK(st->st_mode)) {
        /* A dangling link is refused: following it would create a file
         * wherever the link points. */
        if (stat(path, st) != 0 || !(*target = realpath(path, NULL)))
            return -1;
        return 1;
    }
    return (*target = strdup(path)) ? 1 : (errno = ENOMEM, -1);
}

/* A FIFO's reader: open non-blocking so a FIFO no one reads fails (ENXIO)
 * instead of waiting forever; a reader starting at the same moment (kcube
 * ... --plot f & viewer f) gets a second's grace. Blocking again after. */
static int open_fifo(const char *path)
{
    int fd = -1;
    for (int tries = 0; tries < 50; tries++) {
        fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd >= 0 || errno != ENXIO)
            break;
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    if (fd >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A device or FIFO is written in place: replacing it would put a regular
 * file where /dev/null was. */
static int open_in_place(cli_atomic *a, const char *path, const struct stat *st)
{
    int fd = S_ISFIFO(st->st_mode) ? open_fifo(a->target) : open(a->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == ENXIO) {
        cli_atomic_abort(a);
        return write_refused(path, "it is a FIFO that no process reads");
    }
    if (fd < 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        cli_atomic_abort(a);
        return cli_write_error(path, e);
    }
    return 0;
}

int cli_atomic_open(cli_atomic *a, const char *path)
{
    memset(a, 0, sizeof *a);
    if (cli_is_stdout(path)) {
        a->is_stdout = 1;
        a->f = so.owned ? so.owned : stdout;
        return 0;
    }
    hold_report();
    if (!*path || path[strlen(path) - 1] == '/')
        return cli_write_error(path, *path ? EISDIR : ENOENT);
    struct stat st;
    int there = examine(path, &st, &a->target);
    if (there < 0) {
        int e = errno;
        cli_atomic_abort(a);
        return cli_write_error(path, e);
    }
    if (!(a->path = strdup(path))) {
        cli_atomic_abort(a);
        return cli_write_error(path, ENOMEM);
    }
    if (there && S_ISDIR(st.st_mode)) {
        cli_atomic_abort(a);
        return cli_write_error(path, EISDIR);
    }
    if (there && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
        return open_in_place(a, path, &st);
    if (there && !S_ISREG(st.st_mode)) {
        cli_atomic_abort(a);
        return write_refused(path, kind_refused(st.st_mode));
    }
    /* The shell's '>' could not write it, so kcube does not replace it
     * either (the directory allowing a rename is not the file's consent). */
    if (there && faccessat(AT_FDCWD, a->target, W_OK, AT_EACCESS) != 0) {
        int e = errno;
        cli_atomic_abort(a);
        return cli_write_error(path, e);
    }
    /* A short hidden name next to the target: rename() stays in one file
     * system, and a target name of any legal length leaves room for it. */
    const char *slash = strrchr(a->target, '/');
    size_t dirlen = slash ? (size_t)(slash - a->target) + 1 : 0;
    if (!(a->tmp = malloc(dirlen + 16))) {
        cli_atomic_abort(a);
        return cli_write_error(path, ENOMEM);
    }
    memcpy(a->tmp, a->target, dirlen);
    strcpy(a->tmp + dirlen, ".kcXXXXXX");
    /* Signals blocked: the temporary exists only once the handler knows it. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    int fd = mkstemp(a->tmp), e = errno;
    if (fd >= 0)
        (void)cli_cleanup_add(a->tmp); /* a full table (never, 8 slots) only loses the signal cleanup */
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        free(a->tmp);
        a->tmp = NULL;
        cli_atomic_abort(a);
        return cli_write_error(path, e);
    }
    /* mkstemp makes the file 0600: give it the mode of the file it replaces,
     * or the mode a new file would get. */
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = there ? st.st_mode & 07777 : 0666 & ~mask;
    if (fchmod(fd, mode) != 0 || !(a->f = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
        cli_atomic_abort(a);
        return cli_write_error(path, e);
    }
    return 0;
}

void cli_atomic_abort(cli_atomic *a)
{
    if (a->f && !a->is_stdout)
        fclose(a->f);
    if (a->tmp) {
        unlink(a->tmp);
        cli_cleanup_remove(a->tmp);
    }
    free(a->tmp);
    free(a->path);
    free(a->target);
    memset(a, 0, sizeof *a);
}

int cli_atomic_commit(cli_atomic *a)
{
    if (a->is_stdout && a->f == stdout) {
        /* A failure is sticky on stdout: cli_finish() reports it, once. */
        int bad = fflush(stdout) != 0 || ferror(stdout);
        cli_atomic_abort(a);
        return bad ? CLI_EXIT_FAIL : 0;
    }
    if (a->is_stdout) {
        /* Standard output taken by this output: its reader leaving
         * (| head) is no failure, any other error is this output's. */
        int e = flush_error(a->f);
        cli_atomic_abort(a);
        return e && e != EPIPE ? cli_write_error("-", e) : 0;
    }
    int e = flush_error(a->f);
    if (!e && a->tmp && fsync(fileno(a->f)) != 0)
        e = errno; /* devices and FIFOs have nothing to sync */
    if (fclose(a->f) != 0 && !e)
        e = errno;
    a->f = NULL;
    if (!e && a->tmp && rename(a->tmp, a->target) != 0)
        e = errno;
    if (e) {
        int rc = cli_write_error(a->path, e);
        cli_atomic_abort(a);
        return rc;
    }
    cli_cleanup_remove(a->tmp);
    free(a->tmp);
    a->tmp = NULL;
    cli_atomic_abort(a);
    return 0;
}

int cli_write_file(const char *path, const char *data, size_t len)
{
    cli_atomic a;
    if (cli_atomic_open(&a, path))
        return CLI_EXIT_FAIL;
    fwrite(data, 1, len, a.f); /* errors surface in the checked flush */
    return cli_atomic_commit(&a);
}

int cli_check_output(const char *path)
{
    if (cli_is_stdout(path))
        return 0;
    hold_report();
    struct stat st;
    char *target;
    int there = examine(path, &st, &target), e = errno;
    free(target);
    if (there < 0)
        return cli_write_error(path, e);
    if (there && S_ISDIR(st.st_mode))
        return cli_write_error(path, EISDIR);
    if (there && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
        return access(path, W_OK) == 0 ? 0 : cli_write_error(path, errno); /* opening a FIFO would wait */
    cli_atomic a;
    if (cli_atomic_open(&a, path))
        return CLI_EXIT_FAIL;
    cli_atomic_abort(&a);
    return 0;
}

void cli_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, "\",\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
