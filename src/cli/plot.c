/* Safe gnuplot charts (plot.h): script built in memory, fed to gnuplot's
 * standard input through a socket pair; the image comes back on its standard
 * output and is written by kcube's checked writer. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "core/grow.h"
#include "out.h"
#include "text.h"

static const char *ext(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

int cli_plot_supported(const char *path) { return !strcmp(ext(path), "png") || !strcmp(ext(path), "svg"); }

void cli_plot_init(cli_plot *p)
{
    memset(p, 0, sizeof *p);
    p->xmin = p->xmax = p->ymin = p->ymax = NAN;
}

static int has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}


/* A gnuplot single-quoted string: only '' is special inside. Text is first
 * made printable (control bytes and invalid UTF-8 shown escaped). */
static void put_quoted(FILE *f, const char *s)
{
    size_t len = strlen(s), size = 4 * len + 8;
    char *esc = malloc(size);
    const char *t = esc ? kc_escape(esc, size, s, len) : "?";
    fputc('\'', f);
    for (; *t; t++) {
        if (*t == '\'')
            fputc('\'', f);
        fputc(*t, f);
    }
    fputc('\'', f);
    free(esc);
}

static void put_range(FILE *f, const char *axis, double lo, double hi)
{
    fprintf(f, "set %srange [", axis);
    if (isnan(lo))
        fputc('*', f);
    else
        fprintf(f, "%.17g", lo);
    fputc(':', f);
    if (isnan(hi))
        fputc('*', f);
    else
        fprintf(f, "%.17g", hi);
    fputs("]\n", f);
}

/* Series styles. Colour, point type and dash pattern all follow the series
 * index, so no two series of a chart (up to 16) share a colour, and curves
 * stay apart in grey print too. The colours are picked to differ in hue and
 * lightness on a white background. */
static const char *const palette[] = {
    "#1f5fbf", "#d62728", "#2ca02c", "#ff7f0e", "#7b3fb3", "#8c564b", "#e377c2", "#17a2b8",
    "#000000", "#a8a820", "#7f7f7f", "#0b2e6b", "#ff69b4", "#005a32", "#b8860b", "#5fd35f",
};
#define NPALETTE ((int)(sizeof palette / sizeof *palette))
static const int point_type[] = {7, 5, 9, 11, 13, 15, 6, 4, 8, 10, 12, 14, 1, 2, 3};
#define NPOINT ((int)(sizeof point_type / sizeof *point_type))
static const char *const dash[] = {"solid", "(10,5)", "(3,4)", "(12,4,3,4)", "(20,6)", "(3,4,3,4,12,4)"};
#define NDASH ((int)(sizeof dash / sizeof *dash))

static int same_value(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-12;
}

/* The first earlier series with the same points as series s (within a
 * relative 1e-9), or -1. Such curves would hide each other. */
static int same_as(const cli_plot *p, int s)
{
    const cli_plot_series *a = &p->series[s];
    if (a->count <= 0)
        return -1;
    for (int t = 0; t < s; t++) {
        const cli_plot_series *b = &p->series[t];
        int i = 0;
        if (b->count != a->count)
            continue;
        while (i < a->count && same_value(a->x[i], b->x[i]) && same_value(a->y[i], b->y[i]))
            i++;
        if (i == a->count)
            return t;
    }
    return -1;
}

/* Terminal, title, subtitle, axis labels and the key: the key goes below
 * the plot area, where it covers no curve, in as many columns as gnuplot
 * fits (its estimate: about 13 px a character plus the line sample); the
 * image grows by its rows, so the plot keeps its height however many
 * series there are. */
static void script_frame(FILE *f, const cli_plot *p, int png)
{
    size_t longest = 0;
    for (int s = 0; s < p->nseries; s++)
        if (p->series[s].label && strlen(p->series[s].label) > longest)
            longest = strlen(p->series[s].label);
    int cols = (int)(920 / ((longest + 8 + 12) * 13)), rows;
    cols = cols < 1 ? 1 : cols;
    rows = (p->nseries + cols - 1) / cols;
    fprintf(f, png ? "set terminal pngcairo size 960,%d font 'sans,11' noenhanced\n"
                   : "set terminal svg size 960,%d dynamic font 'sans,11' noenhanced\n",
            620 + 20 * rows);
    /* Title, and the subtitle (the source, the run) on a second line. */
    fputs("set title ", f);
    put_quoted(f, p->title ? p->title : "");
    if (p->subtitle && *p->subtitle) {
        fputs(".\"\\n\".", f);
        put_quoted(f, p->subtitle);
    }
    fputs(" noenhanced\nset xlabel ", f);
    put_quoted(f, p->xlabel ? p->xlabel : "");

    fputs(" noenhanced\nset ylabel ", f);
    put_quoted(f, p->ylabel ? p->ylabel : "");
    /* The bottom margin holds tics, axis label and the key's rows: gnuplot's
     * own margin lets the key touch the axis label. */
    fprintf(f,
            " noenhanced\nset key below center horizontal reverse Left noenhanced samplen 4\nset bmargin %d\n"
            "set grid\n",
            rows + 4);
}

