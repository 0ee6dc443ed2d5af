/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What one ptrace stop costs the traced program, measured on this machine
 * at start-up and stored in the log header, so that the analysis can
 * subtract it from the times of the calls.  The cost depends on how long
 * the thread ran since its previous stop: stops in quick succession find
 * both CPUs awake (about 30 µs on the reference machine), stops a
 * millisecond apart pay for waking an idle CPU (three times as much).  So
 * the calibration is a curve, cost against interval.
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

/* A stop-cost curve prepared for lookups: each segment's slopes are
 * computed once.  Plain data, owned by whoever holds it. */
struct rt_stop_cost_fn {
	uint32_t n;
	uint64_t x[RT_STOP_COST_POINTS];   /* intervals, ns */
	uint64_t y[RT_STOP_COST_POINTS];   /* costs, ns */
	uint64_t p[RT_STOP_COST_POINTS];   /* parts before the time stamp */
	int64_t dy[RT_STOP_COST_POINTS];   /* slopes (32.32 fixed point) of */
	int64_t dp[RT_STOP_COST_POINTS];   /* the segments ending at each
					    * point; 0 at the first */
	bool plain[RT_STOP_COST_POINTS];   /* its products fit in 64 bits */
};

/* Fills @fn from @cost (which it does not keep). */
void rt_stop_cost_fn_init(struct rt_stop_cost_fn *fn,
			  const struct rt_stop_cost *cost);

/* Cost of a stop that came @interval_ns after the thread's previous one,
 * interpolated linearly between the points of @fn (0 when it has none);
 * in *pre the part of it that the program pays before the tracer's time
 * stamp of the stop (all of it when the curve has no split). */
uint64_t rt_stop_cost_split(const struct rt_stop_cost_fn *fn,
			    uint64_t interval_ns, uint64_t *pre);

#endif
