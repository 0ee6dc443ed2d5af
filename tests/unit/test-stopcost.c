// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the stop-cost curve's lookup (rt_stop_cost_split): the
 * cost at and between the calibration points, at both ends, across a step
 * and a falling segment, and the part before the time stamp.  Every
 * expected value is worked out by hand from the points below.
 */
#include <stdint.h>

#include "rtrace/stopcost.h"
#include "rtrace/compiler.h"
#include "unittest.h"

/* Three rising points, a step at 3000 (two points), a falling segment. */
static const struct rt_stop_cost curve = {
	.n = 5,
	.has_pre = true,
	.interval_ns = { 1000, 2000, 3000, 3000, 5000 },
	.cost_ns = { 100, 300, 400, 600, 200 },
	.pre_ns = { 50, 100, 100, 300, 100 },
};

static uint64_t cost_at(const struct rt_stop_cost *c, uint64_t interval,
			uint64_t *pre)
{
	struct rt_stop_cost_fn fn;

	rt_stop_cost_fn_init(&fn, c);
	return rt_stop_cost_split(&fn, interval, pre);
}

TEST_CASE(at_the_points)
{
	uint64_t pre;

	TEST_EQ(cost_at(&curve, 1000, &pre), 100);
	TEST_EQ(pre, 50);
	TEST_EQ(cost_at(&curve, 2000, &pre), 300);
	TEST_EQ(pre, 100);
	/* at a step, the first of its points (the segment that ends there) */
	TEST_EQ(cost_at(&curve, 3000, &pre), 400);
	TEST_EQ(pre, 100);
	TEST_EQ(cost_at(&curve, 5000, &pre), 200);
	TEST_EQ(pre, 100);
}

TEST_CASE(between_the_points)
{
	uint64_t pre;

	/* a quarter of the way from 1000 to 2000: 100 + 200 / 4 */
	TEST_EQ(cost_at(&curve, 1250, &pre), 150);
	TEST_EQ(pre, 63);   /* 50 + 50 / 4 = 62.5, to the nearest */
	/* past the step, halfway down from 600 to 200 */
	TEST_EQ(cost_at(&curve, 4000, &pre), 400);
	TEST_EQ(pre, 200);
	/* just past the step: from the step's second point, not its first
	 * (600 - 0.2 and 300 - 0.1, to the nearest) */
	TEST_EQ(cost_at(&curve, 3001, &pre), 600);
	TEST_EQ(pre, 300);
	TEST_EQ(cost_at(&curve, 3003, &pre), 599);
	TEST_EQ(pre, 300);
}

TEST_CASE(beyond_the_ends)
{
	uint64_t pre;

	TEST_EQ(cost_at(&curve, 0, &pre), 100);
	TEST_EQ(pre, 50);
	TEST_EQ(cost_at(&curve, 999, &pre), 100);
	TEST_EQ(cost_at(&curve, 5001, &pre), 200);
	TEST_EQ(pre, 100);
	/* the analysis's "no previous stop" */
	TEST_EQ(cost_at(&curve, UINT64_MAX, &pre), 200);
	TEST_EQ(pre, 100);
}

TEST_CASE(without_a_split)
{
	struct rt_stop_cost c = curve;
	uint64_t pre;

	c.has_pre = false;
	TEST_EQ(cost_at(&c, 1250, &pre), 150);
	TEST_EQ(pre, 150);   /* all of it before the stamp */
	TEST_EQ(cost_at(&c, 5001, &pre), 200);
	TEST_EQ(pre, 200);
}

TEST_CASE(empty_and_single)
{
	struct rt_stop_cost one = { .n = 1, .interval_ns = { 700 },
				    .cost_ns = { 30000 } };
	struct rt_stop_cost none = { 0 };
	uint64_t pre = 1;

	TEST_EQ(cost_at(&none, 1000, &pre), 0);
	TEST_EQ(pre, 0);
	TEST_EQ(cost_at(&one, 1, &pre), 30000);
	TEST_EQ(cost_at(&one, 1000000, &pre), 30000);
	TEST_EQ(pre, 30000);
}

/* A damaged log's curve: a step of more than two seconds and costs near
 * the top of the range must give a bounded answer, not wrap around. */
TEST_CASE(extreme_curve)
{
	struct rt_stop_cost c = {
		.n = 2, .has_pre = true,
		.interval_ns = { 0, UINT64_MAX / 2 },
		.cost_ns = { UINT64_MAX / 4, 0 },
		.pre_ns = { 0, UINT64_MAX / 4 },
	};
	struct rt_stop_cost steep = {
		.n = 2, .has_pre = true,
		.interval_ns = { 10, 11 },
		.cost_ns = { 0, UINT64_MAX },
		.pre_ns = { UINT64_MAX, 0 },
	};
	uint64_t pre, cost;

	cost = cost_at(&c, UINT64_MAX / 4, &pre);
	TEST_TRUE(cost <= UINT64_MAX / 4);
	TEST_TRUE(pre <= UINT64_MAX / 4);
	/* a step of 2^64 ns in 1 ns: the slope is held, the points hold */
	TEST_EQ(cost_at(&steep, 10, &pre), 0);
	TEST_EQ(pre, UINT64_MAX);
	TEST_EQ(cost_at(&steep, 11, &pre), UINT64_MAX);
	TEST_EQ(pre, 0);
}
