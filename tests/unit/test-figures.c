// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The text report's line on rtrace's own costs: it names what was taken
 * out of the times, and calls them raw only when nothing was.
 */
#include <stdio.h>
#include <string.h>

#include "rtrace/output.h"
#include "rtrace/report.h"
#include "unittest.h"

/* What rt_text_figures() prints for a report with these costs (a static
 * buffer, overwritten by the next call). */
static const char *figures(uint64_t stop_ns, uint64_t jump_ns)
{
	static char text[256];
	struct rt_report rep = { .mode = RT_REPORT_TIMES };
	FILE *out = fmemopen(text, sizeof(text), "w");

	rep.sum.stop_cost_ns = stop_ns;
	rep.sum.inline_cost_ns = jump_ns;
	rt_text_figures(out, &rep);
	fclose(out);
	return text;
}

TEST_CASE(both_costs_named)
{
	TEST_STREQ(figures(13000, 11),
		   "times exclude rtrace's cost of 13.000 µs per stop and 11 ns "
		   "per jump-probe event (--raw-times keeps it)\n");
}

TEST_CASE(stop_cost_only)
{
	TEST_STREQ(figures(13000, 0),
		   "times exclude rtrace's cost of 13.000 µs per stop "
		   "(--raw-times keeps it)\n");
}

/* a run whose jump probes never stopped it inside a call: no stop cost
 * was measured, the jump-probe events' cost still comes out */
TEST_CASE(jump_cost_only_is_not_raw)
{
	TEST_STREQ(figures(0, 11), "times exclude rtrace's cost of 11 ns per "
				   "jump-probe event (--raw-times keeps it)\n");
}

TEST_CASE(raw_when_nothing_taken_out)
{
	TEST_TRUE(strncmp(figures(0, 0), "times are raw", 13) == 0);
}
