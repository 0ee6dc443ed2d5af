// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rows' marks and shares (marks.h) on reports built by hand, so that
 * each figure is known: a run of 1 s (start at 1 s, end at 2 s), a stop
 * costing 20 µs (its time uncertain by 2 µs: a call recorded at stops is
 * too short under 4 * 2 * 2 µs = 16 µs), an inline event costing 10 ns
 * (too short under 4 * 2 * 10 ns = 80 ns).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/marks.h"
#include "rtrace/refusal.h"
#include "unittest.h"

static struct rt_log_info info = { .start_ns = 1000000000,
				   .stop_cost_ns = 20000 };
static struct rt_log_end end = { .end_ns = 2000000000,
				 .how = RT_END_EXITED };

/* g's probes stopped the program 12 times, f's never */
static struct rt_report_stopped stopped_g[] = { { "g", 12 } };

static struct rt_report inline_run(void)
{
	return (struct rt_report){
		.mode = RT_REPORT_TIMES, .info = &info, .end = &end,
		.sum = { .stop_cost_ns = 20000, .inline_cost_ns = 10 },
		.sites = 4, .inline_sites = 4,
		.stopped = stopped_g, .nstopped = 1,
	};
}

static struct rt_report_row row(const char *name, uint64_t calls,
				uint64_t total, uint64_t taken)
{
	return (struct rt_report_row){
		.name = name, .instances = 1,
		.st = { .calls = calls, .total = total, .self = total / 2,
			.sum_incl = total, .taken = taken },
	};
}

static unsigned marks_of(const struct rt_report *rep,
			 struct rt_report_row r)
{
	return rt_row_marks(rep, &r);
}

TEST_CASE(shares_of_the_run)
{
	struct rt_report rep = inline_run();

	TEST_EQ(rt_report_run_ns(&rep), 1000000000);
	TEST_TRUE(rt_report_pct(&rep, 250000000) == 25.0);
	/* cut short: the run ends at its last event */
	rep.end = NULL;
	rep.sum.last_ts = 1500000000;
	TEST_TRUE(rt_report_pct(&rep, 250000000) == 50.0);
	rep.sum.last_ts = 0;
	TEST_TRUE(rt_report_pct(&rep, 250000000) == 0.0);
}

TEST_CASE(compensated)
{
	struct rt_report rep = inline_run();

	/* 1,000 calls of 1 µs: 1 ms left of 3 ms measured */
	TEST_EQ(marks_of(&rep, row("f", 1000, 1000000, 2000000)),
		RT_MARK_COMPENSATED);
	/* as much taken out as left: not more than half */
	TEST_EQ(marks_of(&rep, row("f", 1000, 1000000, 1000000)), 0);
}

TEST_CASE(stops)
{
	struct rt_report rep = inline_run();

	TEST_EQ(marks_of(&rep, row("g", 10, 10000000, 0)), RT_MARK_STOPS);
	TEST_EQ(marks_of(&rep, row("f", 10, 10000000, 0)), 0);
	/* no site patched, nothing recorded in the program: every row */
	rep.inline_sites = 0;
	rep.sum.inline_cost_ns = 0;
	rep.sum.stop_events = 40;
	TEST_EQ(marks_of(&rep, row("f", 10, 10000000, 0)), RT_MARK_STOPS);
}

TEST_CASE(too_short)
{
	struct rt_report rep = inline_run();

	/* inline events: 79 ns a call is too short, 80 ns is not */
	TEST_EQ(marks_of(&rep, row("f", 1000, 79000, 0)), RT_MARK_SHORT);
	TEST_EQ(marks_of(&rep, row("f", 1000, 80000, 0)), 0);
	/* at stops: 15 µs a call is too short, 16 µs is not */
	TEST_EQ(marks_of(&rep, row("g", 10, 150000, 0)),
		RT_MARK_STOPS | RT_MARK_SHORT);
	TEST_EQ(marks_of(&rep, row("g", 10, 160000, 0)), RT_MARK_STOPS);
}

