/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The progress line while rtrace traces: one line on stderr, rewritten in
 * place at most four times a second, with the time so far, the calls, the
 * events per second, the stops and the log's size.  Drawn by the trace
 * loop when it wakes anyway (a stop, the ring timer); it never wakes the
 * loop itself.  SIGUSR1 asks for an interim report (interim.h): the
 * handler only notes it, the loop makes it.  Process-wide state: one
 * session at a time.
 */
#ifndef RTRACE_PROGRESS_H
#define RTRACE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "rtrace/opts.h"

/* What the line shows, gathered by the loop when a redraw is due. */
struct rt_progress_figures {
	uint64_t calls;      /* entries recorded */
	uint64_t events;     /* events recorded */
	uint64_t stops;      /* ptrace stops */
	uint64_t log_bytes;  /* the log's size so far */
	uint64_t window_bytes;  /* a flight recorder's events kept so far,
				 * not yet in the log; 0 for other logs */
	bool window;         /* a flight recorder (--keep=TIME|SIZE) */
};

/* Starts the clock of the line (SIGUSR1: rt_progress_listen()).  The line is shown
 * when stderr is a terminal, or always with --progress; never with
 * --quiet, nor in a scripted session (its prompt and output have the
 * terminal) unless --progress asks. */
void rt_progress_start(const struct rt_opts *o);

/* Catches SIGUSR1 from now on: a request for an interim report, served
 * once the trace loop runs.  Called before anything slow (calibration,
 * the launch), so that an early signal does not kill rtrace. */
void rt_progress_listen(void);

/* Whether the line is shown and a redraw is due: one clock read. */
bool rt_progress_due(void);

/* Draws the line with @f (a terminal: in place; else a line a second). */
void rt_progress_draw(const struct rt_progress_figures *f);

/* Erases the line from the terminal, if it is there, before anything
 * else is printed; the next draw brings it back. */
void rt_progress_clear(void);

/* Erases the line for good: the trace is over. */
void rt_progress_stop(void);

/* Whether SIGUSR1 came since the last call (and forgets it). */
bool rt_progress_report_asked(void);

#endif
