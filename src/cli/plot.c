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
#include "core/clock.h"
#include "core/grow.h"
#include "out.h"
#include "text.h"

static const char *ext(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

/* The chart formats by file name extension, each through gnuplot's own
 * cairo terminal (vector formats: pdfcairo, epscairo). */
static const char *const format_ext[CLI_PLOT_NFORMATS] = {"png", "svg", "pdf", "eps"};

int cli_plot_format_of(const char *path)
{
    for (int f = 0; f < CLI_PLOT_NFORMATS; f++)
        if (!strcmp(ext(path), format_ext[f]))
            return f;
    return -1;
}

int cli_plot_supported(const char *path) { return cli_plot_format_of(path) >= 0; }

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

/* ---- sizes and terminals ---------------------------------------------------- */

/* A chart's size: pixels for PNG and SVG; inches or centimetres for PDF
 * and EPS (unit "in" or "cm"). */
typedef struct chart_size {
    double w, h;
    const char *unit;
} chart_size;

/* One side of WxH: a number and an optional unit; the rest of the text in
 * *end. 0, or -1 when it is no number. */
static int size_side(const char *s, double *v, const char **unit, const char **end)
{
    char *e;
    if (!(*s >= '0' && *s <= '9'))
        return -1;
    *v = strtod(s, &e);
    *unit = "";
    if (!strncmp(e, "cm", 2) || !strncmp(e, "in", 2))
        *unit = !strncmp(e, "cm", 2) ? "cm" : "in", e += 2;
    *end = e;
    return isfinite(*v) ? 0 : -1;
}

/* --size TEXT for a chart of format fmt: 0 and *sz, or -1 and *why. */
static int parse_size(const char *text, int fmt, chart_size *sz, const char **why)
{
    const char *u1, *u2, *e;
    int vector = fmt == CLI_PLOT_PDF || fmt == CLI_PLOT_EPS;
    *why = vector ? "give inches (6x4) or centimetres (15cmx10cm) for PDF and EPS, 1 to 100 inches a side"
                  : "give whole pixels (1200x800) for PNG and SVG, 100 to 10000 a side";
    if (size_side(text, &sz->w, &u1, &e) || (*e != 'x' && *e != 'X') || size_side(e + 1, &sz->h, &u2, &e) || *e)
        return -1;
    if (!vector) {
        sz->unit = "";
        return *u1 || *u2 || sz->w != floor(sz->w) || sz->h != floor(sz->h) || sz->w < 100 || sz->h < 100 ||
                       sz->w > 10000 || sz->h > 10000
                   ? -1
                   : 0;
    }
    if (*u1 && *u2 && strcmp(u1, u2))
        return -1; /* one unit for both sides */
    sz->unit = *u1 ? u1 : *u2 ? u2 : "in";
    double in = !strcmp(sz->unit, "cm") ? 2.54 : 1;
    return sz->w < in || sz->h < in || sz->w > 100 * in || sz->h > 100 * in ? -1 : 0;
}

/* The terminal line: the user's --size (already checked) or the chart's
 * own size in pixels (PDF and EPS: a pixel as a hundredth of an inch, and
 * the font scaled to match). */
static void put_terminal(FILE *f, int fmt, const char *size, int width, int height, int font)
{
    static const char *const term[CLI_PLOT_NFORMATS] = {"pngcairo", "svg", "pdfcairo", "epscairo"};
    chart_size sz = {width, height, ""};
    const char *why;
    int vector = fmt == CLI_PLOT_PDF || fmt == CLI_PLOT_EPS;
    if (!size || parse_size(size, fmt, &sz, &why)) {
        sz.w = vector ? width / 100.0 : width, sz.h = vector ? height / 100.0 : height;
        sz.unit = vector ? "in" : "";
    }
    fprintf(f, "set terminal %s size %g%s,%g%s%s font 'sans,%d' noenhanced\n", term[fmt], sz.w, sz.unit, sz.h,
            sz.unit, fmt == CLI_PLOT_SVG ? " dynamic" : "", vector ? font * 3 / 4 : font);
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

/* A series' role (cli_plot_role), 0 without roles. */
#define FAMILY(p, s) ((p)->role ? (p)->role[s].family : 0)
#define REFERENCE(p, s) ((p)->role ? (p)->role[s].reference : 0)

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
    if (a->count <= 0 || REFERENCE(p, s))
        return -1; /* reference points show over a curve anyway */
    for (int t = 0; t < s; t++) {
        const cli_plot_series *b = &p->series[t];
        int i = 0;
        if (b->count != a->count || REFERENCE(p, t))
            continue;
        while (i < a->count && same_value(a->x[i], b->x[i]) && same_value(a->y[i], b->y[i]))
            i++;
        if (i == a->count)
            return t;
    }
    return -1;
}

/* Characters of a title line in a chart of the default width (about 7 px
 * a character at 11 points in 960 px). */
#define TITLE_LINE 125

/* Text as title lines, each appended as `."\n".'LINE'`: broken after
 * "; " where a line would run past TITLE_LINE (else after ", " or a space),
 * so a long subtitle is not cut at the image's edge. */
static void put_wrapped(FILE *f, const char *text)
{
    const size_t limit = TITLE_LINE;
    static const char *const breaks[] = {"; ", ", ", " "};
    while (*text) {
        size_t len = strlen(text), cut = len;
        for (int b = 0; b < 3 && cut == len && len > limit; b++)
            for (const char *t = strstr(text, breaks[b]); t && (size_t)(t - text) + strlen(breaks[b]) <= limit;
                 t = strstr(t + 1, breaks[b]))
                cut = (size_t)(t - text) + strlen(breaks[b]);
        char *line = strndup(text, cut);
        fputs(".\"\\n\".", f);
        put_quoted(f, line ? line : "");
        free(line);
        text += cut;
    }
}

/* The length of series s's key entry in characters (0: none), its
 * "(= EARLIER)" included. */
static size_t key_length(const cli_plot *p, int s)
{
    const char *label = p->series[s].label;
    int twin = same_as(p, s);
    if (!label)
        return 0;
    return strlen(label) + (twin >= 0 && p->series[twin].label ? strlen(p->series[twin].label) + 5 : 0);
}

/* Terminal, title, subtitle, axis labels and the key: the key goes below
 * the plot area, where it covers no curve, in columns as wide as its
 * longest entry (gnuplot's estimate: 9 px a character at 11 points, with
 * the sample and 3 characters more than gnuplot's default between
 * entries, which proportional text otherwise runs into); the image grows
 * by its rows, so the plot keeps its height however many series there
 * are. */
static void script_frame(FILE *f, const cli_plot *p, int fmt)
{
    size_t longest = 0;
    int entries = 0;
    for (int s = 0; s < p->nseries; s++) {
        size_t len = key_length(p, s);
        entries += len > 0;
        longest = len > longest ? len : longest;
    }
    int cols = (int)(900 / ((longest + 12) * 9)), rows;
    cols = cols < 1 ? 1 : cols > entries ? (entries ? entries : 1) : cols;
    rows = (entries + cols - 1) / cols;
    put_terminal(f, fmt, p->size, 960, 620 + 20 * rows, 11);
    /* Title, and the subtitle (the source, the run) on the lines below. */
    fputs("set title ", f);
    put_quoted(f, p->title ? p->title : "");
    if (p->subtitle && *p->subtitle)
        put_wrapped(f, p->subtitle);
    fputs(" noenhanced\nset xlabel ", f);
    put_quoted(f, p->xlabel ? p->xlabel : "");

    fputs(" noenhanced\nset ylabel ", f);
    put_quoted(f, p->ylabel ? p->ylabel : "");
    /* The bottom margin holds tics, axis label and the key's rows: gnuplot's
     * own margin lets the key touch the axis label. */
    fprintf(f,
            " noenhanced\nset key below center horizontal reverse Left noenhanced samplen 4 width 3\n"
            "set bmargin %d\nset grid\n",
            rows + 4);
}

/* The smallest and largest positive x (axis 0) or y (axis 1) of all
 * points; 0 when there is none. Sets *pow2 when every such value is a
 * power of two. */
static int positive_span(const cli_plot *p, int axis, double *lo, double *hi, int *pow2)
{
    int any = 0;
    *pow2 = 1;
    for (int s = 0; s < p->nseries; s++)
        for (int i = 0; i < p->series[s].count; i++) {
            double v = axis ? p->series[s].y[i] : p->series[s].x[i];
            int e;
            if (!(v > 0) || !isfinite(v))
                continue;
            *pow2 &= frexp(v, &e) == 0.5;
            *lo = any && *lo < v ? *lo : v;
            *hi = any && *hi > v ? *hi : v;
            any = 1;
        }
    return any;
}

/* Tics at 1, 2 and 5 times the powers of ten from lo to hi, labelled as
 * numbers: a log axis spanning less than three decades otherwise gets one
 * or two labels. */
static void decade_tics(FILE *f, const char *name, double lo, double hi)
{
    static const double step[] = {1, 2, 5};
    int first = 1;
    fprintf(f, "set %stics (", name);
    for (double d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
        for (int i = 0; i < 3; i++)
            if (step[i] * d >= lo && step[i] * d <= hi) {
                fprintf(f, "%s%.17g", first ? "" : ", ", step[i] * d);
                first = 0;
            }
    fprintf(f, ")\nset format %s '%s'\n", name, lo >= 1 ? "%.0f" : "%g");
}

/* A log axis with its automatic ends fitted to the data (gnuplot's own
 * autoscale runs to whole decades: 1 to 10^4 for data from 1 to 1024).
 * Data on powers of two get tics at powers of two (at most 12 of them),
 * labelled as plain numbers; other data spanning under three decades tics
 * at 1, 2, 5 times powers of ten. */
static void fit_log_axis(FILE *f, const cli_plot *p, int axis, double *lo, double *hi)
{
    double a, b;
    int pow2;
    const char *name = axis ? "y" : "x";
    if (!positive_span(p, axis, &a, &b, &pow2))
        return;
    double margin = fmax(1.08, pow(b / a, 0.04));
    if (isnan(*lo))
        *lo = a / margin;
    if (isnan(*hi))
        *hi = b * margin;
    if (pow2 && b > a) {
        int span = (int)lround(log2(b / a)), step = (span + 11) / 12;
        fprintf(f, "set logscale %s 2\nset %stics %.17g, %d\nset format %s '%s'\nset m%stics 1\n", name, name, a,
                1 << step, name, a >= 1 ? "%.0f" : "%g", name);
    } else if (b / a < 1000) {
        decade_tics(f, name, *lo, *hi);
    }
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
    } else {
        if (p->logx)
            fit_log_axis(f, p, 0, &xlo, &xhi);
        if (p->logy)
            fit_log_axis(f, p, 1, &ylo, &yhi);
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

/* Series s's place among the series with a colour of their own: its
 * colour, point type and dash (a family member takes its head's); -1 for
 * a key entry alone. */
static int style_index(const cli_plot *p, int s)
{
    if (FAMILY(p, s) > 0 && FAMILY(p, s) - 1 < s)
        return style_index(p, FAMILY(p, s) - 1);
    if (REFERENCE(p, s) && !p->series[s].count)
        return -1;
    int k = 0;
    for (int t = 0; t < s; t++)
        k += !FAMILY(p, t) && !(REFERENCE(p, t) && !p->series[t].count);
    return k;
}

/* The key entry of series s: its label, "(= EARLIER)" for a twin, or none. */
static void put_title(FILE *f, const cli_plot *p, int s, int twin)
{
    if (!p->series[s].label) {
        fputs(" notitle", f);
        return;
    }
    fputs(" title ", f);
    put_quoted(f, p->series[s].label);
    if (twin >= 0) {
        fputs(".' (= '.", f);
        put_quoted(f, p->series[twin].label ? p->series[twin].label : "");
        fputs(".')'", f);
    }
    fputs(" noenhanced", f);
}

/* The plot command. A series equal to an earlier one is drawn thin, with a
 * gapped dash and small open points, over a wide line and big points of
 * the earlier one: both colours show, and the key says "(= EARLIER)".
 * Reference points are open markers without a line, over their curve. */
static void script_plot(FILE *f, const cli_plot *p)
{
    static const char *const with[] = {"linespoints", "lines", "points"};
    static const int open_point[] = {6, 4, 12}; /* circle, square, diamond */
    fputs("plot ", f);
    for (int s = 0; s < p->nseries; s++) {
        int twin = same_as(p, s), covered = 0, k = style_index(p, s);
        const char *colour = k < 0 ? "#000000" : palette[k % NPALETTE];
        for (int t = s + 1; t < p->nseries && !covered; t++)
            covered = same_as(p, t) == s;
        if (REFERENCE(p, s)) {
            fprintf(f, "%s$d%d using 1:2 with points lc rgb '%s' lw 1.5 pt %d ps 2.2", s ? ", " : "", s, colour,
                    open_point[(REFERENCE(p, s) - 1) % 3]);
        } else {
            double lw = twin >= 0 ? 1.5 : covered ? 5 : 2, ps = twin >= 0 ? 0.9 : covered ? 1.8 : 1.2;
            int pt = twin >= 0 ? 6 : point_type[k % NPOINT];
            const char *dt = twin >= 0 ? "(6,6)" : dash[k % NDASH];
            fprintf(f, "%s$d%d using 1:2 with %s lc rgb '%s' lw %g dt %s pt %d ps %g", s ? ", " : "", s,
                    with[p->style], colour, lw, dt, pt, ps);
        }
        put_title(f, p, s, twin);
    }
    if (!p->nseries)
        fputs("NaN notitle", f);
    fputs("\nunset output\n", f); /* flushes the image to standard output */
}

/* The whole gnuplot script; NULL when memory ran out. */
static char *script(const cli_plot *p, int fmt, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    script_frame(f, p, fmt);
    script_axes(f, p);
    script_data(f, p);
    script_plot(f, p);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- running gnuplot under a watchdog ------------------------------------------ */

/* The image is read into memory: a chart is a few hundred KiB, this bounds
 * a runaway gnuplot. */
#define IMAGE_MAX ((size_t)256 << 20)
/* Wall seconds gnuplot may take when KCUBE_GNUPLOT_TIMEOUT does not say. */
#define GNUPLOT_TIMEOUT 60.0

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

/* The watchdog's limit: KCUBE_GNUPLOT_TIMEOUT seconds (decimal digits
 * with at most one point, > 0, at most a day), else GNUPLOT_TIMEOUT. -1
 * for a value that is no such number (" 5", "1e1", "0x10" included). */
static double gnuplot_timeout(void)
{
    const char *v = getenv("KCUBE_GNUPLOT_TIMEOUT"), *dot;
    if (!v || !*v)
        return GNUPLOT_TIMEOUT;
    if (strspn(v, "0123456789.") != strlen(v) || *v == '.' || ((dot = strchr(v, '.')) && strchr(dot + 1, '.')))
        return -1;
    double t = strtod(v, NULL);
    return t > 0 && t <= 86400 ? t : -1;
}

/* Stop gnuplot and whatever it started: it leads its own process group. */
static void stop_gnuplot(pid_t pid)
{
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

/* Start gnuplot with the write end of *script_fd (a socket) as its
 * standard input, a pipe whose read end is *image_fd as its standard output
 * and /dev/null as its standard error, in a process group of its own (so
 * the watchdog can stop what it starts too). The child's pid, or -1 with
 * *why set (nothing left open). */
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
        setpgid(0, 0);
        if (dup2(sv[1], 0) < 0 || dup2(pv[1], 1) < 0 || dup2(devnull, 2) < 0)
            _exit(126);
        char *argv[] = {"gnuplot", NULL};
        execvp("gnuplot", argv);
        _exit(127);
    }
    setpgid(pid, pid); /* either side may run first */
    cli_cleanup_child(pid);
    close(sv[1]);
    close(pv[1]);
    close(devnull);
    *script_fd = sv[0];
    *image_fd = pv[0];
    return pid;
}

/* Milliseconds to the deadline for poll, rounded up; 0 once it passed. */
static int ms_left(double deadline)
{
    double left = deadline - kci_seconds();
    return left <= 0 ? 0 : left > 3600 ? 3600000 : (int)ceil(left * 1000);
}

/* What went wrong with a gnuplot run. */
typedef struct run_state {
    int failed, late;
    size_t sent;
} run_state;

/* One round of the pump: send what the socket takes, drain what the pipe
 * holds. Closes an end (sets it to -1) when it is done. */
static void pump_step(const struct pollfd *pf, int *in, int *out, const char *text, size_t len, image *im,
                      run_state *rs)
{
    if (*in >= 0 && pf[1].revents) {
        /* MSG_NOSIGNAL: a gnuplot that stops reading must not kill us. */
        ssize_t w = send(*in, text + rs->sent, len - rs->sent, MSG_NOSIGNAL);
        if (w > 0)
            rs->sent += (size_t)w;
        else if (w < 0 && errno != EINTR && errno != EAGAIN)
            rs->failed = 1;
        if (rs->failed || rs->sent == len)
            close(*in), *in = -1;
    }
    if (pf[0].revents) {
        int got = image_take(im, *out);
        if (got <= 0) {
            rs->failed |= got < 0;
            close(*out), *out = -1;
        }
    }
}

/* Feed the script into `in` and drain the image from `out` together
 * (either side may fill its buffer first) until gnuplot closes its output,
 * the image outgrows IMAGE_MAX or the deadline passes (rs->late). Closes
 * both; gnuplot is stopped when its image cannot be kept. */
static void pump(int in, int out, const char *text, size_t len, image *im, pid_t pid, double deadline,
                 run_state *rs)
{
    fcntl(in, F_SETFL, fcntl(in, F_GETFL) | O_NONBLOCK);
    if (len == 0)
        close(in), in = -1;
    while (out >= 0 && !rs->late) {
        struct pollfd pf[2] = {{out, POLLIN, 0}, {in, POLLOUT, 0}};
        int n = poll(pf, in >= 0 ? 2 : 1, ms_left(deadline));
        if (n < 0 && errno != EINTR) {
            rs->failed = 1;
            break;
        }
        if (n > 0)
            pump_step(pf, &in, &out, text, len, im, rs);
        rs->late = out >= 0 && !ms_left(deadline); /* still writing at the deadline */
    }
    if (rs->late || rs->failed)
        stop_gnuplot(pid);
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
}

/* Wait for gnuplot until the deadline (then stop it and wait for good).
 * 0 with *status, or -1 with errno. */
static int wait_gnuplot(pid_t pid, double deadline, int *status, run_state *rs)
{
    for (;;) {
        pid_t w = waitpid(pid, status, rs->late ? 0 : WNOHANG);
        if (w == pid)
            return 0;
        if (w < 0 && errno != EINTR)
            return -1;
        if (w == 0 && !ms_left(deadline)) {
            rs->late = 1;
            stop_gnuplot(pid);
        } else if (w == 0) {
            poll(NULL, 0, ms_left(deadline) < 10 ? ms_left(deadline) : 10);
        }
    }
}

/* Run gnuplot on the script under the watchdog; the image it writes on its
 * standard output lands in *im. gnuplot never sees a file name of ours: it
 * cannot open a pipe to a shell ('|cmd') or expand '~' from one. 0 when
 * gnuplot exited 0 in time; when the watchdog stopped it, 1 (the deadline
 * passed) or 2 (its output outgrew IMAGE_MAX); else -1 with *why set. */
static int run_gnuplot(const char *text, size_t len, image *im, double limit, const char **why)
{
    int in, out, status;
    double deadline = kci_seconds() + limit;
    pid_t pid = spawn_gnuplot(&in, &out, why);
    if (pid < 0)
        return -1;
    run_state rs = {0, 0, 0};
    pump(in, out, text, len, im, pid, deadline, &rs);
    int waited = wait_gnuplot(pid, deadline, &status, &rs);
    cli_cleanup_child(0);
    if (waited) {
        *why = strerror(errno);
        return -1;
    }
    if (rs.late || im->too_big)
        return rs.late ? 1 : 2;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        *why = "cannot run gnuplot (is it installed?)";
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || rs.failed || rs.sent != len) {
        *why = WIFSIGNALED(status) ? "gnuplot was killed" : "gnuplot failed";
        return -1;
    }
    return 0;
}

/* ---- checks and the image ------------------------------------------------------- */

/* Is s among the last `within` bytes of the image? */
static int ends_near(const image *im, const char *s, size_t within)
{
    size_t n = strlen(s), from = im->len > within ? im->len - within : 0;
    for (size_t i = from; i + n <= im->len; i++)
        if (!memcmp(im->data + i, s, n))
            return 1;
    return 0;
}

/* Did gnuplot finish the image? PNG: signature and the IEND chunk; SVG:
 * </svg>; PDF and EPS: their header and the closing %%EOF. */
static int complete(const image *im, int fmt)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    switch (fmt) {
    case CLI_PLOT_PNG:
        return im->len >= sizeof sig + sizeof iend && !memcmp(im->data, sig, sizeof sig) &&
               !memcmp(im->data + im->len - sizeof iend, iend, sizeof iend);
    case CLI_PLOT_SVG:
        return ends_near(im, "</svg>", 64);
    default:
        return im->len > 16 && !memcmp(im->data, fmt == CLI_PLOT_PDF ? "%PDF-" : "%!PS-Adobe", fmt == CLI_PLOT_PDF ? 5 : 10) &&
               ends_near(im, "%%EOF", 16);
    }
}

/* Standard output, or a device or FIFO (/dev/null, /dev/stdout): no suffix
 * is needed, the image is PNG unless the name ends in another chart
 * format's extension. */
int cli_plot_is_stream(const char *path)
{
    struct stat st;
    return cli_is_stdout(path) || (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)));
}