TEST_CASE(no_marks_without_times)
{
	struct rt_report rep = inline_run();
	struct rt_report_row r = row("f", 1000, 0, 5000);

	rep.mode = RT_REPORT_COUNT;
	TEST_EQ(rt_row_marks(&rep, &r), 0);
	/* calls the compiler inlined only, none with its end probed: no
	 * time of their own */
	rep.mode = RT_REPORT_TIMES;
	r.st.inlined = r.st.untimed = r.st.calls;
	TEST_EQ(rt_row_marks(&rep, &r), 0);
}

TEST_CASE(letters_and_legend)
{
	struct rt_report rep = inline_run();
	struct rt_report_row rows[] = { row("f", 1000, 1000, 5000) };
	char m[RT_MARKS + 1], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	TEST_STREQ(rt_marks_letters(RT_MARK_COMPENSATED | RT_MARK_SHORT, m),
		   "CT");
	TEST_STREQ(rt_marks_letters(0, m), "");
	TEST_STREQ(rt_mark_word(1), "stops");
	rep.rows = rows;
	rep.nrows = rep.nrows_all = 1;
	rt_marks_legend(f, &rep);
	fclose(f);
	TEST_TRUE(strstr(buf, "\nC: ") && strstr(buf, "\nT: ") &&
		  !strstr(buf, "\nS: ") && strstr(buf, "under 80 ns (16.000 "
						       "µs with stops)"));
	free(buf);
}

/* --raw-times: nothing taken out, so the report has no cost per event
 * (the analysis leaves both at 0) and knows only the stop's cost in the
 * log's header: calls recorded in the program are not marked, those at
 * stops are under 16 µs, and the legend says that rule. */
TEST_CASE(too_short_raw)
{
	struct rt_report rep = inline_run();
	struct rt_report_row rows[] = { row("f", 1000, 79000, 0),
					row("g", 10, 150000, 0) };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rep.sum.stop_cost_ns = 0;
	rep.sum.inline_cost_ns = 0;
	TEST_EQ(marks_of(&rep, rows[0]), 0);
	TEST_EQ(marks_of(&rep, row("f", 1000, 15000000, 0)), 0);
	TEST_EQ(marks_of(&rep, rows[1]), RT_MARK_STOPS | RT_MARK_SHORT);
	TEST_EQ(marks_of(&rep, row("g", 10, 160000, 0)), RT_MARK_STOPS);
	rep.rows = rows;
	rep.nrows = rep.nrows_all = 2;
	rt_marks_legend(f, &rep);
	fclose(f);
	TEST_TRUE(strstr(buf, "under 16.000 µs for calls recorded at stops "
			      "(with --raw-times, calls recorded without a "
			      "stop are not marked)") != NULL);
	TEST_TRUE(strstr(buf, "with stops)") == NULL);
	free(buf);
}

/* P and V say the count misses calls: in every mode, with or without
 * times; the legend gives the reason of the refused instances. */
TEST_CASE(inlined_marks)
{
	struct rt_report rep = inline_run();
	struct rt_report_row rows[] = { row("f", 1000, 1000000, 0),
					row("g", 10, 0, 0) };
	char m[RT_MARKS + 1], *buf = NULL;
	size_t len = 0;
	FILE *f;

	rows[0].inlined_refused = 2;
	rows[0].inlined_why = RT_REFUSE_LOOP_HEAD;
	rows[1].inlined_packed = 1;
	TEST_EQ(rt_row_marks(&rep, &rows[0]), RT_MARK_PARTIAL);
	rep.mode = RT_REPORT_COUNT;
	TEST_EQ(rt_row_marks(&rep, &rows[0]), RT_MARK_PARTIAL);
	TEST_EQ(rt_row_marks(&rep, &rows[1]), RT_MARK_VECTOR);
	TEST_STREQ(rt_marks_letters(RT_MARK_SHORT | RT_MARK_PARTIAL |
				    RT_MARK_VECTOR, m), "TPV");
	TEST_STREQ(rt_mark_word(3), "blocked");
	TEST_STREQ(rt_mark_word(4), "partial");
	TEST_STREQ(rt_mark_word(5), "vectorised");
	rep.rows = rows;
	rep.nrows = rep.nrows_all = 2;
	f = open_memstream(&buf, &len);
	rt_marks_legend(f, &rep);
	fclose(f);
	TEST_TRUE(strncmp(buf, "P: partial", 10) == 0 &&
		  strstr(buf, rt_refusal_str(RT_REFUSE_LOOP_HEAD)) &&
		  strstr(buf, "\nV: vectorised") && !strstr(buf, "%: "));
	free(buf);
}

