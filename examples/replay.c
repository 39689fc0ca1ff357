/* examples/replay.c - build and replay a communication schedule.
 * Seed 000's parallel FFT on the 4-cube as a GOAL schedule (the format
 * `kcube replay` reads), checked for matching sends and receives, then timed
 * with the nCUBE 2's message costs, no link shared; written to standard
 * output when given "-w". Build: cc replay.c $(pkg-config --cflags --libs kcube) */
#include <stdio.h>
#include <string.h>

#include <kcube/goal.h>
#include <kcube/loggp.h>

int main(int argc, char **argv)
{
    kc_goal g;
    kc_goal_match m = {0};
    kc_goal_timing timing = KC_GOAL_TIMING_DEFAULT;
    kc_err err = {0};
    double total_us = 0;
    if (kc_goal_init(&g, 16, &err) || kc_goal_gen_fft(&g, 4, 1, 5120, 4470, &err))
        return fprintf(stderr, "replay: %s\n", err.msg), 1;
    kc_status s = kc_goal_validate(&g, 16, &m, &err);
    if (!s)
        s = kc_goal_loggp(&g, &m, &timing, &total_us, NULL, &err);
    if (!s && argc > 1 && strcmp(argv[1], "-w") == 0)
        s = kc_goal_write(&g, stdout, &err);
    else if (!s)
        printf("FFT on the 4-cube: %zu messages, %.1f us without contention\n", m.messages, total_us);
    if (s)
        fprintf(stderr, "replay: %s\n", err.msg);
    kc_goal_match_free(&m);
    kc_goal_free(&g);
    return s ? 1 : 0;
}