/* The format a chart at path is drawn in (PNG on a stream without a known
 * extension), or -1 for a file name with none. */
static int format_for(const char *path)
{
    int fmt = cli_plot_format_of(path);
    return fmt >= 0 ? fmt : cli_plot_is_stream(path) ? CLI_PLOT_PNG : -1;
}

static const char *name_problem(const char *path)
{
    if (format_for(path) < 0)
        return "must end in .png, .svg, .pdf or .eps";
    if (!cli_plot_is_stream(path) && has_control(path))
        return "holds control characters";
    return NULL;
}

/* The name, --size and the watchdog's setting: 0, or 2 after one line. */
int cli_plot_usable(const char *path, const char *size)
{
    cli_quoted q;
    const char *bad = name_problem(path), *why;
    chart_size sz;
    if (bad)
        return cli_error("plot file '%s' %s", cli_quote(&q, path), bad);
    if (size && parse_size(size, format_for(path), &sz, &why))
        return cli_error("--size '%s': %s", cli_quote(&q, size), why);
    if (gnuplot_timeout() < 0)
        return cli_error("KCUBE_GNUPLOT_TIMEOUT must be a number of seconds above 0 (at most 86400)");
    return 0;
}

int cli_plot_check_sized(const char *path, const char *size)
{
    int r = cli_plot_usable(path, size);
    return r ? r : cli_check_output(path);
}

