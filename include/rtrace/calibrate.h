/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What one ptrace stop costs the traced program, measured on this machine
 * at start-up and stored in the log header, so that the analysis can
 * subtract it from the times of the calls.  The cost depends on how long
 * the thread ran since its previous stop: stops in quick succession find
 * both CPUs awake (about 30 µs on the reference machine), stops a
 * millisecond apart pay for waking an idle CPU (three times as much).  So
 * the calibration is a curve, cost against interval (read by
 * stopcost.h).
 */
#ifndef RTRACE_CALIBRATE_H
#define RTRACE_CALIBRATE_H

#include <stdint.h>

#include "rtrace/evlog.h"

/* Runs a child that hits breakpoints after busy intervals of several
 * lengths while rtrace handles each stop like a probe hit, and fills @cost
 * with the trimmed-mean cost per stop at each interval (about 25 ms in
 * all).  Returns 0, or -errno (then cost->n is 0 and times will not be
 * compensated). */
int rt_calibrate_stop_cost(struct rt_stop_cost *cost);

#endif
