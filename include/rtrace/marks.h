/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a report's figures are worth, per row, and what share of the run
 * they are.  A row is marked when its times are mostly rtrace's own cost
 * taken out (C), when its probes stopped the program (S), when its
 * calls are too short for the clock and the compensation to time (T), or
 * when it spent more of its own time blocked than running (B); and, in
 * every mode, when its count misses calls: some of its inlined instances
 * could not be probed (P) or run several calls at once (V), or some of
 * its events were not recorded (L).
 * The percentages are of the run's duration, the one the header gives.
 * Every format shows the same marks and shares: text, CSV, JSON, HTML.
 */
#ifndef RTRACE_MARKS_H
#define RTRACE_MARKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rtrace/report.h"

enum rt_mark {
	RT_MARK_COMPENSATED = 1 << 0,  /* C: more than half of the measured
					* time was rtrace's, taken out */
	RT_MARK_STOPS = 1 << 1,        /* S: its probes stopped the program */
	RT_MARK_SHORT = 1 << 2,        /* T: calls too short to time */
	RT_MARK_BLOCKED = 1 << 3,      /* B: more of its own time was spent
					* blocked (libc's waiting calls)
					* than running */
	RT_MARK_PARTIAL = 1 << 4,      /* P: some of its inlined instances
					* could not be probed: its count is
					* a lower bound */
	RT_MARK_VECTOR = 1 << 5,       /* V: some of its inlined instances
					* are vectorised: an entry counted
					* may be several calls */
	RT_MARK_LOST = 1 << 6,         /* L: some of its events were not
					* recorded (or some event of the
					* run's that no function is known
					* for): its count is a lower bound */
};
#define RT_MARKS 7                     /* how many kinds of mark */

/* The run's duration in ns, from its start to its end (or its last event
 * when the log is cut short): what the percentages divide. */
uint64_t rt_report_run_ns(const struct rt_report *rep);

/* @ns as a percentage of rt_report_run_ns() (0 when that is 0). */
double rt_report_pct(const struct rt_report *rep, uint64_t ns);

/* The marks (enum rt_mark) of row @r; only P, V and L in a report
 * without times. */
unsigned rt_row_marks(const struct rt_report *rep,
		      const struct rt_report_row *r);

/* Whether a shown row of @rep has blocked time (the text table's blocked
 * column is shown then). */
bool rt_report_any_blocked(const struct rt_report *rep);

/* @marks as letters ("CS"), into @buf of RT_MARKS + 1 bytes at least;
 * returns @buf. */
const char *rt_marks_letters(unsigned marks, char *buf);

/* The word of mark @i (0 to RT_MARKS - 1) for JSON: "compensated",
 * "stops", "short", "blocked", "partial", "vectorised", "lost"; static. */
const char *rt_mark_word(unsigned i);

/* Why events were not recorded, in words, for @reasons (enum
 * rt_loss_reason); static. */
const char *rt_loss_why(uint32_t reasons);

/* "N events not recorded (why)" for the losses @l, into @buf; returns
 * @buf, or NULL when @l is NULL (nothing was lost). */
const char *rt_fmt_losses(char *buf, size_t len,
			  const struct rt_log_losses *l);

/* The legend: a line for each mark some row of @rep carries, and one
 * for the percentages, to @out. */
void rt_marks_legend(FILE *out, const struct rt_report *rep);

#endif