/* L says the count is a lower bound: a row with events of its own lost,
 * every row when some lost event is no function's or the log stopped
 * taking events early; in every mode, the legend saying why. */
TEST_CASE(lost_marks)
{
	static const struct rt_log_losses mine = {
		.events = 7, .reasons = RT_LOSS_SILENT, .processes = 1 };
	static const struct rt_log_losses anyones = {
		.events = 9, .unattributed = 2, .reasons = RT_LOSS_NOSLOT };
	struct rt_log_end early = end;
	struct rt_report rep = inline_run();
	struct rt_report_row rows[] = { row("f", 1000, 1000000, 0),
					row("h", 10, 1000000, 0) };
	char m[RT_MARKS + 1], *buf = NULL;
	size_t len = 0;
	FILE *f;

	rows[0].lost = 7;
	TEST_EQ(rt_row_marks(&rep, &rows[0]), RT_MARK_LOST);
	rep.losses = &mine;
	TEST_EQ(rt_row_marks(&rep, &rows[0]), RT_MARK_LOST);
	TEST_EQ(rt_row_marks(&rep, &rows[1]), 0);
	rep.mode = RT_REPORT_COUNT;
	TEST_EQ(rt_row_marks(&rep, &rows[0]), RT_MARK_LOST);
	TEST_STREQ(rt_marks_letters(RT_MARK_PARTIAL | RT_MARK_LOST, m), "PL");
	TEST_STREQ(rt_mark_word(6), "lost");
	rep.rows = rows;
	rep.nrows = rep.nrows_all = 2;
	f = open_memstream(&buf, &len);
	rt_marks_legend(f, &rep);
	fclose(f);
	TEST_STREQ(buf, "L: lost: its count is a lower bound: some events "
			"were not recorded (rtrace did not answer for "
			"seconds, and the program went on without "
			"recording).\n");
	free(buf);
	TEST_STREQ(rt_loss_why(RT_LOSS_PROGRAM),
		   "the program turned recording off, writing rtrace's event "
		   "area");
	TEST_STREQ(rt_loss_why(RT_LOSS_SILENT | RT_LOSS_NOSLOT),
		   "rtrace did not answer for seconds, and more threads "
		   "recorded at once than the event area has slots for");
	TEST_STREQ(rt_loss_why(RT_LOSS_NOSLOT | RT_LOSS_PROGRAM |
			       RT_LOSS_DAMAGED),
		   "more threads recorded at once than the event area has "
		   "slots for, the program turned recording off, writing "
		   "rtrace's event area, and the program wrote over rtrace's "
		   "event area");
	TEST_STREQ(rt_loss_why(1u << 4), "the log does not say why");
	rep.losses = &anyones;
	TEST_EQ(rt_row_marks(&rep, &rows[1]), RT_MARK_LOST);
	rep.losses = NULL;
	rows[0].lost = 0;
	early.flags = RT_END_FSIZE;
	rep.end = &early;
	TEST_EQ(rt_row_marks(&rep, &rows[0]), RT_MARK_LOST);
	f = open_memstream(&buf, &len);
	rt_marks_legend(f, &rep);
	fclose(f);
	TEST_TRUE(strstr(buf, "recording stopped before the end (rtrace's "
			      "file size limit).\n") != NULL);
	free(buf);
	early.flags = 0;
	early.dropped = 3;
	TEST_EQ(rt_row_marks(&rep, &rows[1]), RT_MARK_LOST);
}