/* Log scales and the axis ranges. With no point at all gnuplot cannot
 * autoscale and fails: the automatic ends get a unit range, so an empty
 * chart is still drawn. */
static void script_axes(FILE *f, const cli_plot *p)
{
    if (p->logx)
        fputs("set logscale x\n", f);
    if (p->logy)
        fputs("set logscale y\n", f);
    int points = 0;
    for (int s = 0; s < p->nseries; s++)
        points += p->series[s].count;
    double xlo = p->xmin, xhi = p->xmax, ylo = p->ymin, yhi = p->ymax;
    if (!points) {
        xlo = isnan(xlo) ? (isnan(xhi) ? 0 : xhi - 1) : xlo;
        xhi = isnan(xhi) ? xlo + 1 : xhi;
        ylo = isnan(ylo) ? (isnan(yhi) ? 0 : yhi - 1) : ylo;
        yhi = isnan(yhi) ? ylo + 1 : yhi;
        if (p->logx && xlo <= 0)
            xlo = 1, xhi = 10;
        if (p->logy && ylo <= 0)
            ylo = 1, yhi = 10;
    }
    put_range(f, "x", xlo, xhi);
    put_range(f, "y", ylo, yhi);
}

/* Every series as a data block $dS (an empty one as one NaN point). */
static void script_data(FILE *f, const cli_plot *p)
{
    for (int s = 0; s < p->nseries; s++) {
        fprintf(f, "$d%d << EOD\n", s);
        for (int i = 0; i < p->series[s].count; i++)
            fprintf(f, "%.17g %.17g\n", p->series[s].x[i], p->series[s].y[i]);
        if (!p->series[s].count)
            fputs("NaN NaN\n", f);
        fputs("EOD\n", f);
    }
}

/* The plot command. A series equal to an earlier one is drawn thin, with a
 * gapped dash and small open points, over a wide line and big points of
 * the earlier one: both colours show, and the key says "(= EARLIER)". */
static void script_plot(FILE *f, const cli_plot *p)
{
    static const char *const with[] = {"linespoints", "lines", "points"};
    fputs("plot ", f);
    for (int s = 0; s < p->nseries; s++) {
        int twin = same_as(p, s), covered = 0;
        for (int t = s + 1; t < p->nseries && !covered; t++)
            covered = same_as(p, t) == s;
        double lw = twin >= 0 ? 1.5 : covered ? 5 : 2, ps = twin >= 0 ? 0.9 : covered ? 1.8 : 1.2;
        int pt = twin >= 0 ? 6 : point_type[s % NPOINT];
        const char *dt = twin >= 0 ? "(6,6)" : dash[s % NDASH];
        fprintf(f, "%s$d%d using 1:2 with %s lc rgb '%s' lw %g dt %s pt %d ps %g title ", s ? ", " : "", s,
                with[p->style], palette[s % NPALETTE], lw, dt, pt, ps);
        put_quoted(f, p->series[s].label ? p->series[s].label : "");
        if (twin >= 0) {
            fputs(".' (= '.", f);
            put_quoted(f, p->series[twin].label ? p->series[twin].label : "");
            fputs(".')'", f);
        }
        fputs(" noenhanced", f);
    }
    if (!p->nseries)
        fputs("NaN notitle", f);
    fputs("\nunset output\n", f); /* flushes the image to standard output */
}