int cli_plot_check(const char *path) { return cli_plot_check_sized(path, NULL); }

/* Run a whole script (NULL: out of memory) and write the image; frees text. */
static int draw(char *text, size_t len, int fmt, const char *path)
{
    cli_quoted q;
    image im = {0};
    const char *why = NULL, *name = cli_is_stdout(path) ? "standard output" : cli_quote(&q, path);
    double limit = gnuplot_timeout();
    int ran = text ? run_gnuplot(text, len, &im, limit, &why) : -1;
    if (!text)
        why = strerror(ENOMEM);
    else if (ran == 0 && !complete(&im, fmt))
        why = "gnuplot left an incomplete image", ran = -1;
    free(text);
    int rc = 0;
    if (ran > 0) {
        if (ran == 1)
            fprintf(stderr, "kcube: gnuplot did not finish %s in %g s: stopped it (KCUBE_GNUPLOT_TIMEOUT sets the limit)\n",
                    name, limit);
        else
            fprintf(stderr, "kcube: gnuplot did not finish %s: it wrote more than 256 MiB, stopped it\n", name);
        rc = CLI_EXIT_FAIL;
    } else if (ran < 0) {
        fprintf(stderr, "kcube: cannot draw %s: %s\n", name, why);
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
    int r = cli_plot_usable(path, p->size);
    if (r)
        return r;
    size_t len;
    int fmt = format_for(path);
    char *text = script(p, fmt, &len);
    return draw(text, len, fmt, path);
}

void cli_plot_quote(FILE *f, const char *s) { put_quoted(f, s); }

int cli_plot_custom(const char *path, const char *size, int width, int height,
                    void (*body)(FILE *f, const void *ctx), const void *ctx)
{
    int r = cli_plot_usable(path, size), fmt = format_for(path);
    if (r)
        return r;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        put_terminal(f, fmt, size, width, height, 10);
        body(f, ctx);
        fputs("\nunset output\n", f);
        if (fclose(f) != 0) {
            free(text);
            text = NULL;
        }
    }
    return draw(text, len, fmt, path);
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

int cli_plot_latency(const char *path, const char *size, const char *title, const char *subtitle,
                     const cli_plot_series *series, int count)
{
    cli_plot p;
    cli_plot_init(&p);
    p.size = size;
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
