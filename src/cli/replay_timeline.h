/* replay_timeline.h - `kcube replay --timeline FILE` (both models): a
 * replay's timeline (kcube/timeline.h) as a file, Chrome trace events
 * (JSON) or a Gantt chart drawn by gnuplot.
 *
 * The file name decides: ending in .png, .svg, .pdf or .eps, a drawing
 * (through plot.h's safe path, --size as for charts): a row per rank up
 * to CLI_TIMELINE_MAX_ROWS ranks, above that rows of several ranks whose
 * colour is the busy kind that takes most of their time in each of
 * CLI_TIMELINE_BINS time bins; ending in .json, or "-" (standard output),
 * a device or FIFO without a chart's extension, the trace-event JSON; any
 * other name is refused (exit 2). Both are written by the checked, atomic
 * writer (out.h). */
#ifndef KC_CLI_REPLAY_TIMELINE_H
#define KC_CLI_REPLAY_TIMELINE_H

#include <stdint.h>

#include "kcube/timeline.h"

/* A drawing has at most this many rows; more ranks share rows. */
#define CLI_TIMELINE_MAX_ROWS 64
/* Time bins of a row of several ranks. */
#define CLI_TIMELINE_BINS 400
/* The memory gate's bytes an operation for a timeline: up to two 64-byte
 * slices (its own, and a send's hold or a receive's wait), a 16-byte flow,
 * with the growth's slack. */
#define CLI_TIMELINE_BYTES_PER_OP 260
/* Message arrows are drawn up to this many messages (a row a rank). */
#define CLI_TIMELINE_MAX_ARROWS 400

/* Is the timeline file a drawing (.png, .svg, .pdf, .eps)? */
int cli_timeline_drawn(const char *path);

/* Before the run: the name says JSON or a drawing and can be written, and
 * size (--size, or NULL) suits it. 0, or an exit status after one line. */
int cli_timeline_check(const char *path, const char *size);

/* Write tl; schedule and model (e.g. "network", "loggp") name the run in
 * the trace's metadata and the chart's title. JSON: {"traceEvents": [...],
 * "otherData": {...}}: a process per node and a
 * thread per rank and CPU (pid = node, tid = rank + ranks x cpu) and per
 * rank's lane of waits (tid = rank + ranks x (256 + lane)), named by "M"
 * events, one "X" event per slice (named by its kind; ts, dur in
 * microseconds; args peer, bytes, tag, op, and for a recv and a wait
 * posted_us and wait_us), and per message an "s" event on the
 * send's slice and an "f" event (bp "e") on the receive's, with one id.
 * O(slices + flows); the JSON is streamed, one event at a time. 0, or an
 * exit status after one line. */
int cli_timeline_write(const char *path, const char *size, const kc_timeline *tl, const char *schedule,
                       const char *model);

#endif
