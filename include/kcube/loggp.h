/* kcube/loggp.h - the contention-free LogGP-style time of a GOAL schedule
 * (docs/goal.md): the processor model of the replay room (src/replay) with
 * no link shared. The schedule and its matching are kcube/goal.h's. */
#ifndef KCUBE_LOGGP_H
#define KCUBE_LOGGP_H

#include <stdint.h>

#include "kcube/error.h"
#include "kcube/goal.h"

/* ---- Contention-free timing (LogGP-style) ---- */
typedef struct kc_goal_timing {
    double startup_us;   /* per message, on the sender's processor (164) */
    double byte_time_us; /* per byte, once per message (0.57) */
} kc_goal_timing;
#define KC_GOAL_TIMING_DEFAULT {164.0, 0.57}

/* The makespan (µs) of a validated schedule with its matching: a send keeps
 * its processor busy for startup_us and its data arrives amount x
 * byte_time_us later; a calc keeps it busy for its time; a recv ends when
 * it has started and its data has arrived, and costs no processor time; a
 * processor runs its ready operations one at a time in the order they become
 * ready (ties: file order); no link is shared. finish_us[r] (may be NULL)
 * receives each rank's last end time. */
kc_status kc_goal_loggp(const kc_goal *g, const kc_goal_match *m, const kc_goal_timing *t, double *total_us,
                        double *finish_us, kc_err *err);
/* kc_goal_loggp with ranks placed on nodes and the run recorded (the timelines of docs/appsim.md):
 * node_of[r] (may be NULL: every rank alone) is rank r's node, and a message
 * between two ranks of one node arrives when its start-up ends (no byte
 * time: it does not enter the network, docs/appsim.md); tl (may be NULL, see
 * kcube/timeline.h) receives one slice per operation and one flow per
 * message. Same cost, plus O(ops) for the timeline. */
struct kc_timeline;
kc_status kc_goal_loggp_record(const kc_goal *g, const kc_goal_match *m, const kc_goal_timing *t,
                               const uint32_t *node_of, double *total_us, double *finish_us, struct kc_timeline *tl,
                               kc_err *err);

#endif
