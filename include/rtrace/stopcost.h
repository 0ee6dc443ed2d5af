/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stop-cost curve of a log (cost of one ptrace stop against the time
 * since the thread's previous stop, measured by calibrate.h when the log
 * was recorded), prepared for the lookups the analysis makes at every
 * stop.  Pure arithmetic: the report side needs it, and nothing of the
 * tracer.
 */
#ifndef RTRACE_STOPCOST_H
#define RTRACE_STOPCOST_H

#include <stdbool.h>
#include <stdint.h>

#include "rtrace/evlog.h"

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