/* The whole gnuplot script; NULL when memory ran out. */
static char *script(const cli_plot *p, int png, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    script_frame(f, p, png);
    script_axes(f, p);
    script_data(f, p);
    script_plot(f, p);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The image is read into memory: a chart is a few hundred KiB, this bounds
 * a runaway gnuplot. */
#define IMAGE_MAX ((size_t)256 << 20)

typedef struct image {
    unsigned char *data;
    size_t len, cap;
    int too_big;
} image;

static int image_take(image *im, int fd)
{
    if (im->cap - im->len < 65536) {
        size_t cap = im->cap ? 2 * im->cap : 1 << 18;
        if (cap > IMAGE_MAX + 65536) {
            im->too_big = 1;
            return -1;
        }
        if (KCI_RESIZE(im->data, cap))
            return -1;
        im->cap = cap;
    }
    ssize_t got = read(fd, im->data + im->len, im->cap - im->len);
    if (got > 0)
        im->len += (size_t)got;
    return got < 0 ? (errno == EINTR || errno == EAGAIN ? 1 : -1) : got > 0;
}

/* Start gnuplot with the write end of *script_fd (a socket) as its
 * standard input, a pipe whose read end is *image_fd as its standard output
 * and /dev/null as its standard error. The child's pid, or -1 with *why set
 * (nothing left open). */
static pid_t spawn_gnuplot(int *script_fd, int *image_fd, const char **why)
{
    int sv[2], pv[2] = {-1, -1};
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        *why = strerror(errno);
        if (devnull >= 0)
            close(devnull);
        return -1;
    }
    if (pipe(pv) != 0 || fcntl(pv[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(pv[1], F_SETFD, FD_CLOEXEC) != 0) {
        *why = strerror(errno);
        close(devnull), close(sv[0]), close(sv[1]);
        if (pv[0] >= 0)
            close(pv[0]), close(pv[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        *why = strerror(errno);
        close(devnull), close(sv[0]), close(sv[1]), close(pv[0]), close(pv[1]);
        return -1;
    }
    if (pid == 0) {
        /* Only async-signal-safe calls between fork and exec. gnuplot gets
         * the default SIGPIPE and SIGXFSZ back (kcube ignores them). */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGPIPE, &dfl, NULL);
        sigaction(SIGXFSZ, &dfl, NULL);
        if (dup2(sv[1], 0) < 0 || dup2(pv[1], 1) < 0 || dup2(devnull, 2) < 0)
            _exit(126);
        char *argv[] = {"gnuplot", NULL};
        execvp("gnuplot", argv);
        _exit(127);
    }
    cli_cleanup_child(pid);
    close(sv[1]);
    close(pv[1]);
    close(devnull);
    *script_fd = sv[0];
    *image_fd = pv[0];
    return pid;
}

/* Feed the script into `in` and drain the image from `out` together:
 * either side may fill its buffer first. Closes both; *off gets the bytes
 * of the script sent. 1 when something failed (gnuplot is then killed if
 * the image could not be kept), else 0. */
static int pump(int in, int out, const char *text, size_t len, size_t *off, image *im, pid_t pid)
{
    int failed = 0;
    fcntl(in, F_SETFL, fcntl(in, F_GETFL) | O_NONBLOCK);
    *off = 0;
    if (len == 0)
        close(in), in = -1;
    while (out >= 0) {
        struct pollfd pf[2] = {{out, POLLIN, 0}, {in, POLLOUT, 0}};
        if (poll(pf, in >= 0 ? 2 : 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            failed = 1;
            break;
        }
        if (in >= 0 && pf[1].revents) {
            /* MSG_NOSIGNAL: a gnuplot that stops reading must not kill us. */
            ssize_t w = send(in, text + *off, len - *off, MSG_NOSIGNAL);
            if (w > 0)
                *off += (size_t)w;
            else if (w < 0 && errno != EINTR && errno != EAGAIN)
                failed = 1;
            if (failed || *off == len)
                close(in), in = -1;
        }
        if (pf[0].revents) {
            int got = image_take(im, out);
            if (got <= 0) {
                if (got < 0)
                    failed = 1, kill(pid, SIGKILL);
                close(out), out = -1;
            }
        }
    }
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return failed;
}

/* Run gnuplot on the script; the image it writes on its standard output
 * lands in *im. gnuplot never sees a file name of ours: it cannot open a
 * pipe to a shell ('|cmd') or expand '~' from one. 0 when gnuplot exited 0;
 * else -1 with *why set. */
static int run_gnuplot(const char *text, size_t len, image *im, const char **why)
{
    int in, out;
    pid_t pid = spawn_gnuplot(&in, &out, why);
    if (pid < 0)
        return -1;
    size_t off;
    int failed = pump(in, out, text, len, &off, im, pid);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            cli_cleanup_child(0);
            *why = strerror(errno);
            return -1;
        }
    cli_cleanup_child(0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        *why = "cannot run gnuplot (is it installed?)";
        return -1;
    }
    if (im->too_big) {
        *why = "gnuplot wrote more than 256 MiB";
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || failed || off != len) {
        *why = WIFSIGNALED(status) ? "gnuplot was killed" : "gnuplot failed";
        return -1;
    }
    return 0;
}

/* Did gnuplot finish the image? PNG ends with the IEND chunk, SVG with </svg>. */
static int complete(const image *im, int png)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (png)
        return im->len >= sizeof sig + sizeof iend && !memcmp(im->data, sig, sizeof sig) &&
               !memcmp(im->data + im->len - sizeof iend, iend, sizeof iend);
    size_t from = im->len > 64 ? im->len - 64 : 0;
    for (size_t i = from; i + 6 <= im->len; i++)
        if (!memcmp(im->data + i, "</svg>", 6))
            return 1;
    return 0;
}

/* Standard output, or a device or FIFO (/dev/null, /dev/stdout): no suffix
 * is needed, the image is PNG unless the name ends in .svg. */
static int is_stream(const char *path)
{
    struct stat st;
    return cli_is_stdout(path) || (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)));
}

