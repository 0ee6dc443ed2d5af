// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lookups in a stop-cost curve (stopcost.h): linear between its points,
 * in integers, since the analysis makes one at every stop of a log.
 */
#include <stdlib.h>
#include <string.h>

#include "rtrace/stopcost.h"
#include "rtrace/util.h"

/* Slope of a segment in ns per ns, in 32.32 fixed point. */
static int64_t fixed_slope(uint64_t y0, uint64_t y1, uint64_t dx)
{
	double slope = ((double)y1 - (double)y0) / (double)dx;

	/* a damaged log's step may be steeper than 2^31 ns per ns, which
	 * would not fit: a second per ns is far past any real curve */
	slope = slope > 1e9 ? 1e9 : slope < -1e9 ? -1e9 : slope;
	/* to the nearest: a truncated slope would shave a nanosecond off
	 * the far end of every rising segment */
	return (int64_t)(slope * 4294967296.0 + (slope < 0 ? -0.5 : 0.5));
}

/* Whether segment @i (x[i - 1] < x[i]) computes in plain 64-bit signed
 * arithmetic: slope times any distance within it, rounded, plus either
 * end's figures.  A real curve's do (costs of microseconds); a damaged
 * log's may not. */
static bool fits(const struct rt_stop_cost_fn *fn, uint32_t i)
{
	uint64_t width = fn->x[i] - fn->x[i - 1];
	uint64_t lim = (uint64_t)1 << 61;

	return width < lim && fn->y[i - 1] < lim && fn->p[i - 1] < lim &&
	       (uint64_t)llabs(fn->dy[i]) < lim / width &&
	       (uint64_t)llabs(fn->dp[i]) < lim / width;
}

void rt_stop_cost_fn_init(struct rt_stop_cost_fn *fn,
			  const struct rt_stop_cost *cost)
{
	memset(fn, 0, sizeof(*fn));
	fn->n = MIN(cost->n, RT_STOP_COST_POINTS);
	for (uint32_t i = 0; i < fn->n; i++) {
		fn->x[i] = cost->interval_ns[i];
		fn->y[i] = cost->cost_ns[i];
		fn->p[i] = cost->has_pre ? cost->pre_ns[i] : cost->cost_ns[i];
		/* a segment of no width is a step: its right point holds */
		if (i && fn->x[i] > fn->x[i - 1]) {
			fn->dy[i] = fixed_slope(fn->y[i - 1], fn->y[i],
						fn->x[i] - fn->x[i - 1]);
			fn->dp[i] = fixed_slope(fn->p[i - 1], fn->p[i],
						fn->x[i] - fn->x[i - 1]);
			fn->plain[i] = fits(fn, i);
		}
	}
}

/* y0 + slope * d to the nearest ns, never below 0.  Within a segment
 * |slope * d| is under |y1 - y0| * 2^32, so only a step of two seconds
 * overflows: it is held at the limit. */
static uint64_t along(uint64_t y0, int64_t slope, uint64_t d)
{
	int64_t prod;
	uint64_t off;

	if (d > INT64_MAX || __builtin_mul_overflow(slope, (int64_t)d, &prod))
		prod = slope < 0 ? INT64_MIN : INT64_MAX;
	/* halved first, so that INT64_MIN has a magnitude */
	off = ((uint64_t)(prod < 0 ? -(prod / 2) : prod / 2) + (1ULL << 30)) >> 31;
	if (prod >= 0)
		return y0 + off;
	return y0 > off ? y0 - off : 0;
}

/* y0 + slope * d to the nearest ns, for a segment whose figures all fit
 * (fits()): plain 64-bit arithmetic. */
static inline uint64_t along_plain(uint64_t y0, int64_t slope, uint64_t d)
{
	int64_t y = (int64_t)y0 + ((slope * (int64_t)d + (1LL << 31)) >> 32);

	return y > 0 ? (uint64_t)y : 0;
}

uint64_t rt_stop_cost_split(const struct rt_stop_cost_fn *fn,
			    uint64_t interval_ns, uint64_t *pre)
{
	uint32_t i = 0;
	uint64_t d;

	if (!fn->n) {
		*pre = 0;
		return 0;
	}
	/* stops far apart are common and cost the last point's */
	if (interval_ns > fn->x[fn->n - 1])
		i = fn->n;
	while (i < fn->n && interval_ns > fn->x[i])
		i++;
	/* at a point, its own figures, whatever the slope's rounding */
	if (i == 0 || i == fn->n || interval_ns == fn->x[i] ||
	    (!fn->dy[i] && !fn->dp[i])) {
		i = i == fn->n ? i - 1 : i;
		*pre = fn->p[i];
		return fn->y[i];
	}
	/* integers and a slope, not a division: this runs at every stop of
	 * a report */
	d = interval_ns - fn->x[i - 1];
	if (likely(fn->plain[i])) {
		*pre = along_plain(fn->p[i - 1], fn->dp[i], d);
		return along_plain(fn->y[i - 1], fn->dy[i], d);
	}
	*pre = along(fn->p[i - 1], fn->dp[i], d);
	return along(fn->y[i - 1], fn->dy[i], d);
}
