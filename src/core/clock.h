/* The library's one wall clock: monotonic seconds, for the time a run or a
 * start took and for wall-clock caps. Never for results: a result must not
 * depend on how fast the machine is. */
#ifndef KCI_CORE_CLOCK_H
#define KCI_CORE_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock since an arbitrary origin (differences
 * only); 0 where the clock cannot be read. */
static inline double kci_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
