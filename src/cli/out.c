/* Checked standard output and atomic output files (out.h). */
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
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

int cli_write_error(const char *path, int errnum)
{
    cli_quoted q;
    fprintf(stderr, "kcube: cannot write %s: %s\n", cli_quote(&q, path), strerror(errnum));
    return CLI_EXIT_FAIL;
}

int cli_finish(int rc)
{
    errno = 0;
    int bad = ferror(stdout);
    int e = 0;
    if (fflush(stdout) != 0) {
        bad = 1, e = errno;
    } else if (bad) {
        /* An earlier write failed and its errno is gone; the output is lost
         * already, so one more byte may be tried to learn the reason. */
        clearerr(stdout);
        errno = 0;
        if (fputc('\n', stdout) == EOF || fflush(stdout) != 0)
            e = errno;
    }
    if (fclose(stdout) != 0) {
        bad = 1;
        if (!e)
            e = errno;
    }
    if (!bad)
        return rc;
    fprintf(stderr, "kcube: cannot write standard output: %s\n", strerror(e ? e : EIO));
    return rc ? rc : CLI_EXIT_FAIL;
}

int cli_atomic_open(cli_atomic *a, const char *path)
{
    memset(a, 0, sizeof *a);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    if (!*base)
        return cli_write_error(path, EISDIR);
    a->path = strdup(path);
    a->tmp = malloc(strlen(path) + 16);
    if (!a->path || !a->tmp) {
        cli_atomic_abort(a);
        return cli_write_error(path, ENOMEM);
    }
    /* A hidden name next to the target, so rename() stays in one file system. */
    memcpy(a->tmp, path, dirlen);
    sprintf(a->tmp + dirlen, ".%s.XXXXXX", base);
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        int e = errno;
        free(a->tmp);
        a->tmp = NULL;
        cli_atomic_abort(a);
        return cli_write_error(path, e);
    }
    /* mkstemp makes the file 0600; give it the mode a new file would get. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        cli_atomic_abort(a);
        return cli_write_error(path, e);
    }
    return 0;
}

void cli_atomic_abort(cli_atomic *a)
{
    if (a->f)
        fclose(a->f);
    if (a->tmp)
        unlink(a->tmp);
    free(a->tmp);
    free(a->path);
    memset(a, 0, sizeof *a);
}

int cli_atomic_commit(cli_atomic *a)
{
    int e = 0;
    if (a->f) {
        errno = 0;
        if (fflush(a->f) != 0)
            e = errno;
        else if (ferror(a->f)) {
            /* An earlier write failed and its errno is gone: write one more
             * byte to the doomed temporary to learn the reason again. */
            clearerr(a->f);
            errno = 0;
            e = fputc('\n', a->f) == EOF || fflush(a->f) != 0 ? errno : 0;
            if (!e)
                e = EIO;
        } else if (fsync(fileno(a->f)) != 0)
            e = errno;
        if (fclose(a->f) != 0 && !e)
            e = errno;
        a->f = NULL;
    } else {
        /* Written by someone else (gnuplot): make it durable all the same. */
        int fd = open(a->tmp, O_RDONLY);
        if (fd < 0 || fsync(fd) != 0)
            e = errno;
        if (fd >= 0)
            close(fd);
    }
    if (!e && rename(a->tmp, a->path) != 0)
        e = errno;
    if (e) {
        int rc = cli_write_error(a->path, e);
        cli_atomic_abort(a);
        return rc;
    }
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
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_write_error(path, EISDIR);
    cli_atomic a;
    if (cli_atomic_open(&a, path))
        return CLI_EXIT_FAIL;
    cli_atomic_abort(&a);
    return 0;
}