static const char *name_problem(const char *path)
{
    if (is_stream(path))
        return NULL;
    if (!cli_plot_supported(path))
        return "must end in .png or .svg";
    if (has_control(path))
        return "holds control characters";
    return NULL;
}

int cli_plot_check(const char *path)
{
    cli_quoted q;
    const char *bad = name_problem(path);
    if (bad)
        return cli_error("plot file '%s' %s", cli_quote(&q, path), bad);
    return cli_check_output(path);
}

/* Run a whole script (NULL: out of memory) and write the image; frees text. */
static int draw(char *text, size_t len, int png, const char *path)
{
    cli_quoted q;
    image im = {0};
    const char *why = NULL;
    if (!text)
        why = strerror(ENOMEM);
    else if (run_gnuplot(text, len, &im, &why) == 0 && !complete(&im, png))
        why = "gnuplot left an incomplete image";
    free(text);
    int rc = 0;
    if (why) {
        fprintf(stderr, "kcube: cannot draw %s: %s\n", cli_is_stdout(path) ? "standard output" : cli_quote(&q, path),
                why);
        rc = CLI_EXIT_FAIL;
    } else {
        /* Written by kcube through the checked writer (devices in place,
         * files renamed into place). */
        cli_atomic a;
        if ((rc = cli_atomic_open(&a, path)) == 0) {
            fwrite(im.data, 1, im.len, a.f); /* errors surface in the checked flush */
            rc = cli_atomic_commit(&a);
        }
    }
    free(im.data);
    return rc;
}

int cli_plot_write(const cli_plot *p, const char *path)
{
    cli_quoted q;
    const char *bad = name_problem(path);
    if (bad)
        return cli_error("plot file '%s' %s", cli_quote(&q, path), bad);
    int png = strcmp(ext(path), "svg") != 0; /* "-" and devices without a suffix: PNG */
    size_t len;
    char *text = script(p, png, &len);
    return draw(text, len, png, path);
}

void cli_plot_quote(FILE *f, const char *s) { put_quoted(f, s); }

int cli_plot_custom(const char *path, int width, int height, void (*body)(FILE *f, const void *ctx),
                    const void *ctx)
{
    cli_quoted q;
    const char *bad = name_problem(path);
    if (bad)
        return cli_error("plot file '%s' %s", cli_quote(&q, path), bad);
    int png = strcmp(ext(path), "svg") != 0;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        fprintf(f, png ? "set terminal pngcairo size %d,%d font 'sans,10' noenhanced\n"
                       : "set terminal svg size %d,%d dynamic font 'sans,10' noenhanced\n",
                width, height);
        body(f, ctx);
        fputs("\nunset output\n", f);
        if (fclose(f) != 0) {
            free(text);
            text = NULL;
        }
    }
    return draw(text, len, png, path);
}

double cli_plot_ycap(const cli_plot *p, double factor)
{
    double lo = 0, hi = 0;
    for (int s = 0; s < p->nseries; s++)
        for (int i = 0; i < p->series[s].count; i++) {
            double y = p->series[s].y[i];
            if (y > 0 && (lo == 0 || y < lo))
                lo = y;
            if (y > hi)
                hi = y;
        }
    return lo > 0 && hi > factor * lo ? factor * lo : NAN;
}

int cli_plot_latency(const char *path, const char *title, const char *subtitle, const cli_plot_series *series,
                     int count)
{
    cli_plot p;
    cli_plot_init(&p);
    p.title = title;
    p.subtitle = subtitle;
    p.xlabel = "throughput (flits/node/cycle)";
    p.ylabel = "average latency (cycles)";
    p.series = series;
    p.nseries = count;
    p.xmin = p.ymin = 0;
    /* Near saturation latency explodes; keep the interesting part in view. */
    p.ymax = cli_plot_ycap(&p, 12);
    return cli_plot_write(&p, path);
}
