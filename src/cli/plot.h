/* Charts through gnuplot for the command line (moved out of libkcube).
 *
 * A generic x/y chart: title and subtitle, axis labels, optional log scales,
 * N series each with a label and x/y arrays. Every series has its own colour,
 * point type and dash pattern; a series equal to an earlier one is drawn so
 * both show and its key entry ends "(= EARLIER)"; the key sits below the plot
 * area. The image format follows the file name: .png (pngcairo), .svg,
 * .pdf (pdfcairo), .eps (epscairo); "-" and devices get PNG. --size WxH
 * sets the size (pixels, or inches or cm for PDF and EPS). Safety:
 *  - gnuplot is started without a shell (fork + execvp) and reads its script,
 *    data included (`$dN << EOD` blocks), on its standard input;
 *  - every user string is passed as a single-quoted gnuplot string (no
 *    backquote or backslash processing there; a quote is doubled) and drawn
 *    `noenhanced`, so `_` and `@` are literal;
 *  - title and labels with control bytes or invalid UTF-8 are SANITISED (shown
 *    escaped as \n, \xNN, like cli_quote, without the length cut); an output
 *    path with such bytes is REJECTED (exit 2), since it names a real file;
 *  - gnuplot is never given a file name: it writes the image on its standard
 *    output (a pipe read into memory, at most 256 MiB), so an output name
 *    such as '|cmd', '~/x.png' or '<x' is never seen by gnuplot (no shell, no
 *    home expansion); the bytes are checked complete (PNG signature and IEND
 *    chunk, SVG with </svg>, PDF and EPS with %%EOF) and only then written
 *    by cli_atomic_* (out.h):
 *    renamed into place for a file, in place for a device or FIFO, on
 *    standard output for "-" (drawn as PNG); otherwise one line names the
 *    file and nothing partial is left behind;
 *  - a watchdog bounds gnuplot: past KCUBE_GNUPLOT_TIMEOUT seconds (60 by
 *    default) or 256 MiB of output its process group is killed, one line
 *    says so (exit 1) and no file is written. */
#ifndef KC_CLI_PLOT_H
#define KC_CLI_PLOT_H

#include <stdio.h>

typedef struct cli_plot_series {
    const char *label; /* NULL: no key entry */
    int count;
    const double *x, *y;
} cli_plot_series;

/* How a series is drawn beyond the defaults (cli_plot.role, optional). */
typedef struct cli_plot_role {
    /* 0: the series' own colour; else 1 + the index of an earlier series
     * whose colour it takes (a curve and the paper's count for it). */
    int family;
    /* 0: a curve; 1, 2, 3: reference points (a paper's count) drawn as open
     * circles, squares or diamonds without a line, so a curve beneath them
     * shows through. A reference series with no points and a label is a
     * key entry alone, in black: what a marker means. */
    int reference;
} cli_plot_role;

/* Chart formats, by the file name's extension: .png .svg .pdf .eps. */
enum { CLI_PLOT_PNG, CLI_PLOT_SVG, CLI_PLOT_PDF, CLI_PLOT_EPS, CLI_PLOT_NFORMATS };

typedef enum cli_plot_style { CLI_PLOT_LINESPOINTS, CLI_PLOT_LINES, CLI_PLOT_POINTS } cli_plot_style;

typedef struct cli_plot {
    const char *title, *xlabel, *ylabel;
    /* A second title line, or NULL: where the chart comes from (seed
     * paper, figure) and how it was run. */
    const char *subtitle;
    int logx, logy;
    cli_plot_style style;
    /* Axis ranges; NAN leaves an end to gnuplot. */
    double xmin, xmax, ymin, ymax;
    const cli_plot_series *series;
    int nseries;
    /* nseries roles, or NULL: every series a curve of its own colour. */
    const cli_plot_role *role;
    /* --size WxH as the user gave it (checked by cli_plot_check_sized), or
     * NULL for the chart's own size. */
    const char *size;
} cli_plot;

/* A chart with everything automatic (no series yet). */
void cli_plot_init(cli_plot *p);

/* The chart format a file name's extension names (CLI_PLOT_PNG ..), or -1. */
int cli_plot_format_of(const char *path);

/* Is the file name one we can draw (.png, .svg, .pdf, .eps)? */
int cli_plot_supported(const char *path);

/* Is path standard output ("-"), an existing character device or FIFO?
 * Such a name needs no extension. */
int cli_plot_is_stream(const char *path);

/* Before long work: the name is "-", an existing character device or FIFO
 * (drawn as PNG unless it ends in another chart extension), or ends in
 * .png/.svg/.pdf/.eps; it holds no control bytes and can be written
 * (cli_check_output); size (or NULL) is a --size WxH the format takes
 * (pixels for PNG and SVG, inches or cm for PDF and EPS), and
 * KCUBE_GNUPLOT_TIMEOUT, if set, is a number of seconds. 0, or an exit
 * status after one line. */
int cli_plot_check_sized(const char *path, const char *size);
/* The same checks short of the file system (the name, size and the
 * watchdog's setting): what can be said while options are resolved. */
int cli_plot_usable(const char *path, const char *size);
/* cli_plot_check_sized without --size. */
int cli_plot_check(const char *path);

/* Draw. 0, or an exit status (1: gnuplot or the file system failed, or
 * the watchdog stopped gnuplot: it ran longer than KCUBE_GNUPLOT_TIMEOUT
 * seconds, 60 by default, or wrote more than 256 MiB; 2: bad file name or
 * size) after one line on stderr. */
int cli_plot_write(const cli_plot *p, const char *path);

/* A chart of another kind (a Gantt chart of a timeline): plot.c writes the
 * terminal line (size, else width x height pixels; the format as for
 * cli_plot_write),
 * body writes the rest of the script (data blocks and commands; every user
 * string through cli_plot_quote, numbers only otherwise), and the image
 * is checked and written exactly as cli_plot_write does. */
int cli_plot_custom(const char *path, const char *size, int width, int height,
                    void (*body)(FILE *f, const void *ctx), const void *ctx);
/* A gnuplot single-quoted string of s, made printable (control bytes and
 * invalid UTF-8 escaped). */
void cli_plot_quote(FILE *f, const char *s);

/* factor times the smallest positive y of all series when the largest is
 * beyond it, else NAN: keeps the readable part of a curve that explodes
 * (latency near saturation). */
double cli_plot_ycap(const cli_plot *p, double factor);

/* The simulator's chart (the figures of the reordering paper, seed 000):
 * average latency against accepted throughput, one series per
 * configuration, x = throughput; subtitle and size may be NULL. */
int cli_plot_latency(const char *path, const char *size, const char *title, const char *subtitle,
                     const cli_plot_series *series, int count);

#endif
