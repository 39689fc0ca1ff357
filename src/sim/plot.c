/* Charts through gnuplot: data inline, output renamed into place. */
#include "kcube/simplot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *ext(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : "";
}

int kc_simplot_supported(const char *path)
{
    return !strcmp(ext(path), "png") || !strcmp(ext(path), "svg");
}

/* gnuplot strings are in double quotes; drop what would end them. */
static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        if (*s != '"' && *s != '\\' && *s != '\n')
            fputc(*s, f);
    fputc('"', f);
}

kc_status kc_simplot_write(const char *path, const char *title, const kc_simseries *series, int count,
                           kc_err *err)
{
    if (!kc_simplot_supported(path))
        return kc_fail(err, KC_EINVAL, "plot file '%s' must end in .png or .svg", path);
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len), *script = malloc(len);
    if (!tmp || !script) {
        free(tmp);
        free(script);
        return kc_fail(err, KC_ENOMEM, "out of memory");
    }
    snprintf(tmp, len, "%s.tmp%ld.%s", path, (long)getpid(), ext(path));
    snprintf(script, len, "%s.tmp%ld.gp", path, (long)getpid());
    FILE *f = fopen(script, "w");
    if (!f) {
        kc_status st = kc_fail(err, KC_EIO, "cannot write next to '%s': %s", path, strerror(errno));
        free(tmp);
        free(script);
        return st;
    }
    if (!strcmp(ext(path), "png"))
        fprintf(f, "set terminal pngcairo size 900,640 font 'sans,11'\n");
    else
        fprintf(f, "set terminal svg size 900,640 dynamic font 'sans,11'\n");
    fprintf(f, "set output ");
    quoted(f, tmp);
    fprintf(f, "\nset title ");
    quoted(f, title);
    fprintf(f, "\nset xlabel \"throughput (flits/node/cycle)\"\nset ylabel \"average latency (cycles)\"\n"
               "set key top left\nset grid\nset xrange [0:*]\n");
    /* Near saturation latency explodes; keep the interesting part in view. */
    double lo = 0, hi = 0;
    for (int s = 0; s < count; s++)
        for (int i = 0; i < series[s].count; i++) {
            double l = series[s].latency[i];
            if (l > 0 && (lo == 0 || l < lo))
                lo = l;
            if (l > hi)
                hi = l;
        }
    if (hi > 12 * lo && lo > 0)
        fprintf(f, "set yrange [0:%.0f]\n", 12 * lo);
    else
        fprintf(f, "set yrange [0:*]\n");
    for (int s = 0; s < count; s++) {
        fprintf(f, "$d%d << EOD\n", s);
        for (int i = 0; i < series[s].count; i++)
            fprintf(f, "%.6f %.3f\n", series[s].throughput[i], series[s].latency[i]);
        if (!series[s].count)
            fprintf(f, "NaN NaN\n");
        fprintf(f, "EOD\n");
    }
    fprintf(f, "plot ");
    for (int s = 0; s < count; s++) {
        fprintf(f, "%s$d%d using 1:2 with linespoints lw 2 pt %d title ", s ? ", " : "", s, 5 + s);
        quoted(f, series[s].label);
    }
    fprintf(f, "\n");
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    kc_status st = KC_OK;
    if (bad) {
        st = kc_fail(err, KC_EIO, "cannot write the gnuplot script for '%s'", path);
    } else {
        size_t cl = strlen(script) + 64;
        char *cmd = malloc(cl);
        if (!cmd) {
            st = kc_fail(err, KC_ENOMEM, "out of memory");
        } else {
            snprintf(cmd, cl, "gnuplot '%s' 2>/dev/null", script);
            int rc = strchr(script, '\'') ? -1 : system(cmd);
            free(cmd);
            if (rc != 0)
                st = kc_fail(err, KC_EIO, "gnuplot failed to draw '%s' (is gnuplot installed?)", path);
            else if (rename(tmp, path) != 0)
                st = kc_fail(err, KC_EIO, "cannot write '%s': %s", path, strerror(errno));
        }
    }
    remove(script);
    if (st)
        remove(tmp);
    free(tmp);
    free(script);
    return st;
}
