/* kcube/simplot.h - latency/throughput charts through gnuplot.
 *
 * One line per series: average latency (cycles) against accepted throughput
 * (flits/node/cycle), as in the seeds' figures. The format follows the file
 * name (.png or .svg). The chart is drawn into a temporary file next to the
 * target and renamed into place, so a failed run never leaves half a file. */
#ifndef KCUBE_SIMPLOT_H
#define KCUBE_SIMPLOT_H

#include "kcube/error.h"

typedef struct kc_simseries {
    const char *label;
    int count;
    const double *throughput;
    const double *latency;
} kc_simseries;

kc_status kc_simplot_write(const char *path, const char *title, const kc_simseries *series, int count,
                           kc_err *err);

/* Is the file name one we can draw (.png, .svg)? */
int kc_simplot_supported(const char *path);

#endif
